//! How `rho bench import` scales with the number of benchmarks in a report, for every importer.
//!
//! `cargo bench -p rho-cli --bench import_scale`. For each format it writes a report of N and of 4N
//! benchmarks (three samples each, with the extra figures the format carries) in a temporary directory, then
//! times, best of 5, the commands a user runs, end to end: the built `rho bench import FORMAT REPORT --json
//! RUN` (read, summarised, the text report drawn, the run document written) and `rho bench import FORMAT
//! REPORT --wire -` (the stream the gate reads); and beside them the library's `import`, the reading and
//! summarising alone. It prints each time and the ratio of 4N's to N's: a linear importer reads 4x the
//! benchmarks in about 4x the time.
//! The target (issue 40): 100,000 benchmarks in at most 5 s, and 4x the benchmarks in at most 5x the time.
//! `RHO_IMPORT_SCALE=N` sets N (default 25,000, so 4N is 100,000); `-- gbench gotest` times only those
//! formats. The reports are written to /dev/shm where it exists, so a loaded disk does not time criterion's
//! 800,000 small files instead of the importer.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rho_import::Format;

const SAMPLES: usize = 3;

/// Each time is the best of this many: the library's import of 25,000 benchmarks takes about 0.1 s, which a
/// shared machine moves by half from one call to the next (its ratio read 4.0 to 6.0 as the best of 3).
const REPETITIONS: usize = 5;

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
    // In Go's own order: `go test -bench . -count 3` prints each benchmark's three runs in a row.
    for b in 0..n {
        for r in 0..SAMPLES {
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

/// The best of [`REPETITIONS`] times of `work`.
fn best_of(mut work: impl FnMut()) -> Duration {
    (0..REPETITIONS)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// The times of one report of `n` benchmarks: the library's `import`, `rho ... --json`, `rho ... --wire -`.
struct Times {
    import: Duration,
    json: Duration,
    wire: Duration,
}

/// Runs the built `rho` with `args`, its output thrown away; panics naming the command when it fails.
fn rho(args: &[&std::ffi::OsStr]) {
    let status = Command::new(env!("CARGO_BIN_EXE_rho"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "rho {args:?}: {status}");
}

fn times(format: Format, n: usize) -> Times {
    // In memory where there is a tmpfs: the importer's scaling, not a loaded disk's (criterion's report is
    // 2 files a benchmark, 800,000 files at 4N).
    let shm = Path::new("/dev/shm");
    let dir = match shm.is_dir() {
        true => tempfile::tempdir_in(shm).unwrap(),
        false => tempfile::tempdir().unwrap(),
    };
    let file = write(format, dir.path(), n);
    let files = [file.as_path()];
    let import = best_of(|| {
        let imported = rho_import::import(format, &files).unwrap();
        assert_eq!(imported.summary.benchmarks.len(), n);
    });
    let run = dir.path().join("run.json");
    let name = std::ffi::OsStr::new(format.name());
    let json = best_of(|| {
        rho(&[
            "bench".as_ref(),
            "import".as_ref(),
            name,
            file.as_os_str(),
            "--json".as_ref(),
            run.as_os_str(),
        ])
    });
    let written = std::fs::metadata(&run).map(|m| m.len()).unwrap_or(0);
    assert!(written as usize > n, "{}: {written} bytes", run.display());
    let wire = best_of(|| {
        rho(&[
            "bench".as_ref(),
            "import".as_ref(),
            name,
            file.as_os_str(),
            "--wire".as_ref(),
            "-".as_ref(),
        ])
    });
    Times { import, json, wire }
}

fn main() {
    let n: usize = std::env::var("RHO_IMPORT_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(25_000);
    println!(
        "{:<17} {:>7}  {:>9} {:>9} {:>6}  {:>9} {:>9} {:>6}  {:>9} {:>9} {:>6}",
        "format",
        "n",
        "import n",
        "4n",
        "ratio",
        "--json n",
        "4n",
        "ratio",
        "--wire n",
        "4n",
        "ratio"
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
        let one = times(format, n);
        let four = times(format, 4 * n);
        let cells = |a: Duration, b: Duration| {
            format!(
                "{:>8.3}s {:>8.3}s {:>6.2}",
                a.as_secs_f64(),
                b.as_secs_f64(),
                b.as_secs_f64() / a.as_secs_f64()
            )
        };
        println!(
            "{:<17} {:>7}  {}  {}  {}",
            format.name(),
            n,
            cells(one.import, four.import),
            cells(one.json, four.json),
            cells(one.wire, four.wire),
        );
    }
}
