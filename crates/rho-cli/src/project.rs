//! `rho bench` with no file arguments, and `rho bench check`: the nearest `module.yml` says what to build and
//! run (its suites), for which target, with which settings, and what each figure may cost (its budgets).
//!
//! For each suite: build it for the selected target, run it `repetitions` times, fold the runs into their best
//! figures (`rho_stats::best_of`), judge them against the budgets (`rho_judge::budget`), report. `check` is the
//! same with the outcome as the exit status: 0 every budget holds, 1 one is broken, 2 it cannot decide.
//!
//! Targets:
//! - `host` (built in): a C-file suite is compiled with the system compiler exactly as `rho bench FILE.c` does
//!   (`suite::build`) and its executable run in the module root.
//! - a built-in board such as `mps2-an386`: the ports in `c/ports` (embedded in the binary) build the suite with
//!   the board's cross compiler and QEMU runs it; see [`builtin_commands`].
//! - a target with `build:` and `run:`: the two shell commands, run in the module root once per C-file suite,
//!   with the suite's files in `RHO_BENCH_SOURCES`. With no `suites:` they run once: the commands are the suite.
//!
//! A `{ command: ... }` suite is its own build and run on every target: `sh -c COMMAND` in the module root.
//! A `{ cargo: BENCH }` suite is a bench target written with the `rho-bench` crate, built by cargo
//! ([`crate::cargo`]) and run with `RHO_BENCH_FORMAT=wire`.
//! Every command gets the harness settings in its environment (`RHO_BENCH_ITERATIONS`, `_WARMUP`, `_SCALE`,
//! `_TIME_CAP_MS`, `_STACK_BYTES`, `RHO_BENCH_ITERATIONS_<name>`) plus `RHO_BENCH_INCLUDE` and `RHO_BENCH_OUT`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use rho_config::{
    CMakeSuite, CargoSuite, MODULE_FILE, ModuleConfig, Suite, SuiteBuild, TargetSpec,
};
use rho_exec::{Runner, Termination};
use rho_judge::budget::Judgement;
use rho_stats::RunSummary;
use serde::Serialize;

use crate::cli::{ProjectArgs, RunArgs};
use crate::suite::{BuildOptions, Flags, ScratchDir, write_header};

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
        crate::bench::target_list(Some(list))?
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
    // Per suite, in the first target's order, the targets that ran it.
    let mut suites: Vec<String> = Vec::new();
    for (_, kept) in &collected {
        for (what, _) in &kept.summaries {
            if !suites.contains(what) {
                suites.push(what.clone());
            }
        }
    }
    let mut text = String::new();
    let mut markdown = String::new();
    let mut across = Vec::new();
    for what in &suites {
        let runs: Vec<(String, &RunSummary)> = collected
            .iter()
            .filter_map(|(target, kept)| {
                kept.summaries
                    .iter()
                    .find(|(w, _)| w == what)
                    .map(|(_, summary)| (target.clone(), summary))
            })
            .collect();
        let comparison = rho_stats::targets::compare(&runs);
        text.push('\n');
        text.push_str(&rho_report::targets::render_text(&comparison, what));
        markdown.push_str(&rho_report::targets::render_markdown(&comparison, what));
        markdown.push('\n');
        across.push(SuiteAcross {
            suite: what.clone(),
            comparison,
        });
    }
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

/// One suite side by side on several targets, for `rho-bench-project-targets/1`.
#[derive(Debug, Serialize)]
struct SuiteAcross {
    suite: String,
    comparison: rho_stats::targets::TargetComparison,
}

/// The document `--json` writes for several targets in module.yml mode.
#[derive(Debug, Serialize)]
struct ProjectTargetsDocument {
    schema: &'static str,
    rho_version: &'static str,
    targets: Vec<serde_json::Value>,
    suites: Vec<SuiteAcross>,
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
    crate::run::refuse_filtered_baseline(run.filter.as_deref(), &project.baseline)?;
    let config = load_config()?;
    let target = config.target(project.target.as_deref())?;
    // Before any suite runs: a bad `--diff REF` stops here, not after minutes of runs.
    // A built-in target's streams name it, so its baseline section is checked before the run too (unless
    // every suite is a command, which runs on the host whatever the target).
    let known_target = match &target {
        TargetSpec::Builtin { name, .. }
            if !config
                .suites
                .iter()
                .all(|s| matches!(s, Suite::Command { .. })) =>
        {
            Some(name.as_str())
        }
        _ => None,
    };
    let baseline =
        crate::baseline::prepare(&project.baseline, &config.root, Some(&config), known_target)?;
    let settings = Settings::resolve(&config, run)?;
    let repetitions =
        crate::baseline::repetitions(&project.baseline, project.repetitions, config.repetitions);
    let timeout = target
        .timeout()
        .unwrap_or_else(|| Duration::from_secs_f64(run.timeout));
    let flags = run.flags()?;
    let measure = run.measure.unwrap_or(config.measure);
    let icount = crate::ports::icount_shift(target.name()).is_some();
    let counter = if measure.counts() && icount {
        // Under QEMU -icount every run's ticks are instructions already (crate::count::summarise).
        None
    } else if measure.counts() {
        if target.name() != "host" {
            bail!(
                "--measure instructions counts under Valgrind on the host; target {} is not the host (on \
                 the built-in boards the figures are QEMU icount instructions in every run)",
                target.name()
            );
        }
        Some(crate::count::Counter::find(run.cache_sim)?)
    } else {
        None
    };
    // Under QEMU -icount the timed run's ticks give the instructions: it always runs.
    let times = measure.times() || icount;
    let jobs = jobs(&config, &target)?;
    // Before anything is built or run: a suite file that is not there is a mistake in module.yml.
    check_suite_files(&config)?;
    if let TargetSpec::Builtin { name, .. } = &target
        && name != "host"
        && !settings.per_benchmark.is_empty()
    {
        // A board has no environment at run time: the port compiles one count in for every benchmark.
        let names: Vec<&str> = settings
            .per_benchmark
            .iter()
            .map(|(n, _)| n.as_str())
            .collect();
        eprintln!(
            "rho: warning: target {name} runs every benchmark for the same number of iterations: the \
             per-benchmark `iterations` of {} do not apply there",
            names.join(", ")
        );
    }
    let workspace = Workspace::new()?;
    // Asked for each built suite's static footprint (docs/mem-json.md): never linked, so it can be replaced.
    let mem_command =
        crate::footprint::MemCommand::resolve(config.mem_command.as_deref(), &config.root)?;
    let mut environment = settings.environment();
    // module.yml's `stack_bytes:` for this target: the run's (a host harness) and the build's (a board's port).
    if let Some(bytes) = crate::suite::configured_stack_bytes(&config, target.name(), &flags) {
        environment.push(("RHO_BENCH_STACK_BYTES".to_string(), bytes.to_string()));
    }
    environment.push((
        "RHO_BENCH_INCLUDE".to_string(),
        workspace.include_dir().display().to_string(),
    ));

    let mut skipped = false;
    let mut judgements = Vec::new();
    let mut failed: Vec<FailedSuite> = Vec::new();
    let mut records = Vec::new();
    let mut summaries = Vec::new();
    // With `--html`: each judged suite's summary, beside `judgements`.
    let mut html_summaries = Vec::new();
    // The human report: stdout, or stderr when `--json -` takes stdout.
    let (mut out, style) = if collect.as_ref().is_some_and(|c| c.report_to_stderr) {
        let style = crate::term::Style::new(output, crate::term::Stream::Stderr);
        (style.writer(Box::new(std::io::stderr())), style)
    } else {
        crate::export::report_output(json.as_ref(), output)
    };
    let width = style.layout.width;
    for (index, job) in jobs.iter().enumerate() {
        if !times && matches!(job.kind, JobKind::TargetOnly) {
            eprintln!(
                "rho: warning: {}: not counted (--measure instructions counts the suites rho runs on the \
                 host under Valgrind): skipped",
                job.what
            );
            skipped = true;
            continue;
        }
        crate::term::progress::suite(&job.what, index + 1, jobs.len(), repetitions);
        let out_dir = workspace.out_dir(index)?;
        let mut env = environment.clone();
        env.push(("RHO_BENCH_OUT".to_string(), out_dir.display().to_string()));
        if !job.sources.is_empty() {
            let sources: Vec<String> = job
                .sources
                .iter()
                .map(|s| s.display().to_string())
                .collect();
            env.push(("RHO_BENCH_SOURCES".to_string(), sources.join(" ")));
        }
        let outcome = run_job(
            &config,
            job,
            &target,
            &workspace,
            &env,
            &flags,
            Measuring {
                repetitions,
                times,
                counter: counter.as_ref(),
                iterations_set: run.iterations.is_some(),
                warmup_set: run.warmup.is_some(),
            },
            timeout,
            &mem_command,
        )
        .and_then(|(runs, counted, footprint)| {
            let mut summary = crate::count::summarise(&runs, counted.as_ref(), &job.what)?;
            if let Some(answer) = footprint {
                crate::footprint::attach_or_warn(&mut summary, answer, &job.what);
            }
            Ok(summary)
        })
        .and_then(|summary| {
            // A suite that measured nothing would pass every budget: it cannot be judged. (With `--filter`
            // a suite may leave every benchmark out on purpose.)
            if summary.benchmarks.is_empty() && run.filter.is_none() {
                bail!(
                    "{} reported no benchmarks: its stream is well formed but measures nothing (is it \
                     running the right program?)",
                    job.what
                );
            }
            Ok(summary)
        });
        // One suite that cannot be built or run does not stop the others: its error is printed now, the
        // suites that finished are reported, and the run ends with exit 2 (cannot decide).
        let summary = match outcome {
            Ok(summary) => summary,
            Err(error) => {
                // A failure caused by a Ctrl-C is not reported: the interrupt handler exits with 130.
                rho_exec::interrupt::wait_if_exiting();
                let message = suite_error(&job.what, &error);
                eprintln!("rho: error: {}", rho_text::escape_text(&message));
                failed.push(FailedSuite {
                    suite: job.what.clone(),
                    error: message,
                });
                continue;
            }
        };
        if mode == Mode::List {
            let indented: String = names(&summary)
                .lines()
                .map(|n| format!("  {n}\n"))
                .collect();
            let _ = out
                .write_all(format!("{}:\n{indented}", job.what).as_bytes())
                .and_then(|()| out.flush());
            continue;
        }
        for warning in rho_report::warnings(&summary) {
            eprintln!("rho: warning: {}: {warning}", job.what);
        }
        if let Some(warning) = crate::run::filter_warning(run.filter.as_deref(), &summary) {
            eprintln!("rho: warning: {}: {warning}", job.what);
        }
        // A target's own budgets apply to what ran on it; a command suite runs on the host whatever the target.
        let budget_target = match job.kind {
            JobKind::Command(_) => summary.target.name.as_str(),
            _ => target.name(),
        };
        let judgement = Judgement::of(
            &summary,
            |name| measure.applicable(config.budgets_for_target(budget_target, name)),
            settings.scale,
        )
        .with_scopes(rho_judge::budget::module_wide_scope(&config, budget_target));
        // The stream names the target it ran on (a command suite runs on the host whatever the target).
        let mut text = crate::verdicts::with_header_line(
            &rho_report::render_with(&summary, &job.what, style.layout),
            &crate::verdicts::header_line(&judgement, width),
        );
        let budgets = crate::verdicts::table(&judgement, width);
        if !budgets.is_empty() {
            text.push('\n');
            text.push_str(&budgets);
        }
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
        if let Some(collect) = collect.as_mut() {
            collect.summaries.push((job.what.clone(), summary.clone()));
        }
        if json.is_some() || collect.is_some() {
            records.push(SuiteRecord {
                suite: job.what.clone(),
                budgets: crate::verdicts::BudgetsRecord::of(&judgement),
                families: rho_stats::families(&summary),
                summary,
            });
        }
        judgements.push((job.what.clone(), judgement));
    }
    drop(workspace);

    let built_with = built_with(&jobs, &target, &flags);
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
        let suites = judgements
            .iter()
            .zip(&html_summaries)
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
        crate::export::write_html(html, &title, suites, baseline.diff())?;
    }
    if json.is_some() || collect.is_some() {
        let document = ProjectDocument {
            schema: PROJECT_SCHEMA,
            rho_version: env!("CARGO_PKG_VERSION"),
            module: config.file.clone(),
            target: target.name().to_string(),
            scale: settings.scale,
            repetitions,
            suites: records,
            failed: &failed,
            comparison: baseline.record.as_ref(),
        };
        if let Some(json) = &json {
            json.write(&document)?;
        }
        if let Some(collect) = collect.as_mut() {
            collect.document =
                Some(serde_json::to_value(&document).context("cannot write the run as JSON")?);
        }
    }

    // Budgets naming no benchmark that any suite printed (a typo) would otherwise be silently unused. With a
    // suite missing its names are unknown, and the run cannot decide anyway; `--filter` leaves names out on
    // purpose.
    let unmatched = if failed.is_empty() && run.filter.is_none() && !skipped && mode != Mode::List {
        crate::verdicts::unmatched_budgets(&config, target.name(), &judgements)
    } else {
        Vec::new()
    };
    match mode {
        Mode::Report | Mode::List => {
            for message in &unmatched {
                eprintln!("rho: warning: {message}");
            }
            if failed.is_empty() {
                // `rho bench --diff REF`: a regression past the limit fails, as in `check --diff`.
                Ok(ExitCode::from(crate::baseline::diff_code(
                    &baseline, &mut out,
                )))
            } else {
                let _ = out.flush();
                eprint!("{}", failure_summary("rho: error:", &failed, jobs.len()));
                Ok(ExitCode::from(EXIT_CANNOT_DECIDE))
            }
        }
        Mode::Check => {
            let (mut text, code) = crate::verdicts::check_summary(&judgements);
            if !failed.is_empty() || !unmatched.is_empty() {
                // "every budget holds" is about the suites that ran; with one missing, the check is undecided.
                text = text
                    .lines()
                    .filter(|line| !line.starts_with("check: ok"))
                    .map(|line| format!("{line}\n"))
                    .collect();
            }
            for message in &unmatched {
                text.push_str(&format!("check: cannot decide: {message}\n"));
            }
            let failures = failure_summary("check: cannot decide:", &failed, jobs.len());
            let text = rho_report::wrap(&format!("{text}{failures}"), width, 4);
            let _ = out
                .write_all(format!("\n{text}").as_bytes())
                .and_then(|()| out.flush());
            // A regression against the baseline breaks the check like a budget does; "cannot decide" stays 2.
            let code = crate::baseline::check_code(code, &baseline, &mut out);
            let code = if failed.is_empty() && unmatched.is_empty() {
                code
            } else {
                EXIT_CANNOT_DECIDE
            };
            Ok(ExitCode::from(code))
        }
    }
}

/// The exit status when a suite could not be built or run: the check cannot decide.
const EXIT_CANNOT_DECIDE: u8 = 2;

/// A suite that could not be built, run or summarised, in the report and in `--json`'s `failed`.
#[derive(Debug, Serialize)]
struct FailedSuite {
    /// The suite's files or command, as module.yml names it.
    suite: String,
    /// What went wrong, as printed.
    error: String,
}

/// `error` as one message that names the suite `what` (a build error does not name it by itself).
fn suite_error(what: &str, error: &anyhow::Error) -> String {
    let text = format!("{error:#}");
    if text.contains(what) {
        text
    } else {
        format!("suite {what}: {text}")
    }
}

/// The closing lines about failed suites (empty when none failed).
fn failure_summary(prefix: &str, failed: &[FailedSuite], total: usize) -> String {
    if failed.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "{prefix} {} of {total} suite{} failed to build or run\n",
        failed.len(),
        if total == 1 { "" } else { "s" }
    );
    for failure in failed {
        // The error may quote what the suite printed.
        let first = failure.error.lines().next().unwrap_or_default();
        out.push_str(&format!(
            "  {}: {}\n",
            failure.suite,
            rho_text::escape_line(first)
        ));
    }
    out
}

/// The schema of `--json`'s document in module.yml mode. A change that alters the meaning of a field bumps it.
pub const PROJECT_SCHEMA: &str = rho_baseline::saved::PROJECT_SCHEMA;

/// `rho bench --json FILE` in module.yml mode: every suite's run (as `rho-bench-run/1` holds it: the summary,
/// raw and net) with its budgets and verdicts.
#[derive(Debug, Serialize)]
struct ProjectDocument<'a> {
    schema: &'static str,
    rho_version: &'static str,
    /// The module.yml read, as named in messages.
    module: PathBuf,
    target: String,
    scale: f64,
    /// Runs folded into each suite's figures (best of N).
    repetitions: u32,
    suites: Vec<SuiteRecord>,
    /// The suites that could not be built, run or summarised (their figures are missing from `suites`).
    failed: &'a [FailedSuite],
    /// With `--diff REF`: the run against the baseline, per benchmark and metric (docs/json-output.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    comparison: Option<&'a rho_baseline::ComparisonRecord>,
}

#[derive(Debug, Serialize)]
struct SuiteRecord {
    /// The suite's files or command, as module.yml names it.
    suite: String,
    budgets: crate::verdicts::BudgetsRecord,
    /// The run's summary, its fields at this level (as in `rho-bench-run/1`).
    #[serde(flatten)]
    summary: RunSummary,
    /// The benchmark families and their fits (as in `rho-bench-run/1`); absent without any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    families: Vec<rho_stats::FamilyGrowth>,
}

/// The nearest module.yml at or above the current directory, named `module.yml` in messages when it is in the
/// current directory itself.
fn load_config() -> anyhow::Result<ModuleConfig> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let root = rho_config::find_module_root(&cwd)?;
    let file = if root == cwd {
        PathBuf::from(MODULE_FILE)
    } else {
        root.join(MODULE_FILE)
    };
    Ok(ModuleConfig::load(&file)?)
}

/// What the harness is told, from the command line over the environment over module.yml.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub iterations: Option<u64>,
    pub warmup: Option<u64>,
    /// Multiplies every iteration count; below 1.0 budgets are reported only.
    pub scale: f64,
    pub time_cap_ms: Option<u64>,
    /// `stack_watermark: false`.
    pub stack_off: bool,
    /// `RHO_BENCH_ITERATIONS_<name>` per benchmark with its own `iterations`.
    pub per_benchmark: Vec<(String, u64)>,
    /// `RHO_BENCH_BATCH` (module.yml's `batch`).
    pub batch: Option<u64>,
    /// `RHO_BENCH_BATCH_<name>` per benchmark with its own `batch`.
    pub batch_per_benchmark: Vec<(String, u64)>,
    /// `--filter`: RHO_BENCH_FILTER.
    pub filter: Option<String>,
}

impl Settings {
    pub fn resolve(config: &ModuleConfig, run: &RunArgs) -> anyhow::Result<Settings> {
        Ok(Settings {
            iterations: run.iterations.or(config.default_iterations),
            warmup: run.warmup.or(config.warmup_runs),
            scale: resolve_scale(run.scale, std::env::var_os("RHO_BENCH_SCALE"), config.scale)?,
            time_cap_ms: config.time_cap_ms,
            stack_off: !config.stack_watermark,
            per_benchmark: config
                .benchmarks
                .iter()
                .filter_map(|b| b.iterations.map(|n| (b.name.clone(), n)))
                .collect(),
            batch: config.batch,
            batch_per_benchmark: config
                .benchmarks
                .iter()
                .filter_map(|b| b.batch.map(|k| (b.name.clone(), k)))
                .collect(),
            filter: run.filter.clone(),
        })
    }

    /// The environment every build and run gets.
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut env = Vec::new();
        if let Some(n) = self.iterations {
            env.push(("RHO_BENCH_ITERATIONS".to_string(), n.to_string()));
        }
        for (name, n) in &self.per_benchmark {
            env.push((format!("RHO_BENCH_ITERATIONS_{name}"), n.to_string()));
        }
        if let Some(k) = self.batch {
            env.push(("RHO_BENCH_BATCH".to_string(), k.to_string()));
        }
        for (name, k) in &self.batch_per_benchmark {
            env.push((format!("RHO_BENCH_BATCH_{name}"), k.to_string()));
        }
        if let Some(n) = self.warmup {
            env.push(("RHO_BENCH_WARMUP".to_string(), n.to_string()));
        }
        // Always passed, so a `RHO_BENCH_SCALE` in rho's own environment reaches the harness as rho read it.
        // `f64`'s Display never uses an exponent, which the harness does not read.
        env.push(("RHO_BENCH_SCALE".to_string(), self.scale.to_string()));
        if let Some(ms) = self.time_cap_ms {
            env.push(("RHO_BENCH_TIME_CAP_MS".to_string(), ms.to_string()));
        }
        if self.stack_off {
            env.push(("RHO_BENCH_STACK_BYTES".to_string(), "0".to_string()));
        }
        if let Some(filter) = &self.filter {
            env.push(("RHO_BENCH_FILTER".to_string(), filter.clone()));
        }
        // A Rust harness (rho-bench) prints its report unless told to print the stream; C ignores it.
        env.push(("RHO_BENCH_FORMAT".to_string(), "wire".to_string()));
        env
    }
}

/// `--scale`, else `RHO_BENCH_SCALE` from the environment, else module.yml's `scale`.
fn resolve_scale(
    cli: Option<f64>,
    env: Option<std::ffi::OsString>,
    config: f64,
) -> anyhow::Result<f64> {
    if let Some(scale) = cli {
        return Ok(scale);
    }
    let Some(text) = env else {
        return Ok(config);
    };
    let text = text.to_string_lossy();
    match text.trim().parse::<f64>() {
        Ok(scale) if rho_config::is_scale(scale) => Ok(scale),
        _ => bail!(
            "RHO_BENCH_SCALE={text:?} in the environment: expected a number from 1e-9 to 1e9, e.g. 0.5"
        ),
    }
}

/// One suite to build and run.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// How the suite is named in reports: its files, its command, or its CMake target.
    pub what: String,
    /// The C files, resolved against the module root (empty for a command).
    pub sources: Vec<PathBuf>,
    /// How a C-file suite is built beyond its files (its flags, include directories, defines, packages).
    pub build: SuiteBuild,
    pub kind: JobKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum JobKind {
    /// C files compiled for the target.
    CFiles,
    /// `sh -c COMMAND` in the module root, whatever the target.
    Command(String),
    /// A `build:`/`run:` target with no `suites:`: its commands are the suite.
    TargetOnly,
    /// A target of the module's CMake project, built with `cmake --build` (see [`crate::cmake`]).
    CMake(CMakeSuite),
    /// A bench target of a cargo project using `rho-bench`, built with cargo (see [`crate::cargo`]).
    Cargo(CargoSuite),
}

/// How the suites of a run were built, for the baseline's context (docs/baseline.md): the compiler and flags
/// (or the port, or the target's `build:`) for the C suites rho built, the build of a CMake or cargo suite;
/// nothing for a `command:` suite, which builds itself (no compiler flags are true of it). `None` when rho
/// built none of them.
fn built_with(jobs: &[Job], target: &TargetSpec, flags: &crate::suite::Flags) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for job in jobs {
        let part = match &job.kind {
            JobKind::Command(_) => None,
            JobKind::CFiles | JobKind::TargetOnly => {
                crate::baseline::build_description(target, flags)
            }
            JobKind::CMake(cmake) => Some(format!("cmake --build --target {}", cmake.target)),
            JobKind::Cargo(cargo) => Some(cargo.describe()),
        };
        if let Some(part) = part
            && !parts.contains(&part)
        {
            parts.push(part);
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The suites to run, in module.yml's order.
fn jobs(config: &ModuleConfig, target: &TargetSpec) -> anyhow::Result<Vec<Job>> {
    if config.suites.is_empty() && matches!(target, TargetSpec::Commands { .. }) {
        return Ok(vec![Job {
            what: format!("target {}", target.name()),
            sources: Vec::new(),
            build: SuiteBuild::default(),
            kind: JobKind::TargetOnly,
        }]);
    }
    let suites = config.require_suites()?;
    Ok(suites
        .iter()
        .map(|suite| {
            let (sources, build, kind) = match suite {
                Suite::CFiles { files, build, .. } => (
                    files.iter().map(|f| config.resolve(f)).collect(),
                    build.clone(),
                    JobKind::CFiles,
                ),
                Suite::Command { command, .. } => (
                    Vec::new(),
                    SuiteBuild::default(),
                    JobKind::Command(command.clone()),
                ),
                Suite::CMake(cmake) => (
                    Vec::new(),
                    SuiteBuild::default(),
                    JobKind::CMake(cmake.clone()),
                ),
                Suite::Cargo(cargo) => (
                    Vec::new(),
                    SuiteBuild::default(),
                    JobKind::Cargo(cargo.clone()),
                ),
            };
            Job {
                what: suite.describe(),
                sources,
                build,
                kind,
            }
        })
        .collect())
}

/// Every C file module.yml's suites name exists (resolved against the module root); else an error naming
/// module.yml's file, line and column of the suite and the missing file.
fn check_suite_files(config: &ModuleConfig) -> Result<(), rho_config::ConfigError> {
    let invalid = |at: &rho_config::SourcePos, message: String| rho_config::ConfigError::Invalid {
        file: config.file.clone(),
        pos: *at,
        message,
    };
    for suite in &config.suites {
        match suite {
            Suite::CFiles { files, build, at } => {
                for file in files {
                    if !config.resolve(file).is_file() {
                        return Err(invalid(
                            at,
                            format!("suite file '{}' does not exist", file.display()),
                        ));
                    }
                }
                for dir in &build.include {
                    if !config.resolve(dir).is_dir() {
                        return Err(invalid(
                            at,
                            format!("include directory '{}' does not exist", dir.display()),
                        ));
                    }
                }
            }
            Suite::CMake(cmake) => {
                let lists = config.resolve(&cmake.source_dir).join("CMakeLists.txt");
                if !lists.is_file() {
                    return Err(invalid(
                        &cmake.at,
                        format!(
                            "cmake suite: no CMakeLists.txt in '{}' (source_dir, relative to the module root)",
                            cmake.source_dir.display()
                        ),
                    ));
                }
            }
            Suite::Command { .. } | Suite::Cargo(_) => {}
        }
    }
    Ok(())
}

/// A port of its own (`files`) written under `ports/dir`, and the shell command that builds the suite with its
/// Makefile, the settings and flags from the environment.
fn port_build(ports: &Path, dir: &str, files: &[(&str, &str)]) -> anyhow::Result<String> {
    // What every port shares (c/ports/common, the Cortex-M vector table), beside the port's own files.
    crate::ports::write_ports(ports)?;
    let port = ports.join(dir);
    std::fs::create_dir_all(&port).with_context(|| format!("cannot create {}", port.display()))?;
    for (file, text) in files {
        let path = port.join(file);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let makefile = shell_quote(&port.join("Makefile").display().to_string());
    Ok(format!(
        "make -s -f {makefile} SUITE=\"$RHO_BENCH_SOURCES\" RHO_BENCH_OUT=\"$RHO_BENCH_OUT\" \
         RHO_BENCH_INCLUDE=\"$RHO_BENCH_INCLUDE\" EXTRA_CFLAGS=\"$RHO_BENCH_CFLAGS\" \
         EXTRA_LDFLAGS=\"$RHO_BENCH_LDFLAGS\" all"
    ))
}

/// How a built-in target other than `host` builds and runs a C suite: two shell commands, run like a
/// module.yml target's `build:` and `run:` (in the module root, with `RHO_BENCH_SOURCES`, `RHO_BENCH_OUT`,
/// `RHO_BENCH_INCLUDE` and the settings in the environment). `None` for `host`, which rho builds itself, and
/// for a name that is not built in. The port's files are written under `ports` first.
pub fn builtin_commands(name: &str, ports: &Path) -> anyhow::Result<Option<(String, String)>> {
    if name == "aarch64-linux" {
        // The hosted harness cross-compiled for 64-bit Arm Linux and run under QEMU's user-mode emulator: the
        // `cntvct` counter's path on a machine that is not arm64. Its settings are read from the environment at
        // run time, which qemu-aarch64 passes through, as on a host.
        let build = port_build(ports, "aarch64-linux", &AARCH64_LINUX_PORT)?;
        return Ok(Some((
            build,
            "qemu-aarch64 \"$RHO_BENCH_OUT/bench.elf\"".to_string(),
        )));
    }
    if name == "stm32h743zi" {
        // A real board: built with its own port (the README's recipe), flashed and run by probe-rs, whose standard
        // output is the RTT console and whose exit status is the program's (semihosting SYS_EXIT_EXTENDED).
        let build = port_build(ports, "stm32h743zi", &STM32H743ZI_PORT)?;
        let run = "probe-rs run --chip STM32H743ZITx \"$RHO_BENCH_OUT/bench.elf\"".to_string();
        return Ok(Some((build, run)));
    }
    let Some(board) = crate::ports::board(name) else {
        return Ok(None);
    };
    crate::ports::write_ports(ports)?;
    let makefile = shell_quote(&ports.join("Makefile").display().to_string());
    // The suite's settings reach the Makefile through the environment (make reads it), and it compiles
    // them in as defines: a board has no environment at run time.
    let build = format!(
        "make -s -f {makefile} BOARD={name} SUITE=\"$RHO_BENCH_SOURCES\" RHO_BENCH_OUT=\"$RHO_BENCH_OUT\" \
         RHO_BENCH_INCLUDE=\"$RHO_BENCH_INCLUDE\" EXTRA_CFLAGS=\"$RHO_BENCH_CFLAGS\" \
         EXTRA_LDFLAGS=\"$RHO_BENCH_LDFLAGS\" all"
    );
    // QEMU run directly (not `make run`, which would turn the suite's exit status into make's own 2);
    // the same command as the Makefile's `print-run-command`. Stdin is closed by the runner.
    let run = board.run_command("\"$RHO_BENCH_OUT/bench.elf\"");
    Ok(Some((build, run)))
}

/// The aarch64-linux port (a Makefile for the cross compiler), embedded; it builds with `c/ports/common`'s harness
/// unit and rules, which `write_ports` lays beside it.
pub(crate) const AARCH64_LINUX_PORT: [(&str, &str); 1] = [(
    "Makefile",
    include_str!("../../../c/ports/aarch64-linux/Makefile"),
)];

/// The stm32h743zi port (NUCLEO-H743ZI, Cortex-M7), embedded; it shares `c/ports/common` and
/// `c/ports/cortex-m/vectors.c` with the built-in boards, which `write_ports` lays beside it.
pub(crate) const STM32H743ZI_PORT: [(&str, &str); 5] = [
    (
        "Makefile",
        include_str!("../../../c/ports/stm32h743zi/Makefile"),
    ),
    (
        "startup.c",
        include_str!("../../../c/ports/stm32h743zi/startup.c"),
    ),
    (
        "console.c",
        include_str!("../../../c/ports/stm32h743zi/console.c"),
    ),
    (
        "stm32h743zi.ld",
        include_str!("../../../c/ports/stm32h743zi/stm32h743zi.ld"),
    ),
    (
        "stm32h743zi-memory.ld",
        include_str!("../../../c/ports/stm32h743zi/stm32h743zi-memory.ld"),
    ),
];

/// `text` quoted for `sh`.
fn shell_quote(text: &str) -> String {
    shlex::try_quote(text)
        .map(|q| q.into_owned())
        .unwrap_or_else(|_| format!("'{}'", text.replace('\'', "'\\''")))
}

/// What a job's runs measure.
struct Measuring<'a> {
    /// Timed runs, folded best of N.
    repetitions: u32,
    /// Whether to time at all.
    times: bool,
    /// Counting: the counted run's runner.
    counter: Option<&'a crate::count::Counter>,
    /// Whether the iterations and warm-ups were set (else counting uses its own defaults).
    iterations_set: bool,
    warmup_set: bool,
}

impl Measuring<'_> {
    /// The counted run of a host `executable` (in `root`, with `env`) when counting, else `None`.
    fn count(
        &self,
        executable: &Path,
        env: &[(String, String)],
        root: &Path,
        what: &str,
        timeout: Duration,
    ) -> anyhow::Result<Option<rho_wire::Run>> {
        self.counted(env, |counter, env| {
            counter.run(executable, env, Some(root), what, timeout)
        })
    }

    /// The counted run of a command suite (`sh -c command` in `root`, with `env`) when counting, else
    /// `None`.
    fn count_shell(
        &self,
        command: &str,
        env: &[(String, String)],
        root: &Path,
        what: &str,
        timeout: Duration,
    ) -> anyhow::Result<Option<rho_wire::Run>> {
        self.counted(env, |counter, env| {
            counter.run_shell(command, env, root, what, timeout)
        })
    }

    /// `run` under the counter, with this mode's iterations and warm-ups in `env`, when counting.
    fn counted(
        &self,
        env: &[(String, String)],
        run: impl FnOnce(&crate::count::Counter, &[(String, String)]) -> anyhow::Result<rho_wire::Run>,
    ) -> anyhow::Result<Option<rho_wire::Run>> {
        let Some(counter) = self.counter else {
            return Ok(None);
        };
        let env = crate::count::environment(env.to_vec(), self.iterations_set, self.warmup_set);
        run(counter, &env).map(Some)
    }
}

/// What the footprint command answered for a built suite (`None`: no image to ask about, e.g. a command
/// suite).
type FootprintAnswer = Option<Result<crate::footprint::MemDocument, String>>;

/// Build `job` for `target` and run it: timed `repetitions` times, and once counted when counting; the
/// parsed runs, and the footprint command's answer for the image built (asked while the build directory is
/// there).
#[allow(clippy::too_many_arguments)]
fn run_job(
    config: &ModuleConfig,
    job: &Job,
    target: &TargetSpec,
    workspace: &Workspace,
    env: &[(String, String)],
    flags: &Flags,
    measuring: Measuring<'_>,
    timeout: Duration,
    mem_command: &crate::footprint::MemCommand,
) -> anyhow::Result<(Vec<rho_wire::Run>, Option<rho_wire::Run>, FootprintAnswer)> {
    let mut footprint = None;
    let what = format!("{} for target {}", job.what, target.name());
    let repetitions = if measuring.times {
        measuring.repetitions
    } else {
        0
    };
    let host_c = matches!((&job.kind, target), (JobKind::CFiles | JobKind::CMake(_) | JobKind::Command(_) | JobKind::Cargo(_), TargetSpec::Builtin { name, .. }) if name == "host");
    if measuring.counter.is_some() && !host_c {
        eprintln!(
            "rho: warning: {what}: timed, not counted (--measure instructions runs the C suites rho builds for \
             the host under Valgrind)"
        );
    }
    let mut runs = Vec::new();
    let mut counted = None;
    match (&job.kind, target) {
        (JobKind::Command(command), _) => {
            for _ in 0..repetitions {
                runs.push(crate::run::run_stream(
                    shell(command, &config.root, env),
                    &job.what,
                    timeout,
                )?);
            }
            if target.name() == "host" {
                counted = measuring.count_shell(command, env, &config.root, &job.what, timeout)?;
            }
        }
        (JobKind::CMake(cmake), _) => {
            let built = crate::cmake::build(config, cmake, target.name(), env, timeout)?;
            for _ in 0..repetitions {
                runs.push(crate::run::run_stream(built.command()?, &what, timeout)?);
            }
            if target.name() == "host" {
                counted =
                    measuring.count(&built.executable, env, &config.root, &job.what, timeout)?;
            }
        }
        (JobKind::Cargo(cargo), TargetSpec::Builtin { name, .. }) if name == "host" => {
            let executable = crate::cargo::build(config, cargo, env, None, timeout)?;
            for _ in 0..repetitions {
                let mut command = Command::new(&executable);
                command.current_dir(&config.root);
                command.envs(env.iter().map(|(k, v)| (k, v)));
                runs.push(crate::run::run_stream(command, &job.what, timeout)?);
            }
            counted = measuring.count(&executable, env, &config.root, &job.what, timeout)?;
        }
        (JobKind::Cargo(cargo), TargetSpec::Builtin { name, .. }) => {
            let board = crate::ports::board(name).ok_or_else(|| {
                anyhow!("target '{name}' is built in but rho has no definition of it")
            })?;
            let elf = crate::cargo::build_for_board(config, cargo, env, &board, timeout)?;
            let kernel = shell_quote(&elf.display().to_string());
            for _ in 0..repetitions {
                runs.push(crate::run::run_stream(
                    shell(&board.run_command(&kernel), &config.root, env),
                    &what,
                    timeout,
                )?);
            }
        }
        (JobKind::Cargo(cargo), TargetSpec::Commands { .. }) => {
            bail!(
                "{}: it runs on the built-in targets (host, mps2-an386), not on a target of module.yml's own",
                crate::cargo::located(config, cargo)
            );
        }
        (JobKind::CFiles, TargetSpec::Builtin { name, .. }) if name == "host" => {
            let flags = crate::suite::suite_flags(config, name, &job.build, flags, timeout)?;
            let built = crate::suite::build(&job.sources, &BuildOptions { flags, timeout })?;
            for _ in 0..repetitions {
                let mut command = Command::new(&built.executable);
                command.current_dir(&config.root);
                command.envs(env.iter().map(|(k, v)| (k, v)));
                runs.push(crate::run::run_stream(command, &job.what, timeout)?);
            }
            counted = measuring.count(&built.executable, env, &config.root, &job.what, timeout)?;
            footprint = Some(crate::footprint::ask(
                mem_command,
                &built.image_files(),
                timeout,
            ));
        }
        (JobKind::CFiles | JobKind::TargetOnly, _) => {
            let (build, run) = match target {
                TargetSpec::Commands { build, run, .. } => (build.clone(), run.clone()),
                TargetSpec::Builtin { name, .. } => builtin_commands(name, &workspace.ports_dir())?
                    .ok_or_else(|| {
                        anyhow!("target '{name}' is built in but rho has no definition of it")
                    })?,
            };
            let mut flags =
                crate::suite::suite_flags(config, target.name(), &job.build, flags, timeout)?;
            let mut env = env.to_vec();
            // A built-in board's compiler is known: it gets the stack-usage flags when it takes them.
            if let TargetSpec::Builtin { name, .. } = target {
                flags.cflags.extend(crate::board::stack_usage_flags(name));
            }
            env.extend(crate::board::flags_environment(&flags));
            shell_build(&build, &config.root, &env, timeout, &what)
                .map_err(|error| crate::suite::with_link_hint(error, &flags.cflags))?;
            for _ in 0..repetitions {
                runs.push(crate::run::run_stream(
                    shell(&run, &config.root, &env),
                    &what,
                    timeout,
                )?);
            }
            // An image at `$RHO_BENCH_OUT/bench.elf` (the built-in ports', and any target's build that
            // writes one there) is asked about, with whatever `.su`/`.ci` files the build left beside it.
            let out = env
                .iter()
                .find(|(k, _)| k == "RHO_BENCH_OUT")
                .map(|(_, v)| PathBuf::from(v));
            if let Some(out) = out.filter(|o| o.join("bench.elf").is_file()) {
                let files = crate::footprint::ImageFiles {
                    image: out.join("bench.elf"),
                    stack_usage: Some(out),
                };
                footprint = Some(crate::footprint::ask(mem_command, &files, timeout));
            }
        }
    }
    Ok((runs, counted, footprint))
}

/// `sh -c COMMAND` in `dir` with `env` added.
fn shell(command: &str, dir: &Path, env: &[(String, String)]) -> Command {
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(command).current_dir(dir);
    sh.envs(env.iter().map(|(k, v)| (k, v)));
    sh
}

/// Run a target's `build:` command to completion; its output is shown only when it fails.
fn shell_build(
    command: &str,
    dir: &Path,
    env: &[(String, String)],
    timeout: Duration,
    what: &str,
) -> anyhow::Result<()> {
    let (finished, stdout) = Runner::new(shell(command, dir, env))
        .timeout(timeout)
        .run_collect()
        .with_context(|| format!("cannot run the build command of {what}: `{command}`"))?;
    if finished.termination == Termination::Exited(0) {
        return Ok(());
    }
    let mut message = format!("cannot build {what}: `{command}` {}", finished.termination);
    let output = format!("{stdout}{}", finished.stderr);
    let output = output.trim_end();
    if !output.is_empty() {
        message.push_str(":\n");
        message.push_str(output);
    }
    bail!(message)
}

/// Summarise each run and keep, per benchmark and metric, the best.
pub fn fold(runs: &[rho_wire::Run], what: &str) -> anyhow::Result<RunSummary> {
    let summaries = runs
        .iter()
        .map(RunSummary::of)
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("cannot summarise the run of {what}"))?;
    rho_stats::best_of(&summaries).with_context(|| format!("cannot fold the runs of {what}"))
}

/// The temporary directory of one `rho bench` in module mode: `include/rho/bench.h`, a build directory per
/// suite, the built-in ports. Removed when dropped, and on Ctrl-C.
struct Workspace {
    dir: ScratchDir,
}

impl Workspace {
    fn new() -> anyhow::Result<Workspace> {
        let dir = ScratchDir::new("rho-project-").context("cannot create a temporary directory")?;
        write_header(dir.path())?;
        Ok(Workspace { dir })
    }

    fn include_dir(&self) -> PathBuf {
        self.dir.path().join("include")
    }

    fn ports_dir(&self) -> PathBuf {
        self.dir.path().join("ports")
    }

    /// A fresh build directory for suite number `index`.
    fn out_dir(&self, index: usize) -> anyhow::Result<PathBuf> {
        let path = self.dir.path().join(format!("out-{index}"));
        std::fs::create_dir_all(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> ModuleConfig {
        ModuleConfig::from_str(text, Path::new("module.yml")).unwrap()
    }

    fn run_args() -> RunArgs {
        RunArgs {
            iterations: None,
            warmup: None,
            scale: None,
            timeout: 300.0,
            cflags: None,
            ldflags: None,
            filter: None,
            measure: None,
            cache_sim: false,
        }
    }

    #[test]
    fn the_scale_comes_from_the_command_line_then_the_environment_then_module_yml() {
        assert_eq!(
            resolve_scale(Some(0.5), Some("2".into()), 3.0).unwrap(),
            0.5
        );
        assert_eq!(resolve_scale(None, Some("2".into()), 3.0).unwrap(), 2.0);
        assert_eq!(resolve_scale(None, None, 3.0).unwrap(), 3.0);
        for bad in ["0", "-1", "x", "inf", ""] {
            let error = resolve_scale(None, Some(bad.into()), 1.0).unwrap_err();
            assert!(error.to_string().contains("RHO_BENCH_SCALE"), "{error}");
        }
    }

    #[test]
    fn module_yml_settings_become_the_harness_environment() {
        let config = config(
            "bench:\n  default_iterations: 500\n  warmup_runs: 7\n  stack_watermark: false\n  time_cap_ms: 250\n  \
             scale: 2.0\n  batch: 1\n  benchmarks:\n    bench_a:\n      iterations: 40\n      batch: 64\n",
        );
        let settings = Settings {
            scale: 2.0,
            ..Settings::resolve(&config, &run_args()).unwrap()
        };
        let env = settings.environment();
        let get = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        assert_eq!(get("RHO_BENCH_ITERATIONS"), Some("500"));
        assert_eq!(get("RHO_BENCH_ITERATIONS_bench_a"), Some("40"));
        assert_eq!(get("RHO_BENCH_BATCH"), Some("1"));
        assert_eq!(get("RHO_BENCH_BATCH_bench_a"), Some("64"));
        assert_eq!(get("RHO_BENCH_WARMUP"), Some("7"));
        assert_eq!(get("RHO_BENCH_SCALE"), Some("2"));
        assert_eq!(get("RHO_BENCH_TIME_CAP_MS"), Some("250"));
        assert_eq!(get("RHO_BENCH_STACK_BYTES"), Some("0"));

        let mut cli = run_args();
        cli.iterations = Some(9);
        cli.scale = Some(0.25);
        let settings = Settings::resolve(&config, &cli).unwrap();
        assert_eq!(settings.iterations, Some(9), "the command line wins");
        assert_eq!(settings.scale, 0.25);
    }

    #[test]
    fn suites_become_jobs_in_order_and_a_commands_target_alone_is_one() {
        let config =
            config("bench:\n  suites:\n    - a.c\n    - [b.c, src/c.c]\n    - command: sh x.sh\n");
        let host = config.target(None).unwrap();
        let jobs = jobs(&config, &host).unwrap();
        assert_eq!(jobs.len(), 3);
        assert_eq!(jobs[1].what, "b.c src/c.c");
        assert_eq!(
            jobs[1].sources,
            [PathBuf::from("./b.c"), PathBuf::from("./src/c.c")]
        );
        assert_eq!(jobs[2].kind, JobKind::Command("sh x.sh".into()));

        let board = config_with_board();
        let target = board.target(None).unwrap();
        let alone = super::jobs(&board, &target).unwrap();
        assert_eq!(alone.len(), 1);
        assert_eq!(alone[0].kind, JobKind::TargetOnly);
    }

    fn config_with_board() -> ModuleConfig {
        config("bench:\n  targets:\n    - name: board\n      build: make\n      run: ./flash\n")
    }

    #[test]
    fn the_mps2_an386_hook_writes_its_port_and_names_its_commands() {
        let dir = tempfile::tempdir().unwrap();
        let (build, run) = builtin_commands("mps2-an386", dir.path()).unwrap().unwrap();
        assert!(dir.path().join("Makefile").is_file());
        assert!(dir.path().join("boards/mps2-an386.mk").is_file());
        assert!(build.contains("BOARD=mps2-an386"), "{build}");
        assert!(build.contains("SUITE=\"$RHO_BENCH_SOURCES\""), "{build}");
        assert!(run.starts_with("qemu-system-arm -M mps2-an386"), "{run}");
        assert!(builtin_commands("host", dir.path()).unwrap().is_none());
    }
}
