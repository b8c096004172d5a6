//! `rho bench FILE.c --shard K/N` and `rho bench merge` of its shares, through the real binary on
//! examples/crypto_bench.c counted in instructions (exact): three shares merged give the very document the
//! unsharded run gives, and with `--diff` a planted 2x slowdown fails the merge (exit 1) naming it, with the
//! unsharded run's comparison; a share missing, given twice, of another commit or of other settings is refused
//! with exit 2 naming it; `RHO_SHARD` picks the share too; too many shares, several targets and
//! `--write-baseline` are refused before anything runs.

mod common;

use std::path::Path;

use common::Project;
use serde_json::Value;

const SUITE: &str = "crypto_bench.c";

/// A git repository holding examples/crypto_bench.c, committed.
fn project() -> Project {
    let project = Project::new();
    let text = std::fs::read_to_string(common::repo_file("examples/crypto_bench.c")).unwrap();
    project.write(SUITE, &text);
    project.write(".gitignore", "tmp/\n*.json\n");
    git(project.path(), &["init", "-q", "-b", "main"]);
    git(project.path(), &["add", "."]);
    git(project.path(), &["commit", "-q", "-m", "suite"]);
    project
}

fn git(dir: &Path, args: &[&str]) {
    common::git(dir, &[&["-c", "commit.gpgsign=false"], args].concat());
}

const COUNTED: [&str; 4] = ["bench", SUITE, "--measure", "instructions"];

/// `rho bench crypto_bench.c --measure instructions --shard K/3 --json sK.json`: exit 0, saying its share.
fn share(project: &Project, k: u32, extra: &[&str]) -> String {
    let file = format!("s{k}.json");
    let shard = format!("{k}/3");
    let run = project.rho(&[&COUNTED[..], extra, &["--shard", &shard, "--json", &file]].concat());
    run.assert_exit(0);
    run.assert_stderr_has(&format!("rho: shard {shard}: "));
    file
}

fn names(document: &Value) -> Vec<String> {
    common::bench_names(document)
        .into_iter()
        .map(str::to_string)
        .collect()
}

#[test]
fn three_shares_of_a_file_suite_merged_are_the_single_run_exactly() {
    let project = project();
    let (_, single) = project.rho_json(&COUNTED);
    let files: Vec<String> = (1..=3).map(|k| share(&project, k, &[])).collect();

    // Each share ran only its own benchmarks; between them every benchmark once.
    let mut seen = Vec::new();
    for file in &files {
        let document = common::read_json(&project.path().join(file));
        assert_eq!(document["schema"], "rho-bench-run/1");
        let shard = &document["shard"];
        assert_eq!(
            (&shard["count"], &shard["basis"]),
            (&3.into(), &"names".into())
        );
        let own: Vec<String> = shard["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["share"] == shard["index"])
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names(&document), own, "{file} ran what its share holds");
        assert_eq!(own.len(), 2, "6 benchmarks in 3 shares by name: {own:?}");
        seen.extend(own);
    }
    seen.sort();
    let mut all = names(&single);
    all.sort();
    assert_eq!(seen, all, "every benchmark in exactly one share");

    let run = project.rho(&[
        "bench",
        "merge",
        &files[2],
        &files[0],
        &files[1],
        "--json",
        "merged.json",
        "--html",
        "merged.html",
    ]);
    run.assert_exit(0);
    run.assert_stdout_has("bench_outlier");
    assert!(project.read("merged.html").contains("bench_outlier"));
    let merged = common::read_json(&project.path().join("merged.json"));
    assert!(merged.get("shard").is_none(), "{merged}");
    assert_eq!(
        merged, single,
        "the merged document is the single run's, figure for figure"
    );

    // `RHO_SHARD` picks the share when --shard is not given: the same benchmarks and counts as s2.json.
    let run = project.rho_in(
        project.path(),
        &[&COUNTED[..], &["--json", "env.json"]].concat(),
        &[("RHO_SHARD", "2/3")],
    );
    run.assert_exit(0);
    let by_env = common::read_json(&project.path().join("env.json"));
    let s2 = common::read_json(&project.path().join(&files[1]));
    assert_eq!(by_env["shard"], s2["shard"]);
    assert_eq!(by_env["benchmarks"], s2["benchmarks"]);

    refusals(&project, &files);
}

/// What the merge refuses, each with exit 2 naming the share or file and what differs.
fn refusals(project: &Project, files: &[String]) {
    let merge = |shares: &[&str]| project.rho(&[&["bench", "merge"], shares].concat());
    let run = merge(&[&files[0], &files[2]]);
    run.assert_exit(2);
    run.assert_stderr_has("share 2/3 missing: no file given holds it (2 of 3 given)");
    let run = merge(&[&files[0], &files[1], &files[2], &files[0]]);
    run.assert_exit(2);
    run.assert_stderr_has("share 1/3 given twice: s1.json and s1.json");
    // An unsharded run's document is not a share.
    let run = merge(&["run.json"]);
    run.assert_exit(2);
    run.assert_stderr_has("run.json: not a share: no \"shard\" object");

    // Other settings: another partition.
    let run = project.rho(
        &[
            &COUNTED[..],
            &[
                "--iterations",
                "5",
                "--shard",
                "2/3",
                "--json",
                "other.json",
            ],
        ]
        .concat(),
    );
    run.assert_exit(0);
    let run = merge(&[&files[0], "other.json", &files[2]]);
    run.assert_exit(2);
    run.assert_stderr_has("other.json is not a share of the same run as s1.json: partition");

    // Another commit.
    project.write("notes.txt", "another commit\n");
    git(project.path(), &["add", "notes.txt"]);
    git(project.path(), &["commit", "-q", "-m", "notes"]);
    share(project, 3, &[]);
    let run = merge(&[&files[0], &files[1], "s3.json"]);
    run.assert_exit(2);
    run.assert_stderr_has("s3.json is not a share of the same run as s1.json: commit");
}

#[test]
fn a_file_share_that_cannot_be_merged_is_refused_before_it_runs() {
    let project = project();
    // 6 benchmarks: a 7th share would hold none.
    let run = project.rho(&[&COUNTED[..], &["--shard", "7/7"]].concat());
    run.assert_exit(2);
    run.assert_stderr_has(
        "--shard 7/7: the suite has 6 benchmark(s), and this share would hold none",
    );
    let run = project.rho(&[
        "bench",
        SUITE,
        "--target",
        "host,mps2-an386",
        "--shard",
        "1/2",
    ]);
    run.assert_exit(2);
    run.assert_stderr_has("--shard 1/2: shares are of one target's run");
    let run = project.rho(&["bench", SUITE, "--shard", "1/2", "--write-baseline"]);
    run.assert_exit(2);
    run.assert_stderr_has("--shard 1/2 with --write-baseline would record one share's benchmarks");
    assert!(!project.path().join("bench/baseline.json").exists());
}

#[test]
fn a_planted_2x_slowdown_in_a_sharded_file_diff_fails_the_merge_naming_it() {
    let project = project();
    let run = project.rho(&[&COUNTED[..], &["--write-baseline"]].concat());
    run.assert_exit(0);
    git(project.path(), &["add", "-f", "bench/baseline.json"]);
    git(project.path(), &["commit", "-q", "-m", "baseline"]);
    // bench_crc_64 now does its work twice (the harness's keep is a barrier: both calls are made); nothing
    // else changes.
    let once = "RHO_BENCH_KEEP(crc32(message, 64));";
    let slower = project
        .read(SUITE)
        .replace(once, &format!("{once}\n        {once}"));
    project.write(SUITE, &slower);

    let diff = [&COUNTED[..], &["--diff", "HEAD"]].concat();
    let single = project.rho(&[&diff[..], &["--json", "single.json"]].concat());
    single.assert_exit(1);
    let files: Vec<String> = (1..=3)
        .map(|k| share(&project, k, &["--diff", "HEAD"]))
        .collect();
    let first = common::read_json(&project.path().join(&files[0]));
    assert_eq!(
        first["shard"]["basis"], "baseline",
        "costed from the baseline"
    );
    assert!(first.get("comparison").is_none(), "{first}");

    let mut merge = vec![
        "bench",
        "merge",
        "--markdown",
        "pr.md",
        "--json",
        "merged.json",
    ];
    merge.extend(files.iter().map(String::as_str));
    let run = project.rho(&merge);
    run.assert_exit(1);
    assert!(project.read("pr.md").contains("`bench_crc_64`"));
    let merged = common::read_json(&project.path().join("merged.json"));
    let single = common::read_json(&project.path().join("single.json"));
    assert_eq!(merged, single, "the same comparison as one machine's");
    let regressed: Vec<&str> = merged["comparison"]["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| {
            b["metrics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["verdict"] == "regressed")
        })
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(regressed, ["bench_crc_64"]);
}
