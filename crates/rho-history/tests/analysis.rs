//! Series over commits and their change points, from records.

mod common;

use common::{commits, listing_of, record, stepped_with_functions};
use rho_baseline::format::Figure;
use rho_history::analysis::{Detection, Filter, analyse, open_regression};
use rho_history::{Measure, Record};

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
    assert!(open_regression(&filtered.series[0], 1.0, Detection::default()).is_none());
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
    let open = open_regression(&doubled.series[0], 10.0, Detection::default()).unwrap();
    assert!(open.first);
    let found = open.change;
    assert_eq!(found.commit_index, 29);
    assert!(
        (found.change_percent.unwrap() - 100.0).abs() < 2.0,
        "{found:?}"
    );
    let flat = analyse(&build(wobble(29)), &commits, &time, Detection::default());
    assert!(open_regression(&flat.series[0], 10.0, Detection::default()).is_none());
    // A step below the limit is not a failure either.
    let small = analyse(&build(1_050.0), &commits, &time, Detection::default());
    assert!(open_regression(&small.series[0], 10.0, Detection::default()).is_none());
}

/// The machine's yardstick: the newest record ran on a machine twice as slow (its yardstick doubled) and
/// measured every figure doubled; relative to the machine nothing changed, so `history check` finds no
/// regression. A benchmark that got 4x slower on that machine is still one (2x relative to it), and the
/// same doubling without yardsticks is one too.
#[test]
fn a_newest_record_on_a_machine_that_moved_is_judged_relative_to_it() {
    let commits = commits(30);
    let wobble = |i: usize| 1_000.0 * (1.0 + 0.01 * ((i * 7 % 5) as f64 - 2.0) / 2.0);
    let build = |newest: f64, yardsticks: bool| -> Vec<Record> {
        commits
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let figure = if i == 29 { newest } else { wobble(i) };
                let mut r = record(&c.id, "ci", Measure::Time, &[("bench_a", figure)]);
                if yardsticks {
                    // The loop's own noise (±1%) on every commit, 2x on the newest.
                    let ns = if i == 29 {
                        3.4
                    } else {
                        1.7 * (1.0 + 0.01 * ((i % 3) as f64 - 1.0))
                    };
                    r.section.context.yardsticks = vec![rho_baseline::format::SuiteYardstick {
                        suite: None,
                        name: "rho1".to_string(),
                        iterations: 262_144,
                        cycles: None,
                        time_ns: Some(ns),
                        cpu_ns: None,
                    }];
                }
                r
            })
            .collect()
    };
    let time = Filter {
        metric: Some("time_ns".to_string()),
        ..Filter::default()
    };
    let moved = analyse(&build(2_000.0, true), &commits, &time, Detection::default());
    let series = &moved.series[0];
    assert!(
        (series.points[29].value - 1_000.0).abs() < 1e-9,
        "{:?}",
        series.points[29]
    );
    assert!(open_regression(series, 10.0, Detection::default()).is_none());
    // Within the noise the figures are as measured.
    assert_eq!(series.points[3].value, wobble(3));
    let planted = analyse(&build(4_000.0, true), &commits, &time, Detection::default());
    let open = open_regression(&planted.series[0], 10.0, Detection::default()).unwrap();
    assert!(open.first && (open.change.change_percent.unwrap() - 100.0).abs() < 2.0);
    let unmeasured = analyse(
        &build(2_000.0, false),
        &commits,
        &time,
        Detection::default(),
    );
    assert!(open_regression(&unmeasured.series[0], 10.0, Detection::default()).is_some());
    // A record of this schema carries them and reads back; an older schema's may not.
    let text = build(2_000.0, true)[29].to_json().unwrap();
    assert!(text.contains("\"yardsticks\""), "{text}");
    Record::parse(&text, "r.json").unwrap();
    let old = text.replace(rho_history::RECORD_SCHEMA, rho_history::RECORD_SCHEMA_V2);
    let error = Record::parse(&old, "old.json").unwrap_err().to_string();
    assert!(error.contains("\"yardsticks\" in a"), "{error}");
}

/// Judged at each of commits 40 to 45 of a series whose figure rose by half at commit 40 (exact
/// instructions, or time in a ±1% wobble): the regression is named at 40 each time, first seen at 40 only;
/// once the figure is back, there is none.
#[test]
fn a_step_at_40_is_first_seen_at_40_and_named_40_on_every_later_commit_until_it_returns() {
    let commits = commits(50);
    let wobble = |i: usize| 1.0 + 0.01 * ((i * 7 % 5) as f64 - 2.0) / 2.0;
    for (measure, metric) in [
        (Measure::Instructions, "instructions"),
        (Measure::Time, "time_ns"),
    ] {
        let figure = |i: usize, back_at: usize| {
            let level = if (40..back_at).contains(&i) {
                1_500.0
            } else {
                1_000.0
            };
            if measure == Measure::Time {
                level * wobble(i)
            } else {
                level
            }
        };
        let judge = |newest: usize, back_at: usize| {
            let records: Vec<Record> = (0..=newest)
                .map(|i| {
                    record(
                        &commits[i].id,
                        "ci",
                        measure,
                        &[("bench_a", figure(i, back_at))],
                    )
                })
                .collect();
            let only = Filter {
                metric: Some(metric.to_string()),
                ..Filter::default()
            };
            let analysis = analyse(&records, &commits, &only, Detection::default());
            open_regression(&analysis.series[0], 10.0, Detection::default())
        };
        assert!(judge(39, 50).is_none(), "{metric}");
        for newest in 40..=45 {
            let open = judge(newest, 50).unwrap_or_else(|| panic!("{metric} at {newest}"));
            assert_eq!(open.change.commit_index, 40, "{metric} at {newest}");
            assert_eq!(open.first, newest == 40, "{metric} at {newest}");
        }
        // Back to the old level at 44: judged at 44 and 45, no regression.
        assert!(judge(44, 44).is_none(), "{metric}");
        assert!(judge(45, 44).is_none(), "{metric}");
    }
}

/// Why it got slower (issue 26): the functions behind an instructions step up are in the history's JSON,
/// under the change point; a series with no step up has none (rho-report's tests/history.rs: the text, the
/// Markdown and the page).
#[test]
fn a_step_ups_functions_are_in_the_json() {
    let (commits, records) = stepped_with_functions();
    let only = Filter {
        metric: Some("instructions".to_string()),
        ..Filter::default()
    };
    let analysis = analyse(&records, &commits, &only, Detection::default());
    let listing = listing_of(&records);

    let document = rho_history::document::Document::of(
        &analysis,
        &commits,
        &listing,
        "rho-history",
        "HEAD",
        "0",
    );
    let json = serde_json::to_value(&document).unwrap();
    let change = &json["series"][0]["change_points"][0];
    assert_eq!(change["commit_index"], 20, "{json}");
    assert_eq!(
        change["functions"],
        serde_json::json!([
            {"name": "helper", "base": null, "head": {"self": 50000.0, "inclusive": 50000.0}},
            {"name": "bench_a", "base": {"self": 100000.0, "inclusive": 100000.0},
             "head": {"self": 100000.0, "inclusive": 150000.0}}
        ]),
        "{json}"
    );

    // Flat records carry functions too, but with no step up nothing is named.
    let flat: Vec<Record> = records[..20].to_vec();
    let flat_analysis = analyse(&flat, &commits[..20], &only, Detection::default());
    let flat_listing = listing_of(&flat);
    let document = rho_history::document::Document::of(
        &flat_analysis,
        &commits[..20],
        &flat_listing,
        "rho-history",
        "HEAD",
        "0",
    );
    let json = serde_json::to_string(&document).unwrap();
    assert!(!json.contains("\"functions\""), "{json}");
}

#[test]
fn a_v1_record_reads_without_a_band_and_a_v2_record_has_one_where_it_was_measured() {
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
    assert!(text.contains("\"rho-bench-history-record/3\""), "{text}");
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

    // The series: a band at the banded commit only (rho-report's tests/history.rs: drawn there alone).
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
}

/// The thread's CPU time is a clock's reading, not a count: its series is tested for change points like time's,
/// not taken as changing at every step.
#[test]
fn the_cpu_clock_is_a_reading_not_a_count() {
    use rho_history::analysis::is_exact;
    use rho_stats::Metric;
    assert!(!is_exact(Metric::CpuNs) && !is_exact(Metric::Cycles) && !is_exact(Metric::TimeNs));
    assert!(is_exact(Metric::Instructions) && is_exact(Metric::StackBytes));
}
