//! The gate's report as a person reads it: which sides ran with which settings, the table of metrics, the
//! warnings about noise and the verdict line; and its HTML page (every run of each side, per metric).

mod table;

use rho_gate::functions::RegressedFunctions;
use rho_gate::{Comparison, GateOutcome, MetricOutcome, Verdict};

pub use table::{
    noise_warnings, paired_line, render_table, render_table_within, runs_per_benchmark_line,
    shown_line, unmatched_budget_warnings,
};

/// The text of `outcome` at `width` columns (`settings` says where the gate's settings came from), not yet
/// escaped or painted.
pub fn outcome_text(outcome: &GateOutcome, settings: &str, width: usize) -> String {
    let comparison = &outcome.comparison;
    let most = outcome.base_runs.len();
    // With adaptive runs a settled benchmark stops early: the fewest any benchmark took, to the most.
    let fewest = rho_gate::compare::runs_per_benchmark(comparison)
        .iter()
        .map(|(_, base, head)| (*base).max(*head))
        .filter(|runs| *runs > 0)
        .min()
        .unwrap_or(most);
    let runs = if fewest < most {
        format!("{fewest} to {most} (adaptive)")
    } else {
        most.to_string()
    };
    // Lock-step rounds ran both sides at once, taking turns (docs/gate.md, "Lock-step rounds").
    let alternating = match outcome.lock_step_turns {
        0 => "alternating".to_owned(),
        turns => format!("both at once taking turns ({turns} turns, lock-step)"),
    };
    let header = format!(
        "base: {} ({})\nhead: {} ({})\nruns: {runs} per side, {alternating}; each side's best run per metric, a time metric \
         judged on its paired rounds\n\
         settings: {}\n\n",
        outcome.base_described,
        outcome.base_source,
        outcome.head_described,
        outcome.head_source,
        settings,
    );
    let mut text = crate::wrap(&header, width, 6);
    text.push_str(&render_table_within(comparison, width));
    text.push('\n');
    if !comparison.metrics.is_empty() {
        text.push_str(&crate::wrap(&runs_per_benchmark_line(comparison), width, 2));
        text.push_str(&crate::wrap(&paired_line(comparison), width, 2));
        text.push_str(&crate::wrap(&shown_line(comparison), width, 2));
    }
    if let Some(cap) = &outcome.head_time_cap {
        text.push_str(&crate::wrap(&format!("head: {cap}\n"), width, 2));
    }
    if let Some(note) = rho_gate::head_cap::capped_note(&outcome.base_runs, &outcome.head_runs) {
        text.push_str(&crate::wrap(&note, width, 2));
    }
    let functions = functions_text(&rho_gate::functions::regressed(outcome));
    if !functions.is_empty() {
        text.push('\n');
        text.push_str(&functions);
    }
    if let Some(hint) = time_hint(comparison) {
        text.push_str(&crate::wrap(&hint, width, 2));
    }
    for warning in noise_warnings(comparison) {
        text.push_str(&crate::wrap(&warning, width, 2));
    }
    let regressed: Vec<String> = comparison
        .metrics
        .iter()
        .filter(|m| m.outcome == MetricOutcome::Regressed)
        .map(|m| {
            let change = match (m.change(), m.zero_base_text()) {
                (Some(c), _) => format!(" {}", crate::numbers::format_change_near(c, m.budget)),
                (None, Some(text)) => format!(" ({text})"),
                (None, None) => String::new(),
            };
            format!("{}{change}", m.name)
        })
        .collect();
    let undecided = comparison
        .metrics
        .iter()
        .filter(|m| matches!(m.outcome, MetricOutcome::Undecided(_)))
        .count();
    let summary = match comparison.verdict {
        Verdict::Ok => format!("ok: all {} metrics within budget", comparison.metrics.len()),
        Verdict::Regressed => format!(
            "REGRESSED: {} of {} metrics over budget ({})",
            regressed.len(),
            comparison.metrics.len(),
            regressed.join(", ")
        ),
        Verdict::Undecided if comparison.metrics.is_empty() => {
            "undecided: neither side reported any metric".to_owned()
        }
        Verdict::Undecided => format!(
            "undecided: {undecided} of {} metrics could not be compared (see the table)",
            comparison.metrics.len()
        ),
    };
    text.push_str(&crate::wrap(
        &format!(
            "verdict: {summary}; {:.1} s to verdict",
            outcome.elapsed.as_secs_f64()
        ),
        width,
        2,
    ));
    text
}

/// The changes as the gate's text prints them, under the table.
pub fn functions_text(regressed: &[RegressedFunctions]) -> String {
    let mut text = String::new();
    for bench in regressed {
        text.push_str(&format!(
            "{}.instructions: the functions that changed most\n",
            bench.bench
        ));
        for line in crate::profile::text_lines(&bench.changes) {
            text.push_str(&line);
            text.push('\n');
        }
        text.push('\n');
    }
    text
}

/// A time gate that regressed cannot name functions (sampling needs a PMU, and a sample is not a count): one
/// line saying how to have them. `None` when nothing timed regressed.
pub fn time_hint(comparison: &Comparison) -> Option<String> {
    let timed = comparison.metrics.iter().any(|m| {
        m.outcome == MetricOutcome::Regressed
            && (m.name.ends_with(".ns") || m.name.ends_with(".cycles") || m.name.ends_with("_ns"))
    });
    timed.then(|| {
        "hint: run the gate again with --measure instructions to have the functions whose counts changed \
         named under each regressed benchmark (exact, under Callgrind)\n"
            .to_owned()
    })
}

/// The HTML page of `outcome`: every run of each side, per metric.
pub fn outcome_page(outcome: &GateOutcome) -> String {
    crate::html::Page {
        title: format!(
            "rho bench gate: {} against {}",
            outcome.head_described, outcome.base_described
        ),
        suites: Vec::new(),
        diff: None,
        gate: Some(crate::html::Gate {
            comparison: &outcome.comparison,
            base_runs: &outcome.base_runs,
            head_runs: &outcome.head_runs,
            base: &outcome.base_described,
            head: &outcome.head_described,
        }),
    }
    .render()
}
