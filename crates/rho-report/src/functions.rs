//! A benchmark's functions (`rho bench --profile NAME`) and, where a benchmark regressed, the functions whose
//! instructions changed (rho-profile's lists, laid out).

use rho_stats::RunSummary;

/// Why `--profile NAME` has no table to print.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("--profile {name}: the suite has no benchmark of that name (it ran: {ran})")]
    NoBenchmark { name: String, ran: String },
    #[error(
        "--profile {name}: no per-function figures: perf record could not sample the timed loop; run it \
         again with --measure instructions (exact counts under Valgrind's Callgrind)"
    )]
    NotCounted { name: String },
    #[error(
        "--profile {name}: a board's instructions are counted by QEMU per loop, with no per-function \
         figures (docs/gate.md, \"Why it got slower\"); the host's --measure instructions names them"
    )]
    Board { name: String },
    #[error("--profile {name}: this run kept no functions (--functions 0)")]
    NoneKept { name: String },
}

/// Benchmark `name`'s table of functions in `summary`.
pub fn profile_table(summary: &RunSummary, name: &str) -> Result<String, ProfileError> {
    let Some(bench) = summary.benchmark(name) else {
        return Err(ProfileError::NoBenchmark {
            name: name.to_string(),
            ran: summary
                .benchmarks
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let Some(instructions) = &bench.instructions else {
        // Timed: the functions perf record sampled, when it could.
        return match &bench.sampled_functions {
            Some(functions) => Ok(rho_profile::table(name, functions)),
            None => Err(ProfileError::NotCounted {
                name: name.to_string(),
            }),
        };
    };
    match &instructions.functions {
        Some(functions) => Ok(rho_profile::table(name, functions)),
        None if [rho_stats::QEMU_ICOUNT, rho_stats::QEMU_PLUGIN]
            .contains(&instructions.source.as_str()) =>
        {
            Err(ProfileError::Board {
                name: name.to_string(),
            })
        }
        None => Err(ProfileError::NoneKept {
            name: name.to_string(),
        }),
    }
}
