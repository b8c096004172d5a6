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
//! text), not the run's statistics, not a baseline or a verdict. It returns data only: rho-report's `profile`
//! lays the lists and their changes out as text, Markdown and HTML.

pub mod callgrind;
pub mod diff;
pub mod flame;
pub mod net;
pub mod perf;

pub use callgrind::{DumpProfiles, Profile, parse};
pub use net::{Functions, Overhead};
