//! A family's growth, compared: each side's best fit ([`rho_stats::fit_growth`], the one fit the run reports
//! use) of the family's members' figures against their argument, on the family's cost metric (instructions
//! when both sides counted them, else cycles, else time: the order [`rho_judge::growth::cost_metric`] uses).
//!
//! A faster-growing order on head (O(n) -> O(n^2)) is a regression even when the sizes measured barely moved:
//! at a larger size it will not be small. With the same order, the coefficient is held to the metric's limit
//! as each member's figure is. Fewer than [`rho_stats::MIN_FIT_POINTS`] sizes on a side cannot be fitted: the
//! family is said, not judged.

use std::collections::BTreeMap;

use rho_stats::{Complexity, Fit, Growth, Metric, fit_growth};

use crate::compare::{Comparison, metric_limit};

/// What a family's comparison concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrowthVerdict {
    /// Head grows in a faster order, or in the same order with a coefficient above the limit.
    Regressed,
    /// Head grows in a slower order, or in the same with a coefficient lower by more than the limit.
    Improved,
    Ok,
    /// A side has too few sizes to fit.
    Undecided,
}

impl GrowthVerdict {
    /// `regressed`, `improved`, `ok`, `undecided`.
    pub fn label(self) -> &'static str {
        match self {
            GrowthVerdict::Regressed => "regressed",
            GrowthVerdict::Improved => "improved",
            GrowthVerdict::Ok => "ok",
            GrowthVerdict::Undecided => "undecided",
        }
    }
}

/// One family's growth on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyComparison {
    pub family: String,
    /// The cost metric fitted.
    pub metric: Metric,
    /// Each side's growth (a best fit, or too few points).
    pub base: Growth,
    pub head: Growth,
    /// The coefficient's change in percent, when both sides fitted the same order.
    pub coefficient_change_percent: Option<f64>,
    /// The limit the coefficient was held to, in percent.
    pub limit_percent: f64,
    pub verdict: GrowthVerdict,
}

/// The family and the argument of a member's name (`sort/32`: `sort`, 32), as the harness names a member.
fn member(name: &str) -> Option<(&str, u64)> {
    let (family, arg) = name.rsplit_once('/')?;
    Some((family, arg.parse().ok()?))
}

/// Each side's points per family on `metric`, in the order the families first appear.
type Points = Vec<(String, Vec<(u64, f64)>, Vec<(u64, f64)>)>;

fn points_on(comparison: &Comparison, metric: Metric) -> Points {
    let mut out: Points = Vec::new();
    for (name, row) in comparison.rows().filter(|(_, row)| row.metric == metric) {
        let Some((family, arg)) = member(name) else {
            continue;
        };
        let at = match out.iter().position(|(f, _, _)| f == family) {
            Some(at) => at,
            None => {
                out.push((family.to_string(), Vec::new(), Vec::new()));
                out.len() - 1
            }
        };
        if let Some(base) = row.base.figure() {
            out[at].1.push((arg, base));
        }
        if let Some(head) = row.head.figure() {
            out[at].2.push((arg, head));
        }
    }
    out
}

impl Comparison {
    /// Every family of the comparison (members named `family/arg`) with its growth on both sides, in the
    /// order the families first appear.
    pub fn families(&self) -> Vec<FamilyComparison> {
        let mut by_family: BTreeMap<String, FamilyComparison> = BTreeMap::new();
        let mut order = Vec::new();
        // The first cost metric on which both sides have figures wins for a family.
        for metric in [Metric::Instructions, Metric::Cycles, Metric::TimeNs] {
            for (family, base, head) in points_on(self, metric) {
                if by_family.contains_key(&family) || base.is_empty() || head.is_empty() {
                    continue;
                }
                let limit = self
                    .benchmarks
                    .iter()
                    .find(|b| member(&b.name).is_some_and(|(f, _)| f == family))
                    .map_or(self.limit_percent, |b| {
                        metric_limit(metric, b.limit_percent, b.instructions_limit_percent)
                    });
                order.push(family.clone());
                by_family.insert(
                    family.clone(),
                    judge(family, metric, fit_growth(&base), fit_growth(&head), limit),
                );
            }
        }
        let mut out: Vec<FamilyComparison> = order
            .into_iter()
            .filter_map(|family| by_family.remove(&family))
            .collect();
        let first_row = |family: &str| {
            self.benchmarks
                .iter()
                .position(|b| member(&b.name).is_some_and(|(f, _)| f == family))
        };
        out.sort_by_key(|f| first_row(&f.family));
        out
    }

    /// Whether a family's growth regressed.
    pub fn growth_regressed(&self) -> bool {
        self.families()
            .iter()
            .any(|f| f.verdict == GrowthVerdict::Regressed)
    }
}

/// Both sides' fits, judged.
pub fn judge(
    family: String,
    metric: Metric,
    base: Growth,
    head: Growth,
    limit_percent: f64,
) -> FamilyComparison {
    let (verdict, coefficient_change_percent) = match (base.best(), head.best()) {
        (Some(b), Some(h)) if h.complexity > b.complexity => (GrowthVerdict::Regressed, None),
        (Some(b), Some(h)) if h.complexity < b.complexity => (GrowthVerdict::Improved, None),
        (Some(b), Some(h)) => {
            let change = rho_judge::relative_change(b.coefficient, h.coefficient);
            let verdict = match change {
                _ if rho_judge::regressed(b.coefficient, h.coefficient, limit_percent / 100.0) => {
                    GrowthVerdict::Regressed
                }
                _ if rho_judge::regressed(h.coefficient, b.coefficient, limit_percent / 100.0) => {
                    GrowthVerdict::Improved
                }
                _ => GrowthVerdict::Ok,
            };
            (verdict, change.map(|c| c * 100.0))
        }
        _ => (GrowthVerdict::Undecided, None),
    };
    FamilyComparison {
        family,
        metric,
        base,
        head,
        coefficient_change_percent,
        limit_percent,
        verdict,
    }
}

/// A side's fit in words: `O(n^2) (coefficient 3.02, rms 0.1%)`, or `too few points (3 sizes)`.
pub fn describe(growth: &Growth) -> String {
    match growth {
        Growth::Fitted { best, .. } => format!(
            "{} (coefficient {}, rms {:.1}%)",
            best.complexity,
            coefficient(best),
            best.rms * 100.0
        ),
        Growth::TooFewPoints { points } => format!(
            "too few points ({points} size{}; {} needed)",
            if *points == 1 { "" } else { "s" },
            rho_stats::MIN_FIT_POINTS
        ),
    }
}

fn coefficient(fit: &Fit) -> String {
    let magnitude = fit.coefficient.abs();
    if magnitude != 0.0 && !(1e-3..1e6).contains(&magnitude) {
        format!("{:.3e}", fit.coefficient)
    } else {
        format!("{:.4}", fit.coefficient)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

impl FamilyComparison {
    /// The line a report prints: `growth: pairwise (instructions): O(n) -> O(n^2): regressed (a faster order)`.
    pub fn sentence(&self) -> String {
        let order = |g: &Growth| g.best().map(|b| b.complexity);
        let why = match (order(&self.base), order(&self.head), self.verdict) {
            (Some(b), Some(h), GrowthVerdict::Regressed) if h > b => {
                "a faster-growing order, whatever the sizes measured".to_string()
            }
            (Some(b), Some(h), GrowthVerdict::Improved) if h < b => {
                "a slower-growing order".to_string()
            }
            (_, _, GrowthVerdict::Undecided) => "a side has too few sizes to fit".to_string(),
            _ => match self.coefficient_change_percent {
                Some(change) => format!(
                    "the same order, its coefficient {change:+.1}% (limit +{}%)",
                    trim(self.limit_percent)
                ),
                None => "the same order".to_string(),
            },
        };
        format!(
            "growth: {} ({}): {} -> {}: {} ({why})",
            self.family,
            self.metric.name(),
            describe(&self.base),
            describe(&self.head),
            self.verdict.label()
        )
    }

    /// The order on a side, as `O(n^2)`, when it fitted.
    pub fn order(growth: &Growth) -> Option<Complexity> {
        growth.best().map(|b| b.complexity)
    }
}

fn trim(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(f: impl Fn(f64) -> f64) -> Growth {
        let pts: Vec<(u64, f64)> = [8u64, 16, 32, 64, 128]
            .iter()
            .map(|&n| (n, f(n as f64)))
            .collect();
        fit_growth(&pts)
    }

    #[test]
    fn a_faster_order_regresses_even_when_the_figures_barely_moved() {
        // O(n) against O(n^2) over 8..128 with the largest size's figure the same on both sides.
        let linear = points(|n| 128.0 * n);
        let quadratic = points(|n| n * n);
        let c = judge(
            "sum".into(),
            Metric::Instructions,
            linear.clone(),
            quadratic.clone(),
            2.0,
        );
        assert_eq!(c.verdict, GrowthVerdict::Regressed);
        let line = c.sentence();
        assert!(
            line.starts_with("growth: sum (instructions): O(n) (coefficient 128"),
            "{line}"
        );
        assert!(
            line.contains("-> O(n^2) (coefficient 1, rms 0.0%)"),
            "{line}"
        );
        assert!(
            line.contains(": regressed (a faster-growing order"),
            "{line}"
        );
        let back = judge("sum".into(), Metric::Instructions, quadratic, linear, 2.0);
        assert_eq!(back.verdict, GrowthVerdict::Improved);
    }

    #[test]
    fn the_same_order_holds_its_coefficient_to_the_limit() {
        let base = points(|n| 10.0 * n);
        let same = judge(
            "s".into(),
            Metric::Instructions,
            base.clone(),
            points(|n| 10.1 * n),
            2.0,
        );
        assert_eq!(same.verdict, GrowthVerdict::Ok);
        assert!((same.coefficient_change_percent.unwrap() - 1.0).abs() < 1e-6);
        let worse = judge(
            "s".into(),
            Metric::Instructions,
            base.clone(),
            points(|n| 13.0 * n),
            2.0,
        );
        assert_eq!(worse.verdict, GrowthVerdict::Regressed);
        assert!(
            worse
                .sentence()
                .contains("its coefficient +30.0% (limit +2%)"),
            "{}",
            worse.sentence()
        );
        let few = fit_growth(&[(1, 1.0), (2, 2.0)]);
        let undecided = judge("s".into(), Metric::Instructions, base, few, 2.0);
        assert_eq!(undecided.verdict, GrowthVerdict::Undecided);
        assert!(
            undecided
                .sentence()
                .contains("too few points (2 sizes; 4 needed)")
        );
    }

    #[test]
    fn members_are_named_family_slash_argument() {
        assert_eq!(member("sort/32"), Some(("sort", 32)));
        assert_eq!(member("a/b/7"), Some(("a/b", 7)));
        assert_eq!(member("plain"), None);
        assert_eq!(member("x/y"), None);
    }
}
