//! What a side's build read, for the build cache: every file any process of the build opened to read or
//! executed, and every path it looked for and did not find (an include search, a `PATH` lookup), recorded by
//! running the build under `strace -f` (each open's directory is decoded with `-y`, so a relative path is
//! resolved against the directory it was opened from), then the bytes of each file (git's object id, computed
//! here: crate::file_ids). An entry is used again only when each file still has those
//! bytes and each missing path is still missing (crate::cache).
//!
//! Why a trace and not the compilers' dependency files (`-MD -MF`): a trace sees every reader, not only the
//! compiler's preprocessor: a wrapper script and what it sources, the assembler's `.include` and `.incbin`, the
//! linker's scripts and libraries, a `make` that reads a file outside the tree, a compiler found on `PATH`, and
//! the searches that found nothing (a header added later to an earlier `-I` directory). It needs no change to the
//! build's command lines, which the cache must not alter.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

/// The system calls traced: the opens (with their directory decoded), and program executions.
const TRACED: &str = "trace=open,openat,openat2,creat,execve,execveat";

/// How this machine's `strace` traces a build ([`tracing_available`] finds out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tracer {
    /// `--seccomp-bpf`: the kernel stops the build only at the traced calls, not at every system call. A
    /// compile under plain `strace -f` took about 1.5x as long (the kata's `cc -O2`: 0.45 s against 0.30 s
    /// untraced); with the filter, about as long as untraced, and the same trace.
    seccomp: bool,
}

impl Tracer {
    /// The program a build runs under to record what it reads, writing the trace to `log`.
    pub(crate) fn command(self, log: &Path) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec!["strace".into()];
        if self.seccomp {
            args.push("--seccomp-bpf".into());
        }
        args.extend(
            ["-f", "-qq", "-y", "-e", TRACED, "-e", "signal=none", "-o"]
                .iter()
                .map(OsString::from),
        );
        args.push(log.as_os_str().to_owned());
        args.push("--".into());
        args
    }
}

/// Whether builds can be traced here: `strace` runs and may trace (a container may forbid ptrace); why not.
/// With a seccomp filter where the kernel and strace allow one, else without.
pub(crate) fn tracing_available(scratch_log: &Path) -> Result<Tracer, String> {
    let probe = |seccomp: bool| {
        let mut command = Command::new("strace");
        if seccomp {
            command.arg("--seccomp-bpf");
        }
        command
            .args(["-f", "-qq", "-e", TRACED, "-o"])
            .arg(scratch_log)
            .args(["--", "true"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
    };
    if probe(true).is_ok_and(|out| out.status.success()) {
        return Ok(Tracer { seccomp: true });
    }
    match probe(false) {
        Ok(out) if out.status.success() => Ok(Tracer { seccomp: false }),
        Ok(out) => Err(format!(
            "strace cannot trace here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err("strace is not installed".to_owned())
        }
        Err(e) => Err(format!("strace cannot run: {e}")),
    }
}

/// What a build read, by path: files (with their bytes' id, once hashed) and paths it found missing.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Inputs {
    pub(crate) files: BTreeSet<PathBuf>,
    pub(crate) absent: BTreeSet<PathBuf>,
    /// Files an assembler (`as`, `*-as`) read beside its input and the system's own (an `.include` or
    /// `.incbin`): ccache does not see these, so its objects cannot be trusted for such a build.
    pub(crate) assembler_reads: BTreeSet<PathBuf>,
}

/// Where a system's own files live: what an assembler reads there (its libraries, locale) is not its source's.
const SYSTEM_DIRS: &[&str] = &[
    "/usr/lib",
    "/usr/lib64",
    "/lib",
    "/lib64",
    "/etc",
    "/usr/share",
];

/// Whether `program` is an assembler (`as`, `arm-none-eabi-as`).
fn is_assembler(program: &Path) -> bool {
    program
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "as" || n.ends_with("-as"))
}

/// One traced call: the syscall's name, its arguments' text and what it returned.
struct Call<'a> {
    pid: &'a str,
    name: &'a str,
    args: &'a str,
    result: &'a str,
}

/// Read a trace into [`Inputs`]: a file opened to read (and not also written by the build, which makes it a
/// product), a program executed, a path looked for in vain. Paths are lexically normalised, never resolved
/// through links (a link's target may change; the path the build named is what it reads next time). `ignore`
/// says which paths are not inputs (rho's own directories); an unresolvable relative path is an error.
pub(crate) fn read_trace(text: &str, ignore: &dyn Fn(&Path) -> bool) -> Result<Inputs, String> {
    let mut pending: BTreeMap<&str, String> = BTreeMap::new();
    let mut cwd: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut read = BTreeSet::new();
    let mut written = BTreeSet::new();
    let mut absent = BTreeSet::new();
    let mut relative_programs = Vec::new();
    let mut programs: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut by_assembler = BTreeSet::new();
    for line in text.lines() {
        // strace pads a short process id to its column (`123   execve(...)`).
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let rest = rest.trim_start();
        // A call another process interrupted: its two halves are joined.
        let whole;
        let rest = if let Some(head) = rest.strip_suffix(" <unfinished ...>") {
            pending.insert(pid, head.to_owned());
            continue;
        } else if let Some(tail) = rest.strip_prefix("<... ") {
            let Some(head) = pending.remove(pid) else {
                continue;
            };
            let Some((_, after)) = tail.split_once(" resumed>") else {
                continue;
            };
            whole = format!("{head}{after}");
            whole.as_str()
        } else {
            rest
        };
        let Some(call) = parse_call(pid, rest) else {
            continue;
        };
        let before = read.len();
        let newly_read = |read: &BTreeSet<PathBuf>| read.len() > before;
        handle_call(
            &call,
            &mut cwd,
            &mut read,
            &mut written,
            &mut absent,
            &mut relative_programs,
        );
        if call.name.starts_with("execve") && !call.result.starts_with('-') {
            if let Some((path, _)) = quoted(call.args) {
                programs.insert(call.pid.to_owned(), PathBuf::from(path));
            }
        } else if call.name.starts_with("open")
            && newly_read(&read)
            && programs.get(call.pid).is_some_and(|p| is_assembler(p))
            && let Some((path, _)) = decoded_dir(call.args)
                .map(|(_, rest)| rest)
                .or(Some(call.args))
                .and_then(quoted)
        {
            let full = match (cwd.get(call.pid), Path::new(&path).is_absolute()) {
                (_, true) => PathBuf::from(&path),
                (Some(dir), false) => dir.join(&path),
                (None, false) => PathBuf::from(&path),
            };
            by_assembler.insert(normalise(&full));
        }
    }
    // A trace always starts with the build's shell being executed: without it the trace is not whole.
    if !read
        .iter()
        .any(|p| p.file_name().is_some_and(|n| n == "sh"))
    {
        return Err(format!(
            "the trace of the build is incomplete ({} bytes, no shell started)",
            text.len()
        ));
    }
    for (pid, program) in relative_programs {
        let dir = cwd.get(&pid).ok_or_else(|| {
            format!(
                "the build ran {} from a directory the trace does not show",
                program.display()
            )
        })?;
        read.insert(normalise(&dir.join(program)));
    }
    let keep = |path: &PathBuf| !written.contains(path) && !ignore(path);
    let system = |path: &PathBuf| SYSTEM_DIRS.iter().any(|dir| path.starts_with(dir));
    Ok(Inputs {
        assembler_reads: by_assembler
            .into_iter()
            .filter(|p| keep(p) && !system(p))
            .collect(),
        files: read.into_iter().filter(keep).collect(),
        absent: absent.into_iter().filter(keep).collect(),
    })
}

/// `NAME(ARGS) = RESULT` of one line, or `None` for anything else (a signal, an exit).
fn parse_call<'a>(pid: &'a str, rest: &'a str) -> Option<Call<'a>> {
    let open = rest.find('(')?;
    let close = rest.rfind(") = ")?;
    Some(Call {
        pid,
        name: &rest[..open],
        args: rest.get(open + 1..close)?,
        result: &rest[close + 4..],
    })
}

fn handle_call(
    call: &Call,
    cwd: &mut BTreeMap<String, PathBuf>,
    read: &mut BTreeSet<PathBuf>,
    written: &mut BTreeSet<PathBuf>,
    absent: &mut BTreeSet<PathBuf>,
    relative_programs: &mut Vec<(String, PathBuf)>,
) {
    let missing = call.result.contains("ENOENT") || call.result.contains("ENOTDIR");
    let succeeded = !call.result.starts_with('-');
    match call.name {
        "execve" | "execveat" => {
            let Some((path, _)) = quoted(call.args) else {
                return;
            };
            let path = PathBuf::from(path);
            if !path.is_absolute() {
                if succeeded {
                    relative_programs.push((call.pid.to_owned(), path));
                }
                return;
            }
            if succeeded {
                read.insert(normalise(&path));
            } else if missing {
                absent.insert(normalise(&path));
            }
        }
        "open" | "openat" | "openat2" | "creat" => {
            // `openat(DIRFD</dir>, "path", FLAGS...)`: the directory the path is relative to, decoded by -y.
            let (dir, after_dir) = match call.name {
                "openat" | "openat2" => match decoded_dir(call.args) {
                    Some((dir, rest)) => (Some(dir), rest),
                    None => (None, call.args),
                },
                _ => (None, call.args),
            };
            if let Some(dir) = &dir
                && call.args.starts_with("AT_FDCWD")
            {
                cwd.insert(call.pid.to_owned(), dir.clone());
            }
            let Some((path, flags)) = quoted(after_dir) else {
                return;
            };
            let path = PathBuf::from(path);
            let full = match (&dir, path.is_absolute()) {
                (_, true) => path,
                (Some(dir), false) => dir.join(path),
                (None, false) => return,
            };
            let full = normalise(&full);
            let writes = call.name == "creat"
                || ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"]
                    .iter()
                    .any(|flag| flags.contains(flag));
            if writes {
                written.insert(full);
            } else if flags.contains("O_DIRECTORY") {
                // A directory listed (a glob): not keyed (docs/gate.md).
            } else if succeeded {
                read.insert(full);
            } else if missing {
                absent.insert(full);
            }
        }
        _ => {}
    }
}

/// The directory of `DIRFD</dir>, ...` and the text after its comma.
fn decoded_dir(args: &str) -> Option<(PathBuf, &str)> {
    let start = args.find("</")?;
    let comma = args.find(">, ")?;
    if comma < start {
        return None;
    }
    Some((PathBuf::from(&args[start + 1..comma]), &args[comma + 3..]))
}

/// The first quoted string of `args` (strace's escapes undone) and the text after it.
fn quoted(args: &str) -> Option<(String, &str)> {
    let start = args.find('"')?;
    let mut out = Vec::new();
    let bytes = args.as_bytes();
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let text = String::from_utf8(out).ok()?;
                return Some((text, &args[i + 1..]));
            }
            b'\\' if i + 1 < bytes.len() => {
                let next = bytes[i + 1];
                match next {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'0'..=b'7' => {
                        let digits: Vec<u8> = bytes[i + 1..]
                            .iter()
                            .take(3)
                            .take_while(|b| (b'0'..=b'7').contains(*b))
                            .copied()
                            .collect();
                        let value = digits.iter().fold(0u32, |v, d| v * 8 + u32::from(d - b'0'));
                        out.push(u8::try_from(value).ok()?);
                        i += digits.len() + 1;
                        continue;
                    }
                    b'x' => {
                        let hex = args.get(i + 2..i + 4)?;
                        out.push(u8::from_str_radix(hex, 16).ok()?);
                        i += 4;
                        continue;
                    }
                    other => out.push(other),
                }
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

/// `path` without `.` and with `..` taken lexically (links are not followed: the path the build named).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The first of `paths` changed since `since` (its time of change or modification as new as it, less the
/// coarsest clock step a file system stamps with): a file edited while the build ran may have been read
/// in either version, so the build is not stored under the bytes read after it.
pub(crate) fn changed_since(paths: &[PathBuf], since: SystemTime) -> Option<&Path> {
    use std::os::unix::fs::MetadataExt as _;
    let since = since
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    // Ten milliseconds: the coarse clock a file system stamps with may lag the real one by a tick.
    let since = since - 10_000_000;
    paths
        .iter()
        .find(|path| {
            std::fs::metadata(path).is_ok_and(|m| {
                let ctime = i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec());
                let mtime = i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec());
                ctime >= since || mtime >= since
            })
        })
        .map(PathBuf::as_path)
}

/// How a path under the side's checkout or repository `top` is written in a record: `{top}/...`, so that a
/// revision's record holds in the next gate's worktree (another temporary directory).
const TOP: &str = "{top}";

fn shown(path: &Path, top: &Path) -> String {
    match path.strip_prefix(top) {
        Ok(rest) => format!("{TOP}/{}", rest.display()),
        Err(_) => path.display().to_string(),
    }
}

fn resolved(text: &str, top: &Path) -> PathBuf {
    match text.strip_prefix(TOP) {
        Some(rest) => top.join(rest.trim_start_matches('/')),
        None => PathBuf::from(text),
    }
}

/// The record of `inputs` an entry keeps: `file ID PATH` (git's object id of its bytes now) and `absent PATH`
/// lines. A file gone since the build read it is an error (the build may have read it in any state).
pub(crate) fn record(
    inputs: &Inputs,
    top: &Path,
    ids: &mut crate::file_ids::FileIds,
) -> Result<String, String> {
    // A directory opened as a file (a locale directory looked into) is a listing: not keyed.
    let files: Vec<PathBuf> = inputs
        .files
        .iter()
        .filter(|p| !std::fs::metadata(p).is_ok_and(|m| m.is_dir()))
        .cloned()
        .collect();
    let ids = ids.ids(&files);
    let mut text = String::new();
    for (path, id) in files.iter().zip(ids) {
        let id = id.ok_or_else(|| format!("{} went while the build ran", path.display()))?;
        text.push_str(&format!("file {id} {}\n", shown(path, top)));
    }
    for path in &inputs.absent {
        text.push_str(&format!("absent {}\n", shown(path, top)));
    }
    Ok(text)
}

/// Whether a [`record`] still holds in the side whose top is `top`: every file has the bytes it had, every
/// missing path is still missing; else which input changed.
pub(crate) fn check_record(
    text: &str,
    top: &Path,
    known: &mut crate::file_ids::FileIds,
) -> Result<(), String> {
    let mut files = Vec::new();
    let mut ids = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let bad = || {
            format!(
                "inputs line {}: expected `file ID PATH` or `absent PATH`",
                number + 1
            )
        };
        if let Some(rest) = line.strip_prefix("file ") {
            let (id, path) = rest.split_once(' ').ok_or_else(bad)?;
            ids.push(id);
            files.push(resolved(path, top));
        } else if let Some(path) = line.strip_prefix("absent ") {
            let path = resolved(path, top);
            if std::fs::symlink_metadata(&path).is_ok() {
                return Err(format!(
                    "{} exists now, and the build looked for it",
                    path.display()
                ));
            }
        } else {
            return Err(bad());
        }
    }
    let now = known.ids(&files);
    for ((path, id), now) in files.iter().zip(ids).zip(now) {
        if now.as_deref() != Some(id) {
            return Err(format!("{}, which the build read, changed", path.display()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_gives_the_files_read_and_the_paths_found_missing() {
        let trace = r#"10    execve("/usr/bin/sh", ["sh", "-c", "x"], 0x1 /* 3 vars */) = 0
10 execve("/opt/bin/cc", ["cc"], 0x1 /* 3 vars */) = -1 ENOENT (No such file or directory)
11 execve("/usr/bin/cc", ["cc"], 0x1 /* 3 vars */) = 0
11 openat(AT_FDCWD</work/m>, "../k.c", O_RDONLY|O_NOCTTY) = 3</work/k.c>
11 openat(AT_FDCWD</work/m>, "/tmp/cc1.s", O_RDWR|O_CREAT|O_EXCL, 0600) = 3</tmp/cc1.s>
12 openat(AT_FDCWD</work/m>, "/tmp/cc1.s", O_RDONLY <unfinished ...>
11 openat(AT_FDCWD</work/m>, "inc/cfg.h", O_RDONLY|O_NOCTTY) = -1 ENOENT (No such file or directory)
12 <... openat resumed>) = 4</tmp/cc1.s>
11 openat(AT_FDCWD</work/m>, "/out/x.o", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</out/x.o>
11 openat(AT_FDCWD</work/m>, "/ext/link.h", O_RDONLY) = 4</ext/real/target.h>
11 openat(AT_FDCWD</work/m>, "/rho/out/a.o", O_RDONLY) = 4</rho/out/a.o>
11 openat(AT_FDCWD</work/m>, "src", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 3</work/m/src>
11 +++ exited with 0 +++
"#;
        let inputs = read_trace(trace, &|p| p.starts_with("/rho")).unwrap();
        assert!(
            read_trace("", &|_| false).is_err(),
            "an empty trace is not whole"
        );
        let files: Vec<&str> = inputs.files.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(
            files,
            ["/ext/link.h", "/usr/bin/cc", "/usr/bin/sh", "/work/k.c"]
        );
        let absent: Vec<&str> = inputs.absent.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(absent, ["/opt/bin/cc", "/work/m/inc/cfg.h"]);
    }

    #[test]
    fn strace_escapes_are_undone() {
        assert_eq!(
            quoted(r#""a\"b\\c\303\251", O_RDONLY"#),
            Some(("a\"b\\cé".to_owned(), ", O_RDONLY"))
        );
    }
}
