//! A write that runs out of room names the baseline file, keeps the old one and leaves no temporary file.
//!
//! Out of room for real, without root: the test binary is its own child (as in killed_writer.rs), run with a
//! file size limit (RLIMIT_FSIZE) below the new file's size, so write(2) fails part-way through the
//! temporary file exactly as on a full disk (EFBIG rather than ENOSPC; the same path through rho). Pointed at
//! a small tmpfs, the child meets ENOSPC itself (`RHO_BASELINE_TEST_FSIZE=0`, see the report of issue 30).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use rho_baseline::store;

const CHILD_ENV: &str = "RHO_BASELINE_TEST_FULL";
const FSIZE_ENV: &str = "RHO_BASELINE_TEST_FSIZE";

/// In a child process: limit the size of any file written to `RHO_BASELINE_TEST_FSIZE` bytes (0: no limit),
/// record a section far bigger than that, and print the error.
#[test]
fn child() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let limit: u64 = std::env::var(FSIZE_ENV).unwrap().parse().unwrap();
    if limit > 0 {
        let rlimit = libc::rlimit {
            rlim_cur: limit,
            rlim_max: limit,
        };
        // SAFETY: plain system calls on values owned here. SIGXFSZ ignored: the write then fails with EFBIG
        // instead of killing the process.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &rlimit), 0);
        }
    }
    match store::write_target(
        Path::new(&path),
        common::section("host", 5_000, 1000).into(),
    ) {
        Ok(_) => println!("WRITE OK"),
        Err(error) => println!("WRITE ERROR: {error}"),
    }
}

fn run_child(path: &Path, limit: u64) -> String {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, path)
        .env(FSIZE_ENV, limit.to_string())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_write_out_of_room_names_the_baseline_and_keeps_the_old_one() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join("baseline.json");
    store::write_target(&path, common::section("mps2-an386", 2, 7).into()).unwrap();
    let before = std::fs::read(&path).unwrap();
    assert!(before.len() < 8 * 1024, "the old file fits under the limit");

    let stdout = run_child(&path, 64 * 1024);
    let error = stdout
        .lines()
        // The harness prints "test child ... " before the body's line, on the same line.
        .find_map(|line| line.split_once("WRITE ERROR: ").map(|(_, error)| error))
        .unwrap_or_else(|| panic!("the write did not fail: {stdout}"));
    assert!(
        error.starts_with(&format!("{}: ", path.display())),
        "the message starts with the baseline's path: {error}"
    );
    assert!(error.contains("the old file is kept"), "{error}");
    assert!(
        error.contains("File too large"),
        "the system's reason: {error}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the old file, byte for byte"
    );
    assert_eq!(
        entries(dir.path()),
        ["baseline.json"],
        "no temporary or lock file left"
    );
}
