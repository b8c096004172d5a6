//! The rho wire format: the line-oriented text a harness prints and the host reads.
//!
//! See `docs/wire-format.md` for the format itself. This crate holds the types a stream carries
//! ([`Run`], [`Benchmark`], ...), a streaming parser that never panics on any input ([`StreamParser`] to feed
//! lines and get [`Event`]s as a board streams, [`parse_run`] / [`parse_str`] for a whole stream) and a writer
//! that prints the same format ([`write_run`]).
//!
//! How the parser reads a stream:
//! - Lines are bytes (UTF-8 is not required); each ends in `\n`, and a `\r` before it is ignored.
//! - A line that starts with neither `@` nor `:` is noise: skipped and counted in [`Run::noise_lines`]. Before
//!   `@rho-bench`, an `@` line whose keyword is not a record of the format is noise too (a board's banner), but
//!   a known record or a sample there is an error: the start of the stream was lost.
//! - The header is `@rho-bench`, `@target`, one or two `@clock` (at most one per role), `@config`, in that
//!   order. Then `@bench` blocks, each: samples, `@stack` and `@heap` (either order, once each), `@end`. Then
//!   `@done`, after which nothing more is read. The `.overhead` block becomes [`Run::calibration`].
//! - Every record field the format defines is required (`compiler=` is optional); unknown `key=value` fields
//!   are ignored, unknown record keywords are errors.
//! - Any error names the 1-based line, what was expected and what was found ([`WireError`]).
//!
//! It is the start of the host's flow (harness -> wire -> stats -> judge -> report, docs/architecture.md) and must
//! not know about statistics, judgement, configs, profiles or reports. The Rust harness links it, so it stays small:
//! it depends on no other rho crate. A counted run's dumps give it their totals ([`callgrind::attach_dumps`]);
//! their costs per function are rho-profile's to read ([`callgrind::attach_dumps_reading`] hands each dump's
//! text on) and rho-stats' to net, beside the run, never in it.

pub mod callgrind;
mod error;
pub mod name;
mod parse;
pub mod qemu_counts;
mod types;
mod write;

pub use error::{ErrorKind, WireError};
pub use parse::{
    CALIBRATION_NAME, Event, MAX_LINE_BYTES, StreamParser, is_name, parse_bytes, parse_run,
    parse_run_with, parse_str,
};
pub use types::*;
pub use write::{run_to_string, write_run};
