//! A scratch repository and records for the tests.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use rho_baseline::format::{
    BenchmarkBaseline, Clocks, Context, Figure, Figures, Stack, TargetBaseline, TimeSource,
};
use rho_history::analysis::Commit;
use rho_history::{Measure, Origin, Record};

pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// A repository with `commits` empty commits on main: their ids, oldest first.
pub fn repo(dir: &Path, commits: usize) -> Vec<String> {
    git(dir, &["init", "--quiet", "--initial-branch=main"]);
    (0..commits)
        .map(|n| {
            git(
                dir,
                &[
                    "commit",
                    "--quiet",
                    "--allow-empty",
                    "-m",
                    &format!("commit {n}"),
                ],
            );
            git(dir, &["rev-parse", "HEAD"])
        })
        .collect()
}

fn context(target: &str, measure: Measure) -> Context {
    Context {
        target: target.to_string(),
        arch: "x86_64".to_string(),
        optimized: true,
        compiler: Some("gcc".to_string()),
        flags: Some("-O2".to_string()),
        tool: "rho 0.1.0".to_string(),
        recorded_at: "2026-12-04T10:00:00Z".to_string(),
        iterations: 10,
        warmup: 1,
        repetitions: 1,
        clocks: Clocks {
            cycles: None,
            time: match measure {
                Measure::Time => Some(rho_baseline::format::ClockInfo {
                    name: "clock_gettime".to_string(),
                    unit: "ns".to_string(),
                    hz: Some(1_000_000_000),
                    resolution: 1,
                }),
                Measure::Instructions => None,
            },
        },
        time_source: match measure {
            Measure::Time => TimeSource::TimeClock,
            Measure::Instructions => TimeSource::None,
        },
        instructions: (measure == Measure::Instructions).then(|| "callgrind".to_string()),
        yardsticks: Vec::new(),
    }
}

/// A record of `figures` (benchmark name, figure: instructions or nanoseconds per iteration by `measure`).
pub fn record(commit: &str, machine: &str, measure: Measure, figures: &[(&str, f64)]) -> Record {
    let benchmarks = figures
        .iter()
        .map(|&(name, figure)| BenchmarkBaseline {
            name: name.to_string(),
            suite: None,
            unit: "iter".to_string(),
            per_iteration: 1,
            iterations: 10,
            batch: 1,
            cycles: None,
            time_ns: (measure == Measure::Time).then_some(Figures {
                median: Figure(figure),
                p95: Figure(figure),
                p99: Figure(figure),
            }),
            cpu_ns: None,
            stack_bytes: Stack::Bytes(64),
            heap_peak_bytes: Some(0),
            instructions: (measure == Measure::Instructions).then_some(figure as u64),
            code_bytes: None,
            static_stack_bytes: None,
            functions: None,
            extra: Vec::new(),
            sampled_functions: None,
        })
        .collect();
    let section = TargetBaseline {
        context: context("host", measure),
        benchmarks,
    };
    let mut sections = rho_baseline::TargetSections::default();
    match measure {
        Measure::Time => sections.time = Some(section),
        Measure::Instructions => sections.instructions = Some(section),
    }
    let origin = Origin {
        commit: commit.to_string(),
        commit_time: "2026-12-04T10:00:00Z".to_string(),
        subject: "a commit".to_string(),
        dirty: false,
        machine: machine.to_string(),
        rho_version: "0.1.0".to_string(),
    };
    Record::from_sections(&sections, &origin).remove(0)
}

/// `n` commits of made-up ids, subjects `commit {i}`.
pub fn commits(n: usize) -> Vec<Commit> {
    (0..n)
        .map(|i| Commit {
            id: format!("{i:040x}"),
            subject: format!("commit {i}"),
        })
        .collect()
}

/// Forty commits of bench_a, its instructions 100000 per iteration until commit 20, 150000 from it on: the
/// records carry its functions, and from commit 20 a helper it calls does the extra 50000 (only in head).
pub fn stepped_with_functions() -> (Vec<Commit>, Vec<Record>) {
    use rho_profile::net::{CallFigures, FunctionFigures, Functions, Other};
    let function =
        |name: &str, own: f64, inclusive: f64, calls: Vec<CallFigures>| FunctionFigures {
            name: name.to_string(),
            file: None,
            line: None,
            self_per_iteration: own,
            inclusive_per_iteration: inclusive,
            calls,
        };
    let functions = |helper: Option<f64>| {
        let calls = helper.map_or_else(Vec::new, |helper| {
            vec![CallFigures {
                callee: "helper".to_string(),
                calls_per_iteration: 1.0,
                inclusive_per_iteration: helper,
            }]
        });
        let mut listed = vec![function(
            "bench_a",
            100_000.0,
            100_000.0 + helper.unwrap_or(0.0),
            calls,
        )];
        listed.extend(helper.map(|helper| function("helper", helper, helper, Vec::new())));
        Functions {
            source: "callgrind".to_string(),
            listed,
            other: Other::default(),
            sampling: None,
        }
    };
    let commits = commits(40);
    let records = commits
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let stepped = i >= 20;
            let figure = if stepped { 150_000.0 } else { 100_000.0 };
            let mut record = record(&c.id, "ci", Measure::Instructions, &[("bench_a", figure)]);
            record.section.benchmarks[0].functions = Some(functions(stepped.then_some(50_000.0)));
            record
        })
        .collect();
    (commits, records)
}

pub fn listing_of(records: &[Record]) -> rho_history::git::Listing {
    rho_history::git::Listing {
        tip: None,
        records: records
            .iter()
            .map(|r| (r.commit.clone(), r.clone()))
            .collect(),
        ..rho_history::git::Listing::default()
    }
}
