//! An `update-ref` that moved the branch and then failed (a Ctrl-C reaches git too, and a git that dies of it
//! after renaming its lock into place reports failure for a move that happened) counts as the move it was:
//! one add is one commit. A test binary of its own, because it puts a `git` of its own first on `PATH`.

mod common;

use std::os::unix::fs::PermissionsExt as _;

use common::{git, record, repo};
use rho_history::{Measure, Store};

#[test]
fn an_update_ref_that_moved_the_branch_and_then_failed_is_one_commit() {
    let dir = tempfile::tempdir().unwrap();
    let commits = repo(dir.path(), 2);
    let found = std::process::Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .unwrap();
    let real_git = String::from_utf8(found.stdout).unwrap().trim().to_string();
    assert!(!real_git.is_empty(), "no git on PATH");
    // Every update-ref does its work and then reports failure, as one killed by SIGINT on its way out.
    let bin = tempfile::tempdir().unwrap();
    let wrapper = bin.path().join("git");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n\"{real_git}\" \"$@\"\nstatus=$?\n\
             if [ \"$3\" = update-ref ] && [ $status -eq 0 ]; then exit 130; fi\nexit $status\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.path().to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    // SAFETY: this binary's one test; nothing else reads the environment while it is set.
    unsafe { std::env::set_var("PATH", std::env::join_paths(paths).unwrap()) };

    let store = Store::open(dir.path(), "rho-history").unwrap();
    let (first, _) = store
        .add(&[record(
            &commits[0],
            "m",
            Measure::Instructions,
            &[("b", 1.0)],
        )])
        .unwrap();
    assert_eq!(git(dir.path(), &["rev-parse", "rho-history"]), first);
    let (second, _) = store
        .add(&[record(
            &commits[1],
            "m",
            Measure::Instructions,
            &[("b", 2.0)],
        )])
        .unwrap();
    assert_eq!(git(dir.path(), &["rev-parse", "rho-history"]), second);
    assert_eq!(git(dir.path(), &["rev-parse", "rho-history^"]), first);
    assert_eq!(
        git(dir.path(), &["rev-list", "--count", "rho-history"]),
        "2"
    );
    assert_eq!(store.read().unwrap().records.len(), 2);
}
