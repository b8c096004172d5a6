//! Why a stream could not be parsed: always the line, what was expected there and what was found.

use std::fmt::Write as _;

/// What kind of mistake a [`WireError::Unexpected`] is, for callers (and tests) that act on it. The message
/// carries the detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A record or sample whose fields are not what its keyword needs (a missing field, a bad name, a sample
    /// with the wrong number of fields, ...).
    Syntax,
    /// A record where the stream's order does not allow it (a sample outside a benchmark, `@end` before
    /// `@heap`, a header record after `@config`, ...).
    OutOfOrder,
    /// The stream ended before `@done`.
    Truncated,
    /// `@end NAME` does not name the benchmark that is open.
    NameMismatch,
    /// The number of samples is not `warmup + iterations`, or `@done benchmarks=` is not how many ran.
    CountMismatch,
    /// A record keyword this version of the format does not have.
    UnknownRecord,
    /// A number that is not an unsigned decimal integer or does not fit in 64 bits.
    BadNumber,
    /// A record that may appear once appeared again (including a second `@clock` of the same role and a
    /// benchmark name that already ran).
    Duplicate,
    /// A record or sample before `@rho-bench`.
    MissingHeader,
    /// Figures that contradict each other or the header: `per_iteration=0`, a `@stack` depth beyond
    /// `@config stack_bytes=`, heap `live=` above `peak=`.
    Inconsistent,
    /// A `@rho-bench` version this parser does not read.
    UnsupportedVersion,
    /// A line longer than [`crate::MAX_LINE_BYTES`] that is not noise.
    LineTooLong,
}

/// A stream that could not be parsed.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The stream says something the format does not allow. `line` is 1-based.
    #[error("line {line}: expected {expected}, found {found}")]
    Unexpected {
        line: u64,
        kind: ErrorKind,
        /// What the format needs at this point.
        expected: String,
        /// What the stream has instead (quoted text, or `end of input`).
        found: String,
    },
    /// Reading the stream failed. `line` is the line being read.
    // The cause is in the message, not also a `#[source]`: the binary prints the whole chain, and the OS
    // error would appear twice.
    #[error("line {line}: reading the stream failed: {error}")]
    Io { line: u64, error: std::io::Error },
}

impl WireError {
    /// The 1-based line the error is about.
    pub fn line(&self) -> u64 {
        match self {
            WireError::Unexpected { line, .. } | WireError::Io { line, .. } => *line,
        }
    }

    /// The kind of format error; `None` for an I/O error.
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            WireError::Unexpected { kind, .. } => Some(*kind),
            WireError::Io { .. } => None,
        }
    }

    pub(crate) fn new(
        line: u64,
        kind: ErrorKind,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> WireError {
        WireError::Unexpected {
            line,
            kind,
            expected: expected.into(),
            found: found.into(),
        }
    }
}

/// How much of an offending line an error quotes.
const QUOTE_LIMIT: usize = 80;

/// `bytes` as a quoted, printable string for an error message: non-UTF-8 and control bytes escaped as `\xNN`,
/// cut at [`QUOTE_LIMIT`] bytes with `...`.
pub(crate) fn quote(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(QUOTE_LIMIT)];
    let mut out = String::with_capacity(shown.len() + 8);
    out.push('"');
    for &b in shown {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out.push('"');
    if bytes.len() > QUOTE_LIMIT {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_escapes_and_cuts() {
        assert_eq!(quote(b":12"), "\":12\"");
        assert_eq!(quote(b"a\"b\\\xff\t"), "\"a\\\"b\\\\\\xff\\x09\"");
        let long = vec![b'x'; 100];
        let quoted = quote(&long);
        assert!(quoted.ends_with("\"..."));
        assert_eq!(quoted.len(), QUOTE_LIMIT + 2 + 3);
    }
}
