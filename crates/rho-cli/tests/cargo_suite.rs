//! A `cargo:` suite through the real binary: rho builds examples/rust-bench's `example` bench target (the
//! rho-bench crate used by path from a project of its own) with cargo, runs it, and reports its stream like
//! any suite's. The figures checked are exact: heap bytes, stack depth, and under Callgrind the instructions
//! of 4x the work and the O(n) growth of a family (never a wall-clock figure).

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::{bench, u64_at};

const LIMIT: Duration = Duration::from_secs(1200);

#[test]
fn a_cargo_suite_is_built_run_and_judged_like_any_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("run.json");
    // Counted too when Valgrind is there (.ci/run installs it).
    let counted = common::tools_present(
        "a_cargo_suite_is_built_run_and_judged_like_any_suite",
        &[("valgrind", "valgrind")],
    );
    let measure = if counted { "time,instructions" } else { "time" };
    let args = [
        "bench",
        "--iterations",
        "2000",
        "--measure",
        measure,
        "--json",
        json.to_str().unwrap(),
    ];
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command
        .args(args)
        .current_dir(common::repo_file("examples/rust-bench"))
        .env("TMPDIR", tmp.path())
        // The example's build is kept between test runs, beside the workspace's; unoptimised, to keep CI's
        // build short (no figure checked here depends on optimisation).
        .env(
            "CARGO_TARGET_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rust-bench-example"),
        )
        .env("CARGO_PROFILE_BENCH_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_BENCH_DEBUG", "0");
    let outcome = common::run_rho(command, &args, LIMIT);
    outcome.assert_exit(0);
    outcome.assert_stdout_has("cargo bench example");
    let document = common::read_json(&json);
    let suite = &document["suites"][0];
    assert_eq!(suite["suite"], "cargo bench example", "{document}");

    // Vec::with_capacity(1000): at least 1000 bytes held at the peak, one allocation an iteration.
    let vec = bench(suite, "vec_1000");
    assert!(u64_at(vec, "/heap/peak") >= 1000, "{vec}");
    // Nine frames of 1 KiB: a mark of at least 9 KiB.
    let recurse = bench(suite, "recurse_9");
    assert!(u64_at(recurse, "/stack/bytes") >= 9 * 1024, "{recurse}");
    // The budgets of module.yml were judged.
    outcome.assert_stdout_has("budgets");
    assert!(!outcome.stdout.contains("FAIL"), "{}", outcome.describe());

    if counted {
        // 4x the bytes summed is about 4x the instructions: exact counts, whatever the machine's load.
        let per = |name: &str| common::f64_at(bench(suite, name), "/instructions/per_iteration");
        let ratio = per("sum_4k") / per("sum_1k");
        assert!((3.5..4.5).contains(&ratio), "sum_4k / sum_1k = {ratio}");
        // The family `sum_n = range(256, 4096, 2)` (rho_bench::main!) is fitted as a C family is: O(n).
        let fit = common::growth_fit(suite, "sum_n", "instructions");
        assert_eq!(fit["status"], "fitted", "{fit}");
        assert_eq!(
            common::best_growth(suite, "sum_n", "instructions"),
            "n",
            "{fit}"
        );
        // Each benchmark's functions read as Rust paths (issue 26): demangled, without the hash.
        let functions = &bench(suite, "sum_1k")["instructions"]["functions"]["listed"];
        let names: Vec<&str> = functions
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert!(
            names.iter().any(|n| n.starts_with("example::")),
            "{names:?}"
        );
        let hashed = |n: &str| {
            n.rsplit("::")
                .next()
                .is_some_and(|last| last.len() == 17 && last.starts_with('h'))
        };
        assert!(
            names
                .iter()
                .all(|n| !n.starts_with("_ZN") && !n.starts_with("_R") && !hashed(n)),
            "{names:?}"
        );
    }
    // The family's members, each a block of its own named FAMILY/ARG, in order.
    let members: Vec<&str> = suite["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["name"].as_str())
        .filter(|name| name.starts_with("sum_n/"))
        .collect();
    assert_eq!(
        members,
        [
            "sum_n/256",
            "sum_n/512",
            "sum_n/1024",
            "sum_n/2048",
            "sum_n/4096"
        ]
    );

    // `--filter` with a regex rho-bench cannot take as terms: rho lists the suite (RHO_BENCH_LIST=1) and
    // runs the exact names (`^sum_n/256$,...`): `sum_n/256` and not `sum_n/2048`, which it begins.
    let filtered = tmp.path().join("filtered.json");
    let args = [
        "bench",
        "--iterations",
        "200",
        "--filter",
        "^sum_n/(256|1024)$|^sum_1k$",
        "--json",
        filtered.to_str().unwrap(),
    ];
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command
        .args(args)
        .current_dir(common::repo_file("examples/rust-bench"))
        .env("TMPDIR", tmp.path())
        .env(
            "CARGO_TARGET_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rust-bench-example"),
        )
        .env("CARGO_PROFILE_BENCH_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_BENCH_DEBUG", "0");
    let outcome = common::run_rho(command, &args, LIMIT);
    outcome.assert_exit(0);
    let document = common::read_json(&filtered);
    let names: Vec<&str> = document["suites"][0]["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["sum_1k", "sum_n/256", "sum_n/1024"],
        "{}",
        outcome.describe()
    );
}

/// Whether rustc has the standard library of `triple` (`rustup target add`).
fn rust_target_installed(triple: &str) -> bool {
    Command::new("rustc")
        .args(["--print", "target-libdir", "--target", triple])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .is_some_and(|dir| {
            dir.is_dir() && std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some())
        })
}

#[test]
fn a_cargo_suite_runs_on_the_emulated_cortex_m4_with_identical_figures_twice() {
    let test = "a_cargo_suite_runs_on_the_emulated_cortex_m4_with_identical_figures_twice";
    if !common::tools_present(test, &[("qemu-system-arm", "qemu-system-arm")]) {
        return;
    }
    if !rust_target_installed("thumbv7em-none-eabihf")
        && !common::skipped_unless_required(
            test,
            "the Rust target thumbv7em-none-eabihf",
            "(rustup target add thumbv7em-none-eabihf)",
        )
    {
        return;
    }
    let run = || {
        let tmp = tempfile::tempdir().unwrap();
        let json = tmp.path().join("run.json");
        let args = [
            "bench",
            "--target",
            "mps2-an386",
            "--iterations",
            "200",
            "--warmup",
            "5",
            "--json",
            json.to_str().unwrap(),
        ];
        let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
        command
            .args(args)
            .current_dir(common::repo_file("examples/rust-bench"))
            .env("TMPDIR", tmp.path())
            .env(
                "CARGO_TARGET_DIR",
                PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rust-bench-example"),
            );
        let outcome = common::run_rho(command, &args, LIMIT);
        outcome.assert_exit(0);
        common::read_json(&json)
    };
    let (first, second) = (run(), run());
    let suite = &first["suites"][0];
    assert_eq!(suite["target"]["name"], "mps2-an386", "{first}");
    assert_eq!(suite["target"]["arch"], "armv7e-m", "{first}");
    for name in ["sum_1k", "sum_4k", "recurse_9"] {
        let figures = |document: &serde_json::Value| {
            let bench = bench(&document["suites"][0], name);
            (
                bench["cycles"]["per_iteration"].clone(),
                bench["instructions"]["per_iteration"].clone(),
                bench["stack"].clone(),
            )
        };
        assert_eq!(
            figures(&first),
            figures(&second),
            "{name} differs between two runs"
        );
    }
    assert!(
        u64_at(bench(suite, "recurse_9"), "/stack/bytes") >= 9 * 1024,
        "{suite}"
    );
    let per = |name: &str| common::f64_at(bench(suite, name), "/instructions/per_iteration");
    let ratio = per("sum_4k") / per("sum_1k");
    assert!((3.5..4.5).contains(&ratio), "sum_4k / sum_1k = {ratio}");
}

/// A copy of examples/rust-bench at `to` (its build left out), using rho-bench from this repository by its
/// absolute path, with `sum_1k`'s body replaced by `sum_1k_body` if given.
fn example_copy(to: &std::path::Path, sum_1k_body: Option<&str>) {
    let example = common::repo_file("examples/rust-bench");
    common::copy_tree(&example.join("benches"), &to.join("benches"));
    std::fs::copy(example.join("module.yml"), to.join("module.yml")).unwrap();
    let crate_dir = common::repo_file("crates/rho-bench");
    let manifest = std::fs::read_to_string(example.join("Cargo.toml")).unwrap();
    let relative = "path = \"../../crates/rho-bench\"";
    assert!(manifest.contains(relative), "{manifest}");
    let manifest = manifest.replace(
        relative,
        &format!("path = {:?}", crate_dir.display().to_string()),
    );
    std::fs::write(to.join("Cargo.toml"), manifest).unwrap();
    if let Some(body) = sum_1k_body {
        let bench = to.join("benches/example.rs");
        let source = std::fs::read_to_string(&bench).unwrap();
        let original = "b.iter(|| sum(black_box(&DATA[..1024])));";
        assert!(source.contains(original), "{source}");
        std::fs::write(&bench, source.replace(original, body)).unwrap();
    }
}

/// `rho bench gate` on a `cargo:` suite: each side built with cargo in its own copy, run under Callgrind
/// (exact counts, so this holds on a busy machine); a planted 10x loop in `sum_1k` fails the gate on that
/// benchmark alone: the benchmarks it left alone, built in the other copy, do not move.
#[test]
fn the_gate_judges_a_cargo_suite_and_catches_a_planted_10x_slowdown() {
    let test = "the_gate_judges_a_cargo_suite_and_catches_a_planted_10x_slowdown";
    if !common::tools_present(test, &[("valgrind", "valgrind")]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (base, slower) = (tmp.path().join("base"), tmp.path().join("slower"));
    example_copy(&base, None);
    example_copy(
        &slower,
        Some("b.iter(|| (0..10).map(|_| sum(black_box(&DATA[..1024]))).sum::<u64>());"),
    );
    let gate = |head: &std::path::Path| {
        let args = [
            "bench",
            "gate",
            "--json",
            "-",
            "--base",
            base.to_str().unwrap(),
            "--measure",
            "instructions",
            "--iterations",
            "100",
            "--warmup",
            "2",
            "--timeout",
            "600",
        ];
        let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
        command
            .args(args)
            .current_dir(head)
            .env("TMPDIR", tmp.path())
            // Unoptimised, to keep the two builds short: the counts are exact either way.
            .env("CARGO_PROFILE_BENCH_OPT_LEVEL", "0")
            .env("CARGO_PROFILE_BENCH_DEBUG", "0");
        common::run_rho(command, &args, LIMIT)
    };
    let metric = |doc: &serde_json::Value, name: &str| doc["metrics"][name].clone();

    let outcome = gate(&slower);
    eprintln!("{}", outcome.describe());
    outcome.assert_exit(1);
    let doc = outcome.document();
    assert_eq!(doc["verdict"], "regressed", "{doc}");
    let planted = metric(&doc, "sum_1k.instructions");
    assert_eq!(planted["regressed"], true, "{planted}");
    let change = planted["change"].as_f64().unwrap();
    assert!(change > 5.0, "ten sums counted as +{:.0}%", change * 100.0);
    for other in [
        "sum_4k.instructions",
        "vec_1000.instructions",
        "sum_n/1024.instructions",
    ] {
        let m = metric(&doc, other);
        assert_eq!(m["regressed"], false, "{other}: {m}");
        assert!(m["change"].as_f64().unwrap().abs() < 0.01, "{other}: {m}");
    }
}

/// Every error about a cargo suite names where module.yml declares it (file, line and column), as the other
/// config errors do: cargo failing (no Cargo.toml in the module root), a board it does not run on, a target of
/// module.yml's own. None of these builds anything.
#[test]
fn cargo_suite_errors_name_module_yml_line_and_column() {
    let project = common::Project::new();
    project.write(
        "module.yml",
        "bench:\n  targets:\n    - host\n    - microbit\n    - name: own\n      build: 'true'\n      \
         run: 'true'\n  suites:\n    - cargo: sums\n",
    );
    let at = "module.yml:9:7: the cargo suite `cargo bench sums`";
    let cases = [
        ("host", "`cargo bench --no-run` exited with status 101"),
        ("microbit", "not yet on microbit"),
        ("own", "not on a target of module.yml's own"),
    ];
    for (target, why) in cases {
        let outcome = project.rho(&["bench", "--target", target]);
        outcome.assert_exit(2);
        outcome.assert_stderr_has(at);
        outcome.assert_stderr_has(why);
    }
}
