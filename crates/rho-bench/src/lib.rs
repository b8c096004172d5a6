//! rho's Rust harness: benchmarks written for `cargo bench` that measure as rho's C harness does
//! (`c/include/rho/bench.h`) and print the same wire stream (`docs/wire-format.md`), so `rho` summarises,
//! budgets, baselines and gates them like any suite.
//!
//! ```no_run
//! use rho_bench::Bench;
//!
//! #[global_allocator]
//! static ALLOC: rho_bench::CountingAlloc = rho_bench::CountingAlloc::system();
//!
//! fn sum_1k(b: &mut Bench) {
//!     let data = vec![1u8; 1024];
//!     b.unit("byte", 1024); // one iteration is 1024 bytes of work
//!     b.iter(|| std::hint::black_box(&data).iter().map(|&x| u64::from(x)).sum::<u64>());
//! }
//!
//! rho_bench::main!(sum_1k); // in a `[[bench]] harness = false` target
//! ```
//!
//! What it measures, per benchmark:
//! - **cycles and time**: the TSC (x86-64) or `cntvct_el0` (aarch64) and the monotonic clock, around the body
//!   alone; the harness's own cost is measured first as `.overhead` (rho takes it off); bodies too short for
//!   the clock are timed in batches sized as the C harness sizes them.
//! - **stack**: each benchmark runs on a thread of its own; a region of its stack is painted and the
//!   high-water mark of the measured iterations read back.
//! - **heap**: peak, live bytes and allocation counts of the blocks the measured iterations allocate (a
//!   set-up's buffer is not the benchmark's), through [`CountingAlloc`] installed as the global allocator
//!   (without it the stream says `@heap off`: "heap not measured", never 0 bytes).
//! - **instructions**: under Valgrind's Callgrind (`rho bench --measure instructions`), each benchmark's
//!   measured loop is counted instead of timed.
//!
//! Families, as the C harness's `RHO_BENCH_ADD_ARG` and `RHO_BENCH_ADD_RANGE`: one benchmark function run
//! once per argument, read with [`Bench::arg`], each run a benchmark of its own named `name/ARG` (the
//! stream's `family=` and `arg=`), over which rho fits how each figure grows (O(n), O(n^2), ...):
//!
//! ```no_run
//! fn sum_n(b: &mut rho_bench::Bench) {
//!     let data = vec![1u8; b.arg() as usize];
//!     b.unit("byte", b.arg());
//!     b.iter(|| std::hint::black_box(&data).iter().map(|&x| u64::from(x)).sum::<u64>());
//! }
//!
//! // sum_n/256, sum_n/1024, sum_n/4096; then sum_r/256 ... sum_r/16384 (lo, hi, multiplier)
//! rho_bench::main!(sum_n = [256, 1024, 4096], sum_r = range(256, 16384, 4));
//! # fn sum_r(b: &mut rho_bench::Bench) { sum_n(b) }
//! ```
//!
//! Output: run by rho (which sets `RHO_BENCH_FORMAT=wire`), the raw stream on stdout; run by `cargo bench`
//! alone, the same stream (and a line on stderr saying so), or, with feature `report`, the stream parsed with
//! rho-wire, summarised with rho-stats and printed as rho-report's text report. `cargo bench -- NAME` runs the benchmarks whose names contain NAME. Under `cargo test` (no
//! `--bench` on the command line, not run by rho) each benchmark's loop runs once, as a test, and nothing is
//! measured. The settings are the C
//! harness's environment variables (`RHO_BENCH_ITERATIONS`, `RHO_BENCH_WARMUP`, `RHO_BENCH_SCALE`, ...: see
//! `Settings`).
//!
//! What a user's build pulls in (`[dev-dependencies] rho-bench`, default features): this crate, rho-wire (the
//! stream's names, and its parser, which checks the stream under `cargo test`), libc, thiserror and serde
//! (rho-wire's types derive it), and the proc-macro crates those use; nothing that judges, renders or reads a
//! config or YAML. Feature `report` adds rho-stats and rho-report, and with rho-report rho-judge, rho-config
//! and its YAML parser. This crate must not know about the judgement, budgets, baselines or the report: it
//! measures and writes the stream, and rho does the rest.
//!
//! On a Cortex-M (default features off, feature `cortex-m`): the same [`Bench`] and `main!`, with cortex-m-rt's
//! start-up, the DWT or SysTick cycle counter, the stack painted below the stack pointer, the settings compiled
//! in from the build's environment and the stream through semihosting (see `src/bare/mod.rs`); the crate using
//! it is `#![no_std]` and `#![no_main]` there. The feature also defines the panic handler (it reports through
//! semihosting) and SysTick's exception handler (the harness owns SysTick when the core has no working DWT).

#![cfg_attr(not(feature = "std"), no_std)]
#![warn(missing_docs)]

mod bench;
mod heap;
#[cfg(feature = "std")]
mod hosted;
#[cfg(feature = "std")]
use hosted as platform;
#[cfg(all(not(feature = "std"), feature = "cortex-m"))]
mod bare;
#[cfg(all(not(feature = "std"), feature = "cortex-m"))]
use bare as platform;
mod stack;
mod wire;

#[cfg(all(not(feature = "std"), feature = "cortex-m"))]
pub use bare::{exit, main as run_main};
#[cfg(feature = "std")]
pub use bench::BATCHED_INPUTS;
pub use bench::Bench;
#[cfg(all(not(feature = "std"), feature = "cortex-m"))]
#[doc(hidden)]
pub use cortex_m_rt::entry;
pub use heap::CountingAlloc;
#[cfg(feature = "report")]
pub use hosted::report;
#[cfg(feature = "std")]
pub use hosted::settings::{FORMAT_VARIABLE, Measure, Output, Settings};
#[cfg(feature = "std")]
pub use hosted::{Sink, main as run_main, run};

#[cfg(all(feature = "std", feature = "cortex-m"))]
compile_error!("rho-bench: feature `cortex-m` is for a board: build it with default features off");
#[cfg(not(any(feature = "std", feature = "cortex-m")))]
compile_error!("rho-bench: enable `std` (the default) or, on a Cortex-M, `cortex-m`");

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

/// What stops a run (the harness prints it as `rho: ...` on stderr and exits with status 2).
#[cfg(feature = "std")]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A setting from the environment or the command line that cannot be read.
    #[error("{variable}: expected {expected}, got \"{got}\"")]
    Setting {
        /// The variable.
        variable: String,
        /// What it may hold.
        expected: String,
        /// What it held.
        got: String,
    },
    /// A benchmark used the harness wrongly (two loops, a bad unit, a bad name).
    #[error("{bench}: {what}")]
    Misuse {
        /// The benchmark.
        bench: String,
        /// What it did.
        what: String,
    },
    /// The benchmark's thread could not be started, or its stack region set up, or it panicked.
    #[error("{0}")]
    Thread(String),
    /// Writing the stream failed.
    #[error("writing the stream failed: {0}")]
    Output(std::io::Error),
    /// The stream could not be summarised into the report (a harness bug: rho-wire names the line).
    #[error("cannot report the run: {0}")]
    Report(String),
}

/// The `main` of a `[[bench]] harness = false` target: runs the benchmarks named, in order, and exits with
/// the harness's status (0, or 2 on a bad setting or a misuse).
///
/// Each entry is a benchmark function, or a family of it over constant arguments, read in the body with
/// [`Bench::arg`] and reported as `name/ARG`:
/// - `sum_n = [64, 256, 1024]`: one member per argument, in order (the C harness's `RHO_BENCH_ADD_ARG`);
/// - `sum_r = range(256, 16384, 4)`: 256, 1024, 4096 and 16384 (lo, hi, multiplier: `RHO_BENCH_ADD_RANGE`).
///
/// ```no_run
/// fn empty(b: &mut rho_bench::Bench) {
///     b.iter(|| ());
/// }
/// fn sum_n(b: &mut rho_bench::Bench) {
///     let data = vec![1u8; b.arg() as usize];
///     b.unit("byte", b.arg());
///     b.iter(|| std::hint::black_box(&data).iter().map(|&x| u64::from(x)).sum::<u64>());
/// }
/// rho_bench::main!(empty, sum_n = [256, 1024, 4096]);
/// ```
#[cfg(feature = "std")]
#[macro_export]
macro_rules! main {
    ($($entry:tt)+) => {
        fn main() {
            let entries = $crate::entries!($($entry)+);
            let build = $crate::BuildInfo { optimized: !cfg!(debug_assertions) };
            ::std::process::exit($crate::run_main(&entries, build));
        }
    };
}

/// The `main` of a benchmark program on a Cortex-M (default features off, feature `cortex-m`): cortex-m-rt's
/// entry point runs the benchmarks named (and families, as on the host), in order, prints the stream through
/// semihosting and exits through it with the harness's status. The crate using it is `#![no_std]` and
/// `#![no_main]` on that target.
#[cfg(all(not(feature = "std"), feature = "cortex-m"))]
#[macro_export]
macro_rules! main {
    ($($entry:tt)+) => {
        #[$crate::entry]
        fn main() -> ! {
            let entries = $crate::entries!($($entry)+);
            let build = $crate::BuildInfo { optimized: !cfg!(debug_assertions) };
            $crate::exit($crate::run_main(&entries, build))
        }
    };
}

/// The array of [`Entry`] that [`main!`] runs, from the same list: `name`, `name = [ARG, ...]` or
/// `name = range(LO, HI, MULTIPLIER)`, separated by commas (the arguments are constants).
///
/// ```
/// fn sum_n(b: &mut rho_bench::Bench) {
///     let n = b.arg();
///     b.iter(|| n);
/// }
/// let entries = rho_bench::entries!(sum_n, sum_n = [1, 2], sum_n = range(1, 64, 4));
/// assert_eq!(entries.len(), 3);
/// assert_eq!(entries[2].args, rho_bench::Args::Range { lo: 1, hi: 64, multiplier: 4 });
/// ```
#[macro_export]
macro_rules! entries {
    ($($entry:tt)+) => {
        $crate::__entries!([] $($entry)+)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __entries {
    ([$($done:expr),*]) => { [$($done),*] };
    ([$($done:expr),*] $bench:ident = [$($arg:expr),+ $(,)?] $(, $($rest:tt)*)?) => {
        $crate::__entries!(
            [$($done,)* $crate::Entry::family(stringify!($bench), $bench, const { &[$($arg),+] })]
            $($($rest)*)?
        )
    };
    ([$($done:expr),*] $bench:ident = range($lo:expr, $hi:expr, $multiplier:expr $(,)?) $(, $($rest:tt)*)?) => {
        $crate::__entries!(
            [$($done,)* $crate::Entry::range(stringify!($bench), $bench, $lo, $hi, $multiplier)]
            $($($rest)*)?
        )
    };
    ([$($done:expr),*] $bench:ident $(, $($rest:tt)*)?) => {
        $crate::__entries!([$($done,)* $crate::Entry::new(stringify!($bench), $bench)] $($($rest)*)?)
    };
}
