//! The text `go test -bench` prints (Go 1.x; `-benchmem` and `b.ReportMetric` figures included).

use std::collections::{HashMap, HashSet};

use rho_stats::Better;

use crate::error::ImportError;
use crate::report::{Failed, Report, Sampled};

/// Reads the text: every `BenchmarkNAME-P  N  VALUE UNIT...` line is one sample of `BenchmarkNAME` (the
/// `-P` GOMAXPROCS suffix dropped, so names do not change with the machine; `-count N` gives N lines);
/// `ns/op` is the time and every other pair an extra metric (`MB/s` better higher, the rest lower). With
/// several `pkg:` lines each name is prefixed `PKG.` A `--- FAIL: BenchmarkNAME` line fails the benchmark.
/// Other lines (`goos:`, `PASS`, `ok`, the benchmarks' own output) are not results and are skipped.
pub fn parse(text: &str, file: &str) -> Result<Report, ImportError> {
    let packages = text
        .lines()
        .filter_map(|l| l.strip_prefix("pkg: "))
        .collect::<HashSet<_>>();
    let several = packages.len() > 1;
    let mut package = "";
    let mut report = Report::default();
    let mut places: HashMap<String, usize> = HashMap::new();
    for (index, line) in text.lines().enumerate() {
        if let Some(name) = line.strip_prefix("pkg: ") {
            package = name.trim();
            continue;
        }
        let qualify = |name: &str| match several {
            true => format!("{package}.{name}"),
            false => name.to_owned(),
        };
        if let Some(rest) = line.trim_start().strip_prefix("--- FAIL: Benchmark") {
            let name = qualify(&without_procs(&format!("Benchmark{}", first_word(rest))));
            report.failed.push(Failed {
                name,
                message: "--- FAIL".to_owned(),
            });
            continue;
        }
        let Some(result) = result_line(line, file, index + 1)? else {
            continue;
        };
        let name = qualify(&result.name);
        // One lookup a line: `-count N` repeats each name N times, a suite has tens of thousands. Go prints a
        // benchmark's N runs in a row, so the last one read is checked first, without hashing.
        let last = report.benchmarks.len().checked_sub(1);
        let at = match last.filter(|&last| report.benchmarks[last].name == name) {
            Some(last) => last,
            None => match places.get(&name) {
                Some(&at) => at,
                None => {
                    places.insert(name.clone(), report.benchmarks.len());
                    report.benchmarks.push(Sampled {
                        name,
                        ..Sampled::default()
                    });
                    report.benchmarks.len() - 1
                }
            },
        };
        let bench = &mut report.benchmarks[at];
        bench.push_sample(result.ns_per_op, Some(result.count));
        for (unit, value) in result.others {
            let better = if unit.ends_with("/s") {
                Better::Higher
            } else {
                Better::Lower
            };
            bench.push_extra(&unit, &unit, better, value);
        }
    }
    let failed: HashSet<&str> = report.failed.iter().map(|f| f.name.as_str()).collect();
    report
        .benchmarks
        .retain(|b| !failed.contains(b.name.as_str()));
    if report.benchmarks.is_empty() && report.failed.is_empty() {
        return Err(ImportError::Empty {
            file: file.to_owned(),
            what: "no `BenchmarkNAME N VALUE ns/op` line: is it the output of `go test -bench`?"
                .to_owned(),
        });
    }
    Ok(report)
}

/// One result line's figures.
struct ResultLine {
    name: String,
    /// The iteration count `N` the line's figures are over.
    count: u64,
    ns_per_op: f64,
    /// Every other `VALUE UNIT` pair, unit first.
    others: Vec<(String, f64)>,
}

/// The figures of a result line; `None` for a line that is not one (a benchmark's name followed by
/// anything but an iteration count: its own output). A result line whose pairs do not read is an error.
fn result_line(line: &str, file: &str, number: usize) -> Result<Option<ResultLine>, ImportError> {
    let mut words = line.split_whitespace();
    let (Some(name), Some(count)) = (words.next(), words.next()) else {
        return Ok(None);
    };
    let Some(count) = count
        .parse::<u64>()
        .ok()
        .filter(|_| name.starts_with("Benchmark"))
    else {
        return Ok(None);
    };
    let bad = |message: String| ImportError::Line {
        file: file.to_owned(),
        line: number,
        message,
    };
    let rest: Vec<&str> = words.collect();
    if rest.len() % 2 != 0 {
        return Err(bad(format!(
            "{name}: expected VALUE UNIT pairs after the iteration count, found {} words",
            rest.len()
        )));
    }
    let mut ns_per_op = None;
    let mut others = Vec::new();
    for pair in rest.chunks(2) {
        let [value, unit] = pair else { continue };
        let value: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                bad(format!(
                    "{name}: {unit}: \"{value}\" is not a number of at least 0"
                ))
            })?;
        match *unit {
            "ns/op" => ns_per_op = Some(value),
            _ => others.push(((*unit).to_owned(), value)),
        }
    }
    let ns_per_op = ns_per_op.ok_or_else(|| bad(format!("{name}: no ns/op figure")))?;
    Ok(Some(ResultLine {
        name: without_procs(name),
        count,
        ns_per_op,
        others,
    }))
}

fn first_word(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or("")
}

/// `BenchmarkJoin-8` without its `-8` (GOMAXPROCS, which differs between machines).
fn without_procs(name: &str) -> String {
    match name.rsplit_once('-') {
        Some((stem, procs)) if !procs.is_empty() && procs.bytes().all(|b| b.is_ascii_digit()) => {
            stem.to_owned()
        }
        _ => name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::build;
    use crate::format::Format;

    /// `go test -run '^$' -bench . -benchmem -count 3 -benchtime 20000x` (go 1.19.8): a benchmark with
    /// allocations, one with a custom metric (`b.ReportMetric(.., "widgets/op")`), sub-benchmarks with
    /// `b.SetBytes` (MB/s).
    const REPORT: &str = include_str!("../testdata/gotest.txt");

    #[test]
    fn each_count_is_a_sample_and_every_unit_is_kept() {
        let report = parse(REPORT, "go.txt").unwrap();
        let names: Vec<&str> = report.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "BenchmarkJoin",
                "BenchmarkSum",
                "BenchmarkSized/n=8",
                "BenchmarkSized/n=4"
            ]
        );
        assert_eq!(report.benchmarks[0].times_ns, [53.88, 49.95, 52.49]);
        let summary = build(Format::Gotest, "go.txt", report.benchmarks).unwrap();
        let join = &summary.benchmarks[0];
        assert!((join.time.as_ref().unwrap().per_iteration.median - 52.49).abs() < 1e-9);
        let units: Vec<(&str, f64)> = join
            .extra
            .iter()
            .map(|e| (e.unit.as_str(), e.value))
            .collect();
        assert_eq!(units, [("B/op", 8.0), ("allocs/op", 1.0)]);
        let sum = &summary.benchmarks[1];
        assert_eq!(sum.extra[0].name, "widgets/op");
        // 0.3191, 0.3480, 0.4635 ns/op: the fraction is kept.
        assert!((sum.time.as_ref().unwrap().per_iteration.median - 0.348).abs() < 1e-9);
        let sized = &summary.benchmarks[2];
        let rate = sized.extra.iter().find(|e| e.unit == "MB/s").unwrap();
        assert_eq!(rate.better, Better::Higher);
        assert_eq!(rate.value, 5966.36);
    }

    #[test]
    fn a_failed_benchmark_and_a_torn_line_are_named() {
        let text = "pkg: x\n--- FAIL: BenchmarkBroken-2\n    x_test.go:9: boom\nBenchmarkOk-2  10  5.0 ns/op\n";
        let report = parse(text, "go.txt").unwrap();
        assert_eq!(report.failed[0].name, "BenchmarkBroken");
        assert_eq!(report.benchmarks.len(), 1);
        let error = parse("BenchmarkOk-2  10  5.0 ns/op 7\n", "go.txt").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("go.txt:1: BenchmarkOk-2: expected VALUE UNIT pairs"),
            "{error}"
        );
        let error = parse("BenchmarkOk-2  10  fast ns/op\n", "go.txt").unwrap_err();
        assert!(
            error.to_string().contains("\"fast\" is not a number"),
            "{error}"
        );
        let error = parse("PASS\n", "go.txt").unwrap_err();
        assert!(
            error.to_string().contains("go.txt: no benchmark"),
            "{error}"
        );
    }

    #[test]
    fn several_packages_prefix_their_names() {
        let text = "pkg: a\nBenchmarkX-2 10 5 ns/op\npkg: b\nBenchmarkX-2 10 6 ns/op\n";
        let names: Vec<String> = parse(text, "go.txt")
            .unwrap()
            .benchmarks
            .into_iter()
            .map(|b| b.name)
            .collect();
        assert_eq!(names, ["a.BenchmarkX", "b.BenchmarkX"]);
    }
}
