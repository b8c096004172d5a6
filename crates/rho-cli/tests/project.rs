//! `rho bench` with no file arguments, through the real binary: module.yml found from the current directory,
//! its suites built and run for the selected target, its settings passed, its errors named by file, line and
//! column.

mod common;

use common::{HELD_BYTES, Project, SUITE, budget_row, canned_script, line_with, module_yml};

/// The module.yml of rho's specification, byte for byte.
const SPEC_MODULE_YML: &str = "\
bench:
  default_iterations: 20000
  warmup_runs: 100
  stack_watermark: true
  budgets:
    max_stack_bytes: 4096
    max_heap_bytes: 8192
    max_cycles_per_iteration: 5000
    fail_on_regression_percent: 5.0
  targets:
    - host
    - stm32h743zi
";

#[test]
fn the_example_project_runs_every_suite_and_holds_its_budgets() {
    let project = Project::new();
    let example = common::repo_file("examples/project");
    for relative in [
        "module.yml",
        "bench/crypto_bench.c",
        "bench/ring_bench.c",
        "bench/sort_bench.c",
        "bench/sort_bench.sh",
        "src/ring.c",
        "src/ring.h",
    ] {
        project.write(
            relative,
            &std::fs::read_to_string(example.join(relative)).unwrap(),
        );
    }
    // From a directory below the root: module.yml is found by walking up.
    let below = project.path().join("src");
    let out = project.rho_in(&below, &["bench", "check"], &[]);
    out.assert_exit(0);
    for bench in [
        "bench_crc_64",
        "bench_crc_256",
        "bench_malloc_free",
        "bench_ring_write_read_32",
        "bench_ring_fill_drain",
        "bench_sort_32",
    ] {
        assert!(
            out.stdout.contains(bench),
            "{bench} missing:\n{}",
            out.describe()
        );
    }
    // module.yml's `repetitions: 3`, folded per suite.
    assert_eq!(
        out.stdout
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .matches("best of 3 runs")
            .count(),
        3,
        "{}",
        out.describe()
    );
    assert_eq!(
        out.stdout.matches("budgets   enforced").count(),
        3,
        "{}",
        out.describe()
    );
    // bench_malloc_free's own heap budget (64) replaces the global one (8192).
    let row = budget_row(&out.stdout, "bench_malloc_free");
    assert!(row.windows(3).any(|w| w == ["64", "64", "ok"]), "{row:?}");
    out.assert_stdout_has("check: ok: every budget holds");
}

#[test]
fn the_specs_module_yml_runs_its_first_target_on_the_host() {
    let project = Project::new();
    project.write(
        "module.yml",
        &format!("{SPEC_MODULE_YML}  suites:\n    - bench.c\n"),
    );
    project.write("bench.c", SUITE);
    let out = project.rho(&["bench", "--iterations", "500"]);
    out.assert_exit(0);
    assert!(line_with(&out.stdout, "rho bench  bench.c").contains("target host"));
    out.assert_stdout_has_words("500 iterations");
    // The global budgets apply to every benchmark: a heap figure of 64 against 8192.
    let row = budget_row(&out.stdout, "bench_hold_64");
    assert!(
        row.windows(3)
            .any(|w| w == [HELD_BYTES.to_string().as_str(), "8192", "ok"]),
        "{row:?}"
    );

    // The spec's `stm32h743zi` is built in (tests/stm32h743zi.rs runs it); a board rho has no definition of is a
    // name only: selecting it is an error at its place in the file.
    project.write(
        "module.yml",
        &format!("{SPEC_MODULE_YML}  suites:\n    - bench.c\n")
            .replace("stm32h743zi", "nrf52840dk"),
    );
    let out = project.rho(&["bench", "--target", "nrf52840dk"]);
    out.assert_exit(2);
    out.assert_stderr_has("module.yml:12:7: target 'nrf52840dk' has no built-in definition and no `build:` or `run:` command");
    let out = project.rho(&["bench", "--target", "nowhere"]);
    out.assert_exit(2);
    out.assert_stderr_has("unknown target 'nowhere'");
}

#[test]
fn each_bad_config_is_named_by_file_line_and_column_with_exit_2() {
    let cases: [(&str, &str); 8] = [
        (
            "bench:\n  suites:\n    - bench.c\n    - bench/nothere.c\n",
            "module.yml:4:7: suite file 'bench/nothere.c' does not exist",
        ),
        (
            "bench:\n  suites:\n    - [bench.c, missing.c]\n",
            "module.yml:3:7: suite file 'missing.c' does not exist",
        ),
        (
            "bench:\n  budgets:\n    max_stak_bytes: 4096\n  suites:\n    - bench.c\n",
            "module.yml:3:5: unknown key 'max_stak_bytes' in bench.budgets; did you mean 'max_stack_bytes'?",
        ),
        (
            "bench:\n  budgets:\n    max_heap_bytes: -8192\n  suites:\n    - bench.c\n",
            "module.yml:3:21: expected a number >= 0 for bench.budgets.max_heap_bytes, found `-8192`",
        ),
        (
            "bench:\n  budgets:\n    max_cycles_per_iteration: lots\n  suites:\n    - bench.c\n",
            "module.yml:3:31: expected a number >= 0 for bench.budgets.max_cycles_per_iteration",
        ),
        (
            "bench:\n  suites:\n    - bench.c\n  targets:\n    - name: board\n      build: make\n",
            "module.yml:5:7: target 'board' has `build:` but no `run:`",
        ),
        (
            "bench:\n  default_iterations: 100\n",
            "module.yml:1:1: no suites to run",
        ),
        (
            "bench: [1, 2]\n",
            "module.yml:1:8: expected a mapping for bench",
        ),
    ];
    let project = Project::new();
    project.write("bench.c", SUITE);
    for (yaml, expected) in cases {
        project.write("module.yml", yaml);
        for args in [&["bench"][..], &["bench", "check"][..]] {
            let out = project.rho(args);
            assert_eq!(out.status, Some(2), "{yaml}\n{}", out.describe());
            assert!(
                out.stderr.contains(expected),
                "{yaml}\nexpected {expected:?}\n{}",
                out.describe()
            );
        }
    }
}

#[test]
fn without_a_module_yml_rho_bench_says_so() {
    let project = Project::new();
    let out = project.rho(&["bench"]);
    out.assert_exit(2);
    out.assert_stderr_has("no module.yml in");
}

#[test]
fn a_commands_target_builds_and_runs_in_the_module_root_with_the_settings_in_its_environment() {
    let project = Project::new();
    project.write("bench.c", SUITE);
    // The build is rho's contract spelled out: the header from RHO_BENCH_INCLUDE, the output in RHO_BENCH_OUT,
    // the suite's files in RHO_BENCH_SOURCES. It also records what it was given.
    project.write(
        "build.sh",
        r#"env | grep '^RHO_BENCH_' | sort >build-env.txt
printf '#define RHO_BENCH_IMPLEMENTATION\n#include <rho/bench.h>\n' >"$RHO_BENCH_OUT/impl.c"
cc -O2 -I"$RHO_BENCH_INCLUDE" $RHO_BENCH_SOURCES "$RHO_BENCH_OUT/impl.c" -o "$RHO_BENCH_OUT/suite"
"#,
    );
    project.write(
        "module.yml",
        &format!(
            "{}  time_cap_ms: 4000\n  stack_watermark: false\n  benchmarks:\n    bench_hold_64:\n      iterations: 30\n  \
             targets:\n    - name: local\n      build: sh build.sh\n      run: '\"$RHO_BENCH_OUT/suite\"'\n",
            module_yml("")
        ),
    );
    let out = project.rho(&["bench", "--scale", "2"]);
    out.assert_exit(0);
    let env = project.read("build-env.txt");
    for expected in [
        "RHO_BENCH_ITERATIONS=2000",
        "RHO_BENCH_ITERATIONS_bench_hold_64=30",
        "RHO_BENCH_WARMUP=50",
        "RHO_BENCH_SCALE=2",
        "RHO_BENCH_TIME_CAP_MS=4000",
        "RHO_BENCH_STACK_BYTES=0",
        "RHO_BENCH_SOURCES=./bench.c",
    ] {
        assert!(
            env.lines().any(|l| l == expected),
            "{expected} not in:\n{env}"
        );
    }
    for prefix in ["RHO_BENCH_INCLUDE=", "RHO_BENCH_OUT="] {
        assert!(
            env.lines().any(|l| l.starts_with(prefix)),
            "{prefix} not in:\n{env}"
        );
    }
    // The harness saw them: the scale doubled every count, per-benchmark counts included; the stack is off.
    out.assert_stdout_has_words("4000 iterations");
    assert!(
        line_with(&out.stdout, "bench_hold_64").contains(" 60 "),
        "{}",
        out.describe()
    );
    out.assert_stdout_has_words("stack not measured");
    // Its build directory was rho's temporary one, and is gone.
    assert!(common::entries(&project.path().join("tmp")).is_empty());
}

#[test]
fn a_failing_build_command_is_exit_2_with_its_output() {
    let project = Project::new();
    project.write("bench.c", SUITE);
    project.write(
        "module.yml",
        &format!(
            "{}  targets:\n    - name: broken\n      build: echo no compiler here >&2; exit 3\n      run: 'true'\n",
            module_yml("")
        ),
    );
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(2);
    out.assert_stderr_has("exited with status 3");
    out.assert_stderr_has("no compiler here");
}

#[test]
fn a_failing_suite_does_not_stop_the_others_and_the_run_ends_with_exit_2() {
    let project = Project::new();
    project.write("canned.sh", &canned_script(&[100]));
    // The first suite crashes (a shell killing itself with SIGSEGV), the second finishes within its budget.
    project.write(
        "module.yml",
        "bench:\n  budgets:\n    max_cycles_per_iteration: 150\n  suites:\n    - command: kill -SEGV $$\n    \
         - command: sh canned.sh\n",
    );
    let out = project.rho(&["bench", "check", "--json", "run.json"]);
    out.assert_exit(2);
    // The failure is printed clearly, naming the suite and how it ended.
    assert!(
        out.stderr
            .contains("rho: error: the benchmark suite kill -SEGV $$")
            && out.stderr.contains("SIGSEGV"),
        "{}",
        out.describe()
    );
    // The later suite ran and was reported and judged.
    let row = budget_row(&out.stdout, "bench_canned");
    assert_eq!(&row[1..4], ["100", "150", "ok"], "{}", out.describe());
    out.assert_stdout_has("check: cannot decide: 1 of 2 suites failed to build or run");
    assert!(!out.stdout.contains("check: ok"), "{}", out.describe());
    let document: serde_json::Value = serde_json::from_str(&project.read("run.json")).unwrap();
    assert_eq!(document["suites"].as_array().unwrap().len(), 1);
    assert_eq!(document["failed"][0]["suite"], "kill -SEGV $$");

    // `rho bench` (report only) also runs both and ends with exit 2.
    let out = project.rho(&["bench"]);
    out.assert_exit(2);
    out.assert_stdout_has("bench_canned");
    out.assert_stderr_has("rho: error: 1 of 2 suites failed to build or run");
}

#[test]
fn an_unwritable_json_path_stops_rho_bench_before_any_suite_runs() {
    let project = Project::new();
    project.write("canned.sh", &canned_script(&[100]));
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - command: sh canned.sh\n",
    );
    let out = project.rho(&["bench", "check", "--json", "nothere/run.json"]);
    out.assert_exit(2);
    out.assert_stderr_has("--json nothere/run.json: the directory nothere does not exist");
    assert!(!project.path().join("runs.log").exists(), "a suite ran");
}

#[test]
fn filter_reaches_every_suite_of_the_module_and_refuses_to_write_a_partial_baseline() {
    let project = Project::new();
    project.write("bench.c", SUITE);
    project.write("module.yml", &module_yml(""));
    let out = project.rho(&["bench", "--filter", "hold"]);
    out.assert_exit(0);
    out.assert_stdout_has("bench_hold_64");
    assert!(!out.stdout.contains("bench_crc_256"), "{}", out.describe());

    let out = project.rho(&["bench", "--filter", "hold", "--write-baseline"]);
    out.assert_exit(2);
    out.assert_stderr_has("--filter hold with --write-baseline would record a baseline without");

    // A filter that matches no benchmark of any suite: exit 2, naming it and the benchmarks there are.
    let out = project.rho(&["bench", "--filter", "crc_256,hold"]);
    out.assert_exit(2);
    out.assert_stderr_has(
        "--filter crc_256,hold matched no benchmark; the suites have bench_crc_256, bench_hold_64; the \
         filter is a regular expression, where a comma is a comma: join alternatives with |",
    );
    let out = project.rho(&["bench", "--filter", "crc_256|hold"]);
    out.assert_exit(0);
    out.assert_stdout_has("bench_crc_256");
    out.assert_stdout_has("bench_hold_64");
}

#[test]
fn check_with_json_to_stdout_keeps_stdout_for_the_document() {
    let project = Project::new();
    project.write("canned.sh", &canned_script(&[100]));
    project.write(
        "module.yml",
        "bench:\n  budgets:\n    max_cycles_per_iteration: 150\n  suites:\n    - command: sh canned.sh\n",
    );
    let out = project.rho(&["bench", "check", "--json", "-"]);
    out.assert_exit(0);
    let document: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(document["schema"], "rho-bench-project/1");
    // The table, the budgets and the verdict are on stderr.
    out.assert_stderr_has("bench_canned");
    out.assert_stderr_has("check: ok: every budget holds");
}

#[test]
fn repetitions_fold_the_best_run_of_each_figure() {
    let project = Project::new();
    // Three runs whose cycles are 300, 100 and 200: best of 3 keeps 100.
    project.write("canned.sh", &canned_script(&[300, 100, 200]));
    project.write(
        "module.yml",
        "bench:\n  budgets:\n    max_cycles_per_iteration: 150\n  suites:\n    - command: sh canned.sh\n",
    );
    let out = project.rho(&["bench", "check", "--repetitions", "3"]);
    out.assert_exit(0);
    assert_eq!(
        project.read("runs.log").lines().count(),
        3,
        "three runs, no more"
    );
    out.assert_stdout_has_words("best of 3 runs");
    let row = budget_row(&out.stdout, "bench_canned");
    assert_eq!(&row[1..4], ["100", "150", "ok"], "{}", out.describe());

    // One run (the default) is the first: 300, over the budget.
    std::fs::remove_file(project.path().join("runs.log")).unwrap();
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(1);
    assert!(!out.stdout.contains("best of"), "{}", out.describe());
    assert_eq!(project.read("runs.log").lines().count(), 1);

    // module.yml's `repetitions:` does the same as the flag.
    std::fs::remove_file(project.path().join("runs.log")).unwrap();
    project.write(
        "module.yml",
        "bench:\n  repetitions: 3\n  budgets:\n    max_cycles_per_iteration: 150\n  suites:\n    - command: sh canned.sh\n",
    );
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(0);
    assert_eq!(project.read("runs.log").lines().count(), 3);
}

#[test]
fn rho_bench_file_c_folds_repetitions_too() {
    let project = Project::new();
    let suite = project.write("bench.c", SUITE);
    let out = project.rho(&[
        "bench",
        suite.to_str().unwrap(),
        "--iterations",
        "200",
        "--repetitions",
        "2",
    ]);
    out.assert_exit(0);
    out.assert_stdout_has_words("best of 2 runs");
}

#[test]
fn json_holds_every_suite_with_its_budgets_and_verdicts() {
    let project = Project::new();
    project.write("canned.sh", &canned_script(&[300, 100]));
    project.write(
        "module.yml",
        "bench:\n  budgets:\n    max_cycles_per_iteration: 150\n    max_heap_bytes: 0\n  suites:\n    - command: sh canned.sh\n",
    );
    let out = project.rho(&["bench", "check", "--repetitions", "2", "--json", "run.json"]);
    out.assert_exit(0);
    let document: serde_json::Value = serde_json::from_str(&project.read("run.json")).unwrap();
    assert_eq!(document["schema"], "rho-bench-project/1");
    assert_eq!(document["target"], "host");
    assert_eq!(document["repetitions"], 2);
    let suite = &document["suites"][0];
    assert_eq!(suite["suite"], "sh canned.sh");
    assert_eq!(
        suite["repetitions"], 2,
        "the summary's own count of folded runs"
    );
    assert_eq!(
        common::bench(suite, "bench_canned")["cycles"]["net"]["median"],
        100
    );
    assert_eq!(suite["budgets"]["enforced"], true);
    let checks = suite["budgets"]["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 2, "{checks:?}");
    assert_eq!(checks[0]["budget_key"], "max_cycles_per_iteration");
    assert_eq!(checks[0]["figure"], 100.0);
    assert_eq!(checks[0]["budget"], 150.0);
    assert_eq!(checks[0]["verdict"], "ok");
    assert_eq!(checks[1]["budget_key"], "max_heap_bytes");
    assert_eq!(
        checks[1]["verdict"], "ok",
        "0 bytes against a ceiling of 0 holds"
    );
}

/// Whether a program is on PATH.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

#[test]
fn the_built_in_mps2_an386_target_builds_with_the_embedded_port_and_runs_on_qemu() {
    if !(on_path("arm-none-eabi-gcc") && on_path("qemu-system-arm") && on_path("make")) {
        // .ci/run installs them; a machine without them cannot run a Cortex-M suite at all.
        eprintln!("skipped: arm-none-eabi-gcc, qemu-system-arm or make is not installed");
        return;
    }
    let project = Project::new();
    project.write("bench.c", SUITE);
    project.write(
        "module.yml",
        &module_yml(
            "  targets:\n    - host\n    - mps2-an386\n  budgets:\n    max_heap_bytes: 64\n",
        ),
    );
    let out = project.rho(&[
        "bench",
        "check",
        "--target",
        "mps2-an386",
        "--iterations",
        "50",
        "--warmup",
        "5",
    ]);
    out.assert_exit(0);
    let header = line_with(&out.stdout, "rho bench  bench.c");
    assert!(header.contains("target mps2-an386"), "{header}");
    // The settings were compiled in: a board has no environment.
    out.assert_stdout_has("50 iterations and 5 warm-ups");
    let row = budget_row(&out.stdout, "bench_hold_64");
    assert!(
        row.windows(3)
            .any(|w| w == [HELD_BYTES.to_string().as_str(), "64", "ok"]),
        "{row:?}"
    );
}
