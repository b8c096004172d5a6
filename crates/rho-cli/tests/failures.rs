//! `rho bench` when things go wrong: every failure exits 2 with a message naming what happened, and leaves no
//! process and no build directory behind.

mod common;

use std::time::{Duration, Instant};

use common::*;

const LIMIT: Duration = Duration::from_secs(300);

/// A suite whose second benchmark raises SIGSEGV.
const CRASHING_SUITE: &str = r#"
#include <signal.h>
#include <rho/bench.h>

static void bench_fine(rho_bench_t *state)
{
    unsigned sum = 0;
    RHO_BENCH_LOOP(state) {
        sum += 3u;
    }
    RHO_BENCH_KEEP(sum);
}

static void bench_segfault(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        raise(SIGSEGV);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_fine);
    RHO_BENCH_ADD(&suite, bench_segfault);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// A suite whose benchmark never finishes an iteration.
const HANGING_SUITE: &str = r#"
#include <rho/bench.h>

static volatile int forever = 1;

static void bench_forever(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        while (forever) {
        }
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_forever);
    return rho_bench_main(&suite, argc, argv);
}
"#;

#[test]
fn a_crashing_suite_exits_2_naming_the_signal_and_the_benchmark() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let file = write_c(src.path(), "crash.c", CRASHING_SUITE);
    let outcome = rho_in(
        tmp.path(),
        &["bench", file.to_str().unwrap(), "--iterations", "100"],
        LIMIT,
    );
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("crashed (SIGSEGV)"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome.stderr.contains("bench_segfault"),
        "{}",
        outcome.describe()
    );
    assert!(
        entries(tmp.path()).is_empty(),
        "left behind: {:?}",
        entries(tmp.path())
    );
}

#[test]
fn a_hanging_suite_is_killed_at_the_timeout_and_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let file = write_c(src.path(), "hang.c", HANGING_SUITE);
    let timeout_seconds = 2;
    let start = Instant::now();
    let outcome = rho_in(
        tmp.path(),
        &[
            "bench",
            file.to_str().unwrap(),
            "--timeout",
            &timeout_seconds.to_string(),
        ],
        LIMIT,
    );
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("timed out after 2 s"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome.stderr.contains("bench_forever"),
        "{}",
        outcome.describe()
    );
    // The build (a compile counts against its own timeout) plus the run's 2 s; generous for a loaded machine,
    // but far below "never returns".
    assert!(
        start.elapsed() < Duration::from_secs(120),
        "took {:?}",
        start.elapsed()
    );
    let needle = tmp.path().to_string_lossy().into_owned();
    let left = wait_for_no_process(&needle, Duration::from_secs(5));
    assert!(left.is_empty(), "processes left running: {left:?}");
    assert!(
        entries(tmp.path()).is_empty(),
        "left behind: {:?}",
        entries(tmp.path())
    );
}

#[test]
fn ctrl_c_kills_the_suite_removes_the_build_and_exits_130() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let file = write_c(src.path(), "hang.c", HANGING_SUITE);
    let mut child = rho_command(
        tmp.path(),
        &["bench", file.to_str().unwrap(), "--timeout", "600"],
    )
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    // Wait for the suite itself to be running from the build directory.
    let suite_path = tmp.path().to_string_lossy().into_owned();
    let until = Instant::now() + Duration::from_secs(120);
    let suite_running = || {
        processes_mentioning(&suite_path).iter().any(|(_, cmd)| {
            cmd.split(' ')
                .next()
                .is_some_and(|program| program.ends_with("/suite"))
        })
    };
    while !suite_running() {
        if Instant::now() > until {
            let _ = child.kill();
            panic!("the suite never started");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: sending a signal to our own child.
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
    let until = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("rho did not exit after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "stderr: {stderr}");
    let left = wait_for_no_process(&suite_path, Duration::from_secs(5));
    assert!(left.is_empty(), "processes left running: {left:?}");
    assert!(
        entries(tmp.path()).is_empty(),
        "left behind: {:?}",
        entries(tmp.path())
    );
}

#[test]
fn a_compile_error_exits_2_with_the_compilers_message() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let file = write_c(
        src.path(),
        "broken.c",
        "#include <rho/bench.h>\nint main(void) { return undeclared_name; }\n",
    );
    let outcome = rho_in(tmp.path(), &["bench", file.to_str().unwrap()], LIMIT);
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("cannot build the suite"),
        "{}",
        outcome.describe()
    );
    // The compiler's own words, naming the file and the identifier.
    assert!(
        outcome.stderr.contains("broken.c"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome.stderr.contains("undeclared_name"),
        "{}",
        outcome.describe()
    );
    assert!(
        entries(tmp.path()).is_empty(),
        "left behind: {:?}",
        entries(tmp.path())
    );
}

#[test]
fn a_non_zero_exit_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let file = write_c(
        src.path(),
        "exit3.c",
        "#include <stdio.h>\nint main(void) { fputs(\"no room\\n\", stderr); return 3; }\n",
    );
    let outcome = rho_in(tmp.path(), &["bench", file.to_str().unwrap()], LIMIT);
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("exited with status 3"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome.stderr.contains("no room"),
        "the suite's stderr is shown: {}",
        outcome.describe()
    );
}

#[test]
fn a_malformed_stream_names_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    // Line 1 is noise, line 2 the header, line 3 a record that is not a record of the format.
    let file = write_c(
        src.path(),
        "malformed.c",
        "#include <stdio.h>\nint main(void) { puts(\"booting\"); puts(\"@rho-bench 1\"); puts(\"@nonsense 12\"); return 0; }\n",
    );
    let outcome = rho_in(tmp.path(), &["bench", file.to_str().unwrap()], LIMIT);
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(outcome.stderr.contains("line 3"), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("malformed"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn a_truncated_stream_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let file = write_c(
        src.path(),
        "truncated.c",
        "#include <stdio.h>\nint main(void) { puts(\"@rho-bench 1\"); return 0; }\n",
    );
    let outcome = rho_in(tmp.path(), &["bench", file.to_str().unwrap()], LIMIT);
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("incomplete"),
        "{}",
        outcome.describe()
    );
    assert!(outcome.stderr.contains("line 2"), "{}", outcome.describe());
}

#[test]
fn a_missing_file_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let outcome = rho_in(tmp.path(), &["bench", "no/such/suite.c"], LIMIT);
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("no/such/suite.c: no such file"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn ctrl_c_during_the_compile_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = rho_command(tmp.path(), &["bench", "examples/crypto_bench.c"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the compiler runs (its command line names the build directory).
    let build_path = tmp.path().to_string_lossy().into_owned();
    let until = Instant::now() + Duration::from_secs(120);
    while processes_mentioning(&build_path).is_empty() {
        if Instant::now() > until {
            let _ = child.kill();
            panic!("the compiler never started");
        }
        if child.try_wait().unwrap().is_some() {
            // The whole build and run finished between two looks: nothing to interrupt on this machine.
            println!("note: the suite finished before it could be interrupted");
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: sending a signal to our own child.
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert!(matches!(status.code(), Some(130) | Some(0)), "{status}");
    let left = wait_for_no_process(&build_path, Duration::from_secs(5));
    assert!(left.is_empty(), "processes left running: {left:?}");
    assert!(
        entries(tmp.path()).is_empty(),
        "left behind: {:?}",
        entries(tmp.path())
    );
}

#[test]
fn a_missing_compiler_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let mut command = rho_command(tmp.path(), &["bench", "examples/crypto_bench.c"]);
    command.env("CC", "rho-test-no-such-compiler");
    let (finished, _) = rho_exec::Runner::new(command)
        .timeout(LIMIT)
        .run_collect()
        .unwrap();
    assert_eq!(
        finished.termination,
        rho_exec::Termination::Exited(2),
        "{}",
        finished.stderr
    );
    assert!(
        finished
            .stderr
            .contains("cannot run the C compiler `rho-test-no-such-compiler` (set CC"),
        "{}",
        finished.stderr
    );
    assert_eq!(
        finished.stderr.matches("No such file").count(),
        1,
        "{}",
        finished.stderr
    );
    assert!(
        entries(tmp.path()).is_empty(),
        "left behind: {:?}",
        entries(tmp.path())
    );
}

#[test]
fn a_harness_misuse_exits_2_with_the_harness_message() {
    let tmp = tempfile::tempdir().unwrap();
    let outcome = rho_in(
        tmp.path(),
        &["bench", "tests/c/misuse_suite.c", "--iterations", "100"],
        LIMIT,
    );
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("exited with status 2"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome.stderr.contains("bench_two_loops"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome
            .stderr
            .contains("RHO_BENCH_LOOP entered more than once"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn an_unwritable_json_path_is_found_before_anything_is_built() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no-such-dir").join("run.json");
    let outcome = rho_in(
        tmp.path(),
        &[
            "bench",
            "examples/crypto_bench.c",
            "--json",
            missing.to_str().unwrap(),
        ],
        Duration::from_secs(120),
    );
    assert_eq!(outcome.status, Some(2), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("no-such-dir does not exist"),
        "{}",
        outcome.describe()
    );
    // Nothing ran: no report, and no build directory was ever made.
    assert!(outcome.stdout.is_empty(), "{}", outcome.describe());
    assert!(entries(tmp.path()).is_empty(), "{:?}", entries(tmp.path()));
}
