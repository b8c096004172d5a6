//! rho's temporary directories: removed when dropped and, on Ctrl-C, by the thread that writes them (see
//! [`crate::interrupt`]), so a removal never races a writer.

use std::io;
use std::path::{Path, PathBuf};

use crate::interrupt::{self, CleanupGuard};

/// A temporary directory of rho's own (in the system's temporary directory, its name starting with a prefix
/// of rho's), removed on every exit path: when dropped, on an error, and on Ctrl-C/SIGTERM/SIGHUP. Give a
/// compiler `TMPDIR` inside it (see [`ScratchDir::tmp_dir`]) and a killed compile leaves nothing either.
#[derive(Debug)]
pub struct ScratchDir {
    path: PathBuf,
    cleanup: Option<CleanupGuard>,
}

impl ScratchDir {
    /// A new directory in the system's temporary directory, its name starting with `prefix`.
    pub fn new(prefix: &str) -> io::Result<ScratchDir> {
        let dir = tempfile::Builder::new().prefix(prefix).tempdir()?;
        // From here the directory is the cleanup's to remove (once), not the TempDir's.
        let path = dir.keep();
        let cleanup = {
            let path = path.clone();
            interrupt::on_interrupt(move || remove_tree(&path))
        };
        Ok(ScratchDir {
            path,
            cleanup: Some(cleanup),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Make `DIR/tmp` (created) the `TMPDIR` of every child a [`crate::Runner`] starts from now on in this
    /// process (unless the command sets `TMPDIR` itself), so that what a killed compiler or script leaves in its
    /// temporary directory goes with this one. The first call wins; the directory must outlive the runs.
    pub fn use_as_children_tmpdir(&self) -> io::Result<()> {
        let tmp = self.tmp_dir()?;
        let _ = CHILDREN_TMPDIR.set(tmp);
        Ok(())
    }

    /// `DIR/tmp`, created: the `TMPDIR` to hand a compiler, so that the temporary files of a compile killed by
    /// a timeout or a Ctrl-C (which cannot clean up after itself) go with the directory.
    pub fn tmp_dir(&self) -> io::Result<PathBuf> {
        let tmp = self.path.join("tmp");
        std::fs::create_dir_all(&tmp)?;
        Ok(tmp)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        if let Some(cleanup) = self.cleanup.take() {
            cleanup.run_now();
        }
    }
}

static CHILDREN_TMPDIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// The `TMPDIR` for children set by [`ScratchDir::use_as_children_tmpdir`], if any.
pub(crate) fn children_tmpdir() -> Option<&'static Path> {
    CHILDREN_TMPDIR.get().map(PathBuf::as_path)
}

/// Remove `path` and everything in it. A process killed a moment ago may still be finishing a write into it
/// (the kill is asynchronous), so a removal that fails is tried again a few times.
pub fn remove_tree(path: &Path) {
    for _ in 0..5 {
        match std::fs::remove_dir_all(path) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            _ => return,
        }
    }
}
