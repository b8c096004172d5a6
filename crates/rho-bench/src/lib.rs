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
//! alone, rho's text report (default feature `report`: the stream parsed with rho-wire, summarised with
//! rho-stats and printed by rho-report, a table of the benchmarks), or, with default features off, the same
//! stream (and a line on stderr saying so). `cargo bench -- NAME` runs the benchmarks whose names contain
//! NAME. Under `cargo test` (no
//! `--bench` on the command line, not run by rho) each benchmark's loop runs once, as a test, and nothing is
//! measured. The settings are the C
//! harness's environment variables (`RHO_BENCH_ITERATIONS`, `RHO_BENCH_WARMUP`, `RHO_BENCH_SCALE`, ...: see
//! `Settings`); `RHO_BENCH_LIST=1` prints the benchmarks' names and runs nothing, as the C harness does
//! (docs/wire-format.md, "Listing").
//!
//! What a user's build pulls in (`[dev-dependencies] rho-bench`, default features): this crate, rho-wire,
//! libc, thiserror and serde (rho-wire's types derive it), and, for the report `cargo bench` prints
//! (feature `report`), rho-stats and rho-report, and with rho-report rho-judge, rho-config and its YAML
//! parser. With `default-features = false, features = ["std"]` only what the benchmark binary runs under rho
//! is built: this crate, rho-wire (the stream's names, and its parser, which checks the stream under
//! `cargo test`), libc, thiserror, serde and the proc-macro crates those use; nothing that judges, renders
//! or reads a config or YAML. This crate must not know about the judgement, budgets, baselines or the
//! report (the feature only hands the stream to rho-report): it
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
mod runner;
#[cfg(feature = "std")]
use hosted as platform;
#[cfg(all(not(feature = "std"), feature = "cortex-m"))]
mod bare;
#[cfg(all(not(feature = "std"), feature = "cortex-m"))]
use bare as platform;
#[cfg(feature = "std")]
mod error;
mod stack;
mod suite;
mod wire;
mod yardstick;

#[cfg(feature = "std")]
pub use bench::BATCHED_INPUTS;
pub use bench::Bench;
#[cfg(all(not(feature = "std"), feature = "cortex-m"))]
#[doc(hidden)]
pub use cortex_m_rt::entry;
#[cfg(feature = "std")]
pub use error::Error;
pub use heap::CountingAlloc;
#[cfg(feature = "std")]
pub use hosted::settings::{FORMAT_VARIABLE, Measure, Output, Settings};
#[cfg(all(not(feature = "std"), feature = "cortex-m"))]
pub use runner::bare::{exit, main as run_main};
#[cfg(feature = "report")]
pub use runner::hosted::report;
#[cfg(feature = "std")]
pub use runner::hosted::{Sink, listing, main as run_main, run};
pub use suite::{Args, BuildInfo, Entry};

#[cfg(all(feature = "std", feature = "cortex-m"))]
compile_error!("rho-bench: feature `cortex-m` is for a board: build it with default features off");
#[cfg(not(any(feature = "std", feature = "cortex-m")))]
compile_error!("rho-bench: enable `std` (the default) or, on a Cortex-M, `cortex-m`");

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
