//! Batched samples in the statistics: a sample of K iterations is summarised as a sample, the calibrated
//! overhead taken off once per sample (the reads bracket the batch, not each iteration), then divided by K.

use rho_stats::RunSummary;
use rho_wire::parse_str;

const TAIL: &str = "@stack 64\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n";

/// Overhead 100 cycles and 40 ns (the `.overhead` medians); `short` is timed in batches of 64: its samples
/// are 64 iterations of about 24.3 cycles each plus one set of reads.
fn stream(version: u32, batch_field: &str) -> String {
    format!(
        "@rho-bench {version}\n@target host arch=x86_64 optimized=1\n\
         @clock cycles tsc unit=cycle hz=2000000000 resolution=52\n\
         @clock time clock_gettime unit=ns hz=1000000000 resolution=20\n\
         @config iterations=256 warmup=1 time_cap_ms=5000 stack_bytes=65536\n\
         @bench .overhead\n:999 999\n:100 40\n:104 40\n:100 60\n{TAIL}\
         @end .overhead iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n\
         @bench short\n:150 80\n:1656 820\n:1660 800\n:1708 840\n:1656 800\n{TAIL}\
         @end short iterations=256 warmup=1 capped=0 unit=iter per_iteration=1{batch_field}\n\
         @done benchmarks=1 dropped=0\n"
    )
}

#[test]
fn a_batch_is_one_sample_net_of_one_overhead_divided_by_its_iterations() {
    let run = parse_str(&stream(4, " batch=64")).unwrap();
    let summary = RunSummary::of(&run).unwrap();
    let short = summary.benchmark("short").unwrap();
    assert_eq!((short.iterations, short.batch), (256, 64));
    let cycles = short.cycles.as_ref().unwrap();
    assert_eq!((cycles.batch, cycles.net.n), (64, 4));
    // Samples 1656, 1656, 1660, 1708: median (lower middle) 1656, less the overhead 100 ONCE: 1556 a batch,
    // 24.3125 cycles an iteration (not 1656 / 64 - 100, nor 1656 / 64 rounded to the 52-cycle step).
    assert_eq!(cycles.net.median, 1556);
    assert_eq!(cycles.per_iteration.median, 1556.0 / 64.0);
    assert_eq!(cycles.per_iteration.max, 1608.0 / 64.0);
    assert_eq!(short.metric(rho_stats::Metric::Cycles), Some(24.3125));
    // One step of 52 cycles over a batch of 64 is 0.8125 of a cycle an iteration: well seen.
    assert!(!cycles.below_resolution);
    assert_eq!(cycles.resolution_per_iteration(), 52.0 / 64.0);
    let time = short.time.as_ref().unwrap();
    assert_eq!(time.per_iteration.median, (800.0 - 40.0) / 64.0);
    // The rate comes from time, per iteration: 11.875 ns.
    assert_eq!(short.ns_per_op, Some(11.875));
    // JSON says which figures are per batch: the batch, and the per-iteration block beside raw and net.
    let json = serde_json::to_value(short).unwrap();
    assert_eq!(json["batch"], 64);
    assert_eq!(json["cycles"]["batch"], 64);
    assert_eq!(json["cycles"]["per_iteration"]["median"], 24.3125);
}

#[test]
fn a_version_1_stream_is_single_iterations_whatever_it_carries() {
    // Version 1 knows no batch: each sample is one iteration, as it always was.
    let text = stream(1, " batch=64").replace(
        "iterations=256 warmup=1 capped=0 unit=iter per_iteration=1 batch",
        "iterations=4 warmup=1 capped=0 unit=iter per_iteration=1 batch",
    );
    let summary = RunSummary::of(&parse_str(&text).unwrap()).unwrap();
    let short = summary.benchmark("short").unwrap();
    assert_eq!(short.batch, 1);
    assert_eq!(short.cycles.as_ref().unwrap().per_iteration.median, 1556.0);
}
