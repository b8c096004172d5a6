//! `rho bench import FORMAT FILE...`: other harnesses' reports as a rho run (crate rho-import, docs/import.md):
//! its text report, its `rho-bench-run/1` document and its exports; or with `--wire -` the run as a wire
//! stream, what the gate runs for another harness's suite.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::output::{Exports, RunDocument, SuiteInfo, Terminal, show};

/// What `rho bench import` was asked.
#[derive(Debug, Clone)]
pub struct Options {
    /// `gbench`, `criterion`, `hyperfine`, `gotest` or `pytest-benchmark`.
    pub format: String,
    pub files: Vec<PathBuf>,
    pub json: Option<PathBuf>,
    /// `--wire -`: the run as a wire stream on stdout, nothing else.
    pub wire: bool,
    pub exports: Exports,
}

/// The reports read as one run; the exit status (2 when the harness reported a benchmark as failed, each
/// named on stderr; the others' figures are still written).
pub fn run(options: &Options, terminal: &dyn Terminal) -> crate::Result<u8> {
    let format = rho_import::Format::from_name(&options.format)?;
    let files: Vec<&Path> = options.files.iter().map(PathBuf::as_path).collect();
    if options.wire {
        let stream = rho_import::wire_stream(format, &files)?;
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(stream.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(crate::Error::WireToStdout)?;
        return Ok(0);
    }
    let json = crate::output::prepare_json(options.json.as_deref())?;
    options.exports.check(json.as_ref())?;
    let imported = rho_import::import(format, &files)?;
    let what = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let (mut out, layout) = terminal.report(crate::output::report_to_stderr(
        json.as_ref(),
        &options.exports,
    ));
    show(
        &mut out,
        &rho_report::render_with(&imported.summary, &what, layout),
    );
    if let Some(json) = &json {
        let suite = SuiteInfo::imported(options.files.clone());
        json.write(&RunDocument::new(suite, &imported.summary))?;
    }
    options.exports.write(&[(what, imported.summary.clone())])?;
    for failed in &imported.failed {
        crate::say(&format!(
            "rho: {}: {} failed: {}",
            format.name(),
            failed.name,
            failed.message
        ));
    }
    Ok(if imported.failed.is_empty() {
        0
    } else {
        crate::EXIT_CANNOT_DECIDE
    })
}
