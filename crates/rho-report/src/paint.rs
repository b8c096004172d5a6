//! Colour for a terminal: the words of a report that must stand out (a broken budget, a regression, a leak, an
//! overrun) painted with ANSI escapes after the text is laid out, so alignment is never disturbed.

/// Red and bold: something is wrong.
const ALARM: &str = "\x1b[1;31m";
/// Yellow: worth a look, not a failure.
const CAUTION: &str = "\x1b[33m";
/// Green: better than before.
const GOOD: &str = "\x1b[32m";
const RESET: &str = "\x1b[0m";

/// The words painted, whole words only (`OVER` and not `OVERHEAD`), with their colour.
const WORDS: [(&str, &str); 12] = [
    ("NOT MEASURED", ALARM),
    ("ABOVE BOUND", ALARM),
    ("REGRESSED", ALARM),
    ("UNMEASURED", ALARM),
    ("FAILED", ALARM),
    ("OVER", ALARM),
    ("LEAK", ALARM),
    ("overran", ALARM),
    ("stopped", CAUTION),
    ("unmeasured", CAUTION),
    ("over", CAUTION),
    ("improved", GOOD),
];

/// `text` with each of [`WORDS`] painted where it stands as a word of its own. Lowercase `over` only as a
/// verdict cell (two spaces or a line's edge on each side), never inside prose.
pub fn paint(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let bytes = text.as_bytes();
    let mut at = 0;
    'scan: while at < text.len() {
        let boundary_before = at == 0 || !is_word_byte(bytes[at - 1]);
        if boundary_before {
            for (word, colour) in WORDS {
                let end = at + word.len();
                if text[at..].starts_with(word) && (end == text.len() || !is_word_byte(bytes[end]))
                {
                    if word == "over" && !cell(text, at, end) {
                        continue;
                    }
                    out.push_str(colour);
                    out.push_str(word);
                    out.push_str(RESET);
                    at = end;
                    continue 'scan;
                }
            }
        }
        let next = text[at..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&text[at..at + next]);
        at += next;
    }
    out
}

fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}

/// Whether `text[start..end]` stands as a table cell: two spaces (or the line's edge) on each side.
fn cell(text: &str, start: usize, end: usize) -> bool {
    let before = &text[..start];
    let after = &text[end..];
    (before.ends_with("  ") || before.is_empty() || before.ends_with('\n'))
        && (after.starts_with("  ") || after.is_empty() || after.starts_with('\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_that_matter_are_painted_and_nothing_else() {
        let text = "bench_a  1508  5000  OVER\noverhead 78 cycles; LEAK: 64 bytes; over the iterations done\n";
        let painted = paint(text);
        assert!(painted.contains("\x1b[1;31mOVER\x1b[0m\n"), "{painted:?}");
        assert!(painted.contains("\x1b[1;31mLEAK\x1b[0m:"), "{painted:?}");
        assert!(painted.contains("overhead 78"), "{painted:?}");
        assert!(
            painted.contains("; over the"),
            "prose 'over' untouched: {painted:?}"
        );
        assert_eq!(paint("a  over  b"), "a  \x1b[33mover\x1b[0m  b");
        assert_eq!(paint("OVERHEAD é"), "OVERHEAD é");
    }

    #[test]
    fn painting_then_stripping_gives_the_text_back() {
        let text = "x  REGRESSED  +12%\nstack overran, NOT MEASURED, 3 improved\n";
        let stripped = paint(text)
            .replace(ALARM, "")
            .replace(CAUTION, "")
            .replace(GOOD, "")
            .replace(RESET, "");
        assert_eq!(stripped, text);
    }
}
