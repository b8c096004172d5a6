//! `rho bench FILE.c...`: build, run, summarise, report, export.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::BenchArgs;
use crate::export::{RunDocument, SuiteInfo};
use rho_baseline::export::TargetsDocument;
use rho_suite::stream::HarnessSettings;

pub fn bench(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    // `rho bench chek`: a typo of a subcommand, not a suite named `chek`.
    if let Some(message) = crate::init::did_you_mean(&args.files) {
        anyhow::bail!("{message}");
    }
    // `--list`: each benchmark run once, to learn its name; nothing judged, compared or recorded.
    let listing;
    let args = if args.list {
        let (project, run) = crate::project::listing_args(&args.project, &args.run);
        listing = BenchArgs {
            action: None,
            project,
            cmake_module: None,
            files: args.files.clone(),
            run,
            output: args.output.clone(),
            list: true,
            json: None,
        };
        &listing
    } else {
        args
    };
    // `--target a,b,c` (or `all`): the suite on each, side by side.
    let targets = crate::cli::target_list(args.project.target.as_deref())?;
    // `--list` names the benchmarks; the first target's build says them.
    if targets.len() > 1 && !args.list {
        return several(args, &targets);
    }
    let timeout = Duration::from_secs_f64(args.run.timeout);
    let flags = args.run.flags()?;
    let (what, settings) = suite_and_settings(args);
    // Before building: an unwritable `--json` path stops here, not after the run.
    let json = crate::export::prepare_json(args.json.as_deref())?;
    if let Some(html) = &args.project.html {
        crate::export::check_destination("--html", html)?;
    }
    // Before building: a bad `--diff REF` stops here. The baseline path is relative to the current directory.
    crate::baseline::refuse_filtered_baseline(args.run.filter.as_deref(), &args.project.baseline)?;
    let cwd = std::env::current_dir()?;
    // FILE.c is built for the built-in target asked for (host by default), whose name its stream carries.
    let known_target = targets[0].as_deref().unwrap_or("host");
    let baseline =
        crate::baseline::prepare(&args.project.baseline, &cwd, None, Some(known_target))?;
    // Best of N (`--repetitions`): the runs are folded into each figure's best.
    let repetitions =
        crate::baseline::repetitions(&args.project.baseline, args.project.repetitions, 1);
    let rho_suite::FilesRun {
        mut summary,
        compiler,
        cflags,
        ldflags,
        footprint,
    } = measure_suite(
        targets[0].as_deref(),
        &rho_suite::FilesInputs {
            files: &args.files,
            measure: args.run.measure.unwrap_or_default(),
            cache_sim: args.run.cache_sim,
            functions: args
                .run
                .functions
                .unwrap_or(rho_profile::net::DEFAULT_LIMIT),
            what: &what,
            settings: &settings,
            flags: &flags,
            timeout,
            repetitions,
            cwd: &cwd,
        },
    )?;
    if args.list {
        let mut out = rho_text::Escaped(std::io::stdout().lock());
        let _ = out
            .write_all(crate::project::names(&summary).as_bytes())
            .and_then(|()| out.flush());
        return Ok(ExitCode::SUCCESS);
    }
    crate::project::attach_or_warn(&mut summary, footprint, &what);
    for warning in rho_report::warnings(&summary) {
        eprintln!("rho: warning: {warning}");
    }
    if let Some(warning) = rho_suite::stream::filter_warning(args.run.filter.as_deref(), &summary) {
        eprintln!("rho: warning: {warning}");
    }
    // The human report: stdout, or stderr when `--json -` takes stdout.
    let (mut out, style) = crate::export::report_output(json.as_ref(), &args.output);
    let text = rho_report::render_with(&summary, &what, style.layout);
    // A closed stdout (`rho bench ... | head`) is not worth a panic.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    if let Some(name) = &args.run.profile {
        use rho_report::functions::{ProfileError, profile_table};
        match profile_table(&summary, name) {
            Ok(table) => {
                let _ = out.write_all(table.as_bytes()).and_then(|()| out.flush());
            }
            Err(hint @ ProfileError::NotCounted { .. }) => eprintln!("rho: hint: {hint}"),
            Err(error) => return Err(error.into()),
        }
    }

    let built_with = Some(
        [
            compiler.join(" "),
            cflags.join(" "),
            flags.ldflags.join(" "),
        ]
        .join(" ")
        .trim_end()
        .to_string(),
    );
    let target = summary.target.name.clone();
    let summaries = [(what, summary)];
    let finished = crate::baseline::finish(
        &baseline,
        None,
        &target,
        &summaries,
        built_with,
        &mut out,
        style.layout,
    )?;
    let summary = &summaries[0].1;
    if let Some(json) = &json {
        let suite = suite_info(args, compiler, cflags, ldflags);
        let mut document = RunDocument::new(suite, summary);
        document.comparison = finished.record.as_ref();
        json.write(&document)?;
    }
    if let Some(html) = &args.project.html {
        let (what, summary) = &summaries[0];
        crate::export::write_html(
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
    // `--diff REF`: a regression past the limit exits 1, as `check --diff` does (budgets are check's alone).
    Ok(ExitCode::from(crate::baseline::diff_code(
        &finished, &mut out,
    )))
}

/// What `--json` says of the suite: its files, how it was built and the settings it ran with.
fn suite_info(
    args: &BenchArgs,
    compiler: Vec<String>,
    cflags: Vec<String>,
    ldflags: Vec<String>,
) -> SuiteInfo {
    SuiteInfo {
        sources: args.files.clone(),
        compiler,
        cflags,
        ldflags,
        iterations: args.run.iterations,
        warmup: args.run.warmup,
        scale: args.run.scale,
        timeout_seconds: args.run.timeout,
    }
}

/// What ran (the suite's files, space-separated) and the settings the harness reads from its environment.
fn suite_and_settings(args: &BenchArgs) -> (String, HarnessSettings) {
    let what = args
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let settings = HarnessSettings {
        iterations: args.run.iterations,
        warmup: args.run.warmup,
        scale: args.run.scale,
        filter: args.run.filter.clone(),
    };
    (what, settings)
}

/// The suite of files measured on `target` (the host for `None`) by the engine, its progress shown.
fn measure_suite(
    target: Option<&str>,
    inputs: &rho_suite::FilesInputs<'_>,
) -> anyhow::Result<rho_suite::FilesRun> {
    crate::term::progress::suite(inputs.what, 1, 1, inputs.repetitions);
    Ok(rho_suite::measure_files(target, inputs)?)
}

/// `rho bench --target a,b,c FILE.c...`: the suite built and run on each target in turn (the first is the
/// reference), then one table per benchmark side by side and the geometric means (rho_report::targets).
fn several(args: &BenchArgs, targets: &[Option<String>]) -> anyhow::Result<ExitCode> {
    if args.project.baseline.any() {
        anyhow::bail!(
            "--write-baseline and --diff work on one target at a time (a baseline has a section per target): \
             run them with a single --target"
        );
    }
    if args.project.html.is_some() {
        anyhow::bail!("--html writes one target's report: run it with a single --target");
    }
    let timeout = Duration::from_secs_f64(args.run.timeout);
    let flags = args.run.flags()?;
    let (what, settings) = suite_and_settings(args);
    let json = crate::export::prepare_json(args.json.as_deref())?;
    if let Some(markdown) = &args.project.baseline.markdown {
        crate::export::check_destination("--markdown", markdown)?;
    }
    let cwd = std::env::current_dir()?;
    let repetitions = args.project.repetitions.unwrap_or(1);
    let inputs = rho_suite::FilesInputs {
        files: &args.files,
        measure: args.run.measure.unwrap_or_default(),
        cache_sim: args.run.cache_sim,
        functions: args
            .run
            .functions
            .unwrap_or(rho_profile::net::DEFAULT_LIMIT),
        what: &what,
        settings: &settings,
        flags: &flags,
        timeout,
        repetitions,
        cwd: &cwd,
    };
    let mut measured = Vec::new();
    for target in targets {
        let name = target.as_deref().unwrap_or("host");
        eprintln!("rho: {what} on {name}");
        let rho_suite::FilesRun {
            mut summary,
            compiler,
            cflags,
            ldflags,
            footprint,
        } = measure_suite(target.as_deref(), &inputs)?;
        crate::project::attach_or_warn(&mut summary, footprint, &format!("{what} on {name}"));
        for warning in rho_report::warnings(&summary) {
            eprintln!("rho: warning: {name}: {warning}");
        }
        let suite = suite_info(args, compiler, cflags, ldflags);
        measured.push((name.to_string(), summary, suite));
    }
    let runs: Vec<(String, &rho_stats::RunSummary)> = measured
        .iter()
        .map(|(name, summary, _)| (name.clone(), summary))
        .collect();
    let comparison = rho_stats::targets::compare(&runs);
    let text = rho_report::targets::render_text(&comparison, &what);
    let (mut out, _) = crate::export::report_output(json.as_ref(), &args.output);
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    if let Some(markdown) = &args.project.baseline.markdown {
        std::fs::write(
            markdown,
            rho_report::targets::render_markdown(&comparison, &what),
        )
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", markdown.display()))?;
    }
    if let Some(json) = &json {
        let documents = measured
            .iter()
            .map(|(_, summary, suite)| RunDocument::new(suite.clone(), summary))
            .collect();
        json.write(&TargetsDocument::new(documents, &comparison))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `rho bench --cmake-module DIR`: write the module and print the path of `RhoBench.cmake`.
pub fn export_cmake_module(dir: &std::path::Path) -> anyhow::Result<()> {
    let module = rho_suite::cmake::write_module(dir)?;
    let module = std::path::absolute(&module).unwrap_or(module);
    println!("{}", module.display());
    Ok(())
}
