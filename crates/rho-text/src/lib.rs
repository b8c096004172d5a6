//! The one sanitiser for text on its way to a terminal. Text that came from outside rho (a suite's noise lines
//! and stderr, a metric name it printed, a stream's `compiler=`, a saved run's fields, a module.yml string, a
//! commit subject, a file name, an ELF's symbol names) is shown with its control characters escaped, so that
//! a benchmark or a file cannot retitle or clear the user's terminal, move the cursor, or overwrite the lines
//! of a report. Its own crate, with no dependencies, so that every renderer (rho-report, rho-mem, rho-gate,
//! rho-exec) and the binary share it without a dependency circle.
//!
//! It must not know about any other rho crate (docs/architecture.md).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

/// `text` with every control character escaped but line feeds and tabs: for multi-line text (a stderr tail,
/// an error message that quotes one). See [`escape_line`].
pub fn escape_text(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// `text` with every control character escaped, line feeds and tabs included: for text shown on one line (a
/// noise line, a name). C0 controls read `\x1b`, `\r`, `\n`, `\t` and so on; DEL and the C1 controls (U+0080
/// to U+009F, which some terminals obey as escape sequences) read `\u007f`, `\u009b`. Backslashes are left as
/// they are: the result is for a reader, not to be unescaped. A JSON text stays valid JSON, meaning the same,
/// through it: JSON has no raw C0 control in it, and `\u009b` is JSON's own escape for U+009B.
pub fn escape_line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

fn escape(text: &str, keep_lines: bool) -> Cow<'_, str> {
    let kept = |c: char| keep_lines && (c == '\n' || c == '\t');
    if !text.chars().any(|c| c.is_control() && !kept(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !c.is_control() || kept(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

/// A writer for a terminal: every text written through it is escaped with [`escape_text`] (line feeds and
/// tabs kept) before it reaches `inner`. Bytes that are not UTF-8 are replaced (U+FFFD), so that a lone C1
/// byte (0x9b, a CSI on some terminals) cannot reach the terminal either. Anything that paints the text
/// (colour) goes between this writer and the terminal, never before it.
pub struct Escaped<W: io::Write>(pub W);

impl<W: io::Write> io::Write for Escaped<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.0.write_all(escape_text(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_sequences_are_escaped_and_plain_text_is_untouched() {
        assert!(matches!(
            escape_text("plain text\n\tindented"),
            Cow::Borrowed(_)
        ));
        // Retitle the terminal, clear it, go back to the start of the line, a C1 CSI, DEL.
        assert_eq!(
            escape_line("\x1b]0;owned\x07\x1b[2J\rmatmul\u{9b}31m\x7f"),
            "\\x1b]0;owned\\x07\\x1b[2J\\rmatmul\\u009b31m\\u007f"
        );
        assert_eq!(escape_line("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(escape_text("a\nb\tc\x1b[K"), "a\nb\tc\\x1b[K");
        assert_eq!(escape_line("naïve ✓"), "naïve ✓");
    }

    #[test]
    fn the_terminal_writer_lets_no_control_byte_through() {
        use std::io::Write as _;
        let mut out = Escaped(Vec::new());
        out.write_all(b"gcc\x1b]0;PWNED\x07\n\ttab \xc2\x9b lone \x9b end\n")
            .unwrap();
        let written = String::from_utf8(out.0).unwrap();
        assert_eq!(
            written,
            "gcc\\x1b]0;PWNED\\x07\n\ttab \\u009b lone \u{fffd} end\n"
        );
    }

    #[test]
    fn a_json_text_through_the_terminal_writer_is_the_same_json() {
        use std::io::Write as _;
        let value = serde_json::json!({"name": "bench\u{9b}31m\u{7f}\x1b]0;PWNED\x07", "n": 1});
        let text = serde_json::to_string_pretty(&value).unwrap();
        let mut out = Escaped(Vec::new());
        out.write_all(text.as_bytes()).unwrap();
        let written = String::from_utf8(out.0).unwrap();
        assert!(
            !written.chars().any(|c| c.is_control() && c != '\n'),
            "{written:?}"
        );
        let back: serde_json::Value = serde_json::from_str(&written).unwrap();
        assert_eq!(back, value);
    }
}
