//! The summary of a whole run: what the report, the JSON export, budgets, baselines and the gate read.

use rho_wire::{
    Benchmark, Clock, ClockRole, FamilyMember, HeapFigures, Run, RunConfig, StackMark, Target,
};
use serde::{Deserialize, Serialize};

use crate::clock::{ClockFigures, ClockInfo, OverheadFigures, one};
use crate::count::{CountOverhead, CountedRun, InstructionFigures};
use crate::distribution::Distribution;
use crate::error::StatsError;
use crate::summary::Summary;

/// The unit of a clock that counts instructions: its figures are the instructions metric, not cycles.
pub const INSTRUCTION_UNIT: &str = "instruction";

/// One benchmark of the suite, summarised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchSummary {
    pub name: String,
    /// What one op is.
    pub unit: String,
    /// Ops per iteration.
    pub per_iteration: u64,
    /// Measured iterations actually done.
    pub iterations: u64,
    /// Iterations per measured sample (`@end batch=`; 1 when not batched). After [`crate::best_of`], the batch
    /// of the run whose figures were kept (each [`ClockFigures::batch`] says its own).
    #[serde(default = "one")]
    pub batch: u64,
    /// Warm-up iterations done (and dropped).
    pub warmup: u64,
    /// The time cap stopped the benchmark early.
    pub capped: bool,
    /// Measured samples the scheduler interrupted (`@end preempted=`, wire version 7: their wall-clock figures
    /// hold time another thread had the core), summed over the runs folded ([`crate::best_of`]).
    #[serde(default)]
    pub preempted: u64,
    /// Interrupted measured samples the harness discarded and measured again (`@end rerun=`, wire version 9),
    /// summed over the runs folded: not among the samples the figures come from.
    #[serde(default)]
    pub rerun: u64,
    /// Samples whose cycle reading spanned a counter wrap the harness could not count (`@end wrapped=`). When
    /// non-zero the cycle figures, and any time derived from them, are not measured: `cycles` is `None`.
    #[serde(default)]
    pub cycles_wrapped: u64,
    /// The harness stopped the benchmark when its stack overran into the guard below the painted region
    /// (`@end overran=1`): it never finished, so it has no cycle, time or heap figures (`cycles` and `time` are
    /// `None`, [`BenchSummary::metric`] has no heap peak) and its stack is an overrun.
    #[serde(default)]
    pub overran: bool,
    /// Cycle (or tick) figures, when the stream had a `cycles` clock and no sample spanned an uncounted wrap.
    pub cycles: Option<ClockFigures>,
    /// Nanosecond figures: from the `time` clock, or derived from the cycle clock when there is none and its
    /// frequency is known (`derived: true`); `None` otherwise.
    pub time: Option<ClockFigures>,
    /// CPU-time nanoseconds per iteration, from a harness that measures CPU time beside the wall clock: rho's
    /// harnesses' `@clock cpu` (wire version 7: the thread's CPU time, netted of `.overhead`'s like every
    /// clock), or Google Benchmark's `cpu_time` (its `time_unit` converted; rho-import). The same statistics
    /// as `time`, over the same samples. `None` when the run has no such clock, or left it out for this
    /// benchmark (`cpu_left_out` says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<ClockFigures>,
    /// Why a benchmark of a run with a CPU clock has no CPU time (`cpu` is `None`); `None` when it has one,
    /// the run has no CPU clock, or the benchmark was stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_left_out: Option<CpuLeftOut>,
    /// Instructions per iteration: from a counted run (Callgrind), or a clock that counts instructions (QEMU
    /// `-icount`); `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<InstructionFigures>,
    pub stack: StackMark,
    /// The heap figures; `None` when the harness did not measure the heap (`@heap off`).
    pub heap: Option<HeapFigures>,
    /// The benchmark ended holding heap memory (`heap.live != 0`; never when the heap was not measured, nor
    /// when it overran: what a stopped benchmark held when it was stopped is no leak).
    pub leaked: bool,
    /// Ops per second: `per_iteration * 1e9 / net median ns`, from the figures [`BenchSummary::rate_figures`]
    /// picks (the time figures, or the cycle figures at their `hz` when time is below its clock's resolution
    /// and cycles are not). `None` without such figures, when they are below resolution too, or with a net
    /// median of 0 (a clock too coarse to see the body has no rate to report).
    pub ops_per_second: Option<f64>,
    /// Net median nanoseconds per op: `net median ns / per_iteration`, from the same figures as
    /// `ops_per_second` (even below resolution: then a budget on it is reported only). `None` without time
    /// figures or with `per_iteration` 0.
    pub ns_per_op: Option<f64>,
    /// The benchmark's static footprint, as the footprint command (`rho mem --json`) reported it for the built
    /// image: not measured, read from the image and the compiler's stack-usage files. `None` when the
    /// command was not run or did not answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footprint: Option<StaticFootprint>,
    /// `--measure time` with `--profile NAME` or `--functions N`: the measured loop's functions sampled by
    /// `perf record` in a run of its own (rho-profile's [`rho_profile::perf`]), marked by their `sampling`;
    /// estimates, not counts. `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled_functions: Option<rho_profile::Functions>,
    /// The family this benchmark is a member of (`RHO_BENCH_ADD_ARG`), and its argument.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<FamilyMember>,
    /// Figures another harness reported besides time, kept as it gave them (rho-import: Google Benchmark's
    /// user counters, cpu time and rates, Go's B/op and allocs/op). Shown, exported, recorded in a baseline
    /// and judged by `--diff`, `compare` and the gate in their own direction ([`Better`]); a budget names one
    /// of [`Metric`]. Empty for a wire stream.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<ExtraMetric>,
    /// The time samples are not measurements but the five quantiles (min, q1, median, q3, max) of a report
    /// that kept only its statistics (pytest-benchmark without its raw data): the median, p25, p75, min and
    /// max are the tool's, the mean, deviation and `n` are not. False for every measured run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stats_only: bool,
}

/// Which way an [`ExtraMetric`] is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Lower,
    Higher,
}

/// What `rho bench import --wire -` prints after a stream's `@done` (where a wire parser reads nothing, so any
/// reader of the stream is untouched), one line a benchmark: this prefix, then one JSON object of
/// `BENCH.NAME` (the benchmark's wire name, the figure's name) to an [`ExtraValue`]: another harness's figures
/// besides time, which a stream cannot carry, for the gate to judge each in its own direction.
pub const EXTRA_LINE: &str = "@rho-extra ";

/// One extra figure of one run on an [`EXTRA_LINE`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ExtraValue {
    /// The median over the run's samples.
    pub value: f64,
    pub better: Better,
}

/// One figure another harness reported for a benchmark, besides its time: the median over its samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtraMetric {
    /// The harness's own name for it (`cpu_time`, `bytes_per_second`, `B/op`, a user counter's name).
    pub name: String,
    /// Its unit as the harness gave it (`ns`, `B/s`, `B/op`; empty when the harness gives none).
    pub unit: String,
    /// The median of the per-sample values (nearest rank, as every median of rho's).
    pub value: f64,
    pub better: Better,
    /// Whether `--diff`, `compare` and the gate judge it: not when the harness gave no figure per sample
    /// to fold (hyperfine's `user` and `system`, its means over its runs); such a figure is shown only.
    #[serde(default = "judged", skip_serializing_if = "is_judged")]
    pub judged: bool,
}

fn judged() -> bool {
    true
}

fn is_judged(judged: &bool) -> bool {
    *judged
}

/// One benchmark's static footprint (docs/mem-json.md says how each figure is computed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaticFootprint {
    /// Code bytes of the benchmark function and of every function it can reach in the call graph; `None`
    /// when the image has no such function.
    pub code_bytes: Option<u64>,
    /// The static stack bound in bytes: the deepest call path's sum of frames, with the harness's own frames
    /// under the benchmark that the measured mark also counts. `None` when unbounded or not known.
    pub static_stack_bytes: Option<u64>,
    /// Why there is no bound (recursion, an indirect call, no stack-usage information); `None` with a bound.
    pub unbounded: Option<String>,
}

/// The whole image's Berkeley totals (`size`'s text, data and bss), as the footprint command reported them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageTotals {
    pub text: u64,
    pub data: u64,
    pub bss: u64,
}

/// A metric a budget, a baseline or the gate judges. Every metric has one direction: lower is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Net median cycles (or ticks) per iteration.
    Cycles,
    /// Net median nanoseconds per iteration.
    TimeNs,
    /// Median CPU-time nanoseconds per iteration (another harness's second clock: Google Benchmark's
    /// `cpu_time`).
    CpuNs,
    /// Stack high-water mark in bytes.
    StackBytes,
    /// Heap peak in bytes.
    HeapPeakBytes,
    /// Net instructions per iteration (exact: one instruction more is a change).
    Instructions,
    /// Code bytes of the benchmark function and all it can reach (static, from the footprint command;
    /// exact: one byte more is a change).
    CodeBytes,
    /// The static stack bound in bytes (from the footprint command; exact). An unbounded stack has no figure.
    StaticStackBytes,
}

impl Metric {
    pub const ALL: [Metric; 8] = [
        Metric::Cycles,
        Metric::TimeNs,
        Metric::CpuNs,
        Metric::StackBytes,
        Metric::HeapPeakBytes,
        Metric::Instructions,
        Metric::CodeBytes,
        Metric::StaticStackBytes,
    ];

    /// The wall-clock metrics, whose place a benchmark's CPU time ([`Metric::CpuNs`]) takes when it is
    /// measured on both sides: `check --diff` (rho-compare) and the gate (rho-gate) show them, not judge them.
    pub const WALL_CLOCK: [Metric; 2] = [Metric::Cycles, Metric::TimeNs];

    /// A short stable name (`cycles`, `time_ns`, `stack_bytes`, `heap_peak_bytes`).
    pub fn name(self) -> &'static str {
        match self {
            Metric::Cycles => "cycles",
            Metric::TimeNs => "time_ns",
            Metric::CpuNs => "cpu_ns",
            Metric::StackBytes => "stack_bytes",
            Metric::HeapPeakBytes => "heap_peak_bytes",
            Metric::Instructions => "instructions",
            Metric::CodeBytes => "code_bytes",
            Metric::StaticStackBytes => "static_stack_bytes",
        }
    }

    /// Whether the figure is read from the built image rather than measured by running it (code bytes, the
    /// static stack bound): exact, so any growth is a change.
    pub fn is_static(self) -> bool {
        matches!(self, Metric::CodeBytes | Metric::StaticStackBytes)
    }
}

impl BenchSummary {
    /// The figures the rates (`ops_per_second`, `ns_per_op`) come from: the time figures when they are not
    /// below their clock's resolution; else the cycle figures when they are not and their frequency is known;
    /// else the time figures anyway (below resolution); `None` without time figures.
    pub fn rate_figures(&self) -> Option<&ClockFigures> {
        rate_figures(self.time.as_ref(), self.cycles.as_ref())
    }

    /// Recompute `ops_per_second` and `ns_per_op` from [`BenchSummary::rate_figures`].
    pub fn recompute_rates(&mut self) {
        let (ops_per_second, ns_per_op) = rates(
            self.per_iteration,
            rate_figures(self.time.as_ref(), self.cycles.as_ref()),
        );
        self.ops_per_second = ops_per_second;
        self.ns_per_op = ns_per_op;
    }

    /// The value of `metric` for this benchmark, or `None` when it was not measured (no such clock, stack
    /// overrun or off, heap off). Unmeasured is never reported as 0. Cycles and time are the net median per iteration,
    /// a fraction when batched.
    pub fn metric(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Cycles => self.cycles.as_ref().map(|f| f.per_iteration.median),
            Metric::TimeNs => self.time.as_ref().map(|f| f.per_iteration.median),
            Metric::CpuNs => self.cpu.as_ref().map(|f| f.per_iteration.median),
            Metric::StackBytes => match self.stack {
                StackMark::Bytes(bytes) => Some(bytes as f64),
                StackMark::Overrun | StackMark::Off => None,
            },
            Metric::HeapPeakBytes if self.overran => None,
            Metric::HeapPeakBytes => self.heap.map(|h| h.peak as f64),
            Metric::Instructions => self
                .instructions
                .as_ref()
                .map(|figures| figures.net() as f64),
            Metric::CodeBytes => self
                .footprint
                .as_ref()
                .and_then(|f| f.code_bytes)
                .map(|b| b as f64),
            Metric::StaticStackBytes => self
                .footprint
                .as_ref()
                .and_then(|f| f.static_stack_bytes)
                .map(|b| b as f64),
        }
    }
}

/// The summary of a whole run, benchmarks in suite order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The wire format version of the stream.
    pub version: u32,
    pub target: Target,
    pub config: RunConfig,
    /// The clocks as the stream declared them.
    pub clocks: Vec<ClockInfo>,
    /// Whether the stream carried a `.overhead` calibration block. Without one nothing is subtracted and net
    /// equals raw.
    pub calibrated: bool,
    /// The calibrated overhead of an empty iteration: one entry per clock of the stream, then a derived time
    /// entry when time is derived from cycles. Empty when not calibrated.
    pub overhead: Vec<OverheadFigures>,
    pub benchmarks: Vec<BenchSummary>,
    /// Benchmarks the suite had no room for.
    pub dropped: u64,
    /// Noise lines skipped while parsing.
    pub noise_lines: u64,
    /// How many runs were folded into these figures (1 for a single run; see [`crate::best_of`]).
    pub repetitions: u32,
    /// The built image's totals, when the footprint command answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageTotals>,
    /// The harness whose report these figures were read from (`gbench`, `criterion`, ...: `rho bench import`
    /// or another harness's suite, crate rho-import); `None` for a wire stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<String>,
    /// The harness's yardstick (`@yardstick`, wire version 9), summarised; `None` when the stream had none
    /// (an older stream, a counted run, another harness's report).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yardstick: Option<crate::YardstickFigures>,
}

impl RunSummary {
    /// Summarise a parsed run: the overhead from its `.overhead` block, then every benchmark, raw and net.
    pub fn of(run: &Run) -> Result<RunSummary, StatsError> {
        RunSummary::of_with_profiles(run, &rho_profile::DumpProfiles::default())
    }

    /// Summarise a counted run as [`RunSummary::of`] does, each benchmark's instructions with its functions
    /// netted of the harness when the dumps' functions were kept.
    pub fn of_counted(counted: &CountedRun) -> Result<RunSummary, StatsError> {
        RunSummary::of_with_profiles(&counted.run, &counted.profiles)
    }

    fn of_with_profiles(
        run: &Run,
        profiles: &rho_profile::DumpProfiles,
    ) -> Result<RunSummary, StatsError> {
        let mut scratch = Vec::new();
        let cycles_index = run.clock_index(ClockRole::Cycles);
        let time_index = run.clock_index(ClockRole::Time);
        let cpu_index = run.clock_index(ClockRole::Cpu);
        // Time is derived from the cycle clock only when there is no time clock and the frequency is known.
        let derive_hz = match (time_index, cycles_index) {
            (None, Some(c)) => run.clocks[c].hz.filter(|&hz| hz != 0),
            _ => None,
        };

        // Overhead per clock column, in column order.
        let (overhead_by_column, overhead) =
            clock_overheads(run, derive_hz, cycles_index, &mut scratch)?;

        // A counted run: the harness's share of a loop, from `.overhead`'s two counts of the empty loop.
        let count_overhead = match (&run.counter, &run.calibration) {
            (Some(_), Some(calibration)) => Some(CountOverhead::of(calibration, profiles)?),
            _ => None,
        };
        // A clock counting instructions gives the instructions metric, not cycles.
        let instruction_clock = cycles_index.filter(|&c| run.clocks[c].unit == INSTRUCTION_UNIT);

        let mut benchmarks = Vec::with_capacity(run.benchmarks.len());
        for bench in &run.benchmarks {
            check_columns(run, bench)?;
            let mut figures_of = |column: usize| -> Result<ClockFigures, StatsError> {
                let samples = bench.measured(column);
                let raw = Summary::of_with_scratch(samples, &mut scratch).ok_or_else(|| {
                    StatsError::NoSamples {
                        benchmark: bench.name.clone(),
                    }
                })?;
                let overhead = overhead_by_column[column];
                let net = raw.minus(overhead);
                let resolution = run.clocks[column].resolution;
                let distribution =
                    Distribution::of(samples, overhead, bench.batch, resolution, net.min, net.p99);
                Ok(ClockFigures {
                    clock: ClockInfo::from(&run.clocks[column]),
                    derived: false,
                    raw,
                    net,
                    batch: bench.batch,
                    per_iteration: net.per_iteration(bench.batch),
                    overhead,
                    below_resolution: ClockFigures::is_below_resolution(net.median, resolution),
                    distribution,
                })
            };
            // A sample that spanned an uncounted wrap is off by a multiple of the counter's period: a
            // figure built on it would understate the truth, so there is none (not measured, never 0).
            // A benchmark stopped by a stack overrun never finished: what it did until then is no figure.
            let mut cycles = match cycles_index {
                Some(column) if bench.cycles_measured() && !bench.overran => {
                    Some(figures_of(column)?)
                }
                _ => None,
            };
            let mut instructions = None;
            if instruction_clock.is_some() {
                instructions = cycles
                    .take()
                    .map(|f| InstructionFigures::from_clock(f, bench.iterations));
            }
            if let (Some(counter), Some(overhead)) = (&run.counter, &count_overhead)
                && !bench.overran
            {
                instructions =
                    overhead.figures(bench, &counter.name, &run.target.name, profiles)?;
            }
            let mut time = match time_index {
                Some(column) if !bench.overran => Some(figures_of(column)?),
                _ => None,
            };
            if let (Some(hz), Some(c), Some(cyc)) = (derive_hz, cycles_index, &cycles) {
                time = derive_time(&run.clocks[c], hz, cyc);
            }
            // The thread's CPU time is the benchmark's only when no other thread of the process worked
            // while it ran (a body that hands work to a pool would read as cheap): else there is none.
            // And only when a sample is long beside the clock's own read ([`resolved_by_cpu_clock`]).
            let (cpu, cpu_left_out) = match cpu_index {
                Some(_) if bench.overran => (None, None),
                Some(column) if !single_threaded(bench, column) => {
                    (None, Some(CpuLeftOut::OtherThreads))
                }
                Some(column) => {
                    let figures = figures_of(column)?;
                    if resolved_by_cpu_clock(&figures) {
                        (Some(figures), None)
                    } else {
                        (None, Some(CpuLeftOut::ShortSamples))
                    }
                }
                None => (None, None),
            };
            let (ops_per_second, ns_per_op) = rates(
                bench.per_iteration,
                rate_figures(time.as_ref(), cycles.as_ref()),
            );
            benchmarks.push(BenchSummary {
                name: bench.name.clone(),
                unit: bench.unit.clone(),
                per_iteration: bench.per_iteration,
                iterations: bench.iterations,
                batch: bench.batch,
                warmup: bench.warmup,
                capped: bench.capped,
                preempted: bench.preempted,
                rerun: bench.rerun,
                cycles_wrapped: bench.wrapped,
                family: bench.family.clone(),
                overran: bench.overran,
                cycles,
                time,
                cpu,
                cpu_left_out,
                instructions,
                stack: bench.stack,
                heap: bench.heap,
                leaked: bench.leaked() && !bench.overran,
                ops_per_second,
                ns_per_op,
                footprint: None,
                sampled_functions: None,
                extra: Vec::new(),
                stats_only: false,
            });
        }

        Ok(RunSummary {
            version: run.version,
            target: run.target.clone(),
            config: run.config.clone(),
            clocks: run.clocks.iter().map(ClockInfo::from).collect(),
            calibrated: run.calibration.is_some(),
            overhead,
            benchmarks,
            dropped: run.dropped,
            noise_lines: run.noise_lines,
            repetitions: 1,
            image: None,
            imported: None,
            yardstick: crate::YardstickFigures::of_run(run),
        })
    }

    /// The benchmark called `name`, if the run has one.
    pub fn benchmark(&self, name: &str) -> Option<&BenchSummary> {
        self.benchmarks.iter().find(|b| b.name == name)
    }

    /// Keep each benchmark's first `limit` functions by inclusive instructions (the rest as "other"), none
    /// with 0 (`rho bench --functions N`).
    pub fn limit_functions(&mut self, limit: usize) {
        for bench in &mut self.benchmarks {
            if let Some(instructions) = &mut bench.instructions {
                instructions.limit_functions(limit);
            }
        }
    }
}

/// How much CPU time, as a fraction of the benchmark thread's own over its measured samples, the process's
/// other threads may have used while it ran for the thread's CPU time to be the benchmark's: 1%. A harness
/// has no thread of its own; a body that hands its work to other threads shows many times this.
pub const OTHER_THREADS_CPU_SHARE: f64 = 0.01;

/// Why a benchmark has no CPU time in a run whose harness measured it (`BenchSummary::cpu_left_out`): its
/// wall-clock figures are judged instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CpuLeftOut {
    /// The process's other threads worked during its loop (more than [`OTHER_THREADS_CPU_SHARE`] of its
    /// thread's CPU time): the thread's CPU time is not the benchmark's.
    OtherThreads,
    /// Its samples' net CPU time was under [`CPU_SAMPLE_MIN_READS`] reads of the CPU clock: mostly the read's
    /// own error.
    ShortSamples,
}

/// How many times the CPU clock's read (its `.overhead` median) a measured sample's net CPU time must be for
/// the figure to be the benchmark's: 10.
///
/// The thread's CPU clock is a system call (no vDSO serves it), and what one read costs moves within a run: on
/// this project's 2-core VM the `.overhead` median read 1141 to 1544 ns in five runs of the example suite, and
/// in a run the loop's reads cost up to 450 ns more or 300 ns less than the calibration's. A net figure is
/// the sample less that median, so a sample of one or two reads' length is mostly that error: an unchanged
/// 0.7 us CRC read 713 to 1121 ns of CPU time against 721 to 782 of wall time, and CI recorded a 3 ns body at
/// 0 CPU ns then failed it `from 0` on the next run. Ten reads keep the error within about 3% of the
/// figure. A shorter sample has no CPU figure, and its wall-clock figures are judged, as for a board.
pub const CPU_SAMPLE_MIN_READS: u64 = 10;

/// Whether the CPU clock resolves `figures`' samples: their net median is at least [`CPU_SAMPLE_MIN_READS`]
/// times the clock's calibrated read cost (always, without a calibration to take off).
fn resolved_by_cpu_clock(figures: &ClockFigures) -> bool {
    figures.net.median >= CPU_SAMPLE_MIN_READS.saturating_mul(figures.overhead)
}

/// Whether benchmark `bench` ran on its thread alone (`@end other_cpu_ns=`, wire version 7): the other threads'
/// CPU time at most [`OTHER_THREADS_CPU_SHARE`] of its thread's, the sum of its measured samples of CPU clock
/// column `cpu`. A stream that does not say (`None`) is taken at its word that the clock is the benchmark's.
fn single_threaded(bench: &Benchmark, cpu: usize) -> bool {
    let own: u128 = bench.measured(cpu).iter().map(|&ns| u128::from(ns)).sum();
    bench
        .other_cpu_ns
        .is_none_or(|other| other as f64 <= own as f64 * OTHER_THREADS_CPU_SHARE)
}

/// The `.overhead` block's figures per clock column, in column order (with the derived time clock's after
/// them), and each column's median; none without a `.overhead` block.
fn clock_overheads(
    run: &Run,
    derive_hz: Option<u64>,
    cycles_index: Option<usize>,
    scratch: &mut Vec<u64>,
) -> Result<(Vec<u64>, Vec<OverheadFigures>), StatsError> {
    let mut overhead_by_column = vec![0u64; run.clocks.len()];
    let mut overhead = Vec::new();
    if let Some(calibration) = &run.calibration {
        check_columns(run, calibration)?;
        for (column, clock) in run.clocks.iter().enumerate() {
            let summary = Summary::of_with_scratch(calibration.measured(column), scratch)
                .ok_or_else(|| StatsError::EmptyCalibration {
                    clock: clock.name.clone(),
                })?;
            overhead_by_column[column] = summary.median;
            overhead.push(OverheadFigures {
                clock: ClockInfo::from(clock),
                derived: false,
                median: summary.median,
                summary,
            });
        }
        if let (Some(hz), Some(c)) = (derive_hz, cycles_index)
            && let Some(cycles) = overhead.get(c)
            && let Some(summary) = cycles.summary.scaled_to_ns(hz)
        {
            let entry = OverheadFigures {
                clock: derived_clock(&run.clocks[c], hz),
                derived: true,
                median: summary.median,
                summary,
            };
            overhead.push(entry);
        }
    }
    Ok((overhead_by_column, overhead))
}

/// A benchmark must carry one sample column per declared clock (the parser guarantees it; a hand-built `Run`
/// might not).
fn check_columns(run: &Run, bench: &Benchmark) -> Result<(), StatsError> {
    if bench.samples.len() != run.clocks.len() {
        return Err(StatsError::ColumnMismatch {
            benchmark: bench.name.clone(),
            columns: bench.samples.len(),
            clocks: run.clocks.len(),
        });
    }
    Ok(())
}

/// The description of nanoseconds derived from cycle clock `cycles` at `hz`.
fn derived_clock(cycles: &Clock, hz: u64) -> ClockInfo {
    let resolution = u128::from(cycles.resolution) * 1_000_000_000;
    let resolution = u64::try_from(resolution.div_ceil(u128::from(hz))).unwrap_or(u64::MAX);
    ClockInfo {
        role: ClockRole::Time,
        name: cycles.name.clone(),
        unit: "ns".to_string(),
        hz: Some(1_000_000_000),
        resolution,
    }
}

/// Time figures derived from cycle figures at `hz`: raw and net are scaled separately (net is the scaled net
/// cycles, so the overhead taken off is exactly the scaled cycle overhead). Below resolution exactly when the
/// cycles are: they are the same measurement.
fn derive_time(cycles_clock: &Clock, hz: u64, cycles: &ClockFigures) -> Option<ClockFigures> {
    let net = cycles.net.scaled_to_ns(hz)?;
    Some(ClockFigures {
        clock: derived_clock(cycles_clock, hz),
        derived: true,
        raw: cycles.raw.scaled_to_ns(hz)?,
        net,
        batch: cycles.batch,
        // From the cycles per iteration, not the rounded ns of a sample: a batch keeps its fraction.
        per_iteration: cycles.per_iteration.scaled(1e9 / hz as f64),
        overhead: crate::summary::counts_to_ns(cycles.overhead, hz)?,
        below_resolution: cycles.below_resolution,
        distribution: cycles
            .distribution
            .as_ref()
            .map(|d| d.scaled(1e9 / hz as f64)),
    })
}

/// See [`BenchSummary::rate_figures`].
fn rate_figures<'a>(
    time: Option<&'a ClockFigures>,
    cycles: Option<&'a ClockFigures>,
) -> Option<&'a ClockFigures> {
    match (time, cycles) {
        (Some(t), _) if !t.below_resolution => Some(t),
        (Some(_), Some(c)) if !c.below_resolution && c.net_median_ns().is_some() => Some(c),
        (time, _) => time,
    }
}

/// `(ops_per_second, ns_per_op)` from `figures`: no rate from a figure below resolution or of 0 ns.
fn rates(per_iteration: u64, figures: Option<&ClockFigures>) -> (Option<f64>, Option<f64>) {
    let Some((ns, below)) = figures.and_then(|f| Some((f.net_median_ns()?, f.below_resolution)))
    else {
        return (None, None);
    };
    let ops_per_second = (!below && ns > 0.0).then(|| per_iteration as f64 * 1e9 / ns);
    let ns_per_op = (per_iteration > 0).then(|| ns / per_iteration as f64);
    (ops_per_second, ns_per_op)
}

/// A yardstick's figure of a metric: here, beside [`Metric`], so the yardstick's module need not know it.
impl crate::YardstickFigures {
    /// The figure of `metric` (`cycles`, `time_ns`, `cpu_ns`); `None` for any other metric or without it.
    pub fn of(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Cycles => self.cycles,
            Metric::TimeNs => self.time_ns,
            Metric::CpuNs => self.cpu_ns,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_wire::parse_str;

    const TAIL: &str = "@stack 64\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n";

    /// A stream with `clocks`, a calibration block and one benchmark per `(name, samples)`; the first sample
    /// line of each block is its warm-up.
    fn stream(clocks: &str, calibration: &[&str], benches: &[(&str, &[&str])]) -> String {
        let mut text = format!(
            "@rho-bench 1\n@target host arch=x86_64 optimized=1\n{clocks}\
             @config iterations=4 warmup=1 time_cap_ms=5000 stack_bytes=65536\n"
        );
        let mut block = |name: &str, samples: &[&str]| {
            text.push_str(&format!("@bench {name}\n"));
            for s in samples {
                text.push_str(&format!(":{s}\n"));
            }
            text.push_str(&format!(
                "{TAIL}@end {name} iterations={} warmup=1 capped=0 unit=byte per_iteration=64\n",
                samples.len() - 1
            ));
        };
        block(".overhead", calibration);
        for (name, samples) in benches {
            block(name, samples);
        }
        text.push_str(&format!("@done benchmarks={} dropped=0\n", benches.len()));
        text
    }

    const TWO_CLOCKS: &str = "@clock cycles tsc unit=cycle hz=2000000000 resolution=1\n\
                              @clock time clock_gettime unit=ns hz=1000000000 resolution=20\n";
    /// Overhead: 100 cycles, 40 ns.
    const CALIBRATION: &[&str] = &["999 999", "100 40", "110 60", "120 50", "100 40"];

    fn summary() -> RunSummary {
        let text = stream(
            TWO_CLOCKS,
            CALIBRATION,
            &[
                // 20 cycles net (10 ns at 2 GHz), 10 ns net on a 20 ns clock.
                ("tiny", &["0 0", "120 50", "120 50", "120 50", "120 60"]),
                // Below both clocks: 0 cycles, 0 ns net.
                ("empty", &["0 0", "100 40", "100 40", "100 40", "100 40"]),
                // 3000 cycles and 1500 ns net: both clocks see it.
                (
                    "big",
                    &["0 0", "3100 1540", "3100 1540", "3100 1540", "3100 1540"],
                ),
            ],
        );
        RunSummary::of(&parse_str(&text).unwrap()).unwrap()
    }

    #[test]
    fn figures_below_one_step_of_their_clock_are_marked() {
        let summary = summary();
        let flags = |name: &str| {
            let b = summary.benchmark(name).unwrap();
            (
                b.cycles.as_ref().unwrap().below_resolution,
                b.time.as_ref().unwrap().below_resolution,
            )
        };
        assert_eq!(flags("tiny"), (false, true));
        assert_eq!(flags("empty"), (true, true));
        assert_eq!(flags("big"), (false, false));
        // Exactly one step is seen by the clock.
        assert!(!ClockFigures::is_below_resolution(20, 20));
        assert!(ClockFigures::is_below_resolution(19, 20));
        // Serialised for the JSON export.
        let json = serde_json::to_value(summary.benchmark("tiny").unwrap()).unwrap();
        assert_eq!(json["time"]["below_resolution"], true);
        assert_eq!(json["cycles"]["below_resolution"], false);
    }

    #[test]
    fn rates_come_from_cycles_when_time_is_below_resolution_and_cycles_are_not() {
        let summary = summary();
        let tiny = summary.benchmark("tiny").unwrap();
        // 20 cycles at 2 GHz = 10 ns per iteration of 64 bytes.
        assert_eq!(tiny.rate_figures().unwrap().clock.role, ClockRole::Cycles);
        assert_eq!(tiny.ops_per_second, Some(64.0 * 1e9 / 10.0));
        assert_eq!(tiny.ns_per_op, Some(10.0 / 64.0));
        // Below both: no rate at all (not a huge one from a 0 or a lucky step), and ns per op from time,
        // below resolution.
        let empty = summary.benchmark("empty").unwrap();
        assert_eq!(empty.rate_figures().unwrap().clock.role, ClockRole::Time);
        assert_eq!(empty.ops_per_second, None);
        assert_eq!(empty.ns_per_op, Some(0.0));
        // Both seen: the time clock, as always.
        let big = summary.benchmark("big").unwrap();
        assert_eq!(big.rate_figures().unwrap().clock.role, ClockRole::Time);
        assert_eq!(big.ops_per_second, Some(64.0 * 1e9 / 1500.0));
        assert_eq!(big.ns_per_op, Some(1500.0 / 64.0));
    }

    #[test]
    fn derived_time_is_below_resolution_exactly_when_its_cycles_are() {
        let text = stream(
            "@clock cycles systick unit=cycle hz=25000000 resolution=4\n",
            &["9", "4", "4", "4", "4"],
            &[
                ("short", &["0", "6", "6", "6", "6"]),
                ("long", &["0", "104", "104", "104", "104"]),
            ],
        );
        let summary = RunSummary::of(&parse_str(&text).unwrap()).unwrap();
        let short = summary.benchmark("short").unwrap();
        let time = short.time.as_ref().unwrap();
        assert!(time.derived);
        assert!(short.cycles.as_ref().unwrap().below_resolution);
        assert!(time.below_resolution);
        assert_eq!(short.ops_per_second, None);
        let long = summary.benchmark("long").unwrap();
        assert!(!long.time.as_ref().unwrap().below_resolution);
        // 100 cycles at 25 MHz = 4000 ns.
        assert_eq!(long.ops_per_second, Some(64.0 * 1e9 / 4000.0));
    }
}
