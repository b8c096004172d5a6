//! The project's kata (tests/kata) gated against itself through both metric sources: its last-line JSON
//! benchmark (tests/kata/module.yml) and its rho wire-stream suite (tests/kata/wire/module.yml).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rho_gate::config::{load_local_config, recipe_from_module, settings_from_config};
use rho_gate::{BenchEnv, GateRequest, MetricSource, Progress, SideName, Verdict, run_gate};

const BENCH_H: &str = include_str!("../../../c/include/rho/bench.h");

/// One gate at a time: two gates timing on the same two cores would measure each other.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

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

/// Gate a copy of the kata against another copy, from `sub` (`.` or `wire`) of each.
fn gate_kata_against_itself(sub: &str, runs: Option<u32>) -> rho_gate::GateOutcome {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&kata_dir(), &tmp.path().join("base"));
    copy_tree(&kata_dir(), &tmp.path().join("head"));
    let cwd = tmp.path().join("head").join(sub);
    let config = load_local_config(&cwd)
        .unwrap()
        .expect("the kata has a module.yml");
    // The kata's own settings (3 runs per side, its budgets), with a generous timeout for a busy machine.
    let mut settings = settings_from_config(&config.gate).unwrap();
    settings.set_timeout(Duration::from_secs(120)).unwrap();
    if let Some(runs) = runs {
        settings.set_runs(runs).unwrap();
    }
    let request = GateRequest {
        base: tmp.path().join("base").join(sub).display().to_string(),
        head: ".".to_owned(),
        cwd,
        settings,
        env: BenchEnv::default(),
        bench_header: BENCH_H.to_owned(),
    };
    let outcome = run_gate(
        &request,
        &|side: SideName, root: &Path| recipe_from_module(side, root, None),
        &mut |p: &Progress| eprintln!("{p}"),
    )
    .unwrap();
    eprintln!("{}", rho_gate::report::render_table(&outcome.comparison));
    outcome
}

#[test]
fn the_kata_passes_against_itself_through_last_line_json() {
    let outcome = gate_kata_against_itself(".", None);
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
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
}

#[test]
fn the_kata_passes_against_itself_through_the_wire_stream() {
    // A wire metric is a run's best stretch, but on this machine a whole run of bench_matmul can come out
    // 1.7x slow (each process's pages land differently in the cache), so each side needs enough runs for one
    // to land well: identical builds read up to +61% with 5 runs per side, within 1.7% with 10 (docs/gate.md).
    let outcome = gate_kata_against_itself("wire", Some(10));
    assert_eq!(outcome.base_source, MetricSource::Wire);
    assert_eq!(outcome.head_source, MetricSource::Wire);
    let names: Vec<&str> = outcome
        .comparison
        .metrics
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    for expected in [
        "bench_matmul.ns",
        "bench_matmul.cycles",
        "bench_sum.ns",
        "bench_count_below.heap_peak",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
}
