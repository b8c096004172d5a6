//! What a user gets from rho-bench in a project of their own: `cargo bench` prints rho's report, a table of
//! the benchmarks (default feature `report`), and a project that turns default features off builds only
//! what the benchmark binary runs under rho: the harness, rho-wire and their few crates; no report renderer,
//! no judgement, no config or YAML reader, no Callgrind profile reader or demangler (rho-profile, which
//! rho-stats reads beside rho-wire; rho-wire itself knows no profiler).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The crates only the report brings (rho-report and what it reads and judges with).
const REPORT_CRATES: [&str; 9] = [
    "rho-report",
    "rho-judge",
    "rho-config",
    "rho-stats",
    "rho-profile",
    "cpp_demangle",
    "rustc-demangle",
    "serde-saphyr",
    "textwrap",
];

/// A tiny bench target of a user's: a sum over 64 bytes, a `Vec` of 100 bytes and a family of two sums.
const USER_BENCH: &str = r#"use rho_bench::Bench;

fn sum_64(b: &mut Bench) {
    let data = [1u8; 64];
    b.unit("byte", 64);
    b.iter(|| std::hint::black_box(&data).iter().map(|&x| u64::from(x)).sum::<u64>());
}

fn vec_100(b: &mut Bench) {
    b.iter(|| Vec::<u8>::with_capacity(100));
}

fn sum_n(b: &mut Bench) {
    let data = vec![1u8; b.arg() as usize];
    b.iter(|| std::hint::black_box(&data).iter().map(|&x| u64::from(x)).sum::<u64>());
}

rho_bench::main!(sum_64, vec_100, sum_n = [16, 256]);
"#;

fn rho_bench_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A new crate in `dir`, outside rho's workspace, with rho-bench by path as a dev-dependency given by
/// `dependency` (the inside of its `{ }`) and one `harness = false` bench target, `tiny`. The workspace's
/// lock file is copied in, so cargo resolves the same versions offline (it drops what the crate does not use).
fn user_crate(dir: &Path, dependency: &str) {
    let manifest = format!(
        "[package]\nname = \"user-bench\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [workspace]\n\n[dev-dependencies]\nrho-bench = {{ path = {path:?}{dependency} }}\n\n\
         [[bench]]\nname = \"tiny\"\nharness = false\n",
        path = rho_bench_dir()
            .to_str()
            .expect("the checkout's path is UTF-8"),
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("write Cargo.toml");
    std::fs::copy(
        rho_bench_dir().join("../../Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .expect("copy the workspace's Cargo.lock");
    std::fs::create_dir(dir.join("benches")).expect("create benches/");
    std::fs::write(dir.join("benches/tiny.rs"), USER_BENCH).expect("write benches/tiny.rs");
}

fn cargo(dir: &Path) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = Command::new(cargo);
    command.current_dir(dir);
    // Whatever rho or a test runner set is not the user's: the report is what a bare `cargo bench` prints.
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("RHO_BENCH_") {
            command.env_remove(name);
        }
    }
    command
}

fn checked(mut command: Command, what: &str) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The packages of the crate's normal and dev dependencies (`cargo tree`), sorted, once each.
fn packages(dir: &Path) -> Vec<String> {
    let mut command = cargo(dir);
    command.args([
        "tree",
        "--offline",
        "-e",
        "normal,dev",
        "--prefix",
        "none",
        "--format",
        "{p}",
    ]);
    let output = checked(command, "cargo tree");
    let tree = String::from_utf8_lossy(&output.stdout);
    let mut packages: Vec<String> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    packages.sort_unstable();
    packages.dedup();
    println!("{} packages: {}", packages.len(), packages.join(" "));
    packages
}

#[test]
fn default_features_off_build_only_what_the_benchmark_binary_runs() {
    let tmp = tempfile::tempdir().expect("temporary directory");
    user_crate(
        tmp.path(),
        ", default-features = false, features = [\"std\"]",
    );
    let packages = packages(tmp.path());
    for expected in ["user-bench", "rho-bench", "rho-wire", "libc"] {
        assert!(
            packages.iter().any(|p| p == expected),
            "{expected} missing from {packages:?}"
        );
    }
    for unwanted in REPORT_CRATES {
        assert!(
            !packages.iter().any(|p| p == unwanted),
            "{unwanted} is in a build with default features off: {packages:?}"
        );
    }
}

#[test]
fn by_default_the_report_is_built() {
    let tmp = tempfile::tempdir().expect("temporary directory");
    user_crate(tmp.path(), "");
    let packages = packages(tmp.path());
    for expected in ["rho-bench", "rho-wire", "rho-stats", "rho-report"] {
        assert!(
            packages.iter().any(|p| p == expected),
            "{expected} missing from {packages:?}"
        );
    }
}

/// The done-when of issue 40's fifth item: `cargo bench` in a new crate prints a table of its benchmarks.
/// Slow the first time (cargo builds rho-bench and the report's crates for the bench profile); the build
/// is kept between runs in the target directory's tmp, unoptimised (no figure is checked, only the table),
/// in the directory rho-cli's tests/cargo_suite.rs builds examples/rust-bench in with the same settings, so
/// that the dependencies one builds the other reuses.
#[test]
fn cargo_bench_in_a_new_crate_prints_a_table_of_its_benchmarks() {
    let tmp = tempfile::tempdir().expect("temporary directory");
    user_crate(tmp.path(), "");
    let mut command = cargo(tmp.path());
    command
        .args(["bench", "--offline", "--bench", "tiny"])
        .env(
            "CARGO_TARGET_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rust-bench-example"),
        )
        .env("CARGO_PROFILE_BENCH_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_BENCH_DEBUG", "0")
        // Few iterations: the table is checked, not the figures.
        .env("RHO_BENCH_ITERATIONS", "200")
        .env("RHO_BENCH_WARMUP", "10");
    let output = checked(command, "cargo bench");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let context = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    // Not the wire stream: no `@` line, no note that the report is off.
    assert!(
        !stdout.lines().any(|line| line.starts_with('@')),
        "{context}"
    );
    assert!(!stderr.contains("printing the wire stream"), "{context}");
    // The table: its header, then one row per benchmark, each name first on its line with its iterations.
    let lines: Vec<&str> = stdout.lines().collect();
    let header = lines
        .iter()
        .position(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            words.starts_with(&["benchmark", "iterations", "median"])
        })
        .unwrap_or_else(|| panic!("no table header in {context}"));
    for name in ["sum_64", "vec_100", "sum_n/16", "sum_n/256"] {
        let row = lines[header + 1..]
            .iter()
            .find(|line| line.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row for {name} in {context}"));
        // At least the 200 asked for (a batched body's are rounded up to whole batches).
        let iterations = row
            .split_whitespace()
            .nth(1)
            .and_then(|w| w.parse::<u64>().ok());
        assert!(
            iterations.is_some_and(|n| n >= 200),
            "{name}'s row has no iterations: {row:?}\n{context}"
        );
    }
}
