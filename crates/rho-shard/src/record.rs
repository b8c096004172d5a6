//! What a share writes into its `--json` document (the `shard` object, docs/json-output.md), and what the
//! merge reads back from each share.

use serde::{Deserialize, Serialize};

use crate::partition::Entry;

/// The `shard` object of a share's `rho-bench-project/1` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRecord {
    /// This share, from 1.
    pub index: u32,
    /// How many shares the run was split into.
    pub count: u32,
    /// The partition's identity ([`crate::partition::identity`]): equal in every share of one run.
    pub partition: String,
    /// The commit checked out (`git rev-parse HEAD` in the module's root); `null` outside a repository.
    pub commit: Option<String>,
    /// `bench` or `check`: which command the shares ran, so the merge exits as it would.
    pub command: String,
    /// What the shares measured: `time`, `instructions` or `time,instructions`.
    pub measure: String,
    /// `--filter` as given (`null` without it): a filtered run leaves budgets unmatched on purpose.
    pub filter: Option<String>,
    /// Where the costs came from: `baseline` (the committed baseline's figures) or `names` (none known).
    pub basis: String,
    /// `--diff REF` as given, left to the merge (a share alone cannot compare: drift and the removed
    /// benchmarks are the whole run's); `null` without it.
    pub diff: Option<String>,
    /// The commit `diff` resolved to when the share ran; the merge refuses a ref that has moved since.
    pub diff_commit: Option<String>,
    /// Every benchmark of the run, in run order, with its cost and share.
    pub benchmarks: Vec<Entry>,
}

impl ShardRecord {
    /// `2/4`.
    pub fn label(&self) -> String {
        format!("{}/{}", self.index, self.count)
    }

    /// The names of suite `suite`'s benchmarks in this share, in run order.
    pub fn names_in(&self, suite: &str) -> Vec<&str> {
        self.benchmarks
            .iter()
            .filter(|e| e.suite == suite && e.share == self.index)
            .map(|e| e.name.as_str())
            .collect()
    }
}
