//! What a command's recipe can fail with: the errors of the crates it composes, passed through as they are,
//! and its own refusals, each saying what was asked and what to do instead.

use std::path::PathBuf;

/// A recipe's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Suite(#[from] rho_suite::SuiteError),
    #[error(transparent)]
    Baseline(#[from] rho_baseline::Error),
    #[error(transparent)]
    Config(#[from] rho_config::ConfigError),
    #[error(transparent)]
    Gate(#[from] rho_gate::GateError),
    #[error(transparent)]
    History(#[from] rho_history::Error),
    /// `--profile NAME` naming no benchmark, or asked of a run that kept no functions.
    #[error(transparent)]
    Profile(#[from] rho_report::profile::ProfileError),
    #[error(transparent)]
    Import(#[from] rho_import::ImportError),
    #[error(transparent)]
    Shard(#[from] rho_shard::Error),
    /// The gate's settings from the module.yml of the directory it runs in could not be read or are refused.
    /// Under `git bisect run` that is the commit being tested: its own fault, like a head that does not build.
    #[error(transparent)]
    HereModule(rho_gate::GateError),
    #[error("cannot read the current directory")]
    CurrentDir(#[source] std::io::Error),
    #[error("cannot create a temporary directory: {0}")]
    TempDir(std::io::Error),
    #[error("cannot read {}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the JSON document to stdout")]
    JsonToStdout(#[source] std::io::Error),
    #[error("cannot write the wire stream to stdout")]
    WireToStdout(#[source] std::io::Error),
    #[error("cannot write the run as JSON")]
    Json(#[source] serde_json::Error),
    /// A combination of flags or a setting the command refuses, with why and what to do instead.
    #[error("{0}")]
    Refused(String),
}

impl Error {
    /// The error and every cause under it, `: `-separated (what the user is shown).
    pub fn full_text(error: &(dyn std::error::Error + 'static)) -> String {
        let mut text = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            text.push_str(": ");
            text.push_str(&cause.to_string());
            source = cause.source();
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_text_is_every_cause_in_order_as_the_binary_prints_it() {
        let error = Error::Read {
            path: PathBuf::from("runs/a.json"),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        };
        assert_eq!(
            Error::full_text(&error),
            "cannot read runs/a.json: no such file"
        );
        // A passed-through error is shown as itself, its causes after it.
        let refused = Error::Refused("--html writes one target's report".to_string());
        assert_eq!(
            Error::full_text(&refused),
            "--html writes one target's report"
        );
    }
}
