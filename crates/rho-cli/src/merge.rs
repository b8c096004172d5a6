//! `rho bench merge SHARD.json...`: the shares of a `--shard K/N` run read back, merged and judged by
//! rho-shard; here only the files are read and written.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;

use crate::cli::MergeArgs;

/// Reads the shares, merges them with the nearest module.yml, prints the report and writes the documents.
pub fn run(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    let json = crate::export::prepare_json(args.json.as_deref())?;
    for (flag, path) in [("--markdown", &args.markdown), ("--html", &args.html)] {
        if let Some(path) = path {
            crate::export::check_destination(flag, path)?;
        }
    }
    let mut files = Vec::new();
    for path in &args.shares {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        files.push((path.display().to_string(), text));
    }
    let shares = rho_shard::merge::merge(&files)?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let config = rho_config::load_nearest(&cwd)?;
    let (mut out, style) = crate::export::report_output(json.as_ref(), &args.output);
    let merged = rho_shard::finish::finish(shares, &config, style.layout)?;
    let _ = out
        .write_all(merged.text.as_bytes())
        .and_then(|()| out.flush());
    if let (Some(path), Some(markdown)) = (&args.markdown, &merged.markdown) {
        rho_baseline::export::write_text(path, "the Markdown comparison", markdown)?;
    }
    if let Some(path) = &args.html {
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
        crate::export::write_html(path, &title, suites, diff)?;
    }
    if let Some(json) = &json {
        json.write(&merged.document)?;
    }
    Ok(ExitCode::from(merged.code))
}
