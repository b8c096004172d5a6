//! `rho bench show RUN.json` and `rho bench compare A.json B.json`: runs saved by `--json`, read back.
//!
//! A saved document is a `rho-bench-run/1` (one suite) or a `rho-bench-project/1` (every suite of a
//! module.yml); both carry each suite's whole summary, so the text report, the Markdown and the HTML page are
//! rendered from it exactly as they were from the run, and two of them compare through the baseline's one
//! comparison (`rho_baseline::compare_sections`), with the limits `--diff` uses.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use rho_stats::RunSummary;

/// `rho bench show RUN.json`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A document written by `rho bench --json` (`rho-bench-run/1` or `rho-bench-project/1`).
    #[arg(value_name = "RUN.json")]
    pub run: PathBuf,

    /// Write the report as Markdown tables instead of printing it.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Write the report as one self-contained HTML page (a chart per benchmark) instead of printing it.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    #[command(flatten)]
    pub dashboards: crate::export::DashboardArgs,

    #[command(flatten)]
    pub output: crate::term::OutputArgs,
}

/// `rho bench import FORMAT FILE... --json OUT`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The reports' format: gbench, criterion, hyperfine, gotest or pytest-benchmark.
    #[arg(value_name = "FORMAT")]
    pub format: String,

    /// The reports (for criterion, its target/criterion directory), their benchmarks in one run.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,

    /// Write the run as a `rho-bench-run/1` document (its `suite.sources` the files); `-` writes it to
    /// stdout, and the report goes to stderr.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Print the reports' run as a wire stream (docs/wire-format.md) on stdout instead of the report: what the
    /// gate runs for another harness's suite. Extra figures are not in a stream.
    #[arg(long, value_name = "-", value_parser = ["-"], conflicts_with = "json")]
    pub wire: Option<String>,

    #[command(flatten)]
    pub dashboards: crate::export::DashboardArgs,

    #[command(flatten)]
    pub output: crate::term::OutputArgs,
}

/// `rho bench import`: the reports read as one run (rho_import), its text report, its documents; exit 2
/// naming each benchmark the harness reported as failed.
pub fn import(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    let format = rho_import::Format::from_name(&args.format)?;
    let json = crate::export::prepare_json(args.json.as_deref())?;
    args.dashboards.destinations().check()?;
    let files: Vec<&Path> = args.files.iter().map(PathBuf::as_path).collect();
    if args.wire.is_some() {
        let stream = rho_import::wire_stream(format, &files)?;
        let mut out = std::io::stdout().lock();
        out.write_all(stream.as_bytes())
            .and_then(|()| out.flush())
            .context("cannot write the wire stream to stdout")?;
        return Ok(ExitCode::SUCCESS);
    }
    let imported = rho_import::import(format, &files)?;
    let what = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let (mut out, style) = crate::export::report_output(json.as_ref(), &args.output);
    let text = rho_report::render_with(&imported.summary, &what, style.layout);
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    if let Some(json) = &json {
        let suite = crate::export::SuiteInfo::imported(args.files.clone());
        json.write(&crate::export::RunDocument::new(suite, &imported.summary))?;
    }
    args.dashboards
        .destinations()
        .write(&[(&what, &imported.summary)])?;
    for failed in &imported.failed {
        eprintln!(
            "rho: {}: {} failed: {}",
            format.name(),
            failed.name,
            failed.message
        );
    }
    if imported.failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::from(2))
    }
}

/// `rho bench compare BASE.json HEAD.json`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The base: a document written by `rho bench --json`.
    #[arg(value_name = "BASE.json")]
    pub base: PathBuf,

    /// The head, compared with the base per benchmark and metric.
    #[arg(value_name = "HEAD.json")]
    pub head: PathBuf,

    /// Also write the comparison as a Markdown table (as `--diff --markdown` does).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Also write the comparison as one self-contained HTML page: per benchmark both histograms on one axis
    /// and each metric's base against head with its limit.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Also write the comparison as JSON (schema `rho-bench-compare/1`: its `comparison` object is the one
    /// `--diff --json` writes, see docs/json-output.md); `-` writes it to stdout and the text to stderr.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    #[command(flatten)]
    pub output: crate::term::OutputArgs,
}

pub use rho_baseline::export::{COMPARE_SCHEMA, CompareDocument};

pub use rho_baseline::saved::SavedSuite;

/// Reads a saved document's suites, in order (rho_baseline::saved::parse). Errors name the file, and for
/// malformed JSON the line and column and what was expected, for a figure no run produces the suite,
/// benchmark and field.
pub fn read(path: &Path) -> anyhow::Result<Vec<SavedSuite>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(rho_baseline::saved::parse(
        &text,
        &path.display().to_string(),
    )?)
}

/// `rho bench show`: the text report on stdout, or the Markdown and/or HTML written to their files.
pub fn show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let suites = read(&args.run)?;
    let exported: Vec<_> = suites
        .iter()
        .map(|s| (s.what.as_str(), &s.summary))
        .collect();
    args.dashboards.destinations().write(&exported)?;
    if args.markdown.is_none() && args.html.is_none() {
        let (mut out, style) = crate::export::report_output(None, &args.output);
        let mut text = String::new();
        for (index, suite) in suites.iter().enumerate() {
            if index > 0 {
                text.push('\n');
            }
            text.push_str(&rho_report::render_with(
                &suite.summary,
                &suite.what,
                style.layout,
            ));
        }
        // A closed stdout (`rho bench show x.json | head`) is not worth failing over.
        let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        return Ok(ExitCode::SUCCESS);
    }
    let parts: Vec<(&str, &RunSummary)> = suites
        .iter()
        .map(|s| (s.what.as_str(), &s.summary))
        .collect();
    if let Some(path) = &args.markdown {
        let markdown: String = parts
            .iter()
            .map(|(what, summary)| rho_report::markdown::render(summary, what))
            .collect::<Vec<_>>()
            .join("\n");
        crate::export::write_text(path, "the Markdown report", &markdown)?;
    }
    if let Some(path) = &args.html {
        let suites = parts
            .iter()
            .map(|&(what, summary)| rho_report::html::Suite {
                what,
                summary,
                judgement: None,
            })
            .collect();
        let title = format!("rho bench show {}", args.run.display());
        crate::export::write_html(path, &title, suites, None)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `rho bench compare`: base against head with `--diff`'s rules; exit 1 on a regression beyond the limit.
pub fn compare(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let json = args
        .json
        .as_deref()
        .map(crate::export::JsonTarget::prepare)
        .transpose()?;
    let base = read(&args.base)?;
    let head = read(&args.head)?;
    // The limits of the nearest module.yml, when there is one (as `--diff` judges), else the defaults.
    let config = crate::baseline::nearest_config()?;
    let limits = crate::baseline::Limits::of(config.as_ref());
    let comparison = rho_baseline::export::compare_saved(
        (&base, &args.base),
        (&head, &args.head),
        &limits,
        env!("CARGO_PKG_VERSION"),
    )?;
    let base_name = args.base.display().to_string();
    // The text: stdout, or stderr when `--json -` takes stdout.
    let (mut out, style) = crate::export::report_output(json.as_ref(), &args.output);
    let text = crate::baseline::comparison_text(&comparison, &base_name, style.layout);
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    if let Some(json) = &json {
        json.write(&CompareDocument {
            schema: COMPARE_SCHEMA,
            rho_version: env!("CARGO_PKG_VERSION"),
            base_file: base_name.clone(),
            head_file: args.head.display().to_string(),
            comparison: rho_baseline::ComparisonRecord::of(&comparison, &base_name),
        })?;
    }
    if let Some(path) = &args.markdown {
        let markdown = rho_baseline::render_markdown(&comparison, &base_name);
        crate::export::write_text(path, "the Markdown comparison", &markdown)?;
    }
    if let Some(path) = &args.html {
        let page = rho_report::html::Page {
            title: format!(
                "rho bench compare {} {}",
                args.base.display(),
                args.head.display()
            ),
            suites: head
                .iter()
                .map(|s| rho_report::html::Suite {
                    what: &s.what,
                    summary: &s.summary,
                    judgement: None,
                })
                .collect(),
            diff: Some(rho_report::html::Diff {
                comparison: &comparison,
                base_name: &base_name,
                base_runs: base.iter().map(|s| &s.summary).collect(),
            }),
            gate: None,
        };
        crate::export::write_text(path, "the HTML comparison", &page.render())?;
    }
    if comparison.failed() {
        let counts = comparison.counts();
        let _ = writeln!(
            out,
            "compare: {} metric(s) regressed and {} not measured: fails",
            counts.regressed, counts.not_measured
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
