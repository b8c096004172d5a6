//! What a report holds once read, before its samples become a run.

use rho_stats::Better;

/// A benchmark the harness reported as failed, with its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    pub name: String,
    pub message: String,
}

/// What one file (or criterion directory) held, before the samples become a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub benchmarks: Vec<Sampled>,
    pub failed: Vec<Failed>,
}

/// One benchmark as a report gave it: its samples and the figures beside them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sampled {
    /// The name as the harness prints it.
    pub name: String,
    /// Each sample's nanoseconds per iteration, in the order measured.
    pub times_ns: Vec<f64>,
    /// Each sample's CPU-time nanoseconds per iteration, from a harness that measures CPU time beside the
    /// wall clock (Google Benchmark's `cpu_time`); empty for the others.
    pub cpu_ns: Vec<f64>,
    /// The other figures, one value per sample each (or fewer, when the harness gave fewer).
    pub extra: Vec<ExtraSamples>,
    /// `times_ns` are a report's quantiles, not its measurements ([`rho_stats::BenchSummary::stats_only`]).
    pub stats_only: bool,
    /// The iterations the harness ran for these samples, all together (Google Benchmark's `iterations` of each
    /// repetition, criterion's `iters`, Go's `N`, hyperfine's runs, pytest-benchmark's rounds x iterations);
    /// `None` when the report does not say.
    pub iterations: Option<u64>,
}

/// One extra figure's values across a benchmark's samples.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtraSamples {
    pub name: String,
    pub unit: String,
    pub better: Better,
    pub values: Vec<f64>,
    /// Judged by `--diff`, `compare` and the gate ([`rho_stats::ExtraMetric::judged`]).
    pub judged: bool,
}

impl Sampled {
    /// Adds one sample of `ns` nanoseconds per iteration, which ran `iterations` iterations (`None`: the
    /// report does not say, and then neither is the benchmark's total known).
    pub fn push_sample(&mut self, ns: f64, iterations: Option<u64>) {
        self.iterations = match (self.times_ns.is_empty(), self.iterations, iterations) {
            (true, _, count) => count,
            (false, Some(before), Some(count)) => Some(before.saturating_add(count)),
            (false, _, _) => None,
        };
        self.times_ns.push(ns);
    }

    /// Adds `value` to the extra figure `name`, created with `unit` and `better` on its first value.
    pub fn push_extra(&mut self, name: &str, unit: &str, better: Better, value: f64) {
        match self.extra.iter_mut().find(|e| e.name == name) {
            Some(extra) => extra.values.push(value),
            None => self.extra.push(ExtraSamples {
                name: name.to_owned(),
                unit: unit.to_owned(),
                better,
                values: vec![value],
                judged: true,
            }),
        }
    }
}

/// Nanoseconds in one `unit` of a harness's time (`ns`, `us`, `ms`, `s`), or `None` for another unit.
pub fn ns_per_unit(unit: &str) -> Option<f64> {
    match unit {
        "ns" => Some(1.0),
        "us" => Some(1e3),
        "ms" => Some(1e6),
        "s" => Some(1e9),
        _ => None,
    }
}
