//! Folding repetitions: each run of a suite summarised, and per benchmark and metric the best kept.

use rho_stats::RunSummary;

use crate::error::{Doing as _, Result};

/// Summarise each run and keep, per benchmark and metric, the best.
pub fn fold(runs: &[rho_wire::Run], what: &str) -> Result<RunSummary> {
    let summaries = runs
        .iter()
        .map(RunSummary::of)
        .collect::<Result<Vec<_>, _>>()
        .doing(|| format!("cannot summarise the run of {what}"))?;
    rho_stats::best_of(&summaries).doing(|| format!("cannot fold the runs of {what}"))
}
