//! `--json FILE`: the run as a versioned JSON document (`rho-bench-run/1`, described in docs/json-output.md),
//! written atomically.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use rho_stats::RunSummary;
use serde::Serialize;

/// The schema name and version of the document. A change that alters the meaning of an existing field bumps it.
pub const SCHEMA: &str = "rho-bench-run/1";

/// The document: what rho was asked to do, then the run's summary (its fields at the top level).
#[derive(Debug, Serialize)]
pub struct RunDocument<'a> {
    pub schema: &'static str,
    /// The version of the `rho` that wrote the document.
    pub rho_version: &'static str,
    pub suite: SuiteInfo,
    #[serde(flatten)]
    pub summary: &'a RunSummary,
}

/// How the suite was built and run.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteInfo {
    /// The C files, as given on the command line.
    pub sources: Vec<PathBuf>,
    /// The compiler command (`cc`, or `$CC`).
    pub compiler: Vec<String>,
    /// The flags rho passed besides its include directory: `-O2`, then `--cflags`.
    pub cflags: Vec<String>,
    /// The settings passed to the harness, `null` when left to its defaults.
    pub iterations: Option<u64>,
    pub warmup: Option<u64>,
    pub scale: Option<f64>,
    pub timeout_seconds: f64,
}

impl<'a> RunDocument<'a> {
    pub fn new(suite: SuiteInfo, summary: &'a RunSummary) -> Self {
        RunDocument {
            schema: SCHEMA,
            rho_version: env!("CARGO_PKG_VERSION"),
            suite,
            summary,
        }
    }
}

/// Write `value` as pretty JSON to `path` atomically: into a temporary file beside it, then renamed over it, so
/// a reader never sees a half-written document and a failed run leaves any old file as it was.
pub fn write_json_atomically(path: &Path, value: &impl Serialize) -> anyhow::Result<()> {
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut text = serde_json::to_string_pretty(value).context("cannot encode the run as JSON")?;
    text.push('\n');
    let mut file = tempfile::Builder::new()
        .prefix(".rho-json-")
        .tempfile_in(parent)
        .with_context(|| {
            format!(
                "cannot write {}: cannot create a file in {}",
                path.display(),
                parent.display()
            )
        })?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.as_file().sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.persist(path)
        .map_err(|error| error.error)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, "old").unwrap();
        write_json_atomically(&path, &serde_json::json!({"a": 1})).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n  \"a\": 1\n}\n"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [std::ffi::OsString::from("run.json")]);
    }

    #[test]
    fn a_write_into_a_missing_directory_fails_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("run.json");
        let error = write_json_atomically(&path, &1).unwrap_err();
        assert!(format!("{error:#}").contains("cannot write"), "{error:#}");
    }
}
