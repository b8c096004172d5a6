//! The merged run judged and written as the run on one machine would have been: each suite's report and
//! budgets (`rho_judge::budget::judge_suite`), the comparison with the baseline at the shares' `--diff REF`
//! (`rho_baseline::plan`), the `rho-bench-project/1` document without a `shard` object, and the exit status
//! of the command the shares ran (0, 1, 2).

use rho_config::{Measure, ModuleConfig};
use rho_judge::budget::Judgement;
use rho_report::documents::{FailedSuite, PROJECT_SCHEMA, ProjectDocument, SuiteRecord};
use rho_stats::RunSummary;

use crate::error::Error;
use crate::merge::Shares;

/// What the merge prints and writes.
#[derive(Debug)]
pub struct Merged {
    /// The report, as the run on one machine prints it on stdout.
    pub text: String,
    /// The `rho-bench-project/1` document.
    pub document: serde_json::Value,
    /// With `--diff`: the comparison as Markdown (and each suite's families), for a pull-request comment.
    pub markdown: Option<String>,
    /// Each suite judged, for the HTML page.
    pub judged: Vec<(String, RunSummary, Judgement)>,
    /// The comparison and where its base came from, for the HTML page.
    pub comparison: Option<(rho_baseline::Comparison, String)>,
    /// 0, 1 or 2, as `rho bench` or `rho bench check` would have exited.
    pub code: u8,
}

/// Judges `shares` with `config` (the module.yml they ran) and lays the report out as `layout` says.
pub fn finish(
    shares: Shares,
    config: &ModuleConfig,
    layout: rho_report::Layout,
) -> Result<Merged, Error> {
    let target = config.target(Some(&shares.target))?;
    let jobs = rho_suite::engine::jobs(config, &target)?;
    let measure = Measure::parse(&shares.record.measure).unwrap_or(config.measure);
    let mut text = String::new();
    let mut records = Vec::new();
    let mut judged = Vec::new();
    let mut judgements = Vec::new();
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
            rho_judge::budget::judge_suite(config, budget_target, summary, measure, shares.scale);
        text.push_str(&rho_report::verdicts::suite_report(
            summary, what, &judgement, layout,
        ));
        if index + 1 < shares.suites.len() {
            text.push('\n');
        }
        records.push(SuiteRecord {
            suite: what.clone(),
            budgets: rho_report::verdicts::BudgetsRecord::of(&judgement),
            families: rho_stats::families(summary),
            summary: summary.clone(),
        });
        judgements.push((what.clone(), judgement.clone()));
        judged.push((what.clone(), summary.clone(), judgement));
    }
    let comparison = compare(&shares, config, target.name())?;
    let record = comparison
        .as_ref()
        .map(|(c, base)| rho_baseline::ComparisonRecord::of(c, base));
    let markdown = comparison.as_ref().map(|(c, base)| {
        let mut markdown = rho_baseline::render_markdown(c, base);
        for (_, summary) in &shares.suites {
            markdown.push_str(&rho_report::growth::render_markdown(summary));
        }
        markdown
    });
    if let Some((c, base)) = &comparison {
        let table = rho_baseline::render_text_within(c, base, layout.width);
        text.push_str(&format!("\n{}", rho_report::wrap(&table, layout.width, 2)));
    }
    let failed: Vec<FailedSuite> = shares
        .failed
        .iter()
        .map(|(suite, error)| FailedSuite {
            suite: suite.clone(),
            error: error.clone(),
        })
        .collect();
    let document = ProjectDocument {
        schema: PROJECT_SCHEMA,
        rho_version: env!("CARGO_PKG_VERSION"),
        module: shares.module.clone(),
        target: shares.target.clone(),
        scale: shares.scale,
        repetitions: shares.repetitions,
        suites: records,
        failed: &failed,
        comparison: record.as_ref(),
        shard: None,
    };
    let document = serde_json::to_value(&document)?;
    // What regressed (or lost its measurement), when anything did: it fails the run as on one machine.
    let regressed = comparison
        .as_ref()
        .filter(|(c, _)| c.failed())
        .map(|(c, _)| c.counts())
        .map(|counts| (counts.regressed, counts.not_measured));
    let code = closing(
        &shares,
        config,
        &jobs,
        &judgements,
        &failed,
        regressed,
        layout,
        &mut text,
    );
    Ok(Merged {
        text,
        document,
        markdown,
        judged,
        comparison,
        code,
    })
}

/// The closing lines and the exit status, as `rho bench` or `rho bench check` ends a run.
#[allow(clippy::too_many_arguments)]
fn closing(
    shares: &Shares,
    config: &ModuleConfig,
    jobs: &[rho_suite::engine::Job],
    judgements: &[(String, Judgement)],
    failed: &[FailedSuite],
    regressed: Option<(usize, usize)>,
    layout: rho_report::Layout,
    text: &mut String,
) -> u8 {
    let failures = rho_report::documents::failure_summary(
        if shares.record.command == "check" {
            "check: cannot decide:"
        } else {
            "rho: error:"
        },
        failed,
        jobs.len(),
    );
    if shares.record.command != "check" {
        text.push_str(&failures);
        return match regressed {
            _ if !failed.is_empty() => 2,
            Some((regressed, not_measured)) => {
                text.push_str(&format!(
                    "diff: {regressed} metric(s) regressed and {not_measured} not measured against the \
                     baseline: exit 1\n"
                ));
                1
            }
            None => 0,
        };
    }
    // As on one machine: budgets naming no benchmark are a typo only when every suite ran, unfiltered (a
    // target's own commands are not counted under instructions alone).
    let skipped = shares.record.measure == "instructions"
        && jobs
            .iter()
            .any(|j| matches!(j.kind, rho_suite::engine::JobKind::TargetOnly));
    let unmatched = if failed.is_empty() && shares.record.filter.is_none() && !skipped {
        rho_report::verdicts::unmatched_budgets(config, &shares.target, judgements)
    } else {
        Vec::new()
    };
    let (closing, code) =
        rho_report::verdicts::check_closing(judgements, &unmatched, &failures, layout.width);
    text.push_str(&format!("\n{closing}"));
    let code = match regressed {
        Some((regressed, not_measured)) => {
            text.push_str(&format!(
                "check: {regressed} metric(s) regressed and {not_measured} not measured against the \
                 baseline: fails\n"
            ));
            code.max(1)
        }
        None => code,
    };
    if failed.is_empty() && unmatched.is_empty() {
        code
    } else {
        2
    }
}

/// With the shares' `--diff REF`: the merged run against the baseline at REF, which must still be the commit
/// the shares saw.
fn compare(
    shares: &Shares,
    config: &ModuleConfig,
    selected: &str,
) -> Result<Option<(rho_baseline::Comparison, String)>, Error> {
    let Some(git_ref) = &shares.record.diff else {
        return Ok(None);
    };
    let request = rho_baseline::plan::Request {
        write: false,
        diff: Some(git_ref.clone()),
        markdown: None,
    };
    let plan = rho_baseline::plan::prepare(&request, &config.root, Some(config), None)?;
    if let (Some((_, source)), Some(then)) = (&plan.base, &shares.record.diff_commit)
        && source.commit != *then
    {
        return Err(Error::RefMoved {
            git_ref: git_ref.clone(),
            then: then.clone(),
            now: source.commit.clone(),
        });
    }
    let recording = rho_baseline::Recording::now(env!("CARGO_PKG_VERSION"), None);
    let run = rho_baseline::plan::run_section(selected, &shares.suites, &recording)?;
    Ok(plan.compare(Some(config), &run.section)?)
}
