//! Why a step up in instructions happened: under a change point of an instructions series, when the records
//! on both sides of it carry the benchmark's functions, those whose counts changed most (rho-profile's one
//! diff), the commit before the change against the first commit after. The text, the JSON, the Markdown and
//! the page all take them from here.

use rho_profile::Functions;
use rho_profile::diff::FunctionChange;
use rho_stats::Metric;

use crate::analysis::{Change, Commit, Series};
use crate::git::Listing;

/// The functions of one change point: both sides' lists (the flame graph is drawn from them) and the changes.
#[derive(Debug, Clone)]
pub struct ChangedFunctions<'a> {
    pub base: &'a Functions,
    pub head: &'a Functions,
    pub changes: Vec<FunctionChange>,
}

/// The functions behind `change` of `series`: `None` unless it is an instructions change that went up and the
/// records of the commit before it and of its first commit both carry the benchmark's functions.
pub fn behind<'a>(
    series: &Series,
    change: &Change,
    commits: &[Commit],
    listing: &'a Listing,
) -> Option<ChangedFunctions<'a>> {
    if series.metric != Metric::Instructions || change.after <= change.before {
        return None;
    }
    let before = series.points.get(change.point.checked_sub(1)?)?;
    let functions = |commit_index: usize| {
        let id = &commits.get(commit_index)?.id;
        let key = &series.key;
        listing
            .records
            .iter()
            .map(|(_, record)| record)
            .filter(|r| {
                r.commit == *id
                    && r.target == key.target
                    && r.measure == key.measure
                    && r.machine == key.machine
            })
            .find_map(|r| r.section.benchmark(&key.bench)?.functions.as_ref())
    };
    let base = functions(before.commit_index)?;
    let head = functions(change.commit_index)?;
    Some(ChangedFunctions {
        base,
        head,
        changes: rho_profile::diff::changes(base, head, rho_profile::diff::REPORTED),
    })
}
