//! `rho bench compare`: two runs saved by `--json` compared as `--diff` compares a run with the baseline, and
//! the document `rho bench compare --json` writes of it.

use std::path::Path;

use rho_baseline::Error;
use rho_stats::RunSummary;
use serde::Serialize;

/// The schema of `rho bench compare --json`'s document.
pub const COMPARE_SCHEMA: &str = "rho-bench-compare/1";

/// What `rho bench compare --json` writes: the two files and the comparison, as `--diff --json` carries it.
#[derive(Debug, Serialize)]
pub struct CompareDocument {
    pub schema: &'static str,
    pub rho_version: &'static str,
    pub base_file: String,
    pub head_file: String,
    pub comparison: crate::ComparisonRecord,
}

/// `rho bench compare`'s comparison: the saved runs `base` (read from `base_path`) and `head` each made into
/// sections as a baseline records them, then compared measure by measure with `limits`, as `--diff` judges
/// (a run counted under Valgrind is not judged against a timed one's native stack).
pub fn compare_saved(
    (base, base_path): (&[rho_baseline::saved::SavedSuite], &Path),
    (head, head_path): (&[rho_baseline::saved::SavedSuite], &Path),
    limits: &crate::limits::Limits<'_>,
    rho_version: &str,
) -> Result<crate::Comparison, Error> {
    let in_context = |context: String| {
        move |error: Error| Error::Context {
            context,
            source: Box::new(error),
        }
    };
    let section = |suites: &[rho_baseline::saved::SavedSuite], path: &Path| {
        let recording = rho_baseline::Recording::now(rho_version, Some(path.display().to_string()));
        let parts: Vec<(&str, &RunSummary)> = suites
            .iter()
            .map(|s| (s.what.as_str(), &s.summary))
            .collect();
        rho_baseline::sections_from_summaries(&parts, &recording)
            .map_err(in_context(path.display().to_string()))
    };
    let base_section = section(base, base_path)?;
    let head_section = section(head, head_path)?;
    crate::compare_sections(
        &base_section,
        &head_section,
        limits.global(),
        &|name, metric| limits.for_metric(name, metric),
    )
    .map_err(|refusal| {
        in_context(format!(
            "{} and {} cannot be compared",
            base_path.display(),
            head_path.display()
        ))(refusal.into())
    })
}
