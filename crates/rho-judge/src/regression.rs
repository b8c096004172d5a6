//! The one regression rule shared by the gate and the baseline comparison.

/// Whether `head` regressed against `base` by more than `max_regression`, a fraction (`0.30` = 30% slower
/// allowed). Lower is better for every metric.
///
/// The bound is inclusive: `head == base * (1 + max_regression)` is not a regression. A figure that is not a
/// number (NaN) on either side cannot be shown to be within budget, so it counts as regressed; callers that
/// can tell "undecided" apart should check their figures before asking.
// `!(head <= limit)` rather than `head > limit`, so a NaN anywhere is a regression, not a silent pass.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub fn regressed(base: f64, head: f64, max_regression: f64) -> bool {
    let limit = base * (1.0 + max_regression);
    !(head <= limit)
}

#[cfg(test)]
mod tests {
    use super::regressed;

    /// perf-gate.txt section 3, with a budget of 0.25.
    #[test]
    fn the_specs_worked_example() {
        assert!(!regressed(8.0, 9.6, 0.25), "+20% is within a 25% budget");
        assert!(regressed(8.0, 16.0, 0.25), "twice the work");
        assert!(!regressed(8.0, 10.0, 0.25), "the bound is inclusive");
        assert!(regressed(8.0, 10.01, 0.25), "just over the bound");
    }

    #[test]
    fn faster_is_never_a_regression() {
        assert!(!regressed(8.0, 1.0, 0.01));
        assert!(!regressed(8.0, 8.0, 0.0));
    }

    #[test]
    fn a_nan_is_not_a_pass() {
        assert!(regressed(f64::NAN, 1.0, 0.3));
        assert!(regressed(1.0, f64::NAN, 0.3));
    }
}
