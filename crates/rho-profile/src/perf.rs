//! Sampled per-function figures of one benchmark's measured loop, from `perf script`'s text of a
//! `perf record --call-graph dwarf` of that loop alone (the harness turns sampling on and off at the loop's
//! ends: c/include/rho/bench.h, "Sampling"). Not counts: each function's share of the loop's samples, its
//! own (the sample's innermost frame) and inclusive (anywhere in the sample's call chain from the benchmark's
//! function down), scaled to nanoseconds per iteration by the timed run's figure.

use std::collections::{BTreeMap, BTreeSet};

use crate::callgrind::demangled;
pub use crate::net::Sampling;
use crate::net::{FunctionFigures, Functions};

/// `Functions::source` of a sampled list.
pub const SOURCE: &str = "perf";

/// Samples per function of one loop.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Samples {
    pub total: u64,
    /// Per function: (own, inclusive) samples.
    pub functions: BTreeMap<String, (u64, u64)>,
}

/// Reads `perf script -F ip,sym` text: one sample a block of frame lines (`ADDRESS SYMBOL`, innermost
/// first), blocks apart by blank lines. Each chain is cut above `root` (the benchmark's function: the
/// harness's frames under it are not the benchmark's); a chain without it (unwinding stopped short) counts
/// for its innermost frame only. An unknown symbol is `[unknown]`.
pub fn samples(script: &str, root: &str) -> Samples {
    let mut samples = Samples::default();
    let mut chain: Vec<String> = Vec::new();
    for line in script.lines().chain(std::iter::once("")) {
        let line = line.trim();
        if line.is_empty() {
            add_chain(&mut samples, &chain, root);
            chain.clear();
            continue;
        }
        // `ADDRESS SYMBOL`; the symbol may hold spaces (a C++ signature).
        let symbol = line
            .split_once(char::is_whitespace)
            .map_or("[unknown]", |(_, symbol)| symbol.trim());
        chain.push(demangled(symbol));
    }
    samples
}

fn add_chain(samples: &mut Samples, chain: &[String], root: &str) {
    let Some(innermost) = chain.first() else {
        return;
    };
    samples.total += 1;
    let kept = match chain.iter().position(|name| name == root) {
        Some(at) => &chain[..=at],
        None => &chain[..1],
    };
    samples.functions.entry(innermost.clone()).or_default().0 += 1;
    let distinct: BTreeSet<&String> = kept.iter().collect();
    for name in distinct {
        samples.functions.entry(name.clone()).or_default().1 += 1;
    }
}

/// The loop's functions, each share scaled by `sampling.ns_per_iteration`: the top `limit` by own samples
/// (where the time is spent, as `perf report` lists them), ties by inclusive then name, the rest "other".
pub fn functions(samples: &Samples, sampling: Sampling, limit: usize) -> Functions {
    let per = |count: u64| {
        if samples.total == 0 {
            0.0
        } else {
            count as f64 / samples.total as f64 * sampling.ns_per_iteration
        }
    };
    let mut rows: Vec<(u64, u64, FunctionFigures)> = samples
        .functions
        .iter()
        .map(|(name, &(own, inclusive))| {
            (
                own,
                inclusive,
                FunctionFigures {
                    name: name.clone(),
                    file: None,
                    line: None,
                    self_per_iteration: per(own),
                    inclusive_per_iteration: per(inclusive),
                    calls: Vec::new(),
                },
            )
        })
        .collect();
    rows.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| b.1.cmp(&a.1))
            .then_with(|| a.2.name.cmp(&b.2.name))
    });
    let mut listed = crate::net::top(rows.into_iter().map(|r| r.2).collect(), limit, SOURCE);
    listed.sampling = Some(sampling);
    listed
}

/// The event a `perf evlist` line names, without its modifiers (`cpu-clock:uH` is `cpu-clock`).
pub fn event_name(evlist: &str) -> Option<String> {
    let line = evlist
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))?;
    Some(line.split(':').next().unwrap_or(line).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "
\t    11a9 hot_function
\t    1069 bench_hot
\t   27249 rho_bench__run_measured
\t   27304 main

\t    11a2 hot_function
\t    1069 bench_hot
\t   27249 main

\t    1100 bench_hot
\t   27249 main

\t    3000 memcpy
";

    #[test]
    fn own_and_inclusive_samples_stop_at_the_benchmarks_function() {
        let samples = samples(SCRIPT, "bench_hot");
        assert_eq!(samples.total, 4);
        assert_eq!(samples.functions["hot_function"], (2, 2));
        assert_eq!(samples.functions["bench_hot"], (1, 3));
        // A chain cut short counts for its innermost frame only; the harness's frames are not counted.
        assert_eq!(samples.functions["memcpy"], (1, 1));
        assert!(!samples.functions.contains_key("main"));
        let listed = functions(
            &samples,
            Sampling {
                event: "cpu-clock".to_string(),
                samples: samples.total,
                call_graph: "dwarf".to_string(),
                ns_per_iteration: 100.0,
            },
            2,
        );
        let names: Vec<&str> = listed.listed.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["hot_function", "bench_hot"]);
        assert_eq!(listed.listed[0].self_per_iteration, 50.0);
        assert_eq!(listed.listed[1].inclusive_per_iteration, 75.0);
        assert_eq!(
            (listed.other.functions, listed.other.self_per_iteration),
            (1, 25.0)
        );
        assert_eq!(listed.source, SOURCE);
        assert_eq!(event_name("cpu-clock:uH\n").as_deref(), Some("cpu-clock"));
        assert_eq!(event_name("cycles:u\n").as_deref(), Some("cycles"));
    }
}
