//! Figures no run can produce are refused, never compared (issue 30): each impossible document the
//! fault-injection pass found exits 2 naming the file, the benchmark and the field, through the real binary.
//! The documents are a real run's, edited: a committed baseline with a negative cycle median, saved runs with
//! a negative median, with min > median > max, and with a key twice.

mod common;

use common::{Outcome, Project, canned_script};

/// A project whose one suite prints a canned stream (`bench_canned`, 100 cycles an iteration), in a git
/// repository.
fn project() -> Project {
    let project = Project::new();
    project.write("canned.sh", &canned_script(&[100]));
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - command: sh canned.sh\n",
    );
    project
}

fn assert_refused(outcome: &Outcome, needles: &[&str]) {
    outcome.assert_exit(2);
    for needle in needles {
        outcome.assert_stderr_has(needle);
    }
}

/// A saved run (`rho bench --json`), as a JSON value to edit.
fn saved_run(project: &Project) -> serde_json::Value {
    let (_, document) = project.rho_json(&["bench"]);
    document
}

fn write_json(project: &Project, name: &str, value: &serde_json::Value) -> String {
    let path = project.write(name, &serde_json::to_string_pretty(value).unwrap());
    path.to_str().unwrap().to_owned()
}

#[test]
fn a_saved_run_with_a_negative_median_is_refused_by_show_and_compare() {
    let project = project();
    let good = saved_run(&project);
    let good_path = write_json(&project, "good.json", &good);
    let mut bad = good.clone();
    bad["suites"][0]["benchmarks"][0]["cycles"]["per_iteration"]["median"] = (-5.0).into();
    let bad_path = write_json(&project, "negative.json", &bad);

    let needles = [
        "negative.json: benchmark \"bench_canned\": cycles.per_iteration.median is -5",
        "at least 0",
    ];
    assert_refused(&project.rho(&["bench", "show", &bad_path]), &needles);
    // As base or as head: never "improved".
    assert_refused(
        &project.rho(&["bench", "compare", &bad_path, &good_path]),
        &needles,
    );
    assert_refused(
        &project.rho(&["bench", "compare", &good_path, &bad_path]),
        &needles,
    );
    project
        .rho(&["bench", "compare", &good_path, &good_path])
        .assert_exit(0);
}

#[test]
fn a_saved_run_with_min_above_median_above_max_is_refused() {
    let project = project();
    let mut bad = saved_run(&project);
    let net = &mut bad["suites"][0]["benchmarks"][0]["cycles"]["net"];
    net["min"] = 300.into();
    net["median"] = 200.into();
    net["max"] = 100.into();
    let bad_path = write_json(&project, "disordered.json", &bad);
    assert_refused(
        &project.rho(&["bench", "show", &bad_path]),
        &[
            "disordered.json: benchmark \"bench_canned\": cycles.net.min is 300, above p25 100",
            "min <= p25 <= median <= p75 <= p95 <= p99 <= max",
        ],
    );
}

#[test]
fn a_saved_run_with_a_key_twice_is_refused_at_its_line() {
    let project = project();
    let good = serde_json::to_string_pretty(&saved_run(&project)).unwrap();
    // The first "median" of the document given again before it, smaller: serde_json would keep the last.
    let at = good.find("\"median\": ").unwrap();
    let bad = format!("{}\"median\": 1, {}", &good[..at], &good[at..]);
    let line = bad[..at].lines().count();
    let bad_path = project.write("twice.json", &bad);
    assert_refused(
        &project.rho(&["bench", "show", bad_path.to_str().unwrap()]),
        &[
            &format!("twice.json:{line}:"),
            // The first summary the document holds (`net`, keys in name order).
            "key \"median\" appears twice in suites[0].benchmarks[0].cycles.net",
        ],
    );
}

#[test]
fn a_committed_baseline_with_a_negative_cycle_median_is_refused_not_compared() {
    let project = project();
    common::git(project.path(), &["init", "-q"]);
    project.rho(&["bench", "--write-baseline"]).assert_exit(0);
    let text = project.read("bench/baseline.json");
    let bad = text.replacen("\"median\": 100", "\"median\": -5", 1);
    assert_ne!(bad, text, "the baseline holds the median: {text}");
    project.write("bench/baseline.json", &bad);
    common::git(project.path(), &["add", "-A"]);
    common::git(project.path(), &["commit", "-qm", "baseline"]);
    assert_refused(
        &project.rho(&["bench", "--diff", "HEAD"]),
        &[
            "bench/baseline.json",
            "target \"canned\", benchmark \"bench_canned\": cycles.median is -5",
        ],
    );
}
