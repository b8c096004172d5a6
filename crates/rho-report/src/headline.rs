//! The HTML page's opening (issue 22): the verdict, the benchmarks that regressed and those over their
//! budgets by name, each a link to its section below, then a summary table of every benchmark and metric. A
//! reader learns what failed without scrolling through the charts, and which chart to look at.

use std::fmt::Write as _;

use rho_compare::compare::{BenchmarkComparison, Verdict as DiffVerdict};
use rho_judge::budget::{BudgetMetric, Failure, Figure, Judgement, Outcome};
use rho_stats::{BenchSummary, Metric};
use rho_wire::StackMark;

use crate::page::{Diff, Gate, Page, Suite};
use crate::svg::{escape, num};

/// The id of benchmark `name`'s section in suite `suite` (the `suite`-th of the page): unique on the page
/// when several suites have a benchmark of the same name.
pub(crate) fn anchor(suite: usize, name: &str) -> String {
    format!("s{suite}-{name}")
}

/// A benchmark named in the headline, with what it did: `bench_crc_64` (`time_ns +42.0%`).
struct Named {
    name: String,
    /// The section to link to; `None` for a benchmark not on the page (removed since the base).
    href: Option<String>,
    what: Vec<String>,
}

/// The headline and the summary tables, as one `<section class="headline">`.
pub(crate) fn render(out: &mut String, page: &Page) {
    let regressed = diff_named(page, DiffVerdict::Regressed);
    let not_measured = diff_named(page, DiffVerdict::NotMeasured);
    let (over, undecided) = budget_named(&page.suites);
    let gate_regressed = page.gate.as_ref().map(gate_named).unwrap_or_default();
    let grew = page.diff.as_ref().map(growth_named).unwrap_or_default();
    let benchmarks: usize = page.suites.iter().map(|s| s.summary.benchmarks.len()).sum();

    let failed = !regressed.is_empty()
        || !grew.is_empty()
        || !not_measured.is_empty()
        || !over.is_empty()
        || !undecided.is_empty()
        || page
            .gate
            .as_ref()
            .is_some_and(|g| g.comparison.verdict != rho_gate::Verdict::Ok);
    let judged = page.diff.is_some() || page.gate.is_some() || budgets_judged(&page.suites);
    let mut verdict = Vec::new();
    let count =
        |n: usize, what: &str| format!("{n} benchmark{} {what}", if n == 1 { "" } else { "s" });
    if !regressed.is_empty() {
        verdict.push(count(regressed.len(), "regressed"));
    }
    if !grew.is_empty() {
        verdict.push(format!(
            "{} family growth{} regressed",
            grew.len(),
            if grew.len() == 1 { "" } else { "s" }
        ));
    }
    if !not_measured.is_empty() {
        verdict.push(count(not_measured.len(), "not measured"));
    }
    if !over.is_empty() {
        verdict.push(count(over.len(), "over budget"));
    }
    if !undecided.is_empty() {
        verdict.push(count(
            undecided.len(),
            "with a budget that cannot be judged",
        ));
    }
    if let Some(gate) = &page.gate
        && gate.comparison.verdict != rho_gate::Verdict::Ok
    {
        verdict.push(format!("gate {}", gate.comparison.verdict));
    }
    let (class, line) = if failed {
        ("verdict-bad", format!("FAILED: {}", verdict.join(", ")))
    } else if judged {
        (
            "verdict-ok",
            format!(
                "ok: {}, nothing regressed and every budget holds",
                count(benchmarks, "judged")
            ),
        )
    } else {
        (
            "",
            format!(
                "{}; no baseline and no budget to judge them against",
                count(benchmarks, "measured")
            ),
        )
    };
    let _ = writeln!(
        out,
        "<section class=\"headline\" id=\"headline\">\n<p class=\"verdict {class}\">{}</p>",
        escape(&line)
    );
    named_list(out, "Regressed", &regressed);
    named_list(out, "Growth regressed", &grew);
    named_list(out, "Not measured", &not_measured);
    named_list(out, "Over budget", &over);
    named_list(out, "Budget cannot be judged", &undecided);
    named_list(out, "Gate regressed", &gate_regressed);
    for (index, suite) in page.suites.iter().enumerate() {
        summary_table(out, index, suite, page.diff.as_ref(), page.suites.len() > 1);
    }
    out.push_str("</section>\n");
}

/// `<p>Regressed: <a href="#...">bench_a</a> (time_ns +42.0%), ...</p>`, nothing when `named` is empty.
/// The families whose growth regressed against the base (`rho_compare::growth`), each with what changed:
/// `O(n) -> O(n^2) in instructions`, or the coefficient's change in the same order.
fn growth_named(diff: &Diff) -> Vec<Named> {
    use rho_compare::growth::{FamilyComparison, GrowthVerdict};
    diff.comparison
        .families()
        .into_iter()
        .filter(|f| f.verdict == GrowthVerdict::Regressed)
        .map(|f| {
            let what = match (
                FamilyComparison::order(&f.base),
                FamilyComparison::order(&f.head),
                f.coefficient_change_percent,
            ) {
                (Some(base), Some(head), _) if base != head => {
                    format!("{base} -> {head} in {}", f.metric.name())
                }
                (Some(order), _, Some(change)) => {
                    format!("{order}, coefficient {change:+.1}% in {}", f.metric.name())
                }
                _ => f.metric.name().to_string(),
            };
            Named {
                name: f.family,
                href: None,
                what: vec![what],
            }
        })
        .collect()
}

fn named_list(out: &mut String, title: &str, named: &[Named]) {
    if named.is_empty() {
        return;
    }
    let items: Vec<String> = named
        .iter()
        .map(|n| {
            let name = match &n.href {
                Some(href) => format!("<a href=\"#{}\">{}</a>", escape(href), escape(&n.name)),
                None => escape(&n.name),
            };
            if n.what.is_empty() {
                name
            } else {
                format!("{name} ({})", escape(&n.what.join(", ")))
            }
        })
        .collect();
    let _ = writeln!(
        out,
        "<p class=\"named\"><strong>{}:</strong> {}</p>",
        escape(title),
        items.join(", ")
    );
}

/// The section of the first suite holding a benchmark `name`.
fn href_of(suites: &[Suite], name: &str) -> Option<String> {
    suites.iter().enumerate().find_map(|(index, suite)| {
        suite
            .summary
            .benchmarks
            .iter()
            .any(|b| b.name == name)
            .then(|| anchor(index, name))
    })
}

/// The benchmarks of the comparison with a metric of `verdict`, each with those metrics and their change.
fn diff_named(page: &Page, verdict: DiffVerdict) -> Vec<Named> {
    let Some(diff) = &page.diff else {
        return Vec::new();
    };
    diff.comparison
        .benchmarks
        .iter()
        .filter_map(|bench| {
            let what: Vec<String> = bench
                .metrics
                .iter()
                .filter(|m| m.verdict == verdict)
                .map(|m| match m.change_percent {
                    Some(change) => format!("{} {change:+.1}%", m.metric.name()),
                    None => m.metric.name().to_string(),
                })
                .collect();
            (!what.is_empty()).then(|| Named {
                name: bench.name.clone(),
                href: href_of(&page.suites, &bench.name),
                what,
            })
        })
        .collect()
}

/// Whether any suite's budgets were judged (a budget set on at least one of its figures).
fn budgets_judged(suites: &[Suite]) -> bool {
    suites.iter().filter_map(|s| s.judgement).any(|j| {
        j.benchmarks
            .iter()
            .flat_map(|b| &b.checks)
            .any(|c| c.budget.is_some())
    })
}

/// The benchmarks over an enforced budget, and those with a budget that cannot be judged, per
/// [`Judgement::outcome`] (nothing while budgets are reported only).
fn budget_named(suites: &[Suite]) -> (Vec<Named>, Vec<Named>) {
    let mut over: Vec<Named> = Vec::new();
    let mut undecided: Vec<Named> = Vec::new();
    for (index, suite) in suites.iter().enumerate() {
        let failures = match suite.judgement.map(Judgement::outcome) {
            Some(Outcome::Broken(failures) | Outcome::Undecided(failures)) => failures,
            Some(Outcome::Holds) | None => continue,
        };
        for failure in &failures {
            let list = if failure.undecided() {
                &mut undecided
            } else {
                &mut over
            };
            let what = failure_text(failure);
            match list.iter_mut().find(|n| n.name == failure.benchmark) {
                Some(named) => named.what.push(what),
                None => list.push(Named {
                    name: failure.benchmark.clone(),
                    href: Some(anchor(index, &failure.benchmark)),
                    what: vec![what],
                }),
            }
        }
    }
    (over, undecided)
}

/// A budget failure in a few words: `stack B 264 > 8`, `heap peak B: leaked 64 bytes`.
fn failure_text(failure: &Failure) -> String {
    let metric = failure.metric;
    let budget = metric.format(failure.budget);
    match (&failure.caveat, failure.figure) {
        (Some(caveat), _) if caveat.is_failure() => format!("{}: {caveat}", metric.label()),
        (_, Figure::Value(value)) => {
            format!("{} {} > {budget}", metric.label(), metric.format(value))
        }
        (_, Figure::Unmeasured(why)) => format!("{} ≤ {budget}: {why}", metric.label()),
    }
}

/// The gate's regressed metrics, per benchmark, linking to the gate's section of each.
fn gate_named(gate: &Gate) -> Vec<Named> {
    let mut named: Vec<Named> = Vec::new();
    for metric in &gate.comparison.metrics {
        if metric.outcome != rho_gate::MetricOutcome::Regressed {
            continue;
        }
        let (bench, what) = metric
            .name
            .rsplit_once('.')
            .unwrap_or((metric.name.as_str(), ""));
        match named.iter_mut().find(|n| n.name == bench) {
            Some(n) => n.what.push(what.to_string()),
            None => named.push(Named {
                name: bench.to_string(),
                href: Some(format!("gate-{bench}")),
                what: vec![what.to_string()],
            }),
        }
    }
    named
}

/// A metric's column heading in the summary table.
fn heading(metric: Metric) -> &'static str {
    match metric {
        Metric::Cycles => "cycles",
        Metric::TimeNs => "ns",
        Metric::CpuNs => "cpu ns",
        Metric::StackBytes => "stack B",
        Metric::HeapPeakBytes => "heap peak B",
        Metric::Instructions => "instructions",
        Metric::CodeBytes => "code B",
        Metric::StaticStackBytes => "stack bound B",
    }
}

/// The budget that holds `metric`'s figure (time per iteration for time).
fn budget_metric(metric: Metric) -> BudgetMetric {
    match metric {
        Metric::Cycles => BudgetMetric::Cycles,
        Metric::TimeNs => BudgetMetric::NsPerIteration,
        Metric::CpuNs => BudgetMetric::CpuNsPerIteration,
        Metric::StackBytes => BudgetMetric::StackBytes,
        Metric::HeapPeakBytes => BudgetMetric::HeapPeakBytes,
        Metric::Instructions => BudgetMetric::Instructions,
        Metric::CodeBytes => BudgetMetric::CodeBytes,
        Metric::StaticStackBytes => BudgetMetric::StaticStackBytes,
    }
}

/// The figure of `metric`, or why there is none (`overran`, `off`, `-`).
fn figure_text(bench: &BenchSummary, metric: Metric) -> String {
    match (bench.metric(metric), metric, bench.stack) {
        (Some(value), _, _) => num(value),
        (None, Metric::StackBytes, StackMark::Overrun) => "overran".to_string(),
        (None, Metric::StackBytes, StackMark::Off) => "off".to_string(),
        (None, _, _) if bench.overran => "stopped".to_string(),
        (None, _, _) => "-".to_string(),
    }
}

/// One table for `suite`: a row per benchmark (its name a link to its section), a column per metric any of its
/// benchmarks has, each cell the figure, its change against the base and its budget when there are, and the
/// benchmark's verdict.
fn summary_table(
    out: &mut String,
    index: usize,
    suite: &Suite,
    diff: Option<&Diff>,
    caption: bool,
) {
    let benchmarks = &suite.summary.benchmarks;
    let compared = |name: &str| diff.and_then(|d| d.comparison.benchmark(name));
    let metrics: Vec<Metric> = Metric::ALL
        .into_iter()
        .filter(|&metric| {
            benchmarks.iter().any(|b| {
                b.metric(metric).is_some()
                    || compared(&b.name)
                        .is_some_and(|c| c.metrics.iter().any(|m| m.metric == metric))
            })
        })
        .collect();
    out.push_str("<table class=\"summary\">\n");
    if caption {
        let _ = writeln!(out, "<caption>{}</caption>", escape(suite.what));
    }
    out.push_str("<tr><th>benchmark</th>");
    for &metric in &metrics {
        let _ = write!(out, "<th>{}</th>", heading(metric));
    }
    out.push_str("<th>verdict</th></tr>\n");
    for bench in benchmarks {
        let comparison = compared(&bench.name);
        let checks = suite
            .judgement
            .and_then(|j| j.benchmarks.iter().find(|b| b.name == bench.name));
        let _ = write!(
            out,
            "<tr><td><a href=\"#{}\">{}</a></td>",
            escape(&anchor(index, &bench.name)),
            escape(&bench.name)
        );
        let mut over_budget = false;
        for &metric in &metrics {
            let compared = comparison.and_then(|c| c.metrics.iter().find(|m| m.metric == metric));
            // Compared, the figure judged (the baseline's, rounded to the clock's step), so the cell and its
            // change agree with the comparison table.
            let mut cell = match compared.and_then(|m| m.head.figure()) {
                Some(value) => num(value),
                None => figure_text(bench, metric),
            };
            let mut bad = false;
            if let Some(m) = compared {
                if let Some(change) = m.change_percent {
                    let _ = write!(cell, " ({change:+.1}%)");
                }
                bad |= m.verdict.fails();
            }
            let check = checks.and_then(|b| {
                b.checks
                    .iter()
                    .find(|c| c.metric == budget_metric(metric) && c.budget.is_some())
            });
            if let Some(check) = check {
                let fails = check.verdict == rho_judge::budget::Verdict::Over
                    || check.verdict == rho_judge::budget::Verdict::Unmeasured;
                let _ = write!(
                    cell,
                    " ≤ {}{}",
                    check.budget_text(),
                    if fails { " OVER" } else { "" }
                );
                bad |= fails;
                over_budget |= fails;
            }
            let _ = write!(
                out,
                "<td{}>{}</td>",
                if bad { " class=\"verdict-bad\"" } else { "" },
                escape(&cell)
            );
        }
        let budgeted = checks.is_some_and(|b| b.checks.iter().any(|c| c.budget.is_some()));
        let verdict = row_verdict(comparison, over_budget, budgeted);
        let class = match verdict {
            "ok" => "verdict-ok",
            "-" => "",
            _ => "verdict-bad",
        };
        let _ = writeln!(out, "<td class=\"{class}\">{verdict}</td></tr>");
    }
    out.push_str("</table>\n");
}

/// A benchmark's word in the summary: `regressed`, `not measured`, `over budget`, `ok` (judged and fine), `-`
/// (nothing to judge it against: no base, no budget).
fn row_verdict(
    comparison: Option<&BenchmarkComparison>,
    over_budget: bool,
    budgeted: bool,
) -> &'static str {
    let has = |verdict: DiffVerdict| {
        comparison.is_some_and(|c| c.metrics.iter().any(|m| m.verdict == verdict))
    };
    if has(DiffVerdict::Regressed) {
        "regressed"
    } else if has(DiffVerdict::NotMeasured) {
        "not measured"
    } else if over_budget {
        "over budget"
    } else if comparison.is_some() || budgeted {
        "ok"
    } else {
        "-"
    }
}
