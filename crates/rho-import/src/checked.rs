//! What every report is checked for once read, whatever its format: names a run can hold, each benchmark named
//! once, and every figure finite and in range for its unit. A figure out of range is an error naming the file,
//! the benchmark and the field, never clamped: a run is only as good as the figures believed into it.

use std::collections::HashMap;

use crate::error::ImportError;
use crate::format::Format;
use crate::report::Report;

/// The longest time per iteration a report may say: a day, in nanoseconds. Beyond it a figure is a unit
/// mistake or garbage (a Google Benchmark `real_time` of 1e308), not a measurement.
pub const MAX_NS_PER_ITERATION: f64 = 86_400e9;

/// `report` (read from `file` as `format`) as a run can take it, or the first thing wrong with it.
pub(crate) fn check(format: Format, file: &str, report: &Report) -> Result<(), ImportError> {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(report.benchmarks.len());
    let mut twice: Vec<String> = Vec::new();
    for bench in &report.benchmarks {
        if let Err(why) = rho_wire::name::check(&bench.name) {
            return Err(ImportError::Name {
                file: file.to_owned(),
                name: bench.name.clone(),
                why: why.to_string(),
            });
        }
        let count = seen.entry(&bench.name).or_insert(0);
        *count += 1;
        if *count == 2 {
            twice.push(bench.name.clone());
        }
        let time = format.time_field();
        for &ns in &bench.times_ns {
            time_in_range(file, &bench.name, time, ns)?;
        }
        for &ns in &bench.cpu_ns {
            time_in_range(file, &bench.name, "cpu_time", ns)?;
        }
        for extra in &bench.extra {
            for &value in &extra.values {
                if !(value.is_finite() && value >= 0.0) {
                    return Err(figure(
                        file,
                        &bench.name,
                        &extra.name,
                        value,
                        "a finite number of at least 0",
                    ));
                }
            }
        }
    }
    if !twice.is_empty() {
        return Err(ImportError::Twice {
            file: file.to_owned(),
            names: twice,
        });
    }
    Ok(())
}

fn time_in_range(file: &str, benchmark: &str, field: &str, ns: f64) -> Result<(), ImportError> {
    if ns.is_finite() && (0.0..=MAX_NS_PER_ITERATION).contains(&ns) {
        return Ok(());
    }
    Err(figure(
        file,
        benchmark,
        field,
        ns,
        "nanoseconds per iteration from 0 to a day (8.64e13)",
    ))
}

fn figure(
    file: &str,
    benchmark: &str,
    field: &str,
    value: f64,
    expected: &'static str,
) -> ImportError {
    ImportError::Figure {
        file: file.to_owned(),
        benchmark: benchmark.to_owned(),
        field: field.to_owned(),
        // 1e308 shown as such, not as its 309 digits.
        value: match value.abs() < 1e15 {
            true => value.to_string(),
            false => format!("{value:e}"),
        },
        expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Sampled;
    use rho_stats::Better;

    fn report(names: &[&str]) -> Report {
        Report {
            benchmarks: names
                .iter()
                .map(|name| Sampled {
                    name: (*name).to_owned(),
                    times_ns: vec![5.0],
                    ..Sampled::default()
                })
                .collect(),
            failed: Vec::new(),
        }
    }

    fn error(report: &Report) -> String {
        check(Format::Gbench, "g.json", report)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_time_beyond_a_day_or_below_zero_is_refused_naming_file_benchmark_and_field() {
        let mut huge = report(&["BM_x"]);
        huge.benchmarks[0].times_ns.push(1e308);
        assert_eq!(
            error(&huge),
            "g.json: benchmark \"BM_x\": real_time: expected nanoseconds per iteration from 0 to a \
             day (8.64e13), found 1e308"
        );
        let mut negative = report(&["BM_x"]);
        negative.benchmarks[0].cpu_ns.push(-1.0);
        assert!(
            error(&negative).contains("cpu_time"),
            "{}",
            error(&negative)
        );
        let mut infinite = report(&["BM_x"]);
        infinite.benchmarks[0].times_ns.push(f64::INFINITY);
        assert!(
            error(&infinite).contains("found inf"),
            "{}",
            error(&infinite)
        );
        // A day itself is a (long) figure.
        let mut day = report(&["BM_x"]);
        day.benchmarks[0].times_ns.push(MAX_NS_PER_ITERATION);
        assert!(check(Format::Gbench, "g.json", &day).is_ok());
    }

    #[test]
    fn a_negative_rate_or_counter_is_refused() {
        for (name, better) in [
            ("items_per_second", Better::Higher),
            ("elements", Better::Lower),
        ] {
            let mut bad = report(&["BM_x"]);
            bad.benchmarks[0].push_extra(name, "", better, 3.0);
            bad.benchmarks[0].push_extra(name, "", better, -3.0);
            assert_eq!(
                error(&bad),
                format!(
                    "g.json: benchmark \"BM_x\": {name}: expected a finite number of at least 0, \
                     found -3"
                )
            );
        }
    }

    #[test]
    fn names_twice_are_all_named_and_control_characters_refused() {
        let twice = report(&["a", "b", "a", "c", "b", "a"]);
        assert_eq!(
            error(&twice),
            "g.json: benchmarks named twice in one report: \"a\", \"b\" (one run names each \
             benchmark once)"
        );
        let escape = report(&["BM_\u{1b}[2J"]);
        assert!(error(&escape).contains("U+001B"), "{}", error(&escape));
        assert!(
            check(
                Format::Gbench,
                "g.json",
                &report(&["BM_format/%@", "BM_format/%%"])
            )
            .is_ok()
        );
    }
}
