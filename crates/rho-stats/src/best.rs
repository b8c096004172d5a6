//! Best of N repetitions: every source of noise on a shared machine makes a run slower and none makes it faster,
//! so when a suite is repeated the lowest time or cycle figure is the one closest to what the code costs.
//! Noise does not make a stack deeper or a heap peak higher, though: those are properties of the code path, and
//! their worst case (the highest seen) is the one kept, so an overrun in any run stays an overrun.

use crate::clock::{ClockFigures, OverheadFigures};
use crate::error::StatsError;
use crate::run::{BenchSummary, Better, RunSummary};
use rho_wire::{HeapFigures, StackMark};

/// The least of `values` under `PartialOrd`; `None` when there are none. Values that do not compare with
/// themselves (a float NaN) are skipped, so a NaN never wins and never hides a real minimum. On ties the first
/// is kept.
pub fn min_of<T: PartialOrd>(values: impl IntoIterator<Item = T>) -> Option<T> {
    let mut best: Option<T> = None;
    for value in values {
        if value.partial_cmp(&value).is_none() {
            continue;
        }
        best = match best {
            Some(current) if current <= value => Some(current),
            _ => Some(value),
        };
    }
    best
}

impl Better {
    /// The best of `values` this way: the least for [`Better::Lower`], the greatest for [`Better::Higher`]
    /// (as repetitions are folded: noise makes a cost higher and a rate lower, never the other way). A NaN
    /// never wins; `None` when there is no number.
    pub fn best(self, values: impl IntoIterator<Item = f64>) -> Option<f64> {
        match self {
            Better::Lower => min_of(values),
            Better::Higher => min_of(values.into_iter().map(|v| -v)).map(|v| -v),
        }
    }
}

/// Fold the summaries of N repetitions of the same suite into one, keeping per benchmark the lowest time and
/// cycle figures and the highest (worst-case) stack and heap figures, and counting the runs folded in
/// `repetitions`.
///
/// - Clock figures: per benchmark and clock, the whole [`ClockFigures`] of the run with the lowest net median
///   (first on ties), so every statistic shown together was observed together, with the overhead it was netted
///   with. Cycles and time are chosen independently: they are two metrics.
/// - Stack: the deepest measured high-water mark (the worst case: noise does not deepen a stack, a different
///   path through the code does); a run that overran counts as deeper than any number, so an overrun in any run
///   stays an overrun, and a stack that was off in every run stays off.
/// - Heap: the highest peak, and the highest live bytes, allocation and free counts and free errors, because
///   noise does not allocate: a larger peak, a leak or a misuse in any repetition is a fact to report, not noise
///   to fold away; `leaked` follows `live`.
/// - `overran`: any run stopped by a stack overrun, and then no cycle or time figures at all;
/// - `capped`: any run capped; `iterations`: the fewest done; `ops_per_second` and `ns_per_op` are recomputed from
///   the chosen figures ([`BenchSummary::rate_figures`]).
/// - Run-level overhead: per entry, the one with the lowest median. `noise_lines` are added, `dropped` is the
///   highest.
///
/// The runs must come from the same target and clocks and hold the same benchmarks in the same order; otherwise
/// [`StatsError::Mismatch`]. No runs is [`StatsError::NoRuns`].
pub fn best_of(runs: &[RunSummary]) -> Result<RunSummary, StatsError> {
    let (first, rest) = runs.split_first().ok_or(StatsError::NoRuns)?;
    for (index, other) in rest.iter().enumerate() {
        check_comparable(first, other, index + 1)?;
    }
    let mut best = first.clone();
    for (index, bench) in best.benchmarks.iter_mut().enumerate() {
        let all: Vec<&BenchSummary> = runs.iter().map(|r| &r.benchmarks[index]).collect();
        // A benchmark stopped by a stack overrun in any run stays stopped: it has no figures at all.
        bench.overran = all.iter().any(|b| b.overran);
        bench.cycles =
            best_figures(all.iter().map(|b| b.cycles.as_ref())).filter(|_| !bench.overran);
        bench.time = best_figures(all.iter().map(|b| b.time.as_ref())).filter(|_| !bench.overran);
        bench.cpu = best_figures(all.iter().map(|b| b.cpu.as_ref())).filter(|_| !bench.overran);
        // Why there is none, when no run had one.
        bench.cpu_left_out = all
            .iter()
            .find_map(|b| b.cpu_left_out)
            .filter(|_| bench.cpu.is_none() && !bench.overran);
        bench.stack = worst_stack(all.iter().map(|b| b.stack));
        // The heap is measured only if it was in every run (the same binary measures it in all or none).
        bench.heap = all
            .iter()
            .map(|b| b.heap)
            .collect::<Option<Vec<HeapFigures>>>()
            .map(|heaps| HeapFigures {
                peak: heaps.iter().map(|h| h.peak).max().unwrap_or(0),
                live: heaps.iter().map(|h| h.live).max().unwrap_or(0),
                allocs: heaps.iter().map(|h| h.allocs).max().unwrap_or(0),
                frees: heaps.iter().map(|h| h.frees).max().unwrap_or(0),
                free_errors: heaps.iter().map(|h| h.free_errors).max().unwrap_or(0),
            });
        bench.leaked = bench.heap.is_some_and(|h| h.live != 0) && !bench.overran;
        bench.capped = all.iter().any(|b| b.capped);
        // Every repetition's interrupted samples: how often the machine took the core, over the whole run.
        bench.preempted = all.iter().map(|b| b.preempted).sum();
        bench.rerun = all.iter().map(|b| b.rerun).sum();
        bench.iterations = min_of(all.iter().map(|b| b.iterations)).unwrap_or(0);
        bench.batch = bench
            .cycles
            .as_ref()
            .or(bench.time.as_ref())
            .map_or(bench.batch, |f| f.batch);
        bench.recompute_rates();
    }
    for (index, entry) in best.overhead.iter_mut().enumerate() {
        let candidates = runs.iter().filter_map(|r| r.overhead.get(index));
        if let Some(lowest) = min_by_key_first(candidates, |o: &&OverheadFigures| o.median) {
            *entry = lowest.clone();
        }
    }
    best.noise_lines = runs
        .iter()
        .map(|r| r.noise_lines)
        .fold(0, u64::saturating_add);
    best.dropped = runs.iter().map(|r| r.dropped).max().unwrap_or(0);
    let yardsticks: Vec<_> = runs.iter().map(|r| r.yardstick.as_ref()).collect();
    best.yardstick = crate::YardstickFigures::best(&yardsticks);
    best.repetitions = runs
        .iter()
        .map(|r| r.repetitions)
        .fold(0, u32::saturating_add);
    Ok(best)
}

/// The first element with the least key.
fn min_by_key_first<T, K: Ord>(
    items: impl IntoIterator<Item = T>,
    key: impl Fn(&T) -> K,
) -> Option<T> {
    let mut best: Option<(K, T)> = None;
    for item in items {
        let k = key(&item);
        match &best {
            Some((current, _)) if *current <= k => {}
            _ => best = Some((k, item)),
        }
    }
    best.map(|(_, item)| item)
}

/// Of a clock's figures over several runs (`None`: a run without them), the best run's: the least median per
/// iteration.
pub fn best_figures<'a>(
    figures: impl Iterator<Item = Option<&'a ClockFigures>>,
) -> Option<ClockFigures> {
    // The least median per iteration (runs may have chosen different batches); NaN cannot occur.
    let mut best: Option<&ClockFigures> = None;
    for f in figures.flatten() {
        if best.is_none_or(|b| f.per_iteration.median < b.per_iteration.median) {
            best = Some(f);
        }
    }
    best.cloned()
}

/// The deepest of the marks: an overrun is deeper than any number of bytes, a measured depth beats "off" (a run
/// that did not measure says nothing about the others), and all off stays off.
fn worst_stack(marks: impl Iterator<Item = StackMark>) -> StackMark {
    let mut worst = StackMark::Off;
    for mark in marks {
        worst = match (worst, mark) {
            (StackMark::Overrun, _) | (_, StackMark::Overrun) => StackMark::Overrun,
            (StackMark::Bytes(a), StackMark::Bytes(b)) => StackMark::Bytes(a.max(b)),
            (StackMark::Bytes(a), StackMark::Off) | (StackMark::Off, StackMark::Bytes(a)) => {
                StackMark::Bytes(a)
            }
            (StackMark::Off, StackMark::Off) => StackMark::Off,
        };
    }
    worst
}

fn check_comparable(
    first: &RunSummary,
    other: &RunSummary,
    index: usize,
) -> Result<(), StatsError> {
    let mismatch = |what: String| Err(StatsError::Mismatch { run: index, what });
    if first.target.name != other.target.name || first.target.arch != other.target.arch {
        return mismatch(format!(
            "target {} ({}) differs from the first run's {} ({})",
            other.target.name, other.target.arch, first.target.name, first.target.arch
        ));
    }
    let same_clocks = first.clocks.len() == other.clocks.len()
        && first
            .clocks
            .iter()
            .zip(&other.clocks)
            .all(|(a, b)| a.role == b.role && a.name == b.name && a.unit == b.unit);
    if !same_clocks {
        return mismatch("its clocks differ from the first run's".to_string());
    }
    if first.overhead.len() != other.overhead.len() {
        return mismatch("its calibration differs from the first run's".to_string());
    }
    let first_names = first.benchmarks.iter().map(|b| b.name.as_str());
    let other_names = other.benchmarks.iter().map(|b| b.name.as_str());
    if !first_names.eq(other_names) {
        return mismatch("its benchmarks are not the first run's, in the same order".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_of_values() {
        assert_eq!(min_of([3u64, 1, 2]), Some(1));
        assert_eq!(min_of(Vec::<u64>::new()), None);
        assert_eq!(min_of([f64::NAN, 2.0, 1.5, f64::NAN]), Some(1.5));
        assert_eq!(min_of([f64::NAN]), None);
        // Ties keep the first.
        let pairs = [(1, 'a'), (1, 'b')];
        assert_eq!(min_of(pairs.iter().map(|p| p.0)), Some(1));
    }

    #[test]
    fn stack_folding_keeps_the_deepest() {
        use StackMark::*;
        assert_eq!(
            worst_stack([Bytes(200), Bytes(300), Bytes(250)].into_iter()),
            Bytes(300)
        );
        // An overrun in any run stays an overrun, whatever the order.
        assert_eq!(worst_stack([Overrun, Bytes(200)].into_iter()), Overrun);
        assert_eq!(worst_stack([Bytes(200), Overrun].into_iter()), Overrun);
        assert_eq!(worst_stack([Off, Overrun].into_iter()), Overrun);
        assert_eq!(worst_stack([Off, Off].into_iter()), Off);
        assert_eq!(worst_stack([Off, Bytes(8)].into_iter()), Bytes(8));
        assert_eq!(worst_stack([Bytes(8), Off].into_iter()), Bytes(8));
    }
}
