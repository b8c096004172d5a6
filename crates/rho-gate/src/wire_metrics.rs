//! Metrics from a rho wire stream: what `rho bench` reports per benchmark, named `<bench>.<metric>`.

use rho_judge::resolution_floor;
use rho_stats::{ClockFigures, MIN_WINDOW_SAMPLES, Metric, RunSummary, WINDOWS, min_window_median};

use rho_wire::{ClockRole, Run, StackMark};

use crate::run_metrics::{Figure, MetricsError, RunMetrics};

/// One step of a clock per iteration, in its unit: its resolution, at least 1 (a clock never seen to step still
/// counts in whole units), divided by the batch (a sample of K iterations resolves a Kth of a step per
/// iteration). For time derived from a cycle clock rho-stats gives the step in nanoseconds already.
fn step_of(figures: &ClockFigures) -> f64 {
    figures.clock.resolution.max(1) as f64 / figures.batch.max(1) as f64
}

/// The run's figure for one clocked metric: the lowest median of [`WINDOWS`] consecutive windows of its
/// measured samples (rho-stats' [`min_window_median`]), net of the calibrated overhead. A whole run's median
/// lands in whichever speed the machine held for most of it; on a shared machine that swings by up to 1.8x
/// from one stretch to the next (docs/gate.md), so the gate takes each run's best stretch, as it takes each
/// side's best run. Derived nanoseconds are the windowed cycles converted as rho-stats converts them.
fn windowed_net(run: &Run, bench_index: usize, figures: &ClockFigures) -> Option<f64> {
    let role = if figures.derived {
        ClockRole::Cycles
    } else {
        figures.clock.role
    };
    let column = run.clock_index(role)?;
    let samples = run.benchmarks.get(bench_index)?.measured(column);
    let raw = min_window_median(samples, WINDOWS, MIN_WINDOW_SAMPLES)?;
    if figures.derived {
        // Derived figures are in nanoseconds, their overhead too: convert the windowed cycles first.
        let ns = rho_stats::counts_to_ns(raw, figures.clock.hz?)?;
        return Some(ns.saturating_sub(figures.overhead) as f64 / figures.batch.max(1) as f64);
    }
    // The overhead is taken off once per sample, then the sample is divided into its batch's iterations.
    Some(raw.saturating_sub(figures.overhead) as f64 / figures.batch.max(1) as f64)
}

/// Per benchmark of the stream, one metric per [`Metric`] under its gate name (`<bench>.cycles`, `.ns`,
/// `.stack`, `.heap_peak`): the clocked ones each run's best stretch (see [`windowed_net`]) per iteration,
/// overhead taken off; the stack in bytes (an overrun has no figure, so it cannot be decided; a stack not
/// measured gives no metric); the heap peak in bytes (a heap not measured, `@heap off`, gives no metric).
pub(crate) fn metrics_from_run(run: &rho_wire::Run) -> Result<RunMetrics, MetricsError> {
    metrics_from_summary(run, RunSummary::of(run))
}

/// [`metrics_from_run`] of a counted run, each benchmark's functions kept when its dumps' were read.
pub(crate) fn metrics_from_counted(
    counted: &rho_stats::CountedRun,
) -> Result<RunMetrics, MetricsError> {
    metrics_from_summary(&counted.run, RunSummary::of_counted(counted))
}

fn metrics_from_summary(
    run: &rho_wire::Run,
    summary: Result<RunSummary, rho_stats::StatsError>,
) -> Result<RunMetrics, MetricsError> {
    let mut summary = summary.map_err(|e| MetricsError::Wire(e.to_string()))?;
    if summary.benchmarks.is_empty() {
        return Err(MetricsError::NoBenchmarks);
    }
    summary.limit_functions(rho_profile::net::DEFAULT_LIMIT);
    let mut metrics = RunMetrics::new();
    for (index, bench) in summary.benchmarks.iter().enumerate() {
        if let Some(functions) = bench
            .instructions
            .as_ref()
            .and_then(|i| i.functions.clone())
        {
            metrics.set_functions(&bench.name, functions);
        }
        for metric in Metric::ALL {
            // The thread's CPU time (`@clock cpu`, wire version 7) is not a gate metric of rho's own stream:
            // the gate's paired rounds already put a neighbour on both sides of each round, and the host keeps
            // a benchmark's CPU figure only in runs whose other threads stayed idle, so it comes and goes from
            // run to run (qemu-user's own threads) and would leave the metric, and the gate, undecided. Another
            // harness's CPU time still comes on its `@rho-extra` line.
            if metric == Metric::CpuNs {
                continue;
            }
            let name = format!("{}.{}", bench.name, metric.gate_name());
            if let Some(figures) = bench.clock_figures(metric) {
                let value =
                    windowed_net(run, index, figures).unwrap_or(figures.per_iteration.median);
                metrics.insert(name.clone(), Figure::Value(value));
                metrics.set_floor(&name, resolution_floor(step_of(figures)));
                if let Some(spread) = figures.net.iqr_ratio() {
                    metrics.set_within_run(&name, spread);
                }
            } else if let Some(value) = bench.metric(metric) {
                metrics.insert(name, Figure::Value(value));
            } else if bench.overran && measured_in_run(run, metric) {
                // Stopped by the harness when its stack ran into the guard: no figure can be decided.
                metrics.insert(
                    name,
                    Figure::Unusable(
                        "stopped: its stack overran the painted region into the guard, so it has no \
                         figures"
                            .to_owned(),
                    ),
                );
            } else if metric == Metric::StackBytes && bench.stack == StackMark::Overrun {
                metrics.insert(
                    name,
                    Figure::Unusable(
                        "stack overrun: the painted region was used to its last byte, so there is no \
                         figure"
                            .to_owned(),
                    ),
                );
            }
        }
    }
    crate::growth_metrics::add_growth_metrics(&summary, &mut metrics);
    metrics.set_time_cap(crate::time_cap_reading::TimeCapReading::of_stream(run));
    Ok(metrics)
}

/// Whether the run measures `metric` at all (a clock of its kind, a painted stack): a benchmark the harness
/// stopped has no figure for it, and says so, only then.
fn measured_in_run(run: &rho_wire::Run, metric: Metric) -> bool {
    match metric {
        Metric::Cycles | Metric::Instructions => {
            // An instruction counter is a cycles clock of unit `instruction`, or a `@counter`.
            let clock = run.clock_index(rho_wire::ClockRole::Cycles);
            let instructions = run.counter.is_some()
                || clock.is_some_and(|c| run.clocks[c].unit == rho_stats::INSTRUCTION_UNIT);
            if metric == Metric::Cycles {
                clock.is_some() && !instructions
            } else {
                instructions
            }
        }
        Metric::TimeNs => {
            run.clock_index(rho_wire::ClockRole::Time).is_some()
                || run
                    .clock_index(rho_wire::ClockRole::Cycles)
                    .is_some_and(|c| run.clocks[c].hz.is_some())
        }
        Metric::StackBytes => run.config.stack_bytes.is_some(),
        // A heap not counted (`@heap off`, version 6) is not measured in any block of the run.
        Metric::HeapPeakBytes => run
            .calibration
            .iter()
            .chain(&run.benchmarks)
            .any(|b| b.heap.is_some()),
        // Figures of the image, not of the run: a stopped run does not touch them.
        Metric::CodeBytes | Metric::StaticStackBytes => false,
        // Not a gate metric of a stream (metrics_from_run).
        Metric::CpuNs => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{MetricSource, metrics_from_stdout};

    const STREAM: &str = "boot banner\n\
@rho-bench 1\n\
@target host arch=x86_64 optimized=1\n\
@clock cycles tsc unit=cycle hz=3000000000 resolution=1\n\
@clock time clock_gettime unit=ns hz=1000000000 resolution=1\n\
@config iterations=3 warmup=1 time_cap_ms=0 stack_bytes=65536\n\
@bench .overhead\n\
:99 99\n:20 10\n:20 10\n:20 10\n\
@stack off\n\
@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
@end .overhead iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n\
@bench crc\n\
:999 999\n:120 50\n:100 40\n:140 60\n\
@stack 312\n\
@heap peak=64 live=0 allocs=1 frees=1 free_errors=0\n\
@end crc iterations=3 warmup=1 capped=0 unit=byte per_iteration=64\n\
@bench deep\n\
:9 9\n:30 20\n:30 20\n:30 20\n\
@stack overrun\n\
@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
@end deep iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n\
@done benchmarks=2 dropped=0\n";

    #[test]
    fn a_wire_stream_gives_net_medians_stack_and_heap() {
        let (source, metrics) = metrics_from_stdout(STREAM).unwrap();
        assert_eq!(source, MetricSource::Wire);
        // Median of the measured samples (120, 100, 140) minus the calibrated overhead (20).
        assert_eq!(metrics["crc.cycles"], Figure::Value(100.0));
        assert_eq!(metrics["crc.ns"], Figure::Value(40.0));
        assert_eq!(metrics["crc.stack"], Figure::Value(312.0));
        assert_eq!(metrics["crc.heap_peak"], Figure::Value(64.0));
        assert!(matches!(&metrics["deep.stack"], Figure::Unusable(why) if why.contains("overrun")));
        assert!(!metrics.keys().any(|k| k.starts_with(".overhead")));
        // Both clocks step by 1: two steps is a difference of 2.
        assert_eq!(metrics.floor("crc.cycles"), 2.0);
        assert_eq!(metrics.floor("crc.stack"), 0.0);
    }

    #[test]
    fn a_benchmark_stopped_by_an_overrun_has_every_metric_undecidable() {
        let stream = STREAM.replace("@rho-bench 1", "@rho-bench 5").replace(
            "@end deep iterations=3 warmup=1 capped=0 unit=iter per_iteration=1",
            "@end deep iterations=3 warmup=1 capped=0 unit=iter per_iteration=1 overran=1",
        );
        let (_, metrics) = metrics_from_stdout(&stream).unwrap();
        for metric in ["cycles", "ns", "stack", "heap_peak"] {
            assert!(
                matches!(&metrics[&format!("deep.{metric}")], Figure::Unusable(why) if why.starts_with("stopped")),
                "deep.{metric}: {:?}",
                metrics.get(&format!("deep.{metric}"))
            );
        }
        assert_eq!(metrics["crc.cycles"], Figure::Value(100.0));
    }

    /// A heap the harness did not count (`@heap off`, version 6) gives no heap metric, as a stack not measured
    /// gives no stack metric: never a heap of 0 bytes, and for a stopped benchmark nothing to decide either.
    #[test]
    fn a_heap_not_measured_gives_no_heap_metric() {
        let mut stream = STREAM.replace("@rho-bench 1", "@rho-bench 6");
        while let Some(at) = stream.find("@heap peak=") {
            let end = at + stream[at..].find('\n').unwrap();
            stream.replace_range(at..end, "@heap off");
        }
        let (_, metrics) = metrics_from_stdout(&stream).unwrap();
        assert!(
            !metrics.keys().any(|k| k.ends_with(".heap_peak")),
            "{:?}",
            metrics.keys().collect::<Vec<_>>()
        );
        assert_eq!(metrics["crc.cycles"], Figure::Value(100.0));
        let stopped = stream.replace(
            "@end deep iterations=3 warmup=1 capped=0 unit=iter per_iteration=1",
            "@end deep iterations=3 warmup=1 capped=0 unit=iter per_iteration=1 overran=1",
        );
        let (_, metrics) = metrics_from_stdout(&stopped).unwrap();
        assert!(metrics.get("deep.heap_peak").is_none(), "{metrics:?}");
        assert!(
            matches!(&metrics["deep.cycles"], Figure::Unusable(why) if why.starts_with("stopped"))
        );
    }

    /// A run whose first two thirds ran slow (330) and last third fast (190): the whole run's median is
    /// slow, the metric is its best stretch (three windows of 20 samples), net of the overhead (20).
    #[test]
    fn a_run_is_judged_on_its_best_stretch() {
        let mut stream = String::from(
            "@rho-bench 1\n@target host arch=x86_64 optimized=1\n\
             @clock cycles tsc unit=cycle hz=3000000000 resolution=1\n\
             @clock time clock_gettime unit=ns hz=1000000000 resolution=1\n\
             @config iterations=60 warmup=1 time_cap_ms=0 stack_bytes=0\n\
             @bench .overhead\n:99 99\n:20 20\n:20 20\n:20 20\n@stack off\n\
             @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
             @end .overhead iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n\
             @bench phased\n:999 999\n",
        );
        for i in 0..60 {
            let value = if i < 40 { 330 } else { 190 };
            stream.push_str(&format!(":{value} {value}\n"));
        }
        stream.push_str(
            "@stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
             @end phased iterations=60 warmup=1 capped=0 unit=iter per_iteration=1\n\
             @done benchmarks=1 dropped=0\n",
        );
        let (_, metrics) = metrics_from_stdout(&stream).unwrap();
        assert_eq!(metrics["phased.cycles"], Figure::Value(170.0));
        assert_eq!(metrics["phased.ns"], Figure::Value(170.0));
    }

    #[test]
    fn a_broken_stream_is_an_error_naming_the_line() {
        let broken = STREAM.replace("@end crc", "@end crx");
        let error = metrics_from_stdout(&broken).unwrap_err().to_string();
        assert!(error.contains("line "), "{error}");
        let truncated = &STREAM[..STREAM.find("@done").unwrap()];
        assert!(metrics_from_stdout(truncated).is_err());
    }
}
