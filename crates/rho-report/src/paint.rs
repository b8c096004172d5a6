//! Colour for a terminal: the words of a report that must stand out (a broken budget, a regression, a leak, an
//! overrun) painted with ANSI escapes after the text is laid out, so alignment is never disturbed; verdicts
//! that hold in green, and each table's header row and each report's first line in bold, so the structure
//! reads at a glance when nothing is wrong.

/// Red and bold: something is wrong.
const ALARM: &str = "\x1b[1;31m";
/// Yellow: worth a look, not a failure.
const CAUTION: &str = "\x1b[33m";
/// Green: better than before, or within its budget.
const GOOD: &str = "\x1b[32m";
/// Bold: a table's header row, a report's first line.
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// The words painted, whole words only (`OVER` and not `OVERHEAD`), with their colour.
const WORDS: [(&str, &str); 13] = [
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
    ("ok", GOOD),
];

/// Words painted only where they stand as a table cell, never in prose.
const CELL_ONLY: [&str; 2] = ["over", "ok"];

/// `text` painted: each of [`WORDS`] where it stands as a word of its own (lowercase `over` and `ok` only as a
/// verdict cell: two spaces or a line's edge on each side, never inside prose); then, in bold, every line a rule
/// of dashes follows (a table's header row) and every line that starts a report (`rho bench ...`).
pub fn paint(text: &str) -> String {
    let words = paint_words(text);
    let lines: Vec<&str> = words.split_inclusive('\n').collect();
    let mut out = String::with_capacity(words.len() + 64);
    for (index, line) in lines.iter().enumerate() {
        let ruled = lines
            .get(index + 1)
            .map(|next| next.trim_end())
            .is_some_and(|next| next.len() >= 3 && next.bytes().all(|b| b == b'-'));
        let heading = line.starts_with("rho bench ") || line.starts_with("rho gate ");
        let body = line.trim_end_matches('\n');
        if (ruled || heading) && !body.is_empty() {
            out.push_str(BOLD);
            out.push_str(body);
            out.push_str(RESET);
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// `text` with each of [`WORDS`] painted.
fn paint_words(text: &str) -> String {
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
                    if CELL_ONLY.contains(&word) && !cell(text, at, end) {
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
        let text = "rho bench  x\nname  verdict\n-------------\nx  REGRESSED  +12%\nstack overran, NOT MEASURED, 3 improved  ok\n";
        let stripped = paint(text)
            .replace(ALARM, "")
            .replace(CAUTION, "")
            .replace(GOOD, "")
            .replace(BOLD, "")
            .replace(RESET, "");
        assert_eq!(stripped, text);
    }

    #[test]
    fn a_clean_report_has_its_structure_in_colour() {
        let text = "rho bench  a.c  target host\n\nbenchmark  stack B  max  verdict\n------------------------------\n\
                    bench_a        144  4096  ok\nthe ok of prose\n";
        let painted = paint(text);
        assert!(
            painted.starts_with("\x1b[1mrho bench  a.c  target host\x1b[0m\n"),
            "{painted:?}"
        );
        assert!(
            painted.contains("\x1b[1mbenchmark  stack B  max  verdict\x1b[0m\n---"),
            "{painted:?}"
        );
        assert!(painted.contains("4096  \x1b[32mok\x1b[0m\n"), "{painted:?}");
        assert!(
            painted.contains("the ok of prose"),
            "prose 'ok' untouched: {painted:?}"
        );
    }
}
