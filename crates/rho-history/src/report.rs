//! The text a person reads of the history: per series its key, its newest figure against the previous and the
//! median, and each change point; and `history check`'s line per regression at the newest commit. The CLI
//! prints what these return.

use std::fmt::Write as _;

use rho_stats::Metric;

use crate::analysis::{self, Analysis, Commit, Detection, Series};
use crate::document::figure_text;
use crate::git::Listing;

/// A commit's id cut to ten characters (the whole id when shorter).
pub fn short(id: &str) -> &str {
    id.get(..10).unwrap_or(id)
}

/// The text report of `analysis` over `commits`, with the records of `listing` that were left out or could
/// not be read, on history branch `branch`.
pub fn render_text(
    analysis: &Analysis,
    commits: &[Commit],
    listing: &Listing,
    branch: &str,
) -> String {
    let mut out = String::new();
    if analysis.series.is_empty() {
        let _ = writeln!(
            out,
            "history: no figures on branch {branch} for the {} commit(s) of this line ({} record(s) read)",
            commits.len(),
            listing.records.len()
        );
    }
    for series in &analysis.series {
        let _ = writeln!(out, "{}", series_heading(series));
        if let Some(newest) = series.newest() {
            let commit = &commits[newest.commit_index];
            let mut line = format!(
                "  newest {} at {} ({})",
                figure_text(newest.value),
                short(&commit.id),
                commit.subject
            );
            if let Some(previous) = series.previous() {
                let _ = write!(
                    line,
                    ", {} vs previous",
                    percent(previous.value, newest.value)
                );
            }
            let _ = write!(
                line,
                ", {} vs median {}",
                percent(series.median, newest.value),
                figure_text(series.median)
            );
            let _ = writeln!(out, "{line}");
        }
        for change in &series.changes {
            let commit = &commits[change.commit_index];
            let _ = writeln!(
                out,
                "  change at {} ({}): {} -> {} ({}), {}",
                short(&commit.id),
                commit.subject,
                figure_text(change.before),
                figure_text(change.after),
                percent(change.before, change.after),
                significance(series, change.pvalue)
            );
            if let Some(behind) = crate::functions::behind(series, change, commits, listing) {
                for line in rho_report::profile::text_lines(&behind.changes) {
                    let _ = writeln!(out, "  {line}");
                }
            }
        }
    }
    ended(&mut out, analysis, commits);
    left_out(&mut out, analysis, listing, branch);
    out
}

/// The series that ended: no figure at the newest commit its target, measure and machine have records of
/// (a benchmark removed, or renamed without `history rename`), each with the commit of its last figure.
fn ended(out: &mut String, analysis: &Analysis, commits: &[Commit]) {
    let mut newest_of_runs: std::collections::BTreeMap<_, usize> =
        std::collections::BTreeMap::new();
    for series in &analysis.series {
        let key = (&series.key.target, series.key.measure, &series.key.machine);
        let newest = series.newest().map_or(0, |p| p.commit_index);
        let entry = newest_of_runs.entry(key).or_insert(newest);
        *entry = (*entry).max(newest);
    }
    let ended: Vec<(&Series, usize)> = analysis
        .series
        .iter()
        .filter_map(|series| {
            let key = (&series.key.target, series.key.measure, &series.key.machine);
            let newest = series.newest()?.commit_index;
            (newest < newest_of_runs[&key]).then_some((series, newest))
        })
        .collect();
    if ended.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "{} series ended before the newest commit of their runs (`history rename OLD NEW` joins a renamed one):",
        ended.len()
    );
    for (series, newest) in ended {
        let key = &series.key;
        let commit = &commits[newest];
        let _ = writeln!(
            out,
            "  {} {} (target {}, {} on {}): last at {} ({})",
            key.bench,
            key.metric,
            key.target,
            key.measure.name(),
            key.machine,
            short(&commit.id),
            commit.subject
        );
    }
}

/// The closing lines: records off the first-parent line, and the unreadable ones with why.
fn left_out(out: &mut String, analysis: &Analysis, listing: &Listing, branch: &str) {
    if analysis.off_branch > 0 {
        let _ = writeln!(
            out,
            "{} record(s) of commits not on the first-parent line of this branch were left out",
            analysis.off_branch
        );
    }
    if !listing.problems.is_empty() {
        let _ = writeln!(
            out,
            "skipped {} unreadable record(s) on branch {branch}:",
            listing.problems.len()
        );
        for problem in &listing.problems {
            let _ = writeln!(out, "  {}: {}", problem.path, problem.message);
        }
    }
}

/// `history check`'s verdict on the newest commit: a line per series in a regression beyond its limit.
#[derive(Debug, Default)]
pub struct Judgement {
    /// Regressions the newest commit is the first to show: `history check` fails.
    pub failures: Vec<String>,
    /// Regressions shown before and not acknowledged, the series still at its new level: warned about.
    pub warnings: Vec<String>,
}

/// Judges the newest figure of every series of `analysis` against `limit(bench, metric)` (in percent)
/// ([`analysis::open_regression`]); regressions acknowledged by a note of `listing` are left out.
pub fn judge_newest(
    analysis: &Analysis,
    commits: &[Commit],
    listing: &Listing,
    detection: Detection,
    limit: impl Fn(&str, Metric) -> f64,
) -> Judgement {
    let mut judgement = Judgement::default();
    for series in &analysis.series {
        let limit = limit(&series.key.bench, series.metric);
        let Some(open) = analysis::open_regression(series, limit, detection) else {
            continue;
        };
        let change = &open.change;
        let commit = &commits[change.commit_index];
        if listing
            .notes
            .iter()
            .any(|(_, note)| note.acknowledges(&commit.id, &series.key.bench))
        {
            continue;
        }
        let what = format!(
            "{} {} (target {}, {} on {}): {} -> {} ({}, limit {limit}%)",
            series.key.bench,
            series.key.metric,
            series.key.target,
            series.key.measure.name(),
            series.key.machine,
            figure_text(change.before),
            figure_text(change.after),
            percent(change.before, change.after),
        );
        let started = format!(
            "{} ({}), {}",
            short(&commit.id),
            commit.subject,
            significance(series, change.pvalue)
        );
        if open.first {
            judgement
                .failures
                .push(format!("regression: {what} starting at {started}"));
        } else {
            judgement.warnings.push(format!(
                "warning: still in the regression {what} that started at {started}; \
                 `rho bench history ack {} --bench {}` accepts it",
                short(&commit.id),
                series.key.bench
            ));
        }
    }
    judgement
}

fn series_heading(series: &Series) -> String {
    let key = &series.key;
    format!(
        "{} {} (target {}, {} on {}): {} commit(s), {} change point(s)",
        key.bench,
        key.metric,
        key.target,
        key.measure.name(),
        key.machine,
        series.points.len(),
        series.changes.len()
    )
}

fn significance(series: &Series, pvalue: f64) -> String {
    if analysis::is_exact(series.metric) {
        "exact".to_string()
    } else {
        format!("p = {pvalue:.2e}")
    }
}

/// The change from `before` to `after` in percent (`+12.5%`); `new` from zero.
fn percent(before: f64, after: f64) -> String {
    if before == 0.0 {
        return if after == 0.0 {
            "+0.0%".to_string()
        } else {
            "new".to_string()
        };
    }
    format!("{:+.1}%", (after - before) / before * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_worded_in_percent_and_from_zero_as_new() {
        assert_eq!(percent(100.0, 112.5), "+12.5%");
        assert_eq!(percent(100.0, 90.0), "-10.0%");
        assert_eq!(percent(0.0, 0.0), "+0.0%");
        assert_eq!(percent(0.0, 3.0), "new");
        assert_eq!(short("0123456789abcdef"), "0123456789");
        assert_eq!(short("abc"), "abc");
    }
}
