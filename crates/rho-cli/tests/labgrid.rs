//! A board of a labgrid place as a module.yml target (examples/labgrid): the suite built with the mps2-an386
//! port, run through labgrid's QEMUDriver standing in for the board (run_board.py, mps2-an386.yaml), gives the
//! same instruction figures as `--target mps2-an386`, exactly. Needs a Python with labgrid: RHO_LABGRID_PYTHON
//! (.ci/run installs labgrid into a virtual environment and sets it).

mod common;

use std::path::Path;
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

/// The Python with labgrid, or `None` (the test skipped, or failed under RHO_REQUIRE_CROSS) without it or
/// the board's tools.
fn labgrid_python(test: &str) -> Option<std::ffi::OsString> {
    if !common::tools_present(test, common::CROSS_TOOLS) {
        return None;
    }
    let python = std::env::var_os("RHO_LABGRID_PYTHON");
    if python.is_none() {
        common::skipped_unless_required(
            test,
            "a Python with labgrid (RHO_LABGRID_PYTHON)",
            "python3-venv; pip install labgrid",
        );
    }
    python
}

/// `rho ARGS` in examples/labgrid with labgrid's Python, its temporary files in `tmp`; it must exit 0.
fn rho_lab(tmp: &Path, python: &std::ffi::OsStr, args: &[&str]) -> common::Outcome {
    let mut command = common::rho_command(tmp, args);
    command
        .current_dir(common::repo_file("examples/labgrid"))
        .env("LABGRID_PYTHON", python)
        .env_remove("RHO_SHARD");
    let outcome = common::run_rho(command, args, LIMIT);
    outcome.assert_exit(0);
    outcome
}

#[test]
fn crypto_bench_through_labgrid_counts_what_the_built_in_board_counts() {
    let test = "crypto_bench_through_labgrid_counts_what_the_built_in_board_counts";
    let Some(python) = labgrid_python(test) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let lab_json = tmp.path().join("lab.json");
    let lab_args = [
        "bench",
        "--target",
        "lab-mps2-an386",
        "--json",
        lab_json.to_str().unwrap(),
    ];
    let lab = rho_lab(tmp.path(), &python, &lab_args);
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
    assert!(through_labgrid.iter().all(|b| b.3 == "qemu"));
    assert_eq!(
        through_labgrid, on_the_board,
        "the same benchmarks, iterations and instructions, exactly"
    );
}

/// A module of `examples/crypto_bench.c` with two targets of its own on the mps2-an386 port, both with
/// `counter: qemu-plugin`: `own-mps2-an386` runs QEMU as the built-in board does and loads the plugin from
/// `$RHO_QEMU_PLUGIN`; `forgetful-mps2-an386` runs it without the plugin.
fn own_board_module(dir: &Path) {
    std::fs::copy(
        common::repo_file("examples/crypto_bench.c"),
        dir.join("crypto_bench.c"),
    )
    .unwrap();
    let makefile = common::repo_file("c/ports/Makefile");
    let qemu = "qemu-system-arm -M mps2-an386 -display none -serial none -monitor none -icount shift=5 \
                -chardev stdio,id=console -semihosting-config enable=on,target=native,chardev=console";
    let module = format!(
        "bench:
  suites:
    - crypto_bench.c
  targets:
    - name: own-mps2-an386
      build: &build make -s -f '{makefile}' BOARD=mps2-an386 SUITE=\"$RHO_BENCH_SOURCES\" RHO_BENCH_INCLUDE=\"$RHO_BENCH_INCLUDE\" RHO_BENCH_OUT=\"$RHO_BENCH_OUT\"
      run: {qemu} -plugin \"$RHO_QEMU_PLUGIN\" -kernel \"$RHO_BENCH_OUT/bench.elf\"
      counter: qemu-plugin
    - name: forgetful-mps2-an386
      build: *build
      run: {qemu} -kernel \"$RHO_BENCH_OUT/bench.elf\"
      counter: qemu-plugin
",
        makefile = makefile.display()
    );
    std::fs::write(dir.join("module.yml"), module).unwrap();
}

#[test]
fn a_target_of_its_own_counts_with_the_plugin_its_run_loads() {
    let test = "a_target_of_its_own_counts_with_the_plugin_its_run_loads";
    if !common::tools_present(test, common::CROSS_TOOLS) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    own_board_module(tmp.path());
    let own_json = tmp.path().join("own.json");
    let args = [
        "bench",
        "--target",
        "own-mps2-an386",
        "--json",
        own_json.to_str().unwrap(),
    ];
    let own = common::rho_at(tmp.path(), &args, LIMIT);
    own.assert_exit(0);
    let own_document = common::read_json(&own_json);

    let suite = common::repo_file("examples/crypto_bench.c");
    let (builtin, builtin_document) = common::rho_json(
        &["bench", "--target", "mps2-an386", suite.to_str().unwrap()],
        LIMIT,
    );
    builtin.assert_exit(0);

    let on_its_own = counted(&own_document["suites"][0]["benchmarks"]);
    assert_eq!(on_its_own.len(), 6, "{}", own.describe());
    assert!(on_its_own.iter().all(|b| b.3 == "qemu"), "{on_its_own:?}");
    assert_eq!(
        on_its_own,
        counted(&builtin_document["benchmarks"]),
        "the same benchmarks, iterations and instructions, exactly"
    );
}

#[test]
fn a_counter_whose_run_never_loads_the_plugin_is_refused() {
    let test = "a_counter_whose_run_never_loads_the_plugin_is_refused";
    if !common::tools_present(test, common::CROSS_TOOLS) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    own_board_module(tmp.path());
    let json = tmp.path().join("forgetful.json");
    let args = [
        "bench",
        "--target",
        "forgetful-mps2-an386",
        "--json",
        json.to_str().unwrap(),
    ];
    let outcome = common::rho_at(tmp.path(), &args, LIMIT);
    outcome.assert_exit(2);
    outcome.assert_stderr_has("target forgetful-mps2-an386 has `counter: qemu-plugin`");
    outcome.assert_stderr_has("must add `-plugin \"$RHO_QEMU_PLUGIN\"`");
    // The suite is recorded as failed (docs/json-output.md, `failed`), with no figures.
    let document = common::read_json(&json);
    assert_eq!(
        document["failed"][0]["suite"], "crypto_bench.c",
        "{document}"
    );
    assert!(
        document["failed"][0]["error"]
            .as_str()
            .unwrap()
            .contains("left no counts at"),
        "{document}"
    );
    assert_eq!(
        document["suites"].as_array().unwrap().len(),
        0,
        "{document}"
    );
}

/// A labgrid coordinator of this test's own on a free local port, with two places `board-1` and `board-2`
/// tagged `board=mps2-an386` (the two boards of examples/labgrid/place-mps2-an386.yaml); killed when dropped.
struct Coordinator {
    child: std::process::Child,
    address: String,
}

impl Coordinator {
    fn start(python: &std::ffi::OsStr, dir: &Path) -> Coordinator {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let address = format!("127.0.0.1:{port}");
        let child = std::process::Command::new(python)
            .args(["-m", "labgrid.remote.coordinator", "-l", &address])
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let coordinator = Coordinator { child, address };
        // It answers once it listens: the first place is created then.
        let started = std::time::Instant::now();
        while !coordinator.client(python, &["-p", "board-1", "create"]) {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the coordinator at {} did not answer in 60 s",
                coordinator.address
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        assert!(coordinator.client(python, &["-p", "board-2", "create"]));
        for place in ["board-1", "board-2"] {
            let tags = ["-p", place, "set-tags", "board=mps2-an386"];
            assert!(coordinator.client(python, &tags), "{place}: set-tags");
        }
        coordinator
    }

    /// `labgrid-client -x ADDRESS ARGS`; whether it succeeded.
    fn client(&self, python: &std::ffi::OsStr, args: &[&str]) -> bool {
        std::process::Command::new(python)
            .args(["-m", "labgrid.remote.client", "-x", &self.address])
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for Coordinator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn two_boards_of_a_place_reserved_at_once_run_two_shards_that_merge_to_the_built_in_boards_counts()
{
    let test = "two_boards_of_a_place_reserved_at_once_run_two_shards_that_merge_to_the_built_in_boards_counts";
    let Some(python) = labgrid_python(test) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let coordinator = Coordinator::start(&python, tmp.path());
    let lab = common::repo_file("examples/labgrid");

    // Two jobs at once, each reserving a board of the place and running its share through it.
    let jobs: Vec<_> = (1..=2)
        .map(|k| {
            let json = tmp.path().join(format!("shard-{k}.json"));
            let mut script = std::process::Command::new(lab.join("shard_job.sh"));
            script
                .arg("--json")
                .arg(&json)
                .current_dir(&lab)
                .env("TMPDIR", tmp.path())
                .env("RHO_SHARD", format!("{k}/2"))
                .env("LG_COORDINATOR", &coordinator.address)
                .env("LABGRID_PYTHON", &python)
                .env("RHO", env!("CARGO_BIN_EXE_rho"));
            std::thread::spawn(move || {
                let outcome = common::run_rho(script, &["shard_job.sh"], LIMIT);
                (outcome, json)
            })
        })
        .collect();
    let mut places = Vec::new();
    let mut shares = Vec::new();
    for job in jobs {
        let (outcome, json) = job.join().unwrap();
        eprintln!("{}", outcome.describe());
        outcome.assert_exit(0);
        let place = outcome
            .stderr
            .lines()
            .find_map(|l| l.split_once(" on place ").map(|(_, p)| p.to_string()))
            .unwrap_or_default();
        places.push(place);
        shares.push(json);
    }
    places.sort();
    assert_eq!(
        places,
        ["board-1", "board-2"],
        "each job had a board of its own"
    );
    // Each job gave its board back: both can be acquired again.
    for place in ["board-1", "board-2"] {
        assert!(
            coordinator.client(&python, &["-p", place, "acquire"]),
            "{place}"
        );
        assert!(
            coordinator.client(&python, &["-p", place, "release"]),
            "{place}"
        );
    }
    // A board this job has not acquired is refused by labgrid: the suite fails, exit 2.
    let args = ["bench", "--target", "lab-mps2-an386", "--filter", "crc_64"];
    let mut command = common::rho_command(tmp.path(), &args);
    command
        .current_dir(&lab)
        .env("LABGRID_PYTHON", &python)
        .env("LABGRID_ENV", "place-mps2-an386.yaml")
        .env("LABGRID_TARGET", "board-2")
        .env("LG_COORDINATOR", &coordinator.address)
        .env_remove("RHO_SHARD");
    let refused = common::run_rho(command, &args, LIMIT);
    refused.assert_exit(2);
    refused.assert_stderr_has("place board-2 is not acquired");
    drop(coordinator);

    let merged_json = tmp.path().join("merged.json");
    let mut args = vec!["bench", "merge"];
    args.extend(shares.iter().map(|s| s.to_str().unwrap()));
    args.extend(["--json", merged_json.to_str().unwrap()]);
    let mut command = common::rho_command(tmp.path(), &args);
    command.current_dir(&lab);
    common::run_rho(command, &args, LIMIT).assert_exit(0);
    let merged = common::read_json(&merged_json);

    let suite = common::repo_file("examples/crypto_bench.c");
    let (_, builtin) = common::rho_json(
        &["bench", "--target", "mps2-an386", suite.to_str().unwrap()],
        LIMIT,
    );
    let merged_counts = counted(&merged["suites"][0]["benchmarks"]);
    assert_eq!(merged_counts.len(), 6, "{merged}");
    assert!(merged_counts.iter().all(|b| b.3 == "qemu"));
    assert_eq!(
        merged_counts,
        counted(&builtin["benchmarks"]),
        "two shares on two boards merged: the built-in board's benchmarks, iterations and instructions, exactly"
    );
}
