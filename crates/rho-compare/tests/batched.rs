//! A body a few clock steps long, timed in batches: the baseline keeps its fraction of a step and the diff
//! sees a 33% change of it (issue 10: a strlen made 24 -> 32 net cycles read `42 42 0.0% ok` when each
//! iteration was timed alone and the baseline rounded to the clock's 52-cycle step).

use rho_baseline::{Recording, section_from_summary};
use rho_compare::{Verdict, compare};
use rho_stats::{Metric, RunSummary};

const TAIL: &str = "@stack 64\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n";

/// A run whose `strlen` samples are batches of 128 iterations, each `per_iteration` net cycles, with 52 of
/// overhead on a clock stepping by 52.
fn run(per_iteration: u64) -> RunSummary {
    let sample = 52 + per_iteration * 128;
    let samples: String = (0..5)
        .map(|i| format!(":{} {}\n", sample + 52 * (i % 2), sample / 2))
        .collect();
    let text = format!(
        "@rho-bench 4\n@target host arch=x86_64 optimized=1\n\
         @clock cycles tsc unit=cycle hz=2600000000 resolution=52\n\
         @clock time clock_gettime unit=ns hz=1000000000 resolution=20\n\
         @config iterations=640 warmup=0 time_cap_ms=5000 stack_bytes=65536\n\
         @bench .overhead\n:52 26\n:52 26\n:52 26\n{TAIL}\
         @end .overhead iterations=3 warmup=0 capped=0 unit=iter per_iteration=1\n\
         @bench strlen\n{samples}{TAIL}\
         @end strlen iterations=640 warmup=0 capped=0 unit=iter per_iteration=1 batch=128\n\
         @done benchmarks=1 dropped=0\n"
    );
    RunSummary::of(&rho_wire::parse_str(&text).unwrap()).unwrap()
}

fn recording() -> Recording {
    Recording {
        tool_version: "test".into(),
        flags: None,
        recorded_at: "2026-12-02T00:00:00Z".into(),
    }
}

#[test]
fn a_third_slower_short_body_is_a_measured_regression() {
    let base = section_from_summary(&run(24), &recording());
    let head = section_from_summary(&run(32), &recording());
    // Kept to a tenth of a cycle (a 52-cycle step over 128 iterations is 0.41), not rounded to 0 or 52.
    let figures = base.benchmarks[0].cycles.unwrap();
    assert_eq!(figures.median.0, 24.0);
    assert_eq!(base.benchmarks[0].batch, 128);
    let json = serde_json::to_string(&base).unwrap();
    assert!(json.contains("\"batch\":128"), "{json}");

    let comparison = compare(&base, &head, 10.0).unwrap();
    let cycles = comparison.benchmarks[0]
        .metrics
        .iter()
        .find(|m| m.metric == Metric::Cycles)
        .unwrap();
    assert_eq!(cycles.verdict, Verdict::Regressed);
    assert!(!cycles.within_resolution);
    assert!((cycles.change_percent.unwrap() - 33.33).abs() < 0.01);

    // Less than two steps of a batch (2 * 52 / 128 = 0.81 cycles) is still no measured change.
    let near = section_from_summary(&run(24), &recording());
    let mut near = near;
    near.benchmarks[0].cycles.as_mut().unwrap().median.0 = 24.7;
    let comparison = compare(&base, &near, 1.0).unwrap();
    let cycles = comparison.benchmarks[0]
        .metrics
        .iter()
        .find(|m| m.metric == Metric::Cycles)
        .unwrap();
    assert_eq!(
        (cycles.verdict, cycles.within_resolution),
        (Verdict::Ok, true)
    );
}
