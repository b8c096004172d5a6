//! What can go wrong keeping the history, each with the message a user sees.

use thiserror::Error;

/// The history branch could not be read or written.
#[derive(Debug, Error)]
pub enum Error {
    #[error("git {args}: {message}")]
    Git { args: String, message: String },

    #[error("cannot run git: {0}")]
    Spawn(std::io::Error),

    #[error("{action}: {error}")]
    Io {
        action: String,
        error: std::io::Error,
    },

    /// A branch of the history's name that holds something else: refused, never overwritten.
    #[error(
        "branch `{branch}` ({commit}) is not a rho history branch: it has no `{marker}` file at its root; \
         rho never writes over it (use another name with --branch or bench.history.branch)"
    )]
    NotHistory {
        branch: String,
        commit: String,
        marker: &'static str,
    },

    /// A record that cannot be read: foreign, truncated or impossible.
    #[error("{path}: {message}")]
    Record { path: String, message: String },

    /// The branch moved under every attempt (other writers) or the remote kept refusing the push.
    #[error("{what}: gave up after {attempts} attempts: {last}")]
    Contended {
        what: String,
        attempts: u32,
        last: String,
    },

    /// `add` on a work tree whose tracked files differ from HEAD: the run may not be of the commit.
    #[error(
        "the work tree has changes to tracked files: the run may not be of {commit} (commit them, or pass \
         --allow-dirty and the record says it was dirty)"
    )]
    Dirty { commit: String },

    #[error(transparent)]
    Baseline(#[from] rho_baseline::Error),

    /// A baseline file to import from that is not in the history's repository.
    #[error("{} is not inside the repository {}", path.display(), repo.display())]
    OutsideRepository {
        path: std::path::PathBuf,
        repo: std::path::PathBuf,
        #[source]
        source: std::path::StripPrefixError,
    },
}
