//! Growth budgets: a benchmark family's cost held against `max_growth`.
//!
//! The figure judged is the best fit ([`rho_stats::fit_growth`]) of the family's cost per iteration against
//! its argument, on one metric: instructions when they were counted (exact), else cycles, else time (see
//! [`cost_metric`]). Judging one metric rather than each clock of the same cost keeps one noisy clock from
//! deciding twice. A best fit of a faster-growing class than the budget is over it; fewer than four sizes is
//! too few points, which cannot be judged.

use std::fmt;

use rho_stats::{Complexity, FamilyGrowth, Fit, Growth, Metric, RunSummary};

/// The metric a family's growth is judged on: the first of instructions, cycles, time that the family has a
/// growth for (instructions are exact, cycles finer than time).
pub fn cost_metric(family: &FamilyGrowth) -> Option<(Metric, &Growth)> {
    [Metric::Instructions, Metric::Cycles, Metric::TimeNs]
        .into_iter()
        .find_map(|metric| family.growth(metric).map(|g| (metric, g)))
}

/// What a growth budget concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrowthVerdict {
    /// The best fit grows no faster than the budget.
    Holds,
    /// The best fit grows faster than the budget.
    Over,
    /// Fewer than four sizes (or no cost measured): the growth cannot be judged.
    Undecided,
}

/// One family held against its `max_growth`.
#[derive(Debug, Clone, PartialEq)]
pub struct GrowthCheck {
    pub family: String,
    /// The metric judged; `None` when the family measured no cost at all.
    pub metric: Option<Metric>,
    pub budget: Complexity,
    /// The best fit, when there was one.
    pub fit: Option<Fit>,
    /// Distinct sizes the fit had (or lacked).
    pub points: usize,
    pub verdict: GrowthVerdict,
}

/// Every family of `summary` whose budgets (`budgets_for(family name)`) set `max_growth`, judged, in the order
/// the families ran.
pub fn judge_growth(
    summary: &RunSummary,
    max_growth_for: impl Fn(&str) -> Option<Complexity>,
) -> Vec<GrowthCheck> {
    rho_stats::families(summary)
        .iter()
        .filter_map(|family| {
            let budget = max_growth_for(&family.name)?;
            let cost = cost_metric(family);
            let (fit, points) = match cost.map(|(_, g)| g) {
                Some(Growth::Fitted { best, points, .. }) => (Some(*best), *points),
                Some(Growth::TooFewPoints { points }) => (None, *points),
                None => (None, 0),
            };
            let verdict = match fit {
                Some(fit) if fit.complexity > budget => GrowthVerdict::Over,
                Some(_) => GrowthVerdict::Holds,
                None => GrowthVerdict::Undecided,
            };
            Some(GrowthCheck {
                family: family.name.clone(),
                metric: cost.map(|(m, _)| m),
                budget,
                fit,
                points,
                verdict,
            })
        })
        .collect()
}

/// How a metric reads in a sentence.
pub fn metric_label(metric: Metric) -> &'static str {
    match metric {
        Metric::Cycles => "cycles",
        Metric::TimeNs => "time",
        Metric::CpuNs => "cpu time",
        Metric::StackBytes => "stack",
        Metric::HeapPeakBytes => "heap peak",
        Metric::Instructions => "instructions",
        Metric::CodeBytes => "code",
        Metric::StaticStackBytes => "static stack",
    }
}

impl fmt::Display for GrowthCheck {
    /// `pairwise: grows as O(n^2) in cycles (best fit over 4 sizes, rms 1.2%), faster than its budget
    /// max_growth: n`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let budget = self.budget.term();
        match (self.fit, self.metric) {
            (Some(fit), Some(metric)) => write!(
                f,
                "{}: grows as {} in {} (best fit over {} sizes, rms {:.1}%), {} its budget max_growth: {budget}",
                self.family,
                fit.complexity,
                metric_label(metric),
                self.points,
                fit.rms * 100.0,
                if self.verdict == GrowthVerdict::Over {
                    "faster than"
                } else {
                    "within"
                },
            ),
            (_, Some(metric)) => write!(
                f,
                "{}: too few points to fit its {} growth ({} size{}; at least {} needed) for its budget max_growth: {budget}",
                self.family,
                metric_label(metric),
                self.points,
                if self.points == 1 { "" } else { "s" },
                rho_stats::MIN_FIT_POINTS,
            ),
            _ => write!(
                f,
                "{}: no cost measured to fit for its budget max_growth: {budget}",
                self.family
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_stats::{Member, MetricGrowth, fit_growth};

    fn family(name: &str, metric: Metric, figures: &[(u64, f64)]) -> FamilyGrowth {
        FamilyGrowth {
            name: name.to_string(),
            members: figures
                .iter()
                .map(|&(arg, _)| Member {
                    arg,
                    name: format!("{name}/{arg}"),
                })
                .collect(),
            metrics: vec![MetricGrowth {
                metric,
                growth: fit_growth(figures),
            }],
        }
    }

    fn quadratic() -> Vec<(u64, f64)> {
        [16u64, 32, 64, 128]
            .iter()
            .map(|&n| (n, (n * n) as f64))
            .collect()
    }

    fn linear() -> Vec<(u64, f64)> {
        [16u64, 32, 64, 128]
            .iter()
            .map(|&n| (n, 9.0 * n as f64))
            .collect()
    }

    #[test]
    fn the_cost_metric_prefers_instructions_then_cycles() {
        let mut both = family("f", Metric::TimeNs, &linear());
        both.metrics.push(MetricGrowth {
            metric: Metric::Cycles,
            growth: fit_growth(&quadratic()),
        });
        assert_eq!(cost_metric(&both).map(|(m, _)| m), Some(Metric::Cycles));
        let stack_only = family("f", Metric::StackBytes, &linear());
        assert!(cost_metric(&stack_only).is_none());
    }

    #[test]
    fn a_check_reads_as_a_sentence() {
        let check = GrowthCheck {
            family: "pairwise".to_string(),
            metric: Some(Metric::Cycles),
            budget: Complexity::Linear,
            fit: fit_growth(&quadratic()).best().copied(),
            points: 4,
            verdict: GrowthVerdict::Over,
        };
        assert_eq!(
            check.to_string(),
            "pairwise: grows as O(n^2) in cycles (best fit over 4 sizes, rms 0.0%), faster than its budget max_growth: n"
        );
        let too_few = GrowthCheck {
            fit: None,
            points: 3,
            verdict: GrowthVerdict::Undecided,
            ..check
        };
        assert_eq!(
            too_few.to_string(),
            "pairwise: too few points to fit its cycles growth (3 sizes; at least 4 needed) for its budget max_growth: n"
        );
    }
}
