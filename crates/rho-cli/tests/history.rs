//! `rho bench history` through the real binary, on a project whose command suite prints a canned wire stream
//! with the figure of `figure.txt` (exact, whatever the machine's load): runs added commit by commit, a 2x
//! step at the newest commit failing `history check` (exit 1) and a flat line passing it (0), a corrupt
//! record listed by `history` and refused by `check` (2), a dirty work tree and a branch that is not a
//! history refused, the baseline's git log imported, ten concurrent syncs to one bare repository, the
//! HTML page loaded in headless Chromium, and a step counted under Callgrind naming its functions in every
//! format.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{Outcome, git};

const LIMIT: Duration = Duration::from_secs(120);

/// A suite of one benchmark whose every sample is `figure.txt`'s number of cycles.
fn canned() -> String {
    format!(
        "v=$(cat figure.txt)\ncat <<END\n{}END\n",
        common::CANNED_STREAM
    )
}

fn rho(dir: &Path, args: &[&str]) -> Outcome {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", dir.parent().unwrap_or(dir))
        .env_remove("RHO_MACHINE");
    common::run_rho(command, args, LIMIT)
}

/// A project in `dir` (a git repository with the canned suite), no commit yet.
fn project(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(dir.join("canned.sh"), canned()).unwrap();
    std::fs::write(
        dir.join("module.yml"),
        "bench:\n  suites:\n    - command: sh canned.sh\n",
    )
    .unwrap();
    std::fs::write(
        dir.join(".gitignore"),
        "run.json\nh.json\njunk.json\nhistory.html\n",
    )
    .unwrap();
}

/// Commits `figure.txt` = `figure`, runs the suite and adds the run to the history as machine `ci`.
fn commit_and_record(dir: &Path, figure: u64, subject: &str) {
    std::fs::write(dir.join("figure.txt"), format!("{figure}\n")).unwrap();
    git(dir, &["add", "-A", "."]);
    git(dir, &["commit", "--quiet", "--allow-empty", "-m", subject]);
    rho(dir, &["bench", "--json", "run.json"]).assert_exit(0);
    rho(
        dir,
        &["bench", "history", "add", "run.json", "--machine", "ci"],
    )
    .assert_exit(0);
}

/// 12 commits around 1000 cycles (±2), the last one `last`.
fn history_ending_in(dir: &Path, last: u64) {
    project(dir);
    for i in 0..12u64 {
        let figure = if i == 11 { last } else { 1000 + (i * 7 % 5) };
        commit_and_record(dir, figure, &format!("commit {i}"));
    }
}

#[test]
fn check_fails_on_a_2x_step_at_the_newest_commit_and_passes_a_flat_line() {
    let root = tempfile::tempdir().unwrap();
    let stepped = root.path().join("stepped");
    history_ending_in(&stepped, 2000);
    let check = rho(&stepped, &["bench", "history", "check"]);
    check.assert_exit(1);
    let head = git(&stepped, &["rev-parse", "--short=10", "HEAD"]);
    let line = common::line_with(&check.stdout, "regression:");
    assert!(line.contains("bench_canned cycles"), "{line}");
    assert!(line.contains(head.trim()), "{line}");
    assert!(line.contains("(commit 11)"), "{line}");
    // The same history judged at the commit before: flat.
    rho(
        &stepped,
        &["bench", "history", "check", "--branch", "HEAD~1"],
    )
    .assert_exit(0);

    let flat = root.path().join("flat");
    history_ending_in(&flat, 1001);
    let passed = rho(&flat, &["bench", "history", "check"]);
    passed.assert_exit(0);
    assert!(passed.stdout.contains("no regression"), "{}", passed.stdout);

    // The series: 12 commits, the JSON document's newest against the previous.
    let shown = rho(
        &stepped,
        &["bench", "history", "--json", "h.json", "--metric", "cycles"],
    );
    shown.assert_exit(0);
    assert!(
        shown
            .stdout
            .contains("bench_canned cycles (target canned, time on ci): 12 commit(s)"),
        "{}",
        shown.stdout
    );
    let document = common::read_json(&stepped.join("h.json"));
    assert_eq!(document["schema"], "rho-bench-history/1");
    assert_eq!(document["commits"].as_array().unwrap().len(), 12);
    let series = &document["series"][0];
    assert_eq!(series["bench"], "bench_canned");
    assert_eq!(series["metric"], "cycles");
    assert_eq!(series["newest"], 2000.0);
    assert_eq!(series["points"].as_array().unwrap().len(), 12);
    assert_eq!(document["series"].as_array().unwrap().len(), 1);

    // --since a commit: from it on, itself included; --markdown: the tables.
    let since = rho(
        &stepped,
        &[
            "bench",
            "history",
            "--since",
            "HEAD~3",
            "--metric",
            "cycles",
            "--json",
            "h.json",
            "--markdown",
            "h.md",
        ],
    );
    since.assert_exit(0);
    let document = common::read_json(&stepped.join("h.json"));
    assert_eq!(document["commits"].as_array().unwrap().len(), 4);
    assert_eq!(document["series"][0]["points"].as_array().unwrap().len(), 4);
    assert_eq!(document["off_branch"], 8);
    let markdown = std::fs::read_to_string(stepped.join("h.md")).unwrap();
    assert!(
        markdown.contains("| benchmark | metric | target | machine | newest |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| bench_canned | cycles | canned | ci | 2000 |"),
        "{markdown}"
    );
    // A --since that is neither a commit of the line nor a date git reads is refused.
    let bad = rho(&stepped, &["bench", "history", "--since", "-x"]);
    bad.assert_exit(2);
}

/// A 2x step at commit c40 of a flat history, commits c41 to c45 after it: `history check` fails at c40 only,
/// naming c40; warns naming c40 at c41 to c45; says nothing more once `history ack` accepted it.
#[test]
fn check_fails_once_naming_the_commit_that_started_a_step_then_warns_until_acknowledged() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("acked");
    project(&dir);
    let add_head = |dir: &Path| {
        rho(
            dir,
            &["bench", "history", "add", "run.json", "--machine", "ci"],
        )
        .assert_exit(0);
    };
    std::fs::write(dir.join("figure.txt"), "1000\n").unwrap();
    for i in 0..40 {
        git(&dir, &["add", "-A", "."]);
        git(
            &dir,
            &["commit", "--quiet", "--allow-empty", "-m", &format!("c{i}")],
        );
        if i == 0 {
            // The suite's figure is exact: one run stands for every commit of the flat stretch.
            rho(&dir, &["bench", "--json", "run.json"]).assert_exit(0);
        }
        add_head(&dir);
    }
    commit_and_record(&dir, 2000, "c40");
    let c40 = git(&dir, &["rev-parse", "--short=10", "HEAD"]);
    let c40 = c40.trim().to_string();
    let failed = rho(&dir, &["bench", "history", "check"]);
    failed.assert_exit(1);
    let line = common::line_with(&failed.stdout, "regression:");
    assert!(line.contains(&format!("starting at {c40} (c40)")), "{line}");
    for i in 41..=45 {
        git(
            &dir,
            &["commit", "--quiet", "--allow-empty", "-m", &format!("c{i}")],
        );
        add_head(&dir);
        let warned = rho(&dir, &["bench", "history", "check"]);
        warned.assert_exit(0);
        let line = common::line_with(&warned.stdout, "warning:");
        assert!(
            line.contains(&format!("started at {c40} (c40)")),
            "c{i}: {line}"
        );
        assert!(
            !warned.stdout.contains("regression:"),
            "c{i}: {}",
            warned.stdout
        );
    }
    // Accepted for the one benchmark (HEAD~5 is c40): no warning any more.
    let acked = rho(
        &dir,
        &[
            "bench",
            "history",
            "ack",
            "HEAD~5",
            "--bench",
            "bench_canned",
        ],
    );
    acked.assert_exit(0);
    assert!(acked.stdout.contains(&c40), "{}", acked.stdout);
    let quiet = rho(&dir, &["bench", "history", "check"]);
    quiet.assert_exit(0);
    assert!(!quiet.stdout.contains("warning:"), "{}", quiet.stdout);
    // The note is on the branch and `history` reads past it (no unreadable file).
    let shown = rho(&dir, &["bench", "history"]);
    shown.assert_exit(0);
    assert!(!shown.stdout.contains("unreadable"), "{}", shown.stdout);
    // A commit that is not one is refused.
    rho(&dir, &["bench", "history", "ack", "no-such-commit"]).assert_exit(2);
}

/// Commit subjects with HTML and terminal sequences, and a corrupt record beside them: `history` (exit 0)
/// names the corrupt record and prints every subject escaped; the Markdown and the HTML page hold them as text;
/// `history check` and `history ack` print them escaped too.
#[test]
fn hostile_subjects_reach_no_page_and_no_terminal_raw_and_a_corrupt_record_is_named() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("hostile");
    project(&dir);
    let hostile = "<script>alert(1)</script> \u{1b}]0;owned\u{7}\u{1b}[2J";
    // A step at the hostile commit, three after it: a change point whose subject every format shows.
    for i in 0..6 {
        let subject = if i == 3 {
            hostile.to_string()
        } else {
            format!("c{i}")
        };
        commit_and_record(&dir, if i >= 3 { 2000 } else { 1000 }, &subject);
    }
    let head = git(&dir, &["rev-parse", "HEAD"]);
    let corrupt = format!("records/{}/cut.json", head.trim());
    plant(&dir, &corrupt, "{\"schema\": \"rho-bench-history-rec");
    let shown = rho(
        &dir,
        &[
            "bench",
            "history",
            "--html",
            "history.html",
            "--markdown",
            "h.md",
        ],
    );
    shown.assert_exit(0);
    assert!(shown.stdout.contains(&corrupt), "{}", shown.stdout);
    assert!(
        shown.stdout.contains("skipped 1 unreadable"),
        "{}",
        shown.stdout
    );
    // The terminal gets the sequences spelled out; a page or a Markdown file gets no markup from a subject.
    for (what, text) in [("stdout", &shown.stdout), ("stderr", &shown.stderr)] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{what}: {text}"
        );
    }
    assert!(
        shown.stdout.contains("\\x1b]0;owned\\x07"),
        "{}",
        shown.stdout
    );
    for file in ["history.html", "h.md"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{file}: {text}"
        );
        assert!(!text.contains("<script"), "{file}: {text}");
        assert!(
            text.contains("&lt;script&gt;alert(1)"),
            "{file} lost the subject: {text}"
        );
    }
    // check refuses to judge past the corrupt record; without it, it fails naming the hostile commit, escaped.
    rho(&dir, &["bench", "history", "check"]).assert_exit(2);
    let clean = root.path().join("clean");
    project(&clean);
    for i in 0..6 {
        let subject = if i == 5 {
            hostile.to_string()
        } else {
            format!("c{i}")
        };
        commit_and_record(&clean, if i == 5 { 2000 } else { 1000 }, &subject);
    }
    let check = rho(&clean, &["bench", "history", "check"]);
    check.assert_exit(1);
    let line = common::line_with(&check.stdout, "regression:");
    assert!(
        line.contains("(<script>alert(1)</script> \\x1b]0;owned\\x07"),
        "{line}"
    );
    assert!(!check.stdout.contains('\u{1b}'), "{}", check.stdout);
}

/// A benchmark renamed after three commits: `history` lists the old series as ended at its last commit;
/// after `history rename OLD NEW` the records of both are one series of six commits under the new name.
#[test]
fn a_renamed_benchmark_ends_its_series_until_history_rename_joins_them() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("renamed");
    project(&dir);
    for i in 0..3 {
        commit_and_record(&dir, 1000, &format!("c{i}"));
    }
    let last_old = git(&dir, &["rev-parse", "--short=10", "HEAD"]);
    std::fs::write(
        dir.join("canned.sh"),
        canned().replace("bench_canned", "bench_renamed"),
    )
    .unwrap();
    for i in 3..6 {
        commit_and_record(&dir, 1000, &format!("c{i}"));
    }
    let shown = rho(&dir, &["bench", "history", "--metric", "cycles"]);
    shown.assert_exit(0);
    let ended = common::line_with(
        &shown.stdout,
        "bench_canned cycles (target canned, time on ci): last at",
    );
    assert!(
        ended.contains(&format!("last at {} (c2)", last_old.trim())),
        "{ended}"
    );
    assert!(shown.stdout.contains("1 series ended"), "{}", shown.stdout);

    rho(
        &dir,
        &[
            "bench",
            "history",
            "rename",
            "bench_canned",
            "bench_renamed",
        ],
    )
    .assert_exit(0);
    let joined = rho(&dir, &["bench", "history", "--metric", "cycles"]);
    joined.assert_exit(0);
    assert!(
        joined
            .stdout
            .contains("bench_renamed cycles (target canned, time on ci): 6 commit(s)"),
        "{}",
        joined.stdout
    );
    assert!(!joined.stdout.contains("ended"), "{}", joined.stdout);
    assert!(!joined.stdout.contains("bench_canned"), "{}", joined.stdout);
    // The same name twice is refused.
    rho(&dir, &["bench", "history", "rename", "a", "a"]).assert_exit(2);
}

/// Plants a file at `path` on the history branch with git plumbing (as another tool, or a bad disk, might).
fn plant(dir: &Path, path: &str, content: &str) {
    let blob_file = dir.join(".planted");
    std::fs::write(&blob_file, content).unwrap();
    let blob = git(dir, &["hash-object", "-w", ".planted"]);
    std::fs::remove_file(&blob_file).unwrap();
    let index = dir.join(".git/planted-index");
    let with_index = |args: &[&str]| {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_INDEX_FILE", &index)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    with_index(&["read-tree", "rho-history"]);
    with_index(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("100644,{},{path}", blob.trim()),
    ]);
    let tree = with_index(&["write-tree"]);
    let commit = with_index(&["commit-tree", &tree, "-p", "rho-history", "-m", "planted"]);
    git(dir, &["update-ref", "refs/heads/rho-history", &commit]);
    std::fs::remove_file(&index).unwrap();
}

#[test]
fn bad_input_is_refused_or_listed_never_written_over() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    project(&dir);
    commit_and_record(&dir, 1000, "first");
    commit_and_record(&dir, 1001, "second");

    // A dirty work tree: refused, then recorded as dirty when allowed.
    std::fs::write(dir.join("figure.txt"), "5\n").unwrap();
    let refused = rho(&dir, &["bench", "history", "add", "run.json"]);
    refused.assert_exit(2);
    assert!(
        refused.stderr.contains("--allow-dirty"),
        "{}",
        refused.stderr
    );
    rho(
        &dir,
        &[
            "bench",
            "history",
            "add",
            "run.json",
            "--allow-dirty",
            "--machine",
            "laptop",
        ],
    )
    .assert_exit(0);
    git(&dir, &["checkout", "--quiet", "figure.txt"]);
    let listed = git(&dir, &["ls-tree", "-r", "--name-only", "rho-history"]);
    let laptop = listed.lines().find(|l| l.contains("/laptop-")).unwrap();
    let record = git(&dir, &["show", &format!("rho-history:{laptop}")]);
    assert!(record.contains("\"dirty\": true"), "{record}");

    // A file that is not a saved run: exit 2 naming it, nothing added.
    std::fs::write(dir.join("junk.json"), "{\"schema\": \"x\"}").unwrap();
    let before = git(&dir, &["rev-parse", "rho-history"]);
    let junk = rho(&dir, &["bench", "history", "add", "junk.json"]);
    junk.assert_exit(2);
    assert!(junk.stderr.contains("junk.json"), "{}", junk.stderr);
    assert_eq!(git(&dir, &["rev-parse", "rho-history"]), before);

    // A corrupt record: listed at the end by `history`, refused by `check`.
    let head = git(&dir, &["rev-parse", "HEAD"]);
    let corrupt = format!("records/{}/cut.json", head.trim());
    plant(&dir, &corrupt, "{\"schema\": \"rho-bench-history-rec");
    let shown = rho(&dir, &["bench", "history"]);
    shown.assert_exit(0);
    assert!(
        shown.stdout.contains("skipped 1 unreadable record(s)"),
        "{}",
        shown.stdout
    );
    assert!(shown.stdout.contains(&corrupt), "{}", shown.stdout);
    assert!(
        shown.stdout.contains("bench_canned cycles"),
        "{}",
        shown.stdout
    );
    let check = rho(&dir, &["bench", "history", "check"]);
    check.assert_exit(2);
    assert!(check.stderr.contains(&corrupt), "{}", check.stderr);

    // A branch of that name that is not a history: refused, left as it was.
    git(&dir, &["branch", "not-history"]);
    let main = git(&dir, &["rev-parse", "not-history"]);
    let refused = rho(
        &dir,
        &[
            "bench",
            "history",
            "add",
            "run.json",
            "--branch",
            "not-history",
        ],
    );
    refused.assert_exit(2);
    assert!(
        refused.stderr.contains("is not a rho history branch"),
        "{}",
        refused.stderr
    );
    assert_eq!(git(&dir, &["rev-parse", "not-history"]), main);

    // Outside a git repository: said so, exit 2.
    let outside = root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let refused = rho(&outside, &["bench", "history", "check"]);
    refused.assert_exit(2);
    assert!(
        refused.stderr.contains("is not in a git repository"),
        "{}",
        refused.stderr
    );

    // No history at all: check cannot decide.
    let none = rho(
        &dir,
        &[
            "bench",
            "history",
            "check",
            "--history-branch",
            "nothing-here",
        ],
    );
    none.assert_exit(2);
    assert!(
        none.stderr.contains("no history to judge"),
        "{}",
        none.stderr
    );
}

#[test]
fn import_reads_the_git_log_of_the_committed_baseline() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    project(&dir);
    for (n, figure) in [1000u64, 1200, 1500].iter().enumerate() {
        std::fs::write(dir.join("figure.txt"), format!("{figure}\n")).unwrap();
        rho(&dir, &["bench", "--write-baseline"]).assert_exit(0);
        git(&dir, &["add", "-A", "."]);
        git(&dir, &["commit", "--quiet", "-m", &format!("baseline {n}")]);
    }
    let imported = rho(&dir, &["bench", "history", "import", "--machine", "ci"]);
    imported.assert_exit(0);
    assert!(
        imported
            .stdout
            .contains("imported 3 record(s) from 3 commit(s) of bench/baseline.json"),
        "{}",
        imported.stdout
    );
    // Twice is once.
    let again = rho(&dir, &["bench", "history", "import", "--machine", "ci"]);
    again.assert_exit(0);
    assert!(
        again.stdout.contains("nothing to import"),
        "{}",
        again.stdout
    );
    let shown = rho(
        &dir,
        &["bench", "history", "--json", "h.json", "--metric", "cycles"],
    );
    shown.assert_exit(0);
    let document = common::read_json(&dir.join("h.json"));
    let values: Vec<f64> = document["series"][0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [1000.0, 1200.0, 1500.0]);
}

/// The one CI line: the first `rho bench --history` of a project whose baseline was committed three times
/// imports those commits before adding its own run (one command, four figures); `--backfill` later imports
/// nothing twice.
#[test]
fn the_first_run_added_with_history_backfills_the_committed_baselines() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    project(&dir);
    for (n, figure) in [1000u64, 1200, 1500].iter().enumerate() {
        std::fs::write(dir.join("figure.txt"), format!("{figure}\n")).unwrap();
        rho(&dir, &["bench", "--write-baseline"]).assert_exit(0);
        git(&dir, &["add", "-A", "."]);
        git(&dir, &["commit", "--quiet", "-m", &format!("baseline {n}")]);
    }
    std::fs::write(dir.join("figure.txt"), "1600\n").unwrap();
    git(&dir, &["commit", "--quiet", "-am", "no baseline"]);
    let first = rho(&dir, &["bench", "--history", "--machine", "ci"]);
    first.assert_exit(0);
    assert!(
        first
            .stderr
            .contains("imported 3 record(s) from 3 commit(s) of bench/baseline.json"),
        "{}",
        first.stderr
    );
    git(&dir, &["commit", "--quiet", "--allow-empty", "-m", "later"]);
    let later = rho(
        &dir,
        &["bench", "--history", "--backfill", "--machine", "ci"],
    );
    later.assert_exit(0);
    assert!(
        later.stderr.contains("nothing to import"),
        "{}",
        later.stderr
    );
    let shown = rho(
        &dir,
        &["bench", "history", "--json", "h.json", "--metric", "cycles"],
    );
    shown.assert_exit(0);
    let document = common::read_json(&dir.join("h.json"));
    let values: Vec<f64> = document["series"][0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [1000.0, 1200.0, 1500.0, 1600.0, 1600.0]);
}

#[test]
fn ten_concurrent_syncs_to_one_bare_repository_lose_no_record() {
    let root = tempfile::tempdir().unwrap();
    let bare = root.path().join("origin.git");
    git(
        root.path(),
        &[
            "init",
            "--quiet",
            "--bare",
            "--initial-branch=main",
            bare.to_str().unwrap(),
        ],
    );
    let seed = root.path().join("seed");
    project(&seed);
    std::fs::write(seed.join("figure.txt"), "1000\n").unwrap();
    git(&seed, &["add", "-A", "."]);
    git(&seed, &["commit", "--quiet", "-m", "seed"]);
    git(&seed, &["push", "--quiet", bare.to_str().unwrap(), "main"]);
    rho(&seed, &["bench", "--json", "run.json"]).assert_exit(0);
    let run = seed.join("run.json");
    let runners: Vec<PathBuf> = (0..10)
        .map(|n| {
            let dir = root.path().join(format!("runner{n}"));
            git(
                root.path(),
                &[
                    "clone",
                    "--quiet",
                    bare.to_str().unwrap(),
                    dir.to_str().unwrap(),
                ],
            );
            for k in 0..5 {
                let machine = format!("runner{n}-{k}");
                rho(
                    &dir,
                    &[
                        "bench",
                        "history",
                        "add",
                        run.to_str().unwrap(),
                        "--machine",
                        &machine,
                    ],
                )
                .assert_exit(0);
            }
            dir
        })
        .collect();
    let syncs: Vec<std::process::Child> = runners
        .iter()
        .map(|dir| {
            Command::new(env!("CARGO_BIN_EXE_rho"))
                .args(["bench", "history", "sync"])
                .current_dir(dir)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in syncs {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let reader = root.path().join("reader");
    git(
        root.path(),
        &[
            "clone",
            "--quiet",
            bare.to_str().unwrap(),
            reader.to_str().unwrap(),
        ],
    );
    rho(&reader, &["bench", "history", "sync"]).assert_exit(0);
    let files = git(&reader, &["ls-tree", "-r", "--name-only", "rho-history"]);
    assert_eq!(
        files.lines().filter(|l| l.starts_with("records/")).count(),
        50
    );
    let shown = rho(
        &reader,
        &["bench", "history", "--json", "h.json", "--metric", "cycles"],
    );
    shown.assert_exit(0);
    assert!(!shown.stdout.contains("unreadable"), "{}", shown.stdout);
    let document = common::read_json(&reader.join("h.json"));
    // One series per machine label, each of one record: 50 readable records.
    assert_eq!(document["series"].as_array().unwrap().len(), 50);
}

#[test]
fn the_html_page_has_a_chart_per_benchmark_and_metric_with_its_change_points() {
    if !common::tools_present("history html", &[("chromium", "chromium")]) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    project(&dir);
    // Samples 10 cycles either side of the figure: the p25-p75 band is 20 cycles tall.
    let spread = canned().replace(":$v\n:$v\n:$v\n", ":$((v-10))\n:$v\n:$((v+10))\n");
    assert_ne!(spread, canned());
    std::fs::write(dir.join("canned.sh"), spread).unwrap();
    for i in 0..8u64 {
        commit_and_record(
            &dir,
            if i < 4 { 1000 } else { 3000 },
            &format!("commit <{i}>"),
        );
    }
    rho(&dir, &["bench", "history", "--html", "history.html"]).assert_exit(0);
    let page = dir.join("history.html");
    let profile = root.path().join("profile");
    std::fs::create_dir(&profile).unwrap();
    let dom = common::chromium(&profile, &page, "1200,1600", &["--dump-dom"]);
    assert!(dom.contains("</html>"), "{dom}");
    // cycles and heap_peak_bytes of bench_canned: two charts; the cycles chart has the step at commit 4.
    assert_eq!(dom.matches("<svg class=\"trend\"").count(), 2, "{dom}");
    assert_eq!(dom.matches("class=\"change\"").count(), 1, "{dom}");
    let fifth = git(&dir, &["rev-parse", "--short=10", "HEAD~3"]);
    assert!(
        dom.contains(&format!("change at {} commit &lt;4&gt;", fifth.trim())),
        "{dom}"
    );
    assert_eq!(dom.matches("<circle class=\"point\"").count(), 16, "{dom}");
    // The cycles chart's band: one polygon over the 8 commits (the heap has no quartiles), its p75 edge
    // drawn above its p25 edge at every commit.
    assert_eq!(dom.matches("<polygon class=\"band\"").count(), 1, "{dom}");
    assert!(dom.contains("<title>p25-p75 (ci)</title>"), "{dom}");
    let band = dom.split("<polygon class=\"band\"").nth(1).unwrap();
    let points = band.split("points=\"").nth(1).unwrap();
    let ys: Vec<f64> = points[..points.find('"').unwrap()]
        .split(' ')
        .map(|pair| pair.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(ys.len(), 16, "{band}");
    for i in 0..8 {
        // Upper edge left to right, lower edge right to left; SVG's y grows downwards.
        assert!(ys[i] < ys[15 - i], "{band}");
    }
}

/// The history page answers first (issue 41), as Chromium renders it: a suite of two benchmarks, one of them
/// tripled at the fifth of nine commits. Before the first chart: the verdict, the change points (the step
/// with its commit, +200.0% upwards and a p-value, linking to its chart), and a summary table naming both
/// benchmarks with their limits. A chart whose y axis does not start at zero says so; one of zeros does not.
#[test]
fn the_history_page_opens_with_its_change_points_and_every_benchmark_before_the_charts() {
    if !common::tools_present("history page order", &[("chromium", "chromium")]) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    project(&dir);
    let stream = common::CANNED_STREAM.replace(
        "@done benchmarks=1",
        "@bench bench_steady\n:500\n:500\n:500\n@stack off\n\
         @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
         @end bench_steady iterations=3 warmup=0 capped=0 unit=iter per_iteration=1\n\
         @done benchmarks=2",
    );
    assert_ne!(stream, common::CANNED_STREAM);
    std::fs::write(
        dir.join("canned.sh"),
        format!("v=$(cat figure.txt)\ncat <<END\n{stream}END\n"),
    )
    .unwrap();
    for i in 0..9u64 {
        commit_and_record(
            &dir,
            if i < 4 { 1000 } else { 3000 },
            &format!("commit {i}"),
        );
    }
    rho(&dir, &["bench", "history", "--html", "history.html"]).assert_exit(0);
    let profile = root.path().join("profile");
    std::fs::create_dir(&profile).unwrap();
    let dom = common::chromium(
        &profile,
        &dir.join("history.html"),
        "1200,1600",
        &["--dump-dom"],
    );
    assert!(dom.contains("</html>"), "{dom}");
    let at = |needle: &str| {
        dom.find(needle)
            .unwrap_or_else(|| panic!("no {needle:?} in {dom}"))
    };
    let first_chart = at("<svg");
    assert!(at("class=\"verdict") < at("id=\"change-points\""), "{dom}");
    assert!(at("id=\"change-points\"") < at("id=\"summary\""), "{dom}");
    assert!(at("id=\"summary\"") < first_chart, "{dom}");

    // The step: bench_canned's cycles at the fifth commit, up by 200%, with its p-value, linking to its chart.
    let changes = &dom[at("id=\"change-points\"")..at("id=\"summary\"")];
    let fifth = git(&dir, &["rev-parse", "--short=10", "HEAD~4"]);
    let row = changes
        .split("<tr>")
        .find(|row| row.contains("bench_canned") && row.contains(">cycles<"))
        .unwrap_or_else(|| panic!("no cycles change point in {changes}"));
    assert!(row.contains(fifth.trim()), "{row}");
    assert!(row.contains("\u{25b2} +200.0%"), "{row}");
    let pvalue = row
        .split("<td class=\"num\">")
        .last()
        .and_then(|cell| cell.split_once('<'))
        .map(|(text, _)| text)
        .unwrap_or_else(|| panic!("no p-value in {row}"));
    assert!(
        pvalue.parse::<f64>().is_ok_and(|p| p < 0.001),
        "{pvalue}: {row}"
    );
    let href = row
        .split("href=\"#")
        .nth(1)
        .and_then(|rest| rest.split_once('"'))
        .map(|(id, _)| id)
        .unwrap_or_else(|| panic!("no link in {row}"));
    assert!(
        dom[at(&format!("id=\"{href}\""))..].starts_with(&format!(
            "id=\"{href}\" data-bench=\"bench_canned\" data-metric=\"cycles\""
        )),
        "{dom}"
    );

    // Every benchmark in the summary table, with the limit history check judges it by.
    let summary = &dom[at("id=\"summary\"")..first_chart];
    for bench in ["bench_canned", "bench_steady"] {
        assert!(summary.contains(&format!(">{bench}</a>")), "{summary}");
    }
    assert!(summary.contains(">10%</td>"), "{summary}");

    // Four charts (cycles and heap peak of each); the y-axis note under those of cycles (near 1000 to 3000,
    // and 500), none under the heap peaks' zeros.
    assert_eq!(dom.matches("<svg class=\"trend\"").count(), 4, "{dom}");
    let section = |bench: &str, metric: &str| {
        let rest = &dom[at(&format!("data-bench=\"{bench}\" data-metric=\"{metric}\""))..];
        rest[..rest.find("</section>").unwrap_or(rest.len())].to_string()
    };
    for bench in ["bench_canned", "bench_steady"] {
        let cycles = section(bench, "cycles");
        assert!(cycles.contains("axis from "), "{cycles}");
        let heap = section(bench, "heap_peak_bytes");
        assert!(!heap.contains("axis-note"), "{heap}");
    }
}

/// The branch's commit, or `None` when there is no branch.
fn branch_tip(dir: &Path) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--verify", "--quiet", "refs/heads/rho-history"])
        .output()
        .unwrap();
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn an_add_interrupted_at_any_moment_leaves_the_branch_at_its_old_commit_or_its_new_one() {
    use std::os::unix::process::CommandExt as _;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    project(&dir);
    commit_and_record(&dir, 1000, "first");
    let mut added = 1;
    for trial in 0..30u64 {
        let before = branch_tip(&dir);
        let mut child = Command::new(env!("CARGO_BIN_EXE_rho"))
            .args(["bench", "history", "add", "run.json", "--machine"])
            .arg(format!("trial{trial}"))
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(trial * 7 % 80));
        if trial % 2 == 0 {
            // Ctrl-C: SIGINT to the whole group, git's children included.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
        } else {
            // rho alone killed outright; a git it started finishes on its own.
            let _ = child.kill();
        }
        let status = child.wait().unwrap();
        assert!(
            matches!(status.code(), Some(0 | 2 | 130) | None),
            "trial {trial}: {status:?}"
        );
        // A git that rho started may outlive it (the SIGKILL trials) and still move the branch: wait until
        // nothing of the group is left, so the tip read here is final (a fixed wait lost that race under load).
        wait_until_group_is_gone(child.id() as i32);
        let after = branch_tip(&dir);
        if after != before {
            let parent = git(&dir, &["rev-parse", "rho-history^"]);
            assert_eq!(Some(parent.trim().to_string()), before, "trial {trial}");
            added += 1;
        }
    }
    // Every commit the branch reached is whole: all records readable, none lost, and the next add works (no
    // lock file left behind).
    rho(
        &dir,
        &["bench", "history", "add", "run.json", "--machine", "after"],
    )
    .assert_exit(0);
    let files = git(&dir, &["ls-tree", "-r", "--name-only", "rho-history"]);
    assert_eq!(
        files.lines().filter(|l| l.starts_with("records/")).count(),
        added + 1
    );
    let shown = rho(&dir, &["bench", "history"]);
    shown.assert_exit(0);
    assert!(!shown.stdout.contains("unreadable"), "{}", shown.stdout);
    println!("{} of 30 interrupted adds had moved the branch", added - 1);
}

/// Wait (at most two minutes) until no live process of the group `group` is left. Zombies do not count: an
/// orphan's zombie stays in its group when the machine's init does not reap (some containers' do not).
fn wait_until_group_is_gone(group: i32) {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while group_has_a_live_process(group) {
        assert!(
            std::time::Instant::now() < deadline,
            "process group {group} still alive after two minutes"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a process that is not a zombie has process group `group` (from /proc/PID/stat: the state is the
/// field after the parenthesised name, the group two fields on).
fn group_has_a_live_process(group: i32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        let Some((_, after_name)) = stat.rsplit_once(')') else {
            return false;
        };
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        matches!(fields.as_slice(), [state, _ppid, pgrp, ..]
            if *state != "Z" && *state != "X" && pgrp.parse::<i32>() == Ok(group))
    })
}

/// The record files on the history branch of `dir`, each parsed.
fn branch_records(dir: &Path) -> Vec<serde_json::Value> {
    let listed = git(
        dir,
        &["ls-tree", "-r", "--name-only", "rho-history", "records"],
    );
    listed
        .lines()
        .map(|path| {
            let text = git(dir, &["show", &format!("rho-history:{path}")]);
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}\n{text}"))
        })
        .collect()
}

/// A record with what differs between two adds of the same run (when it was recorded) taken out.
fn without_recording_time(mut record: serde_json::Value) -> serde_json::Value {
    record["section"]["context"]["recorded_at"] = serde_json::Value::Null;
    record
}

#[test]
fn bench_history_adds_the_run_just_made_as_json_then_history_add_would() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    project(&dir);
    commit_and_record(&dir, 1000, "first");
    // `rho bench --history`: the run's report, then the add; the records equal `history add run.json`'s.
    let made = rho(&dir, &["bench", "--history", "--machine", "ci"]);
    made.assert_exit(0);
    made.assert_stdout_has("bench_canned");
    made.assert_stderr_has("history: added 1 record(s) of ");
    let records = branch_records(&dir);
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(
        without_recording_time(records[0].clone()),
        without_recording_time(records[1].clone())
    );
    assert_eq!(records[0]["schema"], "rho-bench-history-record/3");
    assert_eq!(records[0]["dirty"], false);

    // `check --history` keeps check's verdict: a broken budget is exit 1, and the run is still added.
    std::fs::write(
        dir.join("module.yml"),
        "bench:\n  budgets:\n    max_cycles_per_iteration: 10\n  suites:\n    - command: sh canned.sh\n",
    )
    .unwrap();
    git(&dir, &["commit", "--quiet", "-am", "a budget of 10 cycles"]);
    let checked = rho(&dir, &["bench", "check", "--history", "--machine", "ci"]);
    checked.assert_exit(1);
    checked.assert_stderr_has("history: added 1 record(s) of ");
    assert_eq!(branch_records(&dir).len(), 3);

    // A dirty work tree is refused before anything runs, unless --allow-dirty (the record says so).
    std::fs::write(dir.join("figure.txt"), "1500\n").unwrap();
    let refused = rho(&dir, &["bench", "--history"]);
    refused.assert_exit(2);
    refused.assert_stderr_has("the work tree has changes to tracked files");
    assert!(
        !refused.stdout.contains("bench_canned"),
        "{}",
        refused.describe()
    );
    assert_eq!(branch_records(&dir).len(), 3);
    rho(&dir, &["bench", "--history", "--allow-dirty"]).assert_exit(0);
    let records = branch_records(&dir);
    assert_eq!(records.iter().filter(|r| r["dirty"] == true).count(), 1);
    git(&dir, &["checkout", "--quiet", "--", "figure.txt"]);

    // `--json -` leaves --history nothing to read back; the options of the add need --history.
    rho(&dir, &["bench", "--history", "--json", "-"]).assert_exit(2);
    rho(&dir, &["bench", "--machine", "ci"]).assert_exit(2);
}

#[test]
fn a_failed_add_after_the_run_is_exit_2_with_the_reason_after_the_report() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    project(&dir);
    std::fs::write(dir.join("figure.txt"), "1000\n").unwrap();
    git(&dir, &["add", "-A", "."]);
    git(&dir, &["commit", "--quiet", "-m", "first"]);
    // A branch of the history's name that is not a history: the run is made and reported, the add refused.
    git(&dir, &["branch", "rho-history"]);
    let before = branch_tip(&dir);
    let made = rho(&dir, &["bench", "--history"]);
    made.assert_exit(2);
    made.assert_stdout_has("bench_canned");
    made.assert_stderr_has("is not a rho history branch");
    assert_eq!(branch_tip(&dir), before);

    // A run that cannot decide (its suite fails) adds nothing, and says so.
    git(&dir, &["branch", "--quiet", "-D", "rho-history"]);
    std::fs::write(dir.join("figure.txt"), "not a number\n").unwrap();
    git(&dir, &["commit", "--quiet", "-am", "a broken figure"]);
    let failed = rho(&dir, &["bench", "--history"]);
    failed.assert_exit(2);
    failed.assert_stderr_has("the run could not decide: nothing was added to the history");
    assert_eq!(branch_tip(&dir), None);
}

/// Two targets of one module, each printing the canned stream under its own name.
const TWO_TARGETS: &str = "bench:\n  targets:\n    - { name: left, build: \"true\", run: \"sh canned.sh left\" }\n    - { name: right, build: \"true\", run: \"sh canned.sh right\" }\n";

#[test]
fn several_targets_and_both_measures_give_a_record_each() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    project(&dir);
    std::fs::write(
        dir.join("canned.sh"),
        canned().replace("@target canned", "@target ${1:-canned}"),
    )
    .unwrap();
    std::fs::write(dir.join("module.yml"), TWO_TARGETS).unwrap();
    std::fs::write(dir.join("figure.txt"), "1000\n").unwrap();
    git(&dir, &["add", "-A", "."]);
    git(&dir, &["commit", "--quiet", "-m", "two targets"]);
    let made = rho(&dir, &["bench", "--target", "left,right", "--history"]);
    made.assert_exit(0);
    made.assert_stderr_has("history: added 2 record(s) of ");
    let mut targets: Vec<String> = branch_records(&dir)
        .iter()
        .map(|r| r["target"].as_str().unwrap().to_string())
        .collect();
    targets.sort();
    assert_eq!(targets, ["left", "right"]);

    // FILE.c mode, time and instructions: a record per measure, the quartiles in the time one only.
    if !common::tools_present("--history of both measures", &[("valgrind", "valgrind")]) {
        return;
    }
    let suite = common::write_c(
        &dir,
        "sum_bench.c",
        "#include <rho/bench.h>\nstatic volatile unsigned sink;\nstatic void bench_sum(rho_bench_t *s) {\n  \
         RHO_BENCH_LOOP(s) { unsigned t = 0; for (unsigned i = 0; i < 64; i++) t += i * sink; sink = t; }\n}\n\
         int main(int argc, char **argv) {\n  rho_bench_suite_t suite = {0};\n  \
         RHO_BENCH_ADD(&suite, bench_sum);\n  return rho_bench_main(&suite, argc, argv);\n}\n",
    );
    git(&dir, &["add", "sum_bench.c"]);
    git(&dir, &["commit", "--quiet", "-m", "a C suite"]);
    let both = rho(
        &dir,
        &[
            "bench",
            suite.to_str().unwrap(),
            "--measure",
            "time,instructions",
            "--iterations",
            "200",
            "--history",
        ],
    );
    both.assert_exit(0);
    both.assert_stderr_has("history: added 2 record(s) of ");
    let head = git(&dir, &["rev-parse", "HEAD"]);
    let records: Vec<serde_json::Value> = branch_records(&dir)
        .into_iter()
        .filter(|r| r["commit"] == head.trim())
        .collect();
    let mut measures: Vec<&str> = records
        .iter()
        .map(|r| r["measure"].as_str().unwrap())
        .collect();
    measures.sort();
    assert_eq!(measures, ["instructions", "time"], "{records:?}");
    for record in &records {
        let band = &record["quartiles"]["bench_sum"]["cycles"];
        if record["measure"] == "time" {
            let median = record["section"]["benchmarks"][0]["cycles"]["median"]
                .as_f64()
                .unwrap();
            let (p25, p75) = (band[0].as_f64().unwrap(), band[1].as_f64().unwrap());
            assert!(p25 <= median && median <= p75, "{record}");
        } else {
            assert!(record.get("quartiles").is_none(), "{record}");
            assert!(record["section"]["benchmarks"][0]["instructions"].as_u64() > Some(0));
        }
    }

    // FILE.c on several targets (the host and the emulated Cortex-M4): a record per target.
    if !common::cross_tools_present("--history of FILE.c on several targets") {
        return;
    }
    git(
        &dir,
        &["commit", "--quiet", "--allow-empty", "-m", "on two targets"],
    );
    let several = rho(
        &dir,
        &[
            "bench",
            suite.to_str().unwrap(),
            "--target",
            "host,mps2-an386",
            "--iterations",
            "50",
            "--history",
        ],
    );
    several.assert_exit(0);
    // The board's run also counts instructions (QEMU's): its instructions section is a record of its own,
    // as `history add` of the saved run makes it.
    let head = git(&dir, &["rev-parse", "HEAD"]);
    let mut kept: Vec<String> = branch_records(&dir)
        .into_iter()
        .filter(|r| r["commit"] == head.trim())
        .map(|r| {
            format!(
                "{} {}",
                r["target"].as_str().unwrap(),
                r["measure"].as_str().unwrap()
            )
        })
        .collect();
    kept.sort();
    several.assert_stderr_has(&format!("history: added {} record(s) of ", kept.len()));
    assert!(kept.contains(&"host time".to_string()), "{kept:?}");
    assert!(
        kept.iter().any(|k| k.starts_with("mps2-an386 ")),
        "{kept:?}"
    );
}

/// A suite of one benchmark whose helper runs `ROUNDS` rounds a call (noinline: its own function).
const ROUNDS_SUITE: &str = r#"#include "rho/bench.h"
#include <stdint.h>

__attribute__((noinline)) static uint64_t mix_rounds(uint64_t x)
{
    for (int i = 0; i < ROUNDS; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        x ^= x >> 29;
    }
    return x;
}

static void bench_rounds(rho_bench_t *state)
{
    uint64_t x = 1;
    RHO_BENCH_LOOP(state) {
        x = mix_rounds(x);
        RHO_BENCH_KEEP(x);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_rounds);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// Issue 26 through the real binary: two commits counted under Callgrind, the second doubling the helper's
/// rounds; `history` names the helper under the step in its text, `--json` (the change point's `functions`),
/// `--markdown` (a collapsed block) and `--html` (a table and one differential flame graph, loaded in
/// headless Chromium when it is there).
#[test]
fn a_counted_step_names_its_functions_in_every_format() {
    let valgrind = Command::new("valgrind").arg("--version").output();
    if !valgrind.is_ok_and(|o| o.status.success()) {
        println!(
            "note: a_counted_step_names_its_functions_in_every_format skipped: valgrind not installed"
        );
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(dir.join(".gitignore"), "*.json\n*.md\n*.html\n").unwrap();
    for (rounds, subject) in [(1000, "base"), (2000, "double the rounds")] {
        let source = ROUNDS_SUITE.replace("ROUNDS", &rounds.to_string());
        std::fs::write(dir.join("rounds.c"), source).unwrap();
        git(&dir, &["add", "-A", "."]);
        git(&dir, &["commit", "--quiet", "-m", subject]);
        let args = [
            "bench",
            "rounds.c",
            "--measure",
            "instructions",
            "--json",
            "run.json",
        ];
        rho(&dir, &args).assert_exit(0);
        rho(
            &dir,
            &["bench", "history", "add", "run.json", "--machine", "ci"],
        )
        .assert_exit(0);
    }
    let shown = rho(
        &dir,
        &[
            "bench",
            "history",
            "--metric",
            "instructions",
            "--json",
            "h.json",
            "--markdown",
            "h.md",
            "--html",
            "h.html",
        ],
    );
    shown.assert_exit(0);
    let helper_line = common::line_with(&shown.stdout, "mix_rounds");
    assert!(helper_line.contains("(+"), "{}", shown.describe());

    let document = common::read_json(&dir.join("h.json"));
    let change = &document["series"][0]["change_points"][0];
    let functions = change["functions"]
        .as_array()
        .unwrap_or_else(|| panic!("{document}"));
    let helper = functions
        .iter()
        .find(|f| f["name"] == "mix_rounds")
        .unwrap_or_else(|| panic!("{document}"));
    // Twice the rounds: head's own instructions twice base's, within the call's few.
    let own = |side: &str| helper[side]["self"].as_f64().unwrap();
    assert!((own("head") - 2.0 * own("base")).abs() <= 10.0, "{helper}");

    let markdown = std::fs::read_to_string(dir.join("h.md")).unwrap();
    assert!(
        markdown.contains("<details><summary>bench_rounds instructions at ")
            && markdown.contains("| `mix_rounds` |"),
        "{markdown}"
    );

    let page = std::fs::read_to_string(dir.join("h.html")).unwrap();
    assert!(page.contains("<td><code>mix_rounds</code></td>"), "{page}");
    assert_eq!(
        page.matches("<figure class=\"flame-graph\"").count(),
        1,
        "{page}"
    );
    if !common::tools_present("history functions html", &[("chromium", "chromium")]) {
        return;
    }
    let profile = root.path().join("profile");
    std::fs::create_dir(&profile).unwrap();
    let dom = common::chromium(&profile, &dir.join("h.html"), "1200,1600", &["--dump-dom"]);
    assert!(dom.contains("</html>"), "{dom}");
    assert_eq!(dom.matches("<iframe class=\"flame\"").count(), 1, "{dom}");
    // The graph is inferno's SVG document in the frame's srcdoc, its markup escaped there.
    let graph = dom.replace("&lt;", "<").replace("&gt;", ">");
    assert!(graph.contains("<title>mix_rounds ("), "{dom}");
}
