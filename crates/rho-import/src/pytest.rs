//! pytest-benchmark's `--benchmark-json` report (versions 3 to 5).

use crate::error::ImportError;
use crate::json::{array, field, number, parse_json, string};
use crate::report::{Report, Sampled};

/// The major versions of pytest-benchmark whose JSON this reads.
const VERSIONS: std::ops::RangeInclusive<u64> = 3..=5;

/// Reads a report: each benchmark is named by its `name` (`test_x[param]`). Its samples are `stats.data`
/// (seconds per iteration of each round) when the report has them; else the five quantiles `min`, `q1`,
/// `median`, `q3`, `max`, marked stats-only (rho's median, p25, p75, min and max are then the report's; its
/// mean, deviation and `n` are not).
pub fn parse(text: &str, file: &str) -> Result<Report, ImportError> {
    let document = parse_json(text, file)?;
    let version = string(&document, "version", file, "")?;
    let major = version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u64>().ok());
    if !major.is_some_and(|m| VERSIONS.contains(&m)) {
        return Err(ImportError::Field {
            file: file.to_owned(),
            field: "version".to_owned(),
            expected: "a pytest-benchmark 3.x, 4.x or 5.x report".to_owned(),
            found: format!("\"{version}\""),
        });
    }
    let benchmarks = array(&document, "benchmarks", file, "", "a list of benchmarks")?;
    let mut report = Report::default();
    for (index, entry) in benchmarks.iter().enumerate() {
        let place = format!("benchmarks[{index}]");
        let name = string(entry, "name", file, &place)?;
        let stats_place = format!("{place}.stats");
        let stats = field(entry, "stats", file, &place, "an object of statistics")?;
        let mut bench = Sampled {
            name: name.to_owned(),
            ..Sampled::default()
        };
        // Iterations per round (pytest-benchmark's calibration; 1 for most benchmarks).
        let per_round = stats.get("iterations").and_then(|i| i.as_u64());
        match stats.get("data") {
            Some(_) => {
                let data = array(stats, "data", file, &stats_place, "a list of seconds")?;
                for (round, value) in data.iter().enumerate() {
                    let seconds = value.as_f64().filter(|s| s.is_finite() && *s >= 0.0);
                    let seconds = seconds.ok_or_else(|| ImportError::Field {
                        file: file.to_owned(),
                        field: format!("{stats_place}.data[{round}]"),
                        expected: "seconds, a number of at least 0".to_owned(),
                        found: value.to_string(),
                    })?;
                    bench.push_sample(seconds * 1e9, per_round);
                }
            }
            None => {
                for key in ["min", "q1", "median", "q3", "max"] {
                    bench
                        .times_ns
                        .push(number(stats, key, file, &stats_place)? * 1e9);
                }
                bench.stats_only = true;
                let rounds = stats.get("rounds").and_then(|r| r.as_u64());
                bench.iterations = rounds.zip(per_round).map(|(r, i)| r.saturating_mul(i));
            }
        }
        report.benchmarks.push(bench);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::build;
    use crate::format::Format;

    /// `pytest --benchmark-json` (pytest-benchmark 3.2.2, python 3.11): test_fib and test_sorted, with their
    /// raw `data` (3.2.2 writes it always).
    const WITH_DATA: &str = include_str!("../testdata/pytest-data.json");
    /// The same report with each `stats.data` deleted: what an older run or a trimmed report holds.
    const STATS_ONLY: &str = include_str!("../testdata/pytest-stats.json");

    fn median_of_report(text: &str, index: usize) -> f64 {
        let document = parse_json(text, "p.json").unwrap();
        document["benchmarks"][index]["stats"]["median"]
            .as_f64()
            .unwrap()
            * 1e9
    }

    #[test]
    fn the_raw_rounds_are_samples() {
        let report = parse(WITH_DATA, "p.json").unwrap();
        assert_eq!(report.benchmarks[0].name, "test_fib");
        assert_eq!(report.benchmarks[0].times_ns.len(), 21);
        assert!(!report.benchmarks[0].stats_only);
        let summary = build(Format::PytestBenchmark, "p.json", report.benchmarks).unwrap();
        // 21 and 81 rounds: odd counts, so the median is the middle round's, pytest-benchmark's own.
        for (index, bench) in summary.benchmarks.iter().enumerate() {
            let ours = bench.time.as_ref().unwrap().per_iteration.median;
            let theirs = median_of_report(WITH_DATA, index);
            assert!((ours - theirs).abs() < 0.001, "{ours} {theirs}");
        }
    }

    #[test]
    fn statistics_alone_are_marked_stats_only() {
        let report = parse(STATS_ONLY, "p.json").unwrap();
        let summary = build(Format::PytestBenchmark, "p.json", report.benchmarks).unwrap();
        let fib = &summary.benchmarks[0];
        assert!(fib.stats_only);
        let json = serde_json::to_value(fib).unwrap();
        assert_eq!(json["stats_only"], true);
        let ours = fib.time.as_ref().unwrap().per_iteration.median;
        assert!((ours - median_of_report(STATS_ONLY, 0)).abs() < 0.001);
    }

    #[test]
    fn an_unknown_version_is_named() {
        let error = parse(r#"{"version": "9.0.0", "benchmarks": []}"#, "p.json").unwrap_err();
        assert_eq!(
            error.to_string(),
            "p.json: field version: expected a pytest-benchmark 3.x, 4.x or 5.x report, found \"9.0.0\""
        );
        let error = parse(r#"{"benchmarks": []}"#, "p.json").unwrap_err();
        assert!(error.to_string().contains("field version"), "{error}");
    }
}
