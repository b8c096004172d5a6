//! `rho bench --write-baseline` and `rho bench check --diff REF` through the real binary, in a temporary git
//! repository: a baseline is written and committed; with nothing changed `check --diff HEAD` exits 0 run after
//! run; with one benchmark's work done twice (a real code change) it exits 1 naming that benchmark and metric
//! while the others pass; a baseline of another target, of another clock, of another schema, corrupt, or
//! missing at the ref is refused with exit 2.
//!
//! No figure is hard-coded: the test compares the binary with itself. The no-change and slowdown checks count
//! instructions under Callgrind (exact, at a 0.5% limit), so they hold however busy the machine is; no
//! wall-clock figure is asserted not to have moved.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// The tests here measure: run one at a time, so they do not slow each other down.
static MEASURING: Mutex<()> = Mutex::new(());

fn measuring() -> std::sync::MutexGuard<'static, ()> {
    MEASURING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Three benchmarks: a CRC-32 over 128 bytes (the one the slowdown doubles), a multiply-add hash and a copy.
/// `TWICE` (0 or 1) is replaced to make the CRC benchmark do its work twice per iteration.
const SUITE: &str = r#"#include <rho/bench.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#define TWICE 0
#define EXTRA 0

static uint32_t crc32(const uint8_t *data, size_t len)
{
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;
    for (i = 0; i < len; i++) {
        int bit;
        crc ^= data[i];
        for (bit = 0; bit < 8; bit++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

static uint8_t message[128];
static uint8_t copy[128];

static void bench_checksum(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "byte", 128);
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(crc32(message, sizeof message));
        if (TWICE) {
            RHO_BENCH_KEEP(crc32(message, sizeof message));
        }
        if (EXTRA) {
            RHO_BENCH_KEEP(crc32(message, EXTRA)); /* a few bytes more: a small planted slowdown */
        }
    }
}

static void bench_hash(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "byte", 128);
    RHO_BENCH_LOOP(state) {
        uint32_t sum = 0;
        size_t i;
        for (i = 0; i < sizeof message; i++) {
            sum = sum * 31u + message[i];
        }
        RHO_BENCH_KEEP(sum);
    }
}

static void bench_copy(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "byte", 128);
    RHO_BENCH_LOOP(state) {
        memcpy(copy, message, sizeof message);
        RHO_BENCH_KEEP(copy[17]);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    size_t i;
    for (i = 0; i < sizeof message; i++) {
        message[i] = (uint8_t)(i * 7u + 3u);
    }
    RHO_BENCH_ADD(&suite, bench_checksum);
    RHO_BENCH_ADD(&suite, bench_hash);
    RHO_BENCH_ADD(&suite, bench_copy);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// The checksum is judged at the default limit (10%). The hash and the copy are short store- and ALU-bound
/// loops (hundreds and a handful of cycles), timed in batches and so resolved to a fraction of a cycle: on the
/// shared VM such loops swing by up to 2x with nothing changed (docs/baseline.md), so their limit is above
/// that, and only the doubled checksum is a finding.
const MODULE_YML: &str = "bench:\n  default_iterations: 5000\n  warmup_runs: 100\n  suites:\n    - bench/suite.c\n  \
     benchmarks:\n    bench_hash:\n      budgets:\n        fail_on_regression_percent: 200.0\n    \
     bench_copy:\n      budgets:\n        fail_on_regression_percent: 200.0\n";

struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    /// A git repository holding module.yml and the suite, committed.
    fn new() -> Repo {
        let repo = Repo {
            dir: tempfile::tempdir().unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.write("module.yml", MODULE_YML);
        repo.write("bench/suite.c", SUITE);
        repo.commit("the suite", &["module.yml", "bench/suite.c"]);
        repo
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.path().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn read(&self, relative: &str) -> String {
        fs::read_to_string(self.path().join(relative)).unwrap()
    }

    /// `git ARGS` in the repository (never signing a commit); it must succeed.
    fn git(&self, args: &[&str]) {
        common::git(
            self.path(),
            &[&["-c", "commit.gpgsign=false"], args].concat(),
        );
    }

    fn commit(&self, message: &str, paths: &[&str]) {
        let mut add = vec!["add"];
        add.extend_from_slice(paths);
        self.git(&add);
        self.git(&["commit", "-q", "-m", message]);
    }

    fn rho(&self, args: &[&str]) -> Run {
        self.rho_in(".", args)
    }

    /// rho run from `relative`, a directory of the repository (module.yml is found above it).
    fn rho_in(&self, relative: &str, args: &[&str]) -> Run {
        let output = Command::new(env!("CARGO_BIN_EXE_rho"))
            .args(args)
            .current_dir(self.path().join(relative))
            .output()
            .unwrap();
        Run {
            args: args.join(" "),
            output,
        }
    }

    /// `rho bench --write-baseline`, committed.
    fn record_baseline(&self) -> serde_json::Value {
        self.record_baseline_with(&[])
    }

    /// `rho bench --write-baseline EXTRA...` (e.g. `--measure instructions`), committed.
    fn record_baseline_with(&self, extra: &[&str]) -> serde_json::Value {
        let run = self.rho(&[&["bench", "--write-baseline"], extra].concat());
        assert_eq!(run.code(), 0, "{run}");
        assert!(
            run.stdout()
                .contains("baseline: recorded 3 benchmark(s) of target host"),
            "{run}"
        );
        self.commit("baseline", &["bench/baseline.json"]);
        serde_json::from_str(&self.read("bench/baseline.json")).unwrap()
    }
}

struct Run {
    args: String,
    output: Output,
}

impl Run {
    fn code(&self) -> i32 {
        self.output.status.code().unwrap_or(-1)
    }
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }
    /// The comparison's rows for `bench` (lines of the text table starting with its name).
    fn rows(&self, bench: &str) -> Vec<String> {
        self.stdout()
            .lines()
            .filter(|l| l.starts_with(&format!("{bench} ")))
            .map(str::to_string)
            .collect()
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "rho {} exited {}\n--- stdout\n{}--- stderr\n{}",
            self.args,
            self.code(),
            self.stdout(),
            self.stderr()
        )
    }
}

/// Instructions, counted exactly under Callgrind: with nothing changed every `check --diff` passes at a
/// 0.5% limit (a count does not move with the machine's load, so this holds on a machine whose cores are
/// all busy); a 2% slowdown planted in one benchmark fails naming that benchmark and no other; the CRC's work
/// done twice fails too, and the Markdown puts it first. Timing is not asserted on here: on a shared machine
/// it moves by more than any limit worth having (docs/baseline.md).
#[test]
fn no_change_passes_run_after_run_and_a_doubled_benchmark_fails_by_name() {
    let _guard = measuring();
    let repo = Repo::new();
    let counted = ["--measure", "instructions"];
    let baseline = repo.record_baseline_with(&counted);
    assert!(
        baseline["targets"]["host"]["time"].is_null(),
        "a run that only counted records no time section"
    );
    let host = &baseline["targets"]["host"]["instructions"];
    assert_eq!(
        host["context"]["repetitions"], 1,
        "a count is exact: one run, nothing to take the best of"
    );
    assert_eq!(host["context"]["instructions"], "callgrind");
    let names: Vec<&str> = host["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["bench_checksum", "bench_hash", "bench_copy"]);
    for bench in host["benchmarks"].as_array().unwrap() {
        assert!(bench["instructions"].as_u64().unwrap() > 0, "{bench}");
        // Its functions, the first (the loop's root) carrying the benchmark's figure (issue 26).
        let root = &bench["functions"]["listed"][0];
        assert_eq!(
            root["inclusive_per_iteration"].as_f64().unwrap().round() as u64,
            bench["instructions"].as_u64().unwrap(),
            "{bench}"
        );
    }
    assert_eq!(baseline["schema"], "rho-baseline/5");
    let strict = common::COUNTED_CHECK;
    repo.write(
        "module.yml",
        &format!("{MODULE_YML}  budgets:\n    fail_on_instructions_regression_percent: 0.5\n"),
    );

    // Nothing changed: several runs, every one within a 0.5% limit.
    for attempt in 1..=4 {
        // The last from a subdirectory: the committed baseline is still found through git.
        let dir = if attempt == 4 { "bench" } else { "." };
        let run = repo.rho_in(dir, &strict);
        assert_eq!(run.code(), 0, "attempt {attempt}: {run}");
        assert!(
            run.stdout().contains("0 regressed") && run.stdout().contains("instructions +0.5%"),
            "attempt {attempt}: {run}"
        );
        for name in names.iter() {
            assert!(
                run.rows(name)
                    .iter()
                    .any(|row| row.contains("instructions") && row.contains(" 0.0%  ok")),
                "attempt {attempt}: {name} counts the same instructions: {run}"
            );
        }
    }

    // A 2% slowdown planted in bench_checksum (its CRC over 128 bytes, and over 3 more): exit 1, naming it and
    // no other.
    repo.write(
        "bench/suite.c",
        &SUITE.replace("#define EXTRA 0", "#define EXTRA 3"),
    );
    let run = repo.rho(&strict);
    assert_eq!(run.code(), 1, "{run}");
    let row = run
        .rows("bench_checksum")
        .into_iter()
        .find(|row| row.split_whitespace().nth(1) == Some("instructions"))
        .unwrap_or_default();
    assert!(row.ends_with("REGRESSED"), "{run}");
    let change: f64 = row
        .split_whitespace()
        .find_map(|word| word.strip_suffix('%')?.strip_prefix('+')?.parse().ok())
        .unwrap_or_else(|| panic!("no change in {row:?}"));
    assert!(
        (1.0..4.0).contains(&change),
        "a planted 2% slowdown reads {change}%: {run}"
    );
    for untouched in ["bench_hash", "bench_copy"] {
        assert!(
            run.rows(untouched)
                .iter()
                .all(|row| !row.contains("REGRESSED")),
            "{untouched} passes: {run}"
        );
    }

    // The CRC's work done twice per iteration: a real code change, uncommitted, against the committed baseline.
    repo.write(
        "bench/suite.c",
        &SUITE.replace("#define TWICE 0", "#define TWICE 1"),
    );
    let markdown = repo.path().join("comparison.md");
    let run = repo.rho(&[&strict[..], &["--markdown", markdown.to_str().unwrap()]].concat());
    assert_eq!(run.code(), 1, "{run}");
    let metric = "instructions";
    let slowed = run.rows("bench_checksum");
    assert!(
        slowed
            .iter()
            .any(|row| row.contains(metric) && row.ends_with("REGRESSED")),
        "bench_checksum's {metric} is named as regressed: {run}"
    );
    for untouched in ["bench_hash", "bench_copy"] {
        let rows = run.rows(untouched);
        assert!(
            rows.len() >= 3,
            "{untouched} is compared metric by metric: {run}"
        );
        assert!(
            rows.iter().all(|row| !row.contains("REGRESSED")),
            "{untouched} passes: {run}"
        );
    }
    assert!(
        run.stdout().contains("against the baseline: fails"),
        "{run}"
    );

    // The Markdown puts the regression first, marked, and folds the rest away.
    let text = fs::read_to_string(&markdown).unwrap();
    let first_row = text
        .lines()
        .find(|l| l.starts_with("| :"))
        .unwrap_or_default()
        .to_string();
    assert!(
        first_row.contains("**regressed**") && first_row.contains("`bench_checksum`"),
        "{text}"
    );
    assert!(
        text.contains("<details>") && text.contains("</details>"),
        "{text}"
    );
    // Why it got slower (issue 26): the functions whose counts changed, under the regressed benchmark, in
    // the text and in a collapsed block of the Markdown.
    assert!(
        run.stdout()
            .contains("bench_checksum: the functions that changed most"),
        "{run}"
    );
    assert!(
        text.contains(
            "<details><summary>bench_checksum: the functions that changed most</summary>"
        ),
        "{text}"
    );

    // `rho bench --diff` fails the same way (exit 1), as a pipeline copied from the spec expects, and its
    // `--json` carries the comparison per benchmark and metric.
    let json = repo.path().join("run.json");
    let run = repo.rho(&[
        "bench",
        "--diff",
        "HEAD",
        "--measure",
        "instructions",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(run.code(), 1, "{run}");
    assert!(
        run.rows("bench_checksum")
            .iter()
            .any(|row| row.ends_with("REGRESSED")),
        "{run}"
    );
    assert!(
        run.stdout().lines().any(|l| l.starts_with("diff: ")
            && l.ends_with("metric(s) regressed and 0 not measured against the baseline: exit 1")),
        "{run}"
    );
    // The report and the comparison fit 100 columns (piped, no COLUMNS).
    for line in run.stdout().lines() {
        assert!(line.chars().count() <= 100, "{line:?}: {run}");
    }
    let document = common::read_json(&json);
    let comparison = &document["comparison"];
    assert_eq!(comparison["failed"], true, "{comparison}");
    // The instructions, and the code the second CRC call added.
    assert!(
        comparison["counts"]["regressed"].as_u64().unwrap() >= 1,
        "{comparison}"
    );
    assert!(comparison["base"].as_str().unwrap().contains("at HEAD"));
    // The functions that changed: their own changes add up to the benchmark's, exactly (whole counts per
    // iteration, at most half an instruction of rounding each).
    let checksum = comparison["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "bench_checksum")
        .unwrap();
    let functions = checksum["functions"].as_array().unwrap();
    assert!(!functions.is_empty(), "{checksum}");
    let own = |f: &serde_json::Value, side: &str| f[side]["self"].as_f64().unwrap_or(0.0);
    let moved: f64 = functions
        .iter()
        .map(|f| own(f, "head") - own(f, "base"))
        .sum();
    let counted = checksum["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "instructions")
        .unwrap();
    let change = counted["head"].as_f64().unwrap() - counted["base"].as_f64().unwrap();
    assert!(
        (moved - change).abs() <= 0.5 * functions.len() as f64 + 1.0,
        "functions moved {moved}, the benchmark {change}: {checksum}"
    );
    let metric = |bench: &str, metric: &str| {
        comparison["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == bench)
            .and_then(|b| {
                b["metrics"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|m| m["metric"] == metric)
            })
            .unwrap_or_else(|| panic!("no {bench} {metric} in {comparison}"))
            .clone()
    };
    let doubled = metric("bench_checksum", "instructions");
    assert_eq!(doubled["verdict"], "regressed", "{doubled}");
    assert_eq!(doubled["limit_percent"], 0.5, "{doubled}");
    assert!(doubled["not_counted"].is_null(), "{doubled}");
    let (base, head) = (
        common::f64_at(&doubled, "/base"),
        common::f64_at(&doubled, "/head"),
    );
    // The CRC's work twice: far outside any noise, and the change is head against base.
    assert!(head > base * 1.5, "{doubled}");
    let change = common::f64_at(&doubled, "/change_percent");
    assert!(
        (change - (head - base) / base * 100.0).abs() < 1e-6,
        "{doubled}"
    );
    let same = metric("bench_hash", "instructions");
    assert_eq!(same["verdict"], "ok", "{same}");
    assert_eq!(same["change_percent"], 0.0, "{same}");
    // Every row says what it was judged against.
    for bench in ["bench_hash", "bench_copy"] {
        let counted = metric(bench, "instructions");
        assert_eq!(counted["unit"], "instructions (callgrind)", "{counted}");
        assert!(counted["base"].as_f64().unwrap() > 0.0, "{counted}");
    }
}

/// A benchmark's stack recursing 264 frames of 256 bytes before its loop: deeper than the harness's 64 KiB
/// painted region, so its stack overruns.
const DEEP_STACK: &str = r#"static __attribute__((noinline)) unsigned deep(unsigned depth)
{
    volatile unsigned char frame[256];
    unsigned i;
    for (i = 0; i < sizeof frame; i++) {
        frame[i] = (unsigned char)(depth ^ i);
    }
    return (depth > 1 ? deep(depth - 1) : 0u) + frame[0];
}

static uint8_t message[128];"#;

/// Issue 22, defects 1 and 2: a baseline of both measures (`--write-baseline --measure time,instructions`)
/// checked with nothing changed by a run of either measure passes, each measure judged against its own section.
/// Before, a counted run judged its stack marks (measured under Valgrind) against the native ones and failed on
/// the time metrics it never measures ("N regressed and 12 not measured"), and a timed run failed on the
/// instructions ("0 regressed and 6 not measured"). What a run chose not to measure is left out, said on one
/// line; a stack that overruns in a run that measured it still fails as not measured.
///
/// The counted check is exact (instructions, stack and heap at the default 10% limit). The timed checks are
/// judged at a 1000% limit, so that no wall-clock figure is asserted not to have moved: what they show is which
/// metrics are judged, not how fast the machine was.
#[test]
fn a_baseline_of_both_measures_is_checked_by_either_with_its_own_figures() {
    let _guard = measuring();
    let repo = Repo::new();
    let module =
        "bench:\n  default_iterations: 5000\n  warmup_runs: 100\n  suites:\n    - bench/suite.c\n";
    repo.write("module.yml", module);
    let baseline = repo.record_baseline_with(&["--measure", "time,instructions"]);
    let host = &baseline["targets"]["host"];
    let (timed, counted) = (&host["time"], &host["instructions"]);
    assert!(timed["context"]["clocks"]["cycles"].is_object(), "{host}");
    assert_eq!(counted["context"]["instructions"], "callgrind", "{host}");
    for bench in timed["benchmarks"].as_array().unwrap() {
        assert!(
            bench["instructions"].is_null() && bench["time_ns"].is_object(),
            "{bench}"
        );
        assert!(bench["stack_bytes"].as_u64().is_some(), "{bench}");
    }
    for bench in counted["benchmarks"].as_array().unwrap() {
        assert!(bench["instructions"].as_u64().unwrap() > 0, "{bench}");
        assert!(
            bench["time_ns"].is_null() && bench["cycles"].is_null(),
            "{bench}"
        );
        // The stack the counted run saw, under Valgrind: kept, to be judged against its like.
        assert!(bench["stack_bytes"].as_u64().is_some(), "{bench}");
    }

    // (a) Counted: instructions, stack and heap each against the counted section; time left out, not failed.
    let run = repo.rho(&common::COUNTED_CHECK);
    assert_eq!(run.code(), 0, "{run}");
    assert!(run.stdout().contains("0 regressed"), "{run}");
    assert!(!run.stdout().contains("not measured"), "{run}");
    let left_out: Vec<&str> = run
        .stdout()
        .lines()
        .filter(|l| l.starts_with("left out: "))
        .map(|_| "")
        .collect();
    assert_eq!(
        left_out.len(),
        1,
        "what was left out is said on one line: {run}"
    );
    assert!(
        run.stdout()
            .contains("left out: cycles, time_ns: this run counted instructions only"),
        "{run}"
    );
    for bench in ["bench_checksum", "bench_hash", "bench_copy"] {
        let rows = run.rows(bench);
        assert!(
            rows.iter()
                .any(|r| r.contains("stack_bytes") && r.contains(" 0.0%  ok")),
            "{bench}'s counted stack is judged against the counted one: {run}"
        );
        assert!(rows.iter().all(|r| !r.contains("time_ns")), "{run}");
    }

    // (b) Timed: the time section's metrics; the instructions left out, not failed.
    repo.write(
        "module.yml",
        &format!("{module}  budgets:\n    fail_on_regression_percent: 1000.0\n"),
    );
    let timed_check = ["bench", "check", "--diff", "HEAD"];
    let run = repo.rho(&timed_check);
    assert_eq!(run.code(), 0, "{run}");
    assert!(!run.stdout().contains("not measured"), "{run}");
    assert!(
        run.stdout()
            .contains("left out: instructions: this run did not count them"),
        "{run}"
    );
    // Both measures: each against its own section, nothing left out.
    let both = [
        "bench",
        "check",
        "--diff",
        "HEAD",
        "--measure",
        "time,instructions",
    ];
    let run = repo.rho(&both);
    assert_eq!(run.code(), 0, "{run}");
    assert!(!run.stdout().contains("left out"), "{run}");
    assert!(
        run.rows("bench_hash")
            .iter()
            .any(|r| r.contains("instructions") && r.contains(" 0.0%  ok")),
        "{run}"
    );

    // (c) A stack that overruns in a run that measures it is still not measured, and fails.
    repo.write(
        "bench/suite.c",
        &SUITE
            .replace("static uint8_t message[128];", DEEP_STACK)
            .replace(
                "    RHO_BENCH_UNIT(state, \"byte\", 128);\n    RHO_BENCH_LOOP(state) {\n        memcpy",
                "    RHO_BENCH_UNIT(state, \"byte\", 128);\n    RHO_BENCH_KEEP(deep(264));\n    \
                 RHO_BENCH_LOOP(state) {\n        memcpy",
            ),
    );
    let run = repo.rho(&timed_check);
    assert_eq!(run.code(), 1, "{run}");
    assert!(
        run.rows("bench_copy")
            .iter()
            .any(|r| r.contains("stack_bytes") && r.ends_with("NOT MEASURED")),
        "{run}"
    );
    assert!(
        run.stdout()
            .lines()
            .any(|l| l.starts_with("check: ") && !l.contains(" 0 not measured")),
        "{run}"
    );
}

#[test]
fn writing_one_target_keeps_the_others_and_the_working_tree_is_what_is_written() {
    let _guard = measuring();
    let repo = Repo::new();
    let first = repo.record_baseline();

    // Another target's section, as a board's run would have added it.
    let mut with_board = first.clone();
    let mut board = first["targets"]["host"].clone();
    board["time"]["context"]["target"] = "mps2-an386".into();
    board["time"]["context"]["arch"] = "armv7e-m".into();
    with_board["targets"]["mps2-an386"] = board.clone();
    repo.write(
        "bench/baseline.json",
        &serde_json::to_string_pretty(&with_board).unwrap(),
    );

    let run = repo.rho(&["bench", "--write-baseline"]);
    assert_eq!(run.code(), 0, "{run}");
    let after: serde_json::Value = serde_json::from_str(&repo.read("bench/baseline.json")).unwrap();
    assert_eq!(
        after["targets"]["mps2-an386"], board,
        "the board's section is kept as it was"
    );
    assert_eq!(after["targets"].as_object().unwrap().len(), 2);
    let keys: Vec<&String> = after["targets"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["host", "mps2-an386"]);
    let leftovers: Vec<PathBuf> = fs::read_dir(repo.path().join("bench"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no temporary file left: {leftovers:?}"
    );
}

/// Commits `text` as the baseline and runs `check --diff HEAD`, which must exit 2 with `expected` in stderr.
fn refused(repo: &Repo, text: &str, expected: &[&str]) {
    repo.write("bench/baseline.json", text);
    repo.commit("a baseline rho must refuse", &["bench/baseline.json"]);
    let run = repo.rho(&["bench", "check", "--diff", "HEAD"]);
    assert_eq!(run.code(), 2, "{run}");
    for part in expected {
        assert!(run.stderr().contains(part), "stderr names {part:?}: {run}");
    }
    assert!(
        !run.stdout().contains("bench_checksum"),
        "refused before any suite ran: {run}"
    );
}

#[test]
fn a_baseline_that_cannot_be_compared_is_refused_with_exit_2() {
    let _guard = measuring();
    let repo = Repo::new();
    let baseline = repo.record_baseline();
    let host = &baseline["targets"]["host"]["time"];

    // Recorded for another target only.
    let mut board = host.clone();
    board["context"]["target"] = "stm32h743zi".into();
    let other_target = serde_json::json!({
        "schema": "rho-baseline/2",
        "targets": { "stm32h743zi": { "time": board } }
    });
    repo.write(
        "bench/baseline.json",
        &serde_json::to_string_pretty(&other_target).unwrap(),
    );
    repo.commit("a board's baseline", &["bench/baseline.json"]);
    let run = repo.rho(&["bench", "check", "--diff", "HEAD"]);
    assert_eq!(run.code(), 2, "{run}");
    assert!(
        run.stderr()
            .contains("has no baseline for target \"host\" (it has: stm32h743zi)"),
        "{run}"
    );
    // Refused before any suite ran: the target is known from module.yml.
    assert!(!run.stdout().contains("bench_checksum"), "{run}");

    // --write-baseline over a file this rho cannot read and keep: refused before anything ran, the file kept.
    let corrupt = "{ \"schema\": \"rho-baseline/1\", \"targets\": { ";
    repo.write("bench/baseline.json", corrupt);
    let run = repo.rho(&["bench", "--write-baseline"]);
    assert_eq!(run.code(), 2, "{run}");
    assert!(run.stderr().contains("refusing to overwrite"), "{run}");
    assert!(!run.stdout().contains("bench_checksum"), "{run}");
    assert_eq!(repo.read("bench/baseline.json"), corrupt);
    repo.git(&["checkout", "--", "bench/baseline.json"]);

    // The same target, cycles counted by another clock.
    if host["context"]["clocks"]["cycles"].is_object() {
        let mut other_clock = baseline.clone();
        let ours = host["context"]["clocks"]["cycles"]["name"]
            .as_str()
            .unwrap()
            .to_string();
        other_clock["targets"]["host"]["time"]["context"]["clocks"]["cycles"]["name"] =
            "dwt".into();
        repo.write(
            "bench/baseline.json",
            &serde_json::to_string_pretty(&other_clock).unwrap(),
        );
        repo.commit("another clock", &["bench/baseline.json"]);
        let run = repo.rho(&["bench", "check", "--diff", "HEAD"]);
        assert_eq!(run.code(), 2, "{run}");
        assert!(
            run.stderr()
                .contains(&format!("dwt cycles and {ours} cycles are different units")),
            "{run}"
        );
    }

    let text = serde_json::to_string_pretty(&baseline).unwrap();
    refused(
        &repo,
        &text.replace("rho-baseline/5", "rho-baseline/6"),
        &["at HEAD (", "\"rho-baseline/6\""],
    );
    // Cut where no line break ends it: a cut just after one would put the end of the input on the next line.
    let truncated = text[..text.len() / 2].trim_end();
    let line = truncated.lines().count();
    refused(
        &repo,
        truncated,
        &[
            "bench/baseline.json at HEAD (",
            &format!("):{line}:"),
            "not valid baseline JSON",
        ],
    );
}

#[test]
fn a_missing_ref_or_a_ref_without_a_baseline_exits_2_before_running() {
    let _guard = measuring();
    let repo = Repo::new();
    let run = repo.rho(&["bench", "check", "--diff", "origin/nowhere"]);
    assert_eq!(run.code(), 2, "{run}");
    assert!(
        run.stderr()
            .contains("git ref \"origin/nowhere\" does not exist"),
        "{run}"
    );

    let run = repo.rho(&["bench", "--diff", "HEAD"]);
    assert_eq!(run.code(), 2, "{run}");
    assert!(
        run.stderr()
            .contains("bench/baseline.json does not exist at git ref \"HEAD\""),
        "{run}"
    );
    assert!(run.stdout().is_empty(), "nothing ran: {run}");
}

/// The example project as shipped (`examples/project`, its module.yml limits untouched), copied into a
/// temporary git repository: an instructions baseline recorded and committed, then `check --diff HEAD` with
/// nothing changed must pass run after run, at the example's 0.5% instruction limit, however busy the machine. If it does not, the example's benchmarks or limits (or
/// rho's statistic) are wrong, not this test.
#[test]
fn the_example_project_passes_a_no_change_diff_run_after_run() {
    let _guard = measuring();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/project");
    let repo = tempfile::tempdir().unwrap();
    common::copy_tree(&example, repo.path());
    // A baseline committed with the example (if one ever is) is another machine's: record this one's.
    let _ = fs::remove_file(repo.path().join("bench/baseline.json"));
    let repo = Repo { dir: repo };
    repo.git(&["init", "-q", "-b", "main"]);
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "the example project"]);
    // Counted: the example's instruction limit (module.yml) holds with nothing changed, whatever the load.
    let run = repo.rho(&["bench", "--write-baseline", "--measure", "instructions"]);
    assert_eq!(run.code(), 0, "{run}");
    // Every suite counted, the command suite too (Callgrind follows its shell into the suite).
    assert!(
        run.stdout()
            .contains("baseline: recorded 6 benchmark(s) of target host"),
        "{run}"
    );
    repo.commit("baseline", &["bench/baseline.json"]);

    for attempt in 1..=3 {
        let run = repo.rho(&common::COUNTED_CHECK);
        assert_eq!(run.code(), 0, "no-change diff {attempt} of 3:\n{run}");
        for bench in [
            "bench_crc_64",
            "bench_crc_256",
            "bench_malloc_free",
            "bench_ring_write_read_32",
            "bench_ring_fill_drain",
            "bench_sort_32",
        ] {
            assert!(
                !repo_rows_regressed(&run, bench),
                "{bench} regressed with nothing changed (attempt {attempt}):\n{run}"
            );
            assert!(!run.rows(bench).is_empty(), "{bench} not compared:\n{run}");
        }
    }
}

/// Whether any comparison row of `bench` says REGRESSED.
fn repo_rows_regressed(run: &Run, bench: &str) -> bool {
    run.rows(bench).iter().any(|row| row.contains("REGRESSED"))
}

/// `--markdown` naming a directory: the error names the file as the Markdown comparison (not the baseline)
/// and says its cause once.
#[test]
fn a_markdown_file_that_cannot_be_written_is_named_as_what_it_is() {
    let _guard = measuring();
    let repo = Repo::new();
    repo.record_baseline();
    let run = repo.rho(&["bench", "--diff", "HEAD", "--markdown", "bench"]);
    assert_eq!(run.code(), 2, "{run}");
    let stderr = run.stderr();
    let line = stderr
        .lines()
        .find(|l| l.starts_with("rho: error:"))
        .unwrap_or_else(|| panic!("no error line:\n{run}"));
    assert!(line.contains("the Markdown comparison"), "{run}");
    assert!(!line.contains("baseline"), "{run}");
    assert_eq!(line.matches("os error").count(), 1, "{run}");
}
