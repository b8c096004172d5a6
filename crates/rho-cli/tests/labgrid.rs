//! A board of a labgrid place as a module.yml target (examples/labgrid): the suite built with the mps2-an386
//! port, run through labgrid's QEMUDriver standing in for the board (run_board.py, mps2-an386.yaml), gives the
//! same instruction figures as `--target mps2-an386`, exactly. Needs a Python with labgrid: RHO_LABGRID_PYTHON
//! (.ci/run installs labgrid into a virtual environment and sets it).

mod common;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(600);

/// Each benchmark's name, iterations and net instructions per iteration (the exact quotient), and who counted.
fn counted(benchmarks: &Value) -> Vec<(String, u64, f64, String)> {
    benchmarks
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["name"].as_str().unwrap().to_string(),
                b["iterations"].as_u64().unwrap(),
                b["instructions"]["per_iteration"].as_f64().unwrap(),
                b["instructions"]["source"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The Python with labgrid, or `None` (the test skipped, or failed under RHO_REQUIRE_CROSS) without it or
/// the board's tools.
fn labgrid_python(test: &str) -> Option<std::ffi::OsString> {
    if !common::tools_present(test, common::CROSS_TOOLS) {
        return None;
    }
    let python = std::env::var_os("RHO_LABGRID_PYTHON");
    if python.is_none() {
        common::skipped_unless_required(
            test,
            "a Python with labgrid (RHO_LABGRID_PYTHON)",
            "python3-venv; pip install labgrid",
        );
    }
    python
}

/// `rho ARGS` in examples/labgrid with labgrid's Python, its temporary files in `tmp`; it must exit 0.
fn rho_lab(tmp: &Path, python: &std::ffi::OsStr, args: &[&str]) -> common::Outcome {
    let mut command = common::rho_command(tmp, args);
    command
        .current_dir(common::repo_file("examples/labgrid"))
        .env("LABGRID_PYTHON", python)
        .env_remove("RHO_SHARD");
    let outcome = common::run_rho(command, args, LIMIT);
    outcome.assert_exit(0);
    outcome
}

#[test]
fn crypto_bench_through_labgrid_counts_what_the_built_in_board_counts() {
    let test = "crypto_bench_through_labgrid_counts_what_the_built_in_board_counts";
    let Some(python) = labgrid_python(test) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let lab_json = tmp.path().join("lab.json");
    let lab_args = [
        "bench",
        "--target",
        "lab-mps2-an386",
        "--json",
        lab_json.to_str().unwrap(),
    ];
    let lab = rho_lab(tmp.path(), &python, &lab_args);
    let lab_document = common::read_json(&lab_json);
    assert_eq!(lab_document["target"], "lab-mps2-an386");

    let suite = common::repo_file("examples/crypto_bench.c");
    let (builtin, builtin_document) = common::rho_json(
        &["bench", "--target", "mps2-an386", suite.to_str().unwrap()],
        LIMIT,
    );
    builtin.assert_exit(0);

    let through_labgrid = counted(&lab_document["suites"][0]["benchmarks"]);
    let on_the_board = counted(&builtin_document["benchmarks"]);
    assert_eq!(through_labgrid.len(), 6, "{}", lab.describe());
    assert!(through_labgrid.iter().all(|b| b.3 == "qemu"));
    assert_eq!(
        through_labgrid, on_the_board,
        "the same benchmarks, iterations and instructions, exactly"
    );
}

/// A module of `examples/crypto_bench.c` with two targets of its own on the mps2-an386 port, both with
/// `counter: qemu-plugin`: `own-mps2-an386` runs QEMU as the built-in board does and loads the plugin from
/// `$RHO_QEMU_PLUGIN`; `forgetful-mps2-an386` runs it without the plugin.
fn own_board_module(dir: &Path) {
    std::fs::copy(
        common::repo_file("examples/crypto_bench.c"),
        dir.join("crypto_bench.c"),
    )
    .unwrap();
    let makefile = common::repo_file("c/ports/Makefile");
    let qemu = "qemu-system-arm -M mps2-an386 -display none -serial none -monitor none -icount shift=5 \
                -chardev stdio,id=console -semihosting-config enable=on,target=native,chardev=console";
    let module = format!(
        "bench:
  suites:
    - crypto_bench.c
  targets:
    - name: own-mps2-an386
      build: &build make -s -f '{makefile}' BOARD=mps2-an386 SUITE=\"$RHO_BENCH_SOURCES\" RHO_BENCH_INCLUDE=\"$RHO_BENCH_INCLUDE\" RHO_BENCH_OUT=\"$RHO_BENCH_OUT\"
      run: {qemu} -plugin \"$RHO_QEMU_PLUGIN\" -kernel \"$RHO_BENCH_OUT/bench.elf\"
      counter: qemu-plugin
    - name: forgetful-mps2-an386
      build: *build
      run: {qemu} -kernel \"$RHO_BENCH_OUT/bench.elf\"
      counter: qemu-plugin
",
        makefile = makefile.display()
    );
    std::fs::write(dir.join("module.yml"), module).unwrap();
}

#[test]
fn a_target_of_its_own_counts_with_the_plugin_its_run_loads() {
    let test = "a_target_of_its_own_counts_with_the_plugin_its_run_loads";
    if !common::tools_present(test, common::CROSS_TOOLS) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    own_board_module(tmp.path());
    let own_json = tmp.path().join("own.json");
    let args = [
        "bench",
        "--target",
        "own-mps2-an386",
        "--json",
        own_json.to_str().unwrap(),
    ];
    let own = common::rho_at(tmp.path(), &args, LIMIT);
    own.assert_exit(0);
    let own_document = common::read_json(&own_json);

    let suite = common::repo_file("examples/crypto_bench.c");
    let (builtin, builtin_document) = common::rho_json(
        &["bench", "--target", "mps2-an386", suite.to_str().unwrap()],
        LIMIT,
    );
    builtin.assert_exit(0);

    let on_its_own = counted(&own_document["suites"][0]["benchmarks"]);
    assert_eq!(on_its_own.len(), 6, "{}", own.describe());
    assert!(on_its_own.iter().all(|b| b.3 == "qemu"), "{on_its_own:?}");
    assert_eq!(
        on_its_own,
        counted(&builtin_document["benchmarks"]),
        "the same benchmarks, iterations and instructions, exactly"
    );
}

#[test]
fn a_counter_whose_run_never_loads_the_plugin_is_refused() {
    let test = "a_counter_whose_run_never_loads_the_plugin_is_refused";
    if !common::tools_present(test, common::CROSS_TOOLS) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    own_board_module(tmp.path());
    let json = tmp.path().join("forgetful.json");
    let args = [
        "bench",
        "--target",
        "forgetful-mps2-an386",
        "--json",
        json.to_str().unwrap(),
    ];
    let outcome = common::rho_at(tmp.path(), &args, LIMIT);
    outcome.assert_exit(2);
    outcome.assert_stderr_has("target forgetful-mps2-an386 has `counter: qemu-plugin`");
    outcome.assert_stderr_has("must add `-plugin \"$RHO_QEMU_PLUGIN\"`");
    // The suite is recorded as failed (docs/json-output.md, `failed`), with no figures.
    let document = common::read_json(&json);
    assert_eq!(
        document["failed"][0]["suite"], "crypto_bench.c",
        "{document}"
    );
    assert!(
        document["failed"][0]["error"]
            .as_str()
            .unwrap()
            .contains("left no counts at"),
        "{document}"
    );
    assert_eq!(
        document["suites"].as_array().unwrap().len(),
        0,
        "{document}"
    );
}
