//! Reading the gate's settings and each side's recipe from module.yml.
//!
//! The settings (runs, timeout, budgets) come from the module.yml of the directory `rho` runs in; each
//! side's build and run commands come from that side's own module.yml, because a recipe may change between
//! commits.

use std::path::Path;

use rho_config::{GateConfig, MODULE_FILE, ModuleConfig, Suite, TargetSpec};

use crate::error::{GateError, SideName};
use crate::run::{BenchEnv, Job, Recipe};
use crate::settings::{Budgets, GateSettings};

/// The gate settings a module.yml describes: `bench.gate`'s runs, max_runs, timeout and budgets. A metric with no budget
/// of its own gets `gate.budget.default`, else the global `fail_on_regression_percent` (one threshold for
/// `--diff` and the gate), else 30%; an instruction count with none of its own gets
/// `fail_on_instructions_regression_percent` when set ([`ModuleConfig::gate_default_budget`],
/// [`ModuleConfig::gate_instructions_budget`]).
pub fn settings_from_config(config: &ModuleConfig) -> Result<GateSettings, GateError> {
    let gate: &GateConfig = &config.gate;
    let mut budgets = Budgets::new(config.gate_default_budget(), gate.budgets.clone())?;
    if let Some(fraction) = config.gate_instructions_budget() {
        budgets.set_instructions(fraction)?;
    }
    let mut settings = GateSettings::new(gate.runs, gate.timeout, budgets)?;
    if let Some(max_runs) = gate.max_runs {
        settings.set_max_runs(max_runs)?;
    }
    Ok(settings)
}

/// The module.yml of `dir`, if it has one: where the gate's settings come from.
pub fn load_local_config(dir: &Path) -> Result<Option<ModuleConfig>, GateError> {
    let path = dir.join(MODULE_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    ModuleConfig::load(&path)
        .map(Some)
        .map_err(|error| GateError::Config {
            side: None,
            error: Box::new(error),
        })
}

/// The harness settings from a module.yml (as `rho bench` passes them), handed to both sides so that they
/// measure the same amount of work.
pub fn bench_env_from_config(config: &ModuleConfig) -> BenchEnv {
    BenchEnv {
        iterations: config.default_iterations,
        per_benchmark: config
            .benchmarks
            .iter()
            .filter_map(|b| b.iterations.map(|n| (b.name.clone(), n)))
            .collect(),
        warmup: config.warmup_runs,
        // 1.0 is the harness's own default: only pass a scale that changes something.
        scale: (config.scale != 1.0).then_some(config.scale),
        time_cap_ms: config.time_cap_ms,
        stack_off: !config.stack_watermark,
        counter: None,
    }
}

/// The jobs of a target built and run by shell commands, as `rho bench` runs them: with no `suites:`, the
/// commands are the suite (one job); otherwise one job per suite, a C-file suite through the target's
/// commands with its files in `RHO_BENCH_SOURCES`, a command suite as its own command.
pub fn command_jobs(config: &ModuleConfig, target: &str, build: &str, run: &str) -> Vec<Job> {
    if config.suites.is_empty() {
        return vec![Job {
            what: format!("target {target}"),
            build: Some(build.to_owned()),
            run: run.to_owned(),
            env: Vec::new(),
            static_metrics: Vec::new(),
        }];
    }
    config
        .suites
        .iter()
        .map(|suite| match suite {
            Suite::CFiles { files, .. } => Job {
                what: files
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
                build: Some(build.to_owned()),
                run: run.to_owned(),
                env: vec![(
                    "RHO_BENCH_SOURCES".to_owned(),
                    files
                        .iter()
                        .map(|f| config.resolve(f).display().to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                )],
                static_metrics: Vec::new(),
            },
            Suite::Command { command, .. } => Job {
                what: command.clone(),
                build: None,
                run: command.clone(),
                env: Vec::new(),
                static_metrics: Vec::new(),
            },
            // rho builds a CMake suite for the built-in targets only (it knows their toolchains); on a target
            // of module.yml's own the gate says so rather than guess.
            Suite::CMake(cmake) => Job {
                what: suite.describe(),
                build: Some(format!(
                    "echo 'rho: {}: a cmake suite runs on the built-in targets (host, mps2-an386), not on \
                     target {target}' >&2; exit 2",
                    suite.describe()
                )),
                run: format!("exit 2 # {}", cmake.target),
                env: Vec::new(),
                static_metrics: Vec::new(),
            },
            // Likewise a cargo suite: rho builds it for the host.
            Suite::Cargo(cargo) => Job {
                what: suite.describe(),
                build: Some(format!(
                    "echo 'rho: {}: a cargo suite runs on the built-in host target, not on target {target}' >&2; \
                     exit 2",
                    suite.describe()
                )),
                run: format!("exit 2 # {}", cargo.bench),
                env: Vec::new(),
                static_metrics: Vec::new(),
            },
            // And another harness's suite: rho runs its tool on the host.
            Suite::Foreign(foreign) => Job {
                what: suite.describe(),
                build: Some(format!(
                    "echo 'rho: {}: a suite of another harness runs on the built-in host target, not on target \
                     {target}' >&2; exit 2",
                    foreign.tool.key()
                )),
                run: "exit 2".to_owned(),
                env: Vec::new(),
                static_metrics: Vec::new(),
            },
        })
        .collect()
}

/// Side `side`'s module.yml (in `module_root`) and its selected target (`target`, else the first listed).
pub fn side_target(
    side: SideName,
    module_root: &Path,
    target: Option<&str>,
) -> Result<(ModuleConfig, TargetSpec), GateError> {
    let config_error = |error| GateError::Config {
        side: Some(side),
        error: Box::new(error),
    };
    let config = ModuleConfig::load(&module_root.join(MODULE_FILE)).map_err(config_error)?;
    let spec = config.target(target).map_err(config_error)?;
    Ok((config, spec))
}

/// Side `side`'s recipe: the selected target's `build:` and `run:` from its own module.yml. A built-in target
/// without commands is [`GateError::BuiltinTarget`].
pub fn recipe_from_module(
    side: SideName,
    module_root: &Path,
    target: Option<&str>,
) -> Result<Recipe, GateError> {
    let (config, spec) = side_target(side, module_root, target)?;
    match spec {
        TargetSpec::Commands {
            name, build, run, ..
        } => Ok(Recipe {
            jobs: command_jobs(&config, &name, &build, &run),
            target: name,
            file: config.file,
        }),
        TargetSpec::Builtin { name, .. } => Err(GateError::BuiltinTarget {
            side,
            target: name,
            path: config.file,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, text: &str) {
        std::fs::write(dir.join(MODULE_FILE), text).unwrap();
    }

    #[test]
    fn settings_and_recipes_come_from_module_yml() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "bench:\n  default_iterations: 500\n  targets:\n    - name: kata\n      build: make bench\n      \
             run: ./bench\n  gate:\n    runs: 4\n    timeout_seconds: 9\n    budget:\n      default: 0.2\n      \
             count_below_ns: 0.5\n",
        );
        let config = load_local_config(dir.path()).unwrap().unwrap();
        let settings = settings_from_config(&config).unwrap();
        assert_eq!(settings.runs(), 4);
        assert_eq!(settings.timeout().as_secs(), 9);
        assert_eq!(settings.budgets().for_metric("count_below_ns"), 0.5);
        assert_eq!(settings.budgets().for_metric("matmul_ns"), 0.2);
        assert_eq!(bench_env_from_config(&config).iterations, Some(500));

        // No gate budget: `fail_on_regression_percent` is the gate's too, and the instructions limit for counts.
        write(
            dir.path(),
            "bench:\n  budgets:\n    fail_on_regression_percent: 12.0\n    \
             fail_on_instructions_regression_percent: 0.5\n",
        );
        let config = load_local_config(dir.path()).unwrap().unwrap();
        let budgets = settings_from_config(&config).unwrap().budgets().clone();
        assert!((budgets.for_metric("matmul_ns") - 0.12).abs() < 1e-12);
        assert_eq!(budgets.for_metric("matmul.instructions"), 0.005);
        write(
            dir.path(),
            "bench:\n  targets:\n    - name: kata\n      build: make bench\n      run: ./bench\n",
        );

        let recipe = recipe_from_module(SideName::Head, dir.path(), None).unwrap();
        assert_eq!(recipe.target, "kata");
        assert_eq!(recipe.jobs.len(), 1);
        assert_eq!(recipe.jobs[0].build.as_deref(), Some("make bench"));
        assert_eq!(recipe.jobs[0].run, "./bench");
    }

    #[test]
    fn max_runs_comes_from_module_yml() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "bench:\n  gate:\n    runs: 3\n    max_runs: 10\n",
        );
        let config = load_local_config(dir.path()).unwrap().unwrap();
        let settings = settings_from_config(&config).unwrap();
        assert_eq!((settings.runs(), settings.max_runs()), (3, 10));
        write(dir.path(), "bench:\n  gate:\n    runs: 4\n");
        let config = load_local_config(dir.path()).unwrap().unwrap();
        // Unset: adaptive by default, up to the default ceiling.
        assert_eq!(
            settings_from_config(&config).unwrap().max_runs(),
            crate::settings::DEFAULT_MAX_RUNS
        );
    }

    #[test]
    fn each_suite_is_a_job() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "bench:\n  suites:\n    - [a.c, b.c]\n    - command: ./other.sh\n  targets:\n    - name: kata\n      \
             build: make\n      run: ./bench\n",
        );
        let recipe = recipe_from_module(SideName::Head, dir.path(), Some("kata")).unwrap();
        assert_eq!(recipe.jobs.len(), 2, "{recipe:?}");
        let sources = &recipe.jobs[0].env[0];
        assert_eq!(sources.0, "RHO_BENCH_SOURCES");
        assert!(
            sources.1.ends_with("b.c") && sources.1.contains("a.c "),
            "{sources:?}"
        );
        assert_eq!(recipe.jobs[1].build, None);
        assert_eq!(recipe.jobs[1].run, "./other.sh");
    }

    #[test]
    fn no_module_yml_means_default_settings_but_no_recipe() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load_local_config(dir.path()).unwrap().is_none());
        let error = recipe_from_module(SideName::Base, dir.path(), None).unwrap_err();
        assert!(error.to_string().starts_with("base: "), "{error}");
        assert!(error.to_string().contains("module.yml"), "{error}");
    }

    #[test]
    fn a_builtin_target_has_no_recipe() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "bench:\n  targets:\n    - host\n");
        assert!(matches!(
            recipe_from_module(SideName::Head, dir.path(), None),
            Err(GateError::BuiltinTarget { .. })
        ));
    }
}
