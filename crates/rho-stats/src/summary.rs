//! The summary of one column of samples: the one implementation of every statistic rho reports.

use serde::{Deserialize, Serialize};

/// The spread is capped at this ratio of the median (1.0 = 100%); a capped spread is shown as ">100%".
pub const SPREAD_CAP: f64 = 1.0;

/// The standard deviation as a multiple of the median, capped at [`SPREAD_CAP`].
///
/// The standard deviation is not robust: one descheduled iteration turns it into hundreds of percent. So it is
/// reported relative to the median and capped; `capped` says the true ratio was above the cap (or undefined,
/// because the median was 0 while the samples disagreed), and `ratio` is then exactly [`SPREAD_CAP`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// `stddev / median`, in `0.0..=SPREAD_CAP`; never NaN.
    pub ratio: f64,
    /// The true ratio was above the cap, or undefined (a zero median with a non-zero deviation).
    pub capped: bool,
}

impl Spread {
    /// The spread of a deviation around a median. A zero deviation is a spread of 0 whatever the median; a
    /// non-zero deviation around a zero median has no finite ratio and is reported as capped.
    pub fn of(stddev: f64, median: u64) -> Spread {
        if stddev.is_nan() || stddev <= 0.0 {
            return Spread {
                ratio: 0.0,
                capped: false,
            };
        }
        if median == 0 {
            return Spread {
                ratio: SPREAD_CAP,
                capped: true,
            };
        }
        let ratio = stddev / median as f64;
        if ratio > SPREAD_CAP {
            Spread {
                ratio: SPREAD_CAP,
                capped: true,
            }
        } else {
            Spread {
                ratio,
                capped: false,
            }
        }
    }

    /// The spread as a percentage (`ratio * 100`).
    pub fn percent(&self) -> f64 {
        self.ratio * 100.0
    }
}

/// The summary of a non-empty list of samples (one clock of one benchmark, warm-ups already dropped).
///
/// Percentiles are nearest-rank on the sorted values: the p-th percentile is the value at 1-based rank
/// `ceil(p/100 * n)` (rank 1 for p = 0), so it is always an observed sample. The median is the p50 under the same
/// rule: for an even `n` it is the lower of the two middle values. See [`percentile`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// How many samples.
    pub n: u64,
    pub min: u64,
    /// The p50 (nearest rank; the lower middle value when `n` is even).
    pub median: u64,
    /// Arithmetic mean.
    pub mean: f64,
    pub p95: u64,
    pub p99: u64,
    pub max: u64,
    /// Population standard deviation (divided by `n`, not `n - 1`): how much these samples disagree, not an
    /// estimate of anything; 0 for a single sample.
    pub stddev: f64,
    /// `stddev / median`, capped.
    pub spread: Spread,
}

/// The 1-based nearest rank of the `percent`-th percentile among `n` sorted values: `ceil(percent * n / 100)`,
/// at least 1 and at most `n`. Computed in integers, so `p95` of 20 values is exactly rank 19. `n = 0` gives 0.
pub fn nearest_rank(n: usize, percent: u32) -> usize {
    if n == 0 {
        return 0;
    }
    let percent = u128::from(percent.min(100));
    let rank = (percent * n as u128).div_ceil(100);
    // `rank <= n` because percent <= 100, so the conversion back cannot fail.
    usize::try_from(rank).unwrap_or(n).clamp(1, n)
}

/// The `percent`-th percentile (nearest rank) of values already sorted ascending; `None` when empty.
/// Percentages above 100 are treated as 100.
pub fn percentile(sorted: &[u64], percent: u32) -> Option<u64> {
    let rank = nearest_rank(sorted.len(), percent);
    if rank == 0 {
        return None;
    }
    sorted.get(rank - 1).copied()
}

impl Summary {
    /// Summarise `values` (any order). `None` when `values` is empty.
    pub fn of(values: &[u64]) -> Option<Summary> {
        let mut scratch = Vec::new();
        Summary::of_with_scratch(values, &mut scratch)
    }

    /// Like [`Summary::of`], reusing `scratch` for the working copy so that summarising many columns does not
    /// allocate for each.
    pub fn of_with_scratch(values: &[u64], scratch: &mut Vec<u64>) -> Option<Summary> {
        if values.is_empty() {
            return None;
        }
        scratch.clear();
        scratch.extend_from_slice(values);
        scratch.sort_unstable();
        Summary::of_sorted(scratch)
    }

    /// Summarise values already sorted ascending. `None` when empty. (Unsorted input gives meaningless
    /// percentiles but never a panic.)
    pub fn of_sorted(sorted: &[u64]) -> Option<Summary> {
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let n = sorted.len();
        let sum: u128 = sorted.iter().map(|&v| u128::from(v)).sum();
        let mean = sum as f64 / n as f64;
        let stddev = stddev_around(sorted, mean);
        let median = percentile(sorted, 50)?;
        Some(Summary {
            n: n as u64,
            min,
            median,
            mean,
            p95: percentile(sorted, 95)?,
            p99: percentile(sorted, 99)?,
            max,
            stddev,
            spread: Spread::of(stddev, median),
        })
    }

    /// This summary with a constant `overhead` taken off every sample: each order statistic and the mean minus
    /// `overhead`, saturating at 0. The standard deviation is kept (subtracting a constant does not change how
    /// much samples disagree), and the spread is recomputed against the net median, so a body that is small next
    /// to the measuring overhead shows a large (often capped) spread: its net figure is mostly noise.
    pub fn minus(&self, overhead: u64) -> Summary {
        let median = self.median.saturating_sub(overhead);
        Summary {
            n: self.n,
            min: self.min.saturating_sub(overhead),
            median,
            mean: (self.mean - overhead as f64).max(0.0),
            p95: self.p95.saturating_sub(overhead),
            p99: self.p99.saturating_sub(overhead),
            max: self.max.saturating_sub(overhead),
            stddev: self.stddev,
            spread: Spread::of(self.stddev, median),
        }
    }

    /// This summary converted from counts of a clock running at `hz` to nanoseconds: every order statistic
    /// becomes `round(v * 1e9 / hz)` (exact integer arithmetic; a monotone map, so the ranks are unchanged), the
    /// mean and standard deviation scale by `1e9 / hz`, the spread is recomputed. `hz` must be non-zero; a zero
    /// `hz` gives `None`.
    pub fn scaled_to_ns(&self, hz: u64) -> Option<Summary> {
        if hz == 0 {
            return None;
        }
        let factor = 1e9 / hz as f64;
        let median = counts_to_ns(self.median, hz)?;
        let stddev = self.stddev * factor;
        Some(Summary {
            n: self.n,
            min: counts_to_ns(self.min, hz)?,
            median,
            mean: self.mean * factor,
            p95: counts_to_ns(self.p95, hz)?,
            p99: counts_to_ns(self.p99, hz)?,
            max: counts_to_ns(self.max, hz)?,
            stddev,
            spread: Spread::of(stddev, median),
        })
    }
}

/// `round(counts * 1e9 / hz)` in integers, saturating at `u64::MAX`; `None` when `hz` is 0.
pub fn counts_to_ns(counts: u64, hz: u64) -> Option<u64> {
    if hz == 0 {
        return None;
    }
    let hz = u128::from(hz);
    let ns = (u128::from(counts) * 1_000_000_000 + hz / 2) / hz;
    Some(u64::try_from(ns).unwrap_or(u64::MAX))
}

/// Population standard deviation of `values` around their `mean`.
fn stddev_around(values: &[u64], mean: f64) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let squares: f64 = values
        .iter()
        .map(|&v| {
            let d = v as f64 - mean;
            d * d
        })
        .sum();
    (squares / values.len() as f64).sqrt()
}
