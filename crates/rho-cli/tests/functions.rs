//! Issue 26 through the real binary on examples/crypto_bench.c: `--measure instructions` keeps each
//! benchmark's functions in `--json` (the first, the loop's root, carrying the benchmark's own figure exactly),
//! `--functions N` limits them and 0 keeps none, `--profile NAME` prints one benchmark's table; in time mode
//! `--profile` samples the measured loop with `perf record` (marked sampled), and without perf is a one-line
//! hint to count instructions.

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

/// A PATH of links to every program on this one but `perf`, in `dir`.
fn path_without_perf(dir: &std::path::Path) -> std::ffi::OsString {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for from in std::env::split_paths(&path) {
        for entry in std::fs::read_dir(&from).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if name != "perf" && !bin.join(&name).exists() {
                let _ = std::os::unix::fs::symlink(entry.path(), bin.join(&name));
            }
        }
    }
    bin.into_os_string()
}

#[test]
fn profile_in_time_mode_without_perf_is_a_hint_and_an_unknown_name_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let suite = common::repo_file("examples/crypto_bench.c");
    let suite = suite.to_str().unwrap();
    let no_perf = path_without_perf(dir.path());
    // A perf that cannot record (as with perf_event_paranoid 3): the same hint, saying why.
    let failing = dir.path().join("failing");
    std::fs::create_dir_all(&failing).unwrap();
    common::write_c(
        &failing,
        "perf",
        "#!/bin/sh\necho 'perf: Access to performance monitoring and observability operations is limited.' >&2\nexit 255\n",
    );
    std::fs::set_permissions(
        failing.join("perf"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let mut failing_path = failing.into_os_string();
    failing_path.push(":");
    failing_path.push(&no_perf);
    for (path, why) in [
        (&no_perf, "`perf` is not on the PATH"),
        (&failing_path, "Access to performance monitoring"),
    ] {
        let args = [
            "bench",
            suite,
            "--scale",
            "0.01",
            "--profile",
            "bench_crc_64",
        ];
        let mut command = common::rho_command(dir.path(), &args);
        command.current_dir(dir.path()).env("PATH", path);
        let timed = common::run_rho(command, &args, LIMIT);
        timed.assert_exit(0);
        let hints: Vec<&str> = timed
            .stderr
            .lines()
            .filter(|l| l.starts_with("rho: hint: --profile bench_crc_64"))
            .collect();
        assert_eq!(hints.len(), 1, "{}", timed.describe());
        assert!(
            hints[0].contains("--measure instructions") && hints[0].contains(why),
            "{}",
            timed.describe()
        );
        // Nothing else changes: the report is there, no table.
        assert!(
            timed.stdout.contains("bench_crc_64") && !timed.stdout.contains("sampled ("),
            "{}",
            timed.describe()
        );
    }
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
    // module.yml mode samples as the file mode does: without perf, the same one hint under the suite.
    std::fs::copy(
        common::repo_file("examples/crypto_bench.c"),
        dir.path().join("crypto.c"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("module.yml"),
        "bench:\n  scale: 0.01\n  suites:\n    - crypto.c\n",
    )
    .unwrap();
    let args = ["bench", "--profile", "bench_crc_64"];
    let mut command = common::rho_command(dir.path(), &args);
    command.current_dir(dir.path()).env("PATH", &no_perf);
    let module = common::run_rho(command, &args, LIMIT);
    module.assert_exit(0);
    let hints: Vec<&str> = module
        .stderr
        .lines()
        .filter(|l| l.starts_with("rho: hint: --profile bench_crc_64"))
        .collect();
    assert_eq!(hints.len(), 1, "{}", module.describe());
    assert!(
        hints[0].contains("--measure instructions")
            && hints[0].contains("`perf` is not on the PATH"),
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

/// A suite whose benchmark calls a noinline hot function (about 2000 multiply-xor rounds a call), and one whose
/// body is a few instructions.
const HOT_SUITE: &str = r#"#include "rho/bench.h"
#include <stdint.h>

__attribute__((noinline)) static uint64_t mix_rounds(uint64_t x)
{
    for (int i = 0; i < 2000; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        x ^= x >> 29;
    }
    return x;
}

static void bench_hot(rho_bench_t *state)
{
    uint64_t x = 1;
    RHO_BENCH_LOOP(state) {
        x = mix_rounds(x);
        RHO_BENCH_KEEP(x);
    }
}

static void bench_cold(rho_bench_t *state)
{
    uint64_t x = 1;
    RHO_BENCH_LOOP(state) {
        x += 3;
        RHO_BENCH_KEEP(x);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_hot);
    RHO_BENCH_ADD(&suite, bench_cold);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// Why perf cannot record a process of ours here (`None`: it can).
fn perf_cannot_record(dir: &std::path::Path) -> Option<String> {
    let data = dir.join("probe.data");
    match std::process::Command::new("perf")
        .args(["record", "--quiet", "-e", "cycles:u", "-o"])
        .arg(&data)
        .args(["--", "true"])
        .output()
    {
        Ok(output) if output.status.success() => None,
        Ok(output) => Some(String::from_utf8_lossy(&output.stderr).trim().to_string()),
        Err(error) => Some(format!("perf does not run: {error}")),
    }
}

/// Time mode (issue 26, item 5): `--profile` samples the measured loop with perf record in a run of its own:
/// the hot function is named first with most of the samples (> 50%: it is some 2000 rounds against the
/// loop's few instructions), the JSON marks the list sampled with the event perf really used, and the timed
/// figures of the run are the same in kind as those of a run without sampling.
#[test]
fn time_mode_profile_samples_the_measured_loop_and_names_the_hot_function_first() {
    let dir = tempfile::tempdir().unwrap();
    if let Some(why) = perf_cannot_record(dir.path()) {
        println!("note: time_mode_profile_samples... skipped: perf cannot record here: {why}");
        return;
    }
    let suite = common::write_c(dir.path(), "hot.c", HOT_SUITE);
    let suite = suite.to_str().unwrap();
    let sampled_json = dir.path().join("sampled.json");
    let args = [
        "bench",
        suite,
        "--profile",
        "bench_hot",
        "--functions",
        "5",
        "--json",
        sampled_json.to_str().unwrap(),
    ];
    let sampled = common::rho_at(dir.path(), &args, LIMIT);
    sampled.assert_exit(0);
    let table: Vec<&str> = sampled
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("bench_hot: time by function, sampled ("))
        .collect();
    assert!(table.len() >= 3, "{}", sampled.describe());
    assert!(
        table[0].contains("samples of the measured loop by perf record; estimates, not counts")
    );
    let first: Vec<&str> = table[2].split_whitespace().collect();
    assert_eq!(first.last(), Some(&"mix_rounds"), "{}", sampled.describe());
    let share: f64 = first[0].trim_end_matches('%').parse().unwrap();
    assert!(share > 50.0, "{}", sampled.describe());

    let document = common::read_json(&sampled_json);
    let hot = &benchmark(&document, "bench_hot")["sampled_functions"];
    assert_eq!(hot["source"], "perf", "{hot}");
    let sampling = &hot["sampling"];
    assert!(
        ["cycles", "cpu-clock"].contains(&sampling["event"].as_str().unwrap()),
        "{hot}"
    );
    assert_eq!(sampling["call_graph"], "dwarf", "{hot}");
    assert!(sampling["samples"].as_u64().unwrap() > 0, "{hot}");
    assert_eq!(hot["listed"][0]["name"], "mix_rounds", "{hot}");
    let loop_ns = sampling["ns_per_iteration"].as_f64().unwrap();
    assert!(
        hot["listed"][0]["self_per_iteration"].as_f64().unwrap() > 0.5 * loop_ns,
        "{hot}"
    );
    assert!(hot["listed"].as_array().unwrap().len() <= 5, "{hot}");
    // --functions N samples every benchmark: bench_cold's loop too, though a loop of some 20000 iterations
    // of a few instructions is over before the sampling clock ticks; then a note says so.
    let cold = &benchmark(&document, "bench_cold")["sampled_functions"];
    assert!(
        cold["source"] == "perf"
            || sampled.stderr.contains(
                "rho: note: bench_cold not sampled: perf recorded no sample in bench_cold's measured loop"
            ),
        "{}",
        sampled.describe()
    );

    // Without sampling: the same benchmarks with the same figures in kind, and no sampled list.
    let plain_json = dir.path().join("plain.json");
    let plain = common::rho_at(
        dir.path(),
        &["bench", suite, "--json", plain_json.to_str().unwrap()],
        LIMIT,
    );
    plain.assert_exit(0);
    let plain_document = common::read_json(&plain_json);
    let keys = |bench: &serde_json::Value| {
        let mut keys: Vec<String> = bench
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "sampled_functions")
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    for name in ["bench_hot", "bench_cold"] {
        let with = benchmark(&document, name);
        let without = benchmark(&plain_document, name);
        assert_eq!(keys(with), keys(without), "{name}");
        assert!(without.get("sampled_functions").is_none(), "{without}");
        for clock in ["time", "cycles"] {
            assert_eq!(
                with[clock]
                    .as_object()
                    .map(|o| o.keys().collect::<Vec<_>>()),
                without[clock]
                    .as_object()
                    .map(|o| o.keys().collect::<Vec<_>>()),
                "{name} {clock}"
            );
        }
    }
}

/// The second suite of a module in [`module_yml_mode_samples_in_time_mode_as_the_file_mode_does`].
const OTHER_SUITE: &str = r#"#include "rho/bench.h"
#include <stdint.h>

static void bench_other(rho_bench_t *state)
{
    uint64_t x = 1;
    RHO_BENCH_LOOP(state) {
        x = x * 3 + 1;
        RHO_BENCH_KEEP(x);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_other);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// module.yml mode in time mode (issue 26, item 5): `rho bench --profile NAME` and `rho bench check --profile
/// NAME` sample NAME's measured loop as `rho bench FILE.c` does, the table printed under the suite that ran
/// it (the second of two), and `--functions N` puts a sampled list on each benchmark of the project's --json.
/// A benchmark whose caller keeps a 16 KB buffer on its stack: its hot leaf is sampled 16 KB below the
/// benchmark's frame.
const BIG_FRAME_SUITE: &str = r#"#include "rho/bench.h"
#include <string.h>

__attribute__((noinline)) static unsigned leaf_work(const unsigned char *table, unsigned x)
{
    for (int i = 0; i < 2000; i++) {
        x = x * 2654435761u + table[(x >> 20) & 4095];
    }
    return x;
}

__attribute__((noinline)) static unsigned caller_work(unsigned x)
{
    unsigned char table[16384];
    memset(table, (int)(x & 0xff), sizeof table);
    __asm__ volatile("" : : "r"(table) : "memory");
    x = leaf_work(table + 8192, x);
    return x ^ (x >> 7); /* no tail call: caller_work stays on the stack under leaf_work */
}

static void bench_big_frame(rho_bench_t *state)
{
    unsigned x = 1;
    RHO_BENCH_LOOP(state) {
        x = caller_work(x);
        RHO_BENCH_KEEP(x);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_big_frame);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// Issue 38: time mode's call chains reach the benchmark's frame, so a caller's inclusive share holds its
/// callees' and is above its self share. perf's default stack copy (8 KB) stopped every chain of this suite
/// at the leaf (caller_work was not listed at all, bench_big_frame read 1.4% inclusive); the copy is now sized
/// from the benchmark's measured stack.
#[test]
fn time_mode_call_chains_reach_a_caller_with_a_16_kb_frame() {
    let dir = tempfile::tempdir().unwrap();
    if let Some(why) = perf_cannot_record(dir.path()) {
        println!("note: time_mode_call_chains... skipped: perf cannot record here: {why}");
        return;
    }
    let suite = common::write_c(dir.path(), "big_frame.c", BIG_FRAME_SUITE);
    let json = dir.path().join("run.json");
    let run = common::rho_at(
        dir.path(),
        &[
            "bench",
            suite.to_str().unwrap(),
            "--profile",
            "bench_big_frame",
            "--json",
            json.to_str().unwrap(),
        ],
        LIMIT,
    );
    run.assert_exit(0);
    let document = common::read_json(&json);
    let sampled = &benchmark(&document, "bench_big_frame")["sampled_functions"];
    let function = |name: &str| {
        let listed = sampled["listed"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {sampled}"));
        (
            listed["self_per_iteration"].as_f64().unwrap(),
            listed["inclusive_per_iteration"].as_f64().unwrap(),
        )
    };
    let loop_ns = sampled["sampling"]["ns_per_iteration"].as_f64().unwrap();
    let (leaf_self, leaf_inclusive) = function("leaf_work");
    let (caller_self, caller_inclusive) = function("caller_work");
    let (_, root_inclusive) = function("bench_big_frame");
    assert_eq!(leaf_self, leaf_inclusive, "{sampled}");
    assert!(caller_inclusive > caller_self, "{sampled}");
    assert!(caller_inclusive >= leaf_inclusive, "{sampled}");
    assert!(root_inclusive > 0.5 * loop_ns, "{sampled}");
}

#[test]
fn module_yml_mode_samples_in_time_mode_as_the_file_mode_does() {
    let dir = tempfile::tempdir().unwrap();
    if let Some(why) = perf_cannot_record(dir.path()) {
        println!("note: module_yml_mode_samples... skipped: perf cannot record here: {why}");
        return;
    }
    common::write_c(dir.path(), "other.c", OTHER_SUITE);
    common::write_c(dir.path(), "hot.c", HOT_SUITE);
    std::fs::write(
        dir.path().join("module.yml"),
        "bench:\n  suites:\n    - other.c\n    - hot.c\n",
    )
    .unwrap();
    let json = dir.path().join("run.json");
    let json_arg = json.to_str().unwrap();
    let bench: &[&str] = &[
        "bench",
        "--profile",
        "bench_hot",
        "--functions",
        "5",
        "--json",
        json_arg,
    ];
    let check: &[&str] = &["bench", "check", "--profile", "bench_hot"];
    for args in [bench, check] {
        let run = common::rho_at(dir.path(), args, LIMIT);
        run.assert_exit(0);
        let table: Vec<&str> = run
            .stdout
            .lines()
            .skip_while(|l| !l.starts_with("bench_hot: time by function, sampled ("))
            .collect();
        assert!(table.len() >= 3, "{}", run.describe());
        let first: Vec<&str> = table[2].split_whitespace().collect();
        assert_eq!(first.last(), Some(&"mix_rounds"), "{}", run.describe());
        let share: f64 = first[0].trim_end_matches('%').parse().unwrap();
        assert!(share > 50.0, "{}", run.describe());
        // Printed once, after the suite that ran it; no warning that no suite did.
        assert!(
            !run.stderr.contains("no suite ran a benchmark of that name"),
            "{}",
            run.describe()
        );
        assert!(
            run.stdout.find("bench_other") < run.stdout.find("bench_hot: time by function"),
            "{}",
            run.describe()
        );
    }
    let document = common::read_json(&json);
    let suites = document["suites"].as_array().unwrap();
    assert_eq!(suites.len(), 2, "{document}");
    let hot = benchmark(&suites[1], "bench_hot");
    assert_eq!(hot["sampled_functions"]["source"], "perf", "{hot}");
    assert_eq!(
        hot["sampled_functions"]["listed"][0]["name"], "mix_rounds",
        "{hot}"
    );
    assert!(
        hot["sampled_functions"]["listed"].as_array().unwrap().len() <= 5,
        "{hot}"
    );
    // A name no suite ran: a warning, the run's figures kept.
    let unknown = common::rho_at(dir.path(), &["bench", "--profile", "bench_nope"], LIMIT);
    unknown.assert_exit(0);
    assert!(
        unknown
            .stderr
            .contains("rho: warning: --profile bench_nope: no suite ran a benchmark of that name"),
        "{}",
        unknown.describe()
    );
}

/// A time regression between two saved runs that perf sampled (`--functions N`): `compare` names the functions
/// whose sampled figures changed most, marked sampled in the text and the JSON. Head's hot function does ten
/// times the rounds (a change far beyond sampling noise), so it leads the list.
#[test]
fn compare_of_two_sampled_runs_names_the_function_behind_a_time_regression() {
    let dir = tempfile::tempdir().unwrap();
    if let Some(why) = perf_cannot_record(dir.path()) {
        println!("note: compare_of_two_sampled_runs... skipped: perf cannot record here: {why}");
        return;
    }
    for (side, rounds) in [("base", "2000"), ("head", "20000")] {
        let side_dir = dir.path().join(side);
        std::fs::create_dir_all(&side_dir).unwrap();
        let suite = common::write_c(&side_dir, "hot.c", &HOT_SUITE.replace("2000", rounds));
        let json = format!("{side}.json");
        let args = [
            "bench",
            suite.to_str().unwrap(),
            "--functions",
            "5",
            "--json",
            &json,
        ];
        common::rho_at(dir.path(), &args, LIMIT).assert_exit(0);
    }
    let args = [
        "bench",
        "compare",
        "base.json",
        "head.json",
        "--json",
        "c.json",
        "--html",
        "c.html",
    ];
    let outcome = common::rho_at(dir.path(), &args, LIMIT);
    outcome.assert_exit(1);
    let block: Vec<&str> = outcome
        .stdout
        .lines()
        .skip_while(|l| *l != "bench_hot: the functions that changed most")
        .take(3)
        .collect();
    assert!(
        block.len() == 3
            && block[1].contains("function (sampled ns/iter)")
            && block[2].trim_start().starts_with("mix_rounds"),
        "{}",
        outcome.describe()
    );
    let document = common::read_json(&dir.path().join("c.json"));
    let hot = document["comparison"]["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "bench_hot")
        .unwrap_or_else(|| panic!("{document}"));
    assert_eq!(hot["functions_sampled"], true, "{hot}");
    assert_eq!(hot["functions"][0]["name"], "mix_rounds", "{hot}");
    let own = |side: &str| hot["functions"][0][side]["self"].as_f64().unwrap();
    assert!(own("head") > 5.0 * own("base"), "{hot}");
    // The page: the same table under bench_hot, marked sampled.
    let page = std::fs::read_to_string(dir.path().join("c.html")).unwrap();
    let sampled = page
        .split("<figure class=\"sampled-functions\">")
        .nth(1)
        .unwrap_or_else(|| panic!("{page}"));
    assert!(
        sampled.starts_with(
            "<figcaption>bench_hot: the functions that changed most, sampled by perf record"
        ) && sampled.contains("<td><code>mix_rounds</code></td>"),
        "{page}"
    );
}
