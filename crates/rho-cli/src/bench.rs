//! `rho bench FILE.c...` (rho_ops::files) and `rho bench --cmake-module DIR`.

use std::process::ExitCode;

use crate::cli::BenchArgs;

/// `json` is where `--json` writes (`--history` gives one of its own when `--json` is not given).
pub fn bench(args: &BenchArgs, json: Option<&std::path::Path>) -> anyhow::Result<ExitCode> {
    // `rho bench chek`: a typo of a subcommand, not a suite named `chek`.
    if let Some(message) = crate::init::did_you_mean(&args.files) {
        anyhow::bail!("{message}");
    }
    // `--list`: each benchmark run once, to learn its name; nothing judged, compared or recorded.
    let (project, run) = if args.list {
        crate::project::listing_args(&args.project, &args.run)
    } else {
        (args.project.clone(), args.run.clone())
    };
    let options = rho_ops::files::Options {
        files: args.files.clone(),
        asked: crate::project::run_request(&project, &run, json.filter(|_| !args.list)),
        list: args.list,
        profile: run.profile.clone(),
        shard: match args.list {
            true => None,
            false => rho_shard::spec::resolve(
                args.project.shard,
                std::env::var("RHO_SHARD").ok().as_deref(),
            )?,
        },
    };
    Ok(ExitCode::from(rho_ops::files::run(&options, &args.output)?))
}

/// `rho bench --cmake-module DIR`: write the module and print the path of `RhoBench.cmake`.
pub fn export_cmake_module(dir: &std::path::Path) -> anyhow::Result<()> {
    let module = rho_suite::cmake::write_module(dir)?;
    let module = std::path::absolute(&module).unwrap_or(module);
    println!("{}", module.display());
    Ok(())
}
