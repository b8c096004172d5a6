//! The project's own commits, as the history needs them: a commit's id, time and subject, the first-parent
//! line of a branch, whether the work tree is dirty, and the commits that changed a file.

use crate::analysis::Commit;
use crate::error::Error;
use crate::git::Store;

/// A commit as a record names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub id: String,
    /// Committer time, UTC, RFC 3339.
    pub time: String,
    pub subject: String,
}

impl Store {
    /// The commit `rev` names; an error naming `rev` when it names none.
    pub fn commit_info(&self, rev: &str) -> Result<CommitInfo, Error> {
        let not_found = || Error::Git {
            args: format!("rev-parse {rev}"),
            message: format!("`{rev}` is not a commit of this repository"),
        };
        if rev.is_empty() || rev.starts_with('-') {
            return Err(not_found());
        }
        let id = self.resolve(rev)?.ok_or_else(not_found)?;
        let shown = self.git(&["show", "-s", "--format=%ct%n%s", &id], None, &[])?;
        let shown = String::from_utf8_lossy(&shown);
        let mut lines = shown.lines();
        let seconds: u64 = lines
            .next()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        Ok(CommitInfo {
            id,
            time: rho_baseline::record::rfc3339_utc(seconds),
            subject: lines.next().unwrap_or("").to_string(),
        })
    }

    /// The first-parent line ending at `rev`, oldest first; with `since`, only from that commit (a commit on
    /// the line, itself included) or that date (`2026-11-01`, `2.weeks.ago`: as git reads `--since`) on.
    pub fn first_parent_line(&self, rev: &str, since: Option<&str>) -> Result<Vec<Commit>, Error> {
        let tip = self.commit_info(rev)?.id;
        let mut args = vec![
            "rev-list".to_string(),
            "--first-parent".to_string(),
            "--reverse".to_string(),
            "--format=%s".to_string(),
        ];
        let since_commit = match since {
            Some(since) if !since.starts_with('-') => match self.resolve(since)? {
                Some(commit) => Some(commit),
                None => {
                    args.push(format!("--since={since}"));
                    None
                }
            },
            Some(since) => {
                return Err(Error::Git {
                    args: format!("rev-list --since {since}"),
                    message: format!("`{since}` is neither a commit nor a date"),
                });
            }
            None => None,
        };
        args.push(tip);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.git(&refs, None, &[])?;
        let text = String::from_utf8_lossy(&out);
        let mut commits = Vec::new();
        let mut lines = text.lines();
        while let Some(header) = lines.next() {
            let Some(id) = header.strip_prefix("commit ") else {
                continue;
            };
            commits.push(Commit {
                id: id.trim().to_string(),
                subject: lines.next().unwrap_or("").to_string(),
            });
        }
        if let Some(since) = since_commit {
            let start = commits
                .iter()
                .position(|c| c.id == since)
                .ok_or_else(|| Error::Git {
                    args: format!("rev-list --first-parent {rev}"),
                    message: format!(
                        "--since {}: that commit is not on the first-parent line of {rev}",
                        &since[..12.min(since.len())]
                    ),
                })?;
            commits.drain(..start);
        }
        Ok(commits)
    }

    /// Whether a tracked file differs from HEAD in the work tree or the index (untracked files do not count:
    /// the saved run being added is one).
    pub fn work_tree_dirty(&self) -> Result<bool, Error> {
        let out = self.git(
            &["status", "--porcelain", "--untracked-files=no"],
            None,
            &[],
        )?;
        Ok(!out.is_empty())
    }

    /// The commits of `rev`'s first-parent line that changed `path` (relative to the top level), oldest
    /// first.
    pub fn commits_changing(&self, rev: &str, path: &str) -> Result<Vec<String>, Error> {
        let tip = self.commit_info(rev)?.id;
        let out = self.git(
            &[
                "log",
                "--first-parent",
                "--reverse",
                "--format=%H",
                &tip,
                "--",
                path,
            ],
            None,
            &[],
        )?;
        Ok(String::from_utf8_lossy(&out)
            .lines()
            .map(str::to_string)
            .collect())
    }

    /// The top level of the repository.
    pub fn toplevel(&self) -> Result<std::path::PathBuf, Error> {
        let out = self.git(&["rev-parse", "--show-toplevel"], None, &[])?;
        Ok(std::path::PathBuf::from(
            String::from_utf8_lossy(&out).trim(),
        ))
    }
}
