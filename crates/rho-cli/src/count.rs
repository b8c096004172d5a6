//! `--measure instructions`: a host suite run under Valgrind's Callgrind, which counts the instructions each
//! measured loop executes, exactly, whatever else the machine is doing.
//!
//! The harness, finding itself under Valgrind with `RHO_BENCH_MEASURE=instructions`, reads no clock: it has
//! Callgrind collect each benchmark's whole measured loop and dump the totals under the benchmark's name, one
//! file per loop (`callgrind.out.K` in rho's scratch directory), and says in its stream which dump holds which
//! loop (`@count K iterations=N`, docs/wire-format.md). rho reads the dumps, checks each names its block, and
//! attaches the totals to the run; rho-stats takes the harness's share off (fitted from `.overhead`'s two
//! empty loops) and divides by the iterations.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use rho_stats::RunSummary;
use rho_wire::Run;

use crate::suite::ScratchDir;

/// Measured iterations per benchmark when counting and neither `--iterations` nor module.yml says: a count
/// is exact, so a few iterations give the same figure as thousands, and Callgrind runs code some 50 times
/// slower than the machine.
pub const DEFAULT_ITERATIONS: u64 = 10;
/// Warm-ups when counting: one, so a first call's lazy set-up (a page fault, a PLT binding) is not counted.
pub const DEFAULT_WARMUP: u64 = 1;

/// The dump files' stem in the scratch directory: Callgrind writes `callgrind.out.1`, `.2`, ... per dump.
const DUMP_STEM: &str = "callgrind.out";

/// What `--measure instructions` runs a suite under.
#[derive(Debug)]
pub struct Counter {
    valgrind: PathBuf,
    cache_sim: bool,
}

impl Counter {
    /// Valgrind, found on the PATH; a clear error naming the package when it is not there.
    pub fn find(cache_sim: bool) -> anyhow::Result<Counter> {
        let Some(valgrind) = crate::board::find_on_path("valgrind") else {
            bail!(
                "--measure instructions runs the suite under Valgrind's Callgrind, and `valgrind` is not on the \
                 PATH: install it (Debian/Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind \
                 valgrind-devel)"
            );
        };
        Ok(Counter {
            valgrind,
            cache_sim,
        })
    }

    /// Run `executable` (with `env`, in `dir` when given) under Callgrind and return its run with every
    /// count's totals attached.
    pub fn run(
        &self,
        executable: &Path,
        env: &[(String, String)],
        dir: Option<&Path>,
        what: &str,
        timeout: std::time::Duration,
    ) -> anyhow::Result<Run> {
        let scratch = ScratchDir::new("rho-count-")
            .context("cannot create a directory for Callgrind's dumps")?;
        let mut command = Command::new(&self.valgrind);
        command
            .arg("--tool=callgrind")
            .arg("-q")
            .arg("--collect-atstart=no")
            .arg(format!(
                "--callgrind-out-file={}",
                scratch.path().join(DUMP_STEM).display()
            ))
            .arg("--compress-strings=no")
            .arg("--compress-pos=no")
            .arg(format!(
                "--cache-sim={}",
                if self.cache_sim { "yes" } else { "no" }
            ))
            .arg(executable)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("RHO_BENCH_MEASURE", "instructions");
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        let mut run = crate::run::run_stream(command, what, timeout)?;
        if run.counter.is_none() {
            bail!(
                "the suite {what} ran under Callgrind but counted nothing: its harness was built without \
                 Valgrind's headers (<valgrind/callgrind.h>; Debian/Ubuntu: apt-get install valgrind), so \
                 instructions are not measured"
            );
        }
        attach_dumps(&mut run, scratch.path())?;
        Ok(run)
    }
}

/// Read the dump each `@count` names from `dir` and attach its totals, checking that the dump was written for
/// that block (Callgrind records the benchmark's name as the dump's trigger).
pub fn attach_dumps(run: &mut Run, dir: &Path) -> anyhow::Result<()> {
    for bench in run.calibration.iter_mut().chain(run.benchmarks.iter_mut()) {
        for count in &mut bench.counts {
            let path = dir.join(format!("{DUMP_STEM}.{}", count.dump));
            let text = std::fs::read_to_string(&path).with_context(|| {
                format!(
                    "cannot read Callgrind's dump {} for {} (@count {})",
                    path.display(),
                    bench.name,
                    count.dump
                )
            })?;
            let dump =
                parse_dump(&text).map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
            if dump.trigger != bench.name {
                bail!(
                    "{}: expected the dump of {} (@count {}), found one triggered by {:?}",
                    path.display(),
                    bench.name,
                    count.dump,
                    dump.trigger
                );
            }
            count.totals = dump.totals;
        }
    }
    Ok(())
}

/// One Callgrind dump: who asked for it and its totals per event.
#[derive(Debug, Clone, PartialEq)]
pub struct Dump {
    /// The name passed to `CALLGRIND_DUMP_STATS_AT` (the block's name).
    pub trigger: String,
    pub totals: BTreeMap<String, u64>,
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
    let mut values = BTreeMap::new();
    let numbers: Vec<&str> = figures.split_whitespace().collect();
    if numbers.len() > events.len() {
        return Err(format!(
            "line {line}: expected at most {} figures (one per event), found {}",
            events.len(),
            numbers.len()
        ));
    }
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
    if !values.contains_key(rho_stats::INSTRUCTIONS_EVENT) {
        return Err(format!(
            "expected the {} event (instructions) among `events: {}`",
            rho_stats::INSTRUCTIONS_EVENT,
            events.join(" ")
        ));
    }
    Ok(Dump {
        trigger,
        totals: values,
    })
}

/// The harness's environment for a counted run: `env`, with this mode's own iterations and warm-ups unless
/// the command line set them (module.yml's `default_iterations`, `warmup_runs` and per-benchmark `iterations`
/// are sized for timing, which needs thousands of samples; a count needs a few).
pub fn environment(
    env: Vec<(String, String)>,
    iterations_set: bool,
    warmup_set: bool,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = env
        .into_iter()
        .filter(|(key, _)| {
            (iterations_set || !key.starts_with("RHO_BENCH_ITERATIONS"))
                && (warmup_set || key != "RHO_BENCH_WARMUP")
        })
        .collect();
    if !iterations_set {
        env.push((
            "RHO_BENCH_ITERATIONS".to_string(),
            DEFAULT_ITERATIONS.to_string(),
        ));
    }
    if !warmup_set {
        env.push(("RHO_BENCH_WARMUP".to_string(), DEFAULT_WARMUP.to_string()));
    }
    env
}

/// The summary of a measurement: the timed runs folded (best of N), the counted run's instructions joined to
/// them; or, counting only, the counted run's summary (its figures are exact: there is no best to take).
pub fn summarise(timed: &[Run], counted: Option<&Run>, what: &str) -> anyhow::Result<RunSummary> {
    let counted = counted
        .map(RunSummary::of)
        .transpose()
        .with_context(|| format!("cannot summarise the counted run of {what}"))?;
    if timed.is_empty() {
        return counted.with_context(|| format!("no run of {what} to summarise"));
    }
    let mut summary = crate::project::fold(timed, what)?;
    if let Some(counted) = &counted {
        join(&mut summary, counted);
    }
    Ok(summary)
}

/// `--measure time,instructions`: the counted run's instruction figures joined to the timed run's summary,
/// by benchmark name (the two runs are of the same build).
pub fn join(timed: &mut RunSummary, counted: &RunSummary) {
    for bench in &mut timed.benchmarks {
        bench.instructions = counted
            .benchmark(&bench.name)
            .and_then(|b| b.instructions.clone());
    }
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
}
