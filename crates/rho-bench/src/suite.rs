//! The suite as `main!` lists it: each benchmark's name, function and arguments, and what the user's crate was
//! built as. The platforms' runners read it; it knows nothing of how a suite is run.

use crate::bench::Bench;
use crate::wire;

/// What the suite was built as, from the `main!` expansion in the user's crate.
#[derive(Debug, Clone, Copy)]
pub struct BuildInfo {
    /// Whether the user's crate was compiled with optimisation (no `debug_assertions`: a release or bench
    /// profile).
    pub optimized: bool,
}

/// A benchmark of a suite: its name, its function and the arguments it runs with.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// The name reported (1 to 63 of `[A-Za-z0-9_.:+-]`); a family's members are reported as `name/ARG`.
    pub name: &'static str,
    /// The benchmark.
    pub run: fn(&mut Bench),
    /// One benchmark, or a family of one member per argument.
    pub args: Args,
}

/// The arguments a benchmark runs with ([`Bench::arg`] reads the running one): a family is one benchmark
/// function over several arguments, each member its own block named `NAME/ARG`, over which rho fits how each
/// figure grows (O(n), O(n log n), ...), as for the C harness's `RHO_BENCH_ADD_ARG` and `RHO_BENCH_ADD_RANGE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Args {
    /// One benchmark, not a family ([`Bench::arg`] reads 0).
    One,
    /// A member per argument, in this order (`RHO_BENCH_ADD_ARG` for each). At least one.
    List(&'static [u64]),
    /// `lo`, `lo * multiplier`, `lo * multiplier^2`, ... while below `hi`, then `hi` (`lo` 0 is followed by 1):
    /// `RHO_BENCH_ADD_RANGE`. Needs `lo <= hi` and a multiplier of at least 2.
    Range {
        /// The first argument.
        lo: u64,
        /// The last argument.
        hi: u64,
        /// The factor from one argument to the next.
        multiplier: u64,
    },
}

impl Args {
    /// Why these arguments cannot be run (an empty list, a range that cannot be walked), if they cannot.
    pub const fn misuse(&self) -> Option<&'static str> {
        match *self {
            Args::List([]) => Some("a family needs at least one argument"),
            Args::Range { lo, hi, multiplier } if lo > hi || multiplier < 2 => {
                Some("a range needs lo <= hi and a multiplier of at least 2")
            }
            _ => None,
        }
    }

    /// Calls `member` with each argument in order (`None` once for [`Args::One`]), stopping at its first
    /// error. Nothing for arguments that cannot be run (see [`Args::misuse`]).
    pub fn each<E>(&self, mut member: impl FnMut(Option<u64>) -> Result<(), E>) -> Result<(), E> {
        if self.misuse().is_some() {
            return Ok(());
        }
        match *self {
            Args::One => member(None),
            Args::List(list) => list.iter().try_for_each(|&arg| member(Some(arg))),
            Args::Range { lo, hi, multiplier } => {
                let mut arg = lo;
                while arg < hi {
                    member(Some(arg))?;
                    arg = if arg == 0 {
                        1
                    } else if arg > hi / multiplier {
                        hi
                    } else {
                        arg * multiplier
                    };
                }
                member(Some(hi))
            }
        }
    }
}

impl Entry {
    /// A benchmark named `name`.
    pub const fn new(name: &'static str, run: fn(&mut Bench)) -> Entry {
        Entry {
            name,
            run,
            args: Args::One,
        }
    }

    /// A family named `name`: `run` once per argument of `args`, in order, each reported as `name/ARG`.
    pub const fn family(name: &'static str, run: fn(&mut Bench), args: &'static [u64]) -> Entry {
        Entry {
            name,
            run,
            args: Args::List(args),
        }
    }

    /// A family named `name` over `lo`, `lo * multiplier`, ... up to `hi` (see [`Args::Range`]).
    pub const fn range(
        name: &'static str,
        run: fn(&mut Bench),
        lo: u64,
        hi: u64,
        multiplier: u64,
    ) -> Entry {
        Entry {
            name,
            run,
            args: Args::Range { lo, hi, multiplier },
        }
    }

    /// Why this entry cannot be run (a bad name, a bad family), if it cannot.
    pub(crate) fn misuse(&self) -> Option<&'static str> {
        if !wire::is_name(self.name) {
            return Some("a benchmark name is 1 to 63 of [A-Za-z0-9_.:+-]");
        }
        self.args.misuse()
    }
}
