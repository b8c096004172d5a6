//! Lock-step rounds (docs/gate.md, "Lock-step rounds"): base's run and head's go at once, taking turns, when
//! both are rho's harness; one after the other otherwise. What is asserted is exact: whether turns were taken
//! (the arbiter counts them), and a verdict on a slowdown 170x to 800x outside any noise (the kata's s09).

use std::time::Duration;

use rho_gate::{GateSettings, MetricOutcome, Verdict};

mod common;
use common::{gate_logged, kata_wire_gate, request};

const BENCH_H: &str = include_str!("../../../c/include/rho/bench.h");

/// With lock-step on, the C harness takes turns with the other side and the planted slowdown is caught and
/// named; with it off (the default) the same gate takes none and catches it too.
#[test]
fn the_c_harness_takes_turns_and_a_planted_slowdown_is_still_caught() {
    for lock_step in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let mut request = kata_wire_gate(tmp.path(), "s09_count_below_linear_search.c", BENCH_H);
        // The fixed gate: both rounds run every benchmark, whatever settles (an adaptive gate's first round
        // runs base first, for head's time cap, and later rounds only what is open).
        request.settings.set_max_runs(2).unwrap();
        request.settings.set_lock_step(lock_step);
        let outcome = gate_logged(&request).0.unwrap();
        assert_eq!(outcome.comparison.verdict, Verdict::Regressed);
        let count_below = outcome.comparison.metric("bench_count_below.ns").unwrap();
        assert_eq!(count_below.outcome, MetricOutcome::Regressed);
        // Two rounds of four benchmarks of 10 to 40 ms a side, in turns of 2 ms: dozens of turns at the least.
        match lock_step {
            true => assert!(outcome.lock_step_turns >= 10, "{}", outcome.lock_step_turns),
            false => assert_eq!(outcome.lock_step_turns, 0),
        }
    }
}

/// A program that does not take part (here a last-line JSON one) runs by itself, never beside the other side:
/// each side's run finds the other's marker file absent while it runs (an overlap would see it), and no turns
/// are counted.
#[test]
fn a_program_that_takes_no_turns_never_runs_beside_the_other_side() {
    let tmp = tempfile::tempdir().unwrap();
    let shared = tmp.path().join("running");
    for side in ["base", "head"] {
        let dir = tmp.path().join(side);
        // Marks itself running for 0.3 s; says `overlap` when the other side's mark was there.
        let run = format!(
            "if [ -e '{0}' ]; then o=1; else o=0; fi; touch '{0}'; sleep 0.3; \
             if [ $o = 0 ] && [ -e '{0}' ]; then :; else o=1; fi; rm -f '{0}'; \
             echo \"{{\\\"work_ns\\\": 1000, \\\"overlap\\\": $o}}\"",
            shared.display()
        );
        common::planted_module_yml(&dir, &run);
    }
    let mut settings = GateSettings::default();
    settings.set_lock_step(true);
    settings.set_runs(2).unwrap();
    settings.set_max_runs(2).unwrap();
    settings.budgets_mut().set("default", 0.30).unwrap();
    settings.set_timeout(Duration::from_secs(60)).unwrap();
    let outcome = gate_logged(&request(tmp.path(), "base", "head", settings))
        .0
        .unwrap();
    assert_eq!(outcome.lock_step_turns, 0);
    for run in outcome.base_runs.iter().chain(&outcome.head_runs) {
        assert_eq!(
            run.get("overlap"),
            Some(&rho_gate::metrics::Figure::Value(0.0)),
            "{run:?}"
        );
    }
}

/// A side that takes part in the turns, played by bash: `turns` times it says ready on the pipe of
/// `RHO_BENCH_LOCKSTEP`, waits for its go and works for 0.1 s; then `after` (a shell command), and a last-line
/// JSON figure.
fn turn_taking_module(dir: &std::path::Path, turns: u32, after: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let script = format!(
        "IFS=, read -r w r us <<< \"$RHO_BENCH_LOCKSTEP\"\n\
         for i in $(seq {turns}); do printf r >&\"$w\"; dd bs=1 count=1 <&\"$r\" 2>/dev/null >/dev/null; sleep 0.1; done\n\
         {after}\n\
         echo '{{\"work_ns\": 1000}}'\n"
    );
    std::fs::write(dir.join("run.sh"), script).unwrap();
    common::planted_module_yml(dir, "bash run.sh");
}

/// A run that hangs holding its turn is timed out for its own time and named; the other side, which waited
/// meanwhile (time not counted against its own timeout), is not blamed.
#[test]
fn a_run_that_hangs_in_its_turn_times_out_as_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    turn_taking_module(&tmp.path().join("base"), 3, "true");
    turn_taking_module(&tmp.path().join("head"), 1, "sleep 300");
    let mut settings = GateSettings::default();
    settings.set_lock_step(true);
    settings.set_runs(2).unwrap();
    settings.set_max_runs(2).unwrap();
    // Base's own time (bash's start and 0.3 s of work) stays far within it, whatever the load.
    settings.set_timeout(Duration::from_secs(5)).unwrap();
    let start = std::time::Instant::now();
    let error = gate_logged(&request(tmp.path(), "base", "head", settings))
        .0
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("head: run 1 of 2") && error.contains("timed out after 5 s"),
        "{error}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
}
