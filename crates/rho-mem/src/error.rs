//! What can go wrong reading an image or its companions: each error names the file (and the line, for text
//! inputs) and what was expected.

use std::path::PathBuf;

/// An input `rho mem` could not read.
#[derive(Debug, thiserror::Error)]
pub enum MemError {
    /// A file could not be read at all.
    #[error("cannot read {}: {message}", path.display())]
    Io { path: PathBuf, message: String },
    /// The image is not an ELF file this crate reads, or is malformed.
    #[error("{}: {message}", path.display())]
    Elf { path: PathBuf, message: String },
    /// A line of a text input (a `.su`, `.ci` or map file) is not what its format says.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

impl MemError {
    pub(crate) fn io(path: &std::path::Path, error: &std::io::Error) -> MemError {
        MemError::Io {
            path: path.to_path_buf(),
            message: error.to_string(),
        }
    }

    pub(crate) fn line(
        path: &std::path::Path,
        line: usize,
        message: impl Into<String>,
    ) -> MemError {
        MemError::Line {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}
