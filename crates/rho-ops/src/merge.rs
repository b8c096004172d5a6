//! `rho bench merge SHARD.json...`: the shares of a `--shard K/N` run read back and put together
//! (rho_shard::merge), then judged, compared and closed as [`crate::module`] closes a run on one machine (the
//! same budgets, `--diff` comparison over the whole run, report, document and exit status).

use std::path::PathBuf;

use rho_config::ModuleConfig;
use rho_report::documents::{FailedSuite, PROJECT_SCHEMA, ProjectDocument, SuiteRecord};
use rho_shard::merge::Shares;

use crate::Error;
use crate::module::{Ending, Mode};
use crate::output::{Terminal, show};

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
/// documents; the exit status (0, 1, 2) of the command the shares ran.
pub fn run(options: &Options, terminal: &dyn Terminal) -> crate::Result<u8> {
    let json = crate::output::prepare_json(options.json.as_deref())?;
    if let Some(html) = &options.html {
        crate::output::check_destination("--html", html)?;
    }
    let mut files = Vec::new();
    for path in &options.shares {
        files.push((path.display().to_string(), crate::saved::read_text(path)?));
    }
    if files
        .first()
        .is_some_and(|(_, text)| rho_shard::gate::is_gate_document(text))
    {
        return merge_gate(options, &files, json.as_ref(), terminal);
    }
    if files
        .first()
        .is_some_and(|(_, text)| rho_shard::files::is_run_document(text))
    {
        return merge_files(options, &files, json.as_ref(), terminal);
    }
    let shares = rho_shard::merge::merge(&files)?;
    let config = rho_config::load_nearest(&crate::output::current_dir()?)?;
    let target = config.target(Some(&shares.target))?;
    let jobs = rho_suite::engine::jobs(&config, &target)?;
    let plan = compare_plan(&shares.record, (&config.root, Some(&config), None), options)?;
    let mode = match shares.record.command.as_str() {
        "check" => Mode::Check,
        _ => Mode::Report,
    };
    let measure = rho_config::Measure::parse(&shares.record.measure).unwrap_or(config.measure);
    let (mut out, layout) = crate::output::report_output(terminal, json.as_ref());
    let mut judgements = Vec::new();
    let mut records = Vec::new();
    for (index, (what, summary)) in shares.suites.iter().enumerate() {
        // A command suite runs on the host whatever the target, and its budgets are the host's.
        let command = jobs
            .iter()
            .any(|j| j.what == *what && j.command().is_some());
        let budget_target = if command {
            summary.target.name.as_str()
        } else {
            target.name()
        };
        let judgement =
            rho_judge::budget::judge_suite(&config, budget_target, summary, measure, shares.scale);
        let mut text = rho_report::verdicts::suite_report(summary, what, &judgement, layout);
        if index + 1 < shares.suites.len() {
            text.push('\n');
        }
        show(&mut out, &text);
        records.push(SuiteRecord {
            suite: what.clone(),
            budgets: rho_report::verdicts::BudgetsRecord::of(&judgement),
            families: rho_stats::families(summary),
            summary: summary.clone(),
        });
        judgements.push((what.clone(), judgement));
    }
    let finished = crate::baseline::finish(
        &plan,
        Some(&config),
        target.name(),
        &shares.suites,
        None,
        &mut out,
        layout,
    )?;
    if let Some(path) = &options.html {
        let pages = judgements
            .iter()
            .zip(&shares.suites)
            .map(
                |((what, judgement), (_, summary))| rho_report::html::Suite {
                    what,
                    summary,
                    judgement: Some(judgement),
                },
            )
            .collect();
        let title = format!("rho bench merge: {}", config.file.display());
        crate::output::write_html(path, &title, pages, finished.diff())?;
    }
    let failed: Vec<FailedSuite> = shares
        .failed
        .iter()
        .map(|(suite, error)| FailedSuite {
            suite: suite.clone(),
            error: error.clone(),
        })
        .collect();
    if let Some(json) = &json {
        json.write(&ProjectDocument {
            schema: PROJECT_SCHEMA,
            rho_version: crate::VERSION,
            module: shares.module.clone(),
            target: shares.target.clone(),
            scale: shares.scale,
            repetitions: shares.repetitions,
            suites: records,
            failed: &failed,
            comparison: finished.record.as_ref(),
            shard: None,
        })?;
    }
    let unmatched = unmatched(&shares, &config, &jobs, &failed, &judgements);
    let ending = Ending {
        mode,
        unmatched: &unmatched,
        failed: &failed,
        total: jobs.len(),
        width: layout.width,
    };
    Ok(ending.close(&judgements, &finished, &mut out))
}

/// The shares of `rho bench gate --shard K/N` merged (rho_shard::gate): the verdict and what regressed on
/// the report's stream, the merged gate document to `--json`; the gate's exit status (0, 1, 2).
fn merge_gate(
    options: &Options,
    files: &[(String, String)],
    json: Option<&crate::output::JsonTarget>,
    terminal: &dyn Terminal,
) -> crate::Result<u8> {
    if options.markdown.is_some() || options.html.is_some() {
        return Err(Error::Refused(
            "--markdown and --html are for run documents; a gate's shares merge to its --json"
                .to_string(),
        ));
    }
    let merged = rho_shard::gate::merge(files)?;
    let (mut out, _) = crate::output::report_output(terminal, json);
    let mut text = format!(
        "rho bench merge: the gate's {} shares: {} metrics, verdict {}\n",
        files.len(),
        merged.document["metrics"]
            .as_object()
            .map_or(0, |m| m.len()),
        merged.verdict
    );
    for metric in &merged.regressed {
        text.push_str(&format!("  regressed: {metric}\n"));
    }
    for failure in &merged.failed {
        text.push_str(&format!("  share {failure}\n"));
    }
    show(&mut out, &text);
    if let Some(json) = json {
        // One line, as the gate writes its own document.
        crate::gate::write_document(json, &merged.document)?;
    }
    Ok(merged.exit_code())
}

/// The shares of `rho bench FILE.c --shard K/N` merged (rho_shard::files) into the suite's run, reported,
/// compared with the baseline at the shares' `--diff` ref (in the current directory, as the run reads it)
/// and written as the unsharded run writes it; its exit status (1 on a regression past its limit).
fn merge_files(
    options: &Options,
    files: &[(String, String)],
    json: Option<&crate::output::JsonTarget>,
    terminal: &dyn Terminal,
) -> crate::Result<u8> {
    let shares = rho_shard::files::merge(files)?;
    let cwd = crate::output::current_dir()?;
    let target = shares.summary.target.name.clone();
    let plan = compare_plan(&shares.record, (&cwd, None, Some(&target)), options)?;
    let (mut out, layout) = crate::output::report_output(terminal, json);
    show(
        &mut out,
        &rho_report::render_with(&shares.summary, &shares.what, layout),
    );
    let summaries = [(shares.what.clone(), shares.summary)];
    let finished =
        crate::baseline::finish(&plan, None, &target, &summaries, None, &mut out, layout)?;
    let (what, summary) = &summaries[0];
    if let Some(json) = json {
        let document = crate::output::RunDocument::new(shares.suite.clone(), summary)
            .with_comparison(finished.record.as_ref());
        json.write(&document)?;
    }
    if let Some(html) = &options.html {
        let suite = rho_report::html::Suite {
            what,
            summary,
            judgement: None,
        };
        let title = format!("rho bench merge: {what}");
        crate::output::write_html(html, &title, vec![suite], finished.diff())?;
    }
    Ok(crate::baseline::diff_code(&finished, &mut out))
}

/// The baseline's plan for the shares' `--diff REF` (and `--markdown`), read at `root` (with module.yml's
/// `config`, or the baseline of a suite of files for `target`) at the commit the shares compared with: a
/// ref that has moved since is refused.
fn compare_plan(
    record: &rho_shard::record::ShardRecord,
    (root, config, target): (&std::path::Path, Option<&ModuleConfig>, Option<&str>),
    options: &Options,
) -> crate::Result<rho_compare::plan::Plan> {
    if options.markdown.is_some() && record.diff.is_none() {
        return Err(Error::Refused(
            "--markdown writes the comparison with the baseline, and the shares ran without --diff REF"
                .to_string(),
        ));
    }
    let request = rho_compare::plan::Request {
        write: false,
        diff: record.diff.clone(),
        markdown: options.markdown.clone(),
    };
    let plan = crate::baseline::prepare(&request, root, config, target)?;
    if let (Some((_, source)), Some(then)) = (&plan.base, &record.diff_commit)
        && source.commit != *then
    {
        return Err(rho_shard::Error::RefMoved {
            git_ref: source.git_ref.clone(),
            then: then.clone(),
            now: source.commit.clone(),
        }
        .into());
    }
    Ok(plan)
}

/// Budgets that name no benchmark, as a run on one machine finds them: only when every suite ran, unfiltered,
/// and none was left out (a target's own commands are not counted under instructions alone).
fn unmatched(
    shares: &Shares,
    config: &ModuleConfig,
    jobs: &[rho_suite::engine::Job],
    failed: &[FailedSuite],
    judgements: &[(String, rho_judge::budget::Judgement)],
) -> Vec<String> {
    let skipped = shares.record.measure == "instructions"
        && jobs
            .iter()
            .any(|j| matches!(j.kind, rho_suite::engine::JobKind::TargetOnly));
    if failed.is_empty() && shares.record.filter.is_none() && !skipped {
        rho_report::verdicts::unmatched_budgets(config, &shares.target, judgements)
    } else {
        Vec::new()
    }
}
