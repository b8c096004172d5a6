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
    // The run document is written while the text report is drawn: of a large import (100,000 benchmarks)
    // each is about a third of the time, and neither reads what the other makes.
    let (text, written) = std::thread::scope(|scope| {
        let writer = json.as_ref().map(|json| {
            let suite = SuiteInfo::imported(options.files.clone());
            let summary = &imported.summary;
            scope.spawn(move || json.write(&RunDocument::new(suite, summary)))
        });
        let text = rho_report::render_with(&imported.summary, &what, layout);
        (text, writer.map(std::thread::ScopedJoinHandle::join))
    });
    show(&mut out, &text);
    match written {
        Some(Ok(result)) => result?,
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        None => {}
    }
    let rho_import::Imported { summary, failed } = imported;
    // Moved, not copied: the summary of 100,000 benchmarks is a large copy, and nothing reads it after this.
    options.exports.write(&[(what, summary)])?;
    for benchmark in &failed {
        crate::say(&format!(
            "rho: {}: {} failed: {}",
            format.name(),
            benchmark.name,
            benchmark.message
        ));
    }
    Ok(if failed.is_empty() {
        0
    } else {
        crate::EXIT_CANNOT_DECIDE
    })
}
