//! `rho bench show RUN.json` and `rho bench compare A.json B.json`: their flags; the work is
//! rho_ops::saved's (runs saved by `--json`, read back, rendered and compared).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

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
    pub dashboards: crate::term::DashboardArgs,

    #[command(flatten)]
    pub output: crate::term::OutputArgs,
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
    #[arg(long, value_name = "-", value_parser = ["-"], conflicts_with_all = ["json", "bmf", "github_benchmark"])]
    pub wire: Option<String>,

    #[command(flatten)]
    pub dashboards: crate::term::DashboardArgs,

    #[command(flatten)]
    pub output: crate::term::OutputArgs,
}

/// `rho bench import`: rho_ops::import's recipe.
pub fn import(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    let options = rho_ops::import::Options {
        format: args.format.clone(),
        files: args.files.clone(),
        json: args.json.clone(),
        wire: args.wire.is_some(),
        exports: args.dashboards.exports(),
    };
    Ok(ExitCode::from(rho_ops::import::run(
        &options,
        &args.output,
    )?))
}

/// `rho bench show`: the text report on stdout, or the Markdown and/or HTML written to their files.
pub fn show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let options = rho_ops::saved::ShowOptions {
        run: args.run.clone(),
        markdown: args.markdown.clone(),
        html: args.html.clone(),
        exports: args.dashboards.exports(),
    };
    Ok(ExitCode::from(rho_ops::saved::show_run(
        &options,
        &args.output,
    )?))
}

/// `rho bench compare`: base against head with `--diff`'s rules; exit 1 on a regression beyond the limit.
pub fn compare(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let options = rho_ops::saved::CompareOptions {
        base: args.base.clone(),
        head: args.head.clone(),
        markdown: args.markdown.clone(),
        html: args.html.clone(),
        json: args.json.clone(),
    };
    Ok(ExitCode::from(rho_ops::saved::compare(
        &options,
        &args.output,
    )?))
}
