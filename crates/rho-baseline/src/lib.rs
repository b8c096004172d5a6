//! Committed baselines: the file `rho bench --write-baseline` records (one section per target, atomic
//! writes, a stable format made to be read in a diff), reading it back as committed at a git ref without
//! touching the working tree, and validating what is read (a figure no run can produce is refused).
//!
//! The flow a caller follows:
//!
//! ```text
//! RunSummary --sections_from_summaries--> TargetSections (one per measure) --write_target--> bench/baseline.json
//! git ref --read_at_ref--> BaselineFile --rho_compare::diff--> Comparison --rho_report::diff--> report
//! ```
//!
//! The schema is described in `docs/baseline.md`. Whether two sections can be compared at all (the same target,
//! architecture and clocks) is here ([`comparable`]), because recording a run checks it when suites merge into one
//! section; comparing them is rho-compare's.
//!
//! Around it: the documents rho writes of runs with the atomic writer of every output file ([`export`]), a
//! saved run read back ([`saved`]), and the run in the dashboards' formats ([`dashboards`]).
//!
//! It must not know how a suite is built or run, how a comparison is judged or how anything is drawn: it is
//! handed run summaries and returns sections and files (docs/architecture.md).

pub mod comparable;
pub mod dashboards;
pub mod error;
pub mod export;
pub mod format;
pub mod git;
pub mod json_keys;
pub mod lock;
mod read;
pub mod record;
pub mod refusal;
pub mod saved;
mod schema;
pub mod store;
pub mod validate;

pub use error::Error;
pub use format::{
    BaselineFile, SCHEMA, SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, TargetBaseline, TargetSections,
};
pub use git::{RefSource, read_at_ref};
pub use record::{
    Recording, section_from_summaries, section_from_summary, sections_from_summaries,
    utc_now_rfc3339,
};
pub use refusal::Refusal;
pub use store::{check_recordable, read_file, write_target};

/// Whether `base_file` (named `base_name` in messages) has a section for `target`: [`Error::NoSection`] if
/// not. Callers that know the target before running anything call it then, so a baseline of another target
/// is refused before minutes of runs rather than after.
pub fn check_section(base_file: &BaselineFile, base_name: &str, target: &str) -> Result<(), Error> {
    section(base_file, base_name, target).map(|_| ())
}

/// `base_file`'s section for `target` (the file named `base_name` in messages): [`Error::NoSection`] if it has
/// none.
pub fn section<'a>(
    base_file: &'a BaselineFile,
    base_name: &str,
    target: &str,
) -> Result<&'a TargetSections, Error> {
    base_file
        .targets
        .get(target)
        .ok_or_else(|| no_section(base_file, base_name, target))
}

fn no_section(base_file: &BaselineFile, base_name: &str, target: &str) -> Error {
    Error::NoSection {
        source_name: base_name.to_string(),
        target: target.to_string(),
        available: base_file.targets.keys().cloned().collect(),
    }
}

#[cfg(any(test, feature = "fixture"))]
pub mod fixture {
    //! Small hand-written baselines for the unit tests, here and in the crates that compare and draw them
    //! (feature `fixture`: a dev-dependency's, never a build's).

    use crate::format::{
        BenchmarkBaseline, ClockInfo, Clocks, Context, Figure, Figures, Stack, TargetBaseline,
        TimeSource,
    };

    pub fn context(target: &str) -> Context {
        Context {
            target: target.to_string(),
            arch: "x86_64".to_string(),
            optimized: true,
            compiler: Some("gcc-12.2.0".to_string()),
            flags: Some("-O2".to_string()),
            tool: "rho 0.1.0".to_string(),
            recorded_at: "2026-12-02T13:20:15Z".to_string(),
            iterations: 20000,
            warmup: 100,
            repetitions: 3,
            clocks: Clocks {
                cycles: Some(ClockInfo {
                    name: "tsc".to_string(),
                    unit: "cycle".to_string(),
                    hz: Some(2_899_912_000),
                    resolution: 1,
                }),
                time: Some(ClockInfo {
                    name: "clock_gettime".to_string(),
                    unit: "ns".to_string(),
                    hz: Some(1_000_000_000),
                    resolution: 1,
                }),
            },
            time_source: TimeSource::TimeClock,
            instructions: None,
            yardsticks: Vec::new(),
        }
    }

    pub fn bench(name: &str, cycles: f64, ns: f64, stack: Stack, heap: u64) -> BenchmarkBaseline {
        BenchmarkBaseline {
            name: name.to_string(),
            suite: None,
            unit: "iter".to_string(),
            per_iteration: 1,
            iterations: 20000,
            batch: 1,
            cycles: Some(Figures {
                median: Figure(cycles),
                p95: Figure(cycles * 1.1),
                p99: Figure(cycles * 1.5),
            }),
            time_ns: Some(Figures {
                median: Figure(ns),
                p95: Figure(ns * 1.1),
                p99: Figure(ns * 1.5),
            }),
            cpu_ns: None,
            stack_bytes: stack,
            heap_peak_bytes: Some(heap),
            instructions: None,
            code_bytes: None,
            static_stack_bytes: None,
            functions: None,
            extra: Vec::new(),
            sampled_functions: None,
        }
    }

    /// [`section`] with every benchmark's cycle and time medians multiplied by `factor` (a machine that ran it
    /// all slower: drift).
    pub fn uniformly_slower(target: &str, factor: f64) -> TargetBaseline {
        let mut slower = section(target);
        for bench in &mut slower.benchmarks {
            for figures in [&mut bench.cycles, &mut bench.time_ns]
                .into_iter()
                .flatten()
            {
                figures.median = Figure(figures.median.0 * factor);
            }
        }
        slower
    }

    /// `section` with the machine's yardstick (`rho1`, one for the whole section) read at `cycles` and
    /// `time_ns` per iteration: a side of a comparison whose machine may have moved.
    pub fn with_yardstick(
        mut section: TargetBaseline,
        cycles: f64,
        time_ns: f64,
    ) -> TargetBaseline {
        section.context.yardsticks = vec![crate::format::SuiteYardstick {
            suite: None,
            name: "rho1".to_string(),
            iterations: 262_144,
            cycles: Some(cycles),
            time_ns: Some(time_ns),
            cpu_ns: None,
        }];
        section
    }

    /// The spec's figures: an empty body, CRC-32 over 64 and 256 bytes, a malloc/free pair.
    pub fn section(target: &str) -> TargetBaseline {
        TargetBaseline {
            context: context(target),
            benchmarks: vec![
                bench("bench_empty", 0.0, 0.0, Stack::Bytes(48), 0),
                bench("bench_crc_64", 1870.0, 645.0, Stack::Bytes(312), 0),
                bench("bench_crc_256", 7704.0, 2657.0, Stack::Bytes(312), 0),
                bench("bench_malloc_free", 107.0, 37.0, Stack::Bytes(96), 64),
            ],
        }
    }
}
