//! `cargo:` suites: a `[[bench]] harness = false` target of a cargo project that uses the `rho-bench` crate.
//! rho builds it with `cargo bench --no-run --message-format=json-render-diagnostics` in the module root
//! (cargo finds the project from there), reads the executable's path from cargo's `compiler-artifact`
//! message, and runs it with `RHO_BENCH_FORMAT=wire` (the harness then prints the raw stream instead of its
//! report) and the harness settings in the environment, like any suite.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::error::{Doing as _, Result, SuiteError};
use rho_config::{CargoSuite, ModuleConfig};
use rho_exec::{Runner, Termination};

use crate::cfiles::MIN_BUILD_TIMEOUT;

/// Where module.yml declares `suite`, as its other errors say it: `FILE:LINE:COLUMN: the cargo suite
/// `cargo bench NAME``. Every error about a cargo suite starts with it.
pub fn located(config: &ModuleConfig, suite: &CargoSuite) -> String {
    format!(
        "{}:{}: the cargo suite `{}`",
        config.file.display(),
        suite.at,
        suite.describe()
    )
}

/// The cargo to run: `$CARGO` (set when rho itself runs under cargo) when set, else `cargo`.
fn cargo_program() -> std::ffi::OsString {
    std::env::var_os("CARGO")
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "cargo".into())
}

/// The cargo command that builds `suite` (without running it) and prints its artifacts as JSON, in `root`;
/// `target` is a rustc target triple to build for (`None`: the host).
pub fn build_command(suite: &CargoSuite, root: &Path, target: Option<&str>) -> Command {
    let mut command = Command::new(cargo_program());
    command
        .arg("bench")
        .arg("--no-run")
        .arg("--message-format=json-render-diagnostics")
        .arg("--bench")
        .arg(&suite.bench);
    if let Some(package) = &suite.package {
        command.arg("-p").arg(package);
    }
    if !suite.features.is_empty() {
        command.arg("--features").arg(suite.features.join(","));
    }
    if let Some(target) = target {
        command.arg("--target").arg(target);
    }
    command.current_dir(root);
    command
}

/// The boards a cargo suite runs on: their rustc target and the memory map cortex-m-rt links against
/// (`memory.x`, its FLASH and RAM regions), as QEMU models them (`c/ports/boards/<board>.ld`).
pub fn rust_board(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        "mps2-an386" => Some((
            "thumbv7em-none-eabihf",
            "/* The MPS2 (AN386, Cortex-M4) memory map as QEMU models it: c/ports/boards/mps2-an386.ld. */\n\
             MEMORY\n{\n    FLASH : ORIGIN = 0x00000000, LENGTH = 4M\n    RAM : ORIGIN = 0x20000000, LENGTH = 4M\n}\n",
        )),
        _ => None,
    }
}

/// Build `suite` for built-in board `board` (a no_std build of the rho-bench crate, feature `cortex-m`):
/// cortex-m-rt's `link.x` with the board's `memory.x` (written under the project's target directory, so the
/// flags, and so the build, stay the same from run to run), the settings compiled in, the stream's target
/// named after the board. Returns the ELF.
pub fn build_for_board(
    config: &ModuleConfig,
    suite: &CargoSuite,
    env: &[(String, String)],
    board: &crate::ports::BoardData,
    timeout: Duration,
) -> Result<PathBuf> {
    build_for_board_here(config, suite, env, board, timeout).doing(|| located(config, suite))
}

fn build_for_board_here(
    config: &ModuleConfig,
    suite: &CargoSuite,
    env: &[(String, String)],
    board: &crate::ports::BoardData,
    timeout: Duration,
) -> Result<PathBuf> {
    let Some((triple, memory)) = rust_board(board.name) else {
        return Err(SuiteError::Unsupported(format!(
            "a cargo suite runs on the host and on mps2-an386, not yet on {}",
            board.name
        )));
    };
    let link_dir = target_directory(config, timeout)?
        .join("rho-link")
        .join(board.name);
    std::fs::create_dir_all(&link_dir).doing(|| format!("cannot create {}", link_dir.display()))?;
    let memory_x = link_dir.join("memory.x");
    if std::fs::read_to_string(&memory_x).ok().as_deref() != Some(memory) {
        std::fs::write(&memory_x, memory)
            .doing(|| format!("cannot write {}", memory_x.display()))?;
    }
    let variable = format!(
        "CARGO_TARGET_{}_RUSTFLAGS",
        triple.to_uppercase().replace(['-', '.'], "_")
    );
    let mut rustflags = std::env::var(&variable).unwrap_or_default();
    rustflags.push_str(&format!(
        " -C link-arg=-Tlink.x -C link-arg=-L{}",
        link_dir.display()
    ));
    let mut env = env.to_vec();
    env.push((variable, rustflags.trim().to_string()));
    env.push(("RHO_BENCH_TARGET".to_string(), board.name.to_string()));
    env.push(("RHO_BENCH_CPU_HZ".to_string(), board.cpu_hz.to_string()));
    build_here(config, suite, &env, Some(triple), timeout).map_err(|error| {
        let text = error.full_text();
        if text.contains("target may not be installed")
            || text.contains("can't find crate for `core`")
        {
            error.context(format!(
                "the Rust target is missing: rustup target add {triple}"
            ))
        } else {
            error
        }
    })
}

/// Runs a cargo `command` (at least [`MIN_BUILD_TIMEOUT`]) and returns its stdout; `program` names it when it
/// cannot start, and a failure reads `failed(): how it ended:` and cargo's stderr.
fn run_cargo(
    command: Command,
    timeout: Duration,
    program: &str,
    failed: impl FnOnce() -> String,
) -> Result<String> {
    let (finished, stdout) = Runner::new(command)
        .timeout(timeout.max(MIN_BUILD_TIMEOUT))
        .run_collect()
        .doing(|| format!("cannot run `{program}` (set CARGO to choose another)"))?;
    if finished.termination != Termination::Exited(0) {
        return Err(SuiteError::Build(format!(
            "{} {}:\n{}",
            failed(),
            finished.termination,
            finished.stderr.trim_end()
        )));
    }
    Ok(stdout)
}

/// The cargo project's target directory (`cargo metadata`).
fn target_directory(config: &ModuleConfig, timeout: Duration) -> Result<PathBuf> {
    let mut command = Command::new(cargo_program());
    command
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(&config.root);
    let stdout = run_cargo(command, timeout, "cargo metadata", || {
        format!("`cargo metadata` in {}", config.root.display())
    })?;
    let metadata: serde_json::Value = serde_json::from_str(&stdout).map_err(|error| {
        SuiteError::Build(format!(
            "`cargo metadata` printed what is not JSON: {error}"
        ))
    })?;
    metadata["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .ok_or_else(|| SuiteError::Build("`cargo metadata` named no target_directory".to_string()))
}

/// Build `suite` with cargo for the host (or for the rustc `target`) and return the bench executable; an
/// error names where module.yml declares the suite ([`located`]).
pub fn build(
    config: &ModuleConfig,
    suite: &CargoSuite,
    env: &[(String, String)],
    target: Option<&str>,
    timeout: Duration,
) -> Result<PathBuf> {
    build_here(config, suite, env, target, timeout).doing(|| located(config, suite))
}

fn build_here(
    config: &ModuleConfig,
    suite: &CargoSuite,
    env: &[(String, String)],
    target: Option<&str>,
    timeout: Duration,
) -> Result<PathBuf> {
    let mut command = build_command(suite, &config.root, target);
    command.envs(env.iter().map(|(k, v)| (k, v)));
    let what = format!("cargo bench target {}", suite.bench);
    let stdout = run_cargo(command, timeout, "cargo", || {
        format!(
            "cannot build {what} in {}: `cargo bench --no-run`",
            config.root.display()
        )
    })?;
    executable(&stdout, &suite.bench).ok_or_else(|| {
        SuiteError::Build(format!(
            "cargo built {what} in {} but named no executable for it: is it a `[[bench]]` target of the \
             project there?",
            config.root.display()
        ))
    })
}

/// The executable of bench target `bench` in cargo's JSON messages (one object a line).
pub fn executable(messages: &str, bench: &str) -> Option<PathBuf> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter(|m| {
            m["target"]["name"] == bench
                && m["target"]["kind"]
                    .as_array()
                    .is_some_and(|kinds| kinds.iter().any(|k| k == "bench"))
        })
        .filter_map(|m| m["executable"].as_str().map(PathBuf::from))
        .next_back()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_executable_is_read_from_cargos_messages() {
        let messages = r#"{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"rho_bench"},"executable":null}
{"reason":"compiler-artifact","target":{"kind":["bench"],"name":"other"},"executable":"/t/other-1"}
{"reason":"compiler-artifact","target":{"kind":["bench"],"name":"example"},"executable":"/t/example-2"}
{"reason":"build-finished","success":true}"#;
        assert_eq!(
            executable(messages, "example"),
            Some(PathBuf::from("/t/example-2"))
        );
        assert_eq!(executable(messages, "missing"), None);
    }

    #[test]
    fn the_build_names_the_bench_its_package_and_features() {
        let suite = CargoSuite {
            bench: "walk".into(),
            package: Some("tree".into()),
            features: vec!["a".into(), "b".into()],
            at: rho_config::SourcePos { line: 1, column: 1 },
        };
        let command = build_command(&suite, Path::new("."), Some("thumbv7em-none-eabihf"));
        let args: Vec<_> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "bench",
                "--no-run",
                "--message-format=json-render-diagnostics",
                "--bench",
                "walk",
                "-p",
                "tree",
                "--features",
                "a,b",
                "--target",
                "thumbv7em-none-eabihf"
            ]
        );
    }
}
