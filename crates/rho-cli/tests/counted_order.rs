//! `--measure instructions` counts each benchmark from the same state whatever ran before it (issue 38): a
//! malloc-heavy benchmark that runs after one churning the allocator (tests/c/allocator_order_suite.c) has the
//! same count, exactly, in the whole suite, alone with `--filter` and in a merged `--shard` run. Exact counts
//! under Callgrind, so equality is asserted.

mod common;

use common::Project;
use serde_json::Value;

const SUITE: &str = "allocator_order_suite.c";
const HEAVY: &str = "bench_malloc_heavy";
const COUNTED: [&str; 4] = ["bench", SUITE, "--measure", "instructions"];

/// The instructions `name`'s measured loop ran, in all (the exact total Callgrind counted), and per iteration.
fn counted(document: &Value, name: &str) -> (u64, f64) {
    let figures = &common::bench(document, name)["instructions"];
    (
        figures["loop_total"].as_u64().unwrap(),
        figures["per_iteration"].as_f64().unwrap(),
    )
}

#[test]
fn a_malloc_heavy_benchmark_counts_the_same_after_churn_alone_and_sharded() {
    let project = Project::new();
    let text =
        std::fs::read_to_string(common::repo_file("tests/c/allocator_order_suite.c")).unwrap();
    project.write(SUITE, &text);
    project.write(".gitignore", "tmp/\n*.json\n");
    let git = |args: &[&str]| {
        common::git(
            project.path(),
            &[&["-c", "commit.gpgsign=false"], args].concat(),
        )
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "suite"]);

    let (_, whole) = project.rho_json(&COUNTED);
    assert_eq!(
        common::bench_names(&whole),
        ["bench_churn_allocator", HEAVY, "bench_sum"]
    );
    let (_, alone) = project.rho_json(&[&COUNTED[..], &["--filter", HEAVY]].concat());
    assert_eq!(common::bench_names(&alone), [HEAVY]);
    assert_eq!(counted(&whole, HEAVY), counted(&alone, HEAVY));

    let shares: Vec<String> = (1..=2)
        .map(|k| {
            let file = format!("s{k}.json");
            let run = project.rho(
                &[
                    &COUNTED[..],
                    &["--shard", &format!("{k}/2"), "--json", &file],
                ]
                .concat(),
            );
            run.assert_exit(0);
            file
        })
        .collect();
    let run = project.rho(&[
        "bench",
        "merge",
        &shares[0],
        &shares[1],
        "--json",
        "merged.json",
    ]);
    run.assert_exit(0);
    let merged = common::read_json(&project.path().join("merged.json"));
    assert_eq!(counted(&merged, HEAVY), counted(&whole, HEAVY));
    // Every benchmark, not only the allocating one: the merge is the whole run's document.
    assert_eq!(merged["benchmarks"], whole["benchmarks"]);
}

/// A benchmark that crashes in its own counted process is the run's error, naming it (exit 2), as in one
/// process; nothing of the counts is left in the temporary directory.
#[test]
fn a_crash_in_one_benchmarks_counted_process_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let suite = common::write_c(
        dir.path(),
        "crash.c",
        "#include <stdlib.h>\n#include <rho/bench.h>\nstatic volatile int sink;\n\
         static void bench_fine(rho_bench_t *state) { RHO_BENCH_LOOP(state) { sink++; } }\n\
         static void bench_crash(rho_bench_t *state) { RHO_BENCH_LOOP(state) { if (sink >= 0) abort(); } }\n\
         static void bench_after(rho_bench_t *state) { RHO_BENCH_LOOP(state) { sink--; } }\n\
         int main(int argc, char **argv)\n{\n    rho_bench_suite_t suite = {0};\n    \
         RHO_BENCH_ADD(&suite, bench_fine);\n    RHO_BENCH_ADD(&suite, bench_crash);\n    \
         RHO_BENCH_ADD(&suite, bench_after);\n    return rho_bench_main(&suite, argc, argv);\n}\n",
    );
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let outcome = common::rho_in(
        &tmp,
        &[
            "bench",
            "--measure",
            "instructions",
            suite.to_str().unwrap(),
        ],
        std::time::Duration::from_secs(300),
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("crashed (SIGABRT) while running bench_crash");
    common::assert_nothing_left(&tmp);
}
