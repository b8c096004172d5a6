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

/// A budget module.yml sets for every target, judged on a board with none of its own, is named as such in the
/// verdict ("module-wide budget, not set for target mps2-an386"): written for the host, it is rarely the
/// board's. On the host, or once the board's entry sets the key, the verdict names only the key.
#[test]
fn a_module_wide_budget_judged_on_a_board_is_named_as_such() {
    if !common::tools_present(
        "a_module_wide_budget_judged_on_a_board_is_named_as_such",
        common::CROSS_TOOLS,
    ) {
        return;
    }
    let project = Project::new();
    project.write("bench.c", SUITE);
    let over = HELD_BYTES - 1;
    let module_wide =
        format!("  budgets:\n    max_heap_bytes: {over}\n  targets: [host, mps2-an386]\n");
    project.write("module.yml", &module_wide_yml(&module_wide));
    let failure = |key: &str| {
        format!("bench_hold_64: heap peak bytes {HELD_BYTES} over its budget of {over} ({key})")
    };

    let board = project.rho(&["bench", "check", "--target", "mps2-an386"]);
    assert_eq!(board.status, Some(1), "{}", board.describe());
    assert!(
        words(&board.stdout).contains(&failure(
            "max_heap_bytes; module-wide budget, not set for target mps2-an386"
        )),
        "{}",
        board.describe()
    );
    let host = project.rho(&["bench", "check", "--target", "host"]);
    assert_eq!(host.status, Some(1), "{}", host.describe());
    assert!(
        host.stdout.contains(&failure("max_heap_bytes")),
        "{}",
        host.describe()
    );
    assert!(!host.stdout.contains("module-wide"), "{}", host.describe());

    // The board's own budget: its verdict names the key alone.
    let own = format!(
        "  targets:\n    - host\n    - name: mps2-an386\n      budgets:\n        max_heap_bytes: {over}\n"
    );
    project.write("module.yml", &module_wide_yml(&own));
    let board = project.rho(&["bench", "check", "--target", "mps2-an386"]);
    assert_eq!(board.status, Some(1), "{}", board.describe());
    assert!(
        board.stdout.contains(&failure("max_heap_bytes")),
        "{}",
        board.describe()
    );
    assert!(
        !board.stdout.contains("module-wide"),
        "{}",
        board.describe()
    );
}

/// `text` with every run of blanks and line breaks one space: the check's lines wrap at the terminal's width.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// [`module_yml`] with fewer iterations: the board is emulated.
fn module_wide_yml(extra: &str) -> String {
    module_yml(extra).replace("default_iterations: 2000", "default_iterations: 200")
}
