//! Change points in a series of figures in commit order: where the code's figure stepped.
//!
//! Two rules, one per kind of metric:
//!
//! - **Exact metrics** (instructions, code bytes, stack and heap marks) do not move with the machine's load,
//!   so every index where the figure differs from the one before is a change point of its own, however
//!   small, with a p-value of 0.
//! - **Noisy metrics** (cycles, nanoseconds) use E-Divisive means, as MongoDB's Hunter and Apache Otava do:
//!   the segment is split where the energy statistic `Q` (alpha 1: mean absolute differences) is largest, the
//!   split is kept when Welch's t-test between the `window` figures either side of it gives a p-value at or
//!   below `max_pvalue`, and each half is split again the same way. Once no split is kept, every change
//!   point is tested again against its neighbours' segments (a split found early may be weak once the others
//!   are known) and the weakest above `max_pvalue` is dropped until all pass. The t-test makes the result
//!   deterministic: no permutations, no seed.
//!
//! `docs/statistics.md` ("Change points") states the rules with their defaults.

/// The default number of figures either side of a candidate the t-test looks at.
pub const DEFAULT_CHANGE_WINDOW: usize = 30;
/// The default largest p-value a noisy change point may have (Otava's default too).
pub const DEFAULT_MAX_PVALUE: f64 = 0.001;
/// The fewest figures a segment either side of a noisy split may have.
pub const MIN_SEGMENT: usize = 3;

/// How change points are found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangeSettings {
    /// Figures either side of a candidate the t-test compares (at least [`MIN_SEGMENT`]).
    pub window: usize,
    /// The largest p-value a noisy change point is kept with, in (0, 1).
    pub max_pvalue: f64,
    /// Whether the metric is exact: every step is a change point.
    pub exact: bool,
}

impl ChangeSettings {
    /// The defaults for a noisy metric (`exact` false) or an exact one.
    pub fn new(exact: bool) -> ChangeSettings {
        ChangeSettings {
            window: DEFAULT_CHANGE_WINDOW,
            max_pvalue: DEFAULT_MAX_PVALUE,
            exact,
        }
    }
}

/// One change point: the figure at `index` is the first of the new segment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangePoint {
    /// The first index after the step.
    pub index: usize,
    /// The median of the segment before (from the previous change point, or the start).
    pub before: f64,
    /// The median of the segment after (up to the next change point, or the end).
    pub after: f64,
    /// `(after - before) / before * 100`; `None` when `before` is 0.
    pub change_percent: Option<f64>,
    /// The t-test's p-value (0 for an exact metric's step).
    pub pvalue: f64,
}

/// The change points of `series` (figures in commit order, oldest first), in index order.
pub fn change_points(series: &[f64], settings: &ChangeSettings) -> Vec<ChangePoint> {
    let indices = if settings.exact {
        (1..series.len())
            .filter(|&i| series[i] != series[i - 1])
            .collect()
    } else {
        noisy_indices(series, settings)
    };
    describe(series, &indices, settings)
}

/// Each change point's segment medians and p-value (against its neighbours' segments).
fn describe(series: &[f64], indices: &[usize], settings: &ChangeSettings) -> Vec<ChangePoint> {
    let mut bounds = Vec::with_capacity(indices.len() + 2);
    bounds.push(0);
    bounds.extend_from_slice(indices);
    bounds.push(series.len());
    (1..bounds.len() - 1)
        .map(|k| {
            let left = &series[bounds[k - 1]..bounds[k]];
            let right = &series[bounds[k]..bounds[k + 1]];
            let (before, after) = (median_of(left), median_of(right));
            ChangePoint {
                index: bounds[k],
                before,
                after,
                change_percent: (before != 0.0).then(|| (after - before) / before * 100.0),
                pvalue: if settings.exact {
                    0.0
                } else {
                    windowed_pvalue(left, right, settings.window)
                },
            }
        })
        .collect()
}

/// E-Divisive means with the t-test, then the weakest change points dropped until every one passes.
fn noisy_indices(series: &[f64], settings: &ChangeSettings) -> Vec<usize> {
    let mut found = Vec::new();
    let mut pending = vec![(0, series.len())];
    while let Some((start, end)) = pending.pop() {
        let segment = &series[start..end];
        let Some(split) = best_split(segment) else {
            continue;
        };
        let p = windowed_pvalue(&segment[..split], &segment[split..], settings.window);
        if p <= settings.max_pvalue {
            found.push(start + split);
            pending.push((start, start + split));
            pending.push((start + split, end));
        }
    }
    found.sort_unstable();
    loop {
        let described = describe(series, &found, settings);
        let weakest = described
            .iter()
            .enumerate()
            .filter(|(_, c)| c.pvalue > settings.max_pvalue)
            .max_by(|a, b| a.1.pvalue.total_cmp(&b.1.pvalue));
        match weakest {
            Some((position, _)) => {
                found.remove(position);
            }
            None => return found,
        }
    }
}

/// The p-value of `left` against `right`, each cut to the `window` figures nearest the split.
fn windowed_pvalue(left: &[f64], right: &[f64], window: usize) -> f64 {
    let window = window.max(MIN_SEGMENT);
    let left = &left[left.len().saturating_sub(window)..];
    let right = &right[..right.len().min(window)];
    welch_pvalue(left, right)
}

/// The split of `segment` (the index of the first figure of its right part) where the energy statistic
/// `Q(τ) = m·k/(m+k) · (2/(m·k)·Σ|l−r| − Σ_{i<j}|l_i−l_j|/C(m,2) − Σ_{i<j}|r_i−r_j|/C(k,2))` is largest, both
/// parts at least [`MIN_SEGMENT`] long; `None` for a segment too short to split. O(n²): moving the split one
/// figure right moves that figure's distances from one sum to another.
fn best_split(segment: &[f64]) -> Option<usize> {
    let n = segment.len();
    if n < 2 * MIN_SEGMENT {
        return None;
    }
    let distance_to = |p: usize, range: std::ops::Range<usize>| -> f64 {
        segment[range].iter().map(|x| (x - segment[p]).abs()).sum()
    };
    // The split at 0: everything on the right.
    let mut between = 0.0;
    let mut within_left = 0.0;
    let mut within_right: f64 = (0..n).map(|p| distance_to(p, p + 1..n)).sum();
    let mut best: Option<(usize, f64)> = None;
    for tau in 1..=n - MIN_SEGMENT {
        let p = tau - 1;
        let to_left = distance_to(p, 0..p);
        let to_right = distance_to(p, tau..n);
        between += to_right - to_left;
        within_left += to_left;
        within_right -= to_right;
        let (m, k) = (tau as f64, (n - tau) as f64);
        if tau < MIN_SEGMENT {
            continue;
        }
        let energy = 2.0 * between / (m * k)
            - within_left / (m * (m - 1.0) / 2.0)
            - within_right / (k * (k - 1.0) / 2.0);
        let q = m * k / (m + k) * energy;
        if best.is_none_or(|(_, top)| q > top) {
            best = Some((tau, q));
        }
    }
    best.map(|(tau, _)| tau)
}

/// The median of `values` (the lower middle for an even count, as everywhere in rho: an observed figure); 0
/// for none.
pub fn median_of(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    // The nearest-rank median, as every median of rho's (crate::summary::nearest_rank).
    sorted[crate::summary::nearest_rank(sorted.len(), 50) - 1]
}

/// The mean and the sample variance (n - 1) of `values`; the variance is 0 for fewer than two.
pub(crate) fn mean_and_variance(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = if values.len() < 2 {
        0.0
    } else {
        values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    };
    (mean, variance)
}

/// Welch's two-sided t-test: the probability of a difference of means at least this large when both samples
/// come from distributions with the same mean. Two constant samples: 0 when they differ, 1 when equal.
pub fn welch_pvalue(left: &[f64], right: &[f64]) -> f64 {
    if left.len() < 2 || right.len() < 2 {
        return 1.0;
    }
    let (m1, v1) = mean_and_variance(left);
    let (m2, v2) = mean_and_variance(right);
    let (s1, s2) = (v1 / left.len() as f64, v2 / right.len() as f64);
    let standard_error = (s1 + s2).sqrt();
    if standard_error == 0.0 || !standard_error.is_finite() {
        return if m1 == m2 { 1.0 } else { 0.0 };
    }
    let t = (m1 - m2) / standard_error;
    let df = (s1 + s2).powi(2)
        / (s1 * s1 / (left.len() as f64 - 1.0) + s2 * s2 / (right.len() as f64 - 1.0));
    student_t_pvalue(t, df)
}

/// The two-sided p-value of one new figure `x` against the figures `earlier` (at least 3): how likely a
/// figure this far from their mean is when it comes from the same distribution (Student's t prediction
/// interval, `t = (x − mean) / (s √(1 + 1/k))`, k − 1 degrees of freedom). 1 with fewer than 3 figures; for
/// constant `earlier`, 0 when `x` differs and 1 when it does not.
pub fn newcomer_pvalue(earlier: &[f64], x: f64) -> f64 {
    if earlier.len() < MIN_SEGMENT {
        return 1.0;
    }
    let (mean, variance) = mean_and_variance(earlier);
    let k = earlier.len() as f64;
    let scale = (variance * (1.0 + 1.0 / k)).sqrt();
    if scale == 0.0 || !scale.is_finite() {
        return if x == mean { 1.0 } else { 0.0 };
    }
    student_t_pvalue((x - mean) / scale, k - 1.0)
}

/// P(|T| ≥ |t|) for Student's t with `df` degrees of freedom: I_{df/(df+t²)}(df/2, 1/2).
pub(crate) fn student_t_pvalue(t: f64, df: f64) -> f64 {
    regularized_incomplete_beta(df / (df + t * t), df / 2.0, 0.5).clamp(0.0, 1.0)
}

/// I_x(a, b), by the continued fraction (Lentz's method), from the side where it converges fast.
fn regularized_incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(x, a, b) / a
    } else {
        1.0 - front * beta_fraction(1.0 - x, b, a) / b
    }
}

fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = f64::from(m);
        for numerator in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + numerator * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + numerator / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine coefficients: about 15 significant digits).
fn ln_gamma(x: f64) -> f64 {
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1−x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = COEFFICIENTS[0];
    for (i, c) in COEFFICIENTS.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_matches_known_values() {
        // Identical samples: no evidence of a difference.
        assert_eq!(welch_pvalue(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]), 1.0);
        // t = -1.5 on 8 degrees of freedom (equal variances): two-sided p = 0.17200 (scipy.stats.t.sf(1.5, 8) * 2).
        let p = welch_pvalue(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.5, 3.5, 4.5, 5.5, 6.5]);
        assert!((p - 0.172_00).abs() < 1e-4, "{p}");
        // Constant and different: certain.
        assert_eq!(welch_pvalue(&[5.0; 4], &[6.0; 4]), 0.0);
    }

    #[test]
    fn a_newcomer_far_outside_its_predecessors_is_unlikely() {
        // mean 10, s = 1 over 5 figures: x = 10 + 4·sqrt(1.2) is t = 4 on 4 degrees of freedom, p = 0.01613.
        let earlier = [8.5, 9.5, 10.0, 10.5, 11.5];
        let (_, variance) = mean_and_variance(&earlier);
        let x = 10.0 + 4.0 * (variance * 1.2).sqrt();
        let p = newcomer_pvalue(&earlier, x);
        assert!((p - 0.016_130).abs() < 1e-5, "{p}");
        assert_eq!(newcomer_pvalue(&[3.0; 4], 3.0), 1.0);
        assert_eq!(newcomer_pvalue(&[3.0; 4], 3.5), 0.0);
        assert_eq!(newcomer_pvalue(&[3.0; 2], 9.0), 1.0);
    }

    #[test]
    fn ln_gamma_is_exact_on_factorials() {
        for (x, factorial) in [(1.0, 1.0), (5.0, 24.0), (11.0, 3_628_800.0_f64)] {
            assert!((ln_gamma(x) - factorial.ln()).abs() < 1e-12, "{x}");
        }
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }

    #[test]
    fn the_energy_split_is_at_a_clean_step() {
        let mut series = vec![10.0; 20];
        series.extend([20.0; 13]);
        assert_eq!(best_split(&series), Some(20));
        assert_eq!(best_split(&[1.0; 5]), None);
    }

    #[test]
    fn an_exact_series_reports_every_step_with_segment_medians() {
        let series = [100.0, 100.0, 101.0, 101.0, 101.0, 50.0];
        let found = change_points(&series, &ChangeSettings::new(true));
        let at: Vec<usize> = found.iter().map(|c| c.index).collect();
        assert_eq!(at, [2, 5]);
        assert_eq!((found[0].before, found[0].after), (100.0, 101.0));
        assert_eq!(found[0].change_percent, Some(1.0));
        let drop = found[1].change_percent.unwrap();
        assert!((drop + 50.495_049_5).abs() < 1e-6, "{drop}");
    }
}
