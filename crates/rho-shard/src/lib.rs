//! Splitting a module.yml run across the jobs of a CI matrix, and putting it back together
//! (docs/ci.md).
//!
//! `rho bench --shard K/N` (and `check`, or `RHO_SHARD=K/N`) runs one share of the run's benchmarks: every
//! job takes the benchmarks from the committed baseline (or lists the suites it does not name), costs them
//! from it and computes the same partition
//! ([`partition`], [`share`]) without talking to the others; each runs its suites filtered to its share and
//! writes its `--json` with a `shard` object ([`record`]). `rho bench merge SHARD.json...` reads the shares
//! back, refuses shares of different runs, a share twice or a missing one, and puts each suite back together
//! ([`merge`]); rho-ops' merge recipe judges and writes the run as one machine would have: the same document,
//! report and exit status. The shares of `rho bench gate --shard K/N` (each judging the benchmarks whose
//! name falls in its share, rho_gate::shard) merge into one gate document ([`gate`]); the shares of
//! `rho bench FILE.c --shard K/N` into the suite's run document ([`files`]).
//!
//! It sits at the end of the flow beside rho-ops: it drives the engine (rho-suite) to list benchmarks and
//! reads the committed baseline for their costs and saved runs through rho-baseline. It judges and renders
//! nothing, and must not know the terminal or the command line; only rho-ops and rho-cli depend on it.

pub mod error;
pub mod files;
pub mod gate;
pub mod merge;
pub mod partition;
pub mod record;
pub mod share;
pub mod spec;

pub use error::Error;
pub use spec::Shard;
