//! What stops a hosted run: a bad setting, a misuse of the harness, a thread that failed, the output.

/// What stops a run (the harness prints it as `rho: ...` on stderr and exits with status 2).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A setting from the environment or the command line that cannot be read.
    #[error("{variable}: expected {expected}, got \"{got}\"")]
    Setting {
        /// The variable.
        variable: String,
        /// What it may hold.
        expected: String,
        /// What it held.
        got: String,
    },
    /// A benchmark used the harness wrongly (two loops, a bad unit, a bad name).
    #[error("{bench}: {what}")]
    Misuse {
        /// The benchmark.
        bench: String,
        /// What it did.
        what: String,
    },
    /// The benchmark's thread could not be started, or its stack region set up, or it panicked.
    #[error("{0}")]
    Thread(String),
    /// Writing the stream failed.
    #[error("writing the stream failed: {0}")]
    Output(std::io::Error),
    /// The stream could not be summarised into the report (a harness bug: rho-wire names the line).
    #[error("cannot report the run: {0}")]
    Report(String),
}
