//! The gate itself: prepare both sides, build each once, run them alternately, compare.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rho_exec::{LineControl, Runner, ScratchDir};

use crate::compare::{Comparison, compare};
use crate::error::{CommandFailure, GateError, SideName};
use crate::metrics::{CALLGRIND_DUMPS, Counter, Figure, MetricSource, RunMetrics, StdoutMetrics};
use crate::settings::GateSettings;
use crate::side::{PreparedSide, SideSpec};

/// How many trailing stderr lines a failure message quotes.
const STDERR_TAIL_LINES: usize = 12;

/// How one side is built and run: one or more jobs (one per suite), each shell commands run with `sh -c` in
/// the side's module root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    /// The target's name, for messages.
    pub target: String,
    /// The module.yml the recipe came from, for messages.
    pub file: PathBuf,
    /// Built in order before the runs; every run of the side runs each job once, in order, and the metrics of
    /// all of them make the run's metrics.
    pub jobs: Vec<Job>,
}

/// One suite of a side: how it is built and run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// How the suite is named in messages (its files, its command, or the target).
    pub what: String,
    /// Run once before the runs; `None` when the job needs no build (a command suite, a suite rho built).
    pub build: Option<String>,
    /// Run once per run; its stdout carries the metrics.
    pub run: String,
    /// Added to the environment of its build and runs (e.g. `RHO_BENCH_SOURCES`).
    pub env: Vec<(String, String)>,
    /// Figures read from the built image rather than the runs (`(benchmark, metric, value)`: a benchmark's
    /// reachable code bytes and static stack bound), added to every run's metrics as `<benchmark>.<metric>`
    /// for the benchmarks the run reported. Empty for a job rho did not build.
    pub static_metrics: Vec<(String, String, u64)>,
}

/// The harness settings handed to every build and run through the environment, the same for both sides so
/// that they measure the same amount of work. `None` leaves the variable as `rho`'s own environment has it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BenchEnv {
    /// `RHO_BENCH_ITERATIONS`.
    pub iterations: Option<u64>,
    /// `RHO_BENCH_ITERATIONS_<name>`, per benchmark.
    pub per_benchmark: Vec<(String, u64)>,
    /// `RHO_BENCH_WARMUP`.
    pub warmup: Option<u64>,
    /// `RHO_BENCH_SCALE`.
    pub scale: Option<f64>,
    /// `RHO_BENCH_TIME_CAP_MS`.
    pub time_cap_ms: Option<u64>,
    /// `RHO_BENCH_STACK_BYTES=0` when true: the stack is not measured.
    pub stack_off: bool,
    /// Count instructions instead of timing (`--measure instructions`): each side runs once (a count is
    /// exact: there is no best of N to take), and its counts are read as [`Counter`] says.
    pub counter: Option<Counter>,
}

impl BenchEnv {
    /// The variables, in a fixed order.
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut env = Vec::new();
        if let Some(n) = self.iterations {
            env.push(("RHO_BENCH_ITERATIONS".to_owned(), n.to_string()));
        }
        for (name, n) in &self.per_benchmark {
            env.push((format!("RHO_BENCH_ITERATIONS_{name}"), n.to_string()));
        }
        if let Some(n) = self.warmup {
            env.push(("RHO_BENCH_WARMUP".to_owned(), n.to_string()));
        }
        if let Some(scale) = self.scale {
            // `f64`'s Display never uses an exponent, which the harness does not read.
            env.push(("RHO_BENCH_SCALE".to_owned(), scale.to_string()));
        }
        if let Some(ms) = self.time_cap_ms {
            env.push(("RHO_BENCH_TIME_CAP_MS".to_owned(), ms.to_string()));
        }
        if self.stack_off {
            env.push(("RHO_BENCH_STACK_BYTES".to_owned(), "0".to_owned()));
        }
        if self.counter == Some(Counter::QemuPlugin) {
            env.push(("RHO_BENCH_MEASURE".to_owned(), "instructions".to_owned()));
        }
        env
    }
}

/// Everything one gate needs.
#[derive(Debug, Clone)]
pub struct GateRequest {
    /// `--base`: a directory or a git revision.
    pub base: String,
    /// `--head`: a directory or a git revision.
    pub head: String,
    /// Where `rho` runs: relative directories and the repository of revisions are taken from here.
    pub cwd: PathBuf,
    pub settings: GateSettings,
    pub env: BenchEnv,
    /// The text of `rho/bench.h`, written to `RHO_BENCH_INCLUDE` for both sides: the same harness for both,
    /// so a change to the harness between commits does not show up as a change of the code.
    pub bench_header: String,
}

/// Something worth telling the user while the gate works (it takes a while).
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// A side is ready: what it is and where its module root is.
    Prepared {
        side: SideName,
        describe: String,
        module_root: PathBuf,
    },
    Building {
        side: SideName,
        command: String,
    },
    Built {
        side: SideName,
        elapsed: Duration,
    },
    Ran {
        side: SideName,
        run: u32,
        of: u32,
        elapsed: Duration,
        source: MetricSource,
    },
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Progress::Prepared {
                side,
                describe,
                module_root,
            } => write!(
                f,
                "{side}: {describe} (module root {})",
                module_root.display()
            ),
            Progress::Building { side, command } => write!(f, "{side}: building: {command}"),
            Progress::Built { side, elapsed } => {
                write!(f, "{side}: built in {:.1} s", elapsed.as_secs_f64())
            }
            Progress::Ran {
                side,
                run,
                of,
                elapsed,
                source,
            } => write!(
                f,
                "{side}: run {run}/{of} in {:.2} s ({source})",
                elapsed.as_secs_f64()
            ),
        }
    }
}

/// What a finished gate found.
#[derive(Debug, Clone)]
pub struct GateOutcome {
    pub comparison: Comparison,
    /// Each side's metrics, one entry per run, in run order.
    pub base_runs: Vec<RunMetrics>,
    pub head_runs: Vec<RunMetrics>,
    /// Where each side's metrics came from (from its first run).
    pub base_source: MetricSource,
    pub head_source: MetricSource,
    /// Each side as the user named it, resolved (`main (3f2a...)`, a path).
    pub base_described: String,
    pub head_described: String,
    /// The recipe each side was built and run with.
    pub base_recipe: Recipe,
    pub head_recipe: Recipe,
    /// Wall time from the start to the verdict, builds included.
    pub elapsed: Duration,
}

/// A scratch directory of the gate: the harness header and one build directory per side. Removed on drop
/// and on Ctrl-C.
struct Scratch {
    include: PathBuf,
    out_base: PathBuf,
    out_head: PathBuf,
    _dir: ScratchDir,
}

impl Scratch {
    fn create(bench_header: &str) -> Result<Scratch, GateError> {
        let dir = ScratchDir::new("rho-gate-")
            .map_err(|e| GateError::io("cannot create the gate's temporary directory", e))?;
        let include = dir.path().join("include");
        let header_dir = include.join("rho");
        let out_base = dir.path().join("out-base");
        let out_head = dir.path().join("out-head");
        for path in [&header_dir, &out_base, &out_head] {
            std::fs::create_dir_all(path)
                .map_err(|e| GateError::io(format!("cannot create {}", path.display()), e))?;
        }
        let header = header_dir.join("bench.h");
        std::fs::write(&header, bench_header)
            .map_err(|e| GateError::io(format!("cannot write {}", header.display()), e))?;
        Ok(Scratch {
            include,
            out_base,
            out_head,
            _dir: dir,
        })
    }

    /// A fresh build directory for job `job` of `side`.
    fn out(&self, side: SideName, job: usize) -> Result<PathBuf, GateError> {
        let dir = match side {
            SideName::Base => &self.out_base,
            SideName::Head => &self.out_head,
        }
        .join(format!("job{job}"));
        std::fs::create_dir_all(&dir)
            .map_err(|e| GateError::io(format!("cannot create {}", dir.display()), e))?;
        Ok(dir)
    }
}

/// One side during the gate.
struct Contender {
    described: String,
    prepared: PreparedSide,
    recipe: Recipe,
    runs: Vec<RunMetrics>,
    source: Option<MetricSource>,
}

/// Run the gate: resolve and prepare both sides, load each side's recipe with `load_recipe` (from its own
/// module.yml), build each once, run base, head, base, head... `settings.runs()` times each, and compare.
///
/// Every build and run is a `sh -c` in the side's module root, in a process group of its own, killed with
/// its whole group after the timeout. Any failure (no such side, a failed build, a crash, a non-zero exit, a
/// timeout, stdout without metrics) is an error: the gate cannot decide. Worktrees and temporary directories
/// are removed before this returns, whatever the outcome.
pub fn run_gate(
    request: &GateRequest,
    load_recipe: &dyn Fn(SideName, &Path) -> Result<Recipe, GateError>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<GateOutcome, GateError> {
    let start = Instant::now();
    // Both names are checked before anything is checked out, so a typo in --head costs nothing.
    let base_spec = SideSpec::resolve(SideName::Base, &request.base, &request.cwd)?;
    let head_spec = SideSpec::resolve(SideName::Head, &request.head, &request.cwd)?;

    let prepare = |name: SideName, spec: SideSpec, progress: &mut dyn FnMut(&Progress)| {
        let described = spec.describe();
        let prepared = PreparedSide::prepare(name, spec, &request.cwd)?;
        progress(&Progress::Prepared {
            side: name,
            describe: described.clone(),
            module_root: prepared.module_root.clone(),
        });
        let recipe = load_recipe(name, &prepared.module_root)?;
        Ok::<_, GateError>(Contender {
            described,
            prepared,
            recipe,
            runs: Vec::new(),
            source: None,
        })
    };
    let base = prepare(SideName::Base, base_spec, progress)?;
    let head = prepare(SideName::Head, head_spec, progress)?;
    let mut sides = [base, head];

    let scratch = Scratch::create(&request.bench_header)?;
    let timeout = request.settings.timeout();

    let environment = request.env.environment();
    build_sides(&sides, &environment, &scratch, timeout, progress)?;

    let counter = request.env.counter.as_ref();
    let runs = if counter.is_some() {
        1
    } else {
        request.settings.runs()
    };
    for run in 1..=runs {
        // Alternate, so drift during the gate (a thermal throttle, a background job) hits both sides alike.
        for side in &mut sides {
            let name = side.prepared.name;
            let what = format!("run {run} of {runs}");
            let mut metrics = RunMetrics::new();
            let mut elapsed = Duration::ZERO;
            for (index, job) in side.recipe.jobs.iter().enumerate() {
                let out = scratch.out(name, index)?;
                let counted;
                let command = match counter {
                    Some(Counter::Callgrind(valgrind)) => {
                        let dumps = out.join(CALLGRIND_DUMPS);
                        counted = counted_command(valgrind, &dumps, &job.run).map_err(|e| {
                            GateError::io(format!("cannot prepare {}", dumps.display()), e)
                        })?;
                        counted.as_str()
                    }
                    Some(Counter::QemuPlugin) => {
                        // No totals left from an earlier run can be read as this one's.
                        let totals = out.join(rho_wire::qemu_counts::TOTALS_FILE);
                        if totals.exists() {
                            std::fs::remove_file(&totals).map_err(|e| {
                                GateError::io(format!("cannot remove {}", totals.display()), e)
                            })?;
                        }
                        job.run.as_str()
                    }
                    None => job.run.as_str(),
                };
                let shell = Shell {
                    side: name,
                    command,
                    dir: &side.prepared.module_root,
                    env: &environment,
                    job_env: &job.env,
                    include: &scratch.include,
                    out: &out,
                    timeout,
                };
                let (took, stdout) = shell.run(&what)?;
                elapsed += took;
                let finished = match counter {
                    Some(counter) => stdout.finish_counted(counter, &out),
                    None => stdout.finish(),
                };
                let (source, job_metrics) = finished.map_err(|error| GateError::Metrics {
                    side: name,
                    run,
                    command: job.run.clone(),
                    error,
                })?;
                side.source.get_or_insert(source);
                let mut job_metrics = job_metrics;
                add_static_metrics(&mut job_metrics, &job.static_metrics);
                merge_metrics(&mut metrics, job_metrics, &job.what);
            }
            progress(&Progress::Ran {
                side: name,
                run,
                of: runs,
                elapsed,
                source: side.source.unwrap_or(MetricSource::JsonLine),
            });
            side.runs.push(metrics);
        }
    }

    let [base, head] = sides;
    let comparison = compare(&base.runs, &head.runs, request.settings.budgets());
    // Scratch and worktrees go here, before the outcome is handed back.
    drop(scratch);
    let (base_source, head_source) = (
        base.source.unwrap_or(MetricSource::JsonLine),
        head.source.unwrap_or(MetricSource::JsonLine),
    );
    Ok(GateOutcome {
        comparison,
        base_runs: base.runs,
        head_runs: head.runs,
        base_source,
        head_source,
        base_described: base.described,
        head_described: head.described,
        base_recipe: base.recipe,
        head_recipe: head.recipe,
        elapsed: start.elapsed(),
    })
}

/// Build each side's jobs once, in the side's module root (a job rho built already has no build); a side
/// with nothing to build or run is an error.
fn build_sides(
    sides: &[Contender],
    environment: &[(String, String)],
    scratch: &Scratch,
    timeout: Duration,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(), GateError> {
    for side in sides {
        let name = side.prepared.name;
        if side.recipe.jobs.is_empty() {
            return Err(GateError::Recipe {
                side: name,
                message: format!(
                    "target `{}` of {} has nothing to build or run",
                    side.recipe.target,
                    side.recipe.file.display()
                ),
            });
        }
        for (index, job) in side.recipe.jobs.iter().enumerate() {
            let Some(build) = &job.build else {
                continue;
            };
            progress(&Progress::Building {
                side: name,
                command: build.clone(),
            });
            let shell = Shell {
                side: name,
                command: build,
                dir: &side.prepared.module_root,
                env: environment,
                job_env: &job.env,
                include: &scratch.include,
                out: &scratch.out(name, index)?,
                timeout,
            };
            let (elapsed, _stdout) = shell.run("build")?;
            progress(&Progress::Built {
                side: name,
                elapsed,
            });
        }
    }
    Ok(())
}

/// Add the image's figures of each benchmark the run reported (one with a metric named `<bench>.`...).
fn add_static_metrics(metrics: &mut RunMetrics, statics: &[(String, String, u64)]) {
    for (bench, metric, value) in statics {
        let prefix = format!("{bench}.");
        if metrics.keys().any(|k| k.starts_with(&prefix)) {
            metrics.insert(format!("{bench}.{metric}"), Figure::Value(*value as f64));
        }
    }
}

/// Add one job's metrics to a run's. A metric two suites both report cannot be told apart, so it becomes
/// unusable rather than silently one or the other.
fn merge_metrics(into: &mut RunMetrics, mut job_metrics: RunMetrics, what: &str) {
    for (bench, functions) in job_metrics.take_functions() {
        into.set_functions(&bench, functions);
    }
    let floors: Vec<(String, f64)> = job_metrics
        .keys()
        .map(|name| (name.clone(), job_metrics.floor(name)))
        .filter(|(_, floor)| *floor > 0.0)
        .collect();
    for (name, floor) in floors {
        into.set_floor(&name, floor);
    }
    for (name, figure) in job_metrics {
        if into.get(&name).is_some() {
            let why = format!("reported by more than one suite (also by {what})");
            into.insert(name, Figure::Unusable(why));
        } else {
            into.insert(name, figure);
        }
    }
}

/// `run` (a shell command) under Callgrind, counting: Valgrind follows the shell into the suite it starts
/// (`--trace-children=yes`), each process writes its dumps as `DIR/callgrind.out.PID.K`, and the one that
/// wrote numbered dumps is the suite. `dumps` is emptied first, so each run reads only its own.
fn counted_command(valgrind: &Path, dumps: &Path, run: &str) -> std::io::Result<String> {
    if dumps.exists() {
        std::fs::remove_dir_all(dumps)?;
    }
    std::fs::create_dir_all(dumps)?;
    let quote = |text: &str| format!("'{}'", text.replace('\'', "'\\''"));
    let out_file = dumps.join(format!("{}.%p", rho_wire::callgrind::DUMP_STEM));
    Ok(format!(
        "RHO_BENCH_MEASURE=instructions exec {} {} --trace-children=yes --callgrind-out-file={} sh -c {}",
        quote(&valgrind.display().to_string()),
        rho_wire::callgrind::CALLGRIND_OPTIONS.join(" "),
        quote(&out_file.display().to_string()),
        quote(run)
    ))
}

/// One build or run of one job of one side.
struct Shell<'a> {
    side: SideName,
    command: &'a str,
    dir: &'a Path,
    env: &'a [(String, String)],
    job_env: &'a [(String, String)],
    include: &'a Path,
    out: &'a Path,
    timeout: Duration,
}

impl Shell<'_> {
    /// Run it; its wall time and what its stdout holds of metrics (read as it arrives: see [`StdoutMetrics`]),
    /// or an error that says what failed and quotes the end of its stderr. `what` is `build` or `run 2 of 3`.
    fn run(&self, what: &str) -> Result<(Duration, StdoutMetrics), GateError> {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(self.command)
            .current_dir(self.dir)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .envs(self.job_env.iter().map(|(k, v)| (k, v)))
            .env("RHO_BENCH_INCLUDE", self.include)
            .env("RHO_BENCH_OUT", self.out);
        let failure = |how: String, stderr: &str| {
            GateError::Command(Box::new(CommandFailure {
                side: self.side,
                what: what.to_owned(),
                command: self.command.to_owned(),
                dir: self.dir.to_owned(),
                how,
                stderr: stderr_tail(stderr),
            }))
        };
        if !self.dir.is_dir() {
            return Err(failure(
                "cannot run: the module root does not exist on this side".to_owned(),
                "",
            ));
        }
        let mut stdout = StdoutMetrics::new();
        let finished = Runner::new(command)
            .timeout(self.timeout)
            .run_bytes(|line| {
                stdout.line(line);
                LineControl::Continue
            })
            .map_err(|error| failure(format!("could not start: {error}"), ""))?;
        if !finished.termination.success() {
            // Said as `rho bench` says it: the crash a shell reports as 139, and the benchmark it was in.
            let how = format!(
                "{}{}",
                finished.termination.through_shell(),
                stdout.whereabouts()
            );
            return Err(failure(how, &finished.stderr));
        }
        Ok((finished.elapsed, stdout))
    }
}

/// The last lines of `stderr`, indented under the error message; empty when there was none.
fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let skip = lines.len().saturating_sub(STDERR_TAIL_LINES);
    let mut out = String::from("; the end of its stderr:");
    for line in &lines[skip..] {
        out.push_str("\n  | ");
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stderr_tail_keeps_the_last_lines() {
        let stderr: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let tail = stderr_tail(&stderr);
        assert!(tail.contains("line 30") && tail.contains("line 19"));
        assert!(!tail.contains("line 18\n"));
        assert_eq!(stderr_tail("\n\n"), "");
    }

    #[test]
    fn a_metric_two_suites_report_is_unusable() {
        let mut run = RunMetrics::new();
        let one: RunMetrics = [("a.ns".to_owned(), Figure::Value(1.0))]
            .into_iter()
            .collect();
        let two: RunMetrics = [
            ("a.ns".to_owned(), Figure::Value(2.0)),
            ("b.ns".to_owned(), Figure::Value(3.0)),
        ]
        .into_iter()
        .collect();
        merge_metrics(&mut run, one, "one.c");
        merge_metrics(&mut run, two, "two.c");
        assert!(matches!(&run["a.ns"], Figure::Unusable(why) if why.contains("two.c")));
        assert_eq!(run["b.ns"], Figure::Value(3.0));
    }
}
