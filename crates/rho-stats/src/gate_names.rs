//! What the gate needs of a run's metrics, kept here so every consumer names and reads them the same way:
//! the gate's name of each [`Metric`], the clock figures a clocked metric comes from, and how far apart a
//! set of runs was.

use crate::clock::ClockFigures;
use crate::run::{BenchSummary, Metric};

impl Metric {
    /// The metric's name in `rho bench gate`, after the benchmark's (`bench_crc.cycles`, `bench_crc.ns`,
    /// `bench_crc.stack`, `bench_crc.heap_peak`; docs/gate.md).
    pub fn gate_name(self) -> &'static str {
        match self {
            Metric::Cycles => "cycles",
            Metric::TimeNs => "ns",
            Metric::CpuNs => "cpu_ns",
            Metric::StackBytes => "stack",
            Metric::HeapPeakBytes => "heap_peak",
            Metric::Instructions => "instructions",
            Metric::CodeBytes => "code",
            Metric::StaticStackBytes => "static_stack",
        }
    }

    /// Whether the metric is read off a clock (cycles, time), rather than counted exactly (stack, heap,
    /// instructions).
    pub fn is_clocked(self) -> bool {
        matches!(self, Metric::Cycles | Metric::TimeNs | Metric::CpuNs)
    }
}

impl BenchSummary {
    /// The clock figures a clocked metric's value comes from (`None` for stack and heap, or no such clock).
    pub fn clock_figures(&self, metric: Metric) -> Option<&ClockFigures> {
        match metric {
            Metric::Cycles => self.cycles.as_ref(),
            Metric::TimeNs => self.time.as_ref(),
            Metric::CpuNs => self.cpu.as_ref(),
            Metric::StackBytes
            | Metric::HeapPeakBytes
            | Metric::Instructions
            | Metric::CodeBytes
            | Metric::StaticStackBytes => None,
        }
    }
}

/// How far apart a set of runs was: `(max - min) / min`, lower being better for every figure. 0 when every
/// run agreed (all 0 included); infinite when the best run was 0 and another was not. `None` for no values.
/// NaNs are skipped, as [`crate::min_of`] skips them.
pub fn relative_spread(values: &[f64]) -> Option<f64> {
    let min = crate::min_of(values.iter().copied())?;
    let max = values
        .iter()
        .copied()
        .filter(|v| !v.is_nan())
        .fold(min, f64::max);
    Some(if min > 0.0 {
        max / min - 1.0
    } else if max == min {
        0.0
    } else {
        f64::INFINITY
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_has_a_distinct_gate_name() {
        let names: std::collections::BTreeSet<_> =
            Metric::ALL.iter().map(|m| m.gate_name()).collect();
        assert_eq!(names.len(), Metric::ALL.len());
        assert_eq!(Metric::TimeNs.gate_name(), "ns");
        assert!(Metric::Cycles.is_clocked() && !Metric::HeapPeakBytes.is_clocked());
    }

    #[test]
    fn spread_of_runs() {
        assert_eq!(relative_spread(&[8.0, 12.0, 10.0]), Some(0.5));
        assert_eq!(relative_spread(&[0.0, 0.0]), Some(0.0));
        assert_eq!(relative_spread(&[0.0, 3.0]), Some(f64::INFINITY));
        assert_eq!(relative_spread(&[f64::NAN, 4.0, 2.0]), Some(1.0));
        assert_eq!(relative_spread(&[]), None);
    }
}
