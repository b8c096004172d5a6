//! A `--diff` comparison (and `rho bench compare`'s) as a person reads it: a text table for a terminal,
//! Markdown for a pull-request comment.

use std::fmt::Write as _;

use rho_stats::Metric;

use rho_baseline::format::Figure;
use rho_compare::compare::{Comparison, MetricComparison, Presence, Value, Verdict, metric_unit};

use crate::markdown::{code, escape};
use crate::numbers::{format_limit_percent, format_percent_change};

/// A value as a report prints it.
pub fn format_value(value: Value) -> String {
    match value {
        Value::Figure(v) => Figure(v).to_string(),
        Value::Overrun => "overrun".to_string(),
        Value::Off => "not measured".to_string(),
        Value::Absent => "-".to_string(),
    }
}

/// A head figure as a report prints it: as measured, or, judged relative to a machine that moved, the
/// adjusted figure and what was measured (`1120 (measured 2240)`).
pub fn format_head(row: &MetricComparison) -> String {
    match (row.head, row.adjusted) {
        (Value::Figure(v), Some(adjusted)) => format!(
            "{} (measured {})",
            adjusted_figure(v),
            Figure(adjusted.measured)
        ),
        (head, _) => format_value(head),
    }
}

/// An adjusted figure (a quotient, never a clock's reading) to as many places as a reader can use.
fn adjusted_figure(value: f64) -> String {
    if value.abs() >= 100.0 {
        format!("{value:.0}")
    } else if value.abs() >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// A change as a report prints it: `+4.2%`, `-12.0%`, `0.0%`; when the base was 0 and head is not,
/// `below resolution` for a clocked metric (a net figure the overhead clamped to 0) and `from 0` for an exact
/// one, never an infinite percentage.
pub fn format_change(row: &MetricComparison) -> String {
    match row.change_percent {
        Some(change) => format_percent_change(change),
        None => match (row.base, row.head) {
            (Value::Figure(_), Value::Figure(_)) => {
                let clocked = matches!(row.metric, Metric::Cycles | Metric::TimeNs);
                rho_judge::zero_base_label(clocked).to_string()
            }
            _ => "-".to_string(),
        },
    }
}

/// The metric's column label with its unit (`cycles (tsc cycle)`, `time_ns`, `stack_bytes`).
fn metric_label(comparison: &Comparison, metric: Metric) -> String {
    match metric {
        Metric::Cycles => format!("cycles ({})", metric_unit(metric, &comparison.head)),
        other => other.name().to_string(),
    }
}

/// The one-line summary of the verdict counts.
pub fn summary_line(comparison: &Comparison) -> String {
    let c = comparison.counts();
    let mut parts = vec![format!("{} regressed", c.regressed)];
    let grew = comparison
        .families()
        .iter()
        .filter(|f| f.verdict == rho_compare::growth::GrowthVerdict::Regressed)
        .count();
    if grew > 0 {
        parts.push(format!(
            "{grew} family growth{} regressed",
            if grew == 1 { "" } else { "s" }
        ));
    }
    if c.not_measured > 0 {
        parts.push(format!("{} not measured", c.not_measured));
    }
    parts.push(format!("{} improved", c.improved));
    parts.push(format!("{} ok", c.ok));
    if c.shown > 0 {
        parts.push(format!("{} shown", c.shown));
    }
    let added = comparison
        .benchmarks
        .iter()
        .filter(|b| b.presence == Presence::Added)
        .count();
    let removed = comparison
        .benchmarks
        .iter()
        .filter(|b| b.presence == Presence::Removed)
        .count();
    if added > 0 {
        parts.push(format!("{added} benchmark(s) added"));
    }
    if removed > 0 {
        parts.push(format!("{removed} benchmark(s) removed"));
    }
    let instructions = comparison.benchmarks.iter().any(|b| {
        b.metrics
            .iter()
            .any(|m| m.metric == rho_stats::Metric::Instructions)
    });
    let instructions_limit = comparison.benchmarks.first().map_or(
        rho_compare::compare::DEFAULT_INSTRUCTIONS_LIMIT_PERCENT,
        |b| b.instructions_limit_percent,
    );
    format!(
        "{} (metrics judged on their own; limit +{}%{})",
        parts.join(", "),
        format_limit_percent(comparison.limit_percent),
        if instructions {
            format!(
                ", instructions +{}%",
                format_limit_percent(instructions_limit)
            )
        } else {
            String::new()
        }
    )
}

/// The header lines both renderings share: what was compared with what.
fn context_lines(comparison: &Comparison, base_name: &str) -> Vec<String> {
    let head = &comparison.head;
    let cycles = head
        .clocks
        .cycles
        .as_ref()
        .map(|c| format!("{} {}s", c.name, c.unit));
    let time = match head.time_source {
        rho_baseline::format::TimeSource::TimeClock => head
            .clocks
            .time
            .as_ref()
            .map(|c| format!("ns by {}", c.name)),
        rho_baseline::format::TimeSource::DerivedFromCycles => head
            .clocks
            .cycles
            .as_ref()
            .map(|c| format!("ns derived from {}", c.name)),
        rho_baseline::format::TimeSource::None => None,
    };
    let instructions = head
        .instructions
        .as_ref()
        .map(|source| format!("instructions counted by {source}"));
    let clocks: Vec<String> = cycles.into_iter().chain(time).chain(instructions).collect();
    vec![
        format!(
            "base: {base_name}, recorded {} by {}",
            comparison.base.recorded_at, comparison.base.tool
        ),
        format!(
            "target {} ({}); {}",
            comparison.target,
            head.arch,
            if clocks.is_empty() {
                "no clocks".to_string()
            } else {
                clocks.join(", ")
            }
        ),
        "figures are net medians per iteration, stack and heap peak exact".to_string(),
    ]
}

/// The comparison as a text table, one row per benchmark and metric, in suite order, with a summary line.
pub fn render_text(comparison: &Comparison, base_name: &str) -> String {
    render_text_within(comparison, base_name, usize::MAX)
}

/// [`render_text`] with its table fitted to `width` columns where it can be: when a row would be wider (a long
/// benchmark name), each benchmark's name goes on a line of its own and its metrics' rows under it, indented.
/// The context lines above the table are left as they are, for the caller to wrap.
pub fn render_text_within(comparison: &Comparison, base_name: &str, width: usize) -> String {
    let mut rows: Vec<(&str, [String; 5])> = Vec::new();
    for bench in &comparison.benchmarks {
        for row in &bench.metrics {
            rows.push((
                &bench.name,
                [
                    metric_label(comparison, row.metric),
                    format_value(row.base),
                    format_head(row),
                    format_change(row),
                    verdict_text(row),
                ],
            ));
        }
        for extra in &bench.extra {
            let mut cells = extra_cells(extra);
            cells[4] = verdict_word(extra.verdict, false);
            rows.push((&bench.name, cells));
        }
    }
    let header = ["metric", "base", "head", "change", "verdict"].map(String::from);
    let flat: Vec<Vec<String>> = std::iter::once(
        std::iter::once("benchmark".to_string())
            .chain(header.iter().cloned())
            .collect(),
    )
    .chain(rows.iter().map(|(name, cells)| {
        std::iter::once(name.to_string())
            .chain(cells.iter().cloned())
            .collect()
    }))
    .collect();
    let mut table = aligned(&flat, |i| (2..=4).contains(&i));
    if table.iter().any(|line| line.chars().count() > width) {
        // Too wide: the names on lines of their own, the metrics under them.
        let mut grouped: Vec<Vec<String>> = vec![
            std::iter::once("benchmark / metric".to_string())
                .chain(header.iter().skip(1).cloned())
                .collect(),
        ];
        let mut names = Vec::new();
        let mut last = None;
        for (name, cells) in &rows {
            if last != Some(*name) {
                names.push((grouped.len(), *name));
                last = Some(*name);
            }
            let mut row = cells.to_vec();
            row[0] = format!("  {}", row[0]);
            grouped.push(row);
        }
        let lines = aligned(&grouped, |i| (1..=3).contains(&i));
        table = Vec::with_capacity(lines.len() + names.len());
        let mut names = names.into_iter().peekable();
        for (index, line) in lines.into_iter().enumerate() {
            if let Some((_, name)) = names.next_if(|(at, _)| *at == index) {
                table.push(name.to_string());
            }
            table.push(line);
        }
    }
    let mut out = String::new();
    for line in context_lines(comparison, base_name) {
        let _ = writeln!(out, "{line}");
    }
    out.push('\n');
    for line in table {
        let _ = writeln!(out, "{line}");
    }
    out.push('\n');
    for bench in comparison
        .benchmarks
        .iter()
        .filter(|b| !b.functions.is_empty())
    {
        let _ = writeln!(out, "{}: the functions that changed most", bench.name);
        for line in crate::profile::text_lines_in(&bench.functions, bench.functions_unit()) {
            let _ = writeln!(out, "{line}");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{}", summary_line(comparison));
    for line in note_lines(comparison) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The lines under the summary: which time figure was judged, what was left out and why (one line each), and
/// a drift of the whole machine.
pub fn note_lines(comparison: &Comparison) -> Vec<String> {
    let mut lines = Vec::new();
    let on_cpu = comparison
        .benchmarks
        .iter()
        .filter(|b| b.time_judged().contains(&rho_stats::Metric::CpuNs))
        .count();
    if on_cpu > 0 {
        let compared = comparison
            .benchmarks
            .iter()
            .filter(|b| !b.time_judged().is_empty())
            .count();
        let who = if on_cpu == compared {
            "every benchmark".to_string()
        } else {
            format!("{on_cpu} of {compared} benchmarks")
        };
        lines.push(format!(
            "time judged: cpu_ns for {who} (CPU time, which a neighbour taking the core does not \
             stretch); their cycles and time_ns are shown, not judged"
        ));
    }
    if !comparison.left_out.is_empty() {
        let what: Vec<String> = comparison.left_out.iter().map(|l| l.sentence()).collect();
        lines.push(format!("left out: {}", what.join("; ")));
    }
    // The machine's yardstick: said when it moved, or when a side has none (time judged as measured).
    lines.extend(
        comparison
            .machine
            .iter()
            .filter(|m| m.moved())
            .map(|m| m.sentence()),
    );
    if let Some(why) = &comparison.unadjusted {
        lines.push(format!("yardstick: {why}"));
    }
    if let Some(drift) = &comparison.drift {
        lines.push(format!("drift: {}", drift.sentence()));
    }
    lines.extend(comparison.families().iter().map(|f| f.sentence()));
    lines
}

/// `rows` aligned in columns two spaces apart (the one layout of every text table, crate::layout), with no
/// rule: the columns `right` says right-aligned (figures), the others left-aligned (names and words).
fn aligned(rows: &[Vec<String>], right: impl Fn(usize) -> bool) -> Vec<String> {
    crate::layout::laid_out(rows, &|i| !right(i), false, usize::MAX)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Regressions shout in a terminal; everything else is a plain word.
fn verdict_text(row: &MetricComparison) -> String {
    verdict_word(row.verdict, row.within_resolution)
}

/// `verdict` as the terminal table says it; an ok change `within_resolution` of the clock says so.
fn verdict_word(verdict: Verdict, within_resolution: bool) -> String {
    match verdict {
        Verdict::Regressed => "REGRESSED".to_string(),
        Verdict::NotMeasured => "NOT MEASURED".to_string(),
        Verdict::Ok if within_resolution => format!("ok ({})", within_resolution_note()),
        other => other.label().to_string(),
    }
}

/// What a change no bigger than the clock can tell from no change is called (see `compare::Floors`).
fn within_resolution_note() -> String {
    format!(
        "within {} clock steps",
        rho_compare::compare::RESOLUTION_STEPS
    )
}

/// The comparison as Markdown for a pull-request comment: failures first (regressions, then metrics that
/// lost their measurement), then improvements, then added and removed benchmarks; the unchanged metrics
/// folded into a `<details>` block.
pub fn render_markdown(comparison: &Comparison, base_name: &str) -> String {
    let counts = comparison.counts();
    let mut out = String::new();
    let headline = if comparison.failed() {
        let mut what = Vec::new();
        if counts.regressed > 0 {
            what.push(format!("{} regression(s)", counts.regressed));
        }
        if counts.not_measured > 0 {
            what.push(format!("{} metric(s) not measured", counts.not_measured));
        }
        let grew = comparison
            .families()
            .iter()
            .filter(|f| f.verdict == rho_compare::growth::GrowthVerdict::Regressed)
            .count();
        if grew > 0 {
            what.push(format!("{grew} family growth regression(s)"));
        }
        format!(":x: {}", what.join(", "))
    } else {
        ":white_check_mark: no regression".to_string()
    };
    let _ = writeln!(
        out,
        "### rho bench: `{}` against the baseline: {headline}\n",
        code(&comparison.target)
    );
    for line in context_lines(comparison, base_name) {
        let _ = writeln!(out, "{}  ", escape(&line));
    }
    out.push('\n');

    let mut ordered: Vec<(&str, &MetricComparison)> = comparison.rows().collect();
    // Stable sort: within each verdict, suite order is kept.
    ordered.sort_by_key(|(_, row)| row.verdict);
    let (unchanged, shown): (Vec<_>, Vec<_>) = ordered
        .into_iter()
        .partition(|(_, row)| matches!(row.verdict, Verdict::Ok | Verdict::Shown));

    if shown.is_empty() {
        let _ = writeln!(out, "No metric moved beyond the limit.\n");
    } else {
        table(&mut out, comparison, &shown, true);
        out.push('\n');
    }
    if !unchanged.is_empty() {
        let _ = writeln!(
            out,
            "<details><summary>{} metric(s) within the limit</summary>\n",
            unchanged.len()
        );
        table(&mut out, comparison, &unchanged, false);
        let _ = writeln!(out, "\n</details>\n");
    }
    extra_table(&mut out, comparison);
    for bench in comparison
        .benchmarks
        .iter()
        .filter(|b| !b.functions.is_empty())
    {
        let _ = writeln!(
            out,
            "{}",
            crate::profile::markdown_in(
                &crate::html::escape(&bench.name),
                &bench.functions,
                bench.functions_unit()
            )
        );
    }
    let _ = writeln!(out, "{}", escape(&summary_line(comparison)));
    for line in note_lines(comparison) {
        let _ = writeln!(out, "\n{}", escape(&line));
    }
    out
}

fn table(
    out: &mut String,
    comparison: &Comparison,
    rows: &[(&str, &MetricComparison)],
    with_verdict: bool,
) {
    if with_verdict {
        let _ = writeln!(
            out,
            "| verdict | benchmark | metric | base | head | change |"
        );
        let _ = writeln!(out, "| --- | --- | --- | ---: | ---: | ---: |");
    } else {
        let _ = writeln!(out, "| benchmark | metric | base | head | change |");
        let _ = writeln!(out, "| --- | --- | ---: | ---: | ---: |");
    }
    for (name, row) in rows {
        let cells = format!(
            "`{}` | {} | {} | {} | {} |",
            code(name),
            escape(&metric_label(comparison, row.metric)),
            format_value(row.base),
            format_head(row),
            if row.within_resolution {
                format!("{} ({})", format_change(row), within_resolution_note())
            } else {
                format_change(row)
            }
        );
        if with_verdict {
            let _ = writeln!(out, "| {} | {cells}", markdown_verdict(row.verdict));
        } else {
            let _ = writeln!(out, "| {cells}");
        }
    }
}

/// An extra figure's cells: its name with its unit (`bytes_per_second (B/s, higher)`: a rate's direction said),
/// base, head, change and verdict label.
fn extra_cells(extra: &rho_compare::extra::ExtraComparison) -> [String; 5] {
    let mut label = extra.name.clone();
    let higher = extra.better == rho_stats::Better::Higher;
    match (extra.unit.as_str(), higher) {
        ("", false) => {}
        (unit, false) if unit == extra.name => {}
        ("", true) => label.push_str(" (higher)"),
        (unit, true) if unit == extra.name => label.push_str(" (higher)"),
        (unit, true) => label.push_str(&format!(" ({unit}, higher)")),
        (unit, false) => label.push_str(&format!(" ({unit})")),
    }
    let change = match (extra.change_percent, extra.base, extra.head) {
        (Some(change), _, _) => format_percent_change(change),
        (None, Value::Figure(_), Value::Figure(_)) => rho_judge::zero_base_label(false).to_string(),
        _ => "-".to_string(),
    };
    [
        label,
        compact_value(extra.base),
        compact_value(extra.head),
        change,
        extra.verdict.label().to_string(),
    ]
}

/// An extra figure as a report prints it: a rate of billions as `2.877e9`, not its seventeen digits (the
/// baseline keeps them all); anything smaller as [`format_value`] prints it, to three decimals.
fn compact_value(value: Value) -> String {
    match value {
        Value::Figure(v) if v.abs() >= 1e6 => format!("{v:.3e}"),
        Value::Figure(v) => format_value(Value::Figure((v * 1000.0).round() / 1000.0)),
        other => format_value(other),
    }
}

/// The other harness's figures besides time, as a Markdown table with their verdicts (none: nothing).
fn extra_table(out: &mut String, comparison: &Comparison) {
    let mut rows = comparison.extra_rows().peekable();
    if rows.peek().is_none() {
        return;
    }
    let _ = writeln!(
        out,
        "Other figures of the harness, each judged in its own direction:\n"
    );
    let _ = writeln!(
        out,
        "| verdict | benchmark | figure | base | head | change |"
    );
    let _ = writeln!(out, "| --- | --- | --- | ---: | ---: | ---: |");
    for (name, extra) in rows {
        let [label, base, head, change, _] = extra_cells(extra);
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {base} | {head} | {change} |",
            markdown_verdict(extra.verdict),
            code(name),
            escape(&label)
        );
    }
    out.push('\n');
}

fn markdown_verdict(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Regressed => ":x: **regressed**",
        Verdict::NotMeasured => ":x: **not measured**",
        Verdict::Improved => ":rocket: improved",
        Verdict::Ok => "ok",
        Verdict::Shown => "shown (cpu_ns judged)",
        Verdict::Added => ":heavy_plus_sign: added",
        Verdict::Removed => ":heavy_minus_sign: removed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_baseline::fixture;
    use rho_baseline::format::{Figure, Stack};
    use rho_compare::compare::compare;

    #[test]
    fn the_text_shows_the_measured_and_the_adjusted_figure_and_says_the_machine_moved() {
        let base = fixture::with_yardstick(fixture::section("host"), 1.14, 0.44);
        let head = fixture::with_yardstick(fixture::uniformly_slower("host", 2.0), 2.28, 0.88);
        let text = render_text(&compare(&base, &head, 10.0).unwrap(), "b");
        assert!(text.contains("2657 (measured 5314)"), "{text}");
        assert!(text.contains("the machine moved: yardstick"), "{text}");
        // Within the yardstick's noise (4%): judged as measured, and nothing said of the machine.
        let head = fixture::with_yardstick(
            fixture::uniformly_slower("host", 1.04),
            1.14 * 1.04,
            0.44 * 1.04,
        );
        let text = render_text(&compare(&base, &head, 10.0).unwrap(), "b");
        assert!(!text.contains("machine moved"), "{text}");
    }

    /// crc_64 twice as slow, crc_256 a third faster, malloc_free's stack lost, a benchmark renamed.
    fn mixed() -> Comparison {
        let base = fixture::section("host");
        let mut head = fixture::section("host");
        head.benchmarks[1].cycles.as_mut().unwrap().median = Figure(3740.0);
        head.benchmarks[2].cycles.as_mut().unwrap().median = Figure(5136.0);
        head.benchmarks[3].stack_bytes = Stack::Overrun;
        head.benchmarks[0].name = "bench_nothing".to_string();
        compare(&base, &head, 5.0).unwrap()
    }

    /// Another harness's rate that halved is a REGRESSED row of its benchmark in the text and a failing row
    /// of the Markdown's table of other figures; the comparison fails on it alone.
    #[test]
    fn an_extra_figure_that_regressed_is_a_row_of_its_benchmark() {
        let rate = |value: f64| {
            vec![rho_baseline::format::ExtraFigure {
                name: "bytes_per_second".to_string(),
                unit: "B/s".to_string(),
                better: rho_stats::Better::Higher,
                value: Figure(value),
            }]
        };
        let mut base = fixture::section("host");
        let mut head = fixture::section("host");
        base.benchmarks[1].extra = rate(3.7149e8);
        head.benchmarks[1].extra = rate(1.9623e8);
        let comparison = compare(&base, &head, 10.0).unwrap();
        assert!(comparison.failed());
        assert_eq!(comparison.counts().regressed, 1);
        let text = render_text(&comparison, "base");
        let row = text
            .lines()
            .find(|l| l.contains("bytes_per_second"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            row.starts_with("bench_crc_64")
                && row.contains("(B/s, higher)")
                && row.contains("3.715e8")
                && row.contains("-47.2%")
                && row.ends_with("REGRESSED"),
            "{row}"
        );
        let markdown = render_markdown(&comparison, "base");
        assert!(
            markdown.contains(
                "| :x: **regressed** | `bench_crc_64` | bytes\\_per\\_second (B/s, higher) |"
            ),
            "{markdown}"
        );
    }

    #[test]
    fn markdown_puts_failures_first_and_folds_what_is_within_the_limit() {
        let text = render_markdown(&mixed(), "bench/baseline.json at HEAD (0123456789)");
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| :")).collect();
        let verdicts: Vec<&str> = rows
            .iter()
            .map(|r| r.split(" | ").next().unwrap())
            .collect();
        let first_added = verdicts.iter().position(|v| v.contains("added")).unwrap();
        assert!(
            verdicts[0].contains("**regressed**") && rows[0].contains("`bench_crc_64`"),
            "{text}"
        );
        assert!(
            verdicts[1].contains("**not measured**") && rows[1].contains("`bench_malloc_free`"),
            "{text}"
        );
        assert!(
            verdicts[2].contains("improved") && rows[2].contains("`bench_crc_256`"),
            "{text}"
        );
        assert!(
            verdicts[first_added..]
                .iter()
                .all(|v| v.contains("added") || v.contains("removed"))
        );
        assert!(
            text.contains(":x: 1 regression(s), 1 metric(s) not measured"),
            "{text}"
        );
        let (shown, folded) = text.split_once("<details>").unwrap();
        assert!(
            !shown.contains("| `bench_crc_64` | time\\_ns"),
            "an ok metric is not in the main table"
        );
        assert!(folded.contains("| `bench_crc_64` | time\\_ns"), "{text}");
        assert!(folded.contains("</details>"));
    }

    #[test]
    fn the_text_table_names_every_metric_with_its_verdict() {
        let text = render_text(&mixed(), "bench/baseline.json at HEAD (0123456789)");
        let row = |bench: &str, metric: &str| {
            text.lines()
                .find(|l| l.starts_with(bench) && l.contains(metric))
                .unwrap_or_else(|| panic!("no {bench} {metric} row in\n{text}"))
                .to_string()
        };
        assert!(
            row("bench_crc_64 ", "cycles (tsc cycle)").ends_with("+100.0%  REGRESSED"),
            "{text}"
        );
        assert!(
            row("bench_crc_256", "cycles").ends_with("-33.3%  improved"),
            "{text}"
        );
        assert!(
            row("bench_malloc_free", "stack_bytes").contains("overrun"),
            "{text}"
        );
        assert!(
            row("bench_malloc_free", "stack_bytes").ends_with("NOT MEASURED"),
            "{text}"
        );
        assert!(row("bench_nothing", "cycles").ends_with("added"), "{text}");
        assert!(row("bench_empty", "cycles").ends_with("removed"), "{text}");
        assert!(
            text.contains("1 regressed, 1 not measured, 1 improved"),
            "{text}"
        );
        assert!(
            text.contains("1 benchmark(s) added, 1 benchmark(s) removed"),
            "{text}"
        );
    }

    /// Too wide for its width (long names), the table puts each benchmark's name on a line of its own and
    /// its metrics under it: no row is longer than the width, none is split, every verdict stays on its row.
    #[test]
    fn a_table_too_wide_puts_the_names_on_lines_of_their_own() {
        let base = "bench/baseline.json at HEAD (0123456789)";
        let wide = render_text(&mixed(), base);
        let table_width = |text: &str| {
            text.lines()
                .skip_while(|l| !l.is_empty())
                .take_while(|l| !l.starts_with(|c: char| c.is_ascii_digit()))
                .map(|l| l.chars().count())
                .max()
                .unwrap_or(0)
        };
        let full = table_width(&wide);
        assert_eq!(render_text_within(&mixed(), base, full), wide);
        let narrow = render_text_within(&mixed(), base, full - 1);
        assert!(table_width(&narrow) < full, "{narrow}");
        let lines: Vec<&str> = narrow.lines().collect();
        let at = lines
            .iter()
            .position(|l| *l == "bench_crc_64")
            .unwrap_or_else(|| panic!("no name line in\n{narrow}"));
        assert!(
            lines[at + 1].starts_with("  cycles (tsc cycle)")
                && lines[at + 1].ends_with("+100.0%  REGRESSED"),
            "{narrow}"
        );
        assert!(lines.contains(&"bench_malloc_free"), "{narrow}");
        assert!(
            narrow
                .lines()
                .any(|l| l.starts_with("  stack_bytes") && l.ends_with("NOT MEASURED")),
            "{narrow}"
        );
        assert!(
            narrow.starts_with(&wide[..wide.find("\n\n").unwrap()]),
            "the context is unchanged"
        );
    }

    /// Drift and what was left out are said under the summary, in text, Markdown and the JSON record; a
    /// single regression says no drift.
    #[test]
    fn drift_and_what_was_left_out_are_said_in_every_rendering() {
        let base = fixture::section("host");
        let uniform = fixture::uniformly_slower("host", 1.5);
        let c = compare(&base, &uniform, 10.0).unwrap();
        let text = render_text(&c, "b");
        let line = text
            .lines()
            .find(|l| l.starts_with("drift: "))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            line.starts_with(
                "drift: every benchmark is 50% slower (time_ns): the machine, not the code?"
            ),
            "{line}"
        );
        assert!(line.contains("the verdict is unchanged"), "{line}");
        let markdown = render_markdown(&c, "b");
        assert!(
            markdown.contains("drift: every benchmark is 50% slower"),
            "{markdown}"
        );
        let record =
            serde_json::to_value(rho_compare::json::ComparisonRecord::of(&c, "b")).unwrap();
        assert_eq!(record["drift"]["direction"], "slower", "{record}");
        assert_eq!(record["drift"]["moved"], 3, "{record}");
        assert!((record["drift"]["factor"].as_f64().unwrap() - 1.5).abs() < 1e-9);
        assert_eq!(record["left_out"], serde_json::json!([]));

        let mut single = fixture::section("host");
        single.benchmarks[2].time_ns.as_mut().unwrap().median = Figure(2657.0 * 1.5);
        let c = compare(&base, &single, 10.0).unwrap();
        assert!(!render_text(&c, "b").contains("drift"));
        let record =
            serde_json::to_value(rho_compare::json::ComparisonRecord::of(&c, "b")).unwrap();
        assert!(record["drift"].is_null());

        // A run that only counted, against a baseline of time only: the clocks left out, on one line.
        let mut counted = fixture::section("host");
        counted.context.clocks = rho_baseline::format::Clocks {
            cycles: None,
            time: None,
        };
        counted.context.time_source = rho_baseline::format::TimeSource::None;
        counted.context.instructions = Some("callgrind".to_string());
        for bench in &mut counted.benchmarks {
            (bench.cycles, bench.time_ns, bench.instructions) = (None, None, Some(100));
            bench.stack_bytes = Stack::Bytes(400);
        }
        let c = rho_compare::compare::compare_sections(
            &base.clone().into(),
            &counted.into(),
            10.0,
            &|_, _| 10.0,
        )
        .unwrap();
        assert!(!c.failed());
        let text = render_text(&c, "b");
        let left: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("left out: "))
            .collect();
        assert_eq!(left.len(), 1, "{text}");
        assert!(
            left[0].starts_with("left out: cycles, time_ns: this run counted"),
            "{text}"
        );
        let record =
            serde_json::to_value(rho_compare::json::ComparisonRecord::of(&c, "b")).unwrap();
        assert_eq!(
            record["left_out"][0]["metrics"],
            serde_json::json!(["cycles", "time_ns"])
        );
    }

    /// A figure from 0 has no percentage: `from 0` for an exact metric (a first heap byte), `below
    /// resolution` for a clocked one (a net figure the overhead clamped to 0), never "+inf%".
    #[test]
    fn a_change_from_zero_is_worded_never_infinite() {
        let mut base = fixture::section("host");
        base.benchmarks[1].cycles.as_mut().unwrap().median = Figure(0.0);
        let mut head = fixture::section("host");
        head.benchmarks[1].heap_peak_bytes = Some(16);
        head.benchmarks[1].cycles.as_mut().unwrap().median = Figure(677.0);
        let c = compare(&base, &head, 5.0).unwrap();
        let bench = c.benchmark("bench_crc_64").unwrap();
        let row = |metric: Metric| bench.metrics.iter().find(|m| m.metric == metric).unwrap();
        assert_eq!(format_change(row(Metric::HeapPeakBytes)), "from 0");
        assert_eq!(format_change(row(Metric::Cycles)), "below resolution");
        let text = render_text(&c, "bench/baseline.json");
        assert!(!text.contains("inf"), "{text}");
    }

    /// Where both sides carry CPU time, the notes say it was judged in place of the wall clock.
    #[test]
    fn the_notes_say_when_cpu_time_was_judged() {
        let mut base = fixture::section("host");
        for bench in &mut base.benchmarks {
            bench.cpu_ns = bench.time_ns;
        }
        let c = compare(&base, &base, 10.0).unwrap();
        let notes = note_lines(&c);
        assert!(
            notes
                .iter()
                .any(|l| l.starts_with("time judged: cpu_ns for every benchmark")),
            "{notes:?}"
        );
    }
}
