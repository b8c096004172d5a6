//! What a user's `cargo bench` build pulls in with rho-bench: examples/rust-bench (rho-bench by path, default
//! features, a project of its own) depends on the harness, rho-wire and their few crates: no report renderer,
//! no judgement, no config or YAML reader (those come only with feature `report`), no Callgrind profile reader
//! or demangler (rho-wire's feature `functions`, which the host's rho-stats turns on).

use std::path::Path;
use std::process::Command;

#[test]
fn a_users_build_has_no_report_judgement_config_or_yaml_crate() {
    let manifest =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/rust-bench/Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "tree",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo tree: {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "cargo tree failed: {stderr}");
    let tree = String::from_utf8_lossy(&output.stdout);
    let mut packages: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    packages.sort_unstable();
    packages.dedup();
    println!("{} packages: {}", packages.len(), packages.join(" "));
    for expected in ["rust-bench-example", "rho-bench", "rho-wire"] {
        assert!(
            packages.contains(&expected),
            "{expected} missing from\n{tree}"
        );
    }
    for unwanted in [
        "rho-report",
        "rho-judge",
        "rho-config",
        "rho-stats",
        "rho-profile",
        "cpp_demangle",
        "rustc-demangle",
        "serde-saphyr",
        "textwrap",
    ] {
        assert!(
            !packages.contains(&unwanted),
            "{unwanted} is in a user's build:\n{tree}"
        );
    }
}
