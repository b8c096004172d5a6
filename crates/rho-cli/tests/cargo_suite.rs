//! A `cargo:` suite through the real binary: rho builds examples/rust-bench's `example` bench target (the
//! rho-bench crate used by path from a project of its own) with cargo, runs it, and reports its stream like
//! any suite's. The figures checked are exact: heap bytes, stack depth, and under Callgrind the instructions
//! of 4x the work and the O(n) growth of a family (never a wall-clock figure).

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::{bench, u64_at};

const LIMIT: Duration = Duration::from_secs(1200);

#[test]
fn a_cargo_suite_is_built_run_and_judged_like_any_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("run.json");
    // Counted too when Valgrind is there (.ci/run installs it).
    let counted = common::tools_present(
        "a_cargo_suite_is_built_run_and_judged_like_any_suite",
        &[("valgrind", "valgrind")],
    );
    let measure = if counted { "time,instructions" } else { "time" };
    let args = [
        "bench",
        "--iterations",
        "2000",
        "--measure",
        measure,
        "--json",
        json.to_str().unwrap(),
    ];
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command
        .args(args)
        .current_dir(common::repo_file("examples/rust-bench"))
        .env("TMPDIR", tmp.path())
        // The example's build is kept between test runs, beside the workspace's; unoptimised, to keep CI's
        // build short (no figure checked here depends on optimisation).
        .env(
            "CARGO_TARGET_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rust-bench-example"),
        )
        .env("CARGO_PROFILE_BENCH_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_BENCH_DEBUG", "0");
    let outcome = common::run_rho(command, &args, LIMIT);
    outcome.assert_exit(0);
    outcome.assert_stdout_has("cargo bench example");
    let document = common::read_json(&json);
    let suite = &document["suites"][0];
    assert_eq!(suite["suite"], "cargo bench example", "{document}");

    // Vec::with_capacity(1000): at least 1000 bytes held at the peak, one allocation an iteration.
    let vec = bench(suite, "vec_1000");
    assert!(u64_at(vec, "/heap/peak") >= 1000, "{vec}");
    // Nine frames of 1 KiB: a mark of at least 9 KiB.
    let recurse = bench(suite, "recurse_9");
    assert!(u64_at(recurse, "/stack/bytes") >= 9 * 1024, "{recurse}");
    // The budgets of module.yml were judged.
    outcome.assert_stdout_has("budgets");
    assert!(!outcome.stdout.contains("FAIL"), "{}", outcome.describe());

    if counted {
        // 4x the bytes summed is about 4x the instructions: exact counts, whatever the machine's load.
        let per = |name: &str| common::f64_at(bench(suite, name), "/instructions/per_iteration");
        let ratio = per("sum_4k") / per("sum_1k");
        assert!((3.5..4.5).contains(&ratio), "sum_4k / sum_1k = {ratio}");
        // The family `sum_n = range(256, 4096, 2)` (rho_bench::main!) is fitted as a C family is: O(n).
        let fit = common::growth_fit(suite, "sum_n", "instructions");
        assert_eq!(fit["status"], "fitted", "{fit}");
        assert_eq!(
            common::best_growth(suite, "sum_n", "instructions"),
            "n",
            "{fit}"
        );
    }
    // The family's members, each a block of its own named FAMILY/ARG, in order.
    let members: Vec<&str> = suite["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["name"].as_str())
        .filter(|name| name.starts_with("sum_n/"))
        .collect();
    assert_eq!(
        members,
        [
            "sum_n/256",
            "sum_n/512",
            "sum_n/1024",
            "sum_n/2048",
            "sum_n/4096"
        ]
    );
}

/// Whether rustc has the standard library of `triple` (`rustup target add`).
fn rust_target_installed(triple: &str) -> bool {
    Command::new("rustc")
        .args(["--print", "target-libdir", "--target", triple])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .is_some_and(|dir| {
            dir.is_dir() && std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some())
        })
}

#[test]
fn a_cargo_suite_runs_on_the_emulated_cortex_m4_with_identical_figures_twice() {
    let test = "a_cargo_suite_runs_on_the_emulated_cortex_m4_with_identical_figures_twice";
    if !common::tools_present(test, &[("qemu-system-arm", "qemu-system-arm")]) {
        return;
    }
    if !rust_target_installed("thumbv7em-none-eabihf")
        && !common::skipped_unless_required(
            test,
            "the Rust target thumbv7em-none-eabihf",
            "(rustup target add thumbv7em-none-eabihf)",
        )
    {
        return;
    }
    let run = || {
        let tmp = tempfile::tempdir().unwrap();
        let json = tmp.path().join("run.json");
        let args = [
            "bench",
            "--target",
            "mps2-an386",
            "--iterations",
            "200",
            "--warmup",
            "5",
            "--json",
            json.to_str().unwrap(),
        ];
        let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
        command
            .args(args)
            .current_dir(common::repo_file("examples/rust-bench"))
            .env("TMPDIR", tmp.path())
            .env(
                "CARGO_TARGET_DIR",
                PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rust-bench-example"),
            );
        let outcome = common::run_rho(command, &args, LIMIT);
        outcome.assert_exit(0);
        common::read_json(&json)
    };
    let (first, second) = (run(), run());
    let suite = &first["suites"][0];
    assert_eq!(suite["target"]["name"], "mps2-an386", "{first}");
    assert_eq!(suite["target"]["arch"], "armv7e-m", "{first}");
    for name in ["sum_1k", "sum_4k", "recurse_9"] {
        let figures = |document: &serde_json::Value| {
            let bench = bench(&document["suites"][0], name);
            (
                bench["cycles"]["per_iteration"].clone(),
                bench["instructions"]["per_iteration"].clone(),
                bench["stack"].clone(),
            )
        };
        assert_eq!(
            figures(&first),
            figures(&second),
            "{name} differs between two runs"
        );
    }
    assert!(
        u64_at(bench(suite, "recurse_9"), "/stack/bytes") >= 9 * 1024,
        "{suite}"
    );
    let per = |name: &str| common::f64_at(bench(suite, name), "/instructions/per_iteration");
    let ratio = per("sum_4k") / per("sum_1k");
    assert!((3.5..4.5).contains(&ratio), "sum_4k / sum_1k = {ratio}");
}
