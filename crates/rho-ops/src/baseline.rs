//! `--write-baseline`, `--diff REF` and `--markdown FILE` around a run of `rho bench` or `rho bench check`:
//! the committed baseline, through `rho-baseline`.
//!
//! [`prepare`] runs before any suite is built: it reads the baseline at the git ref first, so a ref that does
//! not exist, a baseline missing there, another schema or corrupt JSON stop the command (exit 2) before
//! minutes are spent running suites. [`finish`] runs after: it records this run's section, or compares it
//! with the baseline and prints the comparison (and writes it as Markdown).

use std::io::Write;
use std::path::Path;

use rho_baseline::Recording;
use rho_compare::Comparison;
use rho_compare::plan::Request;
use rho_config::ModuleConfig;
use rho_stats::RunSummary;

pub use rho_compare::limits::Limits;
pub use rho_compare::plan::{Finished, Plan};

/// Whether any baseline work was asked for.
pub fn any(request: &Request) -> bool {
    request.write || request.diff.is_some()
}

/// The least number of runs to fold when a baseline is written or compared and neither `--repetitions` nor
/// module.yml asked for more: the best of [`rho_compare::MIN_REPETITIONS`] (see there for why).
pub fn repetitions(request: &Request, asked: Option<u32>, configured: u32) -> u32 {
    match asked {
        Some(n) => n.max(1),
        None if any(request) => configured.max(rho_compare::MIN_REPETITIONS),
        None => configured.max(1),
    }
}

/// Reads the baseline at `--diff REF` before the run (rho_compare::plan::prepare): `root` is the module root,
/// `config` the module's configuration when there is one, `target` the target the run's streams will name
/// when that is known before running (a built-in target).
pub fn prepare(
    request: &Request,
    root: &Path,
    config: Option<&ModuleConfig>,
    target: Option<&str>,
) -> crate::Result<Plan> {
    Ok(rho_compare::plan::prepare(request, root, config, target)?)
}

/// After the run: compare `summaries` (each suite's, in order) with the baseline and print the comparison to
/// `out`, and/or record them as the target's section. `selected` is the target asked for (module.yml's name);
/// `flags` says how the suites were built (compiler flags, or the target's build command), for the baseline's
/// context. The comparison is laid out as `layout` says ([`comparison_text`]).
pub fn finish(
    plan: &Plan,
    config: Option<&ModuleConfig>,
    selected: &str,
    summaries: &[(String, RunSummary)],
    flags: Option<String>,
    out: &mut dyn Write,
    layout: rho_report::Layout,
) -> crate::Result<Finished> {
    if !plan.active() {
        return Ok(Finished::default());
    }
    let recording = Recording::now(crate::VERSION, flags);
    let run = rho_compare::plan::run_section(selected, summaries, &recording)?;
    for (what, target) in &run.left_out {
        crate::say(&format!(
            "rho: warning: {what} ran on target {target} rather than {}: left out of the baseline {}",
            run.primary,
            if plan.write { "written" } else { "comparison" }
        ));
    }
    let mut finished = Finished::default();
    if let Some((comparison, base_name)) = plan.compare(config, &run.section)? {
        let text = comparison_text(&comparison, &base_name, layout);
        crate::output::show(out, &format!("\n{text}"));
        if let Some(path) = &plan.markdown {
            let mut markdown = rho_report::diff::render_markdown(&comparison, &base_name);
            // Head's families, each a small table with its fit.
            for (_, summary) in &run.parts {
                markdown.push_str(&rho_report::growth::render_markdown(summary));
            }
            // The error names the file, what it is and why; no context needed on top.
            rho_baseline::export::write_text(path, "the Markdown comparison", &markdown)?;
        }
        finished.record = Some(rho_compare::ComparisonRecord::of(&comparison, &base_name));
        finished.comparison = Some(comparison);
        finished.base_name = base_name;
    }
    if plan.write {
        let line = plan.record(run.section, run.primary)?;
        crate::output::show(out, &format!("\n{line}\n"));
    }
    Ok(finished)
}

/// A comparison as the terminal shows it (`--diff`, `rho bench compare`): its table fitted to the layout's
/// width (long names on lines of their own) and its prose wrapped there, or as wide as they make it with
/// `--wide`.
pub fn comparison_text(
    comparison: &Comparison,
    base_name: &str,
    layout: rho_report::Layout,
) -> String {
    if layout.wide {
        rho_report::diff::render_text(comparison, base_name)
    } else {
        // The table fitted first (a row is never wrapped), then the prose around it wrapped.
        let text = rho_report::diff::render_text_within(comparison, base_name, layout.width);
        rho_report::wrap(&text, layout.width, 2)
    }
}

/// Says on `out` that the baseline comparison failed (`LEAD: N metric(s) regressed and M not measured against
/// the baseline: OUTCOME`); false, saying nothing, when it did not.
fn said_regressions(finished: &Finished, out: &mut dyn Write, lead: &str, outcome: &str) -> bool {
    let Some(comparison) = finished.comparison.as_ref().filter(|_| finished.failed()) else {
        return false;
    };
    let counts = comparison.counts();
    crate::output::show(
        out,
        &format!(
            "{lead}: {} metric(s) regressed and {} not measured against the baseline: {outcome}\n",
            counts.regressed, counts.not_measured
        ),
    );
    true
}

/// `rho bench --diff REF`'s exit status: 1 when a metric regressed past its limit (or lost its measurement),
/// said on `out`, as `check --diff` does; else 0. Budgets are not `rho bench`'s to enforce.
pub fn diff_code(finished: &Finished, out: &mut dyn Write) -> u8 {
    u8::from(said_regressions(finished, out, "diff", "exit 1"))
}

/// `rho bench check`'s exit status with the baseline comparison taken in: a regression (or a metric that lost
/// its measurement) makes 0 into 1, and says so on `out`; "cannot decide" (2) stays 2.
pub fn check_code(budgets_code: u8, finished: &Finished, out: &mut dyn Write) -> u8 {
    if !said_regressions(finished, out, "check", "fails") {
        return budgets_code;
    }
    if budgets_code == 0 { 1 } else { budgets_code }
}

/// `--filter` with `--write-baseline` is refused: the target's section would lose every benchmark filtered out.
pub fn refuse_filtered_baseline(filter: Option<&str>, request: &Request) -> crate::Result<()> {
    if let Some(filter) = filter
        && request.write
    {
        return Err(crate::Error::Refused(format!(
            "--filter {filter} with --write-baseline would record a baseline without the benchmarks filtered \
             out; write the baseline from a run of every benchmark"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_work_folds_at_least_three_runs_unless_told() {
        let diff = Request {
            diff: Some("HEAD".into()),
            ..Request::default()
        };
        let write = Request {
            write: true,
            ..Request::default()
        };
        let none = Request::default();
        assert_eq!(repetitions(&diff, None, 1), 3);
        assert_eq!(repetitions(&write, None, 5), 5);
        assert_eq!(repetitions(&diff, Some(1), 1), 1, "--repetitions wins");
        assert_eq!(
            repetitions(&none, None, 1),
            1,
            "no baseline work: as configured"
        );
    }
}
