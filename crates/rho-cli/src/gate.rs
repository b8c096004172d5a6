//! `rho bench gate --base REV|DIR --head REV|DIR`: base against head, alternately, on this machine.
//!
//! The work is rho-gate's; this is the command line around it: settings from the module.yml here and the
//! flags, progress on stderr, the table and the verdict on stdout, and as the last stdout line one JSON object.
//! Exit 0 when nothing regressed, 1 when something did, 2 when the gate cannot decide. With `--bisect`, "cannot
//! decide" is 125 when head's code is to blame (`git bisect run` skips the commit) and 128 otherwise (a refused
//! setting, a side named wrongly, a base that fails: `git bisect run` stops, since every commit would fail alike).

use std::cell::RefCell;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use rho_config::{ModuleConfig, TargetSpec};
use rho_gate::config::{
    bench_env_from_config, command_jobs, load_local_config, settings_from_config, side_target,
};
use rho_gate::overrides::{Overrides, SettingsSource};
use rho_gate::report::{to_json, unmatched_budget_warnings};
use rho_gate::{
    GateError, GateOutcome, GateRequest, GateSettings, Job, Progress, Recipe, SideName, Verdict,
    run_gate,
};

use rho_suite::cfiles::ScratchDir;
use rho_suite::engine::HostBuild;

/// Exit status for "cannot decide because of head's code" under `--bisect`: `git bisect run` skips the commit.
const EXIT_BISECT_SKIP: u8 = 125;

/// Exit status for "cannot decide, and not because of head's code" under `--bisect`: `git bisect run` stops
/// on any status above 127 (git's own fatal errors exit 128), rather than skipping every commit in turn.
const EXIT_BISECT_ABORT: u8 = 128;

/// The exit status of an undecided gate: 2, or under `--bisect` 125 when head's code is to blame (skip the
/// commit) and 128 otherwise (stop the bisect).
fn undecided_exit(bisect: bool, head_to_blame: bool) -> u8 {
    match (bisect, head_to_blame) {
        (false, _) => Verdict::Undecided.exit_code(),
        (true, true) => EXIT_BISECT_SKIP,
        (true, false) => EXIT_BISECT_ABORT,
    }
}

/// A gate error from the module.yml of the directory the gate runs in (its settings). Under `git bisect run`
/// that directory is the commit being tested, so a module.yml that does not load or holds a refused setting
/// there is that commit's own fault: it is skipped like a head that does not build. Shown as the error itself.
#[derive(Debug)]
struct HereModuleError(GateError);

impl std::fmt::Display for HereModuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for HereModuleError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0)
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

/// `rho bench gate`
#[derive(Debug, Clone, Args)]
pub struct GateArgs {
    /// The side to compare against: a directory (used in place), or a git revision of the repository here
    /// (checked out into a temporary worktree, removed afterwards).
    #[arg(long, value_name = "REV|DIR")]
    pub base: String,

    /// The side under test, as --base; `.` (the default) is this directory as it is, uncommitted changes
    /// included.
    #[arg(long, value_name = "REV|DIR", default_value = ".")]
    pub head: String,

    /// The bench.targets entry whose build: and run: commands each side uses (default: the first listed).
    #[arg(long, value_name = "NAME")]
    pub target: Option<String>,

    /// Alternating runs per side, at least 2 (default: bench.gate.runs, else 3).
    #[arg(long, value_name = "N")]
    pub runs: Option<u32>,

    /// A metric's budget, a fraction in (0, 1): head may be at most this much worse than base. `default=F`
    /// sets the default. Repeatable; overrides bench.gate.budget.
    #[arg(long = "budget", value_name = "METRIC=FRACTION")]
    pub budgets: Vec<String>,

    /// Give up on a build or a run after this many seconds, killing its process group (default:
    /// bench.gate.timeout_seconds, else 120).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// Measured iterations per benchmark, for both sides (RHO_BENCH_ITERATIONS).
    #[arg(long, value_name = "N")]
    pub iterations: Option<u64>,

    /// Warm-up iterations per benchmark, for both sides (RHO_BENCH_WARMUP).
    #[arg(long, value_name = "N")]
    pub warmup: Option<u64>,

    /// Multiply every iteration count, for both sides (RHO_BENCH_SCALE).
    #[arg(long, value_name = "FACTOR")]
    pub scale: Option<f64>,

    /// What to measure: `time` (the default) or `instructions` (each side run once under Valgrind's Callgrind:
    /// exact counts, `<bench>.instructions` metrics, budget 1% unless named). Default: module.yml's
    /// `bench.measure`.
    #[arg(long, value_name = "WHAT", value_parser = parse_gate_measure)]
    pub measure: Option<rho_config::Measure>,

    /// For `git bisect run`: when the gate cannot decide, exit 125 (skip this commit) if head's code is to
    /// blame (its build, run or metrics), else 128 (stop the bisect: a bad setting, a side named wrongly, a
    /// base that fails) instead of 2.
    #[arg(long)]
    pub bisect: bool,

    /// Also write the outcome as one self-contained HTML page: per benchmark and metric every run of each
    /// side, with the budget line head's best run must stay under.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Also write the verdict as one JSON object to FILE (atomically), or with `-` to stdout as one line,
    /// which is then all that goes to stdout (the table goes to stderr). Without it no JSON is printed.
    #[arg(long, value_name = "FILE|-")]
    pub json: Option<PathBuf>,

    #[command(flatten)]
    pub color: crate::term::ColorArgs,
}

fn parse_gate_measure(text: &str) -> Result<rho_config::Measure, String> {
    rho_config::Measure::parse(text)
        .ok_or_else(|| format!("`{text}`: expected time or instructions"))
}

/// Run the gate; the exit status is the verdict. Errors are reported here (stderr, and an `undecided` JSON
/// line on stdout), so this returns the exit code rather than an error.
pub fn run(args: &GateArgs) -> anyhow::Result<ExitCode> {
    // Before the gate runs: an unwritable `--html` path stops here, not after minutes of runs.
    if let Some(html) = &args.html {
        crate::export::check_destination("--html", html)?;
    }
    let json = crate::export::prepare_json(args.json.as_deref())?;
    match gate(args) {
        Ok((outcome, settings)) => {
            print_outcome(&outcome, &settings, args, json.as_ref())?;
            if let Some(html) = &args.html {
                write_html(html, &outcome)?;
            }
            let code = match outcome.comparison.verdict {
                Verdict::Undecided => {
                    let side = outcome.comparison.undecided_side();
                    let head_to_blame = side == Some(SideName::Head);
                    eprintln!(
                        "rho: the gate cannot decide: {}",
                        blame_text(side, args.bisect, head_to_blame)
                    );
                    undecided_exit(args.bisect, head_to_blame)
                }
                verdict => verdict.exit_code(),
            };
            Ok(ExitCode::from(code))
        }
        Err(error) => {
            let here = error.downcast_ref::<HereModuleError>();
            let gate_error = error.downcast_ref::<GateError>();
            let (side, head_to_blame) = if here.is_some() {
                // Neither side's build or run failed, but under `git bisect run` this module.yml is the
                // commit being tested.
                (None, true)
            } else {
                (
                    gate_error.and_then(GateError::side),
                    gate_error.is_some_and(GateError::is_head_failure),
                )
            };
            eprintln!(
                "rho: error: {}",
                rho_text::escape_text(&format!("{error:#}"))
            );
            eprintln!(
                "rho: the gate cannot decide: {}",
                blame_text(side, args.bisect, head_to_blame)
            );
            let document = serde_json::json!({
                "verdict": "undecided",
                "error": format!("{error:#}"),
                "side": side.map(SideName::label),
                "metrics": {},
            });
            if let Some(json) = &json {
                write_document(json, &document)?;
            }
            Ok(ExitCode::from(undecided_exit(args.bisect, head_to_blame)))
        }
    }
}

/// The command line's settings over module.yml's (or rho's defaults): `--runs`, `--budget`, `--timeout`,
/// `--scale`, `--measure` (a count needs Valgrind and a few iterations), `--iterations`, `--warmup`; and
/// where the settings came from, for the report.
fn apply_overrides(
    args: &GateArgs,
    config: Option<&ModuleConfig>,
    settings: &mut GateSettings,
    env: &mut rho_gate::BenchEnv,
) -> anyhow::Result<SettingsSource> {
    let overrides = Overrides {
        runs: args.runs,
        budgets: args.budgets.clone(),
        timeout: args.timeout,
        scale: args.scale,
    };
    overrides.apply(settings, env)?;
    let measure = args
        .measure
        .or(config.map(|c| c.measure))
        .unwrap_or_default();
    if measure == rho_config::Measure::Both {
        anyhow::bail!(
            "the gate judges one measurement: --measure time or --measure instructions, not both"
        );
    }
    if measure.counts() {
        env.counter = Some(
            rho_suite::count::Counter::find(false)?
                .valgrind()
                .to_path_buf(),
        );
        // module.yml's iterations are sized for timing; a count needs a few (as in `rho bench`).
        env.iterations = Some(rho_suite::count::DEFAULT_ITERATIONS);
        env.warmup = Some(rho_suite::count::DEFAULT_WARMUP);
        env.per_benchmark.clear();
    }
    env.iterations = args.iterations.or(env.iterations);
    env.warmup = args.warmup.or(env.warmup);
    Ok(overrides.source(config.map(|c| c.file.clone())))
}

fn gate(args: &GateArgs) -> anyhow::Result<(GateOutcome, SettingsSource)> {
    let cwd = std::env::current_dir()
        .map_err(|e| anyhow::anyhow!("cannot read the current directory: {e}"))?;
    let config = load_local_config(&cwd).map_err(HereModuleError)?;
    let (mut settings, mut env) = match &config {
        Some(config) => (
            settings_from_config(config).map_err(HereModuleError)?,
            bench_env_from_config(config),
        ),
        None => (GateSettings::default(), Default::default()),
    };
    let settings_source = apply_overrides(args, config.as_ref(), &mut settings, &mut env)?;

    if env.counter.is_some() {
        eprintln!(
            "rho: gate: base {} against head {}, instructions counted under Callgrind: one run each (a count \
             is exact, there is no best of N to take), timeout {} s per build and run",
            args.base,
            args.head,
            settings.timeout().as_secs_f64()
        );
    } else {
        eprintln!(
            "rho: gate: base {} against head {}, {} alternating runs each, timeout {} s per build and run",
            args.base,
            args.head,
            settings.runs(),
            settings.timeout().as_secs_f64()
        );
    }
    let request = GateRequest {
        base: args.base.clone(),
        head: args.head.clone(),
        cwd,
        settings,
        env,
        bench_header: rho_suite::cfiles::BENCH_HEADER.to_owned(),
    };
    let target = args.target.as_deref();
    let timeout = request.settings.timeout();
    // Suites rho builds itself (the built-in `host` target), kept until the gate is over; and where the
    // built-in board ports are written.
    let built: RefCell<Vec<HostBuild>> = RefCell::new(Vec::new());
    let ports = ScratchDir::new("rho-gate-ports-")
        .map_err(|e| anyhow::anyhow!("cannot create a temporary directory: {e}"))?;
    let load_recipe = |side: SideName, root: &Path| -> Result<Recipe, GateError> {
        let (config, spec) = side_target(side, root, target)?;
        let suite_error = |error: rho_suite::SuiteError| GateError::Recipe {
            side,
            message: error.full_text(),
        };
        let mut jobs = match &spec {
            TargetSpec::Commands {
                name, build, run, ..
            } => command_jobs(&config, name, build, run),
            TargetSpec::Builtin { name, .. } if name == "host" => {
                host_jobs(side, &config, &spec, timeout, &built).map_err(suite_error)?
            }
            TargetSpec::Builtin { name, .. } => {
                match rho_suite::ports::builtin_commands(name, ports.path()).map_err(suite_error)? {
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
            // A C-file suite's own flags reach the target's build command (rho_suite::sides); one job per
            // suite, in order.
            let environments = rho_suite::sides::flag_environments(&config, &spec, timeout)
                .map_err(suite_error)?;
            for (job, environment) in jobs.iter_mut().zip(environments) {
                job.env.extend(environment.into_iter().flatten());
            }
        }
        Ok(Recipe {
            target: spec.name().to_owned(),
            file: config.file.clone(),
            jobs,
        })
    };
    // On a terminal a spinner with the latest step (base run 2 of 3, ...); piped, one line a step.
    let progress = crate::term::progress::Gate::new();
    let outcome = run_gate(&request, &load_recipe, &mut |step: &Progress| {
        progress.step(&step.to_string());
    })?;
    drop(progress);
    for warning in unmatched_budget_warnings(&outcome.comparison, request.settings.budgets()) {
        eprintln!("rho: {warning}");
    }
    drop(built);
    Ok((outcome, settings_source))
}

/// The jobs of the built-in `host` target as the engine builds them (rho_suite::sides::host_side), its steps
/// and warnings shown as the gate's.
fn host_jobs(
    side: SideName,
    config: &ModuleConfig,
    spec: &TargetSpec,
    timeout: Duration,
    built: &RefCell<Vec<HostBuild>>,
) -> Result<Vec<Job>, rho_suite::SuiteError> {
    let mut note = |text: &str| eprintln!("rho: gate: {side}: {text}");
    let jobs =
        rho_suite::sides::host_side(config, spec, timeout, &mut built.borrow_mut(), &mut note)?;
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

/// `--json`: the verdict document to a file, or to stdout as one line (a script may read it whole or take the
/// last line, as before).
fn write_document(
    json: &crate::export::JsonTarget,
    document: &serde_json::Value,
) -> anyhow::Result<()> {
    match json {
        crate::export::JsonTarget::Stdout => {
            print_json_line(document);
            Ok(())
        }
        file => file.write(document),
    }
}

fn print_outcome(
    outcome: &GateOutcome,
    settings: &SettingsSource,
    args: &GateArgs,
    json: Option<&crate::export::JsonTarget>,
) -> anyhow::Result<()> {
    let comparison = &outcome.comparison;
    // `--json -` takes stdout: the table goes to stderr, laid out and coloured for it.
    let to_stderr = json.is_some_and(crate::export::JsonTarget::is_stdout);
    let stream = if to_stderr {
        crate::term::Stream::Stderr
    } else {
        crate::term::Stream::Stdout
    };
    let width = crate::term::width(stream);
    let text = rho_report::gate::outcome_text(outcome, &settings.describe(), width);
    // Escaped before it is painted: the painter's sequences are the only ones that reach the terminal.
    let mut text = rho_text::escape_text(&text).into_owned();
    if crate::term::colour(args.color.choice, stream) {
        text = rho_report::paint(&text);
    }
    if to_stderr {
        // Already escaped and painted: std's eprint!, not rho-cli's escaping one, which would escape the paint.
        ::std::eprint!("{text}");
    } else {
        print_stdout(&text);
    }
    let Some(json) = json else {
        return Ok(());
    };
    let runs = u32::try_from(outcome.base_runs.len()).unwrap_or(u32::MAX);
    let mut document = to_json(comparison, runs);
    document["functions"] = rho_gate::functions::to_json(&rho_gate::functions::regressed(outcome));
    document["settings_file"] =
        serde_json::json!(settings.file.as_ref().map(|f| f.display().to_string()));
    write_document(json, &document)
}

/// `--html FILE`: every run of each side, per metric.
fn write_html(path: &Path, outcome: &GateOutcome) -> anyhow::Result<()> {
    let page = rho_report::gate::outcome_page(outcome);
    Ok(crate::export::write_text(path, "the HTML report", &page)?)
}

/// The verdict's JSON line on stdout, through the sanitiser: serde leaves no C0 control raw, and a DEL or C1
/// one (a command or a path from module.yml) is escaped JSON's own way (`\u009b`), so it stays the same JSON.
fn print_json_line(document: &serde_json::Value) {
    let mut stdout = rho_text::Escaped(std::io::stdout().lock());
    // A closed stdout is not worth a panic; the exit status still tells.
    let line = format!("{document}\n");
    let _ = stdout
        .write_all(line.as_bytes())
        .and_then(|()| stdout.flush());
}

/// `text` on stdout as it is: the table, escaped (then painted) by its caller.
fn print_stdout(text: &str) {
    let mut stdout = std::io::stdout().lock();
    // A closed stdout (`rho bench gate ... | head`) is not worth a panic; the exit status still tells.
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use crate::cli::{BenchAction, Cli, Command};

    fn parse(args: &[&str]) -> Result<super::GateArgs, clap::Error> {
        let cli = Cli::try_parse_from(["rho", "bench", "gate"].iter().chain(args))?;
        let Command::Bench(bench) = cli.command else {
            panic!("not bench");
        };
        match bench.action {
            Some(BenchAction::Gate(gate)) => Ok(gate),
            other => panic!("not a gate: {other:?}"),
        }
    }

    #[test]
    fn gate_reads_its_flags() {
        let args = parse(&[
            "--base",
            "origin/main",
            "--head",
            "HEAD",
            "--runs",
            "5",
            "--budget",
            "sum_ns=0.2",
            "--budget",
            "default=0.25",
            "--timeout",
            "30",
            "--target",
            "kata",
            "--bisect",
        ])
        .unwrap();
        assert_eq!(args.base, "origin/main");
        assert_eq!(args.head, "HEAD");
        assert_eq!(args.runs, Some(5));
        assert_eq!(args.budgets, ["sum_ns=0.2", "default=0.25"]);
        assert_eq!(args.timeout, Some(30.0));
        assert_eq!(args.target.as_deref(), Some("kata"));
        assert!(args.bisect);
    }

    #[test]
    fn head_defaults_to_this_directory_and_base_is_required() {
        assert_eq!(parse(&["--base", "main"]).unwrap().head, ".");
        assert!(parse(&[]).is_err());
    }
}
