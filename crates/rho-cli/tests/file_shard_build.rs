//! `rho bench FILE.c --shard K/N` on the host builds its suite once a share: the harness lists the suite
//! (`RHO_BENCH_LIST=1`) from the build the share then runs, so no benchmark body runs to list it. With a
//! version 4 baseline that names the suite, the shares take its names from there and only the share that
//! holds its first benchmark lists it, for the benchmarks the baseline does not know. A compiler wrapper logs
//! the builds; each benchmark leaves `ran/NAME` when its body runs (common::MARKING_SUITE).

mod common;

use common::Project;
use serde_json::Value;

const SUITE: &str = "marking.c";

/// What one share did: its document, its own benchmarks, what ran and how many times the suite was built.
struct ShareRun {
    document: Value,
    own: Vec<String>,
    ran: Vec<String>,
    builds: usize,
}

/// `rho bench marking.c --shard K/2` (and `extra`) with `$CC` logging each build to builds.log.
fn share(project: &Project, k: u32, extra: &[&str]) -> ShareRun {
    std::fs::create_dir_all(project.path().join("ran")).unwrap();
    let compiler = format!("sh {}", project.path().join("cc-log.sh").display());
    let shard = format!("{k}/2");
    let run = project.rho_in(
        project.path(),
        &[
            "bench",
            SUITE,
            "--iterations",
            "10",
            "--shard",
            &shard,
            "--json",
            "share.json",
        ]
        .iter()
        .chain(extra)
        .copied()
        .collect::<Vec<_>>(),
        &[("CC", &compiler)],
    );
    run.assert_exit(0);
    let document = common::read_json(&project.path().join("share.json"));
    let shard_record = &document["shard"];
    let own = shard_record["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["share"] == shard_record["index"])
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect();
    let builds = project
        .read("builds.log")
        .lines()
        .filter(|l| l.contains(SUITE))
        .count();
    let ran = common::entries(&project.path().join("ran"));
    std::fs::remove_file(project.path().join("builds.log")).unwrap();
    std::fs::remove_dir_all(project.path().join("ran")).unwrap();
    ShareRun {
        document,
        own,
        ran,
        builds,
    }
}

fn project() -> Project {
    let project = Project::new();
    project.write(SUITE, common::MARKING_SUITE);
    project.write(
        "cc-log.sh",
        "echo \"$*\" >> \"$(dirname \"$0\")/builds.log\"\nexec cc \"$@\"\n",
    );
    project
}

#[test]
fn a_file_share_builds_its_suite_once_and_lists_it_without_running_a_benchmark() {
    let project = project();
    let mut all = Vec::new();
    for k in 1..=2 {
        let share = share(&project, k, &[]);
        assert_eq!(share.document["shard"]["basis"], "names");
        assert_eq!(share.own.len(), 1, "{}", share.document);
        // Listed by the harness, nothing run: only the share's own benchmark ran, from the one build.
        assert_eq!(
            share.ran, share.own,
            "share {k}/2 ran only its own benchmark"
        );
        assert_eq!(common::bench_names(&share.document), share.own);
        assert_eq!(share.builds, 1, "share {k}/2 built the suite once");
        all.extend(share.own);
    }
    all.sort();
    assert_eq!(all, ["bench_left", "bench_right"]);
}

#[test]
fn a_file_share_takes_the_suites_names_from_a_baseline_and_its_owner_runs_a_new_one() {
    let project = project();
    // Counted, so that each benchmark's cost is exact and not 0 (a figure under a nanosecond is 0 ns).
    let counted = ["--measure", "instructions"];
    let written = project.rho(
        &[
            &["bench", SUITE, "--iterations", "10", "--write-baseline"][..],
            &counted,
        ]
        .concat(),
    );
    written.assert_exit(0);
    // A benchmark the baseline does not know: added after bench_right.
    let grown = common::MARKING_SUITE
        .replace(
            "    RHO_BENCH_ADD(&suite, bench_right);\n",
            "    RHO_BENCH_ADD(&suite, bench_right);\n    RHO_BENCH_ADD(&suite, bench_third);\n",
        )
        .replace(
            "int main(",
            "static void bench_third(rho_bench_t *state)\n{\n    unsigned x = 3u, first = 1u;\n    \
             RHO_BENCH_LOOP(state) {\n        if (first) {\n            mark(\"bench_third\");\n            \
             first = 0u;\n        }\n        x = x * 7u + 1u;\n        RHO_BENCH_KEEP(x);\n    }\n}\n\nint main(",
        );
    assert!(grown.contains("RHO_BENCH_ADD(&suite, bench_third)"));
    project.write(SUITE, &grown);

    let shares: Vec<ShareRun> = (1..=2).map(|k| share(&project, k, &counted)).collect();
    let mut all = Vec::new();
    for (k, share) in (1..=2).zip(&shares) {
        assert_eq!(share.document["shard"]["basis"], "baseline");
        assert_eq!(
            share.ran, share.own,
            "share {k}/2 ran only its own benchmarks"
        );
        assert_eq!(share.builds, 1, "share {k}/2 built the suite once");
        all.extend(share.own.iter().cloned());
    }
    all.sort();
    assert_eq!(all, ["bench_left", "bench_right", "bench_third"]);
    // The owner (bench_left's share, the first in run order) listed the suite and took the new benchmark;
    // the other share went by the baseline's names alone.
    let owner = shares
        .iter()
        .position(|s| s.own.contains(&"bench_left".to_string()))
        .unwrap();
    assert_eq!(shares[owner].own, ["bench_left", "bench_third"]);
    let other = &shares[1 - owner].document["shard"]["benchmarks"];
    assert_eq!(other.as_array().unwrap().len(), 2, "{other}");
}
