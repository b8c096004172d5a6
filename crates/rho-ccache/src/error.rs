//! Why the compile cache could not do its part: each of these sends the invocation straight to the compiler.

use std::path::{Path, PathBuf};

/// What went wrong with the cache itself (never with the code being compiled).
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no `{name}` on the PATH the build started with")]
    NoCompiler { name: String },
    #[error("{variable} is not set")]
    NotSet { variable: &'static str },
    /// What the compile reads or writes is more than the key can hold.
    #[error("{0}")]
    Uncacheable(&'static str),
}

impl CacheError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> CacheError {
        CacheError::Io {
            path: path.to_owned(),
            source,
        }
    }
}
