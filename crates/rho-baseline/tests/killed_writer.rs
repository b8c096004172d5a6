//! A writer process killed at any point leaves the old baseline intact: the path holds the old file or the
//! whole new one, never a part.
//!
//! The test binary is its own child: run with `RHO_BASELINE_TEST_CHILD` set, the `child` test below becomes a
//! writer (see there) instead of returning at once.

mod common;

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use rho_baseline::{BaselineFile, read_file, store};

const CHILD_ENV: &str = "RHO_BASELINE_TEST_CHILD";

/// Two different files, each big enough that writing one takes a while (a few MB): a kill mostly lands
/// mid-write.
fn variant(which: u64) -> BaselineFile {
    common::file(vec![
        common::section("host", 5_000, 1000 + which),
        common::section("mps2-an386", 10, 7),
    ])
}

/// A child process killed when dropped, so a failing assertion never leaves a writer running.
struct Writer(std::process::Child);

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_child(mode: &str, path: &Path) -> Writer {
    Writer(
        Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, mode)
            .env("RHO_BASELINE_TEST_PATH", path)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    )
}

/// Reads the child's stdout up to `marker` (the test harness prints its own lines first) and hands the
/// reader back, so the pipe stays open while the child runs.
fn wait_for(child: &mut Writer, marker: &str) -> BufReader<std::process::ChildStdout> {
    let mut reader = BufReader::new(child.0.stdout.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the child ended before printing {marker:?}"
        );
        // The harness prints "test child ... " without a newline before the test body runs.
        if line.trim_end().ends_with(marker) {
            return reader;
        }
    }
}

fn temp_files(dir: &Path) -> usize {
    fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name() != "baseline.json")
        .count()
}

/// In a child process: `stall` writes half the new file and stops there (after saying so on stdout) until
/// killed; `loop` writes the two variants over each other until killed.
#[test]
fn child() {
    let Ok(mode) = std::env::var(CHILD_ENV) else {
        return;
    };
    let path = std::path::PathBuf::from(std::env::var("RHO_BASELINE_TEST_PATH").unwrap());
    match mode.as_str() {
        "stall" => {
            let text = variant(1).to_json().unwrap();
            let _ = store::write_atomic(&path, "the baseline", |out| {
                out.write_all(&text.as_bytes()[..text.len() / 2]).unwrap();
                out.flush().unwrap();
                println!("half written");
                std::io::stdout().flush().unwrap();
                loop {
                    std::thread::sleep(Duration::from_secs(1));
                }
            });
        }
        "loop" => {
            let variants = [variant(1), variant(2)];
            println!("writing");
            std::io::stdout().flush().unwrap();
            for i in 0.. {
                store::write_file(&path, &variants[i % 2]).unwrap();
            }
        }
        other => panic!("unknown child mode {other}"),
    }
}

#[test]
fn a_writer_killed_half_way_leaves_the_old_file() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("baseline.json");
    store::write_file(&path, &variant(0)).unwrap();
    let before = fs::read(&path).unwrap();

    let mut child = spawn_child("stall", &path);
    let _stdout = wait_for(&mut child, "half written");
    assert_eq!(
        temp_files(dir.path()),
        1,
        "the half-written file exists beside the baseline"
    );
    // A write meanwhile leaves the live writer's file alone, however old it looks.
    age_temp_files(dir.path());
    store::write_file(&path, &variant(0)).unwrap();
    assert_eq!(
        temp_files(dir.path()),
        1,
        "a live writer's file was removed"
    );
    child.0.kill().unwrap();
    child.0.wait().unwrap();

    assert_eq!(
        fs::read(&path).unwrap(),
        before,
        "the baseline is byte for byte the old one"
    );
    assert_eq!(read_file(&path).unwrap(), variant(0));
    // The killed writer's file stays until the next write, which removes it.
    assert_eq!(temp_files(dir.path()), 1);
    age_temp_files(dir.path());
    store::write_file(&path, &variant(2)).unwrap();
    assert_eq!(
        temp_files(dir.path()),
        0,
        "the killed writer's file is still there"
    );
}

/// Make the temporary files in `dir` look a minute old (a writer's file younger than 2 s is never removed).
fn age_temp_files(dir: &Path) {
    let past = std::time::SystemTime::now() - Duration::from_secs(60);
    for entry in fs::read_dir(dir).unwrap().flatten() {
        if entry.file_name() != "baseline.json" {
            let file = fs::File::options().write(true).open(entry.path()).unwrap();
            file.set_modified(past).unwrap();
        }
    }
}

#[test]
fn a_writer_killed_at_any_moment_leaves_a_whole_file() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("baseline.json");
    store::write_file(&path, &variant(0)).unwrap();
    let whole: Vec<BaselineFile> = (0..3).map(variant).collect();

    for attempt in 0..8u64 {
        let mut child = spawn_child("loop", &path);
        let _stdout = wait_for(&mut child, "writing");
        // Kill at a different moment each time.
        std::thread::sleep(Duration::from_millis(37 * attempt + 5));
        child.0.kill().unwrap();
        child.0.wait().unwrap();

        let file = read_file(&path).unwrap_or_else(|e| panic!("attempt {attempt}: {e}"));
        assert!(
            whole.contains(&file),
            "attempt {attempt}: the file is one of the whole versions"
        );
    }
}
