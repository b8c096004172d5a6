//! How fast `rho bench history` reads and analyses a history, and how large the branch grows.
//!
//! `cargo bench -p rho-history --bench read_and_analyse`. Each case builds a repository in a temporary
//! directory (commits, then records added with the crate's own writer), then times, best of 5: reading the
//! branch (ls-tree, one cat-file --batch, every record parsed and checked), the first-parent line, and the
//! analysis (every series and its change points). The target is under 2 s for 10,000 benchmark figures of a
//! 200-benchmark suite at 50 commits. The size case adds 1,000 runs of a 50-benchmark suite one `add` each (as
//! CI does) and reports the repository's size loose and packed.

use std::path::Path;
use std::time::{Duration, Instant};

use rho_history::Store;
use rho_history::analysis::{Detection, Filter, analyse};
use rho_history::check::judge_newest;

#[path = "../tests/common/mod.rs"]
mod common;

/// SplitMix64 for the figures' noise.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn names(benchmarks: usize) -> Vec<String> {
    (0..benchmarks).map(|b| format!("bench_{b:03}")).collect()
}

/// `commits` commits, each with `machines` records of a `benchmarks`-benchmark time suite (figures ±2%).
fn build(
    dir: &Path,
    commits: usize,
    machines: usize,
    benchmarks: usize,
    per_add: usize,
) -> Duration {
    let ids = common::repo(dir, commits);
    let store = Store::open(dir, "rho-history").unwrap();
    let names = names(benchmarks);
    let mut noise = Seeded(42);
    let mut pending = Vec::new();
    let start = Instant::now();
    for id in &ids {
        for m in 0..machines {
            let figures: Vec<(&str, f64)> = names
                .iter()
                .enumerate()
                .map(|(b, n)| {
                    (
                        n.as_str(),
                        ((100 + b) as f64 * (0.98 + 0.04 * noise.next())).round(),
                    )
                })
                .collect();
            pending.push(common::record(
                id,
                &format!("m{m}"),
                rho_history::Measure::Time,
                &figures,
            ));
            if pending.len() == per_add {
                store.add(&pending).unwrap();
                pending.clear();
            }
        }
    }
    if !pending.is_empty() {
        store.add(&pending).unwrap();
    }
    start.elapsed()
}

fn time_reading(dir: &Path, label: &str) {
    let store = Store::open(dir, "rho-history").unwrap();
    let (mut read, mut line, mut analysis) = (Duration::MAX, Duration::MAX, Duration::MAX);
    let mut judge = Duration::MAX;
    let (mut records, mut series, mut changes) = (0, 0, 0);
    for _ in 0..5 {
        let t = Instant::now();
        let listing = store.read().unwrap();
        read = read.min(t.elapsed());
        let t = Instant::now();
        let commits = store.first_parent_line("HEAD", None).unwrap();
        line = line.min(t.elapsed());
        let t = Instant::now();
        let result = analyse(
            listing.records.iter().map(|(_, r)| r),
            &commits,
            &Filter::default(),
            Detection::default(),
        );
        analysis = analysis.min(t.elapsed());
        // `history check`, and the page's verdict: each series' newest figure against a 10% limit.
        let t = Instant::now();
        let judgement = judge_newest(&result, &commits, &listing, Detection::default(), |_, _| {
            10.0
        });
        judge = judge.min(t.elapsed());
        std::hint::black_box(judgement.failures.len() + judgement.warnings.len());
        records = listing.records.len();
        series = result.series.len();
        changes = result.series.iter().map(|s| s.changes.len()).sum();
    }
    println!(
        "{label}: {records} records, {series} series, {changes} change points: read {:.3} s, first-parent line {:.3} s, \
         analysis {:.3} s, total {:.3} s; judging the newest commit (history check, the page's verdict) {:.3} s \
         (best of 5)",
        read.as_secs_f64(),
        line.as_secs_f64(),
        analysis.as_secs_f64(),
        (read + line + analysis).as_secs_f64(),
        judge.as_secs_f64()
    );
}

fn git_size(dir: &Path) -> String {
    common::git(dir, &["count-objects", "-v"])
        .lines()
        .filter(|l| l.starts_with("size") || l.starts_with("count"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn main() {
    let only: Option<String> = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let wanted = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    if wanted("suite200x50") {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), 50, 1, 200, 1);
        time_reading(
            dir.path(),
            "200 benchmarks x 50 commits (10,000 figures, 50 records)",
        );
    }
    if wanted("records10000") {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), 200, 50, 20, 50);
        time_reading(
            dir.path(),
            "10,000 records (200 commits x 50 machines, 20 benchmarks each)",
        );
    }
    if wanted("size1000") {
        let dir = tempfile::tempdir().unwrap();
        let took = build(dir.path(), 1000, 1, 50, 1);
        println!(
            "1,000 runs of a 50-benchmark suite at 1,000 commits, one add each: {:.1} s to add ({:.1} ms per add); \
             loose: {}",
            took.as_secs_f64(),
            took.as_secs_f64(),
            git_size(dir.path())
        );
        common::git(dir.path(), &["gc", "--quiet", "--aggressive"]);
        println!("  after git gc: {}", git_size(dir.path()));
        time_reading(dir.path(), "  reading them");
    }
}
