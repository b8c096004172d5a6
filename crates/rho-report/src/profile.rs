//! A benchmark's functions (`rho bench --profile NAME`) and, where a benchmark regressed, the functions whose
//! instructions changed (rho-profile's lists, laid out): as text under a comparison's or a gate's table, as a
//! collapsed Markdown block in a pull-request comment, and the cells the HTML page's table shows.

use rho_profile::Functions;
use rho_profile::diff::{COUNTED_UNIT, FunctionChange, Sides};
use rho_profile::perf::Sampling;
use rho_stats::RunSummary;

use crate::numbers::{format_signed, format_whole};

/// Why `--profile NAME` has no table to print.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("--profile {name}: the suite has no benchmark of that name (it ran: {ran})")]
    NoBenchmark { name: String, ran: String },
    #[error(
        "--profile {name}: no per-function figures: perf record could not sample the timed loop; run it \
         again with --measure instructions (exact counts under Valgrind's Callgrind)"
    )]
    NotCounted { name: String },
    #[error(
        "--profile {name}: a board's instructions are counted by QEMU per loop, with no per-function \
         figures (docs/gate.md, \"Why it got slower\"); the host's --measure instructions names them"
    )]
    Board { name: String },
    #[error("--profile {name}: this run kept no functions (--functions 0)")]
    NoneKept { name: String },
}

/// Benchmark `name`'s table of functions in `summary`.
pub fn profile_table(summary: &RunSummary, name: &str) -> Result<String, ProfileError> {
    let Some(bench) = summary.benchmark(name) else {
        return Err(ProfileError::NoBenchmark {
            name: name.to_string(),
            ran: summary
                .benchmarks
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let Some(instructions) = &bench.instructions else {
        // Timed: the functions perf record sampled, when it could.
        return match &bench.sampled_functions {
            Some(functions) => Ok(table(name, functions)),
            None => Err(ProfileError::NotCounted {
                name: name.to_string(),
            }),
        };
    };
    match &instructions.functions {
        Some(functions) => Ok(table(name, functions)),
        None if [rho_stats::QEMU_ICOUNT, rho_stats::QEMU_PLUGIN]
            .contains(&instructions.source.as_str()) =>
        {
            Err(ProfileError::Board {
                name: name.to_string(),
            })
        }
        None => Err(ProfileError::NoneKept {
            name: name.to_string(),
        }),
    }
}

/// One benchmark's table (`rho bench --profile NAME`): each listed function's own and inclusive
/// instructions per iteration and where it is, then the rest; a sampled list's shares and estimated ns.
pub fn table(bench: &str, functions: &Functions) -> String {
    if let Some(sampling) = &functions.sampling {
        return sampled_table(bench, functions, sampling);
    }
    let mut out = format!(
        "{bench}: instructions per iteration by function ({}, net of the harness)\n{:>12} {:>12}  function\n",
        functions.source, "self", "inclusive"
    );
    for function in &functions.listed {
        let place = match (&function.file, function.line) {
            (Some(file), Some(line)) => format!("  {file}:{line}"),
            (Some(file), None) => format!("  {file}"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "{:>12} {:>12}  {}{place}\n",
            format_whole(function.self_per_iteration),
            format_whole(function.inclusive_per_iteration),
            function.name
        ));
    }
    if functions.other.functions > 0 {
        out.push_str(&format!(
            "{:>12} {:>12}  ({} other functions)\n",
            format_whole(functions.other.self_per_iteration),
            "",
            functions.other.functions
        ));
    }
    out
}

/// A sampled list as `--profile NAME` prints it: each function's share of the loop's samples, own and
/// inclusive, and the share as nanoseconds per iteration of the timed run; marked sampled in its heading.
fn sampled_table(bench: &str, functions: &Functions, sampling: &Sampling) -> String {
    let share = |ns: f64| {
        if sampling.ns_per_iteration > 0.0 {
            ns / sampling.ns_per_iteration * 100.0
        } else {
            0.0
        }
    };
    let mut out = format!(
        "{bench}: time by function, sampled ({} {} samples of the measured loop by perf record; estimates, \
         not counts)\n{:>7} {:>7} {:>12} {:>12}  function\n",
        sampling.samples, sampling.event, "self", "incl.", "self ns/it", "incl. ns/it"
    );
    for function in &functions.listed {
        out.push_str(&format!(
            "{:>6.1}% {:>6.1}% {:>12.1} {:>12.1}  {}\n",
            share(function.self_per_iteration),
            share(function.inclusive_per_iteration),
            function.self_per_iteration,
            function.inclusive_per_iteration,
            function.name
        ));
    }
    if functions.other.functions > 0 {
        out.push_str(&format!(
            "{:>6.1}% {:>7} {:>12.1} {:>12}  ({} other functions)\n",
            share(functions.other.self_per_iteration),
            "",
            functions.other.self_per_iteration,
            "",
            functions.other.functions
        ));
    }
    out
}

/// The self and inclusive cells of `change`'s row, `BASE ARROW HEAD (CHANGE)` each (`-` for a side without
/// the function): one layout for the text (`->`), Markdown (`→`) and HTML (`&#8594;`) tables.
pub fn cells(change: &FunctionChange, arrow: &str) -> [String; 2] {
    let cell = |pick: fn(Sides) -> f64, moved: f64| {
        format!(
            "{} {arrow} {} ({})",
            side_text(change.base, pick),
            side_text(change.head, pick),
            format_signed(moved)
        )
    };
    [
        cell(|s| s.own, change.own_change()),
        cell(|s| s.inclusive, change.inclusive_change()),
    ]
}

fn side_text(side: Option<Sides>, pick: fn(Sides) -> f64) -> String {
    side.map_or_else(|| "-".to_string(), |s| format_whole(pick(s)))
}

/// The changes as text lines (indented under the benchmark they belong to), columns as wide as their widest
/// cell.
pub fn text_lines(changes: &[FunctionChange]) -> Vec<String> {
    text_lines_in(changes, COUNTED_UNIT)
}

/// [`text_lines`] of figures in `unit` ([`COUNTED_UNIT`] or [`rho_profile::diff::SAMPLED_UNIT`]).
pub fn text_lines_in(changes: &[FunctionChange], unit: &str) -> Vec<String> {
    let mut rows = vec![[
        format!("function ({unit})"),
        "self base -> head".to_string(),
        "inclusive base -> head".to_string(),
        String::new(),
    ]];
    for change in changes {
        let [own, inclusive] = cells(change, "->");
        rows.push([
            change.name.clone(),
            own,
            inclusive,
            change.presence().unwrap_or("").to_string(),
        ]);
    }
    let width = |column: usize| {
        rows.iter()
            .map(|r| r[column].chars().count())
            .max()
            .unwrap_or(0)
    };
    let (name, own, inclusive) = (width(0), width(1), width(2));
    rows.iter()
        .map(|[n, o, i, p]| {
            format!("  {n:<name$}  {o:>own$}  {i:>inclusive$}  {p}")
                .trim_end()
                .to_string()
        })
        .collect()
}

/// The changes as a collapsed Markdown block for a pull-request comment, under benchmark `bench` (the
/// block's summary is HTML: the caller escapes it as such, `rho_report::html::escape`).
pub fn markdown(bench: &str, changes: &[FunctionChange]) -> String {
    markdown_in(bench, changes, COUNTED_UNIT)
}

/// [`markdown`] of figures in `unit`.
pub fn markdown_in(bench: &str, changes: &[FunctionChange], unit: &str) -> String {
    // Counted is what a reader expects; only sampled figures say so in the summary.
    let marked = if unit == COUNTED_UNIT {
        String::new()
    } else {
        format!(" ({unit})")
    };
    let mut out = format!(
        "<details><summary>{bench}: the functions that changed most{marked}</summary>\n\n\
         | function | self base → head | inclusive base → head | |\n| --- | --- | --- | --- |\n"
    );
    for change in changes {
        let [own, inclusive] = cells(change, "→");
        out.push_str(&format!(
            "| `{}` | {own} | {inclusive} | {} |\n",
            crate::markdown::code(&change.name),
            change.presence().unwrap_or("")
        ));
    }
    out.push_str("\n</details>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_profile::diff::changes;
    use rho_profile::net::{FunctionFigures, Other};

    fn function(name: &str, own: f64, inclusive: f64) -> FunctionFigures {
        FunctionFigures {
            name: name.to_string(),
            file: None,
            line: None,
            self_per_iteration: own,
            inclusive_per_iteration: inclusive,
            calls: Vec::new(),
        }
    }

    fn functions(listed: Vec<FunctionFigures>) -> Functions {
        Functions {
            source: "callgrind".to_string(),
            listed,
            other: Other::default(),
            sampling: None,
        }
    }

    /// A helper that stopped being inlined (100 own instructions, only in head) and the kernel it left (100 own
    /// to 5): both rows in the text lines and in the collapsed Markdown block, its name in a code span.
    #[test]
    fn the_changed_functions_are_laid_out_as_text_and_markdown() {
        let base = functions(vec![
            function("bench", 10.0, 110.0),
            function("kernel", 100.0, 100.0),
        ]);
        let head = functions(vec![
            function("bench", 10.0, 115.0),
            function("kernel", 5.0, 105.0),
            function("helper|x", 100.0, 100.0),
        ]);
        let changed = changes(&base, &head, 10);
        let text = text_lines(&changed).join("\n");
        assert!(
            text.contains("helper|x")
                && text.contains("- -> 100 (+100)")
                && text.contains("only in head"),
            "{text}"
        );
        assert!(text.contains("100 -> 5 (-95)"), "{text}");
        let md = markdown("bench", &changed);
        assert!(
            md.starts_with("<details><summary>bench:")
                && md.contains("| `helper\\|x` | - → 100 (+100)")
                && md.ends_with("</details>\n"),
            "{md}"
        );
        let table = table("bench", &head);
        assert!(
            table.starts_with("bench: instructions per iteration by function (callgrind")
                && table.contains("           5          105  kernel\n"),
            "{table}"
        );
    }
}
