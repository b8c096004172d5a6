//! A suite that crashes is named the same way by `rho bench` and by the gate: the signal (also when a shell
//! reports it as exit status 139) and the benchmark it was running (issue 30).

mod common;

use std::path::Path;
use std::time::Duration;

use common::{Project, canned_script};

/// A script that prints a wire stream up to two samples of `bench_b`, then crashes (SIGSEGV).
fn crashing_script() -> String {
    let stream = canned_script(&[100]);
    let cut = stream.find(":$v\n:$v\n:$v").unwrap();
    format!(
        "{}:$v\n:$v\nEOF\nkill -SEGV $$\n",
        stream[..cut].replace("bench_canned", "bench_b")
    )
}

/// The run command: the crash happens in a child of the shell, which reports it as exit status 139.
const RUN_IN_A_SHELL: &str = "sh crash.sh; exit $?";

const SAID: &str = "crashed (SIGSEGV; the shell's exit status 139) while running bench_b (2 of its samples \
                    received";

#[test]
fn rho_bench_names_a_crash_a_shell_reports_as_139_by_its_signal_and_benchmark() {
    let project = Project::new();
    project.write("crash.sh", &crashing_script());
    project.write(
        "module.yml",
        &format!("bench:\n  suites:\n    - command: '{RUN_IN_A_SHELL}'\n"),
    );
    let outcome = project.rho(&["bench"]);
    outcome.assert_exit(2);
    outcome.assert_stderr_has(SAID);
}

#[test]
fn the_gate_names_a_crash_as_rho_bench_does() {
    let tmp = tempfile::tempdir().unwrap();
    let module = |dir: &Path, run: &str| {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("crash.sh"), crashing_script()).unwrap();
        std::fs::write(
            dir.join("module.yml"),
            format!(
                "bench:\n  targets:\n    - name: fake\n      build: 'true'\n      run: '{}'\n",
                run.replace('\'', "''")
            ),
        )
        .unwrap();
    };
    let base = tmp.path().join("base");
    module(&base, "echo '{\"a_ns\": 100}'");
    let head = tmp.path().join("head");
    module(&head, RUN_IN_A_SHELL);
    let args = ["bench", "gate", "--base", "../base"];
    let mut command = common::rho_command(tmp.path(), &args);
    command.current_dir(&head);
    let outcome = common::run_rho(command, &args, Duration::from_secs(300));
    outcome.assert_exit(2);
    outcome.assert_stderr_has("head: run 1 of 3");
    outcome.assert_stderr_has(SAID);
    assert!(
        !outcome.stderr.contains("exited with status 139"),
        "{}",
        outcome.describe()
    );
    // A crash the shell does not stand between is said the same way, without the shell's status.
    module(&head, "sh crash.sh");
    let mut command = common::rho_command(tmp.path(), &args);
    command.current_dir(&head);
    let outcome = common::run_rho(command, &args, Duration::from_secs(300));
    outcome.assert_exit(2);
    assert!(
        outcome
            .stderr
            .contains("crashed (SIGSEGV) while running bench_b")
            || outcome.stderr.contains(SAID),
        "{}",
        outcome.describe()
    );
}
