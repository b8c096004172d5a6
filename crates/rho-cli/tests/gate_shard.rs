//! `rho bench gate --shard K/N` and `rho bench merge` of the shares' gate documents, through the real binary
//! on the kata (tests/kata) counting instructions (exact, so the merged figures equal the unsharded gate's on
//! a busy machine): a planted slowdown (s03, matmul run twice) gated in 2 shares and merged fails with exit 1
//! naming it, with the unsharded gate's metrics and verdicts; a missing share fails the merge with exit 2, and
//! so does a share whose figures contradict what it records (a forged verdict, a negative figure, a forged
//! partition).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::Outcome;

/// `rho ARGS` in `cwd`, at most 10 minutes.
fn rho(cwd: &Path, args: &[&str]) -> Outcome {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command.args(args).current_dir(cwd);
    common::run_rho(command, args, Duration::from_secs(600))
}

#[test]
fn two_shares_of_a_planted_slowdown_merge_to_the_unsharded_gate_and_a_missing_share_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, head) = (tmp.path().join("base"), tmp.path().join("head"));
    common::copy_tree(&common::repo_file("tests/kata"), &base);
    common::copy_tree(&common::repo_file("tests/kata"), &head);
    let slowdown = common::repo_file("tests/kata/slowdowns/s03_matmul_twice.c");
    std::fs::copy(slowdown, head.join("kernels.c")).unwrap();
    let cwd = head.join("wire");
    let gate = [
        "bench",
        "gate",
        "--base",
        "../../base/wire",
        "--measure",
        "instructions",
    ];

    let whole = rho(&cwd, &[&gate[..], &["--json", "-"]].concat());
    eprintln!("unsharded:\n{}", whole.describe());
    assert_eq!(whole.status, Some(1), "{}", whole.describe());
    let whole = whole.document();

    let mut shares = Vec::new();
    for k in 1..=2 {
        let file = tmp.path().join(format!("share{k}.json"));
        let file_arg = file.to_string_lossy().into_owned();
        let shard = format!("{k}/2");
        let share = rho(
            &cwd,
            &[&gate[..], &["--shard", &shard, "--json", &file_arg]].concat(),
        );
        eprintln!("share {shard}:\n{}", share.describe());
        let document: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(document["shard"]["index"], k, "{document}");
        assert_eq!(document["shard"]["count"], 2, "{document}");
        shares.push((file_arg, document));
    }
    // Each share judged only its own benchmarks: between them, every metric of the gate, each once.
    let names = |doc: &serde_json::Value| -> Vec<String> {
        doc["metrics"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    let (one, two) = (names(&shares[0].1), names(&shares[1].1));
    assert!(!one.is_empty() && !two.is_empty(), "{one:?} {two:?}");
    assert!(one.iter().all(|m| !two.contains(m)), "{one:?} {two:?}");

    let merged = rho(
        &cwd,
        &["bench", "merge", &shares[1].0, &shares[0].0, "--json", "-"],
    );
    eprintln!("merged:\n{}", merged.describe());
    assert_eq!(merged.status, Some(1), "{}", merged.describe());
    assert!(
        merged
            .stderr
            .contains("regressed: bench_matmul.instructions"),
        "{}",
        merged.describe()
    );
    let merged = merged.document();
    assert_eq!(merged["verdict"], "regressed");
    assert_eq!(names(&merged), names(&whole));
    for name in names(&whole) {
        for field in ["base", "head", "change", "regressed", "budget"] {
            assert_eq!(
                merged["metrics"][&name][field], whole["metrics"][&name][field],
                "{name}.{field}"
            );
        }
    }
    assert_eq!(
        merged["metrics"]["bench_matmul.instructions"]["regressed"],
        true
    );

    forged_shares_are_refused(tmp.path(), &cwd, &shares);

    let missing = rho(&cwd, &["bench", "merge", &shares[0].0, "--json", "-"]);
    eprintln!("one share only:\n{}", missing.describe());
    assert_eq!(missing.status, Some(2), "{}", missing.describe());
    assert!(
        missing.stderr.contains("share 2/2 missing"),
        "{}",
        missing.describe()
    );
}

/// The two real shares (`(file, document)`) with one thing forged each, merged: exit 2 naming the forged file
/// and what its figures contradict, never a verdict. bench_matmul.instructions (regressed) is in one of them.
fn forged_shares_are_refused(dir: &Path, cwd: &Path, shares: &[(String, serde_json::Value)]) {
    let matmul = "bench_matmul.instructions";
    let holder = shares
        .iter()
        .position(|(_, d)| d["metrics"].get(matmul).is_some())
        .unwrap();
    let other = 1 - holder;
    let merge_forged = |forged: serde_json::Value, at: usize, expected: &str| {
        let file = dir.join("forged.json");
        std::fs::write(&file, forged.to_string()).unwrap();
        let forged_arg = file.to_string_lossy().into_owned();
        let files = match at {
            0 => [forged_arg.as_str(), shares[1].0.as_str()],
            _ => [shares[0].0.as_str(), forged_arg.as_str()],
        };
        let merged = rho(
            cwd,
            &[&["bench", "merge"][..], &files, &["--json", "-"]].concat(),
        );
        eprintln!("forged ({expected}):\n{}", merged.describe());
        assert_eq!(merged.status, Some(2), "{}", merged.describe());
        assert!(
            merged
                .stderr
                .contains("forged.json: its figures contradict what it records")
                && merged.stderr.contains(expected),
            "{}",
            merged.describe()
        );
    };
    // A gate share saying `regressed: false` (and `ok`) beside figures 10x its base.
    let mut passed = shares[holder].1.clone();
    let base = passed["metrics"][matmul]["base"].as_f64().unwrap();
    passed["metrics"][matmul]["head"] = serde_json::json!(base * 10.0);
    passed["metrics"][matmul]["regressed"] = serde_json::json!(false);
    passed["verdict"] = serde_json::json!("ok");
    merge_forged(
        passed,
        holder,
        "regressed false recorded, true from its figures",
    );
    // A negative figure.
    let mut negative = shares[holder].1.clone();
    negative["metrics"][matmul]["base"] = serde_json::json!(-base);
    merge_forged(negative, holder, "expected a finite figure of at least 0");
    // A forged partition: the other share claims bench_matmul as its own (and judged it passed).
    let mut claimed = shares[other].1.clone();
    let mut stolen = shares[holder].1["metrics"][matmul].clone();
    stolen["head"] = stolen["base"].clone();
    stolen["regressed"] = serde_json::json!(false);
    claimed["metrics"][matmul] = stolen;
    merge_forged(
        claimed,
        other,
        &format!("metric {matmul} is of benchmark bench_matmul, in share"),
    );
}

/// A suite of six benchmarks, each of which notes its name in the file `RHO_TEST_MARKER` names whenever it
/// runs counted (`RHO_BENCH_MEASURE=instructions`, which the gate sets for its Callgrind runs only).
const MARKED_SUITE: &str = r#"#include <rho/bench.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void note(const char *name)
{
    const char *marker = getenv("RHO_TEST_MARKER");
    const char *measure = getenv("RHO_BENCH_MEASURE");
    FILE *file;
    if (marker == NULL || measure == NULL || strcmp(measure, "instructions") != 0) {
        return;
    }
    file = fopen(marker, "a");
    if (file != NULL) {
        fprintf(file, "%s\n", name);
        fclose(file);
    }
}

#define MARKED(name, rounds)                                  \
    static void name(rho_bench_t *state)                      \
    {                                                         \
        uint32_t x = rounds;                                  \
        unsigned i;                                           \
        note(#name);                                          \
        RHO_BENCH_LOOP(state) {                               \
            for (i = 0; i < rounds; i++) {                    \
                x = (x ^ (x >> 13)) * 2654435761u + i;        \
            }                                                 \
            RHO_BENCH_KEEP(x);                                \
        }                                                     \
    }

MARKED(bench_alpha, 10u)
MARKED(bench_beta, 20u)
MARKED(bench_gamma, 30u)
MARKED(bench_delta, 40u)
MARKED(bench_epsilon, 50u)
MARKED(bench_zeta, 60u)

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_alpha);
    RHO_BENCH_ADD(&suite, bench_beta);
    RHO_BENCH_ADD(&suite, bench_gamma);
    RHO_BENCH_ADD(&suite, bench_delta);
    RHO_BENCH_ADD(&suite, bench_epsilon);
    RHO_BENCH_ADD(&suite, bench_zeta);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// The benchmarks a gate document judged (`bench_alpha` of `bench_alpha.instructions`), sorted, each once.
fn judged(document: &serde_json::Value) -> Vec<String> {
    let mut names: Vec<String> = document["metrics"]
        .as_object()
        .unwrap()
        .keys()
        .map(|m| m.split('.').next().unwrap().to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The benchmarks the marker file names (each counted run of each side notes its own), sorted, each once;
/// the file is removed for the next gate.
fn marked(marker: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(marker).unwrap_or_default();
    let _ = std::fs::remove_file(marker);
    let mut names: Vec<String> = text.lines().map(str::to_string).collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn a_counted_gate_share_runs_only_its_own_benchmarks_on_each_side() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, head) = (tmp.path().join("base"), tmp.path().join("head"));
    for side in [&base, &head] {
        std::fs::create_dir_all(side).unwrap();
        std::fs::write(
            side.join("module.yml"),
            "bench:\n  suites:\n    - suite.c\n",
        )
        .unwrap();
        std::fs::write(side.join("suite.c"), MARKED_SUITE).unwrap();
    }
    let marker = tmp.path().join("ran.txt");
    let gate = |shard: &[&str]| {
        let args = [
            &[
                "bench",
                "gate",
                "--base",
                "../base",
                "--measure",
                "instructions",
            ],
            shard,
            &["--json", "-"],
        ]
        .concat();
        let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
        command
            .args(&args)
            .current_dir(&head)
            .env("RHO_TEST_MARKER", &marker)
            .env_remove("RHO_SHARD");
        let outcome = common::run_rho(command, &args, Duration::from_secs(600));
        eprintln!("gate {shard:?}:\n{}", outcome.describe());
        outcome
    };

    // Unsharded, the counted runs run every benchmark.
    let whole = gate(&[]);
    assert_eq!(whole.status, Some(0), "{}", whole.describe());
    let all = judged(&whole.document());
    assert_eq!(all.len(), 6, "{all:?}");
    assert_eq!(marked(&marker), all, "the counted runs ran every benchmark");

    // Each share's counted runs ran its own benchmarks and nothing else: the two shares split the six.
    let mut seen = Vec::new();
    for shard in ["1/2", "2/2"] {
        let share = gate(&["--shard", shard]);
        assert_eq!(share.status, Some(0), "{}", share.describe());
        let own = judged(&share.document());
        assert!(!own.is_empty() && own.len() < 6, "{shard}: {own:?}");
        assert_eq!(
            marked(&marker),
            own,
            "share {shard} counted only its own benchmarks"
        );
        seen.extend(own);
    }
    seen.sort();
    assert_eq!(seen, all);
}
