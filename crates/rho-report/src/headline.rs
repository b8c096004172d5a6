//! The HTML page's opening (issues 22 and 41): the verdict, the benchmarks that regressed and those over their
//! budgets by name, each a link to its section below, what the comparison was against with each metric's
//! limit as set, then one summary table of every benchmark (regressed first, then by the largest change;
//! each metric under its name with its own limit), before the first chart. A reader learns what failed
//! without scrolling through the charts, and which chart to look at.

use maud::{Markup, html};
use rho_compare::compare::{BenchmarkComparison, Verdict as DiffVerdict};
use rho_judge::budget::{BudgetMetric, Failure, Figure, Judgement, Outcome};
use rho_stats::{BenchSummary, Metric};
use rho_wire::StackMark;

use crate::labels::{gate_groups, gate_metric_parts, suite_label};
use crate::page::{Diff, Gate, Page, Suite};
use crate::svg::{figure, percent_as_set};

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

/// The headline and the summary table, as one `<section class="headline">`.
pub(crate) fn render(page: &Page) -> Markup {
    let regressed = diff_named(page, DiffVerdict::Regressed);
    let not_measured = diff_named(page, DiffVerdict::NotMeasured);
    let (over, undecided) = budget_named(&page.suites);
    let gate_regressed = page.gate.as_ref().map(gate_named).unwrap_or_default();
    let grew = page.diff.as_ref().map(growth_named).unwrap_or_default();
    let benchmarks: usize = page
        .suites
        .iter()
        .map(|s| s.summary.benchmarks.len())
        .sum::<usize>()
        + page
            .gate
            .as_ref()
            .map_or(0, |g| gate_groups(g.comparison).len());

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
        // The benchmarks that regressed say the gate's verdict; an undecided gate says so itself.
        if !gate_regressed.is_empty() {
            verdict.push(count(gate_regressed.len(), "regressed"));
        }
        if gate.comparison.verdict != rho_gate::Verdict::Regressed || gate_regressed.is_empty() {
            verdict.push(format!("gate {}", gate.comparison.verdict));
        }
    }
    let (class, line) = if failed {
        (
            "verdict verdict-bad",
            format!("FAILED: {}", verdict.join(", ")),
        )
    } else if judged {
        (
            "verdict verdict-ok",
            format!(
                "ok: {}, nothing regressed and every budget holds",
                count(benchmarks, "judged")
            ),
        )
    } else {
        (
            "verdict",
            format!(
                "{}; no baseline and no budget to judge them against",
                count(benchmarks, "measured")
            ),
        )
    };
    html! {
        section.headline id="headline" {
            p class=(class) { (line) }
            (named_list("Regressed", &regressed))
            (named_list("Growth regressed", &grew))
            (named_list("Not measured", &not_measured))
            (named_list("Over budget", &over))
            (named_list("Budget cannot be judged", &undecided))
            (named_list("Gate regressed", &gate_regressed))
            @if let Some(diff) = &page.diff {
                (against(diff))
            }
            @if let Some(gate) = &page.gate {
                (gate_summary_table(gate))
            }
            @if !page.suites.is_empty() {
                (summary_table(page))
            }
        }
    }
}

/// `<p>Regressed: <a href="#...">bench_a</a> (time_ns +42.0%), ...</p>`, nothing when `named` is empty.
fn named_list(title: &str, named: &[Named]) -> Markup {
    if named.is_empty() {
        return html! {};
    }
    html! {
        p.named {
            strong { (title) ":" } " "
            @for (i, n) in named.iter().enumerate() {
                @if i > 0 { ", " }
                @match &n.href {
                    Some(href) => a href=(format!("#{href}")) { (n.name) },
                    None => (n.name),
                }
                @if !n.what.is_empty() { " (" (n.what.join(", ")) ")" }
            }
        }
    }
}

/// The limits `metric` was judged with across the comparison's benchmarks (a benchmark may set its own), in
/// percent, each once, lowest first.
fn metric_limits(diff: &Diff, metric: Metric) -> Vec<f64> {
    let mut limits: Vec<f64> = diff
        .comparison
        .benchmarks
        .iter()
        .filter(|b| b.metrics.iter().any(|m| m.metric == metric))
        .map(|b| rho_compare::metric_limit(metric, b.limit_percent, b.instructions_limit_percent))
        .collect();
    limits.sort_by(f64::total_cmp);
    limits.dedup();
    limits
}

/// A metric's limits as set: `+1%`, or `+10% to +25%` when benchmarks set their own.
fn limits_text(limits: &[f64]) -> Option<String> {
    match limits {
        [] => None,
        [one] => Some(format!("+{}", percent_as_set(*one))),
        [lowest, .., highest] => Some(format!(
            "+{} to +{}",
            percent_as_set(*lowest),
            percent_as_set(*highest)
        )),
    }
}

/// What the run was compared with, how its metrics came out, and each metric's limit as it was set (an
/// instructions limit of 1% reads 1%, whatever the time limit is): `Against HEAD: 1 regressed, ...; limits
/// as set: instructions +1%; cycles, time_ns +10%`.
fn against(diff: &Diff) -> Markup {
    let counts = diff.comparison.counts();
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for metric in Metric::ALL {
        let Some(text) = limits_text(&metric_limits(diff, metric)) else {
            continue;
        };
        match groups.iter_mut().find(|(t, _)| *t == text) {
            Some((_, names)) => names.push(metric.name()),
            None => groups.push((text, vec![metric.name()])),
        }
    }
    let limits: Vec<String> = groups
        .iter()
        .map(|(text, names)| format!("{} {text}", names.join(", ")))
        .collect();
    // The machine's yardstick, as the text says it: when it moved (time judged relative to it), or why time
    // was judged as measured.
    let machine: Vec<String> = diff
        .comparison
        .machine
        .iter()
        .filter(|m| m.moved())
        .map(|m| m.sentence())
        .chain(
            diff.comparison
                .unadjusted
                .iter()
                .map(|why| format!("yardstick: {why}")),
        )
        .collect();
    html! {
        p.meta.against {
            "Against " (diff.base_name) ": " (counts.regressed) " regressed, " (counts.not_measured)
            " not measured, " (counts.improved) " improved, " (counts.ok) " ok"
            @if !limits.is_empty() { "; limits as set: " (limits.join("; ")) }
            "."
        }
        @for sentence in &machine {
            p.meta.machine { (sentence) "." }
        }
    }
}

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
        (Some(value), _, _) => figure(value),
        (None, Metric::StackBytes, StackMark::Overrun) => "overran".to_string(),
        (None, Metric::StackBytes, StackMark::Off) => "off".to_string(),
        (None, _, _) if bench.overran => "stopped".to_string(),
        (None, _, _) => "-".to_string(),
    }
}

/// One row of a summary table: a benchmark, its cells, its verdict, and what orders it.
struct Row {
    name: String,
    href: String,
    /// The suite's label, when the page has several.
    suite: Option<String>,
    /// Each cell's text, whether it fails, and its hover text.
    cells: Vec<(String, bool, Option<String>)>,
    verdict: &'static str,
    /// 0 regressed, 1 not measured or undecided, 2 over budget, 3 the rest: the order of the table.
    rank: u8,
    /// The largest change of any of its metrics, in percent either way (0 without a comparison).
    change: f64,
}

/// Regressed first, then the others that fail, then by the largest change either way; the page's order
/// otherwise.
fn sort_rows(rows: &mut [Row]) {
    rows.sort_by(|a, b| {
        a.rank
            .cmp(&b.rank)
            .then_with(|| b.change.total_cmp(&a.change))
    });
}

fn rank_of(verdict: &str) -> u8 {
    match verdict {
        "regressed" | "REGRESSED" => 0,
        "not measured" | "undecided" => 1,
        "over budget" => 2,
        _ => 3,
    }
}

/// The table itself: a heading per column (a metric's with its limit as set under its name), a row each.
fn table(
    caption: Option<&str>,
    suites: bool,
    columns: &[(String, Option<String>)],
    rows: &[Row],
) -> Markup {
    html! {
        table.summary {
            @if let Some(caption) = caption { caption { (caption) } }
            tr {
                th { "benchmark" }
                @if suites { th { "suite" } }
                @for (heading, limit) in columns {
                    th {
                        (heading)
                        @if let Some(limit) = limit { span.limit-set { "limit " (limit) } }
                    }
                }
                th { "verdict" }
            }
            @for row in rows {
                tr data-summary=(row.name) {
                    td { a href=(format!("#{}", row.href)) { (row.name) } }
                    @if suites { td { (row.suite.as_deref().unwrap_or("")) } }
                    @for (text, bad, title) in &row.cells {
                        td class=[bad.then_some("verdict-bad")] title=[title.as_deref()] { (text) }
                    }
                    @let class = match row.verdict {
                        "ok" => "verdict-ok",
                        "-" => "",
                        _ => "verdict-bad",
                    };
                    td class=[(!class.is_empty()).then_some(class)] { (row.verdict) }
                }
            }
        }
    }
}

/// One table of every benchmark of every suite on the page: a row per benchmark (its name a link to its
/// section), a column per metric any of them has (under its name, its limit as set when compared), each
/// cell the figure, its change against the base and its budget when there are, and the benchmark's verdict.
fn summary_table(page: &Page) -> Markup {
    let diff = page.diff.as_ref();
    let compared = |name: &str| diff.and_then(|d| d.comparison.benchmark(name));
    let metrics: Vec<Metric> = Metric::ALL
        .into_iter()
        .filter(|&metric| {
            page.suites
                .iter()
                .flat_map(|s| &s.summary.benchmarks)
                .any(|b| {
                    b.metric(metric).is_some()
                        || compared(&b.name)
                            .is_some_and(|c| c.metrics.iter().any(|m| m.metric == metric))
                })
        })
        .collect();
    let columns: Vec<(String, Option<String>)> = metrics
        .iter()
        .map(|&metric| {
            (
                heading(metric).to_string(),
                diff.and_then(|d| limits_text(&metric_limits(d, metric))),
            )
        })
        .collect();
    let several = page.suites.len() > 1;
    let mut rows = Vec::new();
    for (index, suite) in page.suites.iter().enumerate() {
        for bench in &suite.summary.benchmarks {
            rows.push(summary_row(
                index,
                suite,
                bench,
                &metrics,
                compared(&bench.name),
                several,
            ));
        }
    }
    sort_rows(&mut rows);
    table(None, several, &columns, &rows)
}

fn summary_row(
    index: usize,
    suite: &Suite,
    bench: &BenchSummary,
    metrics: &[Metric],
    comparison: Option<&BenchmarkComparison>,
    several: bool,
) -> Row {
    let checks = suite
        .judgement
        .and_then(|j| j.benchmarks.iter().find(|b| b.name == bench.name));
    let mut over_budget = false;
    let mut cells = Vec::new();
    for &metric in metrics {
        let compared = comparison.and_then(|c| c.metrics.iter().find(|m| m.metric == metric));
        // Compared, the figure judged (the baseline's, rounded to the clock's step), so the cell and its
        // change agree with the comparison table.
        let mut cell = match compared.and_then(|m| m.head.figure()) {
            Some(value) => figure(value),
            None => figure_text(bench, metric),
        };
        let mut bad = false;
        if let Some(m) = compared {
            if let Some(change) = m.change_percent {
                cell.push_str(&format!(" ({change:+.1}%)"));
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
            cell.push_str(&format!(
                " ≤ {}{}",
                check.budget_text(),
                if fails { " OVER" } else { "" }
            ));
            bad |= fails;
            over_budget |= fails;
        }
        cells.push((cell, bad, None));
    }
    let budgeted = checks.is_some_and(|b| b.checks.iter().any(|c| c.budget.is_some()));
    let verdict = row_verdict(comparison, over_budget, budgeted);
    let change = comparison
        .into_iter()
        .flat_map(|c| &c.metrics)
        .filter_map(|m| m.change_percent)
        .filter(|c| c.is_finite())
        .map(f64::abs)
        .fold(0.0, f64::max);
    Row {
        name: bench.name.clone(),
        href: anchor(index, &bench.name),
        suite: several.then(|| suite_label(suite.what)),
        cells,
        verdict,
        rank: rank_of(verdict),
        change,
    }
}

/// The gate's summary table: a row per benchmark (a link to its runs below), a column per metric (under its
/// name, its limit as set: the gate's budget for it), each cell base's best -> head's best and the change,
/// and the benchmark's verdict; regressed first, then by the largest change.
fn gate_summary_table(gate: &Gate) -> Markup {
    let groups = gate_groups(gate.comparison);
    let mut names: Vec<&str> = Vec::new();
    for metric in &gate.comparison.metrics {
        let (_, name) = gate_metric_parts(&metric.name);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let columns: Vec<(String, Option<String>)> = names
        .iter()
        .map(|&name| {
            let mut limits: Vec<f64> = gate
                .comparison
                .metrics
                .iter()
                .filter(|m| gate_metric_parts(&m.name).1 == name)
                .map(|m| m.budget * 100.0)
                .collect();
            limits.sort_by(f64::total_cmp);
            limits.dedup();
            (name.to_string(), limits_text(&limits))
        })
        .collect();
    let mut rows: Vec<Row> = groups
        .iter()
        .map(|(group, metrics)| {
            let cells = names
                .iter()
                .map(|&name| {
                    let Some(m) = metrics
                        .iter()
                        .find(|m| gate_metric_parts(&m.name).1 == name)
                    else {
                        return ("-".to_string(), false, None);
                    };
                    let side = |s: Option<rho_gate::SideFigures>| {
                        s.map_or("-".to_string(), |s| figure(s.min))
                    };
                    let change = match (m.change(), m.zero_base_text()) {
                        (Some(c), _) => format!(" ({:+.1}%)", c * 100.0),
                        (None, Some(text)) => format!(" ({text})"),
                        (None, None) => String::new(),
                    };
                    let (word, why) = match &m.outcome {
                        rho_gate::MetricOutcome::Ok => ("", None),
                        rho_gate::MetricOutcome::Regressed => (" REGRESSED", None),
                        rho_gate::MetricOutcome::Undecided(why) => {
                            (" undecided", Some(why.to_string()))
                        }
                    };
                    (
                        format!("{} → {}{change}{word}", side(m.base), side(m.head)),
                        m.outcome != rho_gate::MetricOutcome::Ok,
                        why,
                    )
                })
                .collect();
            let verdict = if metrics
                .iter()
                .any(|m| m.outcome == rho_gate::MetricOutcome::Regressed)
            {
                "regressed"
            } else if metrics
                .iter()
                .any(|m| matches!(m.outcome, rho_gate::MetricOutcome::Undecided(_)))
            {
                "undecided"
            } else {
                "ok"
            };
            let change = metrics
                .iter()
                .filter_map(|m| m.change())
                .filter(|c| c.is_finite())
                .map(|c| (c * 100.0).abs())
                .fold(0.0, f64::max);
            Row {
                name: group.to_string(),
                href: format!("gate-{group}"),
                suite: None,
                cells,
                verdict,
                rank: rank_of(verdict),
                change,
            }
        })
        .collect();
    sort_rows(&mut rows);
    table(None, false, &columns, &rows)
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
