//! Adaptive runs end to end through the library: `runs` is the fewest every benchmark gets, `max_runs` the
//! most; a benchmark whose verdict more runs can no longer change is settled and not run again.
//!
//! The first tests plant each run's figure (a shell suite printing the next line of a file per run, with a
//! spread of a few percent), so what the stopping rule sees is known and the run counts are exact: a test of
//! the rule, not a measurement. The last one times the kata's wire suite for real, with a slowdown 800x
//! outside any noise, and checks that the harness's filter runs only the benchmarks still open.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rho_gate::config::{load_local_config, recipe_from_module, settings_from_config};
use rho_gate::report::runs_per_benchmark;
use rho_gate::{
    BenchEnv, GateOutcome, GateRequest, GateSettings, MetricOutcome, Progress, SideName, Verdict,
    run_gate,
};

const BENCH_H: &str = include_str!("../../../c/include/rho/bench.h");

/// A module root whose run prints `{"work_ns": F}`, F being line N of `figures` on the Nth run (a counter
/// file in the root counts them).
fn planted_module(dir: &Path, figures: &[f64]) {
    std::fs::create_dir_all(dir).unwrap();
    let lines: String = figures.iter().map(|f| format!("{f}\n")).collect();
    std::fs::write(dir.join("figures"), lines).unwrap();
    let run = "n=$(( $(cat count 2>/dev/null || echo 0) + 1 )); echo $n > count; \
               echo \"{\\\"work_ns\\\": $(sed -n \"${n}p\" figures)}\"";
    std::fs::write(
        dir.join("module.yml"),
        format!(
            "bench:\n  targets:\n    - name: planted\n      build: 'true'\n      run: '{}'\n",
            run.replace('\'', "''")
        ),
    )
    .unwrap();
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
    let request = GateRequest {
        base: "base".to_owned(),
        head: "head".to_owned(),
        cwd: tmp.path().to_owned(),
        settings,
        env: BenchEnv::default(),
        bench_header: "/* not used */\n".to_owned(),
    };
    let mut log = Vec::new();
    let outcome = run_gate(
        &request,
        &|side: SideName, root: &Path| recipe_from_module(side, root, None),
        &mut |p: &Progress| log.push(p.to_string()),
    )
    .unwrap();
    eprintln!("{}", log.join("\n"));
    (outcome, log)
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
    // 1.1x: within the budget by more than the spread, settled, passes.
    let (outcome, _) = planted_gate(&BASE, &scaled(1.1), 3, 10);
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
    assert_eq!(runs_of(&outcome, "work_ns"), (3, 3));
}

#[test]
fn a_change_near_the_budget_gets_more_runs_up_to_max_runs() {
    // 1.28x with a 4% spread: a base run 4% better would make it a regression, so the verdict stays open
    // until max_runs; it never gets better, so it passes after 7 runs a side.
    let (outcome, log) = planted_gate(&BASE, &scaled(1.28), 3, 7);
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
    assert_eq!(runs_of(&outcome, "work_ns"), (7, 7));
    assert_eq!(outcome.base_runs.len(), 7);
    assert!(
        log.iter()
            .any(|l| l == "after 3 runs per side, 1 still open: work_ns"),
        "{log:?}"
    );
}

#[test]
fn a_tenfold_slowdown_is_settled_after_runs_and_without_max_runs_nothing_changes() {
    let (outcome, log) = planted_gate(&BASE, &scaled(10.0), 3, 10);
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    assert_eq!(runs_of(&outcome, "work_ns"), (3, 3));
    assert!(!log.iter().any(|l| l.contains("still open")), "{log:?}");
    // max_runs = runs: every benchmark runs `runs` times, open or not (the gate before adaptive runs).
    let (outcome, _) = planted_gate(&BASE, &scaled(1.28), 3, 3);
    assert_eq!(runs_of(&outcome, "work_ns"), (3, 3));
}

fn kata_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/kata")
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A rho wire stream of three benchmarks, `sum`, `sum_big` and `crc`, whose net ns on the Nth run are line N
/// of `figures`; it honours RHO_BENCH_FILTER as the harness does (a benchmark runs when its name contains a
/// term) and logs `N NAME` to ran.log for each benchmark it ran.
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
  ran=$((ran + 1)); echo "$n $bench" >> ran.log
  t=$((ns + 10)); c=$((ns * 3 + 20))
  printf '@bench %s\n:999 999\n:%s %s\n:%s %s\n:%s %s\n@stack 100\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n@end %s iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n' $bench $c $t $c $t $c $t $bench
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
    std::fs::write(
        dir.join("module.yml"),
        "bench:\n  targets:\n    - name: planted\n      build: 'true'\n      run: sh run.sh\n",
    )
    .unwrap();
}

/// Only the open benchmark runs again: `sum` (1.28x, open) runs `max_runs` times; `crc` (unchanged) and
/// `sum_big` (10x) are settled after `runs`. The filter `sum` also selects `sum_big` (the harness matches by
/// substring): it runs, but its figures are left out of those runs, so it took exactly `runs`.
#[test]
fn only_open_benchmarks_run_again_and_the_subset_is_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let base: Vec<[u32; 3]> = [1000, 1040, 1010, 1030, 1000]
        .iter()
        .map(|&f| [f, f, f])
        .collect();
    let head: Vec<[u32; 3]> = [1280, 1331, 1293, 1318, 1280]
        .iter()
        .zip(&base)
        .map(|(&sum, &[b, _, _])| [sum, b * 10, b])
        .collect();
    planted_wire_module(&tmp.path().join("base"), &base);
    planted_wire_module(&tmp.path().join("head"), &head);
    let mut settings = GateSettings::default();
    settings.set_runs(2).unwrap();
    settings.set_max_runs(5).unwrap();
    let request = GateRequest {
        base: "base".to_owned(),
        head: "head".to_owned(),
        cwd: tmp.path().to_owned(),
        settings,
        env: BenchEnv::default(),
        bench_header: "/* not used */\n".to_owned(),
    };
    let outcome = run_gate(
        &request,
        &|side: SideName, root: &Path| recipe_from_module(side, root, None),
        &mut |p: &Progress| eprintln!("{p}"),
    )
    .unwrap();
    eprintln!("{}", rho_gate::report::render_table(&outcome.comparison));
    assert_eq!(
        outcome.comparison.verdict,
        Verdict::Regressed,
        "sum_big is 10x"
    );
    assert_eq!(runs_of(&outcome, "sum"), (5, 5));
    assert_eq!(runs_of(&outcome, "sum_big"), (2, 2));
    assert_eq!(runs_of(&outcome, "crc"), (2, 2));
    for run in &outcome.head_runs[2..] {
        assert!(run.get("sum.ns").is_some());
        assert!(run.get("sum_big.ns").is_none() && run.left_out("sum_big.ns"));
        assert!(run.get("crc.ns").is_none() && run.left_out("crc.ns"));
    }
    let ran = std::fs::read_to_string(tmp.path().join("head/ran.log")).unwrap();
    let later: Vec<&str> = ran
        .lines()
        .filter(|l| !l.starts_with("1 ") && !l.starts_with("2 "))
        .collect();
    assert_eq!(
        later,
        [
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

/// The kata's wire suite, timed, with s09 (a linear search for a binary one, about 800x) as head: count_below
/// is settled after `runs` and, whichever other benchmarks stay open on this machine, not run again (the
/// real harness's RHO_BENCH_FILTER).
#[test]
fn a_settled_benchmark_is_not_run_again_through_the_harness_filter() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&kata_dir(), &tmp.path().join("base"));
    copy_tree(&kata_dir(), &tmp.path().join("head"));
    std::fs::copy(
        kata_dir().join("slowdowns/s09_count_below_linear_search.c"),
        tmp.path().join("head/kernels.c"),
    )
    .unwrap();
    let cwd = tmp.path().join("head/wire");
    let config = load_local_config(&cwd).unwrap().unwrap();
    let mut settings = settings_from_config(&config).unwrap();
    settings.set_runs(2).unwrap();
    settings.set_max_runs(4).unwrap();
    settings.set_timeout(Duration::from_secs(120)).unwrap();
    let request = GateRequest {
        base: tmp.path().join("base/wire").display().to_string(),
        head: ".".to_owned(),
        cwd,
        settings,
        env: rho_gate::config::bench_env_from_config(&config),
        bench_header: BENCH_H.to_owned(),
    };
    let outcome = run_gate(
        &request,
        &|side: SideName, root: &Path| recipe_from_module(side, root, None),
        &mut |p: &Progress| eprintln!("{p}"),
    )
    .unwrap();
    eprintln!("{}", rho_gate::report::render_table(&outcome.comparison));
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    let count_below = outcome
        .comparison
        .metrics
        .iter()
        .find(|m| m.name == "bench_count_below.ns")
        .unwrap();
    assert_eq!(count_below.outcome, MetricOutcome::Regressed);
    assert_eq!(runs_of(&outcome, "bench_count_below"), (2, 2));
    // Any later run (another benchmark still open) held nothing of count_below's.
    for run in outcome.head_runs[2..].iter().chain(&outcome.base_runs[2..]) {
        assert!(run.get("bench_count_below.ns").is_none());
        assert!(run.left_out("bench_count_below.ns"));
    }
}
