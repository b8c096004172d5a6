//! The analysis as a document: `rho-bench-history/1` JSON (docs/json-output.md), the data every view of the
//! history is drawn from (rho-report's `history` draws the text, the Markdown and the page).

use serde::Serialize;

use rho_profile::diff::FunctionChange;

use crate::analysis::{Analysis, Commit, Series, is_exact};
use crate::git::Listing;

/// The schema of the JSON document.
pub const SCHEMA: &str = "rho-bench-history/1";

/// `rho bench history --json`.
#[derive(Debug, Serialize)]
pub struct Document<'a> {
    pub schema: &'static str,
    pub rho_version: &'a str,
    /// The history branch read, and the commit it was at (`null`: no branch).
    pub history_branch: &'a str,
    pub history_commit: Option<&'a str>,
    /// The branch whose first-parent line orders the commits, as asked (`HEAD`).
    pub branch: &'a str,
    /// That line, oldest first; points name commits by their index here.
    pub commits: Vec<CommitEntry<'a>>,
    pub series: Vec<SeriesEntry<'a>>,
    /// Records of commits not on the line.
    pub off_branch: usize,
    /// Files on the branch that could not be read as records, and why.
    pub skipped: Vec<Skipped<'a>>,
}

#[derive(Debug, Serialize)]
pub struct CommitEntry<'a> {
    pub id: &'a str,
    pub subject: &'a str,
}

#[derive(Debug, Serialize)]
pub struct SeriesEntry<'a> {
    pub bench: &'a str,
    pub metric: &'a str,
    pub target: &'a str,
    pub measure: &'static str,
    pub machine: &'a str,
    /// Every step is a change point (instructions, code bytes, stack and heap marks).
    pub exact: bool,
    pub points: Vec<PointEntry>,
    pub newest: Option<f64>,
    pub previous: Option<f64>,
    pub median: f64,
    pub newest_vs_previous_percent: Option<f64>,
    pub newest_vs_median_percent: Option<f64>,
    pub change_points: Vec<ChangeEntry<'a>>,
}

#[derive(Debug, Serialize)]
pub struct PointEntry {
    /// Index into `commits`.
    pub commit: usize,
    pub value: f64,
    pub records: usize,
}

#[derive(Debug, Serialize)]
pub struct ChangeEntry<'a> {
    /// The first commit of the new segment.
    pub commit: &'a str,
    pub commit_index: usize,
    pub before: f64,
    pub after: f64,
    pub change_percent: Option<f64>,
    pub pvalue: f64,
    /// Under an instructions step up whose records on both sides carry the benchmark's functions: those whose
    /// counts changed most (absent otherwise; added within version 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub functions: Option<Vec<FunctionChange>>,
}

#[derive(Debug, Serialize)]
pub struct Skipped<'a> {
    pub path: &'a str,
    pub message: &'a str,
}

/// The change from `before` to `after` in percent; `None` from zero.
pub fn change(before: f64, after: f64) -> Option<f64> {
    (before != 0.0).then(|| (after - before) / before * 100.0)
}

impl<'a> Document<'a> {
    pub fn of(
        analysis: &'a Analysis,
        commits: &'a [Commit],
        listing: &'a Listing,
        history_branch: &'a str,
        branch: &'a str,
        rho_version: &'a str,
    ) -> Document<'a> {
        Document {
            schema: SCHEMA,
            rho_version,
            history_branch,
            history_commit: listing.tip.as_deref(),
            branch,
            commits: commits
                .iter()
                .map(|c| CommitEntry {
                    id: &c.id,
                    subject: &c.subject,
                })
                .collect(),
            series: analysis
                .series
                .iter()
                .map(|s| series_entry(s, commits, listing))
                .collect(),
            off_branch: analysis.off_branch,
            skipped: listing
                .problems
                .iter()
                .map(|p| Skipped {
                    path: &p.path,
                    message: &p.message,
                })
                .collect(),
        }
    }
}

/// One series as the document holds it: its figures, the newest against the previous and the median, its change
/// points with the functions behind each step up.
pub fn series_entry<'a>(
    series: &'a Series,
    commits: &'a [Commit],
    listing: &Listing,
) -> SeriesEntry<'a> {
    let newest = series.newest().map(|p| p.value);
    let previous = series.previous().map(|p| p.value);
    SeriesEntry {
        bench: &series.key.bench,
        metric: series.key.metric,
        target: &series.key.target,
        measure: series.key.measure.name(),
        machine: &series.key.machine,
        exact: is_exact(series.metric),
        points: series
            .points
            .iter()
            .map(|p| PointEntry {
                commit: p.commit_index,
                value: p.value,
                records: p.records,
            })
            .collect(),
        newest,
        previous,
        median: series.median,
        newest_vs_previous_percent: newest.zip(previous).and_then(|(n, p)| change(p, n)),
        newest_vs_median_percent: newest.and_then(|n| change(series.median, n)),
        change_points: series
            .changes
            .iter()
            .map(|c| ChangeEntry {
                commit: &commits[c.commit_index].id,
                commit_index: c.commit_index,
                before: c.before,
                after: c.after,
                change_percent: c.change_percent,
                pvalue: c.pvalue,
                functions: crate::functions::behind(series, c, commits, listing)
                    .map(|behind| behind.changes),
            })
            .collect(),
    }
}
