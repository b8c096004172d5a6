//! Callgrind's output format (one dump: the measured loop), read into a [`Profile`]: each function's own
//! instructions, where it is, and the calls it made with their inclusive instructions.
//!
//! The format (valgrind.org, "Callgrind Format Specification"): `fn=` opens a function, `fl=`/`fi=`/`fe=`
//! say which file the following cost lines are in, `cfn=`/`cfi=`/`cfl=`/`cob=` name a call's target and
//! `calls=COUNT TARGET` announces it, and the cost line after `calls=` is the call's inclusive cost. Names may be
//! compressed (`fn=(12) name` defines number 12, `fn=(12)` refers to it; files share one table, functions one
//! and objects one) and positions may be relative (`+3`, `-2`, `*`). Only the `Ir` event is read.

use std::collections::BTreeMap;

/// Why a dump could not be read: the line (1-based) and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

/// One dump's whole-loop costs, per function (names demangled).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    pub functions: BTreeMap<String, RawFunction>,
}

/// Each dump of a counted run read into its [`Profile`], by the dump's number (the stream's `@count DUMP`):
/// what the host keeps beside the parsed run when it keeps functions (`rho bench --functions N`), for
/// rho-stats to net of the harness as it nets each benchmark's total. The wire stream itself carries no
/// function: rho-wire reads a dump's totals, this its functions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DumpProfiles {
    by_dump: BTreeMap<u64, Profile>,
}

impl DumpProfiles {
    /// Read dump number `dump` (its whole text) and keep its functions.
    pub fn read(&mut self, dump: u64, text: &str) -> Result<(), ParseError> {
        self.by_dump.insert(dump, parse(text)?);
        Ok(())
    }

    /// The functions of dump number `dump`, if it was read.
    pub fn get(&self, dump: u64) -> Option<&Profile> {
        self.by_dump.get(&dump)
    }

    /// Take dump number `dump`'s functions out (to keep them under another number: runs merged).
    pub fn take(&mut self, dump: u64) -> Option<Profile> {
        self.by_dump.remove(&dump)
    }

    /// Keep `profile` as dump number `dump`'s functions.
    pub fn insert(&mut self, dump: u64, profile: Profile) {
        self.by_dump.insert(dump, profile);
    }

    /// Whether no dump was read.
    pub fn is_empty(&self) -> bool {
        self.by_dump.is_empty()
    }
}

/// A function's costs in one dump.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawFunction {
    /// Instructions executed in the function itself.
    pub self_cost: u64,
    /// The source file of its first instruction (the dump's `fl=`), `None` where there was no debug info.
    pub file: Option<String>,
    /// The lowest line of that file it executed, `None` without debug info.
    pub line: Option<u64>,
    /// The calls it made, by callee: how many and their inclusive instructions.
    pub calls: BTreeMap<String, RawCall>,
}

/// Calls from one function to another in one dump.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawCall {
    pub count: u64,
    pub inclusive: u64,
}

impl RawFunction {
    /// Its own instructions and those of every call it made.
    pub fn inclusive(&self) -> u64 {
        self.self_cost + self.calls.values().map(|c| c.inclusive).sum::<u64>()
    }
}

/// The compressed-name tables of one file (files, functions and objects each have their own).
#[derive(Default)]
struct Names {
    files: BTreeMap<String, String>,
    functions: BTreeMap<String, String>,
    objects: BTreeMap<String, String>,
}

/// Where the parser is: the current function and file, the call announced, and the position columns.
#[derive(Default)]
struct State {
    function: Option<String>,
    /// The function's own file (`fl=`) and the file of the cost lines now (`fi=`/`fe=`, or `fl=`).
    function_file: Option<String>,
    cost_file: Option<String>,
    callee: Option<String>,
    pending_call: Option<u64>,
    ir_column: Option<usize>,
    position_columns: usize,
    last_positions: Vec<u64>,
}

/// Read one Callgrind output file. Calls entered before collection started (Callgrind's `calls=0`: the
/// stack above the measured loop) are dropped, and so are functions left with nothing of their own in the
/// loop, so what remains is the loop and what it called.
pub fn parse(text: &str) -> Result<Profile, ParseError> {
    let mut names = Names::default();
    let mut state = State {
        position_columns: 1,
        ..State::default()
    };
    let mut profile = Profile::default();
    for (index, raw_line) in text.lines().enumerate() {
        let line = raw_line.trim_end();
        let at = |message: String| ParseError {
            line: index + 1,
            message,
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("positions:") {
            state.position_columns = rest.split_whitespace().count().max(1);
        } else if let Some(rest) = line.strip_prefix("events:") {
            state.ir_column = rest.split_whitespace().position(|e| e == "Ir");
            if state.ir_column.is_none() {
                return Err(at(format!("expected the Ir event among `events:{rest}`")));
            }
        } else if let Some((key, value)) = specification(line) {
            apply(key, value, &mut names, &mut state).map_err(at)?;
        } else if starts_cost(line) {
            cost_line(line, &mut state, &mut profile).map_err(at)?;
        }
    }
    if state.ir_column.is_none() {
        return Err(ParseError {
            line: text.lines().count(),
            message: "expected an `events:` line naming Ir, found none".to_string(),
        });
    }
    Ok(prune(profile))
}

/// `key=value` lines the parser follows (others, `jump=`, `totals:` ..., are skipped).
fn specification(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once('=')?;
    matches!(
        key,
        "fn" | "fl" | "fi" | "fe" | "cfn" | "cfi" | "cfl" | "ob" | "cob" | "calls"
    )
    .then_some((key, value))
}

fn starts_cost(line: &str) -> bool {
    line.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-' || c == '*')
}

fn apply(key: &str, value: &str, names: &mut Names, state: &mut State) -> Result<(), String> {
    match key {
        "fn" => {
            let name = function_name(&resolve(&mut names.functions, value)?);
            state.function = Some(name);
            // A new function's cost lines are in its own file until a `fi=`/`fe=` says otherwise.
            state.cost_file = state.function_file.clone();
            state.callee = None;
        }
        "fl" => {
            let file = resolve(&mut names.files, value)?;
            state.function_file = Some(file.clone());
            state.cost_file = Some(file);
        }
        "fi" | "fe" => state.cost_file = Some(resolve(&mut names.files, value)?),
        "cfi" | "cfl" => {
            resolve(&mut names.files, value)?;
        }
        "ob" | "cob" => {
            resolve(&mut names.objects, value)?;
        }
        "cfn" => state.callee = Some(function_name(&resolve(&mut names.functions, value)?)),
        "calls" => {
            let count = value
                .split_whitespace()
                .next()
                .and_then(|c| c.parse::<u64>().ok())
                .ok_or_else(|| format!("expected `calls=COUNT TARGET`, found `calls={value}`"))?;
            if state.callee.is_none() {
                return Err("a `calls=` line with no `cfn=` before it".to_string());
            }
            state.pending_call = Some(count);
        }
        _ => {}
    }
    Ok(())
}

/// A compressed name: `(N) name` defines N, `(N)` refers to it, a plain name is itself.
fn resolve(table: &mut BTreeMap<String, String>, value: &str) -> Result<String, String> {
    let value = value.trim();
    // `(below main)` is a name: only `(digits)` is a compressed one.
    let compressed = value
        .strip_prefix('(')
        .and_then(|rest| rest.split_once(')'))
        .filter(|(id, _)| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()));
    let Some((id, name)) = compressed else {
        return Ok(value.to_string());
    };
    let name = name.trim();
    if name.is_empty() {
        table
            .get(id)
            .cloned()
            .ok_or_else(|| format!("the compressed name ({id}) is used before it is defined"))
    } else {
        table.insert(id.to_string(), name.to_string());
        Ok(name.to_string())
    }
}

fn cost_line(line: &str, state: &mut State, profile: &mut Profile) -> Result<(), String> {
    let mut fields = line.split_whitespace();
    let mut positions = Vec::with_capacity(state.position_columns);
    for column in 0..state.position_columns {
        let text = fields.next().unwrap_or("*");
        let previous = state.last_positions.get(column).copied().unwrap_or(0);
        positions.push(position(text, previous)?);
    }
    state.last_positions = positions.clone();
    let costs: Vec<&str> = fields.collect();
    let ir_column = state
        .ir_column
        .ok_or("a cost line before the `events:` line")?;
    let ir = match costs.get(ir_column) {
        Some(text) => text
            .parse::<u64>()
            .map_err(|_| format!("expected a whole number of instructions, found {text:?}"))?,
        None => 0, // trailing zero costs are left out
    };
    let function = state
        .function
        .clone()
        .ok_or("a cost line before any `fn=` line")?;
    let entry = profile.functions.entry(function).or_default();
    if let Some(count) = state.pending_call.take() {
        let callee = state.callee.take().unwrap_or_default();
        let call = entry.calls.entry(callee).or_default();
        call.count += count;
        call.inclusive += ir;
        return Ok(());
    }
    entry.self_cost += ir;
    // The last position column is the line (`positions: line` or `instr line`).
    let source_line = positions.last().copied().unwrap_or(0);
    if ir > 0 && source_line > 0 && state.cost_file == state.function_file {
        if entry.file.is_none() {
            entry.file = state.function_file.clone().filter(|f| f != "???");
        }
        if entry.file.is_some() {
            entry.line = Some(entry.line.map_or(source_line, |l| l.min(source_line)));
        }
    }
    Ok(())
}

fn position(text: &str, previous: u64) -> Result<u64, String> {
    let number = |digits: &str| {
        parse_position(digits).ok_or_else(|| format!("expected a position, found {text:?}"))
    };
    if text == "*" {
        Ok(previous)
    } else if let Some(delta) = text.strip_prefix('+') {
        Ok(previous.saturating_add(number(delta)?))
    } else if let Some(delta) = text.strip_prefix('-') {
        Ok(previous.saturating_sub(number(delta)?))
    } else {
        number(text)
    }
}

/// A position is decimal, or hexadecimal with `0x` (instruction addresses).
fn parse_position(text: &str) -> Option<u64> {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// A function's name as reports show it: demangled, and a recursion level Callgrind appends (`sort'2`, the
/// second level and deeper, `--separate-recs`) taken off, so all levels are one function.
fn function_name(raw: &str) -> String {
    let base = match raw.rsplit_once('\'') {
        Some((name, level)) if !level.is_empty() && level.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => raw,
    };
    demangled(base)
}

/// Calls with a count of 0 were entered before collection began (Callgrind lists the stack the loop ran on
/// that way); without them, a function that did nothing itself and made no counted call is not in the loop.
/// A function's calls to itself (recursion) are dropped too: their instructions are already its own and its
/// other calls', so its inclusive figure counts them once.
fn prune(mut profile: Profile) -> Profile {
    for (name, function) in &mut profile.functions {
        function
            .calls
            .retain(|callee, call| call.count > 0 && callee != name);
    }
    let called: std::collections::BTreeSet<String> = profile
        .functions
        .values()
        .flat_map(|f| f.calls.keys().cloned())
        .collect();
    profile
        .functions
        .retain(|name, f| f.self_cost > 0 || !f.calls.is_empty() || called.contains(name));
    profile
}

/// A symbol's readable name: Rust (legacy and v0, without the hash) and C++ (Itanium) manglings decoded;
/// anything else (C names, or names Valgrind already demangled) as it is.
pub fn demangled(name: &str) -> String {
    if let Ok(rust) = rustc_demangle::try_demangle(name) {
        return format!("{rust:#}");
    }
    if name.starts_with("_Z")
        && let Ok(symbol) = cpp_demangle::Symbol::new(name)
        && let Ok(text) = symbol.demangle(&cpp_demangle::DemangleOptions::default())
    {
        return text;
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_names_and_relative_positions_are_followed() {
        let text = "events: Ir\nfl=(1) a.c\nfn=(1) main\n+3 5\n+2 7\ncfn=(2) _ZN4core3fmt5write17h0123456789abcdefE\n\
                    calls=2 +10\n* 40\nfn=(2)\n15 40\n";
        let profile = parse(text).unwrap();
        let main = &profile.functions["main"];
        assert_eq!(main.self_cost, 12);
        assert_eq!(main.line, Some(3));
        assert_eq!(main.file.as_deref(), Some("a.c"));
        let call = main.calls["core::fmt::write"];
        assert_eq!((call.count, call.inclusive), (2, 40));
        assert_eq!(main.inclusive(), 52);
        assert_eq!(profile.functions["core::fmt::write"].self_cost, 40);
    }

    #[test]
    fn a_broken_line_names_its_number_and_what_was_expected() {
        let error = parse("events: Ir\nfn=f\n3 x\n").unwrap_err();
        assert_eq!(error.line, 3);
        assert!(error.message.contains("whole number"), "{error}");
        let error = parse("events: Ir\nfn=(4)\n").unwrap_err();
        assert!(error.message.contains("(4)"), "{error}");
        let error = parse("events: Dr\n").unwrap_err();
        assert!(error.message.contains("Ir"), "{error}");
    }

    #[test]
    fn recursion_levels_are_one_function_counted_once() {
        // sort calls sort'2 (depth 2), which calls itself: 10 + 30 own, 30 inclusive below the first level.
        let text = "events: Ir\nfn=main\n1 5\ncfn=sort\ncalls=1 1\n1 40\nfn=sort\n1 10\ncfn=sort'2\ncalls=1 1\n1 30\n\
                    fn=sort'2\n1 20\ncfn=sort'2\ncalls=2 1\n1 10\n";
        let profile = parse(text).unwrap();
        let sort = &profile.functions["sort"];
        assert_eq!(sort.self_cost, 30);
        assert!(sort.calls.is_empty(), "{:?}", sort.calls);
        assert_eq!(sort.inclusive(), 30);
        assert_eq!(profile.functions["main"].inclusive(), 45);
    }

    #[test]
    fn cpp_and_rust_names_are_demangled() {
        assert_eq!(demangled("_Z4sortPii"), "sort(int*, int)");
        assert_eq!(
            demangled("_ZN10rust_bench6kernel17h0123456789abcdefE"),
            "rust_bench::kernel"
        );
        assert_eq!(demangled("crc32"), "crc32");
    }
}
