//! Helpers for the module.yml tests: a temporary project directory, `rho` run inside it, small C suites and a
//! canned wire stream.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rho_exec::{Runner, Termination};

use crate::common::{Outcome, rho_command};

/// A temporary project: a directory with a module.yml and its suites; `rho`'s own temporary files go to
/// `tmp/` inside it.
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        Project { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(relative)).unwrap()
    }

    /// Run `rho ARGS` in the project's root.
    pub fn rho(&self, args: &[&str]) -> Outcome {
        self.rho_in(self.path(), args, &[])
    }

    /// Run `rho ARGS` in `dir` with `env` added, at most five minutes (a test fails rather than hangs).
    pub fn rho_in(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
        let limit = Duration::from_secs(300);
        let mut command = rho_command(&self.path().join("tmp"), args);
        command.current_dir(dir);
        command.env_remove("RHO_BENCH_SCALE");
        for (key, value) in env {
            command.env(key, value);
        }
        let start = Instant::now();
        let (finished, stdout) = Runner::new(command)
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
}

/// A suite with a known heap peak (one 64-byte block held per iteration) and a body of a few thousand cycles
/// (a bitwise CRC-32 over 256 bytes).
pub const SUITE: &str = r#"
#include <rho/bench.h>
#include <stdint.h>
#include <stdlib.h>

static uint8_t message[256];

static uint32_t crc32(const uint8_t *data, size_t len)
{
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;
    for (i = 0; i < len; i++) {
        int bit;
        crc ^= data[i];
        for (bit = 0; bit < 8; bit++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

static void bench_crc_256(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "byte", 256);
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(crc32(message, 256));
    }
}

#define HELD_BYTES 64

static void bench_hold_64(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        void *block = malloc(HELD_BYTES);
        RHO_BENCH_HEAP_ALLOC(state, block, HELD_BYTES);
        RHO_BENCH_KEEP(block);
        RHO_BENCH_HEAP_FREE(state, block, HELD_BYTES);
        free(block);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    size_t i;
    for (i = 0; i < sizeof message; i++) {
        message[i] = (uint8_t)(i * 31u + 7u);
    }
    RHO_BENCH_ADD(&suite, bench_crc_256);
    RHO_BENCH_ADD(&suite, bench_hold_64);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// The heap peak [`SUITE`]'s `bench_hold_64` reports.
pub const HELD_BYTES: u64 = 64;

/// A module.yml for [`SUITE`] in `bench.c`: `extra` goes under `bench:` (indented two spaces).
pub fn module_yml(extra: &str) -> String {
    format!(
        "bench:\n  default_iterations: 2000\n  warmup_runs: 50\n  suites:\n    - bench.c\n{extra}"
    )
}

/// A command suite that prints a canned wire stream: one benchmark `bench_canned` on a cycle clock whose
/// samples are all `figures[k]` in its k-th run (the run count is kept in `runs.log` in the module root), no
/// stack figure.
pub fn canned_script(figures: &[u64]) -> String {
    let cases: String = figures
        .iter()
        .enumerate()
        .map(|(k, v)| format!("    {}) v={v} ;;\n", k + 1))
        .collect();
    format!(
        r#"echo run >>runs.log
n=$(wc -l <runs.log)
case $n in
{cases}    *) v={last} ;;
esac
cat <<EOF
@rho-bench 1
@target canned arch=none optimized=1
@clock cycles fake unit=cycle hz=0 resolution=1
@config iterations=3 warmup=0 time_cap_ms=0 stack_bytes=0
@bench bench_canned
:$v
:$v
:$v
@stack off
@heap peak=0 live=0 allocs=0 frees=0 free_errors=0
@end bench_canned iterations=3 warmup=0 capped=0 unit=iter per_iteration=1
@done benchmarks=1 dropped=0
EOF
"#,
        last = figures.last().copied().unwrap_or(0)
    )
}

/// The first line of `text` containing `needle` (for a message about a table row).
pub fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"))
}

/// The words of the budget table's row for `bench` (the table after the line that starts with `budgets` and
/// names the `verdict` columns).
pub fn budget_row<'a>(stdout: &'a str, bench: &str) -> Vec<&'a str> {
    let mut lines = stdout.lines();
    lines
        .find(|l| l.starts_with("budgets ") && l.contains("verdict"))
        .unwrap_or_else(|| panic!("no budget table in:\n{stdout}"));
    lines
        .find(|l| l.split_whitespace().next() == Some(bench))
        .unwrap_or_else(|| panic!("no budget row for {bench} in:\n{stdout}"))
        .split_whitespace()
        .collect()
}
