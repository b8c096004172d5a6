//! Running child processes safely, for every part of rho that starts one (a compiler, a benchmark suite, a
//! board's flash-and-run command, a `git worktree`).
//!
//! What it guarantees:
//! - every child starts in a process group of its own, so the child and everything it starts can be killed
//!   together, and a Ctrl-C typed at the terminal reaches `rho` rather than the child;
//! - a timeout kills the whole group (SIGKILL) and reaps it; when the child exits by itself, whatever it left
//!   running in its group is killed too, so nothing outlives a run;
//! - the child's stdout is handed to the caller line by line as it arrives ([`Runner::run`]), or as one large
//!   buffered reader on the caller's thread ([`Runner::run_reader`], for the wire parser's fast path), while the
//!   suite runs; either way the caller can stop the run early;
//! - the last [`DEFAULT_STDERR_LIMIT`] bytes of stderr are kept for error messages, their control characters
//!   escaped ([`escape_text`]: a child cannot drive the user's terminal through rho);
//! - the result says which of these happened: an exit code, a signal (a crash, named: `SIGSEGV`), a timeout,
//!   a stop asked for by the caller; a program that could not be started is an [`ExecError`];
//! - with [`interrupt::install_handler`] on Linux, `rho` is a child subreaper: a process that left its run's
//!   group (`setsid`) and was orphaned becomes `rho`'s child, and is killed and reaped when a run ends.
//!
//! [`interrupt`] is the Ctrl-C side: on SIGINT, SIGTERM or SIGHUP every live child group is killed (but a
//! `git worktree add`, which is let finish) and the registered cleanups (temporary directories, worktrees) run
//! before the process exits with status 130. [`ScratchDir`] is a temporary directory removed on every exit
//! path, signals included. [`running_in_group`] says what still runs in a process group, to check that nothing outlived a run.
//!
//! It must not know what it runs: a compiler, a suite and `git` are all children to it, and it knows nothing of
//! benchmarks (docs/architecture.md).

mod group;
pub mod interrupt;
mod pipe;
mod run;
mod scratch;
mod signal;

pub use group::running_in_group;
pub use interrupt::OnInterrupt;
pub use pipe::InheritedPipe;
pub use run::{
    DEFAULT_MAX_LINE, DEFAULT_STDERR_LIMIT, ExecError, Finished, LineControl, READER_BUFFER,
    Runner, Termination,
};
pub use scratch::{ScratchDir, remove_tree};
pub use signal::signal_name;
// The one sanitiser lives in rho-text (rho-report and rho-mem use it too); re-exported for the callers here.
pub use rho_text::{escape_line, escape_text};

/// Held by the unit tests that start a child in a process group of its own outside the registry, and by the
/// one that sweeps: a sweep in one test would take another's child for an escaped process and kill it.
#[cfg(test)]
pub(crate) static OWN_GROUP_CHILDREN: std::sync::Mutex<()> = std::sync::Mutex::new(());
