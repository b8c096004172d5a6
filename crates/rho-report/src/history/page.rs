//! `rho bench history --html`: one self-contained page (inline SVG and CSS, nothing fetched; the only script is
//! inferno's, inside each flame graph's sandboxed frame) that answers first. In order:
//!
//! 1. the verdict on the newest commit (`history check`'s judgement against each benchmark's limit) and how
//!    many change points, series and commits there are;
//! 2. the change points (benchmark, metric, commit, change in percent with its direction, p-value), the
//!    regressions still open first, then the largest changes, each linking to its chart;
//! 3. a summary table of every series (newest figure, against the previous and the median, change points,
//!    the metric's limit in percent, its state), the regressed first, then the largest changes;
//! 4. the charts: per benchmark and metric, the figure at each commit, one line per machine, each point's
//!    commit and figure in its SVG `<title>` (the browser's hover text), the p25-p75 band shaded where the
//!    records carry quartiles, each change point a dashed vertical line with its own `<title>`; a y axis that
//!    does not start at zero says so under the chart. Under an instructions step up whose records on both
//!    sides carry the benchmark's functions: those that changed most and the differential flame graph.
//!
//! The markup comes from maud's compile-time templates: every text is escaped as it is written (and its
//! control characters replaced), so a commit subject or a benchmark name is never markup.

use std::collections::BTreeMap;

use maud::{DOCTYPE, Markup, PreEscaped, html};
use rho_history::Listing;
use rho_history::analysis::{Analysis, Change, Commit, Series, is_exact};
use rho_history::check::Judgement;
use rho_stats::Metric;

use super::{format_series_figure, percent_text, short};
use crate::svg::px;

/// The plot's own width; the chart is as much wider as its axis labels need.
const PLOT_WIDTH: f64 = 680.0;
const HEIGHT: f64 = 236.0;
const RIGHT: f64 = 14.0;
const TOP: f64 = 12.0;
/// Below the plot: the commits at either end and the note on where the y axis starts.
const BOTTOM: f64 = 44.0;
/// The axis labels' font size in pixels (`.label` below), and a width per character that no digit or
/// letter of it exceeds, so a label measured by it is never clipped.
const LABEL_CHAR_WIDTH: f64 = 7.5;
/// One colour per machine, in turn.
const COLOURS: [&str; 6] = [
    "#4a78c2", "#d08a2c", "#3a9a5b", "#8c5bb5", "#c2504a", "#5a5a5a",
];

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.4em}h2{font-size:1.1em;margin:1.6em 0 .4em}h3{font-size:.95em}\
.verdict{font-size:1.1em;font-weight:bold;padding:.4em .6em;border-left:4px solid #3a9a5b}\
.verdict.fail{border-color:#c2504a}.verdict.warn{border-color:#d08a2c}\
svg{background:#fafafa;border:1px solid #ddd}\
.axis{stroke:#999;stroke-width:1}.label{font-size:11px;fill:#555}.axis-note{font-size:11px;fill:#8a5a00}\
.change{stroke:#c2504a;stroke-width:2;stroke-dasharray:5 3}.band{fill-opacity:.18;stroke:none}\
.legend{font-size:12px;color:#555}table{border-collapse:collapse}\
td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:left}td.num,th.num{text-align:right;white-space:nowrap}\
.up{color:#b03a2e}.down{color:#2e7d4f}.state-regressed{color:#b03a2e;font-weight:bold}\
.state-open{color:#a86500}";

/// What the page is drawn from.
pub struct History<'a> {
    pub title: &'a str,
    pub analysis: &'a Analysis,
    /// The first-parent line the series follow, oldest first.
    pub commits: &'a [Commit],
    /// The records read (the functions behind a step up come from them) and the files that could not be.
    pub listing: &'a Listing,
    /// `history check`'s judgement of the newest commit.
    pub judgement: &'a Judgement<'a>,
    /// Each benchmark's limit for a metric, in percent (the one `history check` judged by).
    pub limit: &'a dyn Fn(&str, Metric) -> f64,
}

/// Where a series stands at the newest commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum State {
    /// The newest commit is the first to show a regression beyond its limit (`history check` fails).
    Regressed,
    /// In a regression shown before and not acknowledged (`history check` warns).
    Open,
    Ok,
}

impl State {
    fn words(self) -> &'static str {
        match self {
            State::Regressed => "regressed at the newest commit",
            State::Open => "still regressed",
            State::Ok => "ok",
        }
    }

    /// What a change point's row says: whether it started the series' open regression.
    fn change_words(self) -> &'static str {
        match self {
            State::Regressed => "started a regression first seen at the newest commit",
            State::Open => "started a regression still open",
            State::Ok => "-",
        }
    }

    fn class(self) -> &'static str {
        match self {
            State::Regressed => "state-regressed",
            State::Open => "state-open",
            State::Ok => "state-ok",
        }
    }
}

/// A chart's key: benchmark, metric, target and measure (one line per machine).
type ChartKey<'a> = (&'a str, &'a str, &'a str, &'static str);

fn chart_key(series: &Series) -> ChartKey<'_> {
    let key = &series.key;
    (&key.bench, key.metric, &key.target, key.measure.name())
}

impl<'a> History<'a> {
    fn state(&self, series: &Series) -> State {
        let holds = |list: &[rho_history::check::Regression]| {
            list.iter().any(|r| std::ptr::eq(r.series, series))
        };
        if holds(&self.judgement.failures) {
            State::Regressed
        } else if holds(&self.judgement.warnings) {
            State::Open
        } else {
            State::Ok
        }
    }

    /// The id and subject of the commit at `commit_index` of the line.
    fn commit_at(&self, commit_index: usize) -> (&'a str, &'a str) {
        self.commits
            .get(commit_index)
            .map_or(("", ""), |c| (c.id.as_str(), c.subject.as_str()))
    }
}

/// The page of `history`.
pub fn render(history: &History) -> String {
    let mut charts: BTreeMap<ChartKey, Vec<&Series>> = BTreeMap::new();
    for series in &history.analysis.series {
        charts.entry(chart_key(series)).or_default().push(series);
    }
    // Anchors by position: a benchmark's name may hold anything, an id must not.
    let anchors: BTreeMap<ChartKey, String> = charts
        .keys()
        .enumerate()
        .map(|(n, key)| (*key, format!("chart-{n}")))
        .collect();
    let anchor = |series: &Series| anchors.get(&chart_key(series)).cloned().unwrap_or_default();
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { (clean(history.title)) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { (clean(history.title)) }
                (verdict(history, charts.len()))
                (change_points(history, &anchor))
                (summary(history, &anchor))
                section id="charts" {
                    h2 { "Charts" }
                    @for (key, lines) in &charts {
                        (chart_section(history, *key, lines, anchors.get(key).map_or("", String::as_str)))
                    }
                }
                (skipped(history.listing))
            }
        }
    };
    let mut out = page.into_string();
    out.push('\n');
    out
}

/// The first line: the verdict on the newest commit, then the counts.
fn verdict(history: &History, charts: usize) -> Markup {
    let judgement = history.judgement;
    let newest = history
        .commits
        .last()
        .map_or(String::new(), |c| format!(" ({})", short(&c.id)));
    let (class, words) = if !judgement.failures.is_empty() {
        (
            "verdict fail",
            format!(
                "Regressed: {} series first {} a regression beyond the limit at the newest commit{newest}.",
                judgement.failures.len(),
                if judgement.failures.len() == 1 {
                    "shows"
                } else {
                    "show"
                }
            ),
        )
    } else if !judgement.warnings.is_empty() {
        (
            "verdict warn",
            format!(
                "No regression starts at the newest commit{newest}; {} series {} still in a regression seen \
                 before and not acknowledged (`rho bench history ack`).",
                judgement.warnings.len(),
                if judgement.warnings.len() == 1 {
                    "is"
                } else {
                    "are"
                }
            ),
        )
    } else {
        (
            "verdict pass",
            format!("No regression beyond its limit at the newest commit{newest}."),
        )
    };
    let changes: usize = history
        .analysis
        .series
        .iter()
        .map(|s| s.changes.len())
        .sum();
    html! {
        p class=(class) { (words) }
        p class="counts" {
            (changes) " change point(s) in " (history.analysis.series.len()) " series, "
            (charts) " chart(s) over " (history.commits.len()) " commit(s)."
        }
    }
}

/// Every change point, the regressions still open first, then the largest changes; each links to its chart.
fn change_points(history: &History, anchor: &dyn Fn(&Series) -> String) -> Markup {
    let mut rows: Vec<(State, &Series, &Change)> = history
        .analysis
        .series
        .iter()
        .flat_map(|series| {
            let state = history.state(series);
            series.changes.iter().map(move |change| {
                // The change that opened the regression carries the series' state; its other changes do not.
                let opened = history
                    .judgement
                    .failures
                    .iter()
                    .chain(&history.judgement.warnings)
                    .any(|r| {
                        std::ptr::eq(r.series, series)
                            && r.change.commit_index == change.commit_index
                    });
                (if opened { state } else { State::Ok }, series, change)
            })
        })
        .collect();
    // From zero (no percent) counts as the largest change.
    let size = |change: &Change| change.change_percent.map_or(f64::INFINITY, f64::abs);
    rows.sort_by(|a, b| a.0.cmp(&b.0).then(size(b.2).total_cmp(&size(a.2))));
    html! {
        section id="change-points" {
            h2 { "Change points" }
            @if rows.is_empty() {
                p { "No change point in " (history.analysis.series.len()) " series." }
            } @else {
                table class="change-points" {
                    tr {
                        th { "benchmark" } th { "metric" } th { "target, measure, machine" } th { "commit" }
                        th class="num" { "before" } th class="num" { "after" }
                        th class="num" { "change" } th class="num" { "p-value" } th { "state" }
                    }
                    @for (state, series, change) in &rows {
                        @let (id, subject) = history.commit_at(change.commit_index);
                        tr {
                            td { a href={ "#" (anchor(series)) } { (clean(&series.key.bench)) } }
                            td { (series.key.metric) }
                            td { (clean(&series.key.target)) ", " (series.key.measure.name()) ", " (clean(&series.key.machine)) }
                            td { code { (short(id)) } " " (clean(subject)) }
                            td class="num" { (format_series_figure(change.before)) }
                            td class="num" { (format_series_figure(change.after)) }
                            td class=(direction_class(change)) { (direction(change)) }
                            td class="num" {
                                @if is_exact(series.metric) { "exact" } @else { (format!("{:.2e}", change.pvalue)) }
                            }
                            td class=(state.class()) { (state.change_words()) }
                        }
                    }
                }
            }
        }
    }
}

/// A change in percent with its direction: `▲ +96.4%` for a rise (slower or larger: lower is better for
/// every metric), `▼ -10.0%` for a fall, `▲ new` from zero.
fn direction(change: &Change) -> String {
    let arrow = if change.after > change.before {
        "\u{25b2}"
    } else {
        "\u{25bc}"
    };
    match change.change_percent {
        Some(percent) => format!("{arrow} {percent:+.1}%"),
        None => format!("{arrow} new"),
    }
}

fn direction_class(change: &Change) -> &'static str {
    if change.after > change.before {
        "num up"
    } else {
        "num down"
    }
}

/// Every series in one table: the regressed first, then those still in a regression, then the largest
/// changes (the largest change point, else the newest figure against the median).
fn summary(history: &History, anchor: &dyn Fn(&Series) -> String) -> Markup {
    let size = |series: &Series| {
        let largest = series
            .changes
            .iter()
            .map(|c| c.change_percent.map_or(f64::INFINITY, f64::abs))
            .fold(None, |most: Option<f64>, c| {
                Some(most.map_or(c, |m| m.max(c)))
            });
        largest.unwrap_or_else(|| {
            series
                .newest()
                .and_then(|n| rho_history::document::change(series.median, n.value))
                .map_or(0.0, f64::abs)
        })
    };
    let mut rows: Vec<(State, &Series)> = history
        .analysis
        .series
        .iter()
        .map(|series| (history.state(series), series))
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0).then(size(b.1).total_cmp(&size(a.1))));
    html! {
        section id="summary" {
            h2 { "Every benchmark" }
            table class="summary" {
                tr {
                    th { "benchmark" } th { "metric" } th { "target" } th { "measure" } th { "machine" }
                    th class="num" { "newest" } th class="num" { "vs previous" } th class="num" { "vs median" }
                    th class="num" { "change points" } th class="num" { "limit" } th { "state" }
                }
                @for (state, series) in &rows {
                    @let newest = series.newest().map(|p| p.value);
                    @let previous = series.previous().map(|p| p.value);
                    tr {
                        td { a href={ "#" (anchor(series)) } { (clean(&series.key.bench)) } }
                        td { (series.key.metric) }
                        td { (clean(&series.key.target)) }
                        td { (series.key.measure.name()) }
                        td { (clean(&series.key.machine)) }
                        td class="num" { (newest.map_or("-".to_string(), format_series_figure)) }
                        td class="num" {
                            (percent_text(newest.zip(previous).and_then(|(n, p)| rho_history::document::change(p, n))))
                        }
                        td class="num" {
                            (percent_text(newest.and_then(|n| rho_history::document::change(series.median, n))))
                        }
                        td class="num" { (series.changes.len()) }
                        td class="num" { ((history.limit)(&series.key.bench, series.metric)) "%" }
                        td class=(state.class()) { (state.words()) }
                    }
                }
            }
        }
    }
}

/// One chart's section: its heading, the chart, the legend, the functions behind each step up.
fn chart_section(history: &History, key: ChartKey, lines: &[&Series], anchor: &str) -> Markup {
    let (bench, metric, target, measure) = key;
    html! {
        section class="history" id=(anchor) data-bench=(clean(bench)) data-metric=(metric) {
            h3 { (clean(bench)) " " (metric) " " small { "(target " (clean(target)) ", " (measure) ")" } }
            (chart(lines, history.commits))
            p class="legend" {
                @for (n, series) in lines.iter().enumerate() {
                    span style={ "color:" (COLOURS[n % COLOURS.len()]) } { "\u{25a0} " (clean(&series.key.machine)) }
                    " "
                }
                @if lines.iter().any(|s| is_exact(s.metric)) {
                    "(exact: every step is a change point)"
                } @else {
                    "(change points: E-Divisive means, t-test)"
                }
            }
            @for series in lines {
                (functions_behind(series, history.commits, history.listing))
            }
        }
    }
}

/// Under each step up of `series` whose records carry functions: the table of those that changed most and the
/// differential flame graph, the commit before the step against its first commit.
fn functions_behind(series: &Series, commits: &[Commit], listing: &Listing) -> Markup {
    html! {
        @for change in &series.changes {
            @if let Some(behind) = rho_history::functions::behind(series, change, commits, listing) {
                @let id = commits.get(change.commit_index).map_or("", |c| c.id.as_str());
                div class="functions-behind" data-commit=(id) {
                    h3 {
                        (clean(&series.key.bench)) " at " (short(id)) " (" (clean(&series.key.machine))
                        "): the functions that changed most, per iteration"
                    }
                    (crate::html::changed_functions_table(&behind.changes))
                    (crate::html::flame_graph(&series.key.bench, Some(behind.base), behind.head))
                }
            }
        }
    }
}

/// The y axis of a chart: from `low` to `high`, both padded off the figures; it starts at zero when the
/// padding would take it below zero for figures that are not negative.
struct Axis {
    low: f64,
    high: f64,
}

impl Axis {
    fn of(lines: &[&Series]) -> Axis {
        let values = lines.iter().flat_map(|s| {
            s.points.iter().flat_map(|p| {
                let (p25, p75) = p.band.unwrap_or((p.value, p.value));
                [p.value, p25, p75]
            })
        });
        let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let (low, high) = if low.is_finite() {
            (low, high)
        } else {
            (0.0, 1.0)
        };
        let pad = if high > low {
            (high - low) * 0.08
        } else {
            high.abs().max(1.0) * 0.05
        };
        // Bounds rounded outwards to a tenth of the span's order of magnitude: labels of few digits.
        let (padded_low, padded_high) = (low - pad, high + pad);
        let step = 10f64.powf((padded_high - padded_low).log10().floor() - 1.0);
        let (rounded_low, rounded_high) = if step.is_finite() && step > 0.0 {
            (
                (padded_low / step).floor() * step,
                (padded_high / step).ceil() * step,
            )
        } else {
            (padded_low, padded_high)
        };
        Axis {
            low: if low >= 0.0 && rounded_low < 0.0 {
                0.0
            } else {
                rounded_low
            },
            high: rounded_high,
        }
    }

    /// The labels at the axis' top and bottom.
    fn labels(&self) -> (String, String) {
        (
            format_series_figure(self.high),
            format_series_figure(self.low),
        )
    }
}

/// The width a label of `text` takes at the labels' font size.
fn label_width(text: &str) -> f64 {
    text.chars().count() as f64 * LABEL_CHAR_WIDTH
}

/// One chart: every machine's line over the commit axis, change points marked; the left margin as wide as
/// the longest y label, and a note under the plot when the y axis does not start at zero.
fn chart(lines: &[&Series], commits: &[Commit]) -> Markup {
    let axis = Axis::of(lines);
    let (top_label, bottom_label) = axis.labels();
    let left = 12.0
        + label_width(&top_label)
            .max(label_width(&bottom_label))
            .max(24.0);
    let width = left + PLOT_WIDTH + RIGHT;
    let bottom = HEIGHT - BOTTOM;
    let span = commits.len().saturating_sub(1).max(1) as f64;
    let x = |index: usize| left + PLOT_WIDTH * index as f64 / span;
    let y = |value: f64| TOP + (bottom - TOP) * (axis.high - value) / (axis.high - axis.low);
    let ends: Vec<(usize, &str)> = match commits.len() {
        0 => Vec::new(),
        1 => vec![(0, "start")],
        n => vec![(0, "start"), (n - 1, "end")],
    };
    let title = lines.first().map_or(String::new(), |s| {
        format!(
            "{} {}: the figure at each commit",
            clean(&s.key.bench),
            s.key.metric
        )
    });
    html! {
        svg class="trend" role="img" width=(px(width)) height=(px(HEIGHT))
            viewBox={ "0 0 " (px(width)) " " (px(HEIGHT)) } xmlns="http://www.w3.org/2000/svg" {
            title { (title) }
            line class="axis" x1=(px(left)) y1=(px(bottom)) x2=(px(left + PLOT_WIDTH)) y2=(px(bottom)) {}
            line class="axis" x1=(px(left)) y1=(px(TOP)) x2=(px(left)) y2=(px(bottom)) {}
            text class="label" x=(px(left - 6.0)) y=(px(TOP + 8.0)) text-anchor="end" { (top_label) }
            text class="label" x=(px(left - 6.0)) y=(px(bottom)) text-anchor="end" { (bottom_label) }
            @for (index, anchor) in &ends {
                text class="label" x=(px(x(*index))) y=(px(bottom + 15.0)) text-anchor=(anchor) {
                    (short(&commits[*index].id))
                }
            }
            @if axis.low != 0.0 {
                text class="axis-note" x=(px(left)) y=(px(HEIGHT - 8.0)) text-anchor="start" {
                    "y axis from " (bottom_label) ", not zero"
                }
            }
            @for (n, series) in lines.iter().enumerate() {
                (bands(series, COLOURS[n % COLOURS.len()], &x, &y))
            }
            @for (n, series) in lines.iter().enumerate() {
                (series_line(series, commits, COLOURS[n % COLOURS.len()], &x, &y, bottom))
            }
        }
    }
}

/// A machine's line: the polyline, a point per commit with its hover text, a dashed line per change point.
fn series_line(
    series: &Series,
    commits: &[Commit],
    colour: &str,
    x: &impl Fn(usize) -> f64,
    y: &impl Fn(f64) -> f64,
    bottom: f64,
) -> Markup {
    let path: Vec<String> = series
        .points
        .iter()
        .map(|p| format!("{},{}", px(x(p.commit_index)), px(y(p.value))))
        .collect();
    let commit = |index: usize| {
        commits
            .get(index)
            .map_or(("", ""), |c| (c.id.as_str(), c.subject.as_str()))
    };
    let machine = clean(&series.key.machine);
    html! {
        polyline fill="none" stroke=(colour) stroke-width="1.5" points=(path.join(" ")) {}
        @for point in &series.points {
            @let (id, subject) = commit(point.commit_index);
            circle class="point" cx=(px(x(point.commit_index))) cy=(px(y(point.value))) r="2.5" fill=(colour) {
                title { (short(id)) " " (clean(subject)) ": " (format_series_figure(point.value)) " (" (machine) ")" }
            }
        }
        @for change in &series.changes {
            @let (id, subject) = commit(change.commit_index);
            @let at = px(x(change.commit_index));
            line class="change" x1=(at) y1=(px(TOP)) x2=(at) y2=(px(bottom)) {
                title {
                    "change at " (short(id)) " " (clean(subject)) ": " (format_series_figure(change.before)) " -> "
                    (format_series_figure(change.after)) " (" (percent_text(change.change_percent)) ") on " (machine)
                }
            }
        }
    }
}

/// The p25-p75 band of `series` as one polygon per run of consecutive points that have a band (a point
/// without one, from a record that carried no quartiles, breaks it); a lone point's band is a narrow bar.
fn bands(
    series: &Series,
    colour: &str,
    x: &impl Fn(usize) -> f64,
    y: &impl Fn(f64) -> f64,
) -> Markup {
    let polygons: Vec<String> = series
        .points
        .chunk_by(|a, b| a.band.is_some() == b.band.is_some())
        .filter_map(|run| {
            let banded: Vec<(usize, (f64, f64))> = run
                .iter()
                .filter_map(|p| Some((p.commit_index, p.band?)))
                .collect();
            if banded.is_empty() {
                return None;
            }
            let half = if banded.len() == 1 { 2.0 } else { 0.0 };
            let upper = banded
                .iter()
                .map(|(i, (_, p75))| format!("{},{}", px(x(*i) - half), px(y(*p75))));
            let lower = banded
                .iter()
                .rev()
                .map(|(i, (p25, _))| format!("{},{}", px(x(*i) + half), px(y(*p25))));
            Some(upper.chain(lower).collect::<Vec<_>>().join(" "))
        })
        .collect();
    html! {
        @for points in &polygons {
            polygon class="band" fill=(colour) points=(points) {
                title { "p25-p75 (" (clean(&series.key.machine)) ")" }
            }
        }
    }
}

/// The files on the branch that could not be read as records, and why.
fn skipped(listing: &Listing) -> Markup {
    html! {
        @if !listing.problems.is_empty() {
            section id="skipped" {
                h2 { "Skipped records" }
                ul {
                    @for problem in &listing.problems {
                        li { code { (clean(&problem.path)) } ": " (clean(&problem.message)) }
                    }
                }
            }
        }
    }
}

/// `text` with its control characters (a terminal sequence in a commit subject) replaced by U+FFFD; maud
/// escapes the rest as it writes it.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}
