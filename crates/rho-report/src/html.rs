//! The report as one self-contained HTML page (`--html FILE`): inline CSS and SVG, nothing fetched and no
//! script of rho's own, so it reads the same from a CI artefact, a mail attachment or a file on disk. Every
//! element is written by a maud template (checked at compile time); whatever text goes in is escaped by it,
//! so a benchmark's or a suite's name (the user's) can never open a tag.
//!
//! The page answers first ([`crate::headline`]): its verdict, the regressed and over-budget benchmarks by
//! name, and one summary table of every benchmark (regressed first, then by the largest change), each metric
//! under its name with its own limit as set, all before the first chart.
//!
//! Then, per benchmark: a histogram of its samples per iteration (the primary clock's: nanoseconds unless they
//! are below their clock's resolution) with the median and the p99 marked, on a logarithmic axis when the
//! axis reaches ten times the median (a linear one squashes the body into a bar), and its stack and heap peak
//! as bars against their budgets (or, without a budget, against the painted stack region). With a comparison
//! (`--diff`, `rho bench compare`): each metric's base and head side by side with its limit, and both
//! histograms on one axis when both runs are at hand. Per benchmark family (`RHO_BENCH_ADD_ARG`), before the
//! benchmarks: its members' cost against their argument on log-log axes with the fitted curve, the fit's name
//! and its RMS (`crate::growth`). With a gate: every run of each side, per metric, with the line its limit
//! draws. Labels set the margins they sit in (never clipped), and an axis that does not start at zero says so.

use maud::{Markup, html};
use rho_judge::budget::{BudgetMetric, Judgement};
use rho_stats::{BenchSummary, ClockFigures, Distribution, RunSummary};
use rho_wire::StackMark;

pub use crate::flame::{changed_functions_table, flame_graph};
pub use crate::labels::suite_label;
use crate::labels::{gate_groups, gate_metric_parts};
pub use crate::page::{Diff, Gate, Page, Suite};
use crate::run::column_label;
use crate::svg::{FONT_PX, Scale, axis_from_note, margin_for, num, px, text_width};
pub use crate::svg::{escape, percent_as_set};

/// A histogram whose axis reaches this many times its median (a p99 twenty times the median, seen on a shared
/// machine) squashes its body into the first bars of a linear axis: its axis is logarithmic, and says so.
const LOG_AXIS_TAIL: f64 = 10.0;

/// Where a logarithmic axis of a histogram starting at `lo` starts: `lo`, or half of the first bin (or of
/// the median, if smaller) when `lo` is 0 (net samples at 0), so the first bar keeps a width.
fn log_floor(lo: f64, width: f64, median: f64) -> f64 {
    if lo > 0.0 {
        lo
    } else {
        width.min(median) / 2.0
    }
}

const CHART_WIDTH: f64 = 520.0;
const CHART_HEIGHT: f64 = 170.0;
const MARGIN: f64 = 36.0;
/// The height of one line of a chart's text.
const LINE: f64 = 13.0;

impl Page<'_> {
    /// The page as HTML text.
    pub fn render(&self) -> String {
        self.markup().into_string()
    }

    /// The page as markup: the headline and summary table, then the gate's runs, then each suite.
    pub fn markup(&self) -> Markup {
        let body = html! {
            (crate::headline::render(self))
            @if let Some(gate) = &self.gate {
                (render_gate(gate))
            }
            @for (index, suite) in self.suites.iter().enumerate() {
                (render_suite(index, suite, self.diff.as_ref()))
            }
            p.note {
                "Written by rho. Histograms: the net samples per iteration, from the lowest to the p99; the \
                 samples above it are counted beside. Solid line: median; dashed: p99."
            }
        };
        crate::chrome::document(&self.title, "", body)
    }
}

fn render_suite(index: usize, suite: &Suite, diff: Option<&Diff>) -> Markup {
    let summary = suite.summary;
    let target = &summary.target;
    let label = suite_label(suite.what);
    html! {
        section.suite {
            // The whole list of files stays a hover away.
            h2 title=[(label != suite.what).then_some(suite.what)] { (label) }
            p.meta {
                "target " (target.name) " (" (target.arch) "), "
                @if target.optimized { "optimized" } @else { strong { "NOT optimized" } }
                @if let Some(compiler) = &target.compiler { ", " (compiler) }
                "; " (summary.repetitions) " run(s) folded; "
                @match summary.config.stack_bytes {
                    Some(bytes) => { "stack region " (bytes) " bytes" }
                    None => "stack not measured",
                }
            }
            @if let Some(judgement) = suite.judgement {
                p.meta { "budgets: " (judgement.enforcement.describe()) }
            }
            (crate::growth::growth_charts(summary))
            @for bench in &summary.benchmarks {
                (render_bench(index, bench, suite, diff))
            }
        }
    }
}

fn render_bench(index: usize, bench: &BenchSummary, suite: &Suite, diff: Option<&Diff>) -> Markup {
    let base = diff.and_then(|d| {
        d.base_runs
            .iter()
            .find_map(|run| run.benchmarks.iter().find(|b| b.name == bench.name))
    });
    let compared = diff.and_then(|d| d.comparison.benchmark(&bench.name));
    // Its instructions regressed and both sides kept functions: where they went.
    let head_functions = bench
        .instructions
        .as_ref()
        .and_then(|i| i.functions.as_ref());
    let flame = match (compared, head_functions) {
        (Some(compared), Some(head)) if !compared.functions.is_empty() => Some(flame_graph(
            &bench.name,
            compared.base_functions.as_ref(),
            head,
        )),
        _ => None,
    };
    // Its time regressed and both saved runs were sampled: the table (samples carry no call counts to draw a
    // flame graph from).
    let sampled = compared.filter(|c| {
        !c.functions.is_empty() && c.functions_unit() == rho_profile::diff::SAMPLED_UNIT
    });
    html! {
        article.bench id=(crate::headline::anchor(index, &bench.name)) {
            h3 { (bench.name) }
            p.figures { (figures_line(bench)) }
            div.charts {
                (distribution_chart(bench, base))
                (footprint_chart(bench, suite.summary, suite.judgement))
                @if let Some(compared) = compared {
                    (diff_chart(compared))
                }
            }
            @if let Some(flame) = flame { (flame) }
            @if let Some(compared) = sampled {
                figure.sampled-functions {
                    figcaption {
                        (bench.name) ": the functions that changed most, sampled by perf record (ns per \
                         iteration; estimates, not counts)"
                    }
                    (changed_functions_table(&compared.functions))
                }
            }
        }
    }
}

/// The figures the distribution is drawn from: the time figures unless they are below their clock's
/// resolution (then the cycles, as the rates do), else a clock that counted instructions.
fn drawn(bench: &BenchSummary) -> Option<&ClockFigures> {
    bench
        .rate_figures()
        .filter(|f| f.distribution.is_some())
        .or(bench.cycles.as_ref())
        .or(bench.time.as_ref())
        .or(bench.instructions.as_ref().and_then(|i| i.samples.as_ref()))
}

fn figures_line(bench: &BenchSummary) -> String {
    let mut parts = Vec::new();
    if let Some(f) = drawn(bench) {
        let unit = column_label(&f.clock, f.derived);
        parts.push(format!("median {} {unit}", num(f.per_iteration.median)));
        if f.net.p99_is_informative() {
            parts.push(format!("p99 {}", num(f.per_iteration.p99)));
        }
        parts.push(format!(
            "{} samples{}",
            f.net.n,
            if f.batch > 1 {
                format!(" (batches of {})", f.batch)
            } else {
                String::new()
            }
        ));
    }
    if let Some(instructions) = &bench.instructions {
        parts.push(format!(
            "{} instructions ({})",
            num(instructions.per_iteration),
            instructions.source
        ));
    }
    if let Some(rate) = bench.ops_per_second {
        parts.push(format!(
            "{} {}/s",
            crate::numbers::format_rate(rate),
            bench.unit
        ));
    }
    if let Some(heap) = bench.heap.filter(|_| bench.leaked) {
        parts.push(format!("LEAK: {} bytes still held", heap.live));
    }
    if bench.overran {
        parts.push("stopped: the stack overran".to_string());
    }
    parts.join(" · ")
}

/// `parts` joined by `; ` into as few lines as fit `width` pixels at the charts' font: a legend is never cut
/// off at the chart's edge.
fn fitted_lines(parts: &[String], width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for part in parts {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line}; {part}"), FONT_PX) <= width => {
                line.push_str("; ");
                line.push_str(part);
            }
            _ => lines.push(part.clone()),
        }
    }
    lines
}

/// A chart with nothing to draw, saying why (`title`: its hover text).
fn empty_chart(title: &str, why: &str) -> Markup {
    html! {
        svg.chart.distribution.empty role="img" width=(CHART_WIDTH) height="60"
            viewBox=(format!("0 0 {CHART_WIDTH} 60")) {
            title { (title) }
            text x="12" y="34" { (why) }
        }
    }
}

/// The histogram of `bench`'s samples, with `base`'s drawn as an outline on the same axis when given.
fn distribution_chart(bench: &BenchSummary, base: Option<&BenchSummary>) -> Markup {
    let Some(figures) = drawn(bench) else {
        let why = if bench.instructions.is_some() {
            "counted exactly: one figure, no distribution"
        } else {
            "no samples: not measured"
        };
        return empty_chart("no samples", why);
    };
    let Some(head) = &figures.distribution else {
        return empty_chart(
            "no histogram",
            &format!(
                "median {}: this document carries no histogram",
                num(figures.per_iteration.median)
            ),
        );
    };
    // Base's figures on the same clock, when both runs are at hand.
    let base_figures = base.and_then(|b| {
        [b.time.as_ref(), b.cycles.as_ref()]
            .into_iter()
            .flatten()
            .find(|f| f.clock.unit == figures.clock.unit && f.derived == figures.derived)
    });
    let base_hist = base_figures.and_then(|f| f.distribution.as_ref());
    let mut lo = head.start;
    let mut hi = head.end().max(figures.per_iteration.p99);
    if let Some(b) = base_hist {
        lo = lo.min(b.start);
        hi = hi.max(b.end());
    }
    let median = figures.per_iteration.median;
    let log_axis = median > 0.0 && hi > LOG_AXIS_TAIL * median;
    let right = CHART_WIDTH - 12.0;
    let x = if log_axis {
        lo = log_floor(lo, head.width, median);
        Scale::log(lo, hi, MARGIN, right)
    } else {
        Scale::new(lo, hi, MARGIN, right)
    };
    let top = 22.0;
    let bottom = CHART_HEIGHT - 30.0;
    let peak = head
        .counts
        .iter()
        .map(|&c| share(head, c))
        .chain(
            base_hist
                .into_iter()
                .flat_map(|b| b.counts.iter().map(move |&c| share(b, c))),
        )
        .fold(0.0, f64::max)
        .max(1e-9);
    let y = |fraction: f64| bottom - fraction / peak * (bottom - top);
    let unit = column_label(&figures.clock, figures.derived);
    let legend = fitted_lines(
        &distribution_legend(
            unit.clone(),
            log_axis,
            hi / median,
            lo,
            head,
            figures,
            base_hist.is_some(),
        ),
        CHART_WIDTH - MARGIN - 6.0,
    );
    // The chart grows a line per line of legend below the first.
    let height = CHART_HEIGHT + LINE * legend.len().saturating_sub(1) as f64;
    html! {
        svg.chart.distribution role="img" width=(CHART_WIDTH) height=(height)
            viewBox=(format!("0 0 {CHART_WIDTH} {height}")) data-benchmark=(bench.name) {
            title { (bench.name) ": distribution of " (head.total()) " samples per iteration, " (unit) }
            (histogram_bars(head, base_hist, &x, &y, bottom))
            line.axis x1=(px(MARGIN)) y1=(px(bottom)) x2=(px(right)) y2=(px(bottom)) {}
            (median_and_p99(figures, &x, top, bottom))
            text x=(px(MARGIN)) y=(px(bottom + LINE)) { (num(lo)) }
            text x=(px(right)) y=(px(bottom + LINE)) text-anchor="end" { (num(hi)) }
            @if log_axis { (decade_ticks(&x, lo, hi, bottom)) }
            @for (i, line) in legend.iter().enumerate() {
                text.legend x=(px(MARGIN)) y=(px(CHART_HEIGHT - 2.0 + LINE * i as f64)) { (line) }
            }
        }
    }
}

/// The share of `d`'s samples that `count` is.
fn share(d: &Distribution, count: u64) -> f64 {
    count as f64 / d.total().max(1) as f64
}

/// Head's histogram as bars, and base's (when given) as a step outline over them.
fn histogram_bars(
    head: &Distribution,
    base_hist: Option<&Distribution>,
    x: &Scale,
    y: &dyn Fn(f64) -> f64,
    bottom: f64,
) -> Markup {
    // The base as a step outline over head's bars: SVG path data, numbers and letters only.
    let outline = base_hist.map(|b| {
        let mut path = format!("M{} {}", px(x.at(b.start)), px(bottom));
        for (i, &count) in b.counts.iter().enumerate() {
            let level = px(y(share(b, count)));
            path.push_str(&format!(
                " L{} {level} L{} {level}",
                px(x.at(b.start + b.width * i as f64)),
                px(x.at(b.start + b.width * (i + 1) as f64))
            ));
        }
        path.push_str(&format!(" L{} {}", px(x.at(b.end())), px(bottom)));
        path
    });
    html! {
        @for (i, &count) in head.counts.iter().enumerate() {
            @if count > 0 {
                @let left = x.at(head.start + head.width * i as f64);
                @let right = x.at(head.start + head.width * (i + 1) as f64);
                rect.bar x=(px(left)) y=(px(y(share(head, count))))
                    width=(px((right - left - 0.5).max(1.0))) height=(px(bottom - y(share(head, count)))) {
                    title { (count) " samples from " (num(head.start + head.width * i as f64)) }
                }
            }
        }
        @if let Some(path) = outline {
            path.base-hist d=(path) { title { "base" } }
        }
    }
}

/// The median's line and label, and the p99's when it is informative.
fn median_and_p99(figures: &ClockFigures, x: &Scale, top: f64, bottom: f64) -> Markup {
    // The median's label left of its line, the p99's right of its own: they never sit on each other.
    let marker = |class: &str, value: f64, label: String, right: bool| {
        let at = x.at(value);
        // Near an edge, a label goes to the line's other side: the room it needs is its own width.
        let room = text_width(&label, FONT_PX) + 6.0;
        let right = if right {
            at < CHART_WIDTH - room
        } else {
            at < room
        };
        let (anchor, text_at) = if right {
            ("start", at + 3.0)
        } else {
            ("end", at - 3.0)
        };
        html! {
            line class=(class) x1=(px(at)) y1=(px(top - 8.0)) x2=(px(at)) y2=(px(bottom)) {}
            text x=(px(text_at)) y=(px(top - 4.0)) text-anchor=(anchor) { (label) }
        }
    };
    let median = figures.per_iteration.median;
    let p99 = figures.per_iteration.p99;
    html! {
        (marker("median", median, format!("median {}", num(median)), false))
        @if figures.net.p99_is_informative() {
            (marker("p99", p99, format!("p99 {}", num(p99)), true))
        }
    }
}

/// The chart's legend, part by part: the unit, then why the axis is logarithmic (or that a linear one does
/// not start at zero), what lies above p99 and what the outline is.
fn distribution_legend(
    unit: String,
    log_axis: bool,
    tail: f64,
    lo: f64,
    head: &Distribution,
    figures: &ClockFigures,
    outlined: bool,
) -> Vec<String> {
    let mut legend = vec![unit];
    if log_axis {
        legend.push(format!("log axis: its tail reaches {tail:.0}x the median"));
    } else if let Some(note) = axis_from_note(lo) {
        legend.push(note);
    }
    if head.above > 0 {
        legend.push(format!(
            "{} above p99 (max {})",
            head.above,
            num(figures.per_iteration.max)
        ));
    }
    if outlined {
        legend.push("outline: base".to_string());
    }
    legend
}

/// Ticks at the powers of ten inside `(lo, hi)` on a logarithmic axis, labelled where they leave room for the
/// end labels.
fn decade_ticks(x: &Scale, lo: f64, hi: f64, bottom: f64) -> Markup {
    let mut decades = Vec::new();
    let mut decade = 10f64.powf(lo.log10().ceil());
    while decade < hi {
        if decade > lo {
            decades.push(decade);
        }
        decade *= 10.0;
    }
    // The end labels' room: the lowest's width from the left margin, the highest's from the right edge.
    let (left_room, right_room) = (
        MARGIN + text_width(&num(lo), FONT_PX) + 20.0,
        CHART_WIDTH - 12.0 - text_width(&num(hi), FONT_PX) - 20.0,
    );
    html! {
        @for decade in decades {
            @let at = x.at(decade);
            line.axis x1=(px(at)) y1=(px(bottom)) x2=(px(at)) y2=(px(bottom + 4.0)) {}
            @if at > left_room && at < right_room {
                text x=(px(at)) y=(px(bottom + LINE)) text-anchor="middle" { (num(decade)) }
            }
        }
    }
}

/// One row of a bar chart: its label, its value (and base's, above it), the line it must stay under, the
/// sentence under it and the bar's class.
struct BarRow {
    label: String,
    value: Option<f64>,
    /// A second bar drawn above the value's (the base of a comparison).
    base: Option<f64>,
    limit: Option<f64>,
    text: String,
    class: &'static str,
}

/// Horizontal bars, one row each, as wide as their labels and sentences need (at least 360 pixels).
fn bar_chart(class: &str, title: &str, rows: &[BarRow]) -> Markup {
    if rows.is_empty() {
        return html! {};
    }
    let label_width = margin_for(rows.iter().map(|r| r.label.as_str()), 12.0, 70.0);
    let width = rows
        .iter()
        .map(|r| label_width + text_width(&r.text, FONT_PX) + 12.0)
        .chain([text_width(title, FONT_PX) + 12.0])
        .fold(360.0, f64::max);
    let row_height = 34.0;
    let height = 20.0 + row_height * rows.len() as f64;
    html! {
        svg class=(format!("chart {class}")) role="img" width=(px(width)) height=(height)
            viewBox=(format!("0 0 {} {height}", px(width))) {
            title { (title) }
            text x="6" y="13" { (title) }
            @for (i, row) in rows.iter().enumerate() {
                @let top = 20.0 + row_height * i as f64;
                @let scale_to = [row.value, row.base, row.limit]
                    .into_iter()
                    .flatten()
                    .fold(0.0, f64::max)
                    * 1.1;
                @let x = Scale::new(0.0, scale_to.max(1e-9), label_width, width - 8.0);
                text x="6" y=(px(top + 13.0)) { (row.label) }
                @if let Some(base) = row.base {
                    rect.base-bar x=(px(label_width)) y=(px(top + 2.0)) width=(px(x.at(base) - label_width))
                        height="7" { title { "base " (num(base)) } }
                }
                @if let Some(value) = row.value {
                    rect class=(row.class) x=(px(label_width)) y=(px(top + 10.0))
                        width=(px((x.at(value) - label_width).max(0.5))) height="9" { title { (num(value)) } }
                }
                @if let Some(limit) = row.limit {
                    @let at = x.at(limit);
                    line.limit x1=(px(at)) y1=(px(top)) x2=(px(at)) y2=(px(top + 21.0)) {}
                }
                text.note x=(px(label_width)) y=(px(top + 31.0)) { (row.text) }
            }
        }
    }
}

/// Stack and heap peak against their budgets (the judged run's), else the stack against the painted region.
fn footprint_chart(
    bench: &BenchSummary,
    summary: &RunSummary,
    judgement: Option<&Judgement>,
) -> Markup {
    let check = |metric: BudgetMetric| {
        judgement
            .and_then(|j| j.benchmarks.iter().find(|b| b.name == bench.name))
            .and_then(|b| b.checks.iter().find(|c| c.metric == metric))
    };
    let row =
        |label: &str, value: Option<f64>, metric: BudgetMetric, fallback: Option<(f64, &str)>| {
            let check = check(metric);
            let budget = check.and_then(|c| c.budget);
            let verdict = check.map(|c| c.verdict);
            let bad = matches!(
                verdict,
                Some(rho_judge::budget::Verdict::Over | rho_judge::budget::Verdict::Unmeasured)
            );
            let value_text = value.map_or("not measured".to_string(), |v| format!("{} B", num(v)));
            let (limit, text) = match (budget, fallback) {
                (Some(budget), _) => (
                    Some(budget),
                    format!(
                        "{value_text}, budget {} B: {}",
                        num(budget),
                        verdict.map_or("-", |v| v.label())
                    ),
                ),
                (None, Some((bound, what))) => (
                    Some(bound),
                    format!("{value_text} of {} B {what}", num(bound)),
                ),
                (None, None) => (None, format!("{value_text}, no budget")),
            };
            BarRow {
                label: label.to_string(),
                value,
                base: None,
                limit,
                text,
                class: if bad {
                    "bad"
                } else if budget.is_some() {
                    "ok"
                } else {
                    "neutral"
                },
            }
        };
    let stack = match bench.stack {
        StackMark::Bytes(bytes) => Some(bytes as f64),
        StackMark::Overrun | StackMark::Off => None,
    };
    let painted = summary
        .config
        .stack_bytes
        .map(|bytes| (bytes as f64, "painted"));
    // Not measured (`@heap off`, or a stopped benchmark): no bar, "not measured".
    let heap = bench
        .heap
        .filter(|_| !bench.overran)
        .map(|heap| heap.peak as f64);
    let rows = [
        row("stack", stack, BudgetMetric::StackBytes, painted),
        row("heap peak", heap, BudgetMetric::HeapPeakBytes, None),
    ];
    bar_chart("footprint", "stack and heap, bytes", &rows)
}

/// One benchmark's metrics, base against head, each with its own limit (the one it was judged with).
fn diff_chart(compared: &rho_compare::compare::BenchmarkComparison) -> Markup {
    use rho_compare::compare::Value;
    let rows: Vec<BarRow> = compared
        .metrics
        .iter()
        .map(|m| {
            let limit_percent = rho_compare::metric_limit(
                m.metric,
                compared.limit_percent,
                compared.instructions_limit_percent,
            );
            let base = m.base.figure();
            let head = m.head.figure();
            let change = m
                .change_percent
                .map_or(String::new(), |c| format!(" ({c:+.1}%)"));
            let show = |v: Value| match v {
                Value::Figure(f) => num(f),
                Value::Overrun => "overran".to_string(),
                Value::Off => "off".to_string(),
                Value::Absent => "absent".to_string(),
            };
            BarRow {
                label: m.metric.name().to_string(),
                value: head,
                base,
                limit: base.map(|b| b * (1.0 + limit_percent / 100.0)),
                text: format!(
                    "{} -> {}{change}: {} (limit +{})",
                    show(m.base),
                    show(m.head),
                    m.verdict.label(),
                    percent_as_set(limit_percent)
                ),
                class: if m.verdict.fails() { "bad" } else { "ok" },
            }
        })
        .collect();
    bar_chart(
        "diff",
        "base (grey) against head, with each metric's limit",
        &rows,
    )
}

/// The gate: per benchmark (metric names `BENCH.METRIC`), every run of base and head for each metric, with
/// the line head's best must stay under.
fn render_gate(gate: &Gate) -> Markup {
    let comparison = gate.comparison;
    let regressed = rho_gate::functions::regressed_in(comparison, gate.base_runs, gate.head_runs);
    html! {
        section.gate {
            h2 { "Every run: head " (gate.head) " (blue), base " (gate.base) " (grey)" }
            p.meta.verdict-ok[comparison.verdict == rho_gate::Verdict::Ok]
                .verdict-bad[comparison.verdict != rho_gate::Verdict::Ok] {
                "verdict: " (comparison.verdict) "; " (gate.base_runs.len().max(gate.head_runs.len()))
                " run(s) of each side, alternating; each side's best run is judged against its metric's limit"
            }
            @for (group, metrics) in gate_groups(comparison) {
                article.bench id=(format!("gate-{group}")) {
                    h3 { (group) }
                    div.charts { (runs_chart(group, &metrics, gate)) }
                    @if let Some(functions) = regressed.iter().find(|r| r.bench == group) {
                        (flame_graph(group, Some(&functions.base), &functions.head))
                    }
                }
            }
        }
    }
}

fn run_values(runs: &[rho_gate::RunMetrics], name: &str) -> Vec<f64> {
    runs.iter()
        .filter_map(|run| match run.get(name) {
            Some(rho_gate::Figure::Value(v)) => Some(*v),
            _ => None,
        })
        .collect()
}

/// A gate metric's outcome in a word or two, with its change and its limit as set: `REGRESSED +6.1%
/// (limit +1%)`. An undecided one says only that; why is in its hover text and the text report.
pub(crate) fn gate_outcome_text(metric: &rho_gate::MetricComparison) -> String {
    let outcome = match &metric.outcome {
        rho_gate::MetricOutcome::Ok => "ok",
        rho_gate::MetricOutcome::Regressed => "REGRESSED",
        rho_gate::MetricOutcome::Undecided(_) => "undecided",
    };
    let change = metric
        .change()
        .map_or(String::new(), |c| format!(" {:+.1}%", c * 100.0));
    format!(
        "{outcome}{change} (limit +{})",
        percent_as_set(metric.budget * 100.0)
    )
}

/// One strip per metric: base's runs on the upper line, head's on the lower, the limit's line at base's best
/// times (1 + limit). The labels' margin is as wide as the widest label.
fn runs_chart(group: &str, metrics: &[&rho_gate::MetricComparison], gate: &Gate) -> Markup {
    let row_height = 46.0;
    let labels: Vec<(String, String)> = metrics
        .iter()
        .map(|m| {
            (
                gate_metric_parts(&m.name).1.to_string(),
                gate_outcome_text(m),
            )
        })
        .collect();
    let label_width = margin_for(
        labels.iter().flat_map(|(a, b)| [a.as_str(), b.as_str()]),
        12.0,
        120.0,
    );
    let width = CHART_WIDTH.max(label_width + 240.0);
    let height = 10.0 + row_height * metrics.len() as f64;
    html! {
        svg.chart.gate-runs role="img" width=(px(width)) height=(height)
            viewBox=(format!("0 0 {} {height}", px(width))) {
            title { (group) ": every run of base (grey, upper) and head (blue, lower)" }
            @for (i, (metric, (metric_name, outcome))) in metrics.iter().zip(&labels).enumerate() {
                @let top = 8.0 + row_height * i as f64;
                (runs_strip(metric, gate, top, label_width, width, metric_name, outcome))
            }
        }
    }
}

/// One metric's strip of [`runs_chart`], `top` pixels down.
fn runs_strip(
    metric: &rho_gate::MetricComparison,
    gate: &Gate,
    top: f64,
    label_width: f64,
    width: f64,
    metric_name: &str,
    outcome: &str,
) -> Markup {
    let base = run_values(gate.base_runs, &metric.name);
    let head = run_values(gate.head_runs, &metric.name);
    // The line head must not cross: above base's best for a cost, below it for a rate (judged as its
    // reciprocal, rho_judge::judge_change_toward).
    let limit = metric.base.map(|b| match metric.better {
        rho_stats::Better::Lower => b.min * (1.0 + metric.budget),
        rho_stats::Better::Higher => b.min / (1.0 + metric.budget),
    });
    let all: Vec<f64> = base.iter().chain(&head).chain(&limit).copied().collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.01);
    let pad = if pad > 0.0 { pad } else { 1.0 };
    // Costs are not negative: the axis starts at 0 at the lowest.
    let (lo, hi) = (
        if lo >= 0.0 {
            (lo - pad).max(0.0)
        } else {
            lo - pad
        },
        hi + pad,
    );
    let right = width - 12.0;
    let x = Scale::new(lo, hi, label_width, right);
    let why = match &metric.outcome {
        rho_gate::MetricOutcome::Undecided(why) => Some(why.to_string()),
        _ => None,
    };
    let low_label = match axis_from_note(lo) {
        Some(note) => note,
        None => num(lo),
    };
    let limit_title = match metric.better {
        rho_stats::Better::Lower => format!(
            "limit: base's best +{}",
            percent_as_set(metric.budget * 100.0)
        ),
        rho_stats::Better::Higher => format!(
            "limit: base's best / (1 + {})",
            percent_as_set(metric.budget * 100.0)
        ),
    };
    html! {
        text x="6" y=(px(top + 12.0)) { (metric_name) }
        text.note x="6" y=(px(top + 26.0)) {
            @if let Some(why) = &why { title { (why) } }
            (outcome)
        }
        line.axis x1=(px(label_width)) y1=(px(top + 34.0)) x2=(px(right)) y2=(px(top + 34.0)) {}
        @for (class, values, level) in [("base-dot", &base, top + 10.0), ("head-dot", &head, top + 24.0)] {
            @for value in values.iter() {
                circle class=(class) cx=(px(x.at(*value))) cy=(px(level)) r="4" { title { (num(*value)) } }
            }
        }
        @if let Some(limit) = limit {
            @let at = x.at(limit);
            line.limit x1=(px(at)) y1=(px(top + 2.0)) x2=(px(at)) y2=(px(top + 32.0)) { title { (limit_title) } }
        }
        text.note x=(px(label_width)) y=(px(top + 44.0)) { (low_label) }
        text.note x=(px(right)) y=(px(top + 44.0)) text-anchor="end" { (num(hi)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_cannot_open_a_tag_or_leave_an_attribute() {
        assert_eq!(
            escape("<script>alert('x')</script>"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
        );
        assert_eq!(escape("a\" onload=\"x"), "a&quot; onload=&quot;x");
        assert_eq!(escape("a&b"), "a&amp;b");
        assert_eq!(escape("bell\u{7}"), "bell\u{FFFD}");
    }

    #[test]
    fn numbers_keep_the_places_that_matter() {
        assert_eq!(num(1740.0), "1740");
        assert_eq!(num(39.0625), "39.1");
        assert_eq!(num(0.625), "0.62");
        assert_eq!(num(12.0), "12");
    }

    /// Two benchmarks on a cycle clock of known frequency (time derived), the second with one wild sample.
    const STREAM: &str = include_str!("../testdata/two_benchmarks.wire");

    fn summary() -> RunSummary {
        let run = rho_wire::parse_str(STREAM).unwrap();
        RunSummary::of(&run).unwrap()
    }

    fn page<'a>(suites: Vec<Suite<'a>>) -> Page<'a> {
        Page {
            title: "rho bench".to_string(),
            suites,
            diff: None,
            gate: None,
        }
    }

    /// Every element opened is closed (the tags this module writes), a crude check of well-formedness.
    fn assert_balanced(html: &str) {
        for tag in ["svg", "section", "article", "div", "text", "rect", "title"] {
            let open = html.matches(&format!("<{tag}>")).count()
                + html.matches(&format!("<{tag} ")).count();
            let close = html.matches(&format!("</{tag}>")).count();
            assert_eq!(open, close, "<{tag}> opened {open} times, closed {close}");
        }
    }

    #[test]
    fn a_run_gets_one_distribution_chart_per_benchmark_and_its_names_escaped() {
        let mut summary = summary();
        summary.benchmarks[1].name = "bench_<script>alert(1)</script>".to_string();
        let html = page(vec![Suite {
            what: "suite \"x\" & <y>.c",
            summary: &summary,
            judgement: None,
        }])
        .render();
        assert_balanced(&html);
        assert_eq!(html.matches("class=\"chart distribution\"").count(), 2);
        assert_eq!(html.matches("class=\"chart footprint\"").count(), 2);
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("bench_&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("suite &quot;x&quot; &amp; &lt;y&gt;.c"));
        // Self-contained: nothing is fetched.
        for fetch in ["http://", "https://", "src=", "<link", "@import"] {
            assert!(!html.contains(fetch), "{fetch} in the page");
        }
        // The median is marked (the p99 of 5 samples is only the max: not marked), every sample counted.
        assert_eq!(html.matches("class=\"median\"").count(), 2);
        assert!(!html.contains("class=\"p99\""));
        assert!(
            html.contains("<title>bench_a: distribution of 5 samples"),
            "{html}"
        );
    }

    #[test]
    fn a_judged_run_draws_its_budgets() {
        let summary = summary();
        let budgets = rho_config::Budgets {
            max_stack_bytes: Some(100),
            ..Default::default()
        };
        let judgement = Judgement::of(&summary, |_| budgets, 1.0);
        let html = page(vec![Suite {
            what: "a.c",
            summary: &summary,
            judgement: Some(&judgement),
        }])
        .render();
        assert_balanced(&html);
        // bench_a's 96 bytes hold, bench_b's 128 do not.
        assert!(html.contains("96 B, budget 100 B: ok"), "{html}");
        assert!(html.contains("128 B, budget 100 B: OVER"), "{html}");
        assert!(html.contains("class=\"bad\""));
    }

    /// A heap not measured (`@heap off`) draws no heap bar: "not measured", and a heap budget on it is
    /// UNMEASURED (drawn as bad), never ok.
    #[test]
    fn a_heap_not_measured_is_drawn_as_not_measured_against_its_budget() {
        let mut summary = summary();
        summary.benchmarks[1].heap = None;
        let budgets = rho_config::Budgets {
            max_heap_bytes: Some(1024),
            ..Default::default()
        };
        let judgement = Judgement::of(&summary, |_| budgets, 1.0);
        let html = page(vec![Suite {
            what: "a.rs",
            summary: &summary,
            judgement: Some(&judgement),
        }])
        .render();
        assert_balanced(&html);
        assert!(html.contains("64 B, budget 1024 B: ok"), "{html}");
        assert!(
            html.contains("not measured, budget 1024 B: UNMEASURED"),
            "{html}"
        );
    }

    #[test]
    fn a_comparison_draws_base_against_head_and_both_histograms() {
        let base = summary();
        let mut head = summary();
        head.benchmarks[0].stack = StackMark::Bytes(960);
        let recording = rho_baseline::Recording::now("0", None);
        let section = |s: &RunSummary| rho_baseline::section_from_summary(s, &recording);
        let comparison = rho_compare::compare(&section(&base), &section(&head), 10.0).unwrap();
        let mut page = page(vec![Suite {
            what: "a.c",
            summary: &head,
            judgement: None,
        }]);
        page.diff = Some(Diff {
            comparison: &comparison,
            base_name: "base.json",
            base_runs: vec![&base],
        });
        let html = page.render();
        assert_balanced(&html);
        assert_eq!(html.matches("class=\"chart diff\"").count(), 2);
        assert_eq!(html.matches("class=\"base-hist\"").count(), 2);
        assert!(
            html.contains("96 -&gt; 960 (+900.0%): regressed (limit +10%)"),
            "{html}"
        );
        assert!(html.contains("1 regressed"));
    }

    #[test]
    fn a_gate_draws_every_run_of_each_side() {
        let mut base_runs = Vec::new();
        let mut head_runs = Vec::new();
        for run in 0..3 {
            let mut base = rho_gate::RunMetrics::new();
            base.insert(
                "bench_a.cycles".into(),
                rho_gate::Figure::Value(100.0 + run as f64),
            );
            base_runs.push(base);
            let mut head = rho_gate::RunMetrics::new();
            head.insert(
                "bench_a.cycles".into(),
                rho_gate::Figure::Value(1000.0 + run as f64),
            );
            head_runs.push(head);
        }
        let side = |min, max| rho_gate::SideFigures { min, max, runs: 3 };
        let comparison = rho_gate::Comparison {
            verdict: rho_gate::Verdict::Regressed,
            metrics: vec![rho_gate::MetricComparison {
                name: "bench_a.cycles".into(),
                floor: 0.0,
                within_resolution: false,
                base: Some(side(100.0, 102.0)),
                head: Some(side(1000.0, 1002.0)),
                budget: 0.05,
                better: rho_stats::Better::Lower,
                outcome: rho_gate::MetricOutcome::Regressed,
                paired: None,
                undecided_side: None,
                shown: false,
            }],
        };
        let mut page = page(Vec::new());
        page.gate = Some(Gate {
            comparison: &comparison,
            base_runs: &base_runs,
            head_runs: &head_runs,
            base: "main",
            head: "<HEAD>",
        });
        let html = page.render();
        assert_balanced(&html);
        assert_eq!(html.matches("class=\"chart gate-runs\"").count(), 1);
        assert_eq!(html.matches("class=\"base-dot\"").count(), 3);
        assert_eq!(html.matches("class=\"head-dot\"").count(), 3);
        assert!(html.contains("&lt;HEAD&gt;"));
        assert!(html.contains("REGRESSED +900.0% (limit +5%)"), "{html}");
        assert!(
            html.contains("<p class=\"verdict verdict-bad\">FAILED: 1 benchmark regressed</p>"),
            "{html}"
        );
    }

    /// The page opens with the verdict, the regressed and the over-budget benchmarks by name, each a link to
    /// its section, and one summary table of every benchmark, the regressed one first, before any chart.
    #[test]
    fn the_headline_names_the_regressed_and_the_over_budget_with_links_and_a_summary_table() {
        let base = summary();
        let mut head = summary();
        // bench_b, the second in the suite, regresses: it is the table's first row.
        head.benchmarks[1].stack = StackMark::Bytes(1280);
        let recording = rho_baseline::Recording::now("0", None);
        let section = |s: &RunSummary| rho_baseline::section_from_summary(s, &recording);
        let comparison = rho_compare::compare(&section(&base), &section(&head), 10.0).unwrap();
        let budgets = rho_config::Budgets {
            max_heap_bytes: Some(32),
            ..Default::default()
        };
        let judgement = Judgement::of(&head, |_| budgets, 1.0);
        let mut page = page(vec![Suite {
            what: "a.c",
            summary: &head,
            judgement: Some(&judgement),
        }]);
        page.diff = Some(Diff {
            comparison: &comparison,
            base_name: "base.json",
            base_runs: Vec::new(),
        });
        let html = page.render();
        assert_balanced(&html);
        let headline = &html[html.find("<section class=\"headline\"").unwrap()..];
        let headline = &headline[..headline.find("</section>").unwrap()];
        assert!(
            html.find("<section class=\"headline\"") < html.find("<section class=\"suite\""),
            "the headline comes first"
        );
        assert!(!headline.contains("<svg"), "no chart before the table");
        assert!(
            headline.contains(
                "<p class=\"verdict verdict-bad\">FAILED: 1 benchmark regressed, 1 benchmark over budget</p>"
            ),
            "{headline}"
        );
        assert!(
            headline.contains(
                "<strong>Regressed:</strong> <a href=\"#s0-bench_b\">bench_b</a> (stack_bytes +900.0%)"
            ),
            "{headline}"
        );
        // bench_a's 64-byte heap peak is over its 32; bench_b's 0 holds.
        assert!(
            headline.contains(
                "<strong>Over budget:</strong> <a href=\"#s0-bench_a\">bench_a</a> (heap peak B 64 &gt; 32)"
            ),
            "{headline}"
        );
        for name in ["bench_a", "bench_b"] {
            assert!(html.contains(&format!("<article class=\"bench\" id=\"s0-{name}\">")));
        }
        // One row per benchmark: the regressed first, then the one over budget.
        let rows: Vec<&str> = headline
            .split("<tr data-summary=\"")
            .skip(1)
            .filter_map(|row| row.split('"').next())
            .collect();
        assert_eq!(rows, ["bench_b", "bench_a"], "{headline}");
        assert!(
            headline.contains(
                "<tr data-summary=\"bench_b\"><td><a href=\"#s0-bench_b\">bench_b</a></td>"
            ),
            "{headline}"
        );
        // A column per metric measured, each with its limit as set, the change and the budget in the cells,
        // a verdict per row.
        assert!(
            headline.contains(
                "<th>cycles<span class=\"limit-set\">limit +10%</span></th><th>ns<span class=\"limit-set\">\
                 limit +10%</span></th><th>stack B<span class=\"limit-set\">limit +10%</span></th>"
            ),
            "{headline}"
        );
        assert!(
            headline.contains("<td class=\"verdict-bad\">1280 (+900.0%)</td>"),
            "{headline}"
        );
        assert!(
            headline.contains("<td class=\"verdict-bad\">64 (+0.0%) ≤ 32 OVER</td>"),
            "{headline}"
        );
        assert!(
            headline.contains("<td class=\"verdict-bad\">regressed</td></tr>"),
            "{headline}"
        );
        assert!(
            headline.contains("<td class=\"verdict-bad\">over budget</td></tr>"),
            "{headline}"
        );
        assert!(html.contains("stack region 4096 bytes"), "{html}");

        // Nothing to judge against: the headline says so, and the table still lists every benchmark.
        let html = page_of(&head).render();
        assert!(
            html.contains("2 benchmarks measured; no baseline and no budget to judge them against"),
            "{html}"
        );
        assert_eq!(html.matches("<tr data-summary=").count(), 2);
        assert!(
            !html.contains("class=\"limit-set\""),
            "no comparison, no limit"
        );
    }

    /// Each metric with its own limit: instructions judged at 1% and time at 10% read so, in the line saying
    /// what the run was compared with, in the table's headings and in the diff chart. The page once said
    /// "limit +10%" for everything, the time limit, where the instructions' limit was 1%.
    #[test]
    fn each_metric_shows_its_own_limit_as_set() {
        use rho_compare::compare::{MetricComparison, Value};
        let base = summary();
        let head = summary();
        let recording = rho_baseline::Recording::now("0", None);
        let section = |s: &RunSummary| rho_baseline::section_from_summary(s, &recording);
        let mut comparison = rho_compare::compare(&section(&base), &section(&head), 10.0).unwrap();
        // bench_a counted too: 1000 instructions, then 1020 (+2%: over its 1%).
        let bench = &mut comparison.benchmarks[0];
        assert_eq!(bench.instructions_limit_percent, 1.0);
        bench.metrics.push(MetricComparison {
            metric: rho_stats::Metric::Instructions,
            base: Value::Figure(1000.0),
            head: Value::Figure(1020.0),
            change_percent: Some(2.0),
            within_resolution: false,
            verdict: rho_compare::Verdict::Regressed,
            adjusted: None,
        });
        let mut page = page_of(&head);
        page.diff = Some(Diff {
            comparison: &comparison,
            base_name: "HEAD",
            base_runs: Vec::new(),
        });
        let html = page.render();
        assert_balanced(&html);
        assert!(
            html.contains(
                "limits as set: cycles, time_ns, stack_bytes, heap_peak_bytes +10%; instructions +1%."
            ),
            "{html}"
        );
        assert!(!html.contains("(limit +10%)</p>"), "{html}");
        assert!(
            html.contains("<th>instructions<span class=\"limit-set\">limit +1%</span></th>"),
            "{html}"
        );
        assert!(
            html.contains("1000 -&gt; 1020 (+2.0%): regressed (limit +1%)"),
            "{html}"
        );
        assert!(
            html.contains("96 -&gt; 96 (+0.0%): ok (limit +10%)"),
            "{html}"
        );
    }

    /// The machine's yardstick moved (2x): the page says so beside what it was compared with, as the text
    /// report does; without a yardstick it says time was judged as measured.
    #[test]
    fn the_page_says_when_the_machine_moved() {
        let base = summary();
        let head = summary();
        let recording = rho_baseline::Recording::now("0", None);
        let section = |s: &RunSummary, ns: f64| {
            rho_baseline::fixture::with_yardstick(
                rho_baseline::section_from_summary(s, &recording),
                ns * 2.6,
                ns,
            )
        };
        let comparison =
            rho_compare::compare(&section(&base, 0.44), &section(&head, 0.88), 10.0).unwrap();
        let mut page = page_of(&head);
        page.diff = Some(Diff {
            comparison: &comparison,
            base_name: "HEAD",
            base_runs: Vec::new(),
        });
        let html = page.render();
        assert_balanced(&html);
        assert!(
            html.contains("<p class=\"meta machine\">the machine moved: yardstick"),
            "{html}"
        );
        let plain = rho_compare::compare(
            &rho_baseline::section_from_summary(&base, &recording),
            &rho_baseline::section_from_summary(&head, &recording),
            10.0,
        )
        .unwrap();
        page.diff = Some(Diff {
            comparison: &plain,
            base_name: "HEAD",
            base_runs: Vec::new(),
        });
        let html = page.render();
        assert!(!html.contains("the machine moved"), "{html}");
        assert!(
            html.contains("<p class=\"meta machine\">yardstick: "),
            "{html}"
        );
    }

    fn page_of(summary: &RunSummary) -> Page<'_> {
        page(vec![Suite {
            what: "a.c",
            summary,
            judgement: None,
        }])
    }

    /// bench_b's samples are 20 to 22 with one of 2000 (its p99 of five samples is its max): on a linear axis
    /// the body is one bar at the left edge. Its axis is logarithmic and its chart says so; bench_a's (100 to
    /// 150) stays linear.
    #[test]
    fn a_tail_far_above_the_median_gets_a_log_axis_and_says_so() {
        let summary = summary();
        let html = page_of(&summary).render();
        let chart = |name: &str| {
            let start = html.find(&format!("data-benchmark=\"{name}\"")).unwrap();
            html[start..start + html[start..].find("</svg>").unwrap()].to_string()
        };
        let tailed = chart("bench_b");
        assert!(
            tailed.contains("log axis: its tail reaches 96x the median"),
            "{tailed}"
        );
        // Its body spreads over a good part of the width, not one bar at the edge: the tallest bar is wide.
        let widest = tailed
            .split("<rect class=\"bar\"")
            .skip(1)
            .filter_map(|bar| {
                let width = bar.split("width=\"").nth(1)?.split('"').next()?;
                width.parse::<f64>().ok()
            })
            .fold(0.0, f64::max);
        assert!(widest > 30.0, "{tailed}");
        assert!(!chart("bench_a").contains("log axis"));
    }

    #[test]
    fn a_suite_is_labelled_by_its_module_or_first_file_not_every_file() {
        assert_eq!(
            suite_label("bench/a.c bench/b.c bench/sub/c.S"),
            "bench/ (3 files)"
        );
        assert_eq!(
            suite_label("lib/zstd/a.c lib/zstd/b.c lib/common/x.c"),
            "lib/ (3 files)"
        );
        assert_eq!(suite_label("main.c helper.c"), "main.c and 1 more file");
        assert_eq!(suite_label("bench/suite.c"), "bench/suite.c");
        assert_eq!(suite_label("make -C bench run"), "make -C bench run");
        // The page's heading is the label; the files are its hover text.
        let summary = summary();
        let html = page(vec![Suite {
            what: "src/a.c src/b.c src/c.c",
            summary: &summary,
            judgement: None,
        }])
        .render();
        assert!(
            html.contains("<h2 title=\"src/a.c src/b.c src/c.c\">src/ (3 files)</h2>"),
            "{html}"
        );
    }

    /// Two suites: still one summary table, every benchmark of both in it, a suite column naming each by
    /// its label.
    #[test]
    fn several_suites_share_one_summary_table_with_a_suite_column() {
        let summary = summary();
        let html = page(vec![
            Suite {
                what: "bench/a.c bench/b.c",
                summary: &summary,
                judgement: None,
            },
            Suite {
                what: "other.c",
                summary: &summary,
                judgement: None,
            },
        ])
        .render();
        assert_eq!(html.matches("<table class=\"summary\">").count(), 1);
        assert_eq!(html.matches("<tr data-summary=").count(), 4);
        assert!(html.contains("<th>benchmark</th><th>suite</th>"), "{html}");
        assert!(
            html.contains("<a href=\"#s1-bench_b\">bench_b</a></td><td>other.c</td>"),
            "{html}"
        );
        assert!(
            html.contains("<a href=\"#s0-bench_a\">bench_a</a></td><td>bench/ (2 files)</td>"),
            "{html}"
        );
    }

    /// A gate whose metric has a long name and a long outcome: the strip's axis starts right of the widest
    /// label (as the labels' width is estimated, generously), so no label runs under the dots or is cut.
    #[test]
    fn a_chart_s_labels_set_its_margin() {
        let name = "bench_a.a_metric_with_a_rather_long_name_indeed";
        let mut base = rho_gate::RunMetrics::new();
        base.insert(name.into(), rho_gate::Figure::Value(100.0));
        let mut head = rho_gate::RunMetrics::new();
        head.insert(name.into(), rho_gate::Figure::Value(100.5));
        let side = |v| rho_gate::SideFigures {
            min: v,
            max: v,
            runs: 1,
        };
        let comparison = rho_gate::Comparison {
            verdict: rho_gate::Verdict::Ok,
            metrics: vec![rho_gate::MetricComparison {
                name: name.into(),
                floor: 0.0,
                within_resolution: false,
                base: Some(side(100.0)),
                head: Some(side(100.5)),
                budget: 0.01,
                better: rho_stats::Better::Lower,
                outcome: rho_gate::MetricOutcome::Ok,
                paired: None,
                undecided_side: None,
                shown: false,
            }],
        };
        let mut page = page(Vec::new());
        page.gate = Some(Gate {
            comparison: &comparison,
            base_runs: std::slice::from_ref(&base),
            head_runs: std::slice::from_ref(&head),
            base: "main",
            head: "HEAD",
        });
        let html = page.render();
        let axis: f64 = html
            .split("<line class=\"axis\" x1=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|x| x.parse().ok())
            .unwrap();
        let label = "a_metric_with_a_rather_long_name_indeed";
        assert!(html.contains(&format!(">{label}</text>")), "{html}");
        assert!(axis >= 6.0 + text_width(label, FONT_PX), "{axis}: {html}");
        // The outcome with its limit as set, never an absolute budget; the axis from 91.5 says it is not 0.
        assert!(html.contains("ok +0.5% (limit +1%)"), "{html}");
        assert!(
            html.contains("<title>limit: base's best +1%</title>"),
            "{html}"
        );
        assert!(html.contains(", not 0</text>"), "{html}");
        assert!(!html.contains("budget:"), "{html}");
        // The gate's summary table: the benchmark, its metric under its limit as set, before the chart.
        let table = html.find("<tr data-summary=\"bench_a\">").unwrap();
        assert!(table < html.find("<svg").unwrap());
        assert!(html.contains(&format!(
            "<th>{label}<span class=\"limit-set\">limit +1%</span></th>"
        )));
        assert!(html.contains("<td>100 → 100.5 (+0.5%)</td>"), "{html}");
    }

    #[test]
    fn a_limit_reads_as_it_was_set_and_a_legend_wraps_within_its_chart() {
        assert_eq!(percent_as_set(0.07 * 100.0), "7%");
        assert_eq!(percent_as_set(0.005 * 100.0), "0.5%");
        assert_eq!(percent_as_set(10.0), "10%");
        assert_eq!(percent_as_set(1.0), "1%");
        let parts: Vec<String> = [
            "ns",
            "log axis: its tail reaches 96x the median",
            "3 above p99 (max 123456)",
            "outline: base",
        ]
        .map(String::from)
        .to_vec();
        let lines = fitted_lines(&parts, CHART_WIDTH - MARGIN - 6.0);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines.join("; "), parts.join("; "));
        for line in &lines {
            assert!(
                text_width(line, FONT_PX) <= CHART_WIDTH - MARGIN - 6.0,
                "{line}"
            );
        }
        assert_eq!(
            axis_from_note(1200.0).as_deref(),
            Some("axis from 1200, not 0")
        );
        assert_eq!(axis_from_note(0.0), None);
    }

    #[test]
    fn a_log_scale_maps_its_ends_and_a_value_below_its_floor() {
        let s = Scale::log(10.0, 1000.0, 0.0, 100.0);
        assert!((s.at(10.0) - 0.0).abs() < 1e-9);
        assert!((s.at(100.0) - 50.0).abs() < 1e-9);
        assert!((s.at(1000.0) - 100.0).abs() < 1e-9);
        assert_eq!(s.at(0.0), 0.0);
        assert_eq!(log_floor(0.0, 8.0, 20.0), 4.0);
        assert_eq!(log_floor(5.0, 8.0, 20.0), 5.0);
    }

    #[test]
    fn a_scale_maps_its_ends_and_survives_an_empty_range() {
        let s = Scale::new(10.0, 20.0, 0.0, 100.0);
        assert_eq!((s.at(10.0), s.at(15.0), s.at(20.0)), (0.0, 50.0, 100.0));
        let flat = Scale::new(5.0, 5.0, 0.0, 100.0);
        assert!(flat.at(5.0).is_finite());
    }
}
