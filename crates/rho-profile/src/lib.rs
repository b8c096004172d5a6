//! rho-profile: where a benchmark's instructions go, function by function.
//!
//! Under `--measure instructions` each benchmark's measured loop is one Callgrind dump; this crate reads such
//! a dump ([`callgrind::parse`], names demangled), takes the harness's share off per function as rho-stats
//! does for the benchmark's total ([`net::Overhead`]), keeps the top N with an "other" remainder
//! ([`net::top`]), sets base's and head's lists side by side ([`diff::changes`]) and folds the differential
//! flame graph's call tree for rho-report to draw with inferno ([`flame`]). In time mode a benchmark's functions are sampled by `perf record` instead
//! ([`perf`]: shares of the measured loop's samples, marked as such).
//!
//! It knows the Callgrind format and `perf script`'s text and nothing else of rho: not the wire stream (the engine hands it the dump
//! text), not the run's statistics, not a baseline or a verdict.

pub mod callgrind;
pub mod diff;
pub mod flame;
pub mod net;
pub mod perf;

pub use callgrind::{DumpProfiles, Profile, parse};
pub use net::{Functions, Overhead};

/// One benchmark's table (`rho bench --profile NAME`): each listed function's own and inclusive
/// instructions per iteration and where it is, then the rest; a sampled list's shares and estimated ns.
pub fn table(bench: &str, functions: &Functions) -> String {
    if let Some(sampling) = &functions.sampling {
        return perf::table(bench, functions, sampling);
    }
    let mut out = format!(
        "{bench}: instructions per iteration by function ({}, net of the harness)\n{:>12} {:>12}  function\n",
        functions.source, "self", "inclusive"
    );
    for function in &functions.listed {
        let place = match (&function.file, function.line) {
            (Some(file), Some(line)) => format!("  {file}:{line}"),
            (Some(file), None) => format!("  {file}"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "{:>12} {:>12}  {}{place}\n",
            diff::whole(function.self_per_iteration),
            diff::whole(function.inclusive_per_iteration),
            function.name
        ));
    }
    if functions.other.functions > 0 {
        out.push_str(&format!(
            "{:>12} {:>12}  ({} other functions)\n",
            diff::whole(functions.other.self_per_iteration),
            "",
            functions.other.functions
        ));
    }
    out
}
