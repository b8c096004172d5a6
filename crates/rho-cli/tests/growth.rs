//! Benchmark families end to end through the real binary: the growth example's members are reported as
//! `name/arg` in registration order, each family's figures are fitted against the argument, and a growth
//! budget fails `check` naming the family.

mod common;

use std::time::Duration;

use common::*;

const LIMIT: Duration = Duration::from_secs(600);

#[test]
fn members_are_reported_as_name_slash_arg_in_registration_order() {
    let (_outcome, document) = rho_json(
        &["bench", "examples/growth_bench.c", "--iterations", "50"],
        LIMIT,
    );
    assert_eq!(bench_names(&document), GROWTH_MEMBERS);
    // RHO_BENCH_ARG reached the body: the copy's heap peak is its argument.
    for (name, bytes) in [("dup/256", 256), ("dup/2048", 2048)] {
        assert_eq!(u64_at(bench(&document, name), "/heap/peak"), bytes);
    }
}

#[test]
fn a_filter_term_picks_one_member() {
    let (_outcome, document) = rho_json(
        &[
            "bench",
            "examples/growth_bench.c",
            "--iterations",
            "20",
            "--filter",
            "sum/1024|pairwise/1",
        ],
        LIMIT,
    );
    assert_eq!(
        bench_names(&document),
        ["sum/1024", "pairwise/16", "pairwise/128"]
    );
}

/// A suite `name` in `dir` of one benchmark `grow` (it keeps its argument), added to the suite by `adds`.
fn grow_suite(dir: &std::path::Path, name: &str, adds: &str) -> std::path::PathBuf {
    write_c(
        dir,
        name,
        &format!(
            "#include <rho/bench.h>\n\
             static void grow(rho_bench_t *state) {{ RHO_BENCH_LOOP(state) {{ RHO_BENCH_KEEP(RHO_BENCH_ARG(state)); }} }}\n\
             int main(int argc, char **argv) {{\n    \
                 rho_bench_suite_t suite = {{0}};\n    \
                 {adds}\n    \
                 return rho_bench_main(&suite, argc, argv);\n\
             }}\n"
        ),
    )
}

#[test]
fn a_range_that_cannot_be_walked_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = grow_suite(
        tmp.path(),
        "bad_range.c",
        "RHO_BENCH_ADD_RANGE(&suite, grow, 64, 8, 2);",
    );
    let outcome = rho_in(tmp.path(), &["bench", suite.to_str().unwrap()], LIMIT);
    outcome.assert_exit(2);
    outcome.assert_stderr_has(
        "rho: grow: RHO_BENCH_ADD_RANGE: expected lo <= hi and a multiplier >= 2",
    );
}

#[test]
fn a_range_ends_at_its_upper_bound_and_arguments_are_64_bits() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = grow_suite(
        tmp.path(),
        "ranges.c",
        "RHO_BENCH_ADD_RANGE(&suite, grow, 0, 20, 3);\n    RHO_BENCH_ADD_ARG(&suite, grow, UINT64_MAX);",
    );
    let (_outcome, document) = rho_json(
        &["bench", suite.to_str().unwrap(), "--iterations", "5"],
        LIMIT,
    );
    assert_eq!(
        bench_names(&document),
        [
            "grow/0",
            "grow/1",
            "grow/3",
            "grow/9",
            "grow/20",
            "grow/18446744073709551615"
        ]
    );
}

fn best(document: &serde_json::Value, family: &str, metric: &str) -> String {
    let growth = growth_fit(document, family, metric);
    assert_eq!(growth["status"], "fitted", "{growth}");
    best_growth(document, family, metric)
}

/// Counted by Callgrind, the figures are exact: the sum is O(n) with 5 instructions a byte, the pairwise loop
/// O(n^2); the stack does not grow and the copy's heap peak is exactly n.
#[test]
fn counted_instructions_fit_o_n_to_the_sum_and_o_n2_to_the_pairwise_loop() {
    let (outcome, document) = rho_json(
        &[
            "bench",
            "examples/growth_bench.c",
            "--measure",
            "instructions",
            "--iterations",
            "20",
        ],
        LIMIT,
    );
    assert_eq!(bench_names(&document), GROWTH_MEMBERS);
    assert_eq!(best(&document, "sum", "instructions"), "n");
    assert_eq!(best(&document, "pairwise", "instructions"), "n^2");
    assert_eq!(best(&document, "sum", "stack_bytes"), "1");
    assert_eq!(best(&document, "dup", "heap_peak_bytes"), "n");
    let heap = growth_fit(&document, "dup", "heap_peak_bytes");
    assert_eq!(heap["best"]["coefficient"].as_f64(), Some(1.0));
    assert_eq!(heap["best"]["rms"].as_f64(), Some(0.0));
    // The report shows each family as a table with its fit.
    let line = line_with(&outcome.stdout, "pairwise / n");
    assert!(
        line.contains("16") && line.contains("128") && line.contains("fit"),
        "{line}"
    );
    outcome.assert_stdout_has("O(n^2)");
}

/// On the wall clock only what lies far outside the noise is asserted: over 16..128 items the pairwise loop's
/// O(n^2) is 64 times its smallest cost, where O(n log n) would be 14 and O(n) 8, so the fit never reads it as
/// O(n log n) or slower-growing. Which of O(n^2) and O(n^3) is best is for exact counts (the tests above and
/// the board's): on a shared machine one member measured in a slow stretch (up to 2x, docs/gate.md) tips the
/// least squares, which the largest size dominates, towards O(n^3). Best of 3 runs per figure.
#[test]
fn the_pairwise_loop_grows_faster_than_n_log_n_on_the_clock() {
    let (_outcome, document) = rho_json(
        &[
            "bench",
            "examples/growth_bench.c",
            "--iterations",
            "500",
            "--repetitions",
            "3",
            "--filter",
            "pairwise",
        ],
        LIMIT,
    );
    for metric in ["cycles", "time_ns"] {
        let class = best(&document, "pairwise", metric);
        assert!(
            ["n^2", "n^3"].contains(&class.as_str()),
            "{metric}: {class}"
        );
        let growth = growth_fit(&document, "pairwise", metric);
        let linear = growth["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["complexity"] == "n")
            .unwrap();
        assert!(linear["rms"].as_f64().unwrap() > 0.2, "{growth}");
    }
}

#[test]
fn three_sizes_are_too_few_points() {
    let (outcome, document) = rho_json(
        &[
            "bench",
            "examples/growth_bench.c",
            "--iterations",
            "20",
            "--filter",
            "^pairwise/(16|32|64)$",
        ],
        LIMIT,
    );
    let growth = growth_fit(&document, "pairwise", "stack_bytes");
    assert_eq!(growth["status"], "too_few_points", "{growth}");
    assert_eq!(growth["points"], 3);
    outcome.assert_stdout_has("too few points (3 sizes; 4 needed)");
}

/// `max_growth: n` on the pairwise family: `check` fails with exit 1 and names the family; the sum holds its
/// own `max_growth: n`. Counted, so the verdict is exact.
#[test]
fn max_growth_n_on_the_pairwise_family_fails_check_naming_it() {
    let project = Project::new();
    project.write(
        "bench/growth_bench.c",
        &std::fs::read_to_string(repo_file("examples/growth_bench.c")).unwrap(),
    );
    project.write(
        "module.yml",
        "bench:\n  default_iterations: 20\n  warmup_runs: 2\n  measure: instructions\n  suites:\n    - bench/growth_bench.c\n  benchmarks:\n    pairwise:\n      budgets:\n        max_growth: n\n    sum:\n      budgets:\n        max_growth: n\n",
    );
    let outcome = project.rho(&["bench", "check"]);
    outcome.assert_exit(1);
    outcome.assert_stdout_has("check: FAILED: 1 budget broken");
    // The fit's rms moves with the harness's per-iteration overhead (a tenth of a percent), not the verdict.
    outcome.assert_stdout_has_words(
        "pairwise: grows as O(n^2) in instructions (best fit over 4 sizes, rms 0.",
    );
    outcome.assert_stdout_has_words("%), faster than its budget max_growth: n");
    // Wrapped, as every line of the report, at 100 columns.
    let over: Vec<&str> = outcome
        .stdout
        .lines()
        .filter(|l| l.chars().count() > 100)
        .collect();
    assert!(over.is_empty(), "{over:#?}");
    let row = line_with(&outcome.stdout, "sum  ");
    assert!(
        row.contains("O(n) (instructions)") && row.ends_with("ok"),
        "{row}"
    );
    // Raised to n^2 it holds, and nothing is reported as unmatched (the family's name is a budget's home).
    project.write(
        "module.yml",
        "bench:\n  default_iterations: 20\n  warmup_runs: 2\n  measure: instructions\n  suites:\n    - bench/growth_bench.c\n  benchmarks:\n    pairwise:\n      budgets:\n        max_growth: n^2\n",
    );
    let outcome = project.rho(&["bench", "check"]);
    outcome.assert_exit(0);
    outcome.assert_stdout_has("check: ok: every budget holds");
}

/// A family of twelve sizes fits 100 columns: its table is turned on its side,
/// a row per size; `--wide` keeps the table of a row per metric, as wide as its sizes make it.
#[test]
fn a_family_of_many_sizes_fits_100_columns_and_wide_keeps_a_row_per_metric() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = grow_suite(
        tmp.path(),
        "ten.c",
        "RHO_BENCH_ADD_RANGE(&suite, grow, 1, 1000000000, 10);\n    \
         RHO_BENCH_ADD_ARG(&suite, grow, 3);\n    RHO_BENCH_ADD_ARG(&suite, grow, 5);",
    );
    let path = suite.to_str().unwrap();
    let run = |wide: bool| {
        let mut args = vec!["bench", path, "--iterations", "5"];
        if wide {
            args.push("--wide");
        }
        let outcome = rho_in_env(tmp.path(), &args, &[("COLUMNS", "100")], LIMIT);
        outcome.assert_exit(0);
        outcome
    };
    let narrow = run(false);
    let over: Vec<&str> = narrow
        .stdout
        .lines()
        .filter(|l| l.chars().count() > 100)
        .collect();
    assert!(over.is_empty(), "lines over 100 columns: {over:#?}");
    // Under the family's name, a row per size (the first cell is the size), the fit below them.
    let sizes: Vec<&str> = narrow
        .stdout
        .lines()
        .skip_while(|l| *l != "grow")
        .skip(3)
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .take(13)
        .collect();
    assert_eq!(
        sizes,
        [
            "1",
            "10",
            "100",
            "1000",
            "10000",
            "100000",
            "1000000",
            "10000000",
            "100000000",
            "1000000000",
            "3",
            "5",
            "fit"
        ],
        "{}",
        narrow.stdout
    );
    let wide = run(true);
    let header = wide
        .stdout
        .lines()
        .find(|l| l.starts_with("grow / n"))
        .unwrap_or_else(|| panic!("no family table: {}", wide.stdout));
    assert!(header.chars().count() > 100, "{header}");
    let words: Vec<&str> = header.split_whitespace().collect();
    assert!(
        words.ends_with(&["1000000000", "3", "5", "fit", "coefficient", "rms"]),
        "{header}"
    );
}
