//! `rho bench gate` through the real binary on the project's kata (tests/kata): the reference against itself
//! passes twice in a row and every planted slowdown fails it, counting instructions (exact, so this holds on a
//! machine whose cores are all busy); timed, through both metric sources, a slowdown far outside any noise
//! (s09, a linear search for a binary one) fails it.
//!
//! They run one at a time (two gates on the same two cores would slow each other down) and print what the
//! gate saw, for the record.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use common::Outcome;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn kata_dir() -> PathBuf {
    common::repo_file("tests/kata")
}

/// Run `rho bench gate --json - ARGS` in `cwd` (the verdict document on stdout, the table on stderr; at most
/// 10 minutes: a test fails rather than hangs).
fn gate(cwd: &Path, args: &[&str]) -> Outcome {
    let args = [&["bench", "gate", "--json", "-"], args].concat();
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command.args(&args).current_dir(cwd);
    common::run_rho(command, &args, Duration::from_secs(600))
}

/// `tmp/base` and `tmp/head`, each a copy of the kata; head's kernels.c replaced by `head_kernels` if given.
fn kata_pair(tmp: &Path, head_kernels: Option<&Path>) -> (PathBuf, PathBuf) {
    let base = tmp.join("base");
    let head = tmp.join("head");
    common::copy_tree(&kata_dir(), &base);
    common::copy_tree(&kata_dir(), &head);
    if let Some(kernels) = head_kernels {
        std::fs::copy(kernels, head.join("kernels.c")).unwrap();
    }
    (base, head)
}

#[test]
fn the_kata_against_itself_passes_twice_in_a_row() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let (_base, head) = kata_pair(tmp.path(), None);
    for attempt in 1..=2 {
        let outcome = gate(
            &head.join("wire"),
            &["--base", "../../base/wire", "--measure", "instructions"],
        );
        eprintln!("attempt {attempt}:\n{}", outcome.describe());
        assert_eq!(
            outcome.status,
            Some(0),
            "attempt {attempt}:\n{}",
            outcome.describe()
        );
        let doc = outcome.document();
        assert_eq!(doc["verdict"], "ok");
        assert_eq!(doc["runs"], 1, "a count is exact: one run per side");
        let metrics = doc["metrics"].as_object().unwrap();
        for kernel in ["count_below", "matmul", "rmsnorm", "sum"] {
            let name = format!("bench_{kernel}.instructions");
            let m = &metrics[&name];
            assert_eq!(m["budget"], 0.01, "{name}: instructions are judged at 1%");
            assert_eq!(m["change"], 0.0, "{name}: identical code counts the same");
            assert!(m["base"].as_f64().unwrap() > 0.0, "{name}");
        }
        assert!(
            !metrics
                .keys()
                .any(|k| k.ends_with(".ns") || k.ends_with(".cycles")),
            "a counted gate judges no time: {metrics:?}"
        );
        assert!(
            outcome.stderr.contains("one run each"),
            "the gate says why one run is enough: {}",
            outcome.describe()
        );
    }
}

/// The kernel each planted slowdown makes slower (its file name says which).
fn target_kernel(file_name: &str) -> &'static str {
    for kernel in ["matmul", "rmsnorm", "count_below", "sum"] {
        if file_name.contains(kernel) {
            return kernel;
        }
    }
    panic!("{file_name}: no kernel named in the file name");
}

/// Every planted slowdown as head against the reference as base, counting instructions through the wire
/// stream: each must be caught (exit 1, the metric of the kernel it slowed regressed) and no other kernel's
/// count may move (a slowdown changes one kernel's code).
#[test]
fn the_planted_slowdowns_fail_the_gate() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut slowdowns: Vec<PathBuf> = std::fs::read_dir(kata_dir().join("slowdowns"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    slowdowns.sort();
    assert!(
        slowdowns.len() >= 8,
        "the kata carries at least eight slowdowns"
    );

    let mut record = String::from(
        "slowdown                                   metric                        head/base  exit  caught\n",
    );
    let mut failures = Vec::new();
    for slowdown in &slowdowns {
        let name = slowdown.file_stem().unwrap().to_string_lossy().into_owned();
        let tmp = tempfile::tempdir().unwrap();
        let (_base, head) = kata_pair(tmp.path(), Some(slowdown));
        let outcome = gate(
            &head.join("wire"),
            &["--base", "../../base/wire", "--measure", "instructions"],
        );
        let doc = outcome.document();
        let kernel = target_kernel(&name);
        let metric = format!("bench_{kernel}.instructions");
        let planted = &doc["metrics"][&metric];
        let ratio = planted["change"].as_f64().map(|c| c + 1.0);
        let caught = outcome.status == Some(1)
            && doc["verdict"] == "regressed"
            && planted["regressed"] == true;
        record.push_str(&format!(
            "{name:<42} {metric:<29} {:>10}  {:?}  {caught}\n",
            ratio.map_or("-".to_owned(), |r| format!("{r:.2}x")),
            outcome.status,
        ));
        if !caught {
            failures.push(format!(
                "{name} was not caught on {metric}:\n{}",
                outcome.describe()
            ));
        }
        if let Err(why) = names_the_planted_function(&doc, kernel) {
            failures.push(format!("{name}: {why}\n{}", outcome.describe()));
        }
        for other in ["count_below", "matmul", "rmsnorm", "sum"] {
            let other_metric = format!("bench_{other}.instructions");
            if other != kernel && doc["metrics"][&other_metric]["change"] != 0.0 {
                failures.push(format!(
                    "{name} moved {other_metric}, which it does not touch:\n{}",
                    outcome.describe()
                ));
            }
        }
    }
    eprintln!("{record}");
    assert!(failures.is_empty(), "{failures:?}\n{record}");
}

/// Why it got slower (issue 26): under the one regressed benchmark, the first function named is the planted
/// kernel's (`kata_KERNEL`), the helper it moved its work into (`KERNEL_once`, only in head) or the library
/// call it now makes (`memcpy`); and the functions' own changes add up to the benchmark's change, exactly
/// (each figure is a whole count per iteration, so at most half an instruction of rounding each).
fn names_the_planted_function(doc: &serde_json::Value, kernel: &str) -> Result<(), String> {
    let bench = format!("bench_{kernel}");
    let regressed = doc["functions"]
        .as_array()
        .ok_or("no `functions` in the document")?;
    let [entry] = regressed.as_slice() else {
        return Err(format!(
            "expected one regressed benchmark's functions, found {regressed:?}"
        ));
    };
    if entry["bench"] != bench.as_str() {
        return Err(format!(
            "functions listed under {}, expected {bench}",
            entry["bench"]
        ));
    }
    let functions = entry["functions"].as_array().ok_or("no function changed")?;
    let first = functions.first().ok_or("no function changed")?["name"]
        .as_str()
        .unwrap_or_default();
    if !(first.contains(kernel) || first.contains("memcpy")) {
        return Err(format!(
            "the first changed function is {first}, not {kernel}'s"
        ));
    }
    let side = |f: &serde_json::Value, side: &str| f[side]["self"].as_f64().unwrap_or(0.0);
    let own: f64 = functions
        .iter()
        .map(|f| side(f, "head") - side(f, "base"))
        .sum();
    let metric = &doc["metrics"][format!("{bench}.instructions")];
    let change = metric["head"].as_f64().unwrap_or(0.0) - metric["base"].as_f64().unwrap_or(0.0);
    if (own - change).abs() > 0.5 * functions.len() as f64 + 1.0 {
        return Err(format!(
            "the functions' own changes add up to {own}, the benchmark changed by {change}"
        ));
    }
    Ok(())
}

/// Timed, through the last-line JSON source: a slowdown far outside any noise (s09 turns a binary search into
/// a linear one) fails the gate on its kernel's metric.
#[test]
fn a_slowdown_far_outside_the_noise_fails_the_timed_json_gate() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let linear_search = kata_dir().join("slowdowns/s09_count_below_linear_search.c");
    let (_base, head) = kata_pair(tmp.path(), Some(&linear_search));
    let outcome = gate(&head, &["--base", "../base", "--head", "."]);
    eprintln!("{}", outcome.describe());
    assert_eq!(outcome.status, Some(1), "{}", outcome.describe());
    let doc = outcome.document();
    // Adaptive by default: 540x is beyond the whole-run allowance, settled by the second pair (a figure with no
    // samples, as a JSON metric, fails early only when head was that slow in two rounds); the others run
    // until the paired rule or the minima settle them, within the default ceiling.
    let runs = doc["runs"].as_u64().unwrap();
    assert!((1..=20).contains(&runs), "{runs}");
    let metrics = doc["metrics"].as_object().unwrap();
    let names: Vec<&str> = metrics.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["count_below_ns", "matmul_ns", "rmsnorm_ns", "sum_ns"]
    );
    assert_eq!(metrics["count_below_ns"]["budget"], 0.5);
    assert_eq!(metrics["count_below_ns"]["runs_head"], 2);
    assert_eq!(metrics["count_below_ns"]["regressed"], true);
    assert!(metrics["count_below_ns"]["change"].as_f64().unwrap() > 10.0);
}

/// Timed, through the wire stream: every metric of every benchmark is there, and a slowdown far outside any
/// noise (s09) fails on its kernel's time while its stack does not move.
#[test]
fn the_kata_through_the_wire_stream() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let linear_search = kata_dir().join("slowdowns/s09_count_below_linear_search.c");
    let (_base, head) = kata_pair(tmp.path(), Some(&linear_search));
    let slow = gate(
        &head.join("wire"),
        &["--base", "../../base/wire", "--runs", "3"],
    );
    eprintln!("{}", slow.describe());
    assert_eq!(slow.status, Some(1), "{}", slow.describe());
    assert!(slow.stderr.contains("rho wire stream"));
    let doc = slow.document();
    let metrics = doc["metrics"].as_object().unwrap();
    for name in [
        "bench_matmul.ns",
        "bench_matmul.cycles",
        "bench_sum.stack",
        "bench_sum.heap_peak",
    ] {
        assert!(
            metrics.contains_key(name),
            "{name} missing:\n{}",
            slow.describe()
        );
    }
    assert_eq!(metrics["bench_count_below.ns"]["regressed"], true);
    assert!(metrics["bench_count_below.ns"]["change"].as_f64().unwrap() > 10.0);
    assert_eq!(metrics["bench_count_below.stack"]["regressed"], false);
    // The sides one after the other: no turns (lock-step is asked for).
    assert_eq!(doc["lock_step_turns"], 0, "{}", slow.describe());
}

/// `--lock-step` (docs/gate.md, "Lock-step rounds"): the two sides' runs take turns, the header and the JSON
/// say how many, and the planted slowdown (170x to 800x) is caught as without it. A fixed gate of two rounds,
/// so both rounds run every benchmark in lock-step whatever settles.
#[test]
fn the_kata_through_the_wire_stream_in_lock_step() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let linear_search = kata_dir().join("slowdowns/s09_count_below_linear_search.c");
    let (_base, head) = kata_pair(tmp.path(), Some(&linear_search));
    let slow = gate(
        &head.join("wire"),
        &[
            "--base",
            "../../base/wire",
            "--runs",
            "2",
            "--max-runs",
            "2",
            "--lock-step",
        ],
    );
    assert_eq!(slow.status, Some(1), "{}", slow.describe());
    let doc = slow.document();
    assert_eq!(doc["metrics"]["bench_count_below.ns"]["regressed"], true);
    let turns = doc["lock_step_turns"].as_u64().unwrap();
    assert!(turns >= 10, "{turns} turns\n{}", slow.describe());
    assert!(
        slow.stderr.contains(&format!(
            "both at once taking turns ({turns} turns, lock-step)"
        )),
        "{}",
        slow.describe()
    );
}

/// The built-in `host` target: rho compiles the suite itself, exactly as `rho bench` does, on each side.
#[test]
fn the_kata_as_a_host_suite_that_rho_builds() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let linear_search = kata_dir().join("slowdowns/s09_count_below_linear_search.c");
    let (base, head) = kata_pair(tmp.path(), Some(&linear_search));
    let module = "bench:\n  warmup_runs: 50\n  time_cap_ms: 1000\n  benchmarks:\n    bench_matmul:\n      \
                  iterations: 100\n    bench_sum:\n      iterations: 5000\n    bench_rmsnorm:\n      \
                  iterations: 5000\n    bench_count_below:\n      iterations: 5000\n  suites:\n    - \
                  [bench_rho.c, kernels.c]\n  targets:\n    - host\n";
    for side in [&base, &head] {
        let dir = side.join("host");
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["bench_rho.c", "kernels.c", "kernels.h", "bench_inputs.h"] {
            std::fs::copy(side.join(file), dir.join(file)).unwrap();
        }
        std::fs::write(dir.join("module.yml"), module).unwrap();
    }
    let outcome = gate(
        &head.join("host"),
        &["--base", "../../base/host", "--runs", "2"],
    );
    eprintln!("{}", outcome.describe());
    assert_eq!(outcome.status, Some(1), "{}", outcome.describe());
    let doc = outcome.document();
    assert_eq!(doc["metrics"]["bench_count_below.ns"]["regressed"], true);
    assert!(
        doc["metrics"]["bench_count_below.ns"]["change"]
            .as_f64()
            .unwrap()
            > 10.0
    );
    assert_eq!(doc["metrics"]["bench_matmul.stack"]["regressed"], false);
    assert!(
        outcome
            .stderr
            .contains("building bench_rho.c kernels.c for host"),
        "{}",
        outcome.describe()
    );
}

/// A side of the kata as a board suite rho builds: `bench_rho.c` and `kernels.c` for `board`, head's
/// kernels.c replaced by `head_kernels` if given; (base, head).
fn kata_board_pair(tmp: &Path, board: &str, head_kernels: Option<&Path>) -> (PathBuf, PathBuf) {
    let module =
        format!("bench:\n  suites:\n    - [bench_rho.c, kernels.c]\n  targets:\n    - {board}\n");
    let (base, head) = kata_pair(tmp, head_kernels);
    for side in [&base, &head] {
        std::fs::write(side.join("module.yml"), &module).unwrap();
    }
    (base, head)
}

/// A board gate run from a directory that holds no module.yml (base and head named as directories) counts
/// with QEMU's plugin as one run from head does: the counter was chosen from the module.yml where the gate ran,
/// and without one it fell back to Callgrind ("instructions counted under Callgrind") for `--target mps2-an385`.
#[test]
fn a_board_gate_run_from_outside_the_module_counts_with_qemus_plugin() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    if !common::tools_present(
        "a_board_gate_run_from_outside_the_module_counts_with_qemus_plugin",
        &[
            ("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
            ("qemu-system-arm", "qemu-system-arm"),
        ],
    ) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (_base, _head) = kata_board_pair(tmp.path(), "mps2-an385", None);
    let outcome = gate(
        tmp.path(),
        &[
            "--base",
            "base",
            "--head",
            "head",
            "--target",
            "mps2-an385",
            "--measure",
            "instructions",
            "--iterations",
            "2",
        ],
    );
    assert_eq!(outcome.status, Some(0), "{}", outcome.describe());
    assert!(
        outcome
            .stderr
            .contains("instructions counted by QEMU with rho's plugin"),
        "{}",
        outcome.describe()
    );
}

/// `--measure instructions` on a board is QEMU's exact count (rho's plugin), issue 24: the kata on the
/// Cortex-M3 (`mps2-an385`) and on RISC-V (`riscv32-virt`), built by the board's port as `rho bench` builds
/// it, passes a gate against itself with every instruction figure unchanged to the instruction, and fails one
/// against a planted slowdown (s08: rmsnorm run twice) on that kernel alone, +100% (measured: 681,615 ->
/// 1,363,239 on the M3, 1,667,975 -> 3,335,967 on RISC-V). Exact, so it holds on a loaded machine.
#[test]
fn the_kata_on_the_boards_gates_on_qemu_instruction_counts() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let twice = kata_dir().join("slowdowns/s08_rmsnorm_twice.c");
    for (board, tools) in [
        (
            "mps2-an385",
            [
                ("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
                ("qemu-system-arm", "qemu-system-arm"),
            ],
        ),
        (
            "riscv32-virt",
            [
                ("riscv64-unknown-elf-gcc", "gcc-riscv64-unknown-elf"),
                ("qemu-system-riscv32", "qemu-system-misc"),
            ],
        ),
    ] {
        if !common::tools_present(
            "the_kata_on_the_boards_gates_on_qemu_instruction_counts",
            &tools,
        ) {
            continue;
        }
        let args = [
            "--base",
            "../base",
            "--measure",
            "instructions",
            "--iterations",
            "2",
        ];
        let tmp = tempfile::tempdir().unwrap();
        let (_base, head) = kata_board_pair(tmp.path(), board, None);
        let same = gate(&head, &args);
        eprintln!("{board}, no change:\n{}", same.describe());
        assert_eq!(same.status, Some(0), "{board}:\n{}", same.describe());
        assert!(
            same.stderr
                .contains("instructions counted by QEMU with rho's plugin"),
            "{}",
            same.describe()
        );
        let doc = same.document();
        let metrics = doc["metrics"].as_object().unwrap();
        let counted: Vec<_> = metrics
            .iter()
            .filter(|(name, _)| name.ends_with(".instructions"))
            .collect();
        assert_eq!(counted.len(), 4, "{board}: {doc}");
        for (name, metric) in counted {
            assert_eq!(metric["change"].as_f64(), Some(0.0), "{board}: {name}");
        }

        let tmp = tempfile::tempdir().unwrap();
        let (_base, head) = kata_board_pair(tmp.path(), board, Some(&twice));
        let slow = gate(&head, &args);
        eprintln!("{board}, rmsnorm twice:\n{}", slow.describe());
        assert_eq!(slow.status, Some(1), "{board}:\n{}", slow.describe());
        let doc = slow.document();
        let rmsnorm = &doc["metrics"]["bench_rmsnorm.instructions"];
        assert_eq!(rmsnorm["regressed"], true, "{board}: {doc}");
        let change = rmsnorm["change"].as_f64().unwrap();
        assert!(
            (change - 1.0).abs() < 0.01,
            "{board}: {change} (a fraction)"
        );
        for kernel in ["bench_matmul", "bench_sum", "bench_count_below"] {
            let metric = &doc["metrics"][format!("{kernel}.instructions")];
            assert_eq!(metric["change"].as_f64(), Some(0.0), "{board}: {kernel}");
        }
    }
}

/// `--measure instructions` on a target of module.yml's own with `counter: qemu-plugin` (its `run:` starts
/// QEMU's mps2-an385 itself, loading the plugin from `$RHO_QEMU_PLUGIN`): the gate counts as on the built-in
/// board, and the planted slowdown (s08, rmsnorm run twice) fails on that kernel alone, +100%, every other
/// kernel's count unchanged to the instruction.
#[test]
fn a_target_of_its_own_with_the_plugin_gates_on_qemu_instruction_counts() {
    let test = "a_target_of_its_own_with_the_plugin_gates_on_qemu_instruction_counts";
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    if !common::tools_present(test, common::CROSS_TOOLS) {
        return;
    }
    let makefile = common::repo_file("c/ports/Makefile");
    let module = format!(
        "bench:
  suites:
    - [bench_rho.c, kernels.c]
  targets:
    - name: own-mps2-an385
      build: make -s -f '{}' BOARD=mps2-an385 SUITE=\"$RHO_BENCH_SOURCES\" RHO_BENCH_INCLUDE=\"$RHO_BENCH_INCLUDE\" RHO_BENCH_OUT=\"$RHO_BENCH_OUT\"
      run: qemu-system-arm -M mps2-an385 -display none -serial none -monitor none -icount shift=5 -chardev stdio,id=console -semihosting-config enable=on,target=native,chardev=console -plugin \"$RHO_QEMU_PLUGIN\" -kernel \"$RHO_BENCH_OUT/bench.elf\"
      counter: qemu-plugin
",
        makefile.display()
    );
    let tmp = tempfile::tempdir().unwrap();
    let (base, head) = kata_pair(
        tmp.path(),
        Some(&kata_dir().join("slowdowns/s08_rmsnorm_twice.c")),
    );
    for side in [&base, &head] {
        std::fs::write(side.join("module.yml"), &module).unwrap();
    }
    let args = [
        "--base",
        "../base",
        "--measure",
        "instructions",
        "--iterations",
        "2",
    ];
    let slow = gate(&head, &args);
    assert_eq!(slow.status, Some(1), "{}", slow.describe());
    assert!(
        slow.stderr
            .contains("instructions counted by QEMU with rho's plugin"),
        "{}",
        slow.describe()
    );
    let doc = slow.document();
    let rmsnorm = &doc["metrics"]["bench_rmsnorm.instructions"];
    assert_eq!(rmsnorm["regressed"], true, "{doc}");
    let change = rmsnorm["change"].as_f64().unwrap();
    assert!((change - 1.0).abs() < 0.01, "{change} (a fraction)");
    for kernel in ["bench_matmul", "bench_sum", "bench_count_below"] {
        let metric = &doc["metrics"][format!("{kernel}.instructions")];
        assert_eq!(metric["change"].as_f64(), Some(0.0), "{kernel}: {doc}");
    }
}

/// A benchmark that writes a 3 KiB frame from its top down (the painted region filled before anything below it).
const DEEP_FRAME_SUITE: &str = "#include <rho/bench.h>\n\
static void bench_deep(rho_bench_t *state)\n{\n    RHO_BENCH_LOOP(state) {\n        \
volatile unsigned char frame[3072];\n        unsigned i;\n        \
for (i = sizeof frame; i-- > 0;) {\n            frame[i] = (unsigned char)i;\n        }\n        \
RHO_BENCH_KEEP(frame[7]);\n    }\n}\n\
int main(int argc, char **argv)\n{\n    rho_bench_suite_t suite = {0};\n    \
RHO_BENCH_ADD(&suite, bench_deep);\n    return rho_bench_main(&suite, argc, argv);\n}\n";

/// module.yml's `stack_bytes:` for a board target reaches the gate's board builds (issue 24: it did not): with
/// `stack_bytes: 1024` on `mps2-an386` a 3 KiB frame runs into the MPU guard below the painted region, the
/// harness stops the benchmark and the gate cannot decide it; with the board's default region the same suite
/// passes.
#[test]
fn a_board_targets_stack_bytes_reaches_the_gates_builds() {
    let tools = [
        ("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
        ("qemu-system-arm", "qemu-system-arm"),
    ];
    if !common::tools_present(
        "a_board_targets_stack_bytes_reaches_the_gates_builds",
        &tools,
    ) {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    for (target, expected) in [
        ("- name: mps2-an386\n      stack_bytes: 1024", 2),
        ("- mps2-an386", 0),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        for side in ["base", "head"] {
            let dir = tmp.path().join(side);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("deep.c"), DEEP_FRAME_SUITE).unwrap();
            let module = format!("bench:\n  suites:\n    - [deep.c]\n  targets:\n    {target}\n");
            std::fs::write(dir.join("module.yml"), module).unwrap();
        }
        let outcome = gate(
            &tmp.path().join("head"),
            &["--base", "../base", "--runs", "2", "--iterations", "20"],
        );
        eprintln!("{target}:\n{}", outcome.describe());
        assert_eq!(
            outcome.status,
            Some(expected),
            "{target}:\n{}",
            outcome.describe()
        );
        if expected == 2 {
            assert!(outcome.stderr.contains("overran"), "{}", outcome.describe());
        }
    }
}
