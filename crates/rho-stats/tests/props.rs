//! Properties of the summary: ordered statistics, and agreement with a naive reference written from the
//! definition rather than from the implementation.

use proptest::prelude::*;
use rho_stats::{SPREAD_CAP, Summary, percentile};

/// The p-th percentile from the definition: the smallest sample v such that at least p% of the samples are
/// <= v (equivalent to nearest rank, written without ranks or ceilings).
fn reference_percentile(values: &[u64], p: u32) -> u64 {
    let mut sorted = values.to_vec();
    sorted.sort();
    let n = sorted.len() as u128;
    *sorted
        .iter()
        .find(|&&v| {
            let at_or_below = sorted.partition_point(|&x| x <= v) as u128;
            at_or_below * 100 >= u128::from(p) * n
        })
        .unwrap()
}

fn values() -> impl Strategy<Value = Vec<u64>> {
    prop_oneof![
        proptest::collection::vec(0u64..50, 1..60),
        proptest::collection::vec(1900u64..2200, 1..300),
        proptest::collection::vec(any::<u64>(), 1..60),
        // A realistic column: a tight bulk past the histogram window's 1024 values, and a few slow outliers.
        (
            proptest::collection::vec(1900u64..4000, 1..3000),
            proptest::collection::vec(prop_oneof![4000u64..100_000, any::<u64>()], 0..8),
        )
            .prop_map(|(mut bulk, outliers)| {
                for (i, o) in outliers.into_iter().enumerate() {
                    let at = (i * 7919) % (bulk.len() + 1);
                    bulk.insert(at, o);
                }
                bulk
            }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn statistics_are_ordered(values in values()) {
        let s = Summary::of(&values).unwrap();
        prop_assert!(s.min <= s.median && s.median <= s.p95 && s.p95 <= s.p99 && s.p99 <= s.max);
        prop_assert!(s.min as f64 <= s.mean * (1.0 + 1e-12) && s.mean <= s.max as f64 * (1.0 + 1e-12));
        prop_assert!(s.stddev >= 0.0 && s.stddev.is_finite());
        prop_assert!(s.spread.ratio >= 0.0 && s.spread.ratio <= SPREAD_CAP);
        prop_assert_eq!(s.n, values.len() as u64);
    }

    #[test]
    fn matches_the_naive_reference(values in values(), p in 0u32..=100) {
        let s = Summary::of(&values).unwrap();
        prop_assert_eq!(s.min, *values.iter().min().unwrap());
        prop_assert_eq!(s.max, *values.iter().max().unwrap());
        prop_assert_eq!(s.median, reference_percentile(&values, 50));
        prop_assert_eq!(s.p95, reference_percentile(&values, 95));
        prop_assert_eq!(s.p99, reference_percentile(&values, 99));
        let mut sorted = values.clone();
        sorted.sort();
        prop_assert_eq!(percentile(&sorted, p), Some(reference_percentile(&values, p)));
        let mean = values.iter().map(|&v| v as f64).sum::<f64>() / values.len() as f64;
        prop_assert!((s.mean - mean).abs() <= 1e-9 * mean.abs().max(1.0));
        let var = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / values.len() as f64;
        prop_assert!((s.stddev - var.sqrt()).abs() <= 1e-6 * var.sqrt().max(1.0));
    }

    #[test]
    fn histogram_and_sorted_paths_agree(values in values()) {
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let a = Summary::of(&values).unwrap();
        let b = Summary::of_sorted(&sorted).unwrap();
        prop_assert_eq!((a.n, a.min, a.median, a.p95, a.p99, a.max), (b.n, b.min, b.median, b.p95, b.p99, b.max));
        prop_assert_eq!(a.mean, b.mean);
        prop_assert!((a.stddev - b.stddev).abs() <= 1e-9 * b.stddev.max(1.0));
        let mut scratch = vec![7; 5];
        prop_assert_eq!(Summary::of_with_scratch(&values, &mut scratch).unwrap(), a);
    }

    #[test]
    fn order_does_not_matter(mut values in values(), seed in any::<u64>()) {
        let s = Summary::of(&values).unwrap();
        let len = values.len();
        values.rotate_left((seed as usize) % len);
        values.reverse();
        prop_assert_eq!(Summary::of(&values).unwrap(), s);
    }

    #[test]
    fn net_is_raw_minus_overhead(values in values(), overhead in 0u64..3000) {
        let raw = Summary::of(&values).unwrap();
        let net = raw.minus(overhead);
        let shifted: Vec<u64> = values.iter().map(|v| v.saturating_sub(overhead)).collect();
        let direct = Summary::of(&shifted).unwrap();
        // Order statistics commute with a saturating shift.
        prop_assert_eq!((net.min, net.median, net.p95, net.p99, net.max),
                        (direct.min, direct.median, direct.p95, direct.p99, direct.max));
        prop_assert!(net.median <= raw.median && net.mean <= raw.mean);
    }
}
