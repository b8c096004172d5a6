//! One suite on several targets, side by side ([`rho_stats::targets::TargetComparison`]): one small table per
//! benchmark (each target's primary figure, relative to the first target's, its stack, heap and code size), then
//! each target's geometric mean of the relative figures, as Embench compares cores. Within 100 columns for the
//! targets rho knows; as text and as Markdown.

use std::fmt::Write as _;

use rho_stats::targets::{PrimaryMetric, TargetComparison, TargetFigures};

use crate::layout::aligned_table;
use crate::numbers::format_count;
use crate::run::counter_label;

/// `instructions (QEMU icount)`, `cycles (systick)`, `ns (clock_gettime)`.
fn metric_label(metric: &PrimaryMetric) -> String {
    counter_label(&metric.kind, &metric.source)
}

fn bytes(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn relative(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"))
}

/// The cells of one target's row: target, figure, what it counts, relative, stack, heap peak, code.
fn row(cell: &TargetFigures) -> Vec<String> {
    vec![
        cell.target.clone(),
        cell.figure.map_or_else(|| "-".to_string(), format_count),
        cell.metric
            .as_ref()
            .map_or_else(|| "not run".to_string(), metric_label),
        relative(cell.relative),
        bytes(cell.stack_bytes),
        bytes(cell.heap_peak_bytes),
        bytes(cell.code_bytes),
    ]
}

const HEADER: [&str; 7] = [
    "target",
    "per iteration",
    "counting",
    "relative",
    "stack B",
    "heap peak B",
    "code B",
];

fn intro(comparison: &TargetComparison, source: &str) -> String {
    let reference = comparison.targets.first().map_or("", String::as_str);
    format!(
        "rho bench  {source}  on {} targets: {}\n\
         relative: the figure / {reference}'s (the first target), when both count the same (below 1: fewer)\n",
        comparison.targets.len(),
        comparison.targets.join(", ")
    )
}

/// The comparison as text: the intro, one table per benchmark, the geometric means.
pub fn render_text(comparison: &TargetComparison, source: &str) -> String {
    let mut out = intro(comparison, source);
    for bench in &comparison.benchmarks {
        let _ = writeln!(out, "\n{}", bench.name);
        let mut rows = vec![HEADER.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
        rows.extend(bench.cells.iter().map(row));
        out.push_str(&aligned_table(&rows, |c| c == 0 || c == 2));
    }
    out.push_str(&geometric_means_text(comparison));
    out
}

fn geometric_means_text(comparison: &TargetComparison) -> String {
    let counted = comparison
        .geometric_means
        .iter()
        .map(|g| g.benchmarks)
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "\ngeometric mean of the relative figures (Embench-style), over the {counted} benchmarks every target \
         measured\n"
    );
    let mut rows = vec![vec!["target".to_string(), "geometric mean".to_string()]];
    rows.extend(
        comparison
            .geometric_means
            .iter()
            .map(|g| vec![g.target.clone(), relative(g.relative)]),
    );
    out.push_str(&aligned_table(&rows, |c| c == 0));
    out
}

/// The comparison as Markdown: a heading per benchmark with its table, and the geometric means.
pub fn render_markdown(comparison: &TargetComparison, source: &str) -> String {
    let cell = |text: &str| crate::markdown::escape(text);
    let reference = comparison.targets.first().map_or("", String::as_str);
    let mut out = format!(
        "### rho bench {} on {}\n\nrelative: the figure / {}'s (the first target), when both count the same \
         (below 1: fewer)\n",
        cell(source),
        comparison
            .targets
            .iter()
            .map(|t| cell(t))
            .collect::<Vec<_>>()
            .join(", "),
        cell(reference)
    );
    for bench in &comparison.benchmarks {
        let _ = writeln!(out, "\n#### {}\n", cell(&bench.name));
        let _ = writeln!(out, "| {} |", HEADER.join(" | "));
        let _ = writeln!(out, "| --- | ---: | --- | ---: | ---: | ---: | ---: |");
        for target in &bench.cells {
            let cells: Vec<String> = row(target).iter().map(|c| cell(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
    let _ = writeln!(
        out,
        "\n#### Geometric mean of the relative figures (Embench-style)\n\n| target | geometric mean | benchmarks |\n| --- | ---: | ---: |"
    );
    for mean in &comparison.geometric_means {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            cell(&mean.target),
            relative(mean.relative),
            mean.benchmarks
        );
    }
    out
}

/// Each suite side by side on the targets that ran it, in the first target's order of suites: `runs` is each
/// target's name with its suites' summaries (`(suite, summary)`). Returns the text tables, the Markdown ones
/// and each suite's comparison.
pub fn side_by_side(
    runs: &[(&str, &[(String, rho_stats::RunSummary)])],
) -> (String, String, Vec<(String, TargetComparison)>) {
    let mut suites: Vec<&String> = Vec::new();
    for (_, summaries) in runs {
        for (what, _) in summaries.iter() {
            if !suites.contains(&what) {
                suites.push(what);
            }
        }
    }
    let mut text = String::new();
    let mut markdown = String::new();
    let mut across = Vec::new();
    for what in suites {
        let on_targets: Vec<(String, &rho_stats::RunSummary)> = runs
            .iter()
            .filter_map(|(target, summaries)| {
                summaries
                    .iter()
                    .find(|(w, _)| w == what)
                    .map(|(_, summary)| (target.to_string(), summary))
            })
            .collect();
        let comparison = rho_stats::targets::compare(&on_targets);
        text.push('\n');
        text.push_str(&render_text(&comparison, what));
        markdown.push_str(&render_markdown(&comparison, what));
        markdown.push('\n');
        across.push((what.clone(), comparison));
    }
    (text, markdown, across)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_stats::RunSummary;

    fn stream(target: &str, crc: u64) -> String {
        let mut text = format!(
            "@rho-bench 5\n@target {target} arch=armv7e-m optimized=1\n\
             @clock cycles systick unit=cycle hz=25000000 resolution=1\n\
             @config iterations=3 warmup=0 time_cap_ms=0 stack_bytes=2048 stack_guard=mpu\n\
             @bench .overhead\n:10\n:10\n:10\n@stack 100\n\
             @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
             @end .overhead iterations=3 warmup=0 capped=0 unit=iter per_iteration=1 batch=1\n"
        );
        for (name, figure) in [("bench_crc", crc + 10), ("bench_steady", 210)] {
            let _ = write!(
                text,
                "@bench {name}\n:{figure}\n:{figure}\n:{figure}\n@stack 264\n\
                 @heap peak=64 live=0 allocs=3 frees=3 free_errors=0\n\
                 @end {name} iterations=3 warmup=0 capped=0 unit=iter per_iteration=1 batch=1\n"
            );
        }
        text.push_str("@done benchmarks=2 dropped=0\n");
        text
    }

    fn comparison() -> TargetComparison {
        let first =
            RunSummary::of(&rho_wire::parse_str(&stream("mps2-an386", 1000)).unwrap()).unwrap();
        let second =
            RunSummary::of(&rho_wire::parse_str(&stream("mps2-an500", 4000)).unwrap()).unwrap();
        rho_stats::targets::compare(&[
            ("mps2-an386".to_string(), &first),
            ("mps2-an500".to_string(), &second),
        ])
    }

    #[test]
    fn each_benchmark_is_a_table_of_targets_relative_to_the_first_with_a_geometric_mean() {
        let comparison = comparison();
        let crc = &comparison.benchmarks[0];
        assert_eq!(crc.name, "bench_crc");
        assert_eq!(crc.cells[0].figure, Some(1000.0));
        assert_eq!(crc.cells[1].relative, Some(4.0));
        assert_eq!(crc.cells[1].stack_bytes, Some(264));
        assert_eq!(crc.cells[1].heap_peak_bytes, Some(64));
        // bench_crc 4x, bench_steady 1x: the geometric mean is 2.
        let mean = comparison.geometric_means[1].relative.unwrap();
        assert!((mean - 2.0).abs() < 1e-9, "{mean}");
        assert_eq!(comparison.geometric_means[0].relative, Some(1.0));

        let text = render_text(&comparison, "crypto_bench.c");
        assert!(
            text.contains("on 2 targets: mps2-an386, mps2-an500"),
            "{text}"
        );
        let row = text
            .lines()
            .skip_while(|l| *l != "bench_crc")
            .find(|l| l.starts_with("mps2-an500"))
            .unwrap();
        assert!(row.contains("4000") && row.contains("4.000"), "{row}");
        assert!(row.contains("cycles (systick)"), "{row}");
        assert!(text.contains("Embench"), "{text}");
        for line in text.lines() {
            assert!(
                line.chars().count() <= 100,
                "{} columns: {line}",
                line.len()
            );
        }
        let markdown = render_markdown(&comparison, "crypto_bench.c");
        assert!(
            markdown.contains("| mps2-an500 | 4000 | cycles (systick) | 4.000 | 264 | 64 | - |"),
            "{markdown}"
        );
        assert!(
            markdown.contains("| mps2-an500 | 2.000 | 2 |"),
            "{markdown}"
        );
    }
}
