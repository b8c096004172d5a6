//! Time to verdict: the real gate on the project's kata (tests/kata), 3 alternating runs per side, both
//! builds included, from nothing to the verdict. Run with `cargo bench -p rho-gate --bench gate_kata`.
//!
//! It gates the reference against itself (the common case, an "ok") and against the first planted slowdown
//! (matmul loop order), through the kata's last-line JSON module and its rho wire-stream module, and prints
//! the seconds each took. The figure to watch is the JSON reference-against-itself gate: aim under 30 s.

use std::time::Instant;

use rho_gate::GateRequest;
use rho_gate::config::{load_local_config, settings_from_config};

#[path = "../tests/common/mod.rs"]
mod common;
use common::{copy_tree, gate_quiet, kata_dir, request};

const BENCH_H: &str = include_str!("../../../c/include/rho/bench.h");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `cargo test --benches` runs this with no `--bench`: do nothing then, it is a measurement, not a test.
    if !std::env::args().any(|a| a == "--bench") {
        return Ok(());
    }
    let tmp = tempfile::tempdir()?;
    copy_tree(&kata_dir(), &tmp.path().join("base"))?;
    copy_tree(&kata_dir(), &tmp.path().join("same"))?;
    copy_tree(&kata_dir(), &tmp.path().join("slow"))?;
    std::fs::copy(
        kata_dir().join("slowdowns/s01_matmul_loop_order_ijk.c"),
        tmp.path().join("slow/kernels.c"),
    )?;

    println!("gate_kata: 3 runs per side, builds included (seconds from start to verdict)");
    for (source, sub) in [("last-line JSON", "."), ("rho wire stream", "wire")] {
        for head in ["same", "slow"] {
            let cwd = tmp.path().join(head).join(sub);
            let config = load_local_config(&cwd)?.ok_or("the kata has no module.yml")?;
            let mut settings = settings_from_config(&config)?;
            settings.set_runs(3)?;
            let base = tmp.path().join("base").join(sub).display().to_string();
            let request = GateRequest {
                bench_header: BENCH_H.to_owned(),
                ..request(&cwd, &base, ".", settings)
            };
            let start = Instant::now();
            let outcome = gate_quiet(&request)?;
            let seconds = start.elapsed().as_secs_f64();
            let what = if head == "same" {
                "reference against itself"
            } else {
                "s01 (matmul loop order) as head"
            };
            println!(
                "{source:>16}, {what:<32}: {seconds:6.2} s  verdict {}",
                outcome.comparison.verdict
            );
        }
    }
    Ok(())
}
