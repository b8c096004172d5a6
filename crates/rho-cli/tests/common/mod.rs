//! Helpers shared by the integration tests: run the real `rho` binary with a timeout, find the repository's
//! files, read the JSON document, look for leftover processes; and for the module.yml tests, a temporary
//! project directory, small C suites and a canned wire stream.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rho_exec::{Runner, Termination};

/// `check --diff HEAD` on instructions counted under Callgrind.
pub const COUNTED_CHECK: [&str; 6] = [
    "bench",
    "check",
    "--diff",
    "HEAD",
    "--measure",
    "instructions",
];

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

    /// `rho` exited with status `code`.
    #[track_caller]
    pub fn assert_exit(&self, code: i32) {
        assert_eq!(self.status, Some(code), "{}", self.describe());
    }

    /// The JSON document `rho` printed as the last line of its stdout (as `rho bench gate` does).
    #[track_caller]
    pub fn document(&self) -> serde_json::Value {
        let last = self.stdout.lines().last().unwrap_or_default();
        serde_json::from_str(last)
            .unwrap_or_else(|e| panic!("last line is not JSON ({e}):\n{}", self.describe()))
    }

    /// `rho`'s stdout contains `text`.
    #[track_caller]
    pub fn assert_stdout_has(&self, text: &str) {
        assert!(self.stdout.contains(text), "{}", self.describe());
    }

    /// `rho`'s stdout contains `text`, wherever the report wrapped it: runs of blanks and line breaks compared
    /// as one space.
    #[track_caller]
    pub fn assert_stdout_has_words(&self, text: &str) {
        let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words(&self.stdout).contains(&words(text)),
            "{}",
            self.describe()
        );
    }

    /// Neither of `rho`'s streams carries any of the raw control characters `raw` (a suite's or a metric's
    /// terminal control sequences are shown escaped).
    #[track_caller]
    pub fn assert_no_raw(&self, raw: &[char]) {
        for (stream, text) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            assert!(
                !text.contains(raw),
                "a raw control character on rho's {stream}:\n{}",
                self.describe()
            );
        }
    }

    /// `rho`'s stderr contains `text`.
    #[track_caller]
    pub fn assert_stderr_has(&self, text: &str) {
        assert!(self.stderr.contains(text), "{}", self.describe());
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
    run_rho(rho_command(tmp, args), args, limit)
}

/// Run `rho` to completion in `dir`, its temporary directory there too (at most `limit`).
pub fn rho_at(dir: &Path, args: &[&str], limit: Duration) -> Outcome {
    let mut command = rho_command(dir, args);
    command.current_dir(dir);
    run_rho(command, args, limit)
}

/// Run `rho` to completion with `env` added (at most `limit`).
pub fn rho_in_env(tmp: &Path, args: &[&str], env: &[(&str, &str)], limit: Duration) -> Outcome {
    let mut command = rho_command(tmp, args);
    command.envs(env.iter().copied());
    run_rho(command, args, limit)
}

/// Run a `rho` command made by [`rho_command`] (its `args` given again for the message) to completion, at
/// most `limit`.
pub fn run_rho(command: Command, args: &[&str], limit: Duration) -> Outcome {
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

/// `rho ARGS --json FILE` with `env` added, run in a fresh temporary directory, at most `limit`. Returns the
/// directory (for the test to see what is left in it), the outcome and the document if one was written.
pub fn rho_to_json(
    args: &[&str],
    env: &[(&str, &str)],
    limit: Duration,
) -> (tempfile::TempDir, Outcome, Option<serde_json::Value>) {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("run.json");
    let mut args = args.to_vec();
    args.extend(["--json", json.to_str().unwrap()]);
    let outcome = rho_in_env(tmp.path(), &args, env, limit);
    let document = std::fs::read_to_string(&json)
        .ok()
        .map(|text| serde_json::from_str(&text).unwrap());
    (tmp, outcome, document)
}

/// `rho ARGS --json FILE` run in a fresh temporary directory, at most `limit`: it must exit 0 and leave
/// nothing there but the document (its build directory was removed). Returns its outcome and the document.
pub fn rho_json(args: &[&str], limit: Duration) -> (Outcome, serde_json::Value) {
    let (tmp, outcome, document) = rho_to_json(args, &[], limit);
    outcome.assert_exit(0);
    assert_eq!(entries(tmp.path()), ["run.json"]);
    (outcome, document.unwrap())
}

/// `git ARGS` in `dir` as a test author; it must succeed. Returns its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "rho test")
        .env("GIT_AUTHOR_EMAIL", "test@rho.invalid")
        .env("GIT_COMMITTER_NAME", "rho test")
        .env("GIT_COMMITTER_EMAIL", "test@rho.invalid")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
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
    wait_for_none(limit, || processes_mentioning(needle))
}

/// Wait up to `limit` for nothing to run in process group `pgid` (a SIGKILLed orphan may take a moment to be
/// reaped by init); returns the survivors, as [`rho_exec::running_in_group`] names them.
pub fn wait_for_group_gone(pgid: i32, limit: Duration) -> Vec<(i32, String)> {
    wait_for_none(limit, || rho_exec::running_in_group(pgid))
}

/// Look at `survivors()` until it is empty or `limit` has passed; the last look.
fn wait_for_none<T>(limit: Duration, survivors: impl Fn() -> Vec<T>) -> Vec<T> {
    let until = Instant::now() + limit;
    loop {
        let left = survivors();
        if left.is_empty() || Instant::now() >= until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Wait a moment for no process to mention `needle`, and fail naming those still running.
#[track_caller]
pub fn assert_no_process_left(needle: &str) {
    let left = wait_for_no_process(needle, Duration::from_secs(5));
    assert!(left.is_empty(), "processes left running: {left:?}");
}

/// Send SIGINT to `child` (as a Ctrl-C at the terminal would).
pub fn interrupt(child: &std::process::Child) {
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: sending a signal to our own child.
    unsafe {
        libc::kill(pid, libc::SIGINT);
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

/// Copy directory `from` into `to`, recursively, skipping Python caches (`__pycache__`).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name().to_string_lossy().starts_with("__") {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Nothing is left in `dir`.
#[track_caller]
pub fn assert_nothing_left(dir: &Path) {
    assert!(entries(dir).is_empty(), "left behind: {:?}", entries(dir));
}

/// What the board tests need: the cross toolchain (C and C++), the emulator and make, with the Debian packages
/// that bring them.
pub const CROSS_TOOLS: &[(&str, &str)] = &[
    (
        "arm-none-eabi-gcc",
        "gcc-arm-none-eabi, libnewlib-arm-none-eabi",
    ),
    ("arm-none-eabi-g++", "libstdc++-arm-none-eabi-newlib"),
    ("qemu-system-arm", "qemu-system-arm"),
    ("make", "make"),
];

/// Whether every one of `tools` (program, Debian package) runs; when one does not, the test is skipped with a
/// note, or fails when `RHO_REQUIRE_CROSS` says it must run (`.ci/run` sets it and installs them all).
pub fn tools_present(test: &str, tools: &[(&str, &str)]) -> bool {
    let missing: Vec<&(&str, &str)> = tools
        .iter()
        .filter(|(tool, _)| {
            !Command::new(tool)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    let names = missing
        .iter()
        .map(|(t, _)| *t)
        .collect::<Vec<_>>()
        .join(", ");
    let packages = missing
        .iter()
        .map(|(_, p)| *p)
        .collect::<Vec<_>>()
        .join(", ");
    skipped_unless_required(test, &names, &packages)
}

/// `what` (a tool, a library) is not installed: the test is skipped with a note naming the Debian `packages`
/// that bring it, or fails when `RHO_REQUIRE_CROSS` says it must run. Returns false (for `if !present { return }`).
pub fn skipped_unless_required(test: &str, what: &str, packages: &str) -> bool {
    if std::env::var_os("RHO_REQUIRE_CROSS").is_some() {
        panic!("{test}: {what} not installed, and RHO_REQUIRE_CROSS says this test must run");
    }
    println!("note: {test} skipped: {what} not installed (.ci/run installs {packages})");
    false
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

/// The JSON document in `path`.
pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The names of the benchmarks of a `rho-bench-run/1` document, in its order.
pub fn bench_names(document: &serde_json::Value) -> Vec<&str> {
    document["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect()
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

/// The net median cycles of an iteration of benchmark `name` in a `rho-bench-run/1` document.
pub fn median_cycles(document: &serde_json::Value, name: &str) -> f64 {
    f64_at(bench(document, name), "/cycles/per_iteration/median")
}

/// In a run of the example suite, CRC-32 over 256 bytes costs between 3 and 5 times CRC-32 over 64 (per
/// iteration, by the figure at `pointer` in each benchmark, an exact one: cycles under QEMU's -icount,
/// instructions under Callgrind): the cost is the per-byte loop, less the fixed overhead.
#[track_caller]
pub fn assert_crc_256_costs_3_to_5_times_crc_64(document: &serde_json::Value, pointer: &str) {
    let crc_64 = f64_at(bench(document, "bench_crc_64"), pointer);
    let crc_256 = f64_at(bench(document, "bench_crc_256"), pointer);
    let ratio = crc_256 / crc_64;
    assert!(
        (3.0..=5.0).contains(&ratio),
        "crc_256 {crc_256} / crc_64 {crc_64} = {ratio}"
    );
}

/// The members of `examples/growth_bench.c`, in registration order.
pub const GROWTH_MEMBERS: [&str; 12] = [
    "sum/256",
    "sum/1024",
    "sum/4096",
    "sum/16384",
    "pairwise/16",
    "pairwise/32",
    "pairwise/64",
    "pairwise/128",
    "dup/256",
    "dup/512",
    "dup/1024",
    "dup/2048",
];

/// The fit of `metric` (`cycles`, `instructions`, `stack_bytes`, ...) for `family` in a run's document (its
/// `growth` object).
pub fn growth_fit<'a>(
    document: &'a serde_json::Value,
    family: &str,
    metric: &str,
) -> &'a serde_json::Value {
    let families = document["families"].as_array().expect("a families array");
    let family = families
        .iter()
        .find(|f| f["name"] == family)
        .unwrap_or_else(|| panic!("no family {family} in {families:?}"));
    let growth = family["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == metric)
        .unwrap_or_else(|| panic!("no {metric} growth in {family}"));
    &growth["growth"]
}

/// The best fit's complexity (`n`, `n^2`, ...) of `metric` for `family` in a run's document.
pub fn best_growth(document: &serde_json::Value, family: &str, metric: &str) -> String {
    let growth = growth_fit(document, family, metric);
    growth["best"]["complexity"]
        .as_str()
        .unwrap_or_else(|| panic!("no fit in {growth}"))
        .to_string()
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

    /// Run `rho ARGS --json FILE` in the project's root: it must exit 0. Its outcome and the document.
    pub fn rho_json(&self, args: &[&str]) -> (Outcome, serde_json::Value) {
        let json = self.path().join("run.json");
        let outcome = self.rho(&[args, &["--json", json.to_str().unwrap()]].concat());
        outcome.assert_exit(0);
        (outcome, read_json(&json))
    }

    /// Run `rho ARGS` in `dir` with `env` added, at most five minutes (a test fails rather than hangs).
    pub fn rho_in(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
        let mut command = rho_command(&self.path().join("tmp"), args);
        command.current_dir(dir);
        command.env_remove("RHO_BENCH_SCALE");
        command.envs(env.iter().copied());
        run_rho(command, args, Duration::from_secs(300))
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

/// The wire stream of the canned suites: one benchmark `bench_canned`, every sample the shell variable `$v`
/// cycles, no stack figure.
pub const CANNED_STREAM: &str = r#"@rho-bench 1
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
"#;

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
{CANNED_STREAM}EOF
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
/// names the `verdict` columns): its name, then figure, max and verdict per budgeted metric. A table too wide
/// for the report has a row per benchmark and metric (`budgets  metric  figure  max  verdict`): its rows for
/// `bench` are read as one, without the metric column.
pub fn budget_row<'a>(stdout: &'a str, bench: &'a str) -> Vec<&'a str> {
    let mut lines = stdout.lines();
    let header = lines
        .find(|l| l.starts_with("budgets ") && l.contains("verdict"))
        .unwrap_or_else(|| panic!("no budget table in:\n{stdout}"));
    let rows: Vec<&str> = lines
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| l.split_whitespace().next() == Some(bench))
        .collect();
    assert!(!rows.is_empty(), "no budget row for {bench} in:\n{stdout}");
    if !header.split_whitespace().any(|w| w == "metric") {
        return rows[0].split_whitespace().collect();
    }
    let mut words = vec![bench];
    for row in rows {
        // Cells are two or more spaces apart; a metric's label may have a space of its own.
        let cells: Vec<&str> = row
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        for cell in &cells[2..] {
            words.extend(cell.split_whitespace());
        }
    }
    words
}

/// Whether the cross toolchain and the emulator are here (see [`tools_present`]).
pub fn cross_tools_present(test: &str) -> bool {
    tools_present(test, CROSS_TOOLS)
}

/// Chromium, headless, on `page` in a window of `window` (`"1200,1600"`), with `args` (`--dump-dom`,
/// `--screenshot=...`); its profile in `profile`, killed with its group if it runs over two minutes. Returns
/// what it printed on stdout.
pub fn chromium(profile: &Path, page: &Path, window: &str, args: &[&str]) -> String {
    let mut command = Command::new("chromium");
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--window-size={window}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .current_dir(profile)
        .env("HOME", profile);
    let (finished, stdout) = Runner::new(command)
        .timeout(Duration::from_secs(120))
        .stderr_limit(1 << 20)
        .run_collect()
        .unwrap();
    assert!(
        matches!(finished.termination, Termination::Exited(0)),
        "chromium {args:?}: {:?}\n{}",
        finished.termination,
        finished.stderr
    );
    stdout
}

/// A suite whose benchmarks each leave a file `ran/NAME` when they run (their body's first iteration), so
/// what a share ran is seen on disk.
pub const MARKING_SUITE: &str = r#"#include <rho/bench.h>
#include <stdio.h>

static void mark(const char *name)
{
    char path[64];
    FILE *file;
    sprintf(path, "ran/%s", name);
    file = fopen(path, "w");
    if (file != NULL) {
        fclose(file);
    }
}

static void bench_left(rho_bench_t *state)
{
    unsigned x = 1u, first = 1u;
    RHO_BENCH_LOOP(state) {
        if (first) {
            mark("bench_left");
            first = 0u;
        }
        x = x * 3u + 1u;
        RHO_BENCH_KEEP(x);
    }
}

static void bench_right(rho_bench_t *state)
{
    unsigned x = 2u, first = 1u;
    RHO_BENCH_LOOP(state) {
        if (first) {
            mark("bench_right");
            first = 0u;
        }
        x = x * 5u + 1u;
        RHO_BENCH_KEEP(x);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_left);
    RHO_BENCH_ADD(&suite, bench_right);
    return rho_bench_main(&suite, argc, argv);
}
"#;
