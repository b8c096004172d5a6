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

/// `rho bench FILE ARGS` on a suite written from `text` as `name`, with rho's temporary files in a fresh
/// directory (returned, for the test to see what is left in it).
fn bench_written(name: &str, text: &str, args: &[&str]) -> (tempfile::TempDir, Outcome) {
    let tmp = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let file = write_c(src.path(), name, text);
    let mut all = vec!["bench", file.to_str().unwrap()];
    all.extend_from_slice(args);
    let outcome = rho_in(tmp.path(), &all, LIMIT);
    (tmp, outcome)
}

#[test]
fn a_crashing_suite_exits_2_naming_the_signal_and_the_benchmark() {
    let (tmp, outcome) = bench_written("crash.c", CRASHING_SUITE, &["--iterations", "100"]);
    outcome.assert_exit(2);
    outcome.assert_stderr_has("crashed (SIGSEGV)");
    outcome.assert_stderr_has("bench_segfault");
    assert_nothing_left(tmp.path());
}

#[test]
fn a_hanging_suite_is_killed_at_the_timeout_and_leaves_nothing_behind() {
    let timeout_seconds = 2;
    let start = Instant::now();
    let (tmp, outcome) = bench_written(
        "hang.c",
        HANGING_SUITE,
        &["--timeout", &timeout_seconds.to_string()],
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("timed out after 2 s");
    outcome.assert_stderr_has("bench_forever");
    // The build (a compile counts against its own timeout) plus the run's 2 s; generous for a loaded machine,
    // but far below "never returns".
    assert!(
        start.elapsed() < Duration::from_secs(120),
        "took {:?}",
        start.elapsed()
    );
    assert_no_process_left(&tmp.path().to_string_lossy());
    assert_nothing_left(tmp.path());
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
    interrupt(&child);
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
    assert_no_process_left(&suite_path);
    assert_nothing_left(tmp.path());
}

#[test]
fn a_compile_error_exits_2_with_the_compilers_message() {
    let (tmp, outcome) = bench_written(
        "broken.c",
        "#include <rho/bench.h>\nint main(void) { return undeclared_name; }\n",
        &[],
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("cannot build the suite");
    // The compiler's own words, naming the file and the identifier.
    outcome.assert_stderr_has("broken.c");
    outcome.assert_stderr_has("undeclared_name");
    assert_nothing_left(tmp.path());
}

#[test]
fn a_non_zero_exit_is_an_error() {
    let (_tmp, outcome) = bench_written(
        "exit3.c",
        "#include <stdio.h>\nint main(void) { fputs(\"no room\\n\", stderr); return 3; }\n",
        &[],
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("exited with status 3");
    assert!(
        outcome.stderr.contains("no room"),
        "the suite's stderr is shown: {}",
        outcome.describe()
    );
}

#[test]
fn a_malformed_stream_names_its_line() {
    // Line 1 is noise, line 2 the header, line 3 a record that is not a record of the format.
    let (_tmp, outcome) = bench_written(
        "malformed.c",
        "#include <stdio.h>\nint main(void) { puts(\"booting\"); puts(\"@rho-bench 1\"); puts(\"@nonsense 12\"); return 0; }\n",
        &[],
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("line 3");
    outcome.assert_stderr_has("malformed");
}

#[test]
fn a_truncated_stream_is_an_error() {
    let (_tmp, outcome) = bench_written(
        "truncated.c",
        "#include <stdio.h>\nint main(void) { puts(\"@rho-bench 1\"); return 0; }\n",
        &[],
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("incomplete");
    outcome.assert_stderr_has("line 2");
}

#[test]
fn a_program_that_never_starts_the_stream_is_told_the_likely_cause() {
    // A suite whose main forgot rho_bench_main: it prints a line of its own and exits 0.
    let (_tmp, outcome) = bench_written(
        "forgot.c",
        "#include <stdio.h>\n#include <rho/bench.h>\nint main(void) { puts(\"hello\"); return 0; }\n",
        &[],
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("expected @rho-bench");
    outcome.assert_stderr_has("never calls rho_bench_main");
    outcome.assert_stderr_has("return rho_bench_main(&suite, argc, argv);");
    // A stream cut off later gets no such hint: its program did start.
    let (_tmp, truncated) = bench_written(
        "truncated.c",
        "#include <stdio.h>\nint main(void) { puts(\"@rho-bench 1\"); return 0; }\n",
        &[],
    );
    assert!(
        !truncated.stderr.contains("never calls"),
        "{}",
        truncated.describe()
    );
}

#[test]
fn a_missing_file_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let outcome = rho_in(tmp.path(), &["bench", "no/such/suite.c"], LIMIT);
    outcome.assert_exit(2);
    outcome.assert_stderr_has("no/such/suite.c: no such file");
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
    interrupt(&child);
    let status = child.wait().unwrap();
    assert!(matches!(status.code(), Some(130) | Some(0)), "{status}");
    assert_no_process_left(&build_path);
    assert_nothing_left(tmp.path());
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
    assert_nothing_left(tmp.path());
}

#[test]
fn a_harness_misuse_exits_2_with_the_harness_message() {
    let tmp = tempfile::tempdir().unwrap();
    let outcome = rho_in(
        tmp.path(),
        &["bench", "tests/c/misuse_suite.c", "--iterations", "100"],
        LIMIT,
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("exited with status 2");
    outcome.assert_stderr_has("bench_two_loops");
    outcome.assert_stderr_has("RHO_BENCH_LOOP entered more than once");
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
    outcome.assert_exit(2);
    outcome.assert_stderr_has("no-such-dir does not exist");
    // Nothing ran: no report, and no build directory was ever made.
    assert!(outcome.stdout.is_empty(), "{}", outcome.describe());
    assert!(entries(tmp.path()).is_empty(), "{:?}", entries(tmp.path()));
}

#[test]
fn sigterm_anywhere_in_a_module_run_leaves_no_scratch_directory_and_no_compiler_file() {
    // The example project: a C-file suite, a two-file suite and a command suite that runs its own compiler.
    let work = tempfile::tempdir().unwrap();
    let project = work.path().join("project");
    copy_tree(&repo_file("examples/project"), &project);
    let tmp = work.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // From the start to well into the compiles and runs.
    for delay_ms in (0..=1400).step_by(100) {
        let mut child = rho_command(&tmp, &["bench", "--iterations", "2000"])
            .current_dir(&project)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        // SAFETY: signalling the child we started.
        unsafe {
            libc::kill(i32::try_from(child.id()).unwrap(), libc::SIGTERM);
        }
        let status = child.wait().unwrap();
        assert_no_process_left(&tmp.to_string_lossy());
        assert!(
            entries(&tmp).is_empty(),
            "SIGTERM after {delay_ms} ms ({status}) left {:?}",
            entries(&tmp)
        );
    }
}

/// A suite that prints terminal control sequences (retitle the terminal, clear it, return to the line's start)
/// on stdout before its stream and on stderr, then crashes.
const HOSTILE_SUITE: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <rho/bench.h>

static void bench_hostile(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        abort();
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    printf("\033]0;owned\007\033[2J\rnoise\n");
    fflush(stdout);
    fprintf(stderr, "\033[2J\033[Hfake: all ok\n");
    RHO_BENCH_ADD(&suite, bench_hostile);
    return rho_bench_main(&suite, argc, argv);
}
"#;

#[test]
fn control_sequences_a_suite_prints_reach_the_terminal_escaped() {
    let (tmp, outcome) = bench_written("hostile.c", HOSTILE_SUITE, &["--iterations", "10"]);
    outcome.assert_exit(2);
    outcome.assert_no_raw(&['\x1b', '\x07', '\r']);
    // Shown, escaped: the noise line and the stderr tail.
    outcome.assert_stderr_has("\\x1b]0;owned\\x07\\x1b[2J\\rnoise");
    outcome.assert_stderr_has("\\x1b[2J\\x1b[Hfake: all ok");
    assert_nothing_left(tmp.path());
}
