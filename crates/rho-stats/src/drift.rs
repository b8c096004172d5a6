//! Drift: most benchmarks' time moved the same way by a similar factor between two runs, which points at the
//! machine (another load, another clock speed) more than at the code, since a code change rarely slows every
//! benchmark alike.
//!
//! The rule, over the ratios `head / base` of the benchmarks compared (one per benchmark):
//! - at least [`DRIFT_MIN_BENCHMARKS`] benchmarks;
//! - a benchmark *moved* when its ratio is beyond `1 ± DRIFT_MIN_MOVE` in log terms
//!   (`|ln ratio| > ln(1 + DRIFT_MIN_MOVE)`);
//! - at least [`DRIFT_MIN_SHARE`] of the benchmarks moved, all of those in one direction;
//! - the moved benchmarks' log-ratios have an interquartile range (nearest rank, p25 to p75) of at most
//!   [`DRIFT_MAX_SPREAD`]: they moved by a *similar* factor;
//! - the factor reported is `exp` of the median (nearest rank) of those log-ratios.

use crate::summary::nearest_rank;

/// The fewest benchmarks for a common move to mean anything: two moving alike is a coincidence.
pub const DRIFT_MIN_BENCHMARKS: usize = 3;

/// The share of benchmarks that must have moved, the same way: most, not all (a benchmark within its clock's
/// resolution, or one the change really touched, does not hide the rest).
pub const DRIFT_MIN_SHARE: f64 = 0.8;

/// A move smaller than this fraction (2%) is no move.
pub const DRIFT_MIN_MOVE: f64 = 0.02;

/// The largest interquartile range of the moved benchmarks' log-ratios (0.05: their middle half within about
/// 5% of each other).
pub const DRIFT_MAX_SPREAD: f64 = 0.05;

/// Most benchmarks moved the same way by a similar factor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drift {
    /// Benchmarks compared.
    pub compared: usize,
    /// Of those, how many moved in the common direction.
    pub moved: usize,
    /// Whether they got slower (ratios above 1) or faster.
    pub slower: bool,
    /// The common factor, `head / base`: the median ratio of the moved benchmarks.
    pub factor: f64,
    /// The interquartile range of the moved benchmarks' log-ratios.
    pub spread: f64,
}

impl Drift {
    /// The common move in percent (`+11.0` for 11% slower, `-9.0` for 9% faster).
    pub fn percent(&self) -> f64 {
        (self.factor - 1.0) * 100.0
    }
}

/// The common move of `ratios` (`head / base`, one per benchmark compared; a benchmark whose two figures
/// the clock cannot tell apart counts as 1), or `None` when they did not move together by the rule above.
/// Ratios that are not finite and positive are left out.
pub fn drift(ratios: &[f64]) -> Option<Drift> {
    let logs: Vec<f64> = ratios
        .iter()
        .filter(|r| r.is_finite() && **r > 0.0)
        .map(|r| r.ln())
        .collect();
    let compared = logs.len();
    if compared < DRIFT_MIN_BENCHMARKS {
        return None;
    }
    let threshold = (1.0 + DRIFT_MIN_MOVE).ln();
    let mut up: Vec<f64> = logs.iter().copied().filter(|l| *l > threshold).collect();
    let mut down: Vec<f64> = logs.iter().copied().filter(|l| *l < -threshold).collect();
    let slower = up.len() >= down.len();
    let moved = if slower { &mut up } else { &mut down };
    if (moved.len() as f64) < DRIFT_MIN_SHARE * compared as f64 {
        return None;
    }
    moved.sort_by(f64::total_cmp);
    let at = |percent: u32| moved[nearest_rank(moved.len(), percent) - 1];
    let spread = at(75) - at(25);
    if spread > DRIFT_MAX_SPREAD {
        return None;
    }
    Some(Drift {
        compared,
        moved: moved.len(),
        slower,
        factor: at(50).exp(),
        spread,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_benchmark_half_as_slow_again_is_drift() {
        let found = drift(&[1.5, 1.5, 1.5, 1.5]).unwrap();
        assert_eq!((found.compared, found.moved, found.slower), (4, 4, true));
        assert!((found.factor - 1.5).abs() < 1e-12);
        assert!((found.percent() - 50.0).abs() < 1e-9);
        assert_eq!(found.spread, 0.0);
    }

    #[test]
    fn the_issues_eleven_percent_is_drift_with_one_benchmark_left_alone() {
        // Nine benchmarks at +10.9% to +12.9%, one within its clock's resolution (1.0): 9 of 10 moved.
        let ratios = [
            1.109, 1.112, 1.115, 1.118, 1.12, 1.121, 1.124, 1.127, 1.129, 1.0,
        ];
        let found = drift(&ratios).unwrap();
        assert_eq!((found.compared, found.moved), (10, 9));
        assert!((found.percent() - 12.0).abs() < 0.1, "{found:?}");
    }

    #[test]
    fn one_regression_or_a_scatter_is_not_drift() {
        assert_eq!(
            drift(&[2.0, 1.0, 1.0, 1.0, 1.01]),
            None,
            "one benchmark moved"
        );
        assert_eq!(
            drift(&[1.1, 1.4, 2.0, 1.2, 1.7]),
            None,
            "moved apart, not alike"
        );
        assert_eq!(drift(&[1.2, 0.8, 1.2, 0.8]), None, "both ways");
        assert_eq!(drift(&[1.5, 1.5]), None, "two are a coincidence");
        let faster = drift(&[0.9, 0.9, 0.91]).unwrap();
        assert!(!faster.slower && (faster.percent() + 10.0).abs() < 0.01);
    }
}
