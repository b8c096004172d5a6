//! A suite's benchmarks listed without running them: the harness run with `RHO_BENCH_LIST=1` prints
//! `@list NAME` for each benchmark its filter selects, in run order, then `@done` (docs/wire-format.md,
//! "Listing"). Nothing is measured, so a sharded run learns a suite's names for the price of its start-up.

use std::process::Command;
use std::time::Duration;

use rho_exec::{Runner, Termination};

use crate::error::{Result, SuiteError};

/// The environment variable that makes a harness list instead of run.
pub const LIST_VARIABLE: &str = "RHO_BENCH_LIST";

/// Runs `command` (a harness, as its run would start it) with [`LIST_VARIABLE`] set, and reads its listing;
/// `what` names the suite in errors. A program that exits with anything but 0, or prints a listing cut
/// short, is an error saying so with its stderr.
pub fn list_program(mut command: Command, what: &str, timeout: Duration) -> Result<Vec<String>> {
    command.env(LIST_VARIABLE, "1");
    let (finished, stdout) = Runner::new(command)
        .timeout(timeout)
        .run_collect()
        .map_err(|error| {
            SuiteError::Run(format!("cannot list the benchmarks of {what}: {error}"))
        })?;
    if finished.termination != Termination::Exited(0) {
        let stderr = finished.stderr.trim_end();
        return Err(SuiteError::Run(format!(
            "listing the benchmarks of {what} ({LIST_VARIABLE}=1): the suite {}{}",
            finished.termination,
            if stderr.is_empty() {
                String::new()
            } else {
                format!(":\n{stderr}")
            }
        )));
    }
    parse(&stdout, what)
}

/// The names of a listing, in order. Lines other than `@list` and `@done` are noise (a board's banner),
/// as in a stream; a listing without `@done`, or a `@done` whose `benchmarks=` is not the count of
/// `@list` lines, is cut short; a stream's header (`@rho-bench`) means the harness ran instead of listing
/// (one older than the listing).
pub fn parse(text: &str, what: &str) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let bad = |expected: &str| {
            SuiteError::Run(format!(
                "the listing of {what}, line {}: expected {expected}, got `{line}`",
                number + 1
            ))
        };
        if let Some(name) = line.strip_prefix("@list ") {
            if name.is_empty() || name.contains(' ') {
                return Err(bad("`@list NAME` (one name)"));
            }
            names.push(name.to_string());
        } else if let Some(fields) = line.strip_prefix("@done") {
            let count = fields
                .split_whitespace()
                .find_map(|field| field.strip_prefix("benchmarks="))
                .and_then(|n| n.parse::<usize>().ok());
            return match count {
                Some(count) if count == names.len() => Ok(names),
                _ => Err(bad(&format!(
                    "`@done benchmarks={}` after {} `@list` lines",
                    names.len(),
                    names.len()
                ))),
            };
        } else if line.starts_with("@rho-bench") {
            return Err(bad(
                "a listing: the harness printed a stream, so it does not know RHO_BENCH_LIST (an older one)",
            ));
        }
    }
    Err(SuiteError::Run(format!(
        "the listing of {what} ends without `@done` after {} names: cut short",
        names.len()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_gives_its_names_in_order_past_noise() {
        let text =
            "booting\n@list bench_b\n@list sum/1024\r\n@done benchmarks=2 dropped=0\nafter\n";
        assert_eq!(parse(text, "a.c").unwrap(), ["bench_b", "sum/1024"]);
        assert_eq!(
            parse("@done benchmarks=0 dropped=0\n", "a.c").unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_listing_cut_short_or_a_stream_in_its_place_is_an_error_naming_the_line() {
        let cut = parse("@list a\n@list b\n", "a.c").unwrap_err().to_string();
        assert!(
            cut.contains("a.c ends without `@done` after 2 names"),
            "{cut}"
        );
        let miscounted = parse("@list a\n@done benchmarks=3 dropped=0\n", "a.c")
            .unwrap_err()
            .to_string();
        assert!(miscounted.contains("line 2"), "{miscounted}");
        let stream = parse("@rho-bench 6\n@target host\n", "a.c")
            .unwrap_err()
            .to_string();
        assert!(stream.contains("does not know RHO_BENCH_LIST"), "{stream}");
        let two = parse("@list a b\n", "a.c").unwrap_err().to_string();
        assert!(two.contains("line 1: expected `@list NAME`"), "{two}");
    }
}
