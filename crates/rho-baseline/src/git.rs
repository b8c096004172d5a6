//! Reading the baseline as committed at a git ref, through git's object store: the working tree, the index
//! and the checked-out branch are never touched, so `--diff origin/main` works with uncommitted changes in
//! place.

use std::path::{Component, Path, PathBuf};
use std::process::{Command, Output};

use crate::error::Error;
use crate::format::BaselineFile;

/// Where a baseline read from git came from, for messages and reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefSource {
    /// The ref as the user wrote it (`origin/main`, `HEAD~1`, a hash).
    pub git_ref: String,
    /// The commit it resolved to.
    pub commit: String,
    /// The baseline's path relative to the repository's top level, with `/` separators.
    pub path: String,
}

impl RefSource {
    /// `bench/baseline.json at origin/main (1a2b3c4d)`.
    pub fn describe(&self) -> String {
        let short = self.commit.get(..10).unwrap_or(&self.commit);
        format!("{} at {} ({short})", self.path, self.git_ref)
    }
}

/// Reads the baseline at `path` as committed at `git_ref`. `path` may be absolute or relative to `dir`;
/// `dir` is any directory inside the repository (the project root, usually).
pub fn read_at_ref(
    dir: &Path,
    git_ref: &str,
    path: &Path,
) -> Result<(BaselineFile, RefSource), Error> {
    let (text, source) = read_text_at_ref(dir, git_ref, path)?;
    let file = BaselineFile::parse(&text, &source.describe())?;
    Ok((file, source))
}

/// The raw text of `path` at `git_ref` (see [`read_at_ref`]).
pub fn read_text_at_ref(
    dir: &Path,
    git_ref: &str,
    path: &Path,
) -> Result<(String, RefSource), Error> {
    let toplevel = toplevel(dir)?;
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    };
    let relative = relative_to(&toplevel, &absolute).ok_or_else(|| Error::OutsideRepository {
        path: absolute.clone(),
        repo: toplevel.clone(),
    })?;

    // A ref starting with `-` would be read by git as an option.
    if git_ref.is_empty() || git_ref.starts_with('-') {
        return Err(Error::RefNotFound {
            git_ref: git_ref.to_string(),
            repo: toplevel,
        });
    }
    let resolved = git(
        &toplevel,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{git_ref}^{{commit}}"),
        ],
    )?;
    if !resolved.status.success() {
        return Err(Error::RefNotFound {
            git_ref: git_ref.to_string(),
            repo: toplevel,
        });
    }
    let commit = String::from_utf8_lossy(&resolved.stdout).trim().to_string();
    let source = RefSource {
        git_ref: git_ref.to_string(),
        commit: commit.clone(),
        path: relative,
    };

    // By the resolved commit, so the existence check and the read see the same tree even if the ref moves.
    let object = format!("{commit}:{}", source.path);
    let kind = git(&toplevel, &["cat-file", "-t", &object])?;
    if !kind.status.success() || String::from_utf8_lossy(&kind.stdout).trim() != "blob" {
        return Err(Error::MissingAtRef {
            git_ref: git_ref.to_string(),
            commit,
            path: source.path,
        });
    }
    let blob = git(&toplevel, &["cat-file", "blob", &object])?;
    if !blob.status.success() {
        return Err(Error::Git {
            args: format!("cat-file blob {object}"),
            message: String::from_utf8_lossy(&blob.stderr).trim().to_string(),
        });
    }
    let text = String::from_utf8(blob.stdout).map_err(|_| Error::Invalid {
        source_name: source.describe(),
        message: "not UTF-8 text".to_string(),
    })?;
    Ok((text, source))
}

/// The top level of the repository holding `dir`, canonical.
pub fn toplevel(dir: &Path) -> Result<PathBuf, Error> {
    let output = git(dir, &["rev-parse", "--show-toplevel"])?;
    if !output.status.success() {
        return Err(Error::NotARepository {
            dir: dir.to_path_buf(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    let top = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    Ok(top.canonicalize().unwrap_or(top))
}

/// Runs git in `dir` with `args`, capturing its output. Fails only when git cannot be started.
fn git(dir: &Path, args: &[&str]) -> Result<Output, Error> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        // Never ask for credentials or open a pager: this runs in pipelines.
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::Git {
            args: args.join(" "),
            message: format!("could not run git: {e}"),
        })
}

/// `path` relative to `toplevel`, `/`-separated, or `None` when it lies outside. The file need not exist
/// in the working tree (it only has to exist at the ref), so the deepest existing ancestor is canonicalised
/// and the rest appended as written.
fn relative_to(toplevel: &Path, path: &Path) -> Option<String> {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let canonical = loop {
        if let Ok(canonical) = existing.canonicalize() {
            break canonical;
        }
        rest.push(existing.file_name()?.to_os_string());
        if !existing.pop() {
            return None;
        }
    };
    let mut full = canonical;
    for part in rest.iter().rev() {
        full.push(part);
    }
    let inside = full.strip_prefix(toplevel).ok()?;
    let mut parts = Vec::new();
    for component in inside.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?.to_string()),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if parts.is_empty() {
        None
    } else {
        Some(parts.join("/"))
    }
}
