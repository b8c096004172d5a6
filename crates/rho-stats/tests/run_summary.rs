//! The summary of whole runs, built from wire streams: overhead, raw and net, derived time, rates, best of N.

use rho_stats::{CpuLeftOut, Metric, RunSummary, SPREAD_CAP, StatsError, Summary, best_of};
use rho_wire::{ClockRole, StackMark, parse_str};

fn header(clocks: &str) -> String {
    format!(
        "@rho-bench 1\n@target host arch=x86_64 optimized=1\n{clocks}\
         @config iterations=4 warmup=1 time_cap_ms=5000 stack_bytes=65536\n"
    )
}

const TWO_CLOCKS: &str = "@clock cycles tsc unit=cycle hz=2000000000 resolution=1\n\
                          @clock time clock_gettime unit=ns hz=1000000000 resolution=20\n";

fn block(name: &str, samples: &[&str], tail: &str) -> String {
    let mut text = format!("@bench {name}\n");
    for s in samples {
        text.push_str(&format!(":{s}\n"));
    }
    let iterations = samples.len() - 1;
    text.push_str(&format!(
        "{tail}@end {name} iterations={iterations} warmup=1 capped=0 unit=byte per_iteration=64\n"
    ));
    text
}

const QUIET: &str = "@stack 312\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n";

/// Calibration: measured cycles [100, 110, 120, 100] -> median 100; ns [40, 60, 50, 40] -> median 40.
fn calibration() -> String {
    block(
        ".overhead",
        &["999 999", "100 40", "110 60", "120 50", "100 40"],
        "@stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n",
    )
}

fn two_clock_run(crc: &[&str]) -> String {
    format!(
        "{}{}{}{}@done benchmarks=2 dropped=0\n",
        header(TWO_CLOCKS),
        calibration(),
        block("crc", crc, QUIET),
        block(
            "pair",
            &["5 5", "200 100", "200 100", "200 100", "200 100"],
            "@stack overrun\n@heap peak=64 live=64 allocs=4 frees=3 free_errors=1\n"
        ),
    )
}

#[test]
fn overhead_raw_and_net() {
    // crc measured cycles [2100, 2000, 2200, 2010] -> sorted [2000, 2010, 2100, 2200], median 2010;
    // ns [1040, 1000, 1100, 1010] -> median 1010.
    let run = parse_str(&two_clock_run(&[
        "9000 9000",
        "2100 1040",
        "2000 1000",
        "2200 1100",
        "2010 1010",
    ]))
    .unwrap();
    let summary = RunSummary::of(&run).unwrap();
    assert!(summary.calibrated);
    assert_eq!(summary.repetitions, 1);
    assert_eq!(summary.overhead.len(), 2);
    assert_eq!(summary.overhead[0].median, 100);
    assert_eq!(summary.overhead[0].clock.name, "tsc");
    assert_eq!(summary.overhead[1].median, 40);
    assert!(!summary.overhead[1].derived);

    let crc = &summary.benchmarks[0];
    assert_eq!(crc.name, "crc");
    assert_eq!((crc.iterations, crc.warmup, crc.per_iteration), (4, 1, 64));
    let cycles = crc.cycles.as_ref().unwrap();
    assert_eq!(cycles.clock.role, ClockRole::Cycles);
    assert_eq!(cycles.overhead, 100);
    // The warm-up (9000) is dropped.
    assert_eq!(
        (
            cycles.raw.n,
            cycles.raw.min,
            cycles.raw.median,
            cycles.raw.max
        ),
        (4, 2000, 2010, 2200)
    );
    assert_eq!(
        (cycles.net.min, cycles.net.median, cycles.net.max),
        (1900, 1910, 2100)
    );
    assert_eq!(cycles.raw.mean, 2077.5);
    assert_eq!(cycles.net.mean, 1977.5);
    let time = crc.time.as_ref().unwrap();
    assert!(!time.derived);
    assert_eq!(time.clock.resolution, 20);
    assert_eq!(time.net.median, 970);
    // 64 bytes per iteration in 970 ns.
    assert_eq!(crc.ops_per_second, Some(64.0 * 1e9 / 970.0));
    assert_eq!(crc.ns_per_op, Some(970.0 / 64.0));
    assert_eq!(crc.metric(Metric::Cycles), Some(1910.0));
    assert_eq!(crc.metric(Metric::TimeNs), Some(970.0));
    assert_eq!(crc.metric(Metric::StackBytes), Some(312.0));
    assert_eq!(crc.metric(Metric::HeapPeakBytes), Some(0.0));
    assert!(!crc.leaked);

    let pair = summary.benchmark("pair").unwrap();
    assert_eq!(pair.stack, StackMark::Overrun);
    assert_eq!(pair.metric(Metric::StackBytes), None);
    assert!(pair.leaked);
    assert_eq!(pair.heap.map(|h| h.free_errors), Some(1));
    assert_eq!(pair.cycles.as_ref().unwrap().net.median, 100);

    // Everything the CLI exports serialises and reads back.
    let json = serde_json::to_string(&summary).unwrap();
    let back: RunSummary = serde_json::from_str(&json).unwrap();
    assert_eq!(back, summary);
}

#[test]
fn body_below_the_overhead_nets_to_zero_with_a_capped_spread() {
    let run = parse_str(&two_clock_run(&[
        "0 0", "90 30", "100 40", "130 50", "95 40",
    ]))
    .unwrap();
    let summary = RunSummary::of(&run).unwrap();
    let crc = &summary.benchmarks[0];
    let cycles = crc.cycles.as_ref().unwrap();
    assert_eq!(cycles.net.median, 0);
    assert_eq!(cycles.net.min, 0);
    assert_eq!(cycles.net.spread.ratio, SPREAD_CAP);
    assert!(cycles.net.spread.capped);
    // A rate over 0 ns does not exist.
    assert_eq!(crc.time.as_ref().unwrap().net.median, 0);
    assert_eq!(crc.ops_per_second, None);
    assert_eq!(crc.ns_per_op, Some(0.0));
}

#[test]
fn time_derived_from_cycles_when_there_is_no_time_clock() {
    let text = format!(
        "{}{}{}@done benchmarks=1 dropped=0\n",
        header("@clock cycles dwt unit=cycle hz=25000000 resolution=1\n"),
        block(
            ".overhead",
            &["9", "5", "6", "5", "5"],
            "@stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n"
        ),
        block("crc", &["0", "2005", "2505", "2005", "3005"], QUIET),
    );
    let summary = RunSummary::of(&parse_str(&text).unwrap()).unwrap();
    // Overhead: one entry for dwt, one derived in ns: 5 cycles at 25 MHz = 200 ns.
    assert_eq!(summary.overhead.len(), 2);
    assert!(summary.overhead[1].derived);
    assert_eq!(summary.overhead[1].median, 200);
    assert_eq!(summary.overhead[1].clock.unit, "ns");
    let crc = &summary.benchmarks[0];
    let time = crc.time.as_ref().unwrap();
    assert!(time.derived);
    assert_eq!(time.clock.name, "dwt");
    assert_eq!(time.clock.role, ClockRole::Time);
    // 1 cycle = 40 ns.
    assert_eq!(time.clock.resolution, 40);
    // Cycles: raw median 2005, net 2000 -> 80000 ns; raw 2005 -> 80200 ns.
    assert_eq!(crc.cycles.as_ref().unwrap().net.median, 2000);
    assert_eq!(time.raw.median, 80_200);
    assert_eq!(time.net.median, 80_000);
    assert_eq!(time.overhead, 200);
    assert_eq!(time.raw.max, 120_200);
    assert_eq!(crc.ops_per_second, Some(64.0 * 1e9 / 80_000.0));
}

#[test]
fn no_time_without_a_frequency() {
    let text = format!(
        "{}{}@done benchmarks=1 dropped=0\n",
        header("@clock cycles dwt unit=cycle hz=0 resolution=1\n"),
        block("crc", &["0", "2005", "2505", "2005", "3005"], QUIET),
    );
    let summary = RunSummary::of(&parse_str(&text).unwrap()).unwrap();
    assert!(!summary.calibrated);
    assert!(summary.overhead.is_empty());
    let crc = &summary.benchmarks[0];
    assert!(crc.time.is_none());
    assert_eq!(crc.metric(Metric::TimeNs), None);
    assert_eq!(crc.ops_per_second, None);
    assert_eq!(crc.ns_per_op, None);
    // Uncalibrated: net is raw.
    let cycles = crc.cycles.as_ref().unwrap();
    assert_eq!(cycles.net, cycles.raw);
    assert_eq!(cycles.overhead, 0);
}

#[test]
fn time_only_stream() {
    let text = format!(
        "{}{}@done benchmarks=1 dropped=0\n",
        header("@clock time clock_gettime unit=ns hz=1000000000 resolution=1\n"),
        block("crc", &["0", "700", "650", "700", "900"], QUIET),
    );
    let summary = RunSummary::of(&parse_str(&text).unwrap()).unwrap();
    let crc = &summary.benchmarks[0];
    assert!(crc.cycles.is_none());
    assert_eq!(crc.time.as_ref().unwrap().raw.median, 700);
}

#[test]
fn a_benchmark_without_measured_samples_is_an_error() {
    let text = format!(
        "{}@bench idle\n:5 5\n{QUIET}@end idle iterations=0 warmup=1 capped=1 unit=iter per_iteration=1\n\
         @done benchmarks=1 dropped=0\n",
        header(TWO_CLOCKS)
    );
    let e = RunSummary::of(&parse_str(&text).unwrap()).unwrap_err();
    assert_eq!(
        e,
        StatsError::NoSamples {
            benchmark: "idle".to_string()
        }
    );
    assert_eq!(
        e.to_string(),
        "benchmark idle: no measured samples to summarise"
    );

    let text = format!(
        "{}@bench .overhead\n:5 5\n{QUIET}@end .overhead iterations=0 warmup=1 capped=0 unit=iter per_iteration=1\n\
         @done benchmarks=0 dropped=0\n",
        header(TWO_CLOCKS)
    );
    let e = RunSummary::of(&parse_str(&text).unwrap()).unwrap_err();
    assert_eq!(
        e,
        StatsError::EmptyCalibration {
            clock: "tsc".to_string()
        }
    );
}

#[test]
fn a_hand_built_run_with_missing_columns_is_an_error() {
    let mut run = parse_str(&two_clock_run(&["1 1", "2 2", "3 3", "4 4", "5 5"])).unwrap();
    run.benchmarks[1].samples.pop();
    let e = RunSummary::of(&run).unwrap_err();
    assert!(
        matches!(
            e,
            StatsError::ColumnMismatch {
                columns: 1,
                clocks: 2,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn best_of_keeps_the_lowest_figures_per_metric() {
    let slow = RunSummary::of(
        &parse_str(&two_clock_run(&[
            "0 0",
            "3100 1500",
            "3000 1400",
            "3200 1600",
            "3010 1410",
        ]))
        .unwrap(),
    )
    .unwrap();
    // Fast in cycles, but its time clock saw a hiccup.
    let fast = RunSummary::of(
        &parse_str(&two_clock_run(&[
            "0 0",
            "2100 9000",
            "2000 9000",
            "2200 9000",
            "2010 9000",
        ]))
        .unwrap(),
    )
    .unwrap();
    let best = best_of(&[slow.clone(), fast.clone()]).unwrap();
    assert_eq!(best.repetitions, 2);
    let crc = &best.benchmarks[0];
    assert_eq!(crc.cycles, fast.benchmarks[0].cycles);
    assert_eq!(crc.time, slow.benchmarks[0].time);
    assert_eq!(crc.ops_per_second, slow.benchmarks[0].ops_per_second);
    assert_eq!(crc.metric(Metric::Cycles), Some(1910.0));
    assert_eq!(crc.metric(Metric::TimeNs), Some(1370.0));
    // Folding a folded summary counts every run.
    let three = best_of(&[best.clone(), slow.clone()]).unwrap();
    assert_eq!(three.repetitions, 3);
    assert_eq!(three.benchmarks[0].cycles, crc.cycles);
    // One run is itself.
    assert_eq!(best_of(std::slice::from_ref(&slow)).unwrap(), slow);
}

#[test]
fn best_of_keeps_warnings_and_the_worst_stack_and_heap_from_any_run() {
    let a =
        RunSummary::of(&parse_str(&two_clock_run(&["1 1", "2 2", "3 3", "4 4", "5 5"])).unwrap())
            .unwrap();
    let mut b = a.clone();
    let heap = b.benchmarks[0].heap.as_mut().unwrap();
    heap.live = 8;
    heap.peak = 0;
    b.benchmarks[0].capped = true;
    b.benchmarks[0].stack = StackMark::Bytes(100);
    // The second benchmark overran in `a` only.
    b.benchmarks[1].stack = StackMark::Bytes(64);
    let mut a2 = a.clone();
    a2.benchmarks[0].heap.as_mut().unwrap().peak = 16;
    let best = best_of(&[a2, b]).unwrap();
    let crc = &best.benchmarks[0];
    // Noise does not allocate or deepen a stack: the highest peak and the deepest stack are kept.
    assert_eq!(crc.heap.map(|h| (h.peak, h.live)), Some((16, 8)));
    assert!(crc.leaked);
    assert!(crc.capped);
    assert_eq!(crc.stack, StackMark::Bytes(312));
    // An overrun in any run stays an overrun.
    assert_eq!(best.benchmarks[1].stack, StackMark::Overrun);
}

/// A heap not measured (`@heap off`, version 6) has no heap peak metric and no leak, never a 0; best of runs
/// keeps it not measured.
#[test]
fn a_heap_not_measured_has_no_heap_figure() {
    let text =
        two_clock_run(&["1 1", "2 2", "3 3", "4 4", "5 5"]).replace("@rho-bench 1", "@rho-bench 6");
    let mut off = text.clone();
    while let Some(at) = off.find("@heap peak=") {
        let end = at + off[at..].find('\n').unwrap();
        off.replace_range(at..end, "@heap off");
    }
    assert_ne!(off, text);
    let summary = RunSummary::of(&parse_str(&off).unwrap()).unwrap();
    for bench in &summary.benchmarks {
        assert_eq!(bench.heap, None, "{}", bench.name);
        assert_eq!(bench.metric(Metric::HeapPeakBytes), None, "{}", bench.name);
        assert!(!bench.leaked, "{}", bench.name);
    }
    let best = best_of(&[summary.clone(), summary]).unwrap();
    assert!(best.benchmarks.iter().all(|b| b.heap.is_none()));
}

#[test]
fn best_of_refuses_runs_that_are_not_repetitions() {
    assert_eq!(best_of(&[]).unwrap_err(), StatsError::NoRuns);
    let a =
        RunSummary::of(&parse_str(&two_clock_run(&["1 1", "2 2", "3 3", "4 4", "5 5"])).unwrap())
            .unwrap();
    let mut other_target = a.clone();
    other_target.target.name = "stm32h743zi".to_string();
    let e = best_of(&[a.clone(), other_target]).unwrap_err();
    assert!(matches!(e, StatsError::Mismatch { run: 1, .. }), "{e}");
    assert!(e.to_string().contains("target stm32h743zi"), "{e}");
    let mut fewer = a.clone();
    fewer.benchmarks.pop();
    assert!(best_of(&[a.clone(), fewer]).is_err());
    let mut clocks = a.clone();
    clocks.clocks.pop();
    assert!(best_of(&[a, clocks]).is_err());
}

#[test]
fn summary_of_measured_matches_the_run_summary() {
    let run = parse_str(&two_clock_run(&["9 9", "7 1", "3 2", "5 3", "1 4"])).unwrap();
    let summary = RunSummary::of(&run).unwrap();
    let direct = Summary::of(run.benchmarks[0].measured(0)).unwrap();
    assert_eq!(summary.benchmarks[0].cycles.as_ref().unwrap().raw, direct);
}

#[test]
fn cycles_that_spanned_an_uncounted_wrap_are_not_measured_nor_is_time_derived_from_them() {
    let wrapped_block = block("long", &["0", "2005", "2505", "2005", "3005"], QUIET)
        .replace("per_iteration=64\n", "per_iteration=64 wrapped=2\n");
    let text = format!(
        "{}{}{}{}@done benchmarks=2 dropped=0\n",
        header("@clock cycles systick unit=cycle hz=25000000 resolution=1\n"),
        block(
            ".overhead",
            &["9", "5", "6", "5", "5"],
            "@stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n"
        ),
        wrapped_block,
        block("short", &["0", "2005", "2505", "2005", "3005"], QUIET),
    );
    let summary = RunSummary::of(&parse_str(&text).unwrap()).unwrap();
    let long = summary.benchmark("long").unwrap();
    assert_eq!(long.cycles_wrapped, 2);
    assert!(
        long.cycles.is_none(),
        "a wrapped figure understates the truth"
    );
    assert!(
        long.time.is_none(),
        "time derived from unmeasured cycles is unmeasured too"
    );
    assert_eq!(long.ops_per_second, None);
    assert_eq!(long.metric(Metric::Cycles), None);
    let short = summary.benchmark("short").unwrap();
    assert_eq!(short.cycles_wrapped, 0);
    assert_eq!(short.cycles.as_ref().unwrap().net.median, 2000);
}

/// A benchmark the harness stopped when its stack ran into the guard (`@end overran=1`, wire version 5) is
/// summarised with no figures at all, even with no measured sample, and does not stop the others' summary;
/// an overrun in any repetition keeps it stopped in the best of them.
#[test]
fn a_benchmark_stopped_by_a_stack_overrun_has_no_figures_and_the_others_keep_theirs() {
    let stopped = "@bench deep\n:5 5\n@stack overrun\n@heap peak=64 live=64 allocs=1 frees=0 free_errors=0\n\
                   @end deep iterations=0 warmup=1 capped=0 unit=iter per_iteration=1 overran=1\n";
    let text = format!(
        "{}{}{stopped}{}@done benchmarks=2 dropped=0\n",
        header(TWO_CLOCKS).replace("@rho-bench 1", "@rho-bench 5"),
        calibration(),
        block(
            "crc",
            &["9 9", "2100 1040", "2000 1000", "2200 1100", "2010 1010"],
            QUIET
        ),
    );
    let summary = RunSummary::of(&parse_str(&text).unwrap()).unwrap();
    let deep = summary.benchmark("deep").unwrap();
    assert!(deep.overran);
    assert!(deep.cycles.is_none() && deep.time.is_none());
    assert_eq!(deep.stack, StackMark::Overrun);
    assert!(!deep.leaked, "what it held when stopped is no leak");
    for metric in Metric::ALL {
        assert_eq!(deep.metric(metric), None, "{metric:?}");
    }
    assert_eq!(deep.ops_per_second, None);
    let crc = summary.benchmark("crc").unwrap();
    assert_eq!(crc.cycles.as_ref().unwrap().raw.median, 2010);
    assert_eq!(crc.metric(Metric::StackBytes), Some(312.0));

    // Folded with a run where it finished: still stopped, still no figures.
    let finished = text.replace(
        "@bench deep\n:5 5\n@stack overrun\n@heap peak=64 live=64 allocs=1 frees=0 free_errors=0\n\
         @end deep iterations=0 warmup=1 capped=0 unit=iter per_iteration=1 overran=1\n",
        "@bench deep\n:5 5\n:7 7\n@stack 400\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
         @end deep iterations=1 warmup=1 capped=0 unit=iter per_iteration=1\n",
    );
    let other = RunSummary::of(&parse_str(&finished).unwrap()).unwrap();
    assert!(other.benchmark("deep").unwrap().cycles.is_some());
    let best = best_of(&[other, summary]).unwrap();
    let deep = best.benchmark("deep").unwrap();
    assert!(deep.overran && deep.cycles.is_none() && deep.time.is_none());
    assert_eq!(deep.stack, StackMark::Overrun);
}

/// Wire version 7's `@clock cpu`: the thread's CPU time, netted of `.overhead`'s CPU column like every clock,
/// is the run's `cpu_ns`; a benchmark whose other threads used more than 1% of its thread's CPU time
/// (`@end other_cpu_ns=`) has none, since its thread's CPU time is not the benchmark's.
#[test]
fn a_cpu_clock_gives_cpu_ns_unless_other_threads_worked() {
    let stream = |other: u64| cpu_stream(60, other);
    // The thread's 4800 ns: 48 ns of other threads' work is 1%, still its own; 49 ns is not.
    let alone = RunSummary::of(&parse_str(&stream(48)).unwrap()).unwrap();
    let work = alone.benchmark("work").unwrap();
    // Net: median 1600 - 60, while the wall clock read 5000 - 50 with a neighbour in the way.
    assert_eq!(work.metric(Metric::CpuNs), Some(1540.0));
    assert_eq!(work.metric(Metric::TimeNs), Some(4950.0));
    let pooled = RunSummary::of(&parse_str(&stream(49)).unwrap()).unwrap();
    let work = pooled.benchmark("work").unwrap();
    assert_eq!(work.metric(Metric::CpuNs), None);
    assert_eq!(work.metric(Metric::TimeNs), Some(4950.0));
    assert_eq!(work.cpu_left_out, Some(CpuLeftOut::OtherThreads));
    assert_eq!(alone.benchmark("work").unwrap().cpu_left_out, None);
}

/// A stream of one benchmark `work` whose CPU samples read 1590 to 1610 ns, with `.overhead`'s CPU column
/// reading `cpu_read` ns and its other threads `other` ns.
fn cpu_stream(cpu_read: u64, other: u64) -> String {
    format!(
        "@rho-bench 7\n@target host arch=x86_64 optimized=1\n\
         @clock time clock_gettime unit=ns hz=1000000000 resolution=20\n\
         @clock cpu clock_thread_cputime unit=ns hz=1000000000 resolution=1\n\
         @config iterations=3 warmup=0 time_cap_ms=0 stack_bytes=0\n\
         @bench .overhead\n:50 {cpu_read}\n:50 {cpu_read}\n:50 {cpu_read}\n@stack off\n@heap off\n\
         @end .overhead iterations=3 warmup=0 capped=0 unit=iter per_iteration=1 other_cpu_ns=0\n\
         @bench work\n:5000 1600\n:9000 1610\n:4000 1590\n@stack off\n@heap off\n\
         @end work iterations=3 warmup=0 capped=0 unit=iter per_iteration=1 other_cpu_ns={other}\n\
         @done benchmarks=1 dropped=0\n"
    )
}

/// The CPU clock is a system call whose cost moves within a run by a fifth or more: a sample less than
/// `CPU_SAMPLE_MIN_READS` (10) of its reads long has no CPU time (CI read a 3 ns body at 0 CPU ns, then 3.4),
/// and its wall-clock figures stand. The boundary is inclusive: 10 reads' worth is kept.
#[test]
fn a_sample_shorter_than_ten_reads_of_the_cpu_clock_has_no_cpu_time() {
    assert_eq!(rho_stats::CPU_SAMPLE_MIN_READS, 10);
    // Net 1600 - 145 = 1455 ns: just over 10 reads of 145; 146 makes it 1454 against 1460.
    let kept = RunSummary::of(&parse_str(&cpu_stream(145, 0)).unwrap()).unwrap();
    assert_eq!(
        kept.benchmark("work").unwrap().metric(Metric::CpuNs),
        Some(1455.0)
    );
    let short = RunSummary::of(&parse_str(&cpu_stream(146, 0)).unwrap()).unwrap();
    let work = short.benchmark("work").unwrap();
    assert_eq!(work.metric(Metric::CpuNs), None);
    assert_eq!(work.metric(Metric::TimeNs), Some(4950.0));
    assert_eq!(work.cpu_left_out, Some(CpuLeftOut::ShortSamples));
    // Of two runs folded, the one that resolved it gives the figure, and nothing is said left out.
    let best = best_of(&[short.clone(), kept]).unwrap();
    let work = best.benchmark("work").unwrap();
    assert_eq!(
        (work.metric(Metric::CpuNs), work.cpu_left_out),
        (Some(1455.0), None)
    );
    let best = best_of(&[short.clone(), short]).unwrap();
    assert_eq!(
        best.benchmark("work").unwrap().cpu_left_out,
        Some(CpuLeftOut::ShortSamples)
    );
    // The same figures from a harness whose read costs 600 ns, as on a VM: 1000 ns is under two reads.
    let vm = RunSummary::of(&parse_str(&cpu_stream(600, 0)).unwrap()).unwrap();
    assert_eq!(vm.benchmark("work").unwrap().metric(Metric::CpuNs), None);
}
