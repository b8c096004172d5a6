//! `--shard K/N` and `rho bench merge` through the real binary, in instructions mode (exact figures):
//! four shares merged give the very document the run on one machine gives; a planted 2x slowdown in one
//! benchmark of a sharded `check --diff` fails the merge naming it; a share missing or given twice, and shares
//! of different runs, are refused with exit 2 naming them.

mod common;

use std::path::Path;

use common::Project;
use serde_json::Value;

/// A generated suite of `count` benchmarks, `{prefix}_1` to `{prefix}_{count}` (unpadded, so a share's filter
/// term `bench_1` also matches `bench_10`: what the share trims), each mixing a word `rounds(i)` times per
/// iteration; `slow` runs twice the rounds.
fn generated_suite(prefix: &str, count: u32, slow: Option<u32>) -> String {
    let mut text = String::from(
        "#include <rho/bench.h>\n#include <stdint.h>\n\n\
         static uint32_t mix(uint32_t x, unsigned rounds)\n{\n    unsigned i;\n    \
         for (i = 0; i < rounds; i++) {\n        x = (x ^ (x >> 13)) * 2654435761u + i;\n    }\n    return x;\n}\n\n",
    );
    for i in 1..=count {
        let rounds = (i % 7 + 1) * 8 * if slow == Some(i) { 2 } else { 1 };
        text.push_str(&format!(
            "static void {prefix}_{i}(rho_bench_t *state)\n{{\n    uint32_t x = {i}u;\n    \
             RHO_BENCH_LOOP(state) {{\n        x = mix(x, {rounds}u);\n        RHO_BENCH_KEEP(x);\n    }}\n}}\n\n"
        ));
    }
    text.push_str("int main(int argc, char **argv)\n{\n    rho_bench_suite_t suite = {0};\n");
    for i in 1..=count {
        text.push_str(&format!("    RHO_BENCH_ADD(&suite, {prefix}_{i});\n"));
    }
    text.push_str("    return rho_bench_main(&suite, argc, argv);\n}\n");
    text
}

/// Two suites (the second small, so one share may have none of it), counted in 10 iterations.
const MODULE_YML: &str = "bench:\n  default_iterations: 10\n  warmup_runs: 2\n  suites:\n    - bench/gen.c\n    \
     - bench/small.c\n";

/// A git repository holding module.yml and the two generated suites, committed.
fn project() -> Project {
    let project = Project::new();
    project.write("module.yml", MODULE_YML);
    project.write("bench/gen.c", &generated_suite("bench", 24, None));
    project.write("bench/small.c", &generated_suite("tiny", 2, None));
    project.write(".gitignore", "tmp/\n*.json\n");
    git(project.path(), &["init", "-q", "-b", "main"]);
    git(project.path(), &["add", "."]);
    git(project.path(), &["commit", "-q", "-m", "suites"]);
    project
}

fn git(dir: &Path, args: &[&str]) {
    common::git(dir, &[&["-c", "commit.gpgsign=false"], args].concat());
}

/// Runs `rho ARGS --shard K/4 --json sK.json` for each share; each must exit `code`. The files' names.
fn run_shares(project: &Project, args: &[&str], code: i32) -> Vec<String> {
    (1..=4)
        .map(|k| {
            let file = format!("s{k}.json");
            let shard = format!("{k}/4");
            let run = project.rho(&[args, &["--shard", &shard, "--json", &file]].concat());
            run.assert_exit(code);
            assert!(
                run.stderr.contains(&format!("rho: shard {shard}: ")),
                "{}",
                run.describe()
            );
            file
        })
        .collect()
}

fn names(document: &Value) -> Vec<String> {
    document["suites"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["benchmarks"].as_array().unwrap())
        .map(|b| b["name"].as_str().unwrap().to_string())
        .collect()
}

const COUNTED: [&str; 3] = ["bench", "--measure", "instructions"];

#[test]
fn four_shares_merged_are_the_single_run_exactly() {
    let project = project();
    project.rho_json(&COUNTED);
    let single = common::read_json(&project.path().join("run.json"));
    let files = run_shares(&project, &COUNTED, 0);

    // Each share ran only its own benchmarks (trimmed of the ones its filter's terms also matched), the
    // shares are disjoint and together every benchmark, and each says which share of which partition it is.
    let mut seen: Vec<String> = Vec::new();
    let mut partition = None;
    for file in &files {
        let share = common::read_json(&project.path().join(file));
        let shard = &share["shard"];
        assert_eq!(shard["count"], 4);
        assert_eq!(shard["basis"], "names", "no baseline: by name");
        partition.get_or_insert_with(|| shard["partition"].clone());
        assert_eq!(Some(&shard["partition"]), partition.as_ref());
        let own: Vec<String> = shard["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["share"] == shard["index"])
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names(&share), own, "{file} ran what its share holds");
        seen.extend(own);
    }
    seen.sort();
    let mut all = names(&single);
    all.sort();
    assert_eq!(seen, all, "every benchmark in exactly one share");

    let mut merge = vec!["bench", "merge"];
    // In any order.
    merge.extend(files.iter().rev().map(String::as_str));
    merge.extend(["--json", "merged.json", "--html", "merged.html"]);
    let run = project.rho(&merge);
    run.assert_exit(0);
    let merged = common::read_json(&project.path().join("merged.json"));
    assert_eq!(
        merged, single,
        "the merged document is the single run's, figure for figure"
    );
    run.assert_stdout_has("bench_24");
    let page = project.read("merged.html");
    assert!(
        page.contains("bench_24") && page.contains("tiny_2"),
        "the page has every suite"
    );

    // A share missing: exit 2 naming it. A share twice: exit 2 naming it and both files.
    let run = project.rho(&["bench", "merge", "s1.json", "s2.json", "s4.json"]);
    run.assert_exit(2);
    run.assert_stderr_has("share 3/4 missing");
    let run = project.rho(&[
        "bench", "merge", "s1.json", "s2.json", "s3.json", "s4.json", "s2.json",
    ]);
    run.assert_exit(2);
    run.assert_stderr_has("share 2/4 given twice: s2.json and s2.json");
    // A share does not record a baseline, and one with none of a suite's benchmarks is refused (FILE.c shares:
    // tests/file_shard.rs); RHO_SHARD must be K/N.
    let run = project.rho(&["bench", "--shard", "1/4", "--write-baseline"]);
    run.assert_exit(2);
    run.assert_stderr_has("--shard 1/4 with --write-baseline would record one share's benchmarks");
    let run = project.rho(&["bench", "bench/small.c", "--shard", "3/4"]);
    run.assert_exit(2);
    run.assert_stderr_has(
        "--shard 3/4: the suite has 2 benchmark(s), and this share would hold none",
    );
    let run = project.rho_in(project.path(), &["bench"], &[("RHO_SHARD", "5/4")]);
    run.assert_exit(2);
    run.assert_stderr_has("RHO_SHARD=`5/4`: expected K/N");
    // An unsharded run's document is not a share.
    let run = project.rho(&["bench", "merge", "run.json"]);
    run.assert_exit(2);
    run.assert_stderr_has("run.json: not a share: no \"shard\" object");
}

#[test]
fn a_planted_2x_slowdown_in_a_sharded_check_diff_fails_the_merge_naming_it() {
    let project = project();
    let run = project.rho(&["bench", "--write-baseline", "--measure", "instructions"]);
    run.assert_exit(0);
    git(project.path(), &["add", "-f", "bench/baseline.json"]);
    git(project.path(), &["commit", "-q", "-m", "baseline"]);
    // bench_7 now does twice the work; nothing else changes.
    project.write("bench/gen.c", &generated_suite("bench", 24, Some(7)));

    let check = common::COUNTED_CHECK;
    let single = project.rho(&[&check[..], &["--json", "single.json"]].concat());
    single.assert_exit(1);
    // Each share only runs its part: the comparison is the merge's, over the whole run.
    let files = run_shares(&project, &check, 0);
    let share = common::read_json(&project.path().join(&files[0]));
    assert_eq!(
        share["shard"]["basis"], "baseline",
        "costed from the baseline"
    );
    assert!(share.get("comparison").is_none(), "{share}");

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
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("bench_7 ") && l.ends_with("REGRESSED")),
        "{}",
        run.describe()
    );
    run.assert_stdout_has(
        "check: 1 metric(s) regressed and 0 not measured against the baseline: fails",
    );
    // The same words as the check on one machine.
    single.assert_stdout_has(
        "check: 1 metric(s) regressed and 0 not measured against the baseline: fails",
    );
    assert!(project.read("pr.md").contains("`bench_7`"));
    let merged = common::read_json(&project.path().join("merged.json"));
    let single = common::read_json(&project.path().join("single.json"));
    assert_eq!(
        merged, single,
        "the same comparison and verdict as one machine's"
    );
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
    assert_eq!(regressed, ["bench_7"]);

    // Shares of another run (one re-run on another commit) are refused naming the file and what differs.
    git(project.path(), &["commit", "-q", "-am", "slower"]);
    let other = project.rho(&[&check[..], &["--shard", "3/4", "--json", "other.json"]].concat());
    let run = project.rho(&[
        "bench",
        "merge",
        "s1.json",
        "s2.json",
        "other.json",
        "s4.json",
    ]);
    run.assert_exit(2);
    assert!(
        run.stderr
            .contains("other.json is not a share of the same run as s1.json: commit"),
        "{}\n{}",
        run.describe(),
        other.describe()
    );
}

/// A suite whose benchmarks each leave a file `ran/NAME` when they run (their body's first iteration), so
/// what a share ran is seen on disk.
const MARKING_SUITE: &str = r#"#include <rho/bench.h>
#include <stdio.h>

static void mark(const char *name)
{
    char path[64];
    FILE *file;
    sprintf(path, "ran/%s", name);
    file = fopen(path, "w");
    if (file != NULL) {
        fclose(file);
    }
}

static void bench_left(rho_bench_t *state)
{
    unsigned x = 1u, first = 1u;
    RHO_BENCH_LOOP(state) {
        if (first) {
            mark("bench_left");
            first = 0u;
        }
        x = x * 3u + 1u;
        RHO_BENCH_KEEP(x);
    }
}

static void bench_right(rho_bench_t *state)
{
    unsigned x = 2u, first = 1u;
    RHO_BENCH_LOOP(state) {
        if (first) {
            mark("bench_right");
            first = 0u;
        }
        x = x * 5u + 1u;
        RHO_BENCH_KEEP(x);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_left);
    RHO_BENCH_ADD(&suite, bench_right);
    return rho_bench_main(&suite, argc, argv);
}
"#;

#[test]
fn a_share_builds_its_suite_once_and_lists_it_without_running_a_benchmark() {
    let project = Project::new();
    project.write(
        "module.yml",
        "bench:\n  default_iterations: 10\n  suites:\n    - marking.c\n",
    );
    project.write("marking.c", MARKING_SUITE);
    // The compiler, logging each build of the suite: `$CC` is how rho finds it.
    project.write(
        "cc-log.sh",
        "echo \"$*\" >> \"$(dirname \"$0\")/builds.log\"\nexec cc \"$@\"\n",
    );
    let compiler = format!("sh {}", project.path().join("cc-log.sh").display());
    for k in 1..=2 {
        std::fs::create_dir_all(project.path().join("ran")).unwrap();
        let shard = format!("{k}/2");
        let run = project.rho_in(
            project.path(),
            &["bench", "--shard", &shard, "--json", "share.json"],
            &[("CC", &compiler)],
        );
        run.assert_exit(0);
        let share = common::read_json(&project.path().join("share.json"));
        let own = names(&share);
        assert_eq!(own.len(), 1, "{}", run.describe());
        // Listed by the harness (RHO_BENCH_LIST), nothing run: only the share's own benchmark ran.
        let ran = common::entries(&project.path().join("ran"));
        assert_eq!(ran, own, "share {shard} ran only its own benchmark");
        // One build, listed and then run: not a build to list and another to run.
        let builds = project.read("builds.log");
        let suite_builds = builds.lines().filter(|l| l.contains("marking.c")).count();
        assert_eq!(suite_builds, 1, "share {shard}'s builds:\n{builds}");
        std::fs::remove_file(project.path().join("builds.log")).unwrap();
        std::fs::remove_dir_all(project.path().join("ran")).unwrap();
    }
}

#[test]
fn the_harness_lists_with_rho_bench_list_and_refuses_any_other_value() {
    let project = Project::new();
    project.write("marking.c", MARKING_SUITE);
    std::fs::create_dir_all(project.path().join("ran")).unwrap();
    let include = common::repo_file("c/include");
    let built = std::process::Command::new("cc")
        .current_dir(project.path())
        .args(["-std=c99", "-O1", "-DRHO_BENCH_IMPLEMENTATION", "-I"])
        .arg(&include)
        .args(["marking.c", "-o", "marking"])
        .status()
        .unwrap();
    assert!(built.success());
    let run = |list: &str, filter: &str| {
        std::process::Command::new(project.path().join("marking"))
            .current_dir(project.path())
            .env("RHO_BENCH_LIST", list)
            .env("RHO_BENCH_FILTER", filter)
            .output()
            .unwrap()
    };
    let listed = run("1", "");
    assert_eq!(listed.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout),
        "@list bench_left\n@list bench_right\n@done benchmarks=2 dropped=0\n"
    );
    let filtered = run("1", "right");
    assert_eq!(
        String::from_utf8_lossy(&filtered.stdout),
        "@list bench_right\n@done benchmarks=1 dropped=0\n"
    );
    assert!(
        common::entries(&project.path().join("ran")).is_empty(),
        "listing ran no benchmark"
    );
    let refused = run("yes", "");
    assert_eq!(refused.status.code(), Some(2));
    assert!(refused.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("rho: RHO_BENCH_LIST: expected 1 (list the benchmarks) or 0, got \"yes\""),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    // `0` runs, as unset does.
    let ran = run("0", "left");
    assert!(String::from_utf8_lossy(&ran.stdout).starts_with("@rho-bench "));
    assert_eq!(common::entries(&project.path().join("ran")), ["bench_left"]);
}

#[test]
fn a_benchmark_the_baseline_does_not_know_is_run_by_exactly_one_share() {
    let project = project();
    let run = project.rho(&["bench", "--write-baseline", "--measure", "instructions"]);
    run.assert_exit(0);
    let baseline = common::read_json(&project.path().join("bench/baseline.json"));
    assert_eq!(
        baseline["targets"]["host"]["instructions"]["benchmarks"][0]["suite"], "bench/gen.c",
        "the baseline names each benchmark's suite"
    );
    git(project.path(), &["add", "-f", "bench/baseline.json"]);
    git(project.path(), &["commit", "-q", "-m", "baseline"]);
    // bench_25 is new, registered in the middle of the suite (after bench_12).
    let grown = generated_suite("bench", 25, None)
        .replace("    RHO_BENCH_ADD(&suite, bench_25);\n", "")
        .replace(
            "    RHO_BENCH_ADD(&suite, bench_12);\n",
            "    RHO_BENCH_ADD(&suite, bench_12);\n    RHO_BENCH_ADD(&suite, bench_25);\n",
        );
    project.write("bench/gen.c", &grown);
    project.rho_json(&COUNTED);
    let single = common::read_json(&project.path().join("run.json"));
    assert_eq!(names(&single)[12], "bench_25");

    let files = run_shares(&project, &COUNTED, 0);
    let mut holders = Vec::new();
    for file in &files {
        let share = common::read_json(&project.path().join(file));
        assert_eq!(share["shard"]["basis"], "baseline");
        if names(&share).iter().any(|n| n == "bench_25") {
            holders.push(file.clone());
        }
    }
    assert_eq!(holders.len(), 1, "bench_25 ran in {holders:?}");
    let mut merge = vec!["bench", "merge", "--json", "merged.json"];
    merge.extend(files.iter().map(String::as_str));
    project.rho(&merge).assert_exit(0);
    let merged = common::read_json(&project.path().join("merged.json"));
    assert_eq!(
        merged, single,
        "the new benchmark in its place, every figure the single run's"
    );
}

#[test]
fn a_share_does_not_build_a_suite_none_of_its_benchmarks_are_in() {
    let project = Project::new();
    project.write(
        "module.yml",
        "bench:\n  default_iterations: 10\n  suites:\n    - left.c\n    - right.c\n",
    );
    project.write("left.c", &generated_suite("left", 1, None));
    project.write("right.c", &generated_suite("right", 1, None));
    project
        .rho(&["bench", "--write-baseline", "--measure", "instructions"])
        .assert_exit(0);
    project.rho_json(&COUNTED);
    let single = common::read_json(&project.path().join("run.json"));
    project.write(
        "cc-log.sh",
        "echo \"$*\" >> \"$(dirname \"$0\")/builds.log\"\nexec cc \"$@\"\n",
    );
    let compiler = format!("sh {}", project.path().join("cc-log.sh").display());
    let mut built = Vec::new();
    for k in 1..=2 {
        let (shard, file) = (format!("{k}/2"), format!("s{k}.json"));
        let args = [&COUNTED[..], &["--shard", &shard, "--json", &file]].concat();
        project
            .rho_in(project.path(), &args, &[("CC", &compiler)])
            .assert_exit(0);
        // The baseline says which suite holds which benchmark: one benchmark a share, one suite built.
        let builds = project.read("builds.log");
        let suites: Vec<&str> = ["left.c", "right.c"]
            .into_iter()
            .filter(|suite| builds.contains(suite))
            .collect();
        assert_eq!(suites.len(), 1, "share {shard} built:\n{builds}");
        let share = common::read_json(&project.path().join(&file));
        assert_eq!(share["suites"].as_array().unwrap().len(), 1);
        assert_eq!(share["suites"][0]["suite"], suites[0]);
        built.push(suites[0]);
        std::fs::remove_file(project.path().join("builds.log")).unwrap();
    }
    built.sort();
    assert_eq!(built, ["left.c", "right.c"]);
    project
        .rho(&[
            "bench",
            "merge",
            "s1.json",
            "s2.json",
            "--json",
            "merged.json",
        ])
        .assert_exit(0);
    assert_eq!(
        common::read_json(&project.path().join("merged.json")),
        single
    );
}
