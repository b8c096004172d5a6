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

/// Every line of `text` fits `width` columns (escape sequences aside, there are none piped).
#[track_caller]
fn assert_fits(text: &str, width: usize, what: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= width,
            "{what}: a line of {} columns:\n{line}\n--- in\n{text}",
            line.chars().count()
        );
    }
}

#[test]
fn the_report_fits_100_columns_and_wide_shows_everything() {
    let project = Project::new();
    let crypto = common::repo_file("examples/crypto_bench.c");
    let crypto = crypto.to_str().unwrap();
    let args = ["bench", crypto, "--iterations", "2000"];
    let out = project.rho_in(project.path(), &args, &[("COLUMNS", "100")]);
    out.assert_exit(0);
    assert_fits(&out.stdout, 100, "rho bench, COLUMNS=100");
    // One row per benchmark: the name starts exactly one line each.
    for name in ["bench_empty", "bench_crc_64", "bench_outlier"] {
        let rows = out
            .stdout
            .lines()
            .filter(|l| l.starts_with(&format!("{name} ")))
            .count();
        // Its row in the table and in the footprint table (when the footprint command answered).
        assert!(
            (1..=2).contains(&rows),
            "{name}: {rows} rows\n{}",
            out.stdout
        );
    }
    assert!(!out.stdout.contains("iqr/med  "), "{}", out.stdout);

    // Piped and no COLUMNS: the same 100.
    let piped = project.rho_in(project.path(), &args, &[]);
    assert_fits(&piped.stdout, 100, "rho bench, piped");
    // A narrower terminal wraps the prose too.
    let narrow = project.rho_in(project.path(), &args, &[("COLUMNS", "90")]);
    assert_fits(&narrow.stdout, 90, "rho bench, COLUMNS=90");

    // --wide: every clock on its own row, every statistic.
    let wide = project.rho_in(project.path(), &[&args[..], &["--wide"]].concat(), &[]);
    wide.assert_exit(0);
    wide.assert_stdout_has("iqr/med");
    wide.assert_stdout_has("ns (clock_gettime)");
    assert!(
        wide.stdout
            .lines()
            .any(|l| l.starts_with("benchmark ") && l.len() > 100),
        "{}",
        wide.stdout
    );
}

/// A project whose heap budget is broken, with a budget on every figure so its table is wide.
fn broken_project() -> Project {
    let project = Project::new();
    project.write("bench.c", common::SUITE);
    project.write(
        "module.yml",
        &common::module_yml(
            "  budgets:\n    max_stack_bytes: 100000\n    max_heap_bytes: 1\n    \
             max_cycles_per_iteration: 1000000000\n    max_ns_per_iteration: 1000000000\n    \
             max_ns_per_op: 1000000000\n",
        ),
    );
    project
}

#[test]
fn check_with_budgets_fits_100_columns() {
    let project = broken_project();
    let out = project.rho_in(project.path(), &["bench", "check"], &[("COLUMNS", "100")]);
    out.assert_exit(1);
    assert_fits(&out.stdout, 100, "rho bench check");
    // Too many budgets for a column triple each: a row per benchmark and metric.
    out.assert_stdout_has("budgets        metric");
    let row = common::budget_row(&out.stdout, "bench_hold_64");
    assert!(row.contains(&"OVER"), "{row:?}");
}

#[test]
fn colour_only_when_asked_or_on_a_terminal_never_piped_or_with_no_color() {
    let project = broken_project();
    let check = ["bench", "check"];
    let painted = "\x1b[1;31mOVER\x1b[0m";

    let always = project.rho(&[&check[..], &["--color", "always"]].concat());
    always.assert_exit(1);
    always.assert_stdout_has(painted);
    // Colour never moves a column: with the escapes taken out, the text is the uncoloured one's.
    let never = project.rho(&[&check[..], &["--color", "never"]].concat());
    assert!(!never.stdout.contains('\x1b'), "{}", never.describe());
    let piped = project.rho(&check);
    assert!(!piped.stdout.contains('\x1b'), "{}", piped.describe());
    let no_color = project.rho_in(project.path(), &check, &[("NO_COLOR", "1")]);
    assert!(!no_color.stdout.contains('\x1b'), "{}", no_color.describe());

    // On a terminal (a pseudo-terminal through `script`): coloured, unless NO_COLOR is set.
    if !common::tools_present(
        "colour_only_when_asked_or_on_a_terminal",
        &[("script", "bsdutils")],
    ) {
        return;
    }
    let on_terminal = |no_color: bool| {
        let rho = env!("CARGO_BIN_EXE_rho");
        let mut command = std::process::Command::new("script");
        command
            .args(["-qec", &format!("{rho} bench check"), "/dev/null"])
            .current_dir(project.path())
            .env("TMPDIR", project.path().join("tmp"))
            .env("COLUMNS", "100")
            .env_remove("NO_COLOR");
        if no_color {
            command.env("NO_COLOR", "1");
        }
        common::run_rho(command, &check, std::time::Duration::from_secs(300))
    };
    let terminal = on_terminal(false);
    terminal.assert_stdout_has(painted);
    let terminal_no_color = on_terminal(true);
    terminal_no_color.assert_stdout_has("OVER");
    assert!(
        !terminal_no_color.stdout.contains(painted),
        "{}",
        terminal_no_color.describe()
    );
}

/// A gate side that prints its metrics as one JSON line: `ns` nanoseconds for each of a few benchmarks with
/// long names.
fn gate_side(dir: &std::path::Path, ns: u64) {
    std::fs::create_dir_all(dir).unwrap();
    let metrics: Vec<String> = (0..4)
        .map(|k| format!("\"bench_a_rather_long_benchmark_name_number_{k}.ns\": {ns}"))
        .collect();
    std::fs::write(
        dir.join("module.yml"),
        format!(
            "bench:\n  targets:\n    - name: fake\n      build: 'true'\n      run: 'echo ''{{{}}}'''\n",
            metrics.join(", ")
        ),
    )
    .unwrap();
}

/// The gate's table fits 100 columns; JSON only when `--json` asks for it, piped or not: `--json -` makes the
/// document stdout's one line (the table goes to stderr), `--json FILE` writes it there.
#[test]
fn the_gate_table_fits_and_its_json_is_printed_only_when_asked() {
    let project = Project::new();
    let (base, head) = (project.path().join("base"), project.path().join("head"));
    gate_side(&base, 100);
    gate_side(&head, 1000);
    let args = [
        "bench",
        "gate",
        "--base",
        base.to_str().unwrap(),
        "--head",
        head.to_str().unwrap(),
        "--runs",
        "2",
    ];
    // Piped, not asked: the table and the verdict, no JSON.
    let out = project.rho_in(&head, &args, &[("COLUMNS", "100")]);
    out.assert_exit(1);
    assert_fits(&out.stdout, 100, "rho bench gate");
    out.assert_stdout_has("REGRESSED");
    assert!(!out.stdout.contains("{\""), "{}", out.describe());
    out.assert_stdout_has("verdict: REGRESSED");

    // `--json -`: the document is all of stdout, one line; the table on stderr, never painted into the JSON.
    let asked = project.rho_in(
        &head,
        &[&args[..], &["--json", "-", "--color", "always"]].concat(),
        &[],
    );
    asked.assert_exit(1);
    assert_eq!(asked.stdout.lines().count(), 1, "{}", asked.describe());
    assert_eq!(asked.document()["verdict"], "regressed");
    assert!(!asked.stdout.contains('\x1b'), "{}", asked.describe());
    assert!(asked.stderr.contains("REGRESSED"), "{}", asked.describe());

    // `--json FILE`: the table on stdout, the document in the file.
    let file = project.path().join("gate.json");
    let written = project.rho_in(
        &head,
        &[&args[..], &["--json", file.to_str().unwrap()]].concat(),
        &[],
    );
    written.assert_exit(1);
    assert!(!written.stdout.contains("{\""), "{}", written.describe());
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(document["verdict"], "regressed");
    // A directory that does not exist is refused before anything runs.
    let refused = project.rho_in(
        &head,
        &[&args[..], &["--json", "/nonexistent/g.json"]].concat(),
        &[],
    );
    refused.assert_exit(2);
    assert!(
        refused.stderr.contains("does not exist"),
        "{}",
        refused.describe()
    );
}

#[test]
fn progress_on_a_terminal_only() {
    let project = Project::new();
    let suite = std::fs::read_to_string(common::repo_file("examples/crypto_bench.c")).unwrap();
    project.write("crypto.c", &suite);
    let args = [
        "bench",
        "crypto.c",
        "--iterations",
        "500",
        "--repetitions",
        "2",
    ];
    // Piped: the report and nothing of the progress, on either stream.
    let piped = project.rho(&args);
    piped.assert_exit(0);
    for text in [&piped.stdout, &piped.stderr] {
        assert!(
            !text.contains("run 1 of 2") && !text.contains('\x1b'),
            "{}",
            piped.describe()
        );
    }
    if !common::tools_present("progress_on_a_terminal_only", &[("script", "bsdutils")]) {
        return;
    }
    // On a terminal (stdout thrown away, so what is seen is stderr): the suite, the run, the benchmark, and
    // from the second run the count of benchmarks and an estimate.
    let mut command = std::process::Command::new("script");
    command
        .args([
            "-qec",
            &format!(
                "stty cols 200; {} {} >/dev/null",
                env!("CARGO_BIN_EXE_rho"),
                args.join(" ")
            ),
            "/dev/null",
        ])
        .current_dir(project.path())
        .env("TMPDIR", project.path().join("tmp"));
    let terminal = common::run_rho(command, &args, std::time::Duration::from_secs(300));
    for shown in [
        "run 1 of 2",
        "run 2 of 2",
        "bench_crc_64 (benchmark 2)",
        "bench_crc_64 (2 of 6)",
        " left",
    ] {
        terminal.assert_stdout_has(shown);
    }
}
