//! `rho bench gate --base REV|DIR --head REV|DIR`: base against head, alternately, on this machine.
//!
//! The work is rho-gate's; this is the recipe around it: settings from the module.yml here and the command
//! line, each side's jobs from the engine (rho_suite::sides, the route `rho bench` takes), the table and the
//! verdict on the report's stream, and as the last stdout line one JSON object. Exit 0 when nothing regressed,
//! 1 when something did, 2 when the gate cannot decide. With `bisect`, "cannot decide" is 125 when head's code
//! is to blame (`git bisect run` skips the commit) and 128 otherwise (a refused setting, a side named wrongly,
//! a base that fails: `git bisect run` stops, since every commit would fail alike).

use std::cell::RefCell;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rho_config::{ModuleConfig, TargetSpec};
use rho_gate::config::{
    bench_env_from_config, command_jobs, load_local_config, settings_from_config, side_target,
};
use rho_gate::json::to_json;
use rho_gate::overrides::{Overrides, SettingsSource};
use rho_gate::{
    GateError, GateOutcome, GateRequest, GateSettings, Job, Progress, Recipe, SideName, Verdict,
    run_gate,
};
use rho_report::gate::unmatched_budget_warnings;
use rho_suite::cfiles::ScratchDir;
use rho_suite::engine::HostBuild;

use crate::Error;
use crate::output::{JsonTarget, Terminal};

/// Exit status for "cannot decide because of head's code" under `--bisect`: `git bisect run` skips the commit.
const EXIT_BISECT_SKIP: u8 = 125;

/// Exit status for "cannot decide, and not because of head's code" under `--bisect`: `git bisect run` stops
/// on any status above 127 (git's own fatal errors exit 128), rather than skipping every commit in turn.
const EXIT_BISECT_ABORT: u8 = 128;

/// What the gate was asked: the sides, the target, the command line's settings over module.yml's.
#[derive(Debug, Clone)]
pub struct Options {
    pub base: String,
    pub head: String,
    /// The bench.targets entry whose commands each side uses (default the first listed).
    pub target: Option<String>,
    pub runs: Option<u32>,
    /// `--max-runs`: the most runs a benchmark whose verdict is still open gets (adaptive runs).
    pub max_runs: Option<u32>,
    /// `-j/--jobs`: how many builds at once (default the number of cores).
    pub jobs: Option<usize>,
    /// `--no-cache`: build git-revision sides from scratch, leaving `.git/rho-cache` alone.
    pub no_cache: bool,
    /// `--verify-cache`: also build each side without the caches; a differing output is an error (exit 2).
    pub verify_cache: bool,
    /// Run both sides of a round at once, taking turns on one CPU (`--lock-step`: rho_gate's lock-step
    /// rounds); false, the default: one after the other.
    pub lock_step: bool,
    /// `METRIC=FRACTION` each.
    pub budgets: Vec<String>,
    pub timeout: Option<f64>,
    pub iterations: Option<u64>,
    pub warmup: Option<u64>,
    pub scale: Option<f64>,
    pub measure: Option<rho_config::Measure>,
    pub bisect: bool,
    pub html: Option<PathBuf>,
    pub json: Option<PathBuf>,
    /// `--shard K/N` (or `RHO_SHARD`): judge share K of N of the benchmarks (rho_gate::shard).
    pub shard: Option<rho_shard::Shard>,
    /// The compile cache's program, ccache (rho_gate::GateRequest::compiler_cache). `None` runs the compilers
    /// directly.
    pub compiler_cache: Option<PathBuf>,
}

/// The exit status of an undecided gate: 2, or under `--bisect` 125 when head's code is to blame (skip the
/// commit) and 128 otherwise (stop the bisect).
fn undecided_exit(bisect: bool, head_to_blame: bool) -> u8 {
    match (bisect, head_to_blame) {
        (false, _) => Verdict::Undecided.exit_code(),
        (true, true) => EXIT_BISECT_SKIP,
        (true, false) => EXIT_BISECT_ABORT,
    }
}

/// What the user is told about who is to blame for "cannot decide".
fn blame_text(side: Option<SideName>, bisect: bool, head_to_blame: bool) -> String {
    let who = match side {
        Some(side) => format!("the {side} side failed"),
        None => "the gate could not run".to_owned(),
    };
    match (bisect, head_to_blame) {
        (false, _) => who,
        (true, true) => format!("{who}; --bisect: exit {EXIT_BISECT_SKIP}, skip this commit"),
        (true, false) => format!("{who}; --bisect: exit {EXIT_BISECT_ABORT}, stop the bisect"),
    }
}

/// Run the gate; the exit status is the verdict. The gate's own errors are reported here (stderr, and an
/// `undecided` JSON document), so they become an exit status; only an unwritable destination is an error.
/// `progress` is told each step and dropped when the runs are over.
pub fn run(
    options: &Options,
    terminal: &dyn Terminal,
    progress: impl FnMut(&str),
) -> crate::Result<u8> {
    // Before the gate runs: an unwritable `--html` path stops here, not after minutes of runs.
    if let Some(html) = &options.html {
        crate::output::check_destination("--html", html)?;
    }
    let json = crate::output::prepare_json(options.json.as_deref())?;
    match gate(options, progress) {
        Ok((outcome, settings)) => {
            print_outcome(&outcome, &settings, terminal, json.as_ref(), options)?;
            if let Some(html) = &options.html {
                let page = rho_report::gate::outcome_page(&outcome);
                crate::output::write_text(html, "the HTML report", &page)?;
            }
            Ok(match outcome.comparison.verdict {
                Verdict::Undecided => {
                    let side = outcome.comparison.undecided_side();
                    let head_to_blame = side == Some(SideName::Head);
                    crate::say(&format!(
                        "rho: the gate cannot decide: {}",
                        blame_text(side, options.bisect, head_to_blame)
                    ));
                    undecided_exit(options.bisect, head_to_blame)
                }
                verdict => verdict.exit_code(),
            })
        }
        Err(error) => undecided(&error, options, json.as_ref()),
    }
}

/// A gate that could not run: the error, who is to blame, the `undecided` document; the exit status.
fn undecided(error: &Error, options: &Options, json: Option<&JsonTarget>) -> crate::Result<u8> {
    let bisect = options.bisect;
    let (side, head_to_blame) = match error {
        // Neither side's build or run failed, but under `git bisect run` this module.yml is the commit being
        // tested.
        Error::HereModule(_) => (None, true),
        Error::Gate(gate_error) => (gate_error.side(), gate_error.is_head_failure()),
        _ => (None, false),
    };
    let text = Error::full_text(error);
    crate::say(&format!("rho: error: {text}"));
    crate::say(&format!(
        "rho: the gate cannot decide: {}",
        blame_text(side, bisect, head_to_blame)
    ));
    let document = serde_json::json!({
        "verdict": "undecided",
        "error": text,
        "side": side.map(SideName::label),
        "metrics": {},
        "shard": shard_record(options),
    });
    if let Some(json) = json {
        write_document(json, &document)?;
    }
    Ok(undecided_exit(bisect, head_to_blame))
}

/// The command line's settings over module.yml's (or rho's defaults): `--runs`, `--max-runs`, `--jobs`,
/// `--no-cache`, `--budget`, `--timeout`, `--scale`, `--measure` (a count needs Valgrind and a few iterations), `--iterations`, `--warmup`; and
/// where the settings came from, for the report.
fn apply_overrides(
    options: &Options,
    config: Option<&ModuleConfig>,
    settings: &mut GateSettings,
    env: &mut rho_gate::BenchEnv,
) -> crate::Result<SettingsSource> {
    let overrides = Overrides {
        runs: options.runs,
        budgets: options.budgets.clone(),
        timeout: options.timeout,
        scale: options.scale,
    };
    overrides.apply(settings, env)?;
    let mut source = overrides.source(config.map(|c| c.file.clone()));
    rho_gate::overrides::apply_max_runs(options.max_runs, settings, &mut source)?;
    if let Some(jobs) = options.jobs {
        settings.set_build_jobs(jobs)?;
    }
    settings.set_cache(!options.no_cache);
    settings.set_verify_cache(options.verify_cache);
    settings.set_lock_step(options.lock_step);
    settings.set_shard(options.shard.map(|s| rho_gate::shard::GateShard {
        index: s.index,
        count: s.count,
    }));
    let measure = options
        .measure
        .or(config.map(|c| c.measure))
        .unwrap_or_default();
    if measure == rho_config::Measure::Both {
        return Err(Error::Refused(
            "the gate judges one measurement: --measure time or --measure instructions, not both"
                .to_string(),
        ));
    }
    if measure.counts() {
        // On a built-in board QEMU counts, with rho's plugin; elsewhere Callgrind. Without a module.yml where
        // the gate runs (base and head named as directories elsewhere), a built-in target is known by its name.
        let target = match config {
            Some(config) => config.target(options.target.as_deref()).ok(),
            None => options
                .target
                .as_deref()
                .filter(|name| rho_config::BUILTIN_TARGETS.contains(name))
                .map(|name| TargetSpec::Builtin {
                    name: name.to_owned(),
                    timeout: None,
                }),
        };
        env.counter = Some(match target {
            Some(spec) if rho_suite::qemu_count::counts_on_board(&spec) => {
                rho_gate::Counter::QemuPlugin
            }
            Some(TargetSpec::Builtin { name, .. }) if name != "host" => {
                return Err(Error::Refused(format!(
                    "--measure instructions: rho counts on the host (Callgrind) and on the built-in QEMU \
                     boards (its plugin); target {name} is neither: gate it on time"
                )));
            }
            _ => rho_gate::Counter::Callgrind(
                rho_suite::count::Counter::find(false)?
                    .valgrind()
                    .to_path_buf(),
            ),
        });
        // module.yml's iterations are sized for timing; a count needs a few (as in `rho bench`).
        env.iterations = Some(rho_suite::count::DEFAULT_ITERATIONS);
        env.warmup = Some(rho_suite::count::DEFAULT_WARMUP);
        env.per_benchmark.clear();
    }
    env.iterations = options.iterations.or(env.iterations);
    env.warmup = options.warmup.or(env.warmup);
    Ok(source)
}

/// `3 alternating runs each`, or with adaptive runs `1 to 10 alternating runs each (3 before a time metric
/// fails)`: a settled benchmark stops sooner.
fn runs_text(settings: &GateSettings) -> String {
    match (settings.runs(), settings.max_runs()) {
        (runs, max) if max > runs => {
            format!("1 to {max} alternating runs each ({runs} before a time metric fails)")
        }
        (runs, _) => format!("{runs} alternating runs each"),
    }
}

/// The gate's request: the settings of the module.yml here with the command line's over them, said on stderr.
fn request(options: &Options) -> crate::Result<(GateRequest, SettingsSource)> {
    let cwd = crate::output::current_dir()?;
    let config = load_local_config(&cwd).map_err(Error::HereModule)?;
    let (mut settings, mut env) = match &config {
        Some(config) => (
            settings_from_config(config).map_err(Error::HereModule)?,
            bench_env_from_config(config),
        ),
        None => (GateSettings::default(), Default::default()),
    };
    let settings_source = apply_overrides(options, config.as_ref(), &mut settings, &mut env)?;
    let timeout = settings.timeout().as_secs_f64();
    crate::say(&if let Some(counter) = &env.counter {
        let by = match counter {
            rho_gate::Counter::Callgrind(_) => "under Callgrind",
            rho_gate::Counter::QemuPlugin => "by QEMU with rho's plugin",
        };
        format!(
            "rho: gate: base {} against head {}, instructions counted {by}: one run each (a count is exact, \
             there is no best of N to take), timeout {timeout} s per build and run",
            options.base, options.head
        )
    } else {
        format!(
            "rho: gate: base {} against head {}, {}, timeout {timeout} s per build and run",
            options.base,
            options.head,
            runs_text(&settings)
        )
    });
    let request = GateRequest {
        base: options.base.clone(),
        head: options.head.clone(),
        cwd,
        settings,
        env,
        bench_header: rho_suite::cfiles::BENCH_HEADER.to_owned(),
        compiler_cache: options.compiler_cache.clone(),
    };
    Ok((request, settings_source))
}

fn gate(
    options: &Options,
    mut progress: impl FnMut(&str),
) -> crate::Result<(GateOutcome, SettingsSource)> {
    let (request, settings_source) = request(options)?;
    // Suites rho builds itself (the built-in `host` target), kept until the gate is over; and where the
    // built-in board ports are written.
    let built: RefCell<Vec<HostBuild>> = RefCell::new(Vec::new());
    let ports = ScratchDir::new("rho-gate-ports-").map_err(Error::TempDir)?;
    let sides = Sides {
        target: options.target.as_deref(),
        counting: request.env.counter == Some(rho_gate::Counter::QemuPlugin),
        timeout: request.settings.timeout(),
        built: &built,
        ports: ports.path(),
    };
    let load_recipe = |side: SideName, root: &Path| sides.recipe(side, root);
    let outcome = run_gate(&request, &load_recipe, &mut |step: &Progress| {
        progress(&step.to_string());
    })?;
    // The progress line goes before the warnings are printed.
    drop(progress);
    for warning in unmatched_budget_warnings(&outcome.comparison, request.settings.budgets()) {
        crate::say(&format!("rho: {warning}"));
    }
    drop(built);
    Ok((outcome, settings_source))
}

/// How each side's recipe is made: the target, the timeout, and where the engine's builds and the board ports
/// are kept until the gate is over.
struct Sides<'a> {
    target: Option<&'a str>,
    /// Counting on a board: its run loads rho's QEMU plugin.
    counting: bool,
    timeout: Duration,
    built: &'a RefCell<Vec<HostBuild>>,
    ports: &'a Path,
}

impl Sides<'_> {
    /// `side`'s recipe, from the module.yml at `root`: its jobs by the target's commands, or built by the
    /// engine for the built-in `host` target, or by a built-in board's port commands.
    fn recipe(&self, side: SideName, root: &Path) -> Result<Recipe, GateError> {
        let (config, spec) = side_target(side, root, self.target)?;
        let suite_error = |error: rho_suite::SuiteError| GateError::Recipe {
            side,
            message: error.full_text(),
        };
        let mut jobs = match &spec {
            TargetSpec::Commands {
                name,
                build,
                run,
                counter,
                ..
            } => {
                // Counting, a target with `counter: qemu-plugin` loads the plugin in its own run.
                let run = match counter {
                    Some(_) if self.counting => {
                        rho_suite::qemu_count::gate_own_run(run, self.ports, self.timeout)
                            .map_err(suite_error)?
                    }
                    _ => run.clone(),
                };
                command_jobs(&config, name, build, &run)
            }
            TargetSpec::Builtin { name, .. } if name == "host" => {
                self.host_jobs(side, &config, &spec).map_err(suite_error)?
            }
            TargetSpec::Builtin { name, .. } => {
                let commands = rho_suite::qemu_count::gate_commands(
                    name,
                    self.ports,
                    self.counting,
                    self.timeout,
                );
                match commands.map_err(suite_error)? {
                    Some((build, run)) => command_jobs(&config, name, &build, &run),
                    None => {
                        return Err(GateError::BuiltinTarget {
                            side,
                            target: name.clone(),
                            path: config.file.clone(),
                        });
                    }
                }
            }
        };
        if !matches!(&spec, TargetSpec::Builtin { name, .. } if name == "host") {
            // A C-file suite's own flags and the target's stack_bytes reach the target's build command
            // (rho_suite::sides); one job per suite, in order.
            let environments = rho_suite::sides::build_environments(&config, &spec, self.timeout)
                .map_err(suite_error)?;
            for (job, environment) in jobs.iter_mut().zip(environments) {
                job.env.extend(environment);
            }
        }
        Ok(Recipe {
            target: spec.name().to_owned(),
            file: config.file.clone(),
            jobs,
        })
    }

    /// The jobs of the built-in `host` target as the engine builds them (rho_suite::sides::host_side), its
    /// steps and warnings shown as the gate's.
    fn host_jobs(
        &self,
        side: SideName,
        config: &ModuleConfig,
        spec: &TargetSpec,
    ) -> Result<Vec<Job>, rho_suite::SuiteError> {
        let mut note = |text: &str| crate::say(&format!("rho: gate: {side}: {text}"));
        let mut built = self.built.borrow_mut();
        let jobs = rho_suite::sides::host_side(config, spec, self.timeout, &mut built, &mut note)?;
        Ok(jobs
            .into_iter()
            .map(|job| Job {
                what: job.what,
                build: None,
                run: job.run,
                env: job.env,
                static_metrics: job.static_metrics,
            })
            .collect())
    }
}

/// `--json`: the verdict document to a file, or to stdout as one line (a script may read it whole or take the
/// last line, as before).
pub(crate) fn write_document(json: &JsonTarget, document: &serde_json::Value) -> crate::Result<()> {
    match json {
        JsonTarget::Stdout => {
            // Through the sanitiser: serde leaves no C0 control raw, and a DEL or C1 one (a command or a path
            // from module.yml) is escaped JSON's own way (`\u009b`), so it stays the same JSON.
            let mut stdout = rho_text::Escaped(std::io::stdout().lock());
            // A closed stdout is not worth a panic; the exit status still tells.
            let line = format!("{document}\n");
            let _ = stdout
                .write_all(line.as_bytes())
                .and_then(|()| stdout.flush());
            Ok(())
        }
        file => file.write(document),
    }
}

/// The table and the verdict on the report's stream (stderr when `--json -` takes stdout), then the document.
fn print_outcome(
    outcome: &GateOutcome,
    settings: &SettingsSource,
    terminal: &dyn Terminal,
    json: Option<&JsonTarget>,
    options: &Options,
) -> crate::Result<()> {
    let (mut out, _) = crate::output::report_output(terminal, json);
    let columns = terminal.columns(json.is_some_and(JsonTarget::is_stdout));
    let text = rho_report::gate::outcome_text(outcome, &settings.describe(), columns);
    crate::output::show(&mut out, &text);
    let Some(json) = json else {
        return Ok(());
    };
    let runs = u32::try_from(outcome.base_runs.len()).unwrap_or(u32::MAX);
    let mut document = to_json(&outcome.comparison, runs);
    // Each metric's benchmark, which a share is cut by: the merge checks each share holds its own.
    if let Some(metrics) = document["metrics"].as_object_mut() {
        for (name, metric) in metrics.iter_mut() {
            let benchmark = outcome.benchmark_of.get(name).unwrap_or(name);
            metric["benchmark"] = serde_json::json!(benchmark);
        }
    }
    document["functions"] = rho_gate::functions::to_json(&rho_gate::functions::regressed(outcome));
    document["head_time_cap"] = serde_json::json!(outcome.head_time_cap);
    document["lock_step_turns"] = serde_json::json!(outcome.lock_step_turns);
    document["capped"] = capped_record(outcome);
    document["settings_file"] =
        serde_json::json!(settings.file.as_ref().map(|f| f.display().to_string()));
    document["shard"] = shard_record(options);
    write_document(json, &document)
}

/// The `capped` object of the document: per side, the benchmarks a time cap stopped early in any run, with
/// the fewest iterations they did (docs/gate.md).
fn capped_record(outcome: &GateOutcome) -> serde_json::Value {
    use rho_gate::head_cap::capped_benchmarks;
    serde_json::json!({
        "base": capped_benchmarks(&outcome.base_runs),
        "head": capped_benchmarks(&outcome.head_runs),
    })
}

/// The `shard` object of a sharded gate's document (docs/gate.md): the share, how the shares are cut, and
/// what every share of one gate has alike, which `rho bench merge` checks; `null` unsharded.
fn shard_record(options: &Options) -> serde_json::Value {
    let Some(shard) = options.shard else {
        return serde_json::Value::Null;
    };
    serde_json::json!({
        "index": shard.index,
        "count": shard.count,
        "partition": rho_gate::shard::PARTITION,
        "base": options.base,
        "head": options.head,
        "target": options.target,
        "measure": options.measure.map(rho_shard::share::measure_name),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undecided_gate_exits_2_or_under_bisect_skips_for_head_and_stops_otherwise() {
        assert_eq!(undecided_exit(false, true), 2);
        assert_eq!(undecided_exit(false, false), 2);
        assert_eq!(undecided_exit(true, true), EXIT_BISECT_SKIP);
        assert_eq!(undecided_exit(true, false), EXIT_BISECT_ABORT);
        assert_eq!(
            blame_text(Some(SideName::Head), true, true),
            "the head side failed; --bisect: exit 125, skip this commit"
        );
        assert_eq!(
            blame_text(None, true, false),
            "the gate could not run; --bisect: exit 128, stop the bisect"
        );
        assert_eq!(blame_text(None, false, false), "the gate could not run");
    }
}
