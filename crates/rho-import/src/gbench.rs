//! Google Benchmark's JSON report (`--benchmark_format=json` or `--benchmark_out=FILE`), library 1.x.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use rho_stats::Better;

use crate::error::ImportError;
use crate::report::{Failed, Report, Sampled, ns_per_unit};

/// The keys of a benchmark entry that are not figures of it (a number under any other key is a user counter).
const NOT_COUNTERS: &[&str] = &[
    "family_index",
    "per_family_instance_index",
    "repetitions",
    "repetition_index",
    "threads",
    "iterations",
    "real_time",
    "cpu_time",
    "big_o",
    "rms",
];

/// Rates Google Benchmark computes from `SetBytesProcessed` and `SetItemsProcessed`, and their units.
const RATES: &[(&str, &str)] = &[("bytes_per_second", "B/s"), ("items_per_second", "items/s")];

/// Reads a report: each `run_type: iteration` entry is one sample of its `run_name` (repetitions give
/// several), aggregates are dropped, an entry with `error_occurred` makes its benchmark a failed one.
pub fn parse(text: &str, file: &str) -> Result<Report, ImportError> {
    // Read as typed entries, not a JSON tree: a report of 100,000 benchmarks of 3 repetitions is 300,000
    // objects of 15 fields, whose maps and keys dominated the import's time (docs/import.md, "Scale").
    let document: Document<'_> = serde_json::from_str(text).map_err(|error| ImportError::Json {
        file: file.to_owned(),
        line: error.line(),
        column: error.column(),
        message: error.to_string(),
    })?;
    let context = match &document.context {
        Some(context) if context.is_object() => context,
        other => {
            return Err(ImportError::Field {
                file: file.to_owned(),
                field: "context".to_owned(),
                expected: "an object (a Google Benchmark JSON report)".to_owned(),
                found: other
                    .as_ref()
                    .map_or("nothing".to_owned(), |v| v.to_string()),
            });
        }
    };
    if let Some(version) = context.get("library_version").and_then(|v| v.as_str())
        && !version.trim_start_matches('v').starts_with("1.")
    {
        return Err(ImportError::Field {
            file: file.to_owned(),
            field: "context.library_version".to_owned(),
            expected: "a 1.x library (the versions this reads)".to_owned(),
            found: format!("\"{version}\""),
        });
    }
    let Some(entries) = document.benchmarks else {
        return Err(ImportError::Field {
            file: file.to_owned(),
            field: "benchmarks".to_owned(),
            expected: "a list of benchmark results".to_owned(),
            found: "nothing".to_owned(),
        });
    };
    let mut report = Report::default();
    // Each benchmark's place in `report.benchmarks`, and which registration it is (so that another
    // registration of the same name is told from a repetition of this one), by name: one lookup an entry.
    let mut places: HashMap<String, (usize, Registration)> = HashMap::new();
    let mut twice: Vec<String> = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let place = || format!("benchmarks[{index}]");
        let name = entry.string("name", file, &place)?;
        let run_name = entry
            .get("run_name")
            .and_then(|n| n.as_str())
            .unwrap_or(name);
        let run_type = entry
            .get("run_type")
            .and_then(|t| t.as_str())
            .unwrap_or("iteration");
        if run_type == "aggregate" {
            continue;
        }
        if entry.get("error_occurred").and_then(|e| e.as_bool()) == Some(true) {
            if !report.failed.iter().any(|f| f.name == run_name) {
                let message = entry.get("error_message").and_then(|m| m.as_str());
                report.failed.push(Failed {
                    name: run_name.to_owned(),
                    message: message.unwrap_or("error_occurred").to_owned(),
                });
            }
            continue;
        }
        let sample = repetition(entry, file, &place)?;
        let registration = Registration::of(entry);
        let at = match places.get_mut(run_name) {
            Some((at, first)) => {
                if !first.repeated_by(&registration) && !twice.iter().any(|n| n == run_name) {
                    twice.push(run_name.to_owned());
                }
                first.repetitions.extend(registration.repetitions);
                *at
            }
            None => {
                report.benchmarks.push(Sampled {
                    name: run_name.to_owned(),
                    ..Sampled::default()
                });
                let at = report.benchmarks.len() - 1;
                places.insert(run_name.to_owned(), (at, registration));
                at
            }
        };
        let bench = &mut report.benchmarks[at];
        bench.push_sample(sample.real_ns, sample.iterations);
        bench.cpu_ns.push(sample.cpu_ns);
        for (name, unit, better, value) in sample.others {
            bench.push_extra(&name, unit, better, value);
        }
    }
    if !twice.is_empty() {
        return Err(ImportError::Twice {
            file: file.to_owned(),
            names: twice,
        });
    }
    let failed: HashSet<&str> = report.failed.iter().map(|f| f.name.as_str()).collect();
    report
        .benchmarks
        .retain(|b| !failed.contains(b.name.as_str()));
    Ok(report)
}

/// Which registration an entry is a repetition of, as Google Benchmark marks it: `family_index` and
/// `per_family_instance_index` (library 1.6 on) name the registration, `repetition_index` the repetition.
/// Two entries of one name are repetitions of one benchmark when they are of one registration and not the
/// same repetition; two `BENCHMARK`s registered under one name differ in their indexes (or, from a library
/// that has none, both say repetition 0).
struct Registration {
    instance: Option<(u64, u64)>,
    /// The repetitions seen (a handful: a Vec, not a set a benchmark).
    repetitions: Vec<u64>,
}

impl Registration {
    fn of(entry: &Entry<'_>) -> Registration {
        let index = |key: &str| entry.get(key).and_then(|v| v.as_u64());
        Registration {
            instance: index("family_index").zip(index("per_family_instance_index")),
            repetitions: index("repetition_index").into_iter().collect(),
        }
    }

    /// Whether `other`, an entry of the same name, is another repetition of this registration.
    fn repeated_by(&self, other: &Registration) -> bool {
        self.instance == other.instance
            && !other
                .repetitions
                .iter()
                .any(|r| self.repetitions.contains(r))
    }
}

/// One repetition's figures.
struct Repetition {
    real_ns: f64,
    /// The repetition's `iterations`, when it is a whole number.
    iterations: Option<u64>,
    cpu_ns: f64,
    /// Rates and user counters: name, unit, which way is better, value.
    others: Vec<(String, &'static str, Better, f64)>,
}

fn repetition(
    entry: &Entry<'_>,
    file: &str,
    place: &dyn Fn() -> String,
) -> Result<Repetition, ImportError> {
    let unit = entry.string("time_unit", file, place)?;
    let scale = ns_per_unit(unit).ok_or_else(|| ImportError::Field {
        file: file.to_owned(),
        field: format!("{}.time_unit", place()),
        expected: "ns, us, ms or s".to_owned(),
        found: format!("\"{unit}\""),
    })?;
    let real_ns = entry.number("real_time", file, place)? * scale;
    let cpu_ns = entry.number("cpu_time", file, place)? * scale;
    let iterations = entry.get("iterations").and_then(|i| i.as_u64());
    let mut others = Vec::new();
    for (key, value) in &entry.fields {
        let Some(value) = value.as_f64() else {
            continue;
        };
        if NOT_COUNTERS.contains(&key.as_ref()) {
            continue;
        }
        match RATES.iter().find(|(rate, _)| *rate == key.as_ref()) {
            Some((_, unit)) => others.push((key.to_string(), *unit, Better::Higher, value)),
            // A user counter says nothing of its direction; a count is most often a cost.
            None => others.push((key.to_string(), "", Better::Lower, value)),
        }
    }
    // In the order of their names, whatever the report's order.
    others.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Repetition {
        real_ns,
        iterations,
        cpu_ns,
        others,
    })
}

/// The report's top level: its `context` and its entries, each read as an [`Entry`].
#[derive(serde::Deserialize)]
struct Document<'a> {
    context: Option<serde_json::Value>,
    #[serde(borrow)]
    benchmarks: Option<Vec<Entry<'a>>>,
}

/// One entry of `benchmarks`: its fields in the report's order, each name borrowed from the report's text
/// where it can be (no escape in it) and each value a JSON value of its own (scalars, all but a stray one).
struct Entry<'a> {
    fields: Vec<(Cow<'a, str>, serde_json::Value)>,
}

impl Entry<'_> {
    fn get(&self, key: &str) -> Option<&serde_json::Value> {
        self.fields
            .iter()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| v)
    }

    /// The string at `key`, or an error naming the field (`benchmarks[3].name`), as crate::json's.
    fn string(
        &self,
        key: &str,
        file: &str,
        place: &dyn Fn() -> String,
    ) -> Result<&str, ImportError> {
        let value = self.get(key);
        value
            .and_then(|v| v.as_str())
            .ok_or_else(|| ImportError::Field {
                file: file.to_owned(),
                field: format!("{}.{key}", place()),
                expected: "a string".to_owned(),
                found: value.map_or("nothing".to_owned(), |v| v.to_string()),
            })
    }

    /// A finite number of at least 0 at `key`, or an error naming the field, as crate::json's.
    fn number(
        &self,
        key: &str,
        file: &str,
        place: &dyn Fn() -> String,
    ) -> Result<f64, ImportError> {
        let value = self.get(key);
        match value.and_then(|v| v.as_f64()) {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
            _ => Err(ImportError::Field {
                file: file.to_owned(),
                field: format!("{}.{key}", place()),
                expected: "a number of at least 0".to_owned(),
                found: value.map_or("nothing".to_owned(), |v| v.to_string()),
            }),
        }
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Entry<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Fields<'a> {
            type Value = Entry<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a benchmark result (an object)")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Entry<'a>, M::Error> {
                let mut fields = Vec::with_capacity(16);
                while let Some(key) = map.next_key::<Key<'a>>()? {
                    fields.push((key.0, map.next_value()?));
                }
                Ok(Entry { fields })
            }
        }
        deserializer.deserialize_map(Fields(std::marker::PhantomData))
    }
}

/// A field's name, borrowed from the text when it holds no escape.
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Key<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Name<'a> {
            type Value = Key<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E>(self, name: &'de str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Borrowed(name)))
            }
            fn visit_str<E>(self, name: &str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Owned(name.to_owned())))
            }
        }
        deserializer.deserialize_str(Name(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::build;
    use crate::format::Format;

    /// `g++ -O2 gb.cc -lbenchmark` (libbenchmark-dev 1.7.1) run with `--benchmark_format=json
    /// --benchmark_repetitions=3`: BM_sum/64 and BM_sum/1024 with a user counter and both rates, BM_fail
    /// calling SkipWithError.
    const REPORT: &str = include_str!("../testdata/gbench.json");

    #[test]
    fn repetitions_are_samples_and_the_median_is_google_benchmarks_own() {
        let report = parse(REPORT, "gbench.json").unwrap();
        let names: Vec<&str> = report.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["BM_sum/64", "BM_sum/1024"]);
        assert_eq!(report.benchmarks[0].times_ns.len(), 3);
        // What Google Benchmark ran: three repetitions of 623447 iterations.
        assert_eq!(report.benchmarks[0].iterations, Some(3 * 623447));
        let summary = build(Format::Gbench, "gbench.json", report.benchmarks).unwrap();
        // The report's own BM_sum/64_median aggregate: 141.70133788612395 ns (3 repetitions: the middle one).
        let median = summary.benchmarks[0]
            .time
            .as_ref()
            .unwrap()
            .per_iteration
            .median;
        assert!((median - 141.701).abs() < 0.001, "{median}");
        let extra = &summary.benchmarks[0].extra;
        let find = |name: &str| extra.iter().find(|e| e.name == name).unwrap();
        // Its second clock: the report's BM_sum/64_median cpu_time, 22.24684054939715 ns, to 1/1000 ns.
        let cpu = summary.benchmarks[0].cpu.as_ref().unwrap();
        assert!((cpu.per_iteration.median - 22.247).abs() < 1e-9, "{cpu:?}");
        assert_eq!(cpu.clock.name, "cpu_time");
        assert!(extra.iter().all(|e| e.name != "cpu_time"));
        assert_eq!(find("bytes_per_second").unit, "B/s");
        assert_eq!(find("bytes_per_second").better, Better::Higher);
        assert_eq!(find("items_per_second").value, 2876812995.4405727);
        assert_eq!(find("elements").value, 64.0);
    }

    #[test]
    fn a_benchmark_that_reported_an_error_is_failed_with_its_message() {
        let report = parse(REPORT, "gbench.json").unwrap();
        assert_eq!(
            report.failed,
            [Failed {
                name: "BM_fail".into(),
                message: "no device".into()
            }]
        );
    }

    /// One entry of a report: `name`, its registration's indexes and its repetition's.
    fn entry(name: &str, family: u64, repetition: u64) -> String {
        format!(
            r#"{{"name": "{name}", "run_name": "{name}", "run_type": "iteration", "family_index": {family},
            "per_family_instance_index": 0, "repetition_index": {repetition}, "iterations": 10,
            "real_time": 5.0, "cpu_time": 5.0, "time_unit": "ns"}}"#
        )
    }

    fn document(entries: &[String]) -> String {
        format!(
            r#"{{"context": {{"library_version": "v1.7.1"}}, "benchmarks": [{}]}}"#,
            entries.join(",")
        )
    }

    #[test]
    fn two_registrations_of_one_name_are_refused_and_repetitions_are_samples() {
        let repeated = document(&[entry("BM_a", 0, 0), entry("BM_a", 0, 1)]);
        let report = parse(&repeated, "g.json").unwrap();
        assert_eq!(report.benchmarks.len(), 1);
        assert_eq!(report.benchmarks[0].times_ns.len(), 2);
        let twice = document(&[
            entry("BM_a", 0, 0),
            entry("BM_b", 1, 0),
            entry("BM_a", 2, 0),
            entry("BM_b", 1, 0),
        ]);
        assert_eq!(
            parse(&twice, "g.json").unwrap_err().to_string(),
            "g.json: benchmarks named twice in one report: \"BM_a\", \"BM_b\" (one run names each \
             benchmark once)"
        );
        // Names that only the old wire charset made one are two benchmarks.
        let near = document(&[entry("BM_format/%@", 0, 0), entry("BM_format/%%", 1, 0)]);
        assert_eq!(parse(&near, "g.json").unwrap().benchmarks.len(), 2);
    }

    #[test]
    fn another_document_or_version_is_refused_naming_the_field() {
        let error = parse(r#"{"benchmarks": []}"#, "x.json").unwrap_err();
        assert_eq!(
            error.to_string(),
            "x.json: field context: expected an object (a Google Benchmark JSON report), found nothing"
        );
        let error = parse(
            r#"{"context": {"library_version": "v2.0.0"}, "benchmarks": []}"#,
            "x.json",
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("context.library_version"),
            "{error}"
        );
        let bad_unit = REPORT.replacen("\"time_unit\": \"ns\"", "\"time_unit\": \"fortnight\"", 1);
        let error = parse(&bad_unit, "x.json").unwrap_err().to_string();
        assert!(
            error.contains("benchmarks[0].time_unit") && error.contains("fortnight"),
            "{error}"
        );
    }
}
