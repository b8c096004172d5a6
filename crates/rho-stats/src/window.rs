//! The lowest median of a run's consecutive windows: "noise only adds time" applied inside one run.
//!
//! A run's samples are in the order they were measured. On a shared machine the code runs at one of a few
//! speeds from one stretch of time to the next (another guest on the same core, a frequency change), and a
//! stretch can outlast many iterations. The median of the whole run lands in whichever speed held for more
//! than half of it, so two runs of the same code can differ by the ratio of the speeds. Cut into consecutive
//! windows, the run shows each stretch separately; the lowest window median is the run's best stretch, as the
//! lowest of N runs is the best run (the minimum of the repetitions, each long enough to time).

use crate::summary::percentile;

/// How many consecutive windows a run's samples are cut into by [`min_window_median`]'s callers.
pub const WINDOWS: usize = 10;

/// The fewest samples a window holds: a median of fewer is too near a single sample to be one.
pub const MIN_WINDOW_SAMPLES: usize = 20;

/// The lowest nearest-rank median (the definition used everywhere in rho, see [`percentile`]) of `samples`
/// cut, in order, into `windows` consecutive windows of equal size (the remainder joins the last). Fewer
/// windows are used when `windows` of them would hold fewer than `min_samples` each; with too few samples
/// for two windows it is the median of all of them. `None` when `samples` is empty.
pub fn min_window_median(samples: &[u64], windows: usize, min_samples: usize) -> Option<u64> {
    if samples.is_empty() {
        return None;
    }
    let count = windows.min(samples.len() / min_samples.max(1)).max(1);
    let size = samples.len() / count;
    let mut sorted = Vec::with_capacity(size + samples.len() % count);
    let mut best: Option<u64> = None;
    for index in 0..count {
        let start = index * size;
        let end = if index + 1 == count {
            samples.len()
        } else {
            start + size
        };
        sorted.clear();
        sorted.extend_from_slice(&samples[start..end]);
        sorted.sort_unstable();
        if let Some(median) = percentile(&sorted, 50) {
            best = Some(best.map_or(median, |b| b.min(median)));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_stretch_longer_than_half_the_run_does_not_hide_the_fast_one() {
        // 60 slow samples then 40 fast: the whole run's median is slow, its best window is fast.
        let mut samples = vec![330u64; 60];
        samples.extend(std::iter::repeat_n(190u64, 40));
        let mut sorted = samples.clone();
        sorted.sort_unstable();
        assert_eq!(percentile(&sorted, 50), Some(330));
        assert_eq!(min_window_median(&samples, 5, 20), Some(190));
    }

    #[test]
    fn one_outlier_per_window_moves_nothing() {
        let samples: Vec<u64> = (0..200)
            .map(|i| if i % 20 == 7 { 5000 } else { 100 })
            .collect();
        assert_eq!(min_window_median(&samples, 10, 20), Some(100));
    }

    #[test]
    fn few_samples_make_fewer_windows() {
        // 30 samples, at least 20 per window: one window, the plain median.
        let samples: Vec<u64> = (1..=30).collect();
        assert_eq!(min_window_median(&samples, 10, 20), Some(15));
        // 45 samples: two windows (1..=22 and 23..=45), the lower median wins.
        let samples: Vec<u64> = (1..=45).collect();
        assert_eq!(min_window_median(&samples, 10, 20), Some(11));
        assert_eq!(min_window_median(&[], 10, 20), None);
        assert_eq!(min_window_median(&[7], 10, 0), Some(7));
    }

    #[test]
    fn the_remainder_joins_the_last_window() {
        // 103 samples in 5 windows: four of 20 and a last one of 23.
        let samples: Vec<u64> = (0..103).rev().collect();
        // The last window holds the 23 smallest values (22..=0); its median is rank 12 of them: 11.
        assert_eq!(min_window_median(&samples, 5, 20), Some(11));
    }
}
