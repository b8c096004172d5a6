//! Ctrl-C (SIGINT, SIGTERM, SIGHUP): stop every child, clean up, exit 130, and never leave a half-done job.
//!
//! Children run in process groups of their own (see [`crate::Runner`]), so a Ctrl-C typed at the terminal
//! reaches `rho` alone; `rho` must then take its children down itself. [`install_handler`] arranges that:
//!
//! 1. the handler (on a thread of its own) marks the process as interrupted and kills every child group
//!    (SIGKILL), except a run started with [`OnInterrupt::LetFinish`] (a `git worktree add`: killing git
//!    mid-operation is what corrupts a repository), which is left to end by itself;
//! 2. the thread doing the work notices at its next check ([`exit_if_interrupted`]: every run's end calls it,
//!    and no new child is started once an interrupt has begun) and ends the process there: it runs every
//!    registered cleanup (last registered first), ends whatever escaped the process groups (see
//!    [`sweep_escaped`]) and exits with status 130. The cleanups run on the thread that writes the temporary
//!    directories they remove, so a cleanup never races a writer;
//! 3. only when that thread has not ended the process after [`TAKEOVER_AFTER`] (it is stuck in a long
//!    computation) does the handler do it itself, killing the let-finish runs too.
//!
//! A cleanup is for what a normal path tidies up by itself but an interrupted one would leave behind: a
//! temporary build directory, a `git worktree`. Dropping the returned [`CleanupGuard`] unregisters it (the
//! normal path has done the job); [`CleanupGuard::run_now`] runs it (once: whoever runs a cleanup first owns
//! it, and the process never exits half-way through one).

use std::collections::{HashMap, HashSet};
use std::io;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// The exit status after an interrupt, as a shell reports a process killed by SIGINT (128 + 2).
pub const INTERRUPTED_EXIT_STATUS: i32 = 130;

/// How long the handler lets the working thread end the process by itself before it does so itself.
pub const TAKEOVER_AFTER: Duration = Duration::from_secs(30);

/// What an interrupt does to a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnInterrupt {
    /// Killed with its whole group at once (a suite, a compiler).
    #[default]
    Kill,
    /// Left to end by itself (a `git worktree add`, which must not be killed half-way); not started once an
    /// interrupt has begun.
    LetFinish,
    /// Part of a cleanup (a `git worktree remove`): started even after an interrupt, and never killed by it.
    Cleanup,
}

type CleanupFn = Box<dyn FnOnce() + Send + 'static>;

struct Registry {
    /// Process-group ids of children that are running (or not yet reaped), and what an interrupt does to them.
    groups: HashMap<libc::pid_t, OnInterrupt>,
    /// Leaders of groups taken out of `groups` whose runner is reaping them now: no longer signalled by an
    /// interrupt (their pid may be reused once reaped), and not yet an orphan for [`sweep_escaped`] to reap, or
    /// the runner's own wait would find no child and a clean exit would read as a kill.
    reaping: HashSet<libc::pid_t>,
    /// Cleanups by registration id, in registration order.
    cleanups: Vec<(u64, CleanupFn)>,
}

fn registry() -> MutexGuard<'static, Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    let mutex = REGISTRY.get_or_init(|| {
        Mutex::new(Registry {
            groups: HashMap::new(),
            reaping: HashSet::new(),
            cleanups: Vec::new(),
        })
    });
    // A panic while the lock was held cannot leave the sets inconsistent (each change is one insert or
    // remove), so a poisoned lock is still usable, and an interrupt must still be able to kill children.
    lock(mutex)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Held while a cleanup runs and while the process ends: the process never exits half-way through a cleanup.
static FINISHING: Mutex<()> = Mutex::new(());

thread_local! {
    /// Set on a thread while it runs cleanups: the runs they start must not end the process from inside.
    static IN_CLEANUP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Set once an interrupt has begun: no new child is started (but for cleanups) and every one is killed.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Set by the handler: the process is to end with status 130 at the next [`exit_if_interrupted`].
static EXITING: AtomicBool = AtomicBool::new(false);
/// Set when `rho` is a child subreaper, so that processes escaping their group can be found (Linux).
static SUBREAPER: AtomicBool = AtomicBool::new(false);
static NEXT_CLEANUP_ID: AtomicU64 = AtomicU64::new(1);

/// Error from installing the handler (another handler was installed by other means).
#[derive(Debug, thiserror::Error)]
#[error("cannot install the Ctrl-C handler: {0}")]
pub struct InstallError(ctrlc::Error);

/// Install the SIGINT/SIGTERM/SIGHUP handler (see the module documentation), and on Linux make this process a
/// child subreaper, so that a process a child started and orphaned (even in a session of its own, out of
/// reach of a group kill) becomes this process's child and is ended with the run (see [`sweep_escaped`]).
/// Calling it again is harmless.
pub fn install_handler() -> Result<(), InstallError> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    let mut fresh_error = None;
    let outcome = INSTALLED.get_or_init(|| {
        become_subreaper();
        match ctrlc::set_handler(handle_interrupt) {
            Ok(()) => Ok(()),
            Err(error) => {
                let text = error.to_string();
                fresh_error = Some(error);
                Err(text)
            }
        }
    });
    match (outcome, fresh_error) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(error)) => Err(InstallError(error)),
        // A second call after a failed first one: report the same kind of failure again.
        (Err(_), None) => Err(InstallError(ctrlc::Error::MultipleHandlers)),
    }
}

fn become_subreaper() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(PR_SET_CHILD_SUBREAPER, 1) changes only how orphans are re-parented; no memory.
        let done = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } == 0;
        SUBREAPER.store(done, Ordering::SeqCst);
    }
}

fn handle_interrupt() {
    eprintln!("rho: interrupted; stopping child processes and cleaning up");
    INTERRUPTED.store(true, Ordering::SeqCst);
    EXITING.store(true, Ordering::SeqCst);
    kill_groups(|kind| kind == OnInterrupt::Kill);
    // The working thread ends the process at its next check; wait for it, in case it is busy.
    let until = Instant::now() + TAKEOVER_AFTER;
    while Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    kill_groups(|kind| kind != OnInterrupt::Cleanup);
    finish_process();
}

/// When an interrupt is ending the process, end it here: run every registered cleanup (last registered
/// first), end what escaped the runs' groups, and exit with status 130. Otherwise (or inside a cleanup)
/// return at once.
///
/// Call it on the thread doing the work wherever it may have been interrupted and is about to report a
/// failure (a run that ended because its group was killed): the runner calls it at the end of every run and
/// before refusing to start one. The process does not exit half-way through a cleanup another thread runs.
pub fn exit_if_interrupted() {
    if EXITING.load(Ordering::SeqCst) && !IN_CLEANUP.with(std::cell::Cell::get) {
        finish_process();
    }
}

/// The former name of [`exit_if_interrupted`].
pub fn wait_if_exiting() {
    exit_if_interrupted();
}

fn finish_process() -> ! {
    let _finishing = lock(&FINISHING);
    IN_CLEANUP.with(|flag| flag.set(true));
    run_cleanups();
    sweep_escaped();
    std::process::exit(INTERRUPTED_EXIT_STATUS);
}

/// What the handler does before the process exits, for a caller with its own signal handling: kill every
/// registered child group (SIGKILL) but cleanups', run every registered cleanup, last registered first, and
/// end what escaped. After it, no run is started but a cleanup's.
pub fn run_interrupt_actions() {
    INTERRUPTED.store(true, Ordering::SeqCst);
    kill_groups(|kind| kind != OnInterrupt::Cleanup);
    let _finishing = lock(&FINISHING);
    let was = IN_CLEANUP.with(|flag| flag.replace(true));
    run_cleanups();
    IN_CLEANUP.with(|flag| flag.set(was));
    sweep_escaped();
}

fn run_cleanups() {
    let cleanups = std::mem::take(&mut registry().cleanups);
    for (_, cleanup) in cleanups.into_iter().rev() {
        // One failing cleanup must not stop the others.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(cleanup));
    }
}

/// Kill every registered child group (SIGKILL) but cleanups'. The groups stay registered until their runner
/// reaps them.
pub fn kill_all_groups() {
    kill_groups(|kind| kind != OnInterrupt::Cleanup);
}

fn kill_groups(which: impl Fn(OnInterrupt) -> bool) {
    let registry = registry();
    for (&pgid, &kind) in &registry.groups {
        if which(kind) {
            kill_group(pgid);
        }
    }
}

/// Whether an interrupt has begun.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// SIGKILL to every process of group `pgid`. ESRCH (no such group any more) is not an error.
pub(crate) fn kill_group(pgid: libc::pid_t) {
    if pgid > 1 {
        // SAFETY: kill(2) with a negative pid signals a process group; it touches no memory of ours.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// Why a child was not started.
pub(crate) enum SpawnRefused {
    /// An interrupt has begun.
    Interrupted,
    Io(io::Error),
}

/// Spawn `command` (already set to start a process group of its own) and register its group, as one step
/// under the registry's lock: an interrupt either sees the group and kills it, or the child is never started.
pub(crate) fn spawn_registered(
    command: &mut Command,
    kind: OnInterrupt,
) -> Result<(Child, libc::pid_t), SpawnRefused> {
    let mut registry = registry();
    if interrupted() && kind != OnInterrupt::Cleanup {
        return Err(SpawnRefused::Interrupted);
    }
    let mut child = command.spawn().map_err(SpawnRefused::Io)?;
    let Ok(pgid) = libc::pid_t::try_from(child.id()) else {
        // A pid that does not fit pid_t cannot happen on Unix; reap and report rather than panic.
        let _ = child.kill();
        let _ = child.wait();
        return Err(SpawnRefused::Io(io::Error::other("child pid out of range")));
    };
    registry.groups.insert(pgid, kind);
    Ok((child, pgid))
}

/// Take group `pgid` out of the interrupt handler's reach before its runner reaps the leader: call
/// [`reaped`] once the leader has been waited for.
pub(crate) fn begin_reaping(pgid: libc::pid_t) {
    let mut registry = registry();
    registry.groups.remove(&pgid);
    registry.reaping.insert(pgid);
}

/// The leader of group `pgid` has been reaped by its runner (see [`begin_reaping`]).
pub(crate) fn reaped(pgid: libc::pid_t) {
    registry().reaping.remove(&pgid);
}

/// Register `cleanup` to run if the process is interrupted. Drop the guard once the normal path has done the
/// job itself (the cleanup then never runs), or call [`CleanupGuard::run_now`].
#[must_use = "dropping the guard unregisters the cleanup at once"]
pub fn on_interrupt(cleanup: impl FnOnce() + Send + 'static) -> CleanupGuard {
    let id = NEXT_CLEANUP_ID.fetch_add(1, Ordering::Relaxed);
    registry().cleanups.push((id, Box::new(cleanup)));
    CleanupGuard { id }
}

/// Keeps a cleanup registered; dropping it unregisters the cleanup without running it.
#[derive(Debug)]
pub struct CleanupGuard {
    id: u64,
}

impl CleanupGuard {
    /// Run the cleanup now, unless an interrupt already ran it (or is running it): a cleanup runs once, and
    /// the process does not exit while it runs.
    pub fn run_now(self) {
        let _finishing = lock(&FINISHING);
        let taken = {
            let mut registry = registry();
            registry
                .cleanups
                .iter()
                .position(|(id, _)| *id == self.id)
                .map(|at| registry.cleanups.remove(at).1)
        };
        if let Some(cleanup) = taken {
            let was = IN_CLEANUP.with(|flag| flag.replace(true));
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(cleanup));
            IN_CLEANUP.with(|flag| flag.set(was));
        }
        // `self` is dropped here: already unregistered.
    }
}

impl Drop for CleanupGuard {
    fn drop(&mut self) {
        registry().cleanups.retain(|(id, _)| *id != self.id);
    }
}

/// End the processes that escaped the runs' process groups: with [`install_handler`] on Linux `rho` is a
/// child subreaper, so a process whose parent died (a daemon a suite started with `setsid`, out of reach of
/// the group kill) is re-parented to `rho`. Every child of `rho` that is neither in a registered group (a run
/// in progress) nor in `rho`'s own group is killed (SIGKILL) and reaped, and so are the orphans that killing
/// it makes, until none is left. Does nothing where `rho` is not a subreaper.
///
/// Called at the end of every run and before an interrupted `rho` exits.
pub fn sweep_escaped() {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    #[cfg(target_os = "linux")]
    for _round in 0..64 {
        let found = {
            // Under the lock: no run can be spawned (and so be mistaken for an orphan) meanwhile.
            let registry = registry();
            let found = escaped_children(&registry);
            for &pid in &found {
                // SAFETY: kill(2) on a child of ours that we have not reaped, so its pid is not reused.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            found
        };
        if found.is_empty() {
            return;
        }
        let until = Instant::now() + Duration::from_secs(2);
        for pid in found {
            reap(pid, until);
        }
    }
}

/// Children of this process in neither a registered group nor this process's own group.
#[cfg(target_os = "linux")]
fn escaped_children(registry: &Registry) -> Vec<libc::pid_t> {
    // SAFETY: getpid and getpgrp cannot fail and touch no memory.
    let (me, my_group) = unsafe { (libc::getpid(), libc::getpgrp()) };
    let mut found = Vec::new();
    crate::group::for_each_child_stat(|pid, stat| {
        if let Some((_, _, parent, group)) = crate::group::parse_stat_fields(stat)
            && parent == me
            && group != my_group
            && !registry.groups.contains_key(&group)
            && !registry.reaping.contains(&pid)
        {
            found.push(pid);
        }
    });
    found
}

/// Reap child `pid`, waiting for it until `until` at most.
#[cfg(target_os = "linux")]
fn reap(pid: libc::pid_t, until: Instant) {
    loop {
        let mut status = 0;
        // SAFETY: waitpid on one child of ours; it writes only `status`.
        let result = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if result != 0 || Instant::now() >= until {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_guard_unregisters_its_cleanup() {
        let guard = on_interrupt(|| {});
        let id = guard.id;
        assert!(registry().cleanups.iter().any(|(i, _)| *i == id));
        drop(guard);
        assert!(!registry().cleanups.iter().any(|(i, _)| *i == id));
    }

    #[test]
    fn a_cleanup_run_now_runs_once_and_is_unregistered() {
        let ran = std::sync::Arc::new(AtomicU64::new(0));
        let guard = {
            let ran = ran.clone();
            on_interrupt(move || {
                ran.fetch_add(1, Ordering::SeqCst);
            })
        };
        let id = guard.id;
        guard.run_now();
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        assert!(!registry().cleanups.iter().any(|(i, _)| *i == id));
    }

    /// Two runs end at once (the Callgrind workers): one run's sweep must not reap the other's leader between
    /// that runner's kill and its wait, or the runner finds no child and a suite that exited 0 reads as killed
    /// by SIGKILL (seen in CI).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_leader_being_reaped_is_left_to_its_runner_by_another_runs_sweep() {
        use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
        let _alone = crate::OWN_GROUP_CHILDREN
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        install_handler().unwrap();
        let mut command = Command::new("sleep");
        command.arg("30").process_group(0);
        let Ok((mut child, pgid)) = spawn_registered(&mut command, OnInterrupt::Kill) else {
            panic!("cannot start sleep");
        };
        kill_group(pgid);
        begin_reaping(pgid);
        // Let the kill land, so the leader is a zombie a sweep could reap.
        std::thread::sleep(Duration::from_millis(50));
        sweep_escaped();
        let status = child.wait();
        reaped(pgid);
        assert_eq!(
            status.ok().and_then(|status| status.signal()),
            Some(libc::SIGKILL),
            "the runner reaps its own leader"
        );
    }

    #[test]
    fn installing_twice_is_harmless() {
        install_handler().unwrap();
        install_handler().unwrap();
    }
}
