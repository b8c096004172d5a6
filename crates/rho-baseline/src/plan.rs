//! The baseline work a run was asked for, checked before the run: `--write-baseline`, `--diff REF` and its
//! `--markdown FILE`. A ref that does not exist, a baseline missing there, another schema or corrupt JSON stop
//! the command before minutes are spent running suites.

use std::path::{Path, PathBuf};

use rho_config::ModuleConfig;

use crate::error::Error;
use crate::format::BaselineFile;
use crate::git::RefSource;

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
            let (file, source) = crate::read_at_ref(root, git_ref, &in_repo)?;
            if let Some(target) = target {
                crate::check_section(&file, &source.describe(), target)?;
            }
            Some((file, source))
        }
        None => None,
    };
    if request.write {
        crate::check_recordable(&path)?;
    }
    Ok(Plan {
        path,
        write: request.write,
        base,
        markdown: request.markdown.clone(),
    })
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
