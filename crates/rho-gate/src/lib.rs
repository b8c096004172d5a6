//! The perf gate: build base and head, run them alternately on the same machine, keep each side's best run
//! per metric, and say whether head is slower than base by more than each metric's budget.
//!
//! A gate compares rather than remembers: it needs no stored numbers, so a slow laptop
//! and a fast CI runner give the same verdict. Drift during the gate hits both sides alike, because their
//! runs alternate.
//!
//! It must not know the suite kinds or how a target is built: it is handed each side's commands and reads what they
//! print (docs/architecture.md). It draws nothing a person reads: rho-report's `gate` lays out its table,
//! warnings and verdict; the gate's JSON line ([`json`]) is data for a pipeline and stays here, beside the
//! reader `rho bench merge` judges a share's again with.
//!
//! Why it is one of the larger crates (7.6k lines): beside the comparison and the runs it builds each side and
//! keeps what makes a second gate fast, keyed on every input (`build`, [`cache`], `ccache`, `content`,
//! `inputs`, `shell`: about 2.5k lines). That part is the one that could be a crate of its own; it is not
//! yet because it works in the gate's sides, errors and progress lines ([`side`], `error`, `progress`), which
//! would have to move below it first.

pub mod adaptive;
mod build;
pub mod cache;
mod ccache;
pub mod compare;
pub mod config;
mod content;
mod error;
mod file_ids;
#[cfg(any(test, feature = "fixture"))]
pub mod fixture;
pub mod functions;
pub mod growth_metrics;
pub mod head_cap;
mod inputs;
pub mod json;
mod lockstep;
pub mod metrics;
pub mod overrides;
mod progress;
mod recipe;
mod run;
mod run_metrics;
pub mod settings;
pub mod shard;
mod shell;
pub mod side;
mod time_cap_reading;
mod wire_metrics;

pub use compare::{Comparison, MetricComparison, MetricOutcome, SideFigures, Verdict, compare};
pub use error::{CommandFailure, GateError, SideName};
pub use metrics::{
    Counter, Figure, MetricSource, MetricsError, RunMetrics, StdoutMetrics, metrics_from_stdout,
};
pub use run::{BenchEnv, GateOutcome, GateRequest, Job, Progress, Recipe, run_gate};
pub use settings::{Budgets, GateSettings, parse_budget_override};
