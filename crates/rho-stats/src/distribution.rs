//! The shape of a benchmark's samples on one clock: a histogram of the net figures per iteration, small enough
//! to keep in the JSON document, from which the HTML report draws its distribution charts.

use serde::{Deserialize, Serialize};

/// The most bins a [`Distribution`] has.
pub const DISTRIBUTION_BINS: u64 = 40;

/// A histogram of one benchmark's net samples per iteration: `counts[i]` samples fell in
/// `[start + i * width, start + (i + 1) * width)`. The bins run from the lowest sample to the sample at the
/// p99 (nearest rank), so one wild outlier does not squeeze the rest into one bin; the samples above the last
/// bin are counted in `above`. A bin is at least one step of the clock wide (per iteration: a step divided by
/// the batch), so a coarse clock gives few wide bins, never a comb of empty ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// The lower edge of the first bin (the lowest net sample), per iteration, in the clock's unit.
    pub start: f64,
    /// The width of every bin, per iteration, in the clock's unit (never 0).
    pub width: f64,
    /// Samples per bin; their sum and `above` make `n`.
    pub counts: Vec<u64>,
    /// Samples above the last bin (beyond the p99).
    pub above: u64,
}

impl Distribution {
    /// The histogram of `raw` samples less `overhead` (saturating at 0, as [`crate::Summary::minus`] does),
    /// each sample a batch of `batch` iterations, on a clock of step `resolution`. `min` and `p99` are the net
    /// summary's. `None` without samples.
    pub fn of(
        raw: &[u64],
        overhead: u64,
        batch: u64,
        resolution: u64,
        min: u64,
        p99: u64,
    ) -> Option<Distribution> {
        if raw.is_empty() || p99 < min {
            return None;
        }
        // Samples come from the wire: the extremes of u64 must not overflow.
        let span = (p99 - min).saturating_add(1);
        let width = span.div_ceil(DISTRIBUTION_BINS).max(resolution).max(1);
        let bins = span.div_ceil(width);
        let mut counts = vec![0u64; usize::try_from(bins).ok()?];
        let mut above = 0;
        for &sample in raw {
            let net = sample.saturating_sub(overhead);
            let index = net.saturating_sub(min) / width;
            match usize::try_from(index).ok().and_then(|i| counts.get_mut(i)) {
                Some(count) => *count += 1,
                None => above += 1,
            }
        }
        let batch = batch.max(1) as f64;
        Some(Distribution {
            start: min as f64 / batch,
            width: width as f64 / batch,
            counts,
            above,
        })
    }

    /// The same histogram with every edge multiplied by `factor` (nanoseconds derived from cycles).
    pub fn scaled(&self, factor: f64) -> Distribution {
        Distribution {
            start: self.start * factor,
            width: self.width * factor,
            counts: self.counts.clone(),
            above: self.above,
        }
    }

    /// The samples counted: in the bins and above them.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum::<u64>() + self.above
    }

    /// The upper edge of the last bin.
    pub fn end(&self) -> f64 {
        self.start + self.width * self.counts.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sample_is_counted_once_and_the_tail_above_the_p99() {
        // 99 samples of 10..=108 and one outlier; overhead 5 taken off each.
        let mut raw: Vec<u64> = (15..=113).collect();
        raw.push(10_005);
        let d = Distribution::of(&raw, 5, 1, 1, 10, 108).unwrap();
        assert_eq!(d.total(), 100);
        assert_eq!(d.above, 1);
        assert_eq!(d.start, 10.0);
        // 99 values over at most 40 bins: 3 wide, 33 bins.
        assert_eq!((d.width, d.counts.len()), (3.0, 33));
        assert!(d.counts.iter().all(|&c| c == 3));
        assert!(d.end() >= 108.0);
    }

    #[test]
    fn a_bin_is_never_narrower_than_the_clock_s_step_and_a_batch_divides_it() {
        let raw = [100, 149, 149, 198, 247];
        let d = Distribution::of(&raw, 0, 4, 49, 100, 247).unwrap();
        assert_eq!(d.width, 49.0 / 4.0);
        assert_eq!(d.start, 25.0);
        assert_eq!(d.counts, [1, 2, 1, 1]);
        assert_eq!(d.above, 0);
    }

    proptest::proptest! {
        #[test]
        fn every_sample_lands_in_a_bin_or_above_it(
            raw in proptest::collection::vec(0u64..1_000_000, 1..300),
            overhead in 0u64..1000,
            batch in 1u64..64,
            resolution in 1u64..5000,
        ) {
            let net = crate::Summary::of(&raw).unwrap().minus(overhead);
            let d = Distribution::of(&raw, overhead, batch, resolution, net.min, net.p99).unwrap();
            proptest::prop_assert_eq!(d.total(), raw.len() as u64);
            proptest::prop_assert!(d.counts.len() as u64 <= DISTRIBUTION_BINS);
            proptest::prop_assert!(d.width > 0.0);
            // Nothing at or below the p99 is counted above the bins (the last bin may hold a few above it).
            let at_most_p99 = raw.iter().filter(|&&r| r.saturating_sub(overhead) <= net.p99).count() as u64;
            proptest::prop_assert!(d.counts.iter().sum::<u64>() >= at_most_p99);
        }
    }

    #[test]
    fn the_extremes_of_a_sample_do_not_overflow() {
        let raw = [0, u64::MAX / 2, u64::MAX];
        let d = Distribution::of(&raw, 0, 1, 1, 0, u64::MAX).unwrap();
        assert_eq!(d.total(), 3);
        assert!(d.counts.len() <= DISTRIBUTION_BINS as usize);
        let d = Distribution::of(&raw, u64::MAX, 3, u64::MAX, 0, 0).unwrap();
        assert_eq!((d.counts.clone(), d.above), (vec![3], 0));
    }

    #[test]
    fn equal_samples_make_one_bin_and_no_samples_none() {
        let d = Distribution::of(&[7, 7, 7], 0, 1, 1, 7, 7).unwrap();
        assert_eq!((d.counts.clone(), d.above, d.width), (vec![3], 0, 1.0));
        assert!(Distribution::of(&[], 0, 1, 1, 0, 0).is_none());
        assert_eq!(d.scaled(2.0).start, 14.0);
    }
}
