//! `rho bench gate` through the real binary on the project's kata (tests/kata): the reference against itself
//! passes twice in a row, the planted slowdowns fail it, through both metric sources.
//!
//! Every test here times code, so they run one at a time (two gates on the same two cores would measure each
//! other) and print what the gate saw, for the record.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use common::Outcome;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn kata_dir() -> PathBuf {
    common::repo_file("tests/kata")
}

/// Copy a directory tree (the kata is a few small files), skipping Python caches.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name().to_string_lossy().starts_with("__") {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Run `rho bench gate ARGS` in `cwd` (at most 10 minutes: a test fails rather than hangs).
fn gate(cwd: &Path, args: &[&str]) -> Outcome {
    let args = [&["bench", "gate"], args].concat();
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command.args(&args).current_dir(cwd);
    common::run_rho(command, &args, Duration::from_secs(600))
}

/// `tmp/base` and `tmp/head`, each a copy of the kata; head's kernels.c replaced by `head_kernels` if given.
fn kata_pair(tmp: &Path, head_kernels: Option<&Path>) -> (PathBuf, PathBuf) {
    let base = tmp.join("base");
    let head = tmp.join("head");
    copy_tree(&kata_dir(), &base);
    copy_tree(&kata_dir(), &head);
    if let Some(kernels) = head_kernels {
        std::fs::copy(kernels, head.join("kernels.c")).unwrap();
    }
    (base, head)
}

#[test]
fn the_kata_against_itself_passes_twice_in_a_row() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let (_base, head) = kata_pair(tmp.path(), None);
    for attempt in 1..=2 {
        let outcome = gate(&head, &["--base", "../base", "--head", "."]);
        eprintln!("attempt {attempt}:\n{}", outcome.describe());
        assert_eq!(
            outcome.status,
            Some(0),
            "attempt {attempt}:\n{}",
            outcome.describe()
        );
        let doc = outcome.document();
        assert_eq!(doc["verdict"], "ok");
        assert_eq!(doc["runs"], 3, "the kata's module.yml asks for 3 runs");
        let metrics = doc["metrics"].as_object().unwrap();
        let names: Vec<&str> = metrics.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            ["count_below_ns", "matmul_ns", "rmsnorm_ns", "sum_ns"]
        );
        assert_eq!(metrics["count_below_ns"]["budget"], 0.5);
        assert_eq!(metrics["matmul_ns"]["budget"], 0.3);
        for (name, m) in metrics {
            assert_eq!(m["regressed"], false, "{name}");
            assert!(m["base"].as_f64().unwrap() > 0.0, "{name}");
            assert!(m["noise_base"].as_f64().is_some(), "{name}");
        }
        assert!(outcome.stdout.contains("metric") && outcome.stdout.contains("verdict: ok"));
    }
}

/// The kernel each planted slowdown makes slower (its file name says which).
fn target_kernel(file_name: &str) -> &'static str {
    for kernel in ["matmul", "rmsnorm", "count_below", "sum"] {
        if file_name.contains(kernel) {
            return kernel;
        }
    }
    panic!("{file_name}: no kernel named in the file name");
}

/// The two metric sources of the kata: where the gate runs (below a side's copy of the kata), where base is
/// from there, and the name of a kernel's time metric.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// `tests/kata/module.yml`: bench_json.c's last-line JSON, `matmul_ns`.
    JsonLine,
    /// `tests/kata/wire/module.yml`: bench_rho.c's rho wire stream, `bench_matmul.ns`.
    Wire,
}

impl Source {
    fn dir(self) -> &'static str {
        match self {
            Source::JsonLine => ".",
            Source::Wire => "wire",
        }
    }

    fn base(self) -> &'static str {
        match self {
            Source::JsonLine => "../base",
            Source::Wire => "../../base/wire",
        }
    }

    fn metric(self, kernel: &str) -> String {
        match self {
            Source::JsonLine => format!("{kernel}_ns"),
            Source::Wire => format!("bench_{kernel}.ns"),
        }
    }
}

/// Every planted slowdown as head against the reference as base, through both metric sources, 3 runs per
/// side. A slowdown counts as caught only when the gate exits 1 *and* the metric of the kernel it slowed is
/// one that regressed: failing for another reason is not catching it.
#[test]
fn the_planted_slowdowns_fail_the_gate() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut slowdowns: Vec<PathBuf> = std::fs::read_dir(kata_dir().join("slowdowns"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    slowdowns.sort();
    assert!(
        slowdowns.len() >= 8,
        "the kata carries at least eight slowdowns"
    );

    let mut record = String::from(
        "source  slowdown                                   metric               head/base  exit  caught\n",
    );
    let mut failures = Vec::new();
    for source in [Source::JsonLine, Source::Wire] {
        let mut caught = Vec::new();
        let mut missed = Vec::new();
        for slowdown in &slowdowns {
            let name = slowdown.file_stem().unwrap().to_string_lossy().into_owned();
            let tmp = tempfile::tempdir().unwrap();
            let (_base, head) = kata_pair(tmp.path(), Some(slowdown));
            let outcome = gate(
                &head.join(source.dir()),
                &["--base", source.base(), "--head", ".", "--runs", "3"],
            );
            let doc = outcome.document();
            let metric = source.metric(target_kernel(&name));
            let planted = &doc["metrics"][&metric];
            let ratio = planted["change"].as_f64().map(|c| c + 1.0);
            let is_caught = outcome.status == Some(1)
                && doc["verdict"] == "regressed"
                && planted["regressed"] == true;
            record.push_str(&format!(
                "{:<7} {name:<42} {metric:<20} {:>10}  {:?}  {is_caught}\n",
                format!("{source:?}").to_lowercase(),
                ratio.map_or("-".to_owned(), |r| format!("{r:.2}x")),
                outcome.status,
            ));
            if is_caught {
                caught.push(name);
            } else {
                eprintln!(
                    "{source:?}: {name} was not caught on {metric}:\n{}",
                    outcome.describe()
                );
                missed.push(name);
            }
        }
        if caught.len() + 1 < slowdowns.len() {
            failures.push(format!(
                "{source:?}: the gate must fail all slowdowns but at most one; missed {missed:?}"
            ));
        }
        // perf-gate.txt: always s01, s02, s04 and s09, each many times slower.
        for required in ["s01", "s02", "s04", "s09"] {
            if !caught.iter().any(|c| c.starts_with(required)) {
                failures.push(format!("{source:?}: {required} must always be caught"));
            }
        }
    }
    eprintln!("{record}");
    assert!(failures.is_empty(), "{failures:?}\n{record}");
}

#[test]
fn the_kata_through_the_wire_stream() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let (_base, head) = kata_pair(tmp.path(), None);
    // A wire metric is each run's best stretch (the lowest median of consecutive windows). On this machine a
    // whole run of bench_matmul can also come out 1.7x slow (each process's pages land differently in the
    // cache), so each side needs enough runs for one to land well: with 5 runs per side identical builds
    // read up to +61% (1 gate in 4), with 10 runs within +1.7% (11 of 11; docs/gate.md).
    let same = gate(
        &head.join("wire"),
        &["--base", "../../base/wire", "--runs", "10"],
    );
    eprintln!("{}", same.describe());
    assert_eq!(same.status, Some(0), "{}", same.describe());
    let doc = same.document();
    let metrics = doc["metrics"].as_object().unwrap();
    for name in [
        "bench_matmul.ns",
        "bench_matmul.cycles",
        "bench_sum.stack",
        "bench_sum.heap_peak",
    ] {
        assert!(
            metrics.contains_key(name),
            "{name} missing:\n{}",
            same.describe()
        );
    }
    assert!(same.stdout.contains("rho wire stream"));

    let tmp = tempfile::tempdir().unwrap();
    let one_accumulator = kata_dir().join("slowdowns/s04_sum_one_accumulator.c");
    let (_base, head) = kata_pair(tmp.path(), Some(&one_accumulator));
    let slow = gate(
        &head.join("wire"),
        &["--base", "../../base/wire", "--runs", "3"],
    );
    eprintln!("{}", slow.describe());
    assert_eq!(slow.status, Some(1), "{}", slow.describe());
    let doc = slow.document();
    assert_eq!(doc["metrics"]["bench_sum.ns"]["regressed"], true);
    assert_eq!(doc["metrics"]["bench_sum.stack"]["regressed"], false);
}

/// The built-in `host` target: rho compiles the suite itself, exactly as `rho bench` does, on each side.
#[test]
fn the_kata_as_a_host_suite_that_rho_builds() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let linear_search = kata_dir().join("slowdowns/s09_count_below_linear_search.c");
    let (base, head) = kata_pair(tmp.path(), Some(&linear_search));
    let module = "bench:\n  warmup_runs: 50\n  time_cap_ms: 1000\n  benchmarks:\n    bench_matmul:\n      \
                  iterations: 100\n    bench_sum:\n      iterations: 5000\n    bench_rmsnorm:\n      \
                  iterations: 5000\n    bench_count_below:\n      iterations: 5000\n  suites:\n    - \
                  [bench_rho.c, kernels.c]\n  targets:\n    - host\n";
    for side in [&base, &head] {
        let dir = side.join("host");
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["bench_rho.c", "kernels.c", "kernels.h", "bench_inputs.h"] {
            std::fs::copy(side.join(file), dir.join(file)).unwrap();
        }
        std::fs::write(dir.join("module.yml"), module).unwrap();
    }
    let outcome = gate(
        &head.join("host"),
        &["--base", "../../base/host", "--runs", "2"],
    );
    eprintln!("{}", outcome.describe());
    assert_eq!(outcome.status, Some(1), "{}", outcome.describe());
    let doc = outcome.document();
    assert_eq!(doc["metrics"]["bench_count_below.ns"]["regressed"], true);
    assert!(
        doc["metrics"]["bench_count_below.ns"]["change"]
            .as_f64()
            .unwrap()
            > 10.0
    );
    assert_eq!(doc["metrics"]["bench_matmul.stack"]["regressed"], false);
    assert!(
        outcome
            .stderr
            .contains("building bench_rho.c kernels.c for host"),
        "{}",
        outcome.describe()
    );
}
