//! `rho bench` with no file arguments, and `rho bench check`: the suites of the nearest module.yml, run by
//! rho_ops::module (the engine, the budgets, the baseline, the reports).

use std::path::Path;
use std::process::ExitCode;

use crate::cli::{ProjectArgs, RunArgs};

pub use rho_ops::module::Mode;

/// The settings of a `--list` run (from the user's `--filter`, `--target`, flags and timeout): every benchmark
/// once (the lowest scale: one iteration), no warm-up, one repetition, timed only, no baseline.
pub fn listing_args(project: &ProjectArgs, run: &RunArgs) -> (ProjectArgs, RunArgs) {
    let project = ProjectArgs {
        target: project.target.clone(),
        repetitions: Some(1),
        baseline: crate::baseline::BaselineArgs::default(),
        shard: None,
        html: None,
        dashboards: crate::term::DashboardArgs::default(),
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

/// Run the module's suites and report (and, for [`Mode::Check`], enforce) their budgets.
pub fn bench_project(
    project: &ProjectArgs,
    run: &RunArgs,
    json: Option<&Path>,
    output: &crate::term::OutputArgs,
    mode: Mode,
) -> anyhow::Result<ExitCode> {
    let options = rho_ops::module::Options {
        asked: run_request(project, run, json),
        mode,
        shard: match mode {
            Mode::List => None,
            _ => {
                rho_shard::spec::resolve(project.shard, std::env::var("RHO_SHARD").ok().as_deref())?
            }
        },
    };
    Ok(ExitCode::from(rho_ops::module::run(&options, output)?))
}

/// What `rho bench` was asked, with or without FILE arguments: the project's and the run's arguments.
pub fn run_request(
    project: &ProjectArgs,
    run: &RunArgs,
    json: Option<&Path>,
) -> rho_ops::module::RunRequest {
    rho_ops::module::RunRequest {
        target: project.target.clone(),
        repetitions: project.repetitions,
        baseline: project.baseline.request(),
        html: project.html.clone(),
        json: json.map(Path::to_path_buf),
        exports: project.dashboards.exports(),
        run: run.options(),
    }
}

/// `rho bench merge SHARD.json...`: the shares merged into the run one machine would have made.
pub fn merge(args: &crate::cli::MergeArgs) -> anyhow::Result<ExitCode> {
    let options = rho_ops::merge::Options {
        shares: args.shares.clone(),
        json: args.json.clone(),
        markdown: args.markdown.clone(),
        html: args.html.clone(),
    };
    Ok(ExitCode::from(rho_ops::merge::run(&options, &args.output)?))
}
