//! `rho`, the benchmarking tool: builds benchmark suites (C and C++ against the bundled harness, Rust with
//! rho-bench, or a command), runs them with a timeout in their own process group, parses the wire stream they
//! print, summarises it and reports.
//!
//! Exit status: 0 when the run succeeded, 2 when it could not run or decide (a usage error, a build failure, a
//! crash, a timeout, a malformed stream), 130 on Ctrl-C. 1 is reserved for a verdict against the code: a budget
//! that does not hold, a regression past its limit (`--diff`, `compare`), a gate that fails head.

// Every line rho prints with these macros goes through the one sanitiser (rho_text::escape_text): a
// warning or a note may quote a config string, a file name, a commit subject or a stream's field, and none of
// their control characters may reach the terminal. Defined before the modules, these shadow std's macros in all
// of them; the reports themselves go through term::Style::writer, which escapes the same way.
macro_rules! eprintln {
    () => { ::std::eprintln!() };
    ($($arg:tt)*) => { ::std::eprint!("{}\n", ::rho_text::escape_text(&::std::format!($($arg)*))) };
}
macro_rules! println {
    () => { ::std::println!() };
    ($($arg:tt)*) => { ::std::print!("{}\n", ::rho_text::escape_text(&::std::format!($($arg)*))) };
}

mod baseline;
mod bench;
mod cli;
mod gate;
mod history;
mod init;
mod project;
mod saved;
mod term;

use std::process::ExitCode;

use clap::Parser as _;

/// The run could not be done or decided (the recipes' own status for it).
const EXIT_CANNOT_DECIDE: u8 = rho_ops::EXIT_CANNOT_DECIDE;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    if let Err(error) = rho_exec::interrupt::install_handler() {
        eprintln!("rho: warning: {error}; Ctrl-C may leave child processes behind");
    }
    // Every child's TMPDIR: what a killed compiler or script leaves there goes with it, on every exit path.
    // The engine's progress and lines go through the terminal's progress line.
    rho_suite::observe::install(Box::new(term::progress::Observer));
    let children_tmp = match rho_suite::ScratchDir::new("rho-tmp-") {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("rho: error: cannot create a temporary directory: {error}");
            return ExitCode::from(EXIT_CANNOT_DECIDE);
        }
    };
    if let Err(error) = children_tmp.use_as_children_tmpdir() {
        eprintln!("rho: error: cannot create a temporary directory: {error}");
        return ExitCode::from(EXIT_CANNOT_DECIDE);
    }
    let outcome = match cli.command {
        cli::Command::Bench(args) => match &args.action {
            Some(cli::BenchAction::Check(check)) => {
                history::around_run(&check.history, check.json.as_deref(), |json| {
                    project::bench_project(
                        &check.project,
                        &check.run,
                        json,
                        &check.output,
                        project::Mode::Check,
                    )
                })
            }
            Some(cli::BenchAction::Gate(gate)) => gate::run(gate),
            Some(cli::BenchAction::Show(show)) => saved::show(show),
            Some(cli::BenchAction::Merge(merge)) => project::merge(merge),
            Some(cli::BenchAction::Compare(compare)) => saved::compare(compare),
            Some(cli::BenchAction::Import(import)) => saved::import(import),
            Some(cli::BenchAction::History(history)) => history::run(history),
            Some(cli::BenchAction::Init) => std::env::current_dir()
                .map_err(anyhow::Error::from)
                .and_then(|dir| init::init(&dir, &mut rho_text::Escaped(std::io::stdout()))),
            None => match &args.cmake_module {
                Some(dir) => bench::export_cmake_module(dir).map(|()| ExitCode::SUCCESS),
                None if args.list && args.files.is_empty() => {
                    let (project, run) = project::listing_args(&args.project, &args.run);
                    project::bench_project(&project, &run, None, &args.output, project::Mode::List)
                }

                None if args.files.is_empty() => {
                    history::around_run(&args.history, args.json.as_deref(), |json| {
                        project::bench_project(
                            &args.project,
                            &args.run,
                            json,
                            &args.output,
                            project::Mode::Report,
                        )
                    })
                }
                None => history::around_run(&args.history, args.json.as_deref(), |json| {
                    bench::bench(&args, json)
                }),
            },
        },
        cli::Command::Mem(args) => rho_mem::cli::run(&args).map(|()| ExitCode::SUCCESS),
    };
    drop(children_tmp);
    // An outcome caused by a Ctrl-C is not reported: the process ends here with 130, after its cleanups.
    rho_exec::interrupt::exit_if_interrupted();
    match outcome {
        Ok(code) => code,
        Err(error) => {
            // An error may quote what a suite printed.
            eprintln!(
                "rho: error: {}",
                rho_text::escape_text(&format!("{error:#}"))
            );
            ExitCode::from(EXIT_CANNOT_DECIDE)
        }
    }
}
