//! One history record: the figures of one run of one target and measure at one commit, as the baseline
//! records them (rho-baseline's section), and what the baseline does not say (the commit, the machine).

use std::collections::BTreeMap;

use rho_baseline::format::{BaselineFile, TargetBaseline, TargetSections};
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The schema of a record file.
pub const RECORD_SCHEMA: &str = "rho-bench-history-record/1";

/// Which run a record holds: the baseline's two sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    Time,
    Instructions,
}

impl Measure {
    pub fn name(self) -> &'static str {
        match self {
            Measure::Time => "time",
            Measure::Instructions => "instructions",
        }
    }
}

/// One record file's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Always [`RECORD_SCHEMA`].
    pub schema: String,
    /// The commit measured, 40 lowercase hex digits.
    pub commit: String,
    /// Its committer time, UTC, RFC 3339.
    pub commit_time: String,
    /// Its subject line (for a chart's hover text).
    pub subject: String,
    /// Whether the work tree differed from the commit when it was measured (`--allow-dirty`).
    pub dirty: bool,
    /// The target name.
    pub target: String,
    /// Who measured it (`--machine`, `RHO_MACHINE`, else the host name).
    pub machine: String,
    pub measure: Measure,
    /// The rho that added the record.
    pub rho_version: String,
    /// The baseline section of that measure: context and every benchmark's figures.
    pub section: TargetBaseline,
}

/// What a record needs besides its section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub commit: String,
    pub commit_time: String,
    pub subject: String,
    pub dirty: bool,
    pub machine: String,
    pub rho_version: String,
}

/// A saved run's records: its suites (`(what, summary)`) grouped by target in the order first seen, each
/// target's sections (one per measure) as the baseline would record them with `rho_version`.
pub fn records_of_suites(
    suites: &[(&str, &rho_stats::RunSummary)],
    origin: &Origin,
    rho_version: &str,
) -> Result<Vec<Record>, Error> {
    let mut by_target: Vec<(&str, Vec<(&str, &rho_stats::RunSummary)>)> = Vec::new();
    for &(what, summary) in suites {
        let target = summary.target.name.as_str();
        match by_target.iter_mut().find(|(t, _)| *t == target) {
            Some((_, parts)) => parts.push((what, summary)),
            None => by_target.push((target, vec![(what, summary)])),
        }
    }
    let recording = rho_baseline::Recording::now(rho_version, None);
    let mut records = Vec::new();
    for (_, parts) in by_target {
        let sections = rho_baseline::sections_from_summaries(&parts, &recording)?;
        records.extend(Record::from_sections(&sections, origin));
    }
    Ok(records)
}

impl Record {
    /// One record per measure `sections` holds.
    pub fn from_sections(sections: &TargetSections, origin: &Origin) -> Vec<Record> {
        let make = |measure: Measure, section: &TargetBaseline| Record {
            schema: RECORD_SCHEMA.to_string(),
            commit: origin.commit.clone(),
            commit_time: origin.commit_time.clone(),
            subject: origin.subject.clone(),
            dirty: origin.dirty,
            target: section.context.target.clone(),
            machine: origin.machine.clone(),
            measure,
            rho_version: origin.rho_version.clone(),
            section: section.clone(),
        };
        let mut records = Vec::new();
        if let Some(time) = &sections.time {
            records.push(make(Measure::Time, time));
        }
        if let Some(counted) = &sections.instructions {
            records.push(make(Measure::Instructions, counted));
        }
        records
    }

    /// The record's text: pretty JSON and a final newline.
    pub fn to_json(&self) -> Result<String, Error> {
        let mut text = serde_json::to_string_pretty(self).map_err(|error| Error::Record {
            path: format!("record of {}", self.commit),
            message: error.to_string(),
        })?;
        text.push('\n');
        Ok(text)
    }

    /// Reads and checks a record file's text; `path` names it in every error. The section is checked by the
    /// baseline's own rules (rho_baseline's validate), as if it were the baseline file's only section.
    pub fn parse(text: &str, path: &str) -> Result<Record, Error> {
        let fail = |message: String| Error::Record {
            path: path.to_string(),
            message,
        };
        // One parse on the way every record takes; the schema is looked at first only to say what is wrong.
        let record: Record = match serde_json::from_str(text) {
            Ok(record) => record,
            Err(error) => return Err(fail(explain(text, &error))),
        };
        if record.schema != RECORD_SCHEMA {
            return Err(fail(format!(
                "schema \"{}\": expected \"{RECORD_SCHEMA}\"",
                record.schema
            )));
        }
        if let Some(duplicate) = rho_baseline::json_keys::first_duplicate_key(text) {
            return Err(fail(format!(
                "line {} column {}: {duplicate}",
                duplicate.line, duplicate.column
            )));
        }
        if !is_commit_id(&record.commit) {
            return Err(fail(format!(
                "commit \"{}\": expected 40 lowercase hex digits",
                record.commit
            )));
        }
        if record.section.context.target != record.target {
            return Err(fail(format!(
                "target \"{}\" but its section's context says \"{}\"",
                record.target, record.section.context.target
            )));
        }
        // The section is moved into a baseline file for the baseline's checks and back out: no copy.
        let Record {
            schema,
            commit,
            commit_time,
            subject,
            dirty,
            target,
            machine,
            measure,
            rho_version,
            section,
        } = record;
        let file = as_baseline(&target, measure, section);
        file.validate(path)?;
        rho_baseline::validate::baseline(&file, path)?;
        let section = file
            .targets
            .into_values()
            .find_map(|sections| sections.time.or(sections.instructions))
            .ok_or_else(|| fail("no section".to_string()))?;
        Ok(Record {
            schema,
            commit,
            commit_time,
            subject,
            dirty,
            target,
            machine,
            measure,
            rho_version,
            section,
        })
    }
}

/// `section` as a baseline file of one target and measure (how the baseline checks it).
fn as_baseline(target: &str, measure: Measure, section: TargetBaseline) -> BaselineFile {
    let mut sections = TargetSections::default();
    match measure {
        Measure::Time => sections.time = Some(section),
        Measure::Instructions => sections.instructions = Some(section),
    }
    BaselineFile {
        schema: rho_baseline::SCHEMA.to_string(),
        targets: BTreeMap::from([(target.to_string(), sections)]),
    }
}

/// Why `text` is not a record: not JSON, another schema, or the record's own error (a missing field, a figure
/// of the wrong type), with its line and column.
fn explain(text: &str, error: &serde_json::Error) -> String {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return format!("line {} column {}: not JSON: {e}", e.line(), e.column()),
    };
    match value.get("schema").and_then(|s| s.as_str()) {
        Some(RECORD_SCHEMA) => error.to_string(),
        Some(other) => format!("schema \"{other}\": expected \"{RECORD_SCHEMA}\""),
        None => format!("no \"schema\": expected a \"{RECORD_SCHEMA}\" record"),
    }
}

/// Whether `text` is a full commit id as git prints it.
pub fn is_commit_id(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
