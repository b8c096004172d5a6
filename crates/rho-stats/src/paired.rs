//! Paired ratios: base and head measured in alternating rounds, each round's head / base ratio, and a
//! confidence interval on their geometric mean (Student's t on the log ratios).
//!
//! Why paired: a round runs one benchmark on base and then on head within a fraction of a second, so a
//! neighbour's build or a slow phase of the machine that lasts longer than that hits both figures of the
//! round alike and cancels in its ratio; what is left varies from round to round, which the interval
//! measures. Why logs: a ratio's noise is multiplicative (a slow phase makes everything 1.7x, not +70 ns),
//! and the mean of log ratios is the log of their geometric mean, symmetric in base and head.
//!
//! Beside the t interval, which is exact for normal log ratios, the rounds' median ratio gets the
//! distribution-free interval of the sign test (order statistics), from six rounds on: a round in which one
//! side's whole run fell into a slow stretch (a time slice lost to a neighbour, longer than a short run) is an
//! outlier that widens the t interval without bound, but moves the median's interval by one rank at most.

use crate::changepoint::{mean_and_variance, student_t_pvalue};

/// The two-sided confidence of [`paired_ratio`]'s interval: each bound is exceeded with probability 2.5%
/// when the rounds' log ratios are normal and independent.
pub const PAIRED_CONFIDENCE: f64 = 0.95;

/// The rounds' ratios summarised: their geometric mean and its confidence interval, as ratios.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PairedRatio {
    /// How many rounds (pairs) the figures come from.
    pub rounds: usize,
    /// The geometric mean of the rounds' head / base ratios.
    pub ratio: f64,
    /// The interval's lower and upper bound, at [`PAIRED_CONFIDENCE`].
    pub low: f64,
    pub high: f64,
    /// The median of the rounds' ratios (the lower middle for an even count).
    pub median: f64,
    /// The median's distribution-free interval at [`PAIRED_CONFIDENCE`] or more: the k-th lowest and k-th
    /// highest ratio, k the largest with P(Binomial(rounds, 1/2) < k) <= 2.5%; `None` below six rounds,
    /// where even the lowest and highest ratio cover less.
    pub median_interval: Option<(f64, f64)>,
}

/// The paired ratio of `pairs` (`(base, head)` per round, costs: a rate is passed as `(head, base)`), with
/// its [`PAIRED_CONFIDENCE`] interval; `None` for fewer than two rounds (no spread to measure) or any figure
/// that is not finite and above 0 (a net figure the overhead clamped to 0 has no ratio).
pub fn paired_ratio(pairs: &[(f64, f64)]) -> Option<PairedRatio> {
    if pairs.len() < 2 {
        return None;
    }
    let usable = |x: f64| x.is_finite() && x > 0.0;
    if !pairs.iter().all(|&(b, h)| usable(b) && usable(h)) {
        return None;
    }
    let logs: Vec<f64> = pairs.iter().map(|(b, h)| (h / b).ln()).collect();
    let (mean, variance) = mean_and_variance(&logs);
    let n = logs.len() as f64;
    let half = student_t_quantile(1.0 - PAIRED_CONFIDENCE, n - 1.0) * (variance / n).sqrt();
    let mut sorted = logs.clone();
    sorted.sort_by(f64::total_cmp);
    let rank = sign_test_rank(sorted.len());
    Some(PairedRatio {
        rounds: pairs.len(),
        ratio: mean.exp(),
        low: (mean - half).exp(),
        high: (mean + half).exp(),
        median: crate::median_of(&logs).exp(),
        median_interval: rank.map(|k| (sorted[k - 1].exp(), sorted[sorted.len() - k].exp())),
    })
}

/// The k of the sign test's interval of a median from `n` values: the largest k >= 1 with
/// P(Binomial(n, 1/2) <= k - 1) <= (1 - [`PAIRED_CONFIDENCE`]) / 2; `None` when even k = 1 does not qualify.
fn sign_test_rank(n: usize) -> Option<usize> {
    let tail = (1.0 - PAIRED_CONFIDENCE) / 2.0;
    let half_n = 0.5_f64.powi(i32::try_from(n).ok()?);
    let (mut cumulative, mut choose, mut rank) = (0.0, 1.0, None);
    for k in 1..=n.div_ceil(2) {
        // P(B = k - 1) = C(n, k - 1) / 2^n.
        cumulative += choose * half_n;
        if cumulative > tail {
            break;
        }
        rank = Some(k);
        choose = choose * (n - (k - 1)) as f64 / k as f64;
    }
    rank
}

/// The `t` with P(|T| >= t) = `alpha` for Student's t with `df` degrees of freedom (12.706 for 0.05 and 1,
/// 1.960 as `df` grows): the inverse of the two-sided p-value, by bisection on it (it falls as `t` grows).
pub fn student_t_quantile(alpha: f64, df: f64) -> f64 {
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    while student_t_pvalue(high, df) > alpha && high < 1e12 {
        high *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if student_t_pvalue(mid, df) > alpha {
            low = mid;
        } else {
            high = mid;
        }
        if high - low < 1e-12 * high {
            break;
        }
    }
    0.5 * (low + high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quantile_is_the_table_s() {
        // Two-sided 5%: 12.706 (1 df), 4.303 (2), 2.262 (9), 2.045 (29).
        for (df, t) in [(1.0, 12.706), (2.0, 4.303), (9.0, 2.262), (29.0, 2.045)] {
            assert!((student_t_quantile(0.05, df) - t).abs() < 1e-3, "df {df}");
        }
    }

    #[test]
    fn the_interval_is_the_geometric_mean_plus_or_minus_t_standard_errors() {
        // Log ratios ln 2 +- 0.01: mean ln 2, s = 0.01 * sqrt(2) (n - 1 = 1), half = 12.706 * 0.01.
        let pairs = [
            (100.0, 200.0 * 0.01f64.exp()),
            (100.0, 200.0 / 0.01f64.exp()),
        ];
        let p = paired_ratio(&pairs).unwrap();
        assert_eq!(p.rounds, 2);
        assert!((p.ratio - 2.0).abs() < 1e-9);
        let half = 12.706_f64 * 0.01;
        assert!((p.high.ln() - (2.0f64.ln() + half)).abs() < 1e-4);
        assert!((p.low.ln() - (2.0f64.ln() - half)).abs() < 1e-4);
        // Every round the same ratio: a point.
        let p = paired_ratio(&[(10.0, 13.0), (20.0, 26.0), (5.0, 6.5)]).unwrap();
        assert!((p.low - 1.3).abs() < 1e-12 && (p.high - 1.3).abs() < 1e-12);
    }

    #[test]
    fn drift_that_hits_both_sides_alike_cancels() {
        // The machine 1.8x slow in round 2 and back: the rounds' ratios are all 1.05.
        let pairs = [(100.0, 105.0), (180.0, 189.0), (101.0, 106.05)];
        let p = paired_ratio(&pairs).unwrap();
        assert!((p.ratio - 1.05).abs() < 1e-9 && p.high - p.low < 1e-9);
    }

    #[test]
    fn the_median_interval_is_the_sign_test_s_and_shrugs_off_outliers() {
        assert_eq!(sign_test_rank(5), None);
        assert_eq!(sign_test_rank(6), Some(1));
        assert_eq!(sign_test_rank(20), Some(6));
        // Twenty rounds at 1.05, four of them an outlier (one side's run slow by 1.6x): the t interval holds
        // 1.03, the median's lies above it.
        let mut pairs = vec![(100.0, 105.0); 16];
        pairs.extend([
            (160.0, 105.0),
            (100.0, 168.0),
            (160.0, 105.0),
            (160.0, 105.0),
        ]);
        let p = paired_ratio(&pairs).unwrap();
        assert!(p.low < 1.03, "{p:?}");
        assert!((p.median - 1.05).abs() < 1e-9);
        let (low, high) = p.median_interval.unwrap();
        assert!(low > 1.03 && (high - 1.05).abs() < 1e-9, "{p:?}");
        assert!(paired_ratio(&pairs[..5]).unwrap().median_interval.is_none());
    }

    #[test]
    fn one_round_or_a_zero_has_no_interval() {
        assert!(paired_ratio(&[(1.0, 2.0)]).is_none());
        assert!(paired_ratio(&[(1.0, 2.0), (0.0, 1.0)]).is_none());
        assert!(paired_ratio(&[(1.0, 2.0), (1.0, f64::INFINITY)]).is_none());
    }
}
