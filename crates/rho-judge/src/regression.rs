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

/// The relative change from `base` to `head` (`head / base - 1`: +1.0 is twice as much), the one computation
/// of the change the gate and the baseline comparison print. `Some(0.0)` when both are 0; `None` when base is 0
/// and head is not: there is no finite ratio. A base of 0 against a head of more is a figure below what its
/// clock resolves (a net figure the overhead clamped to 0), or an exact figure from nothing (a first heap
/// byte), never an infinite change: [`zero_base_label`] says which.
pub fn relative_change(base: f64, head: f64) -> Option<f64> {
    if base > 0.0 {
        Some(head / base - 1.0)
    } else if head == base {
        Some(0.0)
    } else {
        None
    }
}

/// What a report prints for the change from a base of 0 ([`relative_change`] is `None`): `below resolution`
/// for a figure read off a clock (`clocked`: the base was below one step of it), `from 0` for an exact one.
pub fn zero_base_label(clocked: bool) -> &'static str {
    if clocked {
        "below resolution"
    } else {
        "from 0"
    }
}

/// How many steps of its clock a net figure may move and still be no measurable change.
///
/// A net figure is the difference of two medians (the benchmark's and the calibrated overhead's), each read
/// off a clock that counts in steps of its resolution, so each is uncertain by up to one step and their
/// difference by up to two. On the machine this was developed on (tsc steps of 52 cycles, clock_gettime steps
/// of 20 ns) a 20 ns body read 9 ns in one run and 30 ns in the next with nothing changed: +233%, two steps.
/// The one constant the baseline comparison and the gate both use.
pub const RESOLUTION_STEPS: f64 = 2.0;

/// The largest regression of an instruction count allowed when nothing names one, a fraction: 1%. A count does
/// not move with the machine's load (the same build counts the same instructions, run after run), so this only
/// says how small a real change is worth failing a pipeline for. The one default the baseline comparison and
/// the gate both use.
pub const INSTRUCTIONS_MAX_REGRESSION: f64 = 0.01;

/// The smallest difference of a figure read off a clock that steps by `step` (in the figure's unit) that is
/// a measured change: [`RESOLUTION_STEPS`] steps. 0 for exact figures (stack, heap, a JSON metric).
pub fn resolution_floor(step: f64) -> f64 {
    RESOLUTION_STEPS * step
}

/// The limit `metric` is judged with, when a benchmark's limit is `limit` and its instructions limit
/// `instructions_limit` (both in the same unit, percent or fraction): the instructions one for instructions,
/// 0 for the static figures of the image, code bytes and the static stack bound (exact, and a property of the
/// build: one byte more is a change), `limit` for the rest. The one rule `--diff`, `rho bench compare`,
/// `history check` and the gate judge each metric's limit by, so they flag the same benchmarks on the same
/// figures.
pub fn metric_limit(metric: rho_stats::Metric, limit: f64, instructions_limit: f64) -> f64 {
    if metric == rho_stats::Metric::Instructions {
        instructions_limit
    } else if metric.is_static() {
        0.0
    } else {
        limit
    }
}

/// What one metric did between base and head, lower being better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Within the limit either way.
    Ok,
    /// Beyond the limit by the ratio, but by no more than the floor: the same reading of the clock, so no
    /// measured change at all.
    WithinResolution,
    /// Worse than the limit allows ([`regressed`]).
    Regressed,
    /// Better by more than the limit: `head < base * (1 - fraction)`.
    Improved,
}

/// The one decision the baseline comparison and the gate share: [`regressed`] with `fraction` (0.30 = 30%
/// slower allowed) decides; an improvement is `head < base * (1 - fraction)`; and either one that moved by no
/// more than `floor` (see [`resolution_floor`]) is [`Change::WithinResolution`]: the rule decides, the floor
/// only says when there is no measured change to apply it to.
pub fn judge_change(base: f64, head: f64, fraction: f64, floor: f64) -> Change {
    let change = if regressed(base, head, fraction) {
        Change::Regressed
    } else if head < base * (1.0 - fraction) {
        Change::Improved
    } else {
        return Change::Ok;
    };
    if (head - base).abs() <= floor {
        Change::WithinResolution
    } else {
        change
    }
}

/// [`judge_change`] for a figure of either direction. A figure lower is better (a cost) is judged as it is;
/// one higher is better (a rate: items per second, MB/s) as its reciprocal, the cost of one unit, so a rate
/// that falls to half is a regression exactly as a time that doubles is, and its limit means the same
/// (`fraction` 0.10: a rate may fall to `base / 1.1`). A rate that falls to 0 is regressed; a rate of 0
/// that rises is improved; the floor is in the reciprocal's unit, so a rate is given none (0).
pub fn judge_change_toward(
    better: rho_stats::Better,
    base: f64,
    head: f64,
    fraction: f64,
    floor: f64,
) -> Change {
    match better {
        rho_stats::Better::Lower => judge_change(base, head, fraction, floor),
        // 1/0 is +inf: a rate of 0 is an infinite cost, compared like any (and a NaN stays regressed).
        rho_stats::Better::Higher => judge_change(1.0 / base, 1.0 / head, fraction, 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked example: a base of 8.0 with a budget of 0.25 allows a head up to 10.0 (inclusive).
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
    fn a_change_within_two_clock_steps_is_no_change() {
        // 20 ns -> 60 ns is +200%, but two steps of a 20 ns clock: the same reading.
        let floor = resolution_floor(20.0);
        assert_eq!(floor, 40.0);
        assert_eq!(
            judge_change(20.0, 60.0, 0.3, floor),
            Change::WithinResolution
        );
        assert_eq!(judge_change(20.0, 61.0, 0.3, floor), Change::Regressed);
        assert_eq!(
            judge_change(60.0, 20.0, 0.3, floor),
            Change::WithinResolution
        );
        assert_eq!(judge_change(61.0, 20.0, 0.3, floor), Change::Improved);
        // Within the limit: the floor is not consulted.
        assert_eq!(judge_change(100.0, 110.0, 0.3, 0.0), Change::Ok);
        // Exact figures have no floor: any change beyond the limit counts.
        assert_eq!(judge_change(0.0, 64.0, 0.1, 0.0), Change::Regressed);
        assert_eq!(
            judge_change(8.0, 10.0, 0.25, 0.0),
            Change::Ok,
            "the bound is inclusive"
        );
    }

    #[test]
    fn a_base_of_zero_has_no_ratio() {
        assert_eq!(relative_change(100.0, 150.0), Some(0.5));
        assert_eq!(relative_change(0.0, 0.0), Some(0.0));
        assert_eq!(relative_change(0.0, 677.0), None, "never +inf%");
        assert_eq!(zero_base_label(true), "below resolution");
        assert_eq!(zero_base_label(false), "from 0");
    }

    #[test]
    fn a_nan_is_not_a_pass() {
        assert!(regressed(f64::NAN, 1.0, 0.3));
        assert!(regressed(1.0, f64::NAN, 0.3));
    }

    #[test]
    fn a_rate_that_falls_is_a_regression_and_one_that_rises_an_improvement() {
        use rho_stats::Better;
        let judge = |base, head| judge_change_toward(Better::Higher, base, head, 0.10, 0.0);
        assert_eq!(judge(1000.0, 500.0), Change::Regressed, "half the rate");
        assert_eq!(judge(1000.0, 2000.0), Change::Improved, "twice the rate");
        // The limit means what it means for a time: 1000/s to 1000/1.1 is +10% per item, inclusive.
        assert_eq!(judge(1000.0, 1000.0 / 1.1), Change::Ok);
        assert_eq!(judge(1000.0, 900.0), Change::Regressed);
        assert_eq!(judge(1000.0, 0.0), Change::Regressed, "to nothing");
        assert_eq!(judge(0.0, 0.0), Change::Ok);
        assert_eq!(judge(0.0, 5.0), Change::Improved);
        assert_eq!(judge(f64::NAN, 5.0), Change::Regressed);
        // A cost is judged as judge_change judges it.
        let cost = judge_change_toward(Better::Lower, 64.0, 128.0, 0.10, 0.0);
        assert_eq!(cost, Change::Regressed);
    }
}
