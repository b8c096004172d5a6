//! Batched samples end to end (`tests/c/batch_suite.c`, `tests/c/setup_suite.c`): the harness batches what
//! is short and keeps what is long single, says K in the stream, obeys the code's and the environment's
//! choices, and `RHO_BENCH_LOOP_SETUP` keeps its setup out of the timed region. Everything checked is exact
//! (K, counts, a division) or a planted difference of three orders of magnitude, never a wall-clock bound.

mod common;

use std::time::Duration;

use common::*;
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(300);

fn batch_of(document: &Value, name: &str) -> u64 {
    u64_at(bench(document, name), "/cycles/batch")
}

#[test]
fn short_bodies_are_batched_long_ones_are_not_and_the_code_can_force_either() {
    let (outcome, document) = rho_json(
        &["bench", "tests/c/batch_suite.c", "--iterations", "2000"],
        LIMIT,
    );
    // A few cycles against a clock step and read cost of tens: batched, in a power of two.
    let short = batch_of(&document, "bench_short");
    assert!(
        short > 1 && short.is_power_of_two(),
        "bench_short batch {short}"
    );
    // Thousands of steps: one iteration a sample, so the tails stay those of single iterations.
    assert_eq!(batch_of(&document, "bench_long"), 1);
    assert_eq!(batch_of(&document, "bench_forced"), 16);
    assert_eq!(batch_of(&document, "bench_single"), 1);
    // The setup form's batch is bounded by the inputs it has room for (8).
    let setup = batch_of(&document, "bench_setup");
    assert!((2..=8).contains(&setup), "bench_setup batch {setup}");

    for name in ["bench_short", "bench_forced", "bench_setup"] {
        let b = bench(&document, name);
        let batch = u64_at(b, "/cycles/batch");
        let iterations = u64_at(b, "/iterations");
        // Whole batches, no more than one batch beyond what was asked: batching adds no run time.
        assert_eq!(iterations % batch, 0, "{name}");
        assert!(
            (2000..2000 + batch).contains(&iterations),
            "{name}: {iterations}"
        );
        // A sample is a batch: the figures per iteration are the net figures of a sample divided by K.
        assert_eq!(u64_at(b, "/cycles/net/n"), iterations / batch, "{name}");
        for statistic in ["median", "p95", "p99", "max"] {
            let per_sample = u64_at(b, &format!("/cycles/net/{statistic}")) as f64;
            let each = f64_at(b, &format!("/cycles/per_iteration/{statistic}"));
            assert_eq!(each, per_sample / batch as f64, "{name} {statistic}");
        }
    }
    // The report says K beside the iteration count, and what the tails of a batched benchmark are.
    assert!(
        line_with(&outcome.stdout, "bench_forced").contains(" x16"),
        "{}",
        outcome.stdout
    );
    assert!(
        !line_with(&outcome.stdout, "bench_long ").contains(" x"),
        "{}",
        outcome.stdout
    );
    outcome.assert_stdout_has("tails of batch means");
}

#[test]
fn the_environment_overrides_the_code_per_benchmark_and_sets_the_rest() {
    let (_tmp, outcome, document) = rho_to_json(
        &["bench", "tests/c/batch_suite.c", "--iterations", "200"],
        &[
            ("RHO_BENCH_BATCH", "1"),
            ("RHO_BENCH_BATCH_bench_forced", "4"),
            ("RHO_BENCH_BATCH_bench_single", "8"),
        ],
        LIMIT,
    );
    outcome.assert_exit(0);
    let document = document.unwrap();
    // RHO_BENCH_BATCH=1 for every benchmark without a choice of its own ...
    assert_eq!(batch_of(&document, "bench_short"), 1);
    assert_eq!(batch_of(&document, "bench_setup"), 1);
    // ... RHO_BENCH_BATCH_<name> over the code's RHO_BENCH_SET_BATCH.
    assert_eq!(batch_of(&document, "bench_forced"), 4);
    assert_eq!(batch_of(&document, "bench_single"), 8);

    let (_tmp, outcome, _) = rho_to_json(
        &["bench", "tests/c/batch_suite.c", "--iterations", "200"],
        &[("RHO_BENCH_BATCH_bench_short", "many")],
        LIMIT,
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("RHO_BENCH_BATCH_bench_short: expected a whole number, got \"many\"");
}

#[test]
fn the_setup_is_not_timed_and_its_inputs_are_set_up_before_the_batch_that_uses_them() {
    // (The order of setups and bodies is checked by batch_suite.c, which exits 3 when a timed body meets an
    // input not set up for it: the first test wants its exit 0.)
    let (_, document) = rho_json(
        &["bench", "tests/c/setup_suite.c", "--iterations", "2000"],
        LIMIT,
    );
    // The same fill of 4096 words, timed in the body and kept out of it: a planted difference of about
    // a thousand times, far outside any noise.
    let in_body = median_cycles(&document, "bench_fill_in_body");
    let in_setup = median_cycles(&document, "bench_fill_in_setup");
    assert!(
        in_setup * 50.0 < in_body,
        "fill in the setup {in_setup} cycles, in the body {in_body}"
    );
    assert!(batch_of(&document, "bench_fill_in_setup") > 1);
    assert_eq!(batch_of(&document, "bench_fill_in_body"), 1);
}
