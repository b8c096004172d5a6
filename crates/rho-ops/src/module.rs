//! `rho bench` with no file arguments, and `rho bench check`: the nearest `module.yml` says what to build and
//! run (its suites), for which target, with which settings, and what each figure may cost (its budgets).
//!
//! For each suite: build it for the selected target, run it `repetitions` times, fold the runs into their best
//! figures (`rho_stats::best_of`), judge them against the budgets (`rho_judge::budget`), report. `check` is the
//! same with the outcome as the exit status: 0 every budget holds, 1 one is broken, 2 it cannot decide.
//!
//! The suites are built and run by the engine (rho_suite::Engine: the targets, the suite kinds, the measures);
//! this module reports, judges, records and decides the exit status.

use std::io::Write;
use std::path::PathBuf;

use rho_compare::plan::Request;
use rho_config::{ModuleConfig, TargetSpec};
use rho_judge::budget::Judgement;
use rho_report::documents::{
    FailedSuite, PROJECT_SCHEMA, ProjectDocument, ProjectTargetsDocument, SuiteAcross, SuiteRecord,
    failure_summary,
};
use rho_stats::RunSummary;
use rho_suite::engine::Job;

use crate::output::{JsonTarget, Terminal, show};
use crate::{EXIT_CANNOT_DECIDE, Error};

/// `rho bench` reports; `rho bench check` also enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Report,
    Check,
    /// `rho bench --list`: the names of the benchmarks each suite ran, nothing else.
    List,
}

/// What a `rho bench` run was asked, of a module.yml or of files: which target(s), how many runs, the
/// baseline work, where its documents go, and how each suite is built and run.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// `--target`: a module.yml target (default the first listed), or a built-in one for files (default the
    /// host); `a,b` or `all`.
    pub target: Option<String>,
    pub repetitions: Option<u32>,
    pub baseline: Request,
    pub html: Option<PathBuf>,
    pub json: Option<PathBuf>,
    /// `--bmf` and `--github-benchmark`.
    pub exports: crate::output::Exports,
    pub run: rho_suite::RunOptions,
}

/// What a module.yml run was asked: the run's request, and whether it reports, enforces or lists.
#[derive(Debug, Clone)]
pub struct Options {
    pub asked: RunRequest,
    pub mode: Mode,
    /// `--shard K/N` (or `RHO_SHARD`): run only this share of the benchmarks (rho_shard, docs/ci.md).
    pub shard: Option<rho_shard::Shard>,
}

/// `--list`'s text: the benchmarks' names, one a line, in the order they ran.
pub fn names(summary: &RunSummary) -> String {
    summary
        .benchmarks
        .iter()
        .map(|b| format!("{}\n", b.name))
        .collect()
}

/// The targets `--target` names: one, a comma-separated list (each once), or `all` (every built-in board under
/// QEMU, in rho's order). `[None]` without `--target`.
pub fn target_list(target: Option<&str>) -> crate::Result<Vec<Option<String>>> {
    let Some(target) = target else {
        return Ok(vec![None]);
    };
    if target == "all" {
        return Ok(rho_config::BUILTIN_BOARDS
            .iter()
            .map(|b| Some(b.to_string()))
            .collect());
    }
    let mut names: Vec<Option<String>> = Vec::new();
    for name in target.split(',').map(str::trim) {
        if name.is_empty() {
            return Err(Error::Refused(format!(
                "--target {target}: an empty name in the list (names are separated by single commas, e.g. \
                 --target mps2-an386,mps2-an500)"
            )));
        }
        if names.iter().any(|n| n.as_deref() == Some(name)) {
            return Err(Error::Refused(format!(
                "--target {target}: {name} is named twice"
            )));
        }
        names.push(Some(name.to_string()));
    }
    Ok(names)
}

/// Run the module's suites and report (and, for [`Mode::Check`], enforce) their budgets; the exit status.
pub fn run(options: &Options, terminal: &dyn Terminal) -> crate::Result<u8> {
    match options.asked.target.as_deref() {
        Some(list) if list == "all" || list.contains(',') => match options.shard {
            Some(shard) => Err(Error::Refused(format!(
                "--shard {shard}: shares are of one target's run; run each target's shares apart"
            ))),
            None => run_targets(options, terminal, list),
        },
        _ => run_target(options, terminal, None),
    }
}

/// `--target a,b` or `--target all` (every target module.yml lists) in module.yml mode: each target's run as
/// usual, one after the other, then per suite one table per benchmark side by side (rho_report::targets). The
/// exit status is the worst of the targets'.
fn run_targets(options: &Options, terminal: &dyn Terminal, list: &str) -> crate::Result<u8> {
    if options.asked.exports.any() {
        return Err(Error::Refused(format!(
            "--target {list}: --bmf and --github-benchmark export one target's run; run them with a single --target"
        )));
    }
    if options.asked.html.is_some() || crate::baseline::any(&options.asked.baseline) {
        return Err(Error::Refused(format!(
            "--target {list}: --html and baselines (--write-baseline, --diff) are one target's; run them with a \
             single --target"
        )));
    }
    let json = crate::output::prepare_json(options.asked.json.as_deref())?;
    if let Some(markdown) = &options.asked.baseline.markdown {
        crate::output::check_destination("--markdown", markdown)?;
    }
    let mut names = target_names(list)?;
    if options.mode == Mode::List {
        // `--list` names the benchmarks; the first target's run says them.
        names.truncate(1);
    }
    let mut worst: u8 = 0;
    let mut collected: Vec<(String, Collected)> = Vec::new();
    for name in &names {
        crate::say(&format!("rho: target {name}"));
        let one = Options {
            asked: RunRequest {
                target: Some(name.clone()),
                baseline: Request::default(),
                html: None,
                json: None,
                exports: crate::output::Exports::default(),
                ..options.asked.clone()
            },
            ..options.clone()
        };
        let mut kept = Collected {
            report_to_stderr: json.as_ref().is_some_and(JsonTarget::is_stdout),
            ..Collected::default()
        };
        worst = worst.max(run_target(&one, terminal, Some(&mut kept))?);
        collected.push((name.clone(), kept));
    }
    if options.mode == Mode::List {
        return Ok(worst);
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
    let (mut out, _) = crate::output::report_output(terminal, json.as_ref());
    show(&mut out, &text);
    if let Some(path) = &options.asked.baseline.markdown {
        crate::output::write_text(path, "the Markdown tables", &markdown)?;
    }
    if let Some(json) = &json {
        json.write(&ProjectTargetsDocument {
            schema: "rho-bench-project-targets/1",
            rho_version: crate::VERSION,
            targets: collected
                .into_iter()
                .filter_map(|(_, kept)| kept.document)
                .collect(),
            suites: across,
        })?;
    }
    Ok(worst)
}

/// The targets of `--target a,b` or `--target all` (every target module.yml lists).
fn target_names(list: &str) -> crate::Result<Vec<String>> {
    if list != "all" {
        return Ok(target_list(Some(list))?.into_iter().flatten().collect());
    }
    let config = load_config()?;
    if config.targets.is_empty() {
        return Err(Error::Refused(format!(
            "--target all runs every target {} lists under bench.targets, and it lists none",
            config.file.display()
        )));
    }
    Ok(config.targets.iter().map(|t| t.name.clone()).collect())
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

/// What the suites of one target's run produced, for its closing.
#[derive(Default)]
struct Suites {
    skipped: bool,
    judgements: Vec<(String, Judgement)>,
    failed: Vec<FailedSuite>,
    records: Vec<SuiteRecord>,
    /// With the baseline work: each suite's summary.
    summaries: Vec<(String, RunSummary)>,
    /// With `--html`: each judged suite's summary, beside `judgements`.
    html_summaries: Vec<RunSummary>,
    /// With `--bmf` or `--github-benchmark`: each suite's summary.
    exported: Vec<(String, RunSummary)>,
    /// With `--profile NAME`: whether a suite ran benchmark NAME (its table or hint is printed).
    profiled: bool,
    /// How many benchmarks the suites ran (after `--filter` and a share's cut).
    benchmarks: usize,
}

/// Whether the report goes to stderr: stdout carries a JSON document or an export.
fn report_to_stderr(
    collect: &Option<&mut Collected>,
    json: Option<&crate::output::JsonTarget>,
    asked: &RunRequest,
) -> bool {
    collect.as_ref().is_some_and(|c| c.report_to_stderr)
        || crate::output::report_to_stderr(json, &asked.exports)
}

/// A filter that matched no benchmark of any suite is a mistake (a comma for `|`, a misspelt name): exit 2
/// naming it and names that exist, from the suites whose harness lists them.
fn refuse_no_match(
    filter: Option<&str>,
    suites: &Suites,
    engine: &rho_suite::Engine,
) -> crate::Result<()> {
    if let Some(filter) = rho_suite::filter::compiled(filter)?
        && suites.benchmarks == 0
        && suites.failed.is_empty()
        && !suites.skipped
    {
        let known: Vec<String> = (0..engine.jobs.len())
            .filter(|&index| engine.lists(&engine.jobs[index]))
            .filter_map(|index| engine.list_all(index).ok())
            .flatten()
            .collect();
        return Err(rho_suite::SuiteError::NoMatch(filter.no_match(&known)).into());
    }
    Ok(())
}

/// One target's run of module.yml's suites; with `collect`, each suite's summary and the run's document are
/// also kept there.
fn run_target(
    options: &Options,
    terminal: &dyn Terminal,
    mut collect: Option<&mut Collected>,
) -> crate::Result<u8> {
    let asked = &options.asked;
    // Before anything runs: an unwritable `--json` path stops here, not after minutes of runs.
    let json = crate::output::prepare_json(asked.json.as_deref())?;
    if let Some(html) = &asked.html {
        crate::output::check_destination("--html", html)?;
    }
    asked.exports.check(json.as_ref())?;
    crate::baseline::refuse_filtered_baseline(asked.run.filter.as_deref(), &asked.baseline)?;
    let config = load_config()?;
    let target = config.target(asked.target.as_deref())?;
    // Before any suite runs: a bad `--diff REF` stops here, not after minutes of runs.
    // A built-in target's streams name it, so its baseline section is checked before the run too (unless
    // every suite is a command, which runs on the host whatever the target).
    let plan = crate::baseline::prepare(
        &asked.baseline,
        &config.root,
        Some(&config),
        rho_suite::engine::streams_name(&config, &target),
    )?;
    let repetitions =
        crate::baseline::repetitions(&asked.baseline, asked.repetitions, config.repetitions);
    let mut engine = rho_suite::Engine::new(&config, &target, &asked.run, repetitions)?;
    // With `--shard K/N`: this job's share, planned before any suite runs; the comparison is the merge's.
    let (share, plan) = match options.shard {
        Some(shard) => {
            let command = if options.mode == Mode::Check {
                "check"
            } else {
                "bench"
            };
            let request = rho_shard::share::Request::new(command, &asked.baseline.diff, &asked.run);
            let (share, plan) =
                rho_shard::share::plan_run(&engine, shard, &request, repetitions, plan)?;
            crate::say(&format!("rho: {}", share.describe()));
            (Some(share), plan)
        }
        None => (None, plan),
    };
    let (mut out, layout) = terminal.report(report_to_stderr(&collect, json.as_ref(), asked));
    let keep = Keep {
        summaries: plan.active(),
        html: asked.html.is_some(),
        exports: asked.exports.any(),
        records: json.is_some() || collect.is_some(),
    };
    let mut suites = Suites::default();
    for index in 0..engine.jobs.len() {
        // A share runs only its own benchmarks; a suite with none of them is not built.
        if let Some(share) = &share {
            match share.filter_for(&engine.jobs[index].what) {
                Some(filter) => engine.set_filter(Some(filter))?,
                None => continue,
            }
        }
        let run = RunOf {
            options,
            config: &config,
            target: &target,
            engine: &engine,
            repetitions,
            share: share.as_ref(),
        };
        run.suite(
            index,
            &mut suites,
            keep,
            (&mut out, layout),
            collect.as_deref_mut(),
        );
    }
    warn_unprofiled(options, &suites);
    if share.is_none() {
        refuse_no_match(asked.run.filter.as_deref(), &suites, &engine)?;
    }
    let total = engine.jobs.len();
    let built_with = engine.built_with();
    let scale = engine.settings.scale;
    // The suites' scratch directories go before the baseline is written.
    drop(engine);

    let finished = if !suites.failed.is_empty() && asked.baseline.write {
        // A baseline without the failed suites would silently drop their figures from every later comparison.
        crate::say(&format!(
            "rho: error: the baseline was not written: {} of {} suites failed",
            suites.failed.len(),
            total
        ));
        crate::baseline::Finished::default()
    } else {
        crate::baseline::finish(
            &plan,
            Some(&config),
            target.name(),
            &suites.summaries,
            built_with,
            &mut out,
            layout,
        )?
    };
    if let Some(html) = &asked.html {
        write_html(html, options.mode, &config, &suites, &finished)?;
    }
    asked.exports.write(&suites.exported)?;
    if keep.records {
        let document = ProjectDocument {
            schema: PROJECT_SCHEMA,
            rho_version: crate::VERSION,
            module: config.file.clone(),
            target: target.name().to_string(),
            scale,
            repetitions,
            suites: std::mem::take(&mut suites.records),
            failed: &suites.failed,
            comparison: finished.record.as_ref(),
            shard: share
                .as_ref()
                .map(|s| serde_json::to_value(&s.record))
                .transpose()
                .map_err(Error::Json)?,
        };
        deliver(&document, json.as_ref(), collect)?;
    }
    // Budgets naming no benchmark that any suite printed (a typo) would otherwise be silently unused. With a
    // suite missing its names are unknown, and the run cannot decide anyway; `--filter` leaves names out on
    // purpose.
    let unmatched = if suites.failed.is_empty()
        && asked.run.filter.is_none()
        && share.is_none()
        && !suites.skipped
        && options.mode != Mode::List
    {
        rho_report::verdicts::unmatched_budgets(&config, target.name(), &suites.judgements)
    } else {
        Vec::new()
    };
    let ending = Ending {
        mode: options.mode,
        unmatched: &unmatched,
        failed: &suites.failed,
        total,
        width: layout.width,
    };
    Ok(ending.close(&suites.judgements, &finished, &mut out))
}

/// Which of each suite's results a run keeps, beside its judgement.
#[derive(Debug, Clone, Copy)]
struct Keep {
    summaries: bool,
    html: bool,
    exports: bool,
    records: bool,
}

/// One target's run in progress: what each suite is run with.
struct RunOf<'a> {
    options: &'a Options,
    config: &'a ModuleConfig,
    target: &'a TargetSpec,
    engine: &'a rho_suite::Engine<'a>,
    repetitions: u32,
    /// With `--shard K/N`: the share, whose benchmarks alone are kept.
    share: Option<&'a rho_shard::share::Share>,
}

impl RunOf<'_> {
    /// Suite `index` run, its report written to `out` and its results kept in `suites` (and `collect`).
    fn suite(
        &self,
        index: usize,
        suites: &mut Suites,
        keep: Keep,
        (out, layout): (&mut Box<dyn Write>, rho_report::Layout),
        collect: Option<&mut Collected>,
    ) {
        let engine = self.engine;
        let job = &engine.jobs[index];
        if engine.skips(job) {
            crate::say(&format!(
                "rho: warning: {}: not counted (--measure instructions counts the suites rho runs on the \
                 host under Valgrind): skipped",
                job.what
            ));
            suites.skipped = true;
            return;
        }
        // One suite that cannot be built or run does not stop the others: its error is printed now, the
        // suites that finished are reported, and the run ends with exit 2 (cannot decide).
        let (summary, sampling_notes) = match run_one(engine, index, self.repetitions) {
            Ok((mut summary, sampling_notes)) => {
                if let Some(share) = self.share {
                    share.trim(&job.what, &mut summary);
                }
                suites.benchmarks += summary.benchmarks.len();
                (summary, sampling_notes)
            }
            Err(failure) => {
                suites.failed.push(failure);
                return;
            }
        };
        if self.options.mode == Mode::List {
            let indented: String = names(&summary)
                .lines()
                .map(|n| format!("  {n}\n"))
                .collect();
            show(out, &format!("{}:\n{indented}", job.what));
            return;
        }
        warn_about(
            &job.what,
            &summary,
            self.options.asked.run.filter.as_deref(),
        );
        let (judgement, mut text) = self.judge(job, &summary, layout);
        if index + 1 < engine.jobs.len() {
            text.push('\n');
        }
        show(out, &text);
        // `--profile NAME`: the table (or why none) under the suite that ran NAME.
        let profiled = (self.options.asked.run.profile.as_deref())
            .filter(|name| summary.benchmark(name).is_some());
        suites.profiled |= profiled.is_some();
        if let Err(error) = crate::profile::show_table(profiled, &summary, &sampling_notes, out) {
            crate::say(&format!("rho: error: {}: {error}", job.what));
        }
        if keep.summaries {
            suites.summaries.push((job.what.clone(), summary.clone()));
        }
        if keep.html {
            suites.html_summaries.push(summary.clone());
        }
        if keep.exports {
            suites.exported.push((job.what.clone(), summary.clone()));
        }
        if let Some(collect) = collect {
            collect.summaries.push((job.what.clone(), summary.clone()));
        }
        if keep.records {
            suites.records.push(SuiteRecord {
                suite: job.what.clone(),
                budgets: rho_report::verdicts::BudgetsRecord::of(&judgement),
                families: rho_stats::families(&summary),
                summary,
            });
        }
        suites.judgements.push((job.what.clone(), judgement));
    }

    /// `summary` of `job` judged against its budgets under the measure (and at the scale) it ran with, and its
    /// report: the run with its verdict line, then its budgets' table.
    fn judge(
        &self,
        job: &Job,
        summary: &RunSummary,
        layout: rho_report::Layout,
    ) -> (Judgement, String) {
        // A target's own budgets apply to what ran on it; a command suite runs on the host whatever the target.
        let budget_target = match job.command() {
            Some(_) => summary.target.name.as_str(),
            None => self.target.name(),
        };
        let (measure, scale) = (self.engine.measure, self.engine.settings.scale);
        let judgement =
            rho_judge::budget::judge_suite(self.config, budget_target, summary, measure, scale);
        let text = rho_report::verdicts::suite_report(summary, &job.what, &judgement, layout);
        (judgement, text)
    }
}

/// How one target's run ends: its closing lines and its exit status.
pub(crate) struct Ending<'a> {
    pub(crate) mode: Mode,
    /// Budgets that name no benchmark.
    pub(crate) unmatched: &'a [String],
    pub(crate) failed: &'a [FailedSuite],
    /// The suites there were.
    pub(crate) total: usize,
    pub(crate) width: usize,
}

impl Ending<'_> {
    pub(crate) fn close(
        &self,
        judgements: &[(String, Judgement)],
        finished: &crate::baseline::Finished,
        out: &mut Box<dyn Write>,
    ) -> u8 {
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
                    crate::say(&format!("rho: warning: {message}"));
                }
                if failed.is_empty() {
                    // `rho bench --diff REF`: a regression past the limit fails, as in `check --diff`.
                    crate::baseline::diff_code(finished, out)
                } else {
                    let _ = out.flush();
                    let summary = failure_summary("rho: error:", failed, total);
                    crate::say(summary.strip_suffix('\n').unwrap_or(&summary));
                    EXIT_CANNOT_DECIDE
                }
            }
            Mode::Check => {
                let failures = failure_summary("check: cannot decide:", failed, total);
                let (text, code) =
                    rho_report::verdicts::check_closing(judgements, unmatched, &failures, width);
                show(out, &format!("\n{text}"));
                // A regression against the baseline breaks the check like a budget does; "cannot decide" stays 2.
                let code = crate::baseline::check_code(code, finished, out);
                if failed.is_empty() && unmatched.is_empty() {
                    code
                } else {
                    EXIT_CANNOT_DECIDE
                }
            }
        }
    }
}

/// The run's document to `--json`, and kept in `collect` for the document of several targets.
fn deliver(
    document: &ProjectDocument<'_>,
    json: Option<&JsonTarget>,
    collect: Option<&mut Collected>,
) -> crate::Result<()> {
    if let Some(json) = json {
        json.write(document)?;
    }
    if let Some(collect) = collect {
        collect.document = Some(serde_json::to_value(document).map_err(Error::Json)?);
    }
    Ok(())
}

/// `--profile NAME` where no suite ran NAME: a warning after the suites (each suite's own run of its
/// benchmarks is no error, and the others' figures are kept).
fn warn_unprofiled(options: &Options, suites: &Suites) {
    let asked = options.asked.run.profile.as_deref();
    if let Some(name) = asked.filter(|_| !suites.profiled && options.mode != Mode::List) {
        crate::say(&format!(
            "rho: warning: --profile {name}: no suite ran a benchmark of that name"
        ));
    }
}

/// What is worth a warning in a suite's run (a figure to doubt; a filter that matched nothing).
fn warn_about(what: &str, summary: &RunSummary, filter: Option<&str>) {
    for warning in rho_report::warnings(summary) {
        crate::say(&format!("rho: warning: {what}: {warning}"));
    }
    if let Some(warning) = rho_suite::stream::filter_warning(filter, summary) {
        crate::say(&format!("rho: warning: {what}: {warning}"));
    }
}

/// Suite `index` of `engine` built, run and summarised, its footprint attached (or warned about); a failure
/// is printed as it happens and returned as the report and `--json` name it.
fn run_one(
    engine: &rho_suite::Engine<'_>,
    index: usize,
    repetitions: u32,
) -> Result<(RunSummary, Vec<(String, String)>), FailedSuite> {
    let job = &engine.jobs[index];
    rho_suite::observe::suite_started(&job.what, index + 1, engine.jobs.len(), repetitions);
    let outcome = engine.run(index).and_then(|run| {
        let mut summary = run.summary;
        if let Some(answer) = run.footprint {
            attach_or_warn(&mut summary, answer, &job.what);
        }
        Ok((engine.measured(job, summary)?, run.sampling_notes))
    });
    outcome.map_err(|error| {
        // A failure caused by a Ctrl-C is not reported: the interrupt handler exits with 130.
        rho_exec::interrupt::wait_if_exiting();
        let message = suite_error(&job.what, &error);
        crate::say(&format!("rho: error: {message}"));
        FailedSuite {
            suite: job.what.clone(),
            error: message,
        }
    })
}

/// `--html`: the judged suites' report, with the comparison against the baseline when there is one.
fn write_html(
    path: &std::path::Path,
    mode: Mode,
    config: &ModuleConfig,
    suites: &Suites,
    finished: &crate::baseline::Finished,
) -> crate::Result<()> {
    let pages = suites
        .judgements
        .iter()
        .zip(&suites.html_summaries)
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
    crate::output::write_html(path, &title, pages, finished.diff())
}

/// Attach the footprint command's answer to the run, or print why there is none (a warning: the run goes on).
pub fn attach_or_warn(
    summary: &mut RunSummary,
    answer: Result<rho_suite::footprint::MemDocument, String>,
    what: &str,
) {
    match answer {
        Ok(document) => rho_suite::footprint::attach(summary, &document),
        Err(warning) => crate::say(&format!(
            "rho: warning: {what}: {warning}; code bytes and static stack bounds are not reported"
        )),
    }
    for (name, mark, bound) in rho_report::marks_above_bound(summary) {
        crate::say(&format!(
            "rho: warning: {what}: {name}'s measured stack mark, {mark} bytes, is above its static bound of \
             {bound} bytes: the bound misses a frame (assembly, a library function, an interrupt) or the stack \
             overran"
        ));
    }
}

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
fn load_config() -> crate::Result<ModuleConfig> {
    Ok(rho_config::load_nearest(&crate::output::current_dir()?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_list_is_split_on_commas_and_all_is_every_board() {
        assert_eq!(target_list(None).unwrap(), [None]);
        assert_eq!(
            target_list(Some("mps2-an386, mps2-an500")).unwrap(),
            [
                Some("mps2-an386".to_string()),
                Some("mps2-an500".to_string())
            ]
        );
        assert_eq!(
            target_list(Some("all")).unwrap().len(),
            rho_config::BUILTIN_BOARDS.len()
        );
        let twice = target_list(Some("host,host")).unwrap_err().to_string();
        assert!(twice.contains("host is named twice"), "{twice}");
        let empty = target_list(Some("host,,mps2-an386"))
            .unwrap_err()
            .to_string();
        assert!(empty.contains("an empty name"), "{empty}");
    }
}
