//! Lock-step runs (docs/gate.md, "Lock-step rounds"): base's run and head's started together and taking
//! turns, one measuring at a time. A slow phase of a shared machine (a neighbour's build, a throttle) lasts
//! milliseconds to seconds; run after one another, the two sides of a round meet different phases, and the
//! round's ratio carries the difference. Taking turns every [`TURN_MICROS`], they meet the same phases.
//!
//! The protocol is rho's harnesses' `RHO_BENCH_LOCKSTEP=W,R,US` (rho/bench.h, "Lock-step"; rho-bench's
//! `hosted::lockstep`): the harness writes a byte on W when it is ready and reads one on R before it goes
//! on, first before it reads a clock and then between samples once it has measured for US microseconds
//! since its last go. [`Turns::arbitrate`] lets one side go at a time. A program that does not take part
//! (a last-line JSON program, an older harness) never says ready: the side started second is held back
//! until the first has said ready or ended, so such a run goes on by itself while the other waits, as in
//! the gate's sequential rounds, and never beside it.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

/// How long a side measures before the other's turn, in microseconds: short beside the machine's slow
/// phases, long beside a turn's cost (two context switches, some microseconds).
pub(crate) const TURN_MICROS: u64 = 2000;

/// How long a side may take from its start to its first `ready` while the other waits, before the round
/// gives up taking turns (its start may be held up by the waiting side: a lock its process holds). Long
/// beside a harness's start (milliseconds), short beside a gate's timeout.
const STARTING_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// How often the arbiter looks whether a side's run has ended, at the longest: [`Turns::end`] wakes it at
/// once; this bounds the wait for a side whose run ended while it waited for its turn.
const POLL_MS: i32 = 20;

/// A pipe with close-on-exec set on both ends: a child gets an end only when its launch keeps it open
/// (crate::shell::Launch::keep_open), so neither side's run holds the other's.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds: [RawFd; 2] = [-1, -1];
    // SAFETY: pipe2(2) writes two descriptors into the array it is given, which has room for two.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just made by pipe2(2) and are owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The `round`th CPU (modulo their number) of those this process may use; `None` when it may use only one
/// (nothing to choose) or where the affinity cannot be read or set (not Linux).
#[cfg(target_os = "linux")]
fn shared_cpu(round: usize) -> Option<usize> {
    // SAFETY: a zeroed cpu_set_t is the empty set; sched_getaffinity writes at most its size into it.
    let allowed: Vec<usize> = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| libc::CPU_ISSET(cpu, &set))
            .collect()
    };
    (allowed.len() > 1).then(|| allowed[round % allowed.len()])
}

#[cfg(not(target_os = "linux"))]
fn shared_cpu(_round: usize) -> Option<usize> {
    None
}

/// One side's two pipes: `ready` (the harness writes, the arbiter reads) and `go` (the other way).
struct SidePipes {
    ready_read: OwnedFd,
    ready_write: OwnedFd,
    go_read: OwnedFd,
    go_write: OwnedFd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Held back: the side going second, until the first has said ready or ended.
    NotStarted,
    /// Started and not yet ready: it runs by itself (no turn is given meanwhile).
    Starting,
    /// Said ready: waits for its turn.
    Waiting,
    /// Has the turn.
    Going,
    /// Its run is over (however it ended).
    Ended,
}

/// The turns of one lock-step round: the pipes of both sides (index 0 base, 1 head), which side's run has
/// ended, and the signal that lets the second side start.
pub(crate) struct Turns {
    pipes: [SidePipes; 2],
    ended: [AtomicBool; 2],
    second_may_start: (Mutex<bool>, Condvar),
    /// Per side, the nanoseconds it has waited for its turn so far: added to its run's timeout as they accrue
    /// (rho_exec's `Runner::paused_time`), so a run is timed out for its own time, never the other's.
    waited: [Arc<AtomicU64>; 2],
    /// The one CPU both runs are held to (Linux; `None` elsewhere, or when this process may use only one).
    cpu: Option<usize>,
}

impl Turns {
    /// The turns of the `round`th lock-step run pair of the gate: both runs are held to one CPU, the
    /// `round`th of those this process may use, in turn.
    pub(crate) fn new(round: usize) -> io::Result<Turns> {
        let side = || -> io::Result<SidePipes> {
            let (ready_read, ready_write) = pipe()?;
            let (go_read, go_write) = pipe()?;
            Ok(SidePipes {
                ready_read,
                ready_write,
                go_read,
                go_write,
            })
        };
        Ok(Turns {
            pipes: [side()?, side()?],
            ended: [AtomicBool::new(false), AtomicBool::new(false)],
            second_may_start: (Mutex::new(false), Condvar::new()),
            waited: [Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0))],
            cpu: shared_cpu(round),
        })
    }

    /// The variable side `side`'s run gets: `RHO_BENCH_LOCKSTEP=W,R,US`.
    pub(crate) fn env(&self, side: usize) -> (String, String) {
        let [write, read] = self.child_fds(side);
        (
            "RHO_BENCH_LOCKSTEP".to_owned(),
            format!("{write},{read},{TURN_MICROS}"),
        )
    }

    /// The descriptors side `side`'s run keeps open: its ready pipe's write end and its go pipe's read end.
    pub(crate) fn child_fds(&self, side: usize) -> [RawFd; 2] {
        let pipes = &self.pipes[side];
        [pipes.ready_write.as_raw_fd(), pipes.go_read.as_raw_fd()]
    }

    /// The CPU both runs are held to: taking turns on one CPU, the two sides meet the same neighbours (a busy
    /// loop on that CPU, the host's load on that virtual CPU), where, free to move, one side could sit beside
    /// a neighbour for a whole round while the other did not. The price: a body's threads share that CPU, so a
    /// body that stopped running in parallel reads the same (why lock-step is not the default).
    pub(crate) fn cpu(&self) -> Option<usize> {
        self.cpu
    }

    /// The time side `side` has waited for its turn so far, growing as it waits (its run's paused time).
    pub(crate) fn waited(&self, side: usize) -> Arc<AtomicU64> {
        Arc::clone(&self.waited[side])
    }

    /// Called by the thread of the side going second before it starts its run: returns once the first side
    /// has said ready or ended.
    pub(crate) fn wait_to_start(&self) {
        let (lock, signal) = &self.second_may_start;
        let mut may = lock.lock().unwrap_or_else(|p| p.into_inner());
        while !*may {
            may = signal.wait(may).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Called by side `side`'s thread when its run is over, however it ended (and when it never started).
    pub(crate) fn end(&self, side: usize) {
        self.ended[side].store(true, Ordering::SeqCst);
        // A byte on its own ready pipe wakes the arbiter now rather than at its next look: the other side's
        // run (a last-line JSON program's, which takes no turns) starts without waiting for it.
        let byte = [b'e'];
        // SAFETY: write(2) of one byte from a live buffer to a descriptor this owns.
        unsafe {
            libc::write(
                self.pipes[side].ready_write.as_raw_fd(),
                byte.as_ptr().cast(),
                1,
            );
        }
    }

    /// [`Turns::end`] of `side` when the returned guard is dropped: on every way out of its thread, a panic's
    /// too, so the arbiter never waits for a run that is over.
    pub(crate) fn end_on_drop(&self, side: usize) -> EndOnDrop<'_> {
        EndOnDrop { turns: self, side }
    }

    /// Lets the second side start when the returned guard is dropped, if nothing did before: a thread that
    /// waits to start is never left waiting when the round is abandoned (a panic on the way).
    pub(crate) fn release_on_drop(&self) -> ReleaseOnDrop<'_> {
        ReleaseOnDrop { turns: self }
    }

    fn let_second_start(&self) {
        let (lock, signal) = &self.second_may_start;
        *lock.lock().unwrap_or_else(|p| p.into_inner()) = true;
        signal.notify_all();
    }

    /// Give the turns until both runs have ended: `first` (0 base, 1 head) starts, the other is let start
    /// once `first` has said ready or ended; then a side that says ready gets the next turn when the other
    /// is not going (the other first when both wait). The time a side waits for its turn is its run's paused
    /// time ([`Turns::waited`]), so a run that hangs in its turn times out for its own time and the other
    /// goes on once it has ended. A side that does not say ready within [`STARTING_LIMIT`] of its start while
    /// the other waits (its start held up, say by a lock the waiting side's process holds) ends the taking of
    /// turns for the round: each side is let go whenever it says ready. Returns how many turns were given while
    /// the other side waited (0 when the runs took no turns: they ran one after the other).
    pub(crate) fn arbitrate(&self, first: usize) -> u64 {
        self.arbitrate_within(first, STARTING_LIMIT)
    }

    /// [`Turns::arbitrate`] with `starting_limit` for [`STARTING_LIMIT`].
    fn arbitrate_within(&self, first: usize, starting_limit: std::time::Duration) -> u64 {
        let second = 1 - first;
        let mut phase = [Phase::NotStarted; 2];
        phase[first] = Phase::Starting;
        let mut started = [Some(Instant::now()), None];
        started.swap(0, first);
        let mut waiting_since: [Option<Instant>; 2] = [None, None];
        let mut last_turn = second;
        let mut turns = 0u64;
        let mut free = false;
        loop {
            let now = Instant::now();
            for side in [0, 1] {
                // Only the time it waited, up to now, is paused; its turns are its own time.
                if let (Phase::Waiting, Some(since)) = (phase[side], waiting_since[side]) {
                    let waited = now.saturating_duration_since(since).as_nanos();
                    self.waited[side]
                        .fetch_add(u64::try_from(waited).unwrap_or(u64::MAX), Ordering::Relaxed);
                    waiting_since[side] = Some(now);
                }
                if self.ended[side].load(Ordering::SeqCst) {
                    phase[side] = Phase::Ended;
                    waiting_since[side] = None;
                }
            }
            if phase[second] == Phase::NotStarted
                && matches!(phase[first], Phase::Waiting | Phase::Ended)
            {
                phase[second] = Phase::Starting;
                started[second] = Some(now);
                self.let_second_start();
            }
            if phase == [Phase::Ended; 2] {
                return turns;
            }
            for side in [0, 1] {
                let held_up = phase[side] == Phase::Starting
                    && phase[1 - side] == Phase::Waiting
                    && started[side].is_some_and(|at| now.duration_since(at) > starting_limit);
                free |= held_up;
            }
            let running = phase
                .iter()
                .any(|p| matches!(p, Phase::Going | Phase::Starting));
            // The other side first when both wait: they alternate. Taking no turns, every side that waits goes.
            for side in [1 - last_turn, last_turn] {
                if phase[side] != Phase::Waiting || (running && !free) {
                    continue;
                }
                // A turn the other side waited for: not the last side's turns by itself.
                turns += u64::from(!free && phase[1 - side] == Phase::Waiting);
                // A go the pipe would not take (it cannot happen while this holds the read end) leaves the run
                // waiting for good: its paused time no longer grows, so it times out for it.
                self.go(side);
                phase[side] = Phase::Going;
                waiting_since[side] = None;
                last_turn = side;
                if !free {
                    break;
                }
            }
            self.wait_for_ready(&mut phase, &mut waiting_since);
        }
    }

    /// Give `side` its turn; false when the pipe would not take it.
    fn go(&self, side: usize) -> bool {
        let byte = [b'g'];
        loop {
            // SAFETY: write(2) of one byte from a live buffer to a descriptor this owns.
            let wrote = unsafe {
                libc::write(
                    self.pipes[side].go_write.as_raw_fd(),
                    byte.as_ptr().cast(),
                    1,
                )
            };
            if wrote == 1 {
                return true;
            }
            if wrote < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return false;
        }
    }

    /// Wait up to [`POLL_MS`] for a side that is running to say ready, and note each that did.
    fn wait_for_ready(&self, phase: &mut [Phase; 2], waiting_since: &mut [Option<Instant>; 2]) {
        let mut polled: Vec<(usize, libc::pollfd)> = (0..2)
            .filter(|&side| matches!(phase[side], Phase::Starting | Phase::Going))
            .map(|side| {
                (
                    side,
                    libc::pollfd {
                        fd: self.pipes[side].ready_read.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    },
                )
            })
            .collect();
        let mut fds: Vec<libc::pollfd> = polled.iter().map(|(_, fd)| *fd).collect();
        // SAFETY: poll(2) over `fds.len()` live pollfd structures; with none it only sleeps.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, POLL_MS) };
        if ready <= 0 {
            return;
        }
        for ((side, _), fd) in polled.iter_mut().zip(&fds) {
            if fd.revents & libc::POLLIN == 0 {
                continue;
            }
            let mut bytes = [0u8; 16];
            // SAFETY: read(2) into a live buffer of its length, from a descriptor this owns; poll said it
            // holds data, and this process holds the write end too, so it cannot block for an end of file.
            let got = unsafe { libc::read(fd.fd, bytes.as_mut_ptr().cast(), bytes.len()) };
            if got > 0 {
                phase[*side] = Phase::Waiting;
                waiting_since[*side] = Some(Instant::now());
            }
        }
    }
}

/// Lets the second side of [`Turns`] start when dropped ([`Turns::release_on_drop`]).
pub(crate) struct ReleaseOnDrop<'a> {
    turns: &'a Turns,
}

impl Drop for ReleaseOnDrop<'_> {
    fn drop(&mut self) {
        self.turns.let_second_start();
    }
}

/// Ends a side's run in [`Turns`] when dropped ([`Turns::end_on_drop`]).
pub(crate) struct EndOnDrop<'a> {
    turns: &'a Turns,
    side: usize,
}

impl Drop for EndOnDrop<'_> {
    fn drop(&mut self) {
        self.turns.end(self.side);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    /// A side played by a shell script: it appends `NAME` to the log once per turn, `turns` times, saying ready before
    /// each as the harness does.
    fn side(turns: &Turns, index: usize, name: &str, log: &std::path::Path, count: u32) -> Command {
        side_after(turns, index, name, log, count, "")
    }

    /// [`side`], running `before` (shell commands) first.
    fn side_after(
        turns: &Turns,
        index: usize,
        name: &str,
        log: &std::path::Path,
        count: u32,
        before: &str,
    ) -> Command {
        let [write, read] = turns.child_fds(index);
        let script = format!(
            "{before} i=0; while [ $i -lt {count} ]; do printf r >&{write}; dd bs=1 count=1 <&{read} 2>/dev/null >/dev/null; \
             printf '{name}\\n' >> '{}'; i=$((i+1)); done",
            log.display()
        );
        // bash: dash takes no descriptor above 9 in a redirection, and tests run side by side open more.
        let mut command = Command::new("bash");
        command.arg("-c").arg(script);
        let fds = turns.child_fds(index);
        // SAFETY: fcntl(2) is async-signal-safe and the closure allocates nothing.
        unsafe {
            command.pre_exec(move || {
                for fd in fds {
                    if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        command
    }

    fn run_pair(base: u32, head: u32, first: usize) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let turns = Turns::new(0).unwrap();
        std::thread::scope(|scope| {
            for (index, name, count) in [(0, "base", base), (1, "head", head)] {
                let turns = &turns;
                let log = &log;
                scope.spawn(move || {
                    if index != first {
                        turns.wait_to_start();
                    }
                    let status = side(turns, index, name, log, count).status().unwrap();
                    turns.end(index);
                    assert!(status.success());
                });
            }
            assert!(turns.arbitrate(first) >= u64::from(base.min(head)));
        });
        std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The two runs take strict turns, the first side first, and a run with more turns than the other goes
    /// on by itself once the other has ended.
    #[test]
    fn two_runs_take_strict_turns_and_the_longer_goes_on_alone() {
        assert_eq!(
            run_pair(3, 3, 0),
            ["base", "head", "base", "head", "base", "head"]
        );
        assert_eq!(
            run_pair(2, 4, 1),
            ["head", "base", "head", "base", "head", "head"]
        );
    }

    /// A side whose start is held up while the other waits (here: two seconds of sleep before its first ready,
    /// against a limit of 0.2 s) ends the taking of turns: the waiting side goes on, and both runs end.
    #[test]
    fn a_side_held_up_at_its_start_ends_the_taking_of_turns() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let turns = Turns::new(0).unwrap();
        let given = std::thread::scope(|scope| {
            let (turns, log) = (&turns, &log);
            scope.spawn(move || {
                let status = side(turns, 0, "base", log, 3).status().unwrap();
                turns.end(0);
                assert!(status.success());
            });
            scope.spawn(move || {
                turns.wait_to_start();
                let status = side_after(turns, 1, "head", log, 2, "sleep 2;")
                    .status()
                    .unwrap();
                turns.end(1);
                assert!(status.success());
            });
            turns.arbitrate_within(0, std::time::Duration::from_millis(200))
        });
        assert_eq!(given, 0);
        let lines = std::fs::read_to_string(&log).unwrap();
        let mut lines: Vec<&str> = lines.lines().collect();
        lines.sort_unstable();
        assert_eq!(lines, ["base", "base", "base", "head", "head"]);
    }

    /// A run that never says ready (a program that does not take part) runs alone while the other waits,
    /// then the other runs: never both at once.
    #[test]
    fn a_run_that_takes_no_part_runs_alone() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let turns = Turns::new(0).unwrap();
        std::thread::scope(|scope| {
            let (turns, log) = (&turns, &log);
            scope.spawn(move || {
                let status = side(turns, 0, "base", log, 2).status().unwrap();
                turns.end(0);
                assert!(status.success());
            });
            scope.spawn(move || {
                turns.wait_to_start();
                let script = format!(
                    "printf 'head starts\\n' >> '{0}'; sleep 0.2; printf 'head ends\\n' >> '{0}'",
                    log.display()
                );
                let status = Command::new("sh").arg("-c").arg(script).status().unwrap();
                turns.end(1);
                assert!(status.success());
            });
            // Base's two turns came after head had ended: none was taken while the other waited.
            assert_eq!(turns.arbitrate(0), 0);
        });
        let lines = std::fs::read_to_string(&log).unwrap();
        assert_eq!(
            lines.lines().collect::<Vec<_>>(),
            ["head starts", "head ends", "base", "base"]
        );
    }
}
