//! Series over commits and their change points, from records.

mod common;

use common::record;
use rho_baseline::format::Figure;
use rho_history::analysis::{Commit, Detection, Filter, analyse, newest_regression};
use rho_history::{Measure, Record};

fn commits(n: usize) -> Vec<Commit> {
    (0..n)
        .map(|i| Commit {
            id: format!("{i:040x}"),
            subject: format!("commit {i}"),
        })
        .collect()
}

fn stepped(i: usize) -> f64 {
    let mut figure = 100_000.0_f64;
    for (at, factor) in [(60, 1.03), (120, 1.40), (170, 0.90)] {
        if i >= at {
            figure = (figure * factor).round();
        }
    }
    figure
}

#[test]
fn steps_in_one_benchmark_of_200_commits_are_found_there_and_nowhere_else() {
    let commits = commits(200);
    let records: Vec<Record> = commits
        .iter()
        .enumerate()
        .map(|(i, c)| {
            record(
                &c.id,
                "ci",
                Measure::Instructions,
                &[
                    ("bench_a", stepped(i)),
                    ("bench_b", 5_000.0),
                    ("bench_c", 77.0),
                ],
            )
        })
        .collect();
    let analysis = analyse(&records, &commits, &Filter::default(), Detection::default());
    assert_eq!(analysis.off_branch, 0);
    // instructions, stack_bytes, heap_peak_bytes for each of three benchmarks.
    assert_eq!(analysis.series.len(), 9);
    for series in &analysis.series {
        let at: Vec<usize> = series.changes.iter().map(|c| c.commit_index).collect();
        if series.key.bench == "bench_a" && series.key.metric == "instructions" {
            assert_eq!(at, [60, 120, 170]);
        } else {
            assert!(at.is_empty(), "{:?}: {at:?}", series.key);
        }
    }
    let only = Filter {
        bench: Some("_a".to_string()),
        metric: Some("instructions".to_string()),
        ..Filter::default()
    };
    let filtered = analyse(&records, &commits, &only, Detection::default());
    assert_eq!(filtered.series.len(), 1);
    // The newest (169 → 199 unchanged) starts nothing.
    assert!(newest_regression(&filtered.series[0], 1.0, Detection::default()).is_none());
    // Records of a commit not on the branch are counted, not placed.
    let off = analyse(&records, &commits[..100], &only, Detection::default());
    assert_eq!(off.off_branch, 100);
}

#[test]
fn the_newest_figure_doubled_is_a_regression_and_a_flat_one_is_not() {
    let commits = commits(30);
    // Time figures with a small deterministic wobble (±1%), the newest doubled.
    let wobble = |i: usize| 1_000.0 * (1.0 + 0.01 * ((i * 7 % 5) as f64 - 2.0) / 2.0);
    let build = |newest: f64| -> Vec<Record> {
        commits
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let figure = if i == 29 { newest } else { wobble(i) };
                record(&c.id, "ci", Measure::Time, &[("bench_a", figure)])
            })
            .collect()
    };
    let time = Filter {
        metric: Some("time_ns".to_string()),
        ..Filter::default()
    };
    let doubled = analyse(&build(2_000.0), &commits, &time, Detection::default());
    let found = newest_regression(&doubled.series[0], 10.0, Detection::default()).unwrap();
    assert_eq!(found.commit_index, 29);
    assert!(
        (found.change_percent.unwrap() - 100.0).abs() < 2.0,
        "{found:?}"
    );
    let flat = analyse(&build(wobble(29)), &commits, &time, Detection::default());
    assert!(newest_regression(&flat.series[0], 10.0, Detection::default()).is_none());
    // A step below the limit is not a failure either.
    let small = analyse(&build(1_050.0), &commits, &time, Detection::default());
    assert!(newest_regression(&small.series[0], 10.0, Detection::default()).is_none());
}

/// Why it got slower (issue 26): under an instructions change point that went up, the history's text names
/// the functions whose counts changed between the commit before it and the first commit after, when both
/// records carry the benchmark's functions; a helper that appeared is only in head.
#[test]
fn a_step_up_in_instructions_names_the_functions_that_changed() {
    use rho_profile::net::{FunctionFigures, Functions, Other};
    let functions = |own: f64, helper: Option<f64>| {
        let mut listed = vec![FunctionFigures {
            name: "bench_a".to_string(),
            file: None,
            line: None,
            self_per_iteration: own,
            inclusive_per_iteration: own + helper.unwrap_or(0.0),
            calls: Vec::new(),
        }];
        if let Some(helper) = helper {
            listed.push(FunctionFigures {
                name: "helper".to_string(),
                file: None,
                line: None,
                self_per_iteration: helper,
                inclusive_per_iteration: helper,
                calls: Vec::new(),
            });
        }
        Functions {
            source: "callgrind".to_string(),
            listed,
            other: Other::default(),
        }
    };
    let commits = commits(40);
    let records: Vec<Record> = commits
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let stepped = i >= 20;
            let figure = if stepped { 150_000.0 } else { 100_000.0 };
            let mut record = record(&c.id, "ci", Measure::Instructions, &[("bench_a", figure)]);
            record.section.benchmarks[0].functions = Some(if stepped {
                functions(100_000.0, Some(50_000.0))
            } else {
                functions(100_000.0, None)
            });
            record
        })
        .collect();
    let only = Filter {
        metric: Some("instructions".to_string()),
        ..Filter::default()
    };
    let analysis = analyse(&records, &commits, &only, Detection::default());
    let listing = rho_history::git::Listing {
        tip: None,
        records: records
            .iter()
            .map(|r| (r.commit.clone(), r.clone()))
            .collect(),
        problems: Vec::new(),
    };
    let text = rho_history::report::render_text(&analysis, &commits, &listing, "rho-history");
    let after_change: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("  change at "))
        .collect();
    assert!(after_change.len() >= 4, "{text}");
    assert!(
        after_change[1].contains("function (instructions/iter)"),
        "{text}"
    );
    assert!(
        after_change[2].trim_start().starts_with("helper")
            && after_change[2].contains("- -> 50000 (+50000)")
            && after_change[2].ends_with("only in head"),
        "{text}"
    );
    assert!(
        after_change[3].contains("100000 -> 150000 (+50000)"),
        "{text}"
    );
}

#[test]
fn a_v1_record_reads_without_a_band_and_a_v2_band_is_drawn_where_records_have_one() {
    let line = commits(3);
    let mut banded = record(&line[1].id, "m", Measure::Time, &[("b", 100.0)]);
    banded.quartiles.insert(
        "b".to_string(),
        rho_history::Quartiles {
            cycles: None,
            time_ns: Some([Figure(90.0), Figure(130.0)]),
        },
    );
    let text = banded.to_json().unwrap();
    assert!(text.contains("\"rho-bench-history-record/2\""), "{text}");
    assert_eq!(Record::parse(&text, "r.json").unwrap(), banded);
    // A /1 record (no quartiles) is read; quartiles in one, or a band upside down, are refused.
    let plain = record(&line[0].id, "m", Measure::Time, &[("b", 100.0)]);
    let v1 = plain
        .to_json()
        .unwrap()
        .replace(rho_history::RECORD_SCHEMA, rho_history::RECORD_SCHEMA_V1);
    let read = Record::parse(&v1, "old.json").unwrap();
    assert!(read.quartiles.is_empty());
    let mislabelled = text.replace(rho_history::RECORD_SCHEMA, rho_history::RECORD_SCHEMA_V1);
    let error = Record::parse(&mislabelled, "m.json")
        .unwrap_err()
        .to_string();
    assert!(error.contains("\"quartiles\" in a"), "{error}");
    let upside_down = text.replace("90,", "140,");
    let error = Record::parse(&upside_down, "u.json")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("u.json: quartiles of \"b\" time_ns: [140, 130]"),
        "{error}"
    );

    // The series: a band at the banded commit only; the page draws it there and nowhere else.
    let newest = record(&line[2].id, "m", Measure::Time, &[("b", 100.0)]);
    let records = [read, banded, newest];
    let analysis = analyse(&records, &line, &Filter::default(), Detection::default());
    let time = analysis
        .series
        .iter()
        .find(|s| s.key.metric == "time_ns")
        .unwrap();
    let bands: Vec<Option<(f64, f64)>> = time.points.iter().map(|p| p.band).collect();
    assert_eq!(bands, [None, Some((90.0, 130.0)), None]);
    let page = rho_history::page::render("t", &analysis, &line);
    assert_eq!(page.matches("<polygon class=\"band\"").count(), 1, "{page}");
}
