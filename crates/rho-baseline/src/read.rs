//! Reading a baseline file: the text parsed as JSON, its schema named before anything else, a version 1 file
//! upgraded, and what the types cannot check validated (a key twice, a figure no run can produce). Apart from
//! the file's types (crate::format) because it calls every check, and the checks read those types.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::Error;
use crate::format::{BaselineFile, TargetBaseline, TargetSections};
use crate::schema::{SCHEMA, SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4};

/// A version 1 file, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineFileV1 {
    #[allow(dead_code)]
    schema: String,
    targets: BTreeMap<String, TargetBaseline>,
}

impl BaselineFile {
    /// Parses and validates a baseline. `source` names where the text came from (a path, or a path at a git
    /// ref) and is put in every error.
    pub fn parse(text: &str, source: &str) -> Result<BaselineFile, Error> {
        // serde_json says column 0 for an error before the line's first character (an empty file); columns
        // count from 1.
        let json_error = |e: serde_json::Error| Error::Json {
            source_name: source.to_string(),
            line: e.line().max(1),
            column: e.column().max(1),
            message: strip_position(&e.to_string()),
        };
        if text.trim().is_empty() {
            return Err(Error::Json {
                source_name: source.to_string(),
                line: 1,
                column: 1,
                message: "the file is empty: expected a JSON object (`rho bench --write-baseline` writes one)"
                    .to_string(),
            });
        }
        // First as plain JSON, so a file of another schema is named as such rather than reported as whatever
        // field it happens to lack.
        let value: serde_json::Value = serde_json::from_str(text).map_err(json_error)?;
        match value.get("schema") {
            Some(serde_json::Value::String(schema))
                if schema == SCHEMA
                    || schema == SCHEMA_V4
                    || schema == SCHEMA_V3
                    || schema == SCHEMA_V2 => {}
            Some(serde_json::Value::String(schema)) if schema == SCHEMA_V1 => {
                let old: BaselineFileV1 = serde_json::from_str(text).map_err(json_error)?;
                let file = BaselineFile {
                    schema: SCHEMA.to_string(),
                    targets: old
                        .targets
                        .into_iter()
                        .map(|(target, section)| (target, TargetSections::from_v1(section)))
                        .collect(),
                };
                file.validate(source)?;
                return Ok(file);
            }
            Some(serde_json::Value::String(schema)) => {
                return Err(Error::Schema {
                    source_name: source.to_string(),
                    found: schema.clone(),
                });
            }
            _ => {
                return Err(Error::Invalid {
                    source_name: source.to_string(),
                    message: format!(
                        "not a rho baseline: no \"schema\" string at the top (expected \"{SCHEMA}\")"
                    ),
                });
            }
        }
        if let Some(duplicate) = crate::json_keys::first_duplicate_key(text) {
            return Err(Error::DuplicateKey {
                source_name: source.to_string(),
                duplicate,
            });
        }
        let mut file: BaselineFile = serde_json::from_str(text).map_err(json_error)?;
        // Versions 2 and 3 are version 4 without suites, CPU time and extra figures (and 2 without functions):
        // held, and written back, as version 4.
        file.schema = SCHEMA.to_string();
        file.validate(source)?;
        crate::validate::baseline(&file, source)?;
        Ok(file)
    }
}

/// serde_json ends its messages with " at line L column C"; the error carries those as fields instead.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}
