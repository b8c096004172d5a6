//! The static stack bound is an upper bound of the measured mark, over the whole corpus: every suite in tests/
//! and examples/ that runs on a target, on every built-in board and on the host, through the real binary
//! (`rho bench --target BOARD SUITE --json`). Per target it counts the benchmarks, those with both a measured
//! mark and a static bound, those whose mark exceeds the bound (must be none), and the largest and smallest
//! slack (bound - mark), and prints the table.
//!
//! A board needs its cross compiler and QEMU: without them the board is skipped with a note, unless
//! `RHO_REQUIRE_CROSS` is set. Few iterations: the mark is the deepest the stack went, exact, and once the
//! sample buffer has been written out inside the measured iterations it is the same as after thousands.

mod common;

use std::time::Duration;

use common::*;
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(900);

/// Every suite of tests/ and examples/ that is a benchmark suite meant to finish: each entry is the files of
/// one suite. Left out, because they are made to fail: tests/c/misuse_suite.c (a misuse the harness refuses),
/// tests/cortex-m/trap_suite.c (a trap), tests/c/counter_floor.c (a bare counter read, no harness; it exits 2
/// without a cycle counter), tests/cortex-m/no_harness.c and hello.c (no benchmarks).
const CORPUS: &[&[&str]] = &[
    &["examples/crypto_bench.c"],
    &["examples/growth_bench.c"],
    &["examples/sort_bench.cpp"],
    &["tests/c/batch_suite.c"],
    &["tests/c/cap_suite.c"],
    &["tests/c/first_call_suite.c"],
    &["tests/c/footprint_suite.c"],
    &["tests/c/leak_suite.c"],
    &["tests/c/long_body_suite.c"],
    &["tests/c/nops.c"],
    &["tests/c/overflow_suite.c"],
    &["tests/c/setup_suite.c"],
    &["tests/c/skip_frames_suite.c"],
    &["tests/c/stack_suite.c"],
    &["tests/cortex-m/empty_suite.c"],
    &["tests/kata/bench_rho.c", "tests/kata/kernels.c"],
];

/// The suites a target cannot build, and why: the micro:bit's 16 KiB of RAM does not hold their buffers (the
/// link fails), and the RISC-V port builds C only.
fn cannot_build(target: &str, suite: &str) -> bool {
    match target {
        "microbit" => matches!(
            suite,
            "examples/growth_bench.c"
                | "examples/sort_bench.cpp"
                | "tests/c/setup_suite.c"
                | "tests/kata/bench_rho.c"
        ),
        "riscv32-virt" => suite == "examples/sort_bench.cpp",
        _ => false,
    }
}

/// What one target's runs came to.
#[derive(Default)]
struct Tally {
    suites: usize,
    benchmarks: usize,
    compared: usize,
    above: Vec<String>,
    largest_slack: Option<i64>,
    smallest_slack: Option<i64>,
}

fn tally_document(tally: &mut Tally, suite: &str, document: &Value) {
    let benchmarks = document["benchmarks"].as_array().expect("benchmarks");
    tally.suites += 1;
    tally.benchmarks += benchmarks.len();
    for bench in benchmarks {
        let (Some(mark), Some(bound)) = (
            bench["stack"]["bytes"].as_i64(),
            bench["footprint"]["static_stack_bytes"].as_i64(),
        ) else {
            continue;
        };
        tally.compared += 1;
        let slack = bound - mark;
        tally.largest_slack = Some(tally.largest_slack.map_or(slack, |s| s.max(slack)));
        tally.smallest_slack = Some(tally.smallest_slack.map_or(slack, |s| s.min(slack)));
        if mark > bound {
            tally.above.push(format!(
                "{suite}: {}: mark {mark} B above its bound {bound} B",
                bench["name"]
            ));
        }
    }
}

fn run_corpus(target: &str) -> Tally {
    let mut tally = Tally::default();
    for files in CORPUS {
        let mut args = vec!["bench"];
        if target != "host" {
            args.extend(["--target", target]);
        }
        args.extend(files.iter().copied());
        // More iterations than a board's sample buffer holds (8): the harness writes it out during the measured
        // iterations, below the benchmark, its deepest path. The kata's matmul costs 10^8 cycles an iteration
        // on a Cortex-M3 without an FPU: fewer there.
        let iterations = if files.len() > 1 { "10" } else { "20" };
        args.extend(["--iterations", iterations, "--warmup", "1"]);
        let (_tmp, outcome, document) = rho_to_json(&args, &[], LIMIT);
        let suite = files[0];
        if cannot_build(target, suite) {
            assert!(
                document.is_none() && outcome.stderr.contains("cannot build"),
                "{target}: {suite} was expected not to build: {}",
                outcome.describe()
            );
            continue;
        }
        outcome.assert_exit(0);
        let document = document.unwrap_or_else(|| panic!("{target}: {suite}: no document"));
        tally_document(&mut tally, suite, &document);
    }
    tally
}

#[test]
fn every_measured_mark_is_within_its_static_bound_on_every_board_and_the_host() {
    let mut targets: Vec<&str> = vec!["host"];
    for board in rho_config::BUILTIN_BOARDS {
        let tools: &[(&str, &str)] = if board.starts_with("riscv") {
            &[
                ("riscv64-unknown-elf-gcc", "gcc-riscv64-unknown-elf"),
                ("qemu-system-riscv32", "qemu-system-misc"),
            ]
        } else {
            CROSS_TOOLS
        };
        if tools_present(&format!("stack bounds on {board}"), tools) {
            targets.push(board);
        }
    }
    let mut failures = Vec::new();
    println!("target         suites  benchmarks  mark+bound  above  slack B (largest, smallest)");
    for target in targets {
        let tally = run_corpus(target);
        println!(
            "{target:<13}  {:>6}  {:>10}  {:>10}  {:>5}  {:?}, {:?}",
            tally.suites,
            tally.benchmarks,
            tally.compared,
            tally.above.len(),
            tally.largest_slack,
            tally.smallest_slack
        );
        // Not vacuous: every target compares most of the corpus's benchmarks.
        assert!(
            tally.compared >= 20,
            "{target}: only {} benchmarks had both a mark and a bound",
            tally.compared
        );
        failures.extend(tally.above.into_iter().map(|f| format!("{target}: {f}")));
    }
    assert!(
        failures.is_empty(),
        "measured marks above their static bounds:\n{}",
        failures.join("\n")
    );
}
