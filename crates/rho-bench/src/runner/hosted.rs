//! Running a suite on a hosted target: settings, the header, `.overhead`, each benchmark on a thread of its
//! own with a painted stack, the stream on stdout (run by rho) or the report (`cargo bench` alone, default
//! feature `report`).

use std::fmt::Write as _;
use std::io::Write as _;

use crate::bench::Bench;
use crate::error::Error;
use crate::heap::{self, Uncounted};
use crate::hosted::settings::{self, Measure, Output, Settings};
use crate::hosted::{clock, stack, valgrind};
use crate::suite::{BuildInfo, Entry};
use crate::wire::{self, Stack};

/// The run's shared figures: the clocks' and the sizing unit.
struct Run<'a> {
    settings: &'a Settings,
    counting: bool,
    batch_unit: u64,
    /// The sizing clock's resolution, measured once for the header (0: never seen to move).
    sizing_step: u64,
    dumps: u64,
}

/// The entry point of `main!`: settings from the environment and the command line, the suite run, the
/// stream or the report printed. Returns the process's exit status: 0, or 2 on a bad setting, a misuse or
/// an output error (the message on stderr).
pub fn main(entries: &[Entry], build: BuildInfo) -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cargo bench` passes `--bench`; `cargo test --benches` (or `--all-targets`) does not.
    let benching = args.iter().any(|a| a == "--bench");
    let result = Settings::from_env(args).and_then(|mut settings| {
        if settings.list {
            let listing = listing(entries, &settings)?;
            let stdout = std::io::stdout();
            let mut out = Sink::Stdout(stdout.lock());
            out.write(&listing)?;
            return out.flush();
        }
        if settings.measure == Measure::Instructions && settings.output == Output::Report {
            // The counts are in Callgrind's dumps, which rho reads: only the stream makes sense.
            settings.output = Output::Wire;
        }
        if settings.output == Output::Report && !benching {
            return smoke_test(entries, settings, build);
        }
        match settings.output {
            Output::Wire => {
                let stdout = std::io::stdout();
                let mut out = Sink::Stdout(stdout.lock());
                run(entries, &settings, build, &mut out)
            }
            #[cfg(not(feature = "report"))]
            Output::Report => {
                eprintln!(
                    "rho-bench: printing the wire stream (rho reads it); the text report needs rho-bench's default feature `report`"
                );
                let stdout = std::io::stdout();
                let mut out = Sink::Stdout(stdout.lock());
                run(entries, &settings, build, &mut out)
            }
            #[cfg(feature = "report")]
            Output::Report => {
                let mut out = Sink::Memory(Vec::new(), true);
                run(entries, &settings, build, &mut out)?;
                let Sink::Memory(stream, _) = out else {
                    unreachable!("a report run writes to memory")
                };
                let report = report(&stream, &suite_name())?;
                print!("{report}");
                Ok(())
            }
        }
    });
    match result {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("rho: {error}");
            2
        }
    }
}

/// The listing (`RHO_BENCH_LIST=1`, docs/wire-format.md "Listing"), as the C harness prints it: `@list NAME`
/// for each benchmark the filter selects, in run order (a family member as `NAME/ARG`), then `@done`.
/// Nothing runs. A misused entry is refused as a run refuses it.
pub fn listing(entries: &[Entry], settings: &Settings) -> Result<String, Error> {
    let mut text = String::new();
    let mut listed = 0;
    for entry in entries {
        if let Some(what) = entry.misuse() {
            return Err(Error::Misuse {
                bench: entry.name.to_string(),
                what: what.to_string(),
            });
        }
        entry.args.each(|arg| {
            let name = wire::Name::new(entry.name, arg);
            if settings.selected(name.as_str()) {
                listed += 1;
                let _ = writeln!(text, "@list {}", name.as_str());
            }
            Ok::<(), Error>(())
        })?;
    }
    let _ = writeln!(text, "@done benchmarks={listed} dropped=0");
    Ok(text)
}

/// Under `cargo test` (no `--bench`, not run by rho), as criterion does: each benchmark's loop runs once, the
/// stream is checked by rho-wire, and one line says so per benchmark; nothing is measured or reported.
fn smoke_test(entries: &[Entry], mut settings: Settings, build: BuildInfo) -> Result<(), Error> {
    settings.iterations = 1;
    settings.warmup = 0;
    settings.time_cap_ms = 0;
    settings.iterations_for.clear();
    let mut out = Sink::Memory(Vec::new(), false);
    run(entries, &settings, build, &mut out)?;
    let Sink::Memory(stream, _) = out else {
        unreachable!("a test run writes to memory")
    };
    let run = rho_wire::parse_bytes(&stream).map_err(|e| Error::Report(e.to_string()))?;
    for bench in &run.benchmarks {
        println!("test {} ... ok", bench.name);
    }
    println!(
        "{} benchmarks ran once each (cargo test); `cargo bench` measures them",
        run.benchmarks.len()
    );
    Ok(())
}

/// The suite's name for the report: the executable's, less cargo's `-HASH`.
#[cfg(feature = "report")]
fn suite_name() -> String {
    let program = std::env::args().next().unwrap_or_default();
    let stem = std::path::Path::new(&program)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            name.to_string()
        }
        _ => stem,
    }
}

/// The text report of a stream (feature `report`): parsed by rho-wire, summarised by rho-stats, rendered by rho-report.
/// Warnings go to stderr.
#[cfg(feature = "report")]
pub fn report(stream: &[u8], source: &str) -> Result<String, Error> {
    let run = rho_wire::parse_bytes(stream).map_err(|e| Error::Report(e.to_string()))?;
    let summary = rho_stats::RunSummary::of(&run).map_err(|e| Error::Report(e.to_string()))?;
    for warning in rho_report::warnings(&summary) {
        eprintln!("rho: warning: {warning}");
    }
    // Without a CountingAlloc the stream says `@heap off`, and the report notes the heap as not measured.
    Ok(rho_report::render(&summary, source))
}

/// Where the stream goes: stdout (handed on at each benchmark's start and end) or memory (with progress
/// lines on stderr when `true`).
pub enum Sink<'a> {
    /// The process's stdout.
    Stdout(std::io::StdoutLock<'a>),
    /// A buffer; `true`: say each benchmark's name on stderr as it starts.
    Memory(Vec<u8>, bool),
}

impl Sink<'_> {
    fn write(&mut self, text: &str) -> Result<(), Error> {
        match self {
            Sink::Stdout(out) => out.write_all(text.as_bytes()).map_err(Error::Output),
            Sink::Memory(bytes, _) => {
                bytes.extend_from_slice(text.as_bytes());
                Ok(())
            }
        }
    }

    fn flush(&mut self) -> Result<(), Error> {
        match self {
            Sink::Stdout(out) => out.flush().map_err(Error::Output),
            Sink::Memory(..) => Ok(()),
        }
    }

    fn progress(&self, name: &str) {
        if let Sink::Memory(_, true) = self {
            eprintln!("rho-bench: {name}");
        }
    }
}

/// Runs the suite with these settings, writing the stream to `out`.
pub fn run(
    entries: &[Entry],
    settings: &Settings,
    build: BuildInfo,
    out: &mut Sink<'_>,
) -> Result<(), Error> {
    for entry in entries {
        if let Some(what) = entry.misuse() {
            return Err(Error::Misuse {
                bench: entry.name.to_string(),
                what: what.to_string(),
            });
        }
    }
    let counting = settings.measure == Measure::Instructions
        && {
            if !valgrind::SUPPORTED {
                eprintln!(
                    "rho: instructions not measured: Valgrind's client requests are not supported on this \
                 target; timing instead"
                );
                false
            } else if valgrind::running_on_valgrind() {
                true
            } else {
                return Err(Error::Setting {
                variable: "RHO_BENCH_MEASURE".to_string(),
                expected: "a run under `valgrind --tool=callgrind` (`rho bench --measure instructions` \
                           does) for instructions"
                    .to_string(),
                got: "instructions".to_string(),
            });
            }
        };
    // Counting takes no turns: a count does not depend on what else runs.
    if !counting {
        crate::hosted::lockstep::init()?;
    }
    // One allocation, so a CountingAlloc, if it is the global allocator, says so.
    drop(std::hint::black_box(Box::new(0u8)));

    let mut header = String::new();
    let compiler = format!("rustc-{}", env!("RHO_BENCH_RUSTC_VERSION"));
    let compiler = if wire::is_name(&compiler) {
        compiler
    } else {
        String::new()
    };
    let _ = wire::target(
        &mut header,
        "host",
        std::env::consts::ARCH,
        build.optimized,
        &compiler,
    );
    // Batches are sized in the cycle clock's steps where there is one, else the time clock's.
    let sizing_step = if counting {
        header.push_str("@counter instructions callgrind\n");
        0
    } else {
        let time_step = clock::time_resolution();
        let sizing_step = if clock::HAS_CYCLES {
            let step = clock::cycles_resolution();
            let (name, unit) = if cfg!(target_arch = "aarch64") {
                ("cntvct", "tick")
            } else {
                ("tsc", "cycle")
            };
            let hz = clock::cycles_hz();
            let _ = wire::clock(&mut header, "cycles", name, unit, hz, step);
            step
        } else {
            time_step
        };
        let (name, hz) = (clock::TIME_NAME, 1_000_000_000);
        let _ = wire::clock(&mut header, "time", name, "ns", hz, time_step);
        if clock::HAS_CPU {
            let step = clock::cpu_resolution();
            let _ = wire::clock(&mut header, "cpu", "clock_thread_cputime", "ns", hz, step);
        }
        sizing_step
    };
    let stack_guard = if settings.stack_bytes > 0 {
        "none"
    } else {
        "off"
    };
    let _ = wire::config(
        &mut header,
        settings.iterations,
        settings.warmup,
        if counting { 0 } else { settings.time_cap_ms },
        settings.stack_bytes,
        stack_guard,
    );
    if !counting {
        yardstick(&mut header);
    }
    out.write(&header)?;

    let mut run = Run {
        settings,
        counting,
        batch_unit: 0,
        sizing_step,
        dumps: 0,
    };
    run_one(
        &mut run,
        &Entry::new(".overhead", overhead),
        None,
        true,
        out,
    )?;
    let mut ran = 0;
    for entry in entries {
        entry.args.each(|arg| {
            if !settings.selected(wire::Name::new(entry.name, arg).as_str()) {
                return Ok(());
            }
            ran += 1;
            run_one(&mut run, entry, arg, false, out)
        })?;
    }
    out.write(&format!("@done benchmarks={ran} dropped=0\n"))?;
    out.flush()
}

/// The machine's yardstick, once per run, before `.overhead` (crate::yardstick), on every clock there is.
fn yardstick(header: &mut String) {
    let _ = crate::yardstick::measure(
        header,
        YARDSTICK_ITERATIONS,
        [clock::HAS_CYCLES, clock::HAS_TIME, clock::HAS_CPU],
        |start| {
            if start {
                let cpu = clock::cpu_now();
                let time = clock::time_now();
                let cycles = if clock::HAS_CYCLES {
                    clock::cycles_start()
                } else {
                    0
                };
                [cycles, time, cpu]
            } else {
                let cycles = if clock::HAS_CYCLES {
                    clock::cycles_stop()
                } else {
                    0
                };
                let time = clock::time_now();
                [cycles, time, clock::cpu_now()]
            }
        },
        |a, b| {
            [
                clock::cycles_between(a[0], b[0]),
                b[1].wrapping_sub(a[1]),
                b[2].wrapping_sub(a[2]),
            ]
        },
    );
}

/// Iterations of the yardstick's loop a repetition on a host: about half a millisecond here.
const YARDSTICK_ITERATIONS: u32 = 262_144;

/// `.overhead`: the empty loop, measured like any benchmark.
fn overhead(b: &mut Bench) {
    b.iter(|| ());
}

/// Runs one benchmark on a thread of its own and writes its block. `.overhead`'s least sample, with the
/// clock's step, sets the unit later batches are sized in.
fn run_one(
    run: &mut Run<'_>,
    entry: &Entry,
    arg: Option<u64>,
    is_overhead: bool,
    out: &mut Sink<'_>,
) -> Result<(), Error> {
    let settings = run.settings;
    let function = entry.run;
    let mut bench = Bench::new(entry.name, arg);
    let full = bench.name;
    let name = full.as_str();
    bench.counting = run.counting;
    bench.dumps = run.dumps;
    bench.batch_unit = run.batch_unit;
    bench.warmup_target = settings.warmup;
    bench.cap_limit = if run.counting {
        0
    } else {
        settings.time_cap_ms.saturating_mul(1_000_000)
    };
    if is_overhead {
        bench.batch_forced = 1;
        bench.batch_priority = 3;
    } else if let Some(&k) = settings.batch_for.get(entry.name) {
        bench.batch_forced = k;
        bench.batch_priority = 3;
    } else if settings.batch != 0 {
        bench.batch_forced = settings.batch;
        bench.batch_priority = 1;
    }
    let mut start = String::new();
    let _ = wire::bench(&mut start, &bench.name, bench.family, bench.arg);
    out.write(&start)?;
    out.flush()?;
    out.progress(name);

    let stack_bytes = settings.stack_bytes as usize;
    let (bench, stack) = std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name(name.to_string())
            .stack_size(stack_bytes + stack::SLACK_BYTES)
            .spawn_scoped(scope, move || {
                on_thread(bench, function, settings, is_overhead, stack_bytes)
            })
            .map_err(|e| Error::Thread(e.to_string()))?;
        thread
            .join()
            .map_err(|_| Error::Thread(format!("benchmark {name} panicked")))?
    })?;
    run.dumps = bench.dumps;

    if let Some(what) = bench.misuse {
        return Err(Error::Misuse {
            bench: name.to_string(),
            what: what.to_string(),
        });
    }
    if !wire::is_name(bench.unit) {
        return Err(Error::Misuse {
            bench: name.to_string(),
            what: format!(
                "unit \"{}\" is not a name (1 to 63 of [A-Za-z0-9_.:+-])",
                bench.unit
            ),
        });
    }
    if bench.per_iteration == 0 {
        return Err(Error::Misuse {
            bench: name.to_string(),
            what: "0 units an iteration; at least 1".to_string(),
        });
    }

    let mut block = String::with_capacity(bench.samples.0.len() * 16 + 256);
    // The columns of the clocks this target has: [cycles, time, cpu].
    let first = usize::from(!clock::HAS_CYCLES);
    let end = 2 + usize::from(clock::HAS_CPU);
    for sample in &bench.samples.0 {
        let figures = &sample[first..end];
        let _ = wire::sample(&mut block, figures);
        if block.len() > 1 << 16 {
            out.write(&block)?;
            block.clear();
        }
    }
    for (dump, iterations) in &bench.counts[..bench.counts_len] {
        let _ = writeln!(block, "@count {dump} iterations={iterations}");
    }
    let _ = wire::block_end(&mut block, &bench.block_end(stack));
    if is_overhead && run.batch_unit == 0 && bench.single_min != u64::MAX {
        // `.overhead`, the first block: the cost of the reads sets the unit batches are sized in.
        run.batch_unit = bench.single_min.max(run.sizing_step.max(1));
    }
    out.write(&block)?;
    out.flush()?;
    heap::uncounted(|| drop(bench));
    Ok(())
}

/// The benchmark's thread: paint the region below the harness's frame, run the benchmark (twice for a
/// counted `.overhead`: N then 2N iterations), scan.
fn on_thread(
    mut bench: Bench,
    function: fn(&mut Bench),
    settings: &Settings,
    is_overhead: bool,
    stack_bytes: usize,
) -> Result<(Bench, Stack), Error> {
    let fixed = if is_overhead {
        Some(settings::OVERHEAD_ITERATIONS)
    } else {
        settings
            .iterations_for
            .get(bench.family)
            .map(|&n| settings.scaled(n, true))
    };
    let iterations = fixed.unwrap_or(settings.iterations);
    bench.measured_target = iterations;
    bench.iterations_fixed = fixed.is_some();
    bench.scale = settings.scale;
    let capacity = (settings.warmup + iterations).min(1 << 20) as usize;
    bench.samples = Uncounted::with_capacity(if bench.counting { 0 } else { capacity });
    // The region: the stack below this frame.
    let region = if stack_bytes > 0 {
        let top = clock::stack_pointer();
        Some(stack::paint_below(top, stack_bytes).map_err(Error::Thread)?)
    } else {
        None
    };
    let stack = bench.measure(region.as_ref(), |bench| {
        function(bench);
        if is_overhead && bench.counting && bench.misuse.is_none() && bench.measured_done > 0 {
            // The empty loop again with twice the iterations: the host fits the fixed and per-iteration
            // costs.
            let first = bench.measured_done;
            bench.again(2 * first);
            function(bench);
            bench.measured_done = first;
        }
    });
    Ok((bench, stack))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nothing(b: &mut Bench) {
        b.iter(|| ());
    }

    #[test]
    fn the_listing_names_the_selected_benchmarks_and_family_members_in_run_order() {
        let entries = [
            Entry::new("bench_crc", nothing),
            Entry::family("sum", nothing, &[64, 1024]),
        ];
        let all = listing(&entries, &Settings::default()).unwrap();
        assert_eq!(
            all,
            "@list bench_crc\n@list sum/64\n@list sum/1024\n@done benchmarks=3 dropped=0\n"
        );
        let filtered = Settings {
            filter: vec!["sum/1024".to_string()],
            ..Settings::default()
        };
        assert_eq!(
            listing(&entries, &filtered).unwrap(),
            "@list sum/1024\n@done benchmarks=1 dropped=0\n"
        );
    }
}
