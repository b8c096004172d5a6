//! The history as Markdown (`rho bench history --markdown`): one table of every series (newest, against
//! previous and median, change points), one of every change point, the functions behind each instructions
//! step up in a collapsed block, and the skipped records.

use std::fmt::Write as _;

use rho_history::analysis::{Analysis, Commit, is_exact};
use rho_history::document::series_entry;
use rho_history::git::Listing;

use super::{format_series_figure, percent_text, short};

/// The Markdown: one table of every series (newest, against previous and median, change points), one of every
/// change point, and the skipped records.
pub fn render(analysis: &Analysis, commits: &[Commit], listing: &Listing) -> String {
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
            entry.newest.map_or("-".to_string(), format_series_figure),
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
                short(&commit.id),
                cell(&commit.subject),
                format_series_figure(c.before),
                format_series_figure(c.after),
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
            let Some(behind) = rho_history::functions::behind(series, change, commits, listing)
            else {
                continue;
            };
            let commit = &commits[change.commit_index];
            out.push('\n');
            // The summary is HTML: the name (another harness's may hold `<`) is escaped as such.
            out.push_str(&crate::profile::markdown(
                &format!(
                    "{} {} at {}",
                    crate::html::escape(&series.key.bench),
                    series.key.metric,
                    short(&commit.id)
                ),
                &behind.changes,
            ));
        }
    }
}

/// Text safe in a Markdown table cell: a `|` escaped and line breaks as spaces (the table holds), `<`, `>` and `&` as entities (a
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
