//! `rho bench` with no file arguments, and `rho bench check`: the nearest `module.yml` says what to build and
//! run (its suites), for which target, with which settings, and what each figure may cost (its budgets).
//!
//! For each suite: build it for the selected target, run it `repetitions` times, fold the runs into their best
//! figures (`rho_stats::best_of`), judge them against the budgets (`rho_judge::budget`), report. `check` is the
//! same with the outcome as the exit status: 0 every budget holds, 1 one is broken, 2 it cannot decide.
//!
//! The suites are built and run by the engine (rho_suite::Engine: the targets, the suite kinds, the measures);
//! this module reports, judges, records and exits.

use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use rho_config::{ModuleConfig, TargetSpec};
use rho_judge::budget::Judgement;
use rho_stats::RunSummary;

use crate::cli::{ProjectArgs, RunArgs};
use rho_report::documents::{
    FailedSuite, PROJECT_SCHEMA, ProjectDocument, ProjectTargetsDocument, SuiteAcross, SuiteRecord,
    failure_summary,
};
use rho_suite::engine::Job;

/// `rho bench` reports; `rho bench check` also enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Report,
    Check,
    /// `rho bench --list`: the names of the benchmarks each suite ran, nothing else.
    List,
}

/// The settings of a `--list` run (from the user's `--filter`, `--target`, flags and timeout): every benchmark
/// once (the lowest scale: one iteration), no warm-up, one repetition, timed only, no baseline.
pub fn listing_args(project: &ProjectArgs, run: &RunArgs) -> (ProjectArgs, RunArgs) {
    let project = ProjectArgs {
        target: project.target.clone(),
        repetitions: Some(1),
        baseline: crate::baseline::BaselineArgs::default(),
        html: None,
        dashboards: crate::export::DashboardArgs::default(),
    };
    let run = RunArgs {
        iterations: None,
        warmup: Some(0),
        scale: Some(rho_config::SCALE_RANGE.0),
        measure: Some(rho_config::Measure::default()),
        cache_sim: false,
        ..run.clone()
    };
    (project, run)
}

/// `--list`'s text: the benchmarks' names, one a line, in the order they ran.
pub fn names(summary: &RunSummary) -> String {
    summary
        .benchmarks
        .iter()
        .map(|b| format!("{}\n", b.name))
        .collect()
}

/// Run the module's suites and report (and, for [`Mode::Check`], enforce) their budgets.
pub fn bench_project(
    project: &ProjectArgs,
    run: &RunArgs,
    json: Option<&Path>,
    output: &crate::term::OutputArgs,
    mode: Mode,
) -> anyhow::Result<ExitCode> {
    match project.target.as_deref() {
        Some(list) if list == "all" || list.contains(',') => {
            bench_targets(project, run, json, output, mode, list)
        }
        _ => bench_target(project, run, json, output, mode, None),
    }
}

/// `--target a,b` or `--target all` (every target module.yml lists) in module.yml mode: each target's run as
/// usual, one after the other, then per suite one table per benchmark side by side (rho_report::targets). The
/// exit status is the worst of the targets'.
fn bench_targets(
    project: &ProjectArgs,
    run: &RunArgs,
    json: Option<&Path>,
    output: &crate::term::OutputArgs,
    mode: Mode,
    list: &str,
) -> anyhow::Result<ExitCode> {
    if project.html.is_some() || project.baseline.any() {
        bail!(
            "--target {list}: --html and baselines (--write-baseline, --diff) are one target's; run them with a \
             single --target"
        );
    }
    if project.dashboards.any() {
        bail!(
            "--target {list}: --bmf and --github-benchmark export one target's run; run them with a single --target"
        );
    }
    let json = crate::export::prepare_json(json)?;
    if let Some(markdown) = &project.baseline.markdown {
        crate::export::check_destination("--markdown", markdown)?;
    }
    let mut names: Vec<String> = if list == "all" {
        let config = load_config()?;
        if config.targets.is_empty() {
            bail!(
                "--target all runs every target {} lists under bench.targets, and it lists none",
                config.file.display()
            );
        }
        config.targets.iter().map(|t| t.name.clone()).collect()
    } else {
        crate::cli::target_list(Some(list))?
            .into_iter()
            .flatten()
            .collect()
    };
    if mode == Mode::List {
        // `--list` names the benchmarks; the first target's run says them.
        names.truncate(1);
    }
    let mut worst: u8 = 0;
    let mut collected: Vec<(String, Collected)> = Vec::new();
    for name in &names {
        eprintln!("rho: target {name}");
        let one = ProjectArgs {
            target: Some(name.clone()),
            repetitions: project.repetitions,
            baseline: crate::baseline::BaselineArgs::default(),
            html: None,
            dashboards: crate::export::DashboardArgs::default(),
        };
        let mut kept = Collected {
            report_to_stderr: json
                .as_ref()
                .is_some_and(crate::export::JsonTarget::is_stdout),
            ..Collected::default()
        };
        let code = bench_target(&one, run, None, output, mode, Some(&mut kept))?;
        worst = worst.max(exit_code_number(code));
        collected.push((name.clone(), kept));
    }
    if mode == Mode::List {
        return Ok(ExitCode::from(worst));
    }
    let runs: Vec<(&str, &[(String, RunSummary)])> = collected
        .iter()
        .map(|(target, kept)| (target.as_str(), kept.summaries.as_slice()))
        .collect();
    let (text, markdown, comparisons) = rho_report::targets::side_by_side(&runs);
    let across: Vec<SuiteAcross> = comparisons
        .into_iter()
        .map(|(suite, comparison)| SuiteAcross { suite, comparison })
        .collect();
    // The tables: stdout, or stderr when `--json -` takes stdout.
    let (mut out, _) = crate::export::report_output(json.as_ref(), output);
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    if let Some(path) = &project.baseline.markdown {
        std::fs::write(path, markdown)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(json) = &json {
        json.write(&ProjectTargetsDocument {
            schema: "rho-bench-project-targets/1",
            rho_version: env!("CARGO_PKG_VERSION"),
            targets: collected
                .into_iter()
                .filter_map(|(_, kept)| kept.document)
                .collect(),
            suites: across,
        })?;
    }
    Ok(ExitCode::from(worst))
}

/// The number an exit code stands for (0, 1 or 2 here).
fn exit_code_number(code: ExitCode) -> u8 {
    [0u8, 1, 2]
        .into_iter()
        .find(|n| ExitCode::from(*n) == code)
        .unwrap_or(EXIT_CANNOT_DECIDE)
}

/// What one target's run keeps for the side-by-side report: each suite's summary, and the run as its
/// `rho-bench-project/1` document.
#[derive(Debug, Default)]
struct Collected {
    summaries: Vec<(String, RunSummary)>,
    document: Option<serde_json::Value>,
    /// `--json -` takes stdout for the combined document: the target's report goes to stderr.
    report_to_stderr: bool,
}

/// One target's run of module.yml's suites; with `collect`, each suite's summary and the run's document are
/// also kept there.
fn bench_target(
    project: &ProjectArgs,
    run: &RunArgs,
    json: Option<&Path>,
    output: &crate::term::OutputArgs,
    mode: Mode,
    mut collect: Option<&mut Collected>,
) -> anyhow::Result<ExitCode> {
    // Before anything runs: an unwritable `--json` path stops here, not after minutes of runs.
    let json = crate::export::prepare_json(json)?;
    if let Some(html) = &project.html {
        crate::export::check_destination("--html", html)?;
    }
    project.dashboards.destinations().check()?;
    crate::baseline::refuse_filtered_baseline(run.filter.as_deref(), &project.baseline)?;
    let config = load_config()?;
    let target = config.target(project.target.as_deref())?;
    // Before any suite runs: a bad `--diff REF` stops here, not after minutes of runs.
    // A built-in target's streams name it, so its baseline section is checked before the run too (unless
    // every suite is a command, which runs on the host whatever the target).
    let baseline = crate::baseline::prepare(
        &project.baseline,
        &config.root,
        Some(&config),
        rho_suite::engine::streams_name(&config, &target),
    )?;
    let repetitions =
        crate::baseline::repetitions(&project.baseline, project.repetitions, config.repetitions);
    let engine = rho_suite::Engine::new(&config, &target, &run.options(), repetitions)?;
    let jobs = engine.jobs.clone();
    let (measure, scale) = (engine.measure, engine.settings.scale);
    let mut skipped = false;
    let mut judgements = Vec::new();
    let mut failed: Vec<FailedSuite> = Vec::new();
    let mut records = Vec::new();
    let mut summaries = Vec::new();
    // With `--html`: each judged suite's summary, beside `judgements`.
    let mut html_summaries = Vec::new();
    // With `--bmf` or `--github-benchmark`: each suite's summary.
    let mut exported: Vec<(String, RunSummary)> = Vec::new();
    let to_stderr = collect.as_ref().is_some_and(|c| c.report_to_stderr);
    let (mut out, style) = report_writer(to_stderr, json.as_ref(), output);
    let width = style.layout.width;
    for (index, job) in jobs.iter().enumerate() {
        if engine.skips(job) {
            eprintln!(
                "rho: warning: {}: not counted (--measure instructions counts the suites rho runs on the \
                 host under Valgrind): skipped",
                job.what
            );
            skipped = true;
            continue;
        }
        // One suite that cannot be built or run does not stop the others: its error is printed now, the
        // suites that finished are reported, and the run ends with exit 2 (cannot decide).
        let summary = match run_one(&engine, index, repetitions) {
            Ok(summary) => summary,
            Err(failure) => {
                failed.push(failure);
                continue;
            }
        };
        if mode == Mode::List {
            list_names(&mut out, &job.what, &summary);
            continue;
        }
        warn_about(&job.what, &summary, run.filter.as_deref());
        let (judgement, mut text) =
            judge(&config, &target, job, &summary, (measure, scale), &style);
        if index + 1 < jobs.len() {
            text.push('\n');
        }
        // A closed stdout (`rho bench | head`) is not worth a panic.
        let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        if baseline.active() {
            summaries.push((job.what.clone(), summary.clone()));
        }
        if project.html.is_some() {
            html_summaries.push(summary.clone());
        }
        if project.dashboards.any() {
            exported.push((job.what.clone(), summary.clone()));
        }
        if let Some(collect) = collect.as_mut() {
            collect.summaries.push((job.what.clone(), summary.clone()));
        }
        if json.is_some() || collect.is_some() {
            records.push(SuiteRecord {
                suite: job.what.clone(),
                budgets: rho_report::verdicts::BudgetsRecord::of(&judgement),
                families: rho_stats::families(&summary),
                summary,
            });
        }
        judgements.push((job.what.clone(), judgement));
    }
    let built_with = engine.built_with();
    // The suites' scratch directories go before the baseline is written.
    drop(engine);

    let baseline = if !failed.is_empty() && project.baseline.write_baseline {
        // A baseline without the failed suites would silently drop their figures from every later comparison.
        eprintln!(
            "rho: error: the baseline was not written: {} of {} suites failed",
            failed.len(),
            jobs.len()
        );
        crate::baseline::Finished::default()
    } else {
        crate::baseline::finish(
            &baseline,
            Some(&config),
            target.name(),
            &summaries,
            built_with,
            &mut out,
            style.layout,
        )?
    };

    if let Some(html) = &project.html {
        write_html(html, mode, &config, &judgements, &html_summaries, &baseline)?;
    }
    let exported: Vec<(&str, &RunSummary)> =
        exported.iter().map(|(w, s)| (w.as_str(), s)).collect();
    project.dashboards.destinations().write(&exported)?;
    if json.is_some() || collect.is_some() {
        let document = ProjectDocument {
            schema: PROJECT_SCHEMA,
            rho_version: env!("CARGO_PKG_VERSION"),
            module: config.file.clone(),
            target: target.name().to_string(),
            scale,
            repetitions,
            suites: records,
            failed: &failed,
            comparison: baseline.record.as_ref(),
        };
        deliver(&document, json.as_ref(), collect)?;
    }

    // Budgets naming no benchmark that any suite printed (a typo) would otherwise be silently unused. With a
    // suite missing its names are unknown, and the run cannot decide anyway; `--filter` leaves names out on
    // purpose.
    let unmatched = if failed.is_empty() && run.filter.is_none() && !skipped && mode != Mode::List {
        rho_report::verdicts::unmatched_budgets(&config, target.name(), &judgements)
    } else {
        Vec::new()
    };
    let ending = Ending {
        mode,
        unmatched: &unmatched,
        failed: &failed,
        total: jobs.len(),
        width,
    };
    Ok(ending.close(&judgements, &baseline, &mut out))
}

/// How one target's run ends: its closing lines and its exit status.
struct Ending<'a> {
    mode: Mode,
    /// Budgets that name no benchmark.
    unmatched: &'a [String],
    failed: &'a [FailedSuite],
    /// The suites there were.
    total: usize,
    width: usize,
}

impl Ending<'_> {
    fn close(
        &self,
        judgements: &[(String, Judgement)],
        baseline: &crate::baseline::Finished,
        out: &mut Box<dyn std::io::Write>,
    ) -> ExitCode {
        let Ending {
            mode,
            unmatched,
            failed,
            total,
            width,
        } = *self;
        match mode {
            Mode::Report | Mode::List => {
                for message in unmatched {
                    eprintln!("rho: warning: {message}");
                }
                if failed.is_empty() {
                    // `rho bench --diff REF`: a regression past the limit fails, as in `check --diff`.
                    ExitCode::from(crate::baseline::diff_code(baseline, out))
                } else {
                    let _ = out.flush();
                    eprint!("{}", failure_summary("rho: error:", failed, total));
                    ExitCode::from(EXIT_CANNOT_DECIDE)
                }
            }
            Mode::Check => {
                let failures = failure_summary("check: cannot decide:", failed, total);
                let (text, code) =
                    rho_report::verdicts::check_closing(judgements, unmatched, &failures, width);
                let _ = out
                    .write_all(format!("\n{text}").as_bytes())
                    .and_then(|()| out.flush());
                // A regression against the baseline breaks the check like a budget does; "cannot decide" stays 2.
                let code = crate::baseline::check_code(code, baseline, out);
                let code = if failed.is_empty() && unmatched.is_empty() {
                    code
                } else {
                    EXIT_CANNOT_DECIDE
                };
                ExitCode::from(code)
            }
        }
    }
}

/// The human report's writer and style: stdout, or stderr when `--json -` takes stdout (or `to_stderr`: the
/// combined document of several targets does).
fn report_writer(
    to_stderr: bool,
    json: Option<&crate::export::JsonTarget>,
    output: &crate::term::OutputArgs,
) -> (Box<dyn std::io::Write>, crate::term::Style) {
    if to_stderr {
        let style = crate::term::Style::new(output, crate::term::Stream::Stderr);
        (style.writer(Box::new(std::io::stderr())), style)
    } else {
        crate::export::report_output(json, output)
    }
}

/// The run's document to `--json`, and kept in `collect` for the document of several targets.
fn deliver(
    document: &ProjectDocument<'_>,
    json: Option<&crate::export::JsonTarget>,
    collect: Option<&mut Collected>,
) -> anyhow::Result<()> {
    if let Some(json) = json {
        json.write(document)?;
    }
    if let Some(collect) = collect {
        collect.document =
            Some(serde_json::to_value(document).context("cannot write the run as JSON")?);
    }
    Ok(())
}

/// `--list`: the suite's benchmarks by name, under the suite's.
fn list_names(out: &mut Box<dyn std::io::Write>, what: &str, summary: &RunSummary) {
    let indented: String = names(summary).lines().map(|n| format!("  {n}\n")).collect();
    let _ = out
        .write_all(format!("{what}:\n{indented}").as_bytes())
        .and_then(|()| out.flush());
}

/// What is worth a warning in a suite's run (a figure to doubt; a filter that matched nothing).
fn warn_about(what: &str, summary: &RunSummary, filter: Option<&str>) {
    for warning in rho_report::warnings(summary) {
        eprintln!("rho: warning: {what}: {warning}");
    }
    if let Some(warning) = rho_suite::stream::filter_warning(filter, summary) {
        eprintln!("rho: warning: {what}: {warning}");
    }
}

/// Suite `index` of `engine` built, run and summarised, its footprint attached (or warned about); a failure
/// is printed as it happens and returned as the report and `--json` name it.
fn run_one(
    engine: &rho_suite::Engine<'_>,
    index: usize,
    repetitions: u32,
) -> Result<RunSummary, FailedSuite> {
    let job = &engine.jobs[index];
    crate::term::progress::suite(&job.what, index + 1, engine.jobs.len(), repetitions);
    let outcome = engine.run(index).and_then(|run| {
        let mut summary = run.summary;
        if let Some(answer) = run.footprint {
            attach_or_warn(&mut summary, answer, &job.what);
        }
        engine.measured(job, summary)
    });
    outcome.map_err(|error| {
        // A failure caused by a Ctrl-C is not reported: the interrupt handler exits with 130.
        rho_exec::interrupt::wait_if_exiting();
        let message = suite_error(&job.what, &error);
        eprintln!("rho: error: {}", rho_text::escape_text(&message));
        FailedSuite {
            suite: job.what.clone(),
            error: message,
        }
    })
}

/// `summary` of `job` judged against its budgets under the measure (and at the scale) it ran with, and its
/// report: the run with its verdict line, then its budgets' table.
fn judge(
    config: &ModuleConfig,
    target: &TargetSpec,
    job: &Job,
    summary: &RunSummary,
    (measure, scale): (rho_config::Measure, f64),
    style: &crate::term::Style,
) -> (Judgement, String) {
    // A target's own budgets apply to what ran on it; a command suite runs on the host whatever the target.
    let budget_target = match job.command() {
        Some(_) => summary.target.name.as_str(),
        None => target.name(),
    };
    let judgement = rho_judge::budget::judge_suite(config, budget_target, summary, measure, scale);
    let text = rho_report::verdicts::suite_report(summary, &job.what, &judgement, style.layout);
    (judgement, text)
}

/// `--html`: the judged suites' report, with the comparison against the baseline when there is one.
fn write_html(
    path: &Path,
    mode: Mode,
    config: &ModuleConfig,
    judgements: &[(String, Judgement)],
    summaries: &[RunSummary],
    baseline: &crate::baseline::Finished,
) -> anyhow::Result<()> {
    let suites = judgements
        .iter()
        .zip(summaries)
        .map(|((what, judgement), summary)| rho_report::html::Suite {
            what,
            summary,
            judgement: Some(judgement),
        })
        .collect();
    let title = match mode {
        Mode::Check => format!("rho bench check: {}", config.file.display()),
        Mode::Report | Mode::List => format!("rho bench: {}", config.file.display()),
    };
    crate::export::write_html(path, &title, suites, baseline.diff())
}

/// Attach the footprint command's answer to the run, or print why there is none (a warning: the run goes on).
pub fn attach_or_warn(
    summary: &mut rho_stats::RunSummary,
    answer: Result<rho_suite::footprint::MemDocument, String>,
    what: &str,
) {
    match answer {
        Ok(document) => rho_suite::footprint::attach(summary, &document),
        Err(warning) => eprintln!(
            "rho: warning: {what}: {warning}; code bytes and static stack bounds are not reported"
        ),
    }
    for (name, mark, bound) in rho_report::marks_above_bound(summary) {
        eprintln!(
            "rho: warning: {what}: {name}'s measured stack mark, {mark} bytes, is above its static bound of \
             {bound} bytes: the bound misses a frame (assembly, a library function, an interrupt) or the stack \
             overran"
        );
    }
}

/// The exit status when a suite could not be built or run: the check cannot decide.
const EXIT_CANNOT_DECIDE: u8 = 2;

/// `error` as one message that names the suite `what` (a build error does not name it by itself).
fn suite_error(what: &str, error: &rho_suite::SuiteError) -> String {
    let text = error.full_text();
    if text.contains(what) {
        text
    } else {
        format!("suite {what}: {text}")
    }
}

/// The nearest module.yml at or above the current directory, named `module.yml` in messages when it is in the
/// current directory itself.
fn load_config() -> anyhow::Result<ModuleConfig> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    Ok(rho_config::load_nearest(&cwd)?)
}
