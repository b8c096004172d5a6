//! The first steps of a new user through the real binary: `rho bench init` then `rho bench check` in an empty
//! directory, `rho bench --list`, and a mistyped subcommand's "did you mean".

mod common;

use common::Project;

#[test]
fn init_then_check_passes_in_an_empty_directory_and_init_never_overwrites() {
    let project = Project::new();
    let dir = project.path().join("empty");
    std::fs::create_dir(&dir).unwrap();
    let init = project.rho_in(&dir, &["bench", "init"], &[]);
    init.assert_exit(0);
    for next in [
        "rho bench ",
        "rho bench check",
        "rho bench --write-baseline",
    ] {
        init.assert_stdout_has(next);
    }
    assert!(dir.join("module.yml").is_file() && dir.join("bench/first_bench.c").is_file());

    let check = project.rho_in(&dir, &["bench", "check", "--iterations", "500"], &[]);
    check.assert_exit(0);
    check.assert_stdout_has("bench_sum_1k");
    check.assert_stdout_has("check: ok: every budget holds");

    // A second init refuses, and leaves the user's edits alone.
    std::fs::write(dir.join("module.yml"), "# mine\n").unwrap();
    let again = project.rho_in(&dir, &["bench", "init"], &[]);
    again.assert_exit(2);
    again.assert_stderr_has("never overwrites");
    assert_eq!(
        std::fs::read_to_string(dir.join("module.yml")).unwrap(),
        "# mine\n"
    );
}

#[test]
fn list_names_what_a_suite_or_a_project_would_run() {
    let project = Project::new();
    let crypto = common::repo_file("examples/crypto_bench.c");
    let crypto = crypto.to_str().unwrap();
    let out = project.rho(&["bench", "--list", crypto]);
    out.assert_exit(0);
    assert_eq!(
        out.stdout,
        "bench_empty\nbench_crc_64\nbench_crc_256\nbench_malloc_free\nbench_steady\nbench_outlier\n",
        "{}",
        out.describe()
    );
    let filtered = project.rho(&["bench", "--list", crypto, "--filter", "crc"]);
    filtered.assert_exit(0);
    assert_eq!(filtered.stdout, "bench_crc_64\nbench_crc_256\n");

    // A project: each suite, then its benchmarks.
    project.write("bench.c", common::SUITE);
    project.write("module.yml", &common::module_yml(""));
    let listed = project.rho(&["bench", "--list"]);
    listed.assert_exit(0);
    assert_eq!(
        listed.stdout,
        "bench.c:\n  bench_crc_256\n  bench_hold_64\n",
        "{}",
        listed.describe()
    );
}

#[test]
fn a_mistyped_subcommand_gets_a_did_you_mean() {
    let project = Project::new();
    let out = project.rho(&["bench", "chek"]);
    out.assert_exit(2);
    out.assert_stderr_has("did you mean `rho bench check`?");
    // A file that does not exist and resembles no subcommand is still a missing file.
    let missing = project.rho(&["bench", "nothing_here.c"]);
    missing.assert_exit(2);
    missing.assert_stderr_has("nothing_here.c: no such file");
}
