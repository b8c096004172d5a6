//! The machine's yardstick (issue 37, docs/baseline.md "The machine's yardstick") through the real binary,
//! without depending on the machine really moving: a baseline is recorded, then edited as one recorded on a
//! machine twice as fast would read (its yardstick and every time figure halved), and a benchmark is planted
//! 4x slower. `check --diff` must say the machine moved, flag exactly the planted benchmark, and clear the
//! unchanged ones, which the same baseline without its yardstick flags as 2x slower. A stream of wire version
//! 8 (no yardstick) still checks, saying time was judged as measured.
//!
//! The plants are far outside the noise: unchanged figures read about 1x adjusted and 2x unadjusted, the
//! planted one 4x adjusted, against a limit of 50%; no figure is asserted to have stayed within a percentage.

mod common;

use std::path::Path;

use common::{Outcome, Project, read_json};

/// Three latency-bound benchmarks (a CRC, a multiply chain, a CRC over fewer bytes); `REPEAT` (1) is the
/// number of times `bench_crc` does its work per iteration: 4 plants a 4x slowdown.
const SUITE: &str = r#"#include <rho/bench.h>
#include <stdint.h>
#include <stddef.h>

#define REPEAT 1

static uint8_t message[256];

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

static void bench_crc(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        int k;
        for (k = 0; k < REPEAT; k++) {
            RHO_BENCH_KEEP(crc32(message, sizeof message));
        }
    }
}

static void bench_chain(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        uint32_t x = message[3];
        int i;
        for (i = 0; i < 1000; i++) {
            x = x * 2654435761u + (x >> 11);
        }
        RHO_BENCH_KEEP(x);
    }
}

static void bench_crc_short(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(crc32(message, 128));
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    size_t i;
    for (i = 0; i < sizeof message; i++) {
        message[i] = (uint8_t)(i * 13u + 1u);
    }
    RHO_BENCH_ADD(&suite, bench_crc);
    RHO_BENCH_ADD(&suite, bench_chain);
    RHO_BENCH_ADD(&suite, bench_crc_short);
    return rho_bench_main(&suite, argc, argv);
}
"#;

const MODULE_YML: &str = "bench:\n  default_iterations: 2000\n  warmup_runs: 50\n  suites:\n    - bench/suite.c\n  \
     budgets:\n    fail_on_regression_percent: 50.0\n";

fn git(dir: &Path, args: &[&str]) {
    common::git(dir, &[&["-c", "commit.gpgsign=false"], args].concat());
}

fn commit(project: &Project, message: &str, paths: &[&str]) {
    git(project.path(), &[&["add"], paths].concat());
    git(project.path(), &["commit", "-q", "-m", message]);
}

/// `check --diff HEAD --json FILE`: the outcome and the comparison.
fn check(project: &Project) -> (Outcome, serde_json::Value) {
    let json = project.path().join("check.json");
    let outcome = project.rho(&[
        "bench",
        "check",
        "--diff",
        "HEAD",
        "--json",
        json.to_str().unwrap(),
    ]);
    let document = read_json(&json);
    (outcome, document["comparison"].clone())
}

/// The time metrics of a benchmark the comparison judged (not `shown`).
fn judged_time<'a>(comparison: &'a serde_json::Value, bench: &str) -> Vec<&'a serde_json::Value> {
    let entry = comparison["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == bench)
        .unwrap_or_else(|| panic!("no {bench} in {comparison}"));
    let judged: Vec<&'a serde_json::Value> = entry["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            ["cycles", "time_ns", "cpu_ns"].contains(&m["metric"].as_str().unwrap())
                && m["verdict"] != "shown"
        })
        .collect();
    assert!(
        !judged.is_empty(),
        "{bench}: no time judged in {comparison}"
    );
    judged
}

/// Halves every time figure of the time section, and its yardstick unless `drop_yardstick` (then removed):
/// the baseline a machine twice as fast would have recorded.
fn as_if_recorded_twice_as_fast(baseline: &mut serde_json::Value, drop_yardstick: bool) {
    let context = &mut baseline["targets"]["host"]["time"]["context"];
    if drop_yardstick {
        context.as_object_mut().unwrap().remove("yardsticks");
    } else {
        for yardstick in context["yardsticks"].as_array_mut().unwrap() {
            for clock in ["cycles", "time_ns", "cpu_ns"] {
                if let Some(v) = yardstick[clock].as_f64() {
                    yardstick[clock] = serde_json::json!(v / 2.0);
                }
            }
        }
    }
    for bench in baseline["targets"]["host"]["time"]["benchmarks"]
        .as_array_mut()
        .unwrap()
    {
        for metric in ["cycles", "time_ns", "cpu_ns"] {
            if let Some(figures) = bench[metric].as_object_mut() {
                for v in figures.values_mut() {
                    *v = serde_json::json!(v.as_f64().unwrap() / 2.0);
                }
            }
        }
    }
}

#[test]
fn a_machine_that_moved_is_said_and_only_a_planted_slowdown_is_flagged() {
    let project = Project::new();
    git(project.path(), &["init", "-q", "-b", "main"]);
    project.write("module.yml", MODULE_YML);
    project.write("bench/suite.c", SUITE);
    commit(&project, "the suite", &["module.yml", "bench/suite.c"]);

    project.rho(&["bench", "--write-baseline"]).assert_exit(0);
    let recorded = read_json(&project.path().join("bench/baseline.json"));
    let yardsticks = &recorded["targets"]["host"]["time"]["context"]["yardsticks"];
    assert_eq!(yardsticks.as_array().map(Vec::len), Some(1), "{recorded}");
    assert_eq!(yardsticks[0]["loop"], "rho1", "{recorded}");
    assert_eq!(yardsticks[0]["suite"], "bench/suite.c", "{recorded}");
    assert!(
        yardsticks[0]["time_ns"].as_f64().unwrap() > 0.0,
        "{recorded}"
    );

    // The machine "got twice as slow" since the baseline: its yardstick and figures halved.
    let mut edited = recorded.clone();
    as_if_recorded_twice_as_fast(&mut edited, false);
    project.write(
        "bench/baseline.json",
        &serde_json::to_string_pretty(&edited).unwrap(),
    );
    commit(
        &project,
        "a baseline of a faster machine",
        &["bench/baseline.json"],
    );
    // And bench_crc 4x slower in the working tree.
    project.write(
        "bench/suite.c",
        &SUITE.replace("#define REPEAT 1", "#define REPEAT 4"),
    );

    let (outcome, comparison) = check(&project);
    outcome.assert_exit(1);
    outcome.assert_stdout_has_words("the machine moved: yardstick of bench/suite.c");
    assert_eq!(comparison["machine"][0]["moved"], true, "{comparison}");
    for metric in judged_time(&comparison, "bench_crc") {
        assert_eq!(metric["verdict"], "regressed", "{metric}");
        let measured = metric["head_measured"].as_f64().unwrap();
        let ratio = metric["machine_ratio"].as_f64().unwrap();
        assert_eq!(
            metric["head"].as_f64().unwrap(),
            measured / ratio,
            "{metric}"
        );
    }
    for bench in ["bench_chain", "bench_crc_short"] {
        for metric in judged_time(&comparison, bench) {
            assert_ne!(metric["verdict"], "regressed", "{bench}: {metric}");
            assert!(metric["machine_ratio"].as_f64().unwrap() > 1.05, "{metric}");
        }
    }
    let regressed: Vec<&str> = comparison["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| {
            b["metrics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["verdict"] == "regressed")
        })
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(regressed, ["bench_crc"], "{}", outcome.describe());

    // The same baseline without its yardstick: nothing tells the machine from the code, and the unchanged
    // benchmarks read 2x slower.
    project.write("bench/suite.c", SUITE);
    let mut unmeasured = recorded;
    as_if_recorded_twice_as_fast(&mut unmeasured, true);
    project.write(
        "bench/baseline.json",
        &serde_json::to_string_pretty(&unmeasured).unwrap(),
    );
    commit(&project, "no yardstick", &["bench/baseline.json"]);
    let (outcome, comparison) = check(&project);
    outcome.assert_exit(1);
    outcome.assert_stdout_has_words("yardstick: the baseline has no yardstick");
    assert!(comparison["machine"].as_array().unwrap().is_empty());
    for bench in ["bench_chain", "bench_crc_short"] {
        for metric in judged_time(&comparison, bench) {
            assert_eq!(metric["verdict"], "regressed", "{bench}: {metric}");
            assert!(metric.get("head_measured").is_none(), "{metric}");
        }
    }
}

/// A `command:` suite printing a version 8 stream: no `@yardstick` line.
const V8_SCRIPT: &str = r#"cat <<EOF
@rho-bench 8
@target canned arch=none optimized=1
@clock time fake unit=ns hz=1000000000 resolution=1
@config iterations=3 warmup=0 time_cap_ms=0 stack_bytes=0
@bench bench_canned
:500
:500
:500
@stack off
@heap peak=0 live=0 allocs=0 frees=0 free_errors=0
@end bench_canned iterations=3 warmup=0 capped=0 unit=iter per_iteration=1
@done benchmarks=1 dropped=0
EOF
"#;

#[test]
fn a_stream_without_a_yardstick_still_checks_and_says_time_was_judged_as_measured() {
    let project = Project::new();
    git(project.path(), &["init", "-q", "-b", "main"]);
    project.write("module.yml", "bench:\n  suites:\n    - command: sh v8.sh\n");
    project.write("v8.sh", V8_SCRIPT);
    commit(&project, "the suite", &["module.yml", "v8.sh"]);
    project.rho(&["bench", "--write-baseline"]).assert_exit(0);
    let baseline = read_json(&project.path().join("bench/baseline.json"));
    assert_eq!(baseline["schema"], "rho-baseline/5");
    assert!(
        baseline["targets"]["canned"]["time"]["context"]
            .get("yardsticks")
            .is_none(),
        "{baseline}"
    );
    commit(&project, "baseline", &["bench/baseline.json"]);

    let (outcome, comparison) = check(&project);
    outcome.assert_exit(0);
    outcome.assert_stdout_has_words("yardstick: no yardstick on either side");
    assert!(comparison["machine"].as_array().unwrap().is_empty());
    assert_eq!(
        judged_time(&comparison, "bench_canned")[0]["verdict"],
        "ok",
        "{comparison}"
    );
}
