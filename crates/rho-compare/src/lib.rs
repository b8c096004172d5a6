//! Comparison rules: a run (its sections, as rho-baseline records them) against a baseline, per benchmark and
//! per metric, each metric judged on its own with the one rule in [`rho_judge::regressed`]
//! (`rho bench --diff REF`, `rho bench compare`), and what is judged beside the figures: another harness's
//! extra figures ([`extra`]), a family's growth ([`growth`]), a drift of the whole machine and what was left
//! out. Around it: the regression limits module.yml sets ([`limits`]), the baseline work a run was asked for,
//! checked before the run and done after it ([`plan`]), and the comparison's JSON record ([`json`]).
//!
//! The flow a caller follows:
//!
//! ```text
//! git ref --rho_baseline::read_at_ref--> BaselineFile --diff(.., head sections, limit)--> Comparison
//!     --rho_report::diff--> text, Markdown
//! ```
//!
//! It is apart from rho-baseline because the jobs differ: rho-baseline is the stored file (schema, reading,
//! validating, writing atomically, git); this crate is the judgement made with it. It knows rho-baseline and
//! the crates before it, none of which knows it; it must not know how a suite is built or run, nor how a
//! comparison is drawn (rho-report lays it out; docs/architecture.md).

pub mod compare;
pub mod extra;
pub mod growth;
pub mod json;
pub mod limits;
pub mod plan;
pub mod saved;
mod verdict;

pub use compare::{
    Comparison, DEFAULT_INSTRUCTIONS_LIMIT_PERCENT, DEFAULT_LIMIT_PERCENT, MIN_REPETITIONS,
    Refusal, Verdict, compare, compare_sections, compare_with, metric_limit,
};
pub use json::ComparisonRecord;
pub use saved::{COMPARE_SCHEMA, CompareDocument, compare_saved};

use rho_baseline::{BaselineFile, Error, TargetSections};

/// Compares `head` (this run's sections, from [`rho_baseline::sections_from_summaries`]) with its target's sections of
/// `base_file`, each measure with its own ([`compare::compare_sections`]). `base_name` says where the file came from (for messages). `limit_percent` is
/// `fail_on_regression_percent`. Refuses a file with no section for the run's target, and any refusal of
/// [`compare::check_comparable`].
pub fn diff(
    base_file: &BaselineFile,
    base_name: &str,
    head: &TargetSections,
    limit_percent: f64,
) -> Result<Comparison, Error> {
    diff_with(base_file, base_name, head, limit_percent, &|_, metric| {
        compare::metric_limit(
            metric,
            limit_percent,
            compare::DEFAULT_INSTRUCTIONS_LIMIT_PERCENT,
        )
    })
}

/// [`diff`] with a limit per benchmark and metric (`limit_for(name, metric)`, in percent), for module.yml's
/// per-benchmark `fail_on_regression_percent` and `fail_on_instructions_regression_percent`.
pub fn diff_with(
    base_file: &BaselineFile,
    base_name: &str,
    head: &TargetSections,
    limit_percent: f64,
    limit_for: &dyn Fn(&str, rho_stats::Metric) -> f64,
) -> Result<Comparison, Error> {
    let target = head.target().unwrap_or_default();
    let base = rho_baseline::section(base_file, base_name, target)?;
    Ok(compare::compare_sections(
        base,
        head,
        limit_percent,
        limit_for,
    )?)
}
