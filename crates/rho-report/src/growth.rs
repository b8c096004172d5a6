//! Benchmark families in the reports: one small table per family (each metric's figure at each size, then its
//! best fit, coefficient and RMS), in text and in Markdown, and the `max_growth` verdicts of `rho bench`'s
//! budget table; in the HTML page, one chart per family (its points and fitted curve on log-log axes).

use std::fmt::Write as _;

use rho_judge::budget::Judgement;
use rho_judge::growth::{GrowthCheck, GrowthVerdict};
use rho_stats::{BenchSummary, FamilyGrowth, Growth, Metric, RunSummary};

/// A metric's row label in a family table.
fn row_label(metric: Metric, summary: &RunSummary) -> String {
    let clock = |role| {
        summary
            .clocks
            .iter()
            .find(|c| c.role == role)
            .map(|c| format!(" ({})", c.name))
            .unwrap_or_default()
    };
    match metric {
        Metric::Cycles => format!("cycles{}", clock(rho_wire::ClockRole::Cycles)),
        Metric::TimeNs => "ns".to_string(),
        Metric::CpuNs => "cpu ns".to_string(),
        Metric::StackBytes => "stack B".to_string(),
        Metric::HeapPeakBytes => "heap peak B".to_string(),
        Metric::Instructions => "instructions".to_string(),
        Metric::CodeBytes => "code B".to_string(),
        Metric::StaticStackBytes => "static stack B".to_string(),
    }
}

/// The fit cells: best fit, coefficient, RMS (or "too few points").
fn fit_cells(growth: &Growth) -> [String; 3] {
    match growth {
        Growth::Fitted { best, .. } => [
            best.complexity.to_string(),
            crate::numbers::format_coefficient(best.coefficient),
            format!("{:.1}%", best.rms * 100.0),
        ],
        Growth::TooFewPoints { points } => [
            format!(
                "too few points ({points} size{}; {} needed)",
                if *points == 1 { "" } else { "s" },
                rho_stats::MIN_FIT_POINTS
            ),
            String::new(),
            String::new(),
        ],
    }
}

/// The rows of one family's table: a header (the family, each size, then the fit's columns) and one row per
/// metric measured.
fn family_rows(family: &FamilyGrowth, summary: &RunSummary) -> Vec<Vec<String>> {
    let benches: Vec<Option<&BenchSummary>> = family
        .members
        .iter()
        .map(|m| summary.benchmarks.iter().find(|b| b.name == m.name))
        .collect();
    let mut header = vec![format!("{} / n", family.name)];
    header.extend(family.members.iter().map(|m| m.arg.to_string()));
    header.extend(["fit", "coefficient", "rms"].map(String::from));
    let mut rows = vec![header];
    for metric_growth in &family.metrics {
        let mut row = vec![row_label(metric_growth.metric, summary)];
        row.extend(benches.iter().map(|bench| {
            bench
                .and_then(|b| b.metric(metric_growth.metric))
                .map_or("-".to_string(), |v| {
                    // Whole counts as they are; a batched loop's share of a count to a tenth.
                    if v.fract() == 0.0 {
                        format!("{v:.0}")
                    } else {
                        format!("{v:.1}")
                    }
                })
        }));
        row.extend(fit_cells(&metric_growth.growth));
        rows.push(row);
    }
    rows
}

/// The families of a run as text: one table per family, figures per iteration (net medians; exact stack and
/// heap), the fit on the right. A table wider than `layout.width` (a family of many sizes) is turned on its
/// side unless `layout.wide`: a row per size, a column per metric, the fit in the last rows. Empty when the
/// run had no family.
pub fn render_text(summary: &RunSummary, layout: crate::Layout) -> String {
    let families = rho_stats::families(summary);
    if families.is_empty() {
        return String::new();
    }
    let mut out = crate::wrap(
        "growth: each family's figures per iteration against its argument n, and the best least-squares fit          of O(1), O(log n), O(n), O(n log n), O(n^2), O(n^3) (rms relative to the mean)",
        layout.width,
        8,
    );
    for family in &families {
        out.push('\n');
        let rows = family_rows(family, summary);
        let fit_at = rows[0].len() - 3;
        // The label and the fit's name left, figures right; "too few points" runs on.
        let table = crate::aligned_table(&rows, |c| c == 0 || c == fit_at);
        if layout.wide
            || table
                .lines()
                .all(|l| crate::layout::display_width(l) <= layout.width)
        {
            out.push_str(&table);
        } else {
            out.push_str(&transposed(family, &rows));
        }
    }
    out
}

/// A family's table on its side, under the family's name: a row per size and a column per metric, then the
/// fit, coefficient and rms as the last three rows (too few points said once under the table, as it holds
/// for every metric alike).
fn transposed(family: &FamilyGrowth, rows: &[Vec<String>]) -> String {
    let sizes = family.members.len();
    let mut turned: Vec<Vec<String>> = (0..sizes + 4)
        .map(|r| vec![rows[0].get(r).cloned().unwrap_or_default()])
        .collect();
    // The family's name above the table, so a long one does not widen the column of sizes.
    turned[0][0] = "n".to_string();
    let mut too_few = None;
    for (row, metric) in rows.iter().skip(1).zip(&family.metrics) {
        let too_few_here = matches!(metric.growth, Growth::TooFewPoints { .. });
        if too_few_here {
            too_few = Some(row[sizes + 1].clone());
        }
        for (r, (turned_row, cell)) in turned.iter_mut().zip(row).enumerate() {
            turned_row.push(if too_few_here && r > sizes {
                "-".to_string()
            } else {
                cell.clone()
            });
        }
    }
    let mut out = format!("{}\n", family.name);
    out.push_str(&crate::aligned_table(&turned, |c| c == 0));
    if let Some(note) = too_few {
        let _ = writeln!(out, "  fit: {note}");
    }
    out
}

/// The same tables in Markdown, under a `### Growth` heading. Empty when the run had no family.
pub fn render_markdown(summary: &RunSummary) -> String {
    let families = rho_stats::families(summary);
    if families.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n### Growth\n\nEach family's figures per iteration against its argument n, and the best least-squares \
         fit (rms relative to the mean).\n",
    );
    for family in &families {
        out.push('\n');
        let rows = family_rows(family, summary);
        for (index, row) in rows.iter().enumerate() {
            let _ = writeln!(out, "| {} |", row.join(" | "));
            if index == 0 {
                let _ = writeln!(out, "|{}", " --- |".repeat(row.len()));
            }
        }
    }
    out
}

/// The verdict of one growth budget as the budget table shows it: upper case when it decides, lower case when
/// budgets are reported only.
fn verdict_label(check: &GrowthCheck, enforced: bool) -> &'static str {
    match (check.verdict, enforced) {
        (GrowthVerdict::Holds, _) => "ok",
        (GrowthVerdict::Over, true) => "OVER",
        (GrowthVerdict::Over, false) => "over",
        (GrowthVerdict::Undecided, true) => "UNDECIDED",
        (GrowthVerdict::Undecided, false) => "undecided",
    }
}

/// The growth budgets of a judgement as a small table (`max_growth` per family: the best fit, the budget, the
/// verdict), with a line per family that is over or could not be judged saying why, fitted to `width`
/// columns. Empty without any.
pub fn budget_table(judgement: &Judgement, width: usize) -> String {
    if judgement.growth.is_empty() {
        return String::new();
    }
    let enforced = judgement.enforcement.enforced();
    let mut rows: Vec<Vec<String>> = vec![
        ["growth budgets", "fit", "max_growth", "verdict"]
            .map(String::from)
            .into(),
    ];
    for check in &judgement.growth {
        let metric = check
            .metric
            .map(|m| format!(" ({})", rho_judge::growth::metric_label(m)))
            .unwrap_or_default();
        rows.push(vec![
            check.family.clone(),
            check
                .fit
                .map_or("-".to_string(), |fit| format!("{}{metric}", fit.complexity)),
            check.budget.term().to_string(),
            verdict_label(check, enforced).to_string(),
        ]);
    }
    let mut out = String::from("\n");
    out.push_str(&crate::aligned_table_within(&rows, |_| true, width));
    for check in &judgement.growth {
        if check.verdict != GrowthVerdict::Holds {
            out.push_str(&crate::wrap(&check.to_string(), width, 2));
        }
    }
    out
}

/// What the growth budgets add to `rho bench check`'s verdict: the ones broken and the ones that could not be
/// judged (both empty when budgets are reported only), and how many were judged.
pub fn check_lines(judgement: &Judgement) -> (Vec<String>, Vec<String>, usize) {
    let judged = judgement.growth.len();
    if !judgement.enforcement.enforced() {
        return (Vec::new(), Vec::new(), judged);
    }
    let lines = |verdict| {
        judgement
            .growth
            .iter()
            .filter(|c| c.verdict == verdict)
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    (
        lines(GrowthVerdict::Over),
        lines(GrowthVerdict::Undecided),
        judged,
    )
}

#[cfg(feature = "html")]
const GROWTH_WIDTH: f64 = 520.0;
#[cfg(feature = "html")]
const GROWTH_HEIGHT: f64 = 220.0;
#[cfg(feature = "html")]
const GROWTH_RIGHT: f64 = 16.0;
#[cfg(feature = "html")]
const GROWTH_TOP: f64 = 34.0;
#[cfg(feature = "html")]
const GROWTH_BOTTOM: f64 = 36.0;
/// Points the fitted curve is drawn through, evenly spaced on the log axis.
#[cfg(feature = "html")]
const CURVE_STEPS: usize = 48;

/// Per family of the run, a chart of its cost ([`rho_judge::growth::cost_metric`]: instructions, else cycles,
/// else time) against the argument on log-log axes: each member's figure as a point, the best fit
/// `c * g(n)` as a curve, and the fit's name, coefficient and RMS in its title. Nothing when the run has no
/// family.
#[cfg(feature = "html")]
pub(crate) fn growth_charts(summary: &RunSummary) -> maud::Markup {
    let families = rho_stats::families(summary);
    if families.is_empty() {
        return maud::html! {};
    }
    maud::html! {
        div.charts.growth {
            @for family in &families {
                @if let Some((metric, growth)) = rho_judge::growth::cost_metric(family) {
                    @let points: Vec<(f64, f64)> = family
                        .members
                        .iter()
                        .filter_map(|m| {
                            let bench = summary.benchmarks.iter().find(|b| b.name == m.name)?;
                            Some((m.arg as f64, bench.metric(metric)?))
                        })
                        .filter(|(n, y)| *n > 0.0 && y.is_finite())
                        .collect();
                    (growth_chart(family, metric, growth, &points, summary))
                }
            }
        }
    }
}

/// The chart's title: `pairwise: instructions grow as O(n^2), c = 1.02, rms 0.3% (4 sizes)`.
#[cfg(feature = "html")]
fn growth_title(family: &str, label: &str, growth: &Growth) -> String {
    match growth {
        Growth::Fitted { best, points, .. } => format!(
            "{family}: {label} grow as {}, c = {}, rms {:.1}% ({points} sizes)",
            best.complexity,
            crate::numbers::format_coefficient(best.coefficient),
            best.rms * 100.0
        ),
        Growth::TooFewPoints { points } => format!(
            "{family}: {label}: too few points to fit ({points} size{}; {} needed)",
            if *points == 1 { "" } else { "s" },
            rho_stats::MIN_FIT_POINTS
        ),
    }
}

/// One family's chart. Its left margin holds the widest figure on the y axis, and it is as wide as its title
/// needs: no label is clipped. Both axes are logarithmic and say so (a log axis has no zero to start from).
#[cfg(feature = "html")]
fn growth_chart(
    family: &FamilyGrowth,
    metric: Metric,
    growth: &Growth,
    points: &[(f64, f64)],
    summary: &RunSummary,
) -> maud::Markup {
    use crate::svg::{FONT_PX, Scale, margin_for, num, px, text_width};
    let label = row_label(metric, summary);
    let title = growth_title(&family.name, &label, growth);
    let fit = growth.best();
    let curve = |n: f64| fit.map(|f| f.coefficient * f.complexity.of(n));
    let n_lo = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let n_hi = points.iter().map(|p| p.0).fold(0.0, f64::max);
    if !(n_lo.is_finite() && n_hi > 0.0) {
        return maud::html! {};
    }
    // The y axis holds every point and the curve over the sizes measured.
    let mut ys: Vec<f64> = points.iter().map(|p| p.1).filter(|y| *y > 0.0).collect();
    for i in 0..=CURVE_STEPS {
        if let Some(y) = curve(log_step(n_lo, n_hi, i)) {
            if y > 0.0 {
                ys.push(y);
            }
        }
    }
    let y_lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
    let y_hi = ys.iter().copied().fold(0.0, f64::max);
    if !(y_lo.is_finite() && y_hi > 0.0) {
        return maud::html! {};
    }
    let y = Scale::log(
        y_lo / 1.5,
        y_hi * 1.5,
        GROWTH_HEIGHT - GROWTH_BOTTOM,
        GROWTH_TOP,
    );
    // The figure up the left: its least and greatest, and the decades between that leave them room (12
    // pixels, a line of text).
    let mut ticks = vec![y_lo, y_hi];
    let mut decade = 10f64.powf(y_lo.log10().ceil());
    while decade < y_hi {
        if ticks
            .iter()
            .all(|t| (y.at(*t) - y.at(decade)).abs() >= 12.0)
        {
            ticks.push(decade);
        }
        decade *= 10.0;
    }
    let tick_labels: Vec<String> = ticks.iter().map(|t| num(*t)).collect();
    let left = margin_for(tick_labels.iter().map(String::as_str), 10.0, 40.0);
    let axis_label = format!("{label} (log)");
    let width = GROWTH_WIDTH
        .max(text_width(&title, FONT_PX) + 20.0)
        .max(left + text_width(&axis_label, FONT_PX) + GROWTH_RIGHT);
    let x = Scale::log(n_lo / 1.25, n_hi * 1.25, left, width - GROWTH_RIGHT);
    let bottom = GROWTH_HEIGHT - GROWTH_BOTTOM;
    let coordinates: Vec<String> = (0..=CURVE_STEPS)
        .filter_map(|i| {
            let n = log_step(n_lo, n_hi, i);
            let value = curve(n)?;
            (value > 0.0).then(|| format!("{},{}", px(x.at(n)), px(y.at(value))))
        })
        .collect();
    maud::html! {
        svg.growth-chart data-family=(family.name) width=(px(width)) height=(GROWTH_HEIGHT)
            viewBox=(format!("0 0 {} {GROWTH_HEIGHT}", px(width))) role="img" aria-label=(title) {
            text x="6" y="16" font-weight="600" { (title) }
            // Axes: n along the bottom (each size measured labelled), the figure up the left.
            line.axis x1=(px(left)) y1=(px(bottom)) x2=(px(width - GROWTH_RIGHT)) y2=(px(bottom)) {}
            line.axis x1=(px(left)) y1=(px(GROWTH_TOP)) x2=(px(left)) y2=(px(bottom)) {}
            @for (n, _) in points {
                text x=(px(x.at(*n))) y=(px(bottom + 14.0)) text-anchor="middle" { (num(*n)) }
            }
            text x=(px((left + width - GROWTH_RIGHT) / 2.0)) y=(px(GROWTH_HEIGHT - 6.0)) text-anchor="middle" {
                "n (log)"
            }
            @for (value, tick) in ticks.iter().zip(&tick_labels) {
                text x=(px(left - 4.0)) y=(px(y.at(*value) + 4.0)) text-anchor="end" { (tick) }
            }
            text x=(px(left + 4.0)) y=(px(GROWTH_TOP - 6.0)) { (axis_label) }
            @if fit.is_some() {
                polyline.fit points=(coordinates.join(" ")) {}
            }
            @for (n, value) in points {
                circle.point cx=(px(x.at(*n))) cy=(px(y.at(value.max(y_lo)))) r="4" {
                    title { "n = " (num(*n)) ": " (num(*value)) " " (label) }
                }
            }
        }
    }
}

/// The `i`-th of [`CURVE_STEPS`] + 1 sizes from `lo` to `hi`, evenly spaced on a log axis.
#[cfg(feature = "html")]
fn log_step(lo: f64, hi: f64, i: usize) -> f64 {
    let t = i as f64 / CURVE_STEPS as f64;
    (lo.ln() + (hi.ln() - lo.ln()) * t).exp()
}
