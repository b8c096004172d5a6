//! Why it got slower: under a benchmark whose instructions regressed, the functions whose counts changed
//! most, base -> head (each side's functions of its counted run, rho-profile).

use rho_profile::Functions;
use rho_profile::diff::{FunctionChange, REPORTED, changes};

use crate::{Comparison, GateOutcome, MetricOutcome, RunMetrics};

/// One regressed benchmark's functions on both sides and the changes between them.
#[derive(Debug, Clone, PartialEq)]
pub struct RegressedFunctions {
    pub bench: String,
    pub base: Functions,
    pub head: Functions,
    pub changes: Vec<FunctionChange>,
}

/// The gate's name of the instructions metric (`<bench>.instructions`).
const SUFFIX: &str = ".instructions";

/// Each benchmark whose instructions regressed, when both sides' counted runs kept its functions.
pub fn regressed(outcome: &GateOutcome) -> Vec<RegressedFunctions> {
    regressed_in(&outcome.comparison, &outcome.base_runs, &outcome.head_runs)
}

/// [`regressed`] from the comparison and each side's runs (a count is exact: the last run's functions).
pub fn regressed_in(
    comparison: &Comparison,
    base_runs: &[RunMetrics],
    head_runs: &[RunMetrics],
) -> Vec<RegressedFunctions> {
    comparison
        .metrics
        .iter()
        .filter(|m| m.outcome == MetricOutcome::Regressed)
        .filter_map(|m| m.name.strip_suffix(SUFFIX))
        .filter_map(|bench| {
            let base = base_runs.last()?.functions(bench)?;
            let head = head_runs.last()?.functions(bench)?;
            Some(RegressedFunctions {
                bench: bench.to_owned(),
                changes: changes(base, head, REPORTED),
                base: base.clone(),
                head: head.clone(),
            })
        })
        .collect()
}

/// The changes for the gate's JSON document: one object per regressed benchmark, `bench` and `functions`
/// (each `name`, `base` and `head` with `self` and `inclusive` per iteration, `null` on a side without it).
pub fn to_json(regressed: &[RegressedFunctions]) -> serde_json::Value {
    serde_json::Value::Array(
        regressed
            .iter()
            .map(|r| serde_json::json!({"bench": r.bench, "functions": r.changes}))
            .collect(),
    )
}
