//! What an HTML page is made of: the suites' runs, a comparison with a base, a gate's outcome. The page's
//! modules (html renders it, headline opens it) read these; this module renders nothing.

use rho_judge::budget::Judgement;
use rho_stats::RunSummary;

/// One suite's run, with its budgets when they were judged (`check`).
pub struct Suite<'a> {
    pub what: &'a str,
    pub summary: &'a RunSummary,
    pub judgement: Option<&'a Judgement>,
}

/// A comparison of this run (head) with a base: `--diff REF` or `rho bench compare`.
pub struct Diff<'a> {
    pub comparison: &'a rho_compare::Comparison,
    /// Where the base came from (a git ref, a file).
    pub base_name: &'a str,
    /// The base runs, when they are at hand (`rho bench compare`): their histograms are drawn beside head's.
    pub base_runs: Vec<&'a RunSummary>,
}

/// A gate's outcome: every run of each side.
pub struct Gate<'a> {
    pub comparison: &'a rho_gate::Comparison,
    pub base_runs: &'a [rho_gate::RunMetrics],
    pub head_runs: &'a [rho_gate::RunMetrics],
    /// What base and head were (revisions, directories).
    pub base: &'a str,
    pub head: &'a str,
}

/// A whole page.
pub struct Page<'a> {
    pub title: String,
    pub suites: Vec<Suite<'a>>,
    pub diff: Option<Diff<'a>>,
    pub gate: Option<Gate<'a>>,
}
