//! The cache's objects on disk: one file per translation unit, named by its key's digest, holding what the
//! compiler wrote on stderr and the object it made, behind a header with both lengths and a checksum. Written
//! to a temporary file and renamed into place (a killed compile leaves no half entry); a damaged entry is
//! removed and counts as a miss. The directory holds at most its bound; the least recently used go first.

use std::hash::Hasher as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::error::CacheError;

/// The first word of every entry: another layout is a damaged entry.
const ENTRY_FORMAT: &str = "rho-ccache-entry 1";

/// A compiled translation unit: the compiler's stderr (replayed on a hit) and its object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub stderr: Vec<u8>,
    pub object: Vec<u8>,
}

/// FNV-1a, 64 bits, of `parts` one after the other.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash = fnv::FnvHasher::default();
    for part in parts {
        std::hash::Hasher::write(&mut hash, part);
    }
    std::hash::Hasher::finish(&hash)
}

/// The digest of `parts`, 32 hex digits: FNV-1a and SipHash side by side, so that two different keys
/// sharing a name takes two independent 64-bit collisions at once. A guard against accidents, not an
/// adversary: whoever can write `.git` can change the code too. (SipHash's keys are fixed; a Rust release
/// that changes it changes names, which costs misses, never a wrong hit.)
pub fn digest(parts: &[&[u8]]) -> String {
    let mut sip = std::hash::DefaultHasher::new();
    for part in parts {
        sip.write(part);
    }
    format!("{:016x}{:016x}", fnv1a(parts), sip.finish())
}

/// The compiled units of one repository.
#[derive(Debug, Clone)]
pub struct UnitStore {
    dir: PathBuf,
    bound: u64,
}

impl UnitStore {
    /// The store in `dir` (created when missing), holding at most `bound` bytes.
    pub fn open(dir: &Path, bound: u64) -> Result<UnitStore, CacheError> {
        std::fs::create_dir_all(dir).map_err(|e| CacheError::io(dir, e))?;
        Ok(UnitStore {
            dir: dir.to_owned(),
            bound,
        })
    }

    fn entry(&self, id: &str) -> PathBuf {
        self.dir.join(id)
    }

    /// The unit stored under `id`; `None` when there is none or it was damaged (then it is removed).
    pub fn get(&self, id: &str) -> Result<Option<Unit>, CacheError> {
        let path = self.entry(id);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(CacheError::io(&path, e)),
        };
        let Some(unit) = decode(&bytes) else {
            let _ = std::fs::remove_file(&path);
            return Ok(None);
        };
        // Used now: the last to be evicted.
        if let Ok(file) = std::fs::File::options().write(true).open(&path) {
            let _ = file.set_modified(SystemTime::now());
        }
        Ok(Some(unit))
    }

    /// Store `unit` under `id` (an entry another compile stored first is replaced by an equal one), then
    /// evict the least recently used entries beyond the bound.
    pub fn put(&self, id: &str, unit: &Unit) -> Result<(), CacheError> {
        let mut file = tempfile::Builder::new()
            .prefix("tmp-")
            .tempfile_in(&self.dir)
            .map_err(|e| CacheError::io(&self.dir, e))?;
        file.write_all(&encode(unit))
            .map_err(|e| CacheError::io(file.path(), e))?;
        let path = self.entry(id);
        file.persist(&path)
            .map_err(|e| CacheError::io(&path, e.error))?;
        self.evict();
        Ok(())
    }

    /// Remove the least recently used entries until the store holds at most its bound, and temporary files a
    /// killed compile left.
    fn evict(&self) {
        let Ok(read) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut entries = Vec::new();
        for item in read.flatten() {
            let Ok(meta) = item.metadata() else { continue };
            let modified = meta.modified().ok();
            if item.file_name().to_string_lossy().starts_with("tmp-") {
                if is_stale_temporary(modified) {
                    let _ = std::fs::remove_file(item.path());
                }
                continue;
            }
            entries.push((modified, meta.len(), item.path()));
        }
        evict_least_recent(entries, self.bound, |path| {
            let _ = std::fs::remove_file(path);
        });
    }
}

/// How old a temporary file or directory must be to be taken as left by a killed writer: a write takes
/// seconds at most.
const STALE_TEMPORARY: Duration = Duration::from_secs(3600);

/// Whether a writer's temporary entry last modified at `modified` was left by a killed one.
pub fn is_stale_temporary(modified: Option<SystemTime>) -> bool {
    modified
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > STALE_TEMPORARY)
}

/// Remove entries (when last used, bytes, path), least recently used first (an unknown time first of all),
/// with `remove`, until those left hold at most `bound` bytes: the eviction of this store and of the gate's
/// build cache.
pub fn evict_least_recent(
    mut entries: Vec<(Option<SystemTime>, u64, PathBuf)>,
    bound: u64,
    remove: impl Fn(&Path),
) {
    let mut total: u64 = entries.iter().map(|(_, size, _)| size).sum();
    entries.sort_by_key(|(used, _, _)| *used);
    for (_, size, path) in entries {
        if total <= bound {
            break;
        }
        remove(&path);
        total = total.saturating_sub(size);
    }
}

/// An entry's bytes: `FORMAT STDERR_LEN OBJECT_LEN CHECKSUM\n`, the stderr, the object.
fn encode(unit: &Unit) -> Vec<u8> {
    let sum = digest(&[&unit.stderr, &unit.object]);
    let mut bytes = format!(
        "{ENTRY_FORMAT} {} {} {sum}\n",
        unit.stderr.len(),
        unit.object.len()
    )
    .into_bytes();
    bytes.extend_from_slice(&unit.stderr);
    bytes.extend_from_slice(&unit.object);
    bytes
}

/// The unit in an entry's bytes, when they are whole and match their checksum.
fn decode(bytes: &[u8]) -> Option<Unit> {
    let newline = bytes.iter().position(|b| *b == b'\n')?;
    let header = std::str::from_utf8(&bytes[..newline]).ok()?;
    let rest = header.strip_prefix(ENTRY_FORMAT)?.trim_start();
    let mut fields = rest.split(' ');
    let stderr_len: usize = fields.next()?.parse().ok()?;
    let object_len: usize = fields.next()?.parse().ok()?;
    let sum = fields.next()?;
    let body = &bytes[newline + 1..];
    if body.len() != stderr_len.checked_add(object_len)? {
        return None;
    }
    let (stderr, object) = body.split_at(stderr_len);
    (digest(&[stderr, object]) == sum).then(|| Unit {
        stderr: stderr.to_vec(),
        object: object.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(object: &[u8]) -> Unit {
        Unit {
            stderr: b"a.c:1: warning: x\n".to_vec(),
            object: object.to_vec(),
        }
    }

    #[test]
    fn a_unit_comes_back_as_stored_and_a_damaged_one_is_a_miss() {
        let tmp = tempfile::tempdir().unwrap();
        let store = UnitStore::open(&tmp.path().join("units"), 1 << 20).unwrap();
        store.put("k1", &unit(b"\x7fELF object")).unwrap();
        assert_eq!(store.get("k1").unwrap(), Some(unit(b"\x7fELF object")));
        assert_eq!(store.get("k2").unwrap(), None);
        let path = tmp.path().join("units/k1");
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(store.get("k1").unwrap(), None);
        assert!(!path.exists(), "a damaged entry is removed");
    }

    #[test]
    fn the_least_recently_used_units_go_beyond_the_bound() {
        let tmp = tempfile::tempdir().unwrap();
        let store = UnitStore::open(tmp.path(), 2500).unwrap();
        for id in ["a", "b", "c"] {
            store.put(id, &unit(&[7u8; 1000])).unwrap();
            // Distinct stamps, a coarse file system's included.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!tmp.path().join("a").exists(), "the oldest went");
        assert!(tmp.path().join("b").exists() && tmp.path().join("c").exists());
    }

    #[test]
    fn digests_differ_where_the_parts_do() {
        assert_eq!(digest(&[b"ab", b"c"]), digest(&[b"abc"]));
        assert_ne!(digest(&[b"abc"]), digest(&[b"abd"]));
        assert_eq!(digest(&[b"x"]).len(), 32);
    }
}
