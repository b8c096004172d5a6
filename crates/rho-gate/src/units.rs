//! The gate's side of the compile cache (rho-ccache): the directory of compiler names put first on each
//! build's PATH, the variables that send those compilers to the repository's store of compiled units, the
//! harness header at a path that stays the same from gate to gate (the preprocessed text names it), and what
//! a build's log says came from the cache.

use std::path::{Path, PathBuf};

use crate::cache::{CACHE_DIR, INCLUDE_DIR, UNITS_DIR, checksum};
use crate::error::{GateError, SideName};
use crate::shell::Scratch;

/// The compiler names of one gate, each a link to the program that runs the cache.
pub(crate) struct CompilerShims {
    dir: PathBuf,
    /// The PATH rho started with: the real compilers are found there.
    original_path: String,
}

impl CompilerShims {
    /// Links to `program` for each compiler name on the PATH, in the gate's scratch directory; `None` when
    /// the PATH is not text or the links cannot be made (the builds then run the compilers directly).
    pub(crate) fn create(program: &Path, scratch: &Scratch) -> Option<CompilerShims> {
        let original_path = std::env::var("PATH").ok()?;
        let dir = scratch.file("compilers");
        rho_ccache::masquerade(program, &dir, original_path.as_ref()).ok()?;
        Some(CompilerShims { dir, original_path })
    }

    /// The variables a build of the side whose module root is `root` gets, and the log its compiles write
    /// to; `None` when the side is not in a git repository (nowhere to keep the units).
    pub(crate) fn environment(
        &self,
        side: SideName,
        root: &Path,
        scratch: &Scratch,
    ) -> Option<(Vec<(String, String)>, PathBuf)> {
        let store = git_cache_dir(root)?.join(UNITS_DIR);
        let log = scratch.file(&format!("compiled-{side}.log"));
        // A log left from an earlier build of the same side would be counted again.
        let _ = std::fs::remove_file(&log);
        // The original PATH is a list already: the links' directory goes in front of it.
        let path = format!("{}:{}", self.dir.to_str()?, self.original_path);
        let variables = vec![
            ("PATH".to_owned(), path),
            (
                rho_ccache::ORIGINAL_PATH_VARIABLE.to_owned(),
                self.original_path.clone(),
            ),
            (
                rho_ccache::STORE_VARIABLE.to_owned(),
                store.to_string_lossy().into_owned(),
            ),
            (
                rho_ccache::LOG_VARIABLE.to_owned(),
                log.to_string_lossy().into_owned(),
            ),
        ];
        Some((variables, log))
    }
}

/// How many compiled files of a build came from the cache, and how many it compiled; `None` when it
/// compiled nothing through a compiler name.
pub(crate) fn counted(log: &Path) -> Option<(usize, usize)> {
    let text = std::fs::read_to_string(log).ok()?;
    let (hits, all) = rho_ccache::count_log(&text);
    (all > 0).then_some((hits, all))
}

/// The build cache's directory of the repository `dir` is in (`.git/rho-cache`).
fn git_cache_dir(dir: &Path) -> Option<PathBuf> {
    Some(crate::side::git_common_dir(dir).ok()?.join(CACHE_DIR))
}

/// The harness header `bench_header` at a path of its own in the repository `cwd` is in,
/// `.git/rho-cache/include/<checksum>/rho/bench.h`, written once (into a temporary directory renamed into
/// place); the directory to include. `None` outside a git repository.
pub(crate) fn stable_include(cwd: &Path, bench_header: &str) -> Result<Option<PathBuf>, GateError> {
    let Some(cache) = git_cache_dir(cwd) else {
        return Ok(None);
    };
    let parent = cache.join(INCLUDE_DIR);
    let include = parent.join(checksum(bench_header.as_bytes()));
    let header = include.join("rho").join("bench.h");
    if std::fs::read_to_string(&header).is_ok_and(|text| text == bench_header) {
        return Ok(Some(include));
    }
    let io = |what: &Path, e| GateError::io(format!("cannot write {}", what.display()), e);
    std::fs::create_dir_all(&parent).map_err(|e| io(&parent, e))?;
    let staging = tempfile::Builder::new()
        .prefix("tmp-")
        .tempdir_in(&parent)
        .map_err(|e| io(&parent, e))?;
    let staged = staging.path().join("rho");
    std::fs::create_dir_all(&staged).map_err(|e| io(&staged, e))?;
    std::fs::write(staged.join("bench.h"), bench_header).map_err(|e| io(&staged, e))?;
    // A damaged header (one that does not match its checksum) is replaced; a gate that renamed first wins.
    if include.exists() {
        rho_exec::remove_tree(&include);
    }
    let _ = std::fs::rename(staging.path(), &include);
    if std::fs::read_to_string(&header).is_ok_and(|text| text == bench_header) {
        Ok(Some(include))
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_keeps_its_path_and_a_damaged_one_is_rewritten() {
        let tmp = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("git")
            .args(["init", "--quiet"])
            .arg(tmp.path())
            .status()
            .unwrap();
        assert!(status.success());
        let first = stable_include(tmp.path(), "/* harness */\n")
            .unwrap()
            .unwrap();
        assert!(first.starts_with(tmp.path().join(".git").join(CACHE_DIR).join(INCLUDE_DIR)));
        let header = first.join("rho/bench.h");
        assert_eq!(std::fs::read_to_string(&header).unwrap(), "/* harness */\n");
        std::fs::write(&header, "damaged").unwrap();
        let again = stable_include(tmp.path(), "/* harness */\n")
            .unwrap()
            .unwrap();
        assert_eq!(again, first, "the same path in every gate");
        assert_eq!(std::fs::read_to_string(&header).unwrap(), "/* harness */\n");
        let other = stable_include(tmp.path(), "/* another */\n")
            .unwrap()
            .unwrap();
        assert_ne!(other, first, "another header, another path");
        let outside = tempfile::tempdir().unwrap();
        // Outside any repository (unless the temporary directory is in one) there is nowhere to keep it.
        if git_cache_dir(outside.path()).is_none() {
            assert_eq!(stable_include(outside.path(), "x").unwrap(), None);
        }
    }

    #[test]
    fn a_builds_log_is_counted() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("log");
        assert_eq!(counted(&log), None, "no log: nothing compiled");
        std::fs::write(&log, "hit ../a.c\nmiss ../b.c\ndirect `-E`\nhit ../c.c\n").unwrap();
        assert_eq!(counted(&log), Some((2, 4)));
    }
}
