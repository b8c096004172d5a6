//! Adaptive runs: after each alternating pair beyond the first `runs`, which benchmarks more runs could still
//! change the verdict of. Those run again (up to `max_runs` per side); the others are settled and left out.
//!
//! More runs can only lower a side's minimum, and by how much is estimated by the spread already seen (the
//! larger of the two sides'). A regression is settled when head's minimum, lowered by that spread, is still
//! beyond the budget; a pass when base's minimum, lowered by that spread, still leaves head within it. An
//! exact metric (a count: instructions, stack, heap, code bytes) does not move between runs, so one run per
//! side settles it. docs/gate.md gives the rule and why it adds no false alarms.

use std::collections::{BTreeMap, BTreeSet};

use rho_judge::{Change, judge_change};
use rho_stats::Metric;

use crate::compare::{Comparison, MetricComparison, MetricOutcome};

/// Whether `metric` is a count rather than a clock reading: the same in every run of the same build.
pub fn is_exact(metric: &str) -> bool {
    let Some((_, leaf)) = metric.rsplit_once('.') else {
        return false;
    };
    Metric::ALL
        .iter()
        .any(|m| !m.is_clocked() && m.gate_name() == leaf)
}

/// Whether more runs could no longer change `metric`'s verdict (see the module's doc). An undecided metric is
/// settled too: more runs do not bring back a figure a side does not report.
pub fn is_settled(metric: &MetricComparison) -> bool {
    let (Some(base), Some(head)) = (metric.base, metric.head) else {
        return true;
    };
    if is_exact(&metric.name) {
        return true;
    }
    let spread = base.noise().max(head.noise());
    if !spread.is_finite() {
        return false;
    }
    let judged = |base_min: f64, head_min: f64| {
        judge_change(base_min, head_min, metric.budget, metric.floor)
    };
    // A rate (higher is better) is judged as its reciprocal, a cost: more runs can only raise its best, so
    // lower that cost, by the same spread.
    let cost = |best: f64| match metric.better {
        rho_stats::Better::Lower => best,
        rho_stats::Better::Higher => 1.0 / best,
    };
    let (base_cost, head_cost) = (cost(base.min), cost(head.min));
    match metric.outcome {
        MetricOutcome::Undecided(_) => true,
        MetricOutcome::Regressed => {
            judged(base_cost, head_cost / (1.0 + spread)) == Change::Regressed
        }
        MetricOutcome::Ok => judged(base_cost / (1.0 + spread), head_cost) != Change::Regressed,
    }
}

/// The benchmarks (as `group_of` names each metric's) whose verdict is still open: at least one metric of
/// theirs is not settled. A metric `group_of` does not know is its own benchmark.
pub fn open_benchmarks(
    comparison: &Comparison,
    group_of: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    comparison
        .metrics
        .iter()
        .filter(|m| !is_settled(m))
        .map(|m| group_of.get(&m.name).unwrap_or(&m.name).clone())
        .collect()
}

/// The benchmark a metric of a wire stream belongs to: its name up to the last dot (`bench_crc.ns` is
/// `bench_crc`'s); what `RHO_BENCH_FILTER` selects by.
pub fn wire_benchmark(metric: &str) -> &str {
    metric.rsplit_once('.').map_or(metric, |(bench, _)| bench)
}

/// `RHO_BENCH_FILTER` for `benchmarks`, or `None` when one of them is no term the harness accepts (1 to 63
/// name characters or `/`; then everything runs and the extra figures are left out). The harness selects
/// a benchmark whose name *contains* a term, so the filter may select more than these: the caller leaves
/// out what it did not ask for.
pub fn filter_for(benchmarks: &BTreeSet<String>) -> Option<String> {
    let term_ok = |name: &str| {
        (1..=63).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.:+/-".contains(&b))
    };
    if benchmarks.is_empty() || !benchmarks.iter().all(|b| term_ok(b)) {
        return None;
    }
    Some(benchmarks.iter().cloned().collect::<Vec<_>>().join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::compare;
    use crate::run_metrics::{Figure, RunMetrics};
    use crate::settings::Budgets;

    fn runs(name: &str, values: &[f64]) -> Vec<RunMetrics> {
        values
            .iter()
            .map(|v| [(name.to_owned(), Figure::Value(*v))].into_iter().collect())
            .collect()
    }

    fn settled(base: &[f64], head: &[f64]) -> bool {
        let budgets = Budgets::new(0.3, BTreeMap::new()).unwrap();
        let c = compare(&runs("b.ns", base), &runs("b.ns", head), &budgets);
        is_settled(&c.metrics[0])
    }

    #[test]
    fn far_from_the_budget_is_settled_near_it_is_not() {
        // 10x slower with 2% spread: no run can bring head within 30%.
        assert!(settled(&[100.0, 102.0], &[1000.0, 1010.0]));
        // Identical within 2%: no run can push head beyond 30%.
        assert!(settled(&[100.0, 102.0], &[101.0, 100.5]));
        // 1.35x with a 5% spread: a head run 5% better would pass; open.
        assert!(!settled(&[100.0, 105.0], &[135.0, 136.0]));
        // 1.28x with a 5% spread: a base run 5% better would fail; open.
        assert!(!settled(&[100.0, 101.0], &[128.0, 134.4]));
        // A side whose best was 0 and another not: infinite spread, never settled by it.
        assert!(!settled(&[0.0, 5.0], &[100.0, 100.0]));
    }

    #[test]
    fn a_count_is_settled_after_one_run() {
        assert!(is_exact("bench_crc.instructions"));
        assert!(is_exact("bench_crc.stack") && is_exact("bench_crc.code"));
        assert!(!is_exact("bench_crc.ns") && !is_exact("count_below_ns"));
        let budgets = Budgets::new(0.3, BTreeMap::new()).unwrap();
        let c = compare(
            &runs("b.instructions", &[100.0]),
            &runs("b.instructions", &[129.0]),
            &budgets,
        );
        assert!(is_settled(&c.metrics[0]));
    }

    #[test]
    fn open_metrics_name_their_benchmarks_and_the_filter_lists_them() {
        let budgets = Budgets::new(0.3, BTreeMap::new()).unwrap();
        let mut base = runs("a.ns", &[100.0, 105.0]);
        let mut head = runs("a.ns", &[135.0, 136.0]);
        for (run, v) in base.iter_mut().zip([10.0, 10.0]) {
            run.insert("b.ns".into(), Figure::Value(v));
        }
        for (run, v) in head.iter_mut().zip([10.0, 10.0]) {
            run.insert("b.ns".into(), Figure::Value(v));
        }
        let c = compare(&base, &head, &budgets);
        let groups: BTreeMap<String, String> = [("a.ns", "a"), ("b.ns", "b")]
            .iter()
            .map(|(m, g)| (m.to_string(), g.to_string()))
            .collect();
        let open = open_benchmarks(&c, &groups);
        assert_eq!(open, BTreeSet::from(["a".to_owned()]));
        assert_eq!(filter_for(&open).as_deref(), Some("a"));
        let bad = BTreeSet::from(["has space".to_owned()]);
        assert_eq!(filter_for(&bad), None);
        assert_eq!(wire_benchmark("fam/64.ns"), "fam/64");
    }
}
