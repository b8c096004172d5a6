//! `rho bench merge SHARD.json...`: the shares of a `--shard K/N` run read back and merged into the run one
//! machine would have made (rho_shard::merge and rho_shard::finish), its report shown and its documents
//! written; the exit status is the command's the shares ran.

use std::path::PathBuf;

use crate::output::{Terminal, show, write_text};

/// What `rho bench merge` was asked.
#[derive(Debug, Clone)]
pub struct Options {
    /// The shares' documents, in any order.
    pub shares: Vec<PathBuf>,
    pub json: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// Reads the shares, merges and judges them with the nearest module.yml, shows the report and writes the
/// documents; the exit status (0, 1, 2).
pub fn run(options: &Options, terminal: &dyn Terminal) -> crate::Result<u8> {
    let json = crate::output::prepare_json(options.json.as_deref())?;
    for (flag, path) in [("--markdown", &options.markdown), ("--html", &options.html)] {
        if let Some(path) = path {
            crate::output::check_destination(flag, path)?;
        }
    }
    let mut files = Vec::new();
    for path in &options.shares {
        let text = crate::saved::read_text(path)?;
        files.push((path.display().to_string(), text));
    }
    let shares = rho_shard::merge::merge(&files)?;
    let config = rho_config::load_nearest(&crate::output::current_dir()?)?;
    let (mut out, layout) = crate::output::report_output(terminal, json.as_ref());
    let merged = rho_shard::finish::finish(shares, &config, layout)?;
    show(&mut out, &merged.text);
    if let (Some(path), Some(markdown)) = (&options.markdown, &merged.markdown) {
        write_text(path, "the Markdown comparison", markdown)?;
    }
    if let Some(path) = &options.html {
        let suites = merged
            .judged
            .iter()
            .map(|(what, summary, judgement)| rho_report::html::Suite {
                what,
                summary,
                judgement: Some(judgement),
            })
            .collect();
        let diff = merged
            .comparison
            .as_ref()
            .map(|(c, base)| (c, base.as_str()));
        let title = format!("rho bench merge: {}", config.file.display());
        crate::output::write_html(path, &title, suites, diff)?;
    }
    if let Some(json) = &json {
        json.write(&merged.document)?;
    }
    Ok(merged.code)
}
