//! A target's own budgets through the real binary: `rho bench check` judges a suite with the budgets of the
//! target it ran on, laid over the global ones.

mod common;

use common::{HELD_BYTES, Project, SUITE, module_yml};

#[test]
fn the_selected_targets_budgets_replace_the_global_ones() {
    let project = Project::new();
    project.write("bench.c", SUITE);
    // Globally the held block fits; on host (a map: the built-in with budgets of its own) it does not.
    let yml = module_yml(&format!(
        "  budgets:\n    max_heap_bytes: {HELD_BYTES}\n  targets:\n    - name: host\n      budgets:\n        \
         max_heap_bytes: {}\n",
        HELD_BYTES - 1
    ));
    project.write("module.yml", &yml);
    let check = project.rho(&["bench", "check"]);
    assert_eq!(check.status, Some(1), "{}", check.describe());
    assert!(
        check.stdout.contains(&format!(
            "bench_hold_64: heap peak bytes {HELD_BYTES} over its budget of {} (max_heap_bytes)",
            HELD_BYTES - 1
        )),
        "{}",
        check.describe()
    );

    // The target's per-benchmark entry is laid over everything else.
    let yml = format!(
        "{yml}      benchmarks:\n        bench_hold_64:\n          budgets:\n            max_heap_bytes: {HELD_BYTES}\n"
    );
    project.write("module.yml", &yml);
    let check = project.rho(&["bench", "check"]);
    assert_eq!(check.status, Some(0), "{}", check.describe());
}
