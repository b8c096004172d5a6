//! Head's time cap in adaptive runs (crate::head_cap), end to end through the library.
//!
//! The first tests plant a wire stream whose samples' times are read from a file per run, so base's longest
//! benchmark is known exactly, and which logs the `RHO_BENCH_TIME_CAP_MS` each run was handed: what each
//! side's runs got is asserted, nothing is timed. The last gates the kata's real wire suite with s09 (a
//! linear search for a binary one, hundreds of times slower) as head and asserts only verdicts, the cap's
//! bounds and that head's count_below was stopped by it, no wall-clock figure.

use std::path::Path;
use std::time::Duration;

use rho_gate::head_cap::{HEAD_CAP_FACTOR, HEAD_CAP_FLOOR_MS, capped_benchmarks, capped_note};
use rho_gate::{GateOutcome, GateSettings, MetricOutcome, Verdict};

mod common;
use common::{gate_logged, kata_wire_gate, request};

const BENCH_H: &str = include_str!("../../../c/include/rho/bench.h");

/// A rho wire stream of two benchmarks, `short` (a tenth of `work`'s time) and `work`, whose three measured
/// samples on the Nth run take line N of `figures` ns each (one of them 5% more: a within-run spread of 5%),
/// after one warm-up of 1 ns. It states the cap it was handed (`RHO_BENCH_TIME_CAP_MS`, 5000 when unset, as
/// the harness's default) and logs `N CAP` to caps.log, the cap as handed (`unset` when it was not).
const PLANTED_CAP: &str = r#"n=$(( $(cat count 2>/dev/null || echo 0) + 1 )); echo $n > count
echo "$n ${RHO_BENCH_TIME_CAP_MS:-unset}" >> caps.log
ns=$(sed -n "${n}p" figures)
echo "@rho-bench 1"
echo "@target host arch=x86_64 optimized=1"
echo "@clock cycles tsc unit=cycle hz=3000000000 resolution=1"
echo "@clock time clock_gettime unit=ns hz=1000000000 resolution=1"
echo "@config iterations=3 warmup=1 time_cap_ms=${RHO_BENCH_TIME_CAP_MS:-5000} stack_bytes=0"
printf '@bench .overhead\n:3 1\n:3 1\n:3 1\n:3 1\n@stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n@end .overhead iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n'
for bench in short work; do
  t=$ns; [ $bench = short ] && t=$((ns / 10))
  t2=$((t + t / 20))
  printf '@bench %s\n:3 1\n:%s %s\n:%s %s\n:%s %s\n@stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n@end %s iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n' $bench $((t * 3)) $t $((t2 * 3)) $t2 $((t * 3)) $t $bench
done
echo "@done benchmarks=2 dropped=0"
"#;

fn planted_cap_module(dir: &Path, figures: &[u64]) {
    std::fs::create_dir_all(dir).unwrap();
    let lines: String = figures.iter().map(|f| format!("{f}\n")).collect();
    std::fs::write(dir.join("figures"), lines).unwrap();
    std::fs::write(dir.join("run.sh"), PLANTED_CAP).unwrap();
    common::planted_module_yml(dir, "sh run.sh");
}

/// The caps each run of `side` was handed, in run order.
fn caps_of(root: &Path, side: &str) -> Vec<String> {
    std::fs::read_to_string(root.join(side).join("caps.log"))
        .unwrap()
        .lines()
        .map(|l| l.split_once(' ').unwrap().1.to_owned())
        .collect()
}

/// Gate `head` sample times (ns) against `base`'s with `runs` to `max_runs`, the module's time cap
/// `module_cap_ms` (`None`: not set), a 30% budget: the outcome, the progress, each side's handed caps.
fn capped_gate(
    base: &[u64],
    head: &[u64],
    (runs, max_runs): (u32, u32),
    module_cap_ms: Option<u64>,
) -> (GateOutcome, Vec<String>, Vec<String>, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    planted_cap_module(&tmp.path().join("base"), base);
    planted_cap_module(&tmp.path().join("head"), head);
    let mut settings = GateSettings::default();
    settings.set_runs(runs).unwrap();
    settings.set_max_runs(max_runs).unwrap();
    settings.set_timeout(Duration::from_secs(60)).unwrap();
    let mut request = request(tmp.path(), "base", "head", settings);
    request.env.time_cap_ms = module_cap_ms;
    let (outcome, log) = gate_logged(&request);
    let outcome = outcome.unwrap();
    let (base_caps, head_caps) = (caps_of(tmp.path(), "base"), caps_of(tmp.path(), "head"));
    (outcome, log, base_caps, head_caps)
}

/// 40 ms a sample: `work` takes 120 ms of measured time in each run (3 samples), `short` 12 ms.
const FORTY_MS: u64 = 40_000_000;

/// 1.28x in the first run, each side's runs 4% apart, then 1.22x to 1.38x: near the budget, so the gate
/// goes past its first round. Base's first run is `base` a sample. Figures for `runs` rounds of both
/// benchmarks: from the second round on each runs alone (a process each), so a side runs up to `2 runs - 1`
/// processes; every one logs the cap it was handed.
fn near_the_budget(base: u64, runs: usize) -> (Vec<u64>, Vec<u64>) {
    let base: Vec<u64> = [100, 104, 101, 103]
        .iter()
        .cycle()
        .take(2 * runs)
        .map(|p| base / 100 * p)
        .collect();
    let ratios = [128, 138, 122, 136, 124, 134, 126, 132].iter().cycle();
    let head = base.iter().zip(ratios).map(|(b, r)| b / 100 * r).collect();
    (base, head)
}

/// Every process of a side was handed `cap`, and there was one at least per run of the side's.
fn assert_caps(caps: &[String], cap: &str, runs: usize, what: &str) {
    assert!(caps.len() >= runs, "{what}: {caps:?}");
    assert!(caps.iter().all(|c| c == cap), "{what}: {caps:?}");
}

#[test]
fn adaptive_head_runs_get_four_times_bases_longest_and_base_keeps_the_modules_cap() {
    let (base, head) = near_the_budget(FORTY_MS, 4);
    let (outcome, log, base_caps, head_caps) = capped_gate(&base, &head, (2, 4), Some(1000));
    // work's 3 measured samples: 40 + 42 + 40 ms = 122 ms; 4x is 488 ms, below the module's 1000.
    let cap = outcome.head_time_cap.expect("head's cap lowered");
    assert_eq!(HEAD_CAP_FACTOR, 4);
    assert_eq!(
        (cap.cap_ms, cap.module_cap_ms, cap.floored),
        (488, 1000, false)
    );
    let runs = outcome.head_runs.len();
    assert_caps(
        &head_caps,
        "488",
        runs,
        "every head run, the first included",
    );
    assert_caps(&base_caps, "1000", runs, "base's cap is never lowered");
    assert!(
        log.iter().any(|l| l
            == "head: time cap 488 ms (4x base's longest benchmark, 122.0 ms; base's cap 1000 ms)"),
        "{log:?}"
    );
    // The verdict rule is the same: about 1.3x passes (the interval's centre within the bound).
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
    assert!(runs >= 2);
}

#[test]
fn the_fixed_gate_keeps_the_modules_cap_on_both_sides() {
    let (base, head) = near_the_budget(FORTY_MS, 3);
    let (outcome, log, base_caps, head_caps) = capped_gate(&base, &head, (3, 3), Some(1000));
    assert_eq!(outcome.head_time_cap, None);
    assert_caps(&base_caps, "1000", 3, "base");
    assert_caps(&head_caps, "1000", 3, "head");
    assert!(!log.iter().any(|l| l.contains("time cap")), "{log:?}");
}

#[test]
fn the_cap_is_never_below_the_floor() {
    // 1 ms a sample: work's measured time is about 3 ms, 4x is 13 ms: the floor instead.
    let (base, head) = near_the_budget(1_000_000, 3);
    let (outcome, _, base_caps, head_caps) = capped_gate(&base, &head, (2, 3), Some(1000));
    let cap = outcome.head_time_cap.expect("head's cap lowered");
    assert_eq!((cap.cap_ms, cap.floored), (HEAD_CAP_FLOOR_MS, true));
    let runs = outcome.head_runs.len();
    assert_caps(&head_caps, "100", runs, "head");
    assert_caps(&base_caps, "1000", runs, "base");
    assert!(cap.to_string().contains("the floor"), "{cap}");
}

#[test]
fn the_cap_is_never_above_the_modules_cap() {
    // 100 ms a sample: 4x work's 305 ms is 1220 ms, above the module's 1000: head keeps the module's.
    let (base, head) = near_the_budget(100_000_000, 3);
    let (outcome, log, base_caps, head_caps) = capped_gate(&base, &head, (2, 3), Some(1000));
    assert_eq!(outcome.head_time_cap, None);
    let runs = outcome.head_runs.len();
    assert_caps(&base_caps, "1000", runs, "base");
    assert_caps(&head_caps, "1000", runs, "head");
    assert!(!log.iter().any(|l| l.contains("time cap")), "{log:?}");
}

#[test]
fn with_no_cap_of_the_modules_the_harness_default_is_the_ceiling() {
    // Nothing sets RHO_BENCH_TIME_CAP_MS: base runs with the harness's default (the stream states 5000), and
    // head gets 4x base's longest under it.
    let (base, head) = near_the_budget(FORTY_MS, 3);
    let (outcome, _, base_caps, head_caps) = capped_gate(&base, &head, (2, 3), None);
    let cap = outcome.head_time_cap.expect("head's cap lowered");
    assert_eq!((cap.cap_ms, cap.module_cap_ms), (488, 5000));
    let runs = outcome.head_runs.len();
    assert_caps(&base_caps, "unset", runs, "base");
    assert_caps(&head_caps, "488", runs, "head");
}

/// The kata's wire suite, timed, with s09 (a linear search for a binary one, hundreds of times slower) as
/// head, adaptive, under a module cap of 5000 ms (the kata's longest benchmark would have to be 1.25 s, 30
/// times its usual 40 ms, for 4x of it not to be lower): head's cap is lowered, head's count_below is stopped
/// by it, and the gate still fails it, after one pair.
#[test]
fn s09_as_head_still_fails_under_the_lowered_cap_and_the_report_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let mut request = kata_wire_gate(tmp.path(), "s09_count_below_linear_search.c", BENCH_H);
    request.env.time_cap_ms = Some(5000);
    let (outcome, log) = gate_logged(&request);
    let outcome = outcome.unwrap();
    eprintln!("{:#?}", outcome.comparison.metrics);
    let cap = outcome.head_time_cap.expect("head's cap lowered");
    assert!(
        (HEAD_CAP_FLOOR_MS..5000).contains(&cap.cap_ms),
        "{cap}: between the floor and the module's cap"
    );
    assert_eq!(cap.module_cap_ms, 5000);
    assert!(log.iter().any(|l| *l == format!("head: {cap}")), "{log:?}");
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    let count_below = outcome.comparison.metric("bench_count_below.ns").unwrap();
    assert_eq!(count_below.outcome, MetricOutcome::Regressed);
    assert_eq!(count_below.head.map(|h| h.runs), Some(1));
    let head_capped = capped_benchmarks(&outcome.head_runs);
    assert!(
        head_capped.contains_key("bench_count_below"),
        "{head_capped:?}"
    );
    assert!(capped_benchmarks(&outcome.base_runs).is_empty());
    let note = capped_note(&outcome.base_runs, &outcome.head_runs).unwrap();
    assert!(note.contains("head bench_count_below ("), "{note}");
}
