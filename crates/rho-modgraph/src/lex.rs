//! Rust source cut into the few tokens a module graph needs: identifiers, `::` and single punctuation. Comments,
//! string, byte-string, raw-string and character literals are dropped, so a path in a doc comment or a message
//! (`"see crate::run"`) is not taken for an import.

/// One token and the line it starts on (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenKind {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
}

impl Token {
    pub fn ident(&self) -> Option<&str> {
        match &self.kind {
            TokenKind::Ident(name) => Some(name),
            _ => None,
        }
    }

    pub fn is_punct(&self, c: char) -> bool {
        self.kind == TokenKind::Punct(c)
    }

    pub fn is_ident(&self, name: &str) -> bool {
        self.ident() == Some(name)
    }
}

/// The tokens of `source`.
pub fn tokens(source: &str) -> Vec<Token> {
    let mut lexer = Lexer {
        chars: source.chars().collect(),
        at: 0,
        line: 1,
        out: Vec::new(),
    };
    lexer.run();
    lexer.out
}

struct Lexer {
    chars: Vec<char>,
    at: usize,
    line: usize,
    out: Vec<Token>,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// Moves past one character, counting lines.
    fn bump(&mut self) {
        if self.peek(0) == Some('\n') {
            self.line += 1;
        }
        self.at += 1;
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            match c {
                '/' if self.peek(1) == Some('/') => self.skip_line(),
                '/' if self.peek(1) == Some('*') => self.skip_block_comment(),
                '"' => self.skip_string(),
                '\'' => self.skip_char_or_lifetime(),
                ':' if self.peek(1) == Some(':') => {
                    self.push(TokenKind::PathSep);
                    self.at += 2;
                }
                c if c.is_alphabetic() || c == '_' => self.ident(),
                c if c.is_ascii_digit() => self.skip_number(),
                c if c.is_whitespace() => self.bump(),
                c => {
                    self.push(TokenKind::Punct(c));
                    self.at += 1;
                }
            }
        }
    }

    fn push(&mut self, kind: TokenKind) {
        self.out.push(Token {
            kind,
            line: self.line,
        });
    }

    fn skip_line(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.at += 1;
        }
    }

    /// Block comments nest in Rust.
    fn skip_block_comment(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.peek(0) {
            if c == '/' && self.peek(1) == Some('*') {
                depth += 1;
                self.at += 2;
            } else if c == '*' && self.peek(1) == Some('/') {
                depth -= 1;
                self.at += 2;
                if depth == 0 {
                    return;
                }
            } else {
                self.bump();
            }
        }
    }

    /// A `"..."` literal with its escapes; the opening quote is at the cursor.
    fn skip_string(&mut self) {
        self.at += 1;
        while let Some(c) = self.peek(0) {
            match c {
                '\\' => {
                    self.at += 1;
                    self.bump();
                }
                '"' => {
                    self.at += 1;
                    return;
                }
                _ => self.bump(),
            }
        }
    }

    /// A raw string `r#"..."#`: the cursor is on the first `#` or the quote.
    fn skip_raw_string(&mut self) {
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            hashes += 1;
            self.at += 1;
        }
        self.at += 1; // the opening quote
        while let Some(c) = self.peek(0) {
            if c == '"' && (1..=hashes).all(|k| self.peek(k) == Some('#')) {
                self.at += 1 + hashes;
                return;
            }
            self.bump();
        }
    }

    /// `'a'`, `'\n'` and `'\u{1F600}'` are characters; `'a` (no closing quote right after) is a lifetime, whose
    /// name is then read as an identifier, which no path check looks at.
    fn skip_char_or_lifetime(&mut self) {
        if self.peek(1) == Some('\\') {
            self.at += 3;
            while self.peek(0).is_some_and(|c| c != '\'') {
                self.bump();
            }
            self.at += 1;
        } else if self.peek(2) == Some('\'') {
            self.at += 3;
        } else {
            self.at += 1;
        }
    }

    fn skip_number(&mut self) {
        while self
            .peek(0)
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            self.at += 1;
        }
    }

    fn ident(&mut self) {
        let start = self.at;
        while self
            .peek(0)
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            self.at += 1;
        }
        let name: String = self.chars[start..self.at].iter().collect();
        let next = self.peek(0);
        match (name.as_str(), next) {
            ("r" | "br" | "cr", Some('"')) => self.skip_raw_string(),
            ("r" | "br" | "cr", Some('#')) if matches!(self.peek(1), Some('"' | '#')) => {
                self.skip_raw_string()
            }
            ("r", Some('#')) => {
                // A raw identifier, r#type: the name without its prefix.
                self.at += 1;
                self.ident();
            }
            ("b" | "c", Some('"')) => self.skip_string(),
            ("b", Some('\'')) => self.skip_char_or_lifetime(),
            _ => self.push(TokenKind::Ident(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(source: &str) -> Vec<String> {
        tokens(source)
            .iter()
            .filter_map(|t| t.ident().map(str::to_owned))
            .collect()
    }

    #[test]
    fn comments_and_literals_hold_no_identifiers() {
        let source = r####"a // crate::x
/* crate::y /* nested */ still */ b "crate::z \" q" r#"crate::w "# c 'x' '\n' '\'' b'q' br"v" d"####;
        assert_eq!(idents(source), ["a", "b", "c", "d"]);
    }

    #[test]
    fn a_lifetime_is_not_a_character() {
        assert_eq!(
            idents("fn f<'a>(x: &'a str) -> char { 'b' }"),
            ["fn", "f", "a", "x", "a", "str", "char"]
        );
    }

    #[test]
    fn lines_are_counted_through_comments_and_strings() {
        let t = tokens("a\n/*\n*/ \"\n\" b\nc::d");
        let lines: Vec<usize> = t.iter().map(|t| t.line).collect();
        assert_eq!(lines, [1, 4, 5, 5, 5]);
        assert_eq!(t[3].kind, TokenKind::PathSep);
    }
}
