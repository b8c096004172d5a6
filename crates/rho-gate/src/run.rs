//! The gate itself: prepare both sides, build each once, run them alternately, compare.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rho_exec::Runner;
use rho_exec::interrupt::{self, CleanupGuard};

use crate::compare::{Comparison, compare};
use crate::error::{CommandFailure, GateError, SideName};
use crate::metrics::{MetricSource, RunMetrics, metrics_from_stdout};
use crate::settings::GateSettings;
use crate::side::{PreparedSide, SideSpec};

/// How many trailing stderr lines a failure message quotes.
const STDERR_TAIL_LINES: usize = 12;

/// How one side is built and run: shell commands run with `sh -c` in the side's module root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    /// The target's name, for messages.
    pub target: String,
    /// Run once before the runs; `None` when the target needs no build.
    pub build: Option<String>,
    /// Run `runs` times; its stdout carries the metrics.
    pub run: String,
    /// The module.yml the recipe came from, for messages.
    pub file: PathBuf,
}

/// The harness settings handed to every build and run through the environment. `None` leaves the variable
/// as `rho`'s own environment has it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BenchEnv {
    /// `RHO_BENCH_ITERATIONS`.
    pub iterations: Option<u64>,
    /// `RHO_BENCH_WARMUP`.
    pub warmup: Option<u64>,
    /// `RHO_BENCH_SCALE`.
    pub scale: Option<f64>,
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
    // Declared before `dir`: unregister the cleanup, then remove the directory.
    _cleanup: CleanupGuard,
    _dir: tempfile::TempDir,
}

impl Scratch {
    fn create(bench_header: &str) -> Result<Scratch, GateError> {
        let dir = tempfile::Builder::new()
            .prefix("rho-gate-")
            .tempdir()
            .map_err(|e| GateError::io("cannot create the gate's temporary directory", e))?;
        let cleanup = {
            let path = dir.path().to_owned();
            interrupt::on_interrupt(move || {
                let _ = std::fs::remove_dir_all(&path);
            })
        };
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
            _cleanup: cleanup,
            _dir: dir,
        })
    }

    fn out(&self, side: SideName) -> &Path {
        match side {
            SideName::Base => &self.out_base,
            SideName::Head => &self.out_head,
        }
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

    for side in &sides {
        let Some(build) = &side.recipe.build else {
            continue;
        };
        let name = side.prepared.name;
        progress(&Progress::Building {
            side: name,
            command: build.clone(),
        });
        let (elapsed, _stdout) = run_command(
            name,
            "build",
            build,
            &side.prepared.module_root,
            &request.env,
            &scratch,
            timeout,
        )?;
        progress(&Progress::Built {
            side: name,
            elapsed,
        });
    }

    let runs = request.settings.runs();
    for run in 1..=runs {
        // Alternate, so drift during the gate (a thermal throttle, a background job) hits both sides alike.
        for side in &mut sides {
            let name = side.prepared.name;
            let what = format!("run {run} of {runs}");
            let (elapsed, stdout) = run_command(
                name,
                &what,
                &side.recipe.run,
                &side.prepared.module_root,
                &request.env,
                &scratch,
                timeout,
            )?;
            let (source, metrics) =
                metrics_from_stdout(&stdout).map_err(|source| GateError::Metrics {
                    side: name,
                    run,
                    command: side.recipe.run.clone(),
                    source,
                })?;
            progress(&Progress::Ran {
                side: name,
                run,
                of: runs,
                elapsed,
                source,
            });
            side.source.get_or_insert(source);
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

/// Run one build or run of `side`; its wall time and stdout, or an error that says what failed and quotes
/// the end of its stderr.
fn run_command(
    side: SideName,
    what: &str,
    shell_command: &str,
    dir: &Path,
    env: &BenchEnv,
    scratch: &Scratch,
    timeout: Duration,
) -> Result<(Duration, String), GateError> {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(shell_command)
        .current_dir(dir)
        .env("RHO_BENCH_INCLUDE", &scratch.include)
        .env("RHO_BENCH_OUT", scratch.out(side));
    if let Some(iterations) = env.iterations {
        command.env("RHO_BENCH_ITERATIONS", iterations.to_string());
    }
    if let Some(warmup) = env.warmup {
        command.env("RHO_BENCH_WARMUP", warmup.to_string());
    }
    if let Some(scale) = env.scale {
        command.env("RHO_BENCH_SCALE", scale.to_string());
    }
    let failure = |how: String, stderr: &str| {
        GateError::Command(Box::new(CommandFailure {
            side,
            what: what.to_owned(),
            command: shell_command.to_owned(),
            dir: dir.to_owned(),
            how,
            stderr: stderr_tail(stderr),
        }))
    };
    if !dir.is_dir() {
        return Err(failure(
            "cannot run: the module root does not exist on this side".to_owned(),
            "",
        ));
    }
    let (finished, stdout) = Runner::new(command)
        .timeout(timeout)
        .run_collect()
        .map_err(|error| failure(format!("could not start: {error}"), ""))?;
    if !finished.termination.success() {
        return Err(failure(finished.termination.to_string(), &finished.stderr));
    }
    Ok((finished.elapsed, stdout))
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
}
