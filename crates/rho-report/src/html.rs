//! The report as one self-contained HTML page (`--html FILE`): inline CSS and hand-written SVG, nothing fetched
//! and no script, so it reads the same from a CI artefact, a mail attachment or a file on disk.
//!
//! The page opens with a headline (the verdict, the regressed and over-budget benchmarks by name, each a link to
//! its section, and a summary table of every benchmark and metric: `crate::headline`).
//!
//! Per benchmark: a histogram of its samples per iteration (the primary clock's: nanoseconds unless they are
//! below their clock's resolution) with the median and the p99 marked, on a logarithmic axis when the axis
//! reaches ten times the median (a linear one squashes the body into a bar), and its stack and heap peak as bars
//! against their budgets (or, without a budget, against the painted stack region). With a comparison
//! (`--diff`, `rho bench compare`): each metric's base and head side by side with its limit, and both
//! histograms on one axis when both runs are at hand. Per benchmark family (`RHO_BENCH_ADD_ARG`), before the
//! benchmarks: its members' cost against their argument on log-log axes with the fitted curve, the fit's name
//! and its RMS (`crate::growth`). With a gate: every run of each side, per metric, with
//! the budget line. Every piece of text is escaped: benchmark names and suite names come from the user.

use std::fmt::Write as _;

use rho_judge::budget::{BudgetMetric, Judgement};
use rho_stats::{BenchSummary, ClockFigures, Distribution, RunSummary};
use rho_wire::StackMark;

pub use crate::page::{Diff, Gate, Page, Suite};
use crate::run::column_label;
pub use crate::svg::escape;
use crate::svg::{Scale, num, px};

const STYLE: &str = "\
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1100px;padding:16px 24px;\
color:#1a202c;background:#fff}\
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #cbd5e0}\
h3{font-size:15px;margin:0 0 4px;font-family:ui-monospace,Menlo,Consolas,monospace}\
.meta{color:#4a5568;margin:2px 0}.figures{color:#2d3748;margin:0 0 6px}\
.bench{border:1px solid #e2e8f0;border-radius:6px;padding:10px 12px;margin:10px 0;break-inside:avoid}\
.charts{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}\
svg{font:11px system-ui,sans-serif;background:#fafbfc;border-radius:4px}\
svg text{fill:#2d3748}.bar{fill:#4a78c2}.base-bar{fill:#a0aec0}.base-hist{fill:none;stroke:#718096;stroke-width:1.5}\
.median{stroke:#b7791f;stroke-width:2}.p99{stroke:#c53030;stroke-width:2;stroke-dasharray:4 3}\
.limit{stroke:#c53030;stroke-width:1.5;stroke-dasharray:3 2}.axis{stroke:#718096;stroke-width:1}\
.ok{fill:#2f855a}.bad{fill:#c53030}.neutral{fill:#4a78c2}.head-dot{fill:#4a78c2}.base-dot{fill:#a0aec0}\
.verdict-bad{color:#c53030;font-weight:600}.verdict-ok{color:#2f855a}\
table{border-collapse:collapse;margin:6px 0}td,th{padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}\
.note{color:#718096;font-size:12px}\
.headline{border:1px solid #cbd5e0;border-radius:6px;padding:8px 12px;margin:10px 0}\
.headline .verdict{font-size:17px;margin:2px 0 6px}.named{margin:3px 0}.named a,.summary a{color:#2b6cb0}\
.summary{font-size:13px;margin:8px 0}.summary th{border-bottom:1px solid #cbd5e0}\
.summary td{border-bottom:1px solid #edf2f7;font-variant-numeric:tabular-nums}\
.summary caption{text-align:left;font-weight:600}\
.fit{fill:none;stroke:#b7791f;stroke-width:2}.point{fill:#4a78c2}";

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

impl Page<'_> {
    /// The page as HTML text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
            escape(&self.title),
            escape(&self.title)
        );
        crate::headline::render(&mut out, self);
        if let Some(gate) = &self.gate {
            render_gate(&mut out, gate);
        }
        if let Some(diff) = &self.diff {
            let counts = diff.comparison.counts();
            let _ = writeln!(
                out,
                "<p class=\"meta {}\">Against {}: {} regressed, {} not measured, {} improved, {} ok \
                 (limit +{}%).</p>",
                if diff.comparison.failed() {
                    "verdict-bad"
                } else {
                    "verdict-ok"
                },
                escape(diff.base_name),
                counts.regressed,
                counts.not_measured,
                counts.improved,
                counts.ok,
                num(diff.comparison.limit_percent)
            );
        }
        for (index, suite) in self.suites.iter().enumerate() {
            render_suite(&mut out, index, suite, self.diff.as_ref());
        }
        out.push_str(
            "<p class=\"note\">Written by rho. Histograms: the net samples per iteration, from the lowest to \
             the p99; the samples above it are counted beside. Solid line: median; dashed: p99.</p>\n\
             </body>\n</html>\n",
        );
        out
    }
}

fn render_suite(out: &mut String, index: usize, suite: &Suite, diff: Option<&Diff>) {
    let summary = suite.summary;
    let target = &summary.target;
    let _ = writeln!(
        out,
        "<section class=\"suite\">\n<h2>{}</h2>\n<p class=\"meta\">target {} ({}), {}{}; {} run(s) folded; {}</p>",
        escape(suite.what),
        escape(&target.name),
        escape(&target.arch),
        if target.optimized {
            "optimized"
        } else {
            "<strong>NOT optimized</strong>"
        },
        target
            .compiler
            .as_deref()
            .map(|c| format!(", {}", escape(c)))
            .unwrap_or_default(),
        summary.repetitions,
        match summary.config.stack_bytes {
            Some(bytes) => format!("stack region {bytes} bytes"),
            None => "stack not measured".to_string(),
        }
    );
    if let Some(judgement) = suite.judgement {
        let _ = writeln!(
            out,
            "<p class=\"meta\">budgets: {}</p>",
            escape(&judgement.enforcement.describe())
        );
    }
    crate::growth::growth_charts(out, summary);
    for bench in &summary.benchmarks {
        let _ = writeln!(
            out,
            "<article class=\"bench\" id=\"{}\">\n<h3>{}</h3>",
            escape(&crate::headline::anchor(index, &bench.name)),
            escape(&bench.name)
        );
        let _ = writeln!(
            out,
            "<p class=\"figures\">{}</p>",
            escape(&figures_line(bench))
        );
        out.push_str("<div class=\"charts\">\n");
        let base = diff.and_then(|d| {
            d.base_runs
                .iter()
                .find_map(|run| run.benchmarks.iter().find(|b| b.name == bench.name))
        });
        distribution_chart(out, bench, base);
        footprint_chart(out, bench, summary, suite.judgement);
        let compared = diff.and_then(|d| d.comparison.benchmark(&bench.name));
        if let Some(compared) = compared {
            diff_chart(out, compared);
        }
        out.push_str("</div>\n");
        // Its instructions regressed and both sides kept functions: where they went.
        let head_functions = bench
            .instructions
            .as_ref()
            .and_then(|i| i.functions.as_ref());
        if let (Some(compared), Some(head)) = (compared, head_functions)
            && !compared.functions.is_empty()
        {
            flame_graph(out, &bench.name, compared.base_functions.as_ref(), head);
        }
        // Its time regressed and both saved runs were sampled: the table (samples carry no call counts to
        // draw a flame graph from).
        if let Some(compared) = compared.filter(|c| {
            !c.functions.is_empty() && c.functions_unit() == rho_profile::diff::SAMPLED_UNIT
        }) {
            let _ = writeln!(
                out,
                "<figure class=\"sampled-functions\"><figcaption>{}: the functions that changed most, sampled \
                 by perf record (ns per iteration; estimates, not counts)</figcaption>",
                escape(&bench.name)
            );
            out.push_str(&changed_functions_table(&compared.functions));
            out.push_str("</figure>\n");
        }
        out.push_str("</article>\n");
    }
    out.push_str("</section>\n");
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

/// The histogram of `bench`'s samples, with `base`'s drawn as an outline on the same axis when given.
fn distribution_chart(out: &mut String, bench: &BenchSummary, base: Option<&BenchSummary>) {
    let Some((figures, head)) = drawn_histogram(out, bench) else {
        return;
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
    let x = if log_axis {
        lo = log_floor(lo, head.width, median);
        Scale::log(lo, hi, MARGIN, CHART_WIDTH - 12.0)
    } else {
        Scale::new(lo, hi, MARGIN, CHART_WIDTH - 12.0)
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
    let _ = writeln!(
        out,
        "<svg class=\"chart distribution\" role=\"img\" width=\"{CHART_WIDTH}\" height=\"{CHART_HEIGHT}\" \
         viewBox=\"0 0 {CHART_WIDTH} {CHART_HEIGHT}\" data-benchmark=\"{}\">\n<title>{}: distribution of {} \
         samples per iteration, {}</title>",
        escape(&bench.name),
        escape(&bench.name),
        head.total(),
        escape(&unit)
    );
    histogram_bars(out, head, base_hist, &x, &y, bottom);
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
        px(MARGIN),
        px(bottom),
        px(CHART_WIDTH - 12.0),
        px(bottom)
    );
    median_and_p99(out, figures, &x, top, bottom);
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        px(MARGIN),
        px(bottom + 13.0),
        num(lo),
        px(CHART_WIDTH - 12.0),
        px(bottom + 13.0),
        num(hi)
    );
    if log_axis {
        decade_ticks(out, &x, lo, hi, bottom);
    }
    let legend = distribution_legend(
        unit,
        log_axis,
        hi / median,
        head,
        figures,
        base_hist.is_some(),
    );
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" class=\"legend\">{}</text>\n</svg>",
        px(MARGIN),
        px(CHART_HEIGHT - 2.0),
        escape(&legend)
    );
}

/// The figures and histogram `distribution_chart` draws; without them, writes the empty chart saying why and
/// gives `None`.
fn drawn_histogram<'a>(
    out: &mut String,
    bench: &'a BenchSummary,
) -> Option<(&'a ClockFigures, &'a Distribution)> {
    let Some(figures) = drawn(bench) else {
        let _ = writeln!(
            out,
            "<svg class=\"chart distribution empty\" role=\"img\" width=\"{CHART_WIDTH}\" height=\"60\" \
             viewBox=\"0 0 {CHART_WIDTH} 60\"><title>no samples</title><text x=\"12\" y=\"34\">{}</text></svg>",
            if bench.instructions.is_some() {
                "counted exactly: one figure, no distribution"
            } else {
                "no samples: not measured"
            }
        );
        return None;
    };
    let Some(head) = &figures.distribution else {
        let _ = writeln!(
            out,
            "<svg class=\"chart distribution empty\" role=\"img\" width=\"{CHART_WIDTH}\" height=\"60\" \
             viewBox=\"0 0 {CHART_WIDTH} 60\"><title>no histogram</title><text x=\"12\" y=\"34\">median \
             {}: this document carries no histogram</text></svg>",
            num(figures.per_iteration.median)
        );
        return None;
    };
    Some((figures, head))
}

/// The share of `d`'s samples that `count` is.
fn share(d: &Distribution, count: u64) -> f64 {
    count as f64 / d.total().max(1) as f64
}

/// Head's histogram as bars, and base's (when given) as a step outline over them.
fn histogram_bars(
    out: &mut String,
    head: &Distribution,
    base_hist: Option<&Distribution>,
    x: &Scale,
    y: &dyn Fn(f64) -> f64,
    bottom: f64,
) {
    for (i, &count) in head.counts.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let left = x.at(head.start + head.width * i as f64);
        let right = x.at(head.start + head.width * (i + 1) as f64);
        let _ = writeln!(
            out,
            "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} samples from {}</title></rect>",
            px(left),
            px(y(share(head, count))),
            px((right - left - 0.5).max(1.0)),
            px(bottom - y(share(head, count))),
            count,
            num(head.start + head.width * i as f64)
        );
    }
    if let Some(b) = base_hist {
        // The base as a step outline over head's bars.
        let mut path = format!("M{} {}", px(x.at(b.start)), px(bottom));
        for (i, &count) in b.counts.iter().enumerate() {
            let level = px(y(share(b, count)));
            let _ = write!(
                path,
                " L{} {level} L{} {level}",
                px(x.at(b.start + b.width * i as f64)),
                px(x.at(b.start + b.width * (i + 1) as f64))
            );
        }
        let _ = write!(path, " L{} {}", px(x.at(b.end())), px(bottom));
        let _ = writeln!(
            out,
            "<path class=\"base-hist\" d=\"{path}\"><title>base</title></path>"
        );
    }
}

/// The median's line and label, and the p99's when it is informative.
fn median_and_p99(out: &mut String, figures: &ClockFigures, x: &Scale, top: f64, bottom: f64) {
    // The median's label left of its line, the p99's right of its own: they never sit on each other.
    let mut marker = |class: &str, value: f64, label: String, right: bool| {
        let at = x.at(value);
        // Near an edge, a label goes to the line's other side.
        let right = if right {
            at < CHART_WIDTH - 80.0
        } else {
            at < 90.0
        };
        let (anchor, text_at) = if right {
            ("start", at + 3.0)
        } else {
            ("end", at - 3.0)
        };
        let _ = writeln!(
            out,
            "<line class=\"{class}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text>",
            px(at),
            px(top - 8.0),
            px(at),
            px(bottom),
            px(text_at),
            px(top - 4.0),
            escape(&label)
        );
    };
    marker(
        "median",
        figures.per_iteration.median,
        format!("median {}", num(figures.per_iteration.median)),
        false,
    );
    if figures.net.p99_is_informative() {
        marker(
            "p99",
            figures.per_iteration.p99,
            format!("p99 {}", num(figures.per_iteration.p99)),
            true,
        );
    }
}

/// The chart's legend: the unit, then why the axis is logarithmic, what lies above p99 and what the outline is.
fn distribution_legend(
    unit: String,
    log_axis: bool,
    tail: f64,
    head: &Distribution,
    figures: &ClockFigures,
    outlined: bool,
) -> String {
    let mut legend = unit;
    if log_axis {
        let _ = write!(
            legend,
            "; log axis: its tail reaches {:.0}x the median",
            tail
        );
    }
    if head.above > 0 {
        let _ = write!(
            legend,
            "; {} above p99 (max {})",
            head.above,
            num(figures.per_iteration.max)
        );
    }
    if outlined {
        legend.push_str("; outline: base");
    }
    legend
}

/// Ticks at the powers of ten inside `(lo, hi)` on a logarithmic axis, labelled where they leave room for the
/// end labels.
fn decade_ticks(out: &mut String, x: &Scale, lo: f64, hi: f64, bottom: f64) {
    let mut decade = 10f64.powf(lo.log10().ceil());
    while decade < hi {
        let at = x.at(decade);
        if decade > lo {
            let _ = write!(
                out,
                "<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
                px(at),
                px(bottom),
                px(at),
                px(bottom + 4.0)
            );
            if at > MARGIN + 40.0 && at < CHART_WIDTH - 60.0 {
                let _ = write!(
                    out,
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                    px(at),
                    px(bottom + 13.0),
                    num(decade)
                );
            }
        }
        decade *= 10.0;
    }
    out.push('\n');
}

/// Horizontal bars, one row each: `(label, value, scale_to, budget, class)`.
struct BarRow {
    label: String,
    value: Option<f64>,
    /// A second bar drawn above the value's (the base of a comparison).
    base: Option<f64>,
    limit: Option<f64>,
    text: String,
    class: &'static str,
}

fn bar_chart(out: &mut String, class: &str, title: &str, rows: &[BarRow]) {
    if rows.is_empty() {
        return;
    }
    let width = 360.0;
    let label_width = 110.0;
    let row_height = 34.0;
    let height = 20.0 + row_height * rows.len() as f64;
    let _ = writeln!(
        out,
        "<svg class=\"chart {class}\" role=\"img\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\">\n<title>{}</title><text x=\"6\" y=\"13\">{}</text>",
        escape(title),
        escape(title)
    );
    for (i, row) in rows.iter().enumerate() {
        let top = 20.0 + row_height * i as f64;
        let scale_to = [row.value, row.base, row.limit]
            .into_iter()
            .flatten()
            .fold(0.0, f64::max)
            * 1.1;
        let x = Scale::new(0.0, scale_to.max(1e-9), label_width, width - 8.0);
        let _ = writeln!(
            out,
            "<text x=\"6\" y=\"{}\">{}</text>",
            px(top + 13.0),
            escape(&row.label)
        );
        if let Some(base) = row.base {
            let _ = writeln!(
                out,
                "<rect class=\"base-bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"7\"><title>base {}</title></rect>",
                px(label_width),
                px(top + 2.0),
                px(x.at(base) - label_width),
                num(base)
            );
        }
        if let Some(value) = row.value {
            let _ = writeln!(
                out,
                "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"9\"><title>{}</title></rect>",
                row.class,
                px(label_width),
                px(top + 10.0),
                px((x.at(value) - label_width).max(0.5)),
                num(value)
            );
        }
        if let Some(limit) = row.limit {
            let at = x.at(limit);
            let _ = writeln!(
                out,
                "<line class=\"limit\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
                px(at),
                px(top),
                px(at),
                px(top + 21.0)
            );
        }
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" class=\"note\">{}</text>",
            px(label_width),
            px(top + 31.0),
            escape(&row.text)
        );
    }
    out.push_str("</svg>\n");
}

/// Stack and heap peak against their budgets (the judged run's), else the stack against the painted region.
fn footprint_chart(
    out: &mut String,
    bench: &BenchSummary,
    summary: &RunSummary,
    judgement: Option<&Judgement>,
) {
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
    bar_chart(out, "footprint", "stack and heap, bytes", &rows);
}

/// One benchmark's metrics, base against head, each with its limit.
fn diff_chart(out: &mut String, compared: &rho_compare::compare::BenchmarkComparison) {
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
                    "{} -> {}{change}: {}",
                    show(m.base),
                    show(m.head),
                    m.verdict.label()
                ),
                class: if m.verdict.fails() { "bad" } else { "ok" },
            }
        })
        .collect();
    bar_chart(
        out,
        "diff",
        "base (grey) against head, with the limit",
        &rows,
    );
}

/// The gate: per benchmark (metric names `BENCH.METRIC`), every run of base and head for each metric, with
/// the line head's best must stay under.
fn render_gate(out: &mut String, gate: &Gate) {
    let comparison = gate.comparison;
    let _ = writeln!(
        out,
        "<section class=\"gate\">\n<h2>Every run: head {} (blue), base {} (grey)</h2>\n<p class=\"meta {}\">verdict: {}; {} run(s) \
         of each side, alternating; each side's best run is judged</p>",
        escape(gate.head),
        escape(gate.base),
        if comparison.verdict == rho_gate::Verdict::Ok {
            "verdict-ok"
        } else {
            "verdict-bad"
        },
        comparison.verdict,
        gate.base_runs.len().max(gate.head_runs.len())
    );
    let mut groups: Vec<(String, Vec<&rho_gate::MetricComparison>)> = Vec::new();
    for metric in &comparison.metrics {
        let group = metric
            .name
            .rsplit_once('.')
            .map_or(metric.name.as_str(), |(bench, _)| bench)
            .to_string();
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, members)) => members.push(metric),
            None => groups.push((group, vec![metric])),
        }
    }
    let regressed = rho_gate::functions::regressed_in(comparison, gate.base_runs, gate.head_runs);
    for (group, metrics) in &groups {
        let _ = writeln!(
            out,
            "<article class=\"bench\" id=\"gate-{}\">\n<h3>{}</h3>\n<div class=\"charts\">",
            escape(group),
            escape(group)
        );
        runs_chart(out, group, metrics, gate);
        out.push_str("</div>\n");
        if let Some(functions) = regressed.iter().find(|r| r.bench == *group) {
            flame_graph(out, group, Some(&functions.base), &functions.head);
        }
        out.push_str("</article>\n");
    }
    out.push_str("</section>\n");
}

/// A regressed benchmark's differential flame graph, drawn by inferno ([`crate::flame`]) from rho-profile's
/// call tree: head's call tree of the measured loop, frames as wide as head's inclusive instructions, red
/// where they grew against base, blue where they shrank. Nothing when head's list has no root to draw from.
pub fn flame_graph(
    out: &mut String,
    bench: &str,
    base: Option<&rho_profile::Functions>,
    head: &rho_profile::Functions,
) {
    let Some(tree) = rho_profile::flame::tree(base, head) else {
        return;
    };
    let _ = writeln!(
        out,
        "<figure class=\"flame-graph\" id=\"flame-{}\"><figcaption>{}: where the instructions went, per \
         iteration (width: head's inclusive count; red: more than base, blue: fewer; hover a frame for its \
         figures and change, click to zoom)</figcaption>",
        escape(bench),
        escape(bench)
    );
    match crate::flame::svg(&tree, bench, &format!("{bench}: differential flame graph")) {
        Ok(document) => out.push_str(&crate::flame::framed(&document, "flame", bench)),
        Err(error) => {
            let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(&error.to_string()));
        }
    }
    out.push_str("</figure>\n");
}

/// The functions whose counts changed most (rho-profile's diff) as a table: base -> head, self and inclusive
/// per iteration, with the change, and whether a function is only on one side.
pub fn changed_functions_table(changes: &[rho_profile::diff::FunctionChange]) -> String {
    let mut out = String::from(
        "<table class=\"changed-functions\"><tr><th>function</th><th>self base &#8594; head</th>\
         <th>inclusive base &#8594; head</th><th></th></tr>\n",
    );
    for change in changes {
        let [own, inclusive] = crate::profile::cells(change, "&#8594;");
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td>{own}</td><td>{inclusive}</td><td>{}</td></tr>",
            escape(&change.name),
            change.presence().unwrap_or("")
        );
    }
    out.push_str("</table>\n");
    out
}

fn run_values(runs: &[rho_gate::RunMetrics], name: &str) -> Vec<f64> {
    runs.iter()
        .filter_map(|run| match run.get(name) {
            Some(rho_gate::Figure::Value(v)) => Some(*v),
            _ => None,
        })
        .collect()
}

/// One strip per metric: base's runs on the upper line, head's on the lower, the budget line at base's best
/// times (1 + budget).
fn runs_chart(out: &mut String, group: &str, metrics: &[&rho_gate::MetricComparison], gate: &Gate) {
    let row_height = 46.0;
    let label_width = 175.0;
    let height = 10.0 + row_height * metrics.len() as f64;
    let _ = writeln!(
        out,
        "<svg class=\"chart gate-runs\" role=\"img\" width=\"{CHART_WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {CHART_WIDTH} {height}\">\n<title>{}: every run of base (grey, upper) and head (blue, \
         lower)</title>",
        escape(group)
    );
    for (i, metric) in metrics.iter().enumerate() {
        let top = 8.0 + row_height * i as f64;
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
        let x = Scale::new(lo, hi, label_width, CHART_WIDTH - 12.0);
        let metric_name = metric.name.rsplit_once('.').map_or("", |(_, m)| m);
        let outcome = match &metric.outcome {
            rho_gate::MetricOutcome::Ok => "ok".to_string(),
            rho_gate::MetricOutcome::Regressed => "REGRESSED".to_string(),
            rho_gate::MetricOutcome::Undecided(why) => format!("undecided: {why}"),
        };
        let change = metric
            .change()
            .map_or(String::new(), |c| format!(" {:+.1}%", c * 100.0));
        let _ = writeln!(
            out,
            "<text x=\"6\" y=\"{}\">{}</text><text x=\"6\" y=\"{}\" class=\"note\">{}{}</text>",
            px(top + 12.0),
            escape(metric_name),
            px(top + 26.0),
            escape(&outcome),
            escape(&change)
        );
        let _ = writeln!(
            out,
            "<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            px(label_width),
            px(top + 34.0),
            px(CHART_WIDTH - 12.0),
            px(top + 34.0)
        );
        for (class, values, line) in [
            ("base-dot", &base, top + 10.0),
            ("head-dot", &head, top + 24.0),
        ] {
            for value in values.iter() {
                let _ = writeln!(
                    out,
                    "<circle class=\"{class}\" cx=\"{}\" cy=\"{}\" r=\"4\"><title>{}</title></circle>",
                    px(x.at(*value)),
                    px(line),
                    num(*value)
                );
            }
        }
        if let Some(limit) = limit {
            let at = x.at(limit);
            let _ = writeln!(
                out,
                "<line class=\"limit\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"><title>budget: {}</title></line>",
                px(at),
                px(top + 2.0),
                px(at),
                px(top + 32.0),
                num(limit)
            );
        }
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" class=\"note\">{}</text><text x=\"{}\" y=\"{}\" class=\"note\" \
             text-anchor=\"end\">{}</text>",
            px(label_width),
            px(top + 44.0),
            num(lo),
            px(CHART_WIDTH - 12.0),
            px(top + 44.0),
            num(hi)
        );
    }
    out.push_str("</svg>\n");
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
        assert!(html.contains("96 -&gt; 960 (+900.0%): regressed"), "{html}");
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
        assert!(html.contains("REGRESSED +900.0%"), "{html}");
    }

    /// The page opens with the verdict, the regressed and the over-budget benchmarks by name, each a link to
    /// its section, and a summary table of every benchmark and metric, before any chart.
    #[test]
    fn the_headline_names_the_regressed_and_the_over_budget_with_links_and_a_summary_table() {
        let base = summary();
        let mut head = summary();
        head.benchmarks[0].stack = StackMark::Bytes(960);
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
        assert!(
            headline.contains(
                "<p class=\"verdict verdict-bad\">FAILED: 1 benchmark regressed, 1 benchmark over budget</p>"
            ),
            "{headline}"
        );
        assert!(
            headline.contains(
                "<strong>Regressed:</strong> <a href=\"#s0-bench_a\">bench_a</a> (stack_bytes +900.0%)"
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
            assert!(
                headline.contains(&format!("<tr><td><a href=\"#s0-{name}\">{name}</a></td>")),
                "{headline}"
            );
        }
        // A column per metric measured, the change and the budget in the cells, a verdict per row.
        assert!(
            headline.contains("<th>cycles</th><th>ns</th><th>stack B</th><th>heap peak B</th>"),
            "{headline}"
        );
        assert!(
            headline.contains("<td class=\"verdict-bad\">960 (+900.0%)</td>"),
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
            headline.contains("<td class=\"verdict-ok\">ok</td></tr>"),
            "{headline}"
        );
        assert!(html.contains("stack region 4096 bytes"), "{html}");

        // Nothing to judge against: the headline says so, and the table still lists every benchmark.
        let html = page_of(&head).render();
        assert!(
            html.contains("2 benchmarks measured; no baseline and no budget to judge them against"),
            "{html}"
        );
        assert_eq!(html.matches("<tr><td><a href=\"#s0-").count(), 2);
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
