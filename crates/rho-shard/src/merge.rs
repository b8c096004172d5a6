//! Reading the shares' documents and putting their suites back together: every share of one run (same
//! partition, commit, target and command), each once, none missing; each suite's benchmarks in run order,
//! from the share that ran each.

use std::path::PathBuf;

use rho_stats::RunSummary;
use serde::Deserialize;

use crate::error::Error;
use crate::partition::Entry;
use crate::record::ShardRecord;

/// The shares' run put back together, before it is judged.
#[derive(Debug)]
pub struct Shares {
    /// The first share's record (the partition, commit, command and `--diff` every share has).
    pub record: ShardRecord,
    /// The module.yml the shares read, as their documents name it.
    pub module: PathBuf,
    pub target: String,
    pub scale: f64,
    pub repetitions: u32,
    /// Each suite that ran, in run order, with its benchmarks in run order.
    pub suites: Vec<(String, RunSummary)>,
    /// The suites a share could not build or run, `(suite, error)`, in run order, each once.
    pub failed: Vec<(String, String)>,
}

/// The top level of a share's document.
#[derive(Deserialize)]
struct ShareDocument {
    schema: String,
    rho_version: String,
    module: PathBuf,
    target: String,
    scale: f64,
    repetitions: u32,
    shard: Option<ShardRecord>,
    /// Read again as summaries by `rho_baseline::saved::parse`; here only counted.
    #[serde(default)]
    suites: Vec<serde_json::Value>,
    #[serde(default)]
    failed: Vec<FailedEntry>,
}

#[derive(Deserialize)]
struct FailedEntry {
    suite: String,
    error: String,
}

/// One share read: its file's name, its top level and its suites.
struct Read {
    file: String,
    document: ShareDocument,
    record: ShardRecord,
    suites: Vec<(String, RunSummary)>,
}

/// Reads the shares (`(file name, text)`, in any order) and merges their suites; refuses shares of different
/// runs, a share twice and a missing share, naming the files and shares.
pub fn merge(files: &[(String, String)]) -> Result<Shares, Error> {
    let shares = crate::merge::read_all(files, read)?;
    let first = &shares[0];
    for share in &shares[1..] {
        same_run(&first.run(), &share.run())?;
    }
    let indices: Vec<(u32, &str)> = shares
        .iter()
        .map(|s| (s.record.index, s.file.as_str()))
        .collect();
    let order = in_order(first.record.count, &indices)?;
    let ordered: Vec<&Read> = order.iter().map(|at| &shares[*at]).collect();
    let order = run_order(&first.record, &ordered);
    let failed = failed(&order, &ordered);
    let mut suites = suites(&order, &ordered);
    // A suite one share could not run is a failed suite, as in a run on one machine.
    suites.retain(|(what, _)| !failed.iter().any(|(suite, _)| suite == what));
    Ok(Shares {
        record: first.record.clone(),
        module: first.document.module.clone(),
        target: first.document.target.clone(),
        scale: first.document.scale,
        repetitions: first.document.repetitions,
        suites,
        failed,
    })
}

/// Every share of `files` (`(file name, text)`) as `read` reads it; refuses an empty list, which has
/// nothing to merge. So the first share exists: the merges compare the others with it.
pub(crate) fn read_all<T>(
    files: &[(String, String)],
    read: fn(&str, &str) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    let shares = files
        .iter()
        .map(|(file, text)| read(file, text))
        .collect::<Result<Vec<T>, Error>>()?;
    if shares.is_empty() {
        return Err(no_share_given());
    }
    Ok(shares)
}

/// The refusal of a merge given no share.
pub(crate) fn no_share_given() -> Error {
    Error::NotAShare {
        file: "(none)".to_string(),
        why: "no share given: name each share's --json document".to_string(),
    }
}

/// The shares' positions in `indices` (each share's K and file, as given) in share order, 1 to `count`:
/// refuses a share given twice and a share missing, naming them.
pub(crate) fn in_order(count: u32, indices: &[(u32, &str)]) -> Result<Vec<usize>, Error> {
    let mut by_index: Vec<Option<usize>> = vec![None; count as usize];
    for (at, (index, file)) in indices.iter().enumerate() {
        let slot = &mut by_index[*index as usize - 1];
        if let Some(earlier) = slot {
            return Err(Error::Twice {
                share: format!("{index}/{count}"),
                first: indices[*earlier].1.to_string(),
                second: file.to_string(),
            });
        }
        *slot = Some(at);
    }
    let missing: Vec<String> = (1..=count)
        .filter(|k| by_index[*k as usize - 1].is_none())
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Missing { missing, count });
    }
    Ok(by_index.into_iter().flatten().collect())
}

/// What every share of one run has alike, and the file it was read from.
pub(crate) struct RunOf<'a> {
    pub(crate) file: &'a str,
    pub(crate) rho_version: &'a str,
    pub(crate) target: &'a str,
    pub(crate) record: &'a ShardRecord,
}

impl Read {
    fn run(&self) -> RunOf<'_> {
        RunOf {
            file: &self.file,
            rho_version: &self.document.rho_version,
            target: &self.document.target,
            record: &self.record,
        }
    }
}

/// A share's document read and checked: a `rho-bench-project/1` with a `shard` record whose share is in range.
fn read(file: &str, text: &str) -> Result<Read, Error> {
    let not_a_share = |why: String| Error::NotAShare {
        file: file.to_string(),
        why,
    };
    let document: ShareDocument = serde_json::from_str(text).map_err(|e| {
        not_a_share(format!(
            "line {} column {}: {e} (expected a `rho bench --shard K/N --json` document)",
            e.line(),
            e.column()
        ))
    })?;
    if document.schema != rho_baseline::saved::PROJECT_SCHEMA {
        return Err(not_a_share(format!(
            "schema \"{}\": expected \"{}\" (module.yml mode: `rho bench --shard K/N --json FILE`)",
            document.schema,
            rho_baseline::saved::PROJECT_SCHEMA
        )));
    }
    let Some(record) = document.shard.clone() else {
        return Err(not_a_share(
            "no \"shard\" object: written without --shard K/N".to_string(),
        ));
    };
    if record.index == 0 || record.index > record.count {
        return Err(not_a_share(format!(
            "shard {}: expected K/N with 1 <= K <= N",
            record.label()
        )));
    }
    // A share whose suites all failed (or that had none of its benchmarks to run) holds no suite.
    let suites = if document.suites.is_empty() {
        Vec::new()
    } else {
        rho_baseline::saved::parse(text, file)?
            .into_iter()
            .map(|s| (s.what, s.summary))
            .collect()
    };
    Ok(Read {
        file: file.to_string(),
        document,
        record,
        suites,
    })
}

/// Refuses `share` unless it is of the same run as `first`, saying what differs.
pub(crate) fn same_run(first: &RunOf<'_>, share: &RunOf<'_>) -> Result<(), Error> {
    let (a, b) = (first.record, share.record);
    let short = |commit: &Option<String>| {
        commit
            .as_deref()
            .map_or("none (not a repository)".to_string(), |c| {
                c.get(..10).unwrap_or(c).to_string()
            })
    };
    let what = if share.rho_version != first.rho_version {
        Some(format!(
            "rho {} against rho {}",
            share.rho_version, first.rho_version
        ))
    } else if a.commit != b.commit {
        Some(format!(
            "commit {} against {}",
            short(&b.commit),
            short(&a.commit)
        ))
    } else if share.target != first.target {
        Some(format!("target {} against {}", share.target, first.target))
    } else if a.command != b.command {
        Some(format!(
            "rho bench {} against rho bench {}",
            b.command, a.command
        ))
    } else if a.count != b.count {
        Some(format!("{} shares against {}", b.count, a.count))
    } else if a.diff != b.diff || a.diff_commit != b.diff_commit {
        Some(format!(
            "--diff {} against --diff {}",
            b.diff.as_deref().unwrap_or("(none)"),
            a.diff.as_deref().unwrap_or("(none)")
        ))
    } else if a.partition != b.partition {
        Some(format!(
            "partition {} against {} (the suites, the settings or the benchmarks differ)",
            b.partition, a.partition
        ))
    } else {
        None
    };
    Error::unless_same(what, share.file, first.file)
}

/// Every benchmark of the run in run order: each suite's from the record of its owner (the share holding
/// its first benchmark, crate::share::owner), which listed it and so also holds the benchmarks the baseline
/// did not know; the shares' partitions are equal, so any share's record says which share owns a suite.
fn run_order(first: &ShardRecord, shares: &[&Read]) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for entry in &first.benchmarks {
        if seen.contains(&entry.suite.as_str()) {
            continue;
        }
        seen.push(&entry.suite);
        let owner = shares
            .get(entry.share as usize - 1)
            .map_or(first, |share| &share.record);
        out.extend(
            owner
                .benchmarks
                .iter()
                .filter(|e| e.suite == entry.suite)
                .cloned(),
        );
    }
    out
}

/// Each suite that ran, in run order: the run of the share holding its first benchmark, with every
/// benchmark taken from the share that ran it, in run order.
fn suites(order: &[Entry], shares: &[&Read]) -> Vec<(String, RunSummary)> {
    let mut out: Vec<(String, RunSummary)> = Vec::new();
    for entry in order {
        let ran = |share: u32| {
            shares[share as usize - 1]
                .suites
                .iter()
                .find(|(what, _)| *what == entry.suite)
                .map(|(_, summary)| summary)
        };
        let Some(summary) = ran(entry.share) else {
            continue; // that share could not run the suite: it is among `failed`
        };
        let Some(bench) = summary.benchmarks.iter().find(|b| b.name == entry.name) else {
            continue;
        };
        match out.iter_mut().find(|(what, _)| *what == entry.suite) {
            Some((_, merged)) => merged.benchmarks.push(bench.clone()),
            None => {
                let mut merged = summary.clone();
                merged.benchmarks = vec![bench.clone()];
                out.push((entry.suite.clone(), merged));
            }
        }
    }
    out
}

/// The suites any share failed, in run order, each once (with the first share's message).
fn failed(order: &[Entry], shares: &[&Read]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut suites: Vec<&str> = Vec::new();
    for entry in order {
        if !suites.contains(&entry.suite.as_str()) {
            suites.push(&entry.suite);
        }
    }
    for suite in suites {
        let failure = shares
            .iter()
            .flat_map(|s| &s.document.failed)
            .find(|f| f.suite == suite);
        if let Some(failure) = failure {
            out.push((failure.suite.clone(), failure.error.clone()));
        }
    }
    out
}
