//! `rho bench gate --shard K/N`: the gate judges share K of N of the benchmarks, so that the jobs of a CI
//! matrix each gate a share and `rho bench merge` puts the verdicts together (docs/ci.md).
//!
//! The gate learns its benchmarks by running them, and two sides may hold different ones, so the partition is
//! of each benchmark's name alone: a benchmark is in share `FNV-1a-64(name) mod N + 1`. Every job, and both
//! sides, compute the same share for a name without any list and without talking to each other. Counting
//! under Callgrind, each side first lists its benchmarks (one native run of each job at the lowest scale,
//! [`LISTING`]) and its one counted run runs only the share's, through `RHO_BENCH_FILTER`. Timed, the first
//! run of each side runs every benchmark (their names are not known before it) and keeps only the share's;
//! later runs (time, adaptive) run only the share's.

use std::collections::BTreeMap;

use crate::run_metrics::RunMetrics;

/// What a counted share's listing run adds to a job's environment (crate::run): every benchmark once (the
/// lowest scale: one iteration), no warm-up; its names are all it is for.
pub const LISTING: [(&str, &str); 2] = [
    ("RHO_BENCH_SCALE", "0.000000001"),
    ("RHO_BENCH_WARMUP", "0"),
];

/// How the gate's shares are cut, as its `--json` names it (the merge refuses shares cut otherwise).
pub const PARTITION: &str = "gate-name-fnv1a64";

/// Share `index` of `count`, both from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateShard {
    pub index: u32,
    pub count: u32,
}

/// The share (from 1) of `count` that benchmark `name` is in.
pub fn share_of(name: &str, count: u32) -> u32 {
    // FNV-1a: stable across machines and versions, which the standard library's hasher is not.
    let mut hash = fnv::FnvHasher::default();
    std::hash::Hasher::write(&mut hash, name.as_bytes());
    (std::hash::Hasher::finish(&hash) % u64::from(count.max(1))) as u32 + 1
}

impl GateShard {
    /// Whether benchmark `benchmark` is this share's.
    pub fn holds(&self, benchmark: &str) -> bool {
        share_of(benchmark, self.count) == self.index
    }

    /// Drops from `metrics` every metric of a benchmark of another share (`benchmark_of`: a metric's benchmark;
    /// a metric not in it is a benchmark of its own, as a JSON line's is).
    pub fn keep_own(&self, metrics: &mut RunMetrics, benchmark_of: &BTreeMap<String, String>) {
        let others: Vec<String> = metrics
            .keys()
            .filter(|metric| {
                let benchmark = benchmark_of.get(*metric).unwrap_or(metric);
                !self.holds(benchmark)
            })
            .cloned()
            .collect();
        for metric in others {
            metrics.leave_out(&metric);
        }
        // A benchmark of another share the time cap stopped is that share's to name.
        metrics
            .time_cap_mut()
            .capped
            .retain(|bench, _| self.holds(bench));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Figure;

    #[test]
    fn every_name_is_in_exactly_one_share_and_the_same_one_every_time() {
        for name in [
            "bench_sum",
            "bench_matmul",
            "bench_rmsnorm",
            "bench_count_below",
            "",
        ] {
            let share = share_of(name, 4);
            assert!((1..=4).contains(&share), "{name}: {share}");
            assert_eq!(share, share_of(name, 4));
            let holders = (1..=4)
                .filter(|k| {
                    GateShard {
                        index: *k,
                        count: 4,
                    }
                    .holds(name)
                })
                .count();
            assert_eq!(holders, 1, "{name}");
            assert_eq!(share_of(name, 1), 1);
        }
    }

    #[test]
    fn the_listing_run_is_at_the_lowest_scale_rho_accepts() {
        assert_eq!(LISTING[0].1, rho_config::SCALE_RANGE.0.to_string());
    }

    #[test]
    fn a_share_keeps_only_its_benchmarks_metrics() {
        let names = [
            "bench_sum",
            "bench_matmul",
            "bench_rmsnorm",
            "bench_count_below",
        ];
        let shard = GateShard { index: 1, count: 2 };
        let mut metrics: RunMetrics = names
            .iter()
            .map(|n| (format!("{n}.instructions"), Figure::Value(1.0)))
            .collect();
        let benchmark_of = names
            .iter()
            .map(|n| (format!("{n}.instructions"), n.to_string()))
            .collect();
        for name in names {
            metrics.time_cap_mut().capped.insert(name.to_owned(), 7);
        }
        shard.keep_own(&mut metrics, &benchmark_of);
        let kept: Vec<&String> = metrics.keys().collect();
        let own: Vec<&str> = names.into_iter().filter(|n| share_of(n, 2) == 1).collect();
        let expected: Vec<String> = own.iter().map(|n| format!("{n}.instructions")).collect();
        assert_eq!(kept, expected.iter().collect::<Vec<_>>());
        let capped: Vec<&str> = metrics
            .time_cap()
            .capped
            .keys()
            .map(String::as_str)
            .collect();
        let mut own_sorted = own.clone();
        own_sorted.sort_unstable();
        assert_eq!(
            capped, own_sorted,
            "the capped benchmarks are the share's own"
        );
    }
}
