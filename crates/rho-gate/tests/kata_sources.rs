//! The project's kata (tests/kata) through both metric sources: its last-line JSON benchmark
//! (tests/kata/module.yml), timed, with a slowdown far outside any noise planted in head; and its rho
//! wire-stream suite (tests/kata/wire/module.yml) against itself, counting instructions (exact, whatever the
//! machine's load).

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use rho_gate::config::{load_local_config, settings_from_config};
use rho_gate::{BenchEnv, GateRequest, MetricOutcome, MetricSource, Verdict};

mod common;
use common::{copy_tree, gate_logged, kata_dir, request};

const BENCH_H: &str = include_str!("../../../c/include/rho/bench.h");

/// One gate at a time: two gates timing on the same two cores would measure each other.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Gate a copy of the kata against another copy (head's kernels.c replaced by `head_kernels` if given), from
/// `sub` (`.` or `wire`) of each, with `env`.
fn gate_kata(sub: &str, head_kernels: Option<&Path>, env: BenchEnv) -> rho_gate::GateOutcome {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&kata_dir(), &tmp.path().join("base")).unwrap();
    copy_tree(&kata_dir(), &tmp.path().join("head")).unwrap();
    if let Some(kernels) = head_kernels {
        std::fs::copy(kernels, tmp.path().join("head/kernels.c")).unwrap();
    }
    let cwd = tmp.path().join("head").join(sub);
    let config = load_local_config(&cwd)
        .unwrap()
        .expect("the kata has a module.yml");
    // The kata's own settings (3 runs per side, its budgets), with a generous timeout for a busy machine.
    let mut settings = settings_from_config(&config).unwrap();
    settings.set_timeout(Duration::from_secs(120)).unwrap();
    let base = tmp.path().join("base").join(sub).display().to_string();
    let request = GateRequest {
        env,
        bench_header: BENCH_H.to_owned(),
        ..request(&cwd, &base, ".", settings)
    };
    let outcome = gate_logged(&request).0.unwrap();
    eprintln!("{:#?}", outcome.comparison.metrics);
    outcome
}

/// Timed through the last-line JSON: s09 (a linear search for a binary one) is far outside any noise.
#[test]
fn a_slowdown_far_outside_the_noise_fails_through_last_line_json() {
    let linear_search = kata_dir().join("slowdowns/s09_count_below_linear_search.c");
    let outcome = gate_kata(".", Some(&linear_search), BenchEnv::default());
    assert_eq!(outcome.base_source, MetricSource::JsonLine);
    let names: Vec<&str> = outcome
        .comparison
        .metrics
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["count_below_ns", "matmul_ns", "rmsnorm_ns", "sum_ns"]
    );
    assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
    let count_below = &outcome.comparison.metrics[0];
    assert_eq!(count_below.outcome, MetricOutcome::Regressed);
    assert!(count_below.change().unwrap() > 10.0);
}

/// Counted through the wire stream, the kata against itself: one run a side, every count the same.
#[test]
fn the_kata_passes_against_itself_counting_instructions() {
    let valgrind = std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("valgrind"))
                .find(|candidate| candidate.is_file())
        })
        .expect("valgrind on the PATH (.ci/run installs it)");
    let env = BenchEnv {
        iterations: Some(10),
        warmup: Some(1),
        counter: Some(rho_gate::Counter::Callgrind(valgrind)),
        ..BenchEnv::default()
    };
    let outcome = gate_kata("wire", None, env);
    assert_eq!(outcome.base_source, MetricSource::Wire);
    assert_eq!(outcome.head_source, MetricSource::Wire);
    assert_eq!(outcome.base_runs.len(), 1, "a count needs one run a side");
    let names: Vec<&str> = outcome
        .comparison
        .metrics
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    for expected in [
        "bench_matmul.instructions",
        "bench_sum.instructions",
        "bench_sum.stack",
        "bench_count_below.heap_peak",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    for metric in &outcome.comparison.metrics {
        assert_eq!(metric.change(), Some(0.0), "{}", metric.name);
    }
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
}
