//! The run's settings: the C harness's environment variables (`c/include/rho/bench.h`, "Configuration"),
//! read once at start-up, and the filter from the command line (`cargo bench -- NAME`).

use std::collections::BTreeMap;

use crate::Error;

/// Measured iterations per benchmark unless told otherwise (`RHO_BENCH_ITERATIONS`).
pub const DEFAULT_ITERATIONS: u64 = 20_000;
/// Warm-up iterations per benchmark (`RHO_BENCH_WARMUP`).
pub const DEFAULT_WARMUP: u64 = 100;
/// The cap on each benchmark's measured time, ms (`RHO_BENCH_TIME_CAP_MS`).
pub const DEFAULT_TIME_CAP_MS: u64 = 5_000;
/// The painted stack region each benchmark runs on (`RHO_BENCH_STACK_BYTES`).
pub const DEFAULT_STACK_BYTES: u64 = 65_536;
/// The largest painted region accepted (the benchmark's thread gets this plus some slack).
pub const MAX_STACK_BYTES: u64 = 1 << 30;
/// Measured iterations of `.overhead`, whatever the others get.
pub const OVERHEAD_ITERATIONS: u64 = 1_000;
/// The largest batch the harness chooses by itself.
pub const BATCH_MAX: u64 = 1_024;

/// How the results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The raw wire stream on stdout (what rho reads).
    Wire,
    /// The stream parsed, summarised and rendered as rho's text report (`cargo bench` alone).
    Report,
}

/// What the harness counts instead of timing, under Valgrind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Cycles and time (`RHO_BENCH_MEASURE` unset or `time`).
    Time,
    /// Instructions counted by Callgrind (`RHO_BENCH_MEASURE=instructions`, under Valgrind).
    Instructions,
}

/// The settings of a run. [`Settings::from_env`] reads them as the C harness does; tests build their own.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Measured iterations per benchmark, scaled.
    pub iterations: u64,
    /// Warm-ups per benchmark, scaled.
    pub warmup: u64,
    /// The scale applied to iterations and warm-ups (also to the per-benchmark ones).
    pub scale: f64,
    /// 0: no cap.
    pub time_cap_ms: u64,
    /// 0: stack not measured.
    pub stack_bytes: u64,
    /// `RHO_BENCH_BATCH`: 0 sized by the harness.
    pub batch: u64,
    /// `RHO_BENCH_ITERATIONS_<name>` (unscaled).
    pub iterations_for: BTreeMap<String, u64>,
    /// `RHO_BENCH_BATCH_<name>`.
    pub batch_for: BTreeMap<String, u64>,
    /// Filter terms: a benchmark runs when its name contains one (none: all run).
    pub filter: Vec<String>,
    /// `RHO_BENCH_MEASURE`.
    pub measure: Measure,
    /// [`FORMAT_VARIABLE`]: the stream or the report.
    pub output: Output,
    /// `RHO_BENCH_LIST=1`: print the selected benchmarks' names, run nothing (docs/wire-format.md, "Listing").
    pub list: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            iterations: DEFAULT_ITERATIONS,
            warmup: DEFAULT_WARMUP,
            scale: 1.0,
            time_cap_ms: DEFAULT_TIME_CAP_MS,
            stack_bytes: DEFAULT_STACK_BYTES,
            batch: 0,
            iterations_for: BTreeMap::new(),
            batch_for: BTreeMap::new(),
            filter: Vec::new(),
            measure: Measure::Time,
            output: Output::Report,
            list: false,
        }
    }
}

/// The variable rho sets to get the raw stream: `RHO_BENCH_FORMAT=wire`. Unset or `report`: the report.
pub const FORMAT_VARIABLE: &str = "RHO_BENCH_FORMAT";

impl Settings {
    /// The settings from the process's environment and command line (`args` without the program name:
    /// `cargo bench -- NAME` runs the target with `--bench NAME`; words starting with `-` are not names).
    pub fn from_env(args: impl IntoIterator<Item = String>) -> Result<Settings, Error> {
        let vars: Vec<(String, String)> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, _)| k.starts_with("RHO_BENCH_"))
            .collect();
        Settings::from_vars(&vars, args)
    }

    /// The settings from these variables (name, value) and command-line words.
    pub fn from_vars(
        vars: &[(String, String)],
        args: impl IntoIterator<Item = String>,
    ) -> Result<Settings, Error> {
        let get = |name: &str| {
            vars.iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let mut s = Settings::default();
        let iterations = uint(get, "RHO_BENCH_ITERATIONS", 1, DEFAULT_ITERATIONS)?;
        let warmup = uint(get, "RHO_BENCH_WARMUP", 0, DEFAULT_WARMUP)?;
        if let Some(text) = get("RHO_BENCH_SCALE") {
            s.scale = scale(text)?;
        }
        s.time_cap_ms = uint(get, "RHO_BENCH_TIME_CAP_MS", 0, DEFAULT_TIME_CAP_MS)?;
        s.stack_bytes = uint(get, "RHO_BENCH_STACK_BYTES", 0, DEFAULT_STACK_BYTES)?;
        if s.stack_bytes > MAX_STACK_BYTES {
            return Err(bad(
                "RHO_BENCH_STACK_BYTES",
                &format!("a whole number of at most {MAX_STACK_BYTES}"),
                &s.stack_bytes.to_string(),
            ));
        }
        s.batch = uint(get, "RHO_BENCH_BATCH", 0, 0)?;
        s.iterations = s.scaled(iterations, true);
        s.warmup = s.scaled(warmup, warmup > 0);
        for (key, value) in vars {
            if let Some(name) = key.strip_prefix("RHO_BENCH_ITERATIONS_") {
                let n = uint(|_| Some(value.as_str()), key, 1, 0)?;
                s.iterations_for.insert(name.to_string(), n);
            } else if let Some(name) = key.strip_prefix("RHO_BENCH_BATCH_") {
                let k = uint(|_| Some(value.as_str()), key, 0, 0)?;
                s.batch_for.insert(name.to_string(), k);
            }
        }
        let words: Vec<String> = args.into_iter().filter(|a| !a.starts_with('-')).collect();
        let filter = if words.is_empty() {
            get("RHO_BENCH_FILTER").unwrap_or("").to_string()
        } else {
            words.join(",")
        };
        s.filter = parse_filter(&filter)?;
        s.measure = match get("RHO_BENCH_MEASURE") {
            None | Some("time") => Measure::Time,
            Some("instructions") => Measure::Instructions,
            Some(other) => return Err(bad("RHO_BENCH_MEASURE", "time or instructions", other)),
        };
        s.output = match get(FORMAT_VARIABLE) {
            None | Some("report") => Output::Report,
            Some("wire") => Output::Wire,
            Some(other) => return Err(bad(FORMAT_VARIABLE, "wire or report", other)),
        };
        s.list = match get("RHO_BENCH_LIST") {
            None | Some("") | Some("0") => false,
            Some("1") => true,
            Some(other) => {
                return Err(bad("RHO_BENCH_LIST", "1 (list the benchmarks) or 0", other));
            }
        };
        Ok(s)
    }

    /// `count` times the scale, rounded; at least 1 when `at_least_one`.
    pub fn scaled(&self, count: u64, at_least_one: bool) -> u64 {
        let product = count as f64 * self.scale + 0.5;
        let value = if product >= 1.8e19 {
            u64::MAX
        } else {
            product as u64
        };
        if value == 0 && at_least_one { 1 } else { value }
    }

    /// Whether a benchmark of this name runs.
    pub fn selected(&self, name: &str) -> bool {
        self.filter.is_empty()
            || self
                .filter
                .iter()
                .any(|term| crate::wire::term_matches(term, name))
    }
}

fn bad(variable: &str, expected: &str, got: &str) -> Error {
    Error::Setting {
        variable: variable.to_string(),
        expected: expected.to_string(),
        got: got.to_string(),
    }
}

/// A whole number of at least `minimum`, or `default` when unset.
fn uint<'a>(
    get: impl Fn(&str) -> Option<&'a str>,
    variable: &str,
    minimum: u64,
    default: u64,
) -> Result<u64, Error> {
    let Some(text) = get(variable) else {
        return Ok(default);
    };
    let value: u64 = if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        text.parse()
            .map_err(|_| bad(variable, "a whole number", text))?
    } else {
        return Err(bad(variable, "a whole number", text));
    };
    if value < minimum {
        return Err(bad(variable, "a whole number of at least 1", text));
    }
    Ok(value)
}

/// A positive decimal such as 0.5 (no sign, no exponent).
fn scale(text: &str) -> Result<f64, Error> {
    let plain = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.bytes().filter(|&b| b == b'.').count() <= 1
        && text.bytes().any(|b| b.is_ascii_digit());
    match text.parse::<f64>() {
        Ok(v) if plain && v > 0.0 && v <= 1e9 => Ok(v),
        _ => Err(bad(
            "RHO_BENCH_SCALE",
            "a positive number such as 0.5",
            text,
        )),
    }
}

/// Comma-separated terms of 1 to 85 name characters (or `/`), each maybe `^anchored$`; empty: no filter.
fn parse_filter(text: &str) -> Result<Vec<String>, Error> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let terms: Vec<String> = text.split(',').map(str::to_string).collect();
    if !terms.iter().all(|t| crate::wire::is_filter_term(t)) {
        return Err(bad(
            "RHO_BENCH_FILTER",
            "names (1 to 85 of [A-Za-z0-9_.:+/-], each maybe ^anchored$) separated by commas",
            text,
        ));
    }
    Ok(terms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_environment_is_read_as_the_c_harness_reads_it() {
        let s = Settings::from_vars(
            &vars(&[
                ("RHO_BENCH_ITERATIONS", "500"),
                ("RHO_BENCH_WARMUP", "3"),
                ("RHO_BENCH_SCALE", "0.5"),
                ("RHO_BENCH_ITERATIONS_sum_4k", "40"),
                ("RHO_BENCH_BATCH_sum_1k", "8"),
                ("RHO_BENCH_FORMAT", "wire"),
                ("RHO_BENCH_FILTER", "sum"),
            ]),
            Vec::new(),
        )
        .unwrap();
        assert_eq!((s.iterations, s.warmup), (250, 2));
        assert_eq!(s.iterations_for["sum_4k"], 40);
        assert_eq!(s.batch_for["sum_1k"], 8);
        assert_eq!(s.output, Output::Wire);
        assert!(s.selected("sum_4k") && !s.selected("vec"));
    }

    #[test]
    fn the_command_line_filter_wins_and_flags_are_not_names() {
        let s = Settings::from_vars(
            &vars(&[("RHO_BENCH_FILTER", "sum")]),
            ["--bench".to_string(), "vec".to_string()],
        )
        .unwrap();
        assert_eq!(s.filter, ["vec"]);
        let s = Settings::from_vars(&[], ["--bench".to_string()]).unwrap();
        assert!(s.filter.is_empty());
    }

    #[test]
    fn anchored_terms_pick_a_name_that_begins_another_alone() {
        let filtered = |filter: &str| {
            Settings::from_vars(&vars(&[("RHO_BENCH_FILTER", filter)]), Vec::new()).unwrap()
        };
        let exact = filtered("^sum$,^vec/16$");
        assert!(exact.selected("sum") && exact.selected("vec/16"));
        assert!(
            !exact.selected("sum_4k") && !exact.selected("vec/160") && !exact.selected("a_sum")
        );
        let start = filtered("^sum");
        assert!(start.selected("sum_4k") && !start.selected("a_sum"));
        let end = filtered("4k$");
        assert!(end.selected("sum_4k") && !end.selected("sum_4k2"));
        for bad in ["^", "$", "^$", "a^b", "^a$b"] {
            assert!(
                Settings::from_vars(&vars(&[("RHO_BENCH_FILTER", bad)]), Vec::new()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_bad_value_is_an_error_naming_the_variable() {
        for (k, v) in [
            ("RHO_BENCH_ITERATIONS", "0"),
            ("RHO_BENCH_ITERATIONS", "x"),
            ("RHO_BENCH_SCALE", "-1"),
            ("RHO_BENCH_SCALE", "1e3"),
            ("RHO_BENCH_MEASURE", "cycles"),
            ("RHO_BENCH_FILTER", "a,,b"),
            ("RHO_BENCH_FORMAT", "json"),
        ] {
            let error = Settings::from_vars(&vars(&[(k, v)]), Vec::new()).unwrap_err();
            assert!(error.to_string().contains(k), "{error}");
        }
    }

    #[test]
    fn rho_bench_list_is_1_or_0_and_anything_else_is_refused() {
        let list =
            |value: &str| Settings::from_vars(&vars(&[("RHO_BENCH_LIST", value)]), Vec::new());
        assert!(list("1").unwrap().list);
        assert!(!list("0").unwrap().list && !list("").unwrap().list);
        assert!(!Settings::from_vars(&[], Vec::new()).unwrap().list);
        let error = list("yes").unwrap_err().to_string();
        assert!(
            error.contains("RHO_BENCH_LIST") && error.contains("\"yes\""),
            "{error}"
        );
    }
}
