//! The run in the formats of the dashboards projects already run (docs/exports.md): Bencher Metric Format
//! (`--bmf`) and github-action-benchmark's `customSmallerIsBetter` list (`--github-benchmark`). Built from
//! run summaries only, so a fresh run, a saved one (`show`) and an imported one (`import`) export alike.

use std::path::Path;

use rho_stats::{BenchSummary, Better, Metric, RunSummary};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::Error;
use crate::export::{check_destination, write_json_atomically};

/// One suite to export: what it was (module.yml's suite, the files) and its summary.
pub type ExportSuite<'a> = (&'a str, &'a RunSummary);

/// A benchmark's name in an export: its own with one suite, `SUITE::NAME` with several (names repeat
/// across suites).
fn exported_name(suites: &[ExportSuite<'_>], what: &str, bench: &BenchSummary) -> String {
    if suites.len() > 1 {
        format!("{what}::{}", bench.name)
    } else {
        bench.name.clone()
    }
}

/// Bencher Metric Format: `{ BENCHMARK: { MEASURE: { value, lower_value?, upper_value? } } }`.
///
/// Measures: `latency` (Bencher's built-in, ns: the net median per iteration, `lower_value` and
/// `upper_value` the p25 and p75), `throughput` (built-in, ops/s, when known), then each other metric rho
/// measured under its name in kebab case (`cycles`, `instructions`, `stack-bytes`, `heap-peak-bytes`,
/// `code-bytes`, `static-stack-bytes`), then the harness's extra figures under their own names.
pub fn bmf(suites: &[ExportSuite<'_>]) -> Value {
    let mut document = Map::new();
    for &(what, summary) in suites {
        for bench in &summary.benchmarks {
            let mut measures = Map::new();
            if let Some(time) = &bench.time {
                let figures = &time.per_iteration;
                measures.insert(
                    "latency".into(),
                    json!({"value": figures.median, "lower_value": figures.p25, "upper_value": figures.p75}),
                );
            }
            if let Some(rate) = bench.ops_per_second {
                measures.insert("throughput".into(), json!({ "value": rate }));
            }
            for metric in Metric::ALL {
                if metric == Metric::TimeNs {
                    continue;
                }
                if let Some(value) = bench.metric(metric) {
                    measures.insert(metric.name().replace('_', "-"), json!({ "value": value }));
                }
            }
            for extra in &bench.extra {
                measures.insert(extra.name.clone(), json!({ "value": extra.value }));
            }
            document.insert(exported_name(suites, what, bench), Value::Object(measures));
        }
    }
    Value::Object(document)
}

/// One entry of github-action-benchmark's `customSmallerIsBetter` list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SmallerIsBetter {
    pub name: String,
    pub unit: String,
    pub value: f64,
    /// `± STDDEV`, in the unit, for the time; absent for an exact metric.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<String>,
    /// What the value is, shown in the chart's tooltip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra: Option<String>,
}

/// github-action-benchmark's `customSmallerIsBetter` list: per benchmark its time (`name` the benchmark's,
/// `unit` `ns/iter`, `value` the net median per iteration, `range` `± STDDEV`, `extra` the samples and the
/// p25 to p75), then each other metric measured as `NAME - METRIC`, then the harness's extra figures that are
/// better lower as `NAME - FIGURE`. Higher-is-better figures (rates) have no place in a smaller-is-better list.
pub fn github_benchmark(suites: &[ExportSuite<'_>]) -> Vec<SmallerIsBetter> {
    let mut list = Vec::new();
    for &(what, summary) in suites {
        for bench in &summary.benchmarks {
            let name = exported_name(suites, what, bench);
            if let Some(time) = &bench.time {
                let figures = &time.per_iteration;
                list.push(SmallerIsBetter {
                    name: name.clone(),
                    unit: "ns/iter".into(),
                    value: figures.median,
                    range: Some(format!("± {}", round3(figures.stddev))),
                    extra: Some(format!(
                        "{} samples; p25 {} p75 {}",
                        time.raw.n,
                        round3(figures.p25),
                        round3(figures.p75)
                    )),
                });
            }
            for metric in Metric::ALL {
                if metric == Metric::TimeNs {
                    continue;
                }
                if let Some(value) = bench.metric(metric) {
                    list.push(SmallerIsBetter {
                        name: format!("{name} - {}", metric.name()),
                        unit: metric_unit(metric).into(),
                        value,
                        range: None,
                        extra: None,
                    });
                }
            }
            for extra in bench.extra.iter().filter(|e| e.better == Better::Lower) {
                list.push(SmallerIsBetter {
                    name: format!("{name} - {}", extra.name),
                    unit: extra.unit.clone(),
                    value: extra.value,
                    range: None,
                    extra: None,
                });
            }
        }
    }
    list
}

/// Where `--bmf` and `--github-benchmark` write.
#[derive(Debug, Clone, Copy, Default)]
pub struct Destinations<'a> {
    pub bmf: Option<&'a Path>,
    pub github_benchmark: Option<&'a Path>,
}

impl Destinations<'_> {
    /// Before a run: each destination can be written (a run of minutes must not end in "cannot write").
    pub fn check(&self) -> Result<(), Error> {
        if let Some(path) = self.bmf {
            check_destination("--bmf", path)?;
        }
        if let Some(path) = self.github_benchmark {
            check_destination("--github-benchmark", path)?;
        }
        Ok(())
    }

    /// Writes each export asked for, atomically.
    pub fn write(&self, suites: &[ExportSuite<'_>]) -> Result<(), Error> {
        if let Some(path) = self.bmf {
            write_json_atomically(path, &bmf(suites))?;
        }
        if let Some(path) = self.github_benchmark {
            write_json_atomically(path, &github_benchmark(suites))?;
        }
        Ok(())
    }
}

fn metric_unit(metric: Metric) -> &'static str {
    match metric {
        Metric::Cycles => "cycles/iter",
        Metric::TimeNs | Metric::CpuNs => "ns/iter",
        Metric::Instructions => "instructions/iter",
        Metric::StackBytes
        | Metric::HeapPeakBytes
        | Metric::CodeBytes
        | Metric::StaticStackBytes => "bytes",
    }
}

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = include_str!("../../rho-report/testdata/two_benchmarks.wire");

    fn summary() -> RunSummary {
        let mut summary = RunSummary::of(&rho_wire::parse_str(STREAM).unwrap()).unwrap();
        summary.benchmarks[0].extra.push(rho_stats::ExtraMetric {
            judged: true,
            name: "B/op".into(),
            unit: "B/op".into(),
            value: 8.0,
            better: Better::Lower,
        });
        summary.benchmarks[0].extra.push(rho_stats::ExtraMetric {
            judged: true,
            name: "bytes_per_second".into(),
            unit: "B/s".into(),
            value: 1e9,
            better: Better::Higher,
        });
        summary
    }

    /// Bencher's documented shape (bencher.dev/docs/reference/bencher-metric-format): an object of
    /// benchmarks, each an object of measures, each with a number `value` and optional number `lower_value`
    /// and `upper_value`, and no other key.
    #[test]
    fn bmf_has_benchmarks_of_measures_of_values_as_bencher_documents() {
        let summary = summary();
        let document = bmf(&[("bench/a.c", &summary)]);
        let benchmarks = document.as_object().unwrap();
        assert_eq!(benchmarks.len(), summary.benchmarks.len());
        for (name, measures) in benchmarks {
            let bench = summary.benchmark(name).unwrap();
            for (measure, figures) in measures.as_object().unwrap() {
                let keys: Vec<&str> = figures
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(|k| k.as_str())
                    .collect();
                assert!(
                    keys.iter()
                        .all(|k| ["value", "lower_value", "upper_value"].contains(k)),
                    "{name} {measure}: {keys:?}"
                );
                assert!(figures["value"].is_number(), "{name} {measure}");
            }
            let time = bench.time.as_ref().unwrap();
            assert_eq!(measures["latency"]["value"], time.per_iteration.median);
            assert_eq!(measures["latency"]["lower_value"], time.per_iteration.p25);
            assert_eq!(measures["latency"]["upper_value"], time.per_iteration.p75);
        }
        let first = &benchmarks[&summary.benchmarks[0].name];
        assert_eq!(first["B/op"]["value"], 8.0);
        assert_eq!(
            first["stack-bytes"]["value"],
            summary.benchmarks[0].metric(Metric::StackBytes).unwrap()
        );
        // Several suites: each name is prefixed with its suite.
        let two = bmf(&[("a", &summary), ("b", &summary)]);
        assert!(
            two.get(format!("b::{}", summary.benchmarks[0].name))
                .is_some()
        );
    }

    /// github-action-benchmark's documented custom entry: `name`, `unit` and `value` required, `range` and
    /// `extra` optional strings; nothing else.
    #[test]
    fn github_benchmark_entries_have_the_documented_fields_and_only_smaller_is_better() {
        let summary = summary();
        let list = github_benchmark(&[("bench/a.c", &summary)]);
        let value = serde_json::to_value(&list).unwrap();
        for entry in value.as_array().unwrap() {
            let object = entry.as_object().unwrap();
            for key in object.keys() {
                assert!(
                    ["name", "unit", "value", "range", "extra"].contains(&key.as_str()),
                    "{key}"
                );
            }
            assert!(
                entry["name"].is_string()
                    && entry["unit"].is_string()
                    && entry["value"].is_number()
            );
            for optional in ["range", "extra"] {
                assert!(
                    entry.get(optional).is_none_or(|v| v.is_string()),
                    "{optional}"
                );
            }
        }
        let first = &summary.benchmarks[0];
        let time = list.iter().find(|e| e.name == first.name).unwrap();
        assert_eq!(time.unit, "ns/iter");
        assert_eq!(
            time.value,
            first.time.as_ref().unwrap().per_iteration.median
        );
        assert!(time.range.as_ref().unwrap().starts_with("± "));
        assert!(
            list.iter()
                .any(|e| e.name == format!("{} - B/op", first.name))
        );
        assert!(
            !list.iter().any(|e| e.name.ends_with("bytes_per_second")),
            "a rate is better higher"
        );
        assert!(
            list.iter()
                .any(|e| e.name == format!("{} - stack_bytes", first.name) && e.unit == "bytes")
        );
    }
}
