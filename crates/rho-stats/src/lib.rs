//! Statistics for rho: the one implementation of every figure rho reports (n, min, median, mean, p95, p99,
//! max, standard deviation and spread), and the summary of a whole parsed run.
//!
//! # Definitions
//!
//! - **Percentiles** are nearest-rank on the sorted samples: the p-th percentile is the value at 1-based rank
//!   `ceil(p/100 * n)` (rank 1 for p = 0), computed in integers. It is always an observed sample.
//! - **Median** is the p50 under the same rule: the middle sample for odd `n`, the lower of the two middle
//!   samples for even `n` (never an average of two samples).
//! - **Mean** is the arithmetic mean (summed in 128-bit integers, so it cannot overflow).
//! - **Standard deviation** is the population standard deviation (divided by `n`); 0 for one sample.
//! - **Spread** is the standard deviation divided by the median, capped at [`SPREAD_CAP`] (100%) and flagged as
//!   capped; a non-zero deviation around a zero median is capped too (never NaN).
//! - **Warm-ups** are discarded: every figure is over `Benchmark::measured(clock)`.
//! - **Overhead** is the median of the `.overhead` block's measured samples per clock. **Net** figures are the
//!   raw ones minus the overhead, saturating at 0; the standard deviation is kept, and the spread is recomputed
//!   against the net median.
//! - **Lowest window median** ([`min_window_median`]): the samples, in the order measured, cut into consecutive
//!   windows; the lowest window's median. The gate's wire-stream time metrics use it (a run's best stretch).
//! - **Instructions** ([`InstructionFigures`]): from a counted run, each benchmark's whole-loop count less the
//!   harness's share fitted from `.overhead`'s two counts of the empty loop, per iteration; or from a clock that
//!   counts instructions (`unit=instruction`), its net median. The metric is that figure rounded.
//! - **Batches**: a benchmark whose samples each timed `batch` iterations (`@end batch=`) is summarised per sample
//!   as above (the overhead taken off once per sample), then divided by `batch` ([`PerIteration`]): the figures
//!   per iteration, in fractions of the clock's unit. Its tails are tails of batch means.
//! - **Drift** ([`drift`]): at least 3 benchmarks, at least 80% of them moved (beyond 2%) the same way, the
//!   moved ones' log-ratios within an interquartile range of 0.05; the factor is their median ratio.
//! - **Change points** ([`change_points`]): in a series of figures in commit order, every step of an exact
//!   metric; for a noisy one E-Divisive means in sliding windows of 50 with Student's t-test (p at most
//!   0.001), split then merged as Apache Otava does.
//! - **Derived time**: with no `time` clock and a cycle clock of known `hz`, nanoseconds are
//!   `round(cycles * 1e9 / hz)`, flagged `derived`.
//!
//! `docs/statistics.md` states the same with worked examples.
//!
//! It must not know about budgets, baselines, verdicts or how a figure is shown: it computes, rho-judge judges and
//! rho-report lays out (docs/architecture.md). Of rho's crates it knows only rho-wire and rho-profile: a counted run
//! ([`CountedRun`]) is rho-wire's parsed stream and, beside it, rho-profile's functions of each dump, joined here.

mod best;
mod changepoint;
mod clock;
mod count;
mod distribution;
mod drift;
mod error;
mod gate_names;
mod growth;
mod icount;
mod paired;
mod run;
mod summary;
pub mod targets;
mod window;
mod yardstick;

pub use best::{best_figures, best_of, min_of};
pub use changepoint::{
    ChangePoint, ChangeSettings, DEFAULT_CHANGE_WINDOW, DEFAULT_MAX_PVALUE, MIN_SEGMENT,
    change_points, median_of, newcomer_pvalue, welch_pvalue,
};
pub use clock::{ClockFigures, ClockInfo, OverheadFigures};
pub use count::{
    CacheFigures, CountedMemory, CountedRun, ESTIMATED_CYCLES_FORMULA, INSTRUCTIONS_EVENT,
    InstructionFigures, QEMU_ICOUNT, QEMU_PLUGIN,
};
pub use distribution::{DISTRIBUTION_BINS, Distribution};
pub use drift::{
    DRIFT_MAX_SPREAD, DRIFT_MIN_BENCHMARKS, DRIFT_MIN_MOVE, DRIFT_MIN_SHARE, Drift, drift,
};
pub use error::StatsError;
pub use gate_names::relative_spread;
pub use growth::{
    Complexity, FIT_TOLERANCE, FamilyGrowth, Fit, Growth, MIN_FIT_POINTS, Member, MetricGrowth,
    families, fit_growth,
};
pub use paired::{PAIRED_CONFIDENCE, PairedRatio, paired_ratio, student_t_quantile};
pub use run::{
    BenchSummary, Better, CPU_SAMPLE_MIN_READS, CpuLeftOut, EXTRA_LINE, ExtraMetric, ExtraValue,
    INSTRUCTION_UNIT, ImageTotals, Metric, RunSummary, StaticFootprint,
};
pub use summary::{
    PerIteration, SPREAD_CAP, Spread, Summary, counts_to_ns, nearest_rank, percentile,
};
pub use window::{MIN_WINDOW_SAMPLES, WINDOWS, min_window_median};
pub use yardstick::{YARDSTICK_MOVED, YardstickFigures, machine_ratio, moved};
