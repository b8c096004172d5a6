//! Two writers of different targets into one baseline at once (two CI jobs of a matrix, or a developer and a
//! script) both keep their sections: `write_target` holds the file's lock across its read, merge and rename.
//!
//! The test binary is its own child, as in killed_writer.rs: run with `RHO_BASELINE_TEST_WRITER` set to a
//! target name, the `writer` test below waits for a line on stdin and then records that target's section.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use rho_baseline::{read_file, store};

const WRITER_ENV: &str = "RHO_BASELINE_TEST_WRITER";
const PATH_ENV: &str = "RHO_BASELINE_TEST_PATH";

/// How many pairs of writers; each pair writes into a file of its own.
const PAIRS: usize = 50;

/// Benchmarks per section: enough that reading and writing the file takes a while, so the two writers'
/// read-merge-rename overlap (without the lock, most pairs lost a section).
const BENCHMARKS: usize = 2_000;

/// A writer process, killed when dropped so a failing assertion never leaves one running.
struct Writer(Child);

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_writer(target: &str, path: &Path) -> Writer {
    Writer(
        Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "writer", "--nocapture", "--test-threads=1"])
            .env(WRITER_ENV, target)
            .env(PATH_ENV, path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    )
}

/// Reads the writer's stdout up to its "ready" (the test harness prints its own lines first) and hands the
/// reader back, so the pipe stays open while the writer runs.
fn wait_ready(writer: &mut Writer) -> BufReader<std::process::ChildStdout> {
    let mut reader = BufReader::new(writer.0.stdout.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the writer ended before it was ready"
        );
        if line.trim_end().ends_with("ready") {
            return reader;
        }
    }
}

/// In a child process: once "go" arrives on stdin, record the section of the target named by the
/// environment.
#[test]
fn writer() {
    let Ok(target) = std::env::var(WRITER_ENV) else {
        return;
    };
    let path = std::path::PathBuf::from(std::env::var(PATH_ENV).unwrap());
    let section = common::section(&target, BENCHMARKS, 1000);
    println!("ready");
    std::io::stdout().flush().unwrap();
    let mut go = String::new();
    std::io::stdin().read_line(&mut go).unwrap();
    store::write_target(&path, section.into()).unwrap();
}

#[test]
fn fifty_concurrent_pairs_of_writers_lose_no_section() {
    if std::env::var(WRITER_ENV).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut lost = Vec::new();
    for pair in 0..PAIRS {
        let path = dir.path().join(format!("pair{pair}")).join("baseline.json");
        // A section already there, as in a repository with a committed baseline.
        store::write_target(&path, common::section("riscv32-virt", 10, 7).into()).unwrap();
        let mut writers = [
            spawn_writer("host", &path),
            spawn_writer("mps2-an386", &path),
        ];
        let _stdouts: Vec<_> = writers.iter_mut().map(wait_ready).collect();
        // Both are past their start-up and hold their section: let them go at once.
        for writer in &mut writers {
            let stdin = writer.0.stdin.as_mut().unwrap();
            stdin.write_all(b"go\n").unwrap();
            stdin.flush().unwrap();
        }
        for writer in &mut writers {
            assert!(
                writer.0.wait().unwrap().success(),
                "pair {pair}: a writer failed"
            );
        }
        let file = read_file(&path).unwrap();
        let targets: Vec<&str> = file.targets.keys().map(String::as_str).collect();
        if targets != ["host", "mps2-an386", "riscv32-virt"] {
            lost.push(format!("pair {pair}: {targets:?}"));
        }
        let left: Vec<String> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            left,
            ["baseline.json"],
            "pair {pair}: lock or temporary file left"
        );
    }
    println!("{} of {PAIRS} pairs lost a section", lost.len());
    assert!(lost.is_empty(), "sections lost:\n{}", lost.join("\n"));
}
