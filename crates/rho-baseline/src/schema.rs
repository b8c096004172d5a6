//! The baseline file's schema names: what `rho bench --write-baseline` writes and what it reads back. Their
//! own module so that the file's types, its reader and its errors can all name them.

/// The schema this crate writes. It reads this one, [`SCHEMA_V4`], [`SCHEMA_V3`], [`SCHEMA_V2`] and
/// [`SCHEMA_V1`]; a file with any other `schema` is refused, never guessed at. Version 5 added the time
/// section's `context.yardsticks` (the harnesses' reference loop, docs/baseline.md "The machine's
/// yardstick"). Version 4 added each benchmark's `suite` (so that a
/// sharded run knows, without building anything, which suites hold a share's benchmarks) and, for another
/// harness's suite, its `extra` figures and CPU time (`cpu_ns`); version 3 each counted benchmark's
/// `functions`.
pub const SCHEMA: &str = "rho-baseline/5";

/// The fourth schema: version 5 without `context.yardsticks`. Read as it is (no yardstick: time is judged
/// unadjusted, and the comparison says so), never written.
pub const SCHEMA_V4: &str = "rho-baseline/4";

/// The third schema: version 4 without `suite`, `extra` and `cpu_ns`. Read as it is (its benchmarks name no
/// suite and have no other harness's figures), never written.
pub const SCHEMA_V3: &str = "rho-baseline/3";

/// The second schema: version 3 without `functions`. Read as it is (its benchmarks have no functions), never
/// written.
pub const SCHEMA_V2: &str = "rho-baseline/2";

/// The first schema: one section per target holding every metric the run measured, whatever measured it.
/// Read (each section split into a section per measure,
/// [`TargetSections::from_v1`](crate::TargetSections::from_v1)), never written.
pub const SCHEMA_V1: &str = "rho-baseline/1";
