//! The partition of a run's benchmarks into shares, computed alike by every job from the same inputs
//! (docs/ci.md, "How the shares are chosen"):
//!
//! 1. every benchmark of every suite, as `(suite, benchmark)` in the order the suites run them, each with a
//!    cost: its figure per iteration in the committed baseline times the iterations it recorded (the
//!    instructions section when counting, the time section's nanoseconds when timing), or none;
//! 2. a benchmark with no cost costs the median of the known costs (1 when none is known, so a run without
//!    a baseline is split by name alone);
//! 3. sorted by cost, dearest first, then by suite and name;
//! 4. each in turn goes to the share with the least cost so far; of equals, the one holding the fewest
//!    benchmarks, then the lowest-numbered (greedy longest-processing-time). With equal costs that is
//!    round-robin over the sorted names, and so it is with costs of zero (a timed baseline of sub-nanosecond
//!    bodies records 0): they spread over the shares instead of all landing in the first.
//!
//! Its identity is a hash of the shares' count, the run's settings and every benchmark with its cost and
//! share: two jobs with the same identity ran shares of the same partition.

use serde::{Deserialize, Serialize};

/// One benchmark of the run, and the share it falls in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The suite, as module.yml names it (its files or its command).
    pub suite: String,
    /// The benchmark's name.
    pub name: String,
    /// What it cost in the baseline (figure per iteration x iterations); `null` when it has no figure there.
    pub cost: Option<f64>,
    /// Its share, from 1.
    pub share: u32,
}

/// Assigns each of `benchmarks` (`(suite, name, cost)`, in run order) a share of `count`, as the module's
/// doc says; the entries come back in run order.
pub fn assign(benchmarks: Vec<(String, String, Option<f64>)>, count: u32) -> Vec<Entry> {
    let mut known: Vec<f64> = benchmarks
        .iter()
        .filter_map(|(_, _, cost)| *cost)
        .filter(|cost| cost.is_finite() && *cost >= 0.0)
        .collect();
    known.sort_by(f64::total_cmp);
    // The lower middle, as every median in rho (docs/statistics.md).
    let typical = known
        .get(known.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(1.0);
    let weight = |cost: Option<f64>| {
        cost.filter(|c| c.is_finite() && *c >= 0.0)
            .unwrap_or(typical)
    };
    let mut order: Vec<usize> = (0..benchmarks.len()).collect();
    order.sort_by(|&a, &b| {
        let (sa, na, ca) = &benchmarks[a];
        let (sb, nb, cb) = &benchmarks[b];
        weight(*cb)
            .total_cmp(&weight(*ca))
            .then_with(|| sa.cmp(sb))
            .then_with(|| na.cmp(nb))
    });
    let mut loads = vec![0.0f64; count.max(1) as usize];
    let mut held = vec![0usize; loads.len()];
    let mut shares = vec![0u32; benchmarks.len()];
    for index in order {
        let lightest = (0..loads.len())
            .min_by(|&a, &b| {
                loads[a]
                    .total_cmp(&loads[b])
                    .then(held[a].cmp(&held[b]))
                    .then(a.cmp(&b))
            })
            .unwrap_or(0);
        loads[lightest] += weight(benchmarks[index].2);
        held[lightest] += 1;
        shares[index] = lightest as u32 + 1;
    }
    benchmarks
        .into_iter()
        .zip(shares)
        .map(|((suite, name, cost), share)| Entry {
            suite,
            name,
            cost,
            share,
        })
        .collect()
}

/// The partition's identity: FNV-1a (64 bits, hex) over the shares' count, `settings` (what else must be the
/// same for the shares to add up: module.yml's text, the target, the measure, the scale...) and every entry.
pub fn identity(count: u32, settings: &[&str], entries: &[Entry]) -> String {
    let mut hash = Fnv::new();
    hash.write(&count.to_le_bytes());
    for setting in settings {
        hash.field(setting.as_bytes());
    }
    for entry in entries {
        hash.field(entry.suite.as_bytes());
        hash.field(entry.name.as_bytes());
        hash.field(&entry.cost.map_or(u64::MAX, f64::to_bits).to_le_bytes());
        hash.write(&entry.share.to_le_bytes());
    }
    format!("{:016x}", std::hash::Hasher::finish(&hash.0))
}

/// FNV-1a, 64 bits: stable across machines and versions, which the standard library's hasher is not.
struct Fnv(fnv::FnvHasher);

impl Fnv {
    fn new() -> Fnv {
        Fnv(fnv::FnvHasher::default())
    }

    fn write(&mut self, bytes: &[u8]) {
        std::hash::Hasher::write(&mut self.0, bytes);
    }

    /// A field with its length first, so `("ab", "c")` and `("a", "bc")` differ.
    fn field(&mut self, bytes: &[u8]) {
        self.write(&(bytes.len() as u64).to_le_bytes());
        self.write(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> Vec<(String, String, Option<f64>)> {
        names
            .iter()
            .map(|n| ("s.c".to_string(), n.to_string(), None))
            .collect()
    }

    fn shares(entries: &[Entry]) -> Vec<u32> {
        entries.iter().map(|e| e.share).collect()
    }

    #[test]
    fn without_costs_the_sorted_names_go_round_robin() {
        let entries = assign(named(&["d", "b", "a", "c", "e"]), 2);
        // Sorted: a b c d e -> 1 2 1 2 1; back in run order d b a c e.
        assert_eq!(shares(&entries), [2, 2, 1, 1, 1]);
        assert_eq!(entries[0].name, "d");
    }

    #[test]
    fn with_costs_the_dearest_go_first_each_to_the_lightest_share() {
        let mut benchmarks = named(&["a", "b", "c", "d", "e"]);
        for (b, cost) in benchmarks.iter_mut().zip([8.0, 5.0, 4.0, 3.0, 1.0]) {
            b.2 = Some(cost);
        }
        // a(8) -> 1; b(5) -> 2; c(4) -> 2 (5 < 8); d(3) -> 1 (8 < 9); e(1) -> 2 (9 < 11).
        assert_eq!(shares(&assign(benchmarks, 2)), [1, 2, 2, 1, 2]);
    }

    #[test]
    fn benchmarks_that_cost_nothing_spread_over_the_shares() {
        let mut benchmarks = named(&["a", "b", "c", "d", "e", "f"]);
        for b in &mut benchmarks {
            b.2 = Some(0.0);
        }
        let entries = assign(benchmarks, 3);
        let shares: Vec<u32> = entries.iter().map(|e| e.share).collect();
        assert_eq!(shares, [1, 2, 3, 1, 2, 3]);
    }

    #[test]
    fn a_benchmark_the_baseline_lacks_costs_the_median_of_the_others() {
        let mut benchmarks = named(&["a", "b", "c", "new"]);
        for (b, cost) in benchmarks
            .iter_mut()
            .zip([Some(10.0), Some(2.0), Some(6.0), None])
        {
            b.2 = cost;
        }
        // Weights 10, 2, 6, 6 (the median of 2, 6, 10): a -> 1, then c and new (6, by name) -> 2 and 2? c -> 2
        // (0), new -> 2 (6 < 10), b -> 1 (10 < 12).
        assert_eq!(shares(&assign(benchmarks, 2)), [1, 1, 2, 2]);
    }

    #[test]
    fn the_identity_changes_with_anything_the_shares_depend_on() {
        let entries = assign(named(&["a", "b", "c"]), 2);
        let id = identity(2, &["module", "host"], &entries);
        assert_eq!(id, identity(2, &["module", "host"], &entries));
        assert_eq!(id.len(), 16);
        assert_ne!(id, identity(3, &["module", "host"], &entries));
        assert_ne!(id, identity(2, &["module", "mps2-an386"], &entries));
        assert_ne!(id, identity(2, &["modul", "ehost"], &entries));
        assert_ne!(id, identity(2, &["module", "host"], &entries[1..]));
    }
}
