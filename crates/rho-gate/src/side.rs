//! The two sides of a gate: a directory used in place, or a git revision checked out into a temporary
//! worktree that is removed afterwards (also on error and on Ctrl-C). The user's own tree is never touched.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rho_exec::Runner;
use rho_exec::interrupt::{self, CleanupGuard};

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
    let mut command = Command::new("git");
    command.arg("-C").arg(dir).args(args);
    let failed = |detail: String| GateError::Git {
        args: args.join(" "),
        detail,
    };
    let (finished, stdout) = Runner::new(command)
        .timeout(GIT_TIMEOUT)
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

/// A detached checkout of one commit in a temporary directory, registered with the repository as a worktree.
/// Removed (`git worktree remove --force`, `git worktree prune`, then the directory) on drop and on Ctrl-C.
#[derive(Debug)]
pub struct Worktree {
    repo_top: PathBuf,
    path: PathBuf,
    // Declared before `dir`: the Ctrl-C cleanup is unregistered before the directory goes.
    cleanup: Option<CleanupGuard>,
    dir: Option<tempfile::TempDir>,
}

impl Worktree {
    /// Check out `commit` of the repository at `repo_top` into a new temporary directory.
    pub fn add(repo_top: &Path, commit: &str, label: &str) -> Result<Worktree, GateError> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("rho-gate-{label}-"))
            .tempdir()
            .map_err(|e| GateError::io("cannot create a temporary directory for a worktree", e))?;
        let path = dir.path().join("tree");
        // Registered before `git worktree add` starts, so a Ctrl-C during the checkout still cleans up.
        let cleanup = {
            let repo_top = repo_top.to_owned();
            let path = path.clone();
            let dir_path = dir.path().to_owned();
            interrupt::on_interrupt(move || {
                remove_worktree(&repo_top, &path);
                let _ = std::fs::remove_dir_all(&dir_path);
            })
        };
        let worktree = Worktree {
            repo_top: repo_top.to_owned(),
            path,
            cleanup: Some(cleanup),
            dir: Some(dir),
        };
        let path_text = worktree.path.to_string_lossy().into_owned();
        // On failure `worktree` is dropped, which removes whatever the checkout left.
        git(
            repo_top,
            &["worktree", "add", "--detach", "--quiet", &path_text, commit],
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
        remove_worktree(&self.repo_top, &self.path);
        self.cleanup.take();
        self.dir.take();
    }
}

/// Unregister and delete a worktree. Plain `Command`, not the runner: during a Ctrl-C the runner kills every
/// new child at once, and this must still run then. Failures are ignored: the directory is removed anyway
/// and `prune` forgets a worktree whose directory is gone.
fn remove_worktree(repo_top: &Path, path: &Path) {
    let quiet = |command: &mut Command| {
        let _ = command
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    };
    if path.exists() {
        quiet(
            Command::new("git")
                .arg("-C")
                .arg(repo_top)
                .args(["worktree", "remove", "--force"])
                .arg(path),
        );
        let _ = std::fs::remove_dir_all(path);
    }
    quiet(
        Command::new("git")
            .arg("-C")
            .arg(repo_top)
            .args(["worktree", "prune"]),
    );
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
