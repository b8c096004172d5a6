use std::path::PathBuf;

/// Why a crate's module graph could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ModGraphError {
    #[error("{}: cannot read", file.display())]
    Read {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: `mod {name};` has no file (looked for {name}.rs and {name}/mod.rs beside it)", file.display())]
    MissingModule {
        file: PathBuf,
        line: usize,
        name: String,
    },
}
