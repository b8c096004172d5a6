//! A run as Markdown (`rho bench show RUN.json --markdown FILE`): a heading naming what ran and where, then
//! one table row per benchmark and measured metric, for a pull-request comment or a wiki page.

use std::fmt::Write as _;

use rho_stats::{BenchSummary, ClockFigures, RunSummary};

use crate::numbers::{exact_figure, format_count, format_rate, format_spread};
use crate::run::{column_label, instructions_label, stack_cell};

/// Text made safe inside a Markdown table cell: `|` and the characters that start inline markup are escaped,
/// `<` and `>` written as entities, line breaks as spaces.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Text made safe inside a code span (`` `name` ``) of a Markdown table cell: a code span shows its text as
/// it is (no entity, no backslash is read there), so only what would end it (a backtick, written `'`) or the
/// cell (`|`, which GitHub reads before the span) is changed.
pub fn code(text: &str) -> String {
    text.replace('|', "\\|").replace('`', "'")
}

/// The run's per-benchmark figures as Markdown. `source` names what ran (the suite's files).
pub fn render(summary: &RunSummary, source: &str) -> String {
    let target = &summary.target;
    let mut out = format!(
        "### {}\n\nTarget {} ({}), {}; per iteration, net of the measuring overhead.\n\n",
        escape(source),
        escape(&target.name),
        escape(&target.arch),
        if target.optimized {
            "optimized"
        } else {
            "**not optimized**"
        }
    );
    out.push_str(
        "| benchmark | metric | median | p99 | spread | stack bytes | heap peak bytes | rate |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for bench in &summary.benchmarks {
        let rows = metric_rows(bench);
        let stack = stack_cell(bench);
        let heap = match bench.heap {
            Some(_) if bench.overran => "-".to_string(),
            None => "-".to_string(),
            Some(heap) if bench.leaked => format!("{} (leaked {})", heap.peak, heap.live),
            Some(heap) => heap.peak.to_string(),
        };
        let rate = bench.ops_per_second.map_or("-".to_string(), |rate| {
            format!("{} {}/s", format_rate(rate), escape(&bench.unit))
        });
        if rows.is_empty() {
            let why = if bench.overran {
                "stopped: stack overran"
            } else {
                "not measured"
            };
            let _ = writeln!(
                out,
                "| {} | {why} | - | - | - | {stack} | {heap} | {rate} |",
                escape(&bench.name)
            );
        }
        for (index, [label, median, p99, spread]) in rows.iter().enumerate() {
            let (name, stack, heap, rate) = if index == 0 {
                (
                    escape(&bench.name),
                    stack.as_str(),
                    heap.as_str(),
                    rate.as_str(),
                )
            } else {
                (String::new(), "", "", "")
            };
            let _ = writeln!(
                out,
                "| {name} | {label} | {median} | {p99} | {spread} | {stack} | {heap} | {rate} |"
            );
        }
    }
    if summary
        .benchmarks
        .iter()
        .any(|b| b.heap.is_none() && !b.overran)
    {
        let _ = writeln!(out, "\n{}", crate::run::HEAP_OFF_NOTE);
    }
    out.push_str(&crate::growth::render_markdown(summary));
    out
}

/// One `[label, median, p99, spread]` per measured metric of `bench`: its clocks, then its instructions.
fn metric_rows(bench: &BenchSummary) -> Vec<[String; 4]> {
    let clock_row = |f: &ClockFigures| {
        let p99 = if f.net.p99_is_informative() {
            exact_figure(f.per_iteration.p99, f.net.p99, f.batch)
        } else {
            "-".to_string()
        };
        [
            escape(&column_label(&f.clock, f.derived)),
            exact_figure(f.per_iteration.median, f.net.median, f.batch),
            p99,
            format_spread(&f.net),
        ]
    };
    let mut rows: Vec<[String; 4]> = [bench.cycles.as_ref(), bench.time.as_ref()]
        .into_iter()
        .flatten()
        .map(clock_row)
        .collect();
    if let Some(instructions) = &bench.instructions {
        rows.push([
            escape(&instructions_label(instructions)),
            format_count(instructions.per_iteration.max(0.0)),
            "-".to_string(),
            "-".to_string(),
        ]);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_cells_cannot_break_the_table_or_inject_markup() {
        assert_eq!(escape("a|b"), "a\\|b");
        assert_eq!(escape("<script>"), "&lt;script&gt;");
        assert_eq!(escape("bench_x*"), "bench\\_x\\*");
        assert_eq!(escape("two\nlines"), "two lines");
        assert_eq!(code("a|b<c>`d`"), "a\\|b<c>'d'");
    }
}
