//! What a side is built and run with: its jobs, one per suite, each shell commands.

use std::path::PathBuf;

/// How one side is built and run: one or more jobs (one per suite), each shell commands run with `sh -c` in
/// the side's module root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    /// The target's name, for messages.
    pub target: String,
    /// The module.yml the recipe came from, for messages.
    pub file: PathBuf,
    /// Built in order before the runs; every run of the side runs each job once, in order, and the metrics of
    /// all of them make the run's metrics.
    pub jobs: Vec<Job>,
}

/// One suite of a side: how it is built and run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// How the suite is named in messages (its files, its command, or the target).
    pub what: String,
    /// Run once before the runs; `None` when the job needs no build (a command suite, a suite rho built).
    pub build: Option<String>,
    /// Run once per run; its stdout carries the metrics.
    pub run: String,
    /// Added to the environment of its build and runs (e.g. `RHO_BENCH_SOURCES`).
    pub env: Vec<(String, String)>,
    /// Figures read from the built image rather than the runs (`(benchmark, metric, value)`: a benchmark's
    /// reachable code bytes and static stack bound), added to every run's metrics as `<benchmark>.<metric>`
    /// for the benchmarks the run reported. Empty for a job rho did not build.
    pub static_metrics: Vec<(String, String, u64)>,
}
