//! The two sides of a gate: a directory used in place, or a git revision checked out into a temporary
//! worktree that is removed afterwards (also on error and on Ctrl-C). The user's own tree is never touched.
//!
//! A worktree survives any interrupt: `git worktree add` is never killed half-way (an interrupt lets it
//! finish, then removes what it made), and what a killed `rho` (SIGKILL) could not remove is removed by the
//! next gate in the same repository: rho's own worktree entries, recognised by their path (see
//! [`is_rho_entry`]), once no other gate holds the repository's rho lock.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rho_exec::interrupt::{self, CleanupGuard};
use rho_exec::{OnInterrupt, Runner};

use crate::error::{GateError, SideName};

/// How long a git command (rev-parse, worktree add) may take.
const GIT_TIMEOUT: Duration = Duration::from_secs(120);

/// What the user named as a side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SideSpec {
    /// A directory, used in place; the module root is the directory itself.
    Directory(PathBuf),
    /// A git revision, resolved to its commit.
    Revision {
        /// As the user wrote it.
        name: String,
        /// The full commit hash.
        commit: String,
    },
}

impl SideSpec {
    /// Read `spec` as a side: an existing directory (relative to `cwd`) wins; otherwise it must name a commit
    /// of the git repository containing `cwd`.
    pub fn resolve(side: SideName, spec: &str, cwd: &Path) -> Result<SideSpec, GateError> {
        let bad = |detail: String| GateError::BadSide {
            side,
            spec: spec.to_owned(),
            detail,
        };
        if spec.is_empty() {
            return Err(bad("it is empty".to_owned()));
        }
        // Lexically without `.` components, so `.` is shown as the directory itself.
        let path: PathBuf = cwd
            .join(spec)
            .components()
            .filter(|c| *c != std::path::Component::CurDir)
            .collect();
        if path.is_dir() {
            // Shown without `..` where the file system can say what it is.
            return Ok(SideSpec::Directory(path.canonicalize().unwrap_or(path)));
        }
        if path.exists() {
            return Err(bad("it is a file, not a directory".to_owned()));
        }
        // `--end-of-options` keeps a spec starting with `-` from being read as an option.
        let revision = format!("{spec}^{{commit}}");
        match git(
            cwd,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &revision,
            ],
        ) {
            Ok(out) if !out.trim().is_empty() => Ok(SideSpec::Revision {
                name: spec.to_owned(),
                commit: out.trim().to_owned(),
            }),
            Ok(_) => Err(bad(
                "no such directory, and git knows no such commit".to_owned()
            )),
            Err(GateError::Git { detail, .. }) => Err(bad(format!(
                "no such directory, and git knows no such commit: {detail}"
            ))),
            Err(other) => Err(other),
        }
    }

    /// How the side is shown in messages: the path, or `rev (abc1234)`.
    pub fn describe(&self) -> String {
        match self {
            SideSpec::Directory(path) => path.display().to_string(),
            SideSpec::Revision { name, commit } => {
                format!("{name} ({})", commit.get(..12).unwrap_or(commit))
            }
        }
    }
}

/// Run `git -C dir args...` with the runner's timeout and process group; its trimmed stdout, or why not.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Result<String, GateError> {
    git_on_interrupt(dir, None, args, OnInterrupt::Kill)
}

/// The git directory shared by every worktree of the repository `dir` is in (`.git`, where the gate's
/// caches and its lock live), absolute.
pub(crate) fn git_common_dir(dir: &Path) -> Result<PathBuf, GateError> {
    let common = git(
        dir,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )?;
    Ok(PathBuf::from(common.trim()))
}

/// [`git`] with `index` as its index (`GIT_INDEX_FILE`): reading a directory's content without touching
/// the user's index (crate::content).
pub(crate) fn git_with_index(dir: &Path, index: &Path, args: &[&str]) -> Result<String, GateError> {
    git_on_interrupt(dir, Some(index), args, OnInterrupt::Kill)
}

/// [`git`], with `index` as its index when given and what an interrupt does to it.
fn git_on_interrupt(
    dir: &Path,
    index: Option<&Path>,
    args: &[&str],
    what: OnInterrupt,
) -> Result<String, GateError> {
    let mut command = Command::new("git");
    command.arg("-C").arg(dir).args(args);
    if let Some(index) = index {
        command.env("GIT_INDEX_FILE", index);
    }
    let failed = |detail: String| GateError::Git {
        args: args.join(" "),
        detail,
    };
    let (finished, stdout) = Runner::new(command)
        .timeout(GIT_TIMEOUT)
        .on_interrupt(what)
        .run_collect()
        .map_err(|error| failed(error.to_string()))?;
    if finished.termination.success() {
        Ok(stdout)
    } else {
        let stderr = finished.stderr.trim();
        Err(failed(if stderr.is_empty() {
            finished.termination.to_string()
        } else {
            format!("{} ({})", stderr, finished.termination)
        }))
    }
}

/// Where the repository containing `cwd` is, and where `cwd` lies within it.
#[derive(Debug, Clone)]
pub struct RepoLocation {
    /// The top of the working tree.
    pub top: PathBuf,
    /// `cwd` relative to the top (empty at the top).
    pub prefix: PathBuf,
}

impl RepoLocation {
    pub fn of(cwd: &Path) -> Result<RepoLocation, GateError> {
        let top = git(cwd, &["rev-parse", "--show-toplevel"])?;
        let prefix = git(cwd, &["rev-parse", "--show-prefix"])?;
        Ok(RepoLocation {
            top: PathBuf::from(top.trim()),
            prefix: PathBuf::from(prefix.trim()),
        })
    }
}

/// What rho names its worktrees: `$TMPDIR/rho-gate-<side>-XXXXXX/rho-gate-<side>-XXXXXX`, so that git's entry
/// for one (`.git/worktrees/<name>`, named after the checkout's directory) is recognisable as rho's.
const WORKTREE_PREFIX: &str = "rho-gate-";

/// A detached checkout of one commit in a temporary directory, registered with the repository as a worktree.
/// Removed (`git worktree remove`, then its directory and git's entry for it) on drop and on Ctrl-C.
#[derive(Debug)]
pub struct Worktree {
    path: PathBuf,
    cleanup: Option<CleanupGuard>,
    // Held as long as the worktree lives: the next gate removes no entry while this gate runs.
    _lock: Option<RepoLock>,
}

impl Worktree {
    /// Check out `commit` of the repository at `repo_top` into a new temporary directory.
    pub fn add(repo_top: &Path, commit: &str, label: &str) -> Result<Worktree, GateError> {
        let common_dir = git_common_dir(repo_top)?;
        let lock = RepoLock::acquire(&common_dir);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{WORKTREE_PREFIX}{label}-"))
            .tempdir()
            .map_err(|e| GateError::io("cannot create a temporary directory for a worktree", e))?;
        // From here the directory is the cleanup's to remove (once), not the TempDir's.
        let dir = dir.keep();
        let name = dir.file_name().unwrap_or_default().to_owned();
        let path = dir.join(&name);
        // Registered before `git worktree add` starts, so an interrupt during the checkout still cleans up
        // (after the checkout has finished: it is never killed half-way).
        let cleanup = {
            let repo_top = repo_top.to_owned();
            let path = path.clone();
            interrupt::on_interrupt(move || {
                remove_worktree(&repo_top, &common_dir, &path);
                rho_exec::remove_tree(&dir);
            })
        };
        let worktree = Worktree {
            path,
            cleanup: Some(cleanup),
            _lock: lock,
        };
        let path_text = worktree.path.to_string_lossy().into_owned();
        // On failure `worktree` is dropped, which removes whatever the checkout left.
        git_on_interrupt(
            repo_top,
            None,
            &["worktree", "add", "--detach", "--quiet", &path_text, commit],
            OnInterrupt::LetFinish,
        )?;
        Ok(worktree)
    }

    /// The root of the checkout.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        if let Some(cleanup) = self.cleanup.take() {
            cleanup.run_now();
        }
    }
}

/// Unregister and delete a worktree: `git worktree remove --force --force` (a run an interrupt neither
/// refuses nor kills), then the checkout and git's entry for it, whatever state a failed or interrupted
/// `git worktree add` left them in. Failures are ignored: this is the last word.
fn remove_worktree(repo_top: &Path, common_dir: &Path, path: &Path) {
    if path.exists() {
        let mut command = Command::new("git");
        command
            .arg("-C")
            .arg(repo_top)
            .args(["worktree", "remove", "--force", "--force"])
            .arg(path);
        let _ = Runner::new(command)
            .timeout(GIT_TIMEOUT)
            .on_interrupt(OnInterrupt::Cleanup)
            .run_collect();
        rho_exec::remove_tree(path);
    }
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    // Git names the entry after the checkout's directory, with a number added when the name is taken.
    for (entry, entry_name) in worktree_entries(common_dir) {
        let suffix = entry_name.strip_prefix(name);
        if suffix.is_some_and(|s| s.chars().all(|c| c.is_ascii_digit())) {
            rho_exec::remove_tree(&entry);
        }
    }
}

/// The entries of `COMMON_DIR/worktrees`, with their names.
fn worktree_entries(common_dir: &Path) -> Vec<(PathBuf, String)> {
    let Ok(entries) = std::fs::read_dir(common_dir.join("worktrees")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            Some((entry.path(), name))
        })
        .collect()
}

/// Whether worktree entry `entry` (a directory of `.git/worktrees`) is one of rho's: its name is rho's
/// (`rho-gate-base-...` or `rho-gate-head-...`), and its `gitdir` file, when git got as far as writing it,
/// names a checkout `rho-gate-*/NAME/.git` in a directory of the same name.
pub fn is_rho_entry(entry: &Path) -> bool {
    let Some(name) = entry.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let ours = |name: &str| {
        ["base", "head"].iter().any(|side| {
            name.strip_prefix(WORKTREE_PREFIX)
                .and_then(|rest| rest.strip_prefix(side))
                .is_some_and(|rest| rest.starts_with('-'))
        })
    };
    if !ours(name) {
        return false;
    }
    let gitdir = std::fs::read_to_string(entry.join("gitdir")).unwrap_or_default();
    let gitdir = gitdir.trim();
    if gitdir.is_empty() {
        return true;
    }
    let checkout = Path::new(gitdir).parent();
    let checkout_name = checkout.and_then(Path::file_name);
    let parent_name = checkout.and_then(Path::parent).and_then(Path::file_name);
    Path::new(gitdir).file_name().is_some_and(|n| n == ".git")
        && checkout_name.is_some()
        && checkout_name == parent_name
        && checkout_name.and_then(|n| n.to_str()).is_some_and(ours)
}

/// Remove rho's worktree entries in `common_dir` (see [`is_rho_entry`]), and the temporary directories of
/// their checkouts: what a gate killed beyond cleaning up (SIGKILL, a power cut) left. Only for the holder of
/// the exclusive lock: no other gate is running in the repository then. Returns how many entries went.
fn remove_stale_entries(common_dir: &Path) -> usize {
    let mut removed = 0;
    for (entry, _) in worktree_entries(common_dir) {
        if !is_rho_entry(&entry) {
            continue;
        }
        let gitdir = std::fs::read_to_string(entry.join("gitdir")).unwrap_or_default();
        // `.../rho-gate-head-XXXXXX/rho-gate-head-XXXXXX/.git`: the temporary directory is two levels up.
        if let Some(dir) = Path::new(gitdir.trim()).parent().and_then(Path::parent)
            && dir.file_name().is_some()
        {
            rho_exec::remove_tree(dir);
        }
        rho_exec::remove_tree(&entry);
        removed += 1;
    }
    removed
}

/// A lock on `COMMON_DIR/rho-gate.lock`, shared by the gates running in a repository. The first gate to get it
/// exclusively (no other gate running) removes the stale entries, then shares it. The kernel releases it
/// when its holder dies, however it dies.
#[derive(Debug)]
struct RepoLock {
    _file: std::fs::File,
}

impl RepoLock {
    /// The shared lock, after removing stale entries when no other gate holds it. `None` when the lock file
    /// cannot be opened (a read-only repository): nothing is removed then.
    fn acquire(common_dir: &Path) -> Option<RepoLock> {
        use std::os::fd::AsRawFd as _;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(common_dir.join("rho-gate.lock"))
            .ok()?;
        let fd = file.as_raw_fd();
        // SAFETY: flock(2) on a descriptor we own; it touches no memory.
        if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            remove_stale_entries(common_dir);
        }
        // SAFETY: as above. Converting the exclusive lock, or waiting for another gate's cleaning to end.
        if unsafe { libc::flock(fd, libc::LOCK_SH) } != 0 {
            return None;
        }
        Some(RepoLock { _file: file })
    }
}

/// A side ready to build: its module root, and the worktree it lives in (if any), kept alive as long as
/// this is.
#[derive(Debug)]
pub struct PreparedSide {
    pub name: SideName,
    pub spec: SideSpec,
    /// The directory the side's commands run in and whose module.yml they come from.
    pub module_root: PathBuf,
    worktree: Option<Worktree>,
}

impl PreparedSide {
    /// Make `spec` ready: a directory as it is; a revision checked out into a worktree, the module root being
    /// the same path relative to the repository top as `cwd`.
    pub fn prepare(name: SideName, spec: SideSpec, cwd: &Path) -> Result<PreparedSide, GateError> {
        match &spec {
            SideSpec::Directory(path) => Ok(PreparedSide {
                name,
                module_root: path.clone(),
                spec,
                worktree: None,
            }),
            SideSpec::Revision { commit, .. } => {
                let location = RepoLocation::of(cwd)?;
                let label = name.to_string();
                let worktree = Worktree::add(&location.top, commit, &label)?;
                let module_root = worktree.path().join(&location.prefix);
                Ok(PreparedSide {
                    name,
                    module_root,
                    spec,
                    worktree: Some(worktree),
                })
            }
        }
    }

    /// The worktree, when the side is a revision.
    pub fn worktree(&self) -> Option<&Worktree> {
        self.worktree.as_ref()
    }
}
