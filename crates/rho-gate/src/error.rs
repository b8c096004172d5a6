//! Everything that stops the gate from reaching a verdict. Each of these is "cannot decide" (exit 2).

use std::path::PathBuf;

use crate::run_metrics::MetricsError;

/// Which side of the gate something happened on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideName {
    Base,
    Head,
}

impl SideName {
    /// `base` or `head`.
    pub fn label(self) -> &'static str {
        match self {
            SideName::Base => "base",
            SideName::Head => "head",
        }
    }
}

impl std::fmt::Display for SideName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// A build or run of one side that failed.
#[derive(Debug, thiserror::Error)]
#[error("{side}: {what} `{command}` (in {}) {how}{stderr}", dir.display())]
pub struct CommandFailure {
    pub side: SideName,
    /// `build` or `run 2 of 3`.
    pub what: String,
    pub command: String,
    pub dir: PathBuf,
    /// `exited with status 1`, `crashed (SIGSEGV)`, `timed out after 120 s`, ...
    pub how: String,
    /// The last lines of its stderr, already indented under a lead-in, or empty.
    pub stderr: String,
}

/// Why the gate could not reach a verdict.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error(
        "runs must be at least 2, got {0}: a side's best of one run is just a run, with no idea of its noise"
    )]
    TooFewRuns(u32),
    #[error(
        "--max-runs {max_runs} is below the {runs} runs every benchmark gets: the ceiling of the adaptive runs \
         must be at least --runs (bench.gate.runs)"
    )]
    MaxRunsBelowRuns { max_runs: u32, runs: u32 },
    #[error("--jobs 0: at least one build must be able to run")]
    ZeroJobs,
    #[error("the timeout must be more than zero seconds")]
    ZeroTimeout,
    #[error("--timeout {0}: the timeout must be a number of seconds from 0.001 to 10000000")]
    BadTimeout(f64),
    #[error("--scale {0}: the scale must be a number from 1e-9 to 1e9")]
    BadScale(f64),
    #[error(
        "the budget of {metric} must be a fraction strictly between 0 and 1 (0.30 = 30% slower allowed), \
         got {value}"
    )]
    BadBudget { metric: String, value: f64 },
    #[error(
        "--budget expects METRIC=FRACTION (for example matmul_ns=0.30 or default=0.25), got `{0}`"
    )]
    BadBudgetSyntax(String),
    #[error(
        "{side}: `{spec}` is neither a directory nor a git revision of the repository here ({detail})"
    )]
    BadSide {
        side: SideName,
        spec: String,
        detail: String,
    },
    #[error("`git {args}` failed: {detail}")]
    Git { args: String, detail: String },
    /// A module.yml that does not load: a side's own (`side`), or the one the gate's settings come from
    /// (`side` is `None`).
    #[error("{}: {error}", side.map_or("gate settings", SideName::label))]
    Config {
        side: Option<SideName>,
        /// Shown in this error's message, so not also its `source()` (a chain printed in full would say it
        /// twice).
        error: Box<rho_config::ConfigError>,
    },
    #[error(
        "{side}: target `{target}` is built into rho and has no `build:`/`run:` commands in {}; the gate \
         runs a target's own commands, so give it them (`- {{ name: {target}, build: ..., run: ... }}`)",
        path.display()
    )]
    BuiltinTarget {
        side: SideName,
        target: String,
        path: PathBuf,
    },
    /// A side's recipe could not be made (by a caller's own recipe loader, e.g. a built-in target's build).
    #[error("{side}: {message}")]
    Recipe { side: SideName, message: String },
    /// A build or run that failed: it did not start, exited non-zero, crashed or timed out.
    #[error(transparent)]
    Command(Box<CommandFailure>),
    #[error("{side}: run {run} of `{command}`: {error}")]
    Metrics {
        side: SideName,
        run: u32,
        command: String,
        /// In the message, not `source()`: see `Config`.
        error: MetricsError,
    },
    /// `--verify-cache`: the side's build with the caches made other bytes than its build without them.
    #[error(
        "{side}: --verify-cache: {file} differs between the build with the caches and the build without them \
         ({detail})"
    )]
    CacheDiffers {
        side: SideName,
        file: PathBuf,
        detail: String,
    },
    #[error("{context}: {error}")]
    Io {
        context: String,
        /// In the message, not `source()`: see `Config`.
        error: std::io::Error,
    },
}

impl GateError {
    /// The side this error is about, when it is about one: the side whose name, module.yml, recipe, build,
    /// run or metrics failed. `None` for a refused setting, the gate settings' module.yml, git or the file
    /// system.
    pub fn side(&self) -> Option<SideName> {
        match self {
            GateError::BadSide { side, .. }
            | GateError::BuiltinTarget { side, .. }
            | GateError::Recipe { side, .. }
            | GateError::Metrics { side, .. }
            | GateError::CacheDiffers { side, .. } => Some(*side),
            GateError::Config { side, .. } => *side,
            GateError::Command(failure) => Some(failure.side),
            GateError::TooFewRuns(_)
            | GateError::MaxRunsBelowRuns { .. }
            | GateError::ZeroJobs
            | GateError::ZeroTimeout
            | GateError::BadTimeout(_)
            | GateError::BadScale(_)
            | GateError::BadBudget { .. }
            | GateError::BadBudgetSyntax(_)
            | GateError::Git { .. }
            | GateError::Io { .. } => None,
        }
    }

    /// Whether the error is head's code failing: its module.yml, recipe, build, run or metrics (what
    /// `git bisect run` should skip). Not a side named wrongly (`--head nosuch` is the user's mistake) and
    /// nothing about base or the settings (those would fail the same way at every commit).
    pub fn is_head_failure(&self) -> bool {
        match self {
            GateError::BadSide { .. } => false,
            other => other.side() == Some(SideName::Head),
        }
    }

    pub(crate) fn io(context: impl Into<String>, error: std::io::Error) -> Self {
        GateError::Io {
            context: context.into(),
            error,
        }
    }
}
