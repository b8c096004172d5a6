//! The STM32H743ZI port (`c/ports/stm32h743zi`, a Cortex-M7), built but not measured here: no NUCLEO-H743ZI is
//! attached to this machine. `tests/cortex-m/check-stm32h743zi.sh` builds the example suite for the part and
//! checks the image (vector table, stack, RTT block, the probe-rs run command, FLASH and DTCM use), then runs the
//! same port on QEMU's Cortex-M7 with its memories moved (start-up, console, exit status, fault report, the
//! harness's stream, the MPU guard, and the RTT console read by gdb-multiarch standing in for the probe);
//! `tests/cortex-m/measure-size.sh stm32h743zi` gives the harness's own cost on the M7 at -Os, held to the same
//! aims as on the M4.
//!
//! Without arm-none-eabi-gcc or qemu-system-arm each test prints a note and passes, unless `RHO_REQUIRE_CROSS`
//! is set (`.ci/run` sets it and installs both, and gdb-multiarch for the RTT check, which the script otherwise
//! skips with a note).

mod common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::*;

const LIMIT: Duration = Duration::from_secs(600);

fn script(test: &str, path: &str, args: &[&str]) -> Option<String> {
    if !cross_tools_present(test) {
        return None;
    }
    let output = Command::new("bash")
        .arg(repo_file(path))
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{path}: {}\n{text}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    Some(text)
}

#[test]
fn the_stm32h743zi_port_builds_for_the_part_and_its_start_up_runs_on_an_emulated_cortex_m7() {
    let Some(text) = script(
        "the_stm32h743zi_port_builds_for_the_part",
        "tests/cortex-m/check-stm32h743zi.sh",
        &[],
    ) else {
        return;
    };
    assert!(text.starts_with("check-stm32h743zi: ok"), "{text}");
    if std::env::var_os("RHO_REQUIRE_CROSS").is_some() {
        assert!(
            text.contains("RTT: hello through a 16-byte buffer"),
            "{text}"
        );
    }
}

/// The harness's own cost on the Cortex-M7 at -Os: the aims of the M4 (see cortex_m.rs) hold here too, the
/// figures are in README.md.
#[test]
fn the_harness_code_size_on_a_cortex_m7_stays_within_the_aims() {
    let Some(text) = script(
        "the_harness_code_size_on_a_cortex_m7_stays_within_the_aims",
        "tests/cortex-m/measure-size.sh",
        &["stm32h743zi"],
    ) else {
        return;
    };
    assert!(text.contains("-mcpu=cortex-m7"), "{text}");
    let figure = |prefix: &str, label: &str| -> u64 {
        let line = text
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{text}"));
        let at = line
            .find(label)
            .unwrap_or_else(|| panic!("{label} in {line}"));
        line[at + label.len()..]
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a number after {label} in {line}"))
    };
    let code = figure("harness object", " code ");
    let ram = figure("harness object", "static RAM ");
    let bare_code = figure("without the stack guard", " code ");
    let bare_ram = figure("without the stack guard", "static RAM ");
    // The M4's aims (cortex_m.rs): 2000, plus about 120 bytes for the machine's yardstick.
    assert!(bare_code > 0 && bare_code <= 2120, "{text}");
    assert!(bare_ram <= 64, "{text}");
    assert!(code >= bare_code && code - bare_code <= 680, "{text}");
    assert!(ram >= bare_ram && ram - bare_ram <= 32, "{text}");
}

/// `--target stm32h743zi` is built in: it builds the suite with the embedded port and runs `probe-rs run --chip
/// STM32H743ZITx` on the image. Here there is no board: without probe-rs the suite is built and the error says
/// what running it needs; with a stand-in `probe-rs` on the PATH, the stand-in is called with the image rho built
/// for the part (its answer, no stream, is reported as a failed run: nothing is measured).
#[test]
fn the_built_in_stm32h743zi_target_builds_the_suite_and_runs_it_with_probe_rs() {
    if !cross_tools_present("the_built_in_stm32h743zi_target_builds_the_suite") {
        return;
    }
    let args = [
        "bench",
        "--target",
        "stm32h743zi",
        "examples/crypto_bench.c",
        "--iterations",
        "100",
    ];
    let tmp = tempfile::tempdir().unwrap();
    let on_path = std::env::var("PATH").unwrap_or_default();
    if !on_path
        .split(':')
        .any(|dir| Path::new(dir).join("probe-rs").is_file())
    {
        let outcome = rho_in(tmp.path(), &args, LIMIT);
        outcome.assert_exit(2);
        outcome.assert_stderr_has(
            "--target stm32h743zi: built examples/crypto_bench.c for target stm32h743zi, but cannot run it \
             here: `probe-rs` is not on the PATH",
        );
        outcome.assert_stderr_has("NUCLEO-H743ZI");
        assert_nothing_left(tmp.path());
    }

    // A stand-in probe-rs: records its arguments and the image's first bytes, and prints nothing.
    let bin = tempfile::tempdir().unwrap();
    let record = bin.path().join("record");
    let stand_in = bin.path().join("probe-rs");
    std::fs::write(
        &stand_in,
        format!(
            "#!/bin/sh\necho \"$@\" > '{0}'\narm-none-eabi-objdump -f \"$4\" >> '{0}'\nexit 0\n",
            record.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{on_path}", bin.path().display());
    let outcome = rho_in_env(tmp.path(), &args, &[("PATH", &path)], LIMIT);
    assert_ne!(outcome.status, Some(0), "{}", outcome.describe());
    let recorded = std::fs::read_to_string(&record).unwrap();
    let mut lines = recorded.lines();
    let words: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(words[..3], ["run", "--chip", "STM32H743ZITx"], "{recorded}");
    assert!(words[3].ends_with("/bench.elf"), "{recorded}");
    assert!(recorded.contains("architecture: arm"), "{recorded}");
    assert!(recorded.contains("start address 0x08"), "{recorded}");
    assert_nothing_left(tmp.path());
}
