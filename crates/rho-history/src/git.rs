//! The history branch through git's plumbing only: objects are written with `hash-object`, trees built in a
//! temporary index (`GIT_INDEX_FILE`), commits made with `commit-tree`, and the branch moved with
//! `update-ref NEW OLD`, a compare-and-swap. No checkout, no worktree: the user's work tree, index and
//! current branch are never touched. An interrupted write leaves unreferenced objects at most; the branch is
//! at its old commit or its new one.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::error::Error;
use crate::layout::{MARKER, MARKER_TEXT, RECORDS_DIR};
use crate::record::Record;

/// How many times a write is tried when another writer moves the branch in between.
pub const WRITE_ATTEMPTS: u32 = 20;
/// How many times `sync` fetches, merges and pushes before giving up on a remote that keeps moving.
pub const SYNC_ATTEMPTS: u32 = 12;
/// How old the branch's `.lock` file must be to be taken as left behind by a killed git (see
/// `Store::remove_stale_ref_lock`); the write attempts' backoff (about 20 s in all) outlasts it.
pub const STALE_REF_LOCK: Duration = Duration::from_secs(10);

/// The identity history commits are made with (they are rho's, not the user's).
const IDENTITY: [(&str, &str); 4] = [
    ("GIT_AUTHOR_NAME", "rho history"),
    ("GIT_AUTHOR_EMAIL", "rho@history.invalid"),
    ("GIT_COMMITTER_NAME", "rho history"),
    ("GIT_COMMITTER_EMAIL", "rho@history.invalid"),
];

/// A repository and the name of its history branch.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    branch: String,
}

/// One file the branch holds that could not be read as a record, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

/// Everything read from the branch: the records (with their paths) and the files that are not records.
#[derive(Debug, Default)]
pub struct Listing {
    /// The commit the branch was at; `None` when there is no branch.
    pub tip: Option<String>,
    pub records: Vec<(String, Record)>,
    /// The notes (acknowledgements), with their paths.
    pub notes: Vec<(String, crate::note::Note)>,
    pub problems: Vec<Problem>,
}

/// What `sync` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Synced {
    /// The commit both sides are at now.
    pub tip: String,
    /// Attempts it took (1 when nobody else pushed in between).
    pub attempts: u32,
}

impl Store {
    /// The history on `branch` of the repository holding `dir`. The name is checked as git checks branch
    /// names.
    pub fn open(dir: &Path, branch: &str) -> Result<Store, Error> {
        let store = Store {
            dir: dir.to_path_buf(),
            branch: branch.to_string(),
        };
        let valid = !branch.starts_with('-')
            && store
                .git(&["check-ref-format", "--branch", branch], None, &[])
                .is_ok();
        if !valid {
            return Err(Error::Git {
                args: format!("check-ref-format --branch {branch}"),
                message: format!("`{branch}` is not a valid branch name"),
            });
        }
        Ok(store)
    }

    pub fn branch(&self) -> &str {
        &self.branch
    }

    fn full_ref(&self) -> String {
        format!("refs/heads/{}", self.branch)
    }

    /// The branch's commit, or `None` when it does not exist. A branch that is not a history is refused.
    pub fn tip(&self) -> Result<Option<String>, Error> {
        let Some(commit) = self.resolve(&self.full_ref())? else {
            return Ok(None);
        };
        self.check_marker(&commit)?;
        Ok(Some(commit))
    }

    pub(crate) fn resolve(&self, name: &str) -> Result<Option<String>, Error> {
        let output = self.run(
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{name}^{{commit}}"),
            ],
            None,
            &[],
        )?;
        Ok(output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string()))
    }

    /// Refuses `commit` unless its tree has the marker with the marker's text.
    fn check_marker(&self, commit: &str) -> Result<(), Error> {
        let output = self.run(
            &["cat-file", "blob", &format!("{commit}:{MARKER}")],
            None,
            &[],
        )?;
        if output.status.success() && output.stdout == MARKER_TEXT.as_bytes() {
            Ok(())
        } else {
            Err(Error::NotHistory {
                branch: self.branch.clone(),
                commit: commit.get(..12).unwrap_or(commit).to_string(),
                marker: MARKER,
            })
        }
    }

    /// Adds `records` in one commit, each a file of its own ([`crate::layout::record_path`]): the new commit
    /// and the records' paths.
    pub fn add(&self, records: &[Record]) -> Result<(String, Vec<String>), Error> {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut files = Vec::with_capacity(records.len());
        for record in records {
            let path = crate::layout::record_path(record, stamp, crate::layout::random_u64());
            files.push((path, record.to_json()?));
        }
        let message = match records.first() {
            Some(first) => format!(
                "rho history: {} record(s) of {} ({} on {})",
                records.len(),
                first.commit.get(..12).unwrap_or(&first.commit),
                first.target,
                first.machine
            ),
            None => "rho history: start".to_string(),
        };
        let commit = self.append(&files, &message)?;
        Ok((commit, files.into_iter().map(|(p, _)| p).collect()))
    }

    /// Adds `note` as a file of its own, in one commit. Returns the commit and the note's path.
    pub fn note(&self, note: &crate::note::Note) -> Result<(String, String), Error> {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let (kind, message) = match &note.what {
            crate::note::NoteKind::Ack { commit, bench } => (
                "ack",
                format!(
                    "rho history: ack {}{}",
                    commit.get(..12).unwrap_or(commit),
                    bench.as_ref().map_or(String::new(), |b| format!(" of {b}"))
                ),
            ),
            crate::note::NoteKind::Rename { from, to } => {
                ("rename", format!("rho history: rename {from} to {to}"))
            }
        };
        let path = crate::layout::note_path(kind, stamp, crate::layout::random_u64());
        let commit = self.append(&[(path.clone(), note.to_json()?)], &message)?;
        Ok((commit, path))
    }

    /// Adds `files` (path on the branch, content) in one commit and moves the branch to it, retrying when
    /// another writer moved it first. Returns the new commit.
    pub fn append(&self, files: &[(String, String)], message: &str) -> Result<String, Error> {
        let scratch = scratch_dir()?;
        let mut entries = self.write_blobs(scratch.path(), files)?;
        entries.push((MARKER.to_string(), self.write_blob(MARKER_TEXT.as_bytes())?));
        let mut last = String::new();
        for attempt in 0..WRITE_ATTEMPTS {
            let old = self.tip()?;
            let index = scratch.path().join(format!("index-{attempt}"));
            let tree = self.tree_with(&index, old.as_deref(), &entries)?;
            let parents: Vec<&str> = old.iter().map(String::as_str).collect();
            let commit = self.commit_tree(&tree, &parents, message)?;
            match self.move_branch(&commit, old.as_deref())? {
                None => return Ok(commit),
                Some(refusal) => last = refusal,
            }
            backoff(attempt);
        }
        Err(Error::Contended {
            what: format!("adding to branch `{}`", self.branch),
            attempts: WRITE_ATTEMPTS,
            last,
        })
    }

    /// Writes each file's content as a blob: `(path, blob id)`.
    fn write_blobs(
        &self,
        scratch: &Path,
        files: &[(String, String)],
    ) -> Result<Vec<(String, String)>, Error> {
        if files.is_empty() {
            return Ok(Vec::new());
        }
        let mut paths = String::new();
        for (n, (_, content)) in files.iter().enumerate() {
            let path = scratch.join(format!("blob-{n}"));
            std::fs::write(&path, content).map_err(|error| Error::Io {
                action: format!("writing {}", path.display()),
                error,
            })?;
            paths.push_str(&path.display().to_string());
            paths.push('\n');
        }
        let out = self.git(
            &["hash-object", "-w", "--no-filters", "--stdin-paths"],
            Some(paths.as_bytes()),
            &[],
        )?;
        let ids: Vec<String> = String::from_utf8_lossy(&out)
            .lines()
            .map(str::to_string)
            .collect();
        if ids.len() != files.len() {
            return Err(Error::Git {
                args: "hash-object --stdin-paths".to_string(),
                message: format!("wrote {} objects for {} files", ids.len(), files.len()),
            });
        }
        Ok(files.iter().map(|(p, _)| p.clone()).zip(ids).collect())
    }

    fn write_blob(&self, content: &[u8]) -> Result<String, Error> {
        let out = self.git(&["hash-object", "-w", "--stdin"], Some(content), &[])?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// The tree of `base` (none: empty) with `entries` added, built in the temporary index `index`.
    fn tree_with(
        &self,
        index: &Path,
        base: Option<&str>,
        entries: &[(String, String)],
    ) -> Result<String, Error> {
        let index_env = index.display().to_string();
        let env = [("GIT_INDEX_FILE", index_env.as_str())];
        match base {
            Some(commit) => self.git(&["read-tree", commit], None, &env)?,
            None => self.git(&["read-tree", "--empty"], None, &env)?,
        };
        let mut info = Vec::new();
        for (path, blob) in entries {
            info.extend_from_slice(format!("100644 {blob}\t{path}").as_bytes());
            info.push(0);
        }
        self.git(
            &["update-index", "--add", "-z", "--index-info"],
            Some(&info),
            &env,
        )?;
        let tree = self.git(&["write-tree"], None, &env)?;
        Ok(String::from_utf8_lossy(&tree).trim().to_string())
    }

    fn commit_tree(&self, tree: &str, parents: &[&str], message: &str) -> Result<String, Error> {
        let mut args = vec!["commit-tree", tree];
        for parent in parents {
            args.extend(["-p", parent]);
        }
        let out = self.git(&args, Some(message.as_bytes()), &IDENTITY)?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// `update-ref` from `old` (none: the branch must not exist) to `new`. `Some(why)` when the branch was
    /// not at `old` any more.
    ///
    /// An `update-ref` that failed may still have moved the branch: a Ctrl-C reaches git too (it is in rho's
    /// process group), and a git that dies of it after renaming its lock into place reports failure for a move
    /// that happened. Its caller would then write the same files again on top of `new`, two commits for one
    /// add; so a failed move whose branch is at `new` is the success it was.
    fn move_branch(&self, new: &str, old: Option<&str>) -> Result<Option<String>, Error> {
        let zero = "0".repeat(40);
        let old = old.unwrap_or(&zero);
        let full = self.full_ref();
        let output = self.run(
            &["update-ref", "-m", "rho history", &full, new, old],
            None,
            &[],
        )?;
        if output.status.success() || self.tip()?.as_deref() == Some(new) {
            return Ok(None);
        }
        self.remove_stale_ref_lock(&full)?;
        Ok(Some(
            String::from_utf8_lossy(&output.stderr).trim().to_string(),
        ))
    }

    /// Removes the branch's `.lock` file when it is older than [`STALE_REF_LOCK`]: an `update-ref` holds it for
    /// milliseconds, so one that old was left by a git killed outright (SIGKILL, a CI job's timeout, a Ctrl-C
    /// whose clean-up killed git before git's own), and would refuse every later write to the branch for
    /// ever. The next attempt then takes the lock as usual; a younger lock is another writer's, and waited for.
    fn remove_stale_ref_lock(&self, full_ref: &str) -> Result<(), Error> {
        let lock_name = format!("{full_ref}.lock");
        let path = self.git(&["rev-parse", "--git-path", &lock_name], None, &[])?;
        let path = self.dir.join(String::from_utf8_lossy(&path).trim());
        let stale = std::fs::metadata(&path)
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age >= STALE_REF_LOCK);
        if stale {
            // Another writer may have removed it meanwhile; either way it is gone.
            let _ = std::fs::remove_file(&path);
        }
        Ok(())
    }

    /// Every file on the branch: the records, and what cannot be read as one (with its path). No branch:
    /// an empty listing.
    pub fn read(&self) -> Result<Listing, Error> {
        let Some(tip) = self.tip()? else {
            return Ok(Listing::default());
        };
        let tree = self.git(&["ls-tree", "-r", "-z", "--full-tree", &tip], None, &[])?;
        let mut listing = Listing {
            tip: Some(tip),
            ..Listing::default()
        };
        let mut blobs = Vec::new();
        let mut notes = Vec::new();
        for entry in tree.split(|&b| b == 0).filter(|e| !e.is_empty()) {
            let entry = String::from_utf8_lossy(entry);
            let Some((meta, path)) = entry.split_once('\t') else {
                continue;
            };
            let mut fields = meta.split(' ');
            let (kind, id) = (fields.nth(1).unwrap_or(""), fields.next().unwrap_or(""));
            if path == MARKER {
                continue;
            }
            if kind == "blob"
                && path.starts_with(&format!("{}/", crate::layout::NOTES_DIR))
                && path.ends_with(".json")
            {
                notes.push((path.to_string(), id.to_string()));
                continue;
            }
            if kind != "blob"
                || !path.starts_with(&format!("{RECORDS_DIR}/"))
                || !path.ends_with(".json")
            {
                listing.problems.push(Problem {
                    path: path.to_string(),
                    message: "not a record file (records are records/<commit>/<name>.json, notes \
                              notes/<name>.json)"
                        .to_string(),
                });
                continue;
            }
            blobs.push((path.to_string(), id.to_string()));
        }
        let contents = self.cat_blobs(blobs.iter().map(|(_, id)| id.as_str()))?;
        let named: Vec<(String, Vec<u8>)> = blobs
            .into_iter()
            .map(|(path, _)| path)
            .zip(contents)
            .collect();
        for ((path, _), parsed) in named.iter().zip(parse_all(&named)) {
            match parsed {
                Ok(record) => listing.records.push((path.clone(), record)),
                Err(error) => {
                    let message = error.to_string();
                    let message = message
                        .strip_prefix(&format!("{path}: "))
                        .map_or(message.clone(), str::to_string);
                    listing.problems.push(Problem {
                        path: path.clone(),
                        message,
                    });
                }
            }
        }
        let contents = if notes.is_empty() {
            Vec::new()
        } else {
            self.cat_blobs(notes.iter().map(|(_, id)| id.as_str()))?
        };
        for ((path, _), content) in notes.into_iter().zip(contents) {
            let parsed = std::str::from_utf8(&content)
                .map_err(|_| "not UTF-8 text".to_string())
                .and_then(|text| {
                    crate::note::Note::parse(text, &path).map_err(|error| match error {
                        Error::Record { message, .. } => message,
                        other => other.to_string(),
                    })
                });
            match parsed {
                Ok(note) => listing.notes.push((path, note)),
                Err(message) => listing.problems.push(Problem { path, message }),
            }
        }
        Ok(listing)
    }

    /// The contents of blobs `ids`, in order, through one `cat-file --batch`.
    fn cat_blobs<'a>(&self, ids: impl Iterator<Item = &'a str>) -> Result<Vec<Vec<u8>>, Error> {
        let input: String = ids.map(|id| format!("{id}\n")).collect();
        let out = self.git(&["cat-file", "--batch"], Some(input.as_bytes()), &[])?;
        let mut contents = Vec::new();
        let mut rest = out.as_slice();
        while !rest.is_empty() {
            let header_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            let header = String::from_utf8_lossy(&rest[..header_end]).to_string();
            let size: usize = header
                .rsplit(' ')
                .next()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| Error::Git {
                    args: "cat-file --batch".to_string(),
                    message: format!("unexpected header `{header}`"),
                })?;
            let start = header_end + 1;
            let end = start + size;
            if end > rest.len() {
                return Err(Error::Git {
                    args: "cat-file --batch".to_string(),
                    message: "output ended inside an object".to_string(),
                });
            }
            contents.push(rest[start..end].to_vec());
            rest = rest.get(end + 1..).unwrap_or(&[]);
        }
        Ok(contents)
    }

    /// Fetches `remote`'s history branch, merges it with the local one (a union of files: records are
    /// distinct paths) and pushes the result, retrying with backoff when the remote moved in between.
    pub fn sync(&self, remote: &str) -> Result<Synced, Error> {
        if remote.starts_with('-') {
            return Err(Error::Git {
                args: format!("fetch {remote}"),
                message: format!("`{remote}` is not a remote"),
            });
        }
        let scratch_ref = format!(
            "refs/rho-history-sync/{}-{:08x}",
            std::process::id(),
            crate::layout::random_u64() as u32
        );
        let outcome = self.sync_attempts(remote, &scratch_ref);
        // The scratch ref is ours alone; a failure to delete it leaves a harmless ref behind.
        let _ = self.run(&["update-ref", "-d", &scratch_ref], None, &[]);
        outcome
    }

    fn sync_attempts(&self, remote: &str, scratch_ref: &str) -> Result<Synced, Error> {
        let mut last = String::new();
        for attempt in 0..SYNC_ATTEMPTS {
            let theirs = self.fetch(remote, scratch_ref)?;
            if let Some(theirs) = &theirs {
                self.check_marker(theirs)?;
            }
            let ours = self.merge_into_branch(theirs.as_deref())?;
            let Some(ours) = ours else {
                return Err(Error::Git {
                    args: format!("sync {remote}"),
                    message: format!("there is no `{}` branch here or on {remote}", self.branch),
                });
            };
            if theirs.as_deref() == Some(ours.as_str()) {
                return Ok(Synced {
                    tip: ours,
                    attempts: attempt + 1,
                });
            }
            let target = format!("{ours}:{}", self.full_ref());
            let pushed = self.run(&["push", "--quiet", remote, &target], None, &[])?;
            if pushed.status.success() {
                return Ok(Synced {
                    tip: ours,
                    attempts: attempt + 1,
                });
            }
            last = String::from_utf8_lossy(&pushed.stderr).trim().to_string();
            backoff(attempt);
        }
        Err(Error::Contended {
            what: format!("syncing `{}` with {remote}", self.branch),
            attempts: SYNC_ATTEMPTS,
            last,
        })
    }

    /// The remote's history commit (fetched into `scratch_ref`), `None` when the remote has no such branch.
    fn fetch(&self, remote: &str, scratch_ref: &str) -> Result<Option<String>, Error> {
        let listed = self.git(
            &["ls-remote", "--heads", remote, &self.full_ref()],
            None,
            &[],
        )?;
        if String::from_utf8_lossy(&listed).trim().is_empty() {
            return Ok(None);
        }
        let spec = format!("+{}:{scratch_ref}", self.full_ref());
        self.git(&["fetch", "--quiet", "--no-tags", remote, &spec], None, &[])?;
        self.resolve(scratch_ref)
    }

    /// Moves the local branch to the union of itself and `theirs` (fast-forward when one contains the other,
    /// else a merge commit of the two trees' files). Returns the local branch's commit afterwards.
    fn merge_into_branch(&self, theirs: Option<&str>) -> Result<Option<String>, Error> {
        let scratch = scratch_dir()?;
        for attempt in 0..WRITE_ATTEMPTS {
            let ours = self.tip()?;
            let new = match (ours.as_deref(), theirs) {
                (None, None) => return Ok(None),
                (Some(ours), None) => return Ok(Some(ours.to_string())),
                (None, Some(theirs)) => theirs.to_string(),
                (Some(ours), Some(theirs)) => {
                    if self.is_ancestor(theirs, ours)? {
                        return Ok(Some(ours.to_string()));
                    }
                    if self.is_ancestor(ours, theirs)? {
                        theirs.to_string()
                    } else {
                        let entries = self.files_of(theirs)?;
                        let index = scratch.path().join(format!("index-{attempt}"));
                        let tree = self.tree_with(&index, Some(ours), &entries)?;
                        self.commit_tree(
                            &tree,
                            &[ours, theirs],
                            "rho history: sync (union of records)",
                        )?
                    }
                }
            };
            if self.move_branch(&new, ours.as_deref())?.is_none() {
                return Ok(Some(new));
            }
            backoff(attempt);
        }
        Err(Error::Contended {
            what: format!("merging into branch `{}`", self.branch),
            attempts: WRITE_ATTEMPTS,
            last: "the branch kept moving".to_string(),
        })
    }

    fn is_ancestor(&self, ancestor: &str, of: &str) -> Result<bool, Error> {
        let output = self.run(&["merge-base", "--is-ancestor", ancestor, of], None, &[])?;
        match output.status.code() {
            Some(0) => Ok(true),
            Some(1) => Ok(false),
            _ => Err(Error::Git {
                args: format!("merge-base --is-ancestor {ancestor} {of}"),
                message: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            }),
        }
    }

    /// `(path, blob id)` of every file of `commit`'s tree.
    fn files_of(&self, commit: &str) -> Result<Vec<(String, String)>, Error> {
        let tree = self.git(&["ls-tree", "-r", "-z", "--full-tree", commit], None, &[])?;
        Ok(tree
            .split(|&b| b == 0)
            .filter_map(|entry| {
                let entry = String::from_utf8_lossy(entry);
                let (meta, path) = entry.split_once('\t')?;
                let id = meta.split(' ').nth(2)?;
                Some((path.to_string(), id.to_string()))
            })
            .collect())
    }

    /// Runs git and returns its stdout; a failure is an error with its stderr.
    pub(crate) fn git(
        &self,
        args: &[&str],
        stdin: Option<&[u8]>,
        env: &[(&str, &str)],
    ) -> Result<Vec<u8>, Error> {
        let output = self.run(args, stdin, env)?;
        if output.status.success() {
            Ok(output.stdout)
        } else {
            Err(Error::Git {
                args: args.join(" "),
                message: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            })
        }
    }

    pub(crate) fn run(
        &self,
        args: &[&str],
        stdin: Option<&[u8]>,
        env: &[(&str, &str)],
    ) -> Result<std::process::Output, Error> {
        let mut command = Command::new("git");
        command
            .arg("-C")
            .arg(&self.dir)
            .args(args)
            .envs(env.iter().copied())
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().map_err(Error::Spawn)?;
        // Written from a thread: git may fill its stdout pipe before it has read all of its input.
        let writer = match (stdin, child.stdin.take()) {
            (Some(input), Some(mut pipe)) => {
                let input = input.to_vec();
                Some(std::thread::spawn(move || pipe.write_all(&input)))
            }
            _ => None,
        };
        let output = child.wait_with_output().map_err(|error| Error::Io {
            action: format!("running git {}", args.join(" ")),
            error,
        })?;
        if let Some(writer) = writer {
            // git exits early on bad input: its status says why, not the broken pipe.
            let _ = writer.join();
        }
        Ok(output)
    }
}

/// Every blob (its path, its content) parsed as a record, in order, on as many threads as there are cores:
/// parsing and checking is most of the time a read takes.
fn parse_all(blobs: &[(String, Vec<u8>)]) -> Vec<Result<Record, Error>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = blobs.len().div_ceil(threads).max(64);
    let parse = |(path, content): &(String, Vec<u8>)| -> Result<Record, Error> {
        let text = std::str::from_utf8(content).map_err(|_| Error::Record {
            path: path.clone(),
            message: "not UTF-8 text".to_string(),
        })?;
        Record::parse(text, path)
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = blobs
            .chunks(chunk)
            .map(|part| {
                (
                    part,
                    scope.spawn(move || part.iter().map(parse).collect::<Vec<_>>()),
                )
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|(part, handle)| {
                handle.join().unwrap_or_else(|_| {
                    part.iter()
                        .map(|(path, _)| {
                            Err(Error::Record {
                                path: path.clone(),
                                message: "reading it failed unexpectedly".to_string(),
                            })
                        })
                        .collect()
                })
            })
            .collect()
    })
}

fn scratch_dir() -> Result<tempfile::TempDir, Error> {
    tempfile::Builder::new()
        .prefix("rho-history-")
        .tempdir()
        .map_err(|error| Error::Io {
            action: "creating a temporary directory".to_string(),
            error,
        })
}

/// Sleeps before attempt `attempt + 1`: 20 ms doubling to at most 1.3 s, plus up to as much again at random so
/// writers that collided do not collide again in step.
fn backoff(attempt: u32) {
    let base = 20u64 << attempt.min(6);
    let jitter = crate::layout::random_u64() % base.max(1);
    std::thread::sleep(Duration::from_millis(base + jitter));
}
