//! The gate end to end through the library, on tiny shell "benchmarks" that print a JSON line: verdicts,
//! failures that cannot be decided, timeouts that leave nothing running, and git revisions as sides.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rho_gate::{
    GateError, GateOutcome, GateRequest, GateSettings, MetricOutcome, SideName, Verdict,
};

mod common;
use common::{gate_logged, git, request};

/// A module root whose target prints `json` as its last line (after a line of noise).
fn module(dir: &Path, build: &str, run: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let yml = format!(
        "bench:\n  targets:\n    - name: fake\n      build: {}\n      run: {}\n",
        yaml_string(build),
        yaml_string(run)
    );
    std::fs::write(dir.join("module.yml"), yml).unwrap();
}

fn yaml_string(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn json_module(dir: &Path, json: &str) {
    module(dir, "true", &format!("echo warming up; echo '{json}'"));
}

fn gate(request: &GateRequest) -> Result<GateOutcome, GateError> {
    gate_logged(request).0
}

fn settings(runs: u32, timeout: Duration) -> GateSettings {
    let mut settings = GateSettings::default();
    settings.set_runs(runs).unwrap();
    settings.set_timeout(timeout).unwrap();
    settings
}

#[test]
fn identical_sides_pass_and_a_slower_head_regresses() {
    let tmp = tempfile::tempdir().unwrap();
    json_module(&tmp.path().join("base"), r#"{"a_ns": 100, "b_ns": 50}"#);
    json_module(&tmp.path().join("same"), r#"{"a_ns": 100, "b_ns": 50}"#);
    json_module(&tmp.path().join("slow"), r#"{"a_ns": 100, "b_ns": 100.5}"#);
    json_module(&tmp.path().join("edge"), r#"{"a_ns": 130, "b_ns": 50}"#);

    let s = settings(2, Duration::from_secs(30));
    let ok = gate(&request(tmp.path(), "base", "same", s.clone())).unwrap();
    assert_eq!(ok.comparison.verdict, Verdict::Ok);
    assert_eq!(ok.base_runs.len(), 2);
    assert_eq!(ok.head_runs.len(), 2);

    let slow = gate(&request(tmp.path(), "base", "slow", s.clone())).unwrap();
    assert_eq!(slow.comparison.verdict, Verdict::Regressed);
    let b = slow.comparison.metric("b_ns").unwrap();
    assert_eq!(b.outcome, MetricOutcome::Regressed);
    assert!((b.change().unwrap() - 1.01).abs() < 1e-9);

    // 130 against 100 with the default 0.30 budget sits on the bound, which is inclusive.
    let edge = gate(&request(tmp.path(), "base", "edge", s)).unwrap();
    assert_eq!(edge.comparison.verdict, Verdict::Ok);
}

#[test]
fn a_metric_on_one_side_only_is_undecided() {
    let tmp = tempfile::tempdir().unwrap();
    json_module(&tmp.path().join("base"), r#"{"a_ns": 100}"#);
    json_module(&tmp.path().join("head"), r#"{"a_ns": 100, "new_ns": 5}"#);
    let outcome = gate(&request(
        tmp.path(),
        "base",
        "head",
        settings(2, Duration::from_secs(30)),
    ))
    .unwrap();
    assert_eq!(outcome.comparison.verdict, Verdict::Undecided);
}

#[test]
fn the_build_and_run_see_the_harness_environment() {
    let tmp = tempfile::tempdir().unwrap();
    // The build writes into RHO_BENCH_OUT and checks the header is there; the run reads what it built.
    let build = r#"test -f "$RHO_BENCH_INCLUDE/rho/bench.h" && echo "{\"iters\": $RHO_BENCH_ITERATIONS}" > "$RHO_BENCH_OUT/out.json""#;
    let run = r#"cat "$RHO_BENCH_OUT/out.json""#;
    module(&tmp.path().join("base"), build, run);
    module(&tmp.path().join("head"), build, run);
    let mut req = request(
        tmp.path(),
        "base",
        "head",
        settings(2, Duration::from_secs(30)),
    );
    req.env.iterations = Some(777);
    let outcome = gate(&req).unwrap();
    assert_eq!(outcome.comparison.verdict, Verdict::Ok);
    assert_eq!(outcome.comparison.metrics[0].base.unwrap().min, 777.0);
}

#[test]
fn a_build_failure_names_the_side_the_command_and_its_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    json_module(&tmp.path().join("base"), r#"{"a_ns": 100}"#);
    module(
        &tmp.path().join("head"),
        "echo 'kernels.c:3: error: expected ;' >&2; exit 1",
        "echo '{}'",
    );
    let error = gate(&request(
        tmp.path(),
        "base",
        "head",
        settings(2, Duration::from_secs(30)),
    ))
    .unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(&error, GateError::Command(failure) if failure.side == SideName::Head),
        "{text}"
    );
    assert!(text.starts_with("head: build"), "{text}");
    assert!(text.contains("exited with status 1"), "{text}");
    assert!(text.contains("kernels.c:3: error: expected ;"), "{text}");
}

#[test]
fn a_crash_and_a_run_without_metrics_cannot_be_decided() {
    let tmp = tempfile::tempdir().unwrap();
    json_module(&tmp.path().join("base"), r#"{"a_ns": 100}"#);
    module(&tmp.path().join("crash"), "true", "kill -SEGV $$");
    module(&tmp.path().join("silent"), "true", "echo all done");
    let s = settings(2, Duration::from_secs(30));
    let crash = gate(&request(tmp.path(), "base", "crash", s.clone()))
        .unwrap_err()
        .to_string();
    assert!(
        crash.contains("head: run 1 of 2") && crash.contains("SIGSEGV"),
        "{crash}"
    );
    let silent = gate(&request(tmp.path(), "base", "silent", s))
        .unwrap_err()
        .to_string();
    assert!(
        silent.contains("head: run 1") && silent.contains("not a JSON object"),
        "{silent}"
    );
}

/// Whether group `pgid` still has a live process, allowing a moment for a SIGKILL to take effect (a killed
/// process stays a zombie until its parent, init for an orphan, reaps it; `running_in_group` leaves zombies out).
fn group_alive(pgid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let running = rho_exec::running_in_group(pgid);
        if running.is_empty() {
            return false;
        }
        if Instant::now() > deadline {
            eprintln!("still alive: {running:?}");
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_hung_run_times_out_and_leaves_nothing_running() {
    let tmp = tempfile::tempdir().unwrap();
    json_module(&tmp.path().join("base"), r#"{"a_ns": 100}"#);
    // The run's shell is its group leader: its pid is the group id. It leaves a background sleeper too.
    module(
        &tmp.path().join("head"),
        "true",
        "echo $$ > pgid; sleep 300 & sleep 300",
    );
    let start = Instant::now();
    let error = gate(&request(
        tmp.path(),
        "base",
        "head",
        settings(2, Duration::from_secs(2)),
    ))
    .unwrap_err();
    let elapsed = start.elapsed();
    let text = error.to_string();
    assert!(
        text.contains("head: run 1 of 2") && text.contains("timed out after 2 s"),
        "{text}"
    );
    assert!(elapsed < Duration::from_secs(30), "took {elapsed:?}");
    let pgid: i32 = std::fs::read_to_string(tmp.path().join("head/pgid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!group_alive(pgid), "process group {pgid} is still alive");
}

#[test]
fn a_side_that_is_neither_a_directory_nor_a_revision_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    json_module(&tmp.path().join("base"), r#"{"a_ns": 100}"#);
    let error = gate(&request(
        tmp.path(),
        "base",
        "no-such-thing",
        GateSettings::default(),
    ))
    .unwrap_err();
    assert!(
        matches!(
            error,
            GateError::BadSide {
                side: SideName::Head,
                ..
            }
        ),
        "{error}"
    );
}

/// The worktrees git knows of, as paths.
fn worktrees(repo: &Path) -> Vec<PathBuf> {
    git(repo, &["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(PathBuf::from)
        .collect()
}

#[test]
fn git_revisions_are_gated_in_worktrees_that_are_removed_afterwards() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    // The module lives in a subdirectory: the gate runs from there, and finds the same path in each worktree.
    let sub = repo.join("bench");
    json_module(&sub, r#"{"a_ns": 100}"#);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "good"]);
    // The recipe itself changes between commits: each side must use its own.
    module(&sub, "true", r#"echo '{"a_ns": 250}'"#);
    git(&repo, &["commit", "--quiet", "-am", "slow"]);
    // An uncommitted change in the user's tree must neither be used by a revision side nor be touched.
    std::fs::write(sub.join("scratch.txt"), "user's work").unwrap();

    let s = settings(2, Duration::from_secs(30));
    let same = gate(&request(&sub, "HEAD~1", "main~1", s.clone())).unwrap();
    assert_eq!(same.comparison.verdict, Verdict::Ok);
    let slow = gate(&request(&sub, "HEAD~1", "HEAD", s.clone())).unwrap();
    assert_eq!(slow.comparison.verdict, Verdict::Regressed);
    assert_eq!(slow.comparison.metrics[0].head.unwrap().min, 250.0);
    // A revision against the working directory itself.
    let dir = gate(&request(&sub, "HEAD~1", ".", s.clone())).unwrap();
    assert_eq!(dir.comparison.verdict, Verdict::Regressed);
    // A failing side removes its worktree too.
    assert!(gate(&request(&sub, "HEAD~1", "no-such-branch", s)).is_err());

    assert_eq!(worktrees(&repo), vec![repo.canonicalize().unwrap()]);
    assert_eq!(
        std::fs::read_to_string(sub.join("scratch.txt")).unwrap(),
        "user's work"
    );
    let status = git(&repo, &["status", "--porcelain"]);
    assert_eq!(status.trim(), "?? bench/scratch.txt");
}
