//! Adaptive runs end to end through the library: `runs` is the fewest every benchmark gets, `max_runs` the
//! most; a benchmark whose verdict more runs can no longer change is settled and not run again.
//!
//! The first tests plant each run's figure (a shell suite printing the next line of a file per run, with a
//! spread of a few percent between runs, and for a wire stream within each run), so what the stopping rule
//! sees is known and the run counts are exact: a test of the rule, not a measurement. The last one times the
//! kata's wire suite for real, with a slowdown 170x to 800x outside any noise, and checks that it is settled
//! after one pair and that the harness's filter runs only the benchmarks still open.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use rho_gate::compare::runs_per_benchmark;
use rho_gate::{GateOutcome, GateSettings, MetricOutcome, Verdict};

mod common;
use common::{gate_logged, kata_wire_gate, request};

const BENCH_H: &str = include_str!("../../../c/include/rho/bench.h");

/// A module root whose run prints `{"work_ns": F}`, F being line N of `figures` on the Nth run (a counter
/// file in the root counts them).
fn planted_module(dir: &Path, figures: &[f64]) {
    std::fs::create_dir_all(dir).unwrap();
    let lines: String = figures.iter().map(|f| format!("{f}\n")).collect();
    std::fs::write(dir.join("figures"), lines).unwrap();
    let run = "n=$(( $(cat count 2>/dev/null || echo 0) + 1 )); echo $n > count; \
               echo \"{\\\"work_ns\\\": $(sed -n \"${n}p\" figures)}\"";
    common::planted_module_yml(dir, run);
}

/// Gate `head` figures against `base` figures with `runs` to `max_runs` and a 30% budget; the outcome and the
/// progress lines.
fn planted_gate(
    base: &[f64],
    head: &[f64],
    runs: u32,
    max_runs: u32,
) -> (GateOutcome, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    planted_module(&tmp.path().join("base"), base);
    planted_module(&tmp.path().join("head"), head);
    let mut settings = GateSettings::default();
    settings.set_runs(runs).unwrap();
    settings.set_max_runs(max_runs).unwrap();
    settings.budgets_mut().set("default", 0.30).unwrap();
    settings.set_timeout(Duration::from_secs(60)).unwrap();
    let (outcome, log) = gate_logged(&request(tmp.path(), "base", "head", settings));
    (outcome.unwrap(), log)
}

/// `(base runs, head runs)` of `benchmark`.
fn runs_of(outcome: &GateOutcome, benchmark: &str) -> (usize, usize) {
    let counts: BTreeMap<String, (usize, usize)> = runs_per_benchmark(&outcome.comparison)
        .into_iter()
        .map(|(name, base, head)| (name, (base, head)))
        .collect();
    counts[benchmark]
}

/// A base of about 1000 with a 4% spread.
const BASE: [f64; 10] = [
    1000.0, 1040.0, 1010.0, 1030.0, 1000.0, 1020.0, 1040.0, 1010.0, 1030.0, 1020.0,
];

fn scaled(factor: f64) -> Vec<f64> {
    BASE.iter().map(|f| f * factor).collect()
}

#[test]
fn a_change_just_above_the_budget_still_fails_and_one_just_under_passes() {
    // 1.6x against a 30% budget with a 4% spread: beyond the budget by more than the spread, settled.
    let (outcome, _) = planted_gate(&BASE, &scaled(1.6), 3, 10);
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    assert_eq!(runs_of(&outcome, "work_ns"), (3, 3));
    // 1.1x: within the budget by more than the spread, settled, passes. A JSON figure has no within-run
    // spread, so the pass is settled once a second run a side has shown one (4%).
    let (outcome, _) = planted_gate(&BASE, &scaled(1.1), 3, 10);
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
    assert_eq!(runs_of(&outcome, "work_ns"), (2, 2));
}

#[test]
fn a_regression_within_the_whole_run_allowance_gets_runs_pairs_one_beyond_it_one() {
    // 2.4x: beyond the budget, but within (1 + 0.3) x 2 = 2.6x, which one slow run could fake: 3 pairs.
    let (outcome, _) = planted_gate(&BASE, &scaled(2.4), 3, 10);
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    assert_eq!(runs_of(&outcome, "work_ns"), (3, 3));
    // 2.8x: beyond the whole-run allowance by more than the 4% spread of two runs, settled after the second
    // pair (a JSON figure: one run of it could be a whole slow run).
    let (outcome, log) = planted_gate(&BASE, &scaled(2.8), 3, 10);
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    assert_eq!(runs_of(&outcome, "work_ns"), (2, 2));
    assert!(
        log.iter()
            .any(|l| l == "after 1 runs per side, 1 still open: work_ns"),
        "{log:?}"
    );
    assert!(
        !log.iter().any(|l| l.starts_with("after 2 runs")),
        "{log:?}"
    );
}

/// A module that asks for 10 rounds before a time metric fails (the wire kata's `runs: 10`): a 2.4x head, within
/// the whole-run allowance, whose rounds agree fails after 3 rounds by the paired rule, the minima agreeing;
/// one whose rounds disagree (1.45x to 3.2x) stays open past the third round, until the interval has left the
/// bound (after the fifth).
#[test]
fn with_runs_10_a_regression_the_paired_rounds_agree_on_fails_after_three() {
    let (outcome, log) = planted_gate(&BASE, &scaled(2.4), 10, 20);
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    assert_eq!(runs_of(&outcome, "work_ns"), (3, 3));
    assert!(
        log.iter()
            .any(|l| l == "after 2 runs per side, 1 still open: work_ns"),
        "{log:?}"
    );
    let ratios = [2.4, 1.5, 3.2, 1.45, 2.6, 1.5, 3.0, 1.45, 2.5, 1.5];
    let (outcome, _) = planted_gate(&BASE, &scattered(&ratios), 10, 20);
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    assert_eq!(runs_of(&outcome, "work_ns"), (5, 5));
    let paired = outcome.comparison.metrics[0].paired.unwrap();
    assert!(paired.low > 1.3, "{paired:?}");
}

/// Base's figures times a ratio per round that scatters around the 30% budget's bound.
fn scattered(ratios: &[f64]) -> Vec<f64> {
    BASE.iter().zip(ratios).map(|(b, r)| b * r).collect()
}

#[test]
fn a_change_near_the_budget_gets_more_runs_up_to_max_runs() {
    // The rounds' ratios lie about the bound 1.3 (1.22, then 1.33 to 1.38): the paired interval holds the bound
    // after every round, and head's two best runs are 12% apart, more than head is within the bound by, so the
    // verdict stays open until max_runs; at 7 the interval's centre is 1.335, over the bound, but head's
    // minimum (1.22 of base's) is within it: a close call fails only when both say so, so it passes.
    let ratios = [1.22, 1.38, 1.36, 1.34, 1.37, 1.35, 1.33];
    let (outcome, log) = planted_gate(&BASE, &scattered(&ratios), 3, 7);
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
    let paired = outcome.comparison.metrics[0].paired.unwrap();
    assert_eq!(paired.rounds, 7);
    assert!(paired.low < 1.3 && paired.high > 1.3, "{paired:?}");
    assert_eq!(runs_of(&outcome, "work_ns"), (7, 7));
    assert_eq!(outcome.base_runs.len(), 7);
    assert!(
        log.iter()
            .any(|l| l == "after 3 runs per side, 1 still open: work_ns"),
        "{log:?}"
    );
}

#[test]
fn a_tenfold_slowdown_is_settled_after_two_pairs_and_without_max_runs_nothing_changes() {
    let (outcome, log) = planted_gate(&BASE, &scaled(10.0), 3, 10);
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    assert_eq!(runs_of(&outcome, "work_ns"), (2, 2));
    assert_eq!(outcome.head_runs.len(), 2);
    assert!(
        !log.iter().any(|l| l.starts_with("after 2 runs")),
        "{log:?}"
    );
    // 1.28x in every round: the paired interval is a point within the bound, passed after two rounds.
    let (outcome, _) = planted_gate(&BASE, &scaled(1.28), 3, 10);
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
    assert_eq!(runs_of(&outcome, "work_ns"), (2, 2));
    // max_runs = runs: every benchmark runs `runs` times, open or not (the gate before adaptive runs).
    let (outcome, _) = planted_gate(&BASE, &scaled(1.28), 3, 3);
    assert_eq!(runs_of(&outcome, "work_ns"), (3, 3));
    let (outcome, _) = planted_gate(&BASE, &scaled(10.0), 3, 3);
    assert_eq!(runs_of(&outcome, "work_ns"), (3, 3));
}

/// A rho wire stream of three benchmarks, `sum`, `sum_big` and `crc`, whose net ns on the Nth run are line N
/// of `figures` (the median of three samples, one of them 5% slower: a within-run spread of 5%); it honours RHO_BENCH_FILTER as the harness does (a benchmark runs when its name contains a
/// term) and logs `N NAME` to ran.log for each benchmark it ran, and `SIDE NAME` to ../order.log (shared by
/// both sides).
const PLANTED_WIRE: &str = r#"n=$(( $(cat count 2>/dev/null || echo 0) + 1 )); echo $n > count
set -- $(sed -n "${n}p" figures)
selected() {
  [ -z "$RHO_BENCH_FILTER" ] && return 0
  for t in $(echo "$RHO_BENCH_FILTER" | tr ',' ' '); do
    case "$1" in *"$t"*) return 0;; esac
  done
  return 1
}
echo "@rho-bench 1"
echo "@target host arch=x86_64 optimized=1"
echo "@clock cycles tsc unit=cycle hz=3000000000 resolution=1"
echo "@clock time clock_gettime unit=ns hz=1000000000 resolution=1"
echo "@config iterations=3 warmup=1 time_cap_ms=0 stack_bytes=65536"
printf '@bench .overhead\n:99 99\n:20 10\n:20 10\n:20 10\n@stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n@end .overhead iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n'
ran=0
for bench in sum sum_big crc; do
  ns=$1; shift
  selected $bench || continue
  ran=$((ran + 1)); echo "$n $bench" >> ran.log; echo "$(basename "$PWD") $bench" >> ../order.log
  t=$((ns + 10)); c=$((ns * 3 + 20)); t2=$((ns + ns / 20 + 10)); c2=$(((ns + ns / 20) * 3 + 20))
  printf '@bench %s\n:999 999\n:%s %s\n:%s %s\n:%s %s\n@stack 100\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n@end %s iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n' $bench $c $t $c2 $t2 $c $t $bench
done
echo "@done benchmarks=$ran dropped=0"
"#;

fn planted_wire_module(dir: &Path, figures: &[[u32; 3]]) {
    std::fs::create_dir_all(dir).unwrap();
    let lines: String = figures
        .iter()
        .map(|[a, b, c]| format!("{a} {b} {c}\n"))
        .collect();
    std::fs::write(dir.join("figures"), lines).unwrap();
    std::fs::write(dir.join("run.sh"), PLANTED_WIRE).unwrap();
    common::planted_module_yml(dir, "sh run.sh");
}

/// `sum` 1.26x in the first round (nearer the 30% bound than the 5% within-run spread), then 1.36x to 1.38x
/// from round to round: its paired interval holds the bound, and head's two best runs are 9% apart, more than
/// its best is within the bound by, so it stays open.
const SUM_BASE: [u32; 5] = [1000, 1040, 1010, 1030, 1000];
const SUM_HEAD: [u32; 5] = [1260, 1435, 1380, 1401, 1370];

/// The planted base and head of [`SUM_BASE`] and [`SUM_HEAD`], `sum_big` on head `big` times base's.
fn sum_gate(tmp: &Path, big: u32) -> GateOutcome {
    let base: Vec<[u32; 3]> = SUM_BASE.iter().map(|&f| [f, f, f]).collect();
    let head: Vec<[u32; 3]> = SUM_HEAD
        .iter()
        .zip(&base)
        .map(|(&sum, &[b, _, _])| [sum, b * big, b])
        .collect();
    planted_wire_module(&tmp.join("base"), &base);
    planted_wire_module(&tmp.join("head"), &head);
    let mut settings = GateSettings::default();
    settings.set_runs(2).unwrap();
    settings.set_max_runs(5).unwrap();
    let outcome = gate_logged(&request(tmp, "base", "head", settings))
        .0
        .unwrap();
    eprintln!("{:#?}", outcome.comparison.metrics);
    outcome
}

/// Only the open benchmark runs again: `sum` (open, [`SUM_HEAD`]) runs `max_runs` times; `crc` and
/// `sum_big` (unchanged: passes) are settled after the first pair. The filter `sum` also selects `sum_big`
/// (the harness matches by substring): it runs, but its figures are left out of those runs, so it took
/// exactly one.
#[test]
fn only_open_benchmarks_run_again_and_the_subset_is_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let outcome = sum_gate(tmp.path(), 1);
    // At `max_runs` with the interval still holding the bound: a close call fails only when the interval's
    // centre and the minima both say so; the minima are 26% apart, within the 30%.
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
    assert_eq!(runs_of(&outcome, "sum"), (5, 5));
    assert_eq!(runs_of(&outcome, "sum_big"), (1, 1));
    assert_eq!(runs_of(&outcome, "crc"), (1, 1));
    for run in &outcome.head_runs[1..] {
        assert!(run.get("sum.ns").is_some());
        assert!(run.get("sum_big.ns").is_none() && run.left_out("sum_big.ns"));
        assert!(run.get("crc.ns").is_none() && run.left_out("crc.ns"));
    }
    let ran = std::fs::read_to_string(tmp.path().join("head/ran.log")).unwrap();
    let later: Vec<&str> = ran.lines().filter(|l| !l.starts_with("1 ")).collect();
    assert_eq!(
        later,
        [
            "2 sum",
            "2 sum_big",
            "3 sum",
            "3 sum_big",
            "4 sum",
            "4 sum_big",
            "5 sum",
            "5 sum_big"
        ],
        "crc never ran again; sum_big ran through the substring match"
    );
}

/// A regression settled (`sum_big` 10x: beyond the whole-run allowance, settled in the first pair) fails the
/// gate whatever the open metrics come to: once each side has had `runs` (2) runs, the gate stops, and `sum`,
/// still open, is judged on the 2 runs it had rather than run to `max_runs` (5).
#[test]
fn a_settled_regression_stops_the_gate_once_every_side_has_had_its_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let outcome = sum_gate(tmp.path(), 10);
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    let regressed: Vec<&str> = outcome
        .comparison
        .metrics
        .iter()
        .filter(|m| m.outcome == MetricOutcome::Regressed)
        .map(|m| m.name.as_str())
        .collect();
    assert!(regressed.contains(&"sum_big.ns"), "{regressed:?}");
    assert_eq!(runs_of(&outcome, "sum"), (2, 2));
    assert_eq!(runs_of(&outcome, "sum_big"), (1, 1));
    assert_eq!(runs_of(&outcome, "crc"), (1, 1));
}

/// From the second round on a round goes benchmark by benchmark: each runs alone on one side, then on the
/// other, the side going first taking turns (by round and benchmark), so the two figures of a round are
/// measured moments apart. The fixed gate (`max_runs` = `runs`) here, so every benchmark is in every round.
#[test]
fn a_round_goes_benchmark_by_benchmark_each_side_first_in_turn() {
    let tmp = tempfile::tempdir().unwrap();
    let figures: Vec<[u32; 3]> = (0..7).map(|_| [1000, 2000, 3000]).collect();
    planted_wire_module(&tmp.path().join("base"), &figures);
    planted_wire_module(&tmp.path().join("head"), &figures);
    let mut settings = GateSettings::default();
    settings.set_runs(3).unwrap();
    settings.set_max_runs(3).unwrap();
    let outcome = gate_logged(&request(tmp.path(), "base", "head", settings))
        .0
        .unwrap();
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
    for benchmark in ["crc", "sum", "sum_big"] {
        assert_eq!(runs_of(&outcome, benchmark), (3, 3));
    }
    let order = std::fs::read_to_string(tmp.path().join("order.log")).unwrap();
    let order: Vec<&str> = order.lines().collect();
    // The first round runs whole suites, base first (head's time cap comes from base's run). Then by name:
    // crc, sum (whose filter also runs sum_big, left out), sum_big.
    let whole = [
        "base sum",
        "base sum_big",
        "base crc",
        "head sum",
        "head sum_big",
        "head crc",
    ];
    let round_2 = [
        "head crc",
        "base crc",
        "base sum",
        "base sum_big",
        "head sum",
        "head sum_big",
        "head sum_big",
        "base sum_big",
    ];
    let round_3 = [
        "base crc",
        "head crc",
        "head sum",
        "head sum_big",
        "base sum",
        "base sum_big",
        "base sum_big",
        "head sum_big",
    ];
    assert_eq!(order, [&whole[..], &round_2, &round_3].concat());
    let paired = outcome.comparison.metric("crc.ns");
    assert_eq!(paired.and_then(|m| m.paired).map(|p| p.ratio), Some(1.0));
}

/// The kata's wire suite, timed, with s09 (a linear search for a binary one, 170x at the time cap to 800x)
/// as head: count_below is settled after the first pair (far beyond the whole-run allowance) and, whichever
/// other benchmarks stay open on this machine, not run again (the real harness's RHO_BENCH_FILTER).
#[test]
fn a_settled_benchmark_is_not_run_again_through_the_harness_filter() {
    let tmp = tempfile::tempdir().unwrap();
    let request = kata_wire_gate(tmp.path(), "s09_count_below_linear_search.c", BENCH_H);
    let outcome = gate_logged(&request).0.unwrap();
    eprintln!("{:#?}", outcome.comparison.metrics);
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    let count_below = outcome.comparison.metric("bench_count_below.ns").unwrap();
    assert_eq!(count_below.outcome, MetricOutcome::Regressed);
    assert_eq!(runs_of(&outcome, "bench_count_below"), (1, 1));
    // Any later run (another benchmark still open) held nothing of count_below's.
    for run in outcome.head_runs[1..].iter().chain(&outcome.base_runs[1..]) {
        assert!(run.get("bench_count_below.ns").is_none());
        assert!(run.left_out("bench_count_below.ns"));
    }
}

/// A clean A/A gate of a steady body: with base and head the same figures (5% within each run), every
/// benchmark is settled after the first pair, the time metrics by the pass rule (within the budget by more
/// than the within-run spread), the stack and heap as exact counts; nothing runs a second time.
#[test]
fn a_clean_aa_gate_of_a_steady_body_is_settled_after_one_pair() {
    let tmp = tempfile::tempdir().unwrap();
    let figures: Vec<[u32; 3]> = [1000, 1040, 1010].iter().map(|&f| [f, f, f]).collect();
    planted_wire_module(&tmp.path().join("base"), &figures);
    planted_wire_module(&tmp.path().join("head"), &figures);
    let mut settings = GateSettings::default();
    settings.set_runs(3).unwrap();
    settings.set_max_runs(10).unwrap();
    let (outcome, log) = gate_logged(&request(tmp.path(), "base", "head", settings));
    let outcome = outcome.unwrap();
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
    for bench in ["sum", "sum_big", "crc"] {
        assert_eq!(runs_of(&outcome, bench), (1, 1), "{bench}");
    }
    assert_eq!((outcome.base_runs.len(), outcome.head_runs.len()), (1, 1));
    assert!(!log.iter().any(|l| l.contains("still open")), "{log:?}");
    let ran = std::fs::read_to_string(tmp.path().join("head/ran.log")).unwrap();
    assert_eq!(
        ran.lines().collect::<Vec<_>>(),
        ["1 sum", "1 sum_big", "1 crc"]
    );
}

/// Every timed run gets `RHO_BENCH_ROUND_MS` (docs/gate.md, "Short rounds"), the time a program that times
/// itself may spend measuring each metric in a round: a suite printing what it was handed reads the gate's
/// `ROUND_MS` in every run of both sides.
#[test]
fn every_run_is_handed_the_rounds_length() {
    let tmp = tempfile::tempdir().unwrap();
    let run = "echo \"{\\\"round_ms\\\": ${RHO_BENCH_ROUND_MS:-0}}\"";
    for side in ["base", "head"] {
        common::planted_module_yml(&tmp.path().join(side), run);
    }
    let mut settings = GateSettings::default();
    settings.set_runs(2).unwrap();
    settings.set_max_runs(2).unwrap();
    settings.set_timeout(Duration::from_secs(60)).unwrap();
    let (outcome, _) = gate_logged(&request(tmp.path(), "base", "head", settings));
    let outcome = outcome.unwrap();
    let handed = |runs: &[rho_gate::RunMetrics]| {
        runs.iter()
            .map(|run| run.get("round_ms").cloned())
            .collect::<Vec<_>>()
    };
    let expected = vec![Some(rho_gate::Figure::Value(rho_gate::settings::ROUND_MS as f64)); 2];
    assert_eq!(handed(&outcome.base_runs), expected);
    assert_eq!(handed(&outcome.head_runs), expected);
}
