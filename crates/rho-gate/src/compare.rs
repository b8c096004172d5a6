//! Base against head: each side's minimum per metric over its runs, the change, the budget, the verdict.
//!
//! The minimum is each side's figure, because noise only ever adds time; the spread of a side's runs is
//! reported as its noise, because a verdict on a metric noisier than its budget means little. A time metric
//! measured in two rounds or more is judged by its paired ratio instead (rho-stats' `paired_ratio`: the
//! rounds' head / base ratios and their confidence interval), because the two figures of one round were
//! measured moments apart and a neighbour's load hits both; docs/gate.md, "The paired rule".

use std::collections::{BTreeMap, BTreeSet};

use rho_judge::{Change, judge_change_toward};

use crate::error::SideName;
use crate::run_metrics::{Figure, RunMetrics};
use crate::settings::Budgets;

/// The overall verdict of a gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every metric is within its budget.
    Ok,
    /// At least one metric regressed beyond its budget.
    Regressed,
    /// No metric regressed, but at least one could not be decided.
    Undecided,
}

impl Verdict {
    /// The exit status: 0 ok, 1 regressed, 2 undecided.
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Ok => 0,
            Verdict::Regressed => 1,
            Verdict::Undecided => 2,
        }
    }
}

impl Verdict {
    /// The gate's verdict over its metrics' outcomes: regressed when any regressed (a regression is a fact
    /// whatever else is open), else undecided when one is undecided or there is none, else ok. The one rule,
    /// also for merged shares (rho-shard).
    pub fn of(outcomes: impl IntoIterator<Item = Verdict>) -> Verdict {
        let (mut any, mut undecided) = (false, false);
        for outcome in outcomes {
            any = true;
            match outcome {
                Verdict::Regressed => return Verdict::Regressed,
                Verdict::Undecided => undecided = true,
                Verdict::Ok => {}
            }
        }
        if undecided || !any {
            Verdict::Undecided
        } else {
            Verdict::Ok
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Ok => "ok",
            Verdict::Regressed => "regressed",
            Verdict::Undecided => "undecided",
        })
    }
}

/// One side's figures for one metric, over all its runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SideFigures {
    /// The best run, the side's estimate: the lowest figure (for a metric higher is better, a rate, the
    /// highest).
    pub min: f64,
    /// The worst run: the highest figure (for a rate, the lowest).
    pub max: f64,
    /// How many runs the figures come from.
    pub runs: usize,
}

impl SideFigures {
    /// (max - min) / min: how far apart the side's runs were (rho-stats' `relative_spread`). Zero when every
    /// run agreed (including all 0); infinite when the best run was 0 and another was not.
    pub fn noise(&self) -> f64 {
        rho_stats::relative_spread(&[self.min, self.max]).unwrap_or(0.0)
    }
}

/// The outcome for one metric.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricOutcome {
    Ok,
    Regressed,
    /// The gate cannot decide on this metric; the text says why.
    Undecided(String),
}

/// One metric compared.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricComparison {
    pub name: String,
    /// The smallest difference that is a measured change: two steps of the coarser clock for a metric read
    /// off a clock, 0 for exact figures (stack, heap, a JSON metric).
    pub floor: f64,
    /// Over the budget by the ratio, but by no more than `floor`: the same reading, so not a regression.
    pub within_resolution: bool,
    /// `None` when the base gave no usable figures for it (see `outcome`).
    pub base: Option<SideFigures>,
    pub head: Option<SideFigures>,
    pub budget: f64,
    /// Which way it is better: lower for rho's metrics, higher for another harness's rates (each side's
    /// `min` is then its highest run).
    pub better: rho_stats::Better,
    pub outcome: MetricOutcome,
    /// The rounds' head / base ratios (as costs: a rate's base / head) and their confidence interval, for a
    /// time metric both sides measured in two rounds or more; `None` for an exact metric or one round.
    pub paired: Option<rho_stats::PairedRatio>,
    /// When undecided, the side whose figures made it so: base when base's own runs lack it or gave no usable
    /// figure, head otherwise (head's runs lack it or gave none, or head reports a metric base does not,
    /// or no longer reports one base does).
    pub undecided_side: Option<SideName>,
    /// Shown, not judged ([`ShownRule`]): a wall-clock figure (`BENCH.ns`, `BENCH.cycles`) beside its
    /// benchmark's CPU time (`BENCH.cpu_ns`, Google Benchmark's `cpu_time`), which is judged in its place, or a
    /// CPU time missing from a side while the wall clock is judged: its outcome is `Ok` whatever it reads.
    pub shown: bool,
}

/// Which of a gate's metrics are shown, not judged, known from the metrics with figures on both sides: the
/// one rule of the gate ([`compare`]) and of `rho bench merge`, which judges a share's document again.
///
/// Either a wall-clock figure (`BENCH.ns`, `BENCH.cycles`) measured on both sides beside its benchmark's CPU
/// time (`BENCH.cpu_ns`: rho's harnesses', or Google Benchmark's `cpu_time`) measured on both: a neighbour
/// that takes the core stretches a single-threaded body's wall time and not its CPU time (issue 37: an
/// unchanged Google Benchmark suite's real time read +64% to +108% under load, its CPU time within 10%), as
/// `check --diff` judges it (rho-compare's `judge_time_on_cpu`). Or a CPU time missing from a side, or from
/// some of its runs, while the wall clock it stands in for is measured on both: rho's harnesses keep a CPU
/// time only for samples its clock resolves (`rho_stats::CPU_SAMPLE_MIN_READS`), so a body near that length
/// has it in some runs and not others, and a body planted slower gains it; the wall clock judges such a
/// benchmark, where the gate said `undecided` before.
pub struct ShownRule<'a> {
    /// The benchmarks whose CPU time has a figure on both sides.
    cpu_on_both: BTreeSet<&'a str>,
    /// The benchmarks with a wall-clock figure on both sides.
    wall_clock_on_both: BTreeSet<&'a str>,
}

impl<'a> ShownRule<'a> {
    /// The rule of a comparison whose metrics with figures on both sides are `names_with_both`.
    pub fn of(names_with_both: impl Iterator<Item = &'a str>) -> Self {
        let mut rule = ShownRule {
            cpu_on_both: BTreeSet::new(),
            wall_clock_on_both: BTreeSet::new(),
        };
        for (benchmark, figure) in names_with_both.filter_map(|name| name.rsplit_once('.')) {
            if figure == rho_stats::Metric::CpuNs.gate_name() {
                rule.cpu_on_both.insert(benchmark);
            } else if is_wall_clock(figure) {
                rule.wall_clock_on_both.insert(benchmark);
            }
        }
        rule
    }

    /// Whether the metric `name` is shown, not judged; `measured`: it has figures on both sides.
    pub fn shown(&self, name: &str, measured: bool) -> bool {
        let Some((benchmark, figure)) = name.rsplit_once('.') else {
            return false;
        };
        match measured {
            true => is_wall_clock(figure) && self.cpu_on_both.contains(benchmark),
            false => is_cpu_time(name) && self.wall_clock_on_both.contains(benchmark),
        }
    }
}

/// Whether `figure` (what follows a wire metric's last `.`) is a wall-clock one: `ns` or `cycles`.
fn is_wall_clock(figure: &str) -> bool {
    rho_stats::Metric::WALL_CLOCK
        .iter()
        .any(|wall| wall.gate_name() == figure)
}

/// Whether the metric `name` is a benchmark's CPU time, `BENCH.cpu_ns`.
pub fn is_cpu_time(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, figure)| figure == rho_stats::Metric::CpuNs.gate_name())
}

impl MetricComparison {
    /// head / base - 1 on the two minima: +1.0 is twice as slow (rho-judge's one change, shared with the
    /// baseline comparison). `None` without both sides, or from a base of 0 ([`Self::zero_base_text`] says why).
    pub fn change(&self) -> Option<f64> {
        rho_judge::relative_change(self.base?.min, self.head?.min)
    }

    /// What a report prints for a change [`Self::change`] has no figure for, with both sides measured: below
    /// resolution for a metric read off a clock (its floor is not 0), `from 0` for an exact one; `None` when
    /// a side has no figures.
    pub fn zero_base_text(&self) -> Option<&'static str> {
        match (self.base, self.head, self.change()) {
            (Some(_), Some(_), None) => Some(rho_judge::zero_base_label(self.floor > 0.0)),
            _ => None,
        }
    }

    /// Whether either side's noise exceeds the budget (by more than the clock's floor), so that the verdict
    /// means little.
    pub fn noisy(&self) -> bool {
        [self.base, self.head]
            .iter()
            .flatten()
            .any(|side| side.noise() > self.budget && (side.max - side.min).abs() > self.floor)
    }
}

/// Every metric compared, and the verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub verdict: Verdict,
    /// By metric name.
    pub metrics: Vec<MetricComparison>,
}

impl Comparison {
    /// The metric named `name`, if either side reported it.
    pub fn metric(&self, name: &str) -> Option<&MetricComparison> {
        self.metrics.iter().find(|m| m.name == name)
    }

    /// The metrics whose noise exceeds their budget.
    pub fn noisy(&self) -> impl Iterator<Item = &MetricComparison> {
        self.metrics.iter().filter(|m| m.noisy())
    }

    /// When the verdict is undecided, the side to blame: base if any metric is undecided because of base,
    /// else head if any is because of head; `None` otherwise (including no metrics at all).
    pub fn undecided_side(&self) -> Option<SideName> {
        let blamed = |side| self.metrics.iter().any(|m| m.undecided_side == Some(side));
        if blamed(SideName::Base) {
            Some(SideName::Base)
        } else if blamed(SideName::Head) {
            Some(SideName::Head)
        } else {
            None
        }
    }
}

/// Why a side has no figures to compare for a metric.
struct NoFigures {
    why: String,
    /// The side's own runs are at fault (some lack the metric, or gave no usable figure), rather than the
    /// metric being reported by the other side only.
    own: bool,
}

/// Gather one side's figures for `metric` over its runs, or say why there are none to use; its best run is
/// the lowest, or the highest for a metric `better` higher.
fn side_figures(
    runs: &[RunMetrics],
    metric: &str,
    side: &str,
    better: rho_stats::Better,
) -> Result<SideFigures, NoFigures> {
    let own = |why: String| NoFigures { why, own: true };
    let mut values = Vec::with_capacity(runs.len());
    // A run that left the metric out on purpose (its verdict was settled) neither counts nor is missing.
    let meant = runs.iter().filter(|run| !run.left_out(metric)).count();
    for (index, run) in runs.iter().enumerate() {
        match run.get(metric) {
            Some(Figure::Value(value)) => values.push(*value),
            Some(Figure::Unusable(why)) => {
                return Err(own(format!("{side} run {}: {why}", index + 1)));
            }
            None => {}
        }
    }
    if values.is_empty() {
        return Err(NoFigures {
            why: format!("only on {}", other(side)),
            own: false,
        });
    }
    if values.len() != meant {
        return Err(own(format!(
            "{side} reported it in {} of its {meant} runs",
            values.len(),
        )));
    }
    // Figures are finite by construction (`figure_of`), so there is a best and a worst.
    let worse = match better {
        rho_stats::Better::Lower => rho_stats::Better::Higher,
        rho_stats::Better::Higher => rho_stats::Better::Lower,
    };
    Ok(SideFigures {
        min: better.best(values.iter().copied()).unwrap_or(0.0),
        max: worse.best(values.iter().copied()).unwrap_or(0.0),
        runs: values.len(),
    })
}

fn other(side: &str) -> &'static str {
    if side == "base" { "head" } else { "base" }
}

/// Whether `metric` is a count rather than a clock reading: the same in every run of the same build.
pub fn is_exact(metric: &str) -> bool {
    let Some((_, leaf)) = metric.rsplit_once('.') else {
        return false;
    };
    rho_stats::Metric::ALL
        .iter()
        .any(|m| !m.is_clocked() && m.gate_name() == leaf)
}

/// What a paired ratio says of a metric against its budget, by either of its intervals (the t interval of the
/// geometric mean, and from six rounds on the sign test's of the median, which outliers cannot widen): each
/// at 95%, and when they disagree the call is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairedCall {
    /// An interval lies wholly above `1 + budget`.
    Regressed,
    /// An interval lies wholly at or below `1 + budget`.
    Passed,
    /// Both intervals hold the bound (or they disagree): more rounds may decide; `over` when the geometric
    /// mean is above it.
    Open { over: bool },
}

impl PairedCall {
    pub fn of(paired: &rho_stats::PairedRatio, budget: f64) -> PairedCall {
        let bound = 1.0 + budget;
        let intervals = std::iter::once((paired.low, paired.high)).chain(paired.median_interval);
        let (mut above, mut below) = (false, false);
        for (low, high) in intervals {
            above |= low > bound;
            below |= high <= bound;
        }
        match (above, below) {
            (true, false) => PairedCall::Regressed,
            (false, true) => PairedCall::Passed,
            _ => PairedCall::Open {
                over: paired.ratio > bound,
            },
        }
    }
}

/// What the gate's rule says of a metric whose sides both have figures: each side's minimum (as
/// `judge_change_toward` takes them), the budget, the floor (two clock steps) and, for a time metric measured
/// in two rounds or more, the rounds' paired ratio. The one rule of a metric's verdict: `compare` calls it
/// with the runs' figures, and `rho bench merge` with what a share's document recorded, so a share's
/// verdict is judged again exactly as the gate judged it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FiguresCall {
    Ok,
    Regressed,
    /// No measured change: the sides are within the floor of each other.
    WithinResolution,
}

pub fn judge_figures(
    better: rho_stats::Better,
    base_min: f64,
    head_min: f64,
    budget: f64,
    floor: f64,
    paired: Option<&rho_stats::PairedRatio>,
) -> FiguresCall {
    // rho-judge's one decision, shared with the baseline comparison; an improvement is no concern of the
    // gate's.
    match judge_change_toward(better, base_min, head_min, budget, floor) {
        Change::WithinResolution => FiguresCall::WithinResolution,
        // Two clock steps apart or less is the same reading, whatever the rounds' ratios say.
        _ if paired.is_some() && (head_min - base_min).abs() <= floor => FiguresCall::Ok,
        minima => match paired.map(|p| PairedCall::of(p, budget)) {
            None if minima == Change::Regressed => FiguresCall::Regressed,
            None => FiguresCall::Ok,
            Some(PairedCall::Regressed) => FiguresCall::Regressed,
            Some(PairedCall::Passed) => FiguresCall::Ok,
            // Not decided within the runs it got: the interval's centre, and the minima, must both be over
            // the bound (a close call fails only when both readings of it say so).
            Some(PairedCall::Open { over }) if over && minima == Change::Regressed => {
                FiguresCall::Regressed
            }
            Some(PairedCall::Open { .. }) => FiguresCall::Ok,
        },
    }
}

/// The paired ratio of `metric` over the rounds in which both sides measured it (run k of base and run k of
/// head are round k), as a cost: a rate's ratio is base / head.
fn paired_of(
    base_runs: &[RunMetrics],
    head_runs: &[RunMetrics],
    metric: &str,
    better: rho_stats::Better,
) -> Option<rho_stats::PairedRatio> {
    let value = |run: &RunMetrics| match run.get(metric) {
        Some(Figure::Value(v)) => Some(*v),
        _ => None,
    };
    let pairs: Vec<(f64, f64)> = base_runs
        .iter()
        .zip(head_runs)
        .filter_map(|(b, h)| Some((value(b)?, value(h)?)))
        .map(|(b, h)| match better {
            rho_stats::Better::Lower => (b, h),
            rho_stats::Better::Higher => (h, b),
        })
        .collect();
    rho_stats::paired_ratio(&pairs)
}

/// Compare every metric either side reported.
///
/// A metric regresses when head's minimum exceeds base's minimum times (1 + its budget), the bound
/// inclusive; a time metric with two rounds or more, when its paired ratio's interval lies wholly above
/// (1 + budget), or, not decided either way, when its centre and the minima both are above it. Within two
/// clock steps is no change either way. A metric present on one side only, missing from some runs, or without a usable figure in some
/// run is undecided. The verdict is `Regressed` if any metric regressed (a regression is a fact whatever
/// else could not be decided), else `Undecided` if any metric is undecided, else `Ok`. With no metrics at
/// all, it is `Undecided`.
pub fn compare(
    base_runs: &[RunMetrics],
    head_runs: &[RunMetrics],
    budgets: &Budgets,
) -> Comparison {
    let names: BTreeSet<&str> = base_runs
        .iter()
        .chain(head_runs)
        .flat_map(|run| run.keys().map(String::as_str))
        .collect();
    let mut metrics = Vec::with_capacity(names.len());
    for name in names {
        let budget = budgets.for_metric(name);
        let floor = base_runs
            .iter()
            .chain(head_runs)
            .map(|run| run.floor(name))
            .fold(0.0, f64::max);
        // A rate says so in its runs (another harness's figures after a wire stream); all else is a cost.
        let better = base_runs
            .iter()
            .chain(head_runs)
            .map(|run| run.better(name))
            .max_by_key(|better| *better == rho_stats::Better::Higher)
            .unwrap_or(rho_stats::Better::Lower);
        let base = side_figures(base_runs, name, "base", better);
        let head = side_figures(head_runs, name, "head", better);
        let mut within_resolution = false;
        let mut undecided_side = None;
        let paired = match (&base, &head) {
            (Ok(_), Ok(_)) if !is_exact(name) => paired_of(base_runs, head_runs, name, better),
            _ => None,
        };
        let outcome = match (&base, &head) {
            (Ok(b), Ok(h)) => {
                match judge_figures(better, b.min, h.min, budget, floor, paired.as_ref()) {
                    FiguresCall::WithinResolution => {
                        within_resolution = true;
                        MetricOutcome::Ok
                    }
                    FiguresCall::Regressed => MetricOutcome::Regressed,
                    FiguresCall::Ok => MetricOutcome::Ok,
                }
            }
            (Err(b), Ok(_)) => {
                // Base's own runs at fault, or a metric only head reports (head added it).
                undecided_side = Some(if b.own {
                    SideName::Base
                } else {
                    SideName::Head
                });
                MetricOutcome::Undecided(b.why.clone())
            }
            (Ok(_), Err(h)) => {
                // Head's runs at fault, or a metric head no longer reports.
                undecided_side = Some(SideName::Head);
                MetricOutcome::Undecided(h.why.clone())
            }
            (Err(b), Err(h)) => {
                undecided_side = Some(if b.own {
                    SideName::Base
                } else {
                    SideName::Head
                });
                MetricOutcome::Undecided(format!("{}; {}", b.why, h.why))
            }
        };
        metrics.push(MetricComparison {
            name: name.to_owned(),
            floor,
            within_resolution,
            base: base.ok(),
            head: head.ok(),
            budget,
            better,
            outcome,
            paired,
            undecided_side,
            shown: false,
        });
    }
    let measured = |m: &MetricComparison| m.base.is_some() && m.head.is_some();
    let shown: Vec<bool> = {
        let rule = ShownRule::of(
            metrics
                .iter()
                .filter(|m| measured(m))
                .map(|m| m.name.as_str()),
        );
        metrics
            .iter()
            .map(|m| rule.shown(&m.name, measured(m)))
            .collect()
    };
    for (m, shown) in metrics.iter_mut().zip(shown) {
        if shown {
            m.shown = true;
            m.outcome = MetricOutcome::Ok;
            m.undecided_side = None;
        }
    }
    let verdict = Verdict::of(metrics.iter().map(|m| match m.outcome {
        MetricOutcome::Ok => Verdict::Ok,
        MetricOutcome::Regressed => Verdict::Regressed,
        MetricOutcome::Undecided(_) => Verdict::Undecided,
    }));
    Comparison { verdict, metrics }
}

/// How many runs each benchmark took per side, `(benchmark, base runs, head runs)` in name order: the most
/// any of its metrics got (a benchmark is what comes before a metric name's last dot, as in the table; a
/// last-line JSON metric is its own). With adaptive runs a settled benchmark stops early.
pub fn runs_per_benchmark(comparison: &Comparison) -> Vec<(String, usize, usize)> {
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for m in &comparison.metrics {
        let benchmark = m.name.rsplit_once('.').map_or(m.name.as_str(), |(b, _)| b);
        let entry = counts.entry(benchmark).or_default();
        entry.0 = entry.0.max(m.base.map_or(0, |s| s.runs));
        entry.1 = entry.1.max(m.head.map_or(0, |s| s.runs));
    }
    counts
        .into_iter()
        .map(|(name, (base, head))| (name.to_owned(), base, head))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pairs: &[(&str, f64)]) -> RunMetrics {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Figure::Value(*v)))
            .collect()
    }

    fn budgets(default: f64) -> Budgets {
        Budgets::new(default, BTreeMap::new()).unwrap()
    }

    #[test]
    fn wall_time_beside_a_cpu_time_measured_on_both_sides_is_shown_not_judged() {
        // Head's wall time 1.6x (a neighbour took the core), its CPU time unchanged: shown, the gate passes.
        let base = [run(&[("BM_sort.ns", 100.0), ("BM_sort.cpu_ns", 90.0)])];
        let head = [run(&[("BM_sort.ns", 160.0), ("BM_sort.cpu_ns", 91.0)])];
        let c = compare(&base, &head, &budgets(0.3));
        assert_eq!(c.verdict, Verdict::Ok);
        let wall = c.metric("BM_sort.ns").unwrap();
        assert!(wall.shown && wall.outcome == MetricOutcome::Ok, "{wall:?}");
        // The CPU time slower is a regression, named as such.
        let head = [run(&[("BM_sort.ns", 160.0), ("BM_sort.cpu_ns", 150.0)])];
        let c = compare(&base, &head, &budgets(0.3));
        assert_eq!(c.verdict, Verdict::Regressed);
        let cpu = c.metric("BM_sort.cpu_ns").unwrap();
        assert_eq!(cpu.outcome, MetricOutcome::Regressed);
        // Without a CPU time on both sides, the wall time is judged as ever.
        let base = [run(&[("BM_sort.ns", 100.0), ("other.cpu_ns", 90.0)])];
        let head = [run(&[("BM_sort.ns", 160.0)])];
        let c = compare(&base, &head, &budgets(0.3));
        let wall = c.metric("BM_sort.ns").unwrap();
        assert!(
            !wall.shown && wall.outcome == MetricOutcome::Regressed,
            "{wall:?}"
        );
    }

    /// A CPU time in some runs only (samples near ten reads of the CPU clock keep it in one run and not the
    /// next), or on one side only (a body planted slower grew samples the clock resolves): shown, not
    /// undecided; the wall clock judges the benchmark. Before, an unchanged body near that length made the
    /// gate exit 2. A CPU time with no wall clock of its benchmark on both sides stays undecided.
    #[test]
    fn a_cpu_time_missing_from_a_side_or_a_run_is_shown_and_the_wall_clock_judged() {
        let base = [
            run(&[("crc.ns", 700.0), ("crc.cpu_ns", 690.0)]),
            run(&[("crc.ns", 702.0)]),
        ];
        let head = [run(&[("crc.ns", 701.0)]), run(&[("crc.ns", 699.0)])];
        let c = compare(&base, &head, &budgets(0.1));
        assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
        let cpu = c.metric("crc.cpu_ns").unwrap();
        assert!(cpu.shown && cpu.outcome == MetricOutcome::Ok, "{cpu:?}");
        assert_eq!(c.undecided_side(), None);
        let wall = c.metric("crc.ns").unwrap();
        assert!(!wall.shown, "{wall:?}");

        // Head 4x slower gains a CPU time base lacks: shown, and the wall clock regresses.
        let base = [run(&[("crc.ns", 700.0)])];
        let head = [run(&[("crc.ns", 2800.0), ("crc.cpu_ns", 2790.0)])];
        let c = compare(&base, &head, &budgets(0.1));
        assert_eq!(c.verdict, Verdict::Regressed);
        let cpu = c.metric("crc.cpu_ns").unwrap();
        assert!(cpu.shown, "{cpu:?}");

        // No wall clock of its benchmark on both sides: undecided, as before.
        let base = [run(&[("crc.ns", 700.0), ("crc.cpu_ns", 690.0)])];
        let head = [run(&[("other.ns", 700.0)])];
        let c = compare(&base, &head, &budgets(0.1));
        let cpu = c.metric("crc.cpu_ns").unwrap();
        assert!(
            !cpu.shown && matches!(cpu.outcome, MetricOutcome::Undecided(_)),
            "{cpu:?}"
        );
    }

    /// One rule judges each metric in the gate, `--diff` (rho-baseline's judge, with its limits) and
    /// `history check` (the same limits): with the same limits set (10%, 1% for instructions) they regress
    /// on the same figures. Code bytes and the static stack bound are exact, budget 0: one byte more
    /// regresses in all of them (the gate used its default budget there, so `--diff` flagged 7 benchmarks
    /// where the gate flagged 3 on the same two commits).
    #[test]
    fn the_gate_and_diff_regress_on_the_same_figures_code_bytes_exactly() {
        let mut gate_budgets = budgets(0.10);
        gate_budgets.set_instructions(0.01).unwrap();
        let diff_limits = rho_compare::limits::Limits::of(None);
        assert_eq!(
            (
                diff_limits.global(),
                rho_compare::DEFAULT_INSTRUCTIONS_LIMIT_PERCENT
            ),
            (10.0, 1.0)
        );
        for kind in rho_stats::Metric::ALL {
            let name = format!("bench_crc.{}", kind.gate_name());
            let fraction = diff_limits.for_metric("bench_crc", kind) / 100.0;
            assert_eq!(gate_budgets.for_metric(&name), fraction, "{name}");
            for head in [1000.0, 990.0, 1001.0, 1005.0, 1050.0, 1200.0] {
                let gate = compare(
                    &[run(&[(&name, 1000.0)])],
                    &[run(&[(&name, head)])],
                    &gate_budgets,
                );
                let diff = rho_compare::compare::judge(
                    kind,
                    rho_compare::compare::Value::Figure(1000.0),
                    rho_compare::compare::Value::Figure(head),
                    fraction,
                    0.0,
                )
                .unwrap();
                assert_eq!(
                    gate.verdict == Verdict::Regressed,
                    diff.verdict == rho_compare::Verdict::Regressed,
                    "{name}: 1000 -> {head}"
                );
            }
        }
        let code = |head: f64| {
            compare(
                &[run(&[("bench_crc.code", 1000.0)])],
                &[run(&[("bench_crc.code", head)])],
                &budgets(0.30),
            )
            .verdict
        };
        assert_eq!(code(1001.0), Verdict::Regressed);
        assert_eq!(code(1000.0), Verdict::Ok);
    }

    /// The worked example (a base of 8.0, a budget of 0.25: a head up to 10.0 passes) through the whole
    /// comparison, one metric at a time.
    #[test]
    fn the_specs_worked_example() {
        for (head, verdict) in [
            (9.6, Verdict::Ok),
            (16.0, Verdict::Regressed),
            (10.0, Verdict::Ok),
            (10.01, Verdict::Regressed),
        ] {
            let c = compare(
                &[run(&[("t", 8.0)]), run(&[("t", 8.0)])],
                &[run(&[("t", head)]), run(&[("t", head)])],
                &budgets(0.25),
            );
            assert_eq!(c.verdict, verdict, "head {head}");
        }
    }

    /// A rate (higher is better, marked by the runs) keeps each side's highest run, and its fall to half is
    /// the regression; twice the rate passes.
    #[test]
    fn a_rate_keeps_each_sides_maximum_and_its_fall_regresses() {
        let rate = |value: f64| {
            let mut run = run(&[("BM_x.items_per_second", value)]);
            run.set_better("BM_x.items_per_second", rho_stats::Better::Higher);
            run
        };
        let base = [rate(98.0), rate(100.0), rate(95.0)];
        let head = [rate(50.0), rate(49.0)];
        let c = compare(&base, &head, &budgets(0.3));
        assert_eq!(c.verdict, Verdict::Regressed);
        let m = &c.metrics[0];
        assert_eq!((m.base.unwrap().min, m.base.unwrap().max), (100.0, 95.0));
        assert_eq!(m.change(), Some(-0.5));
        assert_eq!(m.better, rho_stats::Better::Higher);
        // Settled: the rounds' ratios (as costs, base / head: 1.96x and 2.04x) lie wholly above 1.3.
        let paired = m.paired.unwrap();
        assert!(paired.low > 1.3 && (paired.ratio - 2.0).abs() < 0.01);
        let settling = crate::adaptive::Settling {
            runs_to_fail: 2,
            base_runs: &base,
            head_runs: &head,
        };
        assert!(settling.is_settled(m));
        let c = compare(&base, &[rate(200.0), rate(150.0)], &budgets(0.3));
        assert_eq!(c.verdict, Verdict::Ok);
        // Within the budget on the rate's own terms: 100/s to 100/1.3 is a 30% slower item.
        let c = compare(&base, &[rate(100.0 / 1.3 + 0.01)], &budgets(0.3));
        assert_eq!(c.verdict, Verdict::Ok);
    }

    /// Twenty rounds at 1.05 against a 3% budget, four of them outliers (one side's whole run slow by 1.6x):
    /// the t interval holds the bound, the median's lies above it, so the metric regressed.
    #[test]
    fn outlying_rounds_do_not_hide_a_change_the_median_interval_sees() {
        let mut pairs = vec![(100.0, 105.0); 16];
        pairs.extend([
            (160.0, 105.0),
            (100.0, 168.0),
            (160.0, 105.0),
            (160.0, 105.0),
        ]);
        let base: Vec<_> = pairs.iter().map(|(b, _)| run(&[("t.ns", *b)])).collect();
        let head: Vec<_> = pairs.iter().map(|(_, h)| run(&[("t.ns", *h)])).collect();
        let c = compare(&base, &head, &budgets(0.03));
        let m = &c.metrics[0];
        let paired = m.paired.unwrap();
        assert!(paired.low < 1.03 && paired.median_interval.unwrap().0 > 1.03);
        assert_eq!(PairedCall::of(&paired, 0.03), PairedCall::Regressed);
        assert_eq!(m.outcome, MetricOutcome::Regressed);
    }

    /// A noisy base does not make the head look faster or slower; minima are used.
    #[test]
    fn each_side_keeps_its_minimum() {
        let base: Vec<_> = [8.0, 8.1, 12.7, 8.0, 8.3]
            .iter()
            .map(|t| run(&[("t", *t)]))
            .collect();
        let head: Vec<_> = [8.2, 8.1, 8.4, 8.2, 8.3]
            .iter()
            .map(|t| run(&[("t", *t)]))
            .collect();
        let c = compare(&base, &head, &budgets(0.3));
        let m = &c.metrics[0];
        assert_eq!(m.base.unwrap().min, 8.0);
        assert_eq!(m.head.unwrap().min, 8.1);
        assert!((m.change().unwrap() - 0.0125).abs() < 1e-12);
        assert!((m.base.unwrap().noise() - (12.7 / 8.0 - 1.0)).abs() < 1e-12);
        assert!(m.noisy(), "a base noise of 59% is more than a 30% budget");
        assert_eq!(c.verdict, Verdict::Ok);
    }

    #[test]
    fn a_metric_on_one_side_only_is_undecided() {
        let c = compare(
            &[run(&[("a", 1.0)]), run(&[("a", 1.0)])],
            &[
                run(&[("a", 1.0), ("b", 2.0)]),
                run(&[("a", 1.0), ("b", 2.0)]),
            ],
            &budgets(0.3),
        );
        assert_eq!(c.verdict, Verdict::Undecided);
        let b = c.metric("b").unwrap();
        assert_eq!(b.outcome, MetricOutcome::Undecided("only on head".into()));
        // Head added a metric base cannot have: head's doing.
        assert_eq!(b.undecided_side, Some(SideName::Head));
        assert_eq!(c.undecided_side(), Some(SideName::Head));
        assert!(b.base.is_none() && b.head.is_some() && b.change().is_none());
    }

    #[test]
    fn a_metric_missing_from_one_run_is_undecided() {
        let c = compare(
            &[run(&[("a", 1.0)]), run(&[])],
            &[run(&[("a", 1.0)]), run(&[("a", 1.0)])],
            &budgets(0.3),
        );
        assert!(
            matches!(&c.metrics[0].outcome, MetricOutcome::Undecided(why) if why.contains("1 of its 2"))
        );
        // Base's own runs are at fault.
        assert_eq!(c.undecided_side(), Some(SideName::Base));
    }

    #[test]
    fn an_unusable_figure_is_undecided() {
        let mut bad = run(&[]);
        bad.insert("a.stack".into(), Figure::Unusable("stack overrun".into()));
        let c = compare(
            &[run(&[("a.stack", 100.0)]), run(&[("a.stack", 100.0)])],
            &[run(&[("a.stack", 100.0)]), bad],
            &budgets(0.3),
        );
        assert_eq!(c.verdict, Verdict::Undecided);
        assert!(
            matches!(&c.metrics[0].outcome, MetricOutcome::Undecided(why) if why.contains("head run 2: stack overrun"))
        );
        assert_eq!(c.undecided_side(), Some(SideName::Head));
    }

    #[test]
    fn a_regression_outweighs_an_undecided_metric() {
        let c = compare(
            &[run(&[("a", 1.0)]), run(&[("a", 1.0)])],
            &[
                run(&[("a", 3.0), ("b", 1.0)]),
                run(&[("a", 3.0), ("b", 1.0)]),
            ],
            &budgets(0.3),
        );
        assert_eq!(c.verdict, Verdict::Regressed);
    }

    #[test]
    fn a_change_within_two_clock_steps_is_no_change() {
        let stepped = |value: f64| {
            let mut r = run(&[("tiny.ns", value)]);
            r.set_floor("tiny.ns", 40.0);
            r
        };
        // 20 ns -> 60 ns is +200%, but two steps of a 20 ns clock: the same reading.
        let c = compare(
            &[stepped(20.0), stepped(20.0)],
            &[stepped(60.0), stepped(60.0)],
            &budgets(0.3),
        );
        assert_eq!(c.verdict, Verdict::Ok);
        assert!(c.metrics[0].within_resolution);
        assert!(!c.metrics[0].noisy());
        // 20 ns -> 61 ns is more than two steps.
        let c = compare(
            &[stepped(20.0), stepped(20.0)],
            &[stepped(61.0), stepped(61.0)],
            &budgets(0.3),
        );
        assert_eq!(c.verdict, Verdict::Regressed);
        assert!(!c.metrics[0].within_resolution);
    }

    #[test]
    fn no_metrics_at_all_is_undecided() {
        assert_eq!(
            compare(&[run(&[])], &[run(&[])], &budgets(0.3)).verdict,
            Verdict::Undecided
        );
    }

    #[test]
    fn zero_figures_compare_sanely() {
        let c = compare(
            &[run(&[("heap", 0.0)]), run(&[("heap", 0.0)])],
            &[run(&[("heap", 0.0)]), run(&[("heap", 0.0)])],
            &budgets(0.3),
        );
        assert_eq!(c.verdict, Verdict::Ok);
        assert_eq!(c.metrics[0].change(), Some(0.0));
        let c = compare(
            &[run(&[("heap", 0.0)]), run(&[("heap", 0.0)])],
            &[run(&[("heap", 64.0)]), run(&[("heap", 64.0)])],
            &budgets(0.3),
        );
        assert_eq!(c.verdict, Verdict::Regressed);
        assert_eq!(c.metrics[0].change(), None, "never an infinite change");
        assert_eq!(c.metrics[0].zero_base_text(), Some("from 0"));
    }

    #[test]
    fn per_metric_budgets_apply() {
        let mut named = BTreeMap::new();
        named.insert("search".to_owned(), 0.5);
        let b = Budgets::new(0.3, named).unwrap();
        let c = compare(
            &[
                run(&[("search", 10.0), ("sum", 10.0)]),
                run(&[("search", 10.0), ("sum", 10.0)]),
            ],
            &[
                run(&[("search", 14.0), ("sum", 12.0)]),
                run(&[("search", 14.0), ("sum", 12.0)]),
            ],
            &b,
        );
        assert_eq!(c.verdict, Verdict::Ok);
        assert_eq!(c.metrics[0].budget, 0.5);
        assert_eq!(c.metrics[1].budget, 0.3);
    }
}
