//! The build cache of a side that is a git revision: what its build made (each job's `RHO_BENCH_OUT`, and the
//! files the build wrote into the checkout), kept under the repository's `.git/rho-cache/` by the tree id and
//! every build setting, so the next gate against the same revision skips the build. A directory side in a
//! repository is kept the same way by its content (crate::content), its build directories only.
//!
//! An entry is used only when its key (the full text, not just its hash) is the one asked for, what its build
//! read still holds (crate::inputs) and every file is there with the size and checksum the manifest gives;
//! otherwise it is removed and the side is built.
//! Entries are written to a temporary directory and renamed into place, so a killed gate leaves no half
//! entry under a key. The cache holds at most [`CACHE_BOUND_BYTES`]; the least recently used entries go first.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The most bytes the cache of one repository holds.
pub const CACHE_BOUND_BYTES: u64 = 256 * 1024 * 1024;

/// The cache's directory under git's common directory.
pub const CACHE_DIR: &str = "rho-cache";

/// Where ccache keeps its objects and rho's settings for it (`.git/rho-cache/ccache`; crate::ccache).
pub const CCACHE_DIR: &str = "ccache";

/// The ids of the files builds read, remembered between gates (crate::file_ids).
pub const FILE_IDS: &str = "file-ids";

/// Where the harness headers the builds include live (`.git/rho-cache/include/<checksum>`; crate::ccache).
pub const INCLUDE_DIR: &str = "include";

/// The first line of every key: a change of the layout or of what a key holds changes it.
const KEY_FORMAT: &str = "rho-cache 2";

/// An entry's record of what its build read, checked before the entry is used (crate::inputs).
const INPUTS_FILE: &str = "inputs";

/// What a cache entry is looked up by: everything that decides what a side's build makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheKey {
    text: String,
}

impl CacheKey {
    /// A key of `lines` (`name value`, one setting each), after the format and rho's version: an entry of
    /// another rho is never used.
    pub fn new(lines: &[String]) -> CacheKey {
        let mut text = format!("{KEY_FORMAT}\nrho {}\n", env!("CARGO_PKG_VERSION"));
        for line in lines {
            // One setting per line, whatever it holds.
            text.push_str(&line.replace('\n', "\\n"));
            text.push('\n');
        }
        CacheKey { text }
    }

    /// The entry's directory name: the key's checksum.
    fn id(&self) -> String {
        checksum(self.text.as_bytes())
    }

    pub fn text(&self) -> &str {
        &self.text
    }
}

/// FNV-1a, 64 bits: the checksum of a key and of a cached file (a guard against a damaged entry, not an
/// adversary: whoever can write `.git` can change the code too).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash = fnv::FnvHasher::default();
    std::hash::Hasher::write(&mut hash, bytes);
    std::hash::Hasher::finish(&hash)
}

/// The checksum of `bytes` as a key shows it (16 hex digits).
pub fn checksum(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a(bytes))
}

/// One file of an entry: where it goes back (a job's build directory or the checkout) and what it must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedFile {
    /// `out<N>` (job N's `RHO_BENCH_OUT`) or `tree` (the checkout), then the path within it.
    pub area: String,
    pub path: PathBuf,
}

/// The cache of one repository.
#[derive(Debug, Clone)]
pub struct BuildCache {
    dir: PathBuf,
    bound: u64,
}

/// Why an entry was not used or not stored, for the progress line.
pub type CacheNote = String;

impl BuildCache {
    /// The cache under `common_dir` (git's common directory), holding at most `bound` bytes.
    pub fn new(common_dir: &Path, bound: u64) -> BuildCache {
        BuildCache {
            dir: common_dir.join(CACHE_DIR),
            bound,
        }
    }

    /// The cache's directory (`.git/rho-cache`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn entry_dir(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(key.id())
    }

    /// Copy the entry of `key` back: each file to `area_root(area)`, once `inputs_hold` accepted the entry's
    /// record of what its build read (crate::inputs; `Err` says which input changed). `Ok(false)` when there
    /// is no entry; an entry that is damaged, holds another key or whose inputs changed is removed and `Err`
    /// says why (the caller builds).
    pub fn restore(
        &self,
        key: &CacheKey,
        area_root: &dyn Fn(&str) -> Option<PathBuf>,
        inputs_hold: &dyn Fn(&str) -> Result<(), String>,
    ) -> Result<bool, CacheNote> {
        let entry = self.entry_dir(key);
        if !entry.is_dir() {
            return Ok(false);
        }
        let verified = std::fs::read_to_string(entry.join(INPUTS_FILE))
            .map_err(|e| format!("{INPUTS_FILE}: {e}"))
            .and_then(|inputs| inputs_hold(&inputs))
            .and_then(|()| verify_and_copy(&entry, key, area_root));
        match verified {
            Ok(()) => {
                // Used now: the last to be evicted.
                let _ = std::fs::write(entry.join("used"), b"");
                Ok(true)
            }
            Err(why) => {
                rho_exec::remove_tree(&entry);
                Err(format!(
                    "cache entry {} not used ({why}): removed, building",
                    entry.display()
                ))
            }
        }
    }

    /// Store `files` (each read from `area_root(area)/path`) under `key`, with `inputs`, the record of what
    /// the build read (crate::inputs), then evict the least recently used entries beyond the bound. An entry
    /// already there (another gate's, stored a moment before) is left as it is.
    pub fn store(
        &self,
        key: &CacheKey,
        files: &[CachedFile],
        area_root: &dyn Fn(&str) -> Option<PathBuf>,
        inputs: &str,
    ) -> Result<(), CacheNote> {
        let entry = self.entry_dir(key);
        if entry.exists() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let staging = tempfile::Builder::new()
            .prefix("tmp-")
            .tempdir_in(&self.dir)
            .map_err(|e| format!("cannot create a directory in {}: {e}", self.dir.display()))?;
        // An interrupt while the entry is written removes it (the process exits without running drops).
        let _cleanup = {
            let path = staging.path().to_owned();
            rho_exec::interrupt::on_interrupt(move || rho_exec::remove_tree(&path))
        };
        let size = write_entry(staging.path(), key, files, area_root, inputs)?;
        if size > self.bound {
            return Err(format!(
                "not cached: {size} bytes is more than the cache's bound of {} bytes",
                self.bound
            ));
        }
        let staged = staging.keep();
        if std::fs::rename(&staged, &entry).is_err() {
            // Another gate stored the same key first: keep theirs.
            rho_exec::remove_tree(&staged);
        }
        self.evict();
        Ok(())
    }

    /// Remove the least recently used entries until the cache holds at most its bound, and staging
    /// directories a killed gate left.
    fn evict(&self) {
        let Ok(read) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut entries = Vec::new();
        for item in read.flatten() {
            let path = item.path();
            let name = item.file_name().to_string_lossy().into_owned();
            // ccache bounds its own directory (its max_size); the headers are a few kilobytes, the ids tens.
            if name == CCACHE_DIR || name == INCLUDE_DIR || name == FILE_IDS {
                continue;
            }
            if name.starts_with("tmp-") {
                let modified = item.metadata().and_then(|m| m.modified()).ok();
                if is_stale_temporary(modified) {
                    rho_exec::remove_tree(&path);
                }
                continue;
            }
            // An entry with no stamp (damaged) goes first.
            let used = std::fs::metadata(path.join("used"))
                .and_then(|m| m.modified())
                .ok();
            entries.push((used, tree_size(&path), path));
        }
        evict_least_recent(entries, self.bound, rho_exec::remove_tree);
    }
}

/// How old a temporary file or directory must be to be taken as left by a killed writer: a write takes
/// seconds at most.
const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(3600);

/// Whether a writer's temporary entry last modified at `modified` was left by a killed one.
pub fn is_stale_temporary(modified: Option<std::time::SystemTime>) -> bool {
    modified
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > STALE_TEMPORARY)
}

/// Remove entries (when last used, bytes, path), least recently used first (an unknown time first of all),
/// with `remove`, until those left hold at most `bound` bytes.
pub fn evict_least_recent(
    mut entries: Vec<(Option<std::time::SystemTime>, u64, PathBuf)>,
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

/// Write `files` into `staging` (`files/<area>/<path>`), with the key, the manifest and the `used` stamp;
/// the bytes written.
fn write_entry(
    staging: &Path,
    key: &CacheKey,
    files: &[CachedFile],
    area_root: &dyn Fn(&str) -> Option<PathBuf>,
    inputs: &str,
) -> Result<u64, CacheNote> {
    let mut manifest = String::new();
    let mut size = 0u64;
    for file in files {
        let root = area_root(&file.area).ok_or_else(|| format!("no area {}", file.area))?;
        let from = root.join(&file.path);
        let bytes =
            std::fs::read(&from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        let to = staging.join("files").join(&file.area).join(&file.path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        // A copy keeps the permissions (an executable stays one).
        std::fs::copy(&from, &to).map_err(|e| format!("cannot copy {}: {e}", from.display()))?;
        size += bytes.len() as u64;
        manifest.push_str(&format!(
            "{} {} {} {}\n",
            checksum(&bytes),
            bytes.len(),
            file.area,
            file.path.display()
        ));
    }
    let write = |name: &str, text: &str| {
        std::fs::File::create(staging.join(name))
            .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()))
            .map_err(|e| format!("cannot write {name}: {e}"))
    };
    write("key", key.text())?;
    write("manifest", &manifest)?;
    write(INPUTS_FILE, inputs)?;
    write("used", "")?;
    Ok(size)
}

/// Check `entry` against `key` and its manifest, then copy each file back; why not, if it cannot be used.
fn verify_and_copy(
    entry: &Path,
    key: &CacheKey,
    area_root: &dyn Fn(&str) -> Option<PathBuf>,
) -> Result<(), String> {
    let stored_key = std::fs::read_to_string(entry.join("key")).map_err(|e| format!("key: {e}"))?;
    if stored_key != key.text() {
        return Err("it holds another key (another rho version or other settings)".to_owned());
    }
    let manifest =
        std::fs::read_to_string(entry.join("manifest")).map_err(|e| format!("manifest: {e}"))?;
    let mut copies = Vec::new();
    for (number, line) in manifest.lines().enumerate() {
        let bad = || {
            format!(
                "manifest line {}: expected `CHECKSUM SIZE AREA PATH`",
                number + 1
            )
        };
        let mut parts = line.splitn(4, ' ');
        let (Some(sum), Some(len), Some(area), Some(path)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let path = Path::new(path);
        if path.is_absolute()
            || path
                .components()
                .any(|c| c == std::path::Component::ParentDir)
        {
            return Err(bad());
        }
        let from = entry.join("files").join(area).join(path);
        let bytes = std::fs::read(&from).map_err(|e| format!("{}: {e}", from.display()))?;
        if checksum(&bytes) != sum || bytes.len().to_string() != len {
            return Err(format!("{} does not match its checksum", path.display()));
        }
        let root = area_root(area).ok_or_else(bad)?;
        copies.push((from, root.join(path)));
    }
    for (from, to) in copies {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::copy(&from, &to).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    Ok(())
}

/// The bytes of the files under `dir`.
fn tree_size(dir: &Path) -> u64 {
    let Ok(read) = std::fs::read_dir(dir) else {
        return 0;
    };
    read.flatten()
        .map(|item| match item.file_type() {
            Ok(t) if t.is_dir() => tree_size(&item.path()),
            _ => item.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

/// The files under `dir`, relative to it, in name order.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(read) = std::fs::read_dir(dir) else {
            return;
        };
        let mut items: Vec<_> = read.flatten().collect();
        items.sort_by_key(|i| i.file_name());
        for item in items {
            let path = item.path();
            match item.file_type() {
                Ok(t) if t.is_dir() => walk(root, &path, out),
                Ok(t) if t.is_file() => {
                    if let Ok(relative) = path.strip_prefix(root) {
                        out.push(relative.to_owned());
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, BuildCache, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let cache = BuildCache::new(&tmp.path().join("git"), 1 << 20);
        let out = tmp.path().join("out");
        std::fs::create_dir_all(out.join("sub")).unwrap();
        std::fs::write(out.join("bench"), b"binary").unwrap();
        std::fs::write(out.join("sub/obj.o"), b"object").unwrap();
        (tmp, cache, out)
    }

    #[test]
    fn an_entry_comes_back_as_it_was_stored() {
        let (tmp, cache, out) = setup();
        let key = CacheKey::new(&["tree abc".to_owned()]);
        let files: Vec<CachedFile> = files_under(&out)
            .into_iter()
            .map(|path| CachedFile {
                area: "out0".to_owned(),
                path,
            })
            .collect();
        assert_eq!(files.len(), 2);
        let root = |_: &str| Some(out.clone());
        cache.store(&key, &files, &root, "").unwrap();
        let back = tmp.path().join("back");
        let back_root = |_: &str| Some(back.clone());
        assert_eq!(cache.restore(&key, &back_root, &|_| Ok(())), Ok(true));
        assert_eq!(std::fs::read(back.join("sub/obj.o")).unwrap(), b"object");
        let other = CacheKey::new(&["tree abd".to_owned()]);
        assert_eq!(cache.restore(&other, &back_root, &|_| Ok(())), Ok(false));
    }

    #[test]
    fn a_damaged_entry_is_removed_never_used() {
        let (tmp, cache, out) = setup();
        let key = CacheKey::new(&["tree abc".to_owned()]);
        let files = vec![CachedFile {
            area: "out0".to_owned(),
            path: PathBuf::from("bench"),
        }];
        cache
            .store(&key, &files, &|_| Some(out.clone()), "")
            .unwrap();
        let stored = cache.entry_dir(&key).join("files/out0/bench");
        std::fs::write(&stored, b"binarY").unwrap();
        let back = tmp.path().join("back");
        let why = cache
            .restore(&key, &|_| Some(back.clone()), &|_| Ok(()))
            .unwrap_err();
        assert!(why.contains("does not match its checksum"), "{why}");
        assert!(!back.join("bench").exists());
        assert!(!cache.entry_dir(&key).exists(), "removed");
    }

    #[test]
    fn the_least_recently_used_entries_go_beyond_the_bound() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = BuildCache::new(tmp.path(), 2500);
        let out = tmp.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("image"), vec![7u8; 1000]).unwrap();
        let files = vec![CachedFile {
            area: "out0".to_owned(),
            path: PathBuf::from("image"),
        }];
        let keys: Vec<CacheKey> = (0..3)
            .map(|i| CacheKey::new(&[format!("tree {i}")]))
            .collect();
        for key in &keys {
            cache
                .store(key, &files, &|_| Some(out.clone()), "")
                .unwrap();
            // Distinct stamps, a coarse file system's included.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!cache.entry_dir(&keys[0]).exists(), "the oldest went");
        assert!(cache.entry_dir(&keys[1]).exists() && cache.entry_dir(&keys[2]).exists());
    }
}
