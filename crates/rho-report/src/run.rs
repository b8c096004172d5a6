//! The text report of one run: a header saying where the figures came from and how they were measured, then
//! the per-benchmark table in suite order. By default the table has one row per benchmark (the first clock's
//! median, p99 and spread, stack, heap peak, rate) and the prose wraps at [`Layout::width`], so the report
//! fits a 100-column terminal; [`Layout::wide`] gives every clock and statistic, as wide as they make it.

use std::fmt::Write as _;

use rho_stats::{
    BenchSummary, ClockFigures, ClockInfo, CpuLeftOut, InstructionFigures, OverheadFigures,
    RunSummary, Summary,
};
use rho_wire::{ClockRole, StackMark};

use crate::layout::{Layout, aligned_table, laid_out, wrap};
use crate::numbers::{
    exact_figure, format_count, format_hz, format_iqr_ratio, format_mean, format_ms, format_rate,
    format_spread,
};

/// A header line: `label` in a 10-column margin, then `text` wrapped at `width` under the margin.
fn labelled(out: &mut String, label: &str, text: &str, width: usize) {
    out.push_str(&wrap(&format!("{label:<10}{text}"), width, 10));
}

/// Render the report in the default layout (100 columns, one row per benchmark). `source` names what ran
/// (the suite's files).
pub fn render(summary: &RunSummary, source: &str) -> String {
    render_with(summary, source, Layout::default())
}

/// Render the report in `layout`.
pub fn render_with(summary: &RunSummary, source: &str, layout: Layout) -> String {
    let mut out = String::new();
    header(&mut out, summary, source, layout.width);
    out.push('\n');
    if layout.wide {
        table(&mut out, summary, layout.width);
    } else {
        compact_table(&mut out, summary, layout.width);
    }
    footprint_table(&mut out, summary, layout.width);
    extra_table(&mut out, summary);
    let growth = crate::growth::render_text(summary, layout);
    if !growth.is_empty() {
        out.push('\n');
        out.push_str(&growth);
    }
    out
}

/// Warnings a run deserves on stderr (not part of the report itself).
pub fn warnings(summary: &RunSummary) -> Vec<String> {
    let mut warnings = Vec::new();
    if summary.dropped > 0 {
        warnings.push(format!(
            "the suite had no room for {} benchmark{}; {} dropped (see the suite's capacity in rho/bench.h)",
            summary.dropped,
            plural(summary.dropped),
            if summary.dropped == 1 { "it was" } else { "they were" },
        ));
    }
    if summary.noise_lines > 0 {
        warnings.push(format!(
            "skipped {} line{} of the suite's output that {} not part of the wire stream",
            summary.noise_lines,
            plural(summary.noise_lines),
            if summary.noise_lines == 1 {
                "was"
            } else {
                "were"
            },
        ));
    }
    let region = summary
        .config
        .stack_bytes
        .map_or_else(String::new, |bytes| format!(" of {bytes} bytes"));
    for bench in &summary.benchmarks {
        if bench.overran {
            warnings.push(format!(
                "{}: stopped: its stack went below the painted region{region} into the guard under it, after {} \
                 measured iteration{}; it has no figures (a larger RHO_BENCH_STACK_BYTES gives it room)",
                bench.name,
                bench.iterations,
                plural(bench.iterations),
            ));
        }
        let Some(heap) = bench.heap else {
            continue;
        };
        if heap.free_errors > 0 {
            warnings.push(format!(
                "{}: {} free{} of more bytes than were live: RHO_BENCH_HEAP_FREE does not match the allocations \
                 (a harness-use error; the heap figures of this benchmark cannot be trusted)",
                bench.name,
                heap.free_errors,
                plural(heap.free_errors),
            ));
        }
        if bench.leaked {
            warnings.push(format!(
                "{}: LEAK: {} byte{} still live at the end ({} allocation{}, {} free{})",
                bench.name,
                heap.live,
                plural(heap.live),
                heap.allocs,
                plural(heap.allocs),
                heap.frees,
                plural(heap.frees),
            ));
        }
    }
    for bench in &summary.benchmarks {
        let measured = [bench.cycles.as_ref(), bench.time.as_ref()]
            .into_iter()
            .flatten()
            .map(|f| f.net.n)
            .min();
        if let Some(n) = measured.filter(|&n| n < Summary::MIN_N_FOR_P99) {
            let missing = if n < Summary::MIN_N_FOR_P95 {
                "its p95 and p99 are"
            } else {
                "its p99 is"
            };
            // A batched benchmark's samples are batches: say so, or "20000 iterations" and "only 15" disagree.
            // An imported run's batch is rho's bookkeeping of the harness's fractions (docs/import.md).
            let what = if bench.batch > 1 && summary.imported.is_none() {
                format!("sample{} (batches of {})", plural(n), bench.batch)
            } else if summary.imported.is_some() {
                format!("sample{}", plural(n))
            } else {
                format!("iteration{}", plural(n))
            };
            warnings.push(format!(
                "{}: only {n} measured {what}: {missing} just the max and shown as - (p95 needs {}, p99 {}; \
                 raise --iterations or the time cap)",
                bench.name,
                Summary::MIN_N_FOR_P95,
                Summary::MIN_N_FOR_P99,
            ));
        }
    }
    if !summary.target.optimized {
        warnings.push(
            "the harness was built without optimisation: these figures describe a debug build"
                .to_string(),
        );
    }
    warnings
}

fn plural(count: u64) -> &'static str {
    if count == 1 { "" } else { "s" }
}

fn header(out: &mut String, summary: &RunSummary, source: &str, width: usize) {
    let target = &summary.target;
    let first = format!(
        "rho bench  {source}  target {} ({}), {}{}",
        target.name,
        target.arch,
        if target.optimized {
            "optimized"
        } else {
            "NOT optimized"
        },
        target
            .compiler
            .as_deref()
            .map(|c| format!(", {c}"))
            .unwrap_or_default(),
    );
    // The source is a file name and the compiler a stream's (or a saved run's) field: escaped for the terminal.
    let first = rho_text::escape_line(&first);
    out.push_str(&wrap(&first, width, 11));

    let mut clock_lines: Vec<String> = summary.clocks.iter().map(describe_clock).collect();
    if let Some(derived) = summary
        .benchmarks
        .iter()
        .find_map(|b| b.time.as_ref().filter(|t| t.derived))
    {
        clock_lines.push(format!(
            "time: ns derived from {} (cycles * 1e9 / hz; the stream has no time clock), resolution {} ns",
            derived.clock.name, derived.clock.resolution
        ));
    }
    let counted = summary
        .benchmarks
        .iter()
        .find_map(|b| b.instructions.as_ref());
    if let Some(counted) = counted {
        clock_lines.push(describe_counter(counted));
        if counted.source == rho_stats::QEMU_ICOUNT || counted.source == rho_stats::QEMU_PLUGIN {
            clock_lines.push(
                "under QEMU -icount the cycles and ns above are virtual time (a fixed time per instruction), \
                 not the core's cycles: read the instructions"
                    .to_string(),
            );
        }
    }
    for (index, line) in clock_lines.iter().enumerate() {
        let label = if index == 0 { "clocks" } else { "" };
        labelled(out, label, line, width);
    }

    if let Some(counted) = counted.filter(|c| c.loop_total.is_some()) {
        let clocked: Vec<String> = summary.overhead.iter().map(describe_overhead).collect();
        let mut parts = clocked;
        if counted.source == rho_stats::QEMU_PLUGIN {
            // The plugin counts between the bodies' markers: the loop's own instructions are never counted.
            parts.push(format!(
                "{} instructions per iteration (qemu: the loop is outside the bodies' markers)",
                format_count(counted.overhead_per_iteration)
            ));
        } else {
            parts.push(format!(
                "{} instructions per iteration + {} per loop ({}, fitted from two empty loops)",
                format_count(counted.overhead_per_iteration),
                format_count(counted.overhead_per_loop),
                counted.source
            ));
        }
        labelled(
            out,
            "overhead",
            &format!("{}; the figures below are net of it", parts.join(", ")),
            width,
        );
    } else if summary.calibrated && !summary.overhead.is_empty() {
        let parts: Vec<String> = summary.overhead.iter().map(describe_overhead).collect();
        labelled(
            out,
            "overhead",
            &format!(
                "{} per empty measured iteration; the figures below are net of it (the JSON keeps raw and net)",
                parts.join(", ")
            ),
            width,
        );
    } else if let Some(tool) = &summary.imported {
        labelled(
            out,
            "overhead",
            &format!(
                "none taken off: the figures are {tool}'s own times per iteration (docs/import.md)"
            ),
            width,
        );
    } else {
        labelled(
            out,
            "overhead",
            "not calibrated (the stream has no .overhead block): the figures below are raw",
            width,
        );
    }

    let config = &summary.config;
    let mut run_line = match &summary.imported {
        Some(tool) => format!("iterations and warm-ups as {tool} chose them"),
        None => format!(
            "{} iteration{} and {} warm-up{} per benchmark asked for",
            config.iterations,
            plural(config.iterations),
            config.warmup,
            plural(config.warmup)
        ),
    };
    match config.time_cap_ms {
        Some(ms) => {
            let _ = write!(run_line, ", time cap {} of measured time", format_ms(ms));
        }
        None => run_line.push_str(", no time cap"),
    }
    match config.stack_bytes {
        Some(bytes) => {
            let _ = write!(run_line, ", stack region {bytes} bytes");
        }
        None => run_line.push_str(", stack not measured"),
    }
    if summary.repetitions > 1 {
        let _ = write!(run_line, ", best of {} runs", summary.repetitions);
    }
    labelled(out, "run", &run_line, width);
    if let Some(image) = &summary.image {
        labelled(
            out,
            "image",
            &format!(
                "text {} B, data {} B, bss {} B (the built image, as `size` counts it; from the footprint \
                 command)",
                image.text, image.data, image.bss
            ),
            width,
        );
    }
}

/// Another harness's figures besides time (an imported run's or another harness's suite's `extra`), one
/// row each: the benchmark, the figure's name and unit, its value and which way is better. Nothing when no
/// benchmark has any.
fn extra_table(out: &mut String, summary: &RunSummary) {
    let mut rows: Vec<Vec<String>> = vec![
        ["benchmark", "figure", "value", "better"]
            .map(String::from)
            .to_vec(),
    ];
    for bench in &summary.benchmarks {
        for extra in &bench.extra {
            let value = match extra.unit.as_str() {
                "" => format_rate(extra.value),
                unit if unit == extra.name => format_rate(extra.value),
                unit => format!("{} {unit}", format_rate(extra.value)),
            };
            let better = match (extra.better, extra.judged) {
                (rho_stats::Better::Lower, true) => "lower",
                (rho_stats::Better::Higher, true) => "higher",
                (rho_stats::Better::Lower, false) => "lower (shown only)",
                (rho_stats::Better::Higher, false) => "higher (shown only)",
            };
            rows.push(vec![
                bench.name.clone(),
                extra.name.clone(),
                value,
                better.to_string(),
            ]);
        }
    }
    if rows.len() == 1 {
        return;
    }
    out.push_str("\nthe harness's other figures (each the median of its samples; of several runs, the best run's):\n");
    out.push_str(&crate::layout::aligned_table(&rows, |i| i < 2));
}

/// The static footprint per benchmark, beside the measured stack mark: reachable code bytes and the static
/// stack bound (or why there is none). Only when the footprint command answered.
fn footprint_table(out: &mut String, summary: &RunSummary, width: usize) {
    if summary.benchmarks.iter().all(|b| b.footprint.is_none()) {
        return;
    }
    let above: Vec<String> = marks_above_bound(summary)
        .into_iter()
        .map(|(name, _, _)| name)
        .collect();
    let columns = ["benchmark", "code B", "stack bound B", "stack B"];
    let mut rows: Vec<[String; 4]> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for bench in &summary.benchmarks {
        let Some(footprint) = &bench.footprint else {
            rows.push([
                bench.name.clone(),
                "-".into(),
                "-".into(),
                stack_cell(bench),
            ]);
            continue;
        };
        let bound = match (footprint.static_stack_bytes, &footprint.unbounded) {
            (Some(bytes), _) => bytes.to_string(),
            (None, reason) => {
                if let Some(reason) = reason {
                    notes.push(format!("{}: unbounded: {reason}", bench.name));
                }
                "unbounded".to_string()
            }
        };
        let mut stack = stack_cell(bench);
        if above.contains(&bench.name) {
            stack.push_str(" ABOVE BOUND");
        }
        let code = footprint
            .code_bytes
            .map_or("-".to_string(), |b| b.to_string());
        rows.push([bench.name.clone(), code, bound, stack]);
    }
    out.push('\n');
    out.push_str(&wrap(
        "footprint (static: reachable code and the deepest call path's frames, harness frames included; the \
         stack B column is the measured mark)",
        width,
        0,
    ));
    let table: Vec<Vec<String>> = std::iter::once(columns.map(String::from).to_vec())
        .chain(rows.into_iter().map(Vec::from))
        .collect();
    out.push_str(&laid_out(&table, &|c| c == 0, false, width));
    if !above.is_empty() {
        notes.push(
            "ABOVE BOUND: the measured mark is above the static bound: the bound misses a frame (assembly, a \
             library function, an interrupt) or the stack overran"
                .to_string(),
        );
    }
    for note in notes {
        out.push_str(&wrap(&note, width, 2));
    }
}

/// The header line of the instruction counter.
fn describe_counter(figures: &InstructionFigures) -> String {
    if figures.source == rho_stats::QEMU_PLUGIN {
        "instructions: QEMU, with rho's counting plugin: the instructions of each iteration's body, between the \
         harness's markers, exact (a run of its own, built counting)"
            .to_string()
    } else if figures.loop_total.is_some() {
        format!(
            "instructions: {} (Valgrind) counting the instructions of each whole measured loop: exact, whatever \
             the machine's load (a run of its own, under Valgrind)",
            figures.source
        )
    } else {
        format!(
            "{}: exact instruction counts (the emulator's virtual clock advances a fixed time per instruction)",
            instructions_label(figures)
        )
    }
}

/// `instructions (callgrind)`, `instructions (QEMU icount)`.
pub(crate) fn instructions_label(figures: &InstructionFigures) -> String {
    counter_label("instructions", &figures.source)
}

/// A figure's kind and the counter it came from, as every table names them: `cycles (systick)`,
/// `instructions (callgrind)`, and QEMU's instruction counts by their names, `instructions (QEMU)` (rho's
/// plugin, exact) and `instructions (QEMU icount)` (from ticks, a suite the plugin cannot count).
pub(crate) fn counter_label(kind: &str, source: &str) -> String {
    if kind == "instructions" && source == rho_stats::QEMU_ICOUNT {
        "instructions (QEMU icount)".to_string()
    } else if kind == "instructions" && source == rho_stats::QEMU_PLUGIN {
        "instructions (QEMU)".to_string()
    } else {
        format!("{kind} ({source})")
    }
}

/// The seven statistic cells of an instruction row: a clock's statistics when it has samples, else the exact
/// figure as the median and nothing else (a whole-loop count has no distribution).
fn instruction_cells(figures: &InstructionFigures) -> [String; 7] {
    if let Some(samples) = &figures.samples {
        return stat_cells(samples);
    }
    let mut cells: [String; 7] = Default::default();
    cells[0] = format_count(figures.per_iteration.max(0.0));
    for cell in cells.iter_mut().skip(1) {
        *cell = "-".to_string();
    }
    cells
}

fn describe_clock(clock: &ClockInfo) -> String {
    let role = clock.role.word();
    let hz = match clock.hz {
        Some(hz) => format_hz(hz),
        None => "frequency unknown".to_string(),
    };
    format!(
        "{role}: {} counting {}, {hz}, resolution {}{}",
        clock.name,
        plural_unit(&clock.unit),
        amount(clock.resolution, &clock.unit),
        if clock.resolution > 1 {
            " (a shorter body reads 0)"
        } else {
            ""
        }
    )
}

/// `cycle` -> `cycles`; `ns` stays `ns`.
fn plural_unit(unit: &str) -> String {
    match unit {
        "cycle" | "tick" => format!("{unit}s"),
        other => other.to_string(),
    }
}

/// `52 cycles`, `1 cycle`, `20 ns`.
fn amount(value: u64, unit: &str) -> String {
    if value == 1 {
        format!("{value} {unit}")
    } else {
        format!("{value} {}", plural_unit(unit))
    }
}

fn describe_overhead(overhead: &OverheadFigures) -> String {
    format!(
        "{} {}",
        overhead.median,
        column_label(&overhead.clock, overhead.derived)
    )
}

/// The label that names a figure's unit and clock: `cycles (tsc)`, `ns (clock_gettime)`, `ns (derived, dwt)`.
pub(crate) fn column_label(clock: &ClockInfo, derived: bool) -> String {
    let unit = match (clock.role, clock.unit.as_str()) {
        (_, "cycle") => "cycles".to_string(),
        (_, "tick") => "ticks".to_string(),
        (_, unit) => unit.to_string(),
    };
    if derived {
        format!("{unit} (derived, {})", clock.name)
    } else {
        format!("{unit} ({})", clock.name)
    }
}

const COLUMNS: [&str; 15] = [
    "benchmark",
    "iterations",
    "per iteration (net)",
    "median",
    "mean",
    "p95",
    "p99",
    "max",
    "spread",
    "iqr/med",
    "stack B",
    "heap peak",
    "heap live",
    "ops/s",
    "ops/iter",
];

/// Columns aligned left (text); the others are numbers, aligned right.
const LEFT: [bool; 15] = [
    true, false, true, false, false, false, false, false, false, false, false, false, false, false,
    true,
];

/// The default table's columns: one row per benchmark.
const COMPACT_COLUMNS: [&str; 8] = [
    "benchmark",
    "iterations",
    "median",
    "p99",
    "spread",
    "stack B",
    "heap peak",
    "ops/s",
];

/// The clocks' figures of a benchmark, cycles first.
fn clock_figures(bench: &BenchSummary) -> Vec<&ClockFigures> {
    [
        bench.cycles.as_ref(),
        bench.time.as_ref(),
        bench.cpu.as_ref(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// One (label, cells) per metric row of a benchmark: the clocks', then the instructions'.
fn metric_rows(bench: &BenchSummary) -> Vec<(String, [String; 7])> {
    let mut rows: Vec<(String, [String; 7])> = clock_figures(bench)
        .iter()
        .map(|f| (column_label(&f.clock, f.derived), stat_cells(f)))
        .collect();
    if let Some(instructions) = &bench.instructions {
        rows.push((
            instructions_label(instructions),
            instruction_cells(instructions),
        ));
    }
    rows
}

/// The labels of a benchmark's metric rows, in `metric_rows`' order, without formatting their cells: the
/// caption and the notes read only these, and formatting every cell of 100,000 benchmarks for them was most of
/// a large import's report.
fn metric_labels(bench: &BenchSummary) -> impl Iterator<Item = String> + '_ {
    clock_figures(bench)
        .into_iter()
        .map(|f| column_label(&f.clock, f.derived))
        .chain(bench.instructions.as_ref().map(instructions_label))
}

/// Whether a benchmark has a metric row at all (`metric_rows` is not empty).
fn has_metric_rows(bench: &BenchSummary) -> bool {
    !clock_figures(bench).is_empty() || bench.instructions.is_some()
}

/// Why a benchmark has no figure row at all.
fn no_figures_reason(bench: &BenchSummary) -> &'static str {
    if bench.overran {
        "stopped: stack overran"
    } else if bench.cycles_wrapped > 0 {
        "cycles not measured"
    } else {
        "no clock"
    }
}

/// `20000`, `20096 x128` (timed in batches of 128), `2*` (stopped by the time cap). An imported run's are
/// the iterations its harness ran (its samples' batch is rho's own bookkeeping, docs/import.md), `-` when
/// its report does not say.
fn iterations_cell(summary: &RunSummary, bench: &BenchSummary) -> String {
    if summary.imported.is_some() {
        return match bench.iterations {
            0 => "-".to_string(),
            ran => ran.to_string(),
        };
    }
    let batch = clock_figures(bench)
        .first()
        .map_or(bench.batch, |f| f.batch);
    let mut iterations = bench.iterations.to_string();
    if batch > 1 {
        // `x64`: timed in batches of 64 iterations, one sample a batch.
        let _ = write!(iterations, " x{batch}");
    }
    if bench.capped {
        iterations.push('*');
    }
    iterations
}

/// The note under a table with a benchmark whose heap was not measured (`@heap off`), whose heap cells read
/// `-`.
pub(crate) const HEAP_OFF_NOTE: &str = "heap not measured: the harness did not count allocations (a rho_bench \
     suite without rho_bench::CountingAlloc as its #[global_allocator]); its heap cells read -";

/// The heap peak; what a stopped benchmark held when it was stopped is not a figure of it, and a heap not
/// measured has none.
fn heap_peak_cell(bench: &BenchSummary) -> String {
    match bench.heap {
        Some(heap) if !bench.overran => heap.peak.to_string(),
        _ => "-".to_string(),
    }
}

/// The heap still held at the end (`--wide`), flagged when it is a leak.
fn heap_live_cell(bench: &BenchSummary) -> String {
    match bench.heap {
        Some(heap) if !bench.overran && bench.leaked => format!("{} LEAK", heap.live),
        Some(heap) if !bench.overran => heap.live.to_string(),
        _ => "-".to_string(),
    }
}

/// Operations per second in the benchmark's unit, or why there is no rate.
fn rate_cell(bench: &BenchSummary) -> String {
    match bench.ops_per_second {
        Some(rate) => format!("{} {}/s", format_rate(rate), bench.unit),
        // Shorter than one step of every clock: no rate, and saying why beats a bare "-".
        None if bench.rate_figures().is_some_and(|f| f.below_resolution) => {
            "below resolution".to_string()
        }
        None => "-".to_string(),
    }
}

/// The full table (`--wide`): a row per clock and counter of each benchmark, every statistic.
fn table(out: &mut String, summary: &RunSummary, width: usize) {
    let mut rows: Vec<Vec<String>> = vec![COLUMNS.iter().map(|c| c.to_string()).collect()];
    for bench in &summary.benchmarks {
        let metric_rows = metric_rows(bench);
        let mut first = vec![bench.name.clone(), iterations_cell(summary, bench)];
        match metric_rows.first() {
            Some((label, cells)) => {
                first.push(label.clone());
                first.extend(cells.iter().cloned());
            }
            None => {
                first.push(no_figures_reason(bench).to_string());
                first.extend(std::iter::repeat_n(String::from("-"), 7));
            }
        }
        first.push(stack_cell(bench));
        first.push(heap_peak_cell(bench));
        first.push(heap_live_cell(bench));
        first.push(rate_cell(bench));
        first.push(format!("{} {}", bench.per_iteration, bench.unit));
        rows.push(first);
        for (label, stats) in metric_rows.iter().skip(1) {
            let mut cells = vec![String::new(), String::new(), label.clone()];
            cells.extend(stats.iter().cloned());
            cells.extend(std::iter::repeat_n(String::new(), 5));
            rows.push(cells);
        }
    }
    out.push_str(&aligned_table(&rows, |c| LEFT[c]));
    notes(out, summary, width, true);
}

/// The default table: one row per benchmark with the first metric's median, p99 and spread (and a second row
/// for counted instructions beside a clock), the stack mark, the heap peak and the rate. A benchmark whose
/// name would push the table past `width` gets a line of its own above its figures.
fn compact_table(out: &mut String, summary: &RunSummary, width: usize) {
    // The metric the caption names: the first benchmark's first row (cycles where there is a cycle clock).
    let primary = summary
        .benchmarks
        .iter()
        .find_map(|b| metric_labels(b).next());
    let others: Vec<String> = {
        let mut labels: Vec<String> = Vec::new();
        for bench in &summary.benchmarks {
            for label in metric_labels(bench) {
                if Some(&label) != primary.as_ref() && !labels.contains(&label) {
                    labels.push(label);
                }
            }
        }
        labels
    };
    if let Some(primary) = &primary {
        let mut caption = format!("figures per iteration, net of the overhead, in {primary}");
        let counted: Vec<&String> = others
            .iter()
            .filter(|l| l.starts_with("instructions"))
            .collect();
        if !counted.is_empty() && !primary.starts_with("instructions") {
            let _ = write!(
                caption,
                "; {} on each benchmark's second row",
                counted
                    .iter()
                    .map(|l| l.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let mut more: Vec<String> = others
            .iter()
            .filter(|l| !l.starts_with("instructions"))
            .cloned()
            .collect();
        more.push("mean, p95, max, iqr/med, heap live, ops per iteration".to_string());
        let _ = write!(caption, "; --wide adds {}", more.join(", "));
        out.push_str(&wrap(&caption, width, 0));
    }

    // Each body row, with the name it starts (continuation rows start none).
    let mut body: Vec<(Option<String>, Vec<String>)> = Vec::new();
    for bench in &summary.benchmarks {
        let rows = metric_rows(bench);
        let mut first = vec![bench.name.clone(), iterations_cell(summary, bench)];
        let mut rate = rate_cell(bench);
        match rows.first() {
            Some((label, cells)) => {
                first.extend([cells[0].clone(), cells[3].clone(), cells[5].clone()]);
                if Some(label) != primary.as_ref() {
                    // Another benchmark's first metric: say which, where the row has room.
                    let _ = write!(rate, "  [{label}]");
                }
            }
            None => {
                first.extend(std::iter::repeat_n(String::from("-"), 3));
                rate = no_figures_reason(bench).to_string();
            }
        }
        first.push(stack_cell(bench));
        let mut heap = heap_peak_cell(bench);
        if bench.leaked && !bench.overran {
            heap.push_str(" LEAK");
        }
        first.push(heap);
        first.push(rate);
        body.push((Some(bench.name.clone()), first));
        // Counted instructions beside a clock: asked for, so shown on a row of their own.
        for (label, cells) in rows.iter().skip(1) {
            if label.starts_with("instructions") {
                let mut row = vec![String::new(), String::new()];
                row.extend([cells[0].clone(), cells[3].clone(), cells[5].clone()]);
                // The caption names the counter; the row says only what it is.
                row.extend([String::new(), String::new(), "instructions".to_string()]);
                body.push((None, row));
            }
        }
    }
    let left = |c: usize| c == 0 || c == 7;
    let header: Vec<String> = COMPACT_COLUMNS.iter().map(|c| c.to_string()).collect();
    let mut rows = vec![header.clone()];
    rows.extend(body.iter().map(|(_, row)| row.clone()));
    let text = aligned_table(&rows, left);
    if text
        .lines()
        .all(|line| crate::layout::display_width(line) <= width)
    {
        out.push_str(&text);
    } else {
        // Too wide: the names go on lines of their own, the figures under them.
        let mut rows = vec![header];
        rows.extend(body.iter().map(|(_, row)| {
            let mut row = row.clone();
            row[0] = String::new();
            row
        }));
        let text = aligned_table(&rows, left);
        let mut lines = text.lines();
        for line in lines.by_ref().take(2) {
            let _ = writeln!(out, "{line}");
        }
        for ((name, _), line) in body.iter().zip(lines) {
            if let Some(name) = name {
                let _ = writeln!(out, "{name}");
            }
            let _ = writeln!(out, "{line}");
        }
    }
    notes(out, summary, width, false);
}

/// The notes under the table, for what it shows: the marks it used (`*`, `xK`, `-`, `>100%`, LEAK), the
/// benchmarks that have no figures, coarse clocks. `wide`: the table shows every clock and statistic.
/// `preempted: 12 measured sample(s) interrupted by the scheduler: 8 measured again (bench_a 8), 4 kept
/// (bench_b 4): ...`, when the harness counted any (wire version 7, `@end preempted=`; version 9, `rerun=`);
/// `None` otherwise.
fn preempted_note(summary: &RunSummary) -> Option<String> {
    let listed = |count: fn(&BenchSummary) -> u64| -> (u64, String) {
        let names: Vec<String> = summary
            .benchmarks
            .iter()
            .filter(|b| count(b) > 0)
            .map(|b| format!("{} {}", b.name, count(b)))
            .collect();
        let total = summary.benchmarks.iter().map(count).sum();
        (total, names.join(", "))
    };
    let (rerun, rerun_names) = listed(|b| b.rerun);
    let (kept, kept_names) = listed(|b| b.preempted);
    if rerun + kept == 0 {
        return None;
    }
    let mut parts = Vec::new();
    if rerun > 0 {
        parts.push(format!("{rerun} measured again ({rerun_names})"));
    }
    if kept > 0 {
        parts.push(format!(
            "{kept} kept ({kept_names}): their wall-clock figures hold time another thread had the core \
             (involuntary context switches); the CPU time does not"
        ));
    }
    Some(format!(
        "preempted: {} measured sample(s) interrupted by the scheduler: {}",
        rerun + kept,
        parts.join(", ")
    ))
}

/// `no CPU time: bench_a, bench_b: ...`, naming the benchmarks of a run with a CPU clock that have no CPU
/// time and why (`BenchSummary::cpu_left_out`); `None` when every one has it. The wide table shows the CPU
/// clock's row only for the others.
fn cpu_left_out_note(summary: &RunSummary) -> Option<String> {
    let named = |why: CpuLeftOut| -> Option<String> {
        let names: Vec<&str> = summary
            .benchmarks
            .iter()
            .filter(|b| b.cpu_left_out == Some(why))
            .map(|b| b.name.as_str())
            .collect();
        (!names.is_empty()).then(|| names.join(", "))
    };
    let mut parts = Vec::new();
    if let Some(names) = named(CpuLeftOut::ShortSamples) {
        let read = summary
            .overhead
            .iter()
            .find(|o| o.clock.role == ClockRole::Cpu)
            .map(|o| format!(" ({} x {} ns)", rho_stats::CPU_SAMPLE_MIN_READS, o.median))
            .unwrap_or_default();
        parts.push(format!(
            "{names}: a sample under {} reads of the CPU clock{read}, whose cost moves by more than such a \
             body takes",
            rho_stats::CPU_SAMPLE_MIN_READS
        ));
    }
    if let Some(names) = named(CpuLeftOut::OtherThreads) {
        parts.push(format!(
            "{names}: other threads of the process worked during its loop, so its thread's CPU time is not \
             its own"
        ));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "no CPU time: {}; their wall-clock figures are the ones judged",
            parts.join("; ")
        )
    })
}

fn notes(out: &mut String, summary: &RunSummary, width: usize, wide: bool) {
    let mut footnotes: Vec<String> = Vec::new();
    let shown = |bench| {
        let figures = clock_figures(bench);
        let count = if wide { figures.len() } else { 1 };
        figures.into_iter().take(count).collect::<Vec<_>>()
    };
    let any_capped = summary.benchmarks.iter().any(|b| b.capped);
    let any_batched = summary
        .benchmarks
        .iter()
        .any(|b| clock_figures(b).first().map_or(b.batch, |f| f.batch) > 1);
    let any_few_samples = summary
        .benchmarks
        .iter()
        .any(|b| clock_figures(b).iter().any(|f| !f.net.p99_is_informative()));
    let any_spread_capped = summary
        .benchmarks
        .iter()
        .any(|b| shown(b).iter().any(|f| f.net.spread.capped));
    let no_rows = |b: &&BenchSummary| !has_metric_rows(b);
    let any_stopped = summary.benchmarks.iter().filter(no_rows).any(|b| b.overran);
    let any_wrapped = summary
        .benchmarks
        .iter()
        .filter(no_rows)
        .any(|b| !b.overran && b.cycles_wrapped > 0);
    let any_leak = summary.benchmarks.iter().any(|b| b.leaked && !b.overran);
    let any_heap_off = summary
        .benchmarks
        .iter()
        .any(|b| b.heap.is_none() && !b.overran);

    if summary.benchmarks.is_empty() {
        out.push_str("(the suite ran no benchmarks)\n");
    }
    if any_capped {
        let cap = summary
            .config
            .time_cap_ms
            .map(format_ms)
            .unwrap_or_else(|| "the time cap".to_string());
        footnotes.push(format!(
            "* stopped early by the time cap ({cap} of measured time); the figures are over the iterations done"
        ));
    }
    if any_wrapped {
        footnotes.push(
            "cycles not measured: some samples spanned a counter wrap the harness could not count (a firmware that \
             owns SysTick, RHO_BENCH_SYSTICK_EXTERNAL); a figure from them would understate the truth"
                .to_string(),
        );
    }
    if let Some(tool) = &summary.imported {
        footnotes.push(format!(
            "imported from {tool}'s report: iterations are what {tool} ran (- when its report does not say), \
             each of its samples a time per iteration (docs/import.md); stack and heap not measured"
        ));
    } else if any_batched {
        footnotes.push(
            "xK: timed in batches of K back-to-back iterations (the body is too short for the clock to time one): \
             each figure is a batch's net time / K, the overhead taken off once a batch, so p95, p99 and max \
             are tails of batch means, not of single iterations"
                .to_string(),
        );
    }
    if any_stopped {
        footnotes.push(
            "stopped: the benchmark's stack went below its painted region into the guard under it, so the harness \
             stopped it and went on with the next; it has no figures. Give it a larger region \
             (RHO_BENCH_STACK_BYTES)"
                .to_string(),
        );
    }
    if any_heap_off && summary.imported.is_none() {
        footnotes.push(HEAP_OFF_NOTE.to_string());
    }
    if let Some(note) = preempted_note(summary) {
        footnotes.push(note);
    }
    if wide && let Some(note) = cpu_left_out_note(summary) {
        footnotes.push(note);
    }
    if any_leak && !wide {
        footnotes.push(
            "LEAK: bytes still live at the end of the benchmark (the warning says how many; --wide shows heap live)"
                .to_string(),
        );
    }
    if any_few_samples {
        // An imported run's samples are the harness's repetitions or samples, not iterations.
        let what = match summary.imported {
            Some(_) => "samples",
            None => "iterations",
        };
        footnotes.push(format!(
            "-: too few {what} for the tail (p95 needs {}, p99 {}): with fewer it is the max",
            Summary::MIN_N_FOR_P95,
            Summary::MIN_N_FOR_P99
        ));
    }
    if any_spread_capped {
        footnotes.push(if wide {
            ">100%: the standard deviation is more than the median (capped); read the p99 and the max beside it, \
             and iqr/med, (p75 - p25) / median, which a few far-out iterations do not move"
                .to_string()
        } else {
            ">100%: the standard deviation is more than the median (capped); read the p99 beside it (--wide adds \
             the max and iqr/med, (p75 - p25) / median, which a few far-out iterations do not move)"
                .to_string()
        });
    }
    for clock in &summary.clocks {
        if clock.resolution > 1 {
            let label = column_label(clock, false);
            let coarse = summary.benchmarks.iter().any(|b| {
                clock_figures(b).iter().any(|f| {
                    !f.derived && f.clock.name == clock.name && f.raw.median < clock.resolution
                })
            });
            if coarse {
                footnotes.push(format!(
                    "{label}: this clock steps by {}; a body shorter than one step reads 0",
                    amount(clock.resolution, &clock.unit)
                ));
            }
        }
    }
    for bench in &summary.benchmarks {
        let free_errors = bench.heap.map_or(0, |h| h.free_errors);
        if free_errors > 0 {
            footnotes.push(format!(
                "{}: {} free{} of more than was live: a harness-use error, its heap figures cannot be trusted",
                bench.name,
                free_errors,
                plural(free_errors)
            ));
        }
    }
    if !footnotes.is_empty() {
        out.push('\n');
        for note in footnotes {
            out.push_str(&wrap(&note, width, 2));
        }
    }
}

/// The per-iteration cells of one clock's figures: whole numbers as they are, a batched benchmark's fractions
/// of a unit to the precision its batch gives them. Spread and iqr/med are ratios, the same per sample and per
/// iteration.
fn stat_cells(figures: &ClockFigures) -> [String; 7] {
    let summary = &figures.net;
    let each = &figures.per_iteration;
    let figure = |value: f64, exact: u64| exact_figure(value, exact, figures.batch);
    // Too few samples and the nearest-rank tail is the max under another name: shown as `-`, not as a figure.
    let tail = |informative: bool, value: f64, exact: u64| {
        if informative {
            figure(value, exact)
        } else {
            "-".to_string()
        }
    };
    // The mean lies between min and max: one that reads as the max through an f64 is shown as the max.
    let mean = if figures.batch <= 1 && each.mean >= summary.max as f64 {
        figure(each.mean, summary.max)
    } else {
        format_mean(each.mean)
    };
    [
        figure(each.median, summary.median),
        mean,
        tail(summary.p95_is_informative(), each.p95, summary.p95),
        tail(summary.p99_is_informative(), each.p99, summary.p99),
        figure(each.max, summary.max),
        format_spread(summary),
        format_iqr_ratio(summary),
    ]
}

pub(crate) fn stack_cell(bench: &BenchSummary) -> String {
    match bench.stack {
        StackMark::Bytes(bytes) => bytes.to_string(),
        StackMark::Overrun => "overran".to_string(),
        StackMark::Off => "-".to_string(),
    }
}

/// The benchmarks whose measured stack mark is above their static bound: a bound that misses something
/// (an assembly function, a library's frame, an interrupt) or a stack that overran.
pub fn marks_above_bound(summary: &RunSummary) -> Vec<(String, u64, u64)> {
    summary
        .benchmarks
        .iter()
        .filter_map(|bench| {
            let bound = bench.footprint.as_ref()?.static_stack_bytes?;
            match bench.stack {
                StackMark::Bytes(mark) if mark > bound => Some((bench.name.clone(), mark, bound)),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_wire::ClockRole;

    #[test]
    fn rates_get_si_prefixes() {
        assert_eq!(format_rate(95_312_000.0), "95.3 M");
        assert_eq!(format_rate(512_000.0), "512 k");
        assert_eq!(format_rate(7.0), "7.00");
        assert_eq!(format_rate(2.5e9), "2.50 G");
    }

    #[test]
    fn hz_reads_in_its_unit() {
        assert_eq!(format_hz(2_899_912_000), "2.900 GHz");
        assert_eq!(format_hz(25_000_000), "25.000 MHz");
        assert_eq!(format_hz(500), "500 Hz");
    }

    #[test]
    fn labels_name_unit_and_clock() {
        let tsc = ClockInfo {
            role: ClockRole::Cycles,
            name: "tsc".into(),
            unit: "cycle".into(),
            hz: Some(1),
            resolution: 1,
        };
        assert_eq!(column_label(&tsc, false), "cycles (tsc)");
        let derived = ClockInfo {
            role: ClockRole::Time,
            name: "dwt".into(),
            unit: "ns".into(),
            hz: Some(1_000_000_000),
            resolution: 40,
        };
        assert_eq!(column_label(&derived, true), "ns (derived, dwt)");
    }
}

#[cfg(test)]
mod render_tests {
    use super::*;
    use crate::layout::aligned_table_within;

    /// A board-like stream: one cycle clock at a known frequency (so time is derived), a capped benchmark
    /// with a stack overrun and a leak, and one with a noisy sample.
    const BOARD_STREAM: &str = include_str!("../testdata/board.wire");

    /// The board's run on a SysTick clock whose last benchmark spanned a counter wrap the harness could not
    /// count.
    fn wrapped_board() -> RunSummary {
        let stream = BOARD_STREAM
            .replace("@clock cycles dwt", "@clock cycles systick")
            .replace(
                "unit=iter per_iteration=1\n@done",
                "unit=iter per_iteration=1 wrapped=1\n@done",
            );
        RunSummary::of(&rho_wire::parse_str(&stream).unwrap()).unwrap()
    }

    fn render_board() -> (String, Vec<String>) {
        let run = rho_wire::parse_str(BOARD_STREAM).unwrap();
        let summary = RunSummary::of(&run).unwrap();
        (wide(&summary, "board.c"), warnings(&summary))
    }

    /// The full table (`--wide`), never wrapped.
    fn wide(summary: &RunSummary, source: &str) -> String {
        render_with(
            summary,
            source,
            Layout {
                width: 1000,
                wide: true,
            },
        )
    }

    fn row<'a>(report: &'a str, name: &str) -> &'a str {
        report
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row {name} in\n{report}"))
    }

    /// Samples of u64::MAX cycles: through an f64 they would print as 18446744073709551616, one too high.
    #[test]
    fn u64_max_prints_exactly() {
        let max = u64::MAX;
        let stream = format!(
            "@rho-bench 6\n@target canned arch=none optimized=1\n\
             @clock cycles fake unit=cycle hz=1000000000 resolution=1\n\
             @config iterations=3 warmup=0 time_cap_ms=0 stack_bytes={max}\n\
             @bench bench_max\n:{max}\n:{max}\n:{max}\n@stack {max}\n\
             @heap peak={max} live=0 allocs=1 frees=1 free_errors=0\n\
             @end bench_max iterations=3 warmup=0 capped=0 unit=iter per_iteration=1\n\
             @done benchmarks=1 dropped=0\n"
        );
        let summary = RunSummary::of(&rho_wire::parse_str(&stream).unwrap()).unwrap();
        let markdown = crate::markdown::render(&summary, "max.c");
        for report in [wide(&summary, "max.c"), markdown] {
            assert!(!report.contains("18446744073709551616"), "{report}");
            let row = report
                .lines()
                .find(|l| l.contains("cycles (fake)"))
                .unwrap_or_else(|| panic!("{report}"));
            assert!(row.contains("18446744073709551615"), "{report}");
        }
        // Median, mean and max of the cycles, and of the time derived at 1 GHz.
        let report = wide(&summary, "max.c");
        assert_eq!(
            report.matches("18446744073709551615").count(),
            9,
            "{report}"
        );
    }

    #[test]
    fn the_header_names_target_clocks_overhead_and_settings() {
        let (report, _) = render_board();
        assert!(
            report.contains("target mps2-an386 (armv7e-m), optimized"),
            "{report}"
        );
        assert!(
            report.contains("cycles: dwt counting cycles, 25.000 MHz, resolution 1 cycle"),
            "{report}"
        );
        assert!(report.contains("time: ns derived from dwt"), "{report}");
        assert!(
            report.contains("10 cycles (dwt)"),
            "overhead per clock: {report}"
        );
        assert!(report.contains("net of it"), "{report}");
        assert!(
            report.contains("4 iterations and 1 warm-up per benchmark"),
            "{report}"
        );
    }

    #[test]
    fn cycles_that_spanned_an_uncounted_wrap_read_not_measured_never_a_number() {
        let summary = wrapped_board();
        let report = wide(&summary, "board.c");
        let spiky = row(&report, "bench_spiky");
        assert!(spiky.contains("cycles not measured"), "{spiky}");
        assert!(
            !spiky.contains("2000"),
            "no figure from wrapped samples: {spiky}"
        );
        assert!(
            report.contains("counter wrap the harness could not count"),
            "{report}"
        );
        // The other benchmark keeps its figures.
        assert!(
            row(&report, "bench_deep").contains("cycles (systick)"),
            "{report}"
        );
    }

    #[test]
    fn a_row_shows_capped_iterations_overrun_leak_and_derived_time() {
        let (report, warnings) = render_board();
        let deep = row(&report, "bench_deep");
        // 2 iterations done, stopped by the cap.
        assert!(deep.contains(" 2* "), "{deep}");
        assert!(deep.contains("cycles (dwt)"), "{deep}");
        assert!(deep.contains("overran"), "{deep}");
        assert!(deep.contains("32 LEAK"), "{deep}");
        // Net median 110 - 10 = 100 cycles = 4000 ns at 25 MHz; 64 bytes per 4 us = 16 M byte/s.
        assert!(deep.contains("16.0 M byte/s"), "{deep}");
        let derived = report
            .lines()
            .skip_while(|l| !l.starts_with("bench_deep "))
            .nth(1)
            .unwrap();
        assert!(derived.contains("ns (derived, dwt)"), "{derived}");
        assert!(derived.contains("4000"), "{derived}");
        assert!(
            report.contains("* stopped early by the time cap (5 s"),
            "{report}"
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("bench_deep: LEAK: 32 bytes")),
            "{warnings:?}"
        );
    }

    #[test]
    fn too_few_iterations_mark_the_tails_and_warn() {
        let (report, warnings) = render_board();
        assert!(
            warnings.iter().any(|w| w.starts_with(
                "bench_spiky: only 4 measured iterations: its p95 and p99 are just the max and shown as -"
            )),
            "{warnings:?}"
        );
        assert!(
            report.contains("-: too few iterations for the tail (p95 needs 20, p99 100)"),
            "{report}"
        );
        // 30 iterations: the p95 means something, the p99 not yet.
        let samples: String = (1..=31).map(|v| format!(":{v}\n")).collect();
        let stream = format!(
            "@rho-bench 1\n@target host arch=x86_64 optimized=1\n@clock cycles tsc unit=cycle hz=1000 resolution=1\n\
             @config iterations=30 warmup=1 time_cap_ms=0 stack_bytes=0\n@bench bench_thirty\n{samples}\
             @stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
             @end bench_thirty iterations=30 warmup=1 capped=0 unit=iter per_iteration=1\n\
             @done benchmarks=1 dropped=0\n"
        );
        let summary = RunSummary::of(&rho_wire::parse_str(&stream).unwrap()).unwrap();
        let report = wide(&summary, "thirty.c");
        let cells: Vec<&str> = row(&report, "bench_thirty").split_whitespace().collect();
        // Measured 2..=31: p95 is rank ceil(28.5) = 29, the value 30; the p99 would be the max, 31.
        assert_eq!(
            (cells[6], cells[7], cells[8]),
            ("30", "-", "31"),
            "{report}"
        );
        let warnings = super::warnings(&summary);
        assert!(
            warnings.iter().any(|w| w
                .starts_with("bench_thirty: only 30 measured iterations: its p99 is just the max")),
            "{warnings:?}"
        );
    }

    /// A run with a CPU clock: the wide table names the benchmarks without CPU time and says why (a sample
    /// under ten reads of the clock, or other threads at work), and the benchmark that has it gets no mention.
    #[test]
    fn benchmarks_without_cpu_time_are_named_with_the_reason() {
        let stream = "@rho-bench 7\n@target host arch=x86_64 optimized=1\n\
             @clock time clock_gettime unit=ns hz=1000000000 resolution=20\n\
             @clock cpu clock_thread_cputime unit=ns hz=1000000000 resolution=1\n\
             @config iterations=3 warmup=0 time_cap_ms=0 stack_bytes=0\n\
             @bench .overhead\n:50 600\n:50 600\n:50 600\n@stack off\n@heap off\n\
             @end .overhead iterations=3 warmup=0 capped=0 unit=iter per_iteration=1 other_cpu_ns=0\n\
             @bench long\n:9000 9000\n:9000 9000\n:9000 9000\n@stack off\n@heap off\n\
             @end long iterations=3 warmup=0 capped=0 unit=iter per_iteration=1 other_cpu_ns=0\n\
             @bench short\n:2000 2000\n:2000 2000\n:2000 2000\n@stack off\n@heap off\n\
             @end short iterations=3 warmup=0 capped=0 unit=iter per_iteration=1 other_cpu_ns=0\n\
             @bench pooled\n:9000 9000\n:9000 9000\n:9000 9000\n@stack off\n@heap off\n\
             @end pooled iterations=3 warmup=0 capped=0 unit=iter per_iteration=1 other_cpu_ns=9000\n\
             @done benchmarks=3 dropped=0\n";
        let summary = RunSummary::of(&rho_wire::parse_str(stream).unwrap()).unwrap();
        assert!(summary.benchmark("long").unwrap().cpu.is_some());
        let report = wide(&summary, "cpu.c");
        let note = report
            .split("no CPU time: ")
            .nth(1)
            .unwrap_or_else(|| panic!("{report}"));
        let note = note.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            note.starts_with(
                "short: a sample under 10 reads of the CPU clock (10 x 600 ns), whose cost moves by more \
                 than such a body takes; pooled: other threads of the process worked during its loop"
            ),
            "{report}"
        );
        assert!(!note.contains("long"), "{report}");
        // The compact table shows no CPU figure, so it says nothing of one.
        let report = render_with(&summary, "cpu.c", Layout::new(1000, false));
        assert!(!report.contains("no CPU time"), "{report}");
    }

    /// A heap the harness did not count (`@heap off`, version 6): `-` in the heap cells of every table (the
    /// default, `--wide`, Markdown), never 0, and a note that says why.
    #[test]
    fn a_heap_not_measured_reads_dash_with_a_note() {
        let stream = "@rho-bench 6\n@target host arch=x86_64 optimized=1\n\
             @clock cycles tsc unit=cycle hz=1000 resolution=1\n\
             @config iterations=3 warmup=1 time_cap_ms=0 stack_bytes=4096\n\
             @bench counted\n:50\n:50\n:51\n:52\n@stack 96\n\
             @heap peak=64 live=0 allocs=3 frees=3 free_errors=0\n\
             @end counted iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n\
             @bench uncounted\n:50\n:50\n:51\n:52\n@stack 96\n@heap off\n\
             @end uncounted iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n\
             @done benchmarks=2 dropped=0\n";
        let summary = RunSummary::of(&rho_wire::parse_str(stream).unwrap()).unwrap();
        let note = "heap not measured: the harness did not count allocations";
        let report = render_with(&summary, "heap.rs", Layout::new(1000, false));
        let cells: Vec<&str> = row(&report, "uncounted").split_whitespace().collect();
        // name, iterations, median, p99, spread, stack, heap peak, ...
        assert_eq!((cells[5], cells[6]), ("96", "-"), "{report}");
        let counted: Vec<&str> = row(&report, "counted").split_whitespace().collect();
        assert_eq!(counted[6], "64", "{report}");
        assert!(report.contains(note), "{report}");
        let report = wide(&summary, "heap.rs");
        let cells: Vec<&str> = row(&report, "uncounted").split_whitespace().collect();
        // name, iterations, "cycles", "(tsc)", median, mean, p95, p99, max, spread, iqr/med, stack, peak, live
        assert_eq!(&cells[11..14], ["96", "-", "-"], "{report}");
        assert!(report.contains(note), "{report}");
        let markdown = crate::markdown::render(&summary, "heap.rs");
        let line = markdown
            .lines()
            .find(|l| l.starts_with("| uncounted |"))
            .unwrap_or_else(|| panic!("{markdown}"));
        assert!(line.contains("| 96 | - |"), "{line}");
        assert!(markdown.contains(note), "{markdown}");
        assert!(!warnings(&summary).iter().any(|w| w.contains("LEAK")));
        // With every heap measured, no note.
        let measured = stream.replace(
            "@heap off",
            "@heap peak=0 live=0 allocs=0 frees=0 free_errors=0",
        );
        let summary = RunSummary::of(&rho_wire::parse_str(&measured).unwrap()).unwrap();
        assert!(!wide(&summary, "heap.rs").contains(note));
        assert!(!crate::markdown::render(&summary, "heap.rs").contains(note));
    }

    #[test]
    fn an_outlier_moves_the_mean_and_caps_the_spread() {
        let (report, _) = render_board();
        let spiky = row(&report, "bench_spiky");
        let cells: Vec<&str> = spiky.split_whitespace().collect();
        // name, iterations, "cycles", "(dwt)", median, mean, p95, p99, max, spread
        assert_eq!(cells[4], "10", "median net of the overhead: {spiky}");
        assert_eq!(
            cells[5], "505.0",
            "mean (20 + 20 + 20 + 2000) / 4 less 10: {spiky}"
        );
        assert_eq!(cells[8], "1990", "max: {spiky}");
        // Four iterations: the p95 and p99 would be the max, so they are not shown as figures.
        assert_eq!((cells[6], cells[7]), ("-", "-"), "{spiky}");
        assert_eq!(cells[9], ">100%", "{spiky}");
        // The robust spread: the net quartiles are 10 and 10 (ranks 1 and 3 of 10 10 10 1990).
        assert_eq!(cells[10], "0.0%", "iqr/med: {spiky}");
        assert!(
            report.contains(">100%: the standard deviation is more than the median"),
            "{report}"
        );
    }

    #[test]
    fn the_default_layout_fits_100_columns_one_row_per_benchmark() {
        let summary = RunSummary::of(&rho_wire::parse_str(BOARD_STREAM).unwrap()).unwrap();
        let report = render(&summary, "board.c");
        for line in report.lines() {
            assert!(line.chars().count() <= 100, "{line:?} in\n{report}");
        }
        let deep = row(&report, "bench_deep");
        // 2 iterations done (capped), median 100 cycles, stack overran, the leak, the rate.
        let cells: Vec<&str> = deep.split_whitespace().collect();
        assert_eq!(cells[..3], ["bench_deep", "2*", "100"], "{deep}");
        assert!(
            deep.contains("overran") && deep.contains("32 LEAK"),
            "{deep}"
        );
        assert!(deep.contains("16.0 M byte/s"), "{deep}");
        // No second clock row: the derived ns are named in the caption, for --wide.
        assert!(!report.contains("\n                "), "{report}");
        assert!(
            report.contains("in cycles (dwt); --wide adds ns (derived, dwt)"),
            "{report}"
        );
        assert!(report.contains("LEAK: bytes still live"), "{report}");
    }

    /// A table too wide for its width puts each name on a line of its own (once for consecutive rows of one
    /// name), the other cells under the header; one that fits is the plain table.
    #[test]
    fn a_table_too_wide_puts_its_names_on_lines_of_their_own() {
        let long = format!("bench_{}/18446744073709551615", "x".repeat(57));
        let rows: Vec<Vec<String>> = [
            ["budgets", "metric", "figure", "max", "verdict"],
            [long.as_str(), "cycles/iter", "120", "5000", "ok"],
            [long.as_str(), "stack B", "144", "4096", "ok"],
            ["bench_short", "cycles/iter", "6000", "5000", "OVER"],
        ]
        .iter()
        .map(|row| row.map(String::from).to_vec())
        .collect();
        let left = |c: usize| c <= 1 || c == 4;
        let plain = aligned_table(&rows, left);
        assert_eq!(aligned_table_within(&rows, left, 1000), plain);
        let fitted = aligned_table_within(&rows, left, 100);
        let lines: Vec<&str> = fitted.lines().collect();
        assert!(lines.iter().all(|l| l.chars().count() <= 100), "{fitted}");
        assert_eq!(lines[2], long, "{fitted}");
        let words = |line: &str| line.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(words(lines[3]), "cycles/iter 120 5000 ok", "{fitted}");
        assert_eq!(words(lines[4]), "stack B 144 4096 ok", "{fitted}");
        assert_eq!(lines[5], "bench_short", "{fitted}");
        assert_eq!(words(lines[6]), "cycles/iter 6000 5000 OVER", "{fitted}");
        assert_eq!(lines.len(), 7, "{fitted}");
    }

    #[test]
    fn the_default_layout_puts_a_long_name_on_its_own_line_and_wraps_prose() {
        let long = format!("bench_{}", "x".repeat(57));
        let stream = BOARD_STREAM.replace("bench_spiky", &long);
        let summary = RunSummary::of(&rho_wire::parse_str(&stream).unwrap()).unwrap();
        let report = render_with(&summary, "board.c", Layout::new(80, false));
        for line in report.lines() {
            assert!(line.chars().count() <= 80, "{line:?} in\n{report}");
        }
        let lines: Vec<&str> = report.lines().collect();
        let at = lines.iter().position(|l| *l == long).expect(&report);
        assert!(lines[at + 1].trim_start().starts_with("4 "), "{report}");
        // The wide layout keeps every statistic on the name's row, however wide.
        let wide = wide(&summary, "board.c");
        assert!(
            wide.lines()
                .any(|l| l.starts_with(&long) && l.contains("cycles (dwt)"))
        );
    }

    #[test]
    fn a_benchmark_without_figures_says_why_in_the_default_layout() {
        let summary = wrapped_board();
        let report = render(&summary, "board.c");
        let spiky = row(&report, "bench_spiky");
        assert!(spiky.ends_with("cycles not measured"), "{spiky}");
        assert!(!spiky.contains("2000"), "{spiky}");
    }
}
