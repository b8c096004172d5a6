//! Reading the JSON formats' fields, each missing or wrong one named by file and field.

use std::path::Path;

use crate::error::ImportError;

pub(crate) fn read_text(file: &Path) -> Result<String, ImportError> {
    std::fs::read_to_string(file).map_err(|source| ImportError::Read {
        file: file.display().to_string(),
        source,
    })
}

/// A JSON document, its syntax errors named by file, line and column.
pub(crate) fn parse_json(text: &str, file: &str) -> Result<serde_json::Value, ImportError> {
    serde_json::from_str(text).map_err(|error| ImportError::Json {
        file: file.to_owned(),
        line: error.line(),
        column: error.column(),
        message: error.to_string(),
    })
}

/// The field `key` of `object` (a JSON object at `place`), or an error naming the file and the field.
pub(crate) fn field<'a>(
    object: &'a serde_json::Value,
    key: &str,
    file: &str,
    place: &str,
    expected: &str,
) -> Result<&'a serde_json::Value, ImportError> {
    object.get(key).ok_or_else(|| ImportError::Field {
        file: file.to_owned(),
        field: join_field(place, key),
        expected: expected.to_owned(),
        found: "nothing".to_owned(),
    })
}

/// A finite number of at least 0 at `object[key]`.
pub(crate) fn number(
    object: &serde_json::Value,
    key: &str,
    file: &str,
    place: &str,
) -> Result<f64, ImportError> {
    let value = field(object, key, file, place, "a number of at least 0")?;
    match value.as_f64() {
        Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(ImportError::Field {
            file: file.to_owned(),
            field: join_field(place, key),
            expected: "a number of at least 0".to_owned(),
            found: value.to_string(),
        }),
    }
}

/// A string at `object[key]`.
pub(crate) fn string<'a>(
    object: &'a serde_json::Value,
    key: &str,
    file: &str,
    place: &str,
) -> Result<&'a str, ImportError> {
    let value = field(object, key, file, place, "a string")?;
    value.as_str().ok_or_else(|| ImportError::Field {
        file: file.to_owned(),
        field: join_field(place, key),
        expected: "a string".to_owned(),
        found: value.to_string(),
    })
}

/// An array at `object[key]`.
pub(crate) fn array<'a>(
    object: &'a serde_json::Value,
    key: &str,
    file: &str,
    place: &str,
    expected: &str,
) -> Result<&'a Vec<serde_json::Value>, ImportError> {
    let value = field(object, key, file, place, expected)?;
    value.as_array().ok_or_else(|| ImportError::Field {
        file: file.to_owned(),
        field: join_field(place, key),
        expected: expected.to_owned(),
        found: value.to_string(),
    })
}

/// `place.key`, or `key` at the top.
pub(crate) fn join_field(place: &str, key: &str) -> String {
    if place.is_empty() {
        key.to_owned()
    } else {
        format!("{place}.{key}")
    }
}
