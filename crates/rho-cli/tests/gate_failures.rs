//! `rho bench gate` through the real binary when it cannot decide, or is asked something it refuses: a head
//! that does not build, a head that hangs, bad budgets and run counts; and git revisions as sides.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Outcome, git};

/// Run `rho bench gate --json - ARGS` in `cwd` (the verdict document the one line of stdout, the table on
/// stderr), with its temporary directory a fresh one that must be empty again when it has finished, whatever
/// the outcome: nothing is left behind.
fn gate(cwd: &Path, args: &[&str]) -> Outcome {
    let scratch = tempfile::tempdir().unwrap();
    let args = [&["bench", "gate", "--json", "-"], args].concat();
    let mut command = common::rho_command(scratch.path(), &args);
    command.current_dir(cwd);
    let outcome = common::run_rho(command, &args, Duration::from_secs(300));
    let left: Vec<_> = std::fs::read_dir(scratch.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        left.is_empty(),
        "left behind: {left:?}\n{}",
        outcome.describe()
    );
    outcome
}

/// A module root whose `fake` target runs `build` and then `run`.
fn module(dir: &Path, build: &str, run: &str, gate_yaml: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let quote = |s: &str| format!("'{}'", s.replace('\'', "''"));
    let yml = format!(
        "bench:\n  targets:\n    - name: fake\n      build: {}\n      run: {}\n{gate_yaml}",
        quote(build),
        quote(run)
    );
    std::fs::write(dir.join("module.yml"), yml).unwrap();
}

fn json_module(dir: &Path, json: &str) {
    module(dir, "true", &format!("echo '{json}'"), "");
}

/// `rho bench gate --base HEAD~1 --head HEAD` started in `repo` with its temporary directory `scratch`, its
/// stdout discarded and its stderr as given.
fn spawn_gate(repo: &Path, scratch: &Path, stderr: std::process::Stdio) -> std::process::Child {
    common::rho_command(
        scratch,
        &["bench", "gate", "--base", "HEAD~1", "--head", "HEAD"],
    )
    .current_dir(repo)
    .stdout(std::process::Stdio::null())
    .stderr(stderr)
    .spawn()
    .unwrap()
}

/// Wait for a gate started with its stderr piped; its exit status and what it wrote there.
fn wait_with_stderr(child: &mut std::process::Child) -> (std::process::ExitStatus, String) {
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    (status, stderr)
}

/// Commit a head whose run hangs, after writing the process group it leads into `marker`.
fn commit_a_hanging_head(repo: &Path, marker: &Path) {
    module(
        repo,
        "true",
        &format!("echo $$ > {}; sleep 600", marker.display()),
        "",
    );
    git(repo, &["commit", "--quiet", "-am", "hangs"]);
}

/// Wait (at most 2 minutes) for the hung run to write its process group into `marker`; that group.
fn hung_run_group(marker: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !marker.exists() || std::fs::read_to_string(marker).unwrap().trim().is_empty() {
        assert!(Instant::now() < deadline, "the hung run never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::read_to_string(marker)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn a_head_that_does_not_build_cannot_be_decided() {
    let tmp = tempfile::tempdir().unwrap();
    json_module(&tmp.path().join("base"), r#"{"a_ns": 100}"#);
    let head = tmp.path().join("head");
    module(
        &head,
        "echo 'kernels.c:12:5: error: expected ; before }' >&2; exit 1",
        "echo '{}'",
        "",
    );
    let outcome = gate(&head, &["--base", "../base"]);
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("head: build"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome.stderr.contains("exited with status 1"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome.stderr.contains("kernels.c:12:5: error"),
        "{}",
        outcome.describe()
    );
    let doc = outcome.document();
    assert_eq!(doc["verdict"], "undecided");
    assert!(doc["error"].as_str().unwrap().contains("head: build"));

    // Under --bisect, "cannot decide" is 125: `git bisect run` skips the commit.
    let bisect = gate(&head, &["--base", "../base", "--bisect"]);
    assert_eq!(bisect.status, Some(125), "{}", bisect.describe());
}

/// Under `--bisect` only head's code failing is "skip this commit" (125); a user's mistake or a base that
/// fails would fail the same way at every commit, so it stops `git bisect run` (128, as git's own fatal
/// errors), and the message and the JSON say which side failed.
#[test]
fn under_bisect_only_heads_failure_skips_the_rest_stops_the_bisect() {
    let tmp = tempfile::tempdir().unwrap();
    json_module(&tmp.path().join("base"), r#"{"a_ns": 100}"#);
    let head = tmp.path().join("head");
    json_module(&head, r#"{"a_ns": 100}"#);
    let broken_base = tmp.path().join("broken_base");
    module(
        &broken_base,
        "echo 'base does not build' >&2; exit 1",
        "echo '{}'",
        "",
    );
    let crashing_base = tmp.path().join("crashing_base");
    module(&crashing_base, "true", "kill -SEGV $$", "");

    let stops: [(&[&str], Option<&str>, &str); 6] = [
        (&["--base", "../base", "--runs", "1"], None, "at least 2"),
        (
            &["--base", "../base", "--budget", "a_ns=2"],
            None,
            "strictly between",
        ),
        (&["--base", "../nonexist"], Some("base"), "../nonexist"),
        (
            &["--base", "../base", "--head", "../nonexist"],
            Some("head"),
            "../nonexist",
        ),
        (
            &["--base", "../broken_base"],
            Some("base"),
            "base does not build",
        ),
        (
            &["--base", "../crashing_base"],
            Some("base"),
            "base: run 1 of 3",
        ),
    ];
    for (args, side, expected) in stops {
        let mut all = args.to_vec();
        all.push("--bisect");
        let outcome = gate(&head, &all);
        assert_eq!(
            outcome.status,
            Some(128),
            "{args:?}: {}",
            outcome.describe()
        );
        assert!(
            outcome.stderr.contains(expected),
            "{args:?}: {}",
            outcome.describe()
        );
        assert!(
            outcome.stderr.contains("stop the bisect"),
            "{args:?}: {}",
            outcome.describe()
        );
        let doc = outcome.document();
        assert_eq!(doc["verdict"], "undecided");
        assert_eq!(
            doc["side"].as_str(),
            side,
            "{args:?}: {}",
            outcome.describe()
        );
        // Without --bisect the same is plain "cannot decide".
        assert_eq!(gate(&head, args).status, Some(2), "{args:?}");
    }

    // Head's own failures skip the commit: a build that fails, a run that crashes, no metrics, and a
    // module.yml that does not load.
    let heads: [(&str, &str, &str); 3] = [
        ("exit 1", "echo '{}'", "head: build"),
        ("true", "kill -SEGV $$", "head: run 1 of 3"),
        ("true", "echo 'no metrics here'", "head: run 1 of"),
    ];
    for (build, run, expected) in heads {
        module(&head, build, run, "");
        let outcome = gate(&head, &["--base", "../base", "--bisect"]);
        assert_eq!(
            outcome.status,
            Some(125),
            "{build} / {run}: {}",
            outcome.describe()
        );
        assert!(outcome.stderr.contains(expected), "{}", outcome.describe());
        assert!(
            outcome.stderr.contains("skip this commit"),
            "{}",
            outcome.describe()
        );
        assert_eq!(outcome.document()["side"], "head");
    }
    // The module.yml of the directory the gate runs in (where its settings come from) is, under
    // `git bisect run`, the commit being tested: one that does not load, or holds a refused setting, is that
    // commit's fault.
    for text in [
        "bench:\n  targets: [\n",
        "bench:\n  targets: [fake]\n  gate:\n    runs: 1\n",
    ] {
        std::fs::write(head.join("module.yml"), text).unwrap();
        let unreadable = gate(&head, &["--base", "../base", "--bisect"]);
        assert_eq!(unreadable.status, Some(125), "{}", unreadable.describe());
        // The error says its cause once, not once more as the cause of the cause.
        let line = unreadable
            .stderr
            .lines()
            .find(|l| l.starts_with("rho: error:"))
            .unwrap_or_else(|| panic!("no error line:\n{}", unreadable.describe()));
        assert_eq!(
            line.matches("module.yml:").count(),
            1,
            "{}",
            unreadable.describe()
        );
        assert!(
            unreadable.stderr.contains("skip this commit"),
            "{}",
            unreadable.describe()
        );
        assert_eq!(unreadable.document()["side"], serde_json::Value::Null);
    }
}

#[test]
fn a_head_that_hangs_is_stopped_at_the_timeout_and_leaves_nothing_running() {
    let tmp = tempfile::tempdir().unwrap();
    json_module(&tmp.path().join("base"), r#"{"a_ns": 100}"#);
    let head = tmp.path().join("head");
    // The run's shell leads its process group: its pid is the group id. It starts a second sleeper too.
    module(
        &head,
        "true",
        "echo $$ > pgid; sleep 600 & sleep 600",
        "  gate:\n    timeout_seconds: 3\n",
    );
    let outcome = gate(&head, &["--base", "../base"]);
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("timed out after 3 s"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome.elapsed < Duration::from_secs(60),
        "{}",
        outcome.describe()
    );
    let pgid: i32 = std::fs::read_to_string(head.join("pgid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // A SIGKILLed orphan may take a moment to be reaped by init; a zombie runs nothing.
    assert_eq!(
        common::wait_for_group_gone(pgid, Duration::from_secs(5)),
        Vec::<(i32, String)>::new(),
        "the hung run's group is still alive"
    );
}

#[test]
fn budgets_outside_zero_one_and_fewer_than_two_runs_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    json_module(&tmp.path().join("base"), r#"{"a_ns": 100}"#);
    json_module(&tmp.path().join("head"), r#"{"a_ns": 100}"#);
    let head = tmp.path().join("head");
    for (args, expected) in [
        (vec!["--budget", "a_ns=1.5"], "strictly between 0 and 1"),
        (vec!["--budget", "a_ns=0"], "strictly between 0 and 1"),
        (vec!["--budget", "default=-0.1"], "strictly between 0 and 1"),
        (vec!["--budget", "a_ns"], "METRIC=FRACTION"),
        (vec!["--runs", "1"], "at least 2"),
    ] {
        let mut all = vec!["--base", "../base"];
        all.extend(&args);
        let outcome = gate(&head, &all);
        assert_eq!(outcome.status, Some(2), "{args:?}: {}", outcome.describe());
        assert!(
            outcome.stderr.contains(expected),
            "{args:?}: {}",
            outcome.describe()
        );
        assert_eq!(outcome.document()["verdict"], "undecided");
    }
    // A budget in module.yml is checked the same way, with its place in the file.
    module(
        &head,
        "true",
        "echo '{}'",
        "  gate:\n    budget:\n      a_ns: 2.0\n",
    );
    let outcome = gate(&head, &["--base", "../base"]);
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("module.yml:"),
        "{}",
        outcome.describe()
    );

    // And a good override changes the verdict: 100 -> 140 is over 0.30 but within 0.50.
    json_module(&head, r#"{"a_ns": 140}"#);
    assert_eq!(gate(&head, &["--base", "../base"]).status, Some(1));
    let lenient = gate(&head, &["--base", "../base", "--budget", "a_ns=0.5"]);
    assert_eq!(lenient.status, Some(0), "{}", lenient.describe());
    assert_eq!(lenient.document()["metrics"]["a_ns"]["budget"], 0.5);
    // The report says where its settings came from.
    assert!(
        lenient
            .stderr
            .contains("module.yml, overridden by --budget a_ns=0.5"),
        "{}",
        lenient.describe()
    );
    assert!(
        lenient.document()["settings_file"]
            .as_str()
            .unwrap()
            .ends_with("head/module.yml")
    );
    assert!(
        !lenient.stderr.contains("matches no metric"),
        "{}",
        lenient.describe()
    );

    // Just over the bound: the change shows as many decimals as tell it from the budget.
    json_module(&head, r#"{"a_ns": 130.01}"#);
    let over = gate(&head, &["--base", "../base"]);
    assert_eq!(over.status, Some(1), "{}", over.describe());
    let row = over
        .stderr
        .lines()
        .find(|l| l.starts_with("a_ns "))
        .unwrap();
    assert!(
        row.contains("+30.01%") && row.contains("REGRESSED"),
        "{}",
        over.describe()
    );
    json_module(&head, r#"{"a_ns": 140}"#);

    // A budget for a metric neither side reports judges nothing: said on stderr, not silently ignored.
    let typo = gate(
        &head,
        &["--base", "../base", "--budget", "nosuch_metric=0.2"],
    );
    assert_eq!(typo.status, Some(1), "{}", typo.describe());
    assert!(
        typo.stderr
            .contains("warning: the budget of nosuch_metric (20.0%) matches no metric"),
        "{}",
        typo.describe()
    );
}

/// `--measure instructions` on a built-in target rho counts on neither way (aarch64-linux runs under
/// qemu-aarch64: no Callgrind, no plugin) is refused before anything is built, naming the target.
#[test]
fn instructions_on_a_target_rho_cannot_count_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    for side in ["base", "head"] {
        let dir = tmp.path().join(side);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.c"), "int main(void) { return 0; }\n").unwrap();
        std::fs::write(
            dir.join("module.yml"),
            "bench:\n  suites:\n    - [a.c]\n  targets:\n    - aarch64-linux\n",
        )
        .unwrap();
    }
    let outcome = gate(
        &tmp.path().join("head"),
        &["--base", "../base", "--measure", "instructions"],
    );
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("target aarch64-linux is neither"),
        "{}",
        outcome.describe()
    );
    assert!(
        !outcome.stderr.contains("building"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn git_revisions_as_sides_leave_no_worktree_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    let sub = repo.join("perf");
    json_module(&sub, r#"{"a_ns": 100}"#);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "fast"]);
    json_module(&sub, r#"{"a_ns": 300}"#);
    git(&repo, &["commit", "--quiet", "-am", "slow"]);
    // A third commit whose recipe does not build: bisect must skip it.
    module(&sub, "exit 3", "echo '{}'", "");
    git(&repo, &["commit", "--quiet", "-am", "broken"]);

    let ok = gate(&sub, &["--base", "HEAD~2", "--head", "HEAD~2"]);
    assert_eq!(ok.status, Some(0), "{}", ok.describe());
    let slow = gate(&sub, &["--base", "HEAD~2", "--head", "HEAD~1"]);
    assert_eq!(slow.status, Some(1), "{}", slow.describe());
    assert_eq!(slow.document()["metrics"]["a_ns"]["head"], 300.0);
    let broken = gate(&sub, &["--base", "HEAD~2", "--head", "HEAD", "--bisect"]);
    assert_eq!(broken.status, Some(125), "{}", broken.describe());
    let unknown = gate(&sub, &["--base", "no-such-rev", "--head", "HEAD"]);
    assert_eq!(unknown.status, Some(2), "{}", unknown.describe());
    assert!(
        unknown.stderr.contains("no-such-rev"),
        "{}",
        unknown.describe()
    );

    let listed = git(&repo, &["worktree", "list", "--porcelain"]);
    let worktrees: Vec<PathBuf> = listed
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(PathBuf::from)
        .collect();
    assert_eq!(worktrees, vec![repo.canonicalize().unwrap()], "{listed}");
    assert_eq!(git(&repo, &["status", "--porcelain"]).trim(), "");
}

#[test]
fn git_bisect_run_finds_the_commit_that_made_it_slow() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    // Five commits: fast, fast, unbuildable, slow (the culprit), slow.
    let steps: [(&str, Option<&str>); 5] = [
        ("c1 fast", Some(r#"{"a_ns": 100}"#)),
        ("c2 fast", Some(r#"{"a_ns": 101}"#)),
        ("c3 broken", None),
        ("c4 slow", Some(r#"{"a_ns": 250}"#)),
        ("c5 slow", Some(r#"{"a_ns": 251}"#)),
    ];
    for (message, json) in steps {
        match json {
            Some(json) => json_module(&repo, json),
            None => module(&repo, "exit 1", "echo '{}'", ""),
        }
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "--quiet", "-m", message]);
    }
    let good = git(&repo, &["rev-list", "--max-parents=0", "HEAD"]);
    let good = good.trim();
    git(&repo, &["bisect", "start", "HEAD", good]);
    let rho = env!("CARGO_BIN_EXE_rho");
    let out = Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args([
            "bisect", "run", rho, "bench", "gate", "--bisect", "--base", good, "--head", "HEAD",
        ])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    git(&repo, &["bisect", "reset"]);
    let hash_of = |subject: &str| {
        git(&repo, &["log", "--format=%H", "--grep", subject])
            .trim()
            .to_owned()
    };
    let (c3, c4) = (hash_of("c3 broken"), hash_of("c4 slow"));
    if text.contains("is the first bad commit") {
        assert!(
            text.contains(&format!("{c4} is the first bad commit")),
            "blamed the wrong commit:\n{text}"
        );
    } else {
        // c3 cannot be built and is skipped, so bisect may only narrow it down to c3 or c4.
        let (_, listed) = text
            .split_once("could be any of:")
            .unwrap_or_else(|| panic!("bisect found nothing:\n{text}"));
        let mut suspects: Vec<&str> = listed
            .lines()
            .map(str::trim)
            .skip_while(|l| l.is_empty())
            .take_while(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_hexdigit()))
            .collect();
        suspects.sort();
        let mut expected = vec![c3.as_str(), c4.as_str()];
        expected.sort();
        assert_eq!(suspects, expected, "{text}");
    }
}

#[test]
fn ctrl_c_removes_the_worktrees_and_stops_the_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    json_module(&repo, r#"{"a_ns": 100}"#);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "fast"]);
    // Head hangs in its first run, after saying where it is and which process group it leads.
    let marker = tmp.path().join("running");
    commit_a_hanging_head(&repo, &marker);

    // rho's temporary directories (worktrees, build directories) go here, to be found afterwards.
    let scratch = tmp.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let mut child = spawn_gate(&repo, &scratch, std::process::Stdio::piped());
    let pgid = hung_run_group(&marker);
    assert_eq!(
        git(&repo, &["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        3
    );
    // SAFETY: signalling the child we started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let (status, stderr) = wait_with_stderr(&mut child);
    assert_eq!(status.code(), Some(130), "{stderr}");

    assert_eq!(
        common::wait_for_group_gone(pgid, Duration::from_secs(5)),
        Vec::<(i32, String)>::new(),
        "the hung run survived Ctrl-C"
    );
    let listed = git(&repo, &["worktree", "list", "--porcelain"]);
    assert_eq!(
        listed.matches("worktree ").count(),
        1,
        "worktrees left behind:\n{listed}"
    );
    assert_eq!(git(&repo, &["status", "--porcelain"]).trim(), "");
    let left: Vec<_> = std::fs::read_dir(&scratch)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        left.is_empty(),
        "temporary directories left behind: {left:?}"
    );
}

/// A repository whose two commits are gate sides; each run leaves a process in a session of its own (out of
/// reach of a group kill), `sleep` of a length unique to `tag`, and prints one metric. Returns the repository,
/// rho's temporary directory (empty) and the sleeper's command line.
fn escaping_repo(tmp: &Path, tag: &str) -> (PathBuf, PathBuf, String) {
    let repo = tmp.join("repo");
    let scratch = tmp.join("scratch");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    let sleeper = format!("sleep 8{}{tag}", std::process::id());
    let run = |value: u32| {
        format!(
            "setsid {sleeper} </dev/null >/dev/null 2>&1 & sleep 0.02; echo '{{\"a_ns\": {value}}}'"
        )
    };
    module(&repo, "true", &run(100), "  gate:\n    runs: 2\n");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "base"]);
    module(&repo, "true", &run(101), "  gate:\n    runs: 2\n");
    git(&repo, &["commit", "--quiet", "-am", "head"]);
    (repo, scratch, sleeper)
}

/// rho's worktree entries in `repo`.
fn worktree_entries(repo: &Path) -> Vec<String> {
    common::entries(&repo.join(".git/worktrees"))
}

#[test]
fn interrupts_anywhere_in_the_first_200_ms_leave_no_worktree_no_directory_and_no_process() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, scratch, sleeper) = escaping_repo(tmp.path(), "1");
    // Every 12 ms from 0 to 204 ms: before, during and after both `git worktree add`s, in the builds and runs.
    for delay_ms in (0..=204).step_by(12) {
        let mut child = spawn_gate(&repo, &scratch, std::process::Stdio::piped());
        std::thread::sleep(Duration::from_millis(delay_ms));
        common::interrupt(&child);
        let (status, stderr) = wait_with_stderr(&mut child);
        let at = format!("interrupted after {delay_ms} ms ({status}): {stderr}");
        // 130 after the cleanup, 0 when it had finished, or killed by the signal itself when it came before
        // rho installed its handler (and had made nothing).
        assert!(
            matches!(status.code(), Some(130 | 0))
                || std::os::unix::process::ExitStatusExt::signal(&status) == Some(libc::SIGINT),
            "{at}"
        );
        assert_eq!(worktree_entries(&repo), Vec::<String>::new(), "{at}");
        common::assert_nothing_left(&scratch);
        assert_eq!(
            common::wait_for_no_process(&sleeper, Duration::from_secs(5)),
            Vec::<(u32, String)>::new(),
            "{at}"
        );
        git(&repo, &["worktree", "list"]);
    }
    assert_eq!(git(&repo, &["status", "--porcelain"]).trim(), "");
}

#[test]
fn the_next_gate_removes_what_a_killed_gate_left_and_nothing_of_the_users() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, scratch, sleeper) = escaping_repo(tmp.path(), "2");
    // A gate killed beyond cleaning up (SIGKILL) while its head hangs: both worktrees stay registered.
    let marker = tmp.path().join("running");
    commit_a_hanging_head(&repo, &marker);
    let mut child = spawn_gate(&repo, &scratch, std::process::Stdio::null());
    let pgid = hung_run_group(&marker);
    child.kill().unwrap();
    child.wait().unwrap();
    // SAFETY: the hung run's group, which the killed rho could not end.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    assert_eq!(worktree_entries(&repo).len(), 2);
    // A half-made entry, as a `git worktree add` killed early leaves it: locked, and an empty `commondir`
    // that makes git's own worktree commands fail.
    let half = repo.join(".git/worktrees/rho-gate-head-Ab12Cd");
    std::fs::create_dir_all(&half).unwrap();
    std::fs::write(half.join("locked"), "initializing").unwrap();
    std::fs::write(half.join("commondir"), "").unwrap();
    // The user's own worktrees: one in place, one whose directory is gone (on a drive not mounted now):
    // neither is rho's to remove.
    let mine = tmp.path().join("mine");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "--quiet",
            "--detach",
            mine.to_str().unwrap(),
            "HEAD~1",
        ],
    );
    let away = tmp.path().join("away");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "--quiet",
            "--detach",
            away.to_str().unwrap(),
            "HEAD~1",
        ],
    );
    std::fs::remove_dir_all(&away).unwrap();

    // The next gate (the hang fixed, against the first commit) cleans up first, then runs as usual.
    module(&repo, "true", r#"echo '{"a_ns": 100}'"#, "");
    git(&repo, &["commit", "--quiet", "-am", "fixed"]);
    let outcome = gate(&repo, &["--base", "HEAD~3", "--head", "HEAD"]);
    assert_eq!(outcome.status, Some(0), "{}", outcome.describe());
    let mut left = worktree_entries(&repo);
    left.sort();
    assert_eq!(left, ["away", "mine"], "{}", outcome.describe());
    git(&repo, &["worktree", "list"]);
    // The killed gate's checkouts went with their entries (its other temporary directories are beyond
    // anyone's reach after a SIGKILL).
    let checkouts: Vec<String> = common::entries(&scratch)
        .into_iter()
        .filter(|name| name.starts_with("rho-gate-base-") || name.starts_with("rho-gate-head-"))
        .collect();
    assert_eq!(checkouts, Vec::<String>::new());
    // The escaped process of the base run that finished before the kill was ended with that run.
    assert_eq!(
        common::wait_for_no_process(&sleeper, Duration::from_secs(5)),
        Vec::<(u32, String)>::new()
    );
}

#[test]
// The child is reaped by wait4, which also reports its peak memory.
#[allow(clippy::zombie_processes)]
fn a_side_printing_hundreds_of_megabytes_costs_the_gate_no_memory() {
    let tmp = tempfile::tempdir().unwrap();
    // Each run prints 64 MiB of noise (lines of 1 KiB) before its last-line JSON.
    let noisy =
        r#"head -c 67108864 /dev/zero | tr '\0' x | fold -w 1024; echo; echo '{"a_ns": 100}'"#;
    for side in ["base", "head"] {
        module(
            &tmp.path().join(side),
            "true",
            noisy,
            "  gate:\n    runs: 2\n",
        );
    }
    let scratch = tempfile::tempdir().unwrap();
    let mut child = common::rho_command(scratch.path(), &["bench", "gate", "--base", "../base"])
        .current_dir(tmp.path().join("head"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    // wait4 reports the child's peak resident memory, exactly, in KiB.
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for our own child; wait4 writes only `status` and `usage`.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{stdout}"
    );
    assert!(stdout.contains("a_ns"), "{stdout}");
    let peak_mib = usage.ru_maxrss / 1024;
    // Holding one run's stdout alone would take 65 MiB; the gate keeps the last line and a few MiB of lines
    // in flight (docs/gate.md).
    assert!(
        peak_mib < 40,
        "rho's peak resident memory was {peak_mib} MiB"
    );
}

#[test]
fn a_metric_name_with_control_sequences_is_shown_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    // The JSON escape \u001b is the ESC character once parsed.
    let json = r#"{"\u001b]0;owned\u0007\u001b[2Jsum_ns": 100}"#;
    json_module(&tmp.path().join("base"), json);
    json_module(&tmp.path().join("head"), json);
    let outcome = gate(&tmp.path().join("head"), &["--base", "../base"]);
    assert_eq!(outcome.status, Some(0), "{}", outcome.describe());
    outcome.assert_no_raw(&['\x1b', '\x07']);
    assert!(
        outcome.stderr.contains("\\x1b]0;owned\\x07\\x1b[2Jsum_ns"),
        "{}",
        outcome.describe()
    );
}

/// `{"a_ns": 1, "a_ns": 1000}` as a side's last line: a JSON reader keeps the last value, which could hide a
/// regression behind the first; the gate refuses the line (cannot decide, exit 2) naming the key.
#[test]
fn a_last_line_with_a_key_twice_cannot_be_decided() {
    let tmp = tempfile::tempdir().unwrap();
    json_module(&tmp.path().join("base"), r#"{"a_ns": 1000}"#);
    json_module(&tmp.path().join("head"), r#"{"a_ns": 1, "a_ns": 1000}"#);
    let outcome = gate(&tmp.path().join("head"), &["--base", "../base"]);
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    let all = format!("{}{}", outcome.stdout, outcome.stderr);
    assert!(
        all.contains("key \"a_ns\" appears twice"),
        "{}",
        outcome.describe()
    );
}
