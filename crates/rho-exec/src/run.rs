//! The runner: spawn in a process group of its own, stream stdout by line, keep the tail of stderr, enforce a
//! timeout by killing the group, and always reap.

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::os::fd::AsRawFd as _;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::interrupt::{self, OnInterrupt};
use crate::signal::signal_name;

/// How many bytes of the child's stderr are kept by default (the last ones: an error message is at the end).
pub const DEFAULT_STDERR_LIMIT: usize = 64 * 1024;

/// The longest stdout line handed to the caller by default; the rest of a longer line is dropped, so a child
/// that prints without newlines cannot grow `rho` without bound.
pub const DEFAULT_MAX_LINE: usize = 64 * 1024;

/// How long the child's output may stay idle after it has exited and its group has been killed before the
/// runner stops reading. Only a process that left the group (and so escaped the kill) can hold the pipes open
/// longer than that. The grace counts only time spent *waiting* for output: what the child wrote before it
/// exited is read whatever time the caller takes to consume it (a board's stream of 30,000 lines parsed on a
/// loaded machine takes longer than the grace, and was cut at the grace when it counted from the exit).
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// The most output read after the child's exit was noticed. What the child wrote before exiting and the runner
/// has not read yet is at most a pipe's capacity (1 MiB, [`READER_BUFFER`]) plus the reader's buffers (a few
/// MiB); past this bound only a writer that escaped the group and the sweep could still be writing, and it must
/// not keep the run going for ever.
const DRAIN_LIMIT_BYTES: u64 = 64 << 20;

/// What the caller's line callback wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineControl {
    /// Keep going.
    Continue,
    /// Stop the run: the group is killed and the result is [`Termination::Stopped`].
    Stop,
}

/// How a child's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// It exited by itself with this status.
    Exited(i32),
    /// It was killed by this signal (a crash: SIGSEGV, SIGABRT, ...; or a kill from outside).
    Signaled(i32),
    /// It was still running after this long, so its group was killed.
    TimedOut(Duration),
    /// The caller's line callback asked to stop while the child was running, and the kill ended it. (A child
    /// that had already exited, or died by itself before the kill landed, is reported as it ended.)
    Stopped,
}

impl Termination {
    /// Exited with status 0.
    pub fn success(&self) -> bool {
        *self == Termination::Exited(0)
    }
}

impl fmt::Display for Termination {
    /// A phrase that follows the program's name: "exited with status 3", "crashed (SIGSEGV)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Termination::Exited(code) => write!(f, "exited with status {code}"),
            Termination::Signaled(signal) => match signal_name(signal) {
                Some(name) if is_crash_signal(signal) => write!(f, "crashed ({name})"),
                Some(name) => write!(f, "was killed by {name}"),
                None => write!(f, "was killed by signal {signal}"),
            },
            Termination::TimedOut(after) => write!(f, "timed out after {}", format_duration(after)),
            Termination::Stopped => write!(f, "was stopped"),
        }
    }
}

impl Termination {
    /// How a command run by `sh -c` ended, for a message: a shell that did not `exec` its last command reports
    /// a child a crash signal ended as exit status 128 + N, so `exited with status 139` is said as the crash it
    /// was, `crashed (SIGSEGV; the shell's exit status 139)`, the way [`Termination`]'s own text says a crash.
    /// Anything else reads as [`Termination`]'s text.
    pub fn through_shell(&self) -> String {
        if let Termination::Exited(code) = *self
            && let Some(signal) = code.checked_sub(128).filter(|&s| is_crash_signal(s))
            && let Some(name) = signal_name(signal)
        {
            return format!("crashed ({name}; the shell's exit status {code})");
        }
        self.to_string()
    }
}

/// Signals a program raises on itself when it goes wrong, as opposed to ones sent to it from outside.
fn is_crash_signal(signal: i32) -> bool {
    matches!(
        signal,
        libc::SIGSEGV
            | libc::SIGBUS
            | libc::SIGILL
            | libc::SIGFPE
            | libc::SIGABRT
            | libc::SIGTRAP
            | libc::SIGSYS
    )
}

fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if duration.subsec_nanos() == 0 {
        format!("{} s", duration.as_secs())
    } else if seconds >= 1.0 {
        format!("{seconds:.1} s")
    } else {
        format!("{} ms", duration.as_millis())
    }
}

/// The result of a run that started.
#[derive(Debug, Clone)]
pub struct Finished {
    pub termination: Termination,
    /// The last bytes of stderr (up to the runner's limit), decoded lossily, control characters but line feeds
    /// and tabs escaped (see [`crate::escape_text`]).
    pub stderr: String,
    /// Whether earlier stderr bytes were dropped to respect the limit.
    pub stderr_truncated: bool,
    /// How many stdout lines were handed to the callback.
    pub stdout_lines: u64,
    /// Wall time from spawn to reaping.
    pub elapsed: Duration,
}

/// A child process could not be run at all. The message carries the operating system's reason, so the I/O
/// error is not also chained as a source (an `anyhow` chain would print it twice).
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("cannot start `{program}`: {error}")]
    Spawn { program: String, error: io::Error },
    #[error("cannot start a thread to watch `{program}`: {error}")]
    Thread { program: String, error: io::Error },
    #[error("`{program}` was not started: rho was interrupted")]
    Interrupted { program: String },
}

/// Runs one command. Build it with [`Runner::new`], set the options, then [`Runner::run`] (stdout by line) or
/// [`Runner::run_collect`] (stdout as one string).
///
/// The runner takes over the command's stdin (null), stdout and stderr (pipes) and process group (its own);
/// everything else (arguments, environment, working directory) is the caller's.
#[derive(Debug)]
pub struct Runner {
    command: Command,
    timeout: Option<Duration>,
    /// Time the child spent waiting on something outside it, in ns, added to the timeout as it accrues.
    paused: Option<Arc<AtomicU64>>,
    stderr_limit: usize,
    max_line: usize,
    on_interrupt: OnInterrupt,
}

enum Event {
    Lines(Vec<Vec<u8>>),
    StdoutClosed,
    Exited,
}

impl Runner {
    pub fn new(command: Command) -> Self {
        Runner {
            command,
            timeout: None,
            paused: None,
            stderr_limit: DEFAULT_STDERR_LIMIT,
            max_line: DEFAULT_MAX_LINE,
            on_interrupt: OnInterrupt::Kill,
        }
    }

    /// What a Ctrl-C does to this run: by default its group is killed at once; see [`OnInterrupt`].
    pub fn on_interrupt(mut self, what: OnInterrupt) -> Self {
        self.on_interrupt = what;
        self
    }

    /// Kill the child's group when it is still running after `timeout` (measured from spawn).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Add `paused` (nanoseconds, read as it grows) to the timeout: time the child spent waiting on something
    /// outside it, which is not its own. A gate's lock-step run waits while the other side takes its turn
    /// (rho-gate's `lockstep`); its timeout counts its own time only.
    pub fn paused_time(mut self, paused: Arc<AtomicU64>) -> Self {
        self.paused = Some(paused);
        self
    }

    /// The deadline of a child started at `start`.
    fn deadline(&self, start: Instant) -> Deadline {
        Deadline {
            start,
            timeout: self.timeout,
            paused: self.paused.clone(),
        }
    }

    /// Keep at most this many of the last stderr bytes.
    pub fn stderr_limit(mut self, bytes: usize) -> Self {
        self.stderr_limit = bytes;
        self
    }

    /// Hand at most this many bytes of one stdout line to the callback.
    pub fn max_line(mut self, bytes: usize) -> Self {
        self.max_line = bytes.max(1);
        self
    }

    /// Run to the end, collecting stdout (lines joined with `\n`, each line ending in one).
    pub fn run_collect(self) -> Result<(Finished, String), ExecError> {
        let mut stdout = String::new();
        let finished = self.run(|line| {
            stdout.push_str(line);
            stdout.push('\n');
            LineControl::Continue
        })?;
        Ok((finished, stdout))
    }

    /// Run, calling `on_line` with each stdout line (without its `\n`; a trailing `\r` is kept, decoding is
    /// lossy) as it arrives. Returns when the child has exited or been killed, its whole group killed and the
    /// child reaped.
    pub fn run(self, mut on_line: impl FnMut(&str) -> LineControl) -> Result<Finished, ExecError> {
        self.run_bytes(|line| on_line(&String::from_utf8_lossy(line)))
    }

    /// Like [`Runner::run`], with each line's raw bytes (for a parser that wants to see non-UTF-8 bytes as
    /// they were).
    pub fn run_bytes(
        mut self,
        mut on_line: impl FnMut(&[u8]) -> LineControl,
    ) -> Result<Finished, ExecError> {
        let (mut child, pgid, program, start) = self.spawn()?;
        // From here on every return path goes through `finish`, which kills the group and reaps the child.

        let (events, event_rx) = mpsc::sync_channel::<Event>(64);
        let (stderr_tx, stderr_rx) = mpsc::channel::<(Vec<u8>, bool)>();
        let started = self.start_watchers(&mut child, pgid, events, stderr_tx);
        if let Err(error) = started {
            interrupt::kill_group(pgid);
            finish(&mut child, pgid);
            return Err(ExecError::Thread { program, error });
        }

        let deadline = self.deadline(start);
        let mut stdout_lines = 0u64;
        let mut stopped = false;
        let mut exited_before_stop = false;
        let mut timed_out = false;
        let mut exited = false;
        let mut stdout_open = true;
        let mut drain_deadline: Option<Instant> = None;
        let mut drained = 0u64;

        while !exited || stdout_open {
            // Before exit, wait until the timeout; after it, only for the drain grace, and an event already
            // queued is taken whatever the clock says: the grace limits waiting, not consuming what has arrived.
            let wait_until = if exited {
                drain_deadline
            } else {
                deadline.at()
            };
            let event = match wait_until {
                Some(until) => {
                    let now = Instant::now();
                    if now < until {
                        event_rx.recv_timeout(until - now)
                    } else if exited {
                        event_rx.try_recv().map_err(|_| RecvTimeoutError::Timeout)
                    } else {
                        Err(RecvTimeoutError::Timeout)
                    }
                }
                None => event_rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match event {
                Ok(Event::Lines(lines)) => {
                    if exited {
                        // Output is still arriving: the idle grace starts again, within the drain's byte limit.
                        drained += lines.iter().map(|line| line.len() as u64 + 1).sum::<u64>();
                        if drained > DRAIN_LIMIT_BYTES {
                            break;
                        }
                        drain_deadline = Some(Instant::now() + DRAIN_GRACE);
                    }
                    if stopped {
                        continue;
                    }
                    for line in &lines {
                        stdout_lines += 1;
                        if on_line(line) == LineControl::Stop {
                            stopped = true;
                            exited_before_stop = exited;
                            interrupt::kill_group(pgid);
                            break;
                        }
                    }
                }
                Ok(Event::StdoutClosed) => stdout_open = false,
                Ok(Event::Exited) => {
                    exited = true;
                    // The leader is a zombie (not reaped), so its pgid cannot have been reused: kill whatever
                    // it left running in the group, which also closes the pipes they held.
                    interrupt::kill_group(pgid);
                    // And what escaped the group, which may hold the pipes open as well.
                    interrupt::sweep_escaped();
                    drain_deadline = Some(Instant::now() + DRAIN_GRACE);
                }
                Err(RecvTimeoutError::Timeout) => {
                    if !exited {
                        // The deadline may have moved on meanwhile (time paused outside the child).
                        if deadline.at().is_some_and(|at| Instant::now() < at) {
                            continue;
                        }
                        timed_out = true;
                    }
                    break;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        drop(event_rx);

        Ok(self.conclude(
            &mut child,
            pgid,
            start,
            &stderr_rx,
            WaitOutcome {
                timed_out,
                stopped,
                exited_before_stop,
                stdout_lines,
            },
        ))
    }

    /// Spawn the command with null stdin, piped stdout and stderr, in a process group of its own, registered
    /// with the interrupt handler. Every later return path must go through [`finish`].
    fn spawn(&mut self) -> Result<(Child, libc::pid_t, String, Instant), ExecError> {
        let program = self.command.get_program().to_string_lossy().into_owned();
        self.command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(tmp) = crate::scratch::children_tmpdir()
            && !self.command.get_envs().any(|(key, _)| key == "TMPDIR")
        {
            self.command.env("TMPDIR", tmp);
        }

        let start = Instant::now();
        let (child, pgid) = match interrupt::spawn_registered(&mut self.command, self.on_interrupt)
        {
            Ok(spawned) => spawned,
            Err(interrupt::SpawnRefused::Interrupted) => {
                // An interrupt is ending the process: end it here rather than report a failure.
                interrupt::exit_if_interrupted();
                return Err(ExecError::Interrupted { program });
            }
            Err(interrupt::SpawnRefused::Io(error)) => {
                return Err(ExecError::Spawn { program, error });
            }
        };
        Ok((child, pgid, program, start))
    }

    /// Run, handing the child's stdout to `read` as one buffered reader (of [`READER_BUFFER`] bytes) on the
    /// calling thread: for a parser that wants whole buffers rather than lines (the wire parser's fast path
    /// reads sample lines straight out of the buffer). The process group, the timeout and the kill are the
    /// runner's as in [`Runner::run`]: when the timeout passes, or the child has exited and its output has been
    /// idle for [`DRAIN_GRACE`] since, the reader reports end of input (and the result says `TimedOut` for the
    /// former); what the child wrote before it exited is read however long the caller takes.
    ///
    /// `read` returns [`LineControl::Continue`] to let the child run to its end (what it has not read is
    /// drained and dropped) or [`LineControl::Stop`] to kill the group now. `Finished::stdout_lines` is 0:
    /// the runner does not split the output.
    pub fn run_reader(
        mut self,
        read: impl FnOnce(&mut dyn BufRead) -> LineControl,
    ) -> Result<Finished, ExecError> {
        let (mut child, pgid, program, start) = self.spawn()?;
        let deadline = self.deadline(start);
        let exited_at = Arc::new(Mutex::new(None::<Instant>));
        let (exit_tx, exit_rx) = mpsc::channel::<()>();
        let (stderr_tx, stderr_rx) = mpsc::channel::<(Vec<u8>, bool)>();
        let watchers = self.start_exit_and_stderr_watchers(
            &mut child,
            pgid,
            Arc::clone(&exited_at),
            exit_tx,
            stderr_tx,
        );
        let Some(stdout) = child.stdout.take() else {
            finish(&mut child, pgid);
            return Err(ExecError::Thread {
                program,
                error: io::Error::other("the child's stdout was not piped"),
            });
        };
        if let Err(error) = watchers {
            finish(&mut child, pgid);
            return Err(ExecError::Thread { program, error });
        }
        enlarge_pipe(&stdout);

        let mut reader = io::BufReader::with_capacity(
            READER_BUFFER,
            DeadlinePipe::new(stdout, deadline.clone(), Arc::clone(&exited_at)),
        );
        let control = read(&mut reader);
        let mut timed_out = reader.get_ref().timed_out;
        let mut stopped = false;
        let mut exited_before_stop = false;
        if control == LineControl::Stop && !reader.get_ref().at_end && !timed_out {
            stopped = true;
            exited_before_stop = lock(&exited_at).is_some();
            interrupt::kill_group(pgid);
        } else if !timed_out {
            // Read what is left, so that the child never blocks on a full pipe, then wait for its exit.
            let mut pipe = reader.into_inner();
            let mut sink = vec![0u8; 64 * 1024];
            while matches!(pipe.read(&mut sink), Ok(n) if n > 0) {}
            timed_out = pipe.timed_out;
            if !timed_out {
                let wait = match deadline.at() {
                    Some(until) => exit_rx
                        .recv_timeout(until.saturating_duration_since(Instant::now()))
                        .map_err(|_| ()),
                    None => exit_rx.recv().map_err(|_| ()),
                };
                timed_out = wait.is_err() && lock(&exited_at).is_none();
            }
        }
        Ok(self.conclude(
            &mut child,
            pgid,
            start,
            &stderr_rx,
            WaitOutcome {
                timed_out,
                stopped,
                exited_before_stop,
                stdout_lines: 0,
            },
        ))
    }

    /// The one ending of every run, whichever way its output was read: kill the group when the wait ended in
    /// a timeout or a stop, reap the child (see [`finish`]), collect the tail of stderr, and say how the run
    /// ended.
    fn conclude(
        &self,
        child: &mut Child,
        pgid: libc::pid_t,
        start: Instant,
        stderr_rx: &mpsc::Receiver<(Vec<u8>, bool)>,
        outcome: WaitOutcome,
    ) -> Finished {
        let WaitOutcome {
            timed_out,
            stopped,
            exited_before_stop,
            stdout_lines,
        } = outcome;
        if timed_out || stopped {
            interrupt::kill_group(pgid);
        }
        let status = finish(child, pgid);
        // A Ctrl-C killed this child: end the process here (cleanups, exit 130) rather than report it.
        interrupt::exit_if_interrupted();
        let (stderr_bytes, stderr_truncated) =
            stderr_rx.recv_timeout(DRAIN_GRACE).unwrap_or_default();

        let ended = match status {
            Some(status) => match (status.code(), status.signal()) {
                (Some(code), _) => Termination::Exited(code),
                (None, Some(signal)) => Termination::Signaled(signal),
                (None, None) => Termination::Signaled(0),
            },
            None => Termination::Signaled(libc::SIGKILL),
        };
        // A child that ended by itself (it had exited before the stop, or it crashed before the kill landed)
        // is reported as it ended: its crash is the news, not the stop.
        let termination = if timed_out {
            Termination::TimedOut(self.timeout.unwrap_or_default())
        } else if stopped && !exited_before_stop && ended == Termination::Signaled(libc::SIGKILL) {
            Termination::Stopped
        } else {
            ended
        };
        Finished {
            termination,
            stderr: rho_text::escape_text(&String::from_utf8_lossy(&stderr_bytes)).into_owned(),
            stderr_truncated,
            stdout_lines,
            elapsed: start.elapsed(),
        }
    }

    /// For [`Runner::run_reader`]: a thread that notes when the child has exited (and kills what it left in
    /// its group, which closes the pipes they held), and one that keeps the tail of stderr.
    fn start_exit_and_stderr_watchers(
        &self,
        child: &mut Child,
        pgid: libc::pid_t,
        exited_at: Arc<Mutex<Option<Instant>>>,
        exit_tx: mpsc::Sender<()>,
        stderr_tx: mpsc::Sender<(Vec<u8>, bool)>,
    ) -> io::Result<()> {
        self.start_stderr_watcher(child, stderr_tx)?;
        start_exit_watcher(pgid, move || {
            *lock(&exited_at) = Some(Instant::now());
            // The leader is a zombie (not reaped), so its pgid cannot have been reused.
            interrupt::kill_group(pgid);
            interrupt::sweep_escaped();
            let _ = exit_tx.send(());
        })
    }

    fn start_watchers(
        &self,
        child: &mut Child,
        pgid: libc::pid_t,
        events: SyncSender<Event>,
        stderr_tx: mpsc::Sender<(Vec<u8>, bool)>,
    ) -> io::Result<()> {
        let stdout = child.stdout.take();
        let max_line = self.max_line;

        let line_events = events.clone();
        thread::Builder::new()
            .name("rho-exec-stdout".into())
            .spawn(move || {
                if let Some(stdout) = stdout {
                    read_lines(stdout, max_line, &line_events);
                }
                let _ = line_events.send(Event::StdoutClosed);
            })?;
        self.start_stderr_watcher(child, stderr_tx)?;
        start_exit_watcher(pgid, move || {
            let _ = events.send(Event::Exited);
        })
    }

    /// A thread that reads the child's stderr to its end and sends the last [`Runner::stderr_limit`] bytes.
    fn start_stderr_watcher(
        &self,
        child: &mut Child,
        stderr_tx: mpsc::Sender<(Vec<u8>, bool)>,
    ) -> io::Result<()> {
        let stderr = child.stderr.take();
        let stderr_limit = self.stderr_limit;
        thread::Builder::new()
            .name("rho-exec-stderr".into())
            .spawn(move || {
                let tail = match stderr {
                    Some(stderr) => read_tail(stderr, stderr_limit),
                    None => (Vec::new(), false),
                };
                let _ = stderr_tx.send(tail);
            })?;
        Ok(())
    }
}

/// How the wait for a child ended, as [`Runner::conclude`] needs it.
struct WaitOutcome {
    /// The timeout passed while the child was running.
    timed_out: bool,
    /// The caller asked to stop.
    stopped: bool,
    /// The child had already exited when the caller asked to stop.
    exited_before_stop: bool,
    /// How many stdout lines were handed to the caller.
    stdout_lines: u64,
}

/// A thread that waits for the child to exit (leaving it a zombie, see [`wait_exited_without_reaping`]) and
/// then calls `on_exit`.
fn start_exit_watcher(
    pgid: libc::pid_t,
    on_exit: impl FnOnce() + Send + 'static,
) -> io::Result<()> {
    thread::Builder::new()
        .name("rho-exec-wait".into())
        .spawn(move || {
            wait_exited_without_reaping(pgid);
            on_exit();
        })?;
    Ok(())
}

/// The buffer [`Runner::run_reader`] reads the child's stdout through: large, so that a parser sees many
/// sample lines per read and few lines straddle two buffers.
pub const READER_BUFFER: usize = 1 << 20;

/// When a child's run times out: its timeout after its start, plus the time it was paused so far.
#[derive(Debug, Clone)]
struct Deadline {
    start: Instant,
    timeout: Option<Duration>,
    paused: Option<Arc<AtomicU64>>,
}

impl Deadline {
    /// The instant, now; `None` without a timeout (or one too large to add to the clock: no deadline at all).
    fn at(&self) -> Option<Instant> {
        let paused = self
            .paused
            .as_ref()
            .map_or(0, |p| p.load(std::sync::atomic::Ordering::Relaxed));
        self.timeout
            .and_then(|t| t.checked_add(Duration::from_nanos(paused)))
            .and_then(|t| self.start.checked_add(t))
    }
}

/// How long a read waits for the pipe before it looks at the deadlines again (the child may have exited
/// meanwhile, which shortens the wait to the drain grace).
const POLL_SLICE_MS: libc::c_int = 100;

/// The child's stdout for [`Runner::run_reader`]: a read waits for data only until the timeout, or, once the
/// child has exited, until the output has been idle for [`DRAIN_GRACE`] (see there: what is already in the
/// pipe is always read), and then reports end of input.
struct DeadlinePipe {
    pipe: ChildStdout,
    deadline: Deadline,
    exited_at: Arc<Mutex<Option<Instant>>>,
    /// When the last bytes were read.
    last_read: Option<Instant>,
    /// The bytes read after the child's exit was noticed (bounded by [`DRAIN_LIMIT_BYTES`]).
    drained: u64,
    /// The timeout passed while the child was running.
    timed_out: bool,
    /// The pipe reached its end (or a deadline ended the reading).
    at_end: bool,
}

impl DeadlinePipe {
    fn new(pipe: ChildStdout, deadline: Deadline, exited_at: Arc<Mutex<Option<Instant>>>) -> Self {
        DeadlinePipe {
            pipe,
            deadline,
            exited_at,
            last_read: None,
            drained: 0,
            timed_out: false,
            at_end: false,
        }
    }

    /// Until when a read may wait for output: the timeout while the child runs; after its exit, the grace from
    /// the exit or the last bytes read, whichever is later.
    fn wait_until(&self, exited: Option<Instant>) -> Option<Instant> {
        match exited {
            Some(at) => Some(self.last_read.map_or(at, |read| read.max(at)) + DRAIN_GRACE),
            None => self.deadline.at(),
        }
    }
}

impl Read for DeadlinePipe {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at_end || buf.is_empty() {
            return Ok(0);
        }
        loop {
            let exited = *lock(&self.exited_at);
            let until = self.wait_until(exited);
            let now = Instant::now();
            let past = until.is_some_and(|until| now >= until);
            if (past && exited.is_none()) || self.drained > DRAIN_LIMIT_BYTES {
                // The timeout passed while the child ran (strict: a child that never stops writing still
                // times out), or an escaped writer keeps the pipe busy after the exit.
                self.timed_out = exited.is_none();
                self.at_end = true;
                return Ok(0);
            }
            // After the exit, once the grace has passed, only what is in the pipe already is taken.
            let slice = match until {
                Some(_) if past => 0,
                Some(until) => POLL_SLICE_MS.min(
                    libc::c_int::try_from(until.duration_since(now).as_millis())
                        .unwrap_or(POLL_SLICE_MS),
                ),
                None => POLL_SLICE_MS,
            };
            let mut poll = libc::pollfd {
                fd: self.pipe.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: `poll` points to one valid pollfd for the duration of the call.
            let ready = unsafe { libc::poll(&mut poll, 1, slice) };
            if ready < 0 {
                let error = io::Error::last_os_error();
                if error.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(error);
            }
            if ready == 0 {
                if past {
                    self.at_end = true;
                    return Ok(0);
                }
                continue;
            }
            match self.pipe.read(buf) {
                Ok(0) => {
                    self.at_end = true;
                    return Ok(0);
                }
                Ok(count) => {
                    self.last_read = Some(Instant::now());
                    if exited.is_some() {
                        self.drained += count as u64;
                    }
                    return Ok(count);
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            }
        }
    }
}

/// Ask for a pipe of [`READER_BUFFER`] bytes (Linux), so that a fast child is not stopped every 64 kB; the
/// system may refuse (a per-user limit), which only costs speed.
fn enlarge_pipe(pipe: &ChildStdout) {
    #[cfg(target_os = "linux")]
    {
        let size = libc::c_int::try_from(READER_BUFFER).unwrap_or(libc::c_int::MAX);
        // SAFETY: F_SETPIPE_SZ on a pipe descriptor we own; a failure is only a return value.
        unsafe {
            libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, size);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = pipe;
}

/// The mutex's value even if a thread panicked while holding it (a timestamp cannot be left half-written).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Kill the group, unregister it, reap the child, and end what escaped the group (see
/// [`interrupt::sweep_escaped`]). Unregistering before reaping means the interrupt handler never signals a
/// process-group id that could have been reused; the leader stays marked as being reaped meanwhile, so another
/// run's sweep leaves it to this wait.
fn finish(child: &mut Child, pgid: libc::pid_t) -> Option<std::process::ExitStatus> {
    interrupt::kill_group(pgid);
    interrupt::begin_reaping(pgid);
    let status = child.wait().ok();
    interrupt::reaped(pgid);
    interrupt::sweep_escaped();
    status
}

/// Block until process `pid` has exited, leaving it a zombie so its pid (and process-group id) stay reserved
/// until the runner reaps it.
fn wait_exited_without_reaping(pid: libc::pid_t) {
    let Ok(id) = libc::id_t::try_from(pid) else {
        return;
    };
    loop {
        // SAFETY: an all-zero siginfo_t is a valid value to be filled in by waitid.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid writes only into `info`, which lives for the call.
        let result =
            unsafe { libc::waitid(libc::P_PID, id, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if result == 0 {
            return;
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            // ECHILD: already reaped by the runner after a timeout or stop.
            return;
        }
    }
}

/// Read `source` to its end, sending complete lines in batches. A line longer than `max_line` bytes keeps its
/// first `max_line` bytes. A last line without `\n` is still sent.
fn read_lines(mut source: impl Read, max_line: usize, events: &SyncSender<Event>) {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut current: Vec<u8> = Vec::new();
    loop {
        let count = match source.read(&mut buffer) {
            Ok(0) => break,
            Ok(count) => count,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let mut batch = Vec::new();
        let mut rest = &buffer[..count];
        while let Some(newline) = rest.iter().position(|&b| b == b'\n') {
            append_capped(&mut current, &rest[..newline], max_line);
            batch.push(std::mem::take(&mut current));
            rest = &rest[newline + 1..];
        }
        append_capped(&mut current, rest, max_line);
        if !batch.is_empty() && events.send(Event::Lines(batch)).is_err() {
            // The runner stopped listening; keep reading so the child never blocks on a full pipe.
            drain(source);
            return;
        }
    }
    if !current.is_empty() {
        let _ = events.send(Event::Lines(vec![current]));
    }
}

fn append_capped(line: &mut Vec<u8>, bytes: &[u8], max_line: usize) {
    let room = max_line.saturating_sub(line.len());
    line.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

fn drain(mut source: impl Read) {
    let mut sink = [0u8; 8192];
    loop {
        match source.read(&mut sink) {
            Ok(0) => return,
            Ok(_) => {}
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// Read `source` to its end keeping only the last `limit` bytes; the flag says whether any were dropped.
fn read_tail(mut source: impl Read, limit: usize) -> (Vec<u8>, bool) {
    let mut tail: VecDeque<u8> = VecDeque::new();
    let mut truncated = false;
    let mut buffer = [0u8; 8192];
    loop {
        let count = match source.read(&mut buffer) {
            Ok(0) => break,
            Ok(count) => count,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        tail.extend(&buffer[..count]);
        if tail.len() > limit {
            let excess = tail.len() - limit;
            tail.drain(..excess);
            truncated = true;
        }
    }
    (tail.into_iter().collect(), truncated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_capped_and_the_last_unterminated_one_kept() {
        let (tx, rx) = mpsc::sync_channel(16);
        read_lines(&b"one\ntwo\r\nthree-long\nlast"[..], 5, &tx);
        drop(tx);
        let lines: Vec<Vec<u8>> = rx
            .iter()
            .flat_map(|event| match event {
                Event::Lines(lines) => lines,
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(lines, [&b"one"[..], b"two\r", b"three", b"last"]);
    }

    #[test]
    fn stderr_keeps_the_last_bytes() {
        let (tail, truncated) = read_tail(&b"0123456789"[..], 4);
        assert_eq!(tail, b"6789");
        assert!(truncated);
        let (tail, truncated) = read_tail(&b"abc"[..], 4);
        assert_eq!(tail, b"abc");
        assert!(!truncated);
    }

    #[test]
    fn terminations_read_as_phrases() {
        assert_eq!(Termination::Exited(3).to_string(), "exited with status 3");
        assert_eq!(
            Termination::Exited(139).through_shell(),
            "crashed (SIGSEGV; the shell's exit status 139)"
        );
        assert_eq!(
            Termination::Exited(134).through_shell(),
            "crashed (SIGABRT; the shell's exit status 134)"
        );
        // 143 is a SIGTERM from outside (no crash), 3 and 300 no signal at all: said as they are.
        assert_eq!(
            Termination::Exited(143).through_shell(),
            "exited with status 143"
        );
        assert_eq!(
            Termination::Exited(3).through_shell(),
            "exited with status 3"
        );
        assert_eq!(
            Termination::Signaled(libc::SIGSEGV).through_shell(),
            "crashed (SIGSEGV)"
        );
        assert_eq!(
            Termination::Signaled(libc::SIGSEGV).to_string(),
            "crashed (SIGSEGV)"
        );
        assert_eq!(
            Termination::Signaled(libc::SIGKILL).to_string(),
            "was killed by SIGKILL"
        );
        assert_eq!(
            Termination::TimedOut(Duration::from_secs(2)).to_string(),
            "timed out after 2 s"
        );
        assert_eq!(
            Termination::TimedOut(Duration::from_millis(300)).to_string(),
            "timed out after 300 ms"
        );
        assert!(Termination::Exited(0).success());
        assert!(!Termination::Signaled(9).success());
    }
}
