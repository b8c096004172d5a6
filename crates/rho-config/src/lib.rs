//! `module.yml` for `rho bench`: loading it, validating every key, and answering the CLI's questions about it
//! (the budgets of a benchmark, the target to run on, the gate's budget of a metric).
//!
//! This is a plain data crate: it reads one file and runs nothing (its one writer, [`starter`], lays down the
//! commented module.yml and first suite of `rho bench init`). Every error names the file, the line and
//! column, and what was expected there (`module.yml:7:5: unknown key 'max_stak_bytes' in bench.budgets; did
//! you mean 'max_stack_bytes'?`). The keys are documented in `docs/config.md`.
//!
//! ```
//! let config = rho_config::ModuleConfig::from_str(
//!     "bench:\n  budgets:\n    max_stack_bytes: 4096\n",
//!     std::path::Path::new("module.yml"),
//! )
//! .unwrap();
//! assert_eq!(config.budgets_for("bench_crc_64").max_stack_bytes, Some(4096));
//! assert_eq!(config.target(None).unwrap().name(), "host");
//! ```
//!
//! It must not know how a suite is built or run, nor how its figures are judged: it reads the file and answers
//! questions about it (docs/architecture.md).

mod builtin;
mod error;
mod model;
mod node;
mod parse;
pub mod starter;
mod suggest;

use std::path::{Path, PathBuf};

pub use builtin::{BUILTIN_BOARDS, BUILTIN_TARGETS};
pub use error::{ConfigError, SourcePos};
pub use model::{
    BenchmarkConfig, Budgets, CMakeSuite, CargoSuite, DEFAULT_BASELINE, DEFAULT_GATE_BUDGET,
    DEFAULT_GATE_RUNS, DEFAULT_GATE_TIMEOUT, DefaultFlags, ForeignSuite, ForeignTool, GateConfig,
    HistoryConfig, MIN_GATE_RUNS, Measure, ModuleConfig, SCALE_RANGE, Suite, SuiteBuild,
    TIMEOUT_RANGE_SECONDS, TargetCounter, TargetEntry, TargetSpec, is_gate_budget, is_scale,
    is_timeout_seconds, unmatched_benchmarks, unmatched_message,
};

/// The candidate closest to `word` when it is a plausible typo of it (a third of its length, at least one
/// edit, a swap of neighbours counting one): the "did you mean" of config keys, reused for the CLI's words.
pub fn closest_word<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    suggest::closest(word, candidates)
}

/// The config file's name, at the module root.
pub const MODULE_FILE: &str = "module.yml";

impl ModuleConfig {
    /// Reads and validates the config at `path` (a `module.yml`). Messages name `path` as given.
    pub fn load(path: &Path) -> Result<ModuleConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        ModuleConfig::from_str(&text, path)
    }

    /// Validates config text. `path` names it in messages, and its directory is the module root.
    pub fn from_str(text: &str, path: &Path) -> Result<ModuleConfig, ConfigError> {
        parse::parse(text, path)
    }

    /// Finds the nearest `module.yml` at or above `start_dir` and loads it.
    pub fn discover(start_dir: &Path) -> Result<ModuleConfig, ConfigError> {
        let root = find_module_root(start_dir)?;
        ModuleConfig::load(&root.join(MODULE_FILE))
    }
}

/// The nearest module.yml at or above `cwd`, read, named `module.yml` in messages when it is in `cwd` itself.
pub fn load_nearest(cwd: &Path) -> Result<ModuleConfig, ConfigError> {
    let root = find_module_root(cwd)?;
    let file = if root == cwd {
        PathBuf::from(MODULE_FILE)
    } else {
        root.join(MODULE_FILE)
    };
    ModuleConfig::load(&file)
}

/// The nearest module.yml at or above `cwd`, read; `None` when there is none (a broken one is an error: its
/// settings were meant).
pub fn nearest(cwd: &Path) -> Result<Option<ModuleConfig>, ConfigError> {
    match find_module_root(cwd) {
        Ok(root) => Ok(Some(ModuleConfig::load(&root.join(MODULE_FILE))?)),
        Err(ConfigError::NoModuleFile { .. }) => Ok(None),
        Err(error) => Err(error),
    }
}

/// The nearest directory at or above `start_dir` that holds a `module.yml` (a file). `start_dir` is made
/// absolute first, so `.` walks up from the working directory.
pub fn find_module_root(start_dir: &Path) -> Result<PathBuf, ConfigError> {
    let start = std::path::absolute(start_dir).map_err(|error| ConfigError::Read {
        path: start_dir.to_path_buf(),
        error,
    })?;
    start
        .ancestors()
        .find(|dir| dir.join(MODULE_FILE).is_file())
        .map(Path::to_path_buf)
        .ok_or(ConfigError::NoModuleFile { start })
}
