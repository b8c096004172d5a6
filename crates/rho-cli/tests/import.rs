//! `rho bench import FORMAT FILE... --json OUT` through the real binary, on reports the real tools wrote
//! (crates/rho-import/testdata: Google Benchmark 1.7.1, criterion 0.5, hyperfine 1.15.0, go 1.19.8,
//! pytest-benchmark 3.2.2): each becomes a run document that `show`, `compare` and `history add` take; a
//! planted 10x change in a report regresses that benchmark alone in `compare`; a failed benchmark, an unknown
//! format and a bad field are exit 2 naming them; `--bmf` and `--github-benchmark` write the documented fields.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{git, read_json, rho_at};

const LIMIT: Duration = Duration::from_secs(120);

fn testdata(name: &str) -> PathBuf {
    common::repo_file("crates/rho-import/testdata").join(name)
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Every format's report and the benchmarks it holds (Google Benchmark's BM_fail reported an error).
fn reports() -> Vec<(&'static str, PathBuf, Vec<&'static str>)> {
    vec![
        (
            "gbench",
            testdata("gbench.json"),
            vec!["BM_sum/64", "BM_sum/1024"],
        ),
        (
            "criterion",
            testdata("criterion"),
            vec!["checksum/128", "checksum/64", "fill/zeroes"],
        ),
        (
            "hyperfine",
            testdata("hyperfine.json"),
            vec!["sleep 0.01", "sleep 0.02"],
        ),
        (
            "gotest",
            testdata("gotest.txt"),
            vec![
                "BenchmarkJoin",
                "BenchmarkSum",
                "BenchmarkSized/n=8",
                "BenchmarkSized/n=4",
            ],
        ),
        (
            "pytest-benchmark",
            testdata("pytest-data.json"),
            vec!["test_fib", "test_sorted"],
        ),
    ]
}

#[test]
fn every_format_imports_into_a_run_that_show_compare_and_history_add_take() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    git(dir, &["init", "--quiet", "--initial-branch=main"]);
    git(dir, &["commit", "--quiet", "--allow-empty", "-m", "first"]);
    for (format, report, names) in reports() {
        let out = dir.join(format!("{format}.json"));
        let import = rho_at(
            dir,
            &[
                "bench",
                "import",
                format,
                path_str(&report),
                "--json",
                path_str(&out),
            ],
            LIMIT,
        );
        if format == "gbench" {
            import.assert_exit(2);
            import.assert_stderr_has("rho: gbench: BM_fail failed: no device");
        } else {
            import.assert_exit(0);
        }
        let document = read_json(&out);
        assert_eq!(document["schema"], "rho-bench-run/1");
        let saved: Vec<&str> = document["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["name"].as_str().unwrap())
            .collect();
        assert_eq!(saved, names, "{format}");
        let show = rho_at(dir, &["bench", "show", path_str(&out)], LIMIT);
        show.assert_exit(0);
        for name in &names {
            show.assert_stdout_has(name);
        }
        rho_at(
            dir,
            &["bench", "compare", path_str(&out), path_str(&out)],
            LIMIT,
        )
        .assert_exit(0);
        let add = rho_at(
            dir,
            &["bench", "history", "add", path_str(&out), "--machine", "ci"],
            LIMIT,
        );
        add.assert_exit(0);
    }
}

#[test]
fn a_planted_10x_change_in_a_report_regresses_that_benchmark_alone() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let base_text = std::fs::read_to_string(testdata("gotest.txt")).unwrap();
    // BenchmarkJoin's three results, each ten times slower; the rest as they were.
    let head_text = base_text
        .replace("53.88 ns/op", "538.8 ns/op")
        .replace("49.95 ns/op", "499.5 ns/op")
        .replace("52.49 ns/op", "524.9 ns/op");
    assert_ne!(head_text, base_text);
    std::fs::write(dir.join("base.txt"), &base_text).unwrap();
    std::fs::write(dir.join("head.txt"), &head_text).unwrap();
    for side in ["base", "head"] {
        rho_at(
            dir,
            &[
                "bench",
                "import",
                "gotest",
                &format!("{side}.txt"),
                "--json",
                &format!("{side}.json"),
            ],
            LIMIT,
        )
        .assert_exit(0);
    }
    let compare = rho_at(dir, &["bench", "compare", "base.json", "head.json"], LIMIT);
    compare.assert_exit(1);
    let regressed: Vec<&str> = compare
        .stdout
        .lines()
        .filter(|l| l.contains("REGRESSED"))
        .collect();
    assert!(!regressed.is_empty(), "{}", compare.describe());
    assert!(
        regressed.iter().all(|l| l.contains("BenchmarkJoin")),
        "{}",
        compare.describe()
    );
}

#[test]
fn an_unknown_format_a_bad_field_and_a_missing_file_are_exit_2_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let unknown = rho_at(
        dir,
        &["bench", "import", "nunit", "x.json", "--json", "o.json"],
        LIMIT,
    );
    unknown.assert_exit(2);
    unknown.assert_stderr_has(
        "unknown import format \"nunit\": expected one of gbench, criterion, hyperfine, gotest, pytest-benchmark",
    );
    std::fs::write(
        dir.join("old.json"),
        r#"{"version": "9.1.0", "benchmarks": []}"#,
    )
    .unwrap();
    let bad = rho_at(
        dir,
        &[
            "bench",
            "import",
            "pytest-benchmark",
            "old.json",
            "--json",
            "o.json",
        ],
        LIMIT,
    );
    bad.assert_exit(2);
    bad.assert_stderr_has(
        "old.json: field version: expected a pytest-benchmark 3.x, 4.x or 5.x report",
    );
    let missing = rho_at(
        dir,
        &[
            "bench",
            "import",
            "hyperfine",
            "gone.json",
            "--json",
            "o.json",
        ],
        LIMIT,
    );
    missing.assert_exit(2);
    missing.assert_stderr_has("gone.json: cannot be read");
    assert!(
        !dir.join("o.json").exists(),
        "nothing is written from a report that does not read"
    );
}

/// A figure no measurement gives (a time of 1e308 ns, beyond a day; a negative counter or rate) is exit 2
/// naming the file, the benchmark and the field, and nothing is written: never clamped into the run.
#[test]
fn a_figure_out_of_range_for_its_unit_is_exit_2_naming_file_benchmark_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let report = std::fs::read_to_string(testdata("gbench.json")).unwrap();
    let cases = [
        (
            "1.1248175225990892e+02",
            "1e308",
            "benchmark \"BM_sum/64\": real_time: expected nanoseconds per iteration from 0 to a day (8.64e13), found 1e308",
        ),
        (
            "\"elements\": 6.4000000000000000e+01",
            "\"elements\": -64",
            "benchmark \"BM_sum/64\": elements: expected a finite number of at least 0, found -64",
        ),
    ];
    for (from, to, message) in cases {
        assert!(report.contains(from), "{from}");
        std::fs::write(dir.join("g.json"), report.replacen(from, to, 1)).unwrap();
        for output in [&["--json", "o.json"][..], &["--wire", "-"][..]] {
            let args = [&["bench", "import", "gbench", "g.json"][..], output].concat();
            let outcome = rho_at(dir, &args, LIMIT);
            outcome.assert_exit(2);
            outcome.assert_stderr_has(&format!("g.json: {message}"));
            assert!(!dir.join("o.json").exists(), "{}", outcome.describe());
            assert!(!outcome.stdout.contains("@bench"), "{}", outcome.describe());
        }
    }
    // A negative rate: the report's bytes_per_second.
    let rate = report.replacen("\"bytes_per_second\": ", "\"bytes_per_second\": -", 1);
    std::fs::write(dir.join("g.json"), rate).unwrap();
    let outcome = rho_at(
        dir,
        &["bench", "import", "gbench", "g.json", "--json", "o.json"],
        LIMIT,
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("bytes_per_second: expected a finite number of at least 0");
}

#[test]
fn show_and_import_write_bmf_and_github_benchmark_with_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let report = testdata("gotest.txt");
    rho_at(
        dir,
        &[
            "bench",
            "import",
            "gotest",
            path_str(&report),
            "--json",
            "run.json",
            "--bmf",
            "a.bmf.json",
            "--github-benchmark",
            "a.gh.json",
        ],
        LIMIT,
    )
    .assert_exit(0);
    rho_at(
        dir,
        &[
            "bench",
            "show",
            "run.json",
            "--bmf",
            "b.bmf.json",
            "--github-benchmark",
            "b.gh.json",
        ],
        LIMIT,
    )
    .assert_exit(0);
    // The same run, fresh or saved, exports the same documents.
    assert_eq!(
        read_json(&dir.join("a.bmf.json")),
        read_json(&dir.join("b.bmf.json"))
    );
    assert_eq!(
        read_json(&dir.join("a.gh.json")),
        read_json(&dir.join("b.gh.json"))
    );

    // Bencher Metric Format: { BENCHMARK: { MEASURE: { value, lower_value?, upper_value? } } }.
    let bmf = read_json(&dir.join("a.bmf.json"));
    let join = &bmf["BenchmarkJoin"];
    assert_eq!(join["latency"]["value"], 52.49);
    assert_eq!(join["latency"]["lower_value"], 49.95);
    assert_eq!(join["latency"]["upper_value"], 53.88);
    assert_eq!(join["B/op"]["value"], 8.0);
    assert_eq!(join["allocs/op"]["value"], 1.0);
    for (_, measures) in bmf.as_object().unwrap() {
        for (_, figures) in measures.as_object().unwrap() {
            for key in figures.as_object().unwrap().keys() {
                assert!(
                    ["value", "lower_value", "upper_value"].contains(&key.as_str()),
                    "{key}"
                );
            }
        }
    }
    // github-action-benchmark's customSmallerIsBetter: [{ name, unit, value, range?, extra? }].
    let list = read_json(&dir.join("a.gh.json"));
    let entries = list.as_array().unwrap();
    let time = entries
        .iter()
        .find(|e| e["name"] == "BenchmarkJoin")
        .unwrap();
    assert_eq!(time["unit"], "ns/iter");
    assert_eq!(time["value"], 52.49);
    assert!(time["range"].as_str().unwrap().starts_with("± "));
    assert!(time["extra"].as_str().unwrap().starts_with("3 samples"));
    assert!(
        entries
            .iter()
            .any(|e| e["name"] == "BenchmarkJoin - B/op" && e["unit"] == "B/op")
    );
    assert!(
        !entries.iter().any(|e| e["unit"] == "MB/s"),
        "MB/s is better higher"
    );
    for entry in entries {
        for key in entry.as_object().unwrap().keys() {
            assert!(
                ["name", "unit", "value", "range", "extra"].contains(&key.as_str()),
                "{key}"
            );
        }
    }
}

/// An export to `-` is all that goes to stdout (the report goes to stderr, as with `--json -`), the same
/// document as the file; two outputs to `-` are refused before anything is written.
#[test]
fn an_export_to_a_dash_is_stdout_and_two_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let report = testdata("gotest.txt");
    let import = |extra: &[&str]| {
        let mut args = vec!["bench", "import", "gotest", path_str(&report)];
        args.extend_from_slice(extra);
        rho_at(dir, &args, LIMIT)
    };
    import(&["--json", "run.json", "--bmf", "run.bmf.json"]).assert_exit(0);
    for (flag, file) in [("--bmf", "run.bmf.json"), ("--github-benchmark", "")] {
        let saved = rho_at(dir, &["bench", "show", "run.json", flag, "-"], LIMIT);
        saved.assert_exit(0);
        let on_stdout: serde_json::Value =
            serde_json::from_str(&saved.stdout).unwrap_or_else(|e| {
                panic!(
                    "{flag} -: stdout is not one JSON document ({e}): {}",
                    saved.stdout
                )
            });
        assert!(saved.stderr.contains("BenchmarkJoin"), "{}", saved.stderr);
        if !file.is_empty() {
            assert_eq!(on_stdout, read_json(&dir.join(file)));
        }
        let fresh = import(&[flag, "-"]);
        fresh.assert_exit(0);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&fresh.stdout).unwrap(),
            on_stdout
        );
    }
    assert!(!dir.join("-").exists(), "a file named - was written");
    let twice = import(&["--json", "-", "--github-benchmark", "-", "--bmf", "b.json"]);
    twice.assert_exit(2);
    twice.assert_stderr_has("--json - and --github-benchmark -: only one output can be stdout");
    assert!(twice.stdout.is_empty(), "{}", twice.stdout);
    assert!(!dir.join("b.json").exists());
}

/// `rho bench check` and `rho bench` (module.yml mode, two command suites) write both exports of every
/// suite's run, each benchmark named `SUITE::NAME`; several targets at once are refused before anything runs.
#[test]
fn check_and_bench_write_both_exports_of_every_suite() {
    let project = common::Project::new();
    project.write("canned.sh", &common::canned_script(&[700]));
    project.write("again.sh", &common::canned_script(&[900]));
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - command: sh canned.sh\n    - command: sh again.sh\n",
    );
    let check = project.rho(&[
        "bench",
        "check",
        "--bmf",
        "c.bmf.json",
        "--github-benchmark",
        "c.gh.json",
    ]);
    check.assert_exit(0);
    let bmf = read_json(&project.path().join("c.bmf.json"));
    let names: Vec<&String> = bmf.as_object().unwrap().keys().collect();
    assert_eq!(
        names,
        ["sh again.sh::bench_canned", "sh canned.sh::bench_canned"]
    );
    // A cycle clock of unknown frequency: no time, so no latency; the cycles as a measure of their own.
    assert_eq!(bmf["sh canned.sh::bench_canned"]["cycles"]["value"], 700.0);
    let list = read_json(&project.path().join("c.gh.json"));
    let entry = list
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "sh again.sh::bench_canned - cycles")
        .unwrap();
    assert_eq!(entry["unit"], "cycles/iter");
    assert_eq!(entry["value"], 900.0);

    project
        .rho(&["bench", "--bmf", "b.bmf.json"])
        .assert_exit(0);
    assert!(
        read_json(&project.path().join("b.bmf.json"))["sh canned.sh::bench_canned"].is_object()
    );
    let several = project.rho(&["bench", "--target", "host,host", "--bmf", "x.json"]);
    several.assert_exit(2);
    several.assert_stderr_has("--bmf and --github-benchmark export one target's run");
}

/// An imported run's iterations are what its tool ran, not its samples times rho's batch of 1000: Google
/// Benchmark's three repetitions of 623447 iterations, hyperfine's five runs of each command.
#[test]
fn an_imported_runs_report_shows_the_iterations_its_tool_ran() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    for (format, report, name, ran) in [
        ("gbench", testdata("gbench.json"), "BM_sum/64", "1870341"),
        ("hyperfine", testdata("hyperfine.json"), "sleep 0.01", "5"),
    ] {
        let out = dir.join(format!("{format}.json"));
        rho_at(
            dir,
            &[
                "bench",
                "import",
                format,
                path_str(&report),
                "--json",
                path_str(&out),
            ],
            LIMIT,
        );
        let document = read_json(&out);
        let bench = common::bench(&document, name);
        assert_eq!(bench["iterations"].to_string(), ran, "{format}");
        let show = rho_at(dir, &["bench", "show", path_str(&out)], LIMIT);
        show.assert_exit(0);
        let row = show
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("{}", show.describe()));
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert!(cells.contains(&ran), "{format}: {row}");
        assert!(!show.stdout.contains("x1000"), "{}", show.describe());
    }
}
