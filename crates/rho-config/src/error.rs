//! Errors from loading, validating and querying a `module.yml`.

use std::fmt;
use std::path::PathBuf;

/// A line and column in `module.yml`, both counted from 1 (columns in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourcePos {
    pub line: u64,
    pub column: u64,
}

impl fmt::Display for SourcePos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Everything that can go wrong with a module config. Every variant's message names the file; those about its
/// content also name the line and column (`module.yml:7:5: ...`).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    // The cause is in the message only (not a `#[source]` too), so a printed chain says it once.
    #[error("{}: cannot read: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },

    /// No `module.yml` in the start directory or any directory above it.
    #[error("no module.yml in {} or any directory above it", start.display())]
    NoModuleFile { start: PathBuf },

    /// The file is not valid YAML, or a value in it is not what its key expects.
    #[error("{}:{}:{}: {message}", file.display(), pos.line, pos.column)]
    Invalid {
        file: PathBuf,
        pos: SourcePos,
        message: String,
    },

    /// serde-saphyr refused the YAML without saying where (it gives a place for every syntax error; this is
    /// for the rest, such as a document nested past its depth limit).
    #[error("{}: {message}", file.display())]
    Yaml { file: PathBuf, message: String },

    /// `target(Some(name))` for a name that is neither listed under `bench.targets` nor built in.
    #[error("{}: unknown target '{name}': {}", file.display(), known_targets(listed))]
    UnknownTarget {
        file: PathBuf,
        name: String,
        listed: Vec<String>,
    },
}

fn known_targets(listed: &[String]) -> String {
    let builtin = crate::builtin::BUILTIN_TARGETS.join(", ");
    if listed.is_empty() {
        format!("bench.targets lists none; built in: {builtin}")
    } else {
        format!(
            "bench.targets lists {}; built in: {builtin}",
            listed.join(", ")
        )
    }
}

impl ConfigError {
    /// Where in the file the problem is, for the errors that have a place.
    pub fn pos(&self) -> Option<SourcePos> {
        match self {
            ConfigError::Invalid { pos, .. } => Some(*pos),
            _ => None,
        }
    }

    /// The message without the `file:line:col: ` prefix, for the errors that have a place.
    pub fn message(&self) -> Option<&str> {
        match self {
            ConfigError::Invalid { message, .. } => Some(message),
            _ => None,
        }
    }
}
