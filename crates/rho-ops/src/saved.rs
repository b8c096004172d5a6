//! `rho bench show RUN.json` and `rho bench compare A.json B.json`: runs saved by `--json`, read back.
//!
//! A saved document is a `rho-bench-run/1` (one suite) or a `rho-bench-project/1` (every suite of a
//! module.yml); both carry each suite's whole summary, so the text report, the Markdown and the HTML page are
//! rendered from it exactly as they were from the run, and two of them compare through the baseline's one
//! comparison (`rho_compare::compare_sections`), with the limits `--diff` uses.

use std::path::{Path, PathBuf};

use rho_stats::RunSummary;

use crate::output::{Terminal, show, write_text};

pub use rho_baseline::saved::SavedSuite;
pub use rho_compare::{COMPARE_SCHEMA, CompareDocument};

/// What `rho bench show` was asked.
#[derive(Debug, Clone)]
pub struct ShowOptions {
    /// The saved run.
    pub run: PathBuf,
    pub markdown: Option<PathBuf>,
    pub html: Option<PathBuf>,
    /// `--bmf` and `--github-benchmark`: the saved run exported.
    pub exports: crate::output::Exports,
}

/// What `rho bench compare` was asked.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    pub base: PathBuf,
    pub head: PathBuf,
    pub markdown: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub json: Option<PathBuf>,
}

/// Reads a saved document's suites, in order (rho_baseline::saved::parse). Errors name the file, and for
/// malformed JSON the line and column and what was expected, for a figure no run produces the suite,
/// benchmark and field.
pub fn read(path: &Path) -> crate::Result<Vec<SavedSuite>> {
    let text = read_text(path)?;
    Ok(rho_baseline::saved::parse(
        &text,
        &path.display().to_string(),
    )?)
}

/// The text of the file at `path`.
pub(crate) fn read_text(path: &Path) -> crate::Result<String> {
    std::fs::read_to_string(path).map_err(|source| crate::Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// `rho bench show`: the text report on stdout, or the Markdown and/or HTML written to their files.
pub fn show_run(options: &ShowOptions, terminal: &dyn Terminal) -> crate::Result<u8> {
    let suites = read(&options.run)?;
    let exported: Vec<(String, RunSummary)> = suites
        .iter()
        .map(|s| (s.what.clone(), s.summary.clone()))
        .collect();
    options.exports.check(None)?;
    options.exports.write(&exported)?;
    if options.markdown.is_none() && options.html.is_none() {
        let (mut out, layout) = terminal.report(options.exports.takes_stdout());
        let text: Vec<String> = suites
            .iter()
            .map(|suite| rho_report::render_with(&suite.summary, &suite.what, layout))
            .collect();
        show(&mut out, &text.join("\n"));
        return Ok(0);
    }
    let parts: Vec<(&str, &RunSummary)> = suites
        .iter()
        .map(|s| (s.what.as_str(), &s.summary))
        .collect();
    if let Some(path) = &options.markdown {
        let markdown: String = parts
            .iter()
            .map(|(what, summary)| rho_report::markdown::render(summary, what))
            .collect::<Vec<_>>()
            .join("\n");
        write_text(path, "the Markdown report", &markdown)?;
    }
    if let Some(path) = &options.html {
        let suites = parts
            .iter()
            .map(|&(what, summary)| rho_report::html::Suite {
                what,
                summary,
                judgement: None,
            })
            .collect();
        let title = format!("rho bench show {}", options.run.display());
        crate::output::write_html(path, &title, suites, None)?;
    }
    Ok(0)
}

/// `rho bench compare`: base against head with `--diff`'s rules; exit 1 on a regression beyond the limit.
pub fn compare(options: &CompareOptions, terminal: &dyn Terminal) -> crate::Result<u8> {
    let json = crate::output::prepare_json(options.json.as_deref())?;
    let base = read(&options.base)?;
    let head = read(&options.head)?;
    // The limits of the nearest module.yml, when there is one (as `--diff` judges), else the defaults.
    let config = crate::output::nearest_config()?;
    let limits = crate::baseline::Limits::of(config.as_ref());
    let comparison = rho_compare::compare_saved(
        (&base, &options.base),
        (&head, &options.head),
        &limits,
        crate::VERSION,
    )?;
    let base_name = options.base.display().to_string();
    // The text: stdout, or stderr when `--json -` takes stdout.
    let (mut out, layout) = crate::output::report_output(terminal, json.as_ref());
    let text = crate::baseline::comparison_text(&comparison, &base_name, layout);
    show(&mut out, &text);
    if let Some(json) = &json {
        json.write(&CompareDocument {
            schema: COMPARE_SCHEMA,
            rho_version: crate::VERSION,
            base_file: base_name.clone(),
            head_file: options.head.display().to_string(),
            comparison: rho_compare::ComparisonRecord::of(&comparison, &base_name),
        })?;
    }
    if let Some(path) = &options.markdown {
        let markdown = rho_report::diff::render_markdown(&comparison, &base_name);
        write_text(path, "the Markdown comparison", &markdown)?;
    }
    if let Some(path) = &options.html {
        let page = rho_report::html::Page {
            title: format!(
                "rho bench compare {} {}",
                options.base.display(),
                options.head.display()
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
        write_text(path, "the HTML comparison", &page.render())?;
    }
    if comparison.failed() {
        let counts = comparison.counts();
        show(
            &mut out,
            &format!(
                "compare: {} metric(s) regressed and {} not measured: fails\n",
                counts.regressed, counts.not_measured
            ),
        );
        return Ok(1);
    }
    Ok(0)
}
