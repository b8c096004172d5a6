//! `history check`'s judgement of the newest commit, as data: per series, the regression beyond its limit it
//! is in at its newest figure ([`analysis::open_regression`]), the first sight of it (the check fails) or a
//! later one not acknowledged by a note (a warning). rho-report words it.

use rho_stats::Metric;

use crate::analysis::{self, Analysis, Change, Commit, Detection, Series};
use crate::git::Listing;

/// A series in a regression beyond its limit at its newest figure.
#[derive(Debug, Clone)]
pub struct Regression<'a> {
    pub series: &'a Series,
    /// The change that started it: `commit_index` is the commit that made it.
    pub change: Change,
    /// The limit it broke, in percent.
    pub limit_percent: f64,
}

/// The newest commit judged: the regressions it is the first to show, and those shown before and not
/// acknowledged, the series still at its new level.
#[derive(Debug, Default)]
pub struct Judgement<'a> {
    /// `history check` fails on these.
    pub failures: Vec<Regression<'a>>,
    /// `history check` warns about these.
    pub warnings: Vec<Regression<'a>>,
}

/// Judges the newest figure of every series of `analysis` against `limit(bench, metric)` (in percent);
/// regressions acknowledged by a note of `listing` are left out.
pub fn judge_newest<'a>(
    analysis: &'a Analysis,
    commits: &[Commit],
    listing: &Listing,
    detection: Detection,
    limit: impl Fn(&str, Metric) -> f64,
) -> Judgement<'a> {
    let mut judgement = Judgement::default();
    for series in &analysis.series {
        let limit_percent = limit(&series.key.bench, series.metric);
        let Some(open) = analysis::open_regression(series, limit_percent, detection) else {
            continue;
        };
        let Some(commit) = commits.get(open.change.commit_index) else {
            continue;
        };
        if listing
            .notes
            .iter()
            .any(|(_, note)| note.acknowledges(&commit.id, &series.key.bench))
        {
            continue;
        }
        let regression = Regression {
            series,
            change: open.change,
            limit_percent,
        };
        if open.first {
            judgement.failures.push(regression);
        } else {
            judgement.warnings.push(regression);
        }
    }
    judgement
}
