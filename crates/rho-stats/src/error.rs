//! Why a run could not be summarised.

/// A run that cannot be summarised. Every variant names what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatsError {
    /// A benchmark has no measured samples (0 iterations), so it has no median to report.
    #[error("benchmark {benchmark}: no measured samples to summarise")]
    NoSamples { benchmark: String },
    /// The `.overhead` calibration block has no measured samples for a clock.
    #[error("the .overhead calibration has no measured samples for clock {clock}")]
    EmptyCalibration { clock: String },
    /// A benchmark's sample columns do not match the declared clocks.
    #[error("benchmark {benchmark}: {columns} sample columns for {clocks} declared clocks")]
    ColumnMismatch {
        benchmark: String,
        columns: usize,
        clocks: usize,
    },
    /// A counted run whose counts cannot give a figure (a calibration without its two counts, a dump without
    /// an instruction total).
    #[error("{benchmark}: instructions cannot be counted: {why}")]
    Uncounted { benchmark: String, why: String },
    /// A counted benchmark whose count no run can give (fewer instructions than the empty loop's): refused, never
    /// reported or written to a baseline.
    #[error(
        "benchmark {benchmark} on {target}: impossible instruction count: {why}; the count is refused, not \
         reported"
    )]
    ImpossibleCount {
        benchmark: String,
        target: String,
        why: String,
    },
    /// `best_of` was given no runs.
    #[error("best of no runs: at least one run is needed")]
    NoRuns,
    /// `best_of` was given runs that are not repetitions of the same suite on the same target.
    #[error("run {run} cannot be folded with run 0: {what}")]
    Mismatch { run: usize, what: String },
}
