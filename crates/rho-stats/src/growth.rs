//! Growth: how a benchmark family's figures grow with its argument, fitted as Google Benchmark's
//! `Complexity()` does.
//!
//! For each candidate `g(n)` in O(1), O(log n), O(n), O(n log n), O(n^2), O(n^3) (logarithms base 2), the
//! least-squares fit through the origin `y ≈ c * g(n)` has coefficient `c = Σ y g(n) / Σ g(n)²` and an RMS of
//! `sqrt(Σ (y - c g(n))² / N)`, reported relative to the mean of `y` (0 when every `y` is 0). The best fit is
//! the candidate with the lowest RMS, except that a lower order whose RMS is within [`FIT_TOLERANCE`] of the
//! lowest is preferred (two fits that explain the figures equally well are not evidence of faster growth).
//! Fewer than [`MIN_FIT_POINTS`] distinct arguments are too few points to tell the candidates apart; an
//! argument of 0 is left out (log 0 is undefined).

use std::fmt;

use rho_wire::FamilyMember;
use serde::{Deserialize, Serialize};

use crate::run::{BenchSummary, Metric, RunSummary};

/// The fewest distinct arguments a fit is made from.
pub const MIN_FIT_POINTS: usize = 4;

/// How much higher (in RMS relative to the mean) a lower order's fit may be than the lowest and still be the
/// one chosen.
pub const FIT_TOLERANCE: f64 = 0.02;

/// A growth class, in increasing order of growth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Complexity {
    #[serde(rename = "1")]
    Constant,
    #[serde(rename = "log n")]
    Log,
    #[serde(rename = "n")]
    Linear,
    #[serde(rename = "n log n")]
    LinearLog,
    #[serde(rename = "n^2")]
    Quadratic,
    #[serde(rename = "n^3")]
    Cubic,
}

impl Complexity {
    /// Every class, from the slowest growth to the fastest.
    pub const ALL: [Complexity; 6] = [
        Complexity::Constant,
        Complexity::Log,
        Complexity::Linear,
        Complexity::LinearLog,
        Complexity::Quadratic,
        Complexity::Cubic,
    ];

    /// The class's function of `n` (`n` at least 1).
    pub fn of(self, n: f64) -> f64 {
        match self {
            Complexity::Constant => 1.0,
            Complexity::Log => n.log2(),
            Complexity::Linear => n,
            Complexity::LinearLog => n * n.log2(),
            Complexity::Quadratic => n * n,
            Complexity::Cubic => n * n * n,
        }
    }

    /// The class's place in [`Complexity::ALL`], 0 for O(1) to 5 for O(n^3).
    pub fn rank(self) -> u32 {
        Complexity::ALL
            .iter()
            .position(|&c| c == self)
            .map_or(0, |i| i as u32)
    }

    /// The class at `rank` ([`Complexity::rank`]).
    pub fn from_rank(rank: u32) -> Option<Complexity> {
        Complexity::ALL.get(usize::try_from(rank).ok()?).copied()
    }

    /// What is inside the O: `1`, `log n`, `n`, `n log n`, `n^2`, `n^3` (also how a budget spells it).
    pub fn term(self) -> &'static str {
        match self {
            Complexity::Constant => "1",
            Complexity::Log => "log n",
            Complexity::Linear => "n",
            Complexity::LinearLog => "n log n",
            Complexity::Quadratic => "n^2",
            Complexity::Cubic => "n^3",
        }
    }

    /// A class from its term, as [`Complexity::term`] spells it (spaces around `log` are optional, `n²` and
    /// `n³` and a surrounding `O(...)` are accepted).
    pub fn parse(text: &str) -> Option<Complexity> {
        let text = text.trim();
        let inner = text
            .strip_prefix("O(")
            .and_then(|t| t.strip_suffix(')'))
            .unwrap_or(text);
        let squashed: String = inner.chars().filter(|c| !c.is_whitespace()).collect();
        Some(match squashed.as_str() {
            "1" => Complexity::Constant,
            "logn" => Complexity::Log,
            "n" => Complexity::Linear,
            "nlogn" => Complexity::LinearLog,
            "n^2" | "n²" => Complexity::Quadratic,
            "n^3" | "n³" => Complexity::Cubic,
            _ => return None,
        })
    }
}

impl fmt::Display for Complexity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "O({})", self.term())
    }
}

/// One candidate fitted to the points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    pub complexity: Complexity,
    /// `c` in `y ≈ c * g(n)`.
    pub coefficient: f64,
    /// The fit's RMS relative to the mean of the figures (0.05: 5% of the mean).
    pub rms: f64,
}

/// How a family's figures of one metric grow: the best fit, and every candidate's for a reader who wants to
/// see how clear the choice was; or too few points to say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Growth {
    Fitted {
        /// Distinct arguments the fit was made from.
        points: usize,
        best: Fit,
        /// Every candidate, in [`Complexity::ALL`] order.
        candidates: Vec<Fit>,
    },
    /// Fewer than [`MIN_FIT_POINTS`] distinct arguments with a figure.
    TooFewPoints { points: usize },
}

impl Growth {
    /// The best fit, if there was one.
    pub fn best(&self) -> Option<&Fit> {
        match self {
            Growth::Fitted { best, .. } => Some(best),
            Growth::TooFewPoints { .. } => None,
        }
    }

    /// The fit of one candidate, if there was a fit.
    pub fn candidate(&self, complexity: Complexity) -> Option<&Fit> {
        match self {
            Growth::Fitted { candidates, .. } => {
                candidates.iter().find(|c| c.complexity == complexity)
            }
            Growth::TooFewPoints { .. } => None,
        }
    }
}

/// Fit `points` (argument, figure): one figure per argument (a repeated argument's figures are averaged),
/// arguments of 0 left out.
pub fn fit_growth(points: &[(u64, f64)]) -> Growth {
    let mut merged: Vec<(u64, f64, u32)> = Vec::new();
    for &(n, y) in points {
        if n == 0 || !y.is_finite() {
            continue;
        }
        match merged.iter_mut().find(|(m, _, _)| *m == n) {
            Some(entry) => {
                entry.1 += y;
                entry.2 += 1;
            }
            None => merged.push((n, y, 1)),
        }
    }
    let points: Vec<(f64, f64)> = merged
        .iter()
        .map(|&(n, sum, count)| (n as f64, sum / f64::from(count)))
        .collect();
    if points.len() < MIN_FIT_POINTS {
        return Growth::TooFewPoints {
            points: points.len(),
        };
    }
    let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
    let candidates: Vec<Fit> = Complexity::ALL
        .iter()
        .map(|&complexity| fit_one(&points, mean, complexity))
        .collect();
    let lowest = candidates
        .iter()
        .map(|c| c.rms)
        .fold(f64::INFINITY, f64::min);
    // The lowest order within the tolerance of the lowest RMS (candidates are in increasing order).
    let best = candidates
        .iter()
        .copied()
        .find(|c| c.rms <= lowest + FIT_TOLERANCE)
        .unwrap_or(candidates[0]);
    Growth::Fitted {
        points: points.len(),
        best,
        candidates,
    }
}

fn fit_one(points: &[(f64, f64)], mean: f64, complexity: Complexity) -> Fit {
    let (mut gy, mut gg) = (0.0, 0.0);
    for &(n, y) in points {
        let g = complexity.of(n);
        gy += g * y;
        gg += g * g;
    }
    let coefficient = if gg > 0.0 { gy / gg } else { 0.0 };
    let squares: f64 = points
        .iter()
        .map(|&(n, y)| (y - coefficient * complexity.of(n)).powi(2))
        .sum();
    let rms = (squares / points.len() as f64).sqrt();
    Fit {
        complexity,
        coefficient,
        rms: if mean > 0.0 { rms / mean } else { 0.0 },
    }
}

/// One member of a family: its argument and its benchmark's name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub arg: u64,
    pub name: String,
}

/// One metric's growth over a family.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricGrowth {
    pub metric: Metric,
    pub growth: Growth,
}

/// A benchmark family (every benchmark registered with `RHO_BENCH_ADD_ARG` of one function) and how each of
/// its measured metrics grows with the argument.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FamilyGrowth {
    pub name: String,
    /// In the suite's order.
    pub members: Vec<Member>,
    /// One entry per metric measured on at least one member: cycles, time, instructions, stack, heap.
    pub metrics: Vec<MetricGrowth>,
}

impl FamilyGrowth {
    /// The growth of `metric`, when it was measured.
    pub fn growth(&self, metric: Metric) -> Option<&Growth> {
        self.metrics
            .iter()
            .find(|m| m.metric == metric)
            .map(|m| &m.growth)
    }
}

/// The order of a family's metrics: the costs, then the memory.
const METRIC_ORDER: [Metric; 5] = [
    Metric::Cycles,
    Metric::TimeNs,
    Metric::Instructions,
    Metric::StackBytes,
    Metric::HeapPeakBytes,
];

/// The families of a run, in the order their first members ran, each fitted on every metric its members
/// measured (the net median per iteration for cycles, time and instructions; the exact figure for stack and
/// heap), costs first.
pub fn families(summary: &RunSummary) -> Vec<FamilyGrowth> {
    let mut out: Vec<(FamilyGrowth, Vec<&BenchSummary>)> = Vec::new();
    for bench in &summary.benchmarks {
        let Some(FamilyMember { name, arg }) = &bench.family else {
            continue;
        };
        let member = Member {
            arg: *arg,
            name: bench.name.clone(),
        };
        match out.iter_mut().find(|(f, _)| &f.name == name) {
            Some((family, benches)) => {
                family.members.push(member);
                benches.push(bench);
            }
            None => out.push((
                FamilyGrowth {
                    name: name.clone(),
                    members: vec![member],
                    metrics: Vec::new(),
                },
                vec![bench],
            )),
        }
    }
    out.into_iter()
        .map(|(mut family, benches)| {
            family.metrics = METRIC_ORDER
                .iter()
                .filter_map(|&metric| {
                    let points: Vec<(u64, f64)> = benches
                        .iter()
                        .filter_map(|b| {
                            let arg = b.family.as_ref()?.arg;
                            Some((arg, b.metric(metric)?))
                        })
                        .collect();
                    (!points.is_empty()).then(|| MetricGrowth {
                        metric,
                        growth: fit_growth(&points),
                    })
                })
                .collect();
            family
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// y = 3n over 1, 2, 4, 8: O(n) fits exactly with coefficient 3. By hand for O(1): the mean is
    /// 45/4 = 11.25; residuals -8.25, -5.25, 0.75, 12.75; squares 68.0625 + 27.5625 + 0.5625 + 162.5625 =
    /// 258.75; RMS sqrt(258.75 / 4) = 8.0428..., relative to the mean 0.71492...
    #[test]
    fn a_line_through_the_origin_is_o_n_exactly() {
        let growth = fit_growth(&[(1, 3.0), (2, 6.0), (4, 12.0), (8, 24.0)]);
        let best = growth.best().unwrap();
        assert_eq!(best.complexity, Complexity::Linear);
        assert!(close(best.coefficient, 3.0), "{best:?}");
        assert!(best.rms.abs() < 1e-12, "{best:?}");
        let constant = growth.candidate(Complexity::Constant).unwrap();
        assert!(close(constant.coefficient, 11.25), "{constant:?}");
        assert!(
            close(constant.rms, (258.75f64 / 4.0).sqrt() / 11.25),
            "{constant:?}"
        );
        // O(n^2) by hand: Σ y g = 3(1 + 8 + 64 + 512) = 1755, Σ g² = 1 + 16 + 256 + 4096 = 4369.
        let quadratic = growth.candidate(Complexity::Quadratic).unwrap();
        assert!(
            close(quadratic.coefficient, 1755.0 / 4369.0),
            "{quadratic:?}"
        );
    }

    #[test]
    fn each_planted_class_is_found_with_its_coefficient() {
        let sizes = [16u64, 32, 64, 128, 256];
        for complexity in Complexity::ALL {
            let points: Vec<(u64, f64)> = sizes
                .iter()
                .map(|&n| (n, 5.0 * complexity.of(n as f64)))
                .collect();
            let growth = fit_growth(&points);
            let best = growth.best().unwrap();
            assert_eq!(best.complexity, complexity, "{growth:?}");
            assert!(close(best.coefficient, 5.0), "{best:?}");
        }
    }

    /// The two families, with a constant cost beside the planted growth: the pairwise loop's
    /// n(n-1)/2 comparisons are O(n^2), the sum's n bytes plus a fixed 40 are O(n).
    #[test]
    fn the_sum_is_linear_and_the_pairwise_loop_quadratic() {
        let sum: Vec<(u64, f64)> = [256u64, 1024, 4096, 16384]
            .iter()
            .map(|&n| (n, 40.0 + 1.5 * n as f64))
            .collect();
        assert_eq!(
            fit_growth(&sum).best().unwrap().complexity,
            Complexity::Linear
        );
        let pairwise: Vec<(u64, f64)> = [16u64, 32, 64, 128]
            .iter()
            .map(|&n| (n, 30.0 + 7.0 * (n * (n - 1) / 2) as f64))
            .collect();
        let growth = fit_growth(&pairwise);
        assert_eq!(growth.best().unwrap().complexity, Complexity::Quadratic);
        // and O(n) explains it badly: by hand its relative RMS is above 0.4
        assert!(growth.candidate(Complexity::Linear).unwrap().rms > 0.4);
    }

    #[test]
    fn a_constant_and_all_zero_figures_are_o_1() {
        let stack = fit_growth(&[(1, 144.0), (10, 144.0), (100, 144.0), (1000, 144.0)]);
        let best = stack.best().unwrap();
        assert_eq!(best.complexity, Complexity::Constant);
        assert!(close(best.coefficient, 144.0));
        let heap = fit_growth(&[(1, 0.0), (10, 0.0), (100, 0.0), (1000, 0.0)]);
        assert_eq!(heap.best().unwrap().complexity, Complexity::Constant);
        assert_eq!(heap.best().unwrap().rms, 0.0);
    }

    #[test]
    fn fewer_than_four_sizes_are_too_few_points() {
        assert_eq!(
            fit_growth(&[(16, 1.0), (32, 2.0), (64, 4.0)]),
            Growth::TooFewPoints { points: 3 }
        );
        // a repeated argument is one point (its figures averaged), and 0 is left out
        assert_eq!(
            fit_growth(&[(0, 1.0), (16, 1.0), (16, 3.0), (32, 2.0), (64, 4.0)]),
            Growth::TooFewPoints { points: 3 }
        );
        let growth = fit_growth(&[(16, 1.0), (16, 3.0), (32, 4.0), (64, 8.0), (128, 16.0)]);
        assert_eq!(growth.best().unwrap().complexity, Complexity::Linear);
        assert!(close(growth.best().unwrap().coefficient, 0.125));
    }

    #[test]
    fn a_lower_order_within_the_tolerance_is_preferred() {
        // y = n^1.065 rounded: O(n log n) fits a little better (relative RMS 0.0247 against O(n)'s 0.0363),
        // but by less than the tolerance, so O(n) is the answer.
        let growth = fit_growth(&[
            (256, 367.0),
            (1024, 1607.0),
            (4096, 7033.0),
            (16384, 30786.0),
        ]);
        let linear = growth.candidate(Complexity::Linear).unwrap().rms;
        let linear_log = growth.candidate(Complexity::LinearLog).unwrap().rms;
        assert!(linear_log < linear && linear < linear_log + FIT_TOLERANCE);
        assert!((linear - 0.0363).abs() < 1e-3 && (linear_log - 0.0247).abs() < 1e-3);
        assert_eq!(growth.best().unwrap().complexity, Complexity::Linear);
        // y = n log n exactly is not within it: O(n)'s relative RMS is 0.0620 (coefficient 13.867)
        let growth = fit_growth(&[
            (256, 2048.0),
            (1024, 10240.0),
            (4096, 49152.0),
            (16384, 229376.0),
        ]);
        assert_eq!(growth.best().unwrap().complexity, Complexity::LinearLog);
        assert!((growth.candidate(Complexity::Linear).unwrap().rms - 0.0620).abs() < 1e-3);
    }

    #[test]
    fn terms_parse_as_a_budget_spells_them() {
        for complexity in Complexity::ALL {
            assert_eq!(Complexity::parse(complexity.term()), Some(complexity));
            assert_eq!(Complexity::parse(&complexity.to_string()), Some(complexity));
        }
        assert_eq!(Complexity::parse("nlogn"), Some(Complexity::LinearLog));
        assert_eq!(Complexity::parse(" n² "), Some(Complexity::Quadratic));
        assert_eq!(Complexity::parse("n^4"), None);
        assert_eq!(Complexity::parse("linear"), None);
        assert!(Complexity::Linear < Complexity::Quadratic);
    }
}
