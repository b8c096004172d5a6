//! Reading a run saved by `rho bench --json` back (`rho bench show`, `rho bench compare`): a
//! `rho-bench-run/1` (one suite) or a `rho-bench-project/1` (every suite of a module.yml), each suite's whole
//! summary. Here rather than in the binary so the fuzz tests read documents the way rho does; every summary is
//! checked for what a run can produce ([`crate::validate::run_summary`]) and the document for keys twice.

use std::path::PathBuf;

use rho_stats::RunSummary;
use serde::Deserialize;

use crate::error::Error;

/// The schema of a saved run of one suite (`rho bench FILES --json`).
pub const RUN_SCHEMA: &str = "rho-bench-run/1";
/// The schema of a saved run of a module.yml's suites (`rho bench --json`).
pub const PROJECT_SCHEMA: &str = "rho-bench-project/1";

/// One suite of a saved document: what it was (its files or command) and its summary.
#[derive(Debug, Clone)]
pub struct SavedSuite {
    pub what: String,
    pub summary: RunSummary,
}

#[derive(Deserialize)]
struct Schema {
    schema: Option<String>,
}

#[derive(Deserialize)]
struct RunDocument {
    suite: RunSuite,
    #[serde(flatten)]
    summary: RunSummary,
}

#[derive(Deserialize)]
struct RunSuite {
    sources: Vec<PathBuf>,
}

#[derive(Deserialize)]
struct ProjectDocument {
    suites: Vec<ProjectSuite>,
}

#[derive(Deserialize)]
struct ProjectSuite {
    suite: String,
    #[serde(flatten)]
    summary: RunSummary,
}

/// Parses the suites of any saved run: a `rho-bench-run/1` or `rho-bench-project/1` (as [`parse`]), or a run of
/// several targets (`rho-bench-targets/1`, `rho-bench-project-targets/1`: each target's document parsed the
/// same way, named `SOURCE (target N)` in its errors).
pub fn parse_any(text: &str, source: &str) -> Result<Vec<SavedSuite>, Error> {
    let several = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|doc| {
            let (key, schema) = match doc.get("schema")?.as_str()? {
                "rho-bench-targets/1" => ("runs", RUN_SCHEMA),
                "rho-bench-project-targets/1" => ("targets", PROJECT_SCHEMA),
                _ => return None,
            };
            Some((doc.get(key)?.as_array()?.clone(), schema))
        });
    let Some((documents, schema)) = several else {
        return parse(text, source);
    };
    let mut suites = Vec::new();
    for (index, mut document) in documents.into_iter().enumerate() {
        if let Some(object) = document.as_object_mut() {
            object.insert("schema".to_string(), schema.into());
        }
        let name = format!("{source} (target {})", index + 1);
        suites.extend(parse(&document.to_string(), &name)?);
    }
    Ok(suites)
}

/// Parses a saved document's suites, in order. `source` names the file in every error: for malformed JSON
/// with the line and column and what was expected; for a figure no run produces, the suite, benchmark and
/// field.
pub fn parse(text: &str, source: &str) -> Result<Vec<SavedSuite>, Error> {
    let invalid = |message: String| Error::Invalid {
        source_name: source.to_owned(),
        message,
    };
    let json_error = |error: serde_json::Error| {
        invalid(format!(
            "line {} column {}: {error}",
            error.line(),
            error.column()
        ))
    };
    let schema: Schema = serde_json::from_str(text).map_err(json_error)?;
    if let Some(duplicate) = crate::json_keys::first_duplicate_key(text) {
        return Err(Error::DuplicateKey {
            source_name: source.to_owned(),
            duplicate,
        });
    }
    let suites = match schema.schema.as_deref() {
        Some(RUN_SCHEMA) => {
            let document: RunDocument = serde_json::from_str(text).map_err(json_error)?;
            let what = document
                .suite
                .sources
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(" ");
            vec![SavedSuite {
                what,
                summary: document.summary,
            }]
        }
        Some(PROJECT_SCHEMA) => {
            let document: ProjectDocument = serde_json::from_str(text).map_err(json_error)?;
            document
                .suites
                .into_iter()
                .map(|s| SavedSuite {
                    what: s.suite,
                    summary: s.summary,
                })
                .collect()
        }
        Some(other) => {
            return Err(invalid(format!(
                "schema \"{other}\": expected \"{RUN_SCHEMA}\" or \"{PROJECT_SCHEMA}\" (a document written by \
                 `rho bench --json`)"
            )));
        }
        None => {
            return Err(invalid(format!(
                "no \"schema\" key: expected a document written by `rho bench --json` (\"{RUN_SCHEMA}\" or \
                 \"{PROJECT_SCHEMA}\")"
            )));
        }
    };
    if suites.is_empty() {
        return Err(invalid(
            "no suite in the document: nothing to show".to_owned(),
        ));
    }
    let several = suites.len() > 1;
    for (index, suite) in suites.iter().enumerate() {
        let label = if several {
            format!("suite {} ({}), ", index + 1, suite.what)
        } else {
            String::new()
        };
        crate::validate::run_summary(&suite.summary, source, &label)?;
    }
    Ok(suites)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = include_str!("../../rho-report/testdata/two_benchmarks.wire");

    fn summary() -> RunSummary {
        RunSummary::of(&rho_wire::parse_str(STREAM).unwrap()).unwrap()
    }

    #[test]
    fn a_run_document_reads_back_as_the_summary_it_was_written_from() {
        let summary = summary();
        assert!(
            summary.benchmarks[0]
                .cycles
                .as_ref()
                .unwrap()
                .distribution
                .is_some()
        );
        // A suite built with `cc` under the default timeout; the rest as an import leaves it.
        let suite = crate::export::SuiteInfo {
            compiler: vec!["cc".into()],
            timeout_seconds: 300.0,
            ..crate::export::SuiteInfo::imported(vec![PathBuf::from("a.c"), PathBuf::from("b.c")])
        };
        let text =
            serde_json::to_string(&crate::export::RunDocument::new(suite, &summary)).unwrap();
        let suites = parse(&text, "run.json").unwrap();
        assert_eq!(suites.len(), 1);
        assert_eq!(suites[0].what, "a.c b.c");
        assert_eq!(
            suites[0].summary, summary,
            "every figure, the histogram included"
        );
    }

    #[test]
    fn a_project_document_reads_back_suite_by_suite() {
        let summary = summary();
        let mut one = serde_json::to_value(&summary).unwrap();
        one["suite"] = "bench/a.c".into();
        one["budgets"] = serde_json::json!({"enforced": true, "checks": []});
        let mut two = one.clone();
        two["suite"] = "bench/b.c".into();
        let document = serde_json::json!({
            "schema": PROJECT_SCHEMA,
            "module": "module.yml",
            "suites": [one, two],
            "failed": [],
        });
        let suites = parse(&document.to_string(), "p.json").unwrap();
        let names: Vec<&str> = suites.iter().map(|s| s.what.as_str()).collect();
        assert_eq!(names, ["bench/a.c", "bench/b.c"]);
        assert!(suites.iter().all(|s| s.summary == summary));
        // A project with no suite has nothing to show.
        let empty = serde_json::json!({"schema": PROJECT_SCHEMA, "suites": []});
        let error = parse(&empty.to_string(), "p.json").unwrap_err();
        assert!(error.to_string().contains("no suite"), "{error}");
    }

    #[test]
    fn a_document_of_another_kind_is_refused_with_its_schema() {
        let error = parse(r#"{"schema": "rho-baseline/1"}"#, "x.json")
            .unwrap_err()
            .to_string();
        assert!(error.contains("x.json"), "{error}");
        assert!(error.contains("rho-baseline/1"), "{error}");
        let error = parse("{}", "x.json").unwrap_err().to_string();
        assert!(error.contains("no \"schema\""), "{error}");
    }

    #[test]
    fn malformed_json_names_its_line_and_column() {
        let error = parse("{\n  \"schema\": ]", "x.json")
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("x.json: line 2 column"), "{error}");
    }

    #[test]
    fn a_run_document_missing_its_figures_is_refused() {
        let error = parse(
            r#"{"schema": "rho-bench-run/1", "suite": {"sources": ["a.c"]}}"#,
            "x.json",
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("missing field"), "{error}");
    }
}
