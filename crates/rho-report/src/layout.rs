//! How the text reports are laid out: the width they fit, prose wrapped at it, and the one aligned table
//! every text table uses. It knows nothing of runs or figures: the run's report, the growth and target
//! tables all lay out through it.

use std::fmt::Write as _;

/// How the text report is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// The columns the report may use: prose wraps there, and the default table is made to fit (a benchmark
    /// name too long for it goes on a line of its own).
    pub width: usize,
    /// Every clock's row and every statistic (mean, p95, max, iqr/med, heap live, ops per iteration): the
    /// table is as wide as they make it.
    pub wide: bool,
}

/// The width a report fits when nothing says how wide the terminal is.
pub const DEFAULT_WIDTH: usize = 100;

/// The narrowest width a report is laid out for: below it, tables could not fit anyway.
pub const MIN_WIDTH: usize = 60;

impl Default for Layout {
    fn default() -> Self {
        Layout {
            width: DEFAULT_WIDTH,
            wide: false,
        }
    }
}

impl Layout {
    /// A layout `width` columns wide (never below [`MIN_WIDTH`]).
    pub fn new(width: usize, wide: bool) -> Layout {
        Layout {
            width: width.max(MIN_WIDTH),
            wide,
        }
    }
}

/// `text` wrapped at `width` columns (at spaces only: names and figures are never split), each paragraph
/// (line of `text`) on its own. Lines after the first of a paragraph are indented by `indent` spaces.
pub fn wrap(text: &str, width: usize, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let options = textwrap::Options::new(width.max(indent + 20))
        .subsequent_indent(&pad)
        .break_words(false);
    let mut out = String::new();
    for paragraph in text.lines() {
        for line in textwrap::wrap(paragraph, &options) {
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    out
}

/// `rows` (the first is the header) as a text table: each column as wide as its widest cell, two spaces
/// between columns, the columns `left` names aligned left and the others right, a rule of dashes under the
/// header, trailing blanks trimmed. The one layout of every table of the text report.
pub fn aligned_table(rows: &[Vec<String>], left: impl Fn(usize) -> bool) -> String {
    laid_out(rows, &left, true, usize::MAX)
}

/// [`aligned_table`] fitted to `width` columns where it can be: when a row would be wider (a long name in
/// the first column), each name goes on a line of its own (once for consecutive rows of one name) and its
/// rows keep the other cells under the header.
pub fn aligned_table_within(
    rows: &[Vec<String>],
    left: impl Fn(usize) -> bool,
    width: usize,
) -> String {
    laid_out(rows, &left, true, width)
}

/// The one layout behind [`aligned_table`] and [`aligned_table_within`] (and the footprint table, which has
/// no rule); `rule`: the dashes under the header.
pub(crate) fn laid_out(
    rows: &[Vec<String>],
    left: &dyn Fn(usize) -> bool,
    rule: bool,
    width: usize,
) -> String {
    let table = columns(rows, left, rule);
    if table.lines().all(|line| display_width(line) <= width) {
        return table;
    }
    let mut cut = rows.to_vec();
    let mut names: Vec<(usize, &str)> = Vec::new();
    for (index, row) in rows.iter().enumerate().skip(1) {
        let name = row.first().map_or("", String::as_str);
        if names.last().is_none_or(|&(_, last)| last != name) {
            names.push((index, name));
        }
        if let Some(first) = cut[index].first_mut() {
            first.clear();
        }
    }
    let header_lines = if rule { 2 } else { 1 };
    let mut names = names.into_iter().peekable();
    let mut out = String::new();
    for (index, line) in columns(&cut, left, rule).lines().enumerate() {
        let row = (index + 1).saturating_sub(header_lines);
        if index >= header_lines
            && let Some((_, name)) = names.next_if(|&(at, _)| at == row)
        {
            let _ = writeln!(out, "{name}");
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The columns `text` takes on a terminal: a CJK character or an emoji takes two, a combining mark none
/// (Unicode's East Asian Width, as terminals draw them), so a table of such names stays aligned.
pub fn display_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `rows` in aligned columns (see [`aligned_table`]).
fn columns(rows: &[Vec<String>], left: &dyn Fn(usize) -> bool, rule: bool) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |s| display_width(s)))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (index, row) in rows.iter().enumerate() {
        let mut line = String::new();
        for (c, (cell, width)) in row.iter().zip(&widths).enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            // `format!`'s padding counts chars, and a CJK character or an emoji takes two columns.
            let pad = " ".repeat(width.saturating_sub(display_width(cell)));
            if left(c) {
                let _ = write!(line, "{cell}{pad}");
            } else {
                let _ = write!(line, "{pad}{cell}");
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
        if index == 0 && rule {
            let total = widths.iter().sum::<usize>() + 2 * columns.saturating_sub(1);
            let _ = writeln!(out, "{}", "-".repeat(total));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_keep_the_columns_aligned() {
        let rows = vec![
            vec!["benchmark".to_string(), "median".to_string()],
            vec!["BM_日本語/漢字".to_string(), "12.5 ns".to_string()],
            vec!["BM_emoji/🦀".to_string(), "3.0 ns".to_string()],
            vec!["BM_ascii".to_string(), "1024.0 ns".to_string()],
        ];
        let table = aligned_table(&rows, |c| c == 0);
        // 日本語 and 漢字 take two columns a character, 🦀 two: the widest name is 14 columns, in 9 chars.
        assert_eq!(
            table,
            "benchmark          median\n\
             -------------------------\n\
             BM_日本語/漢字    12.5 ns\n\
             BM_emoji/🦀        3.0 ns\n\
             BM_ascii        1024.0 ns\n"
        );
        for line in table.lines() {
            assert_eq!(display_width(line), 25, "{line}");
        }
    }

    #[test]
    fn a_table_of_wide_names_is_fitted_by_its_columns_not_its_chars() {
        // 20 chars but 40 columns: too wide for 40 with its figure, so the name goes on its own line.
        let name = "漢".repeat(20);
        let rows = vec![
            vec!["benchmark".to_string(), "median".to_string()],
            vec![name.clone(), "1 ns".to_string()],
        ];
        let table = aligned_table_within(&rows, |c| c == 0, 40);
        assert_eq!(
            table,
            format!("benchmark  median\n-----------------\n{name}\n             1 ns\n")
        );
    }
}
