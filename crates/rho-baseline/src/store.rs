//! Reading the baseline file from the working tree and writing it atomically.
//!
//! A write goes to a temporary file in the same directory, is flushed to disk, and is then renamed over the
//! baseline (a rename within one file system is atomic), after which the directory is flushed so the rename
//! itself survives a power cut. So at every instant the path holds either the old file or the whole new one:
//! a run that fails, panics or is killed part-way leaves the old baseline as it was (and at most a stray
//! `.baseline.json.*.tmp` file beside it, which a later write does not depend on).
//!
//! Writers of one baseline take turns ([`FileLock`]): a write of one target's section reads the file, merges
//! the section in and renames the result over it under one lock, so concurrent writers of other targets keep
//! their sections.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::format::{BaselineFile, TargetSections};
use crate::lock::FileLock;

/// Reads and validates the baseline at `path`. A file that does not exist is [`Error::Missing`].
pub fn read_file(path: &Path) -> Result<BaselineFile, Error> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(Error::Missing {
                path: path.to_path_buf(),
            });
        }
        Err(e) => {
            return Err(Error::Io {
                path: path.to_path_buf(),
                action: "reading the baseline".to_owned(),
                error: e,
            });
        }
    };
    BaselineFile::parse(&text, &path.display().to_string())
}

/// Records `sections` (one run's, of one target: a section per measure it made) in the baseline at `path`,
/// replacing that target's earlier sections and keeping every other target's, and writes the file atomically
/// (a version 1 file is written back as version 2). Creates the file (and its directory) when there is none.
/// An existing file this rho cannot read (corrupt, or another schema) is refused rather than replaced, since
/// replacing it would throw away the other targets' sections. Another writer of the same file waits until this
/// one has renamed its file in place, and then merges into that.
pub fn write_target(path: &Path, sections: TargetSections) -> Result<BaselineFile, Error> {
    sections.check_figures()?;
    let _lock = FileLock::acquire(path, "the baseline")?;
    let mut file = read_to_record(path)?;
    file.insert(sections);
    file.validate(&path.display().to_string())?;
    write_file_locked(path, &file)?;
    Ok(file)
}

/// Whether a section can be recorded in the baseline at `path`: there is no file yet, or one this rho can
/// read and keep. [`Error::WontOverwrite`] otherwise. `rho bench --write-baseline` asks before running
/// anything, so a corrupt file is refused before minutes of runs rather than after.
pub fn check_recordable(path: &Path) -> Result<(), Error> {
    read_to_record(path).map(|_| ())
}

/// The file a section is recorded into: the existing one, or a new one when there is none.
fn read_to_record(path: &Path) -> Result<BaselineFile, Error> {
    match read_file(path) {
        Ok(file) => Ok(file),
        Err(Error::Missing { .. }) => Ok(BaselineFile::new()),
        Err(reason) => Err(Error::WontOverwrite {
            path: path.to_path_buf(),
            reason: Box::new(reason),
        }),
    }
}

/// Writes `file` to `path` atomically, replacing whatever is there (after any merge in progress).
pub fn write_file(path: &Path, file: &BaselineFile) -> Result<(), Error> {
    let _lock = FileLock::acquire(path, "the baseline")?;
    write_file_locked(path, file)
}

/// [`write_file`] by a caller that holds the file's lock (taking it again would wait on itself).
fn write_file_locked(path: &Path, file: &BaselineFile) -> Result<(), Error> {
    for sections in file.targets.values() {
        sections.check_figures()?;
    }
    write_atomic(path, "the baseline", |out| file.write_json(out))
}

/// Writes `path` atomically with whatever `fill` writes; `what` names the file in messages (`the baseline`,
/// `the Markdown comparison`). If `fill` fails, nothing at `path` changes and the temporary file is removed.
/// A successful write also removes the temporary files of this pattern that killed writers left.
/// Public so rho writes its other files the same way, and tests (here and in other crates) can make a write
/// fail part-way.
pub fn write_atomic<F>(path: &Path, what: &str, fill: F) -> Result<(), Error>
where
    F: FnOnce(&mut io::BufWriter<&fs::File>) -> Result<(), Error>,
{
    let dir = parent_dir(path);
    fs::create_dir_all(&dir).map_err(|error| Error::Io {
        path: dir.clone(),
        action: format!("creating the directory of {what}"),
        error,
    })?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(|error| Error::Io {
            path: dir.clone(),
            action: format!("creating a temporary file for {what}"),
            error,
        })?;
    // Locked while it is written: the next writer removes a temporary file of this pattern only when no live
    // writer holds it (one killed half-way, by SIGKILL or a power cut, holds nothing).
    lock_exclusive(temp.as_file(), false);
    // A failure here (a full disk) names the file being replaced, not the temporary one it never sees.
    {
        let mut out = io::BufWriter::new(temp.as_file());
        fill(&mut out).map_err(|error| match error {
            Error::Serialize { message } => Error::WriteFailed {
                path: path.to_path_buf(),
                what: what.to_owned(),
                message,
            },
            other => other,
        })?;
        out.flush().map_err(|error| Error::Io {
            path: path.to_path_buf(),
            action: format!("writing {what}"),
            error,
        })?;
    }
    temp.as_file().sync_all().map_err(|error| Error::Io {
        path: path.to_path_buf(),
        action: format!("flushing {what} to disk"),
        error,
    })?;
    keep_permissions(path, temp.as_file());
    temp.persist(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        action: format!("putting {what} in place"),
        error: e.error,
    })?;
    remove_stale_temporaries(&dir, &file_name);
    sync_dir(&dir)
}

/// How old a temporary file of a writer that holds no lock on it must be before it is removed: a live writer
/// locks its file a moment after creating it.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

/// Remove the temporary files `.FILE_NAME.*.tmp` in `dir` that writers killed half-way left (no lock held on
/// them, and older than [`STALE_AFTER`]). Best effort: a file that cannot be examined is left alone.
fn remove_stale_temporaries(dir: &Path, file_name: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{file_name}.");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if !name.starts_with(&prefix) || !name.ends_with(".tmp") {
            continue;
        }
        let Ok(file) = fs::File::open(entry.path()) else {
            continue;
        };
        let old_enough = file
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age >= STALE_AFTER);
        if old_enough && lock_exclusive(&file, true) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// flock(LOCK_EX) on `file`, without waiting when `try_only`; whether the lock was taken.
fn lock_exclusive(file: &fs::File, try_only: bool) -> bool {
    use std::os::fd::AsRawFd as _;
    let how = if try_only {
        libc::LOCK_EX | libc::LOCK_NB
    } else {
        libc::LOCK_EX
    };
    // SAFETY: flock(2) on a descriptor that `file` owns for the call; it touches no memory.
    unsafe { libc::flock(file.as_raw_fd(), how) == 0 }
}

/// The directory a file lives in (`.` for a bare file name).
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A temporary file is created private (0600); a baseline is a committed file and keeps the mode the old one
/// had, or gets the usual 0644 when it is new. Best effort: a mode that cannot be set is not worth failing a
/// write over. Public for rho's other atomic writes (`--json FILE`), which replace a file the same way.
pub fn keep_permissions(path: &Path, temp: &fs::File) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(path)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or(0o644);
        let _ = temp.set_permissions(fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    {
        let _ = (path, temp);
    }
}

/// Flushes a directory so a rename in it is durable. Only meaningful (and only possible) on Unix.
fn sync_dir(dir: &Path) -> Result<(), Error> {
    #[cfg(unix)]
    {
        let handle = fs::File::open(dir).map_err(|error| Error::Io {
            path: dir.to_path_buf(),
            action: "opening the directory to flush it".to_owned(),
            error,
        })?;
        handle.sync_all().map_err(|error| Error::Io {
            path: dir.to_path_buf(),
            action: "flushing the directory".to_owned(),
            error,
        })?;
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use crate::fixture;
    use crate::format::Figure;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writing_one_target_keeps_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bench").join("baseline.json");
        write_target(&path, fixture::section("host").into()).unwrap();
        write_target(&path, fixture::section("mps2-an386").into()).unwrap();

        let mut newer = fixture::section("host");
        newer.benchmarks.truncate(1);
        newer.context.recorded_at = "2026-12-03T09:00:00Z".to_string();
        write_target(&path, newer.clone().into()).unwrap();

        let file = read_file(&path).unwrap();
        assert_eq!(
            file.targets.keys().collect::<Vec<_>>(),
            ["host", "mps2-an386"]
        );
        assert_eq!(
            file.targets["host"].time.as_ref(),
            Some(&newer),
            "the host section is replaced whole"
        );
        assert_eq!(
            file.targets["mps2-an386"].time.as_ref(),
            Some(&fixture::section("mps2-an386")),
            "the board's is kept as it was"
        );
        assert_eq!(
            entries(path.parent().unwrap()),
            ["baseline.json"],
            "no temporary file left behind"
        );
    }

    #[test]
    fn rewriting_the_same_section_gives_a_byte_identical_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        write_target(&path, fixture::section("host").into()).unwrap();
        let first = fs::read(&path).unwrap();
        write_target(&path, fixture::section("host").into()).unwrap();
        assert_eq!(fs::read(&path).unwrap(), first);
    }

    #[test]
    fn a_write_failing_part_way_leaves_the_old_file_intact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        write_target(&path, fixture::section("host").into()).unwrap();
        let before = fs::read(&path).unwrap();

        // Half the new file goes out, then the writer fails (as a full disk or a serialiser error would).
        let err = write_atomic(&path, "the baseline", |out| {
            out.write_all(&before[..before.len() / 2]).unwrap();
            out.flush().unwrap();
            Err(Error::Serialize {
                message: "disk full".to_string(),
            })
        })
        .unwrap_err();
        assert!(err.to_string().contains("disk full"));
        assert_eq!(fs::read(&path).unwrap(), before);
        assert_eq!(
            entries(dir.path()),
            ["baseline.json"],
            "the temporary file is removed"
        );
    }

    #[test]
    fn a_figure_that_cannot_be_written_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        write_target(&path, fixture::section("host").into()).unwrap();
        let before = fs::read(&path).unwrap();

        let mut bad = fixture::section("host");
        bad.benchmarks[3].cycles.as_mut().unwrap().median = Figure(f64::NAN);
        let err = write_target(&path, bad.clone().into()).unwrap_err();
        assert!(err.to_string().contains("bench_malloc_free"), "{err}");
        assert_eq!(fs::read(&path).unwrap(), before);

        // Even past the check, the serialiser refuses mid-stream and the old file survives.
        let mut file = read_file(&path).unwrap();
        file.insert(bad.into());
        let err = write_atomic(&path, "the baseline", |out| file.write_json(out)).unwrap_err();
        assert!(err.to_string().contains("not a finite number"), "{err}");
        assert_eq!(fs::read(&path).unwrap(), before);
        assert_eq!(entries(dir.path()), ["baseline.json"]);
    }

    #[test]
    fn a_file_that_cannot_be_read_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        assert!(check_recordable(&path).is_ok(), "no file yet: one is made");
        fs::write(&path, "{ \"schema\": \"rho-baseline/1\", \"targets\": { ").unwrap();
        let err = check_recordable(&path).unwrap_err();
        assert!(err.to_string().contains("refusing to overwrite"), "{err}");
        let err = write_target(&path, fixture::section("host").into()).unwrap_err();
        assert!(err.to_string().contains("refusing to overwrite"), "{err}");
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "{ \"schema\": \"rho-baseline/1\", \"targets\": { "
        );
    }

    /// An error says what was being written, and says its cause once (not again as a source).
    #[test]
    fn a_failed_write_names_what_it_was_writing_and_its_cause_once() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the file should go: the rename fails.
        let path = dir.path().join("comparison.md");
        fs::create_dir(&path).unwrap();
        let err = write_atomic(&path, "the Markdown comparison", |out| {
            out.write_all(b"| a |\n").map_err(|error| Error::Io {
                path: path.clone(),
                action: "writing the Markdown comparison".to_owned(),
                error,
            })
        })
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("the Markdown comparison"), "{text}");
        assert!(!text.contains("baseline"), "{text}");
        assert!(std::error::Error::source(&err).is_none(), "{text}");
        let os_error = text.split(": ").last().unwrap();
        assert_eq!(text.matches(os_error).count(), 1, "{text}");
        assert_eq!(
            entries(dir.path()),
            ["comparison.md"],
            "no temporary file left"
        );
    }

    #[test]
    fn a_missing_file_says_how_to_make_one() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_file(&dir.path().join("nope.json")).unwrap_err();
        assert!(matches!(err, Error::Missing { .. }));
        assert!(err.to_string().contains("--write-baseline"));
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_is_readable_by_everyone_like_any_committed_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        write_target(&path, fixture::section("host").into()).unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o644
        );
    }
}
