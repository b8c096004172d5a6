//! The writer: a [`Run`] printed in the wire format, exactly as a harness would print it, so that parsing the
//! output gives the same run back (noise lines aside: there are none to write).

use std::io::{self, Write};

use crate::name::NAME_ESCAPE_VERSION;
use crate::parse::{CALIBRATION_NAME, is_name};
use crate::types::{
    Benchmark, COUNTER_VERSION, CPU_CLOCK_VERSION, ClockRole, FAMILY_VERSION, GUARD_VERSION,
    HEAP_OFF_VERSION, RERUN_VERSION, Run, StackMark, WIRE_VERSION,
};

/// Flush the line buffer to the output once it holds this much.
const FLUSH_AT: usize = 64 * 1024;

/// Print `run` in the wire format. The calibration block (if any) comes first, then the benchmarks in order,
/// then `@done`. A run the format cannot express (a bad name, a second clock of one role, sample columns that
/// do not hold `warmup + iterations` values, ...) is refused with `io::ErrorKind::InvalidInput` before anything
/// is written.
pub fn write_run<W: Write>(mut out: W, run: &Run) -> io::Result<()> {
    validate(run).map_err(|why| io::Error::new(io::ErrorKind::InvalidInput, why))?;
    let mut buf: Vec<u8> = Vec::with_capacity(FLUSH_AT + 256);

    line(&mut buf, format_args!("@rho-bench {}", run.version));
    let t = &run.target;
    buf.extend_from_slice(b"@target ");
    buf.extend_from_slice(t.name.as_bytes());
    buf.extend_from_slice(b" arch=");
    buf.extend_from_slice(t.arch.as_bytes());
    buf.extend_from_slice(if t.optimized {
        b" optimized=1"
    } else {
        b" optimized=0"
    });
    if let Some(compiler) = &t.compiler {
        buf.extend_from_slice(b" compiler=");
        buf.extend_from_slice(compiler.as_bytes());
    }
    buf.push(b'\n');
    for clock in &run.clocks {
        let role = clock.role.word();
        line(
            &mut buf,
            format_args!(
                "@clock {role} {} unit={} hz={} resolution={}",
                clock.name,
                clock.unit,
                clock.hz.unwrap_or(0),
                clock.resolution
            ),
        );
    }
    if let Some(counter) = &run.counter {
        line(
            &mut buf,
            format_args!("@counter {} {}", counter.metric, counter.name),
        );
    }
    let c = &run.config;
    line(
        &mut buf,
        format_args!(
            "@config iterations={} warmup={} time_cap_ms={} stack_bytes={}",
            c.iterations,
            c.warmup,
            c.time_cap_ms.unwrap_or(0),
            c.stack_bytes.unwrap_or(0)
        ),
    );
    if let Some(guard) = &c.stack_guard {
        buf.pop();
        line(&mut buf, format_args!(" stack_guard={guard}"));
    }
    if let Some(yardstick) = &run.yardstick {
        let repetitions = yardstick.samples.first().map_or(0, Vec::len);
        line(
            &mut buf,
            format_args!(
                "@yardstick {} iterations={} repetitions={repetitions}",
                yardstick.name, yardstick.iterations
            ),
        );
        for r in 0..repetitions {
            for (k, column) in yardstick.samples.iter().enumerate() {
                buf.push(if k == 0 { b':' } else { b' ' });
                buf.extend_from_slice(column.get(r).copied().unwrap_or(0).to_string().as_bytes());
            }
            buf.push(b'\n');
        }
    }
    for bench in run.calibration.iter().chain(&run.benchmarks) {
        write_bench(&mut out, &mut buf, run.version, bench)?;
    }
    line(
        &mut buf,
        format_args!(
            "@done benchmarks={} dropped={}",
            run.benchmarks.len(),
            run.dropped
        ),
    );
    out.write_all(&buf)?;
    out.flush()
}

/// [`write_run`] into a `String`.
pub fn run_to_string(run: &Run) -> io::Result<String> {
    let mut bytes = Vec::new();
    write_run(&mut bytes, run)?;
    // The writer only emits ASCII (names are validated, numbers are digits).
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// A benchmark's name as a stream of `version` carries it: escaped from version 8 on (crate::name); the
/// writer checked an older stream's names are wire names, which need no escape.
fn wire_name(version: u32, name: &str) -> std::borrow::Cow<'_, str> {
    match version >= NAME_ESCAPE_VERSION {
        true => crate::name::escape(name),
        false => std::borrow::Cow::Borrowed(name),
    }
}

fn line(buf: &mut Vec<u8>, args: std::fmt::Arguments<'_>) {
    // Writing into a Vec cannot fail.
    let _ = buf.write_fmt(args);
    buf.push(b'\n');
}

fn write_bench<W: Write>(
    out: &mut W,
    buf: &mut Vec<u8>,
    version: u32,
    bench: &Benchmark,
) -> io::Result<()> {
    match &bench.family {
        Some(member) => line(
            buf,
            format_args!(
                "@bench {} family={} arg={}",
                bench.name, member.name, member.arg
            ),
        ),
        None => line(
            buf,
            format_args!("@bench {}", wire_name(version, &bench.name)),
        ),
    }
    let rows = bench.samples.first().map_or(0, Vec::len);
    for row in 0..rows {
        buf.push(b':');
        for (index, column) in bench.samples.iter().enumerate() {
            if index > 0 {
                buf.push(b' ');
            }
            push_u64(buf, column.get(row).copied().unwrap_or(0));
        }
        buf.push(b'\n');
        if buf.len() >= FLUSH_AT {
            out.write_all(buf)?;
            buf.clear();
        }
    }
    for count in &bench.counts {
        line(
            buf,
            format_args!("@count {} iterations={}", count.dump, count.iterations),
        );
    }
    match bench.stack {
        StackMark::Bytes(bytes) => line(buf, format_args!("@stack {bytes}")),
        StackMark::Overrun => line(buf, format_args!("@stack overrun")),
        StackMark::Off => line(buf, format_args!("@stack off")),
    }
    match &bench.heap {
        Some(h) => line(
            buf,
            format_args!(
                "@heap peak={} live={} allocs={} frees={} free_errors={}",
                h.peak, h.live, h.allocs, h.frees, h.free_errors
            ),
        ),
        None => line(buf, format_args!("@heap off")),
    }
    line(
        buf,
        format_args!(
            "@end {} iterations={} warmup={} capped={} unit={} per_iteration={}",
            wire_name(version, &bench.name),
            bench.iterations,
            bench.warmup,
            u8::from(bench.capped),
            bench.unit,
            bench.per_iteration
        ),
    );
    if bench.wrapped != 0 {
        // `wrapped=` is optional (absent means 0): the line grows only when there is something to say.
        buf.pop();
        line(buf, format_args!(" wrapped={}", bench.wrapped));
    }
    if bench.batch != 1 {
        // `batch=` is optional too (absent means 1, and version 1 has none).
        buf.pop();
        line(buf, format_args!(" batch={}", bench.batch));
    }
    if bench.overran {
        buf.pop();
        line(buf, format_args!(" overran=1"));
    }
    if let Some(other) = bench.other_cpu_ns {
        buf.pop();
        line(buf, format_args!(" other_cpu_ns={other}"));
    }
    if bench.preempted != 0 {
        buf.pop();
        line(buf, format_args!(" preempted={}", bench.preempted));
    }
    if bench.rerun != 0 {
        buf.pop();
        line(buf, format_args!(" rerun={}", bench.rerun));
    }
    Ok(())
}

/// Decimal digits of `value`, without allocating.
fn push_u64(buf: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[at..]);
}

/// Why `run` cannot be written so that it parses back to itself.
fn validate(run: &Run) -> Result<(), String> {
    if !(1..=WIRE_VERSION).contains(&run.version) {
        return Err(format!(
            "version {} (this writer writes versions 1 to {WIRE_VERSION})",
            run.version
        ));
    }
    if run.counter.is_some() && run.version < COUNTER_VERSION {
        return Err(format!(
            "a @counter in a version {} stream (@counter is version {COUNTER_VERSION})",
            run.version
        ));
    }
    // A run keeps its own version, and with it the meaning of its records: what a later version added cannot
    // be written into an earlier one.
    if run.version < GUARD_VERSION {
        if run.config.stack_guard.is_some() {
            return Err(format!(
                "stack_guard= needs wire format version {GUARD_VERSION}"
            ));
        }
        if let Some(bench) = run
            .calibration
            .iter()
            .chain(&run.benchmarks)
            .find(|b| b.overran)
        {
            return Err(format!(
                "benchmark {}: overran= needs wire format version {GUARD_VERSION}",
                bench.name
            ));
        }
    }
    let names = [
        ("target name", &run.target.name),
        ("target arch", &run.target.arch),
    ];
    for (what, name) in names {
        if !is_name(name.as_bytes()) {
            return Err(format!("{what} {name:?} is not a wire name"));
        }
    }
    if let Some(compiler) = &run.target.compiler
        && (compiler.is_empty() || !compiler.bytes().all(|b| b.is_ascii_graphic()))
    {
        return Err(format!(
            "compiler {compiler:?} must be non-empty printable ASCII without spaces"
        ));
    }
    if let Some(guard) = &run.config.stack_guard
        && !is_name(guard.as_bytes())
    {
        return Err(format!("stack_guard {guard:?} is not a wire name"));
    }
    let counted = run.counter.is_some();
    if counted && !run.clocks.is_empty() {
        return Err("clocks in a counted run (a run counts or times)".to_string());
    }
    let cpu = run.clocks.iter().any(|c| c.role == ClockRole::Cpu);
    if cpu && run.version < CPU_CLOCK_VERSION {
        return Err(format!(
            "a cpu clock in a version {} stream (it needs version {CPU_CLOCK_VERSION})",
            run.version
        ));
    }
    let most = if cpu { 3 } else { 2 };
    if !counted && (run.clocks.len() <= usize::from(cpu) || run.clocks.len() > most) {
        return Err(format!(
            "{} clocks (a stream has 1 or 2, and a cpu clock beside them)",
            run.clocks.len()
        ));
    }
    for (i, clock) in run.clocks.iter().enumerate() {
        if run.clocks[..i].iter().any(|c| c.role == clock.role) {
            return Err("two clocks of the same role".to_string());
        }
    }
    for clock in &run.clocks {
        if !is_name(clock.name.as_bytes()) || !is_name(clock.unit.as_bytes()) {
            return Err(format!(
                "clock {:?} unit {:?}: not wire names",
                clock.name, clock.unit
            ));
        }
    }
    if let Some(calibration) = &run.calibration
        && calibration.name != CALIBRATION_NAME
    {
        return Err(format!(
            "the calibration block is named {:?}, not {CALIBRATION_NAME}",
            calibration.name
        ));
    }
    if let Some(yardstick) = &run.yardstick {
        let repetitions = yardstick.samples.first().map_or(0, Vec::len);
        if run.version < crate::types::YARDSTICK_VERSION
            || !is_name(yardstick.name.as_bytes())
            || yardstick.iterations == 0
            || repetitions == 0
            || yardstick.samples.len() != run.clocks.len()
            || yardstick.samples.iter().any(|c| c.len() != repetitions)
        {
            return Err(format!(
                "the yardstick {:?} cannot be written: a version {} stream of {} clock(s) carries a \
                 yardstick from version {} on, named by a wire name, of at least 1 iteration and one \
                 reading per clock in each of at least 1 repetition",
                yardstick.name,
                run.version,
                run.clocks.len(),
                crate::types::YARDSTICK_VERSION
            ));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for bench in &run.benchmarks {
        if bench.name.starts_with('.') {
            return Err(format!(
                "benchmark {:?}: names starting with '.' are the harness's own",
                bench.name
            ));
        }
        if !seen.insert(bench.name.as_str()) {
            return Err(format!("benchmark {:?} appears twice", bench.name));
        }
    }
    for bench in run.calibration.iter().chain(&run.benchmarks) {
        validate_bench(run, bench)?;
    }
    Ok(())
}

/// Why benchmark `bench` of `run` (the calibration block included) cannot be written so that it parses back
/// to itself: its names, its sample columns against the clocks, its heap and stack figures, its batches and
/// counts against the run's version and counter.
fn validate_bench(run: &Run, bench: &Benchmark) -> Result<(), String> {
    let counted = run.counter.is_some();
    let named = match &bench.family {
        Some(_) if run.version < FAMILY_VERSION => {
            return Err(format!(
                "benchmark {}: a family member in a version {} stream (families need version {FAMILY_VERSION})",
                bench.name, run.version
            ));
        }
        Some(member) => is_name(member.name.as_bytes()) && bench.name == member.member_name(),
        None if run.version >= NAME_ESCAPE_VERSION => crate::name::check(&bench.name).is_ok(),
        None => is_name(bench.name.as_bytes()),
    };
    if !named || !is_name(bench.unit.as_bytes()) {
        return Err(format!(
            "benchmark {:?} unit {:?}: not wire names",
            bench.name, bench.unit
        ));
    }
    if bench.samples.len() != run.clocks.len() {
        return Err(format!(
            "benchmark {}: {} sample columns for {} clocks",
            bench.name,
            bench.samples.len(),
            run.clocks.len()
        ));
    }
    if bench.per_iteration == 0 {
        return Err(format!("benchmark {}: per_iteration 0", bench.name));
    }
    if run.version < CPU_CLOCK_VERSION && (bench.other_cpu_ns.is_some() || bench.preempted != 0) {
        return Err(format!(
            "benchmark {}: other_cpu_ns= or preempted= in a version {} stream (they need version \
             {CPU_CLOCK_VERSION})",
            bench.name, run.version
        ));
    }
    if run.version < RERUN_VERSION && bench.rerun != 0 {
        return Err(format!(
            "benchmark {}: rerun= in a version {} stream (it needs version {RERUN_VERSION})",
            bench.name, run.version
        ));
    }
    if let Some(rule) = bench.heap.and_then(|h| h.inconsistency(run.version)) {
        return Err(format!(
            "benchmark {}: heap figures: expected {rule}",
            bench.name
        ));
    }
    match bench.heap {
        None if run.version < HEAP_OFF_VERSION => {
            return Err(format!(
                "benchmark {}: heap not measured in a version {} stream (`@heap off` needs version \
                 {HEAP_OFF_VERSION})",
                bench.name, run.version
            ));
        }
        _ => {}
    }
    let region = run.config.stack_bytes.unwrap_or(0);
    match bench.stack {
        StackMark::Bytes(bytes) if bytes > region => {
            return Err(format!(
                "benchmark {}: stack mark {bytes} beyond the painted region ({region} bytes)",
                bench.name
            ));
        }
        StackMark::Bytes(_) | StackMark::Off if bench.overran => {
            return Err(format!(
                "benchmark {}: overran without a stack overrun",
                bench.name
            ));
        }
        StackMark::Overrun if region == 0 => {
            return Err(format!(
                "benchmark {}: stack overrun with no painted region",
                bench.name
            ));
        }
        _ => {}
    }
    if bench.batch == 0 || bench.iterations % bench.batch != 0 {
        return Err(format!(
            "benchmark {}: iterations {} are not whole samples of batch {}",
            bench.name, bench.iterations, bench.batch
        ));
    }
    if bench.batch != 1 && run.version < crate::types::BATCH_VERSION {
        return Err(format!(
            "benchmark {}: batch {} in a version {} stream (batches are version {})",
            bench.name,
            bench.batch,
            run.version,
            crate::types::BATCH_VERSION
        ));
    }
    if !counted && !bench.counts.is_empty() {
        return Err(format!(
            "benchmark {}: @count in a run without a @counter",
            bench.name
        ));
    }
    if counted {
        let wanted: Vec<u64> = match bench.iterations {
            0 => Vec::new(),
            n if bench.name == CALIBRATION_NAME => vec![n, n.saturating_mul(2)],
            n => vec![n],
        };
        let found: Vec<u64> = bench.counts.iter().map(|c| c.iterations).collect();
        if found != wanted {
            return Err(format!(
                "benchmark {}: counts of {found:?} iterations, expected {wanted:?}",
                bench.name
            ));
        }
        return Ok(());
    }
    let expected = bench.warmup.checked_add(bench.measured_samples());
    if expected.is_some_and(|samples| bench.wrapped > samples) {
        return Err(format!(
            "benchmark {}: wrapped={} is more than its samples",
            bench.name, bench.wrapped
        ));
    }
    if bench
        .samples
        .iter()
        .any(|c| Some(c.len() as u64) != expected)
    {
        return Err(format!(
            "benchmark {}: sample columns must each hold warmup + iterations / batch = {} + {} values",
            bench.name,
            bench.warmup,
            bench.measured_samples()
        ));
    }
    Ok(())
}
