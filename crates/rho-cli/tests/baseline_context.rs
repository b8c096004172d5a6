//! What a baseline's context says of how its suites were built is true (issue 30): a `command:` suite builds
//! itself, so no compiler flags are recorded for it; a C suite rho compiled records the compiler and flags.

mod common;

use common::{Project, SUITE, canned_script, read_json};

#[test]
fn a_command_suite_records_no_compiler_flags_in_the_baseline_context() {
    let project = Project::new();
    project.write("canned.sh", &canned_script(&[100]));
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - command: sh canned.sh\n",
    );
    project.rho(&["bench", "--write-baseline"]).assert_exit(0);
    let baseline = read_json(&project.path().join("bench/baseline.json"));
    let context = &baseline["targets"]["canned"]["time"]["context"];
    assert!(context.is_object(), "{baseline}");
    assert!(
        context.get("flags").is_none_or(serde_json::Value::is_null),
        "a command suite was not built by cc: {context}"
    );
}

#[test]
fn a_c_suite_beside_a_command_suite_records_the_flags_cc_built_it_with() {
    let project = Project::new();
    project.write("bench.c", SUITE);
    project.write("canned.sh", &canned_script(&[100]));
    project.write(
        "module.yml",
        "bench:\n  default_iterations: 200\n  warmup_runs: 5\n  suites:\n    - bench.c\n    - command: sh canned.sh\n",
    );
    let outcome = project.rho(&["bench", "--write-baseline"]);
    outcome.assert_exit(0);
    let baseline = read_json(&project.path().join("bench/baseline.json"));
    let flags = baseline["targets"]["host"]["time"]["context"]["flags"]
        .as_str()
        .unwrap_or_else(|| panic!("{baseline}\n{}", outcome.describe()));
    assert!(flags.contains("-O2"), "{flags}");
}
