//! The figures of a benchmark on one clock, and the calibrated overhead on it: what the run's summary, the
//! instruction figures of a clock that counts instructions, and every reader of a clock share.

use rho_wire::{Clock, ClockRole};
use serde::{Deserialize, Serialize};

use crate::distribution::Distribution;
use crate::summary::{PerIteration, Summary};

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
    /// Summary of the raw samples, overhead included. A sample is one iteration, or a batch of
    /// [`ClockFigures::batch`] of them.
    pub raw: Summary,
    /// `raw` with the calibrated overhead taken off (see [`Summary::minus`]), once per sample.
    pub net: Summary,
    /// Iterations per sample (`@end batch=`; 1 when not batched).
    #[serde(default = "one")]
    pub batch: u64,
    /// `net` per iteration: divided by `batch`, fractions kept ([`Summary::per_iteration`]). Every figure rho
    /// judges or reports per iteration (median, p95, p99, rates) is read from here.
    pub per_iteration: PerIteration,
    /// The overhead that was taken off, in the clock's unit (0 when the run had no calibration).
    pub overhead: u64,
    /// The net median of a sample is below one step of the clock (`net.median < clock.resolution`; per
    /// iteration, below `resolution / batch`): the body is shorter
    /// than the clock can see, so the figure is mostly the clock's granularity (a 10 ns body on a 20 ns clock
    /// reads 0 or 20 from one run to the next). For derived time, the cycle figures' flag. A budget on such a
    /// figure is reported, not enforced, and no rate is computed from it.
    #[serde(default)]
    pub below_resolution: bool,
    /// The samples' shape: a histogram of the net figures per iteration (what the HTML report draws). `None`
    /// in a document written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<Distribution>,
}

impl ClockFigures {
    /// Whether a net median of `net_median` on a clock stepping by `resolution` is below its resolution.
    pub fn is_below_resolution(net_median: u64, resolution: u64) -> bool {
        net_median < resolution
    }

    /// The net median as nanoseconds per iteration: as it is for time figures, converted at the clock's `hz`
    /// for cycle figures; `None` for cycles of unknown frequency.
    pub fn net_median_ns(&self) -> Option<f64> {
        let median = self.per_iteration.median;
        if matches!(self.clock.role, ClockRole::Time | ClockRole::Cpu) {
            return Some(median);
        }
        let hz = self.clock.hz.filter(|&hz| hz != 0)?;
        Some(median * 1e9 / hz as f64)
    }

    /// The smallest change per iteration these figures can show: the clock's step divided by the batch.
    pub fn resolution_per_iteration(&self) -> f64 {
        self.clock.resolution as f64 / self.batch.max(1) as f64
    }

    /// Whether the p95, p99 and max are tails of batch means rather than of single iterations.
    pub fn batched(&self) -> bool {
        self.batch > 1
    }
}

/// Serde's default batch: a document written before batches were kept timed one iteration per sample.
pub(crate) fn one() -> u64 {
    1
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
