//! Throughput of the host side: wire stream -> `Run` (parse) and wire stream -> `RunSummary` (parse + every
//! statistic), in samples per second, on a realistic stream built with the writer.
//!
//! `cargo bench -p rho-stats --bench parse_and_summarise`. The target is at least 20 million samples per second
//! through parse and summary. A sample is one `:A B` line (one iteration, both clocks).

use std::hint::black_box;
use std::time::{Duration, Instant};

use rho_stats::{RunSummary, Summary};
use rho_wire::{
    Benchmark, Clock, ClockRole, HeapFigures, Run, RunConfig, StackMark, StreamParser, Target,
    parse_bytes, write_run,
};

const ITERATIONS: u64 = 20_000;
const WARMUP: u64 = 100;
const ROUNDS: usize = 15;

/// xorshift64*: a fixed, dependency-free source of jitter.
struct Jitter(u64);

impl Jitter {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Roughly `typical` give or take `percent`%, with a rare slow outlier (1 in `outlier_every`, x10).
    fn around(&mut self, typical: u64, percent: u64, outlier_every: u64) -> u64 {
        let r = self.next();
        let width = (typical * percent / 100).max(1);
        let value = typical - width / 2 + (r % width);
        if outlier_every > 0 && (r >> 32) % outlier_every == 0 {
            value * 10
        } else {
            value
        }
    }
}

/// A benchmark the way the example suite prints one: cycles at ~2.9 GHz and a 20 ns-resolution time clock.
fn benchmark(
    name: &str,
    cycles: u64,
    outlier_every: u64,
    jitter: &mut Jitter,
    iterations: u64,
) -> Benchmark {
    let rows = (WARMUP + iterations) as usize;
    let mut cycle_column = Vec::with_capacity(rows);
    let mut time_column = Vec::with_capacity(rows);
    for _ in 0..rows {
        let c = jitter.around(cycles, 6, outlier_every);
        cycle_column.push(c);
        // ns = cycles / 2.9, seen through a clock that steps in 20 ns.
        time_column.push(c * 10 / 29 / 20 * 20);
    }
    Benchmark {
        name: name.to_string(),
        unit: "byte".to_string(),
        per_iteration: 64,
        samples: vec![cycle_column, time_column],
        warmup: WARMUP,
        iterations,
        capped: false,
        stack: StackMark::Bytes(312),
        heap: Some(HeapFigures::default()),
        wrapped: 0,
        counts: Vec::new(),
        family: None,
        batch: 1,
        overran: false,
        other_cpu_ns: None,
        preempted: 0,
        rerun: 0,
    }
}

fn realistic_run() -> Run {
    let mut jitter = Jitter(0x9e37_79b9_7f4a_7c15);
    let suite = [
        ("bench_empty", 117, 0),
        ("bench_crc_64", 1987, 0),
        ("bench_crc_256", 7821, 0),
        ("bench_malloc_free", 107, 0),
        ("bench_outlier", 2000, 1000),
        ("bench_sha256_1k", 52_000, 5000),
    ];
    Run {
        version: 1,
        target: Target {
            name: "host".to_string(),
            arch: "x86_64".to_string(),
            optimized: true,
            compiler: Some("gcc-12.2.0".to_string()),
        },
        clocks: vec![
            Clock {
                role: ClockRole::Cycles,
                name: "tsc".to_string(),
                unit: "cycle".to_string(),
                hz: Some(2_899_912_000),
                resolution: 1,
            },
            Clock {
                role: ClockRole::Time,
                name: "clock_gettime".to_string(),
                unit: "ns".to_string(),
                hz: Some(1_000_000_000),
                resolution: 20,
            },
        ],
        counter: None,
        calibration: Some(Benchmark {
            name: ".overhead".to_string(),
            unit: "iter".to_string(),
            ..benchmark(".overhead", 24, 0, &mut jitter, 1000)
        }),
        config: RunConfig {
            iterations: ITERATIONS,
            warmup: WARMUP,
            time_cap_ms: Some(5000),
            stack_bytes: Some(65536),
            stack_guard: None,
        },
        benchmarks: suite
            .iter()
            .map(|&(name, cycles, outliers)| {
                benchmark(name, cycles, outliers, &mut jitter, ITERATIONS)
            })
            .collect(),
        dropped: 0,
        noise_lines: 0,
        yardstick: None,
    }
}

/// Best and median of `ROUNDS` timings of `f`.
fn time<T>(mut f: impl FnMut() -> T) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[0], times[ROUNDS / 2])
}

fn report(what: &str, samples: u64, bytes: usize, (best, median): (Duration, Duration)) {
    let rate = |d: Duration| samples as f64 / d.as_secs_f64() / 1e6;
    println!(
        "{what:<28} {:>7.2} M samples/s best, {:>7.2} M median  ({:.2} ms best, {:.0} MB/s)",
        rate(best),
        rate(median),
        best.as_secs_f64() * 1e3,
        bytes as f64 / best.as_secs_f64() / 1e6,
    );
}

fn main() {
    // `cargo test --benches` runs benches with `--bench` absent: do one quick round only, as a smoke test.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let run = realistic_run();
    let mut stream = Vec::new();
    if let Err(e) = write_run(&mut stream, &run) {
        eprintln!("cannot write the stream: {e}");
        std::process::exit(2);
    }
    let samples: u64 = run
        .calibration
        .iter()
        .chain(&run.benchmarks)
        .map(|b| b.warmup + b.iterations)
        .sum();
    match parse_bytes(&stream) {
        Ok(parsed) if parsed == run => {}
        other => {
            eprintln!("the stream does not parse back to the run: {other:?}");
            std::process::exit(2);
        }
    }
    if smoke {
        let summary = parse_bytes(&stream).map(|r| RunSummary::of(&r));
        println!(
            "smoke run: {} samples, summary ok: {}",
            samples,
            matches!(summary, Ok(Ok(_)))
        );
        return;
    }
    println!(
        "stream: {} benchmarks + .overhead, {samples} samples of 2 clocks, {} bytes ({:.1} bytes/sample)",
        run.benchmarks.len(),
        stream.len(),
        stream.len() as f64 / samples as f64
    );
    report(
        "parse",
        samples,
        stream.len(),
        time(|| parse_bytes(&stream)),
    );
    report(
        "parse + RunSummary",
        samples,
        stream.len(),
        time(|| parse_bytes(&stream).map(|r| RunSummary::of(&r))),
    );
    report(
        "parse line by line",
        samples,
        stream.len(),
        time(|| {
            // What a caller that reads lines itself does (e.g. from a child's pipe): feed_line per line.
            let mut parser = StreamParser::new();
            for line in stream.split_inclusive(|&b| b == b'\n') {
                if parser.feed_line(line).is_err() {
                    break;
                }
            }
            parser.finish()
        }),
    );
    report(
        "RunSummary alone",
        samples,
        stream.len(),
        time(|| RunSummary::of(&run)),
    );
    let column = run.benchmarks[1].measured(0);
    let (best, median) = time(|| Summary::of(column));
    report(
        "Summary of one column",
        column.len() as u64,
        0,
        (best, median),
    );
}
