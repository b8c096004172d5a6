//! Adaptive runs: after each alternating pair, which benchmarks more runs could still change the verdict of.
//! Those run again (up to `max_runs` per side); the others are settled and left out.
//!
//! More runs can only lower a side's minimum, and by how much is estimated by the spread seen (the larger of
//! the two sides' gaps between their best and second-best runs; with a single run per side, the larger
//! within-run spread of its samples). A pass is settled when base's minimum, lowered by that spread, still
//! leaves head within the budget, from the first pair on (after one pair, not when head is faster than base by
//! more than the budget: base's one run may have been slow as a whole). A
//! regression is settled when head's minimum, lowered by that spread, is still beyond the budget, but only once
//! each side has had the runs a gate needs to fail a time metric (`runs`), so that one slow run cannot fail a
//! gate; before that, only when head is beyond the budget by [`WHOLE_RUN_ALLOWANCE`] on top of the spread (a
//! figure without samples, a last-line JSON metric, in two rounds, not one), or when after
//! [`PAIRED_FAIL_ROUNDS`] rounds the paired rounds' interval lies wholly above the bound as well. An
//! exact metric (a count: instructions, stack, heap, code bytes) does not move between runs, so one run per
//! side settles it. docs/gate.md gives the rule and why it adds no false alarms.

use std::collections::{BTreeMap, BTreeSet};

use rho_judge::{Change, judge_change_toward};

pub use crate::compare::is_exact;
use crate::compare::{Comparison, MetricComparison, MetricOutcome, PairedCall};
use crate::run_metrics::{Figure, RunMetrics};

/// How much slower than the budget's bound, on top of the spread seen, head's minimum must be for a regression
/// to be settled before each side has had `runs` runs: head at least `(1 + budget) x (1 + spread) x 2` times
/// base. A whole run on a shared machine comes out up to 1.77x slow (tests/kata/README.md), and within-run
/// figures cannot see a slow phase that lasts the whole run; a change twice beyond the bound is one no such
/// phase can fake.
pub const WHOLE_RUN_ALLOWANCE: f64 = 1.0;

/// The rounds after which a regression that the paired rounds and the minima both call is settled, before
/// each side has had `runs` runs: 3. From the second round on a round measures each benchmark on both sides
/// moments apart ("Paired rounds" in docs/gate.md), so a slow phase of the machine, which `runs` whole runs
/// were there to outvote, lands on both figures of a round alike; what is left to fake a regression is head
/// reading slow in every round, by more than the paired interval's width (Student's t at 2 degrees of
/// freedom, 4.3 standard errors, at 3 rounds) *and* its best run beyond the bound by more than the two best
/// runs' gap. Three, not two: two rounds hold only one paired round measured moments apart.
pub const PAIRED_FAIL_ROUNDS: usize = 3;

/// What the stopping rule needs besides the comparison: the runs a side needs before a time metric may fail
/// (`runs`), and each metric's within-run spread over both sides' runs.
pub struct Settling<'a> {
    pub runs_to_fail: usize,
    pub base_runs: &'a [RunMetrics],
    pub head_runs: &'a [RunMetrics],
}

impl Settling<'_> {
    /// The larger within-run spread of `metric` over every run of both sides that measured it; `None` when one
    /// of them gave none (a last-line JSON figure has no samples to spread).
    pub fn within_run(&self, metric: &str) -> Option<f64> {
        let mut spread: Option<f64> = Some(0.0);
        for run in self.base_runs.iter().chain(self.head_runs) {
            if run.get(metric).is_some() {
                spread = spread.zip(run.within_run(metric)).map(|(a, b)| a.max(b));
            }
        }
        spread
    }

    /// How far a side's best run could still fall with more runs, estimated by the gap between its best run and
    /// its second best, as a fraction of the best (the larger of the two sides'); `None` below two runs a side.
    /// With two runs it is the runs' whole spread, as before; from three on, a run slower than both (a
    /// neighbour's time slice landing on one whole run, common on a loaded machine) no longer counts: noise only
    /// adds time, so a slow run says nothing of how much lower the best can go, and the distance between the
    /// two lowest runs is how far the lowest itself is from the floor they approach (the usual estimate of
    /// where a sample's lower end lies).
    fn best_two_gap(&self, metric: &MetricComparison) -> Option<f64> {
        let gap = |runs: &[RunMetrics]| {
            let mut values: Vec<f64> = runs
                .iter()
                .filter_map(|run| match run.get(&metric.name) {
                    Some(Figure::Value(value)) => Some(*value),
                    _ => None,
                })
                .collect();
            values.sort_by(|a, b| match metric.better {
                rho_stats::Better::Lower => a.total_cmp(b),
                rho_stats::Better::Higher => b.total_cmp(a),
            });
            values.get(..2).and_then(rho_stats::relative_spread)
        };
        Some(gap(self.base_runs)?.max(gap(self.head_runs)?))
    }

    /// Whether more runs could no longer change `metric`'s verdict (see the module's doc). An undecided metric
    /// is settled too: more runs do not bring back a figure a side does not report; so is a wall-clock figure
    /// shown beside the CPU time judged in its place: it has no verdict to change.
    pub fn is_settled(&self, metric: &MetricComparison) -> bool {
        let (Some(base), Some(head)) = (metric.base, metric.head) else {
            return true;
        };
        if metric.shown
            || is_exact(&metric.name)
            || matches!(metric.outcome, MetricOutcome::Undecided(_))
        {
            return true;
        }
        let pairs = base.runs.min(head.runs);
        let spread = if pairs >= 2 {
            Some(
                self.best_two_gap(metric)
                    .unwrap_or_else(|| base.noise().max(head.noise())),
            )
        } else {
            self.within_run(&metric.name)
        };
        if spread.is_some_and(|s| !s.is_finite()) {
            return false;
        }
        // The verdict's own rule (a rate judged as its reciprocal, with no floor), on each side's best moved
        // `by` toward better: more runs can only lower a cost's best, or raise a rate's.
        let judged = |base_best: f64, head_best: f64| {
            judge_change_toward(
                metric.better,
                base_best,
                head_best,
                metric.budget,
                metric.floor,
            )
        };
        let bettered = |best: f64, by: f64| match metric.better {
            rho_stats::Better::Lower => best / by,
            rho_stats::Better::Higher => best * by,
        };
        // A pass is settled when base's best, bettered by the spread seen, still leaves head within the budget.
        // After one pair, not when head is better than base by more than the budget: base's one run in a slow
        // phase of the machine (which its within-run spread cannot see) reads that way as well as a real
        // speed-up does, and it would hide a slower head; a second round tells them apart. (From the second
        // round on the runs' own spread sees such a run: applied there too, the rule kept unchanged suites
        // open for 4 rounds (median) instead of 1 on this shared machine.)
        let base_slow_by_budget = || pairs < 2 && judged(head.min, base.min) == Change::Regressed;
        let passes_by_spread = || {
            metric.outcome == MetricOutcome::Ok
                && !base_slow_by_budget()
                && spread.is_some_and(|s| {
                    judged(bettered(base.min, 1.0 + s), head.min) != Change::Regressed
                })
        };
        // A regression by the minima: head's best bettered by the spread still over the bound, loosened by
        // `allowance`. Before `runs` pairs, an unknown spread is none: the allowance is the margin for what
        // one run cannot see.
        let regresses_by_minima = |allowance: f64| {
            metric.outcome == MetricOutcome::Regressed
                && judged(
                    bettered(base.min, 1.0 / allowance),
                    bettered(head.min, 1.0 + spread.unwrap_or(0.0)),
                ) == Change::Regressed
        };
        // A figure without samples (a last-line JSON metric) has nothing in one run that a whole slow run
        // could not fake: its regression by the allowance needs two rounds, each head run that slow. Free for
        // such a figure: its program reruns whole while any metric of it is open.
        let allowance_seen = pairs >= 2 || self.within_run(&metric.name).is_some();
        let beyond_allowance = || allowance_seen && regresses_by_minima(1.0 + WHOLE_RUN_ALLOWANCE);
        let enough_pairs = pairs >= self.runs_to_fail;
        // Two rounds or more of a time metric: the paired rule decides (crate::compare::PairedCall).
        if let Some(paired) = metric.paired {
            return match PairedCall::of(&paired, metric.budget) {
                _ if metric.within_resolution => true,
                PairedCall::Passed => true,
                PairedCall::Regressed => {
                    metric.outcome != MetricOutcome::Regressed
                        || enough_pairs
                        || beyond_allowance()
                        || (pairs >= PAIRED_FAIL_ROUNDS && regresses_by_minima(1.0))
                }
                PairedCall::Open { .. } => passes_by_spread() || beyond_allowance(),
            };
        }
        match metric.outcome {
            MetricOutcome::Regressed if enough_pairs => regresses_by_minima(1.0),
            MetricOutcome::Regressed => beyond_allowance(),
            // A pass needs a spread seen: one run of a JSON figure says nothing of how far a second could fall.
            _ => passes_by_spread(),
        }
    }

    /// The benchmarks (as `group_of` names each metric's) whose verdict is still open: at least one metric of
    /// theirs is not settled. A metric `group_of` does not know is its own benchmark.
    pub fn open_benchmarks(
        &self,
        comparison: &Comparison,
        group_of: &BTreeMap<String, String>,
    ) -> BTreeSet<String> {
        comparison
            .metrics
            .iter()
            .filter(|m| !self.is_settled(m))
            .map(|m| group_of.get(&m.name).unwrap_or(&m.name).clone())
            .collect()
    }
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

    /// The comparison of these runs at a 30% budget.
    fn compared(base: &[RunMetrics], head: &[RunMetrics]) -> Comparison {
        compare(base, head, &Budgets::new(0.3, BTreeMap::new()).unwrap())
    }

    /// The stopping rule of these runs, a regression failing only after 3 runs a side.
    fn settling<'a>(base: &'a [RunMetrics], head: &'a [RunMetrics]) -> Settling<'a> {
        Settling {
            runs_to_fail: 3,
            base_runs: base,
            head_runs: head,
        }
    }

    /// Whether the first metric of these runs is settled.
    fn settled_runs(base: &[RunMetrics], head: &[RunMetrics]) -> bool {
        settling(base, head).is_settled(&compared(base, head).metrics[0])
    }

    fn settled(base: &[f64], head: &[f64]) -> bool {
        settled_runs(&runs("b.ns", base), &runs("b.ns", head))
    }

    /// One run a side whose samples were `spread` apart (within-run).
    fn one_run(value: f64, spread: f64) -> Vec<RunMetrics> {
        let mut run = runs("b.ns", &[value]);
        run[0].set_within_run("b.ns", spread);
        run
    }

    #[test]
    fn far_from_the_budget_is_settled_near_it_is_not() {
        // 10x slower with 2% spread: no run can bring head within 30%.
        assert!(settled(&[100.0, 102.0, 101.0], &[1000.0, 1010.0, 1005.0]));
        // Identical within 2%: no run can push head beyond 30%.
        assert!(settled(&[100.0, 102.0], &[101.0, 100.5]));
        // 1.35x with a 5% spread: a head run 5% better would pass; open.
        assert!(!settled(&[100.0, 105.0, 101.0], &[135.0, 136.0, 135.0]));
        // 1.28x with a 5% spread: a base run 5% better would fail; open.
        assert!(!settled(&[100.0, 101.0], &[128.0, 134.4]));
        // A side whose best was 0 and another not: infinite spread, never settled by it.
        assert!(!settled(&[0.0, 5.0], &[100.0, 100.0]));
    }

    #[test]
    fn a_regression_needs_runs_pairs_unless_beyond_the_whole_run_allowance() {
        // 1.6x with a 2% spread: settled after 3 runs a side, not after 2 (a whole run can be 1.77x slow).
        assert!(!settled(&[100.0, 102.0], &[160.0, 161.0]));
        assert!(settled(&[100.0, 102.0, 101.0], &[160.0, 161.0, 160.0]));
        // Beyond (1 + 0.3) x 2 = 2.6x by more than the spread: settled after one pair.
        assert!(settled_runs(&one_run(100.0, 0.01), &one_run(270.0, 0.02)));
        // A JSON figure (no samples) 10x: a whole run slow that much is what one run cannot rule out; after a
        // second round with head as slow, settled.
        assert!(!settled_runs(
            &runs("b.ns", &[100.0]),
            &runs("b.ns", &[1000.0])
        ));
        assert!(settled_runs(
            &runs("b.ns", &[100.0, 101.0]),
            &runs("b.ns", &[1000.0, 1005.0])
        ));
        // 2.6x with a 2% within-run spread: not beyond the allowance by more than the spread.
        assert!(!settled_runs(&one_run(100.0, 0.01), &one_run(262.0, 0.02)));
    }

    /// The module's `runs` (10 here) is what a regression needs when only the minima call it; the paired
    /// rounds' interval wholly above the bound with the minima beyond it too settles it after 3 rounds. The
    /// wire kata's 2x slowdowns (s03, s08) waited for all 10 rounds under the old rule.
    #[test]
    fn a_regression_the_paired_rounds_and_the_minima_both_call_is_settled_after_three_rounds() {
        let settled_of = |base: &[f64], head: &[f64]| {
            let (base, head) = (runs("b.ns", base), runs("b.ns", head));
            let settling = Settling {
                runs_to_fail: 10,
                base_runs: &base,
                head_runs: &head,
            };
            let c = compared(&base, &head);
            (
                settling.is_settled(&c.metrics[0]),
                c.metrics[0].outcome.clone(),
            )
        };
        // 2x, the rounds agreeing within 2%: open after 2 rounds, settled after 3.
        assert_eq!(
            settled_of(&[100.0, 101.0], &[200.0, 203.0]),
            (false, MetricOutcome::Regressed)
        );
        assert_eq!(
            settled_of(&[100.0, 101.0, 100.5], &[200.0, 203.0, 201.0]),
            (true, MetricOutcome::Regressed)
        );
        // 2x by the minima, but the rounds' ratios 1.1 to 3: the interval holds the bound, open until `runs`.
        assert!(!settled_of(&[100.0, 300.0, 100.0], &[200.0, 330.0, 300.0]).0);
        // The rounds call it (1.36x to 1.43x, the interval 1.31 to 1.51), but head's two best runs are 4.8%
        // apart, more than its best is beyond the bound by: that best could still fall within it. Open.
        assert_eq!(
            settled_of(&[100.0, 100.0, 100.0], &[136.0, 143.0, 142.5]),
            (false, MetricOutcome::Regressed)
        );
    }

    #[test]
    fn one_run_a_side_passes_by_its_within_run_spread() {
        // 1.1x, samples 5% apart: within the budget by more than that, settled after one pair.
        assert!(settled_runs(&one_run(100.0, 0.05), &one_run(110.0, 0.0)));
        // 1.28x, samples 5% apart: a base run 5% better would fail; open.
        assert!(!settled_runs(&one_run(100.0, 0.05), &one_run(128.0, 0.0)));
        // A JSON figure has no samples: one run a side says nothing of the next, open.
        assert!(!settled(&[100.0], &[100.0]));
        assert!(!settled_runs(&one_run(100.0, 0.0), &runs("b.ns", &[100.0])));
    }

    /// A benchmark's wall-clock time beside its CPU time (both measured, the CPU time judged): the wall clock,
    /// shown only, near the bound and scattered, holds nothing open; the CPU time settles the benchmark. Before,
    /// the shown figure kept the wire kata's unchanged benchmarks running 3 to 8 rounds beside two busy loops.
    #[test]
    fn a_wall_clock_figure_shown_beside_the_cpu_time_holds_no_benchmark_open() {
        let two = |ns: f64, cpu: f64| -> RunMetrics {
            [
                ("b.ns".to_owned(), Figure::Value(ns)),
                ("b.cpu_ns".to_owned(), Figure::Value(cpu)),
            ]
            .into_iter()
            .collect()
        };
        let base = vec![two(100.0, 50.0), two(140.0, 50.5)];
        let head = vec![two(128.0, 50.2), two(180.0, 50.4)];
        let c = compared(&base, &head);
        let settling = settling(&base, &head);
        let wall = c.metric("b.ns").unwrap();
        assert!(wall.shown, "{wall:?}");
        assert!(settling.is_settled(wall));
        let group_of = BTreeMap::new();
        assert!(settling.open_benchmarks(&c, &group_of).is_empty());
    }

    #[test]
    fn a_slow_run_beside_two_that_agree_does_not_hold_a_pass_open() {
        // 1.1x; head's second run slow by half (a neighbour's time slice on the whole run). After two runs a
        // side the slow run is one of head's two best: open. After three, head's two best agree within 1%:
        // the pass is settled (the whole spread, 50%, would have held it open to max_runs).
        assert!(!settled(&[100.0, 101.0], &[110.0, 165.0]));
        assert!(settled(&[100.0, 101.0, 100.5], &[110.0, 165.0, 111.0]));
        // Base's two best 8% apart: its best may fall further, 1.25x is within the bound by less: open.
        assert!(!settled(&[100.0, 140.0, 108.0], &[125.0, 126.0, 125.5]));
    }

    #[test]
    fn one_pair_in_which_head_is_faster_by_more_than_the_budget_is_not_a_settled_pass() {
        // Base's one run 1.5x head's, samples 2% apart: a real speed-up, or base's whole run in a slow phase
        // that hides a slower head; a second round tells them apart.
        assert!(!settled_runs(&one_run(150.0, 0.02), &one_run(100.0, 0.02)));
        // Faster by less than the budget: settled after one pair, as before.
        assert!(settled_runs(&one_run(120.0, 0.02), &one_run(100.0, 0.02)));
        // Two rounds that agree on the speed-up: settled.
        assert!(settled(&[150.0, 151.0], &[100.0, 100.5]));
    }

    #[test]
    fn a_rate_settles_as_the_cost_it_is_the_reciprocal_of() {
        let rate = |values: &[f64]| {
            let mut runs = runs("b.items_per_second", values);
            for run in &mut runs {
                run.set_better("b.items_per_second", rho_stats::Better::Higher);
            }
            runs
        };
        let rate_settled = |base: &[f64], head: &[f64]| settled_runs(&rate(base), &rate(head));
        // A tenth of the rate (a 10x cost), 2% apart: settled; the same rate within 2%: settled.
        assert!(rate_settled(&[1000.0, 980.0, 990.0], &[100.0, 99.0, 99.5]));
        assert!(rate_settled(&[1000.0, 980.0], &[990.0, 995.0]));
        // A rate falling to 1/1.35 with a 5% spread: a head run 5% better would pass; open.
        assert!(!rate_settled(
            &[1000.0, 952.0, 990.0],
            &[740.0, 735.0, 740.0]
        ));
        // 1/1.6 after 2 runs a side is open, after 3 settled (a regression needs `runs` pairs).
        assert!(!rate_settled(&[1000.0, 980.0], &[625.0, 621.0]));
        assert!(rate_settled(
            &[1000.0, 980.0, 990.0],
            &[625.0, 621.0, 625.0]
        ));
    }

    #[test]
    fn a_count_is_settled_after_one_run() {
        assert!(is_exact("bench_crc.instructions"));
        assert!(is_exact("bench_crc.stack") && is_exact("bench_crc.code"));
        assert!(!is_exact("bench_crc.ns") && !is_exact("count_below_ns"));
        let base = runs("b.instructions", &[100.0]);
        let head = runs("b.instructions", &[129.0]);
        let c = compared(&base, &head);
        let settling = settling(&base, &head);
        assert!(settling.is_settled(&c.metrics[0]));
    }

    #[test]
    fn open_metrics_name_their_benchmarks_and_the_filter_lists_them() {
        let mut base = runs("a.ns", &[100.0, 105.0]);
        let mut head = runs("a.ns", &[135.0, 136.0]);
        for (run, v) in base.iter_mut().zip([10.0, 10.0]) {
            run.insert("b.ns".into(), Figure::Value(v));
        }
        for (run, v) in head.iter_mut().zip([10.0, 10.0]) {
            run.insert("b.ns".into(), Figure::Value(v));
        }
        let c = compared(&base, &head);
        let groups: BTreeMap<String, String> = [("a.ns", "a"), ("b.ns", "b")]
            .iter()
            .map(|(m, g)| (m.to_string(), g.to_string()))
            .collect();
        let settling = Settling {
            runs_to_fail: 2,
            base_runs: &base,
            head_runs: &head,
        };
        let open = settling.open_benchmarks(&c, &groups);
        assert_eq!(open, BTreeSet::from(["a".to_owned()]));
        assert_eq!(filter_for(&open).as_deref(), Some("a"));
        let bad = BTreeSet::from(["has space".to_owned()]);
        assert_eq!(filter_for(&bad), None);
        assert_eq!(wire_benchmark("fam/64.ns"), "fam/64");
    }
}
