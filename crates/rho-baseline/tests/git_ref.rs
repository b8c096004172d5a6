//! Reading a baseline at a git ref, in a real temporary repository: the committed version is read, the
//! working tree is not touched, and each way it can fail names the ref and the path.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use rho_baseline::{Error, SCHEMA, read_at_ref, store};

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=rho test",
            "-c",
            "user.email=test@rho.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    fs::write(dir.path().join("README"), "a project\n").unwrap();
    git(dir.path(), &["add", "README"]);
    git(dir.path(), &["commit", "-q", "-m", "start"]);
    dir
}

fn commit_file(dir: &Path, relative: &str, text: &str, message: &str) {
    let path = dir.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    git(dir, &["add", relative]);
    git(dir, &["commit", "-q", "-m", message]);
}

#[test]
fn the_committed_version_is_read_and_the_working_tree_left_alone() {
    let repo = repo();
    let path = repo.path().join("bench/baseline.json");
    store::write_target(&path, common::section("host", 3, 1000).into()).unwrap();
    git(repo.path(), &["add", "bench/baseline.json"]);
    git(repo.path(), &["commit", "-q", "-m", "baseline"]);

    // Record a newer baseline without committing it.
    store::write_target(&path, common::section("host", 3, 2000).into()).unwrap();
    let working = fs::read(&path).unwrap();

    let (file, source) =
        read_at_ref(repo.path(), "HEAD", Path::new("bench/baseline.json")).unwrap();
    assert_eq!(
        file.targets["host"],
        common::section("host", 3, 1000).into()
    );
    assert_eq!(source.path, "bench/baseline.json");
    assert_eq!(source.commit.len(), 40);
    assert_eq!(
        fs::read(&path).unwrap(),
        working,
        "the working tree's file is untouched"
    );

    // The same through an absolute path and from a subdirectory of the repository.
    let (again, _) = read_at_ref(&repo.path().join("bench"), "main", &path).unwrap();
    assert_eq!(again, file);
    let (again, source) = read_at_ref(
        &repo.path().join("bench"),
        "HEAD",
        Path::new("baseline.json"),
    )
    .unwrap();
    assert_eq!((again, source.path.as_str()), (file, "bench/baseline.json"));
}

#[test]
fn a_ref_that_does_not_exist_is_named() {
    let repo = repo();
    for bad in ["origin/nope", "-v", ""] {
        let err = read_at_ref(repo.path(), bad, Path::new("bench/baseline.json")).unwrap_err();
        assert!(matches!(err, Error::RefNotFound { .. }), "{bad}: {err}");
        assert!(
            err.to_string()
                .contains(&format!("git ref \"{bad}\" does not exist")),
            "{err}"
        );
    }
}

#[test]
fn a_baseline_missing_at_the_ref_is_named_with_ref_and_path() {
    let repo = repo();
    let err = read_at_ref(repo.path(), "HEAD", Path::new("bench/baseline.json")).unwrap_err();
    assert!(matches!(err, Error::MissingAtRef { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("bench/baseline.json does not exist at git ref \"HEAD\""),
        "{message}"
    );

    // A directory at that path is not a baseline either.
    commit_file(repo.path(), "bench/baseline.json/x", "x", "a directory");
    let err = read_at_ref(repo.path(), "HEAD", Path::new("bench/baseline.json")).unwrap_err();
    assert!(matches!(err, Error::MissingAtRef { .. }), "{err}");
}

#[test]
fn another_schema_at_the_ref_is_refused_naming_where() {
    let repo = repo();
    let text = common::file(vec![common::section("host", 2, 100)])
        .to_json()
        .unwrap()
        .replace(SCHEMA, "rho-baseline/9");
    commit_file(repo.path(), "bench/baseline.json", &text, "future baseline");
    let err = read_at_ref(repo.path(), "HEAD", Path::new("bench/baseline.json")).unwrap_err();
    assert!(matches!(err, Error::Schema { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.starts_with("bench/baseline.json at HEAD ("),
        "{message}"
    );
    assert!(message.contains("\"rho-baseline/9\""), "{message}");
}

#[test]
fn corrupt_json_at_the_ref_names_ref_path_line_and_column() {
    let repo = repo();
    let text = common::file(vec![common::section("host", 2, 100)])
        .to_json()
        .unwrap();
    // A merge conflict left in the committed file.
    let broken = text.replacen("    \"host\": {", "<<<<<<< HEAD\n    \"host\": {", 1);
    commit_file(repo.path(), "bench/baseline.json", &broken, "conflict");
    let err = read_at_ref(repo.path(), "HEAD", Path::new("bench/baseline.json")).unwrap_err();
    let Error::Json {
        line,
        column,
        source_name,
        ..
    } = &err
    else {
        panic!("{err}")
    };
    let expected_line = broken
        .lines()
        .position(|l| l.starts_with("<<<<<<<"))
        .unwrap()
        + 1;
    assert_eq!((*line, *column), (expected_line, 1));
    assert!(
        source_name.starts_with("bench/baseline.json at HEAD ("),
        "{source_name}"
    );
}

#[test]
fn outside_a_repository_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let err = read_at_ref(dir.path(), "HEAD", Path::new("bench/baseline.json")).unwrap_err();
    assert!(matches!(err, Error::NotARepository { .. }), "{err}");
}
