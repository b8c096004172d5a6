//! Text that came from a child (a suite's noise lines and stderr, a metric name it printed, a line quoted in
//! an error) is shown with its control characters escaped, so that a benchmark cannot retitle or clear the
//! user's terminal, move the cursor, or overwrite the lines of a report.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` with every control character escaped but line feeds and tabs: for multi-line text (a stderr tail,
/// an error message that quotes one). See [`escape_line`].
pub fn escape_text(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// `text` with every control character escaped, line feeds and tabs included: for text shown on one line (a
/// noise line, a name). C0 controls and DEL read `\x1b`, `\r`, `\n`, `\t` and so on; C1 controls (U+0080 to
/// U+009F, which some terminals obey as escape sequences) read `\u{9b}`. Backslashes are left as they are:
/// the result is for a reader, not to be unescaped.
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
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
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
            "\\x1b]0;owned\\x07\\x1b[2J\\rmatmul\\u{9b}31m\\x7f"
        );
        assert_eq!(escape_line("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(escape_text("a\nb\tc\x1b[K"), "a\nb\tc\\x1b[K");
        assert_eq!(escape_line("naïve ✓"), "naïve ✓");
    }
}
