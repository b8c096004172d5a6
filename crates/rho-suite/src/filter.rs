//! `--filter REGEX`: which benchmarks run, a regular expression (the `regex` crate's syntax) searched for in
//! each benchmark's name as written, unanchored like Google Benchmark's `--benchmark_filter` (`^name$` for
//! one exact name, `a|b` for two). The one place a filter is read, matched and translated for a harness:
//!
//! - rho's harnesses (C and rho-bench) take `RHO_BENCH_FILTER` terms: names, each matched as a substring,
//!   or anchored with `^` (at the start) and `$` (at the end). A regex that is only such alternatives is
//!   passed as its terms ([`NameFilter::harness_terms`]); any other is matched against the suite's listing
//!   and the harness is given the exact names ([`exact_terms`]). A board has no listing and no `$` in its
//!   build (make and the preprocessor read it), so it gets the terms without their anchors
//!   ([`unanchored`]) or none at all.
//! - another harness gets its own filter, as close as its syntax allows ([`NameFilter::posix_extended`] for
//!   Google Benchmark, the regex itself for criterion, [`NameFilter::go_pattern`] for Go,
//!   [`NameFilter::pytest_keywords`] for pytest's `-k`).
//!
//! Whatever a harness was told, every report is cut to the names the regex matches ([`NameFilter::matches`]),
//! so each harness selects exactly the same names.

use regex::Regex;

/// The environment variable rho's harnesses read their filter from.
pub const FILTER_VARIABLE: &str = "RHO_BENCH_FILTER";

/// `RHO_BENCH_FILTER` terms no benchmark matches (no name is `/` alone): a suite run with them runs none of
/// its benchmarks, as a filter matching none of its names should.
pub const NOTHING: &str = "^/$";

/// The longest name term the harnesses take (a family member's `NAME/ARG`: 63 characters and an argument).
pub const TERM_MAX: usize = 85;

/// A compiled `--filter`.
#[derive(Debug, Clone)]
pub struct NameFilter {
    text: String,
    regex: Regex,
}

impl PartialEq for NameFilter {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

/// Why text is not a filter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    #[error("an empty filter: give a regular expression, e.g. `crc` or `^bench_crc_64$`")]
    Empty,
    #[error("`{text}` is not a regular expression: {why}")]
    Regex { text: String, why: String },
}

impl NameFilter {
    /// `text` as a filter: a regular expression in the `regex` crate's syntax.
    pub fn new(text: &str) -> Result<NameFilter, FilterError> {
        if text.is_empty() {
            return Err(FilterError::Empty);
        }
        let regex = Regex::new(text).map_err(|error| FilterError::Regex {
            text: text.to_owned(),
            // The crate's message draws the pattern with a caret under the fault: its last lines say what.
            why: error
                .to_string()
                .lines()
                .rfind(|line| !line.trim().is_empty())
                .unwrap_or("invalid")
                .trim_start_matches("error: ")
                .to_owned(),
        })?;
        Ok(NameFilter {
            text: text.to_owned(),
            regex,
        })
    }

    /// The filter as the user wrote it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the benchmark named `name` (as written) is selected.
    pub fn matches(&self, name: &str) -> bool {
        self.regex.is_match(name)
    }

    /// `RHO_BENCH_FILTER` terms selecting exactly the names this regex matches, when it is alternatives of
    /// plain names, each maybe anchored (`crc`, `^bench_crc_64$`, `sum/1024|^steady`, `bench\.x`); `None`
    /// for any other regex, which the host matches against a listing instead.
    pub fn harness_terms(&self) -> Option<String> {
        let mut terms = Vec::new();
        for alternative in split_alternatives(&self.text)? {
            terms.push(harness_term(alternative)?);
        }
        Some(terms.join(","))
    }

    /// The regex as Google Benchmark's `--benchmark_filter` reads it (POSIX extended, by std::regex or
    /// RE2), when it means the same there: literal characters, `.`, `^`, `$`, `|`, groups and the
    /// quantifiers `*`, `+`, `?`, and `\` before one of the syntax's own characters only. `None` otherwise
    /// (a class, a brace, a flag, `\d`, `\-`, a leading `-`, which Google Benchmark reads as "all but"):
    /// the benchmarks are then listed and named exactly.
    pub fn posix_extended(&self) -> Option<&str> {
        if self.text.starts_with('-') {
            return None;
        }
        let mut chars = self.text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some(p) if POSIX_SPECIAL.contains(p) => {}
                    _ => return None,
                },
                '(' if chars.peek() == Some(&'?') => return None,
                '[' | ']' | '{' | '}' => return None,
                c if c.is_control() => return None,
                _ => {}
            }
        }
        Some(&self.text)
    }

    /// `go test -bench`'s pattern. Go cuts its pattern at each `/` into one expression per level of
    /// sub-benchmarks and matches each level alone, so a regex with a `/` (which can span levels) runs every
    /// benchmark (`.`), and one without is Go's own top-level pattern (RE2: the regex crate's syntax); the
    /// report is then cut to the full names the regex matches.
    pub fn go_pattern(&self) -> &str {
        if self.text.contains('/') {
            "."
        } else {
            &self.text
        }
    }

    /// pytest's `-k` expression for this filter: alternatives of plain identifiers become `a or b` (pytest
    /// picks tests whose names contain one, case-insensitively: never fewer than the regex); `None` for any
    /// other regex, which runs every test before the report is cut.
    pub fn pytest_keywords(&self) -> Option<String> {
        let words: Vec<&str> = split_alternatives(&self.text)?
            .into_iter()
            .map(|alternative| {
                let word = alternative.trim_start_matches('^').trim_end_matches('$');
                let plain =
                    !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                plain.then_some(word)
            })
            .collect::<Option<_>>()?;
        Some(words.join(" or "))
    }

    /// The error for a filter that matched no benchmark of any suite: the filter, a few of the names that
    /// exist (`known`), and for a comma the hint that alternatives are joined by `|`.
    pub fn no_match(&self, known: &[String]) -> String {
        let mut message = format!("--filter {} matched no benchmark", self.text);
        if !known.is_empty() {
            const SHOWN: usize = 5;
            let shown: Vec<&str> = known.iter().take(SHOWN).map(String::as_str).collect();
            let more = known.len().saturating_sub(SHOWN);
            message.push_str(&format!("; the suites have {}", shown.join(", ")));
            if more > 0 {
                message.push_str(&format!(" and {more} more"));
            }
        }
        if self.text.contains(',') {
            message.push_str(
                "; the filter is a regular expression, where a comma is a comma: join alternatives \
                 with |, e.g. crc_64|steady",
            );
        } else {
            message.push_str(
                " (a regular expression searched for in each name; ^name$ for an exact name; \
                 `rho bench --list` lists them)",
            );
        }
        message
    }
}

/// `text` cut at each `|` outside an escape, or `None` when it holds a group or class (whose `|` would not
/// be a top-level alternative).
fn split_alternatives(text: &str) -> Option<Vec<&str>> {
    let mut alternatives = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '(' | ')' | '[' | ']' => return None,
            '|' => {
                alternatives.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    alternatives.push(&text[start..]);
    Some(alternatives)
}

/// Whether `c` is a character of a harness's benchmark names (and so of its filter terms).
fn is_harness_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_.:+-/".contains(c)
}

/// One alternative (`^`? name characters, `\`-escaped where the regex reads them otherwise, `$`?) as a
/// harness term, or `None`.
fn harness_term(alternative: &str) -> Option<String> {
    let (start, rest) = match alternative.strip_prefix('^') {
        Some(rest) => ("^", rest),
        None => ("", alternative),
    };
    let (body, end) = match rest.strip_suffix('$') {
        Some(body) if !body.ends_with('\\') || body.ends_with("\\\\") => (body, "$"),
        _ => (rest, ""),
    };
    let mut literal = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        let c = match c {
            '\\' => chars.next().filter(char::is_ascii_punctuation)?,
            // Outside an escape these are the regex's own: any character, one or more.
            '.' | '+' | '*' | '?' | '{' | '}' | '^' | '$' => return None,
            c => c,
        };
        if !is_harness_char(c) {
            return None;
        }
        literal.push(c);
    }
    if literal.is_empty() || literal.len() > TERM_MAX {
        return None;
    }
    Some(format!("{start}{literal}{end}"))
}

/// The characters POSIX extended regular expressions read as their own: escaped to be literal, and the only
/// ones a `\` may go before there.
const POSIX_SPECIAL: &str = "\\^$.|?*+()[]{}";

/// `name` as a POSIX extended regular expression matches it (Google Benchmark's filter): each character
/// the syntax reads otherwise escaped.
pub fn posix_escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if POSIX_SPECIAL.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The regex selecting exactly `names` (each `^name$`, escaped): a filter a share or a listing gives.
pub fn exact<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|name| format!("^{}$", regex::escape(name.as_ref())))
        .collect::<Vec<_>>()
        .join("|")
}

/// `RHO_BENCH_FILTER` terms running exactly `names` (harness names, each `^name$`), or `None` when one is
/// no harness name (the harness did not list it, so it cannot run it).
pub fn exact_terms<S: AsRef<str>>(names: &[S]) -> Option<String> {
    let terms: Option<Vec<String>> = names
        .iter()
        .map(|name| {
            let name = name.as_ref();
            let plain = (1..=TERM_MAX).contains(&name.len()) && name.chars().all(is_harness_char);
            plain.then(|| format!("^{name}$"))
        })
        .collect();
    terms.map(|terms| terms.join(","))
}

/// `terms` without their anchors: the same names or more, for a board's build (make and the preprocessor
/// would read a `$`); the host cuts the report to the regex's names.
pub fn unanchored(terms: &str) -> String {
    terms
        .split(',')
        .map(|term| term.trim_start_matches('^').trim_end_matches('$'))
        .collect::<Vec<_>>()
        .join(",")
}

/// The filter `text` (a `--filter`) as `RHO_BENCH_FILTER` terms, when it is plain names
/// ([`NameFilter::harness_terms`]); `None` without a filter or for any other regex.
pub fn harness_terms_of(text: Option<&str>) -> Option<String> {
    NameFilter::new(text?).ok()?.harness_terms()
}

/// The filter `text` compiled, as a suite's run error when it is none (the command line checks it first).
pub fn compiled(text: Option<&str>) -> crate::Result<Option<NameFilter>> {
    text.map(NameFilter::new)
        .transpose()
        .map_err(|error| crate::SuiteError::Unsupported(format!("--filter: {error}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(text: &str) -> NameFilter {
        NameFilter::new(text).unwrap()
    }

    const NAMES: &[&str] = &[
        "bench_crc",
        "bench_crc_64",
        "sum/1024",
        "BM_format/%@",
        "BM_format/%%",
        "BM_log/with space",
        "BM_日本語/漢字",
    ];

    fn picked(text: &str) -> Vec<&'static str> {
        let filter = filter(text);
        NAMES
            .iter()
            .copied()
            .filter(|n| filter.matches(n))
            .collect()
    }

    #[test]
    fn a_filter_is_an_unanchored_regex_over_names_as_written() {
        assert_eq!(picked("crc"), ["bench_crc", "bench_crc_64"]);
        assert_eq!(picked("^bench_crc$"), ["bench_crc"]);
        assert_eq!(picked("crc_64|sum"), ["bench_crc_64", "sum/1024"]);
        assert_eq!(picked("%@"), ["BM_format/%@"]);
        assert_eq!(picked("BM_format/%"), ["BM_format/%@", "BM_format/%%"]);
        assert_eq!(picked("with space"), ["BM_log/with space"]);
        assert_eq!(picked("日本"), ["BM_日本語/漢字"]);
        // The old comma syntax is a literal comma now.
        assert!(picked("crc_64,sum").is_empty());
    }

    #[test]
    fn bad_filters_say_why() {
        assert_eq!(NameFilter::new(""), Err(FilterError::Empty));
        let error = NameFilter::new("crc(").unwrap_err().to_string();
        assert!(
            error.starts_with("`crc(` is not a regular expression: "),
            "{error}"
        );
        assert!(error.contains("unclosed group"), "{error}");
    }

    #[test]
    fn alternatives_of_plain_names_become_harness_terms() {
        let terms = |text: &str| filter(text).harness_terms();
        assert_eq!(terms("crc").as_deref(), Some("crc"));
        assert_eq!(terms("^bench_crc$").as_deref(), Some("^bench_crc$"));
        assert_eq!(
            terms("crc_64|^steady|sum/1024$").as_deref(),
            Some("crc_64,^steady,sum/1024$")
        );
        assert_eq!(terms(r"bench\.x\+1").as_deref(), Some("bench.x+1"));
        assert_eq!(terms(r"a\$").as_deref(), None, "a `$` is no name character");
        for regex in [
            "bench.x",
            "crc_(64|256)",
            "[ab]",
            "a*",
            "%@",
            "a b",
            "日本",
            "(?i)crc",
            "^$",
        ] {
            assert_eq!(terms(regex), None, "{regex}");
        }
        assert_eq!(
            terms(&exact(&["bench_crc", "sum/1024"])).as_deref(),
            Some("^bench_crc$,^sum/1024$")
        );
    }

    #[test]
    fn an_exact_filter_picks_its_names_and_not_those_they_begin() {
        let names = ["bench_crc", "BM_format/%@", "BM_日本語/漢字"];
        let exact = filter(&exact(&names));
        let kept: Vec<&str> = NAMES.iter().copied().filter(|n| exact.matches(n)).collect();
        assert_eq!(kept, names);
        assert_eq!(
            exact_terms(&["bench_crc", "sum/1024"]).as_deref(),
            Some("^bench_crc$,^sum/1024$")
        );
        assert_eq!(exact_terms(&["BM_format/%@"]), None);
        // A term holds a family member's name (85 characters at most), never an empty one or a comma.
        assert!(exact_terms(&["a".repeat(TERM_MAX)]).is_some());
        assert_eq!(exact_terms(&["a".repeat(TERM_MAX + 1)]), None);
        assert_eq!(exact_terms(&["", "a,b"]), None);
        assert_eq!(unanchored("^bench_crc$,sum,^a,b$"), "bench_crc,sum,a,b");
    }

    #[test]
    fn other_harnesses_get_their_own_forms() {
        assert_eq!(
            filter("^BM_format/%@$").posix_extended(),
            Some("^BM_format/%@$")
        );
        assert_eq!(
            filter(r"BM_(a|b)\.x+").posix_extended(),
            Some(r"BM_(a|b)\.x+")
        );
        for regex in [r"\d", "[ab]", "a{2}", "(?i)a", r"a\-b", "-BM_a"] {
            assert_eq!(filter(regex).posix_extended(), None, "{regex}");
        }
        assert_eq!(filter("Sized").go_pattern(), "Sized");
        assert_eq!(filter("Sized/n=8").go_pattern(), ".");
        assert_eq!(
            filter("^test_sum$|test_product")
                .pytest_keywords()
                .as_deref(),
            Some("test_sum or test_product")
        );
        assert_eq!(filter("test_sum[10]").pytest_keywords(), None);
    }

    #[test]
    fn no_match_names_the_filter_and_what_exists() {
        let known: Vec<String> = ["a", "b", "c", "d", "e", "f", "g"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            filter("crc_64,steady").no_match(&known),
            "--filter crc_64,steady matched no benchmark; the suites have a, b, c, d, e and 2 more; the \
             filter is a regular expression, where a comma is a comma: join alternatives with |, e.g. \
             crc_64|steady"
        );
        assert_eq!(
            filter("zzz").no_match(&known[..1]),
            "--filter zzz matched no benchmark; the suites have a (a regular expression searched for in \
             each name; ^name$ for an exact name; `rho bench --list` lists them)"
        );
    }
}
