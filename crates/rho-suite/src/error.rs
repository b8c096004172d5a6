//! The engine's one error type: why a suite could not be built, run or summarised.

use std::fmt::Write as _;

/// Why a suite could not be built, run or summarised. The variant says which step failed; the message, read
/// with its sources (`{:#}` through anyhow, or [`SuiteError::full_text`]), says what happened and where, in
/// the words the user sees.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// What a suite needs is missing here or not supported: a tool not on the PATH, a target a suite kind
    /// does not run on, a suite file that is not there.
    #[error("{0}")]
    Unsupported(String),
    /// A build (the compiler, cmake, cargo, a port's make, a target's `build:`) failed; its output is in the
    /// message.
    #[error("{0}")]
    Build(String),
    /// A run failed: the suite crashed, timed out, exited with a failure, or printed a malformed, incomplete
    /// or empty stream.
    #[error("{0}")]
    Run(String),
    /// `--filter` matched no benchmark: the message names the filter and names that exist.
    #[error("{0}")]
    NoMatch(String),
    /// A run's figures could not be summarised or folded.
    #[error("{doing}")]
    Summary {
        doing: String,
        #[source]
        source: rho_stats::StatsError,
    },
    /// Callgrind's dumps could not be read.
    #[error(transparent)]
    Dumps(#[from] rho_wire::callgrind::DumpError),
    /// The QEMU counting plugin's totals could not be read.
    #[error(transparent)]
    Totals(#[from] rho_wire::qemu_counts::TotalsError),
    /// module.yml asks for something that cannot be done.
    #[error(transparent)]
    Config(#[from] rho_config::ConfigError),
    /// A file or directory could not be created, written or read.
    #[error("{doing}")]
    Io {
        doing: String,
        #[source]
        source: std::io::Error,
    },
    /// A program could not be started or waited for.
    #[error("{doing}")]
    Exec {
        doing: String,
        #[source]
        source: rho_exec::ExecError,
    },
    /// Where the error happened (the suite, module.yml's line); its source says why.
    #[error("{context}")]
    Context {
        context: String,
        #[source]
        source: Box<SuiteError>,
    },
}

/// A result of the engine.
pub type Result<T, E = SuiteError> = std::result::Result<T, E>;

impl SuiteError {
    /// This error in the context `context` (printed before it, joined by `: `).
    pub fn context(self, context: impl Into<String>) -> SuiteError {
        SuiteError::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// The message with every source after it, joined by `: ` (as anyhow's `{:#}` prints it).
    pub fn full_text(&self) -> String {
        let mut text = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            let _ = write!(text, ": {cause}");
            source = cause.source();
        }
        text
    }
}

/// Naming what was being done when a lower layer's error happened.
pub(crate) trait Doing<T> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T> Doing<T> for std::io::Result<T> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|source| SuiteError::Io {
            doing: what(),
            source,
        })
    }
}

impl<T> Doing<T> for std::result::Result<T, rho_exec::ExecError> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|source| SuiteError::Exec {
            doing: what(),
            source,
        })
    }
}

impl<T> Doing<T> for std::result::Result<T, rho_stats::StatsError> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|source| SuiteError::Summary {
            doing: what(),
            source,
        })
    }
}

impl<T> Doing<T> for Result<T> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|error| error.context(what()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_text_is_the_context_then_each_cause() {
        let io = std::io::Error::other("disk full");
        let error = Err::<(), _>(io)
            .doing(|| "cannot write out/bench.elf".to_string())
            .doing(|| "suite a.c".to_string())
            .unwrap_err();
        assert_eq!(
            error.full_text(),
            "suite a.c: cannot write out/bench.elf: disk full"
        );
        assert!(matches!(error, SuiteError::Context { .. }));
    }
}
