//! One benchmark's samples, as every format reads them, into the run rho's statistics summarise.

use std::collections::HashMap;

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
/// off), the stack and heap not measured; then rho's statistics ([`RunSummary::of`]) and what the report
/// says besides ([`complete`]).
pub fn build(
    format: Format,
    what: &str,
    benchmarks: Vec<Sampled>,
) -> Result<RunSummary, ImportError> {
    let run = run_of(format, what, &benchmarks)?;
    let mut summary = RunSummary::of(&run).map_err(|source| ImportError::Summary {
        what: what.to_owned(),
        benchmark: stats_benchmark(&source),
        source,
    })?;
    complete(&mut summary, format, &[benchmarks]);
    Ok(summary)
}

/// Lays on `summary` (the run, or the folded runs, of `reports`: one report's benchmarks per run of the
/// harness) what a wire stream cannot carry: the harness's name, whether its times are statistics only, the
/// iterations the harness really ran, and its extra figures. Each extra figure is the median over one
/// run's samples; over several runs the best run's, the lowest for a figure lower is better and the highest
/// for one higher is better, as [`rho_stats::best_of`] folds times. The iterations are the fewest any run
/// did, as `best_of` keeps them; 0 when a report does not say. The one way both `rho bench import` and
/// another harness's suite get these figures.
pub fn complete(summary: &mut RunSummary, format: Format, reports: &[Vec<Sampled>]) {
    summary.imported = Some(format.name().to_owned());
    // Each report's benchmarks by name, and each report's CPU figures by name: one lookup a benchmark and
    // report, and rho's statistics run once over a report, not once a benchmark.
    let by_name: Vec<HashMap<&str, &Sampled>> = reports
        .iter()
        .map(|report| report.iter().map(|s| (s.name.as_str(), s)).collect())
        .collect();
    let cpu: Vec<HashMap<String, rho_stats::ClockFigures>> = reports
        .iter()
        .map(|report| cpu_figures(format, report))
        .collect();
    for bench in &mut summary.benchmarks {
        let runs: Vec<&Sampled> = by_name
            .iter()
            .filter_map(|report| report.get(bench.name.as_str()).copied())
            .collect();
        bench.stats_only = runs.iter().any(|s| s.stats_only);
        let iterations: Option<Vec<u64>> = runs.iter().map(|s| s.iterations).collect();
        bench.iterations = iterations.and_then(rho_stats::min_of).unwrap_or(0);
        bench.extra = folded_extras(&runs);
        // Of several runs the best run's, as best_of keeps a clock's; none when a run has none.
        let each: Option<Vec<&rho_stats::ClockFigures>> = cpu
            .iter()
            .zip(&by_name)
            .filter(|(_, report)| report.contains_key(bench.name.as_str()))
            .map(|(figures, _)| figures.get(&bench.name))
            .collect();
        bench.cpu = each.and_then(|each| rho_stats::best_figures(each.into_iter().map(Some)));
    }
    // The run's iterations, as a wire run's config holds the most any benchmark was asked for: the most the
    // harness really ran, not the samples times IMPORT_BATCH the figures were put in.
    summary.config.iterations = summary
        .benchmarks
        .iter()
        .map(|b| b.iterations)
        .max()
        .unwrap_or(0);
}

/// How many benchmarks' CPU figures [`cpu_figures`] summarises at once.
const CPU_CHUNK: usize = 4096;

/// The CPU-time figures of a report's benchmarks, by name, for a harness that reports CPU time beside the
/// wall clock (Google Benchmark's `cpu_time`): rho's statistics over each benchmark's CPU samples as over its
/// times (the same batch of [`IMPORT_BATCH`]), on a clock named `cpu_time`. A benchmark without CPU samples
/// has none.
fn cpu_figures(format: Format, report: &[Sampled]) -> HashMap<String, rho_stats::ClockFigures> {
    let mut figures = HashMap::new();
    // A chunk at a time: each benchmark's figures are its own, and a chunk's run stays in the cache while it
    // is summarised, where a whole report of 100,000 benchmarks was read from memory (an import of 4x the
    // benchmarks took 5.6x the time).
    for chunk in report.chunks(CPU_CHUNK) {
        let timed: Vec<Sampled> = chunk
            .iter()
            .filter(|sampled| !sampled.cpu_ns.is_empty())
            .map(|sampled| Sampled {
                name: sampled.name.clone(),
                times_ns: sampled.cpu_ns.clone(),
                ..Sampled::default()
            })
            .collect();
        if timed.is_empty() {
            continue;
        }
        let Ok(summary) = RunSummary::of(&run_with(format, &timed)) else {
            continue;
        };
        figures.extend(summary.benchmarks.into_iter().filter_map(|bench| {
            let mut cpu = bench.time?;
            cpu.clock.name = "cpu_time".to_owned();
            Some((bench.name, cpu))
        }));
    }
    figures
}

/// One figure on an [`rho_stats::EXTRA_LINE`], its keys in name order as docs/import.md shows them (what a
/// [`rho_stats::ExtraValue`] reads back from).
#[derive(serde::Serialize)]
struct ExtraFigure {
    better: rho_stats::Better,
    value: f64,
}

/// The [`rho_stats::EXTRA_LINE`]s of `run` (the wire stream of `benchmarks`, its names made wire names, in the
/// same order), one a benchmark that has any: its judged extra figures as [`complete`] gives them, named
/// `WIRE_NAME.FIGURE`, with their direction, and its CPU time's median as `WIRE_NAME.cpu_ns`; empty when
/// no benchmark has any.
pub(crate) fn extra_line(run: &Run, benchmarks: &[Sampled]) -> String {
    let mut lines: Vec<u8> = Vec::new();
    for (wire, sampled) in run.benchmarks.iter().zip(benchmarks) {
        let mut figures: std::collections::BTreeMap<String, ExtraFigure> =
            std::collections::BTreeMap::new();
        let mut judged: Vec<(String, rho_stats::ExtraValue)> = folded_extras(&[sampled])
            .into_iter()
            .filter(|e| e.judged)
            .map(|e| {
                (
                    e.name,
                    rho_stats::ExtraValue {
                        value: e.value,
                        better: e.better,
                    },
                )
            })
            .collect();
        // A second clock a stream cannot carry: the gate's `BENCH.cpu_ns` (rho_stats::Metric::CpuNs).
        if !sampled.cpu_ns.is_empty() {
            let median = rho_stats::ExtraValue {
                value: median_of(&sampled.cpu_ns),
                better: rho_stats::Better::Lower,
            };
            judged.push((rho_stats::Metric::CpuNs.gate_name().to_owned(), median));
        }
        for (name, value) in judged {
            let figure = ExtraFigure {
                better: value.better,
                value: value.value,
            };
            figures.insert(format!("{}.{name}", wire.name), figure);
        }
        // One line a benchmark: a suite of many stays far under the gate's longest line (64 kB). Written
        // straight from the figures (in name order, as a JSON object of them reads), not through a
        // serde_json::Value a benchmark: of 100,000 benchmarks those were a quarter of the import's time.
        if !figures.is_empty() {
            lines.extend_from_slice(rho_stats::EXTRA_LINE.as_bytes());
            // Writing to a Vec cannot fail, and a name and a number always encode.
            let _ = serde_json::to_writer(&mut lines, &figures);
            lines.push(b'\n');
        }
    }
    // Only whole JSON documents and ASCII were written.
    String::from_utf8(lines).unwrap_or_default()
}

/// Each extra figure of `runs` (in the order the first run that has it gives them): the median of each
/// run's values, the best of those.
fn folded_extras(runs: &[&Sampled]) -> Vec<ExtraMetric> {
    let mut folded: Vec<ExtraMetric> = Vec::new();
    for extra in runs.iter().flat_map(|s| &s.extra) {
        if extra.values.is_empty() {
            continue;
        }
        let value = median_of(&extra.values);
        match folded.iter_mut().find(|f| f.name == extra.name) {
            Some(kept) => {
                kept.value = kept.better.best([kept.value, value]).unwrap_or(kept.value);
            }
            None => folded.push(ExtraMetric {
                name: extra.name.clone(),
                unit: extra.unit.clone(),
                value,
                better: extra.better,
                judged: extra.judged,
            }),
        }
    }
    folded
}

/// The run a wire stream of `benchmarks` would have been (see [`build`]): what rho's engine folds, best of
/// N, when it runs another harness's suite itself. What a stream cannot carry (the extra figures, the
/// harness's iteration counts) [`complete`] lays on the run's summary.
pub fn run_of(format: Format, what: &str, benchmarks: &[Sampled]) -> Result<Run, ImportError> {
    if benchmarks.is_empty() {
        return Err(ImportError::Empty {
            file: what.to_owned(),
            what: format!("no {} benchmark with figures", format.name()),
        });
    }
    Ok(run_with(format, benchmarks))
}

/// The run of `benchmarks` (see [`run_of`]), none or more: another harness's suite whose filter picked
/// none of its benchmarks runs none, as a harness's own suite does.
pub fn run_with(format: Format, benchmarks: &[Sampled]) -> Run {
    let wire: Vec<Benchmark> = benchmarks.iter().map(wire_benchmark).collect();
    Run {
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
        yardstick: None,
    }
}

/// Makes `run` what `rho bench import --wire` prints, and so what the gate reads: `NAME/N` with a wire name
/// `NAME` and a whole number `N` (Google Benchmark's `Arg`, criterion's numeric parameter) becomes a member of
/// the family `NAME`, so its figures are fitted over the arguments as a harness's family is; every other name
/// stays as the harness wrote it (the writer escapes it, docs/wire-format.md "Benchmark names").
pub fn wire_names(run: &mut Run) {
    for bench in &mut run.benchmarks {
        if let Some((family, arg)) = bench.name.rsplit_once('/')
            && rho_wire::is_name(family.as_bytes())
            && let Ok(arg) = arg.parse::<u64>()
            && bench.name == format!("{family}/{arg}")
        {
            bench.family = Some(rho_wire::FamilyMember {
                name: family.to_owned(),
                arg,
            });
        }
    }
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
        other_cpu_ns: None,
        preempted: 0,
        rerun: 0,
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
    use rho_stats::Better;

    #[test]
    fn cpu_figures_summarised_in_chunks_are_each_benchmarks_own() {
        // More than two chunks, every benchmark's CPU samples its own, some without any.
        let report: Vec<Sampled> = (0..2 * CPU_CHUNK + 3)
            .map(|b| Sampled {
                name: format!("BM_case/{b}"),
                times_ns: vec![100.0, 101.0, 102.0],
                cpu_ns: match b % 5 {
                    0 => Vec::new(),
                    _ => vec![50.0 + (b % 89) as f64, 51.0 + (b % 7) as f64, 49.5],
                },
                ..Sampled::default()
            })
            .collect();
        let all = cpu_figures(Format::Gbench, &report);
        assert_eq!(
            all.len(),
            report.iter().filter(|s| !s.cpu_ns.is_empty()).count()
        );
        // Either side of each chunk's edge (4094, 4096, 4097: none a multiple of 5, so each has CPU samples).
        for b in [
            1,
            CPU_CHUNK - 2,
            CPU_CHUNK,
            CPU_CHUNK + 1,
            2 * CPU_CHUNK + 2,
        ] {
            let alone = cpu_figures(Format::Gbench, std::slice::from_ref(&report[b]));
            let name = &report[b].name;
            assert!(all.contains_key(name), "{name}");
            assert_eq!(all.get(name), alone.get(name), "{name}");
        }
        assert!(!all.contains_key("BM_case/0"));
    }

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
    fn numbered_names_become_family_members_and_every_name_reads_back_as_written() {
        let sampled = |name: &str| Sampled {
            name: name.into(),
            times_ns: vec![1.0],
            ..Sampled::default()
        };
        let names = [
            "BM_sum/64",
            "sleep 0.01",
            "BenchmarkSized/n=8",
            "plain",
            "BM_format/%@",
            "BM_format/%%",
        ];
        let mut run = run_of(Format::Gbench, "x", &names.map(sampled)).unwrap();
        wire_names(&mut run);
        assert_eq!(run.benchmarks[0].family.as_ref().unwrap().arg, 64);
        assert!(run.benchmarks[1..].iter().all(|b| b.family.is_none()));
        // What the writer prints, the wire parser reads back: every name as the harness wrote it.
        let text = rho_wire::run_to_string(&run).unwrap();
        let back = rho_wire::parse_str(&text).unwrap();
        let got: Vec<&str> = back.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(got, names);
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

    #[test]
    fn a_suites_runs_keep_each_extra_figure_at_its_best_and_the_fewest_iterations() {
        let run = |rate: f64, bytes: f64, iterations: u64| {
            let mut sampled = Sampled {
                name: "BM_x".into(),
                ..Sampled::default()
            };
            for _ in 0..3 {
                sampled.push_sample(10.0, Some(iterations));
                sampled.push_extra("items_per_second", "items/s", Better::Higher, rate);
                sampled.push_extra("B/op", "B/op", Better::Lower, bytes);
            }
            vec![sampled]
        };
        let reports = [
            run(100.0, 64.0, 400),
            run(250.0, 32.0, 300),
            run(90.0, 48.0, 500),
        ];
        let runs: Vec<Run> = reports
            .iter()
            .map(|r| run_with(Format::Gbench, r))
            .collect();
        let summaries: Vec<RunSummary> = runs.iter().map(|r| RunSummary::of(r).unwrap()).collect();
        let mut summary = rho_stats::best_of(&summaries).unwrap();
        complete(&mut summary, Format::Gbench, &reports);
        let bench = &summary.benchmarks[0];
        let value = |name: &str| bench.extra.iter().find(|e| e.name == name).unwrap().value;
        // A rate's best run is its highest, a cost's its lowest: a rate that fell is not hidden.
        assert_eq!(value("items_per_second"), 250.0);
        assert_eq!(value("B/op"), 32.0);
        assert_eq!(
            bench.iterations, 900,
            "3 samples of 300, the fewest any run did"
        );
        assert_eq!(
            summary.config.iterations, 900,
            "not 3 samples x IMPORT_BATCH"
        );
        assert_eq!(summary.imported.as_deref(), Some("gbench"));
    }

    #[test]
    fn the_extra_figures_follow_the_stream_on_one_line_a_wire_reader_skips() {
        let mut sampled = Sampled {
            name: "BM_sum/64".into(),
            ..Sampled::default()
        };
        for (ns, rate) in [(10.0, 300.0), (11.0, 100.0), (12.0, 200.0)] {
            sampled.push_sample(ns, Some(1));
            sampled.push_extra("items_per_second", "items/s", Better::Higher, rate);
        }
        let benchmarks = [sampled];
        let mut run = run_of(Format::Gbench, "x", &benchmarks).unwrap();
        wire_names(&mut run);
        let line = extra_line(&run, &benchmarks);
        assert_eq!(
            line,
            "@rho-extra {\"BM_sum/64.items_per_second\":{\"better\":\"higher\",\"value\":200.0}}\n"
        );
        let text = rho_wire::run_to_string(&run).unwrap() + &line;
        assert_eq!(rho_wire::parse_str(&text).unwrap(), run);
    }
}
