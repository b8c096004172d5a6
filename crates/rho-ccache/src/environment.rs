//! What the gate and the cache agree on: the variables a build's compilers are handed, and the bound.

/// The directory of the compiled units; set, a program called by a compiler's name is the cache.
pub const STORE_VARIABLE: &str = "RHO_CCACHE_DIR";

/// The PATH the build started with, where the real compiler is looked up.
pub const ORIGINAL_PATH_VARIABLE: &str = "RHO_CCACHE_PATH";

/// A file each source's outcome is appended to (`hit FILE`, `miss FILE`, `direct WHY`): what the gate counts.
pub const LOG_VARIABLE: &str = "RHO_CCACHE_LOG";

/// The most bytes the compiled units of one repository take (beside the gate's build cache's own bound).
pub const UNIT_CACHE_BOUND_BYTES: u64 = 256 * 1024 * 1024;
