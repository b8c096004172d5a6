//! The data a wire stream carries, as plain types. The parser builds them, the writer prints them, and
//! everything downstream (statistics, judgement, reports) reads them.

use serde::{Deserialize, Serialize};

/// The format version this crate writes, and the newest it reads (it reads every version from 1 up to it; see
/// the "Versions" table in docs/wire-format.md).
pub const WIRE_VERSION: u32 = 9;

/// The first version with `@counter` and `@count` (instructions counted outside the stream, e.g. by Callgrind).
pub const COUNTER_VERSION: u32 = 2;

/// The first version whose `@bench` may carry `family=` and `arg=` (a member of a benchmark family, named
/// `FAMILY/ARG`). In an older stream those fields are unknown fields, ignored as they always were.
pub const FAMILY_VERSION: u32 = 3;

/// The first version whose `@end` may say `batch=` (iterations per measured sample).
pub const BATCH_VERSION: u32 = 4;
/// The first version with `@config stack_guard=` and `@end overran=1`, whose stack and heap figures cover the
/// measured iterations only.
pub const GUARD_VERSION: u32 = 5;
/// The first version with `@heap off`: the harness did not measure the heap (a Rust harness without
/// `CountingAlloc` as the global allocator). Before it every `@heap` carries figures.
pub const HEAP_OFF_VERSION: u32 = 6;
/// The first version with `@clock cpu`: the thread's CPU time beside the wall clock (a third sample column).
/// Before it a clock's role is `cycles` or `time`.
pub const CPU_CLOCK_VERSION: u32 = 7;
/// The first version whose `@end` may say `rerun=`: measured samples the scheduler interrupted that the harness
/// measured again (not among the samples). Before it `rerun=` is an unknown field, ignored.
pub const RERUN_VERSION: u32 = 9;

/// The first version with `@yardstick`: the harness's fixed reference loop, timed on every clock, so a
/// comparison with a stored baseline can tell a machine that moved from code that did (docs/wire-format.md,
/// "Yardstick"). Before it the record is unknown, an error.
pub const YARDSTICK_VERSION: u32 = 9;

/// `@yardstick NAME iterations=N repetitions=R` and its `R` sample lines: the harness's fixed reference loop
/// (`NAME` says which loop: `rho1`), `N` iterations a repetition, each repetition one raw reading per clock,
/// in `@clock` order (nothing subtracted). Only ratios between two runs built the same way mean anything: its
/// absolute figure depends on the compiler and its flags.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Yardstick {
    /// Which reference loop (`rho1`): two runs' figures are compared only when they name the same one.
    pub name: String,
    /// Iterations of the loop in each repetition.
    pub iterations: u64,
    /// One column per clock (same order as `Run::clocks`), one value per repetition.
    pub samples: Vec<Vec<u64>>,
}

/// One whole run of a suite: the header records and every benchmark, in the order they ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The `@rho-bench` version.
    pub version: u32,
    pub target: Target,
    /// The clocks, in the order their fields appear in each sample line.
    pub clocks: Vec<Clock>,
    /// `@counter`: the run counts instead of timing, and each block's `@count` says which of the counter's
    /// dumps holds its loop's totals. `None` in a timed run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter: Option<Counter>,
    /// The harness's `.overhead` block: an empty measured iteration, from which the host derives the cost of
    /// measuring. `None` when the harness did not print one.
    pub calibration: Option<Benchmark>,
    pub config: RunConfig,
    /// `@yardstick` (version 9): the harness's reference loop, timed; `None` when the stream has none (an
    /// older stream, a counted run, another harness's figures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yardstick: Option<Yardstick>,
    pub benchmarks: Vec<Benchmark>,
    /// How many benchmarks the suite had no room for (`@done dropped=`).
    pub dropped: u64,
    /// How many noise lines were skipped.
    pub noise_lines: u64,
}

/// The header of a stream: everything up to and including `@config`, known before the first benchmark runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The `@rho-bench` version.
    pub version: u32,
    pub target: Target,
    /// The clocks, in the order their fields appear in each sample line.
    pub clocks: Vec<Clock>,
    /// `@counter`, when the run counts instead of timing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter: Option<Counter>,
    pub config: RunConfig,
}

/// `@counter METRIC NAME`: what counts the measured loops when a run counts instead of timing. The counts
/// themselves are not in the stream: `NAME` writes them (Callgrind: one dump file per loop), and the host
/// reads them and attaches them to each block's [`Count`]s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    /// What is counted: `instructions`.
    pub metric: String,
    /// Who counts: `callgrind`.
    pub name: String,
}

/// `@count DUMP iterations=N`: the counter's dump number `DUMP` (1-based, in the order they were written)
/// holds the totals of one whole loop of `N` measured iterations of this block. `.overhead` has two, the empty
/// loop run `N` and `2N` times.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    pub dump: u64,
    pub iterations: u64,
    /// The dump's totals per event (`Ir` for instructions; cache events with a cache simulation), once the
    /// host has read them (see `attach_counts`); empty until then.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub totals: std::collections::BTreeMap<String, u64>,
}

/// `@target`: where the figures came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    pub name: String,
    pub arch: String,
    /// Whether the harness was compiled with optimisation (`__OPTIMIZE__`).
    pub optimized: bool,
    pub compiler: Option<String>,
}

/// What a clock measures: a cycle (or tick) counter, wall time, or (version 7) the CPU time of the thread
/// that runs the benchmark, which does not advance while the thread waits for a core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockRole {
    Cycles,
    Time,
    Cpu,
}

impl ClockRole {
    /// The role's word on a `@clock` line.
    pub fn word(self) -> &'static str {
        match self {
            ClockRole::Cycles => "cycles",
            ClockRole::Time => "time",
            ClockRole::Cpu => "cpu",
        }
    }
}

/// `@clock`: one clock and its units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub role: ClockRole,
    /// `tsc`, `cntvct`, `dwt`, `systick`, `clock_gettime`, ...
    pub name: String,
    /// `cycle`, `tick`, `ns`.
    pub unit: String,
    /// Counts per second; `None` when the harness did not know (`hz=0`).
    pub hz: Option<u64>,
    /// The smallest step the clock was seen to take, in its own unit.
    pub resolution: u64,
}

/// `@config`: the run's settings as the harness understood them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunConfig {
    pub iterations: u64,
    pub warmup: u64,
    /// `None` when there is no cap (`time_cap_ms=0`).
    pub time_cap_ms: Option<u64>,
    /// `None` when the stack is not measured (`stack_bytes=0`).
    pub stack_bytes: Option<u64>,
    /// What catches a stack overrun (`@config stack_guard=`, version 5): `page` (a guard page that faults),
    /// `mpu` (a Cortex-M MPU region), `none` (only the paint: best effort), `off`. `None` when the stream does
    /// not say.
    #[serde(default)]
    pub stack_guard: Option<String>,
}

/// The stack high-water mark of one benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StackMark {
    /// Deepest use, in bytes.
    Bytes(u64),
    /// The painted region was used to its last byte: the boundary was lost, so there is no number.
    Overrun,
    /// Not measured in this run.
    Off,
}

/// `@heap`: what went through the heap macros during one benchmark. A benchmark whose heap was not measured
/// (`@heap off`, version 6) has none: [`Benchmark::heap`] is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapFigures {
    pub peak: u64,
    pub live: u64,
    pub allocs: u64,
    pub frees: u64,
    /// Frees of more bytes than were live: a misuse of the macros, reported rather than hidden.
    pub free_errors: u64,
}

impl HeapFigures {
    /// The rule these figures break, as the figures a harness can write would read (`None` when they keep
    /// every rule). `version` is the stream's wire format version: from version [`GUARD_VERSION`] `allocs=`,
    /// `frees=` and the peak cover the measured iterations only, and the peak restarts from what was held when
    /// they began (`live=` covers the whole benchmark); before, everything counts from the benchmark's start,
    /// when nothing was held. The one check of a heap record: the wire parser and the reader of saved runs
    /// both ask it.
    ///
    /// `live=` is bytes and `allocs=`/`frees=` are counts, so `live` is not `allocs - frees`; and from version
    /// [`GUARD_VERSION`] a benchmark may free in its tear-down what its set-up allocated before the measured
    /// iterations (`allocs=0 frees=3` is a real record then). What no harness writes:
    ///
    /// - `live` above `peak` (what is held at the end was held at the peak too);
    /// - with `frees=0`, `live` below `peak`: nothing was released since the peak started, so what is held
    ///   only grew and the end is the peak;
    /// - before version [`GUARD_VERSION`], a `peak` (so a `live`) with `allocs=0`: nothing was ever added.
    pub fn inconsistency(&self, version: u32) -> Option<String> {
        if self.live > self.peak {
            return Some(format!(
                "live= at most peak= (the bytes held at the end were held at the peak too): peak={} live={}",
                self.peak, self.live
            ));
        }
        if self.frees == 0 && self.live != self.peak {
            return Some(format!(
                "live= equal to peak= when frees=0 (nothing was released, so what is held at the end is the \
                 peak): peak={} live={}",
                self.peak, self.live
            ));
        }
        if version < GUARD_VERSION && self.allocs == 0 && self.peak != 0 {
            return Some(format!(
                "peak=0 when allocs=0 (a version {version} stream counts from the benchmark's start, when \
                 nothing was held): peak={}",
                self.peak
            ));
        }
        None
    }
}

/// One benchmark: its samples, stored by column, and its stack and heap figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Benchmark {
    pub name: String,
    /// What one op is (`iter` unless the benchmark said otherwise).
    pub unit: String,
    /// Ops per iteration.
    pub per_iteration: u64,
    /// One column per clock (same order as `Run::clocks`); each holds `warmup + iterations` raw values,
    /// warm-ups first.
    pub samples: Vec<Vec<u64>>,
    /// How many leading samples of each column are warm-ups.
    pub warmup: u64,
    /// Measured iterations actually done.
    pub iterations: u64,
    /// The time cap stopped the benchmark before `RunConfig::iterations`.
    pub capped: bool,
    pub stack: StackMark,
    /// The heap figures; `None` when the harness did not measure the heap (`@heap off`, version 6), never
    /// zeros standing in for them.
    pub heap: Option<HeapFigures>,
    /// How many of the samples (warm-ups included) spanned a wrap of a cycle counter the harness could not
    /// count (`@end wrapped=`, a Cortex-M built with `RHO_BENCH_SYSTICK_EXTERNAL`): their cycle figures may be
    /// short by whole counter periods, so when this is not 0 the benchmark's cycle figures are not measured.
    /// 0 when the stream does not say.
    #[serde(default)]
    pub wrapped: u64,
    /// `@count` records, in a run with a [`Counter`]: one per counted loop (two for `.overhead`); empty in a
    /// timed run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<Count>,
    /// The harness stopped the benchmark when its stack overran into the guard below the painted region
    /// (`@end overran=1`, version 5): the iteration in progress never ended, `iterations` and `warmup` count the
    /// ones that did (possibly none), and no figure of it is a measurement. Its `stack` is `Overrun`.
    #[serde(default)]
    pub overran: bool,
    /// The CPU time, in ns, the process's threads other than the benchmark's used during its measured loop
    /// (`@end other_cpu_ns=`, version 7, printed beside a `@clock cpu`): when it is not negligible the body
    /// handed work to other threads, and its thread's CPU time is not the benchmark's. `None` when the
    /// stream does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_cpu_ns: Option<u64>,
    /// Measured samples the scheduler interrupted (`@end preempted=`, version 7: the thread's involuntary context
    /// switches moved during the sample) and kept among `samples`. 0 when the stream does not say.
    #[serde(default)]
    pub preempted: u64,
    /// Measured samples the scheduler interrupted that the harness discarded and measured again (`@end rerun=`,
    /// version 9): not among `samples`, and not in `iterations`. 0 when the stream does not say.
    #[serde(default)]
    pub rerun: u64,
    /// The family this benchmark is a member of (`@bench NAME family=F arg=A`, registered with
    /// `RHO_BENCH_ADD_ARG`), whose name is `F/A`. `None` for a benchmark registered on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<FamilyMember>,
    /// Iterations in each measured sample (`@end batch=`, version 4; 1 when the stream does not say). A
    /// measured sample of a batched benchmark is the time of `batch` back-to-back iterations; warm-ups are
    /// always single iterations. `iterations` is a multiple of it.
    #[serde(default = "one")]
    pub batch: u64,
}

fn one() -> u64 {
    1
}

/// Which family a benchmark belongs to and the argument it ran with.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FamilyMember {
    /// The family's name (the function's), a wire name.
    pub name: String,
    /// The argument (`RHO_BENCH_ARG`).
    pub arg: u64,
}

impl FamilyMember {
    /// The member's benchmark name: `FAMILY/ARG`.
    pub fn member_name(&self) -> String {
        format!("{}/{}", self.name, self.arg)
    }
}

impl Run {
    /// Index of the clock with `role`, if the stream declared one.
    pub fn clock_index(&self, role: ClockRole) -> Option<usize> {
        self.clocks.iter().position(|c| c.role == role)
    }
}

impl Benchmark {
    /// The measured (non-warm-up) samples of clock column `clock`.
    /// An index with no column gives an empty slice.
    pub fn measured(&self, clock: usize) -> &[u64] {
        let Some(column) = self.samples.get(clock) else {
            return &[];
        };
        let skip = usize::try_from(self.warmup)
            .unwrap_or(usize::MAX)
            .min(column.len());
        &column[skip..]
    }

    /// How many measured samples there are: `iterations / batch`.
    pub fn measured_samples(&self) -> u64 {
        self.iterations / self.batch.max(1)
    }

    /// Whether the cycle figures can be trusted: no sample spanned an uncounted counter wrap
    /// ([`Benchmark::wrapped`] is 0).
    pub fn cycles_measured(&self) -> bool {
        self.wrapped == 0
    }

    /// Whether the benchmark ended holding heap memory it had allocated (never, when the heap was not
    /// measured).
    pub fn leaked(&self) -> bool {
        self.heap.is_some_and(|h| h.live != 0)
    }
}
