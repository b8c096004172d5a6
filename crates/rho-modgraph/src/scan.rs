//! What one source file says about modules: the modules it declares (`mod x;` and `mod x { ... }`), the names
//! its `use` items bring in, and every path it writes (in a `use` or in code). Paths are kept as written; the
//! graph resolves them once every file of the crate is read. Modules under `#[cfg(test)]` are left out, as
//! the compiler leaves them out of the crate a user builds.

use crate::lex::{Token, TokenKind};

/// A module path relative to the file's own module (empty: the file's module; `["progress"]`: an inline
/// `mod progress { ... }` in it).
pub type Scope = Vec<String>;

/// `mod name;`: a module in a file of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModDecl {
    pub scope: Scope,
    pub name: String,
    pub line: usize,
}

/// A path as written (`crate::run::Metric`, `super::*`, `wire::Stack`) in a scope, at a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathRef {
    pub scope: Scope,
    pub segments: Vec<String>,
    pub line: usize,
}

/// A name a module-level `use` brings into its module (`use crate::run::Metric as M` brings `M`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    pub name: String,
    pub target: PathRef,
}

#[derive(Debug, Default)]
pub struct FileScan {
    pub mod_decls: Vec<ModDecl>,
    pub inline_modules: Vec<Scope>,
    pub imports: Vec<Import>,
    pub paths: Vec<PathRef>,
}

/// The modules, imports and paths of one file's tokens.
pub fn scan(tokens: &[Token]) -> FileScan {
    let mut scanner = Scanner {
        tokens,
        at: 0,
        scopes: Vec::new(),
        depth: 0,
        test_attr_end: None,
        out: FileScan::default(),
    };
    scanner.run();
    scanner.out
}

struct Scanner<'t> {
    tokens: &'t [Token],
    at: usize,
    /// Inline modules open at this point, with the brace depth inside each.
    scopes: Vec<(String, usize)>,
    depth: usize,
    /// Where the last `#[cfg(test)]` ended (the index after its `]`).
    test_attr_end: Option<usize>,
    out: FileScan,
}

impl Scanner<'_> {
    fn tok(&self, at: usize) -> Option<&Token> {
        self.tokens.get(at)
    }

    fn scope(&self) -> Scope {
        self.scopes.iter().map(|(name, _)| name.clone()).collect()
    }

    /// True when the cursor sits directly in a module (not inside a function or other block).
    fn at_module_level(&self) -> bool {
        self.scopes.last().map_or(0, |&(_, depth)| depth) == self.depth
    }

    fn run(&mut self) {
        while let Some(token) = self.tok(self.at) {
            let line = token.line;
            match &token.kind {
                TokenKind::Punct('{') => {
                    self.depth += 1;
                    self.at += 1;
                }
                TokenKind::Punct('}') => {
                    if self
                        .scopes
                        .last()
                        .is_some_and(|&(_, depth)| depth == self.depth)
                    {
                        self.scopes.pop();
                    }
                    self.depth = self.depth.saturating_sub(1);
                    self.at += 1;
                }
                TokenKind::Punct('#') if self.is_cfg_test_attr() => {
                    self.at += 7;
                    self.test_attr_end = Some(self.at);
                }
                TokenKind::Ident(word) if word == "mod" => self.module(line),
                TokenKind::Ident(word) if word == "use" && !self.after_punct('$') => {
                    self.use_item()
                }
                TokenKind::Ident(_) => self.path_in_code(),
                _ => self.at += 1,
            }
        }
    }

    fn after_punct(&self, c: char) -> bool {
        self.at > 0 && self.tok(self.at - 1).is_some_and(|t| t.is_punct(c))
    }

    /// `# [ cfg ( test ) ]` at the cursor.
    fn is_cfg_test_attr(&self) -> bool {
        let want: [&dyn Fn(&Token) -> bool; 7] = [
            &|t| t.is_punct('#'),
            &|t| t.is_punct('['),
            &|t| t.is_ident("cfg"),
            &|t| t.is_punct('('),
            &|t| t.is_ident("test"),
            &|t| t.is_punct(')'),
            &|t| t.is_punct(']'),
        ];
        want.iter()
            .enumerate()
            .all(|(k, check)| self.tok(self.at + k).is_some_and(check))
    }

    /// True when the item at the cursor carries `#[cfg(test)]`: only attributes and a visibility stand between.
    fn under_cfg_test(&self) -> bool {
        let Some(end) = self.test_attr_end else {
            return false;
        };
        end <= self.at
            && self.tokens[end..self.at].iter().all(|t| match &t.kind {
                TokenKind::Punct(c) => !matches!(c, ';' | '{' | '}'),
                TokenKind::Ident(_) | TokenKind::PathSep => true,
            })
            && self.at - end < 16
    }

    fn module(&mut self, line: usize) {
        let test = self.under_cfg_test();
        let Some(name) = self
            .tok(self.at + 1)
            .and_then(Token::ident)
            .map(str::to_owned)
        else {
            self.at += 1;
            return;
        };
        let after = self.at + 2;
        if self.tok(after).is_some_and(|t| t.is_punct(';')) {
            if !test {
                self.out.mod_decls.push(ModDecl {
                    scope: self.scope(),
                    name,
                    line,
                });
            }
            self.at = after + 1;
        } else if self.tok(after).is_some_and(|t| t.is_punct('{')) {
            if test {
                self.at = self.matching_brace(after) + 1;
                return;
            }
            self.depth += 1;
            self.scopes.push((name, self.depth));
            self.out.inline_modules.push(self.scope());
            self.at = after + 1;
        } else {
            self.at += 1;
        }
    }

    /// The index of the `}` that closes the `{` at `open` (the end of the tokens if none does).
    fn matching_brace(&self, open: usize) -> usize {
        let mut depth = 0usize;
        for (k, token) in self.tokens.iter().enumerate().skip(open) {
            if token.is_punct('{') {
                depth += 1;
            } else if token.is_punct('}') {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
        }
        self.tokens.len()
    }

    fn use_item(&mut self) {
        let line = self.tokens[self.at].line;
        let module_level = self.at_module_level();
        self.at += 1;
        if self
            .tok(self.at)
            .is_some_and(|t| t.kind == TokenKind::PathSep)
        {
            // `use ::std::...`: another crate.
            self.skip_to_semicolon();
            return;
        }
        let mut leaves = Vec::new();
        self.use_tree(&mut Vec::new(), &mut leaves);
        self.skip_to_semicolon();
        let scope = self.scope();
        for (mut segments, alias) in leaves {
            if segments.last().is_some_and(|s| s == "self") {
                segments.pop();
            }
            let Some(last) = segments.last().cloned() else {
                continue;
            };
            let target = PathRef {
                scope: scope.clone(),
                segments,
                line,
            };
            let name = alias.unwrap_or(last);
            if module_level && name != "_" && name != "*" {
                self.out.imports.push(Import {
                    name,
                    target: target.clone(),
                });
            }
            self.out.paths.push(target);
        }
    }

    fn skip_to_semicolon(&mut self) {
        while self.tok(self.at).is_some_and(|t| !t.is_punct(';')) {
            self.at += 1;
        }
        self.at += 1;
    }

    /// One use tree after `prefix`: `a::b`, `a::b as c`, `a::*` (a leaf named `*`) or `a::{tree, ...}`.
    fn use_tree(
        &mut self,
        prefix: &mut Vec<String>,
        leaves: &mut Vec<(Vec<String>, Option<String>)>,
    ) {
        let base = prefix.len();
        while let Some(token) = self.tok(self.at) {
            if token.is_punct('{') {
                self.at += 1;
                while self.tok(self.at).is_some_and(|t| !t.is_punct('}')) {
                    self.use_tree(prefix, leaves);
                    if self.tok(self.at).is_some_and(|t| t.is_punct(',')) {
                        self.at += 1;
                    }
                }
                self.at += 1;
                prefix.truncate(base);
                return;
            }
            if token.is_punct('*') {
                self.at += 1;
                leaves.push((prefix.clone(), Some("*".to_owned())));
                prefix.truncate(base);
                return;
            }
            let Some(segment) = token.ident().map(str::to_owned) else {
                break;
            };
            prefix.push(segment);
            self.at += 1;
            if self
                .tok(self.at)
                .is_some_and(|t| t.kind == TokenKind::PathSep)
            {
                self.at += 1;
                continue;
            }
            let mut alias = None;
            if self.tok(self.at).is_some_and(|t| t.is_ident("as")) {
                alias = self
                    .tok(self.at + 1)
                    .and_then(Token::ident)
                    .map(str::to_owned);
                self.at += 2;
            }
            leaves.push((prefix.clone(), alias));
            break;
        }
        prefix.truncate(base);
    }

    /// A path in code: `a::b::c` not preceded by `::` (an absolute path names another crate) or `$` (a
    /// macro's `$crate`). One identifier alone is recorded too when it is `super` or `self` followed by `::`.
    fn path_in_code(&mut self) {
        let start = self.at;
        let preceded = start > 0
            && self
                .tok(start - 1)
                .is_some_and(|t| t.kind == TokenKind::PathSep || t.is_punct('$'));
        // `pub(in crate::x)` is a visibility, not a use of x.
        let visibility = start > 0 && self.tok(start - 1).is_some_and(|t| t.is_ident("in"));
        let mut segments = Vec::new();
        while let Some(name) = self.tok(self.at).and_then(Token::ident) {
            segments.push(name.to_owned());
            let sep = self
                .tok(self.at + 1)
                .is_some_and(|t| t.kind == TokenKind::PathSep);
            let next_ident = self.tok(self.at + 2).is_some_and(|t| t.ident().is_some());
            self.at += 1;
            if !(sep && next_ident) {
                break;
            }
            self.at += 1;
        }
        if segments.len() > 1 && !preceded && !visibility {
            let line = self.tokens[start].line;
            self.out.paths.push(PathRef {
                scope: self.scope(),
                segments,
                line,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::tokens;

    fn paths(source: &str) -> Vec<String> {
        scan(&tokens(source))
            .paths
            .iter()
            .map(|p| p.segments.join("::"))
            .collect()
    }

    #[test]
    fn use_trees_are_expanded_and_imports_named() {
        let found = scan(&tokens(
            "use crate::{run::{Metric as M, self}, wire::*};\nuse std::io;",
        ));
        let names: Vec<&str> = found.imports.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["M", "run", "io"]);
        let written: Vec<String> = found.paths.iter().map(|p| p.segments.join("::")).collect();
        assert_eq!(
            written,
            ["crate::run::Metric", "crate::run", "crate::wire", "std::io"]
        );
        assert_eq!(found.paths[3].line, 2);
    }

    #[test]
    fn visibilities_macro_crate_and_absolute_paths_are_not_uses() {
        let source = "pub(super) fn f() {} pub(in crate::a) fn g() { $crate::b::h(); ::other::c::d(); crate::e::f(); }";
        assert_eq!(paths(source), ["crate::e::f"]);
    }

    #[test]
    fn test_modules_are_left_out_and_inline_modules_scoped() {
        let source = "#[cfg(test)]\nmod tests { use crate::x::Y; }\n#[cfg(test)]\npub(crate) mod fixture;\nmod real;\n\
                      pub mod progress { fn f() { super::bar::baz(); } }";
        let found = scan(&tokens(source));
        assert_eq!(
            found
                .mod_decls
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>(),
            ["real"]
        );
        assert_eq!(found.inline_modules, [vec!["progress".to_owned()]]);
        assert_eq!(found.paths.len(), 1);
        assert_eq!(found.paths[0].scope, ["progress"]);
        assert!(found.imports.is_empty());
    }

    #[test]
    fn a_use_inside_a_function_imports_nothing_into_the_module() {
        let found = scan(&tokens("fn f() { use crate::a::B; }"));
        assert!(found.imports.is_empty());
        assert_eq!(found.paths.len(), 1);
    }
}
