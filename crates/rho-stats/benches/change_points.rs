//! Change points of long noisy series, the windowed detection (`rho_stats::change_points`) beside the path
//! it replaced (E-Divisive over whole segments, every split re-scanning its segment: O(n²) a split), on the
//! same series in one run.
//!
//! `cargo bench -p rho-stats --bench change_points`. The targets: one 50,000-figure series in at most 2 s,
//! 200 series of 2,000 figures (200 benchmarks x 2,000 commits) in at most 5 s, on one core. A third case,
//! 3,000 series of 200 figures, is the size of rho-history's read_and_analyse 10,000-record case: short series,
//! where the windows cost more than they save.

use std::hint::black_box;
use std::time::{Duration, Instant};

use rho_stats::{ChangeSettings, change_points, welch_pvalue};

#[path = "../tests/series/mod.rs"]
mod series;

/// The previous detection, kept here only to be timed against: E-Divisive over the whole segment (both
/// parts at least 3 figures), Welch's t over 30 figures a side at p 0.001, then the weakest dropped.
mod previous {
    use super::welch_pvalue;

    const WINDOW: usize = 30;
    const MAX_PVALUE: f64 = 0.001;
    const MIN_SEGMENT: usize = 3;

    pub fn change_points(series: &[f64]) -> Vec<usize> {
        let mut found = Vec::new();
        let mut pending = vec![(0, series.len())];
        while let Some((start, end)) = pending.pop() {
            let segment = &series[start..end];
            let Some(split) = best_split(segment) else {
                continue;
            };
            if windowed(&segment[..split], &segment[split..]) <= MAX_PVALUE {
                found.push(start + split);
                pending.push((start, start + split));
                pending.push((start + split, end));
            }
        }
        found.sort_unstable();
        loop {
            let mut bounds = vec![0];
            bounds.extend_from_slice(&found);
            bounds.push(series.len());
            let weakest = (1..bounds.len() - 1)
                .map(|k| {
                    let p = windowed(
                        &series[bounds[k - 1]..bounds[k]],
                        &series[bounds[k]..bounds[k + 1]],
                    );
                    (k - 1, p)
                })
                .filter(|(_, p)| *p > MAX_PVALUE)
                .max_by(|a, b| a.1.total_cmp(&b.1));
            match weakest {
                Some((position, _)) => {
                    found.remove(position);
                }
                None => return found,
            }
        }
    }

    pub fn change_points_count(series: &[f64]) -> usize {
        change_points(series).len()
    }

    fn windowed(left: &[f64], right: &[f64]) -> f64 {
        let left = &left[left.len().saturating_sub(WINDOW)..];
        let right = &right[..right.len().min(WINDOW)];
        welch_pvalue(left, right)
    }

    fn best_split(segment: &[f64]) -> Option<usize> {
        let n = segment.len();
        if n < 2 * MIN_SEGMENT {
            return None;
        }
        let distance_to = |p: usize, range: std::ops::Range<usize>| -> f64 {
            segment[range].iter().map(|x| (x - segment[p]).abs()).sum()
        };
        let mut between = 0.0;
        let mut within_left = 0.0;
        let mut within_right: f64 = (0..n).map(|p| distance_to(p, p + 1..n)).sum();
        let mut best: Option<(usize, f64)> = None;
        for tau in 1..=n - MIN_SEGMENT {
            let p = tau - 1;
            let to_left = distance_to(p, 0..p);
            let to_right = distance_to(p, tau..n);
            between += to_right - to_left;
            within_left += to_left;
            within_right -= to_right;
            let (m, k) = (tau as f64, (n - tau) as f64);
            if tau < MIN_SEGMENT {
                continue;
            }
            let energy = 2.0 * between / (m * k)
                - within_left / (m * (m - 1.0) / 2.0)
                - within_right / (k * (k - 1.0) / 2.0);
            let q = m * k / (m + k) * energy;
            if best.is_none_or(|(_, top)| q > top) {
                best = Some((tau, q));
            }
        }
        best.map(|(tau, _)| tau)
    }
}

/// The best of `rounds` timings of `work` over `all`, and what the last round found.
fn best_of(rounds: usize, all: &[Vec<f64>], work: impl Fn(&[f64]) -> usize) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut found = 0;
    for _ in 0..rounds {
        let began = Instant::now();
        found = all.iter().map(|s| work(black_box(s))).sum();
        best = best.min(began.elapsed());
    }
    (best, found)
}

fn windowed(series: &[f64]) -> usize {
    change_points(series, &ChangeSettings::new(false)).len()
}

fn main() {
    let (long, planted) = series::long_stepped(50_000, 99);
    let long = vec![long];
    let many: Vec<Vec<f64>> = (0..200)
        .map(|seed| series::long_stepped(2_000, 1_000 + seed).0)
        .collect();
    // The size of the history benchmark's 10,000 records (rho-history read_and_analyse): 3,000 short series.
    let short: Vec<Vec<f64>> = (0..3_000)
        .map(|seed| series::long_stepped(200, 10_000 + seed).0)
        .collect();
    println!("change points, best of rounds, one core (previous path: one round)");
    for (name, all, limit) in [
        ("one series of 50,000 figures (9 steps)", &long, 2.0),
        ("200 series of 2,000 figures (9 steps each)", &many, 5.0),
        ("3,000 series of 200 figures (9 steps each)", &short, 5.0),
    ] {
        let (now, found) = best_of(5, all, windowed);
        let (before, found_before) = best_of(1, all, previous::change_points_count);
        println!(
            "{name}: windowed {:.3} s ({found} change points, target {limit} s), previous {:.3} s ({found_before}), {:.0}x",
            now.as_secs_f64(),
            before.as_secs_f64(),
            before.as_secs_f64() / now.as_secs_f64()
        );
    }
    let found: Vec<usize> = change_points(&long[0], &ChangeSettings::new(false))
        .iter()
        .map(|c| c.index)
        .collect();
    let (recalled, false_alarms) = series::score(&planted, &found);
    println!("the 50,000: {recalled} of 9 planted steps within one commit, {false_alarms} others");
}
