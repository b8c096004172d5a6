//! Ctrl-C: kill every live child group, run the registered cleanups, exit 130.
//!
//! Children run in process groups of their own (see [`crate::Runner`]), so a Ctrl-C typed at the terminal
//! reaches `rho` alone; `rho` must then take its children down itself. [`install_handler`] arranges that for
//! SIGINT, SIGTERM and SIGHUP: the handler kills every group the runner has registered, runs every cleanup
//! registered with [`on_interrupt`] (last registered first), and exits with status 130.
//!
//! A cleanup is for what a normal path tidies up by itself but an interrupted one would leave behind: a
//! temporary build directory, a `git worktree`. Dropping the returned [`CleanupGuard`] unregisters it (the
//! normal path has done the job); it never runs the cleanup.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// The exit status after an interrupt, as a shell reports a process killed by SIGINT (128 + 2).
pub const INTERRUPTED_EXIT_STATUS: i32 = 130;

type Cleanup = Box<dyn FnOnce() + Send + 'static>;

struct Registry {
    /// Process-group ids of children that are running (or not yet reaped).
    groups: HashSet<libc::pid_t>,
    /// Cleanups by registration id, in registration order.
    cleanups: Vec<(u64, Cleanup)>,
}

fn registry() -> MutexGuard<'static, Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    let mutex = REGISTRY.get_or_init(|| {
        Mutex::new(Registry {
            groups: HashSet::new(),
            cleanups: Vec::new(),
        })
    });
    // A panic while the lock was held cannot leave the sets inconsistent (each change is one insert or
    // remove), so a poisoned lock is still usable, and an interrupt must still be able to kill children.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Set once an interrupt has begun, so a child spawned while the handler runs is killed at once.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Set when the handler has begun and will end the process: nothing else may exit first.
static EXITING: AtomicBool = AtomicBool::new(false);
static NEXT_CLEANUP_ID: AtomicU64 = AtomicU64::new(1);

/// Error from installing the handler (another handler was installed by other means).
#[derive(Debug, thiserror::Error)]
#[error("cannot install the Ctrl-C handler: {0}")]
pub struct InstallError(ctrlc::Error);

/// Install the SIGINT/SIGTERM/SIGHUP handler that kills child groups, runs cleanups and exits 130.
/// Calling it again is harmless.
pub fn install_handler() -> Result<(), InstallError> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    let mut fresh_error = None;
    let outcome = INSTALLED.get_or_init(|| match ctrlc::set_handler(handle_interrupt) {
        Ok(()) => Ok(()),
        Err(error) => {
            let text = error.to_string();
            fresh_error = Some(error);
            Err(text)
        }
    });
    match (outcome, fresh_error) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(error)) => Err(InstallError(error)),
        // A second call after a failed first one: report the same kind of failure again.
        (Err(_), None) => Err(InstallError(ctrlc::Error::MultipleHandlers)),
    }
}

fn handle_interrupt() {
    EXITING.store(true, Ordering::SeqCst);
    eprintln!("rho: interrupted; stopping child processes and cleaning up");
    run_interrupt_actions();
    std::process::exit(INTERRUPTED_EXIT_STATUS);
}

/// When the handler is ending the process, block the calling thread until it has (never returns then);
/// otherwise return at once.
///
/// The handler runs on a thread of its own. Killing the children makes the main thread's run fail, and
/// without this the main thread could report that failure and exit with its own status (or drop a temporary
/// directory the handler is removing) before the handler's cleanups finish and it exits with 130. The runner
/// calls this after every run; call it too before exiting on an error.
pub fn wait_if_exiting() {
    while EXITING.load(Ordering::SeqCst) {
        std::thread::park_timeout(std::time::Duration::from_millis(100));
    }
}

/// What the handler does before it exits: kill every registered child group (SIGKILL) and run every
/// registered cleanup, last registered first. Public so that a caller with its own signal handling can do the
/// same; after it, further children are killed as soon as they are spawned.
pub fn run_interrupt_actions() {
    INTERRUPTED.store(true, Ordering::SeqCst);
    kill_all_groups();
    let cleanups = std::mem::take(&mut registry().cleanups);
    for (_, cleanup) in cleanups.into_iter().rev() {
        // One failing cleanup must not stop the others.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(cleanup));
    }
}

/// Kill every registered child group with SIGKILL. The groups stay registered until their runner reaps them.
pub fn kill_all_groups() {
    let groups: Vec<libc::pid_t> = registry().groups.iter().copied().collect();
    for pgid in groups {
        kill_group(pgid);
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

pub(crate) fn register_group(pgid: libc::pid_t) {
    registry().groups.insert(pgid);
    if interrupted() {
        kill_group(pgid);
    }
}

pub(crate) fn unregister_group(pgid: libc::pid_t) {
    registry().groups.remove(&pgid);
}

/// Register `cleanup` to run if the process is interrupted. Drop the guard once the normal path has done the
/// job itself; the cleanup then never runs.
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

impl Drop for CleanupGuard {
    fn drop(&mut self) {
        registry().cleanups.retain(|(id, _)| *id != self.id);
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
    fn installing_twice_is_harmless() {
        install_handler().unwrap();
        install_handler().unwrap();
    }
}
