//! Everything that can go wrong reading, writing or comparing a baseline, each with the message a user sees.

use std::path::PathBuf;

use thiserror::Error;

/// A baseline could not be read, written or compared. Every variant says where (a path, or a path at a git
/// ref) and why.
#[derive(Debug, Error)]
pub enum Error {
    #[error("{path}: {action}: {error}")]
    Io {
        path: PathBuf,
        /// What was being done (`reading the baseline`, `creating a temporary file for the Markdown
        /// comparison`, ...).
        action: String,
        /// Shown in the message, so not also this error's `source()`: a chain printed in full (`{:#}`) would
        /// say it twice.
        error: std::io::Error,
    },

    #[error("{}: no baseline file here (write one with `rho bench --write-baseline`)", path.display())]
    Missing { path: PathBuf },

    #[error("{source_name}:{line}:{column}: not valid baseline JSON: {message}")]
    Json {
        source_name: String,
        line: usize,
        column: usize,
        message: String,
    },

    #[error(
        "{source_name}: baseline schema is \"{found}\", this rho reads \"{}\", \"{}\", \"{}\", \"{}\" and \"{}\" \
         only; record the baseline again with this rho (`rho bench --write-baseline`)",
        crate::schema::SCHEMA,
        crate::schema::SCHEMA_V4,
        crate::schema::SCHEMA_V3,
        crate::schema::SCHEMA_V2,
        crate::schema::SCHEMA_V1
    )]
    Schema { source_name: String, found: String },

    /// A figure no run can produce (see [`crate::validate`]).
    #[error("{source_name}: {benchmark}: {field} {why}")]
    Impossible {
        source_name: String,
        /// The benchmark and where it is (`target "host", benchmark "bench_a"`).
        benchmark: String,
        field: String,
        why: String,
    },

    /// A key twice in one object (see [`crate::json_keys`]).
    #[error("{source_name}:{}:{}: {duplicate}", duplicate.line, duplicate.column)]
    DuplicateKey {
        source_name: String,
        duplicate: crate::json_keys::DuplicateKey,
    },

    #[error("{source_name}: {message}")]
    Invalid {
        source_name: String,
        message: String,
    },

    #[error("could not write the baseline: {message}")]
    Serialize { message: String },

    /// Writing a file failed part-way (a full disk, a figure that cannot be written); the old file is kept.
    #[error("{}: could not write {what} (the old file is kept): {message}", path.display())]
    WriteFailed {
        path: PathBuf,
        what: String,
        message: String,
    },

    #[error(
        "target {target}, benchmark {benchmark}: the {what} is {value}, which cannot be recorded (not a finite \
         number)"
    )]
    NotFinite {
        target: String,
        benchmark: String,
        what: String,
        value: f64,
    },

    #[error("{}: refusing to overwrite it, it is not a baseline this rho can read and keep: {reason}", path.display())]
    WontOverwrite { path: PathBuf, reason: Box<Error> },

    #[error(
        "{source_name} has no baseline for target \"{target}\"{}",
        if available.is_empty() {
            " (it has no targets at all)".to_string()
        } else {
            format!(" (it has: {}); record one with `rho bench --write-baseline --target {target}`", available.join(", "))
        }
    )]
    NoSection {
        source_name: String,
        target: String,
        available: Vec<String>,
    },

    #[error("{}: not inside a git repository: {stderr}", dir.display())]
    NotARepository { dir: PathBuf, stderr: String },

    #[error("git ref \"{git_ref}\" does not exist in {} (is it fetched? `git fetch` the branch first)", repo.display())]
    RefNotFound { git_ref: String, repo: PathBuf },

    #[error(
        "{path} does not exist at git ref \"{git_ref}\" ({commit}): that commit has no committed baseline"
    )]
    MissingAtRef {
        git_ref: String,
        commit: String,
        path: String,
    },

    #[error("{}: not inside the git repository at {}", path.display(), repo.display())]
    OutsideRepository { path: PathBuf, repo: PathBuf },

    #[error("git {args} failed: {message}")]
    Git { args: String, message: String },

    #[error("cannot record the baseline: {message}")]
    Merge { message: String },

    #[error(transparent)]
    Refused(#[from] crate::refusal::Refusal),

    /// A `--json`, `--markdown` or `--html` file that could not be written, found before the run.
    #[error("{flag} {}: {problem}", path.display())]
    Destination {
        flag: String,
        path: PathBuf,
        problem: String,
    },

    #[error("cannot encode the run as JSON")]
    Encode(#[source] serde_json::Error),

    #[error("cannot write {}: cannot create a file in {}", path.display(), parent.display())]
    CreateBeside {
        path: PathBuf,
        parent: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("cannot write {}", path.display())]
    WriteDocument {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// Where an error happened (a file, two files compared); its source says why.
    #[error("{context}")]
    Context {
        context: String,
        #[source]
        source: Box<Error>,
    },

    #[error(
        "--markdown writes the comparison --diff REF makes (or, with FILE.c and several targets, --target a,b, \
         the side-by-side tables): give --diff REF"
    )]
    MarkdownWithoutDiff,

    #[error("cannot resolve {}", path.display())]
    Resolve {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}
