//! Budgets for a benchmark no suite ran, through the real binary: a typo in a benchmark's name under
//! `bench.benchmarks` is named with its place and a suggestion, a warning under `rho bench` and "cannot decide"
//! (exit 2) under `rho bench check`, instead of being silently unused.

mod common;

use common::{HELD_BYTES, Project, SUITE, module_yml};

fn heap_budget(name: &str) -> String {
    format!("  benchmarks:\n    {name}:\n      budgets:\n        max_heap_bytes: {HELD_BYTES}\n")
}

#[test]
fn a_budget_for_a_misspelt_benchmark_is_named_with_a_suggestion() {
    let project = Project::new();
    project.write("bench.c", SUITE);
    // `bench_hold_46` for `bench_hold_64`: line 7 of the file, column 5.
    project.write("module.yml", &module_yml(&heap_budget("bench_hold_46")));
    let message = "module.yml:7:5: benchmark 'bench_hold_46' has budgets but no suite ran it; did you mean \
                   'bench_hold_64'?";

    let check = project.rho(&["bench", "check"]);
    assert_eq!(check.status, Some(2), "{}", check.describe());
    check.assert_stdout_has_words(&format!("check: cannot decide: {message}"));
    assert!(!check.stdout.contains("check: ok"), "{}", check.describe());

    // A plain report warns and still succeeds.
    let report = project.rho(&["bench"]);
    assert_eq!(report.status, Some(0), "{}", report.describe());
    assert!(
        report.stderr.contains(&format!("rho: warning: {message}")),
        "{}",
        report.describe()
    );

    // `--filter` leaves benchmarks out on purpose: their budgets are not reported as unmatched.
    let filtered = project.rho(&["bench", "check", "--filter", "bench_crc_256"]);
    assert_eq!(filtered.status, Some(0), "{}", filtered.describe());
    assert!(
        !filtered.stdout.contains("no suite ran it"),
        "{}",
        filtered.describe()
    );

    // Spelt right, the budget is judged and holds (the heap figure is exact).
    project.write("module.yml", &module_yml(&heap_budget("bench_hold_64")));
    let fixed = project.rho(&["bench", "check"]);
    assert_eq!(fixed.status, Some(0), "{}", fixed.describe());
    assert!(
        !fixed.stderr.contains("no suite ran it"),
        "{}",
        fixed.describe()
    );
}
