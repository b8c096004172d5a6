//! The one way a module's suites are built and run: [`Engine`] takes a module (its module.yml), a target, a
//! measure and the run options, and runs each suite, returning its summary (its runs folded, best of N,
//! with the counted run's instructions joined) or a [`SuiteError`]. `rho bench`, `rho bench check` and the
//! gate's builds come here.
//!
//! Targets:
//! - `host` (built in): a C-file suite is compiled with the system compiler exactly as `rho bench FILE.c` does
//!   ([`crate::cfiles::build`]) and its executable run in the module root.
//! - a built-in board such as `mps2-an386`: the ports in `c/ports` (embedded) build the suite with the board's
//!   cross compiler and QEMU runs it; see [`crate::ports::builtin_commands`].
//! - a target with `build:` and `run:`: the two shell commands, run in the module root once per C-file suite,
//!   with the suite's files in `RHO_BENCH_SOURCES`. With no `suites:` they run once: the commands are the suite.
//!
//! A `{ command: ... }` suite is its own build and run on every target: `sh -c COMMAND` in the module root.
//! A `{ cargo: BENCH }` suite is a bench target written with the `rho-bench` crate, built by cargo
//! ([`crate::cargo`]) and run with `RHO_BENCH_FORMAT=wire`.
//! Every command gets the harness settings in its environment (`RHO_BENCH_ITERATIONS`, `_WARMUP`, `_SCALE`,
//! `_TIME_CAP_MS`, `_STACK_BYTES`, `RHO_BENCH_ITERATIONS_<name>`) plus `RHO_BENCH_INCLUDE` and `RHO_BENCH_OUT`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rho_config::{CMakeSuite, CargoSuite, Measure, ModuleConfig, Suite, SuiteBuild, TargetSpec};
use rho_exec::{Runner, Termination};
use rho_stats::RunSummary;

use crate::cfiles::{BuildOptions, Flags, ScratchDir, write_header};
use crate::error::{Doing as _, Result, SuiteError};

/// How the suites are to be built and run, as the command line says (`None`: module.yml's, else the
/// harness's default).
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub iterations: Option<u64>,
    pub warmup: Option<u64>,
    pub scale: Option<f64>,
    /// The longest a run may take, in seconds (a build gets at least [`crate::cfiles::MIN_BUILD_TIMEOUT`]).
    pub timeout_seconds: f64,
    /// Extra compiler and linker flags, as given (split as a shell would).
    pub cflags: Option<String>,
    pub ldflags: Option<String>,
    /// `--filter`: a regular expression over benchmark names (crate::filter).
    pub filter: Option<String>,
    pub measure: Option<Measure>,
    /// Callgrind's cache simulation, with instructions.
    pub cache_sim: bool,
    /// With instructions: the functions each benchmark keeps (`--functions N`; `None`: 50, 0: none).
    /// Timed, N > 0: every benchmark of a C-file suite on the host sampled by perf, as many functions kept.
    pub functions: Option<usize>,
    /// `--profile NAME`: timed, benchmark NAME sampled by perf (a C-file suite on the host).
    pub profile: Option<String>,
}

impl RunOptions {
    /// `--cflags` and `--ldflags`, split into words.
    pub fn flags(&self) -> Result<Flags> {
        let split = |what: &str, text: &Option<String>| match text {
            Some(text) => crate::cfiles::split_flags(what, text),
            None => Ok(Vec::new()),
        };
        Ok(Flags {
            cflags: split("--cflags", &self.cflags)?,
            ldflags: split("--ldflags", &self.ldflags)?,
        })
    }
}

/// A module's suites ready to run on one target under one measure.
pub struct Engine<'a> {
    config: &'a ModuleConfig,
    target: &'a TargetSpec,
    /// What the harness is told.
    pub settings: Settings,
    /// The suites, in module.yml's order.
    pub jobs: Vec<Job>,
    /// The command line's flags.
    pub flags: Flags,
    pub measure: Measure,
    pub timeout: Duration,
    measuring: Measuring,
    workspace: Workspace,
    mem_command: crate::footprint::MemCommand,
    environment: Vec<(String, String)>,
    /// Suites [`Engine::list`] built, by index, kept for their run: a share lists and runs one build.
    listed_builds: std::sync::Mutex<Vec<(usize, HostBuild)>>,
    /// `--filter` (or a share's names), compiled: every suite's report is cut to the names it matches.
    filter: Option<crate::filter::NameFilter>,
}

/// One suite's run: its summary, and the footprint command's answer for the image built (`None`: no image
/// to ask about), which the caller attaches or warns about.
#[derive(Debug)]
pub struct SuiteRun {
    pub summary: RunSummary,
    pub footprint: FootprintAnswer,
    /// Per benchmark asked to be sampled (timed, `--profile`/`--functions`) and not: its name and why.
    pub sampling_notes: Vec<(String, String)>,
}

impl<'a> Engine<'a> {
    /// Everything checked before anything is built or run: the settings, the measure on this target (a
    /// count needs Valgrind on the host), the suites and their files; `repetitions` timed runs per suite.
    pub fn new(
        config: &'a ModuleConfig,
        target: &'a TargetSpec,
        options: &RunOptions,
        repetitions: u32,
    ) -> Result<Engine<'a>> {
        let settings = Settings::resolve(config, options)?;
        let filter = crate::filter::compiled(settings.filter.as_deref())?;
        let timeout = target
            .timeout()
            .unwrap_or_else(|| Duration::from_secs_f64(options.timeout_seconds));
        let flags = options.flags()?;
        let measure = options.measure.unwrap_or(config.measure);
        let measuring = Measuring::new(target, measure, options, repetitions)?;
        let jobs = jobs(config, target)?;
        // Before anything is built or run: a suite file that is not there is a mistake in module.yml.
        check_suite_files(config)?;
        warn_per_benchmark_iterations(target, &settings);
        let workspace = Workspace::new()?;
        // Asked for each built suite's static footprint (docs/mem-json.md): never linked, so it can be replaced.
        let mem_command =
            crate::footprint::MemCommand::resolve(config.mem_command.as_deref(), &config.root)?;
        let mut environment = settings.environment();
        if !on_host(target) {
            unanchor_filter(&mut environment);
        }
        // module.yml's `stack_bytes:` for this target: the run's (a host harness) and the build's (a board's port).
        if let Some(bytes) = crate::cfiles::configured_stack_bytes(config, target.name(), &flags) {
            environment.push(("RHO_BENCH_STACK_BYTES".to_string(), bytes.to_string()));
        }
        environment.push((
            "RHO_BENCH_INCLUDE".to_string(),
            workspace.include_dir().display().to_string(),
        ));
        Ok(Engine {
            config,
            target,
            settings,
            jobs,
            flags,
            measure,
            timeout,
            measuring,
            workspace,
            mem_command,
            environment,
            listed_builds: std::sync::Mutex::new(Vec::new()),
            filter,
        })
    }

    /// The module whose suites this engine runs.
    pub fn config(&self) -> &'a ModuleConfig {
        self.config
    }

    /// The target it builds and runs them for.
    pub fn target(&self) -> &'a TargetSpec {
        self.target
    }

    /// Whether `job` is left out of this run: a target's own commands are not counted, and counting only
    /// there is nothing to run.
    pub fn skips(&self, job: &Job) -> bool {
        !self.measuring.times && matches!(job.kind, JobKind::TargetOnly)
    }

    /// Build suite number `index` and run it: timed `repetitions` times (folded, best of N), and once
    /// counted when counting.
    pub fn run(&self, index: usize) -> Result<SuiteRun> {
        let job = &self.jobs[index];
        let mut env = self.job_environment(index)?;
        // A regex the harness cannot take as terms: the suite's listing, matched here, names its benchmarks.
        if let Some(filter) = &self.filter
            && filter.harness_terms().is_none()
            && self.lists(job)
        {
            let names = self.list_all(index)?;
            let picked: Vec<&String> = names.iter().filter(|n| filter.matches(n)).collect();
            // None picked: a term no name matches. A name no term can hold: every benchmark, cut after.
            let terms = match picked.is_empty() {
                true => Some(crate::filter::NOTHING.to_owned()),
                false => crate::filter::exact_terms(&picked),
            };
            env.retain(|(key, _)| key != crate::filter::FILTER_VARIABLE);
            if let Some(terms) = terms {
                env.push((crate::filter::FILTER_VARIABLE.to_owned(), terms));
            }
        }
        let place = Place {
            config: self.config,
            target: self.target,
            workspace: &self.workspace,
            env: &env,
            flags: &self.flags,
            timeout: self.timeout,
            mem_command: &self.mem_command,
        };
        let ran = run_job(
            &place,
            job,
            &self.measuring,
            (self.take_listed_build(index), self.filter.as_ref()),
        )?;
        let functions = self.measuring.counter.as_ref().map_or(0, |c| c.functions());
        let mut summary =
            crate::count::summarise(&ran.runs, ran.counted.as_ref(), functions, &job.what)?;
        if let (JobKind::Foreign(suite), Some(reports)) = (&job.kind, &ran.reports) {
            rho_import::complete(&mut summary, crate::foreign::format(suite.tool), reports);
        }
        let sampling_notes =
            crate::sample::attach(&mut summary, ran.sampled, self.measuring.sampling.limit());
        // Whatever the harness was told, the report holds exactly the names the filter matches.
        if let Some(filter) = &self.filter {
            summary.benchmarks.retain(|b| filter.matches(&b.name));
        }
        Ok(SuiteRun {
            summary,
            footprint: ran.footprint,
            sampling_notes,
        })
    }

    /// Suite `index`'s benchmarks the filter selects, named as its run will name them, without running any
    /// (the harness's listing, [`crate::listing`]), when the harness can list: a suite rho builds for the
    /// host (C files, cmake, cargo: rho's harnesses). The build is kept and [`Engine::run`] runs it, so
    /// listing costs no second build. `None` for the other kinds (a board has no environment to ask; a
    /// command's or another tool's harness may not list).
    pub fn list(&self, index: usize) -> Result<Option<Vec<String>>> {
        if !self.lists(&self.jobs[index]) {
            return Ok(None);
        }
        let mut names = self.list_all(index)?;
        if let Some(filter) = &self.filter {
            names.retain(|name| filter.matches(name));
        }
        Ok(Some(names))
    }

    /// Every benchmark of suite `index`, whatever the filter, as its harness lists them (see
    /// [`Engine::list`], whose kinds of suite it takes): what a filter is matched against, and the names a
    /// filter that matched nothing is told of.
    pub fn list_all(&self, index: usize) -> Result<Vec<String>> {
        let job = &self.jobs[index];
        let mut env = self.job_environment(index)?;
        env.retain(|(key, _)| key != crate::filter::FILTER_VARIABLE);
        let built = match self.take_listed_build(index) {
            Some(built) => built,
            None => build_on_host(self.config, job, &env, &self.flags, self.timeout)?,
        };
        let command = built.command(&self.config.root, &env);
        let names = crate::listing::list_program(command, &job.what, self.timeout)?;
        if let Ok(mut builds) = self.listed_builds.lock() {
            builds.push((index, built));
        }
        Ok(names)
    }

    /// Whether `job`'s harness lists its benchmarks here ([`Engine::list`]).
    pub fn lists(&self, job: &Job) -> bool {
        on_host(self.target)
            && matches!(
                job.kind,
                JobKind::CFiles | JobKind::CMake(_) | JobKind::Cargo(_)
            )
    }

    /// The build [`Engine::list`] made of suite `index`, taken for its run.
    fn take_listed_build(&self, index: usize) -> Option<HostBuild> {
        let mut builds = self.listed_builds.lock().ok()?;
        let at = builds.iter().position(|(i, _)| *i == index)?;
        Some(builds.swap_remove(at).1)
    }

    /// What suite `index`'s build and runs get in their environment: the harness settings, its output
    /// directory and its files.
    fn job_environment(&self, index: usize) -> Result<Vec<(String, String)>> {
        let job = &self.jobs[index];
        let out_dir = self.workspace.out_dir(index)?;
        let mut env = self.environment.clone();
        env.push(("RHO_BENCH_OUT".to_string(), out_dir.display().to_string()));
        if !job.sources.is_empty() {
            let sources: Vec<String> = job
                .sources
                .iter()
                .map(|s| s.display().to_string())
                .collect();
            env.push(("RHO_BENCH_SOURCES".to_string(), sources.join(" ")));
        }
        Ok(env)
    }

    /// Runs the suites from now on with `filter` (a regex, [`crate::filter`]; `None`: every benchmark) in
    /// place of `--filter`: a share of a sharded run (`--shard K/N`) runs each suite filtered to its own
    /// benchmarks ([`crate::filter::exact`]).
    pub fn set_filter(&mut self, filter: Option<String>) -> Result<()> {
        self.filter = crate::filter::compiled(filter.as_deref())?;
        self.environment
            .retain(|(key, _)| key != crate::filter::FILTER_VARIABLE);
        self.settings.filter = filter;
        if let Some(terms) = self.settings.harness_filter() {
            self.environment
                .push((crate::filter::FILTER_VARIABLE.to_string(), terms));
            if !on_host(self.target) {
                unanchor_filter(&mut self.environment);
            }
        }
        Ok(())
    }

    /// How the suites were built, for the baseline's context (docs/baseline.md): the compiler and flags, port
    /// or build command of each suite rho built (none for `command:` and other harnesses' suites).
    pub fn built_with(&self) -> Option<String> {
        built_with(&self.jobs, self.target, &self.flags)
    }

    /// `summary` of `job`, unless it measured nothing: a suite that measured nothing would pass every budget,
    /// so it cannot be judged. (With a filter a suite may leave every benchmark out on purpose.)
    pub fn measured(&self, job: &Job, summary: RunSummary) -> Result<RunSummary> {
        if summary.benchmarks.is_empty() && self.settings.filter.is_none() {
            return Err(SuiteError::Run(format!(
                "{} reported no benchmarks: its stream is well formed but measures nothing (is it \
                 running the right program?)",
                job.what
            )));
        }
        Ok(summary)
    }
}

impl Job {
    /// The command of a `command:` suite: it builds itself and runs on the host, whatever the target.
    pub fn command(&self) -> Option<&str> {
        match &self.kind {
            JobKind::Command(command) => Some(command),
            _ => None,
        }
    }
}

/// How the suites of a run were built, for the baseline's context (docs/baseline.md): the compiler and flags
/// (or the port, or the target's `build:`) for the C suites rho built, the build of a CMake or cargo suite;
/// nothing for a `command:` suite, which builds itself (no compiler flags are true of it). `None` when rho
/// built none of them.
fn built_with(jobs: &[Job], target: &TargetSpec, flags: &Flags) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for job in jobs {
        let part = match &job.kind {
            JobKind::Command(_) | JobKind::Foreign(_) => None,
            JobKind::CFiles | JobKind::TargetOnly => build_description(target, flags),
            JobKind::CMake(cmake) => Some(format!("cmake --build --target {}", cmake.target)),
            JobKind::Cargo(cargo) => Some(cargo.describe()),
        };
        if let Some(part) = part
            && !parts.contains(&part)
        {
            parts.push(part);
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// How C suites rho builds (or a module.yml target's own) were built, for the baseline's context: the compiler
/// and flags for a suite rho compiles itself on the host, the port and extra flags for another built-in
/// target, the build command for a target module.yml defines. (Not for a `command:` suite: see
/// `built_with`.)
fn build_description(target: &TargetSpec, flags: &crate::cfiles::Flags) -> Option<String> {
    let extra: String = flags
        .cflags
        .iter()
        .chain(&flags.ldflags)
        .map(|f| format!(" {f}"))
        .collect();
    match target {
        TargetSpec::Builtin { name, .. } if name == "host" => {
            let compiler = crate::cfiles::compiler_words().ok()?.join(" ");
            Some(format!(
                "{compiler} {}{extra}",
                crate::cfiles::BASE_FLAGS.join(" ")
            ))
        }
        TargetSpec::Builtin { name, .. } => Some(format!("built-in port {name}{extra}")),
        TargetSpec::Commands { build, .. } => Some(build.clone()),
    }
}

/// A board has no environment at run time: the port compiles one count in for every benchmark, so the
/// per-benchmark `iterations` do not apply there (a warning).
fn warn_per_benchmark_iterations(target: &TargetSpec, settings: &Settings) {
    if let TargetSpec::Builtin { name, .. } = target
        && name != "host"
        && !settings.per_benchmark.is_empty()
    {
        let names: Vec<&str> = settings
            .per_benchmark
            .iter()
            .map(|(n, _)| n.as_str())
            .collect();
        crate::observe::warning(&format!(
            "target {name} runs every benchmark for the same number of iterations: the \
             per-benchmark `iterations` of {} do not apply there",
            names.join(", ")
        ));
    }
}

/// Where and how a job is built and run: the module, the target, the suite's environment and flags.
struct Place<'a> {
    config: &'a ModuleConfig,
    target: &'a TargetSpec,
    workspace: &'a Workspace,
    env: &'a [(String, String)],
    flags: &'a Flags,
    timeout: Duration,
    mem_command: &'a crate::footprint::MemCommand,
}

/// What the harness is told, from the command line over the environment over module.yml.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub iterations: Option<u64>,
    pub warmup: Option<u64>,
    /// Multiplies every iteration count; below 1.0 budgets are reported only.
    pub scale: f64,
    pub time_cap_ms: Option<u64>,
    /// `stack_watermark: false`.
    pub stack_off: bool,
    /// `RHO_BENCH_ITERATIONS_<name>` per benchmark with its own `iterations`.
    pub per_benchmark: Vec<(String, u64)>,
    /// `RHO_BENCH_BATCH` (module.yml's `batch`).
    pub batch: Option<u64>,
    /// `RHO_BENCH_BATCH_<name>` per benchmark with its own `batch`.
    pub batch_per_benchmark: Vec<(String, u64)>,
    /// `--filter`: a regex (crate::filter), passed as RHO_BENCH_FILTER terms when it is plain names.
    pub filter: Option<String>,
}

impl Settings {
    pub fn resolve(config: &ModuleConfig, run: &RunOptions) -> Result<Settings> {
        Ok(Settings {
            iterations: run.iterations.or(config.default_iterations),
            warmup: run.warmup.or(config.warmup_runs),
            scale: resolve_scale(run.scale, std::env::var_os("RHO_BENCH_SCALE"), config.scale)?,
            time_cap_ms: config.time_cap_ms,
            stack_off: !config.stack_watermark,
            per_benchmark: config
                .benchmarks
                .iter()
                .filter_map(|b| b.iterations.map(|n| (b.name.clone(), n)))
                .collect(),
            batch: config.batch,
            batch_per_benchmark: config
                .benchmarks
                .iter()
                .filter_map(|b| b.batch.map(|k| (b.name.clone(), k)))
                .collect(),
            filter: run.filter.clone(),
        })
    }

    /// The environment every build and run gets.
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut env = Vec::new();
        if let Some(n) = self.iterations {
            env.push(("RHO_BENCH_ITERATIONS".to_string(), n.to_string()));
        }
        for (name, n) in &self.per_benchmark {
            env.push((format!("RHO_BENCH_ITERATIONS_{name}"), n.to_string()));
        }
        if let Some(k) = self.batch {
            env.push(("RHO_BENCH_BATCH".to_string(), k.to_string()));
        }
        for (name, k) in &self.batch_per_benchmark {
            env.push((format!("RHO_BENCH_BATCH_{name}"), k.to_string()));
        }
        if let Some(n) = self.warmup {
            env.push(("RHO_BENCH_WARMUP".to_string(), n.to_string()));
        }
        // Always passed, so a `RHO_BENCH_SCALE` in rho's own environment reaches the harness as rho read it.
        // `f64`'s Display never uses an exponent, which the harness does not read.
        env.push(("RHO_BENCH_SCALE".to_string(), self.scale.to_string()));
        if let Some(ms) = self.time_cap_ms {
            env.push(("RHO_BENCH_TIME_CAP_MS".to_string(), ms.to_string()));
        }
        if self.stack_off {
            env.push(("RHO_BENCH_STACK_BYTES".to_string(), "0".to_string()));
        }
        if let Some(terms) = self.harness_filter() {
            env.push((crate::filter::FILTER_VARIABLE.to_string(), terms));
        }
        // A Rust harness (rho-bench) prints its report unless told to print the stream; C ignores it.
        env.push(("RHO_BENCH_FORMAT".to_string(), "wire".to_string()));
        env
    }
}

impl Settings {
    /// The filter as `RHO_BENCH_FILTER` terms, when it is plain names (else the harness runs every
    /// benchmark, or the names a listing gives, and the report is cut to the regex's names).
    pub fn harness_filter(&self) -> Option<String> {
        crate::filter::harness_terms_of(self.filter.as_deref())
    }
}

/// Whether `target` runs its suites on this machine, with an environment (and a listing).
fn on_host(target: &TargetSpec) -> bool {
    matches!(target, TargetSpec::Builtin { name, .. } if name == "host")
}

/// A board's build compiles the filter in through make and the preprocessor, which read a `$`: its terms
/// lose their anchors there (the same names or more; the report is cut to the regex's names).
fn unanchor_filter(environment: &mut [(String, String)]) {
    for (key, value) in environment.iter_mut() {
        if key == crate::filter::FILTER_VARIABLE {
            *value = crate::filter::unanchored(value);
        }
    }
}

/// `--scale`, else `RHO_BENCH_SCALE` from the environment, else module.yml's `scale`.
fn resolve_scale(cli: Option<f64>, env: Option<std::ffi::OsString>, config: f64) -> Result<f64> {
    if let Some(scale) = cli {
        return Ok(scale);
    }
    let Some(text) = env else {
        return Ok(config);
    };
    let text = text.to_string_lossy();
    match text.trim().parse::<f64>() {
        Ok(scale) if rho_config::is_scale(scale) => Ok(scale),
        _ => Err(SuiteError::Unsupported(format!(
            "RHO_BENCH_SCALE={text:?} in the environment: expected a number from 1e-9 to 1e9, e.g. 0.5"
        ))),
    }
}

/// One suite to build and run.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// How the suite is named in reports: its files, its command, or its CMake target.
    pub what: String,
    /// The C files, resolved against the module root (empty for a command).
    pub sources: Vec<PathBuf>,
    /// How a C-file suite is built beyond its files (its flags, include directories, defines, packages).
    pub build: SuiteBuild,
    pub kind: JobKind,
    /// A command suite's image for the static footprint (module.yml's `image:`), resolved against the module
    /// root; `None` for the other kinds (rho finds their images).
    pub image: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum JobKind {
    /// C files compiled for the target.
    CFiles,
    /// `sh -c COMMAND` in the module root, whatever the target.
    Command(String),
    /// A `build:`/`run:` target with no `suites:`: its commands are the suite.
    TargetOnly,
    /// A target of the module's CMake project, built with `cmake --build` (see [`crate::cmake`]).
    CMake(CMakeSuite),
    /// A bench target of a cargo project using `rho-bench`, built with cargo (see [`crate::cargo`]).
    Cargo(CargoSuite),
    /// Another harness's suite, run by its own tool on the host (see [`crate::foreign`]).
    Foreign(rho_config::ForeignSuite),
}

/// The suites to run, in module.yml's order.
pub fn jobs(config: &ModuleConfig, target: &TargetSpec) -> Result<Vec<Job>> {
    if config.suites.is_empty() && matches!(target, TargetSpec::Commands { .. }) {
        return Ok(vec![Job {
            what: format!("target {}", target.name()),
            sources: Vec::new(),
            build: SuiteBuild::default(),
            kind: JobKind::TargetOnly,
            image: None,
        }]);
    }
    let suites = config.require_suites()?;
    Ok(suites
        .iter()
        .map(|suite| {
            let (sources, build, kind) = match suite {
                Suite::CFiles { files, build, .. } => (
                    files.iter().map(|f| config.resolve(f)).collect(),
                    build.clone(),
                    JobKind::CFiles,
                ),
                Suite::Command { command, .. } => (
                    Vec::new(),
                    SuiteBuild::default(),
                    JobKind::Command(command.clone()),
                ),
                Suite::CMake(cmake) => (
                    Vec::new(),
                    SuiteBuild::default(),
                    JobKind::CMake(cmake.clone()),
                ),
                Suite::Cargo(cargo) => (
                    Vec::new(),
                    SuiteBuild::default(),
                    JobKind::Cargo(cargo.clone()),
                ),
                Suite::Foreign(foreign) => (
                    Vec::new(),
                    SuiteBuild::default(),
                    JobKind::Foreign(foreign.clone()),
                ),
            };
            let image = match suite {
                Suite::Command { image, .. } => image.as_ref().map(|i| config.resolve(i)),
                _ => None,
            };
            Job {
                what: suite.describe(),
                sources,
                build,
                kind,
                image,
            }
        })
        .collect())
}

/// Every C file module.yml's suites name exists (resolved against the module root); else an error naming
/// module.yml's file, line and column of the suite and the missing file.
fn check_suite_files(config: &ModuleConfig) -> Result<(), rho_config::ConfigError> {
    let invalid = |at: &rho_config::SourcePos, message: String| rho_config::ConfigError::Invalid {
        file: config.file.clone(),
        pos: *at,
        message,
    };
    for suite in &config.suites {
        match suite {
            Suite::CFiles { files, build, at } => {
                for file in files {
                    if !config.resolve(file).is_file() {
                        return Err(invalid(
                            at,
                            format!("suite file '{}' does not exist", file.display()),
                        ));
                    }
                }
                for dir in &build.include {
                    if !config.resolve(dir).is_dir() {
                        return Err(invalid(
                            at,
                            format!("include directory '{}' does not exist", dir.display()),
                        ));
                    }
                }
            }
            Suite::CMake(cmake) => {
                let lists = config.resolve(&cmake.source_dir).join("CMakeLists.txt");
                if !lists.is_file() {
                    return Err(invalid(
                        &cmake.at,
                        format!(
                            "cmake suite: no CMakeLists.txt in '{}' (source_dir, relative to the module root)",
                            cmake.source_dir.display()
                        ),
                    ));
                }
            }
            Suite::Command { .. } | Suite::Cargo(_) | Suite::Foreign(_) => {}
        }
    }
    Ok(())
}

/// What a job's runs measure.
struct Measuring {
    /// Timed runs, folded best of N.
    repetitions: u32,
    /// Whether to time at all.
    times: bool,
    /// Counting: the counted run's runner.
    counter: Option<crate::count::Counter>,
    /// A built-in board under QEMU: its C-file suites are also built counting and run once under rho's
    /// counting plugin, whatever the measure (the exact instruction count is a board's figure).
    board: Option<crate::ports::BoardData>,
    /// A module.yml target with `counter: qemu-plugin`: counted as a built-in board is, its own `run:`
    /// loading the plugin.
    plugin_run: bool,
    /// Whether the iterations and warm-ups were set (else counting uses its own defaults).
    iterations_set: bool,
    warmup_set: bool,
    /// Which benchmarks perf samples, timed on the host.
    sampling: Sampling,
}

/// What a timed run was asked to sample (`--profile NAME`, `--functions N`), kept for each suite's run.
#[derive(Debug, Clone)]
struct Sampling {
    measure: Measure,
    profile: Option<String>,
    functions: Option<usize>,
}

impl Sampling {
    fn asked(&self) -> crate::sample::Asked<'_> {
        crate::sample::Asked::of(self.measure, self.profile.as_deref(), self.functions)
    }

    /// The functions kept per sampled benchmark.
    fn limit(&self) -> usize {
        self.functions.unwrap_or(rho_profile::net::DEFAULT_LIMIT)
    }

    /// For a suite perf cannot sample (not a C-file suite on the host): a note for `--profile NAME`'s
    /// benchmark if this suite ran it; `--functions N` samples what it can and says nothing of the rest.
    fn not_sampled(&self, runs: &[rho_wire::Run], why: &str) -> crate::sample::Outcomes {
        match self.asked() {
            crate::sample::Asked::One(name)
                if runs
                    .iter()
                    .any(|r| r.benchmarks.iter().any(|b| b.name == name)) =>
            {
                vec![(name.to_string(), Err(why.to_string()))]
            }
            _ => Vec::new(),
        }
    }
}

/// A suite's runs, before they are folded: timed, counted, its footprint and what sampling gave, and for
/// another harness's suite each timed run's report (what a wire stream cannot carry, rho_import::complete).
struct JobRan {
    runs: Vec<rho_wire::Run>,
    counted: Option<rho_stats::CountedRun>,
    footprint: FootprintAnswer,
    sampled: crate::sample::Outcomes,
    reports: Option<Vec<Vec<rho_import::Sampled>>>,
}

/// Counting `job` on `target` when only the C suites rho builds for the host are counted: say it is timed
/// only.
fn warn_if_not_counted(job: &Job, target: &TargetSpec, measuring: &Measuring, what: &str) {
    let host_c = matches!((&job.kind, target), (JobKind::CFiles | JobKind::CMake(_) | JobKind::Command(_) | JobKind::Cargo(_), TargetSpec::Builtin { name, .. }) if name == "host");
    if measuring.counter.is_some() && !host_c {
        crate::observe::warning(&format!(
            "{what}: timed, not counted (--measure instructions runs the C suites rho builds for \
             the host under Valgrind)"
        ));
    }
}

impl Measuring {
    /// What `measure` takes on `target`: on a built-in board (or a target with `counter: qemu-plugin`) a
    /// count runs under QEMU's plugin whatever the measure, and the timed run runs too (a suite the board
    /// cannot count, a cargo or cmake one, has only its ticks); elsewhere a count runs under Valgrind, on the
    /// host only.
    fn new(
        target: &TargetSpec,
        measure: Measure,
        options: &RunOptions,
        repetitions: u32,
    ) -> Result<Measuring> {
        let board = match target {
            TargetSpec::Builtin { name, .. } => crate::ports::board(name),
            TargetSpec::Commands { .. } => None,
        };
        let plugin_run = matches!(
            target,
            TargetSpec::Commands {
                counter: Some(rho_config::TargetCounter::QemuPlugin),
                ..
            }
        );
        let icount = board.is_some() || plugin_run;
        let counter = if measure.counts() && icount {
            None
        } else if measure.counts() {
            if target.name() != "host" {
                return Err(SuiteError::Unsupported(format!(
                    "--measure instructions counts under Valgrind on the host; target {} is not the host (on \
                     the built-in boards QEMU counts them, with rho's plugin)",
                    target.name()
                )));
            }
            Some(
                crate::count::Counter::find(options.cache_sim)?.keeping_functions(
                    options.functions.unwrap_or(rho_profile::net::DEFAULT_LIMIT),
                ),
            )
        } else {
            None
        };
        Ok(Measuring {
            repetitions,
            times: measure.times() || icount,
            counter,
            board,
            plugin_run,
            iterations_set: options.iterations.is_some(),
            warmup_set: options.warmup.is_some(),
            sampling: Sampling {
                measure,
                profile: options.profile.clone(),
                functions: options.functions,
            },
        })
    }

    /// The counted run of a host `executable` (in `root`, with `env`) when counting, else `None`.
    fn count(
        &self,
        executable: &Path,
        env: &[(String, String)],
        root: &Path,
        what: &str,
        timeout: Duration,
    ) -> Result<Option<rho_stats::CountedRun>> {
        self.counted(env, |counter, env| {
            counter.run(executable, env, Some(root), what, timeout)
        })
    }

    /// The counted run of a command suite (`sh -c command` in `root`, with `env`) when counting, else
    /// `None`.
    fn count_shell(
        &self,
        command: &str,
        env: &[(String, String)],
        root: &Path,
        what: &str,
        timeout: Duration,
    ) -> Result<Option<rho_stats::CountedRun>> {
        self.counted(env, |counter, env| {
            counter.run_shell(command, env, root, what, timeout)
        })
    }

    /// `run` under the counter, with this mode's iterations and warm-ups in `env`, when counting.
    fn counted(
        &self,
        env: &[(String, String)],
        run: impl FnOnce(
            &crate::count::Counter,
            &[(String, String)],
        ) -> crate::Result<rho_stats::CountedRun>,
    ) -> Result<Option<rho_stats::CountedRun>> {
        let Some(counter) = &self.counter else {
            return Ok(None);
        };
        let env = crate::count::environment(env.to_vec(), self.iterations_set, self.warmup_set);
        Ok(Some(run(counter, &env)?))
    }
}

/// What the footprint command answered for a built suite (`None`: no image to ask about, e.g. a command
/// suite).
pub type FootprintAnswer = Option<Result<crate::footprint::MemDocument, String>>;

/// Build `job` for `target` and run it: timed `repetitions` times, and once counted when counting; the
/// parsed runs, and the footprint command's answer for the image built (asked while the build directory is
/// there). A host build `listed_build` made to list the suite is run instead of building it again.
fn run_job(
    place: &Place<'_>,
    job: &Job,
    measuring: &Measuring,
    (listed_build, filter): (Option<HostBuild>, Option<&crate::filter::NameFilter>),
) -> Result<JobRan> {
    let Place {
        config,
        target,
        workspace,
        env,
        flags,
        timeout,
        mem_command,
    } = *place;
    let mut footprint = None;
    let what = format!("{} for target {}", job.what, target.name());
    let repetitions = if measuring.times {
        measuring.repetitions
    } else {
        0
    };
    warn_if_not_counted(job, target, measuring, &what);
    let mut runs = Vec::new();
    let mut counted = None;
    let mut reports = None;
    match (&job.kind, target) {
        (JobKind::Foreign(suite), _) => {
            let done = crate::foreign::runs(
                suite,
                &config.root,
                (env, filter),
                timeout,
                &job.what,
                repetitions,
            )?;
            (runs, reports) = (done.runs, Some(done.reports));
        }
        (JobKind::Command(command), _) => {
            for _ in 0..repetitions {
                runs.push(crate::stream::run_stream(
                    shell(command, &config.root, env),
                    &job.what,
                    timeout,
                )?);
            }
            if target.name() == "host" {
                counted = measuring.count_shell(command, env, &config.root, &job.what, timeout)?;
            }
            footprint = command_footprint(mem_command, job, timeout);
        }
        (
            JobKind::CFiles | JobKind::CMake(_) | JobKind::Cargo(_),
            TargetSpec::Builtin { name, .. },
        ) if name == "host" => {
            // Built already when the suite was listed (Engine::list): the same build, not a second one.
            let built = match listed_build {
                Some(built) => built,
                None => build_on_host(config, job, env, flags, timeout)?,
            };
            return run_host_build(place, job, measuring, &built, (repetitions, &what));
        }
        (JobKind::CMake(cmake), _) => {
            let built = crate::cmake::build(config, cmake, target.name(), env, timeout)?;
            for _ in 0..repetitions {
                runs.push(crate::stream::run_stream(built.command()?, &what, timeout)?);
            }
            footprint = Some(crate::footprint::ask(mem_command, &built.image, timeout));
        }
        (JobKind::Cargo(cargo), TargetSpec::Builtin { name, .. }) => {
            runs = run_cargo_on_board(place, cargo, name, (repetitions, &what))?;
        }
        (JobKind::Cargo(cargo), TargetSpec::Commands { .. }) => {
            return Err(SuiteError::Unsupported(format!(
                "{}: it runs on the built-in targets (host, mps2-an386), not on a target of module.yml's own",
                crate::cargo::located(config, cargo)
            )));
        }
        (JobKind::CFiles | JobKind::TargetOnly, _) => {
            let (build, run) = match target {
                TargetSpec::Commands { build, run, .. } => (build.clone(), run.clone()),
                TargetSpec::Builtin { name, .. } => {
                    crate::ports::builtin_commands(name, &workspace.ports_dir())?.ok_or_else(
                        || {
                            SuiteError::Unsupported(format!(
                                "target '{name}' is built in but rho has no definition of it"
                            ))
                        },
                    )?
                }
            };
            let mut flags =
                crate::cfiles::suite_flags(config, target.name(), &job.build, flags, timeout)?;
            let mut env = env.to_vec();
            // A built-in board's compiler is known: it gets the stack-usage flags when it takes them.
            if let TargetSpec::Builtin { name, .. } = target {
                flags.cflags.extend(crate::board::stack_usage_flags(name));
            }
            env.extend(crate::board::flags_environment(&flags));
            shell_build(&build, &config.root, &env, timeout, &what)
                .map_err(|error| crate::cfiles::with_link_hint(error, &flags.cflags))?;
            for _ in 0..repetitions {
                runs.push(crate::stream::run_stream(
                    shell(&run, &config.root, &env),
                    &what,
                    timeout,
                )?);
            }
            // An image at `$RHO_BENCH_OUT/bench.elf` (the built-in ports', and any target's build that
            // writes one there) is asked about, with whatever `.su`/`.ci` files the build left beside it.
            let out = env
                .iter()
                .find(|(k, _)| k == "RHO_BENCH_OUT")
                .map(|(_, v)| PathBuf::from(v));
            if let Some(out) = out.as_ref().filter(|o| o.join("bench.elf").is_file()) {
                let files = crate::footprint::ImageFiles {
                    image: out.join("bench.elf"),
                    stack_usage: Some(out.clone()),
                };
                footprint = Some(crate::footprint::ask(mem_command, &files, timeout));
            }
            if let (Some(out), JobKind::CFiles) = (&out, &job.kind) {
                counted = measuring
                    .count_on_board((&build, &run), out, place, &env, &what)?
                    .map(rho_stats::CountedRun::from);
            }
        }
    }
    let sampled = measuring.sampling.not_sampled(
        &runs,
        "perf samples the C-file suites rho builds for the host only",
    );
    Ok(JobRan {
        runs,
        counted,
        footprint,
        sampled,
        reports,
    })
}

/// A `cargo:` suite built for the built-in board `name` and run `repetitions` times there, each run named
/// `what`.
fn run_cargo_on_board(
    place: &Place<'_>,
    cargo: &rho_config::CargoSuite,
    name: &str,
    (repetitions, what): (u32, &str),
) -> Result<Vec<rho_wire::Run>> {
    let board = crate::ports::board(name).ok_or_else(|| {
        SuiteError::Unsupported(format!(
            "target '{name}' is built in but rho has no definition of it"
        ))
    })?;
    let elf = crate::cargo::build_for_board(place.config, cargo, place.env, &board, place.timeout)?;
    let kernel = crate::ports::shell_quote(&elf.display().to_string());
    let mut runs = Vec::new();
    for _ in 0..repetitions {
        runs.push(crate::stream::run_stream(
            shell(&board.run_command(&kernel), &place.config.root, place.env),
            what,
            place.timeout,
        )?);
    }
    Ok(runs)
}

/// `job` built on the host (`built`) run: timed `repetitions` times and once counted when counting (its runs
/// named `what` for a cmake suite, as on a board), and the footprint command asked about its image.
fn run_host_build(
    place: &Place<'_>,
    job: &Job,
    measuring: &Measuring,
    built: &HostBuild,
    (repetitions, what): (u32, &str),
) -> Result<JobRan> {
    let (root, env, timeout) = (&place.config.root, place.env, place.timeout);
    let named = match job.kind {
        JobKind::CMake(_) => what,
        _ => job.what.as_str(),
    };
    let mut runs = Vec::new();
    for _ in 0..repetitions {
        runs.push(crate::stream::run_stream(
            built.command(root, env),
            named,
            timeout,
        )?);
    }
    let counted = measuring.count(&built.executable, env, root, &job.what, timeout)?;
    let sampled = if job.kind == JobKind::CFiles {
        let ran = runs.first().map_or(&[][..], |run| &run.benchmarks[..]);
        let program = crate::sample::Program {
            env,
            dir: Some(root),
        };
        crate::sample::sample_asked(
            &measuring.sampling.asked(),
            ran,
            &built.executable,
            &program,
            timeout,
        )
    } else {
        measuring.sampling.not_sampled(
            &runs,
            "perf samples the C-file suites rho builds for the host only (their harness turns it on \
             and off around the measured loop)",
        )
    };
    let footprint = built
        .image
        .as_ref()
        .map(|files| crate::footprint::ask(place.mem_command, files, timeout));
    Ok(JobRan {
        runs,
        counted,
        footprint,
        sampled,
        reports: None,
    })
}

impl Measuring {
    /// A C-file suite on a built-in board, or a target with `counter: qemu-plugin`: built again counting (into
    /// `out/counted`, with the target's `build` and the timed build's `env`) and run under QEMU with rho's
    /// plugin (by rho on a built-in board, by the target's `run` otherwise); `None` on any other target.
    fn count_on_board(
        &self,
        (build, run): (&str, &str),
        out: &Path,
        place: &Place<'_>,
        env: &[(String, String)],
        what: &str,
    ) -> Result<Option<rho_wire::Run>> {
        let runner = match &self.board {
            Some(board) => crate::qemu_count::CountedRunner::Board(board),
            None if self.plugin_run => crate::qemu_count::CountedRunner::Command {
                target: place.target.name(),
                run,
            },
            None => return Ok(None),
        };
        let counting = crate::qemu_count::CountedBuild {
            runner,
            build,
            out,
            plugin_dir: &place.workspace.dir.path().join("qemu-plugin"),
            dir: Some(&place.config.root),
            iterations_set: self.iterations_set,
            warmup_set: self.warmup_set,
        };
        Ok(Some(counting.run(env, place.timeout, what)?))
    }
}

/// A command suite's footprint, of the image its `image:` names (crate::footprint::ask_for_command).
fn command_footprint(
    mem_command: &crate::footprint::MemCommand,
    job: &Job,
    timeout: Duration,
) -> FootprintAnswer {
    crate::footprint::ask_for_command(mem_command, &job.what, job.image.as_deref(), timeout)
}

/// A suite the engine built on the host, ready to run: its program (run in the module root) and, for a
/// C-file suite, its image and stack-usage files for the footprint command. Its build directory lives as long
/// as it does.
#[derive(Debug)]
pub struct HostBuild {
    pub executable: PathBuf,
    /// The image to ask the footprint command about (a C-file or cmake suite's; `None` for cargo).
    pub image: Option<crate::footprint::ImageFiles>,
    /// What its runs need in their environment beyond the harness settings (a cargo suite: the stream, not
    /// the report `cargo bench` prints).
    pub run_env: Vec<(String, String)>,
    _build: Option<crate::cfiles::BuiltSuite>,
}

impl HostBuild {
    /// Its executable, to run in `root` with `env`: each timed run and the listing run it the same way.
    fn command(&self, root: &Path, env: &[(String, String)]) -> Command {
        let mut command = Command::new(&self.executable);
        command.current_dir(root);
        command.envs(env.iter().map(|(k, v)| (k, v)));
        command
    }
}

/// Build `job` for the host as every route builds it (`rho bench`, `check`, both sides of the gate): a
/// C-file suite with the system compiler and its flags ([`crate::cfiles::suite_flags`] over `flags`), a
/// `cmake:` suite with `cmake --build`, a `cargo:` suite with cargo (`env` is the build's environment). A
/// `command:` suite, or a target's own commands, build themselves: an error.
pub fn build_on_host(
    config: &ModuleConfig,
    job: &Job,
    env: &[(String, String)],
    flags: &Flags,
    timeout: Duration,
) -> Result<HostBuild> {
    match &job.kind {
        JobKind::CFiles => {
            let flags = crate::cfiles::suite_flags(config, "host", &job.build, flags, timeout)?;
            let built = crate::cfiles::build(&job.sources, &BuildOptions { flags, timeout })?;
            Ok(HostBuild {
                executable: built.executable.clone(),
                image: Some(built.image_files()),
                run_env: Vec::new(),
                _build: Some(built),
            })
        }
        JobKind::CMake(cmake) => {
            let built = crate::cmake::build(config, cmake, "host", env, timeout)?;
            Ok(HostBuild {
                executable: built.executable,
                image: Some(built.image),
                run_env: Vec::new(),
                _build: None,
            })
        }
        JobKind::Cargo(cargo) => Ok(HostBuild {
            executable: crate::cargo::build(config, cargo, env, None, timeout)?,
            image: None,
            run_env: vec![("RHO_BENCH_FORMAT".to_string(), "wire".to_string())],
            _build: None,
        }),
        JobKind::Command(_) | JobKind::TargetOnly | JobKind::Foreign(_) => {
            Err(SuiteError::Unsupported(format!(
                "{}: builds itself; rho builds only C-file, cmake and cargo suites",
                job.what
            )))
        }
    }
}

/// `job` built on the host beside another tree of the same project (the gate builds both sides before it
/// runs either), with the module's defaults for flags. A cargo suite is built in its tree's own target
/// directory (with one shared, a CARGO_TARGET_DIR in the environment, cargo would take one side's build for
/// the other's: the two are the same package at the same place in their trees) and copied out, so that what
/// runs stays the same whatever a later build writes.
pub fn build_on_host_apart(
    config: &ModuleConfig,
    job: &Job,
    timeout: Duration,
) -> Result<HostBuild> {
    let env = match job.kind {
        JobKind::Cargo(_) => vec![(
            "CARGO_TARGET_DIR".to_string(),
            config.root.join("target").display().to_string(),
        )],
        _ => Vec::new(),
    };
    let built = build_on_host(config, job, &env, &Flags::default(), timeout)?;
    if !matches!(job.kind, JobKind::Cargo(_)) {
        return Ok(built);
    }
    let copy = crate::cfiles::BuiltSuite::copied(&built.executable)?;
    Ok(HostBuild {
        executable: copy.executable.clone(),
        image: None,
        run_env: built.run_env,
        _build: Some(copy),
    })
}

/// `sh -c COMMAND` in `dir` with `env` added.
fn shell(command: &str, dir: &Path, env: &[(String, String)]) -> Command {
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(command).current_dir(dir);
    sh.envs(env.iter().map(|(k, v)| (k, v)));
    sh
}

/// Run a target's `build:` command to completion; its output is shown only when it fails.
fn shell_build(
    command: &str,
    dir: &Path,
    env: &[(String, String)],
    timeout: Duration,
    what: &str,
) -> crate::Result<()> {
    let (finished, stdout) = Runner::new(shell(command, dir, env))
        .timeout(timeout)
        .run_collect()
        .map_err(|source| SuiteError::Exec {
            doing: format!("cannot run the build command of {what}: `{command}`"),
            source,
        })?;
    if finished.termination == Termination::Exited(0) {
        return Ok(());
    }
    let mut message = format!("cannot build {what}: `{command}` {}", finished.termination);
    let output = format!("{stdout}{}", finished.stderr);
    let output = output.trim_end();
    if !output.is_empty() {
        message.push_str(":\n");
        message.push_str(output);
    }
    Err(SuiteError::Build(message))
}

/// The temporary directory of one `rho bench` in module mode: `include/rho/bench.h`, a build directory per
/// suite, the built-in ports. Removed when dropped, and on Ctrl-C.
struct Workspace {
    dir: ScratchDir,
}

impl Workspace {
    fn new() -> Result<Workspace> {
        let dir = ScratchDir::new("rho-project-")
            .doing(|| "cannot create a temporary directory".to_string())?;
        write_header(dir.path())?;
        Ok(Workspace { dir })
    }

    fn include_dir(&self) -> PathBuf {
        self.dir.path().join("include")
    }

    fn ports_dir(&self) -> PathBuf {
        self.dir.path().join("ports")
    }

    /// A fresh build directory for suite number `index`.
    fn out_dir(&self, index: usize) -> Result<PathBuf> {
        let path = self.dir.path().join(format!("out-{index}"));
        std::fs::create_dir_all(&path).doing(|| format!("cannot create {}", path.display()))?;
        Ok(path)
    }
}

/// The target a run of `config` on `target` will name in its streams, when that is known before it runs: a
/// built-in target's name, unless every suite is a command (which runs on the host whatever the target).
pub fn streams_name<'a>(config: &ModuleConfig, target: &'a TargetSpec) -> Option<&'a str> {
    match target {
        TargetSpec::Builtin { name, .. }
            if !config
                .suites
                .iter()
                .all(|s| matches!(s, Suite::Command { .. })) =>
        {
            Some(name.as_str())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> ModuleConfig {
        ModuleConfig::from_str(text, Path::new("module.yml")).unwrap()
    }

    fn run_args() -> RunOptions {
        RunOptions {
            timeout_seconds: 300.0,
            ..RunOptions::default()
        }
    }

    #[test]
    fn the_scale_comes_from_the_command_line_then_the_environment_then_module_yml() {
        assert_eq!(
            resolve_scale(Some(0.5), Some("2".into()), 3.0).unwrap(),
            0.5
        );
        assert_eq!(resolve_scale(None, Some("2".into()), 3.0).unwrap(), 2.0);
        assert_eq!(resolve_scale(None, None, 3.0).unwrap(), 3.0);
        for bad in ["0", "-1", "x", "inf", ""] {
            let error = resolve_scale(None, Some(bad.into()), 1.0).unwrap_err();
            assert!(error.to_string().contains("RHO_BENCH_SCALE"), "{error}");
        }
    }

    #[test]
    fn module_yml_settings_become_the_harness_environment() {
        let config = config(
            "bench:\n  default_iterations: 500\n  warmup_runs: 7\n  stack_watermark: false\n  time_cap_ms: 250\n  \
             scale: 2.0\n  batch: 1\n  benchmarks:\n    bench_a:\n      iterations: 40\n      batch: 64\n",
        );
        let settings = Settings {
            scale: 2.0,
            ..Settings::resolve(&config, &run_args()).unwrap()
        };
        let env = settings.environment();
        let get = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        assert_eq!(get("RHO_BENCH_ITERATIONS"), Some("500"));
        assert_eq!(get("RHO_BENCH_ITERATIONS_bench_a"), Some("40"));
        assert_eq!(get("RHO_BENCH_BATCH"), Some("1"));
        assert_eq!(get("RHO_BENCH_BATCH_bench_a"), Some("64"));
        assert_eq!(get("RHO_BENCH_WARMUP"), Some("7"));
        assert_eq!(get("RHO_BENCH_SCALE"), Some("2"));
        assert_eq!(get("RHO_BENCH_TIME_CAP_MS"), Some("250"));
        assert_eq!(get("RHO_BENCH_STACK_BYTES"), Some("0"));

        let mut cli = run_args();
        cli.iterations = Some(9);
        cli.scale = Some(0.25);
        let settings = Settings::resolve(&config, &cli).unwrap();
        assert_eq!(settings.iterations, Some(9), "the command line wins");
        assert_eq!(settings.scale, 0.25);
    }

    #[test]
    fn suites_become_jobs_in_order_and_a_commands_target_alone_is_one() {
        let config =
            config("bench:\n  suites:\n    - a.c\n    - [b.c, src/c.c]\n    - command: sh x.sh\n");
        let host = config.target(None).unwrap();
        let jobs = jobs(&config, &host).unwrap();
        assert_eq!(jobs.len(), 3);
        assert_eq!(jobs[1].what, "b.c src/c.c");
        assert_eq!(
            jobs[1].sources,
            [PathBuf::from("./b.c"), PathBuf::from("./src/c.c")]
        );
        assert_eq!(jobs[2].kind, JobKind::Command("sh x.sh".into()));

        let board = config_with_board();
        let target = board.target(None).unwrap();
        let alone = super::jobs(&board, &target).unwrap();
        assert_eq!(alone.len(), 1);
        assert_eq!(alone[0].kind, JobKind::TargetOnly);
    }

    #[test]
    fn a_command_suite_is_not_built_by_rho_and_says_so_with_its_kind_of_error() {
        let config = config("bench:\n  suites:\n    - command: sh x.sh\n");
        let host = config.target(None).unwrap();
        let jobs = jobs(&config, &host).unwrap();
        assert_eq!(jobs[0].command(), Some("sh x.sh"));
        let error = build_on_host(
            &config,
            &jobs[0],
            &[],
            &Flags::default(),
            Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(matches!(error, SuiteError::Unsupported(_)), "{error:?}");
        assert!(error.full_text().contains("builds itself"), "{error}");
    }

    fn config_with_board() -> ModuleConfig {
        config("bench:\n  targets:\n    - name: board\n      build: make\n      run: ./flash\n")
    }
}
