//! One benchmark's samples, as every format reads them, into the run rho's statistics summarise.

use rho_stats::{ExtraMetric, RunSummary, median_of};
use rho_wire::{Benchmark, Clock, ClockRole, Run, RunConfig, StackMark, Target, WIRE_VERSION};

use crate::error::ImportError;
use crate::format::Format;
use crate::report::Sampled;

/// Iterations each imported sample stands for. A harness reports a sample as nanoseconds per iteration, often
/// a fraction (3.2 ns); rho's samples are integers of a clock. So an imported sample is that figure times
/// 1000 on a clock whose step is 1/1000 ns, the batch of iterations it stands for: the per-iteration figures
/// rho derives (`per_iteration`, divided by the batch) are the harness's to three decimals of a nanosecond.
pub const IMPORT_BATCH: u64 = 1000;

/// The run of `benchmarks`, as `format` reported them in `what` (the files, for errors): one time clock,
/// each sample `round(ns per iteration * IMPORT_BATCH)`, no warm-up, no overhead (the harness took its own
/// off), the stack and heap not measured; then rho's statistics ([`RunSummary::of`]) and the extra figures'
/// medians.
pub fn build(
    format: Format,
    what: &str,
    benchmarks: Vec<Sampled>,
) -> Result<RunSummary, ImportError> {
    if benchmarks.is_empty() {
        return Err(ImportError::Empty {
            file: what.to_owned(),
            what: format!("no {} benchmark with figures", format.name()),
        });
    }
    let wire: Vec<Benchmark> = benchmarks.iter().map(wire_benchmark).collect();
    let run = Run {
        version: WIRE_VERSION,
        target: Target {
            name: "host".to_owned(),
            arch: std::env::consts::ARCH.to_owned(),
            optimized: true,
            compiler: Some(format.name().to_owned()),
        },
        clocks: vec![Clock {
            role: ClockRole::Time,
            name: format.name().to_owned(),
            unit: "ns".to_owned(),
            hz: Some(1_000_000_000),
            resolution: 1,
        }],
        counter: None,
        calibration: None,
        config: RunConfig {
            iterations: wire.iter().map(|b| b.iterations).max().unwrap_or(0),
            warmup: 0,
            time_cap_ms: None,
            stack_bytes: None,
            stack_guard: None,
        },
        benchmarks: wire,
        dropped: 0,
        noise_lines: 0,
    };
    let mut summary = RunSummary::of(&run).map_err(|source| ImportError::Summary {
        what: what.to_owned(),
        benchmark: stats_benchmark(&source),
        source,
    })?;
    for (bench, sampled) in summary.benchmarks.iter_mut().zip(&benchmarks) {
        bench.stats_only = sampled.stats_only;
        bench.extra = sampled
            .extra
            .iter()
            .map(|e| ExtraMetric {
                name: e.name.clone(),
                unit: e.unit.clone(),
                value: median_of(&e.values),
                better: e.better,
            })
            .collect();
    }
    Ok(summary)
}

fn wire_benchmark(sampled: &Sampled) -> Benchmark {
    let batch = IMPORT_BATCH as f64;
    let samples: Vec<u64> = sampled
        .times_ns
        .iter()
        // Every parser checked the figure is finite and at least 0; `as` saturates anything else.
        .map(|ns| (ns * batch).round() as u64)
        .collect();
    let count = samples.len() as u64;
    Benchmark {
        name: sampled.name.clone(),
        unit: "iter".to_owned(),
        per_iteration: 1,
        samples: vec![samples],
        warmup: 0,
        iterations: count * IMPORT_BATCH,
        capped: false,
        stack: StackMark::Off,
        heap: None,
        wrapped: 0,
        counts: Vec::new(),
        overran: false,
        family: None,
        batch: IMPORT_BATCH,
    }
}

fn stats_benchmark(error: &rho_stats::StatsError) -> String {
    match error {
        rho_stats::StatsError::NoSamples { benchmark }
        | rho_stats::StatsError::ColumnMismatch { benchmark, .. }
        | rho_stats::StatsError::Uncounted { benchmark, .. } => benchmark.clone(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_of_a_nanosecond_survive_as_the_per_iteration_median() {
        let sampled = Sampled {
            name: "tiny".into(),
            times_ns: vec![3.2, 3.1, 3.3],
            ..Sampled::default()
        };
        let summary = build(Format::Gbench, "x.json", vec![sampled]).unwrap();
        let time = summary.benchmarks[0].time.as_ref().unwrap();
        assert_eq!(time.raw.median, 3200);
        assert!((time.per_iteration.median - 3.2).abs() < 1e-9);
        assert!((summary.benchmarks[0].ns_per_op.unwrap() - 3.2).abs() < 1e-9);
    }

    #[test]
    fn a_benchmark_without_samples_is_named() {
        let sampled = Sampled {
            name: "hollow".into(),
            ..Sampled::default()
        };
        let error = build(Format::Gotest, "go.txt", vec![sampled])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("go.txt") && error.contains("hollow"),
            "{error}"
        );
    }
}
