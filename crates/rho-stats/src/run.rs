//! The summary of a whole run: what the report, the JSON export, budgets, baselines and the gate read.

use rho_wire::{Benchmark, Clock, ClockRole, HeapFigures, Run, RunConfig, StackMark, Target};
use serde::{Deserialize, Serialize};

use crate::error::StatsError;
use crate::summary::Summary;

/// Which clock a set of figures came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockInfo {
    pub role: ClockRole,
    /// The clock's name as the harness printed it (`tsc`, `dwt`, `clock_gettime`, ...). For a derived time
    /// figure this is the cycle clock it was derived from.
    pub name: String,
    /// `cycle`, `tick` or `ns`.
    pub unit: String,
    /// Counts per second, when known.
    pub hz: Option<u64>,
    /// The smallest step the clock was seen to take, in `unit`. For a derived time figure: the cycle clock's
    /// resolution in nanoseconds, rounded up (never 0 for a clock that ticks).
    pub resolution: u64,
}

impl From<&Clock> for ClockInfo {
    fn from(clock: &Clock) -> ClockInfo {
        ClockInfo {
            role: clock.role,
            name: clock.name.clone(),
            unit: clock.unit.clone(),
            hz: clock.hz,
            resolution: clock.resolution,
        }
    }
}

/// The figures of one benchmark on one clock (warm-ups dropped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockFigures {
    pub clock: ClockInfo,
    /// Time figures computed from a cycle clock (`cycles * 1e9 / hz`) because the stream had no time clock.
    pub derived: bool,
    /// Summary of the raw samples, overhead included.
    pub raw: Summary,
    /// `raw` with the calibrated overhead taken off (see [`Summary::minus`]).
    pub net: Summary,
    /// The overhead that was taken off, in the clock's unit (0 when the run had no calibration).
    pub overhead: u64,
}

/// The calibrated cost of one empty measured iteration on one clock: the median of the `.overhead` block's
/// measured samples, with that block's full summary for a reader who wants to see how stable it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverheadFigures {
    pub clock: ClockInfo,
    /// True for a time overhead derived from the cycle clock.
    pub derived: bool,
    /// The figure subtracted from every statistic (= `summary.median`).
    pub median: u64,
    pub summary: Summary,
}

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
    /// Warm-up iterations done (and dropped).
    pub warmup: u64,
    /// The time cap stopped the benchmark early.
    pub capped: bool,
    /// Cycle (or tick) figures, when the stream had a `cycles` clock.
    pub cycles: Option<ClockFigures>,
    /// Nanosecond figures: from the `time` clock, or derived from the cycle clock when there is none and its
    /// frequency is known (`derived: true`); `None` otherwise.
    pub time: Option<ClockFigures>,
    pub stack: StackMark,
    pub heap: HeapFigures,
    /// The benchmark ended holding heap memory (`heap.live != 0`).
    pub leaked: bool,
    /// Ops per second: `per_iteration * 1e9 / net median ns`. `None` without time figures or with a net median
    /// of 0 ns (a clock too coarse to see the body has no rate to report).
    pub ops_per_second: Option<f64>,
    /// Net median nanoseconds per op: `net median ns / per_iteration`. `None` without time figures or with
    /// `per_iteration` 0.
    pub ns_per_op: Option<f64>,
}

/// A metric a budget, a baseline or the gate judges. Every metric has one direction: lower is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Net median cycles (or ticks) per iteration.
    Cycles,
    /// Net median nanoseconds per iteration.
    TimeNs,
    /// Stack high-water mark in bytes.
    StackBytes,
    /// Heap peak in bytes.
    HeapPeakBytes,
}

impl Metric {
    pub const ALL: [Metric; 4] = [
        Metric::Cycles,
        Metric::TimeNs,
        Metric::StackBytes,
        Metric::HeapPeakBytes,
    ];

    /// A short stable name (`cycles`, `time_ns`, `stack_bytes`, `heap_peak_bytes`).
    pub fn name(self) -> &'static str {
        match self {
            Metric::Cycles => "cycles",
            Metric::TimeNs => "time_ns",
            Metric::StackBytes => "stack_bytes",
            Metric::HeapPeakBytes => "heap_peak_bytes",
        }
    }
}

impl BenchSummary {
    /// The value of `metric` for this benchmark, or `None` when it was not measured (no such clock, stack
    /// overrun or off). Unmeasured is never reported as 0.
    pub fn metric(&self, metric: Metric) -> Option<u64> {
        match metric {
            Metric::Cycles => self.cycles.as_ref().map(|f| f.net.median),
            Metric::TimeNs => self.time.as_ref().map(|f| f.net.median),
            Metric::StackBytes => match self.stack {
                StackMark::Bytes(bytes) => Some(bytes),
                StackMark::Overrun | StackMark::Off => None,
            },
            Metric::HeapPeakBytes => Some(self.heap.peak),
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
}

impl RunSummary {
    /// Summarise a parsed run: the overhead from its `.overhead` block, then every benchmark, raw and net.
    pub fn of(run: &Run) -> Result<RunSummary, StatsError> {
        let mut scratch = Vec::new();
        let cycles_index = run.clock_index(ClockRole::Cycles);
        let time_index = run.clock_index(ClockRole::Time);
        // Time is derived from the cycle clock only when there is no time clock and the frequency is known.
        let derive_hz = match (time_index, cycles_index) {
            (None, Some(c)) => run.clocks[c].hz.filter(|&hz| hz != 0),
            _ => None,
        };

        // Overhead per clock column, in column order.
        let mut overhead_by_column = vec![0u64; run.clocks.len()];
        let mut overhead = Vec::new();
        if let Some(calibration) = &run.calibration {
            check_columns(run, calibration)?;
            for (column, clock) in run.clocks.iter().enumerate() {
                let summary = Summary::of_with_scratch(calibration.measured(column), &mut scratch)
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

        let mut benchmarks = Vec::with_capacity(run.benchmarks.len());
        for bench in &run.benchmarks {
            check_columns(run, bench)?;
            let mut figures_of = |column: usize| -> Result<ClockFigures, StatsError> {
                let raw = Summary::of_with_scratch(bench.measured(column), &mut scratch)
                    .ok_or_else(|| StatsError::NoSamples {
                        benchmark: bench.name.clone(),
                    })?;
                let overhead = overhead_by_column[column];
                Ok(ClockFigures {
                    clock: ClockInfo::from(&run.clocks[column]),
                    derived: false,
                    raw,
                    net: raw.minus(overhead),
                    overhead,
                })
            };
            let cycles = cycles_index.map(&mut figures_of).transpose()?;
            let mut time = time_index.map(&mut figures_of).transpose()?;
            if let (Some(hz), Some(c), Some(cyc)) = (derive_hz, cycles_index, &cycles) {
                time = derive_time(&run.clocks[c], hz, cyc);
            }
            let net_ns = time.as_ref().map(|t| t.net.median);
            let ops_per_second = match net_ns {
                Some(ns) if ns > 0 => Some(bench.per_iteration as f64 * 1e9 / ns as f64),
                _ => None,
            };
            let ns_per_op = match net_ns {
                Some(ns) if bench.per_iteration > 0 => Some(ns as f64 / bench.per_iteration as f64),
                _ => None,
            };
            benchmarks.push(BenchSummary {
                name: bench.name.clone(),
                unit: bench.unit.clone(),
                per_iteration: bench.per_iteration,
                iterations: bench.iterations,
                warmup: bench.warmup,
                capped: bench.capped,
                cycles,
                time,
                stack: bench.stack,
                heap: bench.heap,
                leaked: bench.leaked(),
                ops_per_second,
                ns_per_op,
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
        })
    }

    /// The benchmark called `name`, if the run has one.
    pub fn benchmark(&self, name: &str) -> Option<&BenchSummary> {
        self.benchmarks.iter().find(|b| b.name == name)
    }
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
/// cycles, so the overhead taken off is exactly the scaled cycle overhead).
fn derive_time(cycles_clock: &Clock, hz: u64, cycles: &ClockFigures) -> Option<ClockFigures> {
    Some(ClockFigures {
        clock: derived_clock(cycles_clock, hz),
        derived: true,
        raw: cycles.raw.scaled_to_ns(hz)?,
        net: cycles.net.scaled_to_ns(hz)?,
        overhead: crate::summary::counts_to_ns(cycles.overhead, hz)?,
    })
}
