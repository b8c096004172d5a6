//! Adding saved runs to the history: the commit measured and who measured it ([`Origin`], refused on a dirty
//! work tree unless allowed), then a record per target and measure of each saved run, in one commit of the
//! branch. `history add RUN.json` and `rho bench --history` (the run just made, saved by `--json`) both come
//! here, so the two add the same records.

use std::path::Path;

use crate::error::Error;
use crate::git::Store;
use crate::import::machine_name;
use crate::record::{Origin, Record, records_of_suites};

/// Who adds, and for which commit.
#[derive(Debug, Clone, Default)]
pub struct AddOptions<'a> {
    /// The commit the runs measured (`HEAD` for the run just made).
    pub commit: &'a str,
    /// Add even when tracked files differ from HEAD (the record then says it was dirty).
    pub allow_dirty: bool,
    /// The machine label (`--machine`); `None` for $RHO_MACHINE, else the host name.
    pub machine: Option<&'a str>,
    /// The rho adding the records.
    pub rho_version: &'a str,
}

/// The origin of the records `options` describes: the commit resolved, the work tree checked. A tracked file
/// that differs from HEAD is [`Error::Dirty`] unless `allow_dirty`.
pub fn origin(store: &Store, options: &AddOptions<'_>) -> Result<Origin, Error> {
    let dirty = store.work_tree_dirty()?;
    if dirty && !options.allow_dirty {
        return Err(Error::Dirty {
            commit: options.commit.to_string(),
        });
    }
    let commit = store.commit_info(options.commit)?;
    Ok(Origin {
        commit: commit.id,
        commit_time: commit.time,
        subject: commit.subject,
        dirty,
        machine: machine_name(options.machine),
        rho_version: options.rho_version.to_string(),
    })
}

/// The records of a run saved by `--json` (any saved run rho_baseline::saved::parse_any reads: one target or
/// several, FILE.c or module.yml mode), every error naming `path`.
pub fn records_of_saved_run(path: &Path, origin: &Origin) -> Result<Vec<Record>, Error> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| Error::Io {
        action: format!("cannot read {shown}"),
        error,
    })?;
    let suites = rho_baseline::saved::parse_any(&text, &shown)?;
    let parts: Vec<(&str, &rho_stats::RunSummary)> = suites
        .iter()
        .map(|suite| (suite.what.as_str(), &suite.summary))
        .collect();
    records_of_suites(&parts, origin, &origin.rho_version).map_err(|error| Error::Record {
        path: shown,
        message: error.to_string(),
    })
}

/// What an add did: the branch's new tip and the records' paths on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    pub tip: String,
    pub paths: Vec<String>,
}

/// Adds a record per target and measure of each saved run in `runs` to `store`, in one commit.
pub fn add_saved_runs(store: &Store, runs: &[&Path], origin: &Origin) -> Result<Added, Error> {
    let mut records = Vec::new();
    for path in runs {
        records.extend(records_of_saved_run(path, origin)?);
    }
    let (tip, paths) = store.add(&records)?;
    Ok(Added { tip, paths })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_stats::RunSummary;
    use std::path::PathBuf;

    const STREAM: &str = include_str!("../../rho-report/testdata/two_benchmarks.wire");

    #[test]
    fn a_run_of_several_targets_is_read_target_by_target() {
        let summary = RunSummary::of(&rho_wire::parse_str(STREAM).unwrap()).unwrap();
        // A suite built with `cc` under the default timeout; the rest as an import leaves it.
        let suite = rho_baseline::export::SuiteInfo {
            compiler: vec!["cc".into()],
            timeout_seconds: 300.0,
            ..rho_baseline::export::SuiteInfo::imported(vec![PathBuf::from("a.c")])
        };
        let run =
            serde_json::to_value(rho_baseline::export::RunDocument::new(suite, &summary)).unwrap();
        let mut other = run.clone();
        other["target"]["name"] = "board".into();
        let document = serde_json::json!({
            "schema": "rho-bench-targets/1",
            "rho_version": "0.1.0",
            "runs": [run, other],
            "comparison": {},
        });
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("targets.json");
        std::fs::write(&path, document.to_string()).unwrap();
        let suites = rho_baseline::saved::parse_any(
            &std::fs::read_to_string(&path).unwrap(),
            "targets.json",
        )
        .unwrap();
        let targets: Vec<&str> = suites
            .iter()
            .map(|s| s.summary.target.name.as_str())
            .collect();
        assert_eq!(targets, [summary.target.name.as_str(), "board"]);
        let origin = Origin {
            commit: "a".repeat(40),
            commit_time: "2026-12-04T10:00:00Z".to_string(),
            subject: "s".to_string(),
            dirty: false,
            machine: "m".to_string(),
            rho_version: "0.1.0".to_string(),
        };
        let records = records_of_saved_run(&path, &origin).unwrap();
        let record_targets: Vec<&str> = records.iter().map(|r| r.target.as_str()).collect();
        assert_eq!(record_targets, [summary.target.name.as_str(), "board"]);
        // A target's document that is not a run is refused naming the file and the target's place.
        let broken = serde_json::json!({"schema": "rho-bench-targets/1", "runs": [{"suite": 1}]});
        std::fs::write(&path, broken.to_string()).unwrap();
        let error = records_of_saved_run(&path, &origin)
            .unwrap_err()
            .to_string();
        assert!(error.contains("targets.json (target 1)"), "{error}");
    }
}
