//! The gate's compile cache: ccache, driven in its "masquerade" mode. A directory of links named as the
//! compilers on `PATH` (`cc`, `gcc`, `arm-none-eabi-gcc`, ...), each pointing at the `ccache` program, goes first
//! on each build's `PATH`; ccache, called by a compiler's name, finds the real compiler further down `PATH` and
//! caches each `-c` compile in the repository's `.git/rho-cache/ccache`, with rho's own settings (a
//! configuration file of its own, no other `CCACHE_*` variable, nothing that would let a changed input hit).
//! Also here: the harness header at a path that stays the same from gate to gate (ccache hashes the
//! preprocessed text, which names it), and what a side's build took from the cache (ccache's stats log).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::cache::{CACHE_DIR, CCACHE_DIR, INCLUDE_DIR, checksum};
use crate::error::{GateError, SideName};
use crate::shell::Scratch;

/// rho's ccache settings, written as `rho-ccache.conf` in that directory and named by `CCACHE_CONFIGPATH`
/// (so neither the user's nor the system's ccache.conf is read). Each line is there for a reason:
/// - `compiler_check = content`: a compiler is known by its bytes, not its size and time;
/// - `hash_dir = true`: with debug information the working directory is in the object, so it is in the key;
/// - `sloppiness =` (none): nothing that changes the object (a header's time, `__DATE__`, locale, ...) is
///   ignored; ccache also refuses a header newer than the compile's start (a compile racing an edit);
/// - `base_dir =` (none): ccache would rewrite absolute paths under it to relative ones on the compiler's
///   command line, which changes `__FILE__`, the object's file symbol and its debug information: the object
///   would not be the one the build asked for (`--verify-cache` would rightly fail);
/// - `inode_cache = false`: every file is read and hashed, never trusted by its inode and times;
/// - `hard_link = false`, `file_clone = false`: an object is a copy, which the build may change freely;
/// - `run_second_cpp = true`, `depend_mode = false`: the compiler compiles the source itself, after the
///   preprocessor's output has been hashed.
const SETTINGS: &str = "compiler_check = content
hash_dir = true
sloppiness =
base_dir =
inode_cache = false
hard_link = false
file_clone = false
run_second_cpp = true
depend_mode = false
direct_mode = true
stats = true
max_size = 256M
";

/// The compiler names always looked for; cross compilers (`arm-none-eabi-gcc`) are found by their suffix.
const COMPILER_NAMES: &[&str] = &["cc", "gcc", "c++", "g++", "clang", "clang++"];

/// The suffixes of a cross compiler's name.
const CROSS_SUFFIXES: &[&str] = &["-gcc", "-g++", "-clang", "-clang++", "-cc", "-c++"];

/// Whether `name` (a file name) is a C or C++ compiler's: one the cache masquerades as, and one whose
/// `--version` the build cache may ask.
pub(crate) fn is_compiler_name(name: &str) -> bool {
    COMPILER_NAMES.contains(&name)
        || CROSS_SUFFIXES
            .iter()
            .any(|suffix| name.len() > suffix.len() && name.ends_with(suffix))
}

/// The executable file `name` on `path` (a PATH value); a name with a `/` is taken as it is.
pub(crate) fn find_on_path(name: &str, path: &OsStr) -> Option<PathBuf> {
    if name.contains('/') {
        return is_executable(Path::new(name)).then(|| PathBuf::from(name));
    }
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The compiler links of one gate, each to ccache.
pub(crate) struct CompilerShims {
    dir: PathBuf,
    /// The PATH rho started with: the real compilers are found there, after the links.
    original_path: String,
}

/// Whether the gate's builds compile through ccache, and if not, why (said once per gate).
pub(crate) enum CompileCache {
    On(CompilerShims),
    /// Off by request (`--no-cache`, or a library caller that named no ccache): nothing is said.
    Off,
    /// Asked for but not possible: the one progress line that says so.
    Unavailable(String),
}

impl CompileCache {
    /// Links to `ccache` (a program name looked up on `PATH`, or a path) for each compiler name on the
    /// PATH, in the gate's scratch directory.
    pub(crate) fn create(ccache: &Path, scratch: &Scratch) -> CompileCache {
        let Ok(original_path) = std::env::var("PATH") else {
            return CompileCache::Unavailable("no compile cache (PATH is not text)".to_owned());
        };
        let Some(program) = find_on_path(&ccache.to_string_lossy(), original_path.as_ref()) else {
            return CompileCache::Unavailable("no compile cache (ccache not installed)".to_owned());
        };
        let dir = scratch.file("compilers");
        match masquerade(&program, &dir, original_path.as_ref()) {
            Ok(_) => CompileCache::On(CompilerShims { dir, original_path }),
            Err(e) => CompileCache::Unavailable(format!(
                "no compile cache (cannot link the compilers in {}: {e})",
                dir.display()
            )),
        }
    }
}

/// Fill `dir` with an entry per compiler name found on `path`, each a symbolic link to `ccache`; the names,
/// sorted. ccache, called by such a name, runs the next compiler of that name on `PATH` that is not itself.
fn masquerade(ccache: &Path, dir: &Path, path: &OsStr) -> std::io::Result<Vec<String>> {
    std::fs::create_dir_all(dir)?;
    let mut names: Vec<String> = COMPILER_NAMES.iter().map(|n| (*n).to_owned()).collect();
    for folder in std::env::split_paths(path) {
        let Ok(read) = std::fs::read_dir(&folder) else {
            continue;
        };
        names.extend(
            read.flatten()
                .filter_map(|item| item.file_name().to_str().map(str::to_owned))
                .filter(|name| is_compiler_name(name)),
        );
    }
    names.sort();
    names.dedup();
    names.retain(|name| find_on_path(name, path).is_some());
    for name in &names {
        std::os::unix::fs::symlink(ccache, dir.join(name))?;
    }
    Ok(names)
}

/// What a side's build gets to compile through ccache.
pub(crate) struct CompilerEnvironment {
    /// The variables set: `PATH` with the links first, `CCACHE_CONFIGPATH`, `CCACHE_DIR`, `CCACHE_STATSLOG`.
    pub(crate) set: Vec<(String, String)>,
    /// The other `CCACHE_*` variables of rho's environment, removed: none of them may change a setting.
    pub(crate) unset: Vec<String>,
    /// ccache's stats log of this build: one counter per compile (crate::ccache::counted).
    pub(crate) stats_log: PathBuf,
}

impl CompilerShims {
    /// What a build of the side whose module root is `root` gets; `None` when the side is not in a git
    /// repository (nowhere to keep the objects) or the settings cannot be written.
    pub(crate) fn environment(
        &self,
        side: SideName,
        root: &Path,
        scratch: &Scratch,
    ) -> Option<CompilerEnvironment> {
        let dir = git_cache_dir(root)?.join(CCACHE_DIR);
        let config = write_settings(&dir).ok()?;
        let stats_log = scratch.file(&format!("ccache-{side}.log"));
        // A log left from an earlier build of the same side would be counted again.
        let _ = std::fs::remove_file(&stats_log);
        // The original PATH is a list already: the links' directory goes in front of it.
        let path = format!("{}:{}", self.dir.to_str()?, self.original_path);
        let text = |p: &Path| p.to_string_lossy().into_owned();
        let set = vec![
            ("PATH".to_owned(), path),
            ("CCACHE_CONFIGPATH".to_owned(), text(&config)),
            ("CCACHE_DIR".to_owned(), text(&dir)),
            ("CCACHE_STATSLOG".to_owned(), text(&stats_log)),
        ];
        let unset = std::env::vars_os()
            .filter_map(|(name, _)| name.into_string().ok())
            .filter(|name| name.starts_with("CCACHE_") && !set.iter().any(|(n, _)| n == name))
            .collect();
        Some(CompilerEnvironment {
            set,
            unset,
            stats_log,
        })
    }
}

/// The file that turns ccache off for a repository, and says why (crate::build writes it).
const OFF_FILE: &str = "rho-ccache-off";

/// Turn ccache off for the repository whose ccache directory is `dir`: a build's assembler read `read`
/// (an `.include` or `.incbin`), a file ccache neither hashes nor knows of, so a later hit could hand back an
/// object made from that file's old bytes.
pub(crate) fn turn_off(dir: &Path, read: &Path) {
    let why = format!(
        "an assembler read {} (an `.include` or `.incbin`), which ccache does not see; ccache stays off for \
         this repository until `rm -rf {}`",
        read.display(),
        dir.display()
    );
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(dir.join(OFF_FILE), why);
}

/// Remove every object of the ccache directory `dir` (`ccache --clear`, with rho's settings): a compile
/// that raced an edit may have been stored under the key of bytes it did not compile (ccache hashes the
/// preprocessor's output, then the compiler reads the files again).
pub(crate) fn clear(dir: &Path) {
    let _ = std::process::Command::new("ccache")
        .arg("--clear")
        .env("CCACHE_DIR", dir)
        .env("CCACHE_CONFIGPATH", dir.join("rho-ccache.conf"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

/// Why ccache is off for the repository `root` is in ([`turn_off`]), if it is.
pub(crate) fn turned_off(root: &Path) -> Option<String> {
    let dir = git_cache_dir(root)?.join(CCACHE_DIR);
    std::fs::read_to_string(dir.join(OFF_FILE)).ok()
}

/// rho's ccache settings in `dir` (`rho-ccache.conf`, rewritten only when it differs, by a rename); its path.
fn write_settings(dir: &Path) -> std::io::Result<PathBuf> {
    let path = dir.join("rho-ccache.conf");
    let text = format!("cache_dir = {}\n{SETTINGS}", dir.display());
    if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
        return Ok(path);
    }
    std::fs::create_dir_all(dir)?;
    let mut staged = tempfile::Builder::new().prefix("tmp-").tempfile_in(dir)?;
    std::io::Write::write_all(&mut staged, text.as_bytes())?;
    staged.persist(&path).map_err(|e| e.error)?;
    Ok(path)
}

/// How many compiles of a build came from the cache, and how many ccache could cache, from its stats log
/// (a `# FILE` comment, then the compile's counters: `direct_cache_hit`, `preprocessed_cache_hit`,
/// `cache_miss`, or why it was not cacheable, e.g. `called_for_link`); `None` when it cached nothing.
pub(crate) fn counted(log: &Path) -> Option<(usize, usize)> {
    let text = std::fs::read_to_string(log).ok()?;
    let counter = |name: &str| text.lines().filter(|l| l.trim() == name).count();
    let hits = counter("direct_cache_hit") + counter("preprocessed_cache_hit");
    let all = hits + counter("cache_miss");
    (all > 0).then_some((hits, all))
}

/// The build cache's directory of the repository `dir` is in (`.git/rho-cache`).
fn git_cache_dir(dir: &Path) -> Option<PathBuf> {
    Some(crate::side::git_common_dir(dir).ok()?.join(CACHE_DIR))
}

/// The harness header `bench_header` at a path of its own in the repository `cwd` is in,
/// `.git/rho-cache/include/<checksum>/rho/bench.h`, written once (into a temporary directory renamed into
/// place); the directory to include. `None` outside a git repository.
pub(crate) fn stable_include(cwd: &Path, bench_header: &str) -> Result<Option<PathBuf>, GateError> {
    let Some(cache) = git_cache_dir(cwd) else {
        return Ok(None);
    };
    let parent = cache.join(INCLUDE_DIR);
    let include = parent.join(checksum(bench_header.as_bytes()));
    let header = include.join("rho").join("bench.h");
    if std::fs::read_to_string(&header).is_ok_and(|text| text == bench_header) {
        return Ok(Some(include));
    }
    let io = |what: &Path, e| GateError::io(format!("cannot write {}", what.display()), e);
    std::fs::create_dir_all(&parent).map_err(|e| io(&parent, e))?;
    let staging = tempfile::Builder::new()
        .prefix("tmp-")
        .tempdir_in(&parent)
        .map_err(|e| io(&parent, e))?;
    let staged = staging.path().join("rho");
    std::fs::create_dir_all(&staged).map_err(|e| io(&staged, e))?;
    std::fs::write(staged.join("bench.h"), bench_header).map_err(|e| io(&staged, e))?;
    // A damaged header (one that does not match its checksum) is replaced; a gate that renamed first wins.
    if include.exists() {
        rho_exec::remove_tree(&include);
    }
    let _ = std::fs::rename(staging.path(), &include);
    if std::fs::read_to_string(&header).is_ok_and(|text| text == bench_header) {
        Ok(Some(include))
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_keeps_its_path_and_a_damaged_one_is_rewritten() {
        let tmp = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("git")
            .args(["init", "--quiet"])
            .arg(tmp.path())
            .status()
            .unwrap();
        assert!(status.success());
        let first = stable_include(tmp.path(), "/* harness */\n")
            .unwrap()
            .unwrap();
        assert!(first.starts_with(tmp.path().join(".git").join(CACHE_DIR).join(INCLUDE_DIR)));
        let header = first.join("rho/bench.h");
        assert_eq!(std::fs::read_to_string(&header).unwrap(), "/* harness */\n");
        std::fs::write(&header, "damaged").unwrap();
        let again = stable_include(tmp.path(), "/* harness */\n")
            .unwrap()
            .unwrap();
        assert_eq!(again, first, "the same path in every gate");
        assert_eq!(std::fs::read_to_string(&header).unwrap(), "/* harness */\n");
        let other = stable_include(tmp.path(), "/* another */\n")
            .unwrap()
            .unwrap();
        assert_ne!(other, first, "another header, another path");
        let outside = tempfile::tempdir().unwrap();
        // Outside any repository (unless the temporary directory is in one) there is nowhere to keep it.
        if git_cache_dir(outside.path()).is_none() {
            assert_eq!(stable_include(outside.path(), "x").unwrap(), None);
        }
    }

    #[test]
    fn a_builds_log_is_counted() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("log");
        assert_eq!(counted(&log), None, "no log: nothing compiled");
        std::fs::write(
            &log,
            "# ../a.c\ndirect_cache_hit\n# ../b.c\ncache_miss\n# \ncalled_for_link\n# ../c.c\n\
             preprocessed_cache_hit\n",
        )
        .unwrap();
        assert_eq!(counted(&log), Some((2, 3)));
    }
}
