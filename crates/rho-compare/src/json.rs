//! The comparison as JSON: what `--json` carries beside a run compared with `--diff` (docs/json-output.md,
//! "The comparison"), so a script reads base, head, change, limit and verdict per benchmark and metric rather
//! than scraping the text table.

use serde::Serialize;

use crate::compare::{
    BenchmarkComparison, Comparison, MetricComparison, Presence, Value, Verdict, metric_limit,
    metric_unit,
};

/// A [`Comparison`] as the JSON documents carry it.
#[derive(Debug, Clone, Serialize)]
pub struct ComparisonRecord {
    /// What the run was compared with: the baseline file at its git ref.
    pub base: String,
    pub target: String,
    /// The global regression limit in percent (`fail_on_regression_percent`).
    pub limit_percent: f64,
    /// Whether a metric regressed or lost its measurement: `check --diff` and `rho bench --diff` exit 1.
    pub failed: bool,
    pub counts: CountsRecord,
    pub benchmarks: Vec<BenchmarkRecord>,
    /// The baseline's figures not judged (a measure this run did not make), and why; empty when none.
    pub left_out: Vec<LeftOutRecord>,
    /// Most benchmarks' time moved the same way by a similar factor; `null` when not.
    pub drift: Option<DriftRecord>,
    /// Each benchmark family's growth on both sides (members named `family/arg`); empty when none. Added
    /// within the document's version.
    pub families: Vec<FamilyRecord>,
    /// The machine's yardstick per suite timed on both sides (docs/baseline.md, "The machine's yardstick");
    /// empty when none. Added within the document's version.
    pub machine: Vec<MachineRecord>,
    /// Why time was judged as measured for want of a yardstick on a side; absent when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unadjusted: Option<String>,
}

/// One suite's yardstick, base and head.
#[derive(Debug, Clone, Serialize)]
pub struct MachineRecord {
    /// The suite, as the benchmarks' `suite`; `null` for one suite's run.
    pub suite: Option<String>,
    /// Whether the machine moved on any clock: that clock's time figures were judged relative to it.
    pub moved: bool,
    pub figures: Vec<MachineFigureRecord>,
    /// What the report says.
    pub message: String,
}

/// One clock of a suite's yardstick.
#[derive(Debug, Clone, Serialize)]
pub struct MachineFigureRecord {
    /// The time metric it speaks for: `cycles`, `time_ns` or `cpu_ns`.
    pub metric: &'static str,
    /// The loop's figure per iteration, base and head.
    pub base: f64,
    pub head: f64,
    pub change_percent: f64,
    /// The ratio head / base this metric's head figures were divided by; `null` when within the
    /// yardstick's own noise (judged as measured).
    pub ratio: Option<f64>,
}

/// One family's growth, compared (docs/baseline.md, "Growth").
#[derive(Debug, Clone, Serialize)]
pub struct FamilyRecord {
    pub family: String,
    /// The cost metric fitted: `instructions`, `cycles` or `time_ns`.
    pub metric: &'static str,
    pub base: FitRecord,
    pub head: FitRecord,
    /// The coefficient's change in percent when both sides fitted the same order, else `null`.
    pub coefficient_change_percent: Option<f64>,
    /// The limit the coefficient was held to, in percent.
    pub limit_percent: f64,
    /// `regressed`, `improved`, `ok` or `undecided` (a side with too few sizes).
    pub verdict: &'static str,
    /// What the report prints.
    pub message: String,
}

/// A side's best fit: `order` (`n^2`, as module.yml's `max_growth` spells it), `coefficient` and `rms`
/// (relative to the mean), each `null` when the side had too few sizes; `points`, the sizes fitted.
#[derive(Debug, Clone, Serialize)]
pub struct FitRecord {
    pub order: Option<&'static str>,
    pub coefficient: Option<f64>,
    pub rms: Option<f64>,
    pub points: usize,
}

impl FitRecord {
    fn of(growth: &rho_stats::Growth) -> FitRecord {
        match growth {
            rho_stats::Growth::Fitted { points, best, .. } => FitRecord {
                order: Some(best.complexity.term()),
                coefficient: Some(best.coefficient),
                rms: Some(best.rms),
                points: *points,
            },
            rho_stats::Growth::TooFewPoints { points } => FitRecord {
                order: None,
                coefficient: None,
                rms: None,
                points: *points,
            },
        }
    }
}

/// Metrics of the baseline the comparison left out.
#[derive(Debug, Clone, Serialize)]
pub struct LeftOutRecord {
    pub metrics: Vec<&'static str>,
    pub why: String,
}

/// A drift of the time metrics (docs/baseline.md, "Drift").
#[derive(Debug, Clone, Serialize)]
pub struct DriftRecord {
    /// The metric it was found on: `time_ns`, or `cycles` without nanoseconds.
    pub metric: &'static str,
    /// Benchmarks compared on that metric, and how many of them moved the common way.
    pub compared: usize,
    pub moved: usize,
    /// `slower` or `faster`.
    pub direction: &'static str,
    /// The common factor, head / base (1.11 for 11% slower), and the same in percent.
    pub factor: f64,
    pub change_percent: f64,
    /// The interquartile range of the moved benchmarks' log-ratios.
    pub spread: f64,
    /// What the report says.
    pub message: String,
}

/// How many metric comparisons got each verdict.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CountsRecord {
    pub regressed: usize,
    pub not_measured: usize,
    pub improved: usize,
    pub ok: usize,
    /// Wall-clock figures shown beside the CPU time judged in their place (docs/baseline.md).
    pub shown: usize,
    pub added: usize,
    pub removed: usize,
}

/// One benchmark, compared metric by metric.
#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkRecord {
    pub name: String,
    /// `both`, `added` (this run only) or `removed` (the baseline only).
    pub presence: &'static str,
    /// The time metrics judged: `["cpu_ns"]` when both sides carry the benchmark's CPU time (its `cycles`
    /// and `time_ns` are then `shown`), else the wall-clock ones it has; empty when it has none on both sides.
    pub time_judged: Vec<&'static str>,
    pub metrics: Vec<MetricRecord>,
    /// Its instructions regressed and both sides kept functions: those whose counts changed most (`name`,
    /// `base` and `head` each `{"self", "inclusive"}` per iteration or `null`); absent otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<rho_profile::diff::FunctionChange>,
    /// `functions` are sampled (a time regression of two saved runs perf sampled): nanoseconds per iteration
    /// estimated from shares of samples, not counts. Absent when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub functions_sampled: bool,
    /// Another harness's figures besides time, each judged in its own direction; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<ExtraRecord>,
}

/// One extra figure of one benchmark, compared (crate::extra).
#[derive(Debug, Clone, Serialize)]
pub struct ExtraRecord {
    /// The harness's name for it (`items_per_second`, `B/op`, a user counter's).
    pub name: String,
    pub unit: String,
    /// `lower` or `higher`: which way is better.
    pub better: rho_stats::Better,
    /// The baseline's figure; `null` when it had none.
    pub base: Option<f64>,
    /// This run's figure; `null` when it has none.
    pub head: Option<f64>,
    /// `(head - base) / base * 100` (a rate that fell is negative); `null` without two figures or from 0.
    pub change_percent: Option<f64>,
    /// `regressed`, `not measured`, `improved`, `ok` or `added`.
    pub verdict: &'static str,
}

/// One metric of one benchmark, compared.
#[derive(Debug, Clone, Serialize)]
pub struct MetricRecord {
    /// The metric's name (`cycles`, `time_ns`, `instructions`, `stack_bytes`, `heap_peak_bytes`, ...).
    pub metric: &'static str,
    /// Its unit (`tsc cycle`, `ns`, `byte`, ...).
    pub unit: String,
    /// The baseline's figure; `null` with `base_missing` saying why.
    pub base: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_missing: Option<&'static str>,
    /// This run's figure; `null` with `head_missing` saying why.
    pub head: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_missing: Option<&'static str>,
    /// When the machine moved (`machine`): the figure this run measured, of which `head` is the part
    /// relative to the machine (`head = head_measured / machine_ratio`); absent when `head` is as measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_measured: Option<f64>,
    /// The yardstick's ratio `head` was divided by; absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine_ratio: Option<f64>,
    /// `(head - base) / base * 100`; `null` without two figures, or from a base of 0.
    pub change_percent: Option<f64>,
    /// The largest growth allowed, in percent.
    pub limit_percent: f64,
    /// `regressed`, `not measured`, `improved`, `ok`, `shown` (a wall-clock figure beside the CPU time judged
    /// in its place), `added` or `removed`.
    pub verdict: &'static str,
    /// Why a change was not counted as a regression or an improvement (`null` when it was, or when there is
    /// no change to count).
    pub not_counted: Option<String>,
}

impl ComparisonRecord {
    /// `comparison`, compared with `base` (as its reports name it).
    pub fn of(comparison: &Comparison, base: &str) -> ComparisonRecord {
        let counts = comparison.counts();
        ComparisonRecord {
            base: base.to_string(),
            target: comparison.target.clone(),
            limit_percent: comparison.limit_percent,
            failed: comparison.failed(),
            counts: CountsRecord {
                regressed: counts.regressed,
                not_measured: counts.not_measured,
                improved: counts.improved,
                ok: counts.ok,
                shown: counts.shown,
                added: counts.added,
                removed: counts.removed,
            },
            benchmarks: comparison
                .benchmarks
                .iter()
                .map(|bench| BenchmarkRecord {
                    name: bench.name.clone(),
                    presence: match bench.presence {
                        Presence::Both => "both",
                        Presence::Added => "added",
                        Presence::Removed => "removed",
                    },
                    time_judged: bench.time_judged().iter().map(|m| m.name()).collect(),
                    metrics: bench
                        .metrics
                        .iter()
                        .map(|row| metric_record(comparison, bench, row))
                        .collect(),
                    functions: bench.functions.clone(),
                    extra: bench
                        .extra
                        .iter()
                        .map(|e| ExtraRecord {
                            name: e.name.clone(),
                            unit: e.unit.clone(),
                            better: e.better,
                            base: e.base.figure(),
                            head: e.head.figure(),
                            change_percent: e.change_percent,
                            verdict: e.verdict.label(),
                        })
                        .collect(),
                    functions_sampled: bench.functions_unit() == rho_profile::diff::SAMPLED_UNIT,
                })
                .collect(),
            left_out: comparison
                .left_out
                .iter()
                .map(|l| LeftOutRecord {
                    metrics: l.metrics.iter().map(|m| m.name()).collect(),
                    why: l.why.clone(),
                })
                .collect(),
            drift: comparison.drift.as_ref().map(|d| DriftRecord {
                metric: d.metric.name(),
                compared: d.drift.compared,
                moved: d.drift.moved,
                direction: if d.drift.slower { "slower" } else { "faster" },
                factor: d.drift.factor,
                change_percent: d.drift.percent(),
                spread: d.drift.spread,
                message: d.sentence(),
            }),
            families: comparison
                .families()
                .iter()
                .map(|f| FamilyRecord {
                    family: f.family.clone(),
                    metric: f.metric.name(),
                    base: FitRecord::of(&f.base),
                    head: FitRecord::of(&f.head),
                    coefficient_change_percent: f.coefficient_change_percent,
                    limit_percent: f.limit_percent,
                    verdict: f.verdict.label(),
                    message: f.sentence(),
                })
                .collect(),
            machine: comparison
                .machine
                .iter()
                .map(|m| MachineRecord {
                    suite: m.suite.clone(),
                    moved: m.moved(),
                    figures: m
                        .figures
                        .iter()
                        .map(|f| MachineFigureRecord {
                            metric: f.metric.name(),
                            base: f.base,
                            head: f.head,
                            change_percent: (f.head / f.base - 1.0) * 100.0,
                            ratio: f.ratio,
                        })
                        .collect(),
                    message: m.sentence(),
                })
                .collect(),
            unadjusted: comparison.unadjusted.clone(),
        }
    }
}

fn metric_record(
    comparison: &Comparison,
    bench: &BenchmarkComparison,
    row: &MetricComparison,
) -> MetricRecord {
    let limit = metric_limit(
        row.metric,
        bench.limit_percent,
        bench.instructions_limit_percent,
    );
    MetricRecord {
        metric: row.metric.name(),
        unit: metric_unit(row.metric, &comparison.head),
        base: row.base.figure(),
        base_missing: missing(row.base),
        head: row.head.figure(),
        head_missing: missing(row.head),
        head_measured: row.adjusted.map(|a| a.measured),
        machine_ratio: row.adjusted.map(|a| a.ratio),
        change_percent: row.change_percent,
        limit_percent: limit,
        verdict: row.verdict.label(),
        not_counted: not_counted(row, limit),
    }
}

/// Why a side has no figure.
fn missing(value: Value) -> Option<&'static str> {
    match value {
        Value::Figure(_) => None,
        Value::Overrun => Some("overrun"),
        Value::Off => Some("not measured"),
        Value::Absent => Some("absent"),
    }
}

/// Why a change did not count: within the clock's resolution, within the limit, or nothing to compare with.
fn not_counted(row: &MetricComparison, limit: f64) -> Option<String> {
    match row.verdict {
        Verdict::Regressed | Verdict::NotMeasured | Verdict::Improved => None,
        Verdict::Added => Some("no figure in the baseline to compare with".to_string()),
        Verdict::Removed => Some("no figure in this run to compare with".to_string()),
        Verdict::Shown => Some(
            "wall clock, shown: the benchmark's CPU time (cpu_ns) is judged in its place, which a \
             neighbour taking the core does not stretch"
                .to_string(),
        ),
        Verdict::Ok if row.within_resolution => Some(format!(
            "within {} steps of the clock, which cannot tell the two figures apart",
            crate::compare::RESOLUTION_STEPS
        )),
        Verdict::Ok => match row.change_percent {
            Some(change) if change.abs() > 0.0 => {
                Some(format!("{change:+.1}% is within the limit of {limit}%"))
            }
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::judge;
    use rho_stats::Metric;

    fn row(base: Value, head: Value, floor: f64) -> MetricComparison {
        judge(Metric::Cycles, base, head, 0.10, floor).unwrap()
    }

    #[test]
    fn a_change_not_counted_says_why() {
        // +5% against a 10% limit: ok, and why.
        let within = row(Value::Figure(100.0), Value::Figure(105.0), 1.0);
        assert_eq!(
            not_counted(&within, 10.0).as_deref(),
            Some("+5.0% is within the limit of 10%")
        );
        // Within two clock steps: ok whatever the percentage.
        let resolution = row(Value::Figure(2.0), Value::Figure(3.0), 2.0);
        assert_eq!(resolution.verdict, Verdict::Ok);
        assert!(
            not_counted(&resolution, 10.0)
                .unwrap()
                .contains("steps of the clock")
        );
        // Counted changes, and no change, need no reason.
        let regressed = row(Value::Figure(100.0), Value::Figure(200.0), 1.0);
        assert_eq!(not_counted(&regressed, 10.0), None);
        let same = row(Value::Figure(100.0), Value::Figure(100.0), 1.0);
        assert_eq!(not_counted(&same, 10.0), None);
        // Nothing to compare with.
        let added = row(Value::Absent, Value::Figure(100.0), 1.0);
        assert!(not_counted(&added, 10.0).unwrap().contains("baseline"));
        assert_eq!(missing(Value::Overrun), Some("overrun"));
        assert_eq!(missing(Value::Figure(1.0)), None);
    }
}
