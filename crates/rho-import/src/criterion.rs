//! What criterion (0.3 to 0.5) writes under `target/criterion`: for each benchmark a directory whose `new/`
//! holds `sample.json` (`sampling_mode`, `iters`, `times`) and `benchmark.json` (`full_id`, the name).

use std::path::{Path, PathBuf};

use crate::error::ImportError;
use crate::json::{array, parse_json, read_text, string};
use crate::report::{Report, Sampled};

/// Reads every benchmark under `path`: a `target/criterion` directory (each benchmark directory below it,
/// in path order; criterion's `report` pages are not benchmarks), or one benchmark's directory. Each sample
/// is `times[i] / iters[i]` nanoseconds (criterion's samples time `iters[i]` iterations each): rho computes
/// its statistics from these, not from criterion's estimates.
pub fn read(path: &Path) -> Result<Report, ImportError> {
    let mut directories = Vec::new();
    find_benchmarks(path, &mut directories)?;
    directories.sort();
    if directories.is_empty() {
        return Err(ImportError::Empty {
            file: path.display().to_string(),
            what: "no new/sample.json below it: is it criterion's target/criterion directory?"
                .to_owned(),
        });
    }
    let mut report = Report::default();
    for directory in directories {
        report.benchmarks.push(benchmark(&directory.join("new"))?);
    }
    Ok(report)
}

/// The benchmark directories at or below `path` (those with `new/sample.json`).
fn find_benchmarks(path: &Path, found: &mut Vec<PathBuf>) -> Result<(), ImportError> {
    if path.join("new").join("sample.json").is_file() {
        found.push(path.to_path_buf());
        return Ok(());
    }
    let unreadable = |source| ImportError::Read {
        file: path.display().to_string(),
        source,
    };
    for entry in std::fs::read_dir(path).map_err(unreadable)? {
        let entry = entry.map_err(unreadable)?;
        let child = entry.path();
        // The entry's own type (no stat a directory: a report of 100,000 benchmarks has as many), a link
        // followed to what it names.
        let kind = entry.file_type().map_err(unreadable)?;
        let directory = kind.is_dir() || (kind.is_symlink() && child.is_dir());
        if directory && entry.file_name() != "report" {
            find_benchmarks(&child, found)?;
        }
    }
    Ok(())
}

/// One benchmark from its `new/` directory.
fn benchmark(new: &Path) -> Result<Sampled, ImportError> {
    let naming = new.join("benchmark.json");
    let naming_file = naming.display().to_string();
    let naming = parse_json(&read_text(&naming)?, &naming_file)?;
    let name = string(&naming, "full_id", &naming_file, "")?;

    let sample = new.join("sample.json");
    let file = sample.display().to_string();
    let sample = parse_json(&read_text(&sample)?, &file)?;
    let iters = array(&sample, "iters", &file, "", "a list of iteration counts")?;
    let times = array(&sample, "times", &file, "", "a list of nanoseconds")?;
    if iters.len() != times.len() {
        return Err(ImportError::Field {
            file,
            field: "times".to_owned(),
            expected: format!("one time per entry of iters ({})", iters.len()),
            found: format!("{} times", times.len()),
        });
    }
    let mut bench = Sampled {
        name: name.to_owned(),
        ..Sampled::default()
    };
    for (index, (count, time)) in iters.iter().zip(times).enumerate() {
        let count = count.as_f64().filter(|c| c.is_finite() && *c >= 1.0);
        let count =
            count.ok_or_else(|| bad_entry(&file, "iters", index, "a count of at least 1"))?;
        let time = time.as_f64().filter(|t| t.is_finite() && *t >= 0.0);
        let time =
            time.ok_or_else(|| bad_entry(&file, "times", index, "nanoseconds, at least 0"))?;
        // criterion's counts are whole numbers written as floats (`10.0`).
        bench.push_sample(time / count, Some(count as u64));
    }
    Ok(bench)
}

fn bad_entry(file: &str, field: &str, index: usize, expected: &str) -> ImportError {
    ImportError::Field {
        file: file.to_owned(),
        field: format!("{field}[{index}]"),
        expected: expected.to_owned(),
        found: "another value".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::build;
    use crate::format::Format;

    /// `cargo bench` of examples/criterion (criterion 0.5, `sample_size(10)`, on a loaded machine): its
    /// target/criterion, each benchmark's `new/` kept (sample.json, benchmark.json, estimates.json).
    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/criterion")
    }

    #[test]
    fn samples_are_times_over_iterations_named_by_full_id() {
        let report = read(&fixture()).unwrap();
        let names: Vec<&str> = report.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["checksum/128", "checksum/64", "fill/zeroes"]);
        let checksum = &report.benchmarks[1];
        assert_eq!(checksum.times_ns.len(), 10);
        // The first sample: 88115745 ns over 11 iterations.
        assert!((checksum.times_ns[0] - 88115745.0 / 11.0).abs() < 1e-6);
    }

    #[test]
    fn the_median_is_criterions_own_up_to_its_interpolation() {
        let report = read(&fixture()).unwrap();
        let sorted: Vec<Vec<f64>> = report
            .benchmarks
            .iter()
            .map(|b| {
                let mut times = b.times_ns.clone();
                times.sort_by(f64::total_cmp);
                times
            })
            .collect();
        let summary = build(Format::Criterion, "target/criterion", report.benchmarks).unwrap();
        for (bench, sorted) in summary.benchmarks.iter().zip(sorted) {
            let estimates = fixture().join(&bench.name).join("new/estimates.json");
            let estimates = parse_json(&read_text(&estimates).unwrap(), "e").unwrap();
            let theirs = estimates["median"]["point_estimate"].as_f64().unwrap();
            // Ten samples: criterion's median is the mean of the 5th and 6th, rho's the 5th (nearest rank).
            let ours = bench.time.as_ref().unwrap().per_iteration.median;
            assert!((ours - sorted[4]).abs() < 0.001, "{}: {ours}", bench.name);
            let interpolated = (sorted[4] + sorted[5]) / 2.0;
            assert!(
                (interpolated - theirs).abs() < 0.001 * theirs,
                "{}: {theirs}",
                bench.name
            );
        }
    }

    #[test]
    fn a_directory_without_benchmarks_and_a_torn_sample_are_named() {
        let empty = std::env::temp_dir().join(format!("rho-import-empty-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let error = read(&empty).unwrap_err().to_string();
        assert!(error.contains("no new/sample.json"), "{error}");
        let new = empty.join("g/f/new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(new.join("benchmark.json"), r#"{"full_id": "g/f"}"#).unwrap();
        std::fs::write(
            new.join("sample.json"),
            r#"{"iters": [1.0, 2.0], "times": [5.0]}"#,
        )
        .unwrap();
        let error = read(&empty).unwrap_err().to_string();
        std::fs::remove_dir_all(&empty).unwrap();
        assert!(
            error.contains("sample.json: field times: expected one time per entry of iters (2)"),
            "{error}"
        );
    }
}
