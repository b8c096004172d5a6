//! The baseline reader and the saved-run reader under a mutation fuzzer (see tests/fuzz/mutate.rs at the
//! repository's root): every input reads or is refused with an error that names the file (and for the
//! baseline a real line and column), never panics, and whatever is accepted holds only figures a run can
//! produce, checked here independently of rho-baseline's validate.rs. A fixed budget here; raise it with
//! `RHO_FUZZ_ITERATIONS` (README: "Fuzzing").

mod common;
#[path = "../../../tests/fuzz/mutate.rs"]
mod mutate;

use std::cell::Cell;

use rho_baseline::{BaselineFile, Error};
use rho_stats::{ClockFigures, RunSummary};

#[test]
fn fuzz_the_baseline_reader() {
    let seeds: Vec<Vec<u8>> = [
        common::file(vec![common::section("host", 3, 1000)]),
        common::file(vec![
            common::section("host", 1, 7),
            common::section("mps2-an386", 2, 9000),
        ]),
    ]
    .iter()
    .map(|file| file.to_json().unwrap().into_bytes())
    .collect();
    let accepted = Cell::new(0u64);
    mutate::fuzz("baseline reader", &seeds, 5_000, |input| {
        let text = String::from_utf8_lossy(input);
        match BaselineFile::parse(&text, "bench/baseline.json") {
            Ok(file) => {
                accepted.set(accepted.get() + 1);
                assert_a_run_could_write(&file);
            }
            Err(error) => {
                let message = error.to_string();
                assert!(message.contains("bench/baseline.json"), "{message}");
                if let Error::Json { line, column, .. } = &error {
                    let lines = text.lines().count().max(1);
                    assert!(*line >= 1 && *line <= lines + 1, "{message}");
                    assert!(*column >= 1, "{message}");
                }
            }
        }
    });
    println!(
        "baseline reader: {} inputs, {} accepted, each a baseline a run could write",
        mutate::iterations(5_000),
        accepted.get()
    );
}

/// What a run writes, checked figure by figure: nothing negative, the tails at or above the median, no
/// benchmark twice in a section.
fn assert_a_run_could_write(file: &BaselineFile) {
    for section in file.targets.values().flat_map(|sections| sections.iter()) {
        let mut names = std::collections::BTreeSet::new();
        for bench in &section.benchmarks {
            assert!(names.insert(&bench.name), "{} twice", bench.name);
            assert!(bench.per_iteration >= 1 && bench.batch >= 1);
            for figures in [bench.cycles, bench.time_ns].into_iter().flatten() {
                let (median, p95, p99) = (figures.median.0, figures.p95.0, figures.p99.0);
                assert!(median >= 0.0, "{}: median {median}", bench.name);
                assert!(
                    median <= p95 && p95 <= p99,
                    "{}: {median} {p95} {p99}",
                    bench.name
                );
            }
        }
    }
}

/// The seeds of the saved-run fuzzer: a `rho-bench-run/1` and a `rho-bench-project/1` document of a real
/// stream's summary (histograms included), as `rho bench --json` writes them.
fn saved_run_seeds() -> Vec<Vec<u8>> {
    let stream = include_str!("../../rho-report/testdata/two_benchmarks.wire");
    let summary = RunSummary::of(&rho_wire::parse_str(stream).unwrap()).unwrap();
    let mut run = serde_json::to_value(&summary).unwrap();
    run["schema"] = rho_baseline::saved::RUN_SCHEMA.into();
    run["suite"] = serde_json::json!({"sources": ["bench/a.c"]});
    let mut suite = serde_json::to_value(&summary).unwrap();
    suite["suite"] = "bench/a.c".into();
    let project = serde_json::json!({
        "schema": rho_baseline::saved::PROJECT_SCHEMA,
        "suites": [suite.clone(), suite],
    });
    [run, project]
        .iter()
        .map(|document| serde_json::to_vec_pretty(document).unwrap())
        .collect()
}

#[test]
fn fuzz_the_saved_run_reader() {
    let seeds = saved_run_seeds();
    for seed in &seeds {
        rho_baseline::saved::parse(std::str::from_utf8(seed).unwrap(), "run.json").unwrap();
    }
    let accepted = Cell::new(0u64);
    mutate::fuzz("saved-run reader", &seeds, 5_000, |input| {
        let text = String::from_utf8_lossy(input);
        match rho_baseline::saved::parse(&text, "run.json") {
            Ok(suites) => {
                accepted.set(accepted.get() + 1);
                for suite in &suites {
                    assert_a_run_could_produce(&suite.summary);
                }
            }
            Err(error) => {
                let message = error.to_string();
                assert!(message.starts_with("run.json"), "{message}");
            }
        }
    });
    println!(
        "saved-run reader: {} inputs, {} accepted, each a run could produce",
        mutate::iterations(5_000),
        accepted.get()
    );
}

/// What a run produces, checked figure by figure: every order statistic in rank order and at least 0, the
/// heap's live bytes at most its peak (and the peak itself when nothing was freed), no benchmark twice.
fn assert_a_run_could_produce(summary: &RunSummary) {
    let mut names = std::collections::BTreeSet::new();
    for bench in &summary.benchmarks {
        assert!(names.insert(&bench.name), "{} twice", bench.name);
        for figures in [bench.cycles.as_ref(), bench.time.as_ref()]
            .into_iter()
            .flatten()
        {
            assert_ordered(figures, &bench.name);
        }
        if let Some(heap) = bench.heap {
            assert!(heap.live <= heap.peak, "{}: {heap:?}", bench.name);
            assert!(
                heap.frees != 0 || heap.live == heap.peak,
                "{}: {heap:?}",
                bench.name
            );
        }
        for rate in [bench.ops_per_second, bench.ns_per_op]
            .into_iter()
            .flatten()
        {
            assert!(rate >= 0.0, "{}: rate {rate}", bench.name);
        }
    }
}

fn assert_ordered(figures: &ClockFigures, name: &str) {
    for s in [&figures.raw, &figures.net] {
        let ranks = [s.min, s.p25, s.median, s.p75, s.p95, s.p99, s.max];
        assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{name}: {ranks:?}");
        assert!(s.mean >= 0.0 && s.stddev >= 0.0, "{name}: {s:?}");
    }
    let e = &figures.per_iteration;
    let ranks = [e.min, e.p25, e.median, e.p75, e.p95, e.p99, e.max];
    assert!(ranks.iter().all(|v| *v >= 0.0), "{name}: {ranks:?}");
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{name}: {ranks:?}");
}
