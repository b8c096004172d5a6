//! The runner against real processes: exit codes, signals, timeouts that take the whole group down, stdout
//! streamed line by line, stderr kept.

use std::process::Command;
use std::time::{Duration, Instant};

use rho_exec::{LineControl, Runner, Termination};

fn sh(script: &str) -> Command {
    let mut command = Command::new("sh");
    command.arg("-c").arg(script);
    command
}

/// Whether any process of group `pgid` is still alive (zombies of other parents included).
fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence and permission.
    let result = unsafe { libc::kill(-pgid, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[test]
fn exit_codes_are_reported() {
    let finished = Runner::new(sh("exit 0"))
        .run(|_| LineControl::Continue)
        .unwrap();
    assert_eq!(finished.termination, Termination::Exited(0));
    assert!(finished.termination.success());
    let finished = Runner::new(sh("exit 7"))
        .run(|_| LineControl::Continue)
        .unwrap();
    assert_eq!(finished.termination, Termination::Exited(7));
}

#[test]
fn a_crash_is_reported_with_its_signal() {
    let finished = Runner::new(sh("kill -SEGV $$"))
        .run(|_| LineControl::Continue)
        .unwrap();
    assert_eq!(finished.termination, Termination::Signaled(libc::SIGSEGV));
    assert_eq!(finished.termination.to_string(), "crashed (SIGSEGV)");
}

#[test]
fn stdout_arrives_line_by_line_while_the_child_runs() {
    // The second line is printed only after the first has been seen by the parent: the child waits for a file
    // the callback creates, so a runner that buffered stdout until exit would time out here.
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("seen");
    let script = format!(
        "echo first; while [ ! -e '{0}' ]; do sleep 0.02; done; echo second; printf 'third'",
        flag.display()
    );
    let mut lines = Vec::new();
    let finished = Runner::new(sh(&script))
        .timeout(Duration::from_secs(20))
        .run(|line| {
            if line == "first" {
                std::fs::write(&flag, b"").unwrap();
            }
            lines.push(line.to_string());
            LineControl::Continue
        })
        .unwrap();
    assert_eq!(finished.termination, Termination::Exited(0));
    assert_eq!(lines, ["first", "second", "third"]);
    assert_eq!(finished.stdout_lines, 3);
}

#[test]
fn stderr_is_captured() {
    let (finished, stdout) = Runner::new(sh("echo out; echo 'it went wrong' >&2; exit 3"))
        .run_collect()
        .unwrap();
    assert_eq!(finished.termination, Termination::Exited(3));
    assert_eq!(stdout, "out\n");
    assert_eq!(finished.stderr, "it went wrong\n");
    assert!(!finished.stderr_truncated);
}

#[test]
fn a_timeout_kills_the_child_and_its_grandchildren() {
    let mut pgid = 0;
    let start = Instant::now();
    let finished = Runner::new(sh("echo $$; sleep 100 & sleep 100"))
        .timeout(Duration::from_millis(500))
        .run(|line| {
            pgid = line.trim().parse().unwrap();
            LineControl::Continue
        })
        .unwrap();
    assert_eq!(
        finished.termination,
        Termination::TimedOut(Duration::from_millis(500))
    );
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "took {:?}",
        start.elapsed()
    );
    assert!(pgid > 0);
    // The shell is its group's leader (its pid is the pgid); the background sleep was in the group too.
    // SIGKILL is delivered at once, but a process takes a moment to die: allow it a few seconds.
    let gone_by = Instant::now() + Duration::from_secs(5);
    while group_alive(pgid) && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !group_alive(pgid),
        "a process of group {pgid} survived the timeout"
    );
}

#[test]
fn what_a_child_leaves_running_in_its_group_is_killed_when_it_exits() {
    let mut pgid = 0;
    let start = Instant::now();
    let finished = Runner::new(sh("echo $$; sleep 100 &"))
        .timeout(Duration::from_secs(60))
        .run(|line| {
            pgid = line.trim().parse().unwrap();
            LineControl::Continue
        })
        .unwrap();
    assert_eq!(finished.termination, Termination::Exited(0));
    // The background sleep held stdout open; the runner must not wait for it to finish.
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "took {:?}",
        start.elapsed()
    );
    let gone_by = Instant::now() + Duration::from_secs(5);
    while group_alive(pgid) && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !group_alive(pgid),
        "the background sleep of group {pgid} survived"
    );
}

#[test]
fn the_callback_can_stop_the_run() {
    let mut seen = 0;
    let finished = Runner::new(sh("while true; do echo tick; sleep 0.01; done"))
        .timeout(Duration::from_secs(60))
        .run(|_| {
            seen += 1;
            if seen == 3 {
                LineControl::Stop
            } else {
                LineControl::Continue
            }
        })
        .unwrap();
    assert_eq!(finished.termination, Termination::Stopped);
    assert_eq!(seen, 3);
}

#[test]
fn a_missing_program_is_a_spawn_error() {
    let error = Runner::new(Command::new("/nonexistent/rho-no-such-program"))
        .run(|_| LineControl::Continue)
        .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("cannot start `/nonexistent/rho-no-such-program`"),
        "{message}"
    );
}

#[test]
fn raw_lines_keep_bytes_that_are_not_utf8() {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let finished = Runner::new(sh("printf 'ok\\n\\377x\\n'"))
        .run_bytes(|line| {
            lines.push(line.to_vec());
            LineControl::Continue
        })
        .unwrap();
    assert!(finished.termination.success());
    assert_eq!(lines, [b"ok".to_vec(), vec![0xff, b'x']]);
}

#[test]
fn a_child_that_crashed_is_reported_as_crashed_even_if_the_caller_stops_on_its_last_line() {
    // The last line (cut off by the crash, no newline) arrives after the child died; a caller that stops on
    // it must still learn of the crash.
    let finished = Runner::new(sh("printf 'partial'; kill -SEGV $$"))
        .run(|_| LineControl::Stop)
        .unwrap();
    assert_eq!(finished.termination, Termination::Signaled(libc::SIGSEGV));
}

#[test]
fn an_enormous_timeout_is_no_timeout() {
    let finished = Runner::new(sh("exit 0"))
        .timeout(Duration::MAX)
        .run(|_| LineControl::Continue)
        .unwrap();
    assert_eq!(finished.termination, Termination::Exited(0));
}

// `run_reader`: the child's stdout as one buffered reader on the caller's thread.

#[test]
fn the_reader_sees_the_whole_output_as_it_was_and_the_exit() {
    let mut text = Vec::new();
    let finished = Runner::new(sh("printf 'one\\n\\377two\\nlast'; exit 3"))
        .timeout(Duration::from_secs(60))
        .run_reader(|reader| {
            std::io::Read::read_to_end(reader, &mut text).unwrap();
            LineControl::Continue
        })
        .unwrap();
    assert_eq!(finished.termination, Termination::Exited(3));
    assert_eq!(text, b"one\n\xfftwo\nlast");
}

#[test]
fn the_reader_reaches_the_end_at_the_timeout_and_the_group_is_killed() {
    let start = Instant::now();
    let mut pgid = 0;
    let finished = Runner::new(sh("echo $$; sleep 60 & sleep 60"))
        .timeout(Duration::from_millis(500))
        .run_reader(|reader| {
            let mut text = String::new();
            std::io::Read::read_to_string(reader, &mut text).unwrap();
            pgid = text.trim().parse().unwrap();
            LineControl::Continue
        })
        .unwrap();
    assert_eq!(
        finished.termination,
        Termination::TimedOut(Duration::from_millis(500))
    );
    assert!(start.elapsed() < Duration::from_secs(30));
    // SIGKILL is delivered at once, but a process takes a moment to die.
    let gone_by = Instant::now() + Duration::from_secs(5);
    while group_alive(pgid) && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!group_alive(pgid), "the group outlived the timeout");
}

#[test]
fn the_reader_does_not_wait_for_what_the_child_left_running() {
    let start = Instant::now();
    let finished = Runner::new(sh("echo started; sleep 100 &"))
        .timeout(Duration::from_secs(60))
        .run_reader(|reader| {
            let mut text = String::new();
            std::io::Read::read_to_string(reader, &mut text).unwrap();
            assert_eq!(text, "started\n");
            LineControl::Continue
        })
        .unwrap();
    assert_eq!(finished.termination, Termination::Exited(0));
    // The background sleep held stdout open until the group was killed at the shell's exit.
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_child_that_closes_its_stdout_and_keeps_running_times_out() {
    let finished = Runner::new(sh("echo bye; exec >&-; sleep 60"))
        .timeout(Duration::from_millis(500))
        .run_reader(|reader| {
            let mut text = String::new();
            std::io::Read::read_to_string(reader, &mut text).unwrap();
            assert_eq!(text, "bye\n");
            LineControl::Continue
        })
        .unwrap();
    assert_eq!(
        finished.termination,
        Termination::TimedOut(Duration::from_millis(500))
    );
}

#[test]
fn the_reader_can_stop_the_run() {
    let finished = Runner::new(sh("while true; do echo tick; done"))
        .timeout(Duration::from_secs(60))
        .run_reader(|reader| {
            let mut line = String::new();
            std::io::BufRead::read_line(reader, &mut line).unwrap();
            assert_eq!(line, "tick\n");
            LineControl::Stop
        })
        .unwrap();
    assert_eq!(finished.termination, Termination::Stopped);
}

#[test]
fn a_reader_that_stops_early_still_learns_of_a_crash() {
    let finished = Runner::new(sh("printf 'partial'; kill -SEGV $$"))
        .timeout(Duration::from_secs(60))
        .run_reader(|_| LineControl::Continue)
        .unwrap();
    assert_eq!(finished.termination, Termination::Signaled(libc::SIGSEGV));
}

/// What a child wrote before it exited is all read, however long the caller takes to consume it: a board's
/// stream of 30,000 lines parsed on a loaded machine takes longer than the drain grace, and a gate's run on
/// `riscv32-virt` was cut at "expected @heap, found end of input" when the grace counted from the exit.
#[test]
fn a_reader_slower_than_the_drain_grace_still_reads_everything_the_child_wrote() {
    // 50,000 lines (289 kB) fit the runner's enlarged pipe, so the child exits at once; the reader starts only
    // after the grace (2 s) has passed since.
    let mut text = String::new();
    let finished = Runner::new(sh("seq 1 50000"))
        .timeout(Duration::from_secs(120))
        .run_reader(|reader| {
            std::thread::sleep(Duration::from_secs(3));
            std::io::Read::read_to_string(reader, &mut text).unwrap();
            LineControl::Continue
        })
        .unwrap();
    assert_eq!(finished.termination, Termination::Exited(0));
    assert_eq!(text.lines().count(), 50000);
    assert_eq!(text.lines().last(), Some("50000"));
}

/// The same for the line-by-line runner the gate reads its sides with: a callback that pauses for longer than
/// the grace once the child has exited still sees every line.
#[test]
fn a_line_callback_slower_than_the_drain_grace_still_sees_every_line() {
    let dir = tempfile::tempdir().unwrap();
    let done = dir.path().join("done");
    // 1,000,000 lines (6.9 MB): more than the pipe and the runner's queue hold, so output is still arriving
    // after the exit is noticed.
    let script = format!("seq 1 1000000; : > '{}'", done.display());
    let mut count = 0u64;
    let mut last = String::new();
    let mut paused = false;
    let finished = Runner::new(sh(&script))
        .timeout(Duration::from_secs(300))
        .run(|line| {
            count += 1;
            if !paused && count % 1000 == 0 && done.exists() {
                paused = true;
                std::thread::sleep(Duration::from_secs(3));
            }
            last = line.to_string();
            LineControl::Continue
        })
        .unwrap();
    assert_eq!(finished.termination, Termination::Exited(0));
    assert_eq!(count, 1_000_000);
    assert_eq!(last, "1000000");
}

/// A child that writes without end is still stopped at its timeout, however fast the caller reads.
#[test]
fn a_child_that_never_stops_writing_times_out() {
    for reader in [false, true] {
        let runner = Runner::new(sh("yes")).timeout(Duration::from_millis(500));
        let finished = if reader {
            runner
                .run_reader(|reader| {
                    let mut sink = Vec::new();
                    let _ = std::io::Read::read_to_end(reader, &mut sink);
                    LineControl::Continue
                })
                .unwrap()
        } else {
            runner.run(|_| LineControl::Continue).unwrap()
        };
        assert_eq!(
            finished.termination,
            Termination::TimedOut(Duration::from_millis(500))
        );
    }
}
