//! The gate's text as a person reads it: the table of metrics (base, head, change, budget, noise, verdict),
//! the warnings about noise and about budgets that judge nothing, and the lines under the table (runs per
//! benchmark, paired rounds). The gate's JSON line is data, written by rho-gate (`rho_gate::json`).

use rho_gate::compare::{Comparison, MetricComparison, MetricOutcome, runs_per_benchmark};
use rho_gate::settings::Budgets;

use crate::numbers::{format_change_near, format_fraction, format_gate_figure};

fn verdict_cell(metric: &MetricComparison) -> String {
    match &metric.outcome {
        MetricOutcome::Ok if metric.shown => "shown".to_owned(),
        MetricOutcome::Ok if metric.within_resolution => "ok (within 2 clock steps)".to_owned(),
        MetricOutcome::Ok => "ok".to_owned(),
        MetricOutcome::Regressed => "REGRESSED".to_owned(),
        MetricOutcome::Undecided(why) => format!("undecided: {why}"),
    }
}

/// The table: metric, base, head, change, budget, noise (base/head), verdict. Base and head are each side's
/// minimum over its runs.
pub fn render_table(comparison: &Comparison) -> String {
    render_table_within(comparison, usize::MAX)
}

/// [`render_table`] fitted to `width` columns where it can be: when a row would be wider (a long benchmark
/// name), each benchmark's name goes on a line of its own and its metrics' rows under it, indented.
pub fn render_table_within(comparison: &Comparison, width: usize) -> String {
    let header = [
        "metric",
        "base",
        "head",
        "change",
        "budget",
        "noise b/h",
        "verdict",
    ];
    let mut rows: Vec<[String; 7]> = Vec::with_capacity(comparison.metrics.len());
    for m in &comparison.metrics {
        // A growth metric reads as its class (O(n^2)), not as the figure that orders the classes.
        let side = |s: Option<rho_gate::compare::SideFigures>| {
            s.map_or_else(
                || "-".to_owned(),
                |s| match rho_gate::growth_metrics::growth_class(&m.name, s.min) {
                    Some(class) => class.to_string(),
                    None => format_gate_figure(s.min),
                },
            )
        };
        let noise = |s: Option<rho_gate::compare::SideFigures>| {
            s.map_or_else(|| "-".to_owned(), |s| format_fraction(s.noise()))
        };
        rows.push([
            m.name.clone(),
            side(m.base),
            side(m.head),
            match (m.change(), m.zero_base_text()) {
                (Some(c), _) => format_change_near(c, m.budget),
                (None, Some(text)) => text.to_owned(),
                (None, None) => "-".to_owned(),
            },
            format_fraction(m.budget),
            format!("{}/{}", noise(m.base), noise(m.head)),
            verdict_cell(m),
        ]);
    }
    let flat: Vec<Vec<String>> = std::iter::once(header.map(String::from).to_vec())
        .chain(rows.iter().map(|row| row.to_vec()))
        .collect();
    let table = aligned(&flat);
    if table.lines().all(|l| l.chars().count() <= width) {
        return table;
    }
    // Too wide: each benchmark's name (what comes before a metric name's last dot) on a line of its own, its
    // metrics under it.
    let mut grouped: Vec<Vec<String>> = vec![flat[0].clone()];
    let mut names = Vec::new();
    let mut last = None;
    for row in &rows {
        let (group, leaf) = row[0].rsplit_once('.').unwrap_or((row[0].as_str(), ""));
        if last != Some(group) {
            names.push((grouped.len(), group.to_owned()));
            last = Some(group);
        }
        let mut cells = row.to_vec();
        cells[0] = format!("  {leaf}");
        grouped.push(cells);
    }
    let mut names = names.into_iter().peekable();
    let mut out = String::new();
    for (index, line) in aligned(&grouped).lines().enumerate() {
        if let Some((_, name)) = names.next_if(|(at, _)| *at == index) {
            out.push_str(&name);
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `rows` (the header first) in columns two spaces apart (the one layout of every text table, crate::layout),
/// with no rule: the first and last (names, verdicts) left-aligned, the figures between right-aligned.
fn aligned(rows: &[Vec<String>]) -> String {
    let last = rows.first().map_or(0, Vec::len).saturating_sub(1);
    crate::layout::laid_out(rows, &|i| i == 0 || i == last, false, usize::MAX)
}

/// One warning per metric whose noise exceeds its budget.
pub fn noise_warnings(comparison: &Comparison) -> Vec<String> {
    comparison
        .noisy()
        .map(|m| {
            let noise = [m.base, m.head]
                .iter()
                .flatten()
                .map(|s| s.noise())
                .fold(0.0, f64::max);
            format!(
                "warning: {}: its runs were {} apart, more than its budget of {}; such a verdict means \
                 little (run on an idle machine, raise --runs, or give the metric more room)",
                m.name,
                format_fraction(noise),
                format_fraction(m.budget)
            )
        })
        .collect()
}

/// One warning per metric named in `budgets` that no side reported: a budget that judges nothing is most
/// likely a typo (`--budget matmul_sn=0.2`) or a metric that was renamed, and would otherwise be ignored
/// without a word.
pub fn unmatched_budget_warnings(comparison: &Comparison, budgets: &Budgets) -> Vec<String> {
    let names: Vec<&str> = comparison.metrics.iter().map(|m| m.name.as_str()).collect();
    budgets
        .named()
        .filter(|(metric, _)| !names.contains(metric))
        .map(|(metric, fraction)| {
            let mut shown: Vec<&str> = names.iter().copied().take(8).collect();
            if names.len() > shown.len() {
                shown.push("...");
            }
            format!(
                "warning: the budget of {metric} ({}) matches no metric of either side, so it judges nothing \
                 (the metrics are: {})",
                format_fraction(fraction),
                shown.join(", ")
            )
        })
        .collect()
}

/// The lines that say which figures were shown, not judged (`compare::ShownRule`): wall-clock
/// figures beside the CPU time judged in their place, and CPU times a side lacks beside the wall clock
/// judged; empty when none was.
pub fn shown_line(comparison: &Comparison) -> String {
    let names = |cpu: bool| -> Vec<&str> {
        comparison
            .metrics
            .iter()
            .filter(|m| m.shown && rho_gate::compare::is_cpu_time(&m.name) == cpu)
            .map(|m| m.name.as_str())
            .collect()
    };
    let mut text = String::new();
    let wall = names(false);
    if !wall.is_empty() {
        text.push_str(&format!(
            "time judged: each benchmark's cpu_ns (CPU time, which a neighbour taking the core does not \
             stretch); shown, not judged: {}\n",
            wall.join(", ")
        ));
    }
    let cpu = names(true);
    if !cpu.is_empty() {
        text.push_str(&format!(
            "time judged on the wall clock: a CPU time missing from a side or some of its runs (samples too \
             short for the CPU clock, or other threads at work) is shown, not judged: {}\n",
            cpu.join(", ")
        ));
    }
    text
}

/// The line that says [`runs_per_benchmark`]: `runs per benchmark: a 3, b 7` (`3/4` when the sides differ).
pub fn runs_per_benchmark_line(comparison: &Comparison) -> String {
    let parts: Vec<String> = runs_per_benchmark(comparison)
        .into_iter()
        .map(|(name, base, head)| {
            if base == head {
                format!("{name} {base}")
            } else {
                format!("{name} {base}/{head}")
            }
        })
        .collect();
    format!("runs per benchmark (per side): {}\n", parts.join(", "))
}

/// The line that gives each time metric's paired ratio (rho-stats' `paired_ratio`), the figure its verdict
/// came from: `paired rounds (head / base, 95% interval): a.ns 1.02x (0.99 to 1.05, 4 rounds)`; empty when
/// no metric had two rounds.
pub fn paired_line(comparison: &Comparison) -> String {
    let parts: Vec<String> = comparison
        .metrics
        .iter()
        .filter_map(|m| {
            let p = m.paired?;
            Some(format!(
                "{} {:.3}x ({:.3} to {:.3}, {} rounds)",
                m.name, p.ratio, p.low, p.high, p.rounds
            ))
        })
        .collect();
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "paired rounds (head / base, {:.0}% interval): {}\n",
        rho_stats::PAIRED_CONFIDENCE * 100.0,
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_gate::compare::compare;
    use rho_gate::fixture::{run, sample};
    use rho_gate::settings::Budgets;

    /// A base the overhead clamped to 0 (bench_b.cycles, read off a clock) and a first heap byte: no
    /// percentage for either, never "+inf%".
    #[test]
    fn a_base_of_zero_is_below_resolution_or_from_0_never_an_infinite_change() {
        let side = |cycles: f64, heap: f64| {
            let mut run = run(&[
                ("bench_b.cycles", cycles),
                ("bench_b.heap_peak_bytes", heap),
            ]);
            run.set_floor("bench_b.cycles", 2.0);
            [run.clone(), run]
        };
        let comparison = compare(&side(0.0, 0.0), &side(677.0, 64.0), &Budgets::default());
        let table = render_table(&comparison);
        assert!(!table.contains("inf"), "{table}");
        let row = |name: &str| {
            table
                .lines()
                .find(|l| l.starts_with(name))
                .unwrap()
                .to_owned()
        };
        assert!(
            row("bench_b.cycles").contains("below resolution"),
            "{table}"
        );
        assert!(row("bench_b.heap_peak_bytes").contains("from 0"), "{table}");
    }

    #[test]
    fn the_paired_line_gives_each_time_metrics_ratio_and_interval() {
        assert!(
            paired_line(&sample()).starts_with(
                "paired rounds (head / base, 95% interval): matmul_ns 1.982x (1.768 to 2.222, 2 rounds)"
            ),
            "{}",
            paired_line(&sample())
        );
    }

    #[test]
    fn the_table_has_a_row_per_metric() {
        let table = render_table(&sample());
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with("metric"));
        assert!(lines.iter().any(|l| l.starts_with("matmul_ns")
            && l.contains("+100.0%")
            && l.contains("REGRESSED")));
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("new_ns") && l.contains("undecided: only on head"))
        );
    }

    /// Long benchmark names: at 100 columns each benchmark's name goes on a line of its own, its metrics under
    /// it, and no line is longer; unbounded, the table keeps a row per metric.
    #[test]
    fn a_table_too_wide_puts_the_benchmark_names_on_lines_of_their_own() {
        let long = "bench_a_rather_long_benchmark_name_for_the_width_of_the_gate_table";
        let metrics = |scale: f64| {
            run(&[
                (&format!("{long}.cycles_per_iter"), 800.0 * scale),
                (&format!("{long}.stack_bytes"), 96.0),
                ("bench_short.cycles_per_iter", 10.0),
            ])
        };
        let comparison = compare(
            &[metrics(1.0), metrics(1.0)],
            &[metrics(2.0), metrics(2.0)],
            &Budgets::default(),
        );
        let flat = render_table(&comparison);
        assert!(flat.lines().any(|l| l.chars().count() > 100), "{flat}");
        let fitted = render_table_within(&comparison, 100);
        let over: Vec<&str> = fitted.lines().filter(|l| l.chars().count() > 100).collect();
        assert!(over.is_empty(), "{fitted}");
        let lines: Vec<&str> = fitted.lines().collect();
        let at = lines.iter().position(|l| *l == long).expect(&fitted);
        let rows = &lines[at + 1..at + 3];
        assert!(
            rows.iter()
                .any(|l| l.starts_with("  cycles_per_iter") && l.ends_with("REGRESSED")),
            "{fitted}"
        );
        assert!(
            rows.iter().any(|l| l.starts_with("  stack_bytes")),
            "{fitted}"
        );
        assert!(lines.contains(&"bench_short"), "{fitted}");
    }

    #[test]
    fn noise_above_the_budget_is_warned_about() {
        let warnings = noise_warnings(&sample());
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("sum_ns") && warnings[0].contains("means little"));
    }

    #[test]
    fn a_budget_for_no_metric_is_warned_about() {
        let mut budgets = Budgets::default();
        budgets.set("matmul_ns", 0.4).unwrap();
        budgets.set("matmul_sn", 0.2).unwrap();
        budgets.set("default", 0.25).unwrap();
        let warnings = unmatched_budget_warnings(&sample(), &budgets);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("matmul_sn (20.0%)"), "{warnings:?}");
        assert!(
            warnings[0].contains("matmul_ns, new_ns, sum_ns"),
            "{warnings:?}"
        );
    }
}
