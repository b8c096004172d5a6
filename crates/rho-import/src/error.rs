//! Why a report could not be imported. Every variant names the file and, for a document, the field.

/// A report that cannot be read as a rho run.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("unknown import format \"{name}\": expected one of {known}")]
    UnknownFormat { name: String, known: String },
    #[error("{file}: cannot be read")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: line {line} column {column}: not JSON: {message}")]
    Json {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// A field missing, of the wrong kind, or of a version this crate does not read.
    #[error("{file}: field {field}: expected {expected}, found {found}")]
    Field {
        file: String,
        field: String,
        expected: String,
        found: String,
    },
    /// A line of a text report that is not what the format says.
    #[error("{file}:{line}: {message}")]
    Line {
        file: String,
        line: usize,
        message: String,
    },
    #[error("{file}: no benchmark in the report ({what})")]
    Empty { file: String, what: String },
    #[error(
        "benchmark \"{name}\" is in both {first} and {second}: one run names each benchmark once"
    )]
    Duplicate {
        name: String,
        first: String,
        second: String,
    },
    /// The same name for two benchmarks of one report (not the repetitions of one the harness marks as such).
    #[error(
        "{file}: benchmarks named twice in one report: {} (one run names each benchmark once)",
        quoted(names)
    )]
    Twice { file: String, names: Vec<String> },
    #[error("{file}: benchmark {name:?}: not a name rho can carry: {why}")]
    Name {
        file: String,
        name: String,
        why: String,
    },
    /// A figure not finite, or out of range for its unit: never clamped.
    #[error("{file}: benchmark {benchmark:?}: {field}: expected {expected}, found {value}")]
    Figure {
        file: String,
        benchmark: String,
        field: String,
        value: String,
        expected: &'static str,
    },
    #[error("{format}: {name} failed: {message}")]
    Failed {
        format: &'static str,
        name: String,
        message: String,
    },
    #[error("{what}: cannot be written as a wire stream: {message}")]
    Wire { what: String, message: String },
    #[error("{what}: the figures of benchmark \"{benchmark}\" cannot be summarised")]
    Summary {
        what: String,
        benchmark: String,
        #[source]
        source: rho_stats::StatsError,
    },
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}
