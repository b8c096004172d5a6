//! Git's object id of a file's bytes, for the build cache's records of what a build read (crate::inputs),
//! remembered between gates by what `stat` says of each file.
//!
//! A compile reads about 43 MB, most of it the compiler's own programs and libraries, which do not change
//! between gates: hashing them all again, once when a side's build is checked against its cached record and
//! once when a build is stored, was a tenth of a second of CPU a gate and a third of rho's own. So each id is
//! kept in the cache's `file-ids` beside the file's device, inode, size and modification and change times, and
//! used again only while all five are the same. The change time cannot be set back (`touch` sets the
//! modification time only), so an edit shows in it; an edit within the same tick of the file system's clock as
//! the stamp does not, which is why a file whose times are within [`RACY_WINDOW`] of the moment it was hashed is not
//! remembered at all (git's racily clean entries, the same way round).

use std::collections::HashMap;
use std::io::Read as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::cache::FILE_IDS;

/// How new a file's times may be for its bytes to change again unseen: an edit within the same tick of the file
/// system's clock leaves them as they were. Two seconds: a file system stamping whole seconds, plus one (and a
/// small skew between a network file system's clock and this machine's).
pub(crate) const RACY_WINDOW: std::time::Duration = std::time::Duration::from_secs(2);

/// The first line of the file: another layout is read as empty.
const FORMAT: &str = "rho-file-ids 1";

/// What `stat` says of a file, as far as its bytes go: device, inode, size, and modification and change times
/// in nanoseconds (a change time cannot be set back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStamp {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime: i128,
    pub ctime: i128,
}

impl FileStamp {
    pub(crate) fn of(meta: &std::fs::Metadata) -> FileStamp {
        let nanos = |s: i64, ns: i64| i128::from(s) * 1_000_000_000 + i128::from(ns);
        FileStamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.len(),
            mtime: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime: nanos(meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Whether either time is within [`RACY_WINDOW`] of `when` or after it: the file may change again within
    /// the same tick of the file system's clock without its times showing it.
    pub(crate) fn as_new_as(&self, when: SystemTime) -> bool {
        let when = when
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX));
        let since = when - RACY_WINDOW.as_nanos() as i128;
        self.mtime >= since || self.ctime >= since
    }
}

/// Ids known from earlier gates, read from (and written back to) a cache's `file-ids`.
#[derive(Debug, Default)]
pub(crate) struct FileIds {
    file: Option<PathBuf>,
    known: HashMap<PathBuf, (FileStamp, String)>,
    changed: bool,
}

impl FileIds {
    /// No memory: every id is computed.
    pub(crate) fn none() -> FileIds {
        FileIds::default()
    }

    /// The ids kept in `dir`'s `file-ids` (none when it is missing or unreadable: they are computed again).
    pub(crate) fn in_dir(dir: &Path) -> FileIds {
        let file = dir.join(FILE_IDS);
        let mut known = HashMap::new();
        if let Ok(text) = std::fs::read_to_string(&file)
            && let Some(body) = text.strip_prefix(FORMAT).and_then(|t| t.strip_prefix('\n'))
        {
            for line in body.lines() {
                if let Some((path, entry)) = parse_line(line) {
                    known.insert(path, entry);
                }
            }
        }
        FileIds {
            file: Some(file),
            known,
            changed: false,
        }
    }

    /// Git's object id of each file's bytes (what `git hash-object --no-filters` prints), in order; `None` for
    /// a path that is not a file that can be read.
    pub(crate) fn ids(&mut self, paths: &[PathBuf]) -> Vec<Option<String>> {
        paths.iter().map(|path| self.id(path)).collect()
    }

    fn id(&mut self, path: &Path) -> Option<String> {
        let meta = std::fs::metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)?;
        let stamp = FileStamp::of(&meta);
        if let Some((known, id)) = self.known.get(path)
            && *known == stamp
        {
            return Some(id.clone());
        }
        let hashed_at = SystemTime::now();
        let (id, read) = blob_id(path)?;
        if read == stamp && !read.as_new_as(hashed_at) && self.file.is_some() {
            self.known.insert(path.to_path_buf(), (read, id.clone()));
            self.changed = true;
        } else if self.known.remove(path).is_some() {
            self.changed = true;
        }
        Some(id)
    }

    /// Write the ids back when any was added or dropped (a temporary file renamed into place: a gate killed
    /// meanwhile, or two gates at once, leave a whole file, the last one's). A failure to write only costs the
    /// next gate the hashing.
    pub(crate) fn save(self) {
        let Some(file) = self.file.filter(|_| self.changed) else {
            return;
        };
        let mut text = String::with_capacity(FORMAT.len() + 1 + self.known.len() * 160);
        text.push_str(FORMAT);
        text.push('\n');
        let mut lines: Vec<String> = self
            .known
            .iter()
            .filter_map(|(path, (s, id))| {
                let path = path.to_str()?;
                (!path.contains('\n')).then(|| {
                    format!(
                        "{id} {} {} {} {} {} {path}",
                        s.dev, s.ino, s.size, s.mtime, s.ctime
                    )
                })
            })
            .collect();
        lines.sort();
        for line in lines {
            text.push_str(&line);
            text.push('\n');
        }
        let Some(dir) = file.parent() else { return };
        if let Ok(mut temporary) = tempfile::Builder::new()
            .prefix("tmp-file-ids-")
            .tempfile_in(dir)
        {
            use std::io::Write as _;
            if temporary.write_all(text.as_bytes()).is_ok() {
                let _ = temporary.persist(&file);
            }
        }
    }
}

/// `ID DEV INO SIZE MTIME CTIME PATH`, or `None` for a line that is not one.
fn parse_line(line: &str) -> Option<(PathBuf, (FileStamp, String))> {
    let mut fields = line.splitn(7, ' ');
    let id = fields.next()?;
    if id.len() != 40 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let stamp = FileStamp {
        dev: fields.next()?.parse().ok()?,
        ino: fields.next()?.parse().ok()?,
        size: fields.next()?.parse().ok()?,
        mtime: fields.next()?.parse().ok()?,
        ctime: fields.next()?.parse().ok()?,
    };
    let path = PathBuf::from(fields.next()?);
    path.is_absolute().then(|| (path, (stamp, id.to_owned())))
}

/// Git's object id of the file at `path` (SHA-1 of `blob LEN\0` and the bytes), read in pieces, and what
/// `stat` said of the file it read; `None` when it is not a file that can be read. The `sha1` crate uses the
/// CPU's SHA instructions where it has them (git's collision-detecting SHA-1 took 0.16 s over a compile's
/// inputs).
fn blob_id(path: &Path) -> Option<(String, FileStamp)> {
    use sha1::{Digest as _, Sha1};
    let mut file = std::fs::File::open(path).ok()?;
    let before = FileStamp::of(&file.metadata().ok().filter(std::fs::Metadata::is_file)?);
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", before.size).as_bytes());
    let mut buffer = vec![0u8; 256 * 1024];
    let mut read = 0u64;
    loop {
        match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&buffer[..n]);
                read += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    let after = FileStamp::of(&file.metadata().ok()?);
    // The header holds the length before the read: a file that changed meanwhile is read whole instead, so
    // its id is at least the id of some bytes it held (and it is not remembered: `after` differs).
    if read != before.size || after != before {
        let bytes = std::fs::read(path).ok()?;
        let mut hasher = Sha1::new();
        hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
        hasher.update(&bytes);
        return Some((hex(&hasher.finalize()), after));
    }
    Some((hex(&hasher.finalize()), before))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut id = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(id, "{byte:02x}");
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_id(path: &Path) -> String {
        let out = std::process::Command::new("git")
            .args(["hash-object", "--no-filters"])
            .arg(path)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    /// Set a file's modification time into the past; its change time is now, so it is not remembered.
    fn age(path: &Path) {
        let old = SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }

    #[test]
    fn a_file_s_id_is_git_s_object_id_of_its_bytes_whatever_its_size() {
        let tmp = tempfile::tempdir().unwrap();
        let sizes = [
            0usize,
            1,
            255 * 1024,
            256 * 1024,
            256 * 1024 + 1,
            3 * 1024 * 1024 + 7,
        ];
        let paths: Vec<PathBuf> = sizes
            .iter()
            .map(|&size| {
                let path = tmp.path().join(format!("f{size}"));
                let bytes: Vec<u8> = (0..size).map(|i| (i * 7 + i / 3) as u8).collect();
                std::fs::write(&path, bytes).unwrap();
                path
            })
            .collect();
        let mut ids = FileIds::none();
        let got = ids.ids(&paths);
        // The empty blob's id is git's well-known one; the others as git itself computes them.
        assert_eq!(
            got[0].as_deref(),
            Some("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
        );
        for (path, id) in paths.iter().zip(got) {
            assert_eq!(
                id.as_deref(),
                Some(git_id(path).as_str()),
                "{}",
                path.display()
            );
        }
        assert_eq!(ids.ids(&[tmp.path().to_path_buf()]), vec![None]);
        assert_eq!(ids.ids(&[tmp.path().join("missing")]), vec![None]);
    }

    #[test]
    fn an_id_is_remembered_for_a_settled_file_and_not_trusted_once_it_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("cache");
        std::fs::create_dir(&cache).unwrap();
        let path = tmp.path().join("input.h");
        std::fs::write(&path, "int a;\n").unwrap();
        // Planted: a remembered stamp matching the file, with an id that is not its bytes'. Used while the
        // stamp holds, which shows the memory is read; dropped once the file is written.
        let stamp = FileStamp::of(&std::fs::metadata(&path).unwrap());
        let planted = "0123456789abcdef0123456789abcdef01234567";
        std::fs::write(
            cache.join(FILE_IDS),
            format!(
                "{FORMAT}\n{planted} {} {} {} {} {} {}\n",
                stamp.dev,
                stamp.ino,
                stamp.size,
                stamp.mtime,
                stamp.ctime,
                path.display()
            ),
        )
        .unwrap();
        let mut ids = FileIds::in_dir(&cache);
        assert_eq!(
            ids.ids(std::slice::from_ref(&path)),
            vec![Some(planted.to_owned())]
        );
        // The same size, an older modification time: only the change time tells.
        std::fs::write(&path, "int b;\n").unwrap();
        age(&path);
        let now = ids.ids(std::slice::from_ref(&path));
        assert_eq!(now, vec![Some(git_id(&path))]);
        // Just written: computed, and not remembered (its change time is not settled).
        ids.save();
        let again = FileIds::in_dir(&cache);
        assert!(again.known.is_empty(), "{:?}", again.known);
    }

    #[test]
    fn a_settled_file_s_id_is_written_back_and_read_again() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("cache");
        std::fs::create_dir(&cache).unwrap();
        // A file that has not changed for a long time: a program of the system's.
        let path = PathBuf::from("/bin/sh");
        let Ok(path) = path.canonicalize() else {
            return;
        };
        let mut ids = FileIds::in_dir(&cache);
        let first = ids.ids(std::slice::from_ref(&path));
        ids.save();
        let again = FileIds::in_dir(&cache);
        assert_eq!(again.known.len(), 1);
        assert_eq!(
            again.known.get(&path).map(|(_, id)| Some(id.clone())),
            Some(first[0].clone())
        );
        assert_eq!(first[0].as_deref(), Some(git_id(&path).as_str()));
    }

    #[test]
    fn a_damaged_file_of_ids_is_read_as_empty_lines_and_all() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join(FILE_IDS),
            format!("{FORMAT}\nnot an entry\nzz 1 2 3 4 5 /x\n"),
        )
        .unwrap();
        assert!(FileIds::in_dir(tmp.path()).known.is_empty());
        std::fs::write(tmp.path().join(FILE_IDS), "rho-file-ids 0\n").unwrap();
        assert!(FileIds::in_dir(tmp.path()).known.is_empty());
    }
}
