//! One history record: the figures of one run of one target and measure at one commit, as the baseline
//! records them (rho-baseline's section), and what the baseline does not say (the commit, the machine).

use std::collections::BTreeMap;

use rho_baseline::format::{BaselineFile, Figure, TargetBaseline, TargetSections};
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The schema of a record file: /3 adds the time section's machine yardsticks (`section.context.yardsticks`,
/// docs/history.md), /2 each benchmark's quartiles (the charts' band).
pub const RECORD_SCHEMA: &str = "rho-bench-history-record/3";

/// The second record schema, still read: the same record without yardsticks.
pub const RECORD_SCHEMA_V2: &str = "rho-bench-history-record/2";

/// The first record schema, still read: the same record without quartiles.
pub const RECORD_SCHEMA_V1: &str = "rho-bench-history-record/1";

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
    /// Per benchmark of the section, the p25 and p75 of each clock (a time record of a saved run that has
    /// them; absent from /1 records, instruction records and imported baselines).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub quartiles: BTreeMap<String, Quartiles>,
}

/// One benchmark's p25 and p75 per iteration, per clock, rounded as the section's median is.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quartiles {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<[Figure; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ns: Option<[Figure; 2]>,
}

impl Quartiles {
    /// The band of `metric` (`cycles` or `time_ns`), as numbers.
    pub fn of(&self, metric: rho_stats::Metric) -> Option<(f64, f64)> {
        let band = match metric {
            rho_stats::Metric::Cycles => self.cycles,
            rho_stats::Metric::TimeNs => self.time_ns,
            _ => None,
        }?;
        Some((band[0].0, band[1].0))
    }
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
        let quartiles = quartiles_of(&parts);
        for mut record in Record::from_sections(&sections, origin) {
            if record.measure == Measure::Time {
                record.quartiles = record
                    .section
                    .benchmarks
                    .iter()
                    .filter_map(|b| Some((b.name.clone(), *quartiles.get(b.name.as_str())?)))
                    .collect();
            }
            records.push(record);
        }
    }
    Ok(records)
}

/// Each benchmark's quartiles in the suites' summaries (rho_baseline's rounding), those with a clock's.
fn quartiles_of(parts: &[(&str, &rho_stats::RunSummary)]) -> BTreeMap<String, Quartiles> {
    parts
        .iter()
        .flat_map(|(_, summary)| rho_baseline::record::quartiles_from_summary(summary))
        .filter(|q| q.cycles.is_some() || q.time_ns.is_some())
        .map(|q| {
            let band = Quartiles {
                cycles: q.cycles,
                time_ns: q.time_ns,
            };
            (q.name, band)
        })
        .collect()
}

/// `section` without what baseline version 4 added (another harness's `extra` figures and CPU time,
/// `cpu_ns`, and the suite of each benchmark, which is the baseline's, for sharded runs): a
/// `rho-bench-history-record/2` keeps the shape every rho that reads one reads, whichever way it was made
/// (a run's suites, or `history import` of a baseline file).
fn without_extra(section: &TargetBaseline) -> TargetBaseline {
    let mut section = section.clone();
    for bench in &mut section.benchmarks {
        bench.extra.clear();
        bench.cpu_ns = None;
        bench.suite = None;
    }
    section
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
            section: without_extra(section),
            quartiles: BTreeMap::new(),
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
        let mut record: Record = match serde_json::from_str(text) {
            Ok(record) => record,
            Err(error) => return Err(fail(explain(text, &error))),
        };
        if record.schema == RECORD_SCHEMA_V1 && !record.quartiles.is_empty() {
            return Err(fail(format!(
                "\"quartiles\" in a \"{RECORD_SCHEMA_V1}\" record: they came with \"{RECORD_SCHEMA_V2}\""
            )));
        }
        if record.schema != RECORD_SCHEMA && !record.section.context.yardsticks.is_empty() {
            return Err(fail(format!(
                "\"yardsticks\" in a \"{}\" record: they came with \"{RECORD_SCHEMA}\"",
                record.schema
            )));
        }
        if record.schema != RECORD_SCHEMA
            && record.schema != RECORD_SCHEMA_V2
            && record.schema != RECORD_SCHEMA_V1
        {
            return Err(fail(format!(
                "schema \"{}\": expected \"{RECORD_SCHEMA}\" (or \"{RECORD_SCHEMA_V2}\", \"{RECORD_SCHEMA_V1}\")",
                record.schema
            )));
        }
        check_quartiles(&record).map_err(fail)?;
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
        let file = as_baseline(&record.target, record.measure, record.section);
        file.validate(path)?;
        rho_baseline::validate::baseline(&file, path)?;
        record.section = file
            .targets
            .into_values()
            .find_map(|sections| sections.time.or(sections.instructions))
            .ok_or_else(|| fail("no section".to_string()))?;
        Ok(record)
    }
}

/// Each band in `record` is of a benchmark of its section, finite, at least 0, p25 not above p75.
fn check_quartiles(record: &Record) -> Result<(), String> {
    for (name, quartiles) in &record.quartiles {
        if !record.section.benchmarks.iter().any(|b| &b.name == name) {
            return Err(format!(
                "quartiles of \"{name}\": no such benchmark in the record's section"
            ));
        }
        for (metric, band) in [("cycles", quartiles.cycles), ("time_ns", quartiles.time_ns)] {
            let Some([p25, p75]) = band else { continue };
            let fine = p25.0.is_finite() && p75.0.is_finite() && 0.0 <= p25.0 && p25.0 <= p75.0;
            if !fine {
                return Err(format!(
                    "quartiles of \"{name}\" {metric}: [{}, {}]: expected two finite figures, at least 0, \
                     p25 not above p75",
                    p25.0, p75.0
                ));
            }
        }
    }
    Ok(())
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
        Some(RECORD_SCHEMA | RECORD_SCHEMA_V1) => error.to_string(),
        Some(other) => format!("schema \"{other}\": expected \"{RECORD_SCHEMA}\""),
        None => format!("no \"schema\": expected a \"{RECORD_SCHEMA}\" record"),
    }
}

/// Whether `text` is a full commit id as git prints it.
pub fn is_commit_id(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
