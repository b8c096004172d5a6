//! The module graph of each crate of the workspace, read from its sources, and the circles in it: files whose
//! modules import each other, directly or round a circle, and sibling modules that do through the files below
//! them ([`ModuleGraph::module_circles`]). `tests/no_module_circles.rs` runs it over every
//! crate so that a circle cannot come back (`cargo test -p rho-modgraph`); `tests/function_lengths.rs` reads
//! the same files for how long each function is ([`workspace_function_lengths`]), so that none grows past the
//! project's limit of 150 lines unnoticed.
//!
//! It reads the sources as text (a small lexer, no compiler): `use` items, paths in code (`crate::`,
//! `super::`, `self::`, a child module's name, a name the module imports), and `mod` declarations, leaving
//! out `#[cfg(test)]` modules as the compiler does for a user's build. It must not know about any other rho
//! crate: it only reads files.

mod cycles;
mod error;
mod graph;
mod lengths;
mod lex;
mod scan;

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

pub use error::ModGraphError;
pub use graph::{Circle, Evidence, ModuleGraph};
pub use lengths::{FunctionLength, function_lengths};

/// The circles of one crate root.
#[derive(Debug)]
pub struct RootCircles {
    /// e.g. `crates/rho-stats/src/lib.rs`
    pub root: PathBuf,
    pub files: usize,
    pub circles: Vec<Circle>,
}

/// The crate roots of the crate in `crate_dir` (relative to it): src/lib.rs, src/main.rs and src/bin's files.
pub fn crate_roots(crate_dir: &Path) -> Result<Vec<PathBuf>, ModGraphError> {
    let mut roots: Vec<PathBuf> = ["src/lib.rs", "src/main.rs"]
        .into_iter()
        .map(PathBuf::from)
        .filter(|root| crate_dir.join(root).is_file())
        .collect();
    let bin = crate_dir.join("src/bin");
    if bin.is_dir() {
        let entries = fs::read_dir(&bin).map_err(|source| ModGraphError::Read {
            file: bin.clone(),
            source,
        })?;
        let mut bins = Vec::new();
        for entry in entries {
            let path = entry
                .map_err(|source| ModGraphError::Read {
                    file: bin.clone(),
                    source,
                })?
                .path();
            let main = path.join("main.rs");
            if path.extension().is_some_and(|e| e == "rs") {
                bins.push(Path::new("src/bin").join(path.file_name().unwrap_or_default()));
            } else if main.is_file() {
                bins.push(
                    Path::new("src/bin")
                        .join(path.file_name().unwrap_or_default())
                        .join("main.rs"),
                );
            }
        }
        bins.sort();
        roots.extend(bins);
    }
    Ok(roots)
}

/// The crates under `workspace/crates/*` (each directory with a Cargo.toml), in name order.
fn crate_dirs(workspace: &Path) -> Result<Vec<PathBuf>, ModGraphError> {
    let crates_dir = workspace.join("crates");
    let entries = fs::read_dir(&crates_dir).map_err(|source| ModGraphError::Read {
        file: crates_dir.clone(),
        source,
    })?;
    let mut crate_dirs = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|source| ModGraphError::Read {
                file: crates_dir.clone(),
                source,
            })?
            .path();
        if path.join("Cargo.toml").is_file() {
            crate_dirs.push(path);
        }
    }
    crate_dirs.sort();
    Ok(crate_dirs)
}

/// The circles of every crate root under `workspace/crates/*`, crate by crate in name order.
pub fn workspace_circles(workspace: &Path) -> Result<Vec<RootCircles>, ModGraphError> {
    let mut found = Vec::new();
    for crate_dir in crate_dirs(workspace)? {
        for root in crate_roots(&crate_dir)? {
            let graph = ModuleGraph::load(&crate_dir, &root)?;
            let shown = crate_dir
                .strip_prefix(workspace)
                .unwrap_or(&crate_dir)
                .join(&root);
            found.push(RootCircles {
                root: shown,
                files: graph.file_count(),
                circles: [graph.circles(), graph.module_circles()].concat(),
            });
        }
    }
    Ok(found)
}

/// Every function outside the tests of every file a crate root under `workspace/crates/*` builds (the files
/// its `mod` declarations reach; `#[cfg(test)]` modules and their files left out), with the file it is in
/// (relative to `workspace`). A file two roots share is read once.
pub fn workspace_function_lengths(
    workspace: &Path,
) -> Result<Vec<(PathBuf, FunctionLength)>, ModGraphError> {
    let mut files = std::collections::BTreeSet::new();
    for crate_dir in crate_dirs(workspace)? {
        for root in crate_roots(&crate_dir)? {
            let graph = ModuleGraph::load(&crate_dir, &root)?;
            files.extend(graph.files().map(|file| crate_dir.join(file)));
        }
    }
    let mut found = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).map_err(|source| ModGraphError::Read {
            file: file.clone(),
            source,
        })?;
        let shown = file.strip_prefix(workspace).unwrap_or(&file).to_path_buf();
        found.extend(
            function_lengths(&text)
                .into_iter()
                .map(|length| (shown.clone(), length)),
        );
    }
    Ok(found)
}

impl fmt::Display for RootCircles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for circle in &self.circles {
            writeln!(
                f,
                "{}: {} import each other:",
                self.root.display(),
                circle.files.join(", ")
            )?;
            for (from, to, evidence) in &circle.steps {
                writeln!(
                    f,
                    "  {from} -> {to}: {from}:{} `{}`",
                    evidence.line, evidence.path
                )?;
            }
        }
        Ok(())
    }
}
