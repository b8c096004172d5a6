//! hyperfine's `--export-json` report (hyperfine 1.x): `results`, one per command, each with its `times`.

use rho_stats::Better;

use crate::error::ImportError;
use crate::json::{array, number, parse_json, string};
use crate::report::{Failed, Report, Sampled};

/// Reads a report: each command is a benchmark named by its `command` (hyperfine's `--command-name` when
/// given), each of its `times` (seconds) a sample; `user` and `system` are extra metrics. A command with a
/// non-zero exit code (run under `--ignore-failure`) is a failed benchmark.
pub fn parse(text: &str, file: &str) -> Result<Report, ImportError> {
    let document = parse_json(text, file)?;
    let results = array(
        &document,
        "results",
        file,
        "",
        "a list of commands' results (a hyperfine --export-json report)",
    )?;
    let mut report = Report::default();
    for (index, result) in results.iter().enumerate() {
        let place = format!("results[{index}]");
        let name = string(result, "command", file, &place)?;
        let codes = result.get("exit_codes").and_then(|c| c.as_array());
        if let Some(code) = codes
            .into_iter()
            .flatten()
            .find(|c| c.as_i64().is_some_and(|c| c != 0) || c.is_null())
        {
            report.failed.push(Failed {
                name: name.to_owned(),
                message: format!("exited with {code}"),
            });
            continue;
        }
        let times = array(
            result,
            "times",
            file,
            &place,
            "a list of run times in seconds",
        )?;
        let mut bench = Sampled {
            name: name.to_owned(),
            ..Sampled::default()
        };
        for (run, time) in times.iter().enumerate() {
            match time.as_f64() {
                Some(seconds) if seconds.is_finite() && seconds >= 0.0 => {
                    bench.push_sample(seconds * 1e9, Some(1))
                }
                _ => {
                    return Err(ImportError::Field {
                        file: file.to_owned(),
                        field: format!("{place}.times[{run}]"),
                        expected: "seconds, a number of at least 0".to_owned(),
                        found: time.to_string(),
                    });
                }
            }
        }
        for key in ["user", "system"] {
            if result.get(key).is_some() {
                let seconds = number(result, key, file, &place)?;
                bench.push_extra(key, "ns", Better::Lower, seconds * 1e9);
            }
        }
        // Means over hyperfine's runs, no figure per run: nothing to fold or judge, shown only (an unchanged
        // `sleep` gave 231 and 432 microseconds of system time on two sides of a gate).
        for extra in &mut bench.extra {
            extra.judged = false;
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

    /// `hyperfine --runs 5 --export-json hyperfine.json 'sleep 0.01' 'sleep 0.02'` (hyperfine 1.15.0, on a
    /// loaded machine: hyperfine took its shell's start-up off, some runs to 0).
    const REPORT: &str = include_str!("../testdata/hyperfine.json");

    #[test]
    fn each_commands_times_are_its_samples_and_the_median_is_hyperfines() {
        let report = parse(REPORT, "h.json").unwrap();
        let names: Vec<&str> = report.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["sleep 0.01", "sleep 0.02"]);
        // user and system are hyperfine's means, not per run: shown, never judged, never on the gate's line.
        let extra = &report.benchmarks[0].extra;
        assert_eq!(extra.len(), 2);
        assert!(extra.iter().all(|e| !e.judged));
        let run = crate::build::run_of(Format::Hyperfine, "h.json", &report.benchmarks).unwrap();
        assert_eq!(crate::build::extra_line(&run, &report.benchmarks), "");
        let document = parse_json(REPORT, "h.json").unwrap();
        let summary = build(Format::Hyperfine, "h.json", report.benchmarks).unwrap();
        for (bench, result) in summary
            .benchmarks
            .iter()
            .zip(document["results"].as_array().unwrap())
        {
            assert_eq!(bench.time.as_ref().unwrap().raw.n, 5);
            // Five runs: hyperfine's median is the middle one, as rho's.
            let theirs = result["median"].as_f64().unwrap() * 1e9;
            let ours = bench.time.as_ref().unwrap().per_iteration.median;
            assert!((ours - theirs).abs() < 0.001, "{ours} {theirs}");
        }
    }

    #[test]
    fn a_failed_command_and_a_missing_field_are_named() {
        let failed = REPORT.replacen(
            "\"exit_codes\": [\n        0",
            "\"exit_codes\": [\n        1",
            1,
        );
        assert_ne!(
            failed, REPORT,
            "the fixture's exit codes are where the test expects them"
        );
        let report = parse(&failed, "h.json").unwrap();
        assert_eq!(report.failed[0].name, "sleep 0.01");
        assert_eq!(report.failed[0].message, "exited with 1");
        let error = parse(r#"{"results": [{"command": "x"}]}"#, "h.json").unwrap_err();
        assert_eq!(
            error.to_string(),
            "h.json: field results[0].times: expected a list of run times in seconds, found nothing"
        );
        let error = parse("{}", "h.json").unwrap_err().to_string();
        assert!(error.contains("field results"), "{error}");
    }
}
