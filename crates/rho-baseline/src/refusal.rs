//! Why two sets of figures cannot be compared (another target, architecture, clock or counter). Its own module
//! so that the crate's error can carry it without depending on the check (crate::comparable) or the
//! comparison (rho-compare).

use thiserror::Error;

/// Why two sets of figures cannot be compared.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Refusal {
    #[error(
        "the baseline was recorded for target \"{base}\" and this run is target \"{head}\": figures from \
         different targets are different measurements and are not compared"
    )]
    Target { base: String, head: String },

    #[error(
        "target \"{target}\": the baseline was recorded on {base} and this run is on {head}: different \
         architectures are not compared"
    )]
    Arch {
        target: String,
        base: String,
        head: String,
    },

    #[error(
        "target \"{target}\": the baseline was measured {} and this run {}: an unoptimized build measures \
         another program",
        if *base_optimized { "with optimisation" } else { "without optimisation" },
        if *base_optimized { "without" } else { "with" }
    )]
    Optimized {
        target: String,
        base_optimized: bool,
    },

    #[error("{base_name} cycles and {head_name} cycles are different units: {detail}")]
    CycleClock {
        base_name: String,
        head_name: String,
        detail: String,
    },

    #[error("{detail}")]
    TimeSource { detail: String },

    #[error(
        "the baseline's instructions were counted by {base} and this run's by {head}: different counters are not \
         compared"
    )]
    InstructionCounter { base: String, head: String },

    #[error("the regression limit must be a finite number of percent, 0 or more; got {0}")]
    Limit(f64),

    #[error(
        "this run recorded no figures of any measure for target \"{target}\": nothing to compare"
    )]
    NothingMeasured { target: String },
}
