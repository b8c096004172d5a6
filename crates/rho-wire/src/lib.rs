//! The rho wire format: the line-oriented text a harness prints and the host reads.
//!
//! See `docs/wire-format.md` for the format itself. This crate holds the types a stream carries, a streaming
//! parser that never panics on any input, and a writer that prints the same format.

mod types;

pub use types::*;
