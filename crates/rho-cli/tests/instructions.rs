//! `--measure instructions` through the real binary: counted under Callgrind, a body of exactly N nops reads
//! N instructions net, an empty body 0, the spec suite gives the same figures run after run (and CRC-256
//! costs four CRC-64s), and `--measure time,instructions` reports both in one run's JSON.

mod common;

use std::time::Duration;

use common::bench;
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(300);

/// Net instructions per iteration of `name`, the exact quotient.
fn per_iteration(document: &Value, name: &str) -> f64 {
    bench(document, name)["instructions"]["per_iteration"]
        .as_f64()
        .unwrap_or_else(|| panic!("{name} has no instructions: {document}"))
}

#[test]
fn bodies_of_exactly_n_nops_read_n_instructions() {
    let suite = common::repo_file("tests/c/nops.c");
    let (outcome, document) = common::rho_json(
        &[
            "bench",
            "--measure",
            "instructions",
            suite.to_str().unwrap(),
        ],
        LIMIT,
    );
    eprintln!("{}", outcome.describe());
    for (name, expected) in [
        ("bench_nop_1000", 1000.0),
        ("bench_nop_3000", 3000.0),
        ("bench_nop_none", 0.0),
    ] {
        let figure = per_iteration(&document, name);
        assert!(
            (figure - expected).abs() <= 2.0,
            "{name}: {figure} instructions per iteration, expected {expected}"
        );
        assert_eq!(
            bench(&document, name)["instructions"]["source"],
            "callgrind"
        );
        assert!(
            bench(&document, name)["cycles"].is_null(),
            "a counted run times nothing"
        );
    }
    assert!(
        outcome.stdout.contains("instructions (callgrind)"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn the_spec_suite_counts_the_same_run_after_run() {
    let suite = common::repo_file("examples/crypto_bench.c");
    let args = [
        "bench",
        "--measure",
        "instructions",
        suite.to_str().unwrap(),
    ];
    let figures = |document: &Value| -> Vec<(String, u64)> {
        document["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let count = b["instructions"]["per_iteration"].as_f64().unwrap();
                (
                    b["name"].as_str().unwrap().to_owned(),
                    (count * 10.0).round() as u64,
                )
            })
            .collect()
    };
    let (_, first) = common::rho_json(&args, LIMIT);
    let (_, second) = common::rho_json(&args, LIMIT);
    assert_eq!(figures(&first), figures(&second));
    assert_eq!(per_iteration(&first, "bench_empty"), 0.0);
    let ratio = per_iteration(&first, "bench_crc_256") / per_iteration(&first, "bench_crc_64");
    assert!((3.9..=4.1).contains(&ratio), "CRC-256 / CRC-64 = {ratio}");
}

#[test]
fn time_and_instructions_come_together_from_two_runs() {
    let suite = common::repo_file("examples/crypto_bench.c");
    let (outcome, document) = common::rho_json(
        &[
            "bench",
            "--measure",
            "time,instructions",
            "--iterations",
            "200",
            suite.to_str().unwrap(),
        ],
        LIMIT,
    );
    let crc = bench(&document, "bench_crc_64");
    assert!(crc["time"]["net"]["median"].as_u64().is_some(), "{crc}");
    assert!(per_iteration(&document, "bench_crc_64") > 100.0, "{crc}");
    assert!(
        outcome.stdout.contains("ns (clock_gettime)")
            && outcome.stdout.contains("instructions (callgrind)"),
        "{}",
        outcome.describe()
    );
}
