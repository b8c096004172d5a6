//! Comparing a run with a baseline: per benchmark and per metric, each metric judged on its own.
//!
//! Before any figure is compared the two sides must be measurements of the same thing: the same target, the
//! same architecture, the same cycle clock (by name, unit and frequency) and the same kind of nanoseconds.
//! Anything else is a [`Refusal`], because the difference between two numbers in different units is a number
//! with no meaning.

use std::fmt;

use rho_stats::Metric;
use thiserror::Error;

use crate::format::{BenchmarkBaseline, ClockInfo, Context, Stack, TargetBaseline, TimeSource};

/// How far two frequencies of the same clock may differ and still count the same unit. A harness that
/// measures its counter's frequency at start-up reads a slightly different figure each run (2899912000,
/// 2899907000, ...); a real difference of clock (another machine, another core clock setting) is far more.
pub const HZ_TOLERANCE: f64 = 0.01;

/// Why two sets of figures cannot be compared.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Refusal {
    #[error(
        "the baseline was recorded for target \"{base}\" and this run is target \"{head}\": figures from \
         different targets are different measurements and are not compared"
    )]
    Target { base: String, head: String },

    #[error(
        "target \"{target}\": the baseline was recorded on {base} and this run is on {head}: different \
         architectures are not compared"
    )]
    Arch {
        target: String,
        base: String,
        head: String,
    },

    #[error("{base_name} cycles and {head_name} cycles are different units: {detail}")]
    CycleClock {
        base_name: String,
        head_name: String,
        detail: String,
    },

    #[error("{detail}")]
    TimeSource { detail: String },

    #[error("the regression limit must be a finite number of percent, 0 or more; got {0}")]
    Limit(f64),
}

/// What one metric of one benchmark did between base and head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    /// Worse than the limit allows: `head > base * (1 + limit)`.
    Regressed,
    /// The base had a figure and head has none (the stack overran or was not measured): a failure to
    /// measure, which is never a pass.
    NotMeasured,
    /// Better by more than the limit: `head < base * (1 - limit)`.
    Improved,
    /// Within the limit either way.
    Ok,
    /// Present in this run only (a new benchmark, or a metric the base did not measure).
    Added,
    /// Present in the baseline only.
    Removed,
}

impl Verdict {
    /// Whether this verdict makes `rho bench check --diff` fail.
    pub fn fails(self) -> bool {
        matches!(self, Verdict::Regressed | Verdict::NotMeasured)
    }

    /// The word a report prints.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Regressed => "regressed",
            Verdict::NotMeasured => "not measured",
            Verdict::Improved => "improved",
            Verdict::Ok => "ok",
            Verdict::Added => "added",
            Verdict::Removed => "removed",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One side's value of a metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A figure in the metric's unit.
    Figure(f64),
    /// The stack overran its painted region: no number exists.
    Overrun,
    /// Not measured (stack measurement off, no clock for the metric).
    Off,
    /// The benchmark is not on this side at all.
    Absent,
}

impl Value {
    /// The figure, when there is one.
    pub fn figure(self) -> Option<f64> {
        match self {
            Value::Figure(v) => Some(v),
            _ => None,
        }
    }
}

/// One metric of one benchmark, compared.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricComparison {
    pub metric: Metric,
    pub base: Value,
    pub head: Value,
    /// `(head - base) / base * 100`; `None` without two figures, or when base is 0 and head is not.
    pub change_percent: Option<f64>,
    pub verdict: Verdict,
}

/// Whether a benchmark is on both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Both,
    /// In this run only.
    Added,
    /// In the baseline only.
    Removed,
}

/// One benchmark, compared metric by metric.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkComparison {
    pub name: String,
    pub presence: Presence,
    /// One entry per metric either side has, in [`Metric::ALL`] order. A metric neither side measured (a
    /// stack that is off in both) has no entry.
    pub metrics: Vec<MetricComparison>,
}

/// A whole comparison: one target's run against its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub target: String,
    /// The regression limit in percent (`fail_on_regression_percent`).
    pub limit_percent: f64,
    pub base: Context,
    pub head: Context,
    /// Benchmarks in this run's suite order, then the removed ones in the baseline's order.
    pub benchmarks: Vec<BenchmarkComparison>,
}

/// How many metric comparisons got each verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub regressed: usize,
    pub not_measured: usize,
    pub improved: usize,
    pub ok: usize,
    pub added: usize,
    pub removed: usize,
}

impl Comparison {
    /// Whether any metric regressed or lost its measurement: `check` exits 1.
    pub fn failed(&self) -> bool {
        self.rows().any(|(_, m)| m.verdict.fails())
    }

    /// Every metric comparison with its benchmark's name, in report order.
    pub fn rows(&self) -> impl Iterator<Item = (&str, &MetricComparison)> {
        self.benchmarks
            .iter()
            .flat_map(|b| b.metrics.iter().map(move |m| (b.name.as_str(), m)))
    }

    /// Verdict counts over every metric comparison.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for (_, row) in self.rows() {
            match row.verdict {
                Verdict::Regressed => counts.regressed += 1,
                Verdict::NotMeasured => counts.not_measured += 1,
                Verdict::Improved => counts.improved += 1,
                Verdict::Ok => counts.ok += 1,
                Verdict::Added => counts.added += 1,
                Verdict::Removed => counts.removed += 1,
            }
        }
        counts
    }

    /// The benchmark called `name`.
    pub fn benchmark(&self, name: &str) -> Option<&BenchmarkComparison> {
        self.benchmarks.iter().find(|b| b.name == name)
    }
}

/// The unit a metric's figures are in, for reports: the cycle clock's name and unit for cycles.
pub fn metric_unit(metric: Metric, context: &Context) -> String {
    match metric {
        Metric::Cycles => match &context.clocks.cycles {
            Some(clock) => format!("{} {}", clock.name, clock.unit),
            None => "cycles".to_string(),
        },
        Metric::TimeNs => "ns".to_string(),
        Metric::StackBytes | Metric::HeapPeakBytes => "bytes".to_string(),
    }
}

/// Checks the two sides measure the same things in the same units; see [`Refusal`].
pub fn check_comparable(base: &Context, head: &Context) -> Result<(), Refusal> {
    if base.target != head.target {
        return Err(Refusal::Target {
            base: base.target.clone(),
            head: head.target.clone(),
        });
    }
    if base.arch != head.arch {
        return Err(Refusal::Arch {
            target: base.target.clone(),
            base: base.arch.clone(),
            head: head.arch.clone(),
        });
    }
    check_cycle_clocks(base.clocks.cycles.as_ref(), head.clocks.cycles.as_ref())?;
    check_time_sources(base, head)
}

fn check_cycle_clocks(base: Option<&ClockInfo>, head: Option<&ClockInfo>) -> Result<(), Refusal> {
    match (base, head) {
        (None, None) => Ok(()),
        (Some(b), None) => Err(Refusal::CycleClock {
            base_name: b.name.clone(),
            head_name: "no".to_string(),
            detail: format!(
                "the baseline counts {} with {}, this run has no cycle clock",
                b.unit, b.name
            ),
        }),
        (None, Some(h)) => Err(Refusal::CycleClock {
            base_name: "no".to_string(),
            head_name: h.name.clone(),
            detail: format!(
                "the baseline has no cycle clock, this run counts {} with {}",
                h.unit, h.name
            ),
        }),
        (Some(b), Some(h)) => {
            if b.name != h.name || b.unit != h.unit {
                return Err(Refusal::CycleClock {
                    base_name: b.name.clone(),
                    head_name: h.name.clone(),
                    detail: format!(
                        "the baseline counts {} of {} ({}), this run counts {} of {} ({}); record a baseline \
                         with this clock",
                        b.unit,
                        b.name,
                        describe_hz(b.hz),
                        h.unit,
                        h.name,
                        describe_hz(h.hz)
                    ),
                });
            }
            if let (Some(bh), Some(hh)) = (b.hz, h.hz) {
                let (bh, hh) = (bh as f64, hh as f64);
                if (bh - hh).abs() > HZ_TOLERANCE * bh.max(hh) {
                    return Err(Refusal::CycleClock {
                        base_name: format!("{} at {}", b.name, describe_hz(b.hz)),
                        head_name: format!("{} at {}", h.name, describe_hz(h.hz)),
                        detail: format!(
                            "the same counter running at another frequency (more than {}% apart) is another \
                             machine or another clock setting; record a baseline on this one",
                            HZ_TOLERANCE * 100.0
                        ),
                    });
                }
            }
            Ok(())
        }
    }
}

/// The rule for nanoseconds: nanoseconds measured by a real-time clock are comparable with nanoseconds
/// measured by any real-time clock (a nanosecond is a nanosecond, whichever clock counted it); nanoseconds
/// derived from a cycle counter are comparable only with nanoseconds derived from the same counter (already
/// checked, frequency included), because they are that counter's cycles times an assumed frequency, not a
/// measurement of time. A measured and a derived figure are never compared: their difference would mix a
/// change in the code with the error in the assumed frequency.
fn check_time_sources(base: &Context, head: &Context) -> Result<(), Refusal> {
    if base.time_source == head.time_source {
        return Ok(());
    }
    let describe = |context: &Context| match context.time_source {
        TimeSource::TimeClock => match &context.clocks.time {
            Some(clock) => format!("nanoseconds measured by {}", clock.name),
            None => "nanoseconds measured by a time clock".to_string(),
        },
        TimeSource::DerivedFromCycles => match &context.clocks.cycles {
            Some(clock) => format!("nanoseconds derived from {} cycles", clock.name),
            None => "derived nanoseconds".to_string(),
        },
        TimeSource::None => "no nanoseconds".to_string(),
    };
    Err(Refusal::TimeSource {
        detail: format!(
            "the baseline has {} and this run has {}: a measured time and a time derived from a cycle count \
             (or none) are not compared; record a baseline with this harness",
            describe(base),
            describe(head)
        ),
    })
}

fn describe_hz(hz: Option<u64>) -> String {
    match hz {
        None => "frequency unknown".to_string(),
        Some(hz) if hz >= 1_000_000_000 => format!("{:.3} GHz", hz as f64 / 1e9),
        Some(hz) if hz >= 1_000_000 => format!("{:.3} MHz", hz as f64 / 1e6),
        Some(hz) => format!("{hz} Hz"),
    }
}

/// Compares `head` with `base`, each metric against `limit_percent` (a regression is
/// `head > base * (1 + limit_percent / 100)`, inclusive bound, by [`rho_judge::regressed`]).
pub fn compare(
    base: &TargetBaseline,
    head: &TargetBaseline,
    limit_percent: f64,
) -> Result<Comparison, Refusal> {
    if !limit_percent.is_finite() || limit_percent < 0.0 {
        return Err(Refusal::Limit(limit_percent));
    }
    check_comparable(&base.context, &head.context)?;
    let fraction = limit_percent / 100.0;

    let mut benchmarks = Vec::new();
    for head_bench in &head.benchmarks {
        let comparison = match base.benchmark(&head_bench.name) {
            Some(base_bench) => BenchmarkComparison {
                name: head_bench.name.clone(),
                presence: Presence::Both,
                metrics: Metric::ALL
                    .iter()
                    .filter_map(|&m| {
                        judge(
                            m,
                            value_of(base_bench, m),
                            value_of(head_bench, m),
                            fraction,
                        )
                    })
                    .collect(),
            },
            None => one_sided(head_bench, Presence::Added),
        };
        benchmarks.push(comparison);
    }
    for base_bench in &base.benchmarks {
        if head.benchmark(&base_bench.name).is_none() {
            benchmarks.push(one_sided(base_bench, Presence::Removed));
        }
    }
    Ok(Comparison {
        target: head.context.target.clone(),
        limit_percent,
        base: base.context.clone(),
        head: head.context.clone(),
        benchmarks,
    })
}

/// A benchmark on one side only: each metric it has, marked added or removed, never judged.
fn one_sided(bench: &BenchmarkBaseline, presence: Presence) -> BenchmarkComparison {
    let metrics = Metric::ALL
        .iter()
        .filter_map(|&metric| {
            let value = value_of(bench, metric);
            if value == Value::Off {
                return None;
            }
            Some(match presence {
                Presence::Removed => MetricComparison {
                    metric,
                    base: value,
                    head: Value::Absent,
                    change_percent: None,
                    verdict: Verdict::Removed,
                },
                Presence::Added | Presence::Both => MetricComparison {
                    metric,
                    base: Value::Absent,
                    head: value,
                    change_percent: None,
                    verdict: Verdict::Added,
                },
            })
        })
        .collect();
    BenchmarkComparison {
        name: bench.name.clone(),
        presence,
        metrics,
    }
}

/// The value of `metric` in a baseline entry: the net median for the clocked metrics, the exact figure for
/// stack and heap.
pub fn value_of(bench: &BenchmarkBaseline, metric: Metric) -> Value {
    match metric {
        Metric::Cycles => bench
            .cycles
            .map_or(Value::Off, |f| Value::Figure(f.median.0)),
        Metric::TimeNs => bench
            .time_ns
            .map_or(Value::Off, |f| Value::Figure(f.median.0)),
        Metric::StackBytes => match bench.stack_bytes {
            Stack::Bytes(bytes) => Value::Figure(bytes as f64),
            Stack::Overrun => Value::Overrun,
            Stack::Off => Value::Off,
        },
        Metric::HeapPeakBytes => Value::Figure(bench.heap_peak_bytes as f64),
    }
}

/// Judges one metric present in both benchmarks. `None` when neither side measured it.
pub fn judge(metric: Metric, base: Value, head: Value, fraction: f64) -> Option<MetricComparison> {
    let (change_percent, verdict) = match (base, head) {
        (Value::Figure(b), Value::Figure(h)) => {
            let change = if b != 0.0 {
                Some((h - b) / b * 100.0)
            } else if h == 0.0 {
                Some(0.0)
            } else {
                None
            };
            let verdict = if rho_judge::regressed(b, h, fraction) {
                Verdict::Regressed
            } else if h < b * (1.0 - fraction) {
                Verdict::Improved
            } else {
                Verdict::Ok
            };
            (change, verdict)
        }
        // An overrun in this run has no number, whatever the base had: the stack went at least as deep as the
        // whole painted region, which may well be a regression and cannot be shown not to be.
        (_, Value::Overrun) => (None, Verdict::NotMeasured),
        // The base had a figure (or an overrun) and this run measured nothing: not a pass.
        (Value::Figure(_) | Value::Overrun, Value::Off | Value::Absent) => {
            (None, Verdict::NotMeasured)
        }
        // Newly measured: nothing to judge it against.
        (Value::Off | Value::Absent, Value::Figure(_)) => (None, Verdict::Added),
        (Value::Overrun, Value::Figure(_)) => (None, Verdict::Added),
        (Value::Off | Value::Absent, Value::Off | Value::Absent) => return None,
    };
    Some(MetricComparison {
        metric,
        base,
        head,
        change_percent,
        verdict,
    })
}
