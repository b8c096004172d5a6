//! The validated contents of a `module.yml`, and the questions the CLI asks of it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::builtin::BUILTIN_TARGETS;
use crate::error::{ConfigError, SourcePos};

/// Where the committed baseline lives when `bench.baseline` is not given, relative to the module root.
pub const DEFAULT_BASELINE: &str = "bench/baseline.json";

/// `bench.gate.runs` when not given.
pub const DEFAULT_GATE_RUNS: u32 = 3;
/// `bench.gate.timeout_seconds` when not given.
pub const DEFAULT_GATE_TIMEOUT: Duration = Duration::from_secs(120);
/// `bench.gate.budget.default` when not given: head may be at most 30% worse than base.
pub const DEFAULT_GATE_BUDGET: f64 = 0.30;
/// The fewest `bench.gate.runs`: a side's best of one run is just a run, with no idea of its noise.
pub const MIN_GATE_RUNS: u32 = 2;

/// The range of a usable `scale` (module.yml, `--scale`, `RHO_BENCH_SCALE`), both ends included: what the
/// harness accepts (it refuses more than 1e9), and no smaller than a figure shown in a few digits.
pub const SCALE_RANGE: (f64, f64) = (1e-9, 1e9);
/// The range of a usable timeout in seconds (`timeout_seconds`, `--timeout`), both ends included: 1 ms to
/// about 115 days. Outside it a timeout is a typo: every run would time out at once, or none ever could.
pub const TIMEOUT_RANGE_SECONDS: (f64, f64) = (0.001, 1e7);

/// Whether `scale` is in [`SCALE_RANGE`]. The one rule for module.yml and the command line.
pub fn is_scale(scale: f64) -> bool {
    (SCALE_RANGE.0..=SCALE_RANGE.1).contains(&scale)
}

/// Whether `seconds` is in [`TIMEOUT_RANGE_SECONDS`]. The one rule for module.yml and the command line.
pub fn is_timeout_seconds(seconds: f64) -> bool {
    (TIMEOUT_RANGE_SECONDS.0..=TIMEOUT_RANGE_SECONDS.1).contains(&seconds)
}

/// Whether `fraction` is a usable gate budget: strictly between 0 and 1 (0 would fail on noise alone, 1 or
/// more lets a doubling through). The one rule for module.yml and for `--budget` (rho-gate calls it).
pub fn is_gate_budget(fraction: f64) -> bool {
    fraction > 0.0 && fraction < 1.0
}

/// A whole module config: the `bench:` section of `module.yml` with every default applied.
#[derive(Debug, Clone, PartialEq)]
pub struct ModuleConfig {
    /// The file it was read from, as given (used in messages).
    pub file: PathBuf,
    /// The module root: the directory holding `module.yml`. Relative paths in the config are relative to it.
    pub root: PathBuf,
    /// `default_iterations`: measured iterations per benchmark; `None` leaves the harness's own default.
    pub default_iterations: Option<u64>,
    /// `batch`: iterations per measured sample for every benchmark (the harness's `RHO_BENCH_BATCH`): 1 never
    /// batches, 0 lets the harness size each; `None` leaves the harness's own default (sized).
    pub batch: Option<u64>,
    /// `warmup_runs`: discarded iterations before measuring; `None` leaves the harness's own default.
    pub warmup_runs: Option<u64>,
    /// `stack_watermark`: paint and scan the stack to measure its depth (default `true`).
    pub stack_watermark: bool,
    /// `repetitions`: run the suite this many times and keep each figure's best run (default 1).
    pub repetitions: u32,
    /// `scale`: multiplies every iteration count; below 1.0 budgets are reported, not enforced (default 1.0).
    pub scale: f64,
    /// `time_cap_ms`: measured-time cap per benchmark in milliseconds, 0 for none; `None` leaves the harness's
    /// own default.
    pub time_cap_ms: Option<u64>,
    /// `budgets`: the global budgets as written (0 for a time or cycle ceiling means "report only").
    pub budgets: Budgets,
    /// `benchmarks`: per-benchmark settings, in the order written.
    pub benchmarks: Vec<BenchmarkConfig>,
    /// `suites`: what to build and run when no files are named on the command line (may be empty).
    pub suites: Vec<Suite>,
    /// Where the `suites` key was written, or the `bench` key when it was not (for "no suites" messages).
    pub suites_at: SourcePos,
    /// `targets`: as listed, in order. Empty when the key is absent (then `host` is the default).
    pub targets: Vec<TargetEntry>,
    /// `baseline`: the committed baseline file, relative to the module root (default `bench/baseline.json`).
    pub baseline: PathBuf,
    /// `gate`: settings for `rho bench gate`.
    pub gate: GateConfig,
    /// `history`: the history branch and its change-point detection (`rho bench history`).
    pub history: HistoryConfig,
    /// `measure`: what `rho bench`, `check` and `gate` measure unless `--measure` says otherwise (default
    /// time).
    pub measure: Measure,
    /// `cflags` and `ldflags`: the flags of every C and C++ suite on a target that has none of its own.
    pub flags: DefaultFlags,
    /// `mem_command`: the command asked for the built image's static footprint (a `rho-mem/1` document on
    /// stdout; docs/mem-json.md), split as a shell would and run in the module root with the image and its
    /// stack-usage directory appended. `None`: `rho mem --json`, run by the same `rho`.
    pub mem_command: Option<String>,
}

/// Compiler and linker flags that apply to every suite rho compiles (`bench.cflags`/`bench.ldflags`, or a
/// target's own), already split into words. `None`: not written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DefaultFlags {
    pub cflags: Option<Vec<String>>,
    pub ldflags: Option<Vec<String>>,
}

/// How a C/C++ suite is built beyond its files: the keys of a mapping suite. All empty for a path or a list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SuiteBuild {
    /// `cflags`: compiler flags, before the sources, split into words.
    pub cflags: Vec<String>,
    /// `ldflags`: linker flags and libraries, after the sources, split into words.
    pub ldflags: Vec<String>,
    /// `include`: include directories, relative to the module root (passed as `-I`).
    pub include: Vec<PathBuf>,
    /// `defines`: `NAME` (no value, `-DNAME`) or `NAME=VALUE`, in the order written.
    pub defines: Vec<(String, Option<String>)>,
    /// `pkg_config`: packages whose `pkg-config --cflags` and `--libs` are added.
    pub pkg_config: Vec<String>,
}

impl SuiteBuild {
    /// Whether nothing beyond the files was asked for.
    pub fn is_empty(&self) -> bool {
        *self == SuiteBuild::default()
    }
}

/// What a run measures: time (cycles and ns, on the suite's clocks), instructions (counted exactly, under
/// Callgrind on a host), or both (two runs, one report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Measure {
    #[default]
    Time,
    Instructions,
    Both,
}

impl Measure {
    /// `time`, `instructions`, or both comma-separated in either order (`time,instructions`).
    pub fn parse(text: &str) -> Option<Measure> {
        let mut time = false;
        let mut instructions = false;
        for word in text.split(',') {
            match word.trim() {
                "time" if !time => time = true,
                "instructions" if !instructions => instructions = true,
                _ => return None,
            }
        }
        match (time, instructions) {
            (true, false) => Some(Measure::Time),
            (false, true) => Some(Measure::Instructions),
            (true, true) => Some(Measure::Both),
            (false, false) => None,
        }
    }

    pub fn times(self) -> bool {
        matches!(self, Measure::Time | Measure::Both)
    }

    pub fn counts(self) -> bool {
        matches!(self, Measure::Instructions | Measure::Both)
    }

    /// `budgets` without the ceilings on what this measurement does not measure (time budgets when only
    /// counting, the instruction budget when only timing): those are not judged, rather than "not measured".
    pub fn applicable(self, budgets: Budgets) -> Budgets {
        let mut budgets = budgets;
        if !self.times() {
            budgets.max_cycles_per_iteration = None;
            budgets.max_ns_per_iteration = None;
            budgets.max_cpu_ns_per_iteration = None;
            budgets.max_ns_per_op = None;
        }
        if !self.counts() {
            budgets.max_instructions_per_iteration = None;
        }
        budgets
    }
}

/// Ceilings for one benchmark's figures. `None` means "no budget for this figure". Every figure is per
/// measured iteration (or per op) and lower is better.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Budgets {
    /// Deepest stack use in bytes.
    pub max_stack_bytes: Option<u64>,
    /// Peak heap held in bytes.
    pub max_heap_bytes: Option<u64>,
    /// Cycles per measured iteration (net of the harness's overhead). 0 in the file means report only.
    pub max_cycles_per_iteration: Option<f64>,
    /// Nanoseconds per measured iteration. 0 in the file means report only.
    pub max_ns_per_iteration: Option<f64>,
    /// CPU-time nanoseconds per iteration, for a harness that measures them (Google Benchmark's
    /// `cpu_time`). 0 in the file means report only.
    pub max_cpu_ns_per_iteration: Option<f64>,
    /// Nanoseconds per op (an iteration's time divided by its `per_iteration` ops). 0 in the file means report
    /// only.
    pub max_ns_per_op: Option<f64>,
    /// Code bytes of the benchmark function and everything it can reach (static, from the built image).
    pub max_code_bytes: Option<u64>,
    /// The static stack bound in bytes (the deepest call path's frames); an unbounded benchmark breaks it.
    pub max_static_stack_bytes: Option<u64>,
    /// Largest allowed growth, in percent, of any figure against the baseline (`5.0` = 5%).
    pub fail_on_regression_percent: Option<f64>,
    /// Net instructions per measured iteration (exact). 0 in the file means report only.
    pub max_instructions_per_iteration: Option<f64>,
    /// Largest allowed growth of instructions against the baseline, in percent (default 1%).
    pub fail_on_instructions_regression_percent: Option<f64>,
    /// The fastest growth a benchmark family's cost may have against its argument (`max_growth: n`): its best
    /// fit (cycles, time, instructions) must be this class or a slower one. Judged per family, under the
    /// family's name (`bench.benchmarks.FAMILY.budgets`) or for every family (`bench.budgets`).
    pub max_growth: Option<rho_stats::Complexity>,
}

impl Budgets {
    /// `self` with each figure `over` sets replaced by `over`'s.
    pub fn overridden_by(&self, over: &Budgets) -> Budgets {
        Budgets {
            max_stack_bytes: over.max_stack_bytes.or(self.max_stack_bytes),
            max_heap_bytes: over.max_heap_bytes.or(self.max_heap_bytes),
            max_cycles_per_iteration: over
                .max_cycles_per_iteration
                .or(self.max_cycles_per_iteration),
            max_ns_per_iteration: over.max_ns_per_iteration.or(self.max_ns_per_iteration),
            max_cpu_ns_per_iteration: over
                .max_cpu_ns_per_iteration
                .or(self.max_cpu_ns_per_iteration),
            max_ns_per_op: over.max_ns_per_op.or(self.max_ns_per_op),
            max_code_bytes: over.max_code_bytes.or(self.max_code_bytes),
            max_static_stack_bytes: over.max_static_stack_bytes.or(self.max_static_stack_bytes),
            fail_on_regression_percent: over
                .fail_on_regression_percent
                .or(self.fail_on_regression_percent),
            max_instructions_per_iteration: over
                .max_instructions_per_iteration
                .or(self.max_instructions_per_iteration),
            fail_on_instructions_regression_percent: over
                .fail_on_instructions_regression_percent
                .or(self.fail_on_instructions_regression_percent),
            max_growth: over.max_growth.or(self.max_growth),
        }
    }

    /// `self` with the "report only" zeros of the time and cycle ceilings turned into `None`, so a consumer
    /// never has to know that convention: `Some(x)` is always a ceiling to enforce.
    pub fn without_report_only(&self) -> Budgets {
        let ceiling = |v: Option<f64>| v.filter(|x| *x > 0.0);
        Budgets {
            max_cycles_per_iteration: ceiling(self.max_cycles_per_iteration),
            max_ns_per_iteration: ceiling(self.max_ns_per_iteration),
            max_cpu_ns_per_iteration: ceiling(self.max_cpu_ns_per_iteration),
            max_ns_per_op: ceiling(self.max_ns_per_op),
            max_instructions_per_iteration: ceiling(self.max_instructions_per_iteration),
            ..*self
        }
    }

    /// True when no figure has a ceiling (after [`Budgets::without_report_only`]).
    pub fn is_empty(&self) -> bool {
        let b = self.without_report_only();
        b.max_stack_bytes.is_none()
            && b.max_heap_bytes.is_none()
            && b.max_cycles_per_iteration.is_none()
            && b.max_ns_per_iteration.is_none()
            && b.max_cpu_ns_per_iteration.is_none()
            && b.max_ns_per_op.is_none()
            && b.max_code_bytes.is_none()
            && b.max_static_stack_bytes.is_none()
            && b.fail_on_regression_percent.is_none()
            && b.max_instructions_per_iteration.is_none()
            && b.fail_on_instructions_regression_percent.is_none()
            && b.max_growth.is_none()
    }
}

/// `bench.benchmarks.NAME`: settings for one benchmark, by its name in the wire stream.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkConfig {
    pub name: String,
    /// Measured iterations for this benchmark instead of `default_iterations`.
    pub iterations: Option<u64>,
    /// Iterations per measured sample for this benchmark instead of `bench.batch` (the harness's
    /// `RHO_BENCH_BATCH_<name>`): 1 never batches, 0 lets the harness size it.
    pub batch: Option<u64>,
    /// Budgets as written here; each one set replaces the global one.
    pub budgets: Budgets,
    /// Where the benchmark's name was written.
    pub at: SourcePos,
}

/// One `bench.suites` entry: something that, built and run, prints the wire stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Suite {
    /// C and C++ files compiled together into one suite for the selected target, relative to the module root,
    /// with the flags, include directories, defines and packages of a mapping suite.
    CFiles {
        files: Vec<PathBuf>,
        build: SuiteBuild,
        at: SourcePos,
    },
    /// A shell command, run in the module root, whose stdout is the wire stream; `image:` names the image it
    /// built (relative to the module root) for the static footprint, its stack-usage files beside it.
    Command {
        command: String,
        image: Option<PathBuf>,
        at: SourcePos,
    },
    /// A target of the module's CMake project: `cmake --build BUILD_DIR --target TARGET`, then the executable.
    CMake(CMakeSuite),
    /// A `[[bench]] harness = false` target of a cargo project using the `rho-bench` crate: built with cargo,
    /// then the executable.
    Cargo(CargoSuite),
    /// Another harness's suite (`gbench:`, `criterion:`, `hyperfine:`, `gotest:`, `pytest-benchmark:`): rho
    /// runs its tool and reads its report (crates/rho-import, docs/import.md).
    Foreign(ForeignSuite),
}

/// Which harness a [`ForeignSuite`] is: the key module.yml names it by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForeignTool {
    Gbench,
    Criterion,
    Hyperfine,
    Gotest,
    PytestBenchmark,
}

impl ForeignTool {
    pub const ALL: [ForeignTool; 5] = [
        ForeignTool::Gbench,
        ForeignTool::Criterion,
        ForeignTool::Hyperfine,
        ForeignTool::Gotest,
        ForeignTool::PytestBenchmark,
    ];

    /// The module.yml key (and `rho bench import`'s format name).
    pub fn key(self) -> &'static str {
        match self {
            ForeignTool::Gbench => "gbench",
            ForeignTool::Criterion => "criterion",
            ForeignTool::Hyperfine => "hyperfine",
            ForeignTool::Gotest => "gotest",
            ForeignTool::PytestBenchmark => "pytest-benchmark",
        }
    }

    /// What the key's value is, for errors.
    pub fn expects(self) -> &'static str {
        match self {
            ForeignTool::Gbench => "a Google Benchmark binary's command line",
            ForeignTool::Criterion => "a criterion bench target's name",
            ForeignTool::Hyperfine => "hyperfine's arguments, or a list of commands",
            ForeignTool::Gotest => "the Go packages to benchmark",
            ForeignTool::PytestBenchmark => "a pytest command line",
        }
    }
}

/// `{ gbench: COMMAND }` and its kin: the tool and what module.yml gave it (for `hyperfine:` a list of
/// commands is given as one argument string, each command quoted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignSuite {
    pub tool: ForeignTool,
    pub argument: String,
    pub at: SourcePos,
}

/// `{ cargo: BENCH_NAME, package: PACKAGE, features: [...] }`: `cargo bench --no-run --bench BENCH_NAME` in the
/// module root (cargo finds the project's `Cargo.toml` from there, as it does for a person).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CargoSuite {
    /// The bench target's name (`[[bench]] name`).
    pub bench: String,
    /// The package that has it (`-p`), when the project is a workspace of several.
    pub package: Option<String>,
    /// Cargo features to enable (`--features`).
    pub features: Vec<String>,
    pub at: SourcePos,
}

impl CargoSuite {
    /// How the suite is named in reports and errors: `cargo bench NAME` (with `-p PACKAGE`).
    pub fn describe(&self) -> String {
        match &self.package {
            Some(package) => format!("cargo bench {} -p {package}", self.bench),
            None => format!("cargo bench {}", self.bench),
        }
    }
}

/// `{ cmake: { build_dir, target, source_dir } }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CMakeSuite {
    /// The CMake build directory, relative to the module root (configured by rho when it is not yet).
    pub build_dir: PathBuf,
    /// The executable target (made by `rho_add_benchmark`).
    pub target: String,
    /// The directory of the top `CMakeLists.txt`, relative to the module root (default: the root).
    pub source_dir: PathBuf,
    pub at: SourcePos,
}

impl Suite {
    /// Where the entry was written.
    pub fn at(&self) -> SourcePos {
        match self {
            Suite::CFiles { at, .. } | Suite::Command { at, .. } => *at,
            Suite::CMake(cmake) => cmake.at,
            Suite::Cargo(cargo) => cargo.at,
            Suite::Foreign(foreign) => foreign.at,
        }
    }

    /// How the suite is named in reports: its files, its command, or its CMake target.
    pub fn describe(&self) -> String {
        match self {
            Suite::CFiles { files, .. } => files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            Suite::Command { command, .. } => command.clone(),
            Suite::CMake(cmake) => format!("cmake target {}", cmake.target),
            Suite::Cargo(cargo) => cargo.describe(),
            Suite::Foreign(foreign) => format!("{}: {}", foreign.tool.key(), foreign.argument),
        }
    }
}

/// One `bench.targets` entry, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetEntry {
    pub name: String,
    /// Shell command that builds the suite for the target. `Some` exactly when `run` is.
    pub build: Option<String>,
    /// Shell command that runs it; its stdout is the wire stream.
    pub run: Option<String>,
    /// Limit per build and per run.
    pub timeout: Option<Duration>,
    /// `budgets:` of this target: laid over the global budgets when this target is selected (cycles on a host
    /// and on a board are different units, so one set of ceilings rarely fits both).
    pub budgets: Budgets,
    /// `benchmarks:` of this target: per-benchmark budgets on this target, laid over everything else.
    pub benchmarks: Vec<BenchmarkConfig>,
    /// `cflags:`/`ldflags:` of this target: each replaces `bench.cflags`/`bench.ldflags` on it (a board needs
    /// flags of its own).
    pub flags: DefaultFlags,
    /// `stack_bytes:` of this target: the painted stack region (`RHO_BENCH_STACK_BYTES`) on it, in place of the
    /// harness's default (a host's 64 KiB, a board's stack less its guard).
    pub stack_bytes: Option<u64>,
    /// `counter:` of this target (one with `build:`/`run:`): who counts its instructions exactly.
    pub counter: Option<TargetCounter>,
    /// Where the entry was written.
    pub at: SourcePos,
}

/// `counter:` of a target with its own commands: how rho counts its instructions exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetCounter {
    /// `qemu-plugin`: the run loads rho's QEMU counting plugin, as the built-in boards do. rho builds the
    /// suite again with `RHO_BENCH_MEASURE=instructions` and runs the target's `run:` with `RHO_QEMU_PLUGIN`
    /// (the argument of QEMU's `-plugin`) and `RHO_QEMU_COUNTS` (the file the plugin writes) set.
    QemuPlugin,
}

impl TargetCounter {
    /// The word module.yml spells it with.
    pub const fn key(self) -> &'static str {
        match self {
            TargetCounter::QemuPlugin => "qemu-plugin",
        }
    }
}

impl TargetEntry {
    /// This target's own `benchmarks.NAME` entry, if it has one.
    pub fn benchmark(&self, bench_name: &str) -> Option<&BenchmarkConfig> {
        self.benchmarks.iter().find(|b| b.name == bench_name)
    }
}

/// The selected target, ready for the CLI.
#[derive(Debug, Clone, PartialEq)]
pub enum TargetSpec {
    /// A target the `rho` binary defines itself (one of [`BUILTIN_TARGETS`]); the CLI fills in how to build
    /// and run it. `timeout` is module.yml's, if it gave one.
    Builtin {
        name: String,
        timeout: Option<Duration>,
    },
    /// A target built and run by module.yml's own commands (also a built-in name that module.yml redefines).
    Commands {
        name: String,
        build: String,
        run: String,
        timeout: Option<Duration>,
        /// `counter:`: who counts its instructions exactly (`None`: its ticks are its figures).
        counter: Option<TargetCounter>,
        at: SourcePos,
    },
}

impl TargetSpec {
    pub fn name(&self) -> &str {
        match self {
            TargetSpec::Builtin { name, .. } | TargetSpec::Commands { name, .. } => name,
        }
    }

    pub fn timeout(&self) -> Option<Duration> {
        match self {
            TargetSpec::Builtin { timeout, .. } | TargetSpec::Commands { timeout, .. } => *timeout,
        }
    }
}

/// `percent` as a gate budget (a fraction), when it is one ([`is_gate_budget`]).
fn percent_as_gate_budget(percent: Option<f64>) -> Option<f64> {
    percent.map(|p| p / 100.0).filter(|&f| is_gate_budget(f))
}

/// `bench.history`: where `rho bench history` keeps its records and how it finds change points; `None` leaves
/// the default (branch `rho-history`, window 50, p-value 0.001: docs/history.md).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HistoryConfig {
    /// `branch`: the history branch's name.
    pub branch: Option<String>,
    /// `window`: the length of the sliding window change points are searched in (at least 6).
    pub window: Option<usize>,
    /// `max_pvalue`: the largest p-value a change point of a noisy metric is kept with, in (0, 1).
    pub max_pvalue: Option<f64>,
}

/// `bench.gate`: base against head.
#[derive(Debug, Clone, PartialEq)]
pub struct GateConfig {
    /// Alternating runs per side, at least 2: the fewest every benchmark gets.
    pub runs: u32,
    /// The most alternating runs per side a benchmark whose verdict is still open gets (adaptive runs,
    /// docs/gate.md); `None`: `runs`, every benchmark runs `runs` times.
    pub max_runs: Option<u32>,
    /// Limit per build and per run.
    pub timeout: Duration,
    /// `bench.gate.budget.default`, a fraction in (0, 1) for every metric not named in `budgets`; `None` when
    /// not set ([`ModuleConfig::gate_default_budget`] falls back to `fail_on_regression_percent`).
    pub default_budget: Option<f64>,
    /// Fraction in (0, 1) per metric name (e.g. `bench_crc_256.cycles`, `count_below_ns`).
    pub budgets: BTreeMap<String, f64>,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            runs: DEFAULT_GATE_RUNS,
            max_runs: None,
            timeout: DEFAULT_GATE_TIMEOUT,
            default_budget: None,
            budgets: BTreeMap::new(),
        }
    }
}

impl GateConfig {
    /// The largest allowed growth of `metric`, as a fraction: its own budget, else `gate.budget.default`,
    /// else [`DEFAULT_GATE_BUDGET`] (no fallback to `fail_on_regression_percent`: see
    /// [`ModuleConfig::gate_budget_for`]).
    pub fn budget_for(&self, metric: &str) -> f64 {
        self.budgets
            .get(metric)
            .copied()
            .unwrap_or(self.default_budget.unwrap_or(DEFAULT_GATE_BUDGET))
    }
}

impl ModuleConfig {
    /// The global budgets with `bench_name`'s own budgets laid over them, report-only zeros removed: each
    /// `Some` is a ceiling to enforce, each `None` a figure that is only reported. These ignore any target's
    /// own budgets; a run on a target is judged with [`ModuleConfig::budgets_for_target`].
    pub fn budgets_for(&self, bench_name: &str) -> Budgets {
        let merged = match self.benchmark(bench_name) {
            Some(bench) => self.budgets.overridden_by(&bench.budgets),
            None => self.budgets,
        };
        merged.without_report_only()
    }

    /// The budgets of `bench_name` on `target`, report-only zeros removed, laid key by key in this order, each
    /// replacing what came before: `bench.budgets`, the target's `budgets`, `bench.benchmarks.NAME.budgets`,
    /// the target's `benchmarks.NAME.budgets`. A target not listed in `bench.targets` (a built-in selected with
    /// `--target`) has no budgets of its own: the result is [`ModuleConfig::budgets_for`].
    pub fn budgets_for_target(&self, target: &str, bench_name: &str) -> Budgets {
        let entry = self.targets.iter().find(|t| t.name == target);
        let mut merged = self.budgets;
        if let Some(entry) = entry {
            merged = merged.overridden_by(&entry.budgets);
        }
        if let Some(bench) = self.benchmark(bench_name) {
            merged = merged.overridden_by(&bench.budgets);
        }
        if let Some(bench) = entry.and_then(|e| e.benchmark(bench_name)) {
            merged = merged.overridden_by(&bench.budgets);
        }
        merged.without_report_only()
    }

    /// The budgets `target`'s own entry sets for `bench_name` (its `budgets:`, then its `benchmarks.NAME.budgets`
    /// over them), as written: none for a target not listed. What a verdict on the target calls its own.
    pub fn target_budgets_for(&self, target: &str, bench_name: &str) -> Budgets {
        let Some(entry) = self.targets.iter().find(|t| t.name == target) else {
            return Budgets::default();
        };
        match entry.benchmark(bench_name) {
            Some(bench) => entry.budgets.overridden_by(&bench.budgets),
            None => entry.budgets,
        }
    }

    /// The `bench.benchmarks` entries with budgets whose name is not in `names_seen` (the benchmarks the suites
    /// printed), and then those of `target`'s own `benchmarks:` when `target` is listed: a typo such as
    /// `bench_crc_46` would otherwise leave its budgets silently unused. Each comes with where its name was
    /// written and the closest seen name when one is a plausible typo. See [`unmatched_benchmarks`].
    pub fn unmatched_benchmarks_on(
        &self,
        target: Option<&str>,
        names_seen: &[&str],
    ) -> Vec<(String, SourcePos, Option<String>)> {
        let own = target
            .and_then(|name| self.targets.iter().find(|t| t.name == name))
            .map(|t| t.benchmarks.as_slice())
            .unwrap_or_default();
        let mut out: Vec<(String, SourcePos, Option<String>)> = Vec::new();
        for bench in self.benchmarks.iter().chain(own) {
            if bench.budgets == Budgets::default() || names_seen.contains(&bench.name.as_str()) {
                continue;
            }
            let suggestion = crate::suggest::closest(&bench.name, names_seen).map(str::to_owned);
            out.push((bench.name.clone(), bench.at, suggestion));
        }
        out
    }

    /// Measured iterations for `bench_name`: its own setting, else `default_iterations` (`None`: the harness's
    /// default).
    pub fn iterations_for(&self, bench_name: &str) -> Option<u64> {
        self.benchmark(bench_name)
            .and_then(|b| b.iterations)
            .or(self.default_iterations)
    }

    /// The `bench.benchmarks` entry for `bench_name`, if there is one.
    pub fn benchmark(&self, bench_name: &str) -> Option<&BenchmarkConfig> {
        self.benchmarks.iter().find(|b| b.name == bench_name)
    }

    /// The gate budget for a time or memory `metric`: its own, else [`ModuleConfig::gate_default_budget`]
    /// (rho-gate has the rule for instruction counts, [`ModuleConfig::gate_instructions_budget`] first).
    pub fn gate_budget_for(&self, metric: &str) -> f64 {
        self.gate
            .budgets
            .get(metric)
            .copied()
            .unwrap_or_else(|| self.gate_default_budget())
    }

    /// The gate's budget for a metric with none of its own: `gate.budget.default` when set, else the global
    /// `fail_on_regression_percent` as a fraction (so one threshold serves `--diff` and the gate) when it is a
    /// usable gate budget (above 0% and below 100%), else [`DEFAULT_GATE_BUDGET`].
    pub fn gate_default_budget(&self) -> f64 {
        self.gate
            .default_budget
            .or_else(|| percent_as_gate_budget(self.budgets.fail_on_regression_percent))
            .unwrap_or(DEFAULT_GATE_BUDGET)
    }

    /// The gate's budget for an instruction count with none of its own in `gate.budget`: the global
    /// `fail_on_instructions_regression_percent` as a fraction, when set and a usable gate budget; `None`
    /// otherwise (the gate then uses its own rule for counts).
    pub fn gate_instructions_budget(&self) -> Option<f64> {
        percent_as_gate_budget(self.budgets.fail_on_instructions_regression_percent)
    }

    /// `path` relative to the module root (an absolute path stays as it is).
    pub fn resolve(&self, path: &Path) -> PathBuf {
        self.root.join(path)
    }

    /// The default compiler and linker flags of every suite built for `target`: the target's own `cflags` and
    /// `ldflags` where it has them, else `bench.cflags` and `bench.ldflags` (each key on its own).
    pub fn flags_for_target(&self, target: &str) -> (Vec<String>, Vec<String>) {
        let own = self
            .targets
            .iter()
            .find(|t| t.name == target)
            .map(|t| &t.flags);
        let pick = |own: Option<&Vec<String>>, global: &Option<Vec<String>>| {
            own.or(global.as_ref()).cloned().unwrap_or_default()
        };
        (
            pick(own.and_then(|f| f.cflags.as_ref()), &self.flags.cflags),
            pick(own.and_then(|f| f.ldflags.as_ref()), &self.flags.ldflags),
        )
    }

    /// The painted stack region `target`'s own entry sets (`stack_bytes:`), if it sets one.
    pub fn stack_bytes_for_target(&self, target: &str) -> Option<u64> {
        self.targets
            .iter()
            .find(|t| t.name == target)
            .and_then(|t| t.stack_bytes)
    }

    /// The committed baseline file, resolved against the module root.
    pub fn baseline_path(&self) -> PathBuf {
        self.resolve(&self.baseline)
    }

    /// The suites to run when none are named on the command line; an error naming the file when there are none.
    pub fn require_suites(&self) -> Result<&[Suite], ConfigError> {
        if self.suites.is_empty() {
            return Err(ConfigError::Invalid {
                file: self.file.clone(),
                pos: self.suites_at,
                message: "no suites to run: add a `suites:` list under `bench:` (C files, or \
                          `{ command: ... }`), or name C files on the command line"
                    .to_owned(),
            });
        }
        Ok(&self.suites)
    }

    /// The target to build and run for: `name`, or by default the first one listed (`host` when none is).
    ///
    /// A listed name with no `build:`/`run:` is its built-in definition; when it has none, this is the error
    /// (the file loads regardless, so a config may list a board that only some machines can reach).
    pub fn target(&self, name: Option<&str>) -> Result<TargetSpec, ConfigError> {
        let entry = match name {
            Some(name) => self.targets.iter().find(|t| t.name == name),
            None => self.targets.first(),
        };
        let Some(entry) = entry else {
            let name = name.unwrap_or("host");
            if BUILTIN_TARGETS.contains(&name) {
                return Ok(TargetSpec::Builtin {
                    name: name.to_owned(),
                    timeout: None,
                });
            }
            return Err(ConfigError::UnknownTarget {
                file: self.file.clone(),
                name: name.to_owned(),
                listed: self.targets.iter().map(|t| t.name.clone()).collect(),
            });
        };
        match (&entry.build, &entry.run) {
            (Some(build), Some(run)) => Ok(TargetSpec::Commands {
                name: entry.name.clone(),
                build: build.clone(),
                run: run.clone(),
                timeout: entry.timeout,
                counter: entry.counter,
                at: entry.at,
            }),
            _ if BUILTIN_TARGETS.contains(&entry.name.as_str()) => Ok(TargetSpec::Builtin {
                name: entry.name.clone(),
                timeout: entry.timeout,
            }),
            _ => Err(ConfigError::Invalid {
                file: self.file.clone(),
                pos: entry.at,
                message: format!(
                    "target '{0}' has no built-in definition and no `build:` or `run:` command; \
                     write it as a map: `- {{ name: {0}, build: <shell command>, run: <shell command> }}` \
                     (built in: {1})",
                    entry.name,
                    BUILTIN_TARGETS.join(", ")
                ),
            }),
        }
    }
}

/// The `bench.benchmarks` entries of `config` that set budgets for a benchmark no suite printed: `(name, where
/// the name was written, the closest name in names_seen when one is a plausible typo)`, in the order written.
/// `names_seen` are the benchmark names of every suite that ran. Only meaningful when every suite ran: a suite
/// that failed printed no names.
///
/// The CLI reports each as `module.yml:L:C: benchmark 'bench_crc_46' has budgets but no suite ran it; did you
/// mean 'bench_crc_64'?` (see [`unmatched_message`]). A target's own `benchmarks:` are checked by
/// [`ModuleConfig::unmatched_benchmarks_on`].
pub fn unmatched_benchmarks(
    config: &ModuleConfig,
    names_seen: &[&str],
) -> Vec<(String, SourcePos, Option<String>)> {
    config.unmatched_benchmarks_on(None, names_seen)
}

/// The message for one entry of [`unmatched_benchmarks`]: `FILE:L:C: benchmark 'NAME' has budgets but no suite
/// ran it` and, with a suggestion, `; did you mean 'OTHER'?`.
pub fn unmatched_message(
    config: &ModuleConfig,
    name: &str,
    at: SourcePos,
    suggestion: Option<&str>,
) -> String {
    let mut message = format!(
        "{}:{}:{}: benchmark '{name}' has budgets but no suite ran it",
        config.file.display(),
        at.line,
        at.column
    );
    if let Some(suggestion) = suggestion {
        message.push_str(&format!("; did you mean '{suggestion}'?"));
    }
    message
}
