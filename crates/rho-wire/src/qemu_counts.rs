//! The other half of a board's counted run (`@counter instructions qemu`): the totals rho's QEMU plugin
//! (`c/qemu/rho_count_plugin.c`) writes, one line `K TOTAL BODIES FILLED` per measured loop, `K` the number
//! the stream's `@count K` line gives it, `BODIES` the bodies the plugin summed and `FILLED` those of them
//! whose begin marker is not right before their end marker (a body with code in it). [`attach_totals`] reads
//! them into each [`Count::totals`](crate::Count) as Callgrind's `Ir`, so a board's count is summarised as a
//! host's is, and refuses a total no run can give: bodies other than the loop's iterations (or twice them: a
//! `RHO_BENCH_LOOP_SETUP` iteration is its setup's body and its timed part's), fewer
//! instructions than non-empty bodies (a zero for a body with code) (docs/wire-format.md, "Counted runs").

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
    #[error(
        "{}:{line}: expected `K TOTAL BODIES FILLED` (four whole numbers), found {found:?}",
        path.display()
    )]
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
    #[error(
        "benchmark {block} on {target}: impossible instruction count (@count {dump}, {}): {why}; \
         the count is refused, not reported",
        path.display()
    )]
    Impossible {
        path: PathBuf,
        block: String,
        target: String,
        dump: u64,
        why: String,
    },
}

/// One measured loop's line: the instructions its bodies ran, how many bodies, how many of them with code.
#[derive(Debug, Clone, Copy)]
struct LoopTotal {
    instructions: u64,
    bodies: u64,
    filled: u64,
}

impl LoopTotal {
    /// Why no run can give this total for a loop of `iterations`, if none can.
    fn impossible(self, iterations: u64) -> Option<String> {
        // An iteration is one body, or two with RHO_BENCH_LOOP_SETUP (its setup and its timed part, each
        // between a body's markers).
        if self.bodies != iterations && self.bodies != 2 * iterations {
            return Some(format!(
                "the plugin summed {} bodies where the loop ran {iterations} iterations (one body an \
                 iteration, two with a setup)",
                self.bodies
            ));
        }
        if self.instructions < self.filled {
            return Some(format!(
                "{} instructions for {} bodies with code in them (each runs at least one)",
                self.instructions, self.filled
            ));
        }
        None
    }
}

/// Read `path` (the plugin's totals) and attach each `@count`'s total to `run` as its `Ir`; a total no run can
/// give is an error naming the benchmark and the target (the board).
pub fn attach_totals(run: &mut Run, path: &Path) -> Result<(), TotalsError> {
    let text = std::fs::read_to_string(path).map_err(|error| TotalsError::Read {
        path: path.to_path_buf(),
        error,
    })?;
    let mut totals = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        let numbers: Option<Vec<u64>> = line.split(' ').map(|word| word.parse().ok()).collect();
        let Some(&[dump, instructions, bodies, filled]) = numbers.as_deref() else {
            return Err(TotalsError::Malformed {
                path: path.to_path_buf(),
                line: index + 1,
                found: line.to_string(),
            });
        };
        let total = LoopTotal {
            instructions,
            bodies,
            filled,
        };
        totals.insert(dump, total);
    }
    let target = run.target.name.clone();
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
            if let Some(why) = total.impossible(count.iterations) {
                return Err(TotalsError::Impossible {
                    path: path.to_path_buf(),
                    block: bench.name.clone(),
                    target,
                    dump: count.dump,
                    why,
                });
            }
            count.totals = BTreeMap::from([(INSTRUCTIONS_EVENT.to_string(), total.instructions)]);
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
        std::fs::write(&path, "1 0 1000 0\n2 0 2000 0\n3 10000 10 10\n").unwrap();
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
        std::fs::write(&path, "1 0 1000 0\n2 0 2000 0\n").unwrap();
        let error = attach_totals(&mut run(), &path).unwrap_err().to_string();
        assert!(
            error.contains("no total for @count 3 of bench_nop"),
            "{error}"
        );
        std::fs::write(&path, "1 0 1000 0\n2 zero 2000 0\n").unwrap();
        let error = attach_totals(&mut run(), &path).unwrap_err().to_string();
        assert!(
            error.contains(":2: expected `K TOTAL BODIES FILLED`"),
            "{error}"
        );
        // The two-number line of the plugin before bodies were counted is not a whole line.
        std::fs::write(&path, "1 0\n").unwrap();
        let error = attach_totals(&mut run(), &path).unwrap_err().to_string();
        assert!(
            error.contains(":1: expected `K TOTAL BODIES FILLED`"),
            "{error}"
        );
        let error = attach_totals(&mut run(), &dir.path().join("none"))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("cannot read the QEMU counting plugin's totals"),
            "{error}"
        );
    }

    /// A zero for bodies with code in them, and bodies other than the loop's iterations, are refused naming the
    /// benchmark and the board; a zero for empty bodies is the figure it is.
    #[test]
    fn a_total_no_run_can_give_is_refused_naming_the_benchmark_and_the_board() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TOTALS_FILE);
        for (line, why) in [
            (
                "3 0 10 10",
                "0 instructions for 10 bodies with code in them",
            ),
            (
                "3 9 10 10",
                "9 instructions for 10 bodies with code in them",
            ),
            (
                "3 10000 9 9",
                "summed 9 bodies where the loop ran 10 iterations",
            ),
            (
                "3 10000 11 11",
                "summed 11 bodies where the loop ran 10 iterations",
            ),
        ] {
            std::fs::write(&path, format!("1 0 1000 0\n2 0 2000 0\n{line}\n")).unwrap();
            let error = attach_totals(&mut run(), &path).unwrap_err().to_string();
            assert!(
                error.contains(
                    "benchmark bench_nop on mps2-an386: impossible instruction count (@count 3"
                ),
                "{error}"
            );
            assert!(error.contains(why), "{line}: {error}");
        }
        std::fs::write(&path, "1 0 1000 0\n2 0 2000 0\n3 0 10 0\n").unwrap();
        let mut run = run();
        attach_totals(&mut run, &path).unwrap();
        assert_eq!(run.benchmarks[0].counts[0].totals[INSTRUCTIONS_EVENT], 0);
        // A setup's loop: two bodies an iteration.
        std::fs::write(&path, "1 0 1000 0\n2 0 2000 0\n3 500 20 20\n").unwrap();
        let mut run = self::run();
        attach_totals(&mut run, &path).unwrap();
        assert_eq!(run.benchmarks[0].counts[0].totals[INSTRUCTIONS_EVENT], 500);
    }
}
