//! The hosted harness on 64-bit Arm: `rho bench --target aarch64-linux` cross-compiles a suite with
//! aarch64-linux-gnu-gcc (the embedded `c/ports/aarch64-linux` Makefile, linked statically) and runs it under
//! QEMU's user-mode emulator, so the `cntvct` counter's path (CNTVCT_EL0 at CNTFRQ_EL0's frequency) is compiled
//! and run on a machine that is not arm64. qemu-user's clock follows the host's, so no figure is held to a ratio
//! here: the stream parses, names its target, arch and clock, and every benchmark has figures.
//!
//! Without the cross compiler or qemu-aarch64 each test prints a note and passes, unless `RHO_REQUIRE_CROSS` is
//! set (`.ci/run` sets it and installs them).

mod common;

use std::time::Duration;

use common::*;

const TOOLS: &[(&str, &str)] = &[
    ("make", "make"),
    (
        "aarch64-linux-gnu-gcc",
        "gcc-aarch64-linux-gnu, libc6-dev-arm64-cross",
    ),
    ("qemu-aarch64", "qemu-user"),
];

#[test]
fn the_example_suite_runs_on_aarch64_linux_under_qemu_user_through_cntvct() {
    if !tools_present(
        "the_example_suite_runs_on_aarch64_linux_under_qemu_user_through_cntvct",
        TOOLS,
    ) {
        return;
    }
    let (outcome, document) = rho_json(
        &[
            "bench",
            "--target",
            "aarch64-linux",
            "examples/crypto_bench.c",
            "--iterations",
            "2000",
            "--warmup",
            "20",
        ],
        Duration::from_secs(600),
    );
    assert_eq!(document["target"]["name"], "aarch64-linux", "{document}");
    assert_eq!(document["target"]["arch"], "aarch64", "{document}");
    assert_eq!(document["target"]["optimized"], true, "{document}");
    assert_eq!(
        document["suite"]["compiler"][0], "aarch64-linux-gnu-gcc",
        "{document}"
    );
    assert_eq!(
        bench_names(&document),
        [
            "bench_empty",
            "bench_crc_64",
            "bench_crc_256",
            "bench_malloc_free",
            "bench_steady",
            "bench_outlier"
        ],
        "{}",
        outcome.describe()
    );
    for name in ["bench_crc_64", "bench_crc_256", "bench_steady"] {
        let bench = bench(&document, name);
        let clock = &bench["cycles"]["clock"];
        assert_eq!(clock["name"], "cntvct", "{name}: {clock}");
        assert_eq!(clock["unit"], "tick", "{name}: {clock}");
        assert!(
            clock["hz"].as_u64().is_some_and(|hz| hz > 0),
            "{name}: {clock}"
        );
        assert!(median_cycles(&document, name) > 0.0, "{name}: {bench}");
        assert!(
            f64_at(bench, "/time/per_iteration/median") > 0.0,
            "{name}: {bench}"
        );
    }
    // The malloc/free pair: glibc's allocator, one slot at a time, every allocation freed.
    let slot = c_define(&repo_file("examples/crypto_bench.c"), "SLOT_BYTES");
    let pair = bench(&document, "bench_malloc_free");
    assert_eq!(u64_at(pair, "/heap/peak"), slot, "{pair}");
    assert_eq!(u64_at(pair, "/heap/live"), 0, "{pair}");
    assert!(
        outcome.stdout.contains("aarch64-linux"),
        "{}",
        outcome.describe()
    );
}

/// `aarch64-linux` as a gate's `--target` (issue 24): each side's suite built by the embedded port and run
/// under qemu-user, its wire stream read into every benchmark's metrics. qemu-user's clock is the host's, so
/// no verdict is asserted (a loaded machine may move a time by any amount); the gate decides (0 or 1, never
/// "cannot decide") and has the cycles, time and stack of each benchmark on both sides.
#[test]
fn aarch64_linux_is_a_gate_target() {
    if !tools_present("aarch64_linux_is_a_gate_target", TOOLS) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for side in ["base", "head"] {
        let dir = tmp.path().join(side);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(repo_file("tests/c/nops.c"), dir.join("nops.c")).unwrap();
        std::fs::write(
            dir.join("module.yml"),
            "bench:\n  suites:\n    - [nops.c]\n  targets:\n    - aarch64-linux\n",
        )
        .unwrap();
    }
    let args = [
        "bench",
        "gate",
        "--json",
        "-",
        "--base",
        "../base",
        "--runs",
        "2",
        "--iterations",
        "200",
    ];
    let mut command = rho_command(tmp.path(), &args);
    command.current_dir(tmp.path().join("head"));
    let outcome = run_rho(command, &args, Duration::from_secs(600));
    assert!(
        matches!(outcome.status, Some(0 | 1)),
        "{}",
        outcome.describe()
    );
    let document: serde_json::Value = serde_json::from_str(outcome.stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {}", outcome.describe()));
    for bench in [
        "bench_nop_1",
        "bench_nop_1000",
        "bench_nop_3000",
        "bench_nop_none",
    ] {
        for metric in ["cycles", "ns", "stack"] {
            let name = format!("{bench}.{metric}");
            assert!(
                document["metrics"][&name].is_object(),
                "{name}: {}",
                outcome.describe()
            );
        }
    }
}
