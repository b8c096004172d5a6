//! The build cache (.git/rho-cache): the second gate against the same revisions builds nothing and gives the
//! same verdict; a damaged entry is rebuilt, never used; `--no-cache` builds. A directory side in a git
//! repository is cached by its content, only when its build writes nowhere but RHO_BENCH_OUT.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rho_gate::{GateOutcome, GateSettings, Verdict};

mod common;
use common::{gate_logged, git, request};

/// A module whose build logs a line to `log`, writes its "benchmark" into RHO_BENCH_OUT and a file it reads
/// into the checkout (ignored by git, as a build directory is); the run prints `figure` through both.
fn write_module(dir: &Path, log: &Path, figure: u32) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("figure.txt"), format!("{figure}\n")).unwrap();
    std::fs::write(dir.join(".gitignore"), "made/\n").unwrap();
    std::fs::write(
        dir.join("bench.sh"),
        "echo \"{\\\"t_ns\\\": $(cat made/figure)}\"\n",
    )
    .unwrap();
    let build = format!(
        "echo built >> {}; mkdir -p made; cp figure.txt made/figure; cp bench.sh \"$RHO_BENCH_OUT/bench\"; \
         chmod +x \"$RHO_BENCH_OUT/bench\"",
        log.display()
    );
    let yml = format!(
        "bench:\n  targets:\n    - name: cached\n      build: '{}'\n      run: '\"$RHO_BENCH_OUT/bench\"'\n",
        build.replace('\'', "''")
    );
    std::fs::write(dir.join("module.yml"), yml).unwrap();
}

fn gate(cwd: &Path, cache: bool) -> (GateOutcome, Vec<String>) {
    let mut settings = GateSettings::default();
    settings.set_runs(2).unwrap();
    settings.set_timeout(Duration::from_secs(60)).unwrap();
    settings.set_cache(cache);
    let (outcome, log) = gate_logged(&request(cwd, "HEAD~1", "HEAD", settings));
    (outcome.unwrap(), log)
}

fn builds(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |t| t.lines().count())
}

/// The side entries of the build cache of `repo`: what is there beside ccache's directory, the headers and the
/// remembered file ids.
fn side_entries(repo: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(repo.join(".git/rho-cache"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap();
            name != rho_gate::cache::CCACHE_DIR
                && name != rho_gate::cache::INCLUDE_DIR
                && name != rho_gate::cache::FILE_IDS
        })
        .collect()
}

#[test]
fn a_cached_side_is_not_built_again_and_a_damaged_entry_is_rebuilt() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let log = tmp.path().join("builds.log");
    write_module(&repo, &log, 100);
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "base"]);
    write_module(&repo, &log, 1000);
    git(&repo, &["commit", "--quiet", "-am", "ten times slower"]);

    let (first, first_log) = gate(&repo, true);
    assert_eq!(first.comparison.verdict, Verdict::Regressed);
    assert_eq!(builds(&log), 2, "both sides built");
    let entries = || side_entries(&repo).len();
    assert_eq!(entries(), 2, "one entry per side: {:?}", first_log);

    let (second, progress) = gate(&repo, true);
    assert_eq!(builds(&log), 2, "neither side built again");
    assert_eq!(second.comparison.verdict, Verdict::Regressed);
    assert_eq!(second.comparison.metrics[0].head.unwrap().min, 1000.0);
    assert_eq!(
        progress
            .iter()
            .filter(|p| p.contains("built from the cache"))
            .count(),
        2
    );

    // Damage the figure base's build wrote into its checkout, in base's entry: found, removed, rebuilt.
    let mut damaged = 0;
    for entry in side_entries(&repo) {
        let figure = entry.join("files/tree/made/figure");
        if std::fs::read_to_string(&figure).unwrap().trim() == "100" {
            std::fs::write(&figure, "1\n").unwrap();
            damaged += 1;
        }
    }
    assert_eq!(damaged, 1);
    let (third, progress) = gate(&repo, true);
    assert_eq!(builds(&log), 3, "the damaged side was built again");
    assert_eq!(third.comparison.verdict, Verdict::Regressed);
    assert_eq!(
        third.comparison.metrics[0].base.unwrap().min,
        100.0,
        "never the damaged figure"
    );
    assert!(
        progress
            .iter()
            .any(|p| p.contains("does not match its checksum")),
        "{progress:?}"
    );

    // Without the cache both sides build.
    let (fourth, _) = gate(&repo, false);
    assert_eq!(builds(&log), 5);
    assert_eq!(fourth.comparison.verdict, Verdict::Regressed);
}

/// A module whose build logs a line to `log` and writes its "benchmark", printing `figure`, into RHO_BENCH_OUT
/// alone.
fn write_clean_module(dir: &Path, log: &Path, figure: u32) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("figure.txt"), format!("{figure}\n")).unwrap();
    std::fs::write(
        dir.join("bench.sh"),
        "echo \"{\\\"t_ns\\\": $(cat \"$(dirname \"$0\")/figure\")}\"\n",
    )
    .unwrap();
    let build = format!(
        "echo built >> {}; cp figure.txt \"$RHO_BENCH_OUT/figure\"; cp bench.sh \"$RHO_BENCH_OUT/bench\"; \
         chmod +x \"$RHO_BENCH_OUT/bench\"",
        log.display()
    );
    let yml = format!(
        "bench:\n  targets:\n    - name: cached\n      build: '{}'\n      run: '\"$RHO_BENCH_OUT/bench\"'\n",
        build.replace('\'', "''")
    );
    std::fs::write(dir.join("module.yml"), yml).unwrap();
}

fn gate_dir(cwd: &Path) -> (GateOutcome, Vec<String>) {
    let mut settings = GateSettings::default();
    settings.set_runs(2).unwrap();
    settings.set_timeout(Duration::from_secs(60)).unwrap();
    let (outcome, log) = gate_logged(&request(cwd, "HEAD", ".", settings));
    (outcome.unwrap(), log)
}

/// The working directory as head: the second gate with the same uncommitted change builds nothing; a new
/// change (even one of the same size) is built; the user's index is untouched.
#[test]
fn a_directory_head_is_cached_by_its_content() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let log = tmp.path().join("builds.log");
    write_clean_module(&repo, &log, 100);
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "base"]);
    write_clean_module(&repo, &log, 1000);

    let (first, _) = gate_dir(&repo);
    assert_eq!(first.comparison.verdict, Verdict::Regressed);
    assert_eq!(builds(&log), 2, "both sides built");
    let (second, progress) = gate_dir(&repo);
    assert_eq!(builds(&log), 2, "neither side built again");
    assert_eq!(second.comparison.metrics[0].head.unwrap().min, 1000.0);
    let cached = |progress: &[String], side: &str| {
        progress
            .iter()
            .any(|p| p.starts_with(side) && p.contains("built from the cache"))
    };
    assert!(cached(&progress, "head"), "{progress:?}");

    // Another change of the same size: head is built, base still comes from the cache.
    write_clean_module(&repo, &log, 1001);
    let (third, progress) = gate_dir(&repo);
    assert_eq!(builds(&log), 3, "only head built");
    assert_eq!(third.comparison.metrics[0].head.unwrap().min, 1001.0);
    assert!(cached(&progress, "base") && !cached(&progress, "head"));
    assert_eq!(git(&repo, &["diff", "--cached", "--name-only"]), "");
}

/// A build that writes into the directory (`made/`, ignored by git) is never cached as a directory: a later
/// gate would skip the build whose products its run reads there.
#[test]
fn a_directory_whose_build_writes_into_it_is_not_cached() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let log = tmp.path().join("builds.log");
    write_module(&repo, &log, 100);
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "base"]);
    write_module(&repo, &log, 1000);
    let (_, progress) = gate_dir(&repo);
    assert!(
        progress
            .iter()
            .any(|p| p.starts_with("head: not cached: the build changed files")),
        "{progress:?}"
    );
    let (second, _) = gate_dir(&repo);
    assert_eq!(builds(&log), 3, "head built again, base from the cache");
    assert_eq!(second.comparison.verdict, Verdict::Regressed);
}
