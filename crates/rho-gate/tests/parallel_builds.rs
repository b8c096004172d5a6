//! Base and head build at once with `--jobs 2`, one after the other with `--jobs 1`; when both builds fail the
//! error is base's (as when they ran in turn, so `--bisect` stops rather than skips), when only head's fails it
//! is head's.

use std::path::Path;
use std::time::Duration;

use rho_gate::config::recipe_from_module;
use rho_gate::{BenchEnv, GateError, GateOutcome, GateRequest, GateSettings, SideName, run_gate};

/// A module whose build logs `start NS` and `end NS` (nanoseconds since the epoch) to `log` around a 1 s
/// sleep, then runs `then`; its run prints one metric.
fn module(dir: &Path, log: &Path, then: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let build = format!(
        "echo start $(date +%s%N) >> {log}; sleep 1; echo end $(date +%s%N) >> {log}; {then}",
        log = log.display()
    );
    let quote = |text: &str| format!("'{}'", text.replace('\'', "''"));
    let yml = format!(
        "bench:\n  targets:\n    - name: slow_build\n      build: {}\n      run: {}\n",
        quote(&build),
        quote(r#"echo '{"a_ns": 1}'"#)
    );
    std::fs::write(dir.join("module.yml"), yml).unwrap();
}

fn gate(cwd: &Path, jobs: usize) -> Result<GateOutcome, GateError> {
    let mut settings = GateSettings::default();
    settings.set_runs(2).unwrap();
    settings.set_timeout(Duration::from_secs(60)).unwrap();
    settings.set_build_jobs(jobs).unwrap();
    let request = GateRequest {
        base: "base".to_owned(),
        head: "head".to_owned(),
        cwd: cwd.to_owned(),
        settings,
        env: BenchEnv::default(),
        bench_header: "/* not used */\n".to_owned(),
    };
    run_gate(
        &request,
        &|side: SideName, root: &Path| recipe_from_module(side, root, None),
        &mut |p| eprintln!("{p}"),
    )
}

/// The (start, end) of each build in the log, in the order they started.
fn intervals(log: &Path) -> Vec<(u128, u128)> {
    let text = std::fs::read_to_string(log).unwrap();
    let stamps = |what: &str| -> Vec<u128> {
        text.lines()
            .filter_map(|l| l.strip_prefix(what))
            .map(|n| n.trim().parse().unwrap())
            .collect()
    };
    let (mut starts, mut ends) = (stamps("start "), stamps("end "));
    starts.sort_unstable();
    ends.sort_unstable();
    starts.into_iter().zip(ends).collect()
}

#[test]
fn two_jobs_build_both_sides_at_once_and_one_job_in_turn() {
    for (jobs, together) in [(2, true), (1, false)] {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("builds.log");
        module(&tmp.path().join("base"), &log, "true");
        module(&tmp.path().join("head"), &log, "true");
        gate(tmp.path(), jobs).unwrap();
        let builds = intervals(&log);
        assert_eq!(builds.len(), 2, "{builds:?}");
        // Each build sleeps a second: at once, the second starts before the first ends; in turn, after.
        assert_eq!(
            builds[1].0 < builds[0].1,
            together,
            "--jobs {jobs}: {builds:?}"
        );
    }
}

#[test]
fn when_both_builds_fail_the_error_is_bases_and_when_head_alone_fails_heads() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("builds.log");
    module(
        &tmp.path().join("base"),
        &log,
        "echo base broke >&2; exit 3",
    );
    module(
        &tmp.path().join("head"),
        &log,
        "echo head broke >&2; exit 4",
    );
    let error = gate(tmp.path(), 2).unwrap_err();
    assert_eq!(error.side(), Some(SideName::Base), "{error}");
    assert!(error.to_string().contains("base broke"), "{error}");

    module(&tmp.path().join("base"), &log, "true");
    let error = gate(tmp.path(), 2).unwrap_err();
    assert_eq!(error.side(), Some(SideName::Head), "{error}");
    assert!(error.is_head_failure(), "{error}");
}
