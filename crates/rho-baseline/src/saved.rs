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
