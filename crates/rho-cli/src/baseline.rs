//! The baseline flags of `rho bench` and `rho bench check` (`--write-baseline`, `--diff REF`, `--markdown
//! FILE`); the work is rho_ops::baseline's.

use std::path::PathBuf;

use clap::Args;

/// The baseline flags of `rho bench` and `rho bench check`.
#[derive(Debug, Clone, Default, Args)]
pub struct BaselineArgs {
    /// Record this run as its target's section of the committed baseline (module.yml's `bench.baseline`,
    /// default bench/baseline.json), keeping the other targets' sections. Commit the file.
    #[arg(long)]
    pub write_baseline: bool,

    /// Compare this run with the baseline as committed at git REF (a branch, tag or commit, e.g. origin/main),
    /// per benchmark and metric. Both `rho bench` and `rho bench check` exit 1 on a regression beyond
    /// `fail_on_regression_percent` (budgets stay `check`'s alone); `--json` carries the comparison.
    #[arg(long, value_name = "REF")]
    pub diff: Option<String>,

    /// With --diff: also write the comparison as a Markdown table for a pull-request comment. With several
    /// targets (`--target a,b` and FILE.c): the side-by-side tables.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
}

impl BaselineArgs {
    /// What was asked, for rho_ops.
    pub fn request(&self) -> rho_compare::plan::Request {
        rho_compare::plan::Request {
            write: self.write_baseline,
            diff: self.diff.clone(),
            markdown: self.markdown.clone(),
        }
    }
}
