//! `rho bench check` through the real binary: exit 0 when every budget holds, 1 when one is broken, 2 when it
//! cannot decide; budgets reported but not enforced below full scale and in an unoptimized build.
//!
//! No figure is hard-coded: a time or cycle budget is set from a figure measured first in the same test, far
//! enough either side of it (x0.5, x3) that a busy machine does not flip the verdict. Heap figures are exact.

mod common;

use common::{HELD_BYTES, Project, SUITE, budget_row, canned_script, module_yml};

/// Measure `bench_crc_256` once with `rho bench FILE.c --json`: the budget key to hold it to and its net median
/// per iteration on that metric (cycles where the host has a cycle clock, else nanoseconds).
fn measure_crc_256(project: &Project) -> (&'static str, f64) {
    let json = project.path().join("measured.json");
    let out = project.rho(&[
        "bench",
        project.path().join("bench.c").to_str().unwrap(),
        "--iterations",
        "2000",
        "--warmup",
        "50",
        "--json",
        json.to_str().unwrap(),
    ]);
    out.assert_exit(0);
    let document: serde_json::Value = serde_json::from_str(&project.read("measured.json")).unwrap();
    let bench = common::bench(&document, "bench_crc_256");
    let (key, figure) = if bench["cycles"].is_object() {
        (
            "max_cycles_per_iteration",
            common::f64_at(bench, "/cycles/per_iteration/median"),
        )
    } else {
        (
            "max_ns_per_iteration",
            common::f64_at(bench, "/time/per_iteration/median"),
        )
    };
    assert!(
        figure > 0.0,
        "a CRC over 256 bytes takes measurable time: {bench}"
    );
    (key, figure)
}

fn crc_budget(key: &str, budget: f64) -> String {
    format!("  benchmarks:\n    bench_crc_256:\n      budgets:\n        {key}: {budget:.1}\n")
}

#[test]
fn a_time_budget_below_the_measured_figure_fails_and_above_it_holds() {
    let project = Project::new();
    project.write("bench.c", SUITE);
    let (key, figure) = measure_crc_256(&project);

    project.write("module.yml", &module_yml(&crc_budget(key, figure * 0.5)));
    let out = project.rho(&["bench", "check"]);
    assert_eq!(
        out.status,
        Some(1),
        "budget {} for {figure}\n{}",
        figure * 0.5,
        out.describe()
    );
    let row = budget_row(&out.stdout, "bench_crc_256");
    assert!(row.contains(&"OVER"), "{row:?}\n{}", out.describe());
    out.assert_stdout_has("check: FAILED: 1 budget broken");
    assert!(
        out.stdout.contains("  bench_crc_256: "),
        "the broken budget is listed\n{}",
        out.describe()
    );
    out.assert_stdout_has(&format!("({key})"));

    // `rho bench` reports the same verdict and exits 0: only `check` enforces.
    let out = project.rho(&["bench"]);
    out.assert_exit(0);
    assert!(
        budget_row(&out.stdout, "bench_crc_256").contains(&"OVER"),
        "{}",
        out.describe()
    );

    project.write("module.yml", &module_yml(&crc_budget(key, figure * 3.0)));
    let out = project.rho(&["bench", "check"]);
    assert_eq!(
        out.status,
        Some(0),
        "budget {} for {figure}\n{}",
        figure * 3.0,
        out.describe()
    );
    let row = budget_row(&out.stdout, "bench_crc_256");
    assert!(row.contains(&"ok"), "{row:?}");
    out.assert_stdout_has("check: ok: every budget holds (1 judged)");
}

#[test]
fn a_heap_budget_is_exact_and_inclusive() {
    let project = Project::new();
    project.write("bench.c", SUITE);
    let budget = |bytes: u64| {
        module_yml(&format!(
            "  benchmarks:\n    bench_hold_64:\n      budgets:\n        max_heap_bytes: {bytes}\n"
        ))
    };
    project.write("module.yml", &budget(HELD_BYTES - 1));
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(1);
    out.assert_stdout_has(&format!(
        "bench_hold_64: heap peak bytes {HELD_BYTES} over its budget of {} (max_heap_bytes)",
        HELD_BYTES - 1
    ));

    project.write("module.yml", &budget(HELD_BYTES));
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(0);
}

/// A module.yml whose heap budget is broken for certain (64 bytes held, 1 allowed).
fn broken_heap_budget() -> String {
    module_yml("  budgets:\n    max_heap_bytes: 1\n")
}

#[test]
fn an_unoptimized_build_reports_but_does_not_enforce() {
    let project = Project::new();
    project.write("bench.c", SUITE);
    project.write("module.yml", &broken_heap_budget());
    // Enforced, the budget fails ...
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(1);
    out.assert_stdout_has("budgets   enforced");

    // ... built at -O0 (the harness prints optimized=0) it is reported only.
    let out = project.rho(&["bench", "check", "--cflags", "-O0"]);
    out.assert_exit(0);
    out.assert_stdout_has("budgets   reported only: harness built without optimisation");
    let row = budget_row(&out.stdout, "bench_hold_64");
    assert!(row.contains(&"over") && !row.contains(&"OVER"), "{row:?}");
    out.assert_stdout_has("check: bench.c: reported only");

    // The same through a target's own `build:` at -O0.
    project.write(
        "build.sh",
        r#"printf '#define RHO_BENCH_IMPLEMENTATION\n#include <rho/bench.h>\n' >"$RHO_BENCH_OUT/impl.c"
cc -O0 -I"$RHO_BENCH_INCLUDE" $RHO_BENCH_SOURCES "$RHO_BENCH_OUT/impl.c" -o "$RHO_BENCH_OUT/suite"
"#,
    );
    project.write(
        "module.yml",
        &format!(
            "{}  targets:\n    - name: debug\n      build: sh build.sh\n      run: '\"$RHO_BENCH_OUT/suite\"'\n",
            broken_heap_budget()
        ),
    );
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(0);
    out.assert_stdout_has("reported only: harness built without optimisation");
}

/// Arguments of `rho` and environment added.
type Invocation<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);

#[test]
fn below_full_scale_budgets_are_reported_not_enforced() {
    let project = Project::new();
    project.write("bench.c", SUITE);
    project.write("module.yml", &broken_heap_budget());
    let ways: [Invocation; 2] = [
        (&["bench", "check", "--scale", "0.5"], &[]),
        (&["bench", "check"], &[("RHO_BENCH_SCALE", "0.5")]),
    ];
    for (args, env) in ways {
        let out = project.rho_in(project.path(), args, env);
        assert_eq!(out.status, Some(0), "{args:?} {env:?}\n{}", out.describe());
        out.assert_stdout_has("budgets   reported only: scale 0.5 < 1.0");
        // The scale reached the harness: half of module.yml's 2000 iterations.
        out.assert_stdout_has("1000 iterations");
        assert!(budget_row(&out.stdout, "bench_hold_64").contains(&"over"));
    }
    // module.yml's own `scale:` too.
    project.write(
        "module.yml",
        &format!("{}  scale: 0.5\n", broken_heap_budget()),
    );
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(0);
    out.assert_stdout_has("reported only: scale 0.5 < 1.0");
    // And a scale of 1 or more enforces.
    let out = project.rho(&["bench", "check", "--scale", "1.5"]);
    out.assert_exit(1);
}

#[test]
fn a_crashing_benchmark_is_exit_2() {
    let project = Project::new();
    project.write(
        "bench.c",
        r#"
#include <rho/bench.h>
#include <stdlib.h>

static void bench_fine(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
}

static void bench_crash(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        abort();
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_fine);
    RHO_BENCH_ADD(&suite, bench_crash);
    return rho_bench_main(&suite, argc, argv);
}
"#,
    );
    project.write(
        "module.yml",
        &module_yml("  budgets:\n    max_heap_bytes: 1000\n"),
    );
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(2);
    out.assert_stderr_has("crashed (SIGABRT)");
    out.assert_stderr_has("bench_crash");
    assert!(!out.stdout.contains("check: ok"), "{}", out.describe());
}

#[test]
fn a_stack_overrun_fails_a_stack_budget_with_that_reason() {
    let project = Project::new();
    // A recursion deeper than the painted region (set to 8 kB at compile time): the boundary is lost.
    project.write(
        "bench.c",
        r#"
#include <rho/bench.h>

static __attribute__((noinline)) unsigned deep(unsigned depth)
{
    volatile unsigned char frame[256];
    unsigned i;
    for (i = 0; i < sizeof frame; i++) {
        frame[i] = (unsigned char)(depth ^ i);
    }
    return (depth > 1 ? deep(depth - 1) : 0u) + frame[0];
}

static void bench_overrun(rho_bench_t *state)
{
    RHO_BENCH_KEEP(deep(8192 / 256 + 4));
    RHO_BENCH_LOOP(state) {
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_overrun);
    return rho_bench_main(&suite, argc, argv);
}
"#,
    );
    project.write(
        "module.yml",
        &module_yml("  budgets:\n    max_stack_bytes: 1000000\n"),
    );
    let out = project.rho(&["bench", "check", "--cflags", "-DRHO_BENCH_STACK_BYTES=8192"]);
    out.assert_exit(1);
    out.assert_stdout_has_words("bench_overrun: stack not measured (overrun), so its budget of 1000000 stack bytes (max_stack_bytes) fails");
    let row = budget_row(&out.stdout, "bench_overrun");
    assert_eq!(
        row[1..],
        ["not", "measured", "1000000", "OVER"],
        "{}",
        out.describe()
    );
}

#[test]
fn a_budget_on_a_metric_the_suite_does_not_measure_cannot_be_decided() {
    let project = Project::new();
    // The canned stream has a cycle clock of unknown frequency (so no time) and no stack figure.
    project.write("canned.sh", &canned_script(&[100]));
    project.write(
        "module.yml",
        "bench:\n  budgets:\n    max_stack_bytes: 4096\n    max_cycles_per_iteration: 500\n  suites:\n    - command: sh canned.sh\n",
    );
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(2);
    out.assert_stdout_has("check: cannot decide: 1 budget could not be judged");
    out.assert_stdout_has("stack not measured (measurement off)");
    let row = budget_row(&out.stdout, "bench_canned");
    assert!(row.contains(&"UNMEASURED"), "{row:?}");

    // A time budget with no time clock is the same.
    project.write(
        "module.yml",
        "bench:\n  budgets:\n    max_ns_per_iteration: 500\n  suites:\n    - command: sh canned.sh\n",
    );
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(2);
    out.assert_stdout_has("time not measured");

    // A report-only zero is not a budget: nothing to decide.
    project.write(
        "module.yml",
        "bench:\n  budgets:\n    max_ns_per_iteration: 0\n    max_cycles_per_iteration: 500\n  suites:\n    - command: sh canned.sh\n",
    );
    let out = project.rho(&["bench", "check"]);
    out.assert_exit(0);
}

#[test]
fn a_command_suite_that_reports_no_benchmarks_fails_the_check() {
    let project = Project::new();
    // A well-formed stream that measures nothing (a wrapper that ran the wrong program, a filter in a script).
    project.write(
        "empty.sh",
        "cat <<EOF\n@rho-bench 1\n@target canned arch=none optimized=1\n@clock cycles fake unit=cycle hz=0 \
         resolution=1\n@config iterations=3 warmup=0 time_cap_ms=0 stack_bytes=0\n@done benchmarks=0 \
         dropped=0\nEOF\n",
    );
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - command: sh empty.sh\n",
    );
    let outcome = project.rho(&["bench", "check"]);
    outcome.assert_exit(2);
    assert!(
        format!("{}{}", outcome.stdout, outcome.stderr).contains("reported no benchmarks"),
        "{}",
        outcome.describe()
    );
}
