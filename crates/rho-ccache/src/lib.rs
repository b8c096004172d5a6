//! rho's compile cache: compiled translation units kept by the hash of their preprocessed text, the
//! compiler and its arguments (what ccache does), so that a gate's build recompiles only the files that
//! changed. The gate reaches it by "masquerading": the build's PATH starts with a directory whose `cc`,
//! `gcc`, `clang`... are links to rho, and rho, called by a compiler's name with [`STORE_VARIABLE`] set,
//! runs [`run_as_compiler`] instead of its command line.
//!
//! What passes straight to the real compiler (found on the PATH the build started with, never the links),
//! what a key holds and where the units live: docs/gate.md, "The compile cache".

mod args;
mod environment;
mod error;
mod masquerade;
mod store;
mod wrap;

pub use args::{Invocation, Parsed, Source, parse};
pub use environment::{
    LOG_VARIABLE, ORIGINAL_PATH_VARIABLE, STORE_VARIABLE, UNIT_CACHE_BOUND_BYTES,
};
pub use error::CacheError;
pub use masquerade::{find_on_path, is_compiler_name, masquerade};
pub use store::{Unit, UnitStore, digest, evict_least_recent, is_stale_temporary};
pub use wrap::run_as_compiler;

/// When this process was called as a compiler for the cache (argv[0]'s file name is a compiler's and
/// [`STORE_VARIABLE`] is set): run as one and give its exit status; else `None`, and the program goes on.
pub fn dispatch() -> Option<i32> {
    let mut argv = std::env::args_os();
    let zeroth = argv.next()?;
    let name = std::path::Path::new(&zeroth)
        .file_name()?
        .to_str()?
        .to_owned();
    if !is_compiler_name(&name) || std::env::var_os(STORE_VARIABLE).is_none() {
        return None;
    }
    Some(run_as_compiler(&name, argv.collect()))
}

/// How many of the sources a build's log names came from the cache, and how many it names.
pub fn count_log(text: &str) -> (usize, usize) {
    let lines = text.lines().filter(|l| !l.is_empty());
    let hits = text.lines().filter(|l| l.starts_with("hit ")).count();
    (hits, lines.count())
}
