//! The machine's yardstick: the harness's fixed reference loop (`@yardstick`, wire version 9), timed on every
//! clock a few times per run. A stored baseline keeps its figures; a later comparison measures it again, and
//! when the ratio of the two is beyond the loop's own noise the machine moved (another runner, another clock
//! speed, a neighbour on the physical core), and time figures are judged relative to it
//! (docs/baseline.md, "The machine's yardstick"). The user's code is never the yardstick, so a change that
//! slows every benchmark is still a change.

use serde::{Deserialize, Serialize};

use rho_wire::{ClockRole, Run, Yardstick};

use crate::changepoint::median_of;

/// How far the yardstick's ratio (head / base) may be from 1 and still be its own noise, not the machine:
/// beyond `1 + YARDSTICK_MOVED` (or below its inverse) the machine moved. Measured on the project's 2-core VM
/// beside other builds (docs/baseline.md, "The machine's yardstick"): the best of 3 runs (what a baseline and
/// a diff fold) spread by up to 7.3% (max/min of 15 groups) while a compile ran beside it, and a real
/// `check --diff` of examples/project beside two busy loops read one suite's loop +6.7% with nothing changed.
/// 10% is above all of it, and below the +10.9% to +12.9% drift issue 37 saw.
pub const YARDSTICK_MOVED: f64 = 0.10;

/// A run's yardstick, summarised: per clock, the median of its repetitions per iteration of the loop. The
/// median, as everywhere in rho: a repetition a neighbour interrupted does not move it, and on this
/// project's VM it spread less than the minimum for the CPU clock (whose least readings fall below the wall
/// clock's: the thread's CPU time is accounted in steps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct YardstickFigures {
    /// Which reference loop (`rho1`).
    pub name: String,
    /// Iterations of the loop in each repetition.
    pub iterations: u64,
    /// Cycles (the cycle clock's unit) per iteration; `None` without a cycle clock.
    pub cycles: Option<f64>,
    /// Nanoseconds per iteration by the time clock; `None` without one.
    pub time_ns: Option<f64>,
    /// The thread's CPU-time nanoseconds per iteration; `None` without a CPU clock.
    pub cpu_ns: Option<f64>,
}

impl YardstickFigures {
    /// The figures of `run`'s yardstick; `None` when the stream has none.
    pub fn of_run(run: &Run) -> Option<YardstickFigures> {
        let yardstick = run.yardstick.as_ref()?;
        let figure = |role: ClockRole| {
            let column = run.clock_index(role)?;
            per_iteration(yardstick, column)
        };
        Some(YardstickFigures {
            name: yardstick.name.clone(),
            iterations: yardstick.iterations,
            cycles: figure(ClockRole::Cycles),
            time_ns: figure(ClockRole::Time),
            cpu_ns: figure(ClockRole::Cpu),
        })
    }

    /// The best of several runs' yardsticks (best of N repetitions of a suite): per clock the least figure,
    /// as every time figure is folded ([`crate::best_of`]). `None` when any run has none or they are not the
    /// same loop (the runs would not be one build).
    pub fn best(all: &[Option<&YardstickFigures>]) -> Option<YardstickFigures> {
        let first = (*all.first()?)?;
        let mut best = first.clone();
        for other in all {
            let other = (*other)?;
            if other.name != first.name || other.iterations != first.iterations {
                return None;
            }
            best.cycles = least(best.cycles, other.cycles);
            best.time_ns = least(best.time_ns, other.time_ns);
            best.cpu_ns = least(best.cpu_ns, other.cpu_ns);
        }
        Some(best)
    }
}

fn least(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        _ => None,
    }
}

/// The median of column `column`'s repetitions, per iteration of the loop.
fn per_iteration(yardstick: &Yardstick, column: usize) -> Option<f64> {
    let values: Vec<f64> = yardstick
        .samples
        .get(column)?
        .iter()
        .map(|&v| v as f64)
        .collect();
    if values.is_empty() || yardstick.iterations == 0 {
        return None;
    }
    Some(median_of(&values) / yardstick.iterations as f64)
}

/// How a time metric's figures are adjusted for a machine that moved: `head / ratio`, where `ratio` is
/// head's yardstick over base's for that metric's clock. `None` (no adjustment) when either side has no
/// figure, a figure is not positive, or the ratio is within the yardstick's own noise ([`YARDSTICK_MOVED`]).
pub fn machine_ratio(base: Option<f64>, head: Option<f64>) -> Option<f64> {
    let (base, head) = (base?, head?);
    if !(base > 0.0 && head > 0.0 && base.is_finite() && head.is_finite()) {
        return None;
    }
    let ratio = head / base;
    moved(ratio).then_some(ratio)
}

/// Whether a yardstick ratio (head / base) is beyond its own noise.
pub fn moved(ratio: f64) -> bool {
    !(1.0 / (1.0 + YARDSTICK_MOVED)..=1.0 + YARDSTICK_MOVED).contains(&ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_within_the_noise_is_no_adjustment_and_beyond_it_is() {
        assert_eq!(machine_ratio(Some(100.0), Some(109.9)), None);
        assert_eq!(machine_ratio(Some(100.0), Some(91.0)), None);
        assert_eq!(machine_ratio(Some(100.0), Some(110.5)), Some(1.105));
        assert_eq!(machine_ratio(Some(100.0), Some(200.0)), Some(2.0));
        assert_eq!(machine_ratio(Some(200.0), Some(100.0)), Some(0.5));
        assert_eq!(machine_ratio(None, Some(100.0)), None);
        assert_eq!(machine_ratio(Some(0.0), Some(100.0)), None);
        assert_eq!(machine_ratio(Some(100.0), Some(f64::NAN)), None);
    }

    #[test]
    fn the_figure_per_clock_is_the_median_repetition_per_iteration() {
        let run = rho_wire::parse_str(
            "@rho-bench 9\n@target host arch=x86_64 optimized=1\n\
             @clock cycles tsc unit=cycle hz=1000000000 resolution=1\n\
             @clock time clock_gettime unit=ns hz=1000000000 resolution=1\n\
             @config iterations=1 warmup=0 time_cap_ms=0 stack_bytes=0\n\
             @yardstick rho1 iterations=100 repetitions=3\n:300 200\n:900 250\n:310 100\n\
             @done benchmarks=0 dropped=0\n",
        )
        .unwrap();
        let figures = YardstickFigures::of_run(&run).unwrap();
        assert_eq!(figures.cycles, Some(3.1));
        assert_eq!(figures.time_ns, Some(2.0));
        assert_eq!(figures.cpu_ns, None);
        let mut slower = figures.clone();
        slower.time_ns = Some(1.5);
        slower.cycles = Some(4.0);
        let best = YardstickFigures::best(&[Some(&figures), Some(&slower)]).unwrap();
        assert_eq!((best.cycles, best.time_ns), (Some(3.1), Some(1.5)));
        assert_eq!(YardstickFigures::best(&[Some(&figures), None]), None);
    }
}
