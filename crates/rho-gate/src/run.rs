//! The gate itself: prepare both sides, build each once, run them alternately, compare.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::adaptive::{Settling, filter_for, wire_benchmark};
use crate::compare::{Comparison, MetricOutcome, compare};
use crate::error::{GateError, SideName};
use crate::head_cap::HeadTimeCap;
use crate::metrics::{CALLGRIND_DUMPS, Counter, Figure, MetricSource, RunMetrics};
pub use crate::progress::Progress;
pub use crate::recipe::{Job, Recipe};
use crate::settings::GateSettings;
use crate::shell::{Launch, Scratch, Shell};
use crate::side::{PreparedSide, SideSpec};

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
    /// The compile cache's program, ccache (a name looked up on `PATH`, or a path): the builds' compilers run
    /// through it (crate::ccache; `rho` passes `ccache`). `None`, or the cache off (`--no-cache`), runs the
    /// compilers directly; a ccache that is not installed is said once in the progress.
    pub compiler_cache: Option<PathBuf>,
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
    /// Head's time cap, when adaptive runs lowered it from base's first run (crate::head_cap).
    pub head_time_cap: Option<HeadTimeCap>,
    /// Wall time from the start to the verdict, builds included.
    pub elapsed: Duration,
    /// How many turns the lock-step rounds gave while the other side waited (crate::lockstep): 0 when no
    /// round ran both sides at once (lock-step off, the default; a last-line JSON program takes no turns; counting).
    pub lock_step_turns: u64,
    /// The benchmark each metric is of, either side's (a wire metric's is what precedes its last `.`, a JSON
    /// line's the metric itself): what a share is cut by (crate::shard), recorded in its document so that
    /// `rho bench merge` checks the partition.
    pub benchmark_of: BTreeMap<String, String>,
}

/// One side during the gate.
struct Contender {
    described: String,
    prepared: PreparedSide,
    recipe: Recipe,
    runs: Vec<RunMetrics>,
    source: Option<MetricSource>,
    /// Per job, where its metrics came from and the benchmarks it reported in the first run: what a later
    /// run of it can be narrowed to.
    job_benchmarks: Vec<(MetricSource, BTreeSet<String>)>,
    /// The benchmark each metric belongs to: a wire stream's `bench.metric` is `bench`'s; a JSON line's
    /// metric is a benchmark of its own (its job cannot run part of it).
    benchmark_of: BTreeMap<String, String>,
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
            job_benchmarks: Vec::new(),
            benchmark_of: BTreeMap::new(),
        })
    };
    let base = prepare(SideName::Base, base_spec, progress)?;
    let head = prepare(SideName::Head, head_spec, progress)?;
    let mut sides = [base, head];

    let mut scratch = Scratch::create(&request.bench_header)?;
    let timeout = request.settings.timeout();
    // With the cache on, the harness header has the same path in every gate: ccache's keys name it.
    if request.settings.cache()
        && let Ok(Some(include)) =
            crate::ccache::stable_include(&request.cwd, &request.bench_header)
    {
        scratch.include = include;
    }
    let compilers = match &request.compiler_cache {
        Some(ccache) if request.settings.cache() => {
            crate::ccache::CompileCache::create(ccache, &scratch)
        }
        _ => crate::ccache::CompileCache::Off,
    };

    let environment = request.env.environment();
    let context = crate::build::BuildContext {
        environment: &environment,
        scratch: &scratch,
        timeout,
        bench_header: &request.bench_header,
        counting: request.env.counter.is_some(),
        cwd: &request.cwd,
        cache: request.settings.cache(),
        verify: request.settings.verify_cache(),
        compilers: &compilers,
    };
    let building = sides.each_ref().map(|side| crate::build::BuildSide {
        prepared: &side.prepared,
        recipe: &side.recipe,
    });
    crate::build::build_sides(&building, &context, request.settings.build_jobs(), progress)?;

    let pairs = Pairs {
        request,
        environment: &environment,
        scratch: &scratch,
        timeout,
        turns: std::sync::atomic::AtomicU64::new(0),
        lock_step_rounds: std::sync::atomic::AtomicUsize::new(0),
    };
    let head_time_cap = pairs.run_all(&mut sides, progress)?;
    let pairs_turns = pairs.turns.into_inner();

    let [base, head] = sides;
    let comparison = compare(&base.runs, &head.runs, request.settings.budgets());
    let mut benchmark_of = base.benchmark_of;
    benchmark_of.extend(head.benchmark_of);
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
        head_time_cap,
        elapsed: start.elapsed(),
        lock_step_turns: pairs_turns,
        benchmark_of,
    })
}

/// The alternating runs of a gate, once both sides are built.
struct Pairs<'a> {
    request: &'a GateRequest,
    environment: &'a [(String, String)],
    scratch: &'a Scratch,
    timeout: Duration,
    /// The turns the lock-step rounds gave so far (crate::lockstep).
    turns: std::sync::atomic::AtomicU64,
    /// The lock-step run pairs so far: which CPU the next is held to.
    lock_step_rounds: std::sync::atomic::AtomicUsize,
}

impl Pairs<'_> {
    /// Run base, head, base, head...: with `max_runs` above `runs` (adaptive runs), after each pair only the
    /// benchmarks whose verdict is still open (crate::adaptive) run again, up to `max_runs` per side; without
    /// it every benchmark runs `runs` times. Counting instructions, each side runs once (a count is exact).
    /// Adaptive, head's runs get a time cap derived from base's first run when that is lower than the
    /// module's (crate::head_cap), which this returns.
    fn run_all(
        &self,
        sides: &mut [Contender; 2],
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Option<HeadTimeCap>, GateError> {
        let settings = &self.request.settings;
        let (min_runs, max_runs) = match self.request.env.counter {
            Some(_) => (1, 1),
            None => (settings.runs(), settings.max_runs()),
        };
        let adaptive = max_runs > min_runs;
        let mut open = self.listed_share(sides)?;
        let mut head_cap: Option<HeadTimeCap> = None;
        for run in 1..=max_runs {
            // `run 1 of 3` up to `runs`, then `run 4 of 20` (the ceiling): the runs a gate is expected to take,
            // then the most it may.
            let of = if run <= min_runs { min_runs } else { max_runs };
            if run > 1 && adaptive {
                if let Some(metric) = self.failed_after_runs(sides) {
                    progress(&Progress::Note(format!(
                        "{metric} regressed, settled after {} runs per side: the gate fails, and the \
                         metrics still open are judged on the runs they had",
                        run - 1
                    )));
                    break;
                }
                let Some(still_open) = self.still_open(sides) else {
                    break;
                };
                progress(&Progress::StillOpen {
                    after: run - 1,
                    open: still_open.iter().cloned().collect(),
                });
                open = Some(still_open);
            }
            let [base, head] = sides;
            if run > 1 && by_benchmark(base, head) {
                // The fixed gate's rounds (no benchmark settled) go benchmark by benchmark too.
                let every = || self.every_benchmark(base, head);
                let round = open.clone().unwrap_or_else(every);
                self.run_round_by_benchmark([base, head], run, of, &round, head_cap, progress)?;
                continue;
            }
            // Alternate, so drift during the gate (a thermal throttle, a background job) hits both sides
            // alike; from the second round on head goes first every other round, so neither side is always
            // the one that runs after a pause. With `--lock-step`, both at once, taking turns (crate::lockstep);
            // but the first round of an adaptive gate runs base first, its longest benchmark lowering head's
            // time cap (crate::head_cap) before head's first run, which a head many times slower runs into.
            let head_first = run > 1 && run % 2 == 0;
            let cap_from_base = run == 1 && adaptive && settings.lower_head_cap();
            if run > 1 || (!cap_from_base && self.lock_step_applies(base, head)) {
                let cap_env = cap_environment(head_cap);
                let [b, h] = self.measure_both(
                    base,
                    head,
                    run,
                    of,
                    open.as_ref(),
                    &cap_env,
                    head_first,
                    progress,
                )?;
                base.runs.push(b);
                head.runs.push(h);
                continue;
            }
            self.run_side(base, run, of, open.as_ref(), &[], progress)?;
            if run == 1 && adaptive && settings.lower_head_cap() {
                // Base ran every benchmark in its first run: its longest is the one to scale.
                head_cap = base
                    .runs
                    .first()
                    .and_then(|r| HeadTimeCap::derive(r.time_cap()));
                if let Some(cap) = head_cap {
                    progress(&Progress::HeadTimeCap(cap));
                }
            }
            let cap_env = cap_environment(head_cap);
            self.run_side(head, run, of, open.as_ref(), &cap_env, progress)?;
        }
        Ok(head_cap)
    }

    /// One round benchmark by benchmark: each open benchmark runs alone (`RHO_BENCH_FILTER`) on one side and
    /// at once on the other, the side going first taking turns, so the two figures of a round are measured
    /// moments apart and what the machine's load does to one it does to the other (docs/gate.md, "Paired
    /// rounds"). Each side's figures of the round are one run of it, as a whole-suite run's would be.
    fn run_round_by_benchmark(
        &self,
        sides: [&mut Contender; 2],
        run: u32,
        runs: u32,
        open: &BTreeSet<String>,
        head_cap: Option<HeadTimeCap>,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(), GateError> {
        let [base, head] = sides;
        let cap_env = cap_environment(head_cap);
        let mut rounds = [RunMetrics::new(), RunMetrics::new()];
        for (index, benchmark) in open.iter().enumerate() {
            let alone = BTreeSet::from([benchmark.clone()]);
            let head_first = (run as usize + index) % 2 == 0;
            let measured = self.measure_both(
                base,
                head,
                run,
                runs,
                Some(&alone),
                &cap_env,
                head_first,
                progress,
            )?;
            for (slot, metrics) in measured.into_iter().enumerate() {
                merge_metrics(&mut rounds[slot], metrics, benchmark);
            }
        }
        for (side, mut metrics) in [base, head].into_iter().zip(rounds) {
            for (metric, benchmark) in &side.benchmark_of {
                if !open.contains(benchmark) {
                    metrics.leave_out(metric);
                }
            }
            side.runs.push(metrics);
        }
        Ok(())
    }

    /// Every benchmark either side's first run reported (of a sharded gate, the share's).
    fn every_benchmark(&self, base: &Contender, head: &Contender) -> BTreeSet<String> {
        let shard = self.request.settings.shard();
        [base, head]
            .iter()
            .flat_map(|side| side.job_benchmarks.iter().flat_map(|(_, b)| b))
            .filter(|b| shard.is_none_or(|shard| shard.holds(b)))
            .cloned()
            .collect()
    }

    /// A metric whose regression is settled, once each side has had the `runs` a time metric needs before it
    /// may fail: the gate fails whatever the metrics still open would come to, so it stops there (docs/gate.md,
    /// "A failed gate stops"). Before `runs`, every metric still gets the rounds a fixed gate gives it.
    fn failed_after_runs(&self, sides: &[Contender; 2]) -> Option<String> {
        let settings = &self.request.settings;
        let rounds = sides[0].runs.len().min(sides[1].runs.len());
        if rounds < settings.runs() as usize {
            return None;
        }
        let comparison = compare(&sides[0].runs, &sides[1].runs, settings.budgets());
        let settling = Settling {
            runs_to_fail: settings.runs() as usize,
            base_runs: &sides[0].runs,
            head_runs: &sides[1].runs,
        };
        comparison
            .metrics
            .iter()
            .find(|m| m.outcome == MetricOutcome::Regressed && settling.is_settled(m))
            .map(|m| m.name.clone())
    }

    /// The benchmarks whose verdict more runs could still change, after the pairs run so far; `None` when
    /// every one is settled.
    fn still_open(&self, sides: &[Contender; 2]) -> Option<BTreeSet<String>> {
        let settings = &self.request.settings;
        let comparison = compare(&sides[0].runs, &sides[1].runs, settings.budgets());
        let mut benchmark_of = sides[0].benchmark_of.clone();
        benchmark_of.extend(sides[1].benchmark_of.clone());
        let settling = Settling {
            runs_to_fail: settings.runs() as usize,
            base_runs: &sides[0].runs,
            head_runs: &sides[1].runs,
        };
        let still_open = settling.open_benchmarks(&comparison, &benchmark_of);
        (!still_open.is_empty()).then_some(still_open)
    }

    /// One run of one side: each job in turn (`open`: only the jobs, and of a wire stream the benchmarks, whose
    /// verdict is open), with `extra_env` after each job's own (head's lowered time cap), the metrics of all
    /// of them the run's.
    fn run_side(
        &self,
        side: &mut Contender,
        run: u32,
        runs: u32,
        open: Option<&BTreeSet<String>>,
        extra_env: &[(String, String)],
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(), GateError> {
        let metrics = self.measure_side(side, run, runs, open, extra_env, progress)?;
        side.runs.push(metrics);
        Ok(())
    }

    /// [`Pairs::run_side`]'s measurement, the run's metrics handed back rather than added to the side's runs.
    fn measure_side(
        &self,
        side: &mut Contender,
        run: u32,
        runs: u32,
        open: Option<&BTreeSet<String>>,
        extra_env: &[(String, String)],
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<RunMetrics, GateError> {
        let what = format!("run {run} of {runs}");
        let mut ran = Vec::with_capacity(side.recipe.jobs.len());
        for index in 0..side.recipe.jobs.len() {
            let Some(job_env) = self.job_env(side, index, open, extra_env) else {
                continue;
            };
            let job = &side.recipe.jobs[index];
            ran.push((
                index,
                self.run_job(side, index, job, &job_env, run, &what, None)?,
            ));
        }
        Ok(self.conclude_run(side, run, runs, open, ran, progress))
    }

    /// Whether both sides' runs go at once, taking turns: lock-step was asked for (`--lock-step`), the gate
    /// times (it does not count), and each side is one job (a suite of several jobs runs them one after
    /// another).
    fn lock_step_applies(&self, base: &Contender, head: &Contender) -> bool {
        self.request.settings.lock_step()
            && self.request.env.counter.is_none()
            && base.recipe.jobs.len() == 1
            && head.recipe.jobs.len() == 1
    }

    /// Both sides' runs of a round, `[base, head]`: at once, taking turns (crate::lockstep), when both are one
    /// job that runs this round and the gate times (`--lock-step` given); otherwise one after the
    /// other, head first when `head_first`. `head_env` is added to head's jobs' environment (its lowered
    /// time cap).
    #[allow(clippy::too_many_arguments)]
    fn measure_both(
        &self,
        base: &mut Contender,
        head: &mut Contender,
        run: u32,
        runs: u32,
        open: Option<&BTreeSet<String>>,
        head_env: &[(String, String)],
        head_first: bool,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<[RunMetrics; 2], GateError> {
        let envs = match self.lock_step_applies(base, head) {
            true => (
                self.job_env(base, 0, open, &[]),
                self.job_env(head, 0, open, head_env),
            ),
            false => (None, None),
        };
        let (Some(base_env), Some(head_env_full)) = envs else {
            if head_first {
                let h = self.measure_side(head, run, runs, open, head_env, progress)?;
                let b = self.measure_side(base, run, runs, open, &[], progress)?;
                return Ok([b, h]);
            }
            let b = self.measure_side(base, run, runs, open, &[], progress)?;
            let h = self.measure_side(head, run, runs, open, head_env, progress)?;
            return Ok([b, h]);
        };
        let round = self
            .lock_step_rounds
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let turns = crate::lockstep::Turns::new(round)
            .map_err(|e| GateError::io("cannot make the pipes of a lock-step round", e))?;
        let first = usize::from(head_first);
        let what = format!("run {run} of {runs}");
        let (base_ran, head_ran) = {
            let (base, head) = (&*base, &*head);
            let turns = &turns;
            let what = what.as_str();
            std::thread::scope(|scope| {
                // The side going second never waits for a start that a panic here would leave ungiven.
                let _release = turns.release_on_drop();
                let sides: [&Contender; 2] = [base, head];
                let threads: Vec<_> = [base_env, head_env_full]
                    .into_iter()
                    .enumerate()
                    .map(|(index, env)| {
                        let side = sides[index];
                        scope.spawn(move || {
                            // The arbiter waits for the run's end, which this says however the run ends.
                            let _ending = turns.end_on_drop(index);
                            if index != first {
                                turns.wait_to_start();
                            }
                            let job = &side.recipe.jobs[0];
                            self.run_job(side, 0, job, &env, run, what, Some((turns, index)))
                        })
                    })
                    .collect();
                let given = turns.arbitrate(first);
                self.turns
                    .fetch_add(given, std::sync::atomic::Ordering::Relaxed);
                let mut results = threads.into_iter().map(|thread| {
                    thread
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                });
                (results.next(), results.next())
            })
        };
        // A side that failed is to blame; the other, which went on by itself, is not (crate::lockstep).
        let missing = || {
            GateError::io(
                "a lock-step round",
                std::io::Error::other("a side's thread is missing"),
            )
        };
        let (base_ran, head_ran) = (
            base_ran.ok_or_else(missing)??,
            head_ran.ok_or_else(missing)??,
        );
        let b = self.conclude_run(base, run, runs, open, vec![(0, base_ran)], progress);
        let h = self.conclude_run(head, run, runs, open, vec![(0, head_ran)], progress);
        Ok([b, h])
    }

    /// Job `index` of `side`'s environment in this run: the round's length first (so a job's own environment
    /// may set another; one set in rho's own environment is left as it is), the job's own, `extra_env` and,
    /// narrowed to `open`, the filter of the benchmarks still open. `None` when none of the job's is open.
    fn job_env(
        &self,
        side: &Contender,
        index: usize,
        open: Option<&BTreeSet<String>>,
        extra_env: &[(String, String)],
    ) -> Option<Vec<(String, String)>> {
        let job = &side.recipe.jobs[index];
        let mut job_env = Vec::with_capacity(job.env.len() + extra_env.len() + 1);
        if self.request.env.counter.is_none() && std::env::var_os("RHO_BENCH_ROUND_MS").is_none() {
            job_env.push((
                "RHO_BENCH_ROUND_MS".to_owned(),
                crate::settings::ROUND_MS.to_string(),
            ));
        }
        job_env.extend_from_slice(&job.env);
        job_env.extend_from_slice(extra_env);
        if let (Some(open), Some((source, benchmarks))) = (open, side.job_benchmarks.get(index)) {
            let wanted: BTreeSet<String> = benchmarks.intersection(open).cloned().collect();
            if wanted.is_empty() {
                return None;
            }
            if *source == MetricSource::Wire
                && wanted != *benchmarks
                && let Some(filter) = filter_for(&wanted)
            {
                job_env.push(("RHO_BENCH_FILTER".to_owned(), filter));
            }
        }
        Some(job_env)
    }

    /// One run of `side` put together from its jobs' runs `ran` (job index, wall time, source, metrics): the
    /// benchmarks noted in the first run, the jobs' metrics merged, narrowed to the share and to `open`.
    fn conclude_run(
        &self,
        side: &mut Contender,
        run: u32,
        runs: u32,
        open: Option<&BTreeSet<String>>,
        ran: Vec<(usize, (Duration, MetricSource, RunMetrics))>,
        progress: &mut dyn FnMut(&Progress),
    ) -> RunMetrics {
        let name = side.prepared.name;
        let mut metrics = RunMetrics::new();
        let mut elapsed = Duration::ZERO;
        for (index, (took, source, job_metrics)) in ran {
            elapsed += took;
            side.source.get_or_insert(source);
            let job_what = side.recipe.jobs[index].what.clone();
            if run == 1 {
                side.record_benchmarks(index, source, &job_metrics);
            }
            merge_metrics(&mut metrics, job_metrics, &job_what);
        }
        if let Some(shard) = self.request.settings.shard() {
            shard.keep_own(&mut metrics, &side.benchmark_of);
        }
        if let Some(open) = open {
            // The settled benchmarks' metrics, run anyway (the harness's filter selects by substring, a JSON
            // line reports all), are left out: a run holds exactly what it was meant to measure.
            for (metric, benchmark) in &side.benchmark_of {
                if !open.contains(benchmark) {
                    metrics.leave_out(metric);
                }
            }
            metrics
                .time_cap_mut()
                .capped
                .retain(|b, _| open.contains(b));
        }
        progress(&Progress::Ran {
            side: name,
            run,
            of: runs,
            elapsed,
            source: side.source.unwrap_or(MetricSource::JsonLine),
        });
        metrics
    }

    /// A counted share (`--shard K/N` counting under Callgrind, where each side runs once): the benchmarks of
    /// every job of both sides, learnt by running each job once natively at the lowest scale (as `rho bench
    /// --list` does), and of them the share's, which the counted runs then run alone (through
    /// `RHO_BENCH_FILTER`, as adaptive runs do): so each share counts about 1/N of the benchmarks. `None`
    /// otherwise: the first run learns the benchmarks, running them all (docs/ci.md).
    fn listed_share(
        &self,
        sides: &mut [Contender; 2],
    ) -> Result<Option<BTreeSet<String>>, GateError> {
        let Some(shard) = self.request.settings.shard() else {
            return Ok(None);
        };
        if !matches!(self.request.env.counter, Some(Counter::Callgrind(_))) {
            return Ok(None);
        }
        let mut share = BTreeSet::new();
        for side in sides.iter_mut() {
            for index in 0..side.recipe.jobs.len() {
                let job = &side.recipe.jobs[index];
                let mut job_env = job.env.clone();
                job_env.extend(crate::shard::LISTING.map(|(k, v)| (k.to_owned(), v.to_owned())));
                let out = self.scratch.out(side.prepared.name, index)?;
                let shell = Shell {
                    side: side.prepared.name,
                    command: &job.run,
                    dir: &side.prepared.module_root,
                    env: self.environment,
                    job_env: &job_env,
                    include: &self.scratch.include,
                    out: &out,
                    timeout: self.timeout,
                };
                let (_, stdout) = shell.run("listing run")?;
                let (source, metrics) = stdout.finish().map_err(|error| GateError::Metrics {
                    side: side.prepared.name,
                    run: 0,
                    command: job.run.clone(),
                    error,
                })?;
                side.record_benchmarks(index, source, &metrics);
            }
            let benchmarks = side.job_benchmarks.iter().flat_map(|(_, b)| b);
            share.extend(benchmarks.filter(|b| shard.holds(b)).cloned());
        }
        Ok(Some(share))
    }

    /// One run of job `index` of `side`, with `job_env`: its wall time, where its metrics came from, and its
    /// metrics with the image's figures added.
    /// `lockstep`: the round's turns and this side's index in them (crate::lockstep), when both sides run at
    /// once: the run gets its pipes, and the time it waits for its turn is not counted against its timeout.
    #[allow(clippy::too_many_arguments)]
    fn run_job(
        &self,
        side: &Contender,
        index: usize,
        job: &Job,
        job_env: &[(String, String)],
        run: u32,
        what: &str,
        lockstep: Option<(&crate::lockstep::Turns, usize)>,
    ) -> Result<(Duration, MetricSource, RunMetrics), GateError> {
        let name = side.prepared.name;
        let counter = self.request.env.counter.as_ref();
        let out = self.scratch.out(name, index)?;
        let counted;
        let command = match counter {
            Some(Counter::Callgrind(valgrind)) => {
                let dumps = out.join(CALLGRIND_DUMPS);
                counted = counted_command(valgrind, &dumps, &job.run)
                    .map_err(|e| GateError::io(format!("cannot prepare {}", dumps.display()), e))?;
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
        let mut launch = Launch::default();
        let mut env_with_turns;
        let mut job_env = job_env;
        if let Some((turns, turn_side)) = lockstep {
            launch.keep_open = turns.child_fds(turn_side).to_vec();
            launch.paused = Some(turns.waited(turn_side));
            launch.cpu = turns.cpu();
            env_with_turns = job_env.to_vec();
            env_with_turns.push(turns.env(turn_side));
            job_env = &env_with_turns;
        }
        let shell = Shell {
            side: name,
            command,
            dir: &side.prepared.module_root,
            env: self.environment,
            job_env,
            include: &self.scratch.include,
            out: &out,
            timeout: self.timeout,
        };
        let (took, stdout) = shell.run_launched(what, &launch)?;
        let finished = match counter {
            Some(counter) => stdout.finish_counted(counter, &out),
            None => stdout.finish(),
        };
        let (source, mut job_metrics) = finished.map_err(|error| GateError::Metrics {
            side: name,
            run,
            command: job.run.clone(),
            error,
        })?;
        add_static_metrics(&mut job_metrics, &job.static_metrics);
        Ok((took, source, job_metrics))
    }
}

impl Contender {
    /// Note which benchmark each metric of job `index` is of, and the benchmarks the job reported (in its
    /// first run, or its listing run when there was one: [`Pairs::listed_share`]).
    fn record_benchmarks(&mut self, index: usize, source: MetricSource, metrics: &RunMetrics) {
        let mut benchmarks = BTreeSet::new();
        for metric in metrics.keys() {
            let benchmark = match source {
                MetricSource::Wire => wire_benchmark(metric),
                MetricSource::JsonLine => metric.as_str(),
            };
            benchmarks.insert(benchmark.to_owned());
            self.benchmark_of
                .insert(metric.clone(), benchmark.to_owned());
        }
        if self.job_benchmarks.len() == index {
            self.job_benchmarks.push((source, benchmarks));
        }
    }
}

/// Head's lowered time cap as the environment handed to its runs (none when it was not lowered).
fn cap_environment(head_cap: Option<HeadTimeCap>) -> Vec<(String, String)> {
    head_cap
        .iter()
        .map(|cap| ("RHO_BENCH_TIME_CAP_MS".to_owned(), cap.cap_ms.to_string()))
        .collect()
}

/// Whether a round can go benchmark by benchmark: every job of both sides is a wire stream (the harness runs
/// one benchmark by name); a last-line JSON job cannot run part of itself, so its rounds run whole suites.
fn by_benchmark(base: &Contender, head: &Contender) -> bool {
    [base, head].iter().all(|side| {
        !side.job_benchmarks.is_empty()
            && side
                .job_benchmarks
                .iter()
                .all(|(source, _)| *source == MetricSource::Wire)
    })
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
    into.time_cap_mut()
        .merge(std::mem::take(job_metrics.time_cap_mut()));
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
    // Another harness's rates stay rates in the run's metrics.
    for name in job_metrics.keys() {
        into.set_better(name, job_metrics.better(name));
    }
    let spreads: Vec<(String, f64)> = job_metrics
        .keys()
        .filter_map(|name| Some((name.clone(), job_metrics.within_run(name)?)))
        .collect();
    for (name, spread) in spreads {
        into.set_within_run(&name, spread);
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

#[cfg(test)]
mod tests {
    use super::*;

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
