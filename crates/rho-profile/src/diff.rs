//! Which functions a change made more (or less) expensive: base's and head's functions of one benchmark side
//! by side, the ones whose instructions changed most first.

use serde::{Deserialize, Serialize};

use crate::net::Functions;

/// How many changed functions a report lists under a regressed benchmark.
pub const REPORTED: usize = 10;

/// One function's figures on both sides, per iteration (`None`: not among that side's functions).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionChange {
    pub name: String,
    pub base: Option<Sides>,
    pub head: Option<Sides>,
    /// Whether each side listed all its functions (none left in "other"): only then does a function missing
    /// from a side's list mean the side does not run it.
    #[serde(skip)]
    pub complete: [bool; 2],
}

/// A function's own and inclusive instructions per iteration on one side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sides {
    #[serde(rename = "self")]
    pub own: f64,
    pub inclusive: f64,
}

impl FunctionChange {
    /// Head less base, own instructions (a side without the function counts 0).
    pub fn own_change(&self) -> f64 {
        self.head.map_or(0.0, |s| s.own) - self.base.map_or(0.0, |s| s.own)
    }

    /// Head less base, inclusive instructions.
    pub fn inclusive_change(&self) -> f64 {
        self.head.map_or(0.0, |s| s.inclusive) - self.base.map_or(0.0, |s| s.inclusive)
    }

    /// `only in head`, `only in base`, nothing when both sides have it; or, when the side without it left
    /// functions out of its list, that it is not among that side's listed ones (it may be in "other").
    pub fn presence(&self) -> Option<&'static str> {
        let [base_complete, head_complete] = self.complete;
        match (self.base, self.head) {
            (None, Some(_)) if base_complete => Some("only in head"),
            (None, Some(_)) => Some("not among base's listed functions"),
            (Some(_), None) if head_complete => Some("only in base"),
            (Some(_), None) => Some("not among head's listed functions"),
            _ => None,
        }
    }
}

/// The functions whose figures changed by at least one instruction per iteration, at most `limit`: the
/// largest change of a function's own instructions first (where the work changed), then of its inclusive ones.
pub fn changes(base: &Functions, head: &Functions, limit: usize) -> Vec<FunctionChange> {
    let side = |functions: &Functions, name: &str| {
        functions.get(name).map(|f| Sides {
            own: f.self_per_iteration,
            inclusive: f.inclusive_per_iteration,
        })
    };
    let mut names: Vec<&str> = base
        .listed
        .iter()
        .chain(&head.listed)
        .map(|f| f.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut changed: Vec<FunctionChange> = names
        .into_iter()
        .map(|name| FunctionChange {
            name: name.to_string(),
            base: side(base, name),
            head: side(head, name),
            // A sampled list misses what no sample hit: never "only in" a side.
            complete: [base, head].map(|side| side.other.functions == 0 && side.sampling.is_none()),
        })
        .filter(|c| c.own_change().abs() >= 0.5 || c.inclusive_change().abs() >= 0.5)
        .collect();
    changed.sort_by(|a, b| {
        b.own_change()
            .abs()
            .total_cmp(&a.own_change().abs())
            .then_with(|| {
                b.inclusive_change()
                    .abs()
                    .total_cmp(&a.inclusive_change().abs())
            })
            .then_with(|| a.name.cmp(&b.name))
    });
    changed.truncate(limit);
    changed
}

/// The unit of counted changes (Callgrind's, per iteration).
pub const COUNTED_UNIT: &str = "instructions/iter";
/// The unit of sampled changes (perf's shares scaled to the timed run's ns per iteration).
pub const SAMPLED_UNIT: &str = "sampled ns/iter";
