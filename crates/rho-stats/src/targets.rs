//! One suite run on several targets, side by side: per benchmark each target's primary figure and that figure
//! relative to the first target's (the reference), its stack, heap and code size, and per target the geometric
//! mean of its relative figures over the benchmarks every target measured (as Embench compares cores).
//!
//! The primary figure is the most exact one the run has: instructions per iteration (counted under Callgrind
//! or QEMU `-icount`), else the net median cycles per iteration, else the net median nanoseconds. A relative
//! figure is this target's figure divided by the reference's (below 1: fewer), and only when both are the same
//! metric: instructions are never divided by cycles.

use serde::{Deserialize, Serialize};

use crate::run::{BenchSummary, Metric, RunSummary};

/// Every benchmark of every target, side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetComparison {
    /// The targets in the order given; the first is the reference.
    pub targets: Vec<String>,
    /// The benchmarks in the reference's order, then any the reference did not run, in first-seen order.
    pub benchmarks: Vec<BenchmarkAcross>,
    /// Per target, in `targets` order.
    pub geometric_means: Vec<GeometricMean>,
}

/// One benchmark on each target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkAcross {
    pub name: String,
    /// Per target, in the comparison's `targets` order; a target that did not run it has every figure absent.
    pub cells: Vec<TargetFigures>,
}

/// A benchmark's figures on one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetFigures {
    pub target: String,
    /// The primary figure per iteration and what it counts (`instructions (QEMU icount)`, `cycles (systick)`,
    /// `ns (clock_gettime)`, ...): see the module's doc.
    pub figure: Option<f64>,
    pub metric: Option<PrimaryMetric>,
    /// `figure` / the reference's, when both are the same metric and the reference's is above 0.
    pub relative: Option<f64>,
    pub stack_bytes: Option<u64>,
    pub heap_peak_bytes: Option<u64>,
    /// The code the benchmark can reach (the footprint command's), when known.
    pub code_bytes: Option<u64>,
}

/// What a primary figure counts, and who counted it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrimaryMetric {
    /// `instructions`, `cycles` or `ns`.
    pub kind: String,
    /// The counter or clock: `qemu-icount`, `callgrind`, `systick`, `tsc`, `clock_gettime`, ...
    pub source: String,
}

/// A target's geometric mean of its relative figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeometricMean {
    pub target: String,
    /// Over the benchmarks every target has a relative figure for (the same set for each target, so the means
    /// compare); absent when there is none.
    pub relative: Option<f64>,
    pub benchmarks: usize,
}

/// The primary figure of `bench` and what it counts.
fn primary(bench: &BenchSummary) -> Option<(f64, PrimaryMetric)> {
    if let Some(counted) = &bench.instructions {
        return Some((
            counted.per_iteration.max(0.0),
            PrimaryMetric {
                kind: "instructions".to_string(),
                source: counted.source.clone(),
            },
        ));
    }
    let clock = |figures: &crate::clock::ClockFigures, kind: &str| {
        (
            figures.per_iteration.median,
            PrimaryMetric {
                kind: kind.to_string(),
                source: figures.clock.name.clone(),
            },
        )
    };
    bench
        .cycles
        .as_ref()
        .map(|f| clock(f, "cycles"))
        .or_else(|| bench.time.as_ref().map(|f| clock(f, "ns")))
}

/// The geometric mean of `values` (all above 0), `None` for none.
pub fn geometric_mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() || !values.iter().all(|v| v.is_finite() && *v > 0.0) {
        return None;
    }
    let log_sum: f64 = values.iter().map(|v| v.ln()).sum();
    Some((log_sum / values.len() as f64).exp())
}

/// The side-by-side comparison of `runs` (target name, its run's summary), the first the reference.
pub fn compare(runs: &[(String, &RunSummary)]) -> TargetComparison {
    let targets: Vec<String> = runs.iter().map(|(t, _)| t.clone()).collect();
    let mut names: Vec<String> = Vec::new();
    for (_, summary) in runs {
        for bench in &summary.benchmarks {
            if !names.contains(&bench.name) {
                names.push(bench.name.clone());
            }
        }
    }
    let benchmarks: Vec<BenchmarkAcross> = names
        .into_iter()
        .map(|name| {
            let reference = runs
                .first()
                .and_then(|(_, s)| s.benchmark(&name))
                .and_then(primary);
            let cells = runs
                .iter()
                .map(|(target, summary)| {
                    let bench = summary.benchmark(&name);
                    let figure = bench.and_then(primary);
                    let relative = match (&figure, &reference) {
                        (Some((value, metric)), Some((base, base_metric)))
                            if metric == base_metric && *base > 0.0 =>
                        {
                            Some(value / base)
                        }
                        _ => None,
                    };
                    let whole = |metric: Metric| {
                        bench
                            .and_then(|b| b.metric(metric))
                            .map(|value| value as u64)
                    };
                    TargetFigures {
                        target: target.clone(),
                        figure: figure.as_ref().map(|(value, _)| *value),
                        metric: figure.map(|(_, metric)| metric),
                        relative,
                        stack_bytes: whole(Metric::StackBytes),
                        heap_peak_bytes: whole(Metric::HeapPeakBytes),
                        code_bytes: whole(Metric::CodeBytes),
                    }
                })
                .collect();
            BenchmarkAcross { name, cells }
        })
        .collect();
    // The benchmarks every target has a relative figure above 0 for: the means are over the same set.
    let common: Vec<&BenchmarkAcross> = benchmarks
        .iter()
        .filter(|b| b.cells.iter().all(|c| c.relative.is_some_and(|r| r > 0.0)))
        .collect();
    let geometric_means = targets
        .iter()
        .enumerate()
        .map(|(index, target)| {
            let relatives: Vec<f64> = common
                .iter()
                .filter_map(|b| b.cells[index].relative)
                .collect();
            GeometricMean {
                target: target.clone(),
                relative: geometric_mean(&relatives),
                benchmarks: relatives.len(),
            }
        })
        .collect();
    TargetComparison {
        targets,
        benchmarks,
        geometric_means,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_geometric_mean_is_the_nth_root_of_the_product() {
        let mean = geometric_mean(&[1.0, 4.0, 16.0]).unwrap();
        assert!((mean - 4.0).abs() < 1e-12, "{mean}");
        assert!(geometric_mean(&[]).is_none());
        assert!(geometric_mean(&[1.0, 0.0]).is_none());
        assert!(geometric_mean(&[1.0, f64::NAN]).is_none());
    }
}
