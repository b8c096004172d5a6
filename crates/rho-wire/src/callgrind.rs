//! The other half of a counted run (`@counter instructions callgrind`): Callgrind's dump files, which hold
//! the counts the stream's `@count` records point at. [`attach_dumps`] reads them into each
//! [`Count::totals`](crate::Count), checking that each dump was written for its block (docs/wire-format.md,
//! "Counted runs").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::types::Run;

/// The dump files' stem: with `--callgrind-out-file=DIR/callgrind.out`, dump `K` is `DIR/callgrind.out.K`;
/// with `--callgrind-out-file=DIR/callgrind.out.%p` (a traced child process), `DIR/callgrind.out.PID.K`.
pub const DUMP_STEM: &str = "callgrind.out";

/// The Valgrind options of every counted run, besides where the dumps go: Callgrind, quiet, collecting only
/// between the harness's own toggles (each measured loop), dumps written with names and positions in full.
pub const CALLGRIND_OPTIONS: [&str; 5] = [
    "--tool=callgrind",
    "-q",
    "--collect-atstart=no",
    "--compress-strings=no",
    "--compress-pos=no",
];

/// Callgrind's name for executed instructions.
pub const INSTRUCTIONS_EVENT: &str = "Ir";

/// Why a counted run's dumps could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error("cannot read Callgrind's dump {} for {block} (@count {dump}): {error}", path.display())]
    Read {
        path: PathBuf,
        block: String,
        dump: u64,
        error: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Malformed { path: PathBuf, message: String },
    #[error("{}: expected the dump of {block} (@count {dump}), found one triggered by {found:?}", path.display())]
    NotItsBlock {
        path: PathBuf,
        block: String,
        dump: u64,
        found: String,
    },
    #[error(
        "{}: no process wrote the dumps the stream names (callgrind.out.PID.1 ...); was the suite run under \
         `valgrind --tool=callgrind`?",
        dir.display()
    )]
    NoDumps { dir: PathBuf },
    #[error("{}: {count} processes wrote dumps; expected one suite (its dumps are the stream's)", dir.display())]
    SeveralWriters { dir: PathBuf, count: usize },
}

/// One Callgrind dump: who asked for it and its totals per event.
#[derive(Debug, Clone, PartialEq)]
pub struct Dump {
    /// The name passed to `CALLGRIND_DUMP_STATS_AT` (the block's name).
    pub trigger: String,
    pub totals: BTreeMap<String, u64>,
}

/// Read the dump each `@count` of `run` names from `dir` and attach its totals. `pid`: the dumps are
/// `callgrind.out.PID.K` (a traced child); `None`: `callgrind.out.K`.
pub fn attach_dumps(run: &mut Run, dir: &Path, pid: Option<u32>) -> Result<(), DumpError> {
    attach_dumps_reading(run, dir, pid, |_, _| Ok(()))
}

/// [`attach_dumps`], handing each dump's number and whole text to `also` once its totals are checked, for a
/// caller that reads more of it (its functions: rho-profile's, which this crate does not know); an error
/// `also` returns is the dump's, named with its path.
pub fn attach_dumps_reading(
    run: &mut Run,
    dir: &Path,
    pid: Option<u32>,
    mut also: impl FnMut(u64, &str) -> Result<(), String>,
) -> Result<(), DumpError> {
    for bench in run.calibration.iter_mut().chain(run.benchmarks.iter_mut()) {
        for count in &mut bench.counts {
            let name = match pid {
                Some(pid) => format!("{DUMP_STEM}.{pid}.{}", count.dump),
                None => format!("{DUMP_STEM}.{}", count.dump),
            };
            let path = dir.join(name);
            let text = std::fs::read_to_string(&path).map_err(|error| DumpError::Read {
                path: path.clone(),
                block: bench.name.clone(),
                dump: count.dump,
                error,
            })?;
            let dump = parse_dump(&text).map_err(|message| DumpError::Malformed {
                path: path.clone(),
                message,
            })?;
            if dump.trigger != bench.name {
                return Err(DumpError::NotItsBlock {
                    path,
                    block: bench.name.clone(),
                    dump: count.dump,
                    found: dump.trigger,
                });
            }
            count.totals = dump.totals;
            also(count.dump, &text).map_err(|message| DumpError::Malformed { path, message })?;
        }
    }
    Ok(())
}

/// The one process of a traced run (`callgrind.out.%p`) that wrote numbered dumps in `dir`: the suite (a
/// shell around it, or a compiler it ran, writes only its final `callgrind.out.PID`).
pub fn dumping_process(dir: &Path) -> Result<u32, DumpError> {
    let entries = std::fs::read_dir(dir).map_err(|_| DumpError::NoDumps {
        dir: dir.to_path_buf(),
    })?;
    let mut writers = std::collections::BTreeSet::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Some(rest) = name.strip_prefix(&format!("{DUMP_STEM}.")) else {
            continue;
        };
        if let Some((pid, dump)) = rest.split_once('.')
            && let (Ok(pid), Ok(_)) = (pid.parse::<u32>(), dump.parse::<u64>())
        {
            writers.insert(pid);
        }
    }
    match writers.len() {
        0 => Err(DumpError::NoDumps {
            dir: dir.to_path_buf(),
        }),
        1 => Ok(writers.into_iter().next().unwrap_or(0)),
        count => Err(DumpError::SeveralWriters {
            dir: dir.to_path_buf(),
            count,
        }),
    }
}

/// Parse the header lines of a Callgrind output file: `desc: Trigger: Client Request: NAME`,
/// `events: Ir ...` and `totals: N ...` (or `summary:`). Errors name the line and what was expected.
pub fn parse_dump(text: &str) -> Result<Dump, String> {
    const TRIGGER: &str = "desc: Trigger: Client Request: ";
    let mut trigger = None;
    let mut events: Option<Vec<&str>> = None;
    let mut totals: Option<(usize, &str)> = None;
    let mut summary: Option<(usize, &str)> = None;
    for (index, line) in text.lines().enumerate() {
        if let Some(name) = line.strip_prefix(TRIGGER) {
            trigger = Some(name.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("events:") {
            events = Some(rest.split_whitespace().collect());
        } else if let Some(rest) = line.strip_prefix("totals:") {
            totals = Some((index + 1, rest));
        } else if let Some(rest) = line.strip_prefix("summary:") {
            summary = Some((index + 1, rest));
        }
    }
    let trigger =
        trigger.ok_or("expected a `desc: Trigger: Client Request: NAME` line, found none")?;
    let events = events.ok_or("expected an `events:` line, found none")?;
    let (line, figures) = totals
        .or(summary)
        .ok_or("expected a `totals:` or `summary:` line, found none")?;
    let numbers: Vec<&str> = figures.split_whitespace().collect();
    if numbers.len() > events.len() {
        return Err(format!(
            "line {line}: expected at most {} figures (one per event), found {}",
            events.len(),
            numbers.len()
        ));
    }
    let mut values = BTreeMap::new();
    for (position, event) in events.iter().enumerate() {
        // Callgrind leaves out trailing zero figures.
        let value = match numbers.get(position) {
            Some(text) => text.parse::<u64>().map_err(|_| {
                format!("line {line}: expected a whole number for {event}, found {text:?}")
            })?,
            None => 0,
        };
        values.insert((*event).to_string(), value);
    }
    if !values.contains_key(INSTRUCTIONS_EVENT) {
        return Err(format!(
            "expected the {INSTRUCTIONS_EVENT} event (instructions) among `events: {}`",
            events.join(" ")
        ));
    }
    Ok(Dump {
        trigger,
        totals: values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 1\ncmd:  ./suite\npart: 3\n\n\
        desc: I1 cache: \ndesc: Timerange: Basic block 0 - 27962\ndesc: Trigger: Client Request: bench_crc_64\n\n\
        positions: line\nevents: Ir Dr Dw\nsummary: 45640 900\n\n\nfn=main\n0 45640\n\ntotals: 45640 900\n";

    #[test]
    fn a_dump_gives_its_trigger_and_totals_with_trailing_zeros() {
        let dump = parse_dump(DUMP).unwrap();
        assert_eq!(dump.trigger, "bench_crc_64");
        assert_eq!(dump.totals["Ir"], 45640);
        assert_eq!(dump.totals["Dr"], 900);
        assert_eq!(dump.totals["Dw"], 0);
    }

    #[test]
    fn a_broken_dump_says_what_it_expected() {
        let no_trigger = DUMP.replace("desc: Trigger", "desc: Other");
        assert!(parse_dump(&no_trigger).unwrap_err().contains("Trigger"));
        let bad_number = DUMP.replace("totals: 45640 900", "totals: 45x40");
        let error = parse_dump(&bad_number).unwrap_err();
        assert!(error.contains("line 20") && error.contains("Ir"), "{error}");
        let no_ir = DUMP.replace("events: Ir Dr Dw", "events: Dr Dw X");
        assert!(parse_dump(&no_ir).unwrap_err().contains("Ir"));
    }

    #[test]
    fn each_dump_is_handed_on_once_and_its_reader_s_error_names_the_file() {
        let stream = "@rho-bench 6\n@target host arch=x86_64 optimized=1\n\
            @counter instructions callgrind\n\
            @config iterations=10 warmup=1 time_cap_ms=0 stack_bytes=57344 stack_guard=none\n\
            @bench .overhead\n@count 1 iterations=10\n@count 2 iterations=20\n@stack 120\n\
            @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
            @end .overhead iterations=10 warmup=1 capped=0 unit=iter per_iteration=1 batch=1\n\
            @bench bench_crc_64\n@count 3 iterations=10\n@stack 128\n\
            @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
            @end bench_crc_64 iterations=10 warmup=1 capped=0 unit=iter per_iteration=1 batch=1\n\
            @done benchmarks=1 dropped=0\n";
        let dir = tempfile::tempdir().unwrap();
        for (dump, block) in [(1, ".overhead"), (2, ".overhead"), (3, "bench_crc_64")] {
            let text = DUMP.replace("bench_crc_64", block);
            std::fs::write(dir.path().join(format!("callgrind.out.{dump}")), text).unwrap();
        }
        let mut run = crate::parse_str(stream).unwrap();
        let mut seen = Vec::new();
        attach_dumps_reading(&mut run, dir.path(), None, |dump, text| {
            seen.push((dump, text.contains("fn=main")));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(1, true), (2, true), (3, true)]);
        assert_eq!(run.benchmarks[0].counts[0].totals["Ir"], 45640);
        let error = attach_dumps_reading(&mut run, dir.path(), None, |dump, _| match dump {
            3 => Err("line 12: expected a cost line".to_string()),
            _ => Ok(()),
        })
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("callgrind.out.3") && error.contains("line 12"),
            "{error}"
        );
    }

    #[test]
    fn the_one_process_with_numbered_dumps_is_the_suite() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "callgrind.out.100",
            "callgrind.out.200",
            "callgrind.out.200.1",
            "callgrind.out.200.2",
        ] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        assert_eq!(dumping_process(dir.path()).unwrap(), 200);
        std::fs::write(dir.path().join("callgrind.out.300.1"), "").unwrap();
        assert!(matches!(
            dumping_process(dir.path()),
            Err(DumpError::SeveralWriters { count: 2, .. })
        ));
    }
}
