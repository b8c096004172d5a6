//! Other harnesses' reports as rho runs: each format is read into the same [`rho_stats::RunSummary`] a wire
//! stream gives, so check, budgets, `--diff`, the baseline, compare, show, reports and history take an
//! imported run with no special case.
//!
//! The formats and versions read (one module each):
//!
//! - [`gbench`]: Google Benchmark's `--benchmark_format=json` (the `context` and `benchmarks` document of
//!   library versions 1.5 to 1.9; tested on 1.7.1). Each repetition's `real_time` is a sample; `cpu_time`, the
//!   user counters and `bytes_per_second`/`items_per_second` are extra metrics; aggregates (`run_type:
//!   aggregate`) are dropped, rho computes its own; a benchmark with `error_occurred` is a failed benchmark.
//! - [`criterion`]: what criterion 0.3 to 0.5 writes under `target/criterion`: each benchmark's
//!   `new/sample.json` (`iters` and `times`, each sample's time over its iterations) named by its
//!   `new/benchmark.json` (`full_id`: `group/function/parameter`).
//! - [`hyperfine`]: `hyperfine --export-json` (1.x): each command's `times` (seconds) are its samples; a
//!   command with a non-zero exit code is a failed benchmark.
//! - [`gotest`]: the text of `go test -bench` (Go 1.x): each result line is a sample (`-count N` gives N);
//!   `ns/op` is the time, every other `VALUE UNIT` pair (`B/op`, `allocs/op`, `MB/s`, custom metrics) an
//!   extra metric; a `--- FAIL: Benchmark...` line is a failed benchmark.
//! - [`pytest`]: pytest-benchmark's `--benchmark-json` (versions 3 to 5): the raw per-round times in
//!   `stats.data` when present, else the statistics only, marked [`rho_stats::BenchSummary::stats_only`].
//!
//! How the samples become a run is one function for every format ([`build`]): per-iteration nanoseconds,
//! a clock of 1/1000 ns, rho's statistics over them. A document of no known format or of an unknown version
//! is an [`ImportError`] naming the file and the field.
//!
//! It must not know about budgets, baselines, suites, or how a figure is shown: it reads files into runs. Of
//! rho's crates it knows only rho-wire and rho-stats.

mod build;
mod checked;
pub mod criterion;
mod error;
mod format;
pub mod gbench;
pub mod gotest;
pub mod hyperfine;
mod json;
pub mod pytest;
mod report;

use std::collections::HashMap;
use std::path::Path;

pub use build::{IMPORT_BATCH, build, complete, run_of, run_with, wire_names};
pub use checked::MAX_NS_PER_ITERATION;
pub use error::ImportError;
pub use format::Format;
pub use report::{ExtraSamples, Failed, Report, Sampled};
use rho_stats::RunSummary;

/// What one or more reports gave: the run of every benchmark that has figures, and the ones that failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub summary: RunSummary,
    pub failed: Vec<Failed>,
}

/// Reads `files` as `format` (each a report; for criterion a `target/criterion` directory or one
/// benchmark's directory) and builds one run of all their benchmarks, in the order read. A benchmark named
/// twice is an error naming both files.
pub fn import(format: Format, files: &[&Path]) -> Result<Imported, ImportError> {
    let mut all = Report::default();
    // Each name's file, by name: one lookup a benchmark.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (index, file) in files.iter().enumerate() {
        let report = read(format, file)?;
        for bench in &report.benchmarks {
            if let Some(&first) = seen.get(&bench.name) {
                return Err(ImportError::Duplicate {
                    name: bench.name.clone(),
                    first: files[first].display().to_string(),
                    second: file.display().to_string(),
                });
            }
            seen.insert(bench.name.clone(), index);
        }
        all.benchmarks.extend(report.benchmarks);
        all.failed.extend(report.failed);
    }
    let what = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let summary = build(format, &what, all.benchmarks)?;
    Ok(Imported {
        summary,
        failed: all.failed,
    })
}

/// The reports' run as a wire stream (`rho bench import --wire -`, what the gate reads for another
/// harness's suite): [`run_of`] with its numbered names made family members ([`wire_names`]), then after its `@done` the
/// extra figures a stream cannot carry, one [`rho_stats::EXTRA_LINE`] (none without any). A benchmark the
/// harness reported as failed is an error naming it.
pub fn wire_stream(format: Format, files: &[&Path]) -> Result<String, ImportError> {
    let mut benchmarks = Vec::new();
    for file in files {
        let report = read(format, file)?;
        if let Some(failed) = report.failed.into_iter().next() {
            return Err(ImportError::Failed {
                format: format.name(),
                name: failed.name,
                message: failed.message,
            });
        }
        benchmarks.extend(report.benchmarks);
    }
    let what = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let mut run = run_of(format, &what, &benchmarks)?;
    wire_names(&mut run);
    let mut text = rho_wire::run_to_string(&run).map_err(|error| ImportError::Wire {
        what,
        message: error.to_string(),
    })?;
    text.push_str(&build::extra_line(&run, &benchmarks));
    Ok(text)
}

/// Reads one report of `format`: its benchmarks, each named once with every figure in range for its unit
/// (an error names the file, the benchmark and the field).
pub fn read(format: Format, file: &Path) -> Result<Report, ImportError> {
    let report = read_unchecked(format, file)?;
    checked::check(format, &file.display().to_string(), &report)?;
    Ok(report)
}

fn read_unchecked(format: Format, file: &Path) -> Result<Report, ImportError> {
    match format {
        Format::Criterion => criterion::read(file),
        Format::Gbench => gbench::parse(&json::read_text(file)?, &file.display().to_string()),
        Format::Hyperfine => hyperfine::parse(&json::read_text(file)?, &file.display().to_string()),
        Format::Gotest => gotest::parse(&json::read_text(file)?, &file.display().to_string()),
        Format::PytestBenchmark => {
            pytest::parse(&json::read_text(file)?, &file.display().to_string())
        }
    }
}
