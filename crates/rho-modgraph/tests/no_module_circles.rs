//! No two modules of any crate of the workspace import each other, directly or round a circle, as files or as
//! sibling modules with their files below them. A failure names each circle's files and, for each step round
//! it, the line whose path makes the import.

use std::path::Path;

#[test]
fn no_crate_of_the_workspace_has_a_module_circle() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let roots = match rho_modgraph::workspace_circles(&workspace) {
        Ok(roots) => roots,
        Err(error) => panic!("{error}"),
    };
    let files: usize = roots.iter().map(|r| r.files).sum();
    println!("checked {} crate roots, {files} files", roots.len());
    // The workspace's crates are all there: rho-wire, rho-bench (the harness, with its platforms' modules)
    // and rho-cli stand for the rest.
    for expected in [
        "crates/rho-wire/src/lib.rs",
        "crates/rho-bench/src/lib.rs",
        "crates/rho-cli/src/main.rs",
    ] {
        assert!(
            roots.iter().any(|r| r.root == Path::new(expected)),
            "{expected} was not checked"
        );
    }
    let report: String = roots.iter().map(|r| r.to_string()).collect();
    assert!(report.is_empty(), "module circles:\n{report}");
}
