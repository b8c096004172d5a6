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
