//! How `rho bench import` scales with the number of benchmarks in a report, for every importer.
//!
//! `cargo bench -p rho-import --bench import_scale`. For each format it writes a report of N and of 4N
//! benchmarks (three samples each, with the extra figures the format carries) in a temporary directory, then
//! times, best of 3, the two ways rho reads one: `import` (the run `rho bench import --json` writes, rho's
//! statistics included) and `wire_stream` (what `rho bench import --wire -` prints for the gate). It prints
//! each time and the ratio of 4N's to N's: a linear importer reads 4x the benchmarks in about 4x the time.
//! The target (issue 40): 100,000 benchmarks in at most 5 s, and 4x the benchmarks in at most 5x the time.
//! `RHO_IMPORT_SCALE=N` sets N (default 25,000, so 4N is 100,000); `-- gbench gotest` times only those
//! formats. The reports are written to /dev/shm where it exists, so a loaded disk does not time criterion's
//! 800,000 small files instead of the importer.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rho_import::Format;

const SAMPLES: usize = 3;

/// A figure that differs between benchmarks and samples, so no format's reader sees one value repeated.
fn figure(bench: usize, sample: usize) -> f64 {
    100.0 + (bench % 97) as f64 + sample as f64 * 0.5
}

fn write_gbench(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from(r#"{"context": {"library_version": "v1.7.1"}, "benchmarks": ["#);
    for b in 0..n {
        for r in 0..SAMPLES {
            if b + r > 0 {
                text.push(',');
            }
            let ns = figure(b, r);
            let _ = write!(
                text,
                r#"{{"name": "BM_case/{b}/%@", "run_name": "BM_case/{b}/%@", "run_type": "iteration",
                "family_index": {b}, "per_family_instance_index": 0, "repetitions": {SAMPLES},
                "repetition_index": {r}, "threads": 1, "iterations": 1000, "real_time": {ns},
                "cpu_time": {ns}, "time_unit": "ns", "items_per_second": {rate}, "elements": 64}}"#,
                rate = 1e9 / ns
            );
        }
    }
    text.push_str("]}");
    let file = dir.join("gbench.json");
    std::fs::write(&file, text).unwrap();
    file
}

fn write_gotest(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from("goos: linux\ngoarch: amd64\npkg: example.com/scale\n");
    for r in 0..SAMPLES {
        for b in 0..n {
            let _ = writeln!(
                text,
                "BenchmarkCase{b}-8   \t 1000\t {} ns/op\t 8 B/op\t 1 allocs/op",
                figure(b, r)
            );
        }
    }
    text.push_str("PASS\nok  \texample.com/scale\t1.0s\n");
    let file = dir.join("gotest.txt");
    std::fs::write(&file, text).unwrap();
    file
}

fn write_hyperfine(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from(r#"{"results": ["#);
    for b in 0..n {
        if b > 0 {
            text.push(',');
        }
        let times: Vec<String> = (0..SAMPLES)
            .map(|r| (figure(b, r) * 1e-9).to_string())
            .collect();
        let _ = write!(
            text,
            r#"{{"command": "sh case.sh {b}", "times": [{}], "user": 0.001, "system": 0.002,
            "exit_codes": [0, 0, 0]}}"#,
            times.join(", ")
        );
    }
    text.push_str("]}");
    let file = dir.join("hyperfine.json");
    std::fs::write(&file, text).unwrap();
    file
}

fn write_pytest(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from(r#"{"version": "4.0.0", "benchmarks": ["#);
    for b in 0..n {
        if b > 0 {
            text.push(',');
        }
        let data: Vec<String> = (0..SAMPLES)
            .map(|r| (figure(b, r) * 1e-9).to_string())
            .collect();
        let _ = write!(
            text,
            r#"{{"name": "test_case[{b}]", "stats": {{"data": [{}], "iterations": 1, "rounds": {SAMPLES}}}}}"#,
            data.join(", ")
        );
    }
    text.push_str("]}");
    let file = dir.join("pytest.json");
    std::fs::write(&file, text).unwrap();
    file
}

fn write_criterion(dir: &Path, n: usize) -> PathBuf {
    let root = dir.join("criterion");
    for b in 0..n {
        let new = root.join(format!("case_{b}")).join("new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(
            new.join("benchmark.json"),
            format!(r#"{{"full_id": "case/{b}"}}"#),
        )
        .unwrap();
        let times: Vec<String> = (0..SAMPLES)
            .map(|r| (figure(b, r) * 100.0).to_string())
            .collect();
        std::fs::write(
            new.join("sample.json"),
            format!(
                r#"{{"sampling_mode": "Linear", "iters": [100.0, 100.0, 100.0], "times": [{}]}}"#,
                times.join(", ")
            ),
        )
        .unwrap();
    }
    root
}

fn write(format: Format, dir: &Path, n: usize) -> PathBuf {
    match format {
        Format::Gbench => write_gbench(dir, n),
        Format::Gotest => write_gotest(dir, n),
        Format::Hyperfine => write_hyperfine(dir, n),
        Format::PytestBenchmark => write_pytest(dir, n),
        Format::Criterion => write_criterion(dir, n),
    }
}

/// The best of 3 times of `work`.
fn best_of_3(mut work: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// The times of `import` and `wire_stream` of a report of `n` benchmarks.
fn times(format: Format, n: usize) -> (Duration, Duration) {
    // In memory where there is a tmpfs: the importer's scaling, not a loaded disk's (criterion's report is
    // 2 files a benchmark, 800,000 files at 4N).
    let shm = Path::new("/dev/shm");
    let dir = match shm.is_dir() {
        true => tempfile::tempdir_in(shm).unwrap(),
        false => tempfile::tempdir().unwrap(),
    };
    let file = write(format, dir.path(), n);
    let files = [file.as_path()];
    let import = best_of_3(|| {
        let imported = rho_import::import(format, &files).unwrap();
        assert_eq!(imported.summary.benchmarks.len(), n);
    });
    let wire = best_of_3(|| {
        let stream = rho_import::wire_stream(format, &files).unwrap();
        assert!(stream.len() > n);
    });
    (import, wire)
}

fn main() {
    let n: usize = std::env::var("RHO_IMPORT_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(25_000);
    println!(
        "{:<17} {:>9} {:>13} {:>13} {:>6} {:>13} {:>13} {:>6}",
        "format", "n", "import n", "import 4n", "ratio", "--wire n", "--wire 4n", "ratio"
    );
    // `cargo bench ... -- gotest criterion`: only those formats.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for format in Format::ALL {
        if !only.is_empty() && !only.iter().any(|o| o == format.name()) {
            continue;
        }
        let (import, wire) = times(format, n);
        let (import4, wire4) = times(format, 4 * n);
        println!(
            "{:<17} {:>9} {:>12.3}s {:>12.3}s {:>6.2} {:>12.3}s {:>12.3}s {:>6.2}",
            format.name(),
            n,
            import.as_secs_f64(),
            import4.as_secs_f64(),
            import4.as_secs_f64() / import.as_secs_f64(),
            wire.as_secs_f64(),
            wire4.as_secs_f64(),
            wire4.as_secs_f64() / wire.as_secs_f64(),
        );
    }
}
