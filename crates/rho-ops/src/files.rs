//! `rho bench FILE.c...`: the suite of files built for a built-in target (the host by default), run,
//! summarised, reported, compared with the baseline and exported; with several targets, side by side.

use std::path::PathBuf;
use std::time::Duration;

use rho_baseline::export::TargetsDocument;
use rho_suite::stream::HarnessSettings;

use crate::Error;
use crate::output::{RunDocument, SuiteInfo, Terminal, show};

/// What a run of a suite of files was asked.
#[derive(Debug, Clone)]
pub struct Options {
    /// The suite's C and C++ files.
    pub files: Vec<PathBuf>,
    /// `--target` a built-in target (default the host), and the rest asked of any run.
    pub asked: crate::module::RunRequest,
    /// `--list`: each benchmark's name, nothing judged, compared or recorded.
    pub list: bool,
    /// `--profile NAME`: benchmark NAME's functions printed after the report.
    pub profile: Option<String>,
    /// `--shard K/N` (or `RHO_SHARD`): run only this share of the suite's benchmarks (rho_shard::files).
    pub shard: Option<rho_shard::Shard>,
}

/// `--cflags` and `--ldflags`, split into words.
pub fn flags(run: &rho_suite::RunOptions) -> crate::Result<rho_suite::cfiles::Flags> {
    let split = |what: &str, text: &Option<String>| match text {
        Some(text) => rho_suite::cfiles::split_flags(what, text),
        None => Ok(Vec::new()),
    };
    Ok(rho_suite::cfiles::Flags {
        cflags: split("--cflags", &run.cflags)?,
        ldflags: split("--ldflags", &run.ldflags)?,
    })
}

/// Build, run and report the suite; the exit status (1 when `--diff` found a regression past its limit).
pub fn run(options: &Options, terminal: &dyn Terminal) -> crate::Result<u8> {
    // `--target a,b,c` (or `all`): the suite on each, side by side.
    let targets = crate::module::target_list(options.asked.target.as_deref())?;
    // `--list` names the benchmarks; the first target's build says them.
    if targets.len() > 1 && !options.list {
        if let Some(shard) = options.shard {
            return Err(Error::Refused(format!(
                "--shard {shard}: shares are of one target's run; run each target's shares apart"
            )));
        }
        if options.asked.exports.any() {
            return Err(crate::Error::Refused(
                "--bmf and --github-benchmark export one target's run; run them with a single --target"
                    .to_string(),
            ));
        }
        return several(options, terminal, &targets);
    }
    let flags = flags(&options.asked.run)?;
    let (what, settings) = suite_and_settings(options);
    // Before building: an unwritable `--json` path stops here, not after the run.
    let json = crate::output::prepare_json(options.asked.json.as_deref())?;
    if let Some(html) = &options.asked.html {
        crate::output::check_destination("--html", html)?;
    }
    options.asked.exports.check(json.as_ref())?;
    // Before building: a bad `--diff REF` stops here. The baseline path is relative to the current directory.
    crate::baseline::refuse_filtered_baseline(
        options.asked.run.filter.as_deref(),
        &options.asked.baseline,
    )?;
    let cwd = crate::output::current_dir()?;
    // FILE.c is built for the built-in target asked for (host by default), whose name its stream carries.
    let known_target = targets[0].as_deref().unwrap_or("host");
    let plan = crate::baseline::prepare(&options.asked.baseline, &cwd, None, Some(known_target))?;
    // Best of N (`--repetitions`): the runs are folded into each figure's best.
    let repetitions =
        crate::baseline::repetitions(&options.asked.baseline, options.asked.repetitions, 1);
    let inputs = inputs(options, (&what, &settings), &flags, repetitions, &cwd);
    let (share, plan, listed_build) = plan_share(options, targets[0].as_deref(), &inputs, plan)?;
    // A share runs only its own benchmarks.
    let share_settings = share.as_ref().map(|s| HarnessSettings {
        filter: s.filter_for(&what),
        ..settings.clone()
    });
    let inputs = rho_suite::FilesInputs {
        settings: share_settings.as_ref().unwrap_or(&settings),
        ..inputs
    };
    let rho_suite::FilesRun {
        mut summary,
        compiler,
        cflags,
        ldflags,
        footprint,
        sampling_notes,
    } = measure_suite(targets[0].as_deref(), &inputs, listed_build)?;
    if let Some(share) = &share {
        share.trim(&what, &mut summary);
    }
    if options.list {
        show(&mut terminal.plain(false), &crate::module::names(&summary));
        return Ok(0);
    }
    attach_and_warn(&mut summary, footprint, &what, "");
    if let Some(warning) =
        rho_suite::stream::filter_warning(options.asked.run.filter.as_deref(), &summary)
    {
        crate::say(&format!("rho: warning: {warning}"));
    }
    // The human report: stdout, or stderr when `--json -` or an export to `-` takes stdout.
    let (mut out, layout) = terminal.report(crate::output::report_to_stderr(
        json.as_ref(),
        &options.asked.exports,
    ));
    show(&mut out, &rho_report::render_with(&summary, &what, layout));
    crate::profile::show_table(
        options.profile.as_deref(),
        &summary,
        &sampling_notes,
        &mut out,
    )?;

    let built_with = [
        compiler.join(" "),
        cflags.join(" "),
        flags.ldflags.join(" "),
    ]
    .join(" ")
    .trim_end()
    .to_string();
    let target = summary.target.name.clone();
    let summaries = [(what, summary)];
    let finished = crate::baseline::finish(
        &plan,
        None,
        &target,
        &summaries,
        Some(built_with),
        &mut out,
        layout,
    )?;
    let (what, summary) = &summaries[0];
    if let Some(json) = &json {
        let suite = suite_info(options, compiler, cflags, ldflags);
        let mut document =
            RunDocument::new(suite, summary).with_comparison(finished.record.as_ref());
        document.shard = share
            .as_ref()
            .map(|s| serde_json::to_value(&s.record))
            .transpose()
            .map_err(Error::Json)?;
        json.write(&document)?;
    }
    if let Some(html) = &options.asked.html {
        crate::output::write_html(
            html,
            &format!("rho bench {what}"),
            vec![rho_report::html::Suite {
                what,
                summary,
                judgement: None,
            }],
            finished.diff(),
        )?;
    }
    options.asked.exports.write(&summaries)?;
    // `--diff REF`: a regression past the limit exits 1, as `check --diff` does (budgets are check's alone).
    Ok(crate::baseline::diff_code(&finished, &mut out))
}

/// With `--shard K/N`: this job's share of the suite, planned before it runs, the baseline's `plan`
/// without the comparison (the merge's, over the whole run) and the host build that listed the suite (the
/// share runs it); else no share, `plan` as it is and no build.
fn plan_share(
    options: &Options,
    target: Option<&str>,
    inputs: &rho_suite::FilesInputs<'_>,
    plan: crate::baseline::Plan,
) -> crate::Result<(
    Option<rho_shard::share::Share>,
    crate::baseline::Plan,
    Option<rho_suite::HostFiles>,
)> {
    let Some(shard) = options.shard.filter(|_| !options.list) else {
        return Ok((None, plan, None));
    };
    let diff = &options.asked.baseline.diff;
    let (share, plan, built) = rho_shard::files::plan_run(target, inputs, shard, diff, plan)?;
    crate::say(&format!("rho: {}", share.describe()));
    Ok((Some(share), plan, built))
}

/// The engine's inputs for the suite.
fn inputs<'a>(
    options: &'a Options,
    (what, settings): (&'a str, &'a HarnessSettings),
    flags: &'a rho_suite::cfiles::Flags,
    repetitions: u32,
    cwd: &'a std::path::Path,
) -> rho_suite::FilesInputs<'a> {
    rho_suite::FilesInputs {
        files: &options.files,
        measure: options.asked.run.measure.unwrap_or_default(),
        cache_sim: options.asked.run.cache_sim,
        functions: options
            .asked
            .run
            .functions
            .unwrap_or(rho_profile::net::DEFAULT_LIMIT),
        sample: sampled(options),
        what,
        settings,
        flags,
        timeout: Duration::from_secs_f64(options.asked.run.timeout_seconds),
        repetitions,
        cwd,
    }
}

/// Timed only: `--profile NAME` samples that benchmark, `--functions N` (N > 0) every one (a run more each).
fn sampled(options: &Options) -> rho_suite::sample::Asked<'_> {
    rho_suite::sample::Asked::of(
        options.asked.run.measure.unwrap_or_default(),
        options.profile.as_deref(),
        options.asked.run.functions,
    )
}

/// What `--json` says of the suite: its files, how it was built and the settings it ran with.
fn suite_info(
    options: &Options,
    compiler: Vec<String>,
    cflags: Vec<String>,
    ldflags: Vec<String>,
) -> SuiteInfo {
    SuiteInfo {
        sources: options.files.clone(),
        compiler,
        cflags,
        ldflags,
        iterations: options.asked.run.iterations,
        warmup: options.asked.run.warmup,
        scale: options.asked.run.scale,
        timeout_seconds: options.asked.run.timeout_seconds,
    }
}

/// What ran (the suite's files, space-separated) and the settings the harness reads from its environment.
fn suite_and_settings(options: &Options) -> (String, HarnessSettings) {
    let what = options
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let settings = HarnessSettings {
        iterations: options.asked.run.iterations,
        warmup: options.asked.run.warmup,
        scale: options.asked.run.scale,
        filter: options.asked.run.filter.clone(),
    };
    (what, settings)
}

/// The suite of files measured on `target` (the host for `None`) by the engine, its progress shown; on the
/// host `built` (a build already listed) runs when given.
fn measure_suite(
    target: Option<&str>,
    inputs: &rho_suite::FilesInputs<'_>,
    built: Option<rho_suite::HostFiles>,
) -> crate::Result<rho_suite::FilesRun> {
    rho_suite::observe::suite_started(inputs.what, 1, 1, inputs.repetitions);
    Ok(rho_suite::measure_files_built(target, inputs, built)?)
}

/// The suite's footprint attached to its run (or a warning why not), then the run's own warnings, each said
/// after `prefix` (the target's name when several ran).
fn attach_and_warn(
    summary: &mut rho_stats::RunSummary,
    footprint: Result<rho_suite::footprint::MemDocument, String>,
    what: &str,
    prefix: &str,
) {
    crate::module::attach_or_warn(summary, footprint, what);
    for warning in rho_report::warnings(summary) {
        crate::say(&format!("rho: warning: {prefix}{warning}"));
    }
}

/// `rho bench --target a,b,c FILE.c...`: the suite built and run on each target in turn (the first is the
/// reference), then one table per benchmark side by side and the geometric means (rho_report::targets).
fn several(
    options: &Options,
    terminal: &dyn Terminal,
    targets: &[Option<String>],
) -> crate::Result<u8> {
    if crate::baseline::any(&options.asked.baseline) {
        return Err(Error::Refused(
            "--write-baseline and --diff work on one target at a time (a baseline has a section per target): \
             run them with a single --target"
                .to_string(),
        ));
    }
    if options.asked.html.is_some() {
        return Err(Error::Refused(
            "--html writes one target's report: run it with a single --target".to_string(),
        ));
    }
    let flags = flags(&options.asked.run)?;
    let (what, settings) = suite_and_settings(options);
    let json = crate::output::prepare_json(options.asked.json.as_deref())?;
    if let Some(markdown) = &options.asked.baseline.markdown {
        crate::output::check_destination("--markdown", markdown)?;
    }
    let cwd = crate::output::current_dir()?;
    let repetitions = options.asked.repetitions.unwrap_or(1);
    let inputs = inputs(options, (&what, &settings), &flags, repetitions, &cwd);
    let mut measured = Vec::new();
    for target in targets {
        let name = target.as_deref().unwrap_or("host");
        crate::say(&format!("rho: {what} on {name}"));
        let rho_suite::FilesRun {
            mut summary,
            compiler,
            cflags,
            ldflags,
            footprint,
            ..
        } = measure_suite(target.as_deref(), &inputs, None)?;
        let on_target = format!("{what} on {name}");
        attach_and_warn(&mut summary, footprint, &on_target, &format!("{name}: "));
        let suite = suite_info(options, compiler, cflags, ldflags);
        measured.push((name.to_string(), summary, suite));
    }
    let runs: Vec<(String, &rho_stats::RunSummary)> = measured
        .iter()
        .map(|(name, summary, _)| (name.clone(), summary))
        .collect();
    let comparison = rho_stats::targets::compare(&runs);
    let (mut out, _) = crate::output::report_output(terminal, json.as_ref());
    show(
        &mut out,
        &rho_report::targets::render_text(&comparison, &what),
    );
    if let Some(markdown) = &options.asked.baseline.markdown {
        let tables = rho_report::targets::render_markdown(&comparison, &what);
        crate::output::write_text(markdown, "the Markdown tables", &tables)?;
    }
    if let Some(json) = &json {
        let documents = measured
            .iter()
            .map(|(_, summary, suite)| RunDocument::new(suite.clone(), summary))
            .collect();
        json.write(&TargetsDocument::new(documents, &comparison))?;
    }
    Ok(0)
}
