//! Committed baselines: the file `rho bench --write-baseline` records (one section per target, atomic
//! writes, a stable format made to be read in a diff), reading it back as committed at a git ref without
//! touching the working tree, and comparing a run with it per benchmark and per metric
//! (`rho bench --diff REF`).
//!
//! The flow a caller follows:
//!
//! ```text
//! RunSummary --section_from_summary--> TargetBaseline --write_target--> bench/baseline.json
//! git ref --read_at_ref--> BaselineFile --diff(.., head section, limit)--> Comparison --render_*--> report
//! ```
//!
//! A regression is judged on the net median of each clock (robust: one iteration in a thousand can be an order
//! of magnitude out, and the mean moves with it while the median does not) and on the exact stack and heap
//! peak; each metric on its own, with the one rule in [`rho_judge::regressed`]. The schema is described in
//! `docs/baseline.md`.

pub mod compare;
pub mod error;
pub mod format;
pub mod git;
pub mod record;
pub mod render;
pub mod store;

pub use compare::{Comparison, Refusal, Verdict, compare};
pub use error::Error;
pub use format::{BaselineFile, SCHEMA, TargetBaseline};
pub use git::{RefSource, read_at_ref};
pub use record::{Recording, section_from_summary, utc_now_rfc3339};
pub use render::{render_markdown, render_text};
pub use store::{read_file, write_target};

/// Compares `head` (this run's section, from [`section_from_summary`]) with its target's section of
/// `base_file`. `base_name` says where the file came from (for messages). `limit_percent` is
/// `fail_on_regression_percent`. Refuses a file with no section for the run's target, and any refusal of
/// [`compare::check_comparable`].
pub fn diff(
    base_file: &BaselineFile,
    base_name: &str,
    head: &TargetBaseline,
    limit_percent: f64,
) -> Result<Comparison, Error> {
    let target = &head.context.target;
    let base = base_file
        .targets
        .get(target)
        .ok_or_else(|| Error::NoSection {
            source_name: base_name.to_string(),
            target: target.clone(),
            available: base_file.targets.keys().cloned().collect(),
        })?;
    Ok(compare(base, head, limit_percent)?)
}
