//! The history branch through git's plumbing: records written and read back, the user's work tree and
//! branch untouched, a branch that is not a history refused, corrupt records listed with their paths, and
//! concurrent writers and syncs losing nothing.

mod common;

use common::{git, record, repo};
use rho_history::{Error, Measure, Store};

#[test]
fn records_added_read_back_without_touching_the_work_tree() {
    let dir = tempfile::tempdir().unwrap();
    let commits = repo(dir.path(), 2);
    std::fs::write(dir.path().join("uncommitted.txt"), "mine").unwrap();
    let status_before = git(dir.path(), &["status", "--porcelain"]);
    let store = Store::open(dir.path(), "rho-history").unwrap();
    let first = record(
        &commits[0],
        "ci-1",
        Measure::Instructions,
        &[("bench_a", 1000.0)],
    );
    let second = record(&commits[1], "ci-1", Measure::Time, &[("bench_a", 12.5)]);
    let (_, paths) = store.add(std::slice::from_ref(&first)).unwrap();
    assert!(paths[0].starts_with(&format!("records/{}/ci_1-host-instructions-", commits[0])));
    // A rerun of the same commit and machine is a second record, both kept.
    store.add(&[second.clone(), first.clone()]).unwrap();
    let listing = store.read().unwrap();
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    assert_eq!(listing.records.len(), 3);
    assert_eq!(
        listing.records.iter().filter(|(_, r)| *r == first).count(),
        2
    );
    assert!(listing.records.iter().any(|(_, r)| *r == second));
    // HEAD, the index and the work tree are as they were; the branch has two commits.
    assert_eq!(git(dir.path(), &["rev-parse", "HEAD"]), commits[1]);
    assert_eq!(git(dir.path(), &["status", "--porcelain"]), status_before);
    assert_eq!(
        git(dir.path(), &["rev-list", "--count", "rho-history"]),
        "2"
    );
}

#[test]
fn a_branch_of_that_name_that_is_not_a_history_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let commits = repo(dir.path(), 1);
    git(dir.path(), &["branch", "rho-history"]);
    let store = Store::open(dir.path(), "rho-history").unwrap();
    let error = store
        .add(&[record(
            &commits[0],
            "m",
            Measure::Instructions,
            &[("b", 1.0)],
        )])
        .unwrap_err();
    assert!(matches!(error, Error::NotHistory { .. }), "{error}");
    assert!(
        error.to_string().contains("is not a rho history branch"),
        "{error}"
    );
    assert!(store.read().is_err());
    assert_eq!(git(dir.path(), &["rev-parse", "rho-history"]), commits[0]);
    // A name git refuses is refused before anything runs.
    assert!(Store::open(dir.path(), "bad..name").is_err());
    assert!(Store::open(dir.path(), "-x").is_err());
}

#[test]
fn corrupt_and_foreign_records_are_listed_with_their_paths_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let commits = repo(dir.path(), 1);
    let store = Store::open(dir.path(), "rho-history").unwrap();
    let good = record(&commits[0], "m", Measure::Instructions, &[("b", 10.0)]);
    store.add(std::slice::from_ref(&good)).unwrap();
    let mut impossible = good.to_json().unwrap();
    impossible = impossible.replace("\"instructions\": 10", "\"instructions\": -4");
    let foreign = good
        .to_json()
        .unwrap()
        .replace(rho_history::RECORD_SCHEMA, "someone-else/7");
    let files = [
        (
            format!("records/{}/cut.json", commits[0]),
            "{\"schema\": \"rho-bench-hist".to_string(),
        ),
        (format!("records/{}/foreign.json", commits[0]), foreign),
        (
            format!("records/{}/impossible.json", commits[0]),
            impossible,
        ),
        ("notes.txt".to_string(), "hello".to_string()),
    ];
    store.append(&files, "planted").unwrap();
    let listing = store.read().unwrap();
    assert_eq!(listing.records.len(), 1);
    assert_eq!(listing.records[0].1, good);
    let problems: Vec<String> = listing
        .problems
        .iter()
        .map(|p| format!("{}: {}", p.path, p.message))
        .collect();
    assert_eq!(problems.len(), 4, "{problems:#?}");
    let find = |name: &str| problems.iter().find(|p| p.contains(name)).unwrap().clone();
    assert!(find("cut.json").contains("not JSON"), "{problems:#?}");
    assert!(
        find("foreign.json").contains("someone-else/7"),
        "{problems:#?}"
    );
    assert!(find("impossible.json").contains("-4"), "{problems:#?}");
    assert!(
        find("notes.txt").contains("not a record file"),
        "{problems:#?}"
    );
}

#[test]
fn eight_writers_at_once_lose_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let commits = repo(dir.path(), 1);
    std::thread::scope(|scope| {
        for writer in 0..8 {
            let (dir, commit) = (dir.path(), &commits[0]);
            scope.spawn(move || {
                let store = Store::open(dir, "rho-history").unwrap();
                for n in 0..5 {
                    let machine = format!("w{writer}");
                    store
                        .add(&[record(
                            commit,
                            &machine,
                            Measure::Instructions,
                            &[("b", n as f64)],
                        )])
                        .unwrap();
                }
            });
        }
    });
    let listing = Store::open(dir.path(), "rho-history")
        .unwrap()
        .read()
        .unwrap();
    assert!(listing.problems.is_empty());
    assert_eq!(listing.records.len(), 40);
}

#[test]
fn ten_concurrent_syncs_to_one_bare_repository_keep_all_fifty_records() {
    let root = tempfile::tempdir().unwrap();
    let bare = root.path().join("origin.git");
    git(
        root.path(),
        &["init", "--quiet", "--bare", bare.to_str().unwrap()],
    );
    let clones: Vec<_> = (0..10)
        .map(|n| {
            let dir = root.path().join(format!("runner{n}"));
            std::fs::create_dir(&dir).unwrap();
            let commits = repo(&dir, 1);
            git(&dir, &["remote", "add", "origin", bare.to_str().unwrap()]);
            let store = Store::open(&dir, "rho-history").unwrap();
            for k in 0..5 {
                store
                    .add(&[record(
                        &commits[0],
                        &format!("runner{n}"),
                        Measure::Time,
                        &[("b", 100.0 + k as f64)],
                    )])
                    .unwrap();
            }
            dir
        })
        .collect();
    let attempts: Vec<u32> = std::thread::scope(|scope| {
        let handles: Vec<_> = clones
            .iter()
            .map(|dir| {
                scope.spawn(move || {
                    Store::open(dir, "rho-history")
                        .unwrap()
                        .sync("origin")
                        .unwrap()
                        .attempts
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    println!("attempts per sync: {attempts:?}");
    let reader = root.path().join("reader");
    std::fs::create_dir(&reader).unwrap();
    repo(&reader, 1);
    git(
        &reader,
        &["remote", "add", "origin", bare.to_str().unwrap()],
    );
    let store = Store::open(&reader, "rho-history").unwrap();
    store.sync("origin").unwrap();
    let listing = store.read().unwrap();
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    assert_eq!(listing.records.len(), 50);
    for n in 0..10 {
        let machine = format!("runner{n}");
        assert_eq!(
            listing
                .records
                .iter()
                .filter(|(_, r)| r.machine == machine)
                .count(),
            5
        );
    }
}

#[test]
fn a_remote_branch_that_is_not_a_history_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let bare = root.path().join("origin.git");
    git(
        root.path(),
        &["init", "--quiet", "--bare", bare.to_str().unwrap()],
    );
    let dir = root.path().join("work");
    std::fs::create_dir(&dir).unwrap();
    let commits = repo(&dir, 1);
    git(&dir, &["remote", "add", "origin", bare.to_str().unwrap()]);
    git(
        &dir,
        &["push", "--quiet", "origin", "main:refs/heads/rho-history"],
    );
    let store = Store::open(&dir, "rho-history").unwrap();
    store
        .add(&[record(&commits[0], "m", Measure::Time, &[("b", 1.0)])])
        .unwrap();
    let error = store.sync("origin").unwrap_err();
    assert!(matches!(error, Error::NotHistory { .. }), "{error}");
    assert_eq!(git(&bare, &["rev-parse", "rho-history"]), commits[0]);
}

/// A git killed outright in the middle of `update-ref` (SIGKILL, a CI job's timeout) leaves the branch's
/// `.lock` file: an old one is taken as left behind and removed, so the next add still lands; a fresh one is
/// another writer's and is waited for.
#[test]
fn a_ref_lock_left_by_a_killed_git_does_not_block_the_branch_for_ever() {
    let dir = tempfile::tempdir().unwrap();
    let commits = repo(dir.path(), 1);
    let store = Store::open(dir.path(), "rho-history").unwrap();
    let first = record(&commits[0], "m", Measure::Instructions, &[("b", 10.0)]);
    store.add(std::slice::from_ref(&first)).unwrap();
    let lock = dir.path().join(".git/refs/heads/rho-history.lock");
    std::fs::write(&lock, b"").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let second = record(&commits[0], "n", Measure::Instructions, &[("b", 11.0)]);
    store.add(std::slice::from_ref(&second)).unwrap();
    assert!(!lock.exists());
    assert_eq!(store.read().unwrap().records.len(), 2);
}
