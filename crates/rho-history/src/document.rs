//! The analysis as documents: `rho-bench-history/1` JSON (docs/json-output.md) and Markdown tables.

use std::fmt::Write as _;

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

fn change(before: f64, after: f64) -> Option<f64> {
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

fn series_entry<'a>(
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

/// A figure as rho prints one: an integer when it is one, else three significant decimals at most.
pub fn figure_text(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        let text = format!("{value:.3}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn percent_text(value: Option<f64>) -> String {
    value.map_or("-".to_string(), |p| format!("{p:+.1}%"))
}

/// The Markdown: one table of every series (newest, against previous and median, change points), one of every
/// change point, and the skipped records.
pub fn markdown(analysis: &Analysis, commits: &[Commit], listing: &Listing) -> String {
    let mut out = String::from("## Benchmark history\n\n");
    out.push_str(
        "| benchmark | metric | target | machine | newest | vs previous | vs median | change points |\n",
    );
    out.push_str("|---|---|---|---|---:|---:|---:|---:|\n");
    for series in &analysis.series {
        let entry = series_entry(series, commits, listing);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(entry.bench),
            entry.metric,
            cell(entry.target),
            cell(entry.machine),
            entry.newest.map_or("-".to_string(), figure_text),
            percent_text(entry.newest_vs_previous_percent),
            percent_text(entry.newest_vs_median_percent),
            entry.change_points.len()
        );
    }
    let changes: Vec<_> = analysis
        .series
        .iter()
        .flat_map(|s| s.changes.iter().map(move |c| (s, c)))
        .collect();
    if !changes.is_empty() {
        out.push_str("\n### Change points\n\n| benchmark | metric | commit | before | after | change | p-value |\n");
        out.push_str("|---|---|---|---:|---:|---:|---:|\n");
        for (series, c) in changes {
            let commit = &commits[c.commit_index];
            let _ = writeln!(
                out,
                "| {} | {} | `{}` {} | {} | {} | {} | {} |",
                cell(&series.key.bench),
                series.key.metric,
                commit.id.get(..10).unwrap_or(&commit.id),
                cell(&commit.subject),
                figure_text(c.before),
                figure_text(c.after),
                percent_text(c.change_percent),
                if is_exact(series.metric) {
                    "exact".to_string()
                } else {
                    format!("{:.2e}", c.pvalue)
                }
            );
        }
    }
    functions_blocks(&mut out, analysis, commits, listing);
    if !listing.problems.is_empty() {
        out.push_str("\n### Skipped records\n\n");
        for problem in &listing.problems {
            let _ = writeln!(
                out,
                "- `{}`: {}",
                cell(&problem.path),
                cell(&problem.message)
            );
        }
    }
    out
}

/// Under the change points: a collapsed block per instructions step up whose records carry functions, as the
/// pull-request comment has under a regressed benchmark.
fn functions_blocks(out: &mut String, analysis: &Analysis, commits: &[Commit], listing: &Listing) {
    for series in &analysis.series {
        for change in &series.changes {
            let Some(behind) = crate::functions::behind(series, change, commits, listing) else {
                continue;
            };
            let commit = &commits[change.commit_index];
            out.push('\n');
            // The summary is HTML: the name (another harness's may hold `<`) is escaped as such.
            out.push_str(&rho_report::profile::markdown(
                &format!(
                    "{} {} at {}",
                    rho_report::html::escape(&series.key.bench),
                    series.key.metric,
                    commit.id.get(..10).unwrap_or(&commit.id)
                ),
                &behind.changes,
            ));
        }
    }
}

/// Text safe in a Markdown table cell.
/// A table cell: a `|` escaped and line breaks as spaces (the table holds), `<`, `>` and `&` as entities (a
/// commit subject's `<script>` is text where the Markdown is rendered), other control characters as U+FFFD
/// (a terminal sequence reaches nobody who prints the file). Names keep their `_` (bench_a, not bench\_a).
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c if c.is_control() && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}
