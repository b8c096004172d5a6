//! Where a command's outputs go: the human report (to a [`Terminal`] the binary provides), `--json` (a file
//! written atomically, or stdout), `--html` (a page written atomically). Every destination is checked before
//! anything runs: a run of minutes must not end in "cannot write".

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use rho_baseline::export::{
    RunDocument, SuiteInfo, check_destination, write_json_atomically, write_text,
};

/// The terminal, as the binary knows it: where the human report goes and how it is laid out there.
pub trait Terminal {
    /// The human report's writer and layout: stdout, or stderr when `to_stderr` (`--json -` takes stdout).
    /// What is written through it is escaped (and painted when colour is on there).
    fn report(&self, to_stderr: bool) -> (Box<dyn Write>, rho_report::Layout);

    /// The columns stdout (or stderr when `to_stderr`) may use, as they are: a report's [`rho_report::Layout`]
    /// never goes below its minimum, the gate's text takes them unchanged.
    fn columns(&self, to_stderr: bool) -> usize;

    /// A writer of plain lines (escaped, never painted): stdout, or stderr when `to_stderr`.
    fn plain(&self, to_stderr: bool) -> Box<dyn Write> {
        if to_stderr {
            Box::new(rho_text::Escaped(std::io::stderr().lock()))
        } else {
            Box::new(rho_text::Escaped(std::io::stdout().lock()))
        }
    }
}

/// `text` written to `out` and flushed. A closed stdout (`rho bench | head`) is not worth failing over: the
/// exit status still tells.
pub(crate) fn show(out: &mut dyn Write, text: &str) {
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
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
    /// directory exists and a file can be created in it, and it is not itself a directory.
    pub fn prepare(path: &Path) -> crate::Result<JsonTarget> {
        if is_stdout(path) {
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
    pub fn write(&self, value: &impl Serialize) -> crate::Result<()> {
        match self {
            JsonTarget::File(path) => Ok(write_json_atomically(path, value)?),
            JsonTarget::Stdout => {
                let text = rho_baseline::export::to_json_text(value)?;
                // JSON has no raw C0 control; DEL and C1 controls (a saved run's names) are escaped the JSON way.
                let mut stdout = rho_text::Escaped(std::io::stdout().lock());
                stdout
                    .write_all(text.as_bytes())
                    .and_then(|()| stdout.flush())
                    .map_err(crate::Error::JsonToStdout)
            }
        }
    }
}

/// `--json`'s argument, prepared (see [`JsonTarget::prepare`]).
pub fn prepare_json(path: Option<&Path>) -> crate::Result<Option<JsonTarget>> {
    path.map(JsonTarget::prepare).transpose()
}

/// The human report's writer and layout on `terminal`: stdout, or stderr when `--json -` takes stdout.
pub fn report_output(
    terminal: &dyn Terminal,
    json: Option<&JsonTarget>,
) -> (Box<dyn Write>, rho_report::Layout) {
    terminal.report(json.is_some_and(JsonTarget::is_stdout))
}

/// `--html FILE`: the page of `suites` (each with its budgets when judged) and of the comparison with the
/// baseline when there was one, written atomically.
pub fn write_html(
    path: &Path,
    title: &str,
    suites: Vec<rho_report::html::Suite>,
    comparison: Option<(&rho_compare::Comparison, &str)>,
) -> crate::Result<()> {
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

/// The nearest module.yml at or above the current directory, read; `None` when there is none (a broken one is
/// an error: its settings were meant).
pub fn nearest_config() -> crate::Result<Option<rho_config::ModuleConfig>> {
    Ok(rho_config::nearest(&current_dir()?)?)
}

/// The current directory.
pub fn current_dir() -> crate::Result<PathBuf> {
    std::env::current_dir().map_err(crate::Error::CurrentDir)
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
/// (docs/exports.md), written by rho_baseline::dashboards.
#[derive(Debug, Clone, Default)]
pub struct Exports {
    pub bmf: Option<PathBuf>,
    pub github_benchmark: Option<PathBuf>,
}

impl Exports {
    /// Whether either export was asked for.
    pub fn any(&self) -> bool {
        self.bmf.is_some() || self.github_benchmark.is_some()
    }

    /// Whether an export is `-`, standard output (the human report then goes to stderr, as for `--json -`).
    pub fn takes_stdout(&self) -> bool {
        [&self.bmf, &self.github_benchmark]
            .into_iter()
            .any(|path| path.as_deref().is_some_and(is_stdout))
    }

    /// The exports written to files (`-` left out).
    pub fn destinations(&self) -> rho_baseline::dashboards::Destinations<'_> {
        fn file(path: &Option<PathBuf>) -> Option<&Path> {
            path.as_deref().filter(|path| !is_stdout(path))
        }
        rho_baseline::dashboards::Destinations {
            bmf: file(&self.bmf),
            github_benchmark: file(&self.github_benchmark),
        }
    }

    /// Before a run: each export's file can be written, and at most one output, of these and `json`, is `-`
    /// (two documents on one stdout would be neither).
    pub fn check(&self, json: Option<&JsonTarget>) -> crate::Result<()> {
        let on_stdout: Vec<&str> = [
            ("--json", json.is_some_and(JsonTarget::is_stdout)),
            ("--bmf", self.bmf.as_deref().is_some_and(is_stdout)),
            (
                "--github-benchmark",
                self.github_benchmark.as_deref().is_some_and(is_stdout),
            ),
        ]
        .into_iter()
        .filter_map(|(flag, stdout)| stdout.then_some(flag))
        .collect();
        if on_stdout.len() > 1 {
            return Err(crate::Error::Refused(format!(
                "{}: only one output can be stdout (-); give the others a file",
                on_stdout.join(" - and ") + " -"
            )));
        }
        Ok(self.destinations().check()?)
    }

    /// Writes each export asked for of `suites` (what each was, its summary): a file atomically, `-` to stdout.
    pub fn write(&self, suites: &[(String, rho_stats::RunSummary)]) -> crate::Result<()> {
        let suites: Vec<(&str, &rho_stats::RunSummary)> = suites
            .iter()
            .map(|(what, summary)| (what.as_str(), summary))
            .collect();
        self.destinations().write(&suites)?;
        if self.bmf.as_deref().is_some_and(is_stdout) {
            JsonTarget::Stdout.write(&rho_baseline::dashboards::bmf(&suites))?;
        }
        if self.github_benchmark.as_deref().is_some_and(is_stdout) {
            JsonTarget::Stdout.write(&rho_baseline::dashboards::github_benchmark(&suites))?;
        }
        Ok(())
    }
}

/// Whether an output's path is `-`, standard output.
fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether the human report goes to stderr: `--json -` or an export to `-` takes stdout.
pub fn report_to_stderr(json: Option<&JsonTarget>, exports: &Exports) -> bool {
    json.is_some_and(JsonTarget::is_stdout) || exports.takes_stdout()
}
