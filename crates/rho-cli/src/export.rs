//! `--json FILE`: the run as a versioned JSON document (`rho-bench-run/1`, described in docs/json-output.md),
//! written atomically (or to stdout for `--json -`), its destination checked before the run.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

pub use rho_baseline::export::{RunDocument, SuiteInfo};

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
            JsonTarget::File(path) => Ok(write_json_atomically(path, value)?),
            JsonTarget::Stdout => {
                let text = rho_baseline::export::to_json_text(value)?;
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

pub use rho_baseline::export::{check_destination, write_json_atomically, write_text};

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
    Ok(write_text(path, "the HTML report", &page.render())?)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}

/// `--bmf FILE` and `--github-benchmark FILE`: the run for the dashboards projects already run
/// (docs/exports.md).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DashboardArgs {
    /// Also write the run in Bencher Metric Format (`bencher run --adapter json --file FILE`).
    #[arg(long, value_name = "FILE")]
    pub bmf: Option<PathBuf>,

    /// Also write the run as github-action-benchmark's `customSmallerIsBetter` list.
    #[arg(long, value_name = "FILE")]
    pub github_benchmark: Option<PathBuf>,
}

impl DashboardArgs {
    /// Whether either export was asked for.
    pub fn any(&self) -> bool {
        self.bmf.is_some() || self.github_benchmark.is_some()
    }

    pub fn destinations(&self) -> rho_baseline::dashboards::Destinations<'_> {
        rho_baseline::dashboards::Destinations {
            bmf: self.bmf.as_deref(),
            github_benchmark: self.github_benchmark.as_deref(),
        }
    }
}
