//! What a run can produce, checked in every document rho reads back: a committed baseline and a saved run
//! (`rho bench --json`). A figure no run can produce (a negative median, a median above the maximum, heap
//! figures that contradict each other, a benchmark twice) is refused naming the file, the benchmark and the
//! field, never compared: a negative base turns any head into a regression of thousands of percent, and a
//! minimum above the median into an "improved".
//!
//! Order statistics of one column are in order because they are ranks of the same sorted samples, and taking
//! the overhead off, dividing by the batch, converting to nanoseconds and rounding to the clock are all
//! monotone, so they stay in order in every figure rho derives; the best of several runs keeps one run's
//! figures whole (rho-stats' `best_of`).

use std::collections::BTreeSet;

use rho_stats::{BenchSummary, ClockFigures, RunSummary, Summary};

use crate::error::Error;
use crate::format::{BaselineFile, BenchmarkBaseline, Figures};

/// One place in a document: the benchmark (and its target or suite) and the field.
struct Place<'a> {
    source: &'a str,
    benchmark: String,
}

impl Place<'_> {
    fn impossible(&self, field: &str, why: String) -> Error {
        Error::Impossible {
            source_name: self.source.to_owned(),
            benchmark: self.benchmark.clone(),
            field: field.to_owned(),
            why,
        }
    }

    /// `value` is a finite number of at least 0.
    fn non_negative(&self, field: &str, value: f64) -> Result<(), Error> {
        if value.is_finite() && value >= 0.0 {
            Ok(())
        } else {
            Err(self.impossible(
                field,
                format!("is {value}: a measured figure is a finite number of at least 0"),
            ))
        }
    }

    /// `figures` (name, value) are in the order given, each at most the next.
    fn in_order(&self, field: &str, figures: &[(&str, f64)]) -> Result<(), Error> {
        for pair in figures.windows(2) {
            let [(low_name, low), (high_name, high)] = pair else {
                continue;
            };
            // `!(low <= high)` so a NaN is out of order too.
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            if !(low <= high) {
                let order: Vec<&str> = figures.iter().map(|(name, _)| *name).collect();
                return Err(self.impossible(
                    &format!("{field}.{low_name}"),
                    format!(
                        "is {low}, above {high_name} {high}: the figures of one run are in the order {}",
                        order.join(" <= ")
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Checks every section of a baseline for what a run can produce. `source` names the file in errors.
pub fn baseline(file: &BaselineFile, source: &str) -> Result<(), Error> {
    for (target, sections) in &file.targets {
        for bench in sections.iter().flat_map(|section| &section.benchmarks) {
            let place = Place {
                source,
                benchmark: format!("target \"{target}\", benchmark \"{}\"", bench.name),
            };
            baseline_benchmark(bench, &place)?;
        }
        for yardstick in sections
            .iter()
            .flat_map(|section| &section.context.yardsticks)
        {
            let place = Place {
                source,
                benchmark: format!(
                    "target \"{target}\", yardstick of {}",
                    yardstick.suite.as_deref().unwrap_or("the suite")
                ),
            };
            // A ratio is taken of these: a figure of 0 would divide by nothing.
            for (field, value) in [
                ("cycles", yardstick.cycles),
                ("time_ns", yardstick.time_ns),
                ("cpu_ns", yardstick.cpu_ns),
            ] {
                if let Some(value) = value.filter(|v| !(v.is_finite() && *v > 0.0)) {
                    return Err(place.impossible(
                        field,
                        format!("is {value}: a yardstick's figure is a finite number above 0"),
                    ));
                }
            }
            if yardstick.iterations == 0 {
                return Err(place.impossible(
                    "iterations",
                    "is 0: a yardstick runs its loop at least once".into(),
                ));
            }
        }
    }
    Ok(())
}

/// Ops per iteration and iterations per sample: at least one each, in a run and in a baseline alike.
fn units(per_iteration: u64, batch: u64, place: &Place<'_>) -> Result<(), Error> {
    if per_iteration == 0 {
        return Err(place.impossible(
            "per_iteration",
            "is 0: an iteration is at least one op".into(),
        ));
    }
    if batch == 0 {
        return Err(place.impossible("batch", "is 0: a sample is at least one iteration".into()));
    }
    Ok(())
}

fn baseline_benchmark(bench: &BenchmarkBaseline, place: &Place<'_>) -> Result<(), Error> {
    units(bench.per_iteration, bench.batch, place)?;
    let clocked = [
        ("cycles", &bench.cycles),
        ("time_ns", &bench.time_ns),
        ("cpu_ns", &bench.cpu_ns),
    ];
    for (field, figures) in clocked {
        if let Some(Figures { median, p95, p99 }) = figures {
            for (name, figure) in [("median", median), ("p95", p95), ("p99", p99)] {
                place.non_negative(&format!("{field}.{name}"), figure.0)?;
            }
            place.in_order(
                field,
                &[("median", median.0), ("p95", p95.0), ("p99", p99.0)],
            )?;
        }
    }
    for extra in &bench.extra {
        place.non_negative(&format!("extra.{}", extra.name), extra.value.0)?;
    }
    Ok(())
}

/// Checks one suite's summary of a saved run for what a run can produce. `suite` says which suite of the
/// document it is (`suite 2 (bench/b.c), `), empty for a document of one.
pub fn run_summary(summary: &RunSummary, source: &str, suite: &str) -> Result<(), Error> {
    let mut names = BTreeSet::new();
    for bench in &summary.benchmarks {
        let place = Place {
            source,
            benchmark: format!("{suite}benchmark \"{}\"", bench.name),
        };
        if !names.insert(bench.name.as_str()) {
            return Err(place.impossible(
                "name",
                "appears twice: a suite runs each benchmark once".into(),
            ));
        }
        run_benchmark(bench, summary.version, &place)?;
    }
    for overhead in &summary.overhead {
        let place = Place {
            source,
            benchmark: format!("{suite}the calibration (.overhead)"),
        };
        let field = format!("overhead {}", overhead.clock.name);
        check_summary(&overhead.summary, &field, &place)?;
    }
    Ok(())
}

fn run_benchmark(bench: &BenchSummary, version: u32, place: &Place<'_>) -> Result<(), Error> {
    units(bench.per_iteration, bench.batch, place)?;
    let samples = bench.instructions.as_ref().and_then(|i| i.samples.as_ref());
    for (field, figures) in [
        ("cycles", bench.cycles.as_ref()),
        ("time", bench.time.as_ref()),
        ("cpu", bench.cpu.as_ref()),
        ("instructions.samples", samples),
    ] {
        if let Some(figures) = figures {
            check_clock_figures(figures, field, place)?;
        }
    }
    if let Some(instructions) = &bench.instructions {
        // Net of the harness's share, so below 0 when the share was over-counted; finite in any run.
        for (field, value) in [
            ("instructions.per_iteration", instructions.per_iteration),
            (
                "instructions.overhead_per_iteration",
                instructions.overhead_per_iteration,
            ),
            (
                "instructions.overhead_per_loop",
                instructions.overhead_per_loop,
            ),
        ] {
            if !value.is_finite() {
                return Err(
                    place.impossible(field, format!("is {value}: not a number a count gives"))
                );
            }
        }
    }
    if let Some(heap) = bench.heap
        && let Some(rule) = heap.inconsistency(version)
    {
        return Err(place.impossible("heap", format!("breaks a rule every harness keeps: {rule}")));
    }
    for (field, rate) in [
        ("ops_per_second", bench.ops_per_second),
        ("ns_per_op", bench.ns_per_op),
    ] {
        if let Some(rate) = rate {
            place.non_negative(field, rate)?;
        }
    }
    // Another harness's figures (a rate, a counter, B/op): rho-import refuses a negative one, so a run
    // holding one was not written by a run.
    for extra in &bench.extra {
        place.non_negative(&format!("extra.{}", extra.name), extra.value)?;
    }
    Ok(())
}

fn check_clock_figures(
    figures: &ClockFigures,
    field: &str,
    place: &Place<'_>,
) -> Result<(), Error> {
    if figures.batch == 0 {
        return Err(place.impossible(
            &format!("{field}.batch"),
            "is 0: a sample is at least one iteration".into(),
        ));
    }
    check_summary(&figures.raw, &format!("{field}.raw"), place)?;
    check_summary(&figures.net, &format!("{field}.net"), place)?;
    let each = &figures.per_iteration;
    let field = format!("{field}.per_iteration");
    let ordered = [
        ("min", each.min),
        ("p25", each.p25),
        ("median", each.median),
        ("p75", each.p75),
        ("p95", each.p95),
        ("p99", each.p99),
        ("max", each.max),
    ];
    for (name, value) in ordered
        .iter()
        .chain(&[("mean", each.mean), ("stddev", each.stddev)])
    {
        place.non_negative(&format!("{field}.{name}"), *value)?;
    }
    place.in_order(&field, &ordered)?;
    if let Some(distribution) = &figures.distribution {
        for (name, value) in [("start", distribution.start), ("width", distribution.width)] {
            place.non_negative(&format!("{field}.distribution.{name}"), value)?;
        }
    }
    Ok(())
}

fn check_summary(summary: &Summary, field: &str, place: &Place<'_>) -> Result<(), Error> {
    if summary.n == 0 {
        return Err(place.impossible(
            &format!("{field}.n"),
            "is 0: a summary is of at least one sample".into(),
        ));
    }
    for (name, value) in [("mean", summary.mean), ("stddev", summary.stddev)] {
        place.non_negative(&format!("{field}.{name}"), value)?;
    }
    // Exact integers: compared as such (through f64 two figures above 2^53 could look equal).
    let ordered = [
        ("min", summary.min),
        ("p25", summary.p25),
        ("median", summary.median),
        ("p75", summary.p75),
        ("p95", summary.p95),
        ("p99", summary.p99),
        ("max", summary.max),
    ];
    for pair in ordered.windows(2) {
        let [(low_name, low), (high_name, high)] = pair else {
            continue;
        };
        if low > high {
            let order: Vec<&str> = ordered.iter().map(|(name, _)| *name).collect();
            return Err(place.impossible(
                &format!("{field}.{low_name}"),
                format!(
                    "is {low}, above {high_name} {high}: the figures of one run are in the order {}",
                    order.join(" <= ")
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;
    use crate::format::{Figure, TargetSections};

    #[test]
    fn a_negative_cycle_median_is_named_with_its_target_benchmark_and_field() {
        let mut file = BaselineFile::new();
        let mut section = fixture::section("host");
        section.benchmarks[1].cycles.as_mut().unwrap().median = Figure(-5.0);
        file.insert(section.into());
        let error = baseline(&file, "bench/baseline.json")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "bench/baseline.json: target \"host\", benchmark \"bench_crc_64\": cycles.median is -5: a measured \
             figure is a finite number of at least 0"
        );
    }

    /// Another harness's figures (a rate, a counter) and its CPU time are figures like any: a negative one in a
    /// saved run (a share given to `rho bench merge`) or a baseline is refused, naming it.
    #[test]
    fn a_negative_extra_figure_or_cpu_median_is_refused() {
        let stream = include_str!("../../rho-report/testdata/two_benchmarks.wire");
        let mut summary = RunSummary::of(&rho_wire::parse_str(stream).unwrap()).unwrap();
        assert!(run_summary(&summary, "s.json", "").is_ok());
        summary.benchmarks[0].extra.push(rho_stats::ExtraMetric {
            name: "items_per_second".into(),
            unit: "items/s".into(),
            value: -3.0,
            better: rho_stats::Better::Higher,
            judged: true,
        });
        let error = run_summary(&summary, "s.json", "").unwrap_err().to_string();
        assert!(
            error.contains(
                "extra.items_per_second is -3: a measured figure is a finite number of at least 0"
            ),
            "{error}"
        );
        summary.benchmarks[0].extra.clear();
        let mut cpu = summary.benchmarks[0].time.clone().unwrap();
        cpu.per_iteration.median = -1.0;
        summary.benchmarks[0].cpu = Some(cpu);
        let error = run_summary(&summary, "s.json", "").unwrap_err().to_string();
        assert!(error.contains("cpu.per_iteration.median is -1"), "{error}");

        let mut file = BaselineFile::new();
        let mut section = fixture::section("host");
        section.benchmarks[0]
            .extra
            .push(crate::format::ExtraFigure {
                name: "elements".into(),
                unit: String::new(),
                better: rho_stats::Better::Lower,
                value: Figure(-64.0),
            });
        file.insert(section.into());
        let error = baseline(&file, "b.json").unwrap_err().to_string();
        assert!(error.contains("extra.elements is -64"), "{error}");
    }

    #[test]
    fn a_yardstick_of_0_or_below_is_refused_by_name() {
        let mut file = BaselineFile::new();
        let mut section = fixture::section("host");
        section.context.yardsticks = vec![crate::format::SuiteYardstick {
            suite: Some("bench/a.c".to_string()),
            name: "rho1".to_string(),
            iterations: 1000,
            cycles: Some(4.4),
            time_ns: Some(0.0),
            cpu_ns: None,
        }];
        file.insert(TargetSections {
            time: Some(section),
            instructions: None,
        });
        let error = baseline(&file, "bench/baseline.json")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("yardstick of bench/a.c: time_ns is 0: a yardstick's figure is a finite number above 0"),
            "{error}"
        );
    }

    #[test]
    fn tails_below_the_median_are_refused() {
        let mut file = BaselineFile::new();
        let mut section = fixture::section("host");
        section.benchmarks[2].time_ns.as_mut().unwrap().p95 = Figure(1.0);
        file.insert(section.into());
        let error = baseline(&file, "b.json").unwrap_err().to_string();
        assert!(
            error.contains("benchmark \"bench_crc_256\": time_ns.median is 2657, above p95 1"),
            "{error}"
        );
        // The fixture itself is what a run writes.
        let mut file = BaselineFile::new();
        file.insert(fixture::section("host").into());
        assert!(baseline(&file, "b.json").is_ok());
    }
}
