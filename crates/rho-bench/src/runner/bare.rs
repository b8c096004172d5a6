//! The runner on a Cortex-M: the settings compiled in from the build's environment, the suite run benchmark
//! by benchmark with the stack painted below the stack pointer, the stream through semihosting, the exit and
//! the panic handler.

use core::fmt::Write as _;

use crate::bare::{Out, clock};
use crate::bench::Bench;
use crate::stack;
use crate::suite::{BuildInfo, Entry};
use crate::wire;

/// The settings, compiled in.
struct Settings {
    iterations: u64,
    warmup: u64,
    scale: f64,
    time_cap_ms: u64,
    stack_bytes: u64,
    batch: u64,
    filter: &'static str,
    target: &'static str,
    cpu_hz: u64,
}

fn number(value: Option<&'static str>, name: &str, default: u64) -> Result<u64, &'static str> {
    match value {
        None => Ok(default),
        Some(text) => text.trim().parse().map_err(|_| {
            let _ = name;
            "a compiled-in setting is not a whole number"
        }),
    }
}

impl Settings {
    fn compiled_in() -> Result<Settings, &'static str> {
        let scale = match option_env!("RHO_BENCH_SCALE") {
            None => 1.0,
            Some(text) => match text.trim().parse::<f64>() {
                Ok(v) if v > 0.0 && v <= 1e9 => v,
                _ => return Err("RHO_BENCH_SCALE: expected a positive number"),
            },
        };
        let mut s = Settings {
            iterations: number(option_env!("RHO_BENCH_ITERATIONS"), "iterations", 20_000)?.max(1),
            warmup: number(option_env!("RHO_BENCH_WARMUP"), "warmup", 100)?,
            scale,
            time_cap_ms: number(option_env!("RHO_BENCH_TIME_CAP_MS"), "cap", 5_000)?,
            stack_bytes: number(option_env!("RHO_BENCH_STACK_BYTES"), "stack", 16_384)?,
            batch: number(option_env!("RHO_BENCH_BATCH"), "batch", 0)?,
            filter: option_env!("RHO_BENCH_FILTER").unwrap_or(""),
            target: option_env!("RHO_BENCH_TARGET").unwrap_or("cortex-m"),
            cpu_hz: number(option_env!("RHO_BENCH_CPU_HZ"), "hz", 0)?,
        };
        if !wire::is_name(s.target) {
            return Err("RHO_BENCH_TARGET: expected a name (1 to 63 of [A-Za-z0-9_.:+-])");
        }
        s.iterations = s.scaled(s.iterations, true);
        s.warmup = s.scaled(s.warmup, s.warmup > 0);
        Ok(s)
    }

    fn scaled(&self, count: u64, at_least_one: bool) -> u64 {
        let value = (count as f64 * self.scale + 0.5) as u64;
        if value == 0 && at_least_one { 1 } else { value }
    }

    fn selected(&self, name: &str) -> bool {
        self.filter.is_empty()
            || self
                .filter
                .split(',')
                .any(|term| wire::term_matches(term, name))
    }
}

/// The entry point of `main!` on a board: runs the suite and returns the exit status (0, or 2 on a bad
/// setting or a misuse, said on a `rho: ...` line).
pub fn main(entries: &[Entry], build: BuildInfo) -> i32 {
    match run(entries, build) {
        Ok(()) => 0,
        Err(message) => {
            let mut out = Out::new();
            let _ = writeln!(out, "rho: {message}");
            2
        }
    }
}

/// Ends the program through semihosting (QEMU exits with a failure status for any status but 0).
pub fn exit(status: i32) -> ! {
    cortex_m_semihosting::debug::exit(if status == 0 {
        cortex_m_semihosting::debug::EXIT_SUCCESS
    } else {
        cortex_m_semihosting::debug::EXIT_FAILURE
    });
    #[allow(clippy::empty_loop)]
    loop {}
}

fn run(entries: &[Entry], build: BuildInfo) -> Result<(), &'static str> {
    let settings = Settings::compiled_in()?;
    for entry in entries {
        if let Some(what) = entry.misuse() {
            return Err(what);
        }
    }
    let counter = clock::init()?;
    let step = clock::resolution();
    {
        let mut out = Out::new();
        let compiler = concat!("rustc-", env!("RHO_BENCH_RUSTC_VERSION"));
        let _ = wire::target(
            &mut out,
            settings.target,
            env!("RHO_BENCH_ARCH"),
            build.optimized,
            if wire::is_name(compiler) {
                compiler
            } else {
                ""
            },
        );
        let _ = wire::clock(&mut out, "cycles", counter, "cycle", settings.cpu_hz, step);
        let _ = wire::config(
            &mut out,
            settings.iterations,
            settings.warmup,
            settings.time_cap_ms,
            settings.stack_bytes,
            if settings.stack_bytes > 0 {
                "none"
            } else {
                "off"
            },
        );
        // The machine's yardstick, once per run, before `.overhead` (crate::yardstick): the cycle clock only.
        let _ = crate::yardstick::measure(
            &mut out,
            YARDSTICK_ITERATIONS,
            [true, false, false],
            |start| {
                if start {
                    [clock::cycles_start(), 0, 0]
                } else {
                    [clock::cycles_stop(), 0, 0]
                }
            },
            |a, b| [clock::cycles_between(a[0], b[0]), 0, 0],
        );
    }
    let mut batch_unit = 0;
    run_one(
        &settings,
        &Entry::new(".overhead", overhead),
        None,
        true,
        step,
        &mut batch_unit,
    )?;
    let mut ran = 0u64;
    for entry in entries {
        entry.args.each(|arg| {
            if !settings.selected(wire::Name::new(entry.name, arg).as_str()) {
                return Ok(());
            }
            ran += 1;
            run_one(&settings, entry, arg, false, step, &mut batch_unit)
        })?;
    }
    let mut out = Out::new();
    let _ = writeln!(out, "@done benchmarks={ran} dropped=0");
    Ok(())
}

/// Iterations of the yardstick's loop a repetition on a board: cheap under QEMU.
const YARDSTICK_ITERATIONS: u32 = 4096;

fn overhead(b: &mut Bench) {
    b.iter(|| ());
}

fn run_one(
    settings: &Settings,
    entry: &Entry,
    arg: Option<u64>,
    is_overhead: bool,
    step: u64,
    batch_unit: &mut u64,
) -> Result<(), &'static str> {
    let function = entry.run;
    let mut bench = Bench::new(entry.name, arg);
    {
        let mut out = Out::new();
        let _ = wire::bench(&mut out, &bench.name, bench.family, bench.arg);
    }
    bench.batch_unit = *batch_unit;
    bench.warmup_target = settings.warmup;
    bench.measured_target = if is_overhead {
        1_000
    } else {
        settings.iterations
    };
    bench.iterations_fixed = is_overhead;
    bench.scale = settings.scale;
    bench.cap_limit = (settings.cpu_hz / 1000).saturating_mul(settings.time_cap_ms);
    if is_overhead {
        bench.batch_forced = 1;
        bench.batch_priority = 3;
    } else if settings.batch != 0 {
        bench.batch_forced = settings.batch;
        bench.batch_priority = 1;
    }
    let region = (settings.stack_bytes > 0)
        .then(|| stack::Region::paint_below(clock::stack_pointer(), settings.stack_bytes as usize));
    let stack = bench.measure(region.as_ref(), function);
    bench.samples.flush();
    if let Some(what) = bench.misuse {
        return Err(what);
    }
    if !wire::is_name(bench.unit) || bench.per_iteration == 0 {
        return Err("Bench::unit: expected a name and at least 1 unit an iteration");
    }
    if is_overhead && bench.single_min != u64::MAX {
        *batch_unit = bench.single_min.max(step.max(1));
    }
    let mut out = Out::new();
    let _ = wire::block_end(&mut out, &bench.block_end(stack));
    Ok(())
}

/// A panic is reported on the stream's channel, and the program ends with a failure status.
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    {
        let mut out = Out::new();
        let _ = writeln!(out, "rho: panic: {}", info.message());
    }
    exit(101)
}
