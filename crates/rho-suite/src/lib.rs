//! rho's engine for running benchmark suites: it builds a suite for a target, runs it under a measure, and
//! returns the run.
//!
//! It owns the suite kinds (C/C++ files built on the host or by a board's port, `cmake:`, `cargo:`,
//! `pkg_config:` flags, `command:`, and other harnesses' `gbench:`, `criterion:`, `hyperfine:`, `gotest:`,
//! `pytest-benchmark:` read through rho-import), the targets (host, the built-in QEMU boards, `aarch64-linux`,
//! `stm32h743zi` through probe-rs), the measures (time, instructions counted under Callgrind with or
//! without its cache simulation, or on a QEMU board by rho's plugin), the static footprint asked of the footprint command, rho's scratch
//! directories, and folding repetitions into one summary.
//!
//! It must not know about argument parsing, the terminal (colour, width, the progress line: it tells an
//! [`observe::Observer`] the binary installs) or exit codes; judging budgets, baselines and reports are the
//! other crates'. Errors are [`SuiteError`]s, each saying which step failed.
//!
//! Why it is one of the larger crates (7.2k lines): each suite kind, target and measure is a module of a
//! few hundred lines, and they meet in one place (`engine`), which picks the build and run for a kind on a
//! target under a measure; split across crates, that choice would be spread over all of them.
//!
//! Layering (a module uses only those above it in this list): `error`, `filter`, `observe`, `tools`, `ports`,
//! `stream`, `listing`, `fold`, `footprint`, `cfiles`, `count`, `qemu_count`, `cmake`, `cargo`, `foreign`, `board`, `engine`,
//! `files`, `sides`.

pub mod board;
pub mod cargo;
pub mod cfiles;
pub mod cmake;
pub mod count;
pub mod engine;
pub mod error;
pub mod files;
pub mod filter;
pub mod fold;
pub mod footprint;
pub mod foreign;
pub mod listing;
pub mod observe;
pub mod ports;
pub mod qemu_count;
pub mod sample;
pub mod sides;
pub mod stream;
pub mod tools;

pub use engine::{Engine, RunOptions, SuiteRun};
pub use error::{Result, SuiteError};
pub use files::{FilesInputs, FilesRun, HostFiles, measure_files, measure_files_built};
pub use rho_exec::ScratchDir;
