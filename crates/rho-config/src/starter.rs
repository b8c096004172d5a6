//! The starter files `rho bench init` writes: a commented module.yml and a first suite under bench/ that builds
//! and runs. Both are checked before either is written, and neither ever overwrites a file.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::MODULE_FILE;

/// Why the starter files were not written.
#[derive(Debug, Error)]
pub enum StarterError {
    #[error("{} already exists: rho bench init never overwrites a file (nothing was written)", .0.display())]
    Exists(PathBuf),

    #[error("cannot create {}", path.display())]
    Create {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("cannot write {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Where the first suite goes, relative to the module root.
pub const SUITE_PATH: &str = "bench/first_bench.c";

pub const MODULE_YML: &str = "\
# rho's module config: `rho bench` (no file arguments) finds this file from here or any directory below,
# builds and runs the suites it names, and reports each figure against its budget; `rho bench check` does
# the same and exits 1 when a budget is broken. Every key is described in rho's docs/config.md.
bench:
  default_iterations: 20000     # measured iterations per benchmark
  warmup_runs: 100              # discarded iterations before measuring
  stack_watermark: true         # paint the stack and report how deep each benchmark went
  repetitions: 1                # run each suite N times and keep each figure's best run
  time_cap_ms: 5000             # stop measuring a benchmark after 5 s of it (0: no cap)
  measure: time                 # time (cycles, ns) or instructions (exact counts, under Valgrind)

  # Ceilings for every benchmark, judged on the net median; a benchmark's own budgets replace them.
  # Set them a little above what `rho bench` measures, so a real slowdown breaks them and noise does not.
  budgets:
    max_stack_bytes: 4096
    max_heap_bytes: 0           # the first suite allocates nothing
    max_cycles_per_iteration: 1000000
    fail_on_regression_percent: 50.0   # with --diff REF: a slowdown past this against the baseline fails

  # Per-benchmark settings and budgets, over the ones above:
  # benchmarks:
  #   bench_sum_1k:
  #     iterations: 5000
  #     budgets:
  #       max_ns_per_op: 10.0

  # The suites: one C file is one suite; a list of files is built together into one suite.
  suites:
    - bench/first_bench.c
    # - [bench/other_bench.c, src/code_under_test.c]

  # Where the suites run: `host` is this machine (the first listed is the default).
  targets:
    - host
";

pub const FIRST_SUITE: &str = r#"/*
 * A first rho suite: `rho bench` builds it with the harness (rho/bench.h, which rho supplies) and runs it.
 * Each benchmark is a function taking the harness's state; the body of RHO_BENCH_LOOP is what is timed.
 * Replace the sum below with the code you want to measure, and add a RHO_BENCH_ADD line for each benchmark.
 */
#include <rho/bench.h>

#include <stdint.h>

/* Not const: the compiler must assume RHO_BENCH_KEEP's memory clobber may have changed it. */
static uint32_t data[1024];

static uint32_t sum(const uint32_t *values, int count)
{
    uint32_t total = 0;
    int i;
    for (i = 0; i < count; i++) {
        total += values[i];
    }
    return total;
}

static void bench_sum_1k(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "item", 1024); /* one iteration sums 1024 items: rates are items per second */
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(sum(data, 1024)); /* keep the result, so the work is not optimised away */
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    int i;
    for (i = 0; i < 1024; i++) {
        data[i] = (uint32_t)i * 2654435761u;
    }
    RHO_BENCH_ADD(&suite, bench_sum_1k);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// Writes module.yml and the first suite into `dir`; nothing when either is already there.
pub fn write_starter(dir: &Path) -> Result<(), StarterError> {
    let module = dir.join(MODULE_FILE);
    let suite = dir.join(SUITE_PATH);
    // Both checked before either is written: a half-done init is worse than none.
    for path in [&module, &suite] {
        if path.exists() {
            return Err(StarterError::Exists(path.clone()));
        }
    }
    if let Some(parent) = suite.parent() {
        std::fs::create_dir_all(parent).map_err(|source| StarterError::Create {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    write_new(&module, MODULE_YML)?;
    write_new(&suite, FIRST_SUITE)
}

/// Create `path` with `text`, failing (never truncating) when it exists.
fn write_new(path: &Path, text: &str) -> Result<(), StarterError> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|source| StarterError::Create {
            path: path.to_path_buf(),
            source,
        })?;
    file.write_all(text.as_bytes())
        .map_err(|source| StarterError::Write {
            path: path.to_path_buf(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_file_is_valid_config_naming_the_suite() {
        let config = crate::ModuleConfig::from_str(MODULE_YML, Path::new("module.yml")).unwrap();
        assert_eq!(
            config.budgets_for("bench_sum_1k").max_stack_bytes,
            Some(4096)
        );
        assert!(MODULE_YML.contains(SUITE_PATH));
    }
}
