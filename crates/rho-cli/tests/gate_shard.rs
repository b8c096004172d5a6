//! `rho bench gate --shard K/N` and `rho bench merge` of the shares' gate documents, through the real binary
//! on the kata (tests/kata) counting instructions (exact, so the merged figures equal the unsharded gate's on
//! a busy machine): a planted slowdown (s03, matmul run twice) gated in 2 shares and merged fails with exit 1
//! naming it, with the unsharded gate's metrics and verdicts; a missing share fails the merge with exit 2.

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

    let missing = rho(&cwd, &["bench", "merge", &shares[0].0, "--json", "-"]);
    eprintln!("one share only:\n{}", missing.describe());
    assert_eq!(missing.status, Some(2), "{}", missing.describe());
    assert!(
        missing.stderr.contains("share 2/2 missing"),
        "{}",
        missing.describe()
    );
}
