//! `rho bench FILE.c...`: build, run, summarise, report, export.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::BenchArgs;
use crate::export::{RunDocument, SuiteInfo};
use crate::run::{HarnessSettings, run_suite};
use crate::suite::{BuildOptions, build, compiler_for};

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
            list: true,
            json: None,
        };
        &listing
    } else {
        args
    };
    let timeout = Duration::from_secs_f64(args.run.timeout);
    let flags = args.run.flags()?;
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
    // Before building: an unwritable `--json` path stops here, not after the run.
    let json = crate::export::prepare_json(args.json.as_deref())?;
    if let Some(html) = &args.project.html {
        crate::export::check_destination("--html", html)?;
    }
    // Before building: a bad `--diff REF` stops here. The baseline path is relative to the current directory.
    crate::run::refuse_filtered_baseline(args.run.filter.as_deref(), &args.project.baseline)?;
    let cwd = std::env::current_dir()?;
    // FILE.c is built for the built-in target asked for (host by default), whose name its stream carries.
    let known_target = args.project.target.as_deref().unwrap_or("host");
    let baseline =
        crate::baseline::prepare(&args.project.baseline, &cwd, None, Some(known_target))?;
    // Best of N (`--repetitions`): the runs are folded into each figure's best.
    let repetitions =
        crate::baseline::repetitions(&args.project.baseline, args.project.repetitions, 1);
    let measure = args.run.measure.unwrap_or_default();
    // Counting needs Valgrind: said before anything is built.
    let counter = match (measure.counts(), args.project.target.as_deref()) {
        (true, None | Some("host")) => Some(crate::count::Counter::find(args.run.cache_sim)?),
        _ => None,
    };
    let mut counted = None;
    // `--target NAME`: a built-in board builds and runs the suite (crate::board); else the host does.
    // The footprint is asked for while the build directory is there (the board's, or the host build's).
    let mem_command = crate::footprint::MemCommand::resolve(None, &cwd)?;
    let (runs, compiler, cflags, ldflags, footprint) =
        match crate::board::Board::for_target(args.project.target.as_deref())? {
            Some(board) => {
                let built = board.build_and_run(
                    &args.files,
                    &what,
                    &settings,
                    &flags,
                    repetitions,
                    timeout,
                )?;
                let footprint = crate::footprint::ask(&mem_command, &built.files, timeout);
                (
                    built.runs,
                    built.compiler,
                    built.cflags,
                    built.ldflags,
                    footprint,
                )
            }
            None => {
                let built = build(
                    &args.files,
                    &BuildOptions {
                        flags: flags.clone(),
                        timeout,
                    },
                )?;
                let mut runs = Vec::new();
                if measure.times() {
                    for _ in 0..repetitions {
                        runs.push(run_suite(&built.executable, &what, &settings, timeout)?);
                    }
                }
                if let Some(counter) = &counter {
                    let env = settings
                        .environment()
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect();
                    let env = crate::count::environment(
                        env,
                        settings.iterations.is_some(),
                        settings.warmup.is_some(),
                    );
                    counted = Some(counter.run(&built.executable, &env, None, &what, timeout)?);
                }
                let footprint = crate::footprint::ask(&mem_command, &built.image_files(), timeout);
                let mut cflags: Vec<String> = crate::suite::BASE_FLAGS
                    .iter()
                    .map(|f| f.to_string())
                    .collect();
                cflags.extend(flags.cflags.iter().cloned());
                let mut ldflags = flags.ldflags.clone();
                ldflags.extend(crate::suite::DEFAULT_LIBS.iter().map(|f| f.to_string()));
                (runs, compiler_for(&args.files)?, cflags, ldflags, footprint)
            }
        };

    let mut summary = crate::count::summarise(&runs, counted.as_ref(), &what)?;
    if args.list {
        let mut out = std::io::stdout().lock();
        let _ = out
            .write_all(crate::project::names(&summary).as_bytes())
            .and_then(|()| out.flush());
        return Ok(ExitCode::SUCCESS);
    }
    crate::footprint::attach_or_warn(&mut summary, footprint, &what);
    for warning in rho_report::warnings(&summary) {
        eprintln!("rho: warning: {warning}");
    }
    if let Some(warning) = crate::run::filter_warning(args.run.filter.as_deref(), &summary) {
        eprintln!("rho: warning: {warning}");
    }
    let text = rho_report::render(&summary, &what);
    // The human report: stdout, or stderr when `--json -` takes stdout.
    let mut out = crate::export::report_output(json.as_ref());
    // A closed stdout (`rho bench ... | head`) is not worth a panic.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());

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
    if let Some(json) = &json {
        let suite = SuiteInfo {
            sources: args.files.clone(),
            compiler,
            cflags,
            ldflags,
            iterations: args.run.iterations,
            warmup: args.run.warmup,
            scale: args.run.scale,
            timeout_seconds: args.run.timeout,
        };
        json.write(&RunDocument::new(suite, &summary))?;
    }
    let target = summary.target.name.clone();
    // Report only: `rho bench FILE.c --diff REF` prints the comparison; enforcing it is `rho bench check`'s.
    let summaries = [(what, summary)];
    let finished =
        crate::baseline::finish(&baseline, None, &target, &summaries, built_with, &mut out)?;
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
    Ok(ExitCode::SUCCESS)
}
