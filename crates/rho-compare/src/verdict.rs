//! What one figure of one benchmark did between base and head, and each side's value of it: shared by rho's
//! metrics (crate::compare) and another harness's extra figures (crate::extra).

use std::fmt;

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
    /// Shown, not judged: a benchmark's wall-clock figures (cycles, time_ns) beside its CPU time, which is
    /// judged in their place, or a CPU time only one side has, beside the wall clock judged
    /// ([`crate::compare::judge_time_on_cpu`]). Never a failure.
    Shown,
    /// Present in this run only (a new benchmark, or a metric the base did not measure).
    Added,
    /// Present in the baseline only.
    Removed,
}

impl Verdict {
    /// The verdict of rho-judge's decision on two figures (a change within the clock's resolution is ok).
    pub fn of_change(change: rho_judge::Change) -> Verdict {
        match change {
            rho_judge::Change::Ok | rho_judge::Change::WithinResolution => Verdict::Ok,
            rho_judge::Change::Regressed => Verdict::Regressed,
            rho_judge::Change::Improved => Verdict::Improved,
        }
    }

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
            Verdict::Shown => "shown",
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
    /// Not measured (stack or heap measurement off, no clock for the metric).
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
