//! One writer at a time for a file rho merges into (the baseline; later the history branch's local refs).
//!
//! An atomic rename keeps a file whole, but a writer that reads the file, merges its part in and renames a new
//! file over it loses whatever another writer renamed in between: two `rho bench --write-baseline` runs for
//! different targets into one file kept only one of the two sections. So a merge holds [`FileLock`] across its
//! read, merge and rename.
//!
//! The lock is `flock(LOCK_EX)` on a lock file beside the guarded one (`.baseline.json.lock` for
//! `baseline.json`). The holder removes the lock file before it lets go, so nothing is left in the user's tree
//! once every writer is done; a writer that waited on the removed file sees it is no longer the one at the path
//! and locks again. A writer killed while holding the lock leaves the file behind, unlocked (the kernel drops
//! the lock with the process): the next writer locks it and removes it.

use std::fs;
use std::io;
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use crate::error::Error;

/// An exclusive lock on the right to replace one file, held until dropped.
#[derive(Debug)]
pub struct FileLock {
    path: PathBuf,
    /// Never read, only kept open: the lock lives as long as this descriptor.
    _held: fs::File,
}

impl FileLock {
    /// Waits until no other writer (thread or process) holds the lock of `guarded` and takes it. `what` names
    /// the guarded file in messages (`the baseline`).
    pub fn acquire(guarded: &Path, what: &str) -> Result<FileLock, Error> {
        let path = lock_path(guarded);
        let io_error = |action: &str, error: io::Error| Error::Io {
            path: path.clone(),
            action: format!("{action} (the lock that keeps two writers of {what} apart)"),
            error,
        };
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|error| Error::Io {
                path: dir.to_path_buf(),
                action: format!("creating the directory of {what}"),
                error,
            })?;
        }
        loop {
            let file = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|error| io_error("opening", error))?;
            flock_exclusive(&file).map_err(|error| io_error("locking", error))?;
            // The writer before us may have removed the file while we waited on it: a lock on a file no longer
            // at the path keeps nobody out, so lock the one that is there now.
            let held = file
                .metadata()
                .map_err(|error| io_error("examining", error))?;
            match fs::metadata(&path) {
                Ok(now) if now.dev() == held.dev() && now.ino() == held.ino() => {
                    return Ok(FileLock { path, _held: file });
                }
                Ok(_) => continue,
                Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
                Err(error) => return Err(io_error("examining", error)),
            }
        }
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Removed while still locked, then unlocked when `_held` closes: a waiter finds its file gone and locks
        // afresh. Best effort: a lock file left behind only costs the next writer a removal.
        let _ = fs::remove_file(&self.path);
    }
}

/// The lock file of `guarded`: `.NAME.lock` in the same directory.
pub fn lock_path(guarded: &Path) -> PathBuf {
    let name = guarded
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lock_name = format!(".{name}.lock");
    match guarded.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.join(lock_name),
        _ => PathBuf::from(lock_name),
    }
}

/// flock(LOCK_EX), waiting; a signal that interrupts the wait (a Ctrl-C handler's) does not end it.
fn flock_exclusive(file: &fs::File) -> io::Result<()> {
    loop {
        // SAFETY: flock(2) on a descriptor that `file` owns for the call; it touches no memory.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_file_sits_beside_the_guarded_one_and_goes_with_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let guarded = dir.path().join("bench").join("baseline.json");
        assert_eq!(
            lock_path(&guarded),
            dir.path().join("bench").join(".baseline.json.lock")
        );
        assert_eq!(
            lock_path(Path::new("baseline.json")),
            PathBuf::from(".baseline.json.lock")
        );
        let lock = FileLock::acquire(&guarded, "the baseline").unwrap();
        assert!(lock.path().exists());
        drop(lock);
        assert!(!lock_path(&guarded).exists(), "nothing left behind");
    }

    /// Threads each take the lock (each its own descriptor, so flock keeps them apart as it does processes)
    /// and check nobody else is inside.
    #[test]
    fn one_holder_at_a_time() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let dir = tempfile::tempdir().unwrap();
        let guarded = dir.path().join("baseline.json");
        let inside = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..50 {
                        let _lock = FileLock::acquire(&guarded, "the baseline").unwrap();
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), 1);
        assert!(!lock_path(&guarded).exists());
    }

    /// A lock file a killed holder left (no lock on it any more) is taken and removed.
    #[test]
    fn a_left_over_lock_file_is_taken_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let guarded = dir.path().join("baseline.json");
        fs::write(lock_path(&guarded), b"").unwrap();
        drop(FileLock::acquire(&guarded, "the baseline").unwrap());
        assert!(!lock_path(&guarded).exists());
    }
}
