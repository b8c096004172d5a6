//! How long each function is, in lines from its `fn` to its closing brace, read from the tokens (comments and
//! literals dropped, so a brace in a string or a comment is not counted). Functions under `#[test]` and items
//! under `#[cfg(test)]` are left out: the limit on a function's length is for the code a user's build runs.

use crate::lex::{Token, tokens};

/// One function: its name, the line of its `fn`, and how many lines it spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionLength {
    pub name: String,
    pub line: usize,
    pub lines: usize,
}

/// Every function with a body in `source` that is not a test's, nested ones included, in order.
pub fn function_lengths(source: &str) -> Vec<FunctionLength> {
    let tokens = tokens(source);
    let mut found = Vec::new();
    let mut test_item = false;
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        if token.is_punct('#') && tokens.get(i + 1).is_some_and(|t| t.is_punct('[')) {
            let end = matching(&tokens, i + 1, '[', ']');
            test_item |= is_test_attribute(&tokens[i + 2..end]);
            i = end + 1;
            continue;
        }
        if test_item {
            // The item the attribute is on: skipped whole when it has a body, forgotten at its `;`.
            match body_or_end(&tokens, i) {
                Some((open, true)) => i = matching(&tokens, open, '{', '}') + 1,
                Some((end, false)) => i = end + 1,
                None => i = tokens.len(),
            }
            test_item = false;
            continue;
        }
        if token.is_ident("fn")
            && let Some(name) = tokens.get(i + 1).and_then(Token::ident)
            && let Some((open, true)) = body_or_end(&tokens, i)
        {
            let close = matching(&tokens, open, '{', '}');
            let last = tokens.get(close).map_or(token.line, |t| t.line);
            found.push(FunctionLength {
                name: name.to_string(),
                line: token.line,
                lines: last - token.line + 1,
            });
        }
        i += 1;
    }
    found
}

/// `#[test]` or `#[cfg(test)]` (the tokens between the brackets).
fn is_test_attribute(inner: &[Token]) -> bool {
    let words: Vec<&str> = inner.iter().filter_map(Token::ident).collect();
    let puncts = inner.iter().filter(|t| t.ident().is_none()).count();
    words == ["test"] && puncts == 0 || words == ["cfg", "test"] && puncts == 2
}

/// From `start`, the first `{` (an item's body: `true`) or `;` (an item without one: `false`).
fn body_or_end(tokens: &[Token], start: usize) -> Option<(usize, bool)> {
    tokens[start..]
        .iter()
        .position(|t| t.is_punct('{') || t.is_punct(';'))
        .map(|offset| (start + offset, tokens[start + offset].is_punct('{')))
}

/// The index of the `close` that matches the `open` at `at` (the last token when there is none).
fn matching(tokens: &[Token], at: usize, open: char, close: char) -> usize {
    let mut depth = 0usize;
    for (k, token) in tokens.iter().enumerate().skip(at) {
        if token.is_punct(open) {
            depth += 1;
        } else if token.is_punct(close) {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return k;
            }
        }
    }
    tokens.len().saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_spans_its_fn_to_its_closing_brace_and_tests_are_left_out() {
        let source = "\
/// { not a brace }
pub fn short() -> u8 {
    let s = \"}}}\";
    1
}

trait T { fn declared(&self); }

impl X {
    fn method(&self) {
        let f = |x: u8| { x };
    }
}

#[test]
fn a_test() {
    assert!(true);
}

#[cfg(test)]
mod tests {
    fn helper() {
    }
}

#[derive(Debug)]
struct After;
fn last() {}
";
        let lengths: Vec<(String, usize, usize)> = function_lengths(source)
            .into_iter()
            .map(|f| (f.name, f.line, f.lines))
            .collect();
        assert_eq!(
            lengths,
            [
                ("short".to_string(), 2, 4),
                ("method".to_string(), 10, 3),
                ("last".to_string(), 28, 1),
            ]
        );
    }

    #[test]
    fn a_planted_long_function_is_counted_to_its_last_line() {
        let body: String = (0..149)
            .map(|k| format!("    let _x{k} = {k};\n"))
            .collect();
        let source = format!("fn planted() {{\n{body}}}\n");
        let lengths = function_lengths(&source);
        assert_eq!(lengths.len(), 1);
        assert_eq!(lengths[0].lines, 151, "its fn line, 149 of body, its brace");
    }
}
