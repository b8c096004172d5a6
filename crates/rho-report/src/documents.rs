//! The JSON documents of a module.yml run (`rho-bench-project/1`: every suite's run with its budgets and
//! verdicts, and the suites that failed; `rho-bench-project-targets/1`: several targets' runs and each suite
//! side by side), as docs/json-output.md describes them, and the closing lines about failed suites. The CLI
//! fills them and writes them.

use std::path::PathBuf;

use rho_stats::RunSummary;
use serde::Serialize;

/// A suite that could not be built, run or summarised, in the report and in `--json`'s `failed`.
#[derive(Debug, Serialize)]
pub struct FailedSuite {
    /// The suite's files or command, as module.yml names it.
    pub suite: String,
    /// What went wrong, as printed.
    pub error: String,
}

/// The closing lines about failed suites (empty when none failed).
pub fn failure_summary(prefix: &str, failed: &[FailedSuite], total: usize) -> String {
    if failed.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "{prefix} {} of {total} suite{} failed to build or run\n",
        failed.len(),
        if total == 1 { "" } else { "s" }
    );
    for failure in failed {
        // The error may quote what the suite printed.
        let first = failure.error.lines().next().unwrap_or_default();
        out.push_str(&format!(
            "  {}: {}\n",
            failure.suite,
            rho_text::escape_line(first)
        ));
    }
    out
}

/// The schema of `--json`'s document in module.yml mode. A change that alters the meaning of a field bumps it.
pub const PROJECT_SCHEMA: &str = rho_baseline::saved::PROJECT_SCHEMA;

/// `rho bench --json FILE` in module.yml mode: every suite's run (as `rho-bench-run/1` holds it: the summary,
/// raw and net) with its budgets and verdicts.
#[derive(Debug, Serialize)]
pub struct ProjectDocument<'a> {
    pub schema: &'static str,
    pub rho_version: &'static str,
    /// The module.yml read, as named in messages.
    pub module: PathBuf,
    pub target: String,
    pub scale: f64,
    /// Runs folded into each suite's figures (best of N).
    pub repetitions: u32,
    pub suites: Vec<SuiteRecord>,
    /// The suites that could not be built, run or summarised (their figures are missing from `suites`).
    pub failed: &'a [FailedSuite],
    /// With `--diff REF`: the run against the baseline, per benchmark and metric (docs/json-output.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<&'a rho_compare::ComparisonRecord>,
    /// With `--shard K/N`: which share this is of which partition (docs/ci.md); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<serde_json::Value>,
}

#[derive(Debug, Serialize)]
pub struct SuiteRecord {
    /// The suite's files or command, as module.yml names it.
    pub suite: String,
    pub budgets: crate::verdicts::BudgetsRecord,
    /// The run's summary, its fields at this level (as in `rho-bench-run/1`).
    #[serde(flatten)]
    pub summary: RunSummary,
    /// The benchmark families and their fits (as in `rho-bench-run/1`); absent without any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub families: Vec<rho_stats::FamilyGrowth>,
}

/// One suite side by side on several targets, for `rho-bench-project-targets/1`.
#[derive(Debug, Serialize)]
pub struct SuiteAcross {
    pub suite: String,
    pub comparison: rho_stats::targets::TargetComparison,
}

/// The document `--json` writes for several targets in module.yml mode.
#[derive(Debug, Serialize)]
pub struct ProjectTargetsDocument {
    pub schema: &'static str,
    pub rho_version: &'static str,
    pub targets: Vec<serde_json::Value>,
    pub suites: Vec<SuiteAcross>,
}
