//! The baseline work a run was asked for, checked before the run: `--write-baseline`, `--diff REF` and its
//! `--markdown FILE`. A ref that does not exist, a baseline missing there, another schema or corrupt JSON stop
//! the command before minutes are spent running suites. After the run, the run's section is built
//! ([`run_section`]), compared ([`Plan::compare`]) and recorded ([`Plan::record`]); the caller prints.

use std::path::{Path, PathBuf};

use rho_config::ModuleConfig;

use rho_stats::RunSummary;

use crate::Comparison;
use crate::limits::Limits;
use rho_baseline::Recording;
use rho_baseline::error::Error;
use rho_baseline::format::{BaselineFile, TargetSections};
use rho_baseline::git::RefSource;

/// What was asked: record the run, compare it with the baseline at a git ref, write the comparison as
/// Markdown.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub write: bool,
    pub diff: Option<String>,
    pub markdown: Option<PathBuf>,
}

/// What to do after the run, with the baseline already read.
#[derive(Debug)]
pub struct Plan {
    /// The baseline file in the working tree (for `--write-baseline`).
    pub path: PathBuf,
    pub write: bool,
    /// The baseline at the ref (for `--diff`) and where it came from.
    pub base: Option<(BaselineFile, RefSource)>,
    pub markdown: Option<PathBuf>,
}

impl Plan {
    /// Whether there is anything to do after the run.
    pub fn active(&self) -> bool {
        self.write || self.base.is_some()
    }
}

/// Reads the baseline at `--diff REF` (through git, never touching the working tree). `root` is the module
/// root (the baseline path is relative to it), `config` the module's configuration when there is one, and
/// `target` the target the run's streams will name when that is known before running (a built-in target).
///
/// Everything that would refuse the baseline work after the run is checked here, before it: the ref, the
/// file at the ref, its section for `target`, and for `--write-baseline` an existing file this rho cannot
/// read and keep.
pub fn prepare(
    request: &Request,
    root: &Path,
    config: Option<&ModuleConfig>,
    target: Option<&str>,
) -> Result<Plan, Error> {
    if request.markdown.is_some() && request.diff.is_none() {
        return Err(Error::MarkdownWithoutDiff);
    }
    let path = match config {
        Some(config) => config.baseline_path(),
        None => root.join(rho_config::DEFAULT_BASELINE),
    };
    // `path` is relative to the current directory (module.yml's root resolved), not to `root`: absolute, so
    // git, run in `root`, finds the same file.
    let in_repo = std::path::absolute(&path).map_err(|source| Error::Resolve {
        path: path.clone(),
        source,
    })?;
    let base = match &request.diff {
        Some(git_ref) => {
            let (file, source) = rho_baseline::read_at_ref(root, git_ref, &in_repo)?;
            if let Some(target) = target {
                rho_baseline::check_section(&file, &source.describe(), target)?;
            }
            Some((file, source))
        }
        None => None,
    };
    if request.write {
        rho_baseline::check_recordable(&path)?;
    }
    Ok(Plan {
        path,
        write: request.write,
        base,
        markdown: request.markdown.clone(),
    })
}

/// The outcome of the baseline work after a run.
#[derive(Debug, Default)]
pub struct Finished {
    /// The comparison, when `--diff` was given.
    pub comparison: Option<Comparison>,
    /// Where the base came from (`bench/baseline.json at origin/main (...)`), with a comparison.
    pub base_name: String,
    /// The same as `--json` carries it.
    pub record: Option<crate::ComparisonRecord>,
}

impl Finished {
    /// The comparison and where its base came from, for the HTML page.
    pub fn diff(&self) -> Option<(&Comparison, &str)> {
        self.comparison
            .as_ref()
            .map(|comparison| (comparison, self.base_name.as_str()))
    }

    /// Whether a metric regressed or lost its measurement (`check` exits 1).
    pub fn failed(&self) -> bool {
        self.comparison.as_ref().is_some_and(Comparison::failed)
    }
}

/// The target whose section this run records or compares: the one asked for when a suite's stream names it
/// (the harness's `@target` may differ from module.yml's name for a board of one's own), else the one most
/// suites ran on, the first of equals.
pub fn primary_target<'a>(
    selected: &'a str,
    summaries: &'a [(String, rho_stats::RunSummary)],
) -> &'a str {
    if summaries.iter().any(|(_, s)| s.target.name == selected) {
        return selected;
    }
    let mut best: Option<(&str, usize)> = None;
    for (_, summary) in summaries {
        let name = summary.target.name.as_str();
        let count = summaries
            .iter()
            .filter(|(_, s)| s.target.name == name)
            .count();
        if best.is_none_or(|(_, most)| count > most) {
            best = Some((name, count));
        }
    }
    best.map_or(selected, |(name, _)| name)
}

/// This run's part of the baseline: the suites that ran on the primary target, as one section.
#[derive(Debug)]
pub struct RunSection<'a> {
    /// The target the section is of ([`primary_target`]).
    pub primary: &'a str,
    /// The suites in the section, each with what it was.
    pub parts: Vec<(&'a str, &'a RunSummary)>,
    /// The suites left out, with the target they ran on: a command suite runs on the host whatever the
    /// target, and its figures belong to the host's section (which `--target host` records and compares).
    pub left_out: Vec<(&'a str, &'a str)>,
    pub section: TargetSections,
}

/// Builds this run's section of the baseline from `summaries` (each suite's, in order); `selected` is the
/// target asked for (module.yml's name).
pub fn run_section<'a>(
    selected: &'a str,
    summaries: &'a [(String, RunSummary)],
    recording: &Recording,
) -> Result<RunSection<'a>, Error> {
    let primary = primary_target(selected, summaries);
    let mut parts = Vec::new();
    let mut left_out = Vec::new();
    for (what, summary) in summaries {
        if summary.target.name == primary {
            parts.push((what.as_str(), summary));
        } else {
            left_out.push((what.as_str(), summary.target.name.as_str()));
        }
    }
    let section = rho_baseline::sections_from_summaries(&parts, recording)?;
    Ok(RunSection {
        primary,
        parts,
        left_out,
        section,
    })
}

impl Plan {
    /// Compares this run's `section` with the baseline at the ref (`--diff`), with module.yml's limits
    /// (`config`): the comparison and where its base came from, or `None` without `--diff`.
    pub fn compare(
        &self,
        config: Option<&ModuleConfig>,
        section: &TargetSections,
    ) -> Result<Option<(Comparison, String)>, Error> {
        let Some((base, source)) = &self.base else {
            return Ok(None);
        };
        let limits = Limits::of(config);
        let base_name = source.describe();
        let comparison = crate::diff_with(
            base,
            &base_name,
            section,
            limits.global(),
            &|name, metric| limits.for_metric(name, metric),
        )?;
        Ok(Some((comparison, base_name)))
    }

    /// Records `section` as its target's section of the baseline file (`--write-baseline`), keeping the
    /// other targets'; returns the line that says so.
    pub fn record(&self, section: TargetSections, primary: &str) -> Result<String, Error> {
        let target = section.target().unwrap_or(primary).to_string();
        let count = section
            .iter()
            .map(|s| s.benchmarks.len())
            .max()
            .unwrap_or(0);
        let measures: Vec<&str> = [
            section.time.as_ref().map(|_| "time"),
            section.instructions.as_ref().map(|_| "instructions"),
        ]
        .into_iter()
        .flatten()
        .collect();
        rho_baseline::write_target(&self.path, section)?;
        Ok(format!(
            "baseline: recorded {count} benchmark(s) of target {target} ({}) in {} (other targets kept); \
             commit it",
            measures.join(" and "),
            self.path.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_without_diff_is_refused_before_anything_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let request = Request {
            markdown: Some(PathBuf::from("diff.md")),
            ..Request::default()
        };
        let error = prepare(&request, dir.path(), None, None).unwrap_err();
        assert!(error.to_string().ends_with("give --diff REF"), "{error}");
        let nothing = prepare(&Request::default(), dir.path(), None, None).unwrap();
        assert!(!nothing.active());
    }
}
