//! The documents rho writes to files: a run as `rho-bench-run/1` (docs/json-output.md; [`saved`](crate::saved)
//! reads it back), and the writers every `--json`, `--markdown` and `--html` file goes through: the check,
//! before a run, that the destination can be written, and the atomic write.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use rho_stats::RunSummary;
use serde::Serialize;

use crate::error::Error;

/// The schema name and version of the document. A change that alters the meaning of an existing field bumps it.
pub const SCHEMA: &str = crate::saved::RUN_SCHEMA;

/// The document: what rho was asked to do, then the run's summary (its fields at the top level). `C` is the
/// comparison's record it carries with `--diff` (rho-compare's `ComparisonRecord`, a crate after this one:
/// [`RunDocument::with_comparison`]); none by default.
#[derive(Debug, Serialize)]
pub struct RunDocument<'a, C = ()> {
    pub schema: &'static str,
    /// The version of the `rho` that wrote the document.
    pub rho_version: &'static str,
    pub suite: SuiteInfo,
    #[serde(flatten)]
    pub summary: &'a RunSummary,
    /// The benchmark families (`RHO_BENCH_ADD_ARG`) and how each metric grows with the argument; absent
    /// without any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub families: Vec<rho_stats::FamilyGrowth>,
    /// With `--diff REF`: the run against the baseline, per benchmark and metric; absent without.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<&'a C>,
    /// With `--shard K/N`: which share of which partition this is (rho-shard, docs/ci.md); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<serde_json::Value>,
}

/// How the suite was built and run.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct SuiteInfo {
    /// The C files, as given on the command line.
    pub sources: Vec<PathBuf>,
    /// The compiler command (`cc`, or `$CC`; `c++` or `$CXX` for a suite with C++ files).
    pub compiler: Vec<String>,
    /// The flags rho passed besides its include directory: `-O2` (and `-Wl,-z,now` but on macOS), then `--cflags`.
    pub cflags: Vec<String>,
    /// The linker flags after the sources: `--ldflags`, then the libraries always linked (`-lm`).
    pub ldflags: Vec<String>,
    /// The settings passed to the harness, `null` when left to its defaults.
    pub iterations: Option<u64>,
    pub warmup: Option<u64>,
    pub scale: Option<f64>,
    pub timeout_seconds: f64,
}

impl SuiteInfo {
    /// A run imported from other harnesses' reports (`rho bench import`): the reports are its sources, and
    /// rho built and ran nothing.
    pub fn imported(reports: Vec<PathBuf>) -> SuiteInfo {
        SuiteInfo {
            sources: reports,
            compiler: Vec::new(),
            cflags: Vec::new(),
            ldflags: Vec::new(),
            iterations: None,
            warmup: None,
            scale: None,
            timeout_seconds: 0.0,
        }
    }
}

impl<'a> RunDocument<'a> {
    pub fn new(suite: SuiteInfo, summary: &'a RunSummary) -> Self {
        RunDocument {
            schema: SCHEMA,
            // Every crate of rho has the workspace's version: this is the binary's.
            rho_version: env!("CARGO_PKG_VERSION"),
            suite,
            summary,
            families: rho_stats::families(summary),
            comparison: None,
            shard: None,
        }
    }
}

impl<'a, C> RunDocument<'a, C> {
    /// The document carrying `comparison` (the run against the baseline, with `--diff REF`; `None` without).
    pub fn with_comparison<D: Serialize>(self, comparison: Option<&'a D>) -> RunDocument<'a, D> {
        RunDocument {
            schema: self.schema,
            rho_version: self.rho_version,
            suite: self.suite,
            summary: self.summary,
            families: self.families,
            comparison,
            shard: self.shard,
        }
    }
}

/// The schema of `rho bench --target a,b FILE.c --json`'s document.
pub const TARGETS_SCHEMA: &str = "rho-bench-targets/1";

/// The document `--json` writes for several targets: each target's run, then the comparison.
#[derive(Debug, Serialize)]
pub struct TargetsDocument<'a> {
    pub schema: &'static str,
    pub rho_version: &'static str,
    pub runs: Vec<RunDocument<'a>>,
    pub comparison: &'a rho_stats::targets::TargetComparison,
}

impl<'a> TargetsDocument<'a> {
    pub fn new(
        runs: Vec<RunDocument<'a>>,
        comparison: &'a rho_stats::targets::TargetComparison,
    ) -> Self {
        TargetsDocument {
            schema: TARGETS_SCHEMA,
            // Every crate of rho has the workspace's version: this is the binary's.
            rho_version: env!("CARGO_PKG_VERSION"),
            runs,
            comparison,
        }
    }
}

/// Checks before anything runs that `flag`'s file `path` can be written: its directory exists and a file can
/// be created in it, and it is not itself a directory. A run of minutes must not end in "cannot write".
pub fn check_destination(flag: &str, path: &Path) -> Result<(), Error> {
    let unwritable = |problem: String| Error::Destination {
        flag: flag.to_string(),
        path: path.to_path_buf(),
        problem,
    };
    let parent = parent_dir(path);
    if !parent.is_dir() {
        return Err(unwritable(format!(
            "the directory {} does not exist",
            parent.display()
        )));
    }
    if path.is_dir() {
        return Err(unwritable("is a directory".to_string()));
    }
    // The write itself is a new file beside `path` renamed over it: that is what must be possible.
    tempfile::Builder::new()
        .prefix(".rho-json-")
        .tempfile_in(parent)
        .map_err(|error| {
            unwritable(format!(
                "cannot create a file in {}: {error}",
                parent.display()
            ))
        })?;
    Ok(())
}

/// `value` as pretty JSON, ending in a newline.
pub fn to_json_text(value: &impl Serialize) -> Result<String, Error> {
    let mut text = serde_json::to_string_pretty(value).map_err(Error::Encode)?;
    text.push('\n');
    Ok(text)
}

/// The directory a file lives in (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Write `value` as pretty JSON to `path` atomically: into a temporary file beside it, then renamed over it, so
/// a reader never sees a half-written document and a failed run leaves any old file as it was. A new file gets
/// the usual permissions (0666 less the umask, like any file a program creates); a replaced one keeps its own.
///
/// The JSON is streamed into the file rather than built as one string first: a run of 100,000 benchmarks is
/// hundreds of megabytes of text, which would otherwise be held whole (and copied) before a byte is written.
pub fn write_json_atomically(path: &Path, value: &impl Serialize) -> Result<(), Error> {
    let parent = parent_dir(path);
    let mut builder = tempfile::Builder::new();
    builder.prefix(".rho-json-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // The mode given at creation is what the umask applies to (a temporary file is otherwise 0600).
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut file = builder
        .tempfile_in(parent)
        .map_err(|source| Error::CreateBeside {
            path: path.to_path_buf(),
            parent: parent.to_path_buf(),
            source,
        })?;
    if path.exists() {
        crate::store::keep_permissions(path, file.as_file());
    }
    let write_failed = |source| Error::WriteDocument {
        path: path.to_path_buf(),
        source,
    };
    {
        let mut writer = std::io::BufWriter::new(file.as_file_mut());
        serde_json::to_writer_pretty(&mut writer, value).map_err(|error| {
            match error.io_error_kind() {
                // The writer failed: the file system's error, named with the file.
                Some(kind) => Error::WriteDocument {
                    path: path.to_path_buf(),
                    source: std::io::Error::new(kind, error),
                },
                None => Error::Encode(error),
            }
        })?;
        writer
            .write_all(b"\n")
            .and_then(|()| writer.flush())
            .map_err(write_failed)?;
    }
    file.as_file().sync_all().map_err(write_failed)?;
    file.persist(path)
        .map_err(|error| write_failed(error.error))?;
    Ok(())
}

/// Writes `text` to `path` atomically (`what` names it in errors).
pub fn write_text(path: &Path, what: &str, text: &str) -> Result<(), Error> {
    crate::store::write_atomic(path, what, |w| {
        w.write_all(text.as_bytes()).map_err(|error| Error::Io {
            path: path.to_path_buf(),
            action: format!("writing {what}"),
            error,
        })
    })
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
    fn a_value_that_cannot_be_encoded_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, "old").unwrap();
        // JSON keys are strings: a map keyed by pairs fails part-way through the streamed write.
        let unencodable: std::collections::BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into();
        let error = write_json_atomically(&path, &unencodable).unwrap_err();
        assert!(matches!(error, Error::Encode(_)), "{error:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [std::ffi::OsString::from("run.json")]);
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_gets_the_umask_s_permissions_and_a_replaced_one_keeps_its_own() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        // The process's umask, read by setting it and putting it back.
        // SAFETY: umask only swaps the process's file-creation mask.
        let umask = unsafe {
            let old = libc::umask(0o022);
            libc::umask(old);
            old
        };
        let new = dir.path().join("new.json");
        write_json_atomically(&new, &1).unwrap();
        assert_eq!(mode(&new), 0o666 & !(umask as u32));

        let old = dir.path().join("old.json");
        std::fs::write(&old, "old").unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_json_atomically(&old, &1).unwrap();
        assert_eq!(mode(&old), 0o640);
    }

    #[test]
    fn a_write_into_a_missing_directory_fails_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("run.json");
        let error = write_json_atomically(&path, &1).unwrap_err();
        assert!(format!("{error:#}").contains("cannot write"), "{error:#}");
    }
}
