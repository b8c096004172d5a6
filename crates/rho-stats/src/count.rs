//! Instruction counts: the third metric, exact where time is noisy.
//!
//! Two sources give it:
//! - a counted run (`@counter instructions callgrind`): each block's loop is one whole count of `N` iterations,
//!   read from the counter's dump; `.overhead` counts the empty loop twice, `N0` and `2 N0` iterations, so the
//!   harness's share is a fixed part `a` (the loop's edges) plus `b` per iteration:
//!   `b = (T(2 N0) - T(N0)) / N0`, `a = T(N0) - b N0`, and a benchmark's net count per iteration is
//!   `(T - a - b N) / N`. A body of exactly 1000 instructions reads 1000.
//! - a clock that counts instructions (`unit=instruction`, e.g. SysTick under QEMU `-icount` converted by the
//!   host): its per-iteration samples give the figures as for any clock (net median).
//!
//! The metric ([`InstructionFigures::net`]) is the net count per iteration rounded to a whole instruction:
//! one instruction more per iteration is a change.

use std::collections::BTreeMap;

use rho_profile::DumpProfiles;
use rho_wire::{Benchmark, Count, Run};
use serde::{Deserialize, Serialize};

use crate::clock::ClockFigures;
use crate::error::StatsError;

/// Callgrind's name for executed instructions (rho-wire's, where the dumps are read).
pub use rho_wire::callgrind::INSTRUCTIONS_EVENT;

/// A benchmark's instruction figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionFigures {
    /// Who counted: `callgrind`, or the clock's name (`qemu-icount`).
    pub source: String,
    /// Net instructions per iteration, the exact quotient (the metric is its rounding, [`Self::net`]).
    pub per_iteration: f64,
    /// Measured iterations the figure is over.
    pub iterations: u64,
    /// A counted run: the raw count of the whole measured loop, the harness's share included.
    pub loop_total: Option<u64>,
    /// The harness's share taken off: per iteration, and (a counted run) once per loop.
    pub overhead_per_iteration: f64,
    pub overhead_per_loop: f64,
    /// A clock counting instructions: its per-iteration figures (median, percentiles, ...).
    pub samples: Option<ClockFigures>,
    /// `--cache-sim`: cache misses and the estimated cycles, per iteration, net.
    pub cache: Option<CacheFigures>,
    /// A counted run joined to a timed one (`--measure time,instructions`): the stack mark and heap peak the
    /// counted run saw. They are not the benchmark's native figures (under Valgrind the harness's frames and
    /// the allocator differ), so a baseline keeps them in the instructions section, apart from the native ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_memory: Option<CountedMemory>,
    /// A counted run that kept the dumps' functions: the measured loop's functions, per iteration, net of the
    /// harness as `per_iteration` is (rho-profile), the top N by inclusive figure and the rest as "other".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub functions: Option<rho_profile::Functions>,
}

/// A counted run as the host read it: the parsed stream with each dump's totals attached, and beside it, when
/// functions are kept, each dump's functions (rho-profile's). [`crate::RunSummary::of_counted`] nets both.
#[derive(Debug, Clone, PartialEq)]
pub struct CountedRun {
    pub run: Run,
    /// Empty when no function is kept (`--functions 0`, or a counter that has none, QEMU's plugin).
    pub profiles: DumpProfiles,
}

impl From<Run> for CountedRun {
    fn from(run: Run) -> CountedRun {
        CountedRun {
            run,
            profiles: DumpProfiles::default(),
        }
    }
}

impl CountedRun {
    /// Read the Callgrind dumps `run`'s `@count`s name from `dir` (rho-wire's
    /// [`attach_dumps`](rho_wire::callgrind::attach_dumps): `pid` as there) and, with `functions`, each
    /// dump's functions too, each dump read once.
    pub fn read_dumps(
        mut run: Run,
        dir: &std::path::Path,
        pid: Option<u32>,
        functions: bool,
    ) -> Result<CountedRun, rho_wire::callgrind::DumpError> {
        let mut profiles = DumpProfiles::default();
        rho_wire::callgrind::attach_dumps_reading(&mut run, dir, pid, |dump, text| {
            if functions {
                profiles.read(dump, text).map_err(|e| e.to_string())?;
            }
            Ok(())
        })?;
        Ok(CountedRun { run, profiles })
    }
}

/// The stack and heap a counted run measured, kept beside the timed run's when the two are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountedMemory {
    pub stack: rho_wire::StackMark,
    /// `None` when the harness did not measure the heap (`@heap off`).
    pub heap_peak: Option<u64>,
}

impl InstructionFigures {
    /// The metric: net instructions per iteration, rounded, never below 0.
    pub fn net(&self) -> u64 {
        round_count(self.per_iteration)
    }

    /// Figures from a clock that counts instructions.
    pub fn from_clock(figures: ClockFigures, iterations: u64) -> InstructionFigures {
        InstructionFigures {
            source: figures.clock.name.clone(),
            per_iteration: figures.per_iteration.median,
            iterations,
            loop_total: None,
            overhead_per_iteration: figures.overhead as f64,
            overhead_per_loop: 0.0,
            samples: Some(figures),
            cache: None,
            counted_memory: None,
            functions: None,
        }
    }

    /// Keep the first `limit` functions (the rest join "other"); none at all with a limit of 0.
    pub fn limit_functions(&mut self, limit: usize) {
        if limit == 0 {
            self.functions = None;
        } else if let Some(functions) = self.functions.take() {
            let mut limited = rho_profile::net::top(functions.listed, limit, &functions.source);
            limited.other.functions += functions.other.functions;
            limited.other.self_per_iteration += functions.other.self_per_iteration;
            self.functions = Some(limited);
        }
    }
}

/// The source name of instructions converted from QEMU `-icount` ticks.
pub const QEMU_ICOUNT: &str = "qemu-icount";
/// The source name of instructions counted on a board by rho's QEMU plugin (`@counter instructions qemu`).
pub const QEMU_PLUGIN: &str = "qemu";

fn round_count(value: f64) -> u64 {
    if value.is_finite() && value > 0.0 {
        value.round() as u64
    } else {
        0
    }
}

/// What a cache simulation adds (Callgrind `--cache-sim=yes`), per iteration, net of the harness's share.
///
/// `estimated_cycles = L1 hits + 5 LL hits + 35 RAM hits`, where `L1 hits = Ir + Dr + Dw - L1 misses`,
/// `LL hits = L1 misses - LL misses`, `RAM hits = LL misses`, L1 misses = `I1mr + D1mr + D1mw` and LL misses =
/// `ILmr + DLmr + DLmw` (the weights Callgrind's and iai-callgrind's estimates use).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheFigures {
    /// Every event of the dump, per iteration, net (`Ir`, `Dr`, `Dw`, `I1mr`, ...).
    pub events: BTreeMap<String, f64>,
    pub l1_misses: f64,
    pub ll_misses: f64,
    pub estimated_cycles: f64,
}

/// The formula, for reports.
pub const ESTIMATED_CYCLES_FORMULA: &str =
    "L1 hits + 5 x LL hits + 35 x RAM hits (L1 hits = Ir + Dr + Dw - L1 misses)";

impl CacheFigures {
    fn of(events: BTreeMap<String, f64>) -> Option<CacheFigures> {
        let get = |name: &str| events.get(name).copied();
        let l1 = get("I1mr")? + get("D1mr")? + get("D1mw")?;
        let ll = get("ILmr")? + get("DLmr")? + get("DLmw")?;
        let accesses = get(INSTRUCTIONS_EVENT)? + get("Dr")? + get("Dw")?;
        let estimated_cycles = (accesses - l1) + 5.0 * (l1 - ll) + 35.0 * ll;
        Some(CacheFigures {
            events,
            l1_misses: l1,
            ll_misses: ll,
            estimated_cycles,
        })
    }
}

/// The harness's share of a counted loop, per event: `per_loop + per_iteration * N`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CountOverhead {
    per_loop: BTreeMap<String, f64>,
    per_iteration: BTreeMap<String, f64>,
    /// The same fit per function, when both empty loops' dumps were kept with their functions.
    functions: Option<rho_profile::Overhead>,
}

impl CountOverhead {
    /// From the `.overhead` block's two counts (the empty loop, `N` and `2N` iterations).
    /// With `profiles`, each dump's functions, the harness's share per function too.
    pub(crate) fn of(
        calibration: &Benchmark,
        profiles: &DumpProfiles,
    ) -> Result<CountOverhead, StatsError> {
        let [short, long] = calibration.counts.as_slice() else {
            return Err(StatsError::Uncounted {
                benchmark: calibration.name.clone(),
                why: format!(
                    "{} counts of the empty loop (two are needed)",
                    calibration.counts.len()
                ),
            });
        };
        let extra = long.iterations.saturating_sub(short.iterations);
        if extra == 0 {
            return Err(StatsError::Uncounted {
                benchmark: calibration.name.clone(),
                why: "its two counts are of the same number of iterations".to_string(),
            });
        }
        let mut per_loop = BTreeMap::new();
        let mut per_iteration = BTreeMap::new();
        for (event, &short_total) in &short.totals {
            let long_total = long.totals.get(event).copied().unwrap_or(0);
            let b = (long_total as f64 - short_total as f64) / extra as f64;
            per_iteration.insert(event.clone(), b);
            per_loop.insert(
                event.clone(),
                short_total as f64 - b * short.iterations as f64,
            );
        }
        if !per_iteration.contains_key(INSTRUCTIONS_EVENT) {
            return Err(StatsError::Uncounted {
                benchmark: calibration.name.clone(),
                why: format!("its counts have no {INSTRUCTIONS_EVENT} (instructions) total"),
            });
        }
        let functions = profiles
            .get(short.dump)
            .zip(profiles.get(long.dump))
            .map(|(s, l)| rho_profile::Overhead::fit(s, short.iterations, l, long.iterations));
        Ok(CountOverhead {
            per_loop,
            per_iteration,
            functions,
        })
    }

    /// A benchmark's figures from its count, `None` when it has none (no loop ran). A count below the empty
    /// loop's (a net figure that rounds below 0 instructions an iteration) is refused, naming the benchmark and
    /// `target`: no body runs fewer than none.
    pub(crate) fn figures(
        &self,
        bench: &Benchmark,
        source: &str,
        target: &str,
        profiles: &DumpProfiles,
    ) -> Result<Option<InstructionFigures>, StatsError> {
        let Some(count) = bench.counts.first() else {
            return Ok(None);
        };
        let figures = self.net(bench, count, source, profiles)?;
        if figures.per_iteration.round() < 0.0 {
            let empty = figures.overhead_per_loop
                + figures.overhead_per_iteration * figures.iterations as f64;
            return Err(StatsError::ImpossibleCount {
                benchmark: bench.name.clone(),
                target: target.to_string(),
                why: format!(
                    "{} instructions for {} iterations, below the empty loop's {empty} ({} net an iteration)",
                    figures.loop_total.unwrap_or(0),
                    figures.iterations,
                    figures.per_iteration
                ),
            });
        }
        Ok(Some(figures))
    }

    fn net(
        &self,
        bench: &Benchmark,
        count: &Count,
        source: &str,
        profiles: &DumpProfiles,
    ) -> Result<InstructionFigures, StatsError> {
        let n = count.iterations.max(1) as f64;
        let mut events = BTreeMap::new();
        for (event, &total) in &count.totals {
            let a = self.per_loop.get(event).copied().unwrap_or(0.0);
            let b = self.per_iteration.get(event).copied().unwrap_or(0.0);
            events.insert(event.clone(), (total as f64 - a - b * n) / n);
        }
        let Some(&per_iteration) = events.get(INSTRUCTIONS_EVENT) else {
            return Err(StatsError::Uncounted {
                benchmark: bench.name.clone(),
                why: format!("its count has no {INSTRUCTIONS_EVENT} (instructions) total"),
            });
        };
        let loop_total = count.totals.get(INSTRUCTIONS_EVENT).copied();
        let cache = if events.len() > 1 {
            CacheFigures::of(events)
        } else {
            None
        };
        Ok(InstructionFigures {
            source: source.to_string(),
            per_iteration,
            iterations: count.iterations,
            loop_total,
            overhead_per_iteration: self
                .per_iteration
                .get(INSTRUCTIONS_EVENT)
                .copied()
                .unwrap_or(0.0),
            overhead_per_loop: self
                .per_loop
                .get(INSTRUCTIONS_EVENT)
                .copied()
                .unwrap_or(0.0),
            samples: None,
            cache,
            counted_memory: None,
            functions: self.functions.as_ref().zip(profiles.get(count.dump)).map(
                |(overhead, profile)| {
                    rho_profile::net::top(
                        overhead.net(profile, count.iterations),
                        usize::MAX,
                        source,
                    )
                },
            ),
        })
    }
}
