//! The cache as the compiler sees it: called by a compiler's name, it compiles each source of the command
//! line through the store (a hit copies the object and replays the stderr it was made with), links the
//! objects when the command links, and hands anything it does not model to the real compiler unchanged.

use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use crate::args::{Invocation, Parsed, Source, default_object, has_debug_info, parse};
use crate::environment::{
    LOG_VARIABLE, ORIGINAL_PATH_VARIABLE, STORE_VARIABLE, UNIT_CACHE_BOUND_BYTES,
};
use crate::error::CacheError;
use crate::masquerade::find_on_path;
use crate::store::{Unit, UnitStore, digest};

/// The first line of every key: a change of what a key holds changes it.
const KEY_FORMAT: &str = "rho-ccache 2";

/// Environment variables that change what the compiler makes or says without showing in its `-E` output.
const KEYED_VARIABLES: &[&str] = &[
    "LANG",
    "LC_ALL",
    "LC_MESSAGES",
    "COMPILER_PATH",
    "GCC_EXEC_PREFIX",
];

/// Where one run of the wrapper finds things.
struct Setting {
    /// The name it was called by: one driver binary compiles C or C++ by it (`clang`, `clang++`).
    name: String,
    real: PathBuf,
    original_path: OsString,
    store_dir: Option<PathBuf>,
    log: Option<PathBuf>,
}

/// How one source went.
enum Outcome {
    Hit(Unit),
    Miss(Unit),
}

/// Why a cached invocation goes to the compiler as it is: the cache failed, or the compiler did (it reports
/// its own error when run as asked).
enum Fallback {
    Cache(CacheError),
    Compiler,
}

/// Run as the compiler `name` with `args`; the exit status.
pub fn run_as_compiler(name: &str, args: Vec<OsString>) -> i32 {
    let original_path = std::env::var_os(ORIGINAL_PATH_VARIABLE).unwrap_or_default();
    let me = std::env::current_exe().ok();
    let Some(real) = find_on_path(name, &original_path, me.as_deref()) else {
        eprintln!(
            "rho: compile cache: {}",
            CacheError::NoCompiler {
                name: name.to_owned()
            }
        );
        return 127;
    };
    let setting = Setting {
        name: name.to_owned(),
        real,
        original_path,
        store_dir: std::env::var_os(STORE_VARIABLE).map(PathBuf::from),
        log: std::env::var_os(LOG_VARIABLE).map(PathBuf::from),
    };
    let Some(text_args) = args
        .iter()
        .map(|a| a.to_str().map(str::to_owned))
        .collect::<Option<Vec<String>>>()
    else {
        return pass_through(&setting, &args);
    };
    match parse(&text_args) {
        Parsed::PassThrough { sources, why } => {
            setting.log_lines(&vec![format!("direct {why}"); sources]);
            pass_through(&setting, &args)
        }
        Parsed::Cached(invocation) => match cached(&setting, &invocation) {
            Ok(status) => status,
            Err(Fallback::Cache(why)) => {
                let line = format!("direct {why}");
                setting.log_lines(&vec![line; invocation.sources.len()]);
                pass_through(&setting, &args)
            }
            Err(Fallback::Compiler) => pass_through(&setting, &args),
        },
    }
}

impl Setting {
    /// The real compiler with `args`, on the PATH the build started with.
    fn command(&self, args: &[impl AsRef<OsStr>]) -> Command {
        let mut command = Command::new(&self.real);
        command.args(args).env("PATH", &self.original_path);
        command
    }

    /// Append `lines` to the log the gate counts hits in (one write: concurrent compiles do not interleave).
    fn log_lines(&self, lines: &[String]) {
        let Some(log) = &self.log else { return };
        if lines.is_empty() {
            return;
        }
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        if let Ok(mut file) = std::fs::File::options().create(true).append(true).open(log) {
            let _ = file.write_all(text.as_bytes());
        }
    }
}

/// The real compiler with the same arguments, stdin, stdout and stderr, in place of this process: its exit
/// status is the build's.
fn pass_through(setting: &Setting, args: &[OsString]) -> i32 {
    let error = setting.command(args).exec();
    eprintln!(
        "rho: compile cache: cannot run {}: {error}",
        setting.real.display()
    );
    127
}

/// The exit status a shell would report for `status`.
fn status_code(status: ExitStatus) -> i32 {
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// Compile each source through the store (a thread a source, as many at once as there are cores), replay their stderr in order, then
/// place the objects (`-c`) or link them; the exit status.
fn cached(setting: &Setting, invocation: &Invocation) -> Result<i32, Fallback> {
    let dir = setting
        .store_dir
        .as_deref()
        .ok_or(Fallback::Cache(CacheError::NotSet {
            variable: STORE_VARIABLE,
        }))?;
    let store = UnitStore::open(dir, UNIT_CACHE_BOUND_BYTES).map_err(Fallback::Cache)?;
    let identity = format!(
        "{} as {}",
        compiler_identity(&setting.real).map_err(Fallback::Cache)?,
        setting.name
    );
    // As many compiles at once as the machine has cores: a `cc *.c` of hundreds of files must not start
    // hundreds of compilers.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut outcomes: Vec<Result<Outcome, Fallback>> = Vec::new();
    for batch in invocation.sources.chunks(cores) {
        std::thread::scope(|scope| {
            let handles: Vec<_> = batch
                .iter()
                .map(|source| {
                    let (store, identity) = (&store, &identity);
                    scope.spawn(move || compile_one(setting, invocation, source, store, identity))
                })
                .collect();
            outcomes.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or(Err(Fallback::Compiler))),
            );
        });
    }
    let outcomes = outcomes.into_iter().collect::<Result<Vec<_>, _>>()?;
    let mut log = Vec::new();
    let mut units = Vec::new();
    for (source, outcome) in invocation.sources.iter().zip(outcomes) {
        let (word, unit) = match outcome {
            Outcome::Hit(unit) => ("hit", unit),
            Outcome::Miss(unit) => ("miss", unit),
        };
        log.push(format!("{word} {}", source.path.display()));
        units.push(unit);
    }
    // The link's objects are in place before anything is said: a cache failure up to there runs the whole
    // command again as given, which must not have seen the warnings replayed or the sources counted.
    let link_args = match invocation.compile_only {
        true => None,
        false => Some(link_args(invocation, &units)?),
    };
    let mut stderr = std::io::stderr().lock();
    for unit in &units {
        let _ = stderr.write_all(&unit.stderr);
    }
    drop(stderr);
    setting.log_lines(&log);
    let Some((_objects, args)) = link_args else {
        for (source, unit) in invocation.sources.iter().zip(&units) {
            let to = invocation
                .output
                .clone()
                .unwrap_or_else(|| default_object(&source.path));
            if let Err(e) = std::fs::write(&to, &unit.object) {
                eprintln!("rho: compile cache: cannot write {}: {e}", to.display());
                return Ok(1);
            }
        }
        return Ok(0);
    };
    match setting.command(&args).status() {
        Ok(status) => Ok(status_code(status)),
        Err(e) => {
            eprintln!(
                "rho: compile cache: cannot run {}: {e}",
                setting.real.display()
            );
            Ok(127)
        }
    }
}

/// The link's command line: as given, each source replaced by its object, written to a temporary directory
/// (returned with it: the objects live as long as it does).
fn link_args(
    invocation: &Invocation,
    units: &[Unit],
) -> Result<(tempfile::TempDir, Vec<OsString>), Fallback> {
    let dir = tempfile::Builder::new()
        .prefix("rho-ccache-")
        .tempdir()
        .map_err(|e| Fallback::Cache(CacheError::io(&std::env::temp_dir(), e)))?;
    let mut args: Vec<OsString> = invocation.args.iter().map(OsString::from).collect();
    for (number, (source, unit)) in invocation.sources.iter().zip(units).enumerate() {
        let object = dir.path().join(format!(
            "{number}-{}",
            default_object(&source.path).display()
        ));
        std::fs::write(&object, &unit.object)
            .map_err(|e| Fallback::Cache(CacheError::io(&object, e)))?;
        args[source.index] = object.into_os_string();
    }
    Ok((dir, args))
}

/// The compiler as a key names it: its resolved path, size and modification time.
fn compiler_identity(real: &Path) -> Result<String, CacheError> {
    let resolved = real.canonicalize().map_err(|e| CacheError::io(real, e))?;
    let meta = std::fs::metadata(&resolved).map_err(|e| CacheError::io(&resolved, e))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Ok(format!("{} {} {mtime}", resolved.display(), meta.len()))
}

/// The key of `source` before its preprocessed text: everything else that decides its object.
fn key_text(invocation: &Invocation, source: &Source, identity: &str) -> String {
    let mut text = format!(
        "{KEY_FORMAT}\nrho {}\ncompiler {identity}\nlanguage {}\n",
        env!("CARGO_PKG_VERSION"),
        source.language
    );
    for arg in &invocation.compile_args {
        text.push_str(&format!("arg {}\n", arg.replace('\n', "\\n")));
    }
    // Debug information names the directory the compile ran in.
    if has_debug_info(&invocation.compile_args) {
        let cwd = std::env::current_dir().unwrap_or_default();
        text.push_str(&format!("cwd {}\n", cwd.display()));
    }
    for variable in KEYED_VARIABLES {
        let value = std::env::var_os(variable).unwrap_or_default();
        text.push_str(&format!("env {variable}={}\n", value.to_string_lossy()));
    }
    text.push_str("preprocessed\n");
    text
}

/// Whether `bytes` holds `needle`.
fn contains(bytes: &[u8], needle: &[u8]) -> bool {
    bytes.windows(needle.len()).any(|w| w == needle)
}

/// The digest of every file the preprocessed text's line markers name (`# 12 "path" ...`), a line each: the
/// preprocessed text drops comments and squeezes spaces, so without the files' own bytes a change of a comment
/// would be a hit whose debug information (columns) and replayed warnings (the quoted line) are the old ones.
/// A name that is no file (`<built-in>`) is keyed as a name.
fn files_read(preprocessed: &[u8]) -> String {
    let mut paths = std::collections::BTreeSet::new();
    for line in preprocessed.split(|b| *b == b'\n') {
        let Some(rest) = line
            .strip_prefix(b"# ")
            .or_else(|| line.strip_prefix(b"#line "))
        else {
            continue;
        };
        let Some(open) = rest.iter().position(|b| *b == b'"') else {
            continue;
        };
        if !rest[..open]
            .iter()
            .all(|b| b.is_ascii_digit() || *b == b' ')
        {
            continue;
        }
        let quoted = &rest[open + 1..];
        let mut path = Vec::new();
        let mut escaped = false;
        for &b in quoted {
            match (escaped, b) {
                (false, b'\\') => escaped = true,
                (false, b'"') => break,
                _ => {
                    path.push(b);
                    escaped = false;
                }
            }
        }
        paths.insert(path);
    }
    let mut text = String::new();
    for path in paths {
        let shown = String::from_utf8_lossy(&path);
        let content = std::fs::read(std::path::Path::new(std::ffi::OsStr::from_bytes(&path)));
        let sum = content.map_or_else(|_| "-".to_owned(), |bytes| digest(&[&bytes]));
        text.push_str(&format!("file {shown} {sum}\n"));
    }
    text
}

/// One source: its preprocessed text keys the store; a hit is the stored unit, a miss is compiled and stored.
fn compile_one(
    setting: &Setting,
    invocation: &Invocation,
    source: &Source,
    store: &UnitStore,
    identity: &str,
) -> Result<Outcome, Fallback> {
    let mut preprocess = invocation.compile_args.clone();
    preprocess.extend(["-E".to_owned(), source.path.display().to_string()]);
    let preprocessed = setting
        .command(&preprocess)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Fallback::Cache(CacheError::io(&setting.real, e)))?;
    if !preprocessed.status.success() {
        return Err(Fallback::Compiler);
    }
    // An assembler's .incbin reads a file the preprocessed text only names.
    if contains(&preprocessed.stdout, b".incbin") {
        return Err(Fallback::Cache(CacheError::Uncacheable(
            "`.incbin` in the preprocessed text (a file read that it does not hold)",
        )));
    }
    let mut key = key_text(invocation, source, identity);
    key.push_str(&files_read(&preprocessed.stdout));
    let id = digest(&[key.as_bytes(), &preprocessed.stdout]);
    if let Some(unit) = store.get(&id).map_err(Fallback::Cache)? {
        return Ok(Outcome::Hit(unit));
    }
    let object = tempfile::Builder::new()
        .prefix("rho-ccache-")
        .suffix(".o")
        .tempfile()
        .map_err(|e| Fallback::Cache(CacheError::io(&std::env::temp_dir(), e)))?;
    let mut compile = invocation.compile_args.clone();
    compile.extend([
        "-c".to_owned(),
        source.path.display().to_string(),
        "-o".to_owned(),
        object.path().display().to_string(),
    ]);
    let compiled = setting
        .command(&compile)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Fallback::Cache(CacheError::io(&setting.real, e)))?;
    // A compile that fails, or says anything on stdout, is the compiler's to report: it runs again as asked.
    if !compiled.status.success() || !compiled.stdout.is_empty() {
        return Err(Fallback::Compiler);
    }
    let bytes = std::fs::read(object.path())
        .map_err(|e| Fallback::Cache(CacheError::io(object.path(), e)))?;
    let unit = Unit {
        stderr: compiled.stderr,
        object: bytes,
    };
    // A store that cannot be written costs the next build a compile, not this one its object.
    let _ = store.put(&id, &unit);
    Ok(Outcome::Miss(unit))
}
