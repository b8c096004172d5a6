//! `--measure instructions`: a host suite run under Valgrind's Callgrind, which counts the instructions each
//! measured loop executes, exactly, whatever else the machine is doing.
//!
//! The harness, finding itself under Valgrind with `RHO_BENCH_MEASURE=instructions`, reads no clock: it has
//! Callgrind collect each benchmark's whole measured loop and dump the totals under the benchmark's name, one
//! file per loop (`callgrind.out.K` in rho's scratch directory), and says in its stream which dump holds which
//! loop (`@count K iterations=N`, docs/wire-format.md). rho reads the dumps, checks each names its block, and
//! attaches the totals to the run; rho-stats takes the harness's share off (fitted from `.overhead`'s two
//! empty loops) and divides by the iterations.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Doing as _, Result, SuiteError};
use rho_stats::{CountedRun, RunSummary};
use rho_wire::Run;

use rho_exec::ScratchDir;

/// Measured iterations per benchmark when counting and neither `--iterations` nor module.yml says: a count
/// is exact, so a few iterations give the same figure as thousands, and Callgrind runs code some 50 times
/// slower than the machine.
pub const DEFAULT_ITERATIONS: u64 = 10;
/// Warm-ups when counting: one, so a first call's lazy set-up (a page fault, a PLT binding) is not counted.
pub const DEFAULT_WARMUP: u64 = 1;

/// The programs a counted command suite may run to build itself that Callgrind does not follow
/// (`--trace-children-skip` patterns, matched against the path run): they hold no harness.
/// (Build tools that run the suite, `make run` say, are followed: the suite is their child.)
const UNFOLLOWED: [&str; 10] = [
    "*/cc",
    "*/gcc",
    "*/g++",
    "*/c++",
    "*/clang",
    "*/cc1",
    "*/cc1plus",
    "*/as",
    "*/ld",
    "*/collect2",
];

/// What `--measure instructions` runs a suite under.
#[derive(Debug)]
pub struct Counter {
    valgrind: PathBuf,
    cache_sim: bool,
    /// How many functions each benchmark keeps (its dump's per-function costs, rho-profile); 0 keeps none.
    functions: usize,
}

impl Counter {
    /// Valgrind, found on the PATH; a clear error naming the package when it is not there.
    pub fn find(cache_sim: bool) -> Result<Counter> {
        let Some(valgrind) = crate::tools::find_on_path("valgrind") else {
            return Err(SuiteError::Unsupported(
                "--measure instructions runs the suite under Valgrind's Callgrind, and `valgrind` is not on the \
                 PATH: install it (Debian/Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind \
                 valgrind-devel)"
                    .to_string(),
            ));
        };
        Ok(Counter {
            valgrind,
            cache_sim,
            functions: rho_profile::net::DEFAULT_LIMIT,
        })
    }

    /// Keep each benchmark's top `limit` functions (`--functions N`); 0 keeps none and reads only the totals.
    pub fn keeping_functions(mut self, limit: usize) -> Counter {
        self.functions = limit;
        self
    }

    /// How many functions each benchmark keeps.
    pub fn functions(&self) -> usize {
        self.functions
    }

    /// The `valgrind` found.
    pub fn valgrind(&self) -> &Path {
        &self.valgrind
    }

    /// Run the shell command `command` (in `dir`, with `env`) under Callgrind, following it into the
    /// processes it starts (`--trace-children=yes`), and return the suite's run with every count's totals
    /// attached. Each process writes `callgrind.out.PID[.K]`; the one that wrote numbered dumps is the suite
    /// (the shell, and any tool around it, only collect nothing). Compilers and linkers a command suite runs
    /// to build itself are not followed: they count nothing and would run some 50 times slower.
    pub fn run_shell(
        &self,
        command: &str,
        env: &[(String, String)],
        dir: &Path,
        what: &str,
        timeout: std::time::Duration,
    ) -> Result<CountedRun> {
        let scratch = ScratchDir::new("rho-count-")
            .doing(|| "cannot create a directory for Callgrind's dumps".to_string())?;
        let mut valgrind = Command::new(&self.valgrind);
        valgrind
            .args(rho_wire::callgrind::CALLGRIND_OPTIONS)
            .arg("--trace-children=yes")
            .arg(format!("--trace-children-skip={}", UNFOLLOWED.join(",")))
            .arg(format!(
                "--callgrind-out-file={}",
                scratch
                    .path()
                    .join(format!("{}.%p", rho_wire::callgrind::DUMP_STEM))
                    .display()
            ))
            .arg(format!(
                "--cache-sim={}",
                if self.cache_sim { "yes" } else { "no" }
            ))
            .arg("sh")
            .arg("-c")
            .arg(command)
            .current_dir(dir)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("RHO_BENCH_MEASURE", "instructions");
        let run = crate::stream::run_stream(valgrind, what, timeout)?;
        if run.counter.is_none() {
            return Err(SuiteError::Run(format!(
                "the suite {what} ran under Callgrind but counted nothing: the program it runs was built \
                 without Valgrind's headers (<valgrind/callgrind.h>; Debian/Ubuntu: apt-get install \
                 valgrind), or it is not a rho harness, so instructions are not measured"
            )));
        }
        let pid = rho_wire::callgrind::dumping_process(scratch.path())?;
        Ok(CountedRun::read_dumps(
            run,
            scratch.path(),
            Some(pid),
            self.functions > 0,
        )?)
    }

    /// Run `executable` (with `env`, in `dir` when given) under Callgrind and return its run with every
    /// count's totals attached (and its functions, when kept).
    ///
    /// Each benchmark is counted in a process of its own (`RHO_BENCH_FILTER=^NAME$`), so it starts from the
    /// same state whatever else the suite holds and whatever ran before it: a malloc-heavy benchmark's count no
    /// longer depends on the allocator's free lists another left behind, and `--filter`, `--shard` and the
    /// whole suite give the same figure. The names are the harness's listing (`RHO_BENCH_LIST`, with the run's
    /// own filter); each process runs `.overhead` too (the same count every time: the same state), and the
    /// first one's is kept. A name no filter term can hold (over 85 characters) counts the suite in one
    /// process, as before.
    pub fn run(
        &self,
        executable: &Path,
        env: &[(String, String)],
        dir: Option<&Path>,
        what: &str,
        timeout: std::time::Duration,
    ) -> Result<CountedRun> {
        let mut listing = Command::new(executable);
        listing.envs(env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = dir {
            listing.current_dir(dir);
        }
        let names = crate::listing::list_program(listing, what, timeout)?;
        let alone: Option<Vec<String>> = names
            .iter()
            .map(|name| crate::filter::exact_terms(&[name]))
            .collect();
        let Some(alone) = alone.filter(|_| names.len() >= 2) else {
            return self.run_process(executable, env, dir, what, timeout);
        };
        let runs = self.run_each(executable, env, dir, what, timeout, &alone)?;
        let mut merged: Option<CountedRun> = None;
        for (name, run) in names.iter().zip(runs) {
            merged = Some(take_benchmark(merged, run, name, what)?);
        }
        merged.ok_or_else(|| SuiteError::Run(format!("no benchmark of {what} to count")))
    }

    /// One process per filter of `filters` (`RHO_BENCH_FILTER`, one name each), as many at once as the machine has cores:
    /// a count is exact whatever runs beside it, and Valgrind's start-up, paid once per process, is most of a
    /// small benchmark's cost. The runs in the order of `filters`, or the first failure in that order (after a
    /// failure no process is started).
    fn run_each(
        &self,
        executable: &Path,
        env: &[(String, String)],
        dir: Option<&Path>,
        what: &str,
        timeout: std::time::Duration,
        filters: &[String],
    ) -> Result<Vec<CountedRun>> {
        use std::sync::Mutex;
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let workers = std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .clamp(1, filters.len().max(1));
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let slots: Vec<Mutex<Option<Result<CountedRun>>>> =
            filters.iter().map(|_| Mutex::new(None)).collect();
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    while !failed.load(Ordering::Relaxed) {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(filter) = filters.get(index) else {
                            break;
                        };
                        let mut alone: Vec<(String, String)> = env
                            .iter()
                            .filter(|(key, _)| key != FILTER_VARIABLE)
                            .cloned()
                            .collect();
                        alone.push((FILTER_VARIABLE.to_string(), filter.clone()));
                        let run = self.run_process(executable, &alone, dir, what, timeout);
                        failed.fetch_or(run.is_err(), Ordering::Relaxed);
                        if let Ok(mut slot) = slots[index].lock() {
                            *slot = Some(run);
                        }
                    }
                });
            }
        });
        // The first failure in the list's order; a name not started after it has no run and needs no word.
        let mut runs = Vec::with_capacity(filters.len());
        for slot in slots {
            match slot.into_inner().ok().flatten() {
                Some(run) => runs.push(run?),
                None => {
                    return Err(SuiteError::Run(format!(
                        "the suite {what}: a benchmark was left uncounted"
                    )));
                }
            }
        }
        Ok(runs)
    }

    /// [`Counter::run`]'s one process: `executable` under Callgrind, every count's totals attached (and its
    /// functions, when kept).
    fn run_process(
        &self,
        executable: &Path,
        env: &[(String, String)],
        dir: Option<&Path>,
        what: &str,
        timeout: std::time::Duration,
    ) -> Result<CountedRun> {
        let scratch = ScratchDir::new("rho-count-")
            .doing(|| "cannot create a directory for Callgrind's dumps".to_string())?;
        let mut command = Command::new(&self.valgrind);
        command
            .args(rho_wire::callgrind::CALLGRIND_OPTIONS)
            .arg(format!(
                "--callgrind-out-file={}",
                scratch
                    .path()
                    .join(rho_wire::callgrind::DUMP_STEM)
                    .display()
            ))
            .arg(format!(
                "--cache-sim={}",
                if self.cache_sim { "yes" } else { "no" }
            ))
            .arg(executable)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("RHO_BENCH_MEASURE", "instructions");
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        let run = crate::stream::run_stream(command, what, timeout)?;
        if run.counter.is_none() {
            return Err(SuiteError::Run(format!(
                "the suite {what} ran under Callgrind but counted nothing: its harness was built without \
                 Valgrind's headers (<valgrind/callgrind.h>; Debian/Ubuntu: apt-get install valgrind), so \
                 instructions are not measured"
            )));
        }
        Ok(CountedRun::read_dumps(
            run,
            scratch.path(),
            None,
            self.functions > 0,
        )?)
    }
}

/// The harness's selection of benchmarks (c/include/rho/bench.h, the rho-bench crate).
const FILTER_VARIABLE: &str = crate::filter::FILTER_VARIABLE;

/// `run`, the process that counted `name`, folded into `merged` (the runs so far): its `name` benchmark is
/// appended; the first run gives the rest (header, `.overhead`).
fn take_benchmark(
    merged: Option<CountedRun>,
    mut counted: CountedRun,
    name: &str,
    what: &str,
) -> Result<CountedRun> {
    let run = &mut counted.run;
    let Some(index) = run.benchmarks.iter().position(|b| b.name == name) else {
        return Err(SuiteError::Run(format!(
            "the suite {what} listed {name} but did not run it when counted alone (RHO_BENCH_FILTER=^{name}$)"
        )));
    };
    let mut bench = run.benchmarks.swap_remove(index);
    Ok(match merged {
        None => {
            run.benchmarks = vec![bench];
            counted
        }
        Some(mut merged) => {
            // Each process numbers its dumps from 1: the benchmark's counts take numbers after the merged
            // run's own, and their functions (kept by dump number) go with them.
            let mut next = merged
                .run
                .calibration
                .iter()
                .chain(&merged.run.benchmarks)
                .flat_map(|b| &b.counts)
                .map(|c| c.dump)
                .max()
                .unwrap_or(0);
            for count in &mut bench.counts {
                next += 1;
                if let Some(profile) = counted.profiles.take(count.dump) {
                    merged.profiles.insert(next, profile);
                }
                count.dump = next;
            }
            merged.run.benchmarks.push(bench);
            merged.run.dropped = merged.run.dropped.max(counted.run.dropped);
            merged.run.noise_lines += counted.run.noise_lines;
            merged
        }
    })
}

/// The harness's environment for a counted run: `env`, with this mode's own iterations and warm-ups unless
/// the command line set them (module.yml's `default_iterations`, `warmup_runs` and per-benchmark `iterations`
/// are sized for timing, which needs thousands of samples; a count needs a few).
pub fn environment(
    env: Vec<(String, String)>,
    iterations_set: bool,
    warmup_set: bool,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = env
        .into_iter()
        .filter(|(key, _)| {
            (iterations_set || !key.starts_with("RHO_BENCH_ITERATIONS"))
                && (warmup_set || key != "RHO_BENCH_WARMUP")
        })
        .collect();
    if !iterations_set {
        env.push((
            "RHO_BENCH_ITERATIONS".to_string(),
            DEFAULT_ITERATIONS.to_string(),
        ));
    }
    if !warmup_set {
        env.push(("RHO_BENCH_WARMUP".to_string(), DEFAULT_WARMUP.to_string()));
    }
    env
}

/// The summary of a measurement: the timed runs folded (best of N), the counted run's instructions joined to
/// them; or, counting only, the counted run's summary (its figures are exact: there is no best to take). A
/// counted run's benchmarks keep their first `functions` functions.
pub fn summarise(
    timed: &[Run],
    counted: Option<&CountedRun>,
    functions: usize,
    what: &str,
) -> Result<RunSummary> {
    let counted = counted
        .map(|run| {
            RunSummary::of_counted(run).map(|mut summary| {
                summary.limit_functions(functions);
                summary
            })
        })
        .transpose()
        .doing(|| format!("cannot summarise the counted run of {what}"))?;
    if timed.is_empty() {
        return counted.ok_or_else(|| SuiteError::Run(format!("no run of {what} to summarise")));
    }
    let mut summary = crate::fold::fold(timed, what)?;
    if let Some(counted) = &counted {
        join(&mut summary, counted);
    }
    // A built-in board's C suite is counted by rho's QEMU plugin (exact). A suite it cannot count there (a
    // cargo or cmake one) runs under QEMU `-icount shift=S` all the same: every instruction advances virtual
    // time by 2^S ns, so its counter's ticks give the instructions, within a tick (`qemu-icount`).
    if counted.is_none()
        && let Some(shift) = crate::ports::icount_shift(&summary.target.name)
    {
        summary.add_icount_instructions(shift);
    }
    Ok(summary)
}

/// `--measure time,instructions`: the counted run's instruction figures joined to the timed run's summary,
/// by benchmark name (the two runs are of the same build), with the stack and heap the counted run saw kept
/// beside them (a baseline's instructions section holds those, apart from the native marks).
pub fn join(timed: &mut RunSummary, counted: &RunSummary) {
    for bench in &mut timed.benchmarks {
        bench.instructions = counted.benchmark(&bench.name).and_then(|b| {
            let mut figures = b.instructions.clone()?;
            figures.counted_memory = Some(rho_stats::CountedMemory {
                stack: b.stack,
                heap_peak: b.heap.map(|h| h.peak),
            });
            Some(figures)
        });
    }
}
