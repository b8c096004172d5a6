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
//! - **heap**: peak, live bytes and allocation counts, through [`CountingAlloc`] installed as the global
//!   allocator ("heap not measured" without it).
//! - **instructions**: under Valgrind's Callgrind (`rho bench --measure instructions`), each benchmark's
//!   measured loop is counted instead of timed.
//!
//! Output: run by rho (which sets `RHO_BENCH_FORMAT=wire`), the raw stream on stdout; run by `cargo bench`
//! alone, the stream is parsed with rho-wire, summarised with rho-stats and printed as rho-report's text
//! report. `cargo bench -- NAME` runs the benchmarks whose names contain NAME. Under `cargo test` (no
//! `--bench` on the command line, not run by rho) each benchmark's loop runs once, as a test, and nothing is
//! measured. The settings are the C
//! harness's environment variables (`RHO_BENCH_ITERATIONS`, `RHO_BENCH_WARMUP`, `RHO_BENCH_SCALE`, ...: see
//! `Settings`).
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
#[cfg(feature = "std")]
pub use hosted::settings::{FORMAT_VARIABLE, Measure, Output, Settings};
#[cfg(feature = "std")]
pub use hosted::{Sink, main as run_main, report, run};

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

/// A benchmark of a suite: its name and its function.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// The name reported (1 to 63 of `[A-Za-z0-9_.:+-]`).
    pub name: &'static str,
    /// The benchmark.
    pub run: fn(&mut Bench),
}

impl Entry {
    /// A benchmark named `name`.
    pub const fn new(name: &'static str, run: fn(&mut Bench)) -> Entry {
        Entry { name, run }
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
/// ```no_run
/// fn empty(b: &mut rho_bench::Bench) {
///     b.iter(|| ());
/// }
/// rho_bench::main!(empty);
/// ```
#[cfg(feature = "std")]
#[macro_export]
macro_rules! main {
    ($($bench:ident),+ $(,)?) => {
        fn main() {
            let entries = [$($crate::Entry::new(stringify!($bench), $bench)),+];
            let build = $crate::BuildInfo { optimized: !cfg!(debug_assertions) };
            ::std::process::exit($crate::run_main(&entries, build));
        }
    };
}

/// The `main` of a benchmark program on a Cortex-M (default features off, feature `cortex-m`): cortex-m-rt's
/// entry point runs the benchmarks named, in order, prints the stream through semihosting and exits through
/// it with the harness's status. The crate using it is `#![no_std]` and `#![no_main]` on that target.
#[cfg(all(not(feature = "std"), feature = "cortex-m"))]
#[macro_export]
macro_rules! main {
    ($($bench:ident),+ $(,)?) => {
        #[$crate::entry]
        fn main() -> ! {
            let entries = [$($crate::Entry::new(stringify!($bench), $bench)),+];
            let build = $crate::BuildInfo { optimized: !cfg!(debug_assertions) };
            $crate::exit($crate::run_main(&entries, build))
        }
    };
}
