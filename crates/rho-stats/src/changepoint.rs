//! Change points in a series of figures in commit order: where the code's figure stepped.
//!
//! Two rules, one per kind of metric:
//!
//! - **Exact metrics** (instructions, code bytes, stack and heap marks) do not move with the machine's load,
//!   so every index where the figure differs from the one before is a change point of its own, however
//!   small, with a p-value of 0.
//! - **Noisy metrics** (cycles, nanoseconds): E-Divisive means in sliding windows with Student's t-test, the
//!   method of Hunter (Fleming et al., "Hunter: Using Change Point Detection to Hunt for Performance
//!   Regressions", 2023) that Apache Otava implements, in two steps:
//!   1. **Split.** Windows of `window` figures, each starting half a window after the one before (or at the
//!      last change point it found, when that is further on). In a window, the candidate of each of its
//!      segments is the split `τ` (with an end `κ`) where the energy statistic `Q(τ, κ)` of the figures
//!      before `τ` against those from `τ` to `κ` is largest, each part at least [`MIN_SEGMENT`] figures. The
//!      best candidate of all segments is a weak change point when Student's t between the whole segment's
//!      figures either side of it gives at most ten times `max_pvalue` (Otava's first pass), or when the
//!      t-test between the figures before it and its own part (`τ..κ`) gives at most a hundredth of
//!      `max_pvalue`; the window is then searched again, until a candidate is neither. The second test is
//!      rho's: a step that reverts a few commits later is diluted in its whole segment (a 10% step for 9
//!      commits among 50 in 2% noise: p 0.037), so Otava misses it; its own part finds it, and the
//!      stricter level keeps short bursts of noise out.
//!   2. **Merge.** Every weak change point is tested between its neighbours' segments (from the change point
//!      before to the one after); the weakest at or above `max_pvalue` is dropped and its neighbours tested
//!      again, until every one passes.
//!
//!   The windows keep a step that reverts a few commits later, or a second step close to the first, from
//!   being outweighed by the rest of a long series, and they bound the work: the energy statistic of one
//!   window is O(window²) from its column prefix sums, and the t-tests are O(1) from the series' prefix sums,
//!   so a series costs O(n · window). The t-test makes the result deterministic: no permutations, no seed.
//!
//! `docs/statistics.md` ("Change points") states the rules with their defaults.

/// The default length of the sliding window the split step searches (Otava's default too).
pub const DEFAULT_CHANGE_WINDOW: usize = 50;
/// The default largest p-value a noisy change point may have (Otava's default too).
pub const DEFAULT_MAX_PVALUE: f64 = 0.001;
/// The fewest figures a segment either side of a noisy split may have.
pub const MIN_SEGMENT: usize = 3;

/// How change points are found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangeSettings {
    /// The length of the sliding window the split step searches (at least `2 ·` [`MIN_SEGMENT`]).
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
    /// Student's t-test's p-value between the two segments (0 for an exact metric's step).
    pub pvalue: f64,
}

/// The change points of `series` (figures in commit order, oldest first), in index order.
pub fn change_points(series: &[f64], settings: &ChangeSettings) -> Vec<ChangePoint> {
    if settings.exact {
        let indices: Vec<usize> = (1..series.len())
            .filter(|&i| series[i] != series[i - 1])
            .collect();
        return describe(series, &indices, |_, _, _| 0.0);
    }
    let moments = Moments::of(series);
    let indices = merge(split(series, &moments, settings), &moments, settings);
    describe(series, &indices, |start, split, end| {
        moments.pvalue(start, split, end)
    })
}

/// Each change point's segment medians and p-value (`pvalue(start, index, end)` of its neighbours' segments).
fn describe(
    series: &[f64],
    indices: &[usize],
    pvalue: impl Fn(usize, usize, usize) -> f64,
) -> Vec<ChangePoint> {
    let mut bounds = Vec::with_capacity(indices.len() + 2);
    bounds.push(0);
    bounds.extend_from_slice(indices);
    bounds.push(series.len());
    (1..bounds.len() - 1)
        .map(|k| {
            let (before, after) = (
                median_of(&series[bounds[k - 1]..bounds[k]]),
                median_of(&series[bounds[k]..bounds[k + 1]]),
            );
            ChangePoint {
                index: bounds[k],
                before,
                after,
                change_percent: (before != 0.0).then(|| (after - before) / before * 100.0),
                pvalue: pvalue(bounds[k - 1], bounds[k], bounds[k + 1]),
            }
        })
        .collect()
}

/// Prefix sums of a series' figures and squares (less its first figure, against cancellation): any segment's
/// mean and variance in O(1).
struct Moments {
    sums: Vec<f64>,
    squares: Vec<f64>,
}

impl Moments {
    fn of(series: &[f64]) -> Moments {
        let origin = series.first().copied().unwrap_or(0.0);
        let mut sums = Vec::with_capacity(series.len() + 1);
        let mut squares = Vec::with_capacity(series.len() + 1);
        let (mut sum, mut square) = (0.0, 0.0);
        sums.push(sum);
        squares.push(square);
        for x in series {
            let centred = x - origin;
            sum += centred;
            square += centred * centred;
            sums.push(sum);
            squares.push(square);
        }
        Moments { sums, squares }
    }

    /// The figures `start..end`: count, mean (less the origin) and sum of squared deviations.
    fn segment(&self, start: usize, end: usize) -> (f64, f64, f64) {
        let n = (end - start) as f64;
        let sum = self.sums[end] - self.sums[start];
        let mean = sum / n;
        let deviations = (self.squares[end] - self.squares[start] - sum * mean).max(0.0);
        (n, mean, deviations)
    }

    /// Student's two-sided t-test (pooled variance) of the figures `start..split` against `split..end`.
    fn pvalue(&self, start: usize, split: usize, end: usize) -> f64 {
        let (n1, m1, d1) = self.segment(start, split);
        let (n2, m2, d2) = self.segment(split, end);
        let df = n1 + n2 - 2.0;
        if df < 1.0 {
            return 1.0;
        }
        let standard_error = ((d1 + d2) / df * (1.0 / n1 + 1.0 / n2)).sqrt();
        let difference = m2 - m1;
        // Prefix sums leave a constant segment a rounding residue far below its figures' own precision.
        let residue = 1e-12 * (m1.abs() + m2.abs());
        if difference.abs() <= residue {
            return 1.0;
        }
        if standard_error <= residue || !standard_error.is_finite() {
            return 0.0;
        }
        student_t_pvalue(difference / standard_error, df)
    }
}

/// The split step: weak change points (at most ten times `max_pvalue`, as Otava's first pass), in index
/// order, from E-Divisive in each sliding window.
fn split(series: &[f64], moments: &Moments, settings: &ChangeSettings) -> Vec<usize> {
    let window = settings.window.max(2 * MIN_SEGMENT);
    let step = window / 2;
    let first_pass = weak_pvalue(settings.max_pvalue);
    let own_part = settings.max_pvalue / 100.0;
    let mut found: Vec<usize> = Vec::new();
    let mut start = 0;
    let mut energy = Energy::default();
    while start < series.len() {
        let end = (start + window).min(series.len());
        energy.load(&series[start..end]);
        let in_window = energy.divide(|from, at, kappa, to| {
            moments.pvalue(start + from, start + at, start + to) <= first_pass
                || moments.pvalue(start + from, start + at, start + kappa) <= own_part
        });
        let last = in_window.last().map_or(0, |&at| start + at);
        found.extend(in_window.iter().map(|at| start + at));
        start = last.max(start + step);
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// The first pass's looser p-value: ten times `max_pvalue` below 0.05, twice it below 0.5 (Otava's).
fn weak_pvalue(max_pvalue: f64) -> f64 {
    if max_pvalue < 0.05 {
        max_pvalue * 10.0
    } else if max_pvalue < 0.5 {
        max_pvalue * 2.0
    } else {
        max_pvalue
    }
}

/// The merge step: the weakest change point (the largest p-value between its neighbours' segments) dropped
/// while it is at or above `max_pvalue`, its neighbours tested again.
fn merge(mut found: Vec<usize>, moments: &Moments, settings: &ChangeSettings) -> Vec<usize> {
    let n = moments.sums.len() - 1;
    let test = |found: &[usize], k: usize| {
        let start = if k == 0 { 0 } else { found[k - 1] };
        let end = found.get(k + 1).copied().unwrap_or(n);
        moments.pvalue(start, found[k], end)
    };
    let mut pvalues: Vec<f64> = (0..found.len()).map(|k| test(&found, k)).collect();
    loop {
        let weakest =
            pvalues
                .iter()
                .enumerate()
                .fold(None, |top: Option<(usize, f64)>, (k, &p)| match top {
                    Some((_, q)) if q >= p => top,
                    _ => Some((k, p)),
                });
        // Equal means give 1: Otava's other reason to drop a point, a change of 0, is one of these.
        let Some((drop, _)) = weakest.filter(|&(_, p)| p >= settings.max_pvalue) else {
            return found;
        };
        found.remove(drop);
        pvalues.remove(drop);
        for k in [drop.wrapping_sub(1), drop] {
            if k < found.len() {
                pvalues[k] = test(&found, k);
            }
        }
    }
}

/// The energy statistic of one window, from its figures' distances summed down each column:
/// `column[r · len + c] = Σ_{i<r} |x_i − x_c|`. Kept between windows so its buffer is allocated once.
#[derive(Default)]
struct Energy {
    len: usize,
    column: Vec<f64>,
}

impl Energy {
    fn load(&mut self, window: &[f64]) {
        let len = window.len();
        self.len = len;
        self.column.clear();
        self.column.resize((len + 1) * len, 0.0);
        for r in 0..len {
            for c in 0..len {
                self.column[(r + 1) * len + c] =
                    self.column[r * len + c] + (window[r] - window[c]).abs();
            }
        }
    }

    /// `Σ_{from ≤ i < to} |x_i − x_c|`.
    fn distances(&self, from: usize, to: usize, c: usize) -> f64 {
        self.column[to * self.len + c] - self.column[from * self.len + c]
    }

    /// E-Divisive in the loaded window: the best candidate of all segments, kept while `significant(start,
    /// split, κ, end)` of it and its segment holds. The kept splits, in index order.
    fn divide(&self, significant: impl Fn(usize, usize, usize, usize) -> bool) -> Vec<usize> {
        let mut splits: Vec<usize> = Vec::new();
        loop {
            let mut bounds = Vec::with_capacity(splits.len() + 2);
            bounds.push(0);
            bounds.extend_from_slice(&splits);
            bounds.push(self.len);
            let best = bounds
                .windows(2)
                .filter_map(|segment| {
                    self.best_split(segment[0], segment[1])
                        .map(|(at, kappa, q)| (segment[0], at, kappa, segment[1], q))
                })
                .fold(
                    None,
                    |top: Option<(usize, usize, usize, usize, f64)>, candidate| match top {
                        Some(kept) if kept.4 >= candidate.4 => top,
                        _ => Some(candidate),
                    },
                );
            let Some((start, at, kappa, end, _)) = best else {
                return splits;
            };
            if !significant(start, at, kappa, end) {
                return splits;
            }
            let position = splits.partition_point(|&s| s < at);
            splits.insert(position, at);
        }
    }

    /// The split `τ` of `start..end`, the end `κ` and `Q` where
    /// `Q(τ, κ) = 2/(m+k)·Σ|l−r| − 2k/((m+k)(m−1))·Σ_{i<j}|l_i−l_j| − 2m/((m+k)(k−1))·Σ_{i<j}|r_i−r_j|`
    /// (`l` the `m` figures `start..τ`, `r` the `k` figures `τ..κ`) is largest, each part at least
    /// [`MIN_SEGMENT`] figures; the first such `τ`, then `κ`, on a tie. `None` for a segment too short.
    fn best_split(&self, start: usize, end: usize) -> Option<(usize, usize, f64)> {
        if end - start < 2 * MIN_SEGMENT {
            return None;
        }
        let mut best: Option<(usize, usize, f64)> = None;
        // Σ_{start ≤ i < j < τ} |x_i − x_j|, grown with τ.
        let mut within_left = (start + 1..start + MIN_SEGMENT)
            .map(|j| self.distances(start, j, j))
            .sum::<f64>();
        for tau in start + MIN_SEGMENT..=end - MIN_SEGMENT {
            let m = (tau - start) as f64;
            let (mut between, mut within_right) = (0.0, 0.0);
            for kappa in tau + 1..=end {
                let newest = kappa - 1;
                between += self.distances(start, tau, newest);
                within_right += self.distances(tau, newest, newest);
                let k = (kappa - tau) as f64;
                if kappa - tau < MIN_SEGMENT {
                    continue;
                }
                let q = 2.0 / (m + k) * between
                    - 2.0 * k / ((m + k) * (m - 1.0)) * within_left
                    - 2.0 * m / ((m + k) * (k - 1.0)) * within_right;
                if best.is_none_or(|(_, _, top)| q > top) {
                    best = Some((tau, kappa, q));
                }
            }
            within_left += self.distances(start, tau, tau);
        }
        best
    }
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
        let mut energy = Energy::default();
        energy.load(&series);
        assert_eq!(
            energy.best_split(0, series.len()).map(|(at, _, _)| at),
            Some(20)
        );
        energy.load(&[1.0; 5]);
        assert_eq!(energy.best_split(0, 5), None);
    }

    #[test]
    fn students_t_of_two_segments_matches_scipy() {
        // scipy.stats.ttest_ind([1, 2, 3, 4, 5], [2.5, 3.5, 4.5, 5.5, 6.5]): t = -1.5, p = 0.17200.
        let series = [1.0, 2.0, 3.0, 4.0, 5.0, 2.5, 3.5, 4.5, 5.5, 6.5];
        let p = Moments::of(&series).pvalue(0, 5, 10);
        assert!((p - 0.172_00).abs() < 1e-4, "{p}");
        let constant = Moments::of(&[5.0, 5.0, 5.0, 6.0, 6.0, 6.0]);
        assert_eq!(constant.pvalue(0, 3, 6), 0.0);
        assert_eq!(constant.pvalue(0, 1, 3), 1.0);
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
