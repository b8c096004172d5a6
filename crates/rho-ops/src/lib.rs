//! rho's commands as recipes, the way cargo's binary sits on `cargo::ops`: one module per command, each a
//! function taking plain options (no argument parser's types) and returning the command's exit status.
//!
//! A recipe composes the crates that do the work: the engine (rho-suite) builds and runs the suites, rho-judge
//! judges their budgets, rho-baseline records and compares, rho-gate runs base against head, rho-history keeps
//! CI runs, rho-report renders. Modules: [`module`] (`rho bench` and `check` over module.yml), [`files`]
//! (`rho bench FILE.c...`), [`gate`], [`saved`] (`show`, `compare`), [`import`] (other harnesses' reports),
//! [`merge`] (the shares of a `--shard K/N` run, rho-shard), [`history`]; beside them [`baseline`]
//! (the baseline's work around a run) and [`output`] (where documents and reports go).
//!
//! It must not know about argument parsing or the terminal: the binary hands it a [`Terminal`] (the report's
//! writer, laid out and coloured for where it goes) and installs the engine's observer, through which every
//! warning and note here is printed (`rho_suite::observe::say`). It computes no statistic, judges nothing itself and renders
//! nothing itself: those are the crates above. Errors are [`Error`]s, each naming what failed.
//!
//! Layering (a module uses only those above it in this list): `error`, `output`, `baseline`, `module`,
//! `files`, `saved`, `import`, `merge`, `history`, `gate`.

pub mod baseline;
pub mod error;
pub mod files;
pub mod gate;
pub mod history;
pub mod import;
pub mod merge;
pub mod module;
pub mod output;
mod profile;
pub mod saved;

pub use error::{Error, Result};
pub use output::Terminal;

/// rho's version, as documents and baselines record it (the workspace's one version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The exit status of a command that could not run or decide.
pub const EXIT_CANNOT_DECIDE: u8 = 2;

/// A line for the user on stderr, through the engine's observer (it keeps the progress line whole).
pub(crate) fn say(text: &str) {
    rho_suite::observe::say(text);
}
