//! A benchmark's name on the wire (version 8): any UTF-8 text without control characters, carried with
//! `%XX` escapes for the bytes a record's field cannot hold as they are.
//!
//! Why percent escapes: before version 8 a name was `[A-Za-z0-9_.:+-]` (and `/` in a family member), so no
//! stream of an earlier version holds a `%` in a name, and reading every version's names through
//! [`unescape`] keeps their meaning. A space ends a field and `=` makes a field `key=value`, so both are
//! escaped, as is `%` itself and every byte outside printable ASCII; the rest of printable ASCII is carried as
//! it is, so `BM_log/"quoted"` reads the same on the wire as in a report.

use std::borrow::Cow;

/// The first wire format version whose benchmark names are [`escape`]d text (see the module's doc).
pub const NAME_ESCAPE_VERSION: u32 = 8;

/// The longest benchmark name, in bytes of its UTF-8 text (unescaped): far beyond any harness's names
/// (Google Benchmark's longest arguments and suffixes stay under 200), while a record still fits a line.
pub const MAX_NAME_BYTES: usize = 1024;

/// Whether `byte` is carried as it is in an escaped name.
fn is_plain(byte: u8) -> bool {
    byte.is_ascii_graphic() && byte != b'%' && byte != b'='
}

/// `name` as a version 8 stream carries it: every byte that is not printable ASCII, and every space, `%` and
/// `=`, written `%XX` (two upper-case hex digits). A name of plain bytes only is returned as it is.
pub fn escape(name: &str) -> Cow<'_, str> {
    if name.bytes().all(is_plain) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    for byte in name.bytes() {
        if is_plain(byte) {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xF)]));
        }
    }
    Cow::Owned(out)
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Why text is not a benchmark name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameError {
    Empty,
    TooLong(usize),
    /// A `%` not followed by two hex digits, at this byte of the escaped text.
    BadEscape(usize),
    /// A byte that must be escaped, at this byte of the escaped text.
    Unescaped(usize),
    NotUtf8,
    /// A control character (a terminal's escape sequence, a newline), by its code point.
    Control(u32),
}

impl std::fmt::Display for NameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NameError::Empty => write!(f, "an empty name"),
            NameError::TooLong(n) => write!(f, "{n} bytes (at most {MAX_NAME_BYTES})"),
            NameError::BadEscape(at) => {
                write!(f, "a % not followed by two hex digits at byte {at}")
            }
            NameError::Unescaped(at) => {
                write!(f, "an unescaped space, = or non-ASCII byte at byte {at}")
            }
            NameError::NotUtf8 => write!(f, "bytes that are not UTF-8 once unescaped"),
            NameError::Control(c) => write!(f, "the control character U+{c:04X}"),
        }
    }
}

/// Whether `name` can be a benchmark's name: 1 to [`MAX_NAME_BYTES`] bytes of UTF-8 without a control
/// character.
pub fn check(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(NameError::TooLong(name.len()));
    }
    match name.chars().find(|c| c.is_control()) {
        Some(c) => Err(NameError::Control(u32::from(c))),
        None => Ok(()),
    }
}

/// The name `escaped` stands for (see [`escape`]), checked as [`check`] does.
pub fn unescape(escaped: &[u8]) -> Result<String, NameError> {
    let mut bytes = Vec::with_capacity(escaped.len());
    let mut at = 0;
    while at < escaped.len() {
        let byte = escaped[at];
        if byte == b'%' {
            let digit = |i: usize| escaped.get(i).and_then(|&b| char::from(b).to_digit(16));
            let (Some(high), Some(low)) = (digit(at + 1), digit(at + 2)) else {
                return Err(NameError::BadEscape(at));
            };
            // Two hex digits are at most 0xFF.
            bytes.push((high * 16 + low) as u8);
            at += 3;
            continue;
        }
        if !is_plain(byte) {
            return Err(NameError::Unescaped(at));
        }
        bytes.push(byte);
        at += 1;
    }
    let name = String::from_utf8(bytes).map_err(|_| NameError::NotUtf8)?;
    check(&name)?;
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_the_old_charset_squeezed_together_stay_apart() {
        let names = [
            "BM_format/%@",
            "BM_format/%%",
            "BM_log/\"quoted\"",
            "BM_log/with space",
            "BM_ünïcode/日本",
            "BenchmarkSized/n=8",
        ];
        let escaped: Vec<String> = names.iter().map(|n| escape(n).into_owned()).collect();
        assert_eq!(escaped[0], "BM_format/%25@");
        assert_eq!(escaped[1], "BM_format/%25%25");
        assert_eq!(escaped[2], "BM_log/\"quoted\"");
        assert_eq!(escaped[3], "BM_log/with%20space");
        assert_eq!(escaped[5], "BenchmarkSized/n%3D8");
        for (name, escaped) in names.iter().zip(&escaped) {
            assert!(escaped.bytes().all(is_plain) || escaped.contains('%'));
            assert!(!escaped.contains(' ') && !escaped.contains('='));
            assert_eq!(unescape(escaped.as_bytes()).as_deref(), Ok(*name));
        }
    }

    #[test]
    fn an_old_name_is_its_own_escape() {
        for name in ["bench_crc_64", "sum/1024", "a.b:c+d-e"] {
            assert!(matches!(escape(name), Cow::Borrowed(_)));
            assert_eq!(unescape(name.as_bytes()).as_deref(), Ok(name));
        }
    }

    #[test]
    fn what_is_not_a_name_is_refused_with_why() {
        assert_eq!(unescape(b""), Err(NameError::Empty));
        assert_eq!(unescape(b"a%2"), Err(NameError::BadEscape(1)));
        assert_eq!(unescape(b"a%zz"), Err(NameError::BadEscape(1)));
        assert_eq!(unescape(b"a b"), Err(NameError::Unescaped(1)));
        assert_eq!(unescape(b"a=b"), Err(NameError::Unescaped(1)));
        assert_eq!(unescape(b"%FF"), Err(NameError::NotUtf8));
        assert_eq!(unescape(b"x%1B[2J"), Err(NameError::Control(0x1B)));
        assert_eq!(unescape(b"x%0A"), Err(NameError::Control(0x0A)));
        let long = "x".repeat(MAX_NAME_BYTES + 1);
        assert_eq!(
            unescape(long.as_bytes()),
            Err(NameError::TooLong(MAX_NAME_BYTES + 1))
        );
        assert_eq!(check("ok"), Ok(()));
    }
}
