//! The budget part of a report: the header line saying whether budgets are enforced (and if not, why), and a
//! table with, per benchmark, each budgeted metric's figure, its ceiling and the verdict.

use std::fmt::Write as _;

use rho_judge::budget::{Figure, Judgement, Outcome};
use serde::Serialize;

/// The header line: `budgets   enforced; judged on net medians (...)` or `budgets   reported only: scale 0.5 <
/// 1.0`, wrapped at `width` columns under a 10-column margin.
pub fn header_line(judgement: &Judgement, width: usize) -> String {
    let mut line = format!("{:<10}{}", "budgets", judgement.enforcement.describe());
    if judgement.budgeted_metrics().is_empty() {
        line.push_str(" (none set for these benchmarks)");
    } else {
        line.push_str("; judged on net medians (the calibrated overhead taken off)");
    }
    crate::wrap(&line, width, 10).trim_end().to_string()
}

/// Insert `line` as the last line of the report's header (the header is everything before the first blank
/// line; a report without one gets the line first).
pub fn with_header_line(report: &str, line: &str) -> String {
    match report.find("\n\n") {
        Some(end) => format!("{}\n{line}{}", &report[..end], &report[end..]),
        None => format!("{line}\n{report}"),
    }
}

/// The table of budgeted figures, then the growth budgets' (`crate::growth::budget_table`). Empty when
/// nothing has a budget. The figures' table is one row per benchmark when that fits in `width` columns, else
/// one row per benchmark and budgeted metric.
pub fn table(judgement: &Judgement, width: usize) -> String {
    let wide = metric_table(judgement, width);
    let mut out = if wide
        .lines()
        .all(|line| crate::layout::display_width(line) <= width)
    {
        wide
    } else {
        long_metric_table(judgement, width)
    };
    out.push_str(&crate::growth::budget_table(judgement, width));
    out
}

/// The table of budgeted figures: one row per benchmark, three columns (figure, ceiling, verdict) per metric
/// that has a budget in at least one benchmark. Empty when no figure has a budget.
fn metric_table(judgement: &Judgement, width: usize) -> String {
    let metrics = judgement.budgeted_metrics();
    if metrics.is_empty() {
        return String::new();
    }
    let mut header = vec!["budgets".to_string()];
    for metric in &metrics {
        header.push(metric.label().to_string());
        header.push("max".to_string());
        header.push("verdict".to_string());
    }
    let mut rows = vec![header];
    let mut notes: Vec<String> = Vec::new();
    for bench in &judgement.benchmarks {
        let mut row = vec![bench.name.clone()];
        for metric in &metrics {
            match bench.checks.iter().find(|c| c.metric == *metric) {
                Some(check) => {
                    row.push(check.figure_text());
                    row.push(check.budget_text());
                    row.push(check.verdict.label().to_string());
                    if let (Figure::Unmeasured(why), Some(_)) = (check.figure, check.budget) {
                        notes.push(format!("{}: {why}", bench.name));
                    }
                    // A leak or a figure below its clock's resolution: why the verdict is not the figure's.
                    if let (Some(caveat), Some(_)) = (&check.caveat, check.budget) {
                        notes.push(format!("{}: {}: {caveat}", bench.name, check.metric));
                    }
                }
                None => row.extend(["-".to_string(), "-".to_string(), "-".to_string()]),
            }
        }
        rows.push(row);
    }

    // Text columns (the name, the verdicts) are aligned left, figures right.
    let mut out = crate::aligned_table(&rows, |c| c == 0 || c % 3 == 0);
    table_notes(&mut out, judgement, &notes, width);
    out
}

/// The same figures one row per benchmark and budgeted metric (`budgets  metric  figure  max  verdict`), for
/// a terminal too narrow for a column triple per metric. A benchmark's name is on each of its rows, or (too
/// long for that) on a line of its own above them.
fn long_metric_table(judgement: &Judgement, width: usize) -> String {
    let metrics = judgement.budgeted_metrics();
    let mut rows = vec![
        ["budgets", "metric", "figure", "max", "verdict"]
            .map(String::from)
            .to_vec(),
    ];
    let mut notes: Vec<String> = Vec::new();
    for bench in &judgement.benchmarks {
        for metric in &metrics {
            let Some(check) = bench.checks.iter().find(|c| c.metric == *metric) else {
                continue;
            };
            if check.budget.is_none() {
                continue;
            }
            rows.push(vec![
                bench.name.clone(),
                metric.label().to_string(),
                check.figure_text(),
                check.budget_text(),
                check.verdict.label().to_string(),
            ]);
            if let Figure::Unmeasured(why) = check.figure {
                notes.push(format!("{}: {why}", bench.name));
            }
            if let Some(caveat) = &check.caveat {
                notes.push(format!("{}: {}: {caveat}", bench.name, check.metric));
            }
        }
    }
    // A name too long for the row goes on a line of its own.
    let mut out = crate::aligned_table_within(&rows, |c| c <= 1 || c == 4, width);
    table_notes(&mut out, judgement, &notes, width);
    out
}

/// The lines under a budget table: why `over` is not enforced, and the notes on its figures.
fn table_notes(out: &mut String, judgement: &Judgement, notes: &[String], width: usize) {
    if !judgement.enforcement.enforced() && judgement.failures().iter().any(|f| !f.undecided()) {
        let line = format!(
            "over: broken, but not enforced in this run ({})",
            judgement
                .enforcement
                .reasons
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        );
        out.push_str(&crate::wrap(&line, width, 2));
    }
    for note in notes {
        out.push_str(&crate::wrap(note, width, 2));
    }
}

/// A judged suite's report: the run (laid out as `layout` says) with its verdict line, then its budgets'
/// table.
pub fn suite_report(
    summary: &rho_stats::RunSummary,
    what: &str,
    judgement: &Judgement,
    layout: crate::Layout,
) -> String {
    let width = layout.width;
    let mut text = with_header_line(
        &crate::render_with(summary, what, layout),
        &header_line(judgement, width),
    );
    let budgets = table(judgement, width);
    if !budgets.is_empty() {
        text.push('\n');
        text.push_str(&budgets);
    }
    text
}

/// `rho bench check`'s closing text, wrapped to `width`, and the budgets' exit status ([`check_summary`]).
/// `failures` is the summary of the suites that failed to build or run (empty when none did) and `unmatched`
/// the budgets that name no benchmark: with either, "every budget holds" is not said (it is about the suites
/// that ran) and each is a reason the check cannot decide.
pub fn check_closing(
    judgements: &[(String, Judgement)],
    unmatched: &[String],
    failures: &str,
    width: usize,
) -> (String, u8) {
    let (mut text, code) = check_summary(judgements);
    if !failures.is_empty() || !unmatched.is_empty() {
        text = text
            .lines()
            .filter(|line| !line.starts_with("check: ok"))
            .map(|line| format!("{line}\n"))
            .collect();
    }
    for message in unmatched {
        text.push_str(&format!("check: cannot decide: {message}\n"));
    }
    (crate::wrap(&format!("{text}{failures}"), width, 4), code)
}

/// What `rho bench check` prints at the end, and its exit status: 0 every budget holds (or budgets are
/// reported only), 1 a budget is broken, 2 a budget could not be judged.
pub fn check_summary(judgements: &[(String, Judgement)]) -> (String, u8) {
    let mut broken = Vec::new();
    let mut undecided = Vec::new();
    let mut judged = 0usize;
    let mut reported_only = Vec::new();
    // `max_growth` per family: sentences of their own beside the figures' failures.
    let (mut growth_broken, mut growth_undecided) = (Vec::new(), Vec::new());
    for (what, judgement) in judgements {
        let (over, unjudged, growth_judged) = crate::growth::check_lines(judgement);
        growth_broken.extend(over);
        growth_undecided.extend(unjudged);
        let count = judgement
            .benchmarks
            .iter()
            .flat_map(|b| &b.checks)
            .filter(|c| c.budget.is_some())
            .count()
            + growth_judged;
        judged += count;
        if !judgement.enforcement.enforced() && count > 0 {
            let over = judgement.failures().len()
                + judgement
                    .growth
                    .iter()
                    .filter(|c| c.verdict == rho_judge::growth::GrowthVerdict::Over)
                    .count();
            reported_only.push(format!(
                "{what}: {} ({over} over, not enforced)",
                judgement.enforcement.describe()
            ));
        }
        match judgement.outcome() {
            Outcome::Holds => {}
            Outcome::Broken(failures) => broken.extend(failures),
            Outcome::Undecided(failures) => {
                for failure in failures {
                    if failure.undecided() {
                        undecided.push(failure);
                    } else {
                        broken.push(failure);
                    }
                }
            }
        }
    }
    let undecided: Vec<String> = undecided
        .iter()
        .map(ToString::to_string)
        .chain(growth_undecided)
        .collect();
    let broken: Vec<String> = broken
        .iter()
        .map(ToString::to_string)
        .chain(growth_broken)
        .collect();
    let mut out = String::new();
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    for line in &reported_only {
        let _ = writeln!(out, "check: {line}");
    }
    if !undecided.is_empty() {
        let _ = writeln!(
            out,
            "check: cannot decide: {} budget{} could not be judged",
            undecided.len(),
            plural(undecided.len())
        );
        for failure in &undecided {
            let _ = writeln!(out, "  {failure}");
        }
    }
    if !broken.is_empty() {
        let _ = writeln!(
            out,
            "check: FAILED: {} budget{} broken",
            broken.len(),
            plural(broken.len())
        );
        for failure in &broken {
            let _ = writeln!(out, "  {failure}");
        }
    }
    let code = if !undecided.is_empty() {
        2
    } else if !broken.is_empty() {
        1
    } else {
        if judged == 0 {
            out.push_str("check: ok: no budget is set for these benchmarks (nothing to enforce)\n");
        } else if reported_only.is_empty() {
            let _ = writeln!(out, "check: ok: every budget holds ({judged} judged)");
        } else {
            out.push_str("check: ok: nothing enforced\n");
        }
        0
    };
    (out, code)
}

/// Budgets in module.yml for benchmarks that no suite printed (a typo such as `bench_crc_46` would otherwise
/// leave them silently unused), one message each: `module.yml:L:C: benchmark 'bench_crc_46' has budgets but no
/// suite ran it; did you mean 'bench_crc_64'?`. Checks `bench.benchmarks` and `target`'s own `benchmarks:`.
/// Meaningful only when every suite ran: a suite that failed printed no names.
pub fn unmatched_budgets(
    config: &rho_config::ModuleConfig,
    target: &str,
    judgements: &[(String, Judgement)],
) -> Vec<String> {
    // A family's name is seen too (its `max_growth` is judged under it), once any member ran.
    let seen: Vec<&str> = judgements
        .iter()
        .flat_map(|(_, judgement)| {
            judgement
                .benchmarks
                .iter()
                .map(|b| b.name.as_str())
                .chain(judgement.families.iter().map(String::as_str))
        })
        .collect();
    config
        .unmatched_benchmarks_on(Some(target), &seen)
        .iter()
        .map(|(name, at, suggestion)| {
            rho_config::unmatched_message(config, name, *at, suggestion.as_deref())
        })
        .collect()
}

/// The budget part of a suite in `--json`'s document: whether budgets were enforced (and if not, why), and one
/// entry per budgeted figure.
#[derive(Debug, Serialize)]
pub struct BudgetsRecord {
    pub enforced: bool,
    /// Why budgets were reported only (`scale 0.5 < 1.0`, `harness built without optimisation`).
    pub reported_only_because: Vec<String>,
    pub checks: Vec<CheckRecord>,
    /// `max_growth` per family; absent without any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub growth: Vec<GrowthRecord>,
}

/// One family's `max_growth`.
#[derive(Debug, Serialize)]
pub struct GrowthRecord {
    pub family: String,
    /// The metric whose fit was judged (`instructions`, `cycles`, `time_ns`); `null` when none was measured.
    pub metric: Option<&'static str>,
    /// The best fit's class (`n^2`), `null` with too few points.
    pub fit: Option<rho_stats::Complexity>,
    /// Distinct sizes the fit had.
    pub points: usize,
    pub budget: rho_stats::Complexity,
    /// `ok`, `over` or `undecided`.
    pub verdict: &'static str,
}

/// One budgeted figure.
#[derive(Debug, Serialize)]
pub struct CheckRecord {
    pub benchmark: String,
    /// The module.yml key of the budget (`max_cycles_per_iteration`, ...).
    pub budget_key: &'static str,
    /// The net figure judged; `null` when it was not measured (then `unmeasured` says why).
    pub figure: Option<f64>,
    pub unmeasured: Option<String>,
    pub budget: f64,
    /// `ok`, `OVER`, `over`, `UNMEASURED`, `unmeasured`.
    pub verdict: &'static str,
}

impl BudgetsRecord {
    pub fn of(judgement: &Judgement) -> BudgetsRecord {
        let mut checks = Vec::new();
        for bench in &judgement.benchmarks {
            for check in &bench.checks {
                let Some(budget) = check.budget else { continue };
                let (figure, unmeasured) = match check.figure {
                    Figure::Value(value) => (Some(value), None),
                    Figure::Unmeasured(why) => (None, Some(why.to_string())),
                };
                checks.push(CheckRecord {
                    benchmark: bench.name.clone(),
                    budget_key: check.metric.budget_key(),
                    figure,
                    unmeasured,
                    budget,
                    verdict: check.verdict.label(),
                });
            }
        }
        let growth = judgement
            .growth
            .iter()
            .map(|check| GrowthRecord {
                family: check.family.clone(),
                metric: check.metric.map(rho_stats::Metric::name),
                fit: check.fit.map(|fit| fit.complexity),
                points: check.points,
                budget: check.budget,
                verdict: match check.verdict {
                    rho_judge::growth::GrowthVerdict::Holds => "ok",
                    rho_judge::growth::GrowthVerdict::Over => "over",
                    rho_judge::growth::GrowthVerdict::Undecided => "undecided",
                },
            })
            .collect();
        BudgetsRecord {
            growth,
            enforced: judgement.enforcement.enforced(),
            reported_only_because: judgement
                .enforcement
                .reasons
                .iter()
                .map(ToString::to_string)
                .collect(),
            checks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_line_goes_before_the_first_blank_line() {
        let report = "rho bench  x\nrun       y\n\nbenchmark ...\n";
        assert_eq!(
            with_header_line(report, "budgets   enforced"),
            "rho bench  x\nrun       y\nbudgets   enforced\n\nbenchmark ...\n"
        );
        assert_eq!(with_header_line("table\n", "b"), "b\ntable\n");
    }

    #[test]
    fn the_table_says_why_a_verdict_is_not_the_figures() {
        use rho_judge::budget::{
            BenchJudgement, BudgetMetric, Caveat, Check, Enforcement, Verdict,
        };
        let check = |metric, figure, caveat, verdict| Check {
            metric,
            figure: Figure::Value(figure),
            budget: Some(64.0),
            caveat: Some(caveat),
            verdict,
            scope: None,
        };
        let judgement = Judgement {
            enforcement: Enforcement::decide(1.0, true),
            growth: Vec::new(),
            families: Vec::new(),
            benchmarks: vec![BenchJudgement {
                name: "b".to_string(),
                checks: vec![
                    check(
                        BudgetMetric::NsPerIteration,
                        70.0,
                        Caveat::BelowResolution {
                            net_median: 70.0,
                            resolution: 100.0,
                            unit: "ns".to_string(),
                        },
                        Verdict::OverReported,
                    ),
                    check(
                        BudgetMetric::HeapPeakBytes,
                        32.0,
                        Caveat::Leaked { bytes: 16 },
                        Verdict::Over,
                    ),
                ],
            }],
        };
        let text = table(&judgement, 200);
        assert!(
            text.contains(
                "b: ns per iteration: below the clock's resolution (net median 70 ns, one step 100 ns): \
                 reported only\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("b: heap peak bytes: leaked 16 bytes\n"),
            "{text}"
        );
        // Too narrow for a column triple per metric: a row per metric, the same notes, wrapped.
        let long = table(&judgement, 50);
        let rows: Vec<&str> = long.lines().filter(|l| l.starts_with("b ")).collect();
        assert_eq!(rows.len(), 2, "{long}");
        assert!(
            rows[1].contains("heap peak B") && rows[1].ends_with("OVER"),
            "{long}"
        );
        assert!(long.lines().all(|l| l.chars().count() <= 50), "{long}");
        assert!(
            long.contains("b: heap peak bytes: leaked 16 bytes\n"),
            "{long}"
        );
    }

    #[test]
    fn budgets_for_a_benchmark_no_suite_ran_are_named_with_a_suggestion() {
        let config = rho_config::ModuleConfig::from_str(
            "bench:\n  benchmarks:\n    bench_crc_46:\n      budgets:\n        max_ns_per_op: 100\n",
            std::path::Path::new("module.yml"),
        )
        .unwrap();
        let judgement = |names: &[&str]| Judgement {
            enforcement: rho_judge::budget::Enforcement::decide(1.0, true),
            benchmarks: names
                .iter()
                .map(|n| rho_judge::budget::BenchJudgement {
                    name: n.to_string(),
                    checks: Vec::new(),
                })
                .collect(),
            growth: Vec::new(),
            families: Vec::new(),
        };
        let ran = [
            ("a.c".to_string(), judgement(&["bench_crc_64"])),
            ("b.c".to_string(), judgement(&["bench_sort"])),
        ];
        assert_eq!(
            unmatched_budgets(&config, "host", &ran),
            [
                "module.yml:3:5: benchmark 'bench_crc_46' has budgets but no suite ran it; did you mean \
              'bench_crc_64'?"
            ]
        );
        let right = [("a.c".to_string(), judgement(&["bench_crc_46"]))];
        assert!(unmatched_budgets(&config, "host", &right).is_empty());
    }
}
