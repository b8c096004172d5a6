//! The baseline file: its types, how figures are rounded, and the exact JSON a reviewer reads in a diff.
//!
//! Stability is the point of this module. Keys come out in the order the structs declare them (targets in
//! name order, benchmarks in suite order), figures are rounded to what their clock can resolve, integral
//! figures are written without a fraction, and the file ends in one newline: the same data always gives the
//! same bytes, so a diff of the file shows what changed in the code and nothing else.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

use crate::error::Error;

pub use crate::schema::{SCHEMA, SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4};

/// A whole baseline file: each target's sections, one per measure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineFile {
    /// Always [`SCHEMA`] in a file this crate holds (a version 1 file is upgraded as it is read).
    pub schema: String,
    /// Sections by target name. A `BTreeMap` so the order in the file is the name order, whatever order the
    /// targets were recorded in.
    pub targets: BTreeMap<String, TargetSections>,
}

/// One target's figures, a section per measure: what a run that measures time records (cycles, nanoseconds,
/// and the stack and heap of that run: native, or the board's) and what a run that counts instructions
/// records (instructions, and the stack and heap of the counted run: under Valgrind on the host). A run is
/// compared with the sections of the measures it made, each with its own, so a stack measured under Valgrind
/// is never judged against a native one (docs/baseline.md, "Measured the same way").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetSections {
    /// `--measure time`: no `instructions` figures in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TargetBaseline>,
    /// `--measure instructions`: no clocks and no `cycles` or `time_ns` figures in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<TargetBaseline>,
}

/// One target's baseline: what produced it, and its benchmarks in suite order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetBaseline {
    pub context: Context,
    pub benchmarks: Vec<BenchmarkBaseline>,
}

/// Everything about a run that decides whether its figures can be compared with another's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Context {
    /// The `@target` name (`host`, `mps2-an386`, ...).
    pub target: String,
    /// The CPU architecture the harness reported.
    pub arch: String,
    /// Whether the harness was compiled with optimisation.
    pub optimized: bool,
    /// The compiler the harness reported, if it did.
    pub compiler: Option<String>,
    /// How the suite was built: the compiler flags for a suite `rho` compiled itself, or the target's build
    /// command. `None` when the caller did not know.
    pub flags: Option<String>,
    /// The `rho` that recorded the figures (`rho 0.1.0`).
    pub tool: String,
    /// When the figures were recorded, UTC, RFC 3339 (`2026-12-02T13:20:15Z`).
    pub recorded_at: String,
    /// Measured iterations asked for per benchmark.
    pub iterations: u64,
    /// Warm-up iterations per benchmark (discarded).
    pub warmup: u64,
    /// How many runs were folded into the figures (best of N, per benchmark and metric).
    pub repetitions: u32,
    pub clocks: Clocks,
    /// Where the `time_ns` figures came from.
    pub time_source: TimeSource,
    /// Who counted the `instructions` figures (`callgrind`, `qemu`, `qemu-icount`); absent when the run counted none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The time section's yardsticks (version 5): the harnesses' fixed reference loop as each suite's run
    /// measured it, one entry per suite that printed one (`@yardstick`, wire version 9). Empty (and absent
    /// from the file) when none did: an older baseline, a counted section, another harness's suites.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub yardsticks: Vec<SuiteYardstick>,
}

/// One suite's yardstick in a baseline: the reference loop's figures per iteration, per clock, the median of
/// its repetitions (best of the runs folded), rounded to 4 significant digits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteYardstick {
    /// The suite whose harness measured it, as the benchmarks' `suite` names it; absent for a section
    /// recorded from one suite's run (`rho bench FILE.c`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    /// Which reference loop (`rho1`).
    #[serde(rename = "loop")]
    pub name: String,
    /// Iterations of the loop a repetition.
    pub iterations: u64,
    /// Cycles per iteration, in the cycle clock's unit; absent without a cycle clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<f64>,
    /// Nanoseconds per iteration by the time clock (or derived from the cycles); absent without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ns: Option<f64>,
    /// CPU-time nanoseconds per iteration; absent without a CPU clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns: Option<f64>,
}

impl SuiteYardstick {
    /// The figure of a time metric (`cycles`, `time_ns`, `cpu_ns`); `None` for any other.
    pub fn of(&self, metric: rho_stats::Metric) -> Option<f64> {
        match metric {
            rho_stats::Metric::Cycles => self.cycles,
            rho_stats::Metric::TimeNs => self.time_ns,
            rho_stats::Metric::CpuNs => self.cpu_ns,
            _ => None,
        }
    }
}

/// The run's clocks, by role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clocks {
    pub cycles: Option<ClockInfo>,
    pub time: Option<ClockInfo>,
}

/// One clock as the harness declared it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockInfo {
    /// `tsc`, `cntvct`, `dwt`, `clock_gettime`, ...
    pub name: String,
    /// `cycle`, `tick`, `ns`.
    pub unit: String,
    /// Counts per second; `None` when the harness did not know.
    pub hz: Option<u64>,
    /// The smallest step the clock was seen to take, in its own unit.
    pub resolution: u64,
}

/// Where a run's nanosecond figures came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeSource {
    /// Measured by the run's time clock (a real-time clock counting nanoseconds).
    TimeClock,
    /// Derived from the cycle clock as `cycles * 1e9 / hz`: nanoseconds only as far as `hz` is right.
    DerivedFromCycles,
    /// The run has no nanosecond figures (no time clock, and a cycle clock of unknown frequency).
    None,
}

/// One benchmark's figures: the statistic a regression is judged on, plus tails for information.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchmarkBaseline {
    pub name: String,
    /// The suite that ran it, as module.yml names it (its files or its command); absent in a version 3 file,
    /// and for a section recorded from one suite's run (`rho bench FILE.c`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    /// What one op is (`iter`, `byte`, ...).
    pub unit: String,
    /// Ops per iteration.
    pub per_iteration: u64,
    /// Measured iterations actually done (fewer than asked when the time cap stopped the benchmark).
    pub iterations: u64,
    /// Iterations per measured sample (`@end batch=`): a batched benchmark's figures are fractions of its clock's
    /// step, kept to a `batch`th of it. Written only when not 1; absent reads as 1.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub batch: u64,
    /// Net cycles per iteration (calibrated overhead taken off), in the cycle clock's unit.
    pub cycles: Option<Figures>,
    /// Net nanoseconds per iteration, from the source `Context::time_source` names.
    pub time_ns: Option<Figures>,
    /// CPU-time nanoseconds per iteration, from another harness that measures them beside the wall clock
    /// (Google Benchmark's `cpu_time`). Added in version 4; absent for every other run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns: Option<Figures>,
    /// The stack high-water mark.
    pub stack_bytes: Stack,
    /// Peak heap bytes held at once through the heap macros; `None` (`null`) when the harness did not measure
    /// the heap (`@heap off`).
    pub heap_peak_bytes: Option<u64>,
    /// Net instructions per iteration, exact (absent when the run counted none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<u64>,
    /// Code bytes of the benchmark function and everything it can reach (static, from the footprint
    /// command; absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_bytes: Option<u64>,
    /// The static stack bound in bytes (absent without a footprint, or when the stack is unbounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_stack_bytes: Option<u64>,
    /// In an instructions section counted under Callgrind: the measured loop's functions (rho-profile; the
    /// same as a run's `instructions.functions`), so `--diff` can name those whose counts changed. Added in
    /// version 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub functions: Option<rho_profile::Functions>,
    /// Another harness's figures besides time (a `gbench:`, `gotest:`, ... suite; crate::extra), each judged
    /// in its own direction. Added in version 4; absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<ExtraFigure>,
    /// A timed run's functions sampled by perf (a run's `sampled_functions`), carried from a saved run into
    /// `compare` only: a baseline file does not keep them (estimates of one run are no baseline), so they are
    /// neither written nor read.
    #[serde(skip)]
    pub sampled_functions: Option<rho_profile::Functions>,
}

/// One extra figure of a benchmark in a baseline (version 4): the median the harness's samples gave, best of
/// the runs folded (the highest for a figure higher is better).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraFigure {
    /// The harness's name for it (`items_per_second`, `B/op`, a user counter's name).
    pub name: String,
    /// Its unit as the harness gave it (empty when it gave none).
    pub unit: String,
    /// `lower` or `higher`: which way is better.
    pub better: rho_stats::Better,
    pub value: Figure,
}

impl ExtraFigure {
    /// A run's extra figures as a baseline keeps them: those judged (one shown only is no figure to judge
    /// against); one that is not a finite number (no harness writes one) is left out rather than written as
    /// something it is not.
    pub fn of_run(extra: &[rho_stats::ExtraMetric]) -> Vec<ExtraFigure> {
        extra
            .iter()
            .filter(|e| e.value.is_finite() && e.judged)
            .map(|e| ExtraFigure {
                name: e.name.clone(),
                unit: e.unit.clone(),
                better: e.better,
                value: Figure(e.value),
            })
            .collect()
    }
}

/// The figures kept for a clocked metric. `median` is the one a regression is judged on; `p95` and `p99`
/// are there for a reviewer, because a median hides the tail.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figures {
    pub median: Figure,
    pub p95: Figure,
    pub p99: Figure,
}

/// A figure as written to the file: an integer when it is integral, otherwise a decimal with at most three
/// places (see [`Rounding`]). Never NaN or infinite: such a figure cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Figure(pub f64);

/// The stack high-water mark as a baseline holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stack {
    /// Deepest use, in bytes.
    Bytes(u64),
    /// The painted region was used to its last byte: no number exists.
    Overrun,
    /// Not measured in that run.
    Off,
}

/// How a clock's figures are rounded before they are written or compared: to what the clock can resolve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rounding {
    /// To the nearest multiple of a whole step (a cycle clock's resolution, or a nanosecond clock's).
    Step(u64),
    /// To this many decimal places (0 to 3): derived nanoseconds, whose resolution is a fraction.
    Decimals(u32),
}

impl Rounding {
    /// Rounding for figures in a clock's own unit: to its resolution (a resolution of 0, "never seen to
    /// step", is treated as 1).
    pub fn for_clock(clock: &ClockInfo) -> Rounding {
        Rounding::Step(clock.resolution.max(1))
    }

    /// Rounding for nanoseconds derived from `cycle_clock` at `hz`: one step of the cycle clock is
    /// `resolution * 1e9 / hz` ns, and figures keep the decimal places that step can show, at most three.
    pub fn for_derived_ns(cycle_clock: &ClockInfo, hz: u64) -> Rounding {
        if hz == 0 {
            return Rounding::Decimals(3);
        }
        Rounding::for_fraction(cycle_clock.resolution.max(1) as f64 * 1e9 / hz as f64)
    }

    /// Rounding to the decimal places a step of `step` (a fraction or not) can show, at most three: a step of
    /// 0.345 resolves tenths (`ceil(-log10(0.345))` = 1 place); a step of 1 or more, whole units.
    pub fn for_fraction(step: f64) -> Rounding {
        if step >= 1.0 {
            return Rounding::Decimals(0);
        }
        if step.is_nan() || step <= 0.0 {
            return Rounding::Decimals(3);
        }
        let places = (-step.log10()).ceil();
        Rounding::Decimals(places.clamp(0.0, 3.0) as u32)
    }

    /// Rounding for figures of samples of `batch` iterations on a clock stepping by `step` (in the figures'
    /// unit): this rounding when `batch` is 1, else the places a step of `step / batch` shows, so the
    /// figure keeps the precision the batch gave it (a 24-cycle body timed in batches of 128 on a 52-cycle
    /// step is written to a tenth of a cycle, not rounded to 0 or 52).
    pub fn for_batch(self, step: f64, batch: u64) -> Rounding {
        if batch <= 1 {
            return self;
        }
        Rounding::for_fraction(step.max(1e-9) / batch as f64)
    }

    /// `value` rounded (half away from zero).
    pub fn apply(self, value: f64) -> f64 {
        let rounded = match self {
            Rounding::Step(step) => {
                let step = step.max(1) as f64;
                (value / step).round() * step
            }
            Rounding::Decimals(places) => {
                let scale = 10f64.powi(places.min(3) as i32);
                (value * scale).round() / scale
            }
        };
        // -0.0 would print as "-0" in a file a reviewer reads.
        if rounded == 0.0 { 0.0 } else { rounded }
    }
}

fn one() -> u64 {
    1
}

fn is_one(value: &u64) -> bool {
    *value == 1
}

impl Figures {
    /// The figures rounded with `rounding`.
    pub fn rounded(median: f64, p95: f64, p99: f64, rounding: Rounding) -> Figures {
        Figures {
            median: Figure(rounding.apply(median)),
            p95: Figure(rounding.apply(p95)),
            p99: Figure(rounding.apply(p99)),
        }
    }
}

impl fmt::Display for Figure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_integral() {
            write!(f, "{}", self.0 as i64)
        } else {
            // Shortest representation that reads back as the same f64: 662.125, not 662.12500000001.
            write!(f, "{}", self.0)
        }
    }
}

impl Figure {
    /// Largest magnitude written as an integer: beyond 2^53 an f64 no longer holds every integer.
    const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

    fn is_integral(self) -> bool {
        self.0.is_finite() && self.0.fract() == 0.0 && self.0.abs() <= Self::MAX_EXACT
    }
}

impl Serialize for Figure {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.0.is_finite() {
            return Err(serde::ser::Error::custom(format!(
                "a figure of {} cannot be written to a baseline (not a finite number)",
                self.0
            )));
        }
        if self.is_integral() {
            serializer.serialize_i64(self.0 as i64)
        } else {
            serializer.serialize_f64(self.0)
        }
    }
}

impl<'de> Deserialize<'de> for Figure {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = f64::deserialize(deserializer)?;
        if value.is_finite() {
            Ok(Figure(value))
        } else {
            Err(de::Error::custom("a figure must be a finite number"))
        }
    }
}

impl Serialize for Stack {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Stack::Bytes(bytes) => serializer.serialize_u64(*bytes),
            Stack::Overrun => serializer.serialize_str("overrun"),
            Stack::Off => serializer.serialize_str("off"),
        }
    }
}

impl<'de> Deserialize<'de> for Stack {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StackVisitor;
        impl Visitor<'_> for StackVisitor {
            type Value = Stack;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of bytes, \"overrun\" or \"off\"")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Stack, E> {
                Ok(Stack::Bytes(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Stack, E> {
                match v {
                    "overrun" => Ok(Stack::Overrun),
                    "off" => Ok(Stack::Off),
                    other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
                }
            }
        }
        deserializer.deserialize_any(StackVisitor)
    }
}

impl fmt::Display for Stack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stack::Bytes(bytes) => write!(f, "{bytes}"),
            Stack::Overrun => f.write_str("overrun"),
            Stack::Off => f.write_str("off"),
        }
    }
}

impl BaselineFile {
    /// An empty file of the current schema.
    pub fn new() -> BaselineFile {
        BaselineFile {
            schema: SCHEMA.to_string(),
            targets: BTreeMap::new(),
        }
    }

    /// Checks what the types cannot: each section is filed under its own target's name, and benchmark names
    /// are unique and non-empty within a section.
    pub fn validate(&self, source: &str) -> Result<(), Error> {
        let invalid = |message: String| Error::Invalid {
            source_name: source.to_string(),
            message,
        };
        if self.schema != SCHEMA {
            return Err(Error::Schema {
                source_name: source.to_string(),
                found: self.schema.clone(),
            });
        }
        for (key, sections) in &self.targets {
            if sections.is_empty() {
                return Err(invalid(format!(
                    "target \"{key}\" has neither a \"time\" nor an \"instructions\" section"
                )));
            }
            if let Some(time) = &sections.time {
                validate_section(key, time).map_err(invalid)?;
                if let Some(bench) = time.benchmarks.iter().find(|b| b.instructions.is_some()) {
                    return Err(invalid(format!(
                        "target \"{key}\": benchmark \"{}\" of the time section has instructions; they \
                         belong in the instructions section",
                        bench.name
                    )));
                }
            }
            if let Some(counted) = &sections.instructions {
                validate_section(key, counted).map_err(invalid)?;
                if let Some(bench) = counted
                    .benchmarks
                    .iter()
                    .find(|b| b.cycles.is_some() || b.time_ns.is_some())
                {
                    return Err(invalid(format!(
                        "target \"{key}\": benchmark \"{}\" of the instructions section has cycles or \
                         time_ns; they belong in the time section",
                        bench.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// The file's exact text: pretty JSON (two-space indent) and a final newline.
    pub fn to_json(&self) -> Result<String, Error> {
        let mut bytes = Vec::new();
        self.write_json(&mut bytes)?;
        String::from_utf8(bytes).map_err(|e| Error::Serialize {
            message: e.to_string(),
        })
    }

    /// Writes the file's exact text to `out`, as it is produced (so a failure can stop it part-way: callers
    /// that write a file do so through [`crate::store`], which never lets a part-written file be seen).
    pub fn write_json<W: std::io::Write>(&self, out: &mut W) -> Result<(), Error> {
        serde_json::to_writer_pretty(&mut *out, self).map_err(|e| Error::Serialize {
            message: e.to_string(),
        })?;
        out.write_all(b"\n").map_err(|e| Error::Serialize {
            message: e.to_string(),
        })
    }

    /// Puts `sections` in, replacing the target's earlier sections (of every measure: they were recorded by
    /// another run, perhaps of other code) and keeping the other targets'.
    pub fn insert(&mut self, sections: TargetSections) {
        if let Some(target) = sections.target() {
            self.targets.insert(target.to_string(), sections);
        }
    }
}

/// A stack mark and heap peak (`None`: heap not measured) measured in a counted run.
pub type CountedMemory = (Stack, Option<u64>);

/// What [`BaselineFile::validate`] checks of one section filed under `key`.
fn validate_section(key: &str, section: &TargetBaseline) -> Result<(), String> {
    if key != section.context.target {
        return Err(format!(
            "the section filed under target \"{key}\" says it was recorded for target \"{}\"",
            section.context.target
        ));
    }
    let mut seen = BTreeSet::new();
    for bench in &section.benchmarks {
        if bench.name.is_empty() {
            return Err(format!(
                "target \"{key}\" has a benchmark with an empty name"
            ));
        }
        if !seen.insert(bench.name.as_str()) {
            return Err(format!(
                "target \"{key}\" lists benchmark \"{}\" twice",
                bench.name
            ));
        }
    }
    Ok(())
}

impl TargetSections {
    /// The sections of one run's section holding every metric it measured (`mixed`): a run that counted
    /// instructions and read no clock is all instructions; any other has a time section (its instructions
    /// taken out) and, when it counted instructions, an instructions section of the instructions, the static
    /// figures and the stack and heap `counted_memory(bench)` gives (the counted run's, when it was not the
    /// timed run); `None` from it keeps the benchmark's own (a board counts in the run it times).
    pub fn split(
        mixed: TargetBaseline,
        counted_memory: &dyn Fn(&BenchmarkBaseline) -> Option<CountedMemory>,
    ) -> TargetSections {
        if mixed.context.counted_only() {
            return TargetSections {
                time: None,
                instructions: Some(mixed),
            };
        }
        let instructions = mixed
            .context
            .instructions
            .is_some()
            .then(|| TargetBaseline {
                context: Context {
                    clocks: Clocks {
                        cycles: None,
                        time: None,
                    },
                    time_source: TimeSource::None,
                    yardsticks: Vec::new(),
                    ..mixed.context.clone()
                },
                benchmarks: mixed
                    .benchmarks
                    .iter()
                    .filter(|bench| bench.instructions.is_some())
                    .map(|bench| {
                        let (stack_bytes, heap_peak_bytes) = counted_memory(bench)
                            .unwrap_or((bench.stack_bytes, bench.heap_peak_bytes));
                        BenchmarkBaseline {
                            cycles: None,
                            time_ns: None,
                            cpu_ns: None,
                            stack_bytes,
                            heap_peak_bytes,
                            // Another harness's figures are the timed run's.
                            extra: Vec::new(),
                            ..bench.clone()
                        }
                    })
                    .collect(),
            });
        let mut time = mixed;
        time.context.instructions = None;
        for bench in &mut time.benchmarks {
            bench.instructions = None;
            bench.functions = None;
        }
        TargetSections {
            time: Some(time),
            instructions,
        }
    }

    /// A version 1 section, split by measure. Its stack and heap are the timed run's (native, or the board's)
    /// unless it counted instructions and read no clock (`--measure instructions` alone: Valgrind's); a
    /// section of both measures counted by Callgrind kept no Valgrind stack or heap, so its instructions
    /// section has none (a run counting them again has them added, not judged against native ones).
    pub fn from_v1(section: TargetBaseline) -> TargetSections {
        let callgrind = section.context.instructions.as_deref() == Some("callgrind");
        TargetSections::split(section, &|_| callgrind.then_some((Stack::Off, None)))
    }

    /// The sections there are, time first.
    pub fn iter(&self) -> impl Iterator<Item = &TargetBaseline> {
        self.time.iter().chain(self.instructions.iter())
    }

    /// Whether there is no section at all.
    pub fn is_empty(&self) -> bool {
        self.time.is_none() && self.instructions.is_none()
    }

    /// The target the sections were recorded for.
    pub fn target(&self) -> Option<&str> {
        self.iter().next().map(|s| s.context.target.as_str())
    }

    /// Checks every figure of every section is finite ([`TargetBaseline::check_figures`]).
    pub fn check_figures(&self) -> Result<(), Error> {
        self.iter().try_for_each(TargetBaseline::check_figures)
    }
}

impl From<TargetBaseline> for TargetSections {
    /// One run's section split by measure, its stack and heap where they are ([`TargetSections::split`]).
    fn from(mixed: TargetBaseline) -> TargetSections {
        TargetSections::split(mixed, &|_| None)
    }
}

impl Context {
    /// Whether the run only counted instructions and read no clock (`--measure instructions` on the host).
    pub fn counted_only(&self) -> bool {
        self.instructions.is_some() && self.clocks.cycles.is_none() && self.clocks.time.is_none()
    }
}

impl Default for BaselineFile {
    fn default() -> Self {
        BaselineFile::new()
    }
}

impl TargetBaseline {
    /// The benchmark called `name`, if the section has one.
    pub fn benchmark(&self, name: &str) -> Option<&BenchmarkBaseline> {
        self.benchmarks.iter().find(|b| b.name == name)
    }

    /// Checks every figure is a finite number, naming the first one that is not, so a write is refused
    /// with a message that says where rather than failing inside the serialiser.
    pub fn check_figures(&self) -> Result<(), Error> {
        for bench in &self.benchmarks {
            let clocked = [
                ("cycles", &bench.cycles),
                ("time_ns", &bench.time_ns),
                ("cpu_ns", &bench.cpu_ns),
            ];
            for (metric, figures) in clocked {
                if let Some(figures) = figures {
                    for (statistic, figure) in [
                        ("median", figures.median),
                        ("p95", figures.p95),
                        ("p99", figures.p99),
                    ] {
                        if !figure.0.is_finite() {
                            return Err(Error::NotFinite {
                                target: self.context.target.clone(),
                                benchmark: bench.name.clone(),
                                what: format!("{metric} {statistic}"),
                                value: figure.0,
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    fn file_with(targets: &[&str]) -> BaselineFile {
        let mut file = BaselineFile::new();
        for target in targets {
            file.insert(fixture::section(target).into());
        }
        file
    }

    #[test]
    fn the_same_data_gives_the_same_bytes() {
        let first = file_with(&["host", "mps2-an386"]).to_json().unwrap();
        let second = file_with(&["host", "mps2-an386"]).to_json().unwrap();
        assert_eq!(first, second);
        // Inserting the targets in the other order changes nothing either: sections are in name order.
        let reversed = file_with(&["mps2-an386", "host"]).to_json().unwrap();
        assert_eq!(first, reversed);
        assert!(first.ends_with("}\n") && !first.ends_with("\n\n"));
    }

    #[test]
    fn keys_come_out_in_the_declared_order() {
        let text = file_with(&["host"]).to_json().unwrap();
        let order = [
            "\"schema\"",
            "\"targets\"",
            "\"host\"",
            "\"context\"",
            "\"target\"",
            "\"arch\"",
            "\"optimized\"",
            "\"compiler\"",
            "\"flags\"",
            "\"tool\"",
            "\"recorded_at\"",
            "\"iterations\"",
            "\"warmup\"",
            "\"repetitions\"",
            "\"clocks\"",
            "\"cycles\"",
            "\"time\"",
            "\"time_source\"",
            "\"benchmarks\"",
            "\"name\": \"bench_empty\"",
            "\"name\": \"bench_crc_64\"",
            "\"name\": \"bench_crc_256\"",
            "\"name\": \"bench_malloc_free\"",
        ];
        let mut from = 0;
        for key in order {
            let at = text[from..]
                .find(key)
                .unwrap_or_else(|| panic!("{key} missing or out of order in\n{text}"));
            from += at + key.len();
        }
        // Within a benchmark block too.
        let block = &text[text.find("\"name\": \"bench_crc_64\"").unwrap()..];
        let mut from = 0;
        for key in [
            "\"unit\"",
            "\"per_iteration\"",
            "\"iterations\"",
            "\"cycles\"",
            "\"median\"",
            "\"p95\"",
            "\"p99\"",
            "\"time_ns\"",
            "\"stack_bytes\"",
            "\"heap_peak_bytes\"",
        ] {
            let at = block[from..]
                .find(key)
                .unwrap_or_else(|| panic!("{key} out of order"));
            from += at + key.len();
        }
    }

    #[test]
    fn integral_figures_have_no_fraction_and_fractions_are_short() {
        let text = file_with(&["host"]).to_json().unwrap();
        assert!(text.contains("\"median\": 1870,"), "{text}");
        assert!(!text.contains("1870.0"));
        assert_eq!(Figure(662.125).to_string(), "662.125");
        assert_eq!(
            serde_json::to_string(&Figure(0.1 + 0.2)).unwrap(),
            "0.30000000000000004"
        );
        assert_eq!(
            serde_json::to_string(&Figure(Rounding::Decimals(3).apply(0.1 + 0.2))).unwrap(),
            "0.3"
        );
        assert!(serde_json::to_string(&Figure(f64::NAN)).is_err());
    }

    #[test]
    fn rounding_follows_the_clock() {
        let tsc = ClockInfo {
            name: "tsc".into(),
            unit: "cycle".into(),
            hz: Some(2_900_000_000),
            resolution: 1,
        };
        assert_eq!(Rounding::for_clock(&tsc).apply(1987.4), 1987.0);
        let coarse = ClockInfo {
            resolution: 20,
            ..tsc.clone()
        };
        assert_eq!(Rounding::for_clock(&coarse).apply(667.0), 660.0);
        assert_eq!(Rounding::for_clock(&coarse).apply(671.0), 680.0);
        let never_stepped = ClockInfo {
            resolution: 0,
            ..tsc.clone()
        };
        assert_eq!(Rounding::for_clock(&never_stepped).apply(3.4), 3.0);
        // One tsc step at 2.9 GHz is 0.345 ns: tenths are what it resolves.
        assert_eq!(
            Rounding::for_derived_ns(&tsc, 2_900_000_000),
            Rounding::Decimals(1)
        );
        assert_eq!(
            Rounding::for_derived_ns(&tsc, 2_900_000_000).apply(685.1724),
            685.2
        );
        // A 25 MHz SysTick: 40 ns a step, whole nanoseconds.
        assert_eq!(
            Rounding::for_derived_ns(&tsc, 25_000_000),
            Rounding::Decimals(0)
        );
        // Never more than three places, however fast the counter.
        assert_eq!(
            Rounding::for_derived_ns(&tsc, 100_000_000_000),
            Rounding::Decimals(2)
        );
        assert_eq!(
            Rounding::for_derived_ns(&tsc, 10_000_000_000_000),
            Rounding::Decimals(3)
        );
        assert_eq!(Rounding::Step(1).apply(-0.2).to_string(), "0");
    }

    #[test]
    fn parse_reads_back_what_was_written() {
        let file = file_with(&["host", "mps2-an386"]);
        let text = file.to_json().unwrap();
        assert_eq!(BaselineFile::parse(&text, "t.json").unwrap(), file);
    }

    #[test]
    fn stack_marks_round_trip() {
        for (stack, text) in [
            (Stack::Bytes(312), "312"),
            (Stack::Overrun, "\"overrun\""),
            (Stack::Off, "\"off\""),
        ] {
            assert_eq!(serde_json::to_string(&stack).unwrap(), text);
            assert_eq!(serde_json::from_str::<Stack>(text).unwrap(), stack);
        }
        assert!(serde_json::from_str::<Stack>("\"deep\"").is_err());
        assert!(serde_json::from_str::<Stack>("-1").is_err());
    }

    #[test]
    fn another_schema_is_refused_by_name() {
        let text = file_with(&["host"])
            .to_json()
            .unwrap()
            .replace(SCHEMA, "rho-baseline/6");
        let err = BaselineFile::parse(&text, "bench/baseline.json").unwrap_err();
        assert!(
            matches!(&err, Error::Schema { found, .. } if found == "rho-baseline/6"),
            "{err}"
        );
        let message = err.to_string();
        assert!(
            message.contains("bench/baseline.json") && message.contains("rho-baseline/6"),
            "{message}"
        );

        let err = BaselineFile::parse("{\"targets\": {}}", "x.json").unwrap_err();
        assert!(err.to_string().contains("no \"schema\""), "{err}");
    }

    #[test]
    fn an_empty_file_is_named_empty_at_line_1_column_1() {
        for text in ["", "\n  \n"] {
            let err = BaselineFile::parse(text, "bench/baseline.json").unwrap_err();
            let message = err.to_string();
            assert!(
                message.starts_with("bench/baseline.json:1:1: ")
                    && message.contains("the file is empty"),
                "{message}"
            );
        }
        // A file cut off at the start of a line: still a real column.
        let err = BaselineFile::parse("{\n", "b.json").unwrap_err();
        let Error::Json { column, .. } = &err else {
            panic!("{err:?}");
        };
        assert!(*column >= 1, "{err}");
    }

    #[test]
    fn corrupt_json_names_line_and_column() {
        let mut text = file_with(&["host"]).to_json().unwrap();
        // Cut the file part-way through a benchmark, as a truncated write would.
        text.truncate(text.find("bench_crc_256").unwrap());
        let err = BaselineFile::parse(&text, "bench/baseline.json").unwrap_err();
        let Error::Json { line, column, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!(*line, text.lines().count());
        assert!(*column > 0);
        assert!(
            err.to_string()
                .starts_with(&format!("bench/baseline.json:{line}:{column}: ")),
            "{err}"
        );

        let bad_field = file_with(&["host"])
            .to_json()
            .unwrap()
            .replace("\"heap_peak_bytes\": 64", "\"heap_peak_bytes\": \"lots\"");
        let err = BaselineFile::parse(&bad_field, "b.json").unwrap_err();
        let line = bad_field
            .lines()
            .position(|l| l.contains("\"lots\""))
            .unwrap()
            + 1;
        assert!(
            err.to_string().starts_with(&format!("b.json:{line}:")),
            "{err}"
        );
    }

    #[test]
    fn unknown_fields_duplicates_and_misfiled_sections_are_refused() {
        let text = file_with(&["host"])
            .to_json()
            .unwrap()
            .replace("\"arch\"", "\"archh\"");
        assert!(
            BaselineFile::parse(&text, "b.json")
                .unwrap_err()
                .to_string()
                .contains("archh")
        );

        let mut file = file_with(&["host"]);
        let time = file.targets.get_mut("host").unwrap().time.as_mut().unwrap();
        let copy = time.benchmarks[1].clone();
        time.benchmarks.push(copy);
        let err = BaselineFile::parse(&file.to_json().unwrap(), "b.json").unwrap_err();
        assert!(
            err.to_string()
                .contains("lists benchmark \"bench_crc_64\" twice"),
            "{err}"
        );

        let text =
            file_with(&["host"])
                .to_json()
                .unwrap()
                .replacen("\"host\": {", "\"board\": {", 1);
        let err = BaselineFile::parse(&text, "b.json").unwrap_err();
        assert!(
            err.to_string().contains("filed under target \"board\""),
            "{err}"
        );
    }

    #[test]
    fn a_non_finite_figure_is_named_before_anything_is_written() {
        let mut section = fixture::section("host");
        section.benchmarks[2].time_ns.as_mut().unwrap().p99 = Figure(f64::INFINITY);
        let err = section.check_figures().unwrap_err().to_string();
        assert!(
            err.contains("bench_crc_256") && err.contains("time_ns p99"),
            "{err}"
        );
    }

    /// A version 4 file (no yardsticks) is read as it is and written back as version 5; a section's
    /// yardsticks are kept through a write and a read.
    #[test]
    fn a_version_4_file_is_read_and_yardsticks_are_kept() {
        let mut file = BaselineFile::new();
        file.insert(TargetSections::from_v1(fixture::section("host")));
        let v4 = file.to_json().unwrap().replace(SCHEMA, SCHEMA_V4);
        let read = BaselineFile::parse(&v4, "old.json").unwrap();
        assert_eq!(read.schema, SCHEMA);
        assert_eq!(read.targets, file.targets);
        let mut with_yardstick = file.clone();
        let section = with_yardstick
            .targets
            .get_mut("host")
            .and_then(|s| s.time.as_mut())
            .unwrap();
        section.context.yardsticks = vec![SuiteYardstick {
            suite: Some("bench/crypto.c".to_string()),
            name: "rho1".to_string(),
            iterations: 262_144,
            cycles: Some(4.448),
            time_ns: Some(1.711),
            cpu_ns: None,
        }];
        let written = with_yardstick.to_json().unwrap();
        assert!(written.contains("\"loop\": \"rho1\""), "{written}");
        assert!(!written.contains("cpu_ns\": null"), "{written}");
        let back = BaselineFile::parse(&written, "new.json").unwrap();
        assert_eq!(back.targets, with_yardstick.targets);
    }

    /// A version 3 file (no suites) is read as it is and written back as version 4; a benchmark's suite is
    /// kept through a write and a read.
    #[test]
    fn a_version_3_file_is_read_and_suites_are_kept() {
        let mut file = BaselineFile::new();
        file.insert(TargetSections::from_v1(fixture::section("host")));
        let v3 = file.to_json().unwrap().replace(SCHEMA, SCHEMA_V3);
        let read = BaselineFile::parse(&v3, "old.json").unwrap();
        assert_eq!(read.schema, SCHEMA);
        assert_eq!(read.targets, file.targets);
        let mut with_suites = file.clone();
        let section = with_suites
            .targets
            .get_mut("host")
            .and_then(|s| s.time.as_mut())
            .unwrap();
        section.benchmarks[0].suite = Some("bench/crypto.c".to_string());
        let written = with_suites.to_json().unwrap();
        assert!(
            written.contains("\"suite\": \"bench/crypto.c\""),
            "{written}"
        );
        let back = BaselineFile::parse(&written, "new.json").unwrap();
        assert_eq!(back.targets, with_suites.targets);
    }

    /// A version 2 file (no functions) is read as it is and written back as version 3; a benchmark's
    /// functions are kept through a write and a read.
    #[test]
    fn a_version_2_file_is_read_and_functions_are_kept() {
        let mut file = BaselineFile::new();
        file.insert(TargetSections::from_v1(fixture::section("host")));
        let v2 = file.to_json().unwrap().replace(SCHEMA, SCHEMA_V2);
        let read = BaselineFile::parse(&v2, "old.json").unwrap();
        assert_eq!(read.schema, SCHEMA);
        assert_eq!(read.targets, file.targets);
        let functions = rho_profile::Functions {
            source: "callgrind".to_string(),
            listed: vec![rho_profile::net::FunctionFigures {
                name: "crc32".to_string(),
                file: Some("crc.c".to_string()),
                line: Some(12),
                self_per_iteration: 4550.0,
                inclusive_per_iteration: 4550.0,
                calls: Vec::new(),
            }],
            other: rho_profile::net::Other::default(),
            sampling: None,
        };
        let mut with_functions = file.clone();
        let section = with_functions
            .targets
            .get_mut("host")
            .unwrap()
            .time
            .as_mut()
            .unwrap();
        section.benchmarks[0].functions = Some(functions.clone());
        let again = BaselineFile::parse(&with_functions.to_json().unwrap(), "b.json").unwrap();
        let kept = &again.targets["host"].time.as_ref().unwrap().benchmarks[0];
        assert_eq!(kept.functions.as_ref(), Some(&functions));
    }

    /// A version 3 file (no extra figures) is read as it is and written back as version 4; a benchmark's
    /// extra figures, with their direction, are kept through a write and a read.
    #[test]
    fn a_version_3_file_is_read_and_extra_figures_are_kept() {
        let mut file = BaselineFile::new();
        file.insert(TargetSections::from_v1(fixture::section("host")));
        let v3 = file.to_json().unwrap().replace(SCHEMA, SCHEMA_V3);
        let read = BaselineFile::parse(&v3, "old.json").unwrap();
        assert_eq!(
            (read.schema.as_str(), &read.targets),
            (SCHEMA, &file.targets)
        );
        let time = file.targets.get_mut("host").unwrap().time.as_mut().unwrap();
        time.benchmarks[0].extra = vec![ExtraFigure {
            name: "items_per_second".to_string(),
            unit: "items/s".to_string(),
            better: rho_stats::Better::Higher,
            value: Figure(2876812995.441),
        }];
        let text = file.to_json().unwrap();
        assert!(text.contains("\"better\": \"higher\""), "{text}");
        assert_eq!(BaselineFile::parse(&text, "b.json").unwrap(), file);
    }

    /// A version 1 file is read, each section split by measure, and written back as version 4.
    #[test]
    fn a_version_1_file_is_read_and_upgraded() {
        let text = serde_json::to_string_pretty(&serde_json::json!({
            "schema": SCHEMA_V1,
            "targets": { "host": fixture::section("host") },
        }))
        .unwrap();
        let file = BaselineFile::parse(&text, "old.json").unwrap();
        assert_eq!(file.schema, SCHEMA);
        assert_eq!(
            file.targets["host"].time.as_ref(),
            Some(&fixture::section("host"))
        );
        assert!(file.targets["host"].instructions.is_none());
        let written = file.to_json().unwrap();
        assert!(
            written.contains("\"schema\": \"rho-baseline/5\"") && written.contains("\"time\": {")
        );
        // A time section holding instructions is refused by name (they would be judged twice).
        let mut mixed = file.clone();
        let time = mixed
            .targets
            .get_mut("host")
            .unwrap()
            .time
            .as_mut()
            .unwrap();
        time.benchmarks[1].instructions = Some(10);
        let err = BaselineFile::parse(&mixed.to_json().unwrap(), "b.json")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"bench_crc_64\" of the time section has instructions"),
            "{err}"
        );
        // A version 2 target with no section at all is refused by name.
        let empty = "{\"schema\": \"rho-baseline/2\", \"targets\": {\"host\": {}}}";
        let err = BaselineFile::parse(empty, "b.json")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("neither a \"time\" nor an \"instructions\" section"),
            "{err}"
        );
    }
}
