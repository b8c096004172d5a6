//! A board of a labgrid place as a module.yml target (examples/labgrid): the suite built with the mps2-an386
//! port, run through labgrid's QEMUDriver standing in for the board (run_board.py, mps2-an386.yaml), gives the
//! same instruction figures as `--target mps2-an386`, exactly. Needs a Python with labgrid: RHO_LABGRID_PYTHON
//! (.ci/run installs labgrid into a virtual environment and sets it).

mod common;

use std::time::Duration;

use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(600);

/// Each benchmark's name, iterations and net instructions per iteration (the exact quotient), and who counted.
fn counted(benchmarks: &Value) -> Vec<(String, u64, f64, String)> {
    benchmarks
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["name"].as_str().unwrap().to_string(),
                b["iterations"].as_u64().unwrap(),
                b["instructions"]["per_iteration"].as_f64().unwrap(),
                b["instructions"]["source"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn crypto_bench_through_labgrid_counts_what_the_built_in_board_counts() {
    if !common::tools_present("labgrid_target", common::CROSS_TOOLS) {
        return;
    }
    let Some(python) = std::env::var_os("RHO_LABGRID_PYTHON") else {
        common::skipped_unless_required(
            "crypto_bench_through_labgrid_counts_what_the_built_in_board_counts",
            "a Python with labgrid (RHO_LABGRID_PYTHON)",
            "python3-venv; pip install labgrid",
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let lab_json = tmp.path().join("lab.json");
    let mut command = common::rho_command(
        tmp.path(),
        &[
            "bench",
            "--target",
            "lab-mps2-an386",
            "--json",
            lab_json.to_str().unwrap(),
        ],
    );
    command
        .current_dir(common::repo_file("examples/labgrid"))
        .env("LABGRID_PYTHON", &python);
    let lab = common::run_rho(command, &["bench", "--target", "lab-mps2-an386"], LIMIT);
    lab.assert_exit(0);
    let lab_document = common::read_json(&lab_json);
    assert_eq!(lab_document["target"], "lab-mps2-an386");

    let suite = common::repo_file("examples/crypto_bench.c");
    let (builtin, builtin_document) = common::rho_json(
        &["bench", "--target", "mps2-an386", suite.to_str().unwrap()],
        LIMIT,
    );
    builtin.assert_exit(0);

    let through_labgrid = counted(&lab_document["suites"][0]["benchmarks"]);
    let on_the_board = counted(&builtin_document["benchmarks"]);
    assert_eq!(through_labgrid.len(), 6, "{}", lab.describe());
    assert!(through_labgrid.iter().all(|b| b.3 == "qemu-icount"));
    assert_eq!(
        through_labgrid, on_the_board,
        "the same benchmarks, iterations and instructions, exactly"
    );
}
