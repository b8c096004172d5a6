//! Filling the history from the past: a record per target and measure of every commit that changed the
//! baseline file (`history import`), and the machine name records are kept under.

use std::path::Path;

use crate::error::Error;
use crate::git::Store;
use crate::record::{Origin, Record};

/// The machine's name: `flag` (`--machine`), else $RHO_MACHINE, else the host name, else `unknown-machine`.
pub fn machine_name(flag: Option<&str>) -> String {
    if let Some(name) = flag.filter(|n| !n.trim().is_empty()) {
        return name.to_string();
    }
    if let Ok(name) = std::env::var("RHO_MACHINE") {
        if !name.trim().is_empty() {
            return name;
        }
    }
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| {
            std::process::Command::new("hostname")
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        })
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "unknown-machine".to_string())
}

/// `baseline`'s path inside the repository at `toplevel`, with `/` between its parts (as git names it).
pub fn path_in_repository(toplevel: &Path, baseline: &Path) -> Result<String, Error> {
    let absolute = std::fs::canonicalize(baseline.parent().unwrap_or(Path::new(".")))
        .map(|dir| dir.join(baseline.file_name().unwrap_or_default()))
        .unwrap_or(baseline.to_path_buf());
    let relative = absolute
        .strip_prefix(toplevel)
        .map_err(|source| Error::OutsideRepository {
            path: baseline.to_path_buf(),
            repo: toplevel.to_path_buf(),
            source,
        })?;
    Ok(relative.to_string_lossy().replace('\\', "/"))
}

/// What an import did.
#[derive(Debug)]
pub struct Imported {
    /// The commits that changed the baseline file.
    pub commits: usize,
    /// The records added, and the branch's new tip; `None` when every record was already there.
    pub added: Option<(String, usize)>,
    /// The commits (short ids) whose baseline file no rho reads (deleted there, or a foreign version).
    pub unreadable: Vec<String>,
}

/// Adds to `store` a record per target and measure of every commit of HEAD's history that changed
/// `relative` (a baseline file's path in the repository at `toplevel`), those already on the branch (same
/// commit, machine, target, measure and recording time) left out.
pub fn import_baseline(
    store: &Store,
    toplevel: &Path,
    relative: &str,
    machine: &str,
    rho_version: &str,
) -> Result<Imported, Error> {
    let existing = store.read()?;
    let seen = |record: &Record| {
        existing.records.iter().any(|(_, r)| {
            r.commit == record.commit
                && r.machine == record.machine
                && r.target == record.target
                && r.measure == record.measure
                && r.section.context.recorded_at == record.section.context.recorded_at
        })
    };
    let mut records = Vec::new();
    let mut unreadable = Vec::new();
    let commits = store.commits_changing("HEAD", relative)?;
    for id in &commits {
        let commit = store.commit_info(id)?;
        let Ok((file, _)) = rho_baseline::read_at_ref(toplevel, id, Path::new(relative)) else {
            // Deleted in that commit, or a version no rho reads: not a record.
            unreadable.push(crate::analysis::short(id).to_string());
            continue;
        };
        let origin = Origin {
            commit: commit.id.clone(),
            commit_time: commit.time.clone(),
            subject: commit.subject.clone(),
            dirty: false,
            machine: machine.to_string(),
            rho_version: rho_version.to_string(),
        };
        for sections in file.targets.values() {
            records.extend(
                Record::from_sections(sections, &origin)
                    .into_iter()
                    .filter(|r| !seen(r)),
            );
        }
    }
    let added = if records.is_empty() {
        None
    } else {
        let (tip, paths) = store.add(&records)?;
        Some((tip, paths.len()))
    };
    Ok(Imported {
        commits: commits.len(),
        added,
        unreadable,
    })
}
