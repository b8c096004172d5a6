//! Real code built as it is (issue 38): a suite with an unused variable, an `assert()` and a function in a `.S`
//! file (tests/c/real_code_suite.c, tests/c/real_code_add.S) builds and runs on the host, mps2-an386 and
//! riscv32-virt with no flag added: as a module.yml suite on all three and as FILE arguments on a board. Only
//! rho's own files are built with -Werror; the user's warnings are shown. On every board a failed assert ends
//! the program as SIGABRT ends a host's (status 134) after printf and the assertion's message reach the console
//! (picolibc's abort needs kill/getpid, and its errno is thread-local: the RISC-V port sets up the thread
//! pointer).
//!
//! Without a board's cross compiler or emulator its part prints a note and passes, unless `RHO_REQUIRE_CROSS`
//! is set (`.ci/run` sets it and installs them).

mod common;

use std::time::Duration;

use common::*;
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(600);

const RISCV_TOOLS: &[(&str, &str)] = &[
    (
        "riscv64-unknown-elf-gcc",
        "gcc-riscv64-unknown-elf, picolibc-riscv64-unknown-elf",
    ),
    ("qemu-system-riscv32", "qemu-system-misc"),
    ("make", "make"),
];

const SUITE: &str = "tests/c/real_code_suite.c";
const ASSEMBLY: &str = "tests/c/real_code_add.S";
const BENCHMARK: &str = "bench_add_in_assembly";

/// The one benchmark of a target's run in a module document (`rho-bench-project/1`).
fn only_benchmark(run: &Value) -> &Value {
    let benchmarks = run["suites"][0]["benchmarks"].as_array().unwrap();
    assert_eq!(benchmarks.len(), 1, "{run}");
    assert_eq!(benchmarks[0]["name"], BENCHMARK, "{run}");
    &benchmarks[0]
}

#[test]
fn a_module_suite_with_warnings_an_assert_and_assembly_runs_on_the_host_and_two_boards() {
    if !tools_present("real_code_module_suite", CROSS_TOOLS)
        || !tools_present("real_code_module_suite", RISCV_TOOLS)
    {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("bench")).unwrap();
    for file in [SUITE, ASSEMBLY] {
        let name = std::path::Path::new(file).file_name().unwrap();
        std::fs::copy(repo_file(file), tmp.path().join("bench").join(name)).unwrap();
    }
    std::fs::write(
        tmp.path().join("module.yml"),
        "bench:\n  default_iterations: 40\n  warmup_runs: 2\n  targets: [host, mps2-an386, riscv32-virt]\n  \
         suites:\n    - sources: [bench/real_code_suite.c, bench/real_code_add.S]\n",
    )
    .unwrap();
    let json = tmp.path().join("targets.json");
    let outcome = rho_at(
        tmp.path(),
        &["bench", "--target", "all", "--json", json.to_str().unwrap()],
        LIMIT,
    );
    outcome.assert_exit(0);
    // The boards' compilers warn (with -Wall, which the ports give every file) and go on.
    outcome.assert_stderr_has("unused variable 'left_over_from_debugging'");
    assert!(!outcome.stderr.contains("-Werror"), "{}", outcome.stderr);
    let document = read_json(&json);
    let runs = document["targets"].as_array().unwrap();
    let names: Vec<&str> = runs.iter().map(|r| r["target"].as_str().unwrap()).collect();
    assert_eq!(names, ["host", "mps2-an386", "riscv32-virt"]);
    for run in runs {
        let bench = only_benchmark(run);
        assert_eq!(bench["iterations"], 40, "{bench}");
        if run["target"] != "host" {
            // A call into the assembly, its add and its return at least: the body ran, counted by QEMU.
            assert_eq!(bench["instructions"]["source"], "qemu", "{bench}");
            let per_iteration = bench["instructions"]["per_iteration"].as_f64().unwrap();
            assert!(per_iteration >= 3.0, "{bench}");
        }
    }
}

#[test]
fn file_arguments_with_assembly_build_on_a_board_and_the_host() {
    if !tools_present("real_code_file_arguments", RISCV_TOOLS) {
        return;
    }
    for target in ["host", "riscv32-virt"] {
        let (outcome, document) = rho_json(
            &[
                "bench",
                "--target",
                target,
                SUITE,
                ASSEMBLY,
                "--iterations",
                "40",
                "--warmup",
                "2",
            ],
            LIMIT,
        );
        assert_eq!(document["target"]["name"], target, "{}", outcome.stderr);
        assert_eq!(bench_names(&document), [BENCHMARK]);
        if target != "host" {
            // The build the document describes is the user's files': not the port's own -Werror compiles.
            assert_eq!(document["suite"]["compiler"][0], "riscv64-unknown-elf-gcc");
            let cflags = document["suite"]["cflags"].as_array().unwrap();
            assert!(cflags.iter().any(|f| f == "-Wall"), "{cflags:?}");
            assert!(!cflags.iter().any(|f| f == "-Werror"), "{cflags:?}");
        }
    }
}

/// Each board's port builds the suite with the failing assert through its Makefile alone, then QEMU runs it as
/// `print-run-command` says: the console has printf's line and the assertion's message, and the status is 134.
#[test]
fn a_failed_assert_on_every_board_prints_its_message_and_exits_134() {
    for board in rho_config::BUILTIN_BOARDS {
        let tools = if board.starts_with("riscv") {
            RISCV_TOOLS
        } else {
            CROSS_TOOLS
        };
        if !tools_present(&format!("real_code_assert_on_{board}"), tools) {
            continue;
        }
        let tmp = tempfile::tempdir().unwrap();
        let make = |goal: &str| {
            std::process::Command::new("make")
                .arg("-s")
                .arg("-f")
                .arg(repo_file("c/ports/Makefile"))
                .arg(format!("BOARD={board}"))
                .arg(format!(
                    "SUITE={} {}",
                    repo_file(SUITE).display(),
                    repo_file(ASSEMBLY).display()
                ))
                .arg(format!("RHO_BENCH_OUT={}", tmp.path().display()))
                .arg("EXTRA_CFLAGS=-DREAL_CODE_ASSERT_FAILS")
                .arg(goal)
                .output()
                .unwrap()
        };
        let built = make("all");
        let warnings = String::from_utf8_lossy(&built.stderr);
        assert!(built.status.success(), "{board}: {warnings}");
        assert!(
            warnings.contains("[-Wunused-variable]"),
            "{board}: {warnings}"
        );
        let command = String::from_utf8(make("print-run-command").stdout).unwrap();
        let mut words = command.split_whitespace();
        let output = std::process::Command::new(words.next().unwrap())
            .args(words)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let console = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(134), "{board}: {console}");
        assert!(
            console.starts_with("printf reaches the console\n"),
            "{board}: {console}"
        );
        assert!(
            console.contains("\"argc == 0\" failed"),
            "{board}: {console}"
        );
        assert!(!console.contains("rho-port: trap"), "{board}: {console}");
    }
}
