//! Issue 26 through the real binary on examples/crypto_bench.c: `--measure instructions` keeps each
//! benchmark's functions in `--json` (the first, the loop's root, carrying the benchmark's own figure exactly),
//! `--functions N` limits them and 0 keeps none, `--profile NAME` prints one benchmark's table, and in time
//! mode `--profile` is a one-line hint to count instructions.

mod common;

use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

fn counted(dir: &std::path::Path, extra: &[&str]) -> (common::Outcome, serde_json::Value) {
    let suite = common::repo_file("examples/crypto_bench.c");
    let json = dir.join("run.json");
    let args = [
        &[
            "bench",
            suite.to_str().unwrap(),
            "--measure",
            "instructions",
            "--json",
            json.to_str().unwrap(),
        ][..],
        extra,
    ]
    .concat();
    let outcome = common::rho_at(dir, &args, LIMIT);
    outcome.assert_exit(0);
    let document = common::read_json(&json);
    (outcome, document)
}

fn benchmark<'a>(document: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    document["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {document}"))
}

#[test]
fn a_counted_run_keeps_each_benchmarks_functions_and_profile_prints_one() {
    let dir = tempfile::tempdir().unwrap();
    let (outcome, document) = counted(dir.path(), &["--profile", "bench_malloc_free"]);
    for bench in document["benchmarks"].as_array().unwrap() {
        let instructions = &bench["instructions"];
        let functions = &instructions["functions"];
        assert_eq!(functions["source"], "callgrind", "{bench}");
        let listed = functions["listed"].as_array().unwrap();
        if let Some(root) = listed.first() {
            assert_eq!(
                root["inclusive_per_iteration"], instructions["per_iteration"],
                "the root's inclusive figure is the benchmark's: {bench}"
            );
        }
        for function in listed {
            assert!(
                !function["name"]
                    .as_str()
                    .unwrap()
                    .starts_with("rho_bench__"),
                "the harness nets out: {bench}"
            );
        }
    }
    let malloc_free = benchmark(&document, "bench_malloc_free");
    let names: Vec<&str> = malloc_free["instructions"]["functions"]["listed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[0], "bench_malloc_free");
    assert!(
        names.contains(&"malloc") && names.contains(&"free"),
        "{names:?}"
    );
    // The table: a line per function, the root's inclusive figure rounded as the report rounds it.
    let table: Vec<&str> = outcome
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("bench_malloc_free: instructions per iteration by function"))
        .collect();
    let root_line = table.get(2).copied().unwrap_or_default();
    let root_inclusive =
        malloc_free["instructions"]["functions"]["listed"][0]["inclusive_per_iteration"]
            .as_f64()
            .unwrap()
            .round();
    assert!(
        root_line.split_whitespace().nth(1) == Some(&format!("{root_inclusive:.0}")[..])
            && root_line.ends_with("bench_malloc_free"),
        "{}",
        outcome.describe()
    );
    assert!(
        table.iter().any(|l| l.contains(" malloc ")),
        "{}",
        outcome.describe()
    );
}

#[test]
fn functions_are_limited_or_left_out_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (_, document) = counted(dir.path(), &["--functions", "1"]);
    let functions = &benchmark(&document, "bench_malloc_free")["instructions"]["functions"];
    assert_eq!(
        functions["listed"].as_array().unwrap().len(),
        1,
        "{functions}"
    );
    assert!(
        functions["other"]["functions"].as_u64().unwrap() >= 2,
        "{functions}"
    );
    let (_, document) = counted(dir.path(), &["--functions", "0"]);
    for bench in document["benchmarks"].as_array().unwrap() {
        assert!(bench["instructions"].get("functions").is_none(), "{bench}");
        assert!(
            bench["instructions"]["per_iteration"].as_f64().is_some(),
            "{bench}"
        );
    }
}

#[test]
fn profile_in_time_mode_is_a_hint_and_an_unknown_name_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let suite = common::repo_file("examples/crypto_bench.c");
    let suite = suite.to_str().unwrap();
    let timed = common::rho_at(
        dir.path(),
        &[
            "bench",
            suite,
            "--scale",
            "0.01",
            "--profile",
            "bench_crc_64",
        ],
        LIMIT,
    );
    timed.assert_exit(0);
    let hints: Vec<&str> = timed
        .stderr
        .lines()
        .filter(|l| l.starts_with("rho: hint: --profile bench_crc_64"))
        .collect();
    assert_eq!(hints.len(), 1, "{}", timed.describe());
    assert!(
        hints[0].contains("--measure instructions"),
        "{}",
        timed.describe()
    );
    let unknown = common::rho_at(
        dir.path(),
        &[
            "bench",
            suite,
            "--measure",
            "instructions",
            "--profile",
            "bench_nope",
        ],
        LIMIT,
    );
    unknown.assert_exit(2);
    // In module.yml mode there are several suites: refused before anything runs, saying where the figures are.
    std::fs::write(
        dir.path().join("module.yml"),
        "bench:\n  suites:\n    - a.c\n",
    )
    .unwrap();
    let module = common::rho_at(dir.path(), &["bench", "--profile", "bench_crc_64"], LIMIT);
    module.assert_exit(2);
    assert!(
        module
            .stderr
            .contains("in module.yml mode each benchmark's functions are in --json"),
        "{}",
        module.describe()
    );
    assert!(
        unknown
            .stderr
            .contains("--profile bench_nope: the suite has no benchmark of that name")
            && unknown.stderr.contains("bench_crc_64"),
        "{}",
        unknown.describe()
    );
}

/// A C++ suite's functions read as C++ (examples/sort_bench.cpp: std::sort's introsort, the benchmark in an
/// anonymous namespace), and a recursive function is one function whose inclusive figure stays within its
/// caller's.
#[test]
fn a_cpp_suites_functions_are_demangled() {
    let dir = tempfile::tempdir().unwrap();
    let suite = common::repo_file("examples/sort_bench.cpp");
    let json = dir.path().join("run.json");
    let args = [
        "bench",
        suite.to_str().unwrap(),
        "--measure",
        "instructions",
        "--json",
        json.to_str().unwrap(),
    ];
    common::rho_at(dir.path(), &args, LIMIT).assert_exit(0);
    let document = common::read_json(&json);
    let functions = &benchmark(&document, "bench_sort_1000")["instructions"]["functions"]["listed"];
    let listed = functions.as_array().unwrap();
    let root = &listed[0];
    assert_eq!(
        root["name"], "(anonymous namespace)::bench_sort_1000(rho_bench_state*)",
        "{functions}"
    );
    let introsort: Vec<&serde_json::Value> = listed
        .iter()
        .filter(|f| {
            f["name"]
                .as_str()
                .unwrap()
                .starts_with("void std::__introsort_loop<int*, long")
        })
        .collect();
    assert_eq!(
        introsort.len(),
        1,
        "one function for every level of recursion: {functions}"
    );
    assert!(
        introsort[0]["inclusive_per_iteration"].as_f64().unwrap()
            <= root["inclusive_per_iteration"].as_f64().unwrap(),
        "{functions}"
    );
}
