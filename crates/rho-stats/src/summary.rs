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
    /// The p25 and p75 (nearest rank): the interquartile range `p75 - p25` is the robust spread, see
    /// [`Summary::iqr_ratio`].
    pub p25: u64,
    pub p75: u64,
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

    /// Like [`Summary::of`], reusing `scratch` as working memory so that summarising many columns does not
    /// allocate for each.
    ///
    /// Benchmark samples cluster: most lie within a few percent of the median, with a few slow outliers. So
    /// instead of sorting, this counts the samples in a histogram of one bin per value over a window of
    /// `max(n, 1024)` values from the minimum, sorts only the samples beyond the window, and walks the bins to
    /// the percentile ranks. The result is exactly the nearest-rank definition (the same as sorting, which
    /// the tests check); it is only faster, about 3x on realistic columns.
    pub fn of_with_scratch(values: &[u64], scratch: &mut Vec<u64>) -> Option<Summary> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let (mut min, mut max, mut sum) = (u64::MAX, 0u64, 0u128);
        for &v in values {
            min = min.min(v);
            max = max.max(v);
            sum += u128::from(v);
        }
        let mean = sum as f64 / n as f64;
        let window = usize::try_from(max - min)
            .map_or(usize::MAX, |range| range.saturating_add(1))
            .min(n.max(1024));
        scratch.clear();
        scratch.resize(window, 0);
        for &v in values {
            let offset = v - min;
            match usize::try_from(offset) {
                Ok(bin) if bin < window => scratch[bin] += 1,
                _ => scratch.push(v),
            }
        }
        let (counts, beyond) = scratch.split_at_mut(window);
        beyond.sort_unstable();

        let ranks = [
            nearest_rank(n, 25),
            nearest_rank(n, 50),
            nearest_rank(n, 75),
            nearest_rank(n, 95),
            nearest_rank(n, 99),
        ];
        let mut at_rank = [max; 5];
        let mut next = 0;
        let mut seen = 0usize;
        let mut squares = 0.0f64;
        let in_window = counts
            .iter()
            .enumerate()
            .filter(|(_, count)| **count != 0)
            .map(|(bin, &count)| (min + bin as u64, count));
        let above = beyond.iter().map(|&v| (v, 1u64));
        for (value, count) in in_window.chain(above) {
            let d = value as f64 - mean;
            squares += count as f64 * d * d;
            seen = seen.saturating_add(usize::try_from(count).unwrap_or(usize::MAX));
            while next < ranks.len() && ranks[next] <= seen {
                at_rank[next] = value;
                next += 1;
            }
        }
        let stddev = if n < 2 {
            0.0
        } else {
            (squares / n as f64).sqrt()
        };
        let [p25, median, p75, p95, p99] = at_rank;
        Some(Summary {
            n: n as u64,
            min,
            median,
            mean,
            p25,
            p75,
            p95,
            p99,
            max,
            stddev,
            spread: Spread::of(stddev, median),
        })
    }

    /// Below this many samples the nearest-rank p95 is the maximum: its rank `ceil(95 n / 100)` is `n` for every
    /// `n < 20`, so it says nothing the `max` does not (one slow iteration is "the p95").
    pub const MIN_N_FOR_P95: u64 = 20;
    /// Below this many samples the nearest-rank p99 is the maximum (`ceil(99 n / 100) = n` for `n < 100`).
    pub const MIN_N_FOR_P99: u64 = 100;

    /// Whether the p95 is more than the maximum under another name: `n >= MIN_N_FOR_P95`.
    pub fn p95_is_informative(&self) -> bool {
        self.n >= Summary::MIN_N_FOR_P95
    }

    /// Whether the p99 is more than the maximum under another name: `n >= MIN_N_FOR_P99`.
    pub fn p99_is_informative(&self) -> bool {
        self.n >= Summary::MIN_N_FOR_P99
    }

    /// The robust spread: the interquartile range as a multiple of the median, `(p75 - p25) / median`. Unlike
    /// the capped [`Spread`] it does not move when a few iterations are descheduled (up to a quarter of the
    /// samples can be anything), so it says how steady the typical iteration is. `Some(0.0)` when the quartiles
    /// agree, whatever the median; `None` when they disagree around a zero median (no finite ratio).
    pub fn iqr_ratio(&self) -> Option<f64> {
        let iqr = self.p75.saturating_sub(self.p25);
        if iqr == 0 {
            Some(0.0)
        } else if self.median == 0 {
            None
        } else {
            Some(iqr as f64 / self.median as f64)
        }
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
            p25: percentile(sorted, 25)?,
            p75: percentile(sorted, 75)?,
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
            p25: self.p25.saturating_sub(overhead),
            p75: self.p75.saturating_sub(overhead),
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
            p25: counts_to_ns(self.p25, hz)?,
            p75: counts_to_ns(self.p75, hz)?,
            p95: counts_to_ns(self.p95, hz)?,
            p99: counts_to_ns(self.p99, hz)?,
            max: counts_to_ns(self.max, hz)?,
            stddev,
            spread: Spread::of(stddev, median),
        })
    }
}

/// The figures of one iteration when every sample timed `batch` back-to-back iterations: each order statistic,
/// the mean and the standard deviation of a (net) [`Summary`] of the samples divided by `batch`. So the median is
/// the median batch mean, and the p95, p99 and max are tails of batch means, not of single iterations (one slow
/// iteration in a batch of 64 moves its batch by 1/64 of its excess). With `batch` 1 these are the summary's own
/// figures. Fractions are kept: a batch of 64 resolves a 64th of the clock's step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PerIteration {
    /// Iterations per sample (1: not batched).
    pub batch: u64,
    pub min: f64,
    pub median: f64,
    pub mean: f64,
    pub p25: f64,
    pub p75: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
    pub stddev: f64,
}

impl Summary {
    /// This summary of samples of `batch` iterations each, per iteration (see [`PerIteration`]). A `batch` of 0
    /// is taken as 1.
    pub fn per_iteration(&self, batch: u64) -> PerIteration {
        let batch = batch.max(1);
        let k = batch as f64;
        PerIteration {
            batch,
            min: self.min as f64 / k,
            median: self.median as f64 / k,
            mean: self.mean / k,
            p25: self.p25 as f64 / k,
            p75: self.p75 as f64 / k,
            p95: self.p95 as f64 / k,
            p99: self.p99 as f64 / k,
            max: self.max as f64 / k,
            stddev: self.stddev / k,
        }
    }
}

impl PerIteration {
    /// Every figure multiplied by `factor` (counts to nanoseconds: `1e9 / hz`).
    pub fn scaled(&self, factor: f64) -> PerIteration {
        PerIteration {
            batch: self.batch,
            min: self.min * factor,
            median: self.median * factor,
            mean: self.mean * factor,
            p25: self.p25 * factor,
            p75: self.p75 * factor,
            p95: self.p95 * factor,
            p99: self.p99 * factor,
            max: self.max * factor,
            stddev: self.stddev * factor,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn below_the_thresholds_the_tails_are_the_maximum() {
        // The thresholds are exactly where the nearest rank stops being the last one.
        for n in 1..Summary::MIN_N_FOR_P95 as usize {
            assert_eq!(nearest_rank(n, 95), n);
        }
        assert_eq!(nearest_rank(20, 95), 19);
        for n in 1..Summary::MIN_N_FOR_P99 as usize {
            assert_eq!(nearest_rank(n, 99), n);
        }
        assert_eq!(nearest_rank(100, 99), 99);
        let values: Vec<u64> = (1..=19).collect();
        let s = Summary::of(&values).unwrap();
        assert_eq!((s.p95, s.max), (19, 19));
        assert!(!s.p95_is_informative() && !s.p99_is_informative());
        let values: Vec<u64> = (1..=20).collect();
        let s = Summary::of(&values).unwrap();
        assert!(s.p95_is_informative() && !s.p99_is_informative());
        let values: Vec<u64> = (1..=100).collect();
        let s = Summary::of(&values).unwrap();
        assert!(s.p99_is_informative());
    }

    #[test]
    fn quartiles_and_the_robust_spread_by_hand() {
        // 1..=20: p25 is rank ceil(25 * 20 / 100) = 5, the median rank 10, p75 rank 15.
        let values: Vec<u64> = (1..=20).rev().collect();
        for s in [
            Summary::of(&values).unwrap(),
            Summary::of_sorted(&(1..=20).collect::<Vec<_>>()).unwrap(),
        ] {
            assert_eq!((s.p25, s.median, s.p75), (5, 10, 15));
            // (15 - 5) / 10
            assert_eq!(s.iqr_ratio(), Some(1.0));
        }
        // 7 values: p25 rank ceil(1.75) = 2, p75 rank ceil(5.25) = 6.
        let s = Summary::of(&[10, 20, 30, 40, 50, 60, 70]).unwrap();
        assert_eq!((s.p25, s.median, s.p75), (20, 40, 60));
        assert_eq!(s.iqr_ratio(), Some(1.0));
        // One descheduled iteration in nine: the capped spread is lost, the robust one is exactly 0.
        let mut steady = vec![100u64; 8];
        steady.push(1_000_000);
        let s = Summary::of(&steady).unwrap();
        assert!(s.spread.capped);
        assert_eq!((s.p25, s.p75), (100, 100));
        assert_eq!(s.iqr_ratio(), Some(0.0));
        // Net of an overhead and in nanoseconds the quartiles move like every order statistic.
        let net = Summary::of(&[100, 110, 120, 130]).unwrap().minus(100);
        // p25 rank 1, median rank 2, p75 rank 3: 0, 10, 20.
        assert_eq!((net.p25, net.median, net.p75), (0, 10, 20));
        assert_eq!(net.iqr_ratio(), Some(2.0));
        let ns = Summary::of(&[100, 110, 120, 130])
            .unwrap()
            .scaled_to_ns(2_000_000_000)
            .unwrap();
        assert_eq!((ns.p25, ns.median, ns.p75), (50, 55, 60));
        // Quartiles that disagree around a zero median have no ratio.
        let zero = Summary::of(&[0, 0, 0, 5]).unwrap();
        assert_eq!((zero.p25, zero.median, zero.p75), (0, 0, 0));
        assert_eq!(zero.iqr_ratio(), Some(0.0));
        let zero = Summary::of(&[0, 0, 5, 5]).unwrap();
        assert_eq!((zero.median, zero.p75), (0, 5));
        assert_eq!(zero.iqr_ratio(), None);
    }

    #[test]
    fn empty_is_none() {
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(Summary::of_sorted(&[]), None);
        assert_eq!(percentile(&[], 50), None);
        assert_eq!(nearest_rank(0, 50), 0);
    }

    #[test]
    fn one_sample() {
        let s = Summary::of(&[7]).unwrap();
        assert_eq!(
            (s.n, s.min, s.median, s.p95, s.p99, s.max),
            (1, 7, 7, 7, 7, 7)
        );
        assert_eq!(s.mean, 7.0);
        assert_eq!(s.stddev, 0.0);
        assert_eq!(
            s.spread,
            Spread {
                ratio: 0.0,
                capped: false
            }
        );
    }

    #[test]
    fn odd_count() {
        // Sorted [1, 3, 5]: median rank ceil(1.5) = 2, p95 rank ceil(2.85) = 3.
        let s = Summary::of(&[5, 1, 3]).unwrap();
        assert_eq!((s.min, s.median, s.p95, s.p99, s.max), (1, 3, 5, 5, 5));
        assert_eq!(s.mean, 3.0);
        // Population deviation: sqrt((4 + 0 + 4) / 3).
        assert!(close(s.stddev, (8.0f64 / 3.0).sqrt()));
        assert!(close(s.spread.ratio, (8.0f64 / 3.0).sqrt() / 3.0));
        assert!(!s.spread.capped);
    }

    #[test]
    fn even_count_takes_the_lower_middle() {
        // Sorted [1, 2, 3, 4]: median rank ceil(2.0) = 2 -> 2, not 2.5; p95 rank ceil(3.8) = 4.
        let s = Summary::of(&[4, 1, 3, 2]).unwrap();
        assert_eq!((s.min, s.median, s.p95, s.p99, s.max), (1, 2, 4, 4, 4));
        assert_eq!(s.mean, 2.5);
        assert!(close(s.stddev, 1.25f64.sqrt()));
        assert_eq!(Summary::of(&[10, 20]).unwrap().median, 10);
    }

    #[test]
    fn ranks_are_exact_integers() {
        let twenty: Vec<u64> = (1..=20).collect();
        // 95% of 20 is exactly rank 19 (a float product could round to 19.000000000000004 -> 20).
        assert_eq!(percentile(&twenty, 95), Some(19));
        assert_eq!(percentile(&twenty, 99), Some(20));
        assert_eq!(percentile(&twenty, 50), Some(10));
        let hundred: Vec<u64> = (1..=100).collect();
        let s = Summary::of(&hundred).unwrap();
        assert_eq!((s.median, s.p95, s.p99, s.max), (50, 95, 99, 100));
        assert_eq!(percentile(&hundred, 0), Some(1));
        assert_eq!(percentile(&hundred, 100), Some(100));
        assert_eq!(percentile(&hundred, 250), Some(100));
        assert_eq!(nearest_rank(1000, 99), 990);
        assert_eq!(nearest_rank(1001, 99), 991);
    }

    #[test]
    fn ties() {
        // Sorted [2, 2, 2, 2, 9]: median 2, p95 rank ceil(4.75) = 5 -> 9. Mean 3.4; deviations 1.4 (x4) and 5.6:
        // (4 * 1.96 + 31.36) / 5 = 7.84, sqrt = 2.8; 2.8 / 2 = 140% -> capped.
        let s = Summary::of(&[2, 2, 9, 2, 2]).unwrap();
        assert_eq!((s.min, s.median, s.p95, s.p99, s.max), (2, 2, 9, 9, 9));
        assert!(close(s.mean, 3.4));
        assert!(close(s.stddev, 2.8));
        assert_eq!(
            s.spread,
            Spread {
                ratio: SPREAD_CAP,
                capped: true
            }
        );
        let flat = Summary::of(&[5; 9]).unwrap();
        assert_eq!(flat.stddev, 0.0);
        assert_eq!(
            flat.spread,
            Spread {
                ratio: 0.0,
                capped: false
            }
        );
    }

    #[test]
    fn the_outlier_moves_the_mean_and_not_the_median() {
        // The spec's demo: one iteration in a thousand an order of magnitude slower.
        let mut samples = vec![100u64; 1000];
        samples[500] = 1000;
        let s = Summary::of(&samples).unwrap();
        assert_eq!((s.median, s.p95, s.p99, s.max), (100, 100, 100, 1000));
        // (999 * 100 + 1000) / 1000
        assert!(close(s.mean, 100.9));
        // Deviations: 0.9 (x999) and 899.1: (999 * 0.81 + 808380.81) / 1000 = 809.19.
        assert!(close(s.stddev, 809.19f64.sqrt()));
        assert!(close(s.spread.ratio, 809.19f64.sqrt() / 100.0));
        assert!(!s.spread.capped);
        // Made a hundred times slower instead, it breaks the deviation, which the cap says.
        samples[500] = 100 * 100;
        let s = Summary::of(&samples).unwrap();
        assert_eq!(s.median, 100);
        assert!(close(s.mean, 109.9));
        assert_eq!(
            s.spread,
            Spread {
                ratio: SPREAD_CAP,
                capped: true
            }
        );
    }

    #[test]
    fn zero_median_never_gives_nan() {
        let s = Summary::of(&[0, 0, 0, 5]).unwrap();
        assert_eq!(s.median, 0);
        assert!(s.stddev > 0.0);
        assert_eq!(
            s.spread,
            Spread {
                ratio: SPREAD_CAP,
                capped: true
            }
        );
        let zeros = Summary::of(&[0, 0, 0]).unwrap();
        assert_eq!(
            zeros.spread,
            Spread {
                ratio: 0.0,
                capped: false
            }
        );
        assert_eq!(
            Spread::of(f64::NAN, 10),
            Spread {
                ratio: 0.0,
                capped: false
            }
        );
    }

    #[test]
    fn huge_values_do_not_overflow() {
        let s = Summary::of(&[u64::MAX, u64::MAX, u64::MAX]).unwrap();
        assert_eq!(s.median, u64::MAX);
        assert!(close(s.mean, u64::MAX as f64));
        assert!(s.stddev.is_finite());
        assert!(!s.spread.ratio.is_nan());
    }

    #[test]
    fn minus_overhead() {
        // Sorted [110, 120, 130, 200]: median 120.
        let raw = Summary::of(&[130, 110, 200, 120]).unwrap();
        let net = raw.minus(115);
        assert_eq!(
            (net.min, net.median, net.p95, net.p99, net.max),
            (0, 5, 85, 85, 85)
        );
        assert!(close(net.mean, 140.0 - 115.0));
        assert_eq!(net.stddev, raw.stddev);
        assert_eq!(net.n, raw.n);
        // The same deviation around a median of 5 instead of 120.
        assert_eq!(net.spread, Spread::of(raw.stddev, 5));
        let all = raw.minus(1000);
        assert_eq!((all.min, all.median, all.max), (0, 0, 0));
        assert_eq!(all.mean, 0.0);
        assert_eq!(raw.minus(0), raw);
    }

    #[test]
    fn scaling_to_nanoseconds() {
        assert_eq!(counts_to_ns(1000, 2_000_000_000), Some(500));
        assert_eq!(counts_to_ns(1, 3), Some(333_333_333));
        assert_eq!(counts_to_ns(2, 3), Some(666_666_667));
        assert_eq!(counts_to_ns(u64::MAX, 1), Some(u64::MAX));
        assert_eq!(counts_to_ns(5, 0), None);
        let cycles = Summary::of(&[2000, 4000, 6000]).unwrap();
        let ns = cycles.scaled_to_ns(2_000_000_000).unwrap();
        assert_eq!((ns.min, ns.median, ns.max), (1000, 2000, 3000));
        assert!(close(ns.mean, 2000.0));
        assert!(close(ns.stddev, cycles.stddev / 2.0));
        assert!(close(ns.spread.ratio, cycles.spread.ratio));
        assert_eq!(cycles.scaled_to_ns(0), None);
    }
}
