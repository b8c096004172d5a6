//! `--json FILE`: the run as a versioned JSON document (`rho-bench-run/1`, described in docs/json-output.md),
//! written atomically (or to stdout for `--json -`), its destination checked before the run.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use rho_stats::RunSummary;
use serde::Serialize;

/// The schema name and version of the document. A change that alters the meaning of an existing field bumps it.
pub const SCHEMA: &str = rho_baseline::saved::RUN_SCHEMA;

/// The document: what rho was asked to do, then the run's summary (its fields at the top level).
#[derive(Debug, Serialize)]
pub struct RunDocument<'a> {
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
    pub comparison: Option<&'a rho_baseline::ComparisonRecord>,
}

/// How the suite was built and run.
#[derive(Debug, Clone, Serialize)]
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

impl<'a> RunDocument<'a> {
    pub fn new(suite: SuiteInfo, summary: &'a RunSummary) -> Self {
        RunDocument {
            schema: SCHEMA,
            rho_version: env!("CARGO_PKG_VERSION"),
            suite,
            summary,
            families: rho_stats::families(summary),
            comparison: None,
        }
    }
}

/// Where `--json` goes: `-` is standard output, anything else a file written atomically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonTarget {
    /// `--json -`: the document is all that goes to stdout; the human report goes to stderr.
    Stdout,
    File(PathBuf),
}

impl JsonTarget {
    /// Read `--json`'s argument and, for a file, check before anything runs that it can be written: its
    /// directory exists and a file can be created in it, and it is not itself a directory. A run of minutes
    /// must not end in "cannot write".
    pub fn prepare(path: &Path) -> anyhow::Result<JsonTarget> {
        if path.as_os_str() == "-" {
            return Ok(JsonTarget::Stdout);
        }
        check_destination("--json", path)?;
        Ok(JsonTarget::File(path.to_path_buf()))
    }

    /// Whether the document takes stdout (and the human report must go elsewhere).
    pub fn is_stdout(&self) -> bool {
        *self == JsonTarget::Stdout
    }

    /// Write `value` as pretty JSON here.
    pub fn write(&self, value: &impl Serialize) -> anyhow::Result<()> {
        match self {
            JsonTarget::File(path) => write_json_atomically(path, value),
            JsonTarget::Stdout => {
                let text = to_json_text(value)?;
                // JSON has no raw C0 control; DEL and C1 controls (a saved run's names) are escaped the JSON way.
                let mut stdout = rho_text::Escaped(std::io::stdout().lock());
                stdout
                    .write_all(text.as_bytes())
                    .and_then(|()| stdout.flush())
                    .context("cannot write the JSON document to stdout")
            }
        }
    }
}

/// Checks before anything runs that `flag`'s file `path` can be written: its directory exists and a file can
/// be created in it, and it is not itself a directory. A run of minutes must not end in "cannot write".
pub fn check_destination(flag: &str, path: &Path) -> anyhow::Result<()> {
    let parent = parent_dir(path);
    if !parent.is_dir() {
        bail!(
            "{flag} {}: the directory {} does not exist",
            path.display(),
            parent.display()
        );
    }
    if path.is_dir() {
        bail!("{flag} {}: is a directory", path.display());
    }
    // The write itself is a new file beside `path` renamed over it: that is what must be possible.
    tempfile::Builder::new()
        .prefix(".rho-json-")
        .tempfile_in(parent)
        .map_err(|error| {
            anyhow::anyhow!(
                "{flag} {}: cannot create a file in {}: {error}",
                path.display(),
                parent.display()
            )
        })?;
    Ok(())
}

/// `--html FILE`: the page of `suites` (each with its budgets when judged) and of the comparison with the
/// baseline when there was one, written atomically.
pub fn write_html(
    path: &Path,
    title: &str,
    suites: Vec<rho_report::html::Suite>,
    comparison: Option<(&rho_baseline::Comparison, &str)>,
) -> anyhow::Result<()> {
    let page = rho_report::html::Page {
        title: title.to_string(),
        suites,
        diff: comparison.map(|(comparison, base_name)| rho_report::html::Diff {
            comparison,
            base_name,
            base_runs: Vec::new(),
        }),
        gate: None,
    };
    write_text(path, "the HTML report", &page.render())
}

/// `--json`'s argument, prepared (see [`JsonTarget::prepare`]).
pub fn prepare_json(path: Option<&Path>) -> anyhow::Result<Option<JsonTarget>> {
    path.map(JsonTarget::prepare).transpose()
}

/// Where the human report goes: stdout, or stderr when `--json -` takes stdout; and how it is laid out and
/// coloured there (the writer paints it when colour is on).
pub fn report_output(
    json: Option<&JsonTarget>,
    output: &crate::term::OutputArgs,
) -> (Box<dyn Write>, crate::term::Style) {
    let (stream, writer): (_, Box<dyn Write>) = if json.is_some_and(JsonTarget::is_stdout) {
        (crate::term::Stream::Stderr, Box::new(std::io::stderr()))
    } else {
        (
            crate::term::Stream::Stdout,
            Box::new(std::io::stdout().lock()),
        )
    };
    let style = crate::term::Style::new(output, stream);
    (style.writer(writer), style)
}

fn to_json_text(value: &impl Serialize) -> anyhow::Result<String> {
    let mut text = serde_json::to_string_pretty(value).context("cannot encode the run as JSON")?;
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
pub fn write_json_atomically(path: &Path, value: &impl Serialize) -> anyhow::Result<()> {
    let parent = parent_dir(path);
    let text = to_json_text(value)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".rho-json-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // The mode given at creation is what the umask applies to (a temporary file is otherwise 0600).
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut file = builder.tempfile_in(parent).with_context(|| {
        format!(
            "cannot write {}: cannot create a file in {}",
            path.display(),
            parent.display()
        )
    })?;
    if path.exists() {
        rho_baseline::store::keep_permissions(path, file.as_file());
    }
    file.write_all(text.as_bytes())
        .and_then(|()| file.as_file().sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.persist(path)
        .map_err(|error| error.error)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Writes `text` to `path` atomically (`what` names it in errors).
pub fn write_text(path: &Path, what: &str, text: &str) -> anyhow::Result<()> {
    rho_baseline::store::write_atomic(path, what, |w| {
        w.write_all(text.as_bytes())
            .map_err(|error| rho_baseline::Error::Io {
                path: path.to_path_buf(),
                action: format!("writing {what}"),
                error,
            })
    })?;
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
    fn the_destination_is_checked_before_the_run() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            JsonTarget::prepare(Path::new("-")).unwrap(),
            JsonTarget::Stdout
        );
        let fine = dir.path().join("run.json");
        assert_eq!(
            JsonTarget::prepare(&fine).unwrap(),
            JsonTarget::File(fine.clone())
        );
        let missing = dir.path().join("missing").join("run.json");
        let error = JsonTarget::prepare(&missing).unwrap_err().to_string();
        assert!(error.contains("does not exist"), "{error}");
        let error = JsonTarget::prepare(dir.path()).unwrap_err().to_string();
        assert!(error.contains("is a directory"), "{error}");
        // The check leaves nothing behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_write_into_a_missing_directory_fails_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("run.json");
        let error = write_json_atomically(&path, &1).unwrap_err();
        assert!(format!("{error:#}").contains("cannot write"), "{error:#}");
    }
}
