//! `rho bench show RUN.json` and `rho bench compare A.json B.json` through the real binary, on runs saved by
//! `--json`: `show` prints the very report the run printed, and writes it as Markdown; `compare` of a run with
//! itself passes, and a planted 10x change of one benchmark's work (counted instructions under Callgrind:
//! exact, whatever the machine's load) regresses that benchmark alone and exits 1, unless the nearest
//! module.yml's limit allows it; a file that is not a saved run exits 2 naming it.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use common::Outcome;

const LIMIT: Duration = Duration::from_secs(300);

/// Two benchmarks: `bench_work` loops `WORK` times (the planted change: 100, then 1000), `bench_fixed` never
/// changes.
const SUITE: &str = r#"#include <rho/bench.h>
#include <stdint.h>

#ifndef WORK
#define WORK 100
#endif

static void bench_work(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        uint32_t sum = 0;
        int i;
        for (i = 0; i < WORK; i++) {
            RHO_BENCH_KEEP(sum);
            sum = sum * 31u + (uint32_t)i;
        }
        RHO_BENCH_KEEP(sum);
    }
}

static void bench_fixed(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        uint32_t sum = 7;
        RHO_BENCH_KEEP(sum);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_work);
    RHO_BENCH_ADD(&suite, bench_fixed);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// The saved runs, made once: `base.json` (WORK 100) and `head.json` (WORK 1000), with the report each run
/// printed.
struct Saved {
    dir: tempfile::TempDir,
    base_report: String,
}

fn saved() -> &'static Saved {
    static SAVED: OnceLock<Saved> = OnceLock::new();
    SAVED.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let suite = common::write_c(dir.path(), "work.c", SUITE);
        let mut base_report = String::new();
        for (name, work) in [("base.json", 100), ("head.json", 1000)] {
            let json = dir.path().join(name);
            let cflags = format!("-DWORK={work}");
            let outcome = common::rho_in(
                dir.path(),
                &[
                    "bench",
                    "--measure",
                    "instructions",
                    "--cflags",
                    &cflags,
                    suite.to_str().unwrap(),
                    "--json",
                    json.to_str().unwrap(),
                ],
                LIMIT,
            );
            outcome.assert_exit(0);
            if work == 100 {
                base_report = outcome.stdout;
            }
        }
        Saved { dir, base_report }
    })
}

impl Saved {
    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).to_str().unwrap().to_owned()
    }
}

/// `rho ARGS` run in `cwd` (where `compare` looks for a module.yml).
fn rho_at(cwd: &Path, args: &[&str]) -> Outcome {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command.args(args).current_dir(cwd);
    common::run_rho(command, args, LIMIT)
}

/// The comparison's row for `name`'s `metric`, split into words, in lower case.
fn row(outcome: &Outcome, name: &str, metric: &str) -> Vec<String> {
    outcome
        .stdout
        .lines()
        .map(|line| {
            line.split_whitespace()
                .map(str::to_lowercase)
                .collect::<Vec<_>>()
        })
        .find(|words| {
            words.first().is_some_and(|w| w == name) && words.get(1).is_some_and(|w| w == metric)
        })
        .unwrap_or_else(|| panic!("no {name} {metric} row:\n{}", outcome.describe()))
}

fn verdict(row: &[String]) -> &str {
    row.last().map_or("", String::as_str)
}

#[test]
fn show_prints_the_report_the_run_printed() {
    let saved = saved();
    let outcome = rho_at(
        saved.dir.path(),
        &["bench", "show", &saved.path("base.json")],
    );
    outcome.assert_exit(0);
    assert_eq!(outcome.stdout, saved.base_report);
    assert!(
        outcome.stdout.contains("bench_work"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn show_writes_markdown_instead() {
    let saved = saved();
    let markdown = saved.dir.path().join("run.md");
    let outcome = rho_at(
        saved.dir.path(),
        &[
            "bench",
            "show",
            &saved.path("base.json"),
            "--markdown",
            markdown.to_str().unwrap(),
        ],
    );
    outcome.assert_exit(0);
    assert_eq!(
        outcome.stdout, "",
        "the Markdown replaces the printed report"
    );
    let text = std::fs::read_to_string(&markdown).unwrap();
    // One row per benchmark, its name escaped for Markdown, its counted instructions as the median.
    for name in ["bench\\_work", "bench\\_fixed"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row for {name}:\n{text}"));
        assert!(line.contains("instructions (callgrind)"), "{line}");
    }
}

#[test]
fn a_run_compared_with_itself_passes() {
    let saved = saved();
    let base = saved.path("base.json");
    let outcome = rho_at(saved.dir.path(), &["bench", "compare", &base, &base]);
    outcome.assert_exit(0);
    assert_eq!(verdict(&row(&outcome, "bench_work", "instructions")), "ok");
    assert!(
        outcome.stdout.contains("0 regressed"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn a_planted_tenfold_change_regresses_that_benchmark_alone() {
    let saved = saved();
    let outcome = rho_at(
        saved.dir.path(),
        &[
            "bench",
            "compare",
            &saved.path("base.json"),
            &saved.path("head.json"),
        ],
    );
    outcome.assert_exit(1);
    let work = row(&outcome, "bench_work", "instructions");
    assert_eq!(verdict(&work), "regressed", "{work:?}");
    let (base, head): (f64, f64) = (work[2].parse().unwrap(), work[3].parse().unwrap());
    assert!(head > 5.0 * base, "{work:?}");
    // The untouched benchmark passes on every metric (the changed one's code may have grown too).
    for metric in [
        "instructions",
        "stack_bytes",
        "heap_peak_bytes",
        "code_bytes",
    ] {
        assert_eq!(
            verdict(&row(&outcome, "bench_fixed", metric)),
            "ok",
            "{metric}"
        );
    }
    assert!(
        outcome.stdout.contains("compare: "),
        "{}",
        outcome.describe()
    );

    // The other way round it is an improvement, and passes.
    let outcome = rho_at(
        saved.dir.path(),
        &[
            "bench",
            "compare",
            &saved.path("head.json"),
            &saved.path("base.json"),
        ],
    );
    outcome.assert_exit(0);
    assert_eq!(
        verdict(&row(&outcome, "bench_work", "instructions")),
        "improved"
    );
}

#[test]
fn the_nearest_module_yml_sets_the_limits() {
    let saved = saved();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("module.yml"),
        "bench:\n  budgets:\n    fail_on_instructions_regression_percent: 5000\n",
    )
    .unwrap();
    let below = project.path().join("src");
    std::fs::create_dir(&below).unwrap();
    let outcome = rho_at(
        &below,
        &[
            "bench",
            "compare",
            &saved.path("base.json"),
            &saved.path("head.json"),
        ],
    );
    // The tenfold count is within the module's limit (the code's growth still fails: static figures are exact).
    assert_eq!(verdict(&row(&outcome, "bench_work", "instructions")), "ok");
    assert!(
        outcome.stdout.contains("instructions +5000%"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn what_is_not_a_saved_run_is_refused_by_name() {
    let saved = saved();
    let bad = saved.dir.path().join("bad.json");
    std::fs::write(&bad, "{\"schema\": \"rho-bench-run/1\",\n \"suite\": 3}\n").unwrap();
    for args in [
        vec!["bench", "show", bad.to_str().unwrap()],
        vec![
            "bench",
            "compare",
            bad.to_str().unwrap(),
            bad.to_str().unwrap(),
        ],
    ] {
        let outcome = rho_at(saved.dir.path(), &args);
        outcome.assert_exit(2);
        outcome.assert_stderr_has("bad.json: line 2 column");
    }
    let missing = saved.dir.path().join("missing.json");
    let outcome = rho_at(
        saved.dir.path(),
        &["bench", "show", missing.to_str().unwrap()],
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("cannot read");
}

/// `show` lays its report out as `rho bench` does: `--wide` for every statistic, `$COLUMNS` otherwise; and
/// colours it with `--color always` only (piped, `auto` is off, as NO_COLOR would make it).
#[test]
fn show_and_compare_honour_wide_and_color() {
    let saved = saved();
    let (base, head) = (saved.path("base.json"), saved.path("head.json"));
    let show = |extra: &[&str]| {
        let mut args = vec!["bench", "show", base.as_str()];
        args.extend_from_slice(extra);
        let outcome = rho_at(saved.dir.path(), &args);
        outcome.assert_exit(0);
        outcome.stdout
    };
    let narrow = show(&[]);
    let wide = show(&["--wide"]);
    let header = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("benchmark "))
            .unwrap_or_else(|| panic!("no table header in\n{text}"))
            .to_owned()
    };
    assert!(!header(&narrow).contains("mean"), "{narrow}");
    assert!(header(&wide).contains("mean"), "{wide}");
    assert!(header(&wide).contains("p95"), "{wide}");
    assert!(!narrow.contains('\x1b'), "piped: no colour");
    assert!(show(&["--color", "always"]).contains("\x1b[1m"));
    assert!(!show(&["--color", "never"]).contains('\x1b'));

    let compare = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["bench", "compare", base.as_str(), head.as_str()];
        args.extend_from_slice(extra);
        let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
        command
            .args(&args)
            .current_dir(saved.dir.path())
            .envs(env.iter().copied());
        let outcome = common::run_rho(command, &args, LIMIT);
        outcome.assert_exit(1);
        outcome.stdout
    };
    let plain = compare(&[], &[]);
    assert!(!plain.contains('\x1b'), "piped: no colour");
    let painted = compare(&["--color", "always"], &[("NO_COLOR", "1")]);
    assert!(
        painted.contains("\x1b[1;31mREGRESSED\x1b[0m"),
        "--color always over NO_COLOR: {painted:?}"
    );
    // The context's prose wraps at $COLUMNS but for --wide.
    let base_line = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("base: "))
            .unwrap_or_default()
            .chars()
            .count()
    };
    let long = base_line(&plain);
    assert!(long > 60, "{plain}");
    assert!(base_line(&compare(&[], &[("COLUMNS", "60")])) <= 60);
    assert_eq!(base_line(&compare(&["--wide"], &[("COLUMNS", "60")])), long);
}

/// `compare --json` writes the comparison as `--diff --json` does (one record, docs/json-output.md): with `-`
/// the document is all of stdout and the text goes to stderr.
#[test]
fn compare_writes_the_diff_comparison_as_json() {
    let saved = saved();
    let (base, head) = (saved.path("base.json"), saved.path("head.json"));
    let outcome = rho_at(
        saved.dir.path(),
        &["bench", "compare", &base, &head, "--json", "-"],
    );
    outcome.assert_exit(1);
    let document: serde_json::Value = serde_json::from_str(&outcome.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", outcome.describe()));
    assert!(
        outcome.stderr.contains("bench_work"),
        "{}",
        outcome.describe()
    );
    assert_eq!(document["schema"], "rho-bench-compare/1");
    assert_eq!(document["head_file"], head.as_str());
    let comparison = &document["comparison"];
    let mut keys: Vec<&str> = comparison
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "base",
            "benchmarks",
            "counts",
            "drift",
            "failed",
            "families",
            "left_out",
            "limit_percent",
            "machine",
            "target"
        ]
    );
    // No family in this suite: no growth compared.
    assert_eq!(comparison["families"], serde_json::json!([]));
    assert_eq!(comparison["base"], base.as_str());
    assert_eq!(comparison["failed"], true);
    // bench_work's instructions, and perhaps its code (it may have grown too).
    assert!(
        comparison["counts"]["regressed"].as_u64() >= Some(1),
        "{comparison}"
    );
    let work = comparison["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "bench_work")
        .unwrap();
    let instructions = work["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "instructions")
        .unwrap();
    assert_eq!(instructions["verdict"], "regressed");
    assert!(instructions["change_percent"].as_f64().unwrap() > 400.0);

    // To a file: the text stays on stdout.
    let file = saved.dir.path().join("comparison.json");
    let outcome = rho_at(
        saved.dir.path(),
        &[
            "bench",
            "compare",
            &base,
            &head,
            "--json",
            file.to_str().unwrap(),
        ],
    );
    outcome.assert_exit(1);
    assert!(
        outcome.stdout.contains("bench_work"),
        "{}",
        outcome.describe()
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        written["comparison"]["benchmarks"],
        comparison["benchmarks"]
    );
}

/// `rho bench` (time) run once and saved, and copies of it with time figures planted: every benchmark's
/// (cycles, time and CPU time per iteration) times `factor`, or only `only`'s. Planted, so nothing is asserted of the wall
/// clock: the two sides are the same run but for the factor.
fn planted(dir: &Path, name: &str, factor: f64, only: Option<&str>) -> String {
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    for bench in doc["benchmarks"].as_array_mut().unwrap() {
        if only.is_some_and(|only| bench["name"] != only) {
            continue;
        }
        for clock in ["cycles", "time", "cpu"] {
            // A clock the run left out of a benchmark stays out (indexing would write a null in its place).
            let figures = bench
                .get_mut(clock)
                .and_then(|c| c.get_mut("per_iteration"))
                .and_then(serde_json::Value::as_object_mut);
            if let Some(figures) = figures {
                for statistic in ["min", "median", "mean", "p25", "p75", "p95", "p99", "max"] {
                    if let Some(value) = figures.get(statistic).and_then(serde_json::Value::as_f64)
                    {
                        figures.insert(statistic.to_owned(), (value * factor).into());
                    }
                }
            }
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, doc.to_string()).unwrap();
    path.to_str().unwrap().to_owned()
}

/// Drift (issue 22): every benchmark of a saved run planted 1.5x slower is said to be the machine more likely
/// than the code, with what to do, and the verdict stays a regression; one benchmark planted 1.5x slower is a
/// regression and no drift. The JSON carries it.
#[test]
fn a_uniform_slowdown_is_called_drift_and_a_single_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let suite = common::repo_file("examples/crypto_bench.c");
    let run = dir.path().join("run.json");
    let outcome = common::rho_in(
        dir.path(),
        &[
            "bench",
            suite.to_str().unwrap(),
            "--iterations",
            "2000",
            "--json",
            run.to_str().unwrap(),
        ],
        LIMIT,
    );
    outcome.assert_exit(0);
    let base = run.to_str().unwrap();
    let uniform = planted(dir.path(), "uniform.json", 1.5, None);
    let json = dir.path().join("comparison.json");
    let outcome = rho_at(
        dir.path(),
        &[
            "bench",
            "compare",
            base,
            &uniform,
            "--json",
            json.to_str().unwrap(),
        ],
    );
    outcome.assert_exit(1);
    outcome
        .assert_stdout_has_words("benchmarks are 50% slower (time_ns): the machine, not the code?");
    outcome.assert_stdout_has_words("the verdict is unchanged");
    let drift = common::read_json(&json)["comparison"]["drift"].clone();
    assert_eq!(drift["direction"], "slower", "{drift}");
    assert!(
        (drift["factor"].as_f64().unwrap() - 1.5).abs() < 0.01,
        "{drift}"
    );
    // bench_empty's net time is within its clock's resolution on both sides: compared, not moved.
    assert!(drift["moved"].as_u64().unwrap() >= 4, "{drift}");

    let single = planted(dir.path(), "single.json", 1.5, Some("bench_crc_256"));
    let outcome = rho_at(
        dir.path(),
        &[
            "bench",
            "compare",
            base,
            &single,
            "--json",
            json.to_str().unwrap(),
        ],
    );
    outcome.assert_exit(1);
    assert!(!outcome.stdout.contains("drift"), "{}", outcome.describe());
    assert!(common::read_json(&json)["comparison"]["drift"].is_null());
}
