//! Helpers shared by the integration tests: run the real `rho` binary with a timeout, find the repository's
//! files, read the JSON document, look for leftover processes.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rho_exec::{Runner, Termination};

/// The repository root (the workspace).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn repo_file(relative: &str) -> PathBuf {
    repo().join(relative)
}

/// What a run of `rho` did.
#[derive(Debug)]
pub struct Outcome {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Outcome {
    pub fn describe(&self) -> String {
        format!(
            "status {:?} after {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.status, self.elapsed, self.stdout, self.stderr
        )
    }
}

/// The `rho` binary with its temporary directory set to `tmp` (so its build directories, and the processes
/// started from them, can be found there).
pub fn rho_command(tmp: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command.args(args).current_dir(repo()).env("TMPDIR", tmp);
    command
}

/// Run `rho` to completion (at most `limit`; a test fails rather than hangs).
pub fn rho_in(tmp: &Path, args: &[&str], limit: Duration) -> Outcome {
    let start = Instant::now();
    let (finished, stdout) = Runner::new(rho_command(tmp, args))
        .timeout(limit)
        .stderr_limit(1 << 20)
        .run_collect()
        .unwrap();
    let status = match finished.termination {
        Termination::Exited(code) => Some(code),
        Termination::TimedOut(_) => panic!("rho {args:?} ran past {limit:?}"),
        _ => None,
    };
    Outcome {
        status,
        stdout,
        stderr: finished.stderr,
        elapsed: start.elapsed(),
    }
}

/// Processes whose command line mentions `needle` (read from /proc).
pub fn processes_mentioning(needle: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
        if cmdline.contains(needle) && pid != std::process::id() {
            found.push((pid, cmdline));
        }
    }
    found
}

/// Wait up to `limit` for no process to mention `needle`; returns the survivors.
pub fn wait_for_no_process(needle: &str, limit: Duration) -> Vec<(u32, String)> {
    let until = Instant::now() + limit;
    loop {
        let left = processes_mentioning(needle);
        if left.is_empty() || Instant::now() >= until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The entries left in a directory.
pub fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Write a small C suite into `dir`.
pub fn write_c(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The value of `#define NAME value` in a C file (a figure the suite itself declares, so the test does not
/// repeat it).
pub fn c_define(path: &Path, name: &str) -> u64 {
    let text = std::fs::read_to_string(path).unwrap();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if words.next() == Some("#define") && words.next() == Some(name) {
            let value: String = words.collect::<Vec<_>>().join(" ");
            let value = value.trim_start_matches('(').trim_end_matches(')');
            let value = value.trim_end_matches(['u', 'U', 'l', 'L']);
            return value.parse().unwrap_or_else(|_| {
                panic!("{name} in {} is not a number: {value}", path.display())
            });
        }
    }
    panic!("no #define {name} in {}", path.display());
}

/// The benchmark called `name` in a `rho-bench-run/1` document.
pub fn bench<'a>(document: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    document["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == name)
        .unwrap_or_else(|| panic!("no benchmark {name} in the JSON document"))
}

pub fn u64_at(value: &serde_json::Value, pointer: &str) -> u64 {
    value
        .pointer(pointer)
        .and_then(|v| v.as_u64())
        .unwrap_or_else(|| panic!("no integer at {pointer} in {value}"))
}

pub fn f64_at(value: &serde_json::Value, pointer: &str) -> f64 {
    value
        .pointer(pointer)
        .and_then(|v| v.as_f64())
        .unwrap_or_else(|| panic!("no number at {pointer} in {value}"))
}
