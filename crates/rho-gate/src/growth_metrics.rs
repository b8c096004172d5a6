//! Growth as gate metrics: a family whose fit got worse between base and head regresses, whatever its absolute
//! figures did.
//!
//! Each family of a wire stream with a fit gives one metric per growth judged, named
//! `<family>.growth.<metric>` (`pairwise.growth.cycles`, `.stack`, `.heap_peak`): the cost metric rho-judge
//! judges `max_growth` on ([`rho_judge::growth::cost_metric`]), then the stack and the heap peak (a stack that
//! starts growing with n is a finding too). Its figure is `2^rank` of the best fit's class (O(1) 1, O(log n) 2,
//! O(n) 4, O(n log n) 8, O(n^2) 16, O(n^3) 32): one class faster doubles it, more than any gate budget (a
//! fraction below 1) allows, so any worse class is a regression and any better one an improvement. Each side
//! keeps its lowest figure over its runs, so head regresses only when every one of its runs fitted a
//! faster-growing class than base's best. Fewer than four sizes give no metric.

use rho_stats::{Complexity, Metric, RunSummary};

use crate::run_metrics::{Figure, RunMetrics};

/// The part of a gate metric's name that marks a growth.
const GROWTH: &str = ".growth.";

/// The figure of a class.
fn figure_of(complexity: Complexity) -> f64 {
    f64::from(1u32 << complexity.rank())
}

/// The class of a growth metric's figure, if `name` is one and the figure is a class's.
pub fn growth_class(name: &str, figure: f64) -> Option<Complexity> {
    if !name.contains(GROWTH) {
        return None;
    }
    Complexity::ALL
        .into_iter()
        .find(|&c| figure_of(c) == figure)
}

/// Add the growth metrics of `summary`'s families to `metrics`.
pub(crate) fn add_growth_metrics(summary: &RunSummary, metrics: &mut RunMetrics) {
    for family in rho_stats::families(summary) {
        let cost = rho_judge::growth::cost_metric(&family).map(|(m, _)| m);
        for metric in cost
            .into_iter()
            .chain([Metric::StackBytes, Metric::HeapPeakBytes])
        {
            if let Some(fit) = family.growth(metric).and_then(|g| g.best()) {
                metrics.insert(
                    format!("{}{GROWTH}{}", family.name, metric.gate_name()),
                    Figure::Value(figure_of(fit.complexity)),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{MetricOutcome, compare};
    use crate::settings::Budgets;

    /// A stream with one family `f` over 16..128 whose cycles are `cost(n)` and whose stack is constant.
    fn stream(cost: impl Fn(u64) -> u64) -> String {
        let mut text = String::from(
            "@rho-bench 3\n@target host arch=x86_64 optimized=1\n\
             @clock cycles tsc unit=cycle hz=0 resolution=1\n\
             @config iterations=1 warmup=0 time_cap_ms=0 stack_bytes=4096\n",
        );
        for n in [16u64, 32, 64, 128] {
            text.push_str(&format!(
                "@bench f/{n} family=f arg={n}\n:{}\n@stack 144\n\
                 @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
                 @end f/{n} iterations=1 warmup=0 capped=0 unit=iter per_iteration=1\n",
                cost(n)
            ));
        }
        text.push_str("@done benchmarks=4 dropped=0\n");
        text
    }

    fn metrics(text: &str) -> RunMetrics {
        crate::wire_metrics::metrics_from_run(&rho_wire::parse_str(text).unwrap()).unwrap()
    }

    #[test]
    fn a_family_whose_fit_got_worse_regresses_whatever_its_figures_did() {
        // Head is quadratic but cheaper at every size up to 128 than base's linear cost.
        let base = metrics(&stream(|n| 1000 * n));
        let head = metrics(&stream(|n| n * n));
        assert_eq!(base["f.growth.cycles"], Figure::Value(4.0));
        assert_eq!(head["f.growth.cycles"], Figure::Value(16.0));
        assert_eq!(head["f.growth.stack"], Figure::Value(1.0));
        let comparison = compare(
            std::slice::from_ref(&base),
            std::slice::from_ref(&head),
            &Budgets::default(),
        );
        let growth = comparison.metric("f.growth.cycles").unwrap();
        assert_eq!(growth.outcome, MetricOutcome::Regressed);
        // the cost itself went down at every size: no cycles metric regressed
        assert!(
            comparison
                .metrics
                .iter()
                .filter(|m| m.name.ends_with(".cycles") && !m.name.contains(GROWTH))
                .all(|m| m.outcome == MetricOutcome::Ok)
        );
        // The other way round is an improvement, which is no concern of the gate's.
        let back = compare(&[head], &[base], &Budgets::default());
        assert!(
            back.metrics
                .iter()
                .filter(|m| m.name.contains(GROWTH))
                .all(|m| m.outcome == MetricOutcome::Ok)
        );
    }

    #[test]
    fn a_figure_reads_back_as_its_class() {
        for complexity in Complexity::ALL {
            assert_eq!(
                growth_class("f.growth.cycles", figure_of(complexity)),
                Some(complexity)
            );
        }
        assert_eq!(growth_class("f.cycles", 4.0), None);
        assert_eq!(growth_class("f.growth.cycles", 3.0), None);
    }
}
