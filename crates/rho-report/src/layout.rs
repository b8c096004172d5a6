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
    if table.lines().all(|line| line.chars().count() <= width) {
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

/// `rows` in aligned columns (see [`aligned_table`]).
fn columns(rows: &[Vec<String>], left: &dyn Fn(usize) -> bool, rule: bool) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
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
            if left(c) {
                let _ = write!(line, "{cell:<width$}");
            } else {
                let _ = write!(line, "{cell:>width$}");
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
