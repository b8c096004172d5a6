//! The other half of a board's counted run (`@counter instructions qemu`): the totals rho's QEMU plugin
//! (`c/qemu/rho_count_plugin.c`) writes, one line `K TOTAL` per measured loop, `K` the number the stream's
//! `@count K` line gives it. [`attach_totals`] reads them into each [`Count::totals`](crate::Count) as
//! Callgrind's `Ir`, so a board's count is summarised as a host's is (docs/wire-format.md, "Counted runs").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::callgrind::INSTRUCTIONS_EVENT;
use crate::types::Run;

/// The plugin's file, in the build directory of the counted image (`$RHO_BENCH_OUT/counts`).
pub const TOTALS_FILE: &str = "counts";

/// Why a board's counted run's totals could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TotalsError {
    #[error("cannot read the QEMU counting plugin's totals {}: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}:{line}: expected `K TOTAL` (two whole numbers), found {found:?}", path.display())]
    Malformed {
        path: PathBuf,
        line: usize,
        found: String,
    },
    #[error(
        "{}: no total for @count {dump} of {block} (the plugin wrote {written}; was the run's QEMU given \
         rho's plugin?)",
        path.display()
    )]
    Missing {
        path: PathBuf,
        block: String,
        dump: u64,
        written: usize,
    },
}

/// Read `path` (the plugin's totals) and attach each `@count`'s total to `run` as its `Ir`.
pub fn attach_totals(run: &mut Run, path: &Path) -> Result<(), TotalsError> {
    let text = std::fs::read_to_string(path).map_err(|error| TotalsError::Read {
        path: path.to_path_buf(),
        error,
    })?;
    let mut totals = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        let parsed = line
            .split_once(' ')
            .and_then(|(k, total)| Some((k.parse::<u64>().ok()?, total.parse::<u64>().ok()?)));
        let Some((dump, total)) = parsed else {
            return Err(TotalsError::Malformed {
                path: path.to_path_buf(),
                line: index + 1,
                found: line.to_string(),
            });
        };
        totals.insert(dump, total);
    }
    for bench in run.calibration.iter_mut().chain(run.benchmarks.iter_mut()) {
        for count in &mut bench.counts {
            let Some(&total) = totals.get(&count.dump) else {
                return Err(TotalsError::Missing {
                    path: path.to_path_buf(),
                    block: bench.name.clone(),
                    dump: count.dump,
                    written: totals.len(),
                });
            };
            count.totals = BTreeMap::from([(INSTRUCTIONS_EVENT.to_string(), total)]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A board's counted stream, as the Cortex-M4 printed it.
    const STREAM: &str = "@rho-bench 6\n@target mps2-an386 arch=armv7e-m optimized=1\n\
        @counter instructions qemu\n\
        @config iterations=10 warmup=1 time_cap_ms=0 stack_bytes=57344 stack_guard=mpu\n\
        @bench .overhead\n@count 1 iterations=1000\n@count 2 iterations=2000\n@stack 120\n\
        @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
        @end .overhead iterations=1000 warmup=1 capped=0 unit=iter per_iteration=1 batch=1\n\
        @bench bench_nop\n@count 3 iterations=10\n@stack 128\n\
        @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
        @end bench_nop iterations=10 warmup=1 capped=0 unit=iter per_iteration=1 batch=1\n\
        @done benchmarks=1 dropped=0\n";

    fn run() -> Run {
        crate::parse_str(STREAM).unwrap()
    }

    #[test]
    fn each_count_gets_the_total_of_its_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TOTALS_FILE);
        std::fs::write(&path, "1 0\n2 0\n3 10000\n").unwrap();
        let mut run = run();
        attach_totals(&mut run, &path).unwrap();
        assert_eq!(
            run.benchmarks[0].counts[0].totals[INSTRUCTIONS_EVENT],
            10000
        );
        let calibration = run.calibration.as_ref().unwrap();
        assert_eq!(calibration.counts[1].totals[INSTRUCTIONS_EVENT], 0);
    }

    #[test]
    fn a_missing_total_or_a_bad_line_is_an_error_naming_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TOTALS_FILE);
        std::fs::write(&path, "1 0\n2 0\n").unwrap();
        let error = attach_totals(&mut run(), &path).unwrap_err().to_string();
        assert!(
            error.contains("no total for @count 3 of bench_nop"),
            "{error}"
        );
        std::fs::write(&path, "1 0\n2 zero\n").unwrap();
        let error = attach_totals(&mut run(), &path).unwrap_err().to_string();
        assert!(error.contains(":2: expected `K TOTAL`"), "{error}");
        let error = attach_totals(&mut run(), &dir.path().join("none"))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("cannot read the QEMU counting plugin's totals"),
            "{error}"
        );
    }
}
