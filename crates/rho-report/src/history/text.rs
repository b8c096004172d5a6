//! The text a person reads of the history: per series its key, its newest figure against the previous and the
//! median, and each change point; `history check`'s lines (a line per regression at the newest commit, then
//! the verdict); and the line saying what an add did. The CLI prints what these return.

use std::fmt::Write as _;

use rho_history::add::Added;
use rho_history::analysis::{Analysis, Commit, Series};
use rho_history::check::{Judgement, Regression};
use rho_history::{Listing, Origin};

use super::{format_series_figure, percent, short, significance};

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
                format_series_figure(newest.value),
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
                format_series_figure(series.median)
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
                format_series_figure(change.before),
                format_series_figure(change.after),
                percent(change.before, change.after),
                significance(series, change.pvalue)
            );
            if let Some(behind) = rho_history::functions::behind(series, change, commits, listing) {
                for line in crate::profile::text_lines(&behind.changes) {
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

/// `history check`'s lines on `judgement` of the newest figures of `series` series: a `regression:` line per
/// regression the newest commit is the first to show, a `warning:` line per one shown before and not
/// acknowledged, then the verdict. Whether it fails is `judgement.failures` being non-empty.
pub fn check_lines(judgement: &Judgement, commits: &[Commit], series: usize) -> String {
    let mut out = String::new();
    for regression in &judgement.failures {
        let (what, started, _) = regression_words(regression, commits);
        let _ = writeln!(out, "regression: {what} starting at {started}");
    }
    for regression in &judgement.warnings {
        let (what, started, commit) = regression_words(regression, commits);
        let _ = writeln!(
            out,
            "warning: still in the regression {what} that started at {started}; \
             `rho bench history ack {} --bench {}` accepts it",
            short(commit),
            regression.series.key.bench
        );
    }
    let failures = judgement.failures.len();
    if failures > 0 {
        let _ = writeln!(
            out,
            "history check: {failures} regression(s) first seen at the newest commit: fails"
        );
    } else {
        let _ = writeln!(
            out,
            "history check: no regression starts at the newest figure of {series} series{}",
            match judgement.warnings.len() {
                0 => String::new(),
                n => format!(" ({n} seen before and not acknowledged: warnings above)"),
            }
        );
    }
    out
}

/// A regression in words: the series and its step (`bench cycles (target t, time on m): 1000 -> 2000 (+100.0%,
/// limit 10%)`), the commit that started it with its subject and significance, and that commit's id.
fn regression_words<'a>(
    regression: &Regression,
    commits: &'a [Commit],
) -> (String, String, &'a str) {
    let series = regression.series;
    let change = &regression.change;
    let (id, subject) = commits
        .get(change.commit_index)
        .map_or(("", ""), |c| (c.id.as_str(), c.subject.as_str()));
    let what = format!(
        "{} {} (target {}, {} on {}): {} -> {} ({}, limit {}%)",
        series.key.bench,
        series.key.metric,
        series.key.target,
        series.key.measure.name(),
        series.key.machine,
        format_series_figure(change.before),
        format_series_figure(change.after),
        percent(change.before, change.after),
        regression.limit_percent,
    );
    let started = format!(
        "{} ({}), {}",
        short(id),
        subject,
        significance(series, change.pvalue)
    );
    (what, started, id)
}

/// The line saying what an add did: how many records, of which commit, by whom, on which branch.
pub fn added_line(added: &Added, origin: &Origin, branch: &str) -> String {
    format!(
        "history: added {} record(s) of {} ({}) on {} to branch {} (now {})",
        added.paths.len(),
        short(&origin.commit),
        origin.subject,
        origin.machine,
        branch,
        short(&added.tip)
    )
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
