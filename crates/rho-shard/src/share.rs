//! One job's share of a module.yml run: the run's benchmarks listed, their costs read from the committed
//! baseline, the partition computed ([`crate::partition`]), and per suite the filter that runs only this
//! share's benchmarks.

use std::path::Path;

use rho_config::{Measure, ModuleConfig, TargetSpec};
use rho_stats::RunSummary;
use rho_suite::RunOptions;

use crate::error::Error;
use crate::partition::{Entry, assign, identity};
use crate::record::ShardRecord;
use crate::spec::Shard;

/// What the run is, besides module.yml and the target: the command, `--diff REF`, the run's settings.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// `bench` or `check`.
    pub command: &'a str,
    pub diff: Option<String>,
    /// The commit `diff` resolved to (read when the share checked the ref before running).
    pub diff_commit: Option<String>,
    pub options: &'a RunOptions,
    pub repetitions: u32,
}

impl<'a> Request<'a> {
    /// `command` (`bench` or `check`) with `--diff` as given and the run's options.
    pub fn new(command: &'a str, diff: &Option<String>, options: &'a RunOptions) -> Request<'a> {
        Request {
            command,
            diff: diff.clone(),
            diff_commit: None,
            options,
            repetitions: 1,
        }
    }
}

/// A sharded run's share of `repetitions` runs per suite, and the baseline's `plan` with the comparison taken
/// out: a share alone cannot compare (drift and the removed benchmarks are the whole run's), so the ref's
/// commit goes into the share's record for `rho bench merge`. `--write-baseline` is refused: one share's
/// benchmarks are not the baseline.
pub fn plan_run(
    engine: &rho_suite::Engine<'_>,
    shard: Shard,
    request: &Request<'_>,
    repetitions: u32,
    plan: rho_compare::plan::Plan,
) -> Result<(Share, rho_compare::plan::Plan), Error> {
    if plan.write {
        return Err(Error::WriteBaseline {
            shard: shard.to_string(),
        });
    }
    let request = Request {
        diff_commit: plan.base.as_ref().map(|(_, source)| source.commit.clone()),
        repetitions,
        ..request.clone()
    };
    let share = Share::plan(engine, shard, &request)?;
    let plan = rho_compare::plan::Plan {
        base: None,
        markdown: None,
        ..plan
    };
    Ok((share, plan))
}

/// A job's share, planned before any suite of it runs.
#[derive(Debug, Clone)]
pub struct Share {
    pub record: ShardRecord,
}

impl Share {
    /// The run's benchmarks, costed from the committed baseline, and the shares assigned. A suite the
    /// baseline names (version 4 records each benchmark's suite) takes its benchmarks from there, built by
    /// none but the shares that run some of them; any other suite, and every suite with `--filter`, is listed
    /// by every share with the run's `engine` (`Lister`). The share that holds a named suite's first
    /// benchmark (its owner) lists it too and runs the benchmarks the baseline does not know: each new one
    /// lands in exactly one share, and no share talks to another.
    pub fn plan(
        engine: &rho_suite::Engine<'_>,
        shard: Shard,
        request: &Request<'_>,
    ) -> Result<Share, Error> {
        let (config, target) = (engine.config(), engine.target());
        let costs = costs(
            config,
            target,
            request.options.measure.unwrap_or(config.measure),
        )?;
        let basis = if costs.is_some() { "baseline" } else { "names" };
        let named = |suite: &str| match (&costs, &request.options.filter) {
            (Some(section), None) => baseline_names(section, suite),
            _ => Vec::new(),
        };
        let mut lister = Lister::new(engine, request.options);
        let mut benchmarks: Vec<(String, String, Option<f64>)> = Vec::new();
        let mut from_baseline = Vec::new();
        for (index, job) in engine.jobs.iter().enumerate() {
            let mut names = named(&job.what);
            if names.is_empty() {
                names = lister.list(index)?;
            } else {
                from_baseline.push(index);
            }
            benchmarks.extend(names.into_iter().map(|name| {
                let cost = costs.as_ref().and_then(|c| cost_of(c, &name));
                (job.what.clone(), name, cost)
            }));
        }
        let mut entries = assign(benchmarks, shard.count);
        let module_text = std::fs::read_to_string(&config.file).map_err(|source| Error::Read {
            path: config.file.clone(),
            source,
        })?;
        let options = request.options;
        let settings = format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {}",
            options.iterations,
            options.warmup,
            options.scale,
            options.cflags,
            options.ldflags,
            options.filter,
            options.measure,
            options.cache_sim,
            request.repetitions
        );
        let partition = identity(
            shard.count,
            &[&module_text, target.name(), &settings],
            &entries,
        );
        // After the identity, which every share computes alike: what only the owner of a suite learns.
        for index in from_baseline {
            let suite = &engine.jobs[index].what;
            if owner(&entries, suite) == Some(shard.index) {
                let listed = lister.list(index)?;
                add_unknown(&mut entries, suite, listed, shard.index);
            }
        }
        Ok(Share {
            record: ShardRecord {
                index: shard.index,
                count: shard.count,
                partition,
                commit: head_commit(&config.root),
                command: request.command.to_string(),
                measure: measure_name(request.options.measure.unwrap_or(config.measure))
                    .to_string(),
                filter: request.options.filter.clone(),
                basis: basis.to_string(),
                diff: request.diff.clone(),
                diff_commit: request.diff_commit.clone(),
                benchmarks: entries,
            },
        })
    }

    /// The filter that runs suite `suite`'s benchmarks of this share (a regex of their exact names,
    /// rho_suite::filter::exact), or `None` when the suite has none in it: then it is not run at all.
    pub fn filter_for(&self, suite: &str) -> Option<String> {
        let names = self.record.names_in(suite);
        (!names.is_empty()).then(|| rho_suite::filter::exact(&names))
    }

    /// Keeps only this share's benchmarks of `summary` (a harness that cannot take exact names, a board's,
    /// runs `bench_10` for `bench_1`, which another share owns).
    pub fn trim(&self, suite: &str, summary: &mut RunSummary) {
        let names = self.record.names_in(suite);
        summary
            .benchmarks
            .retain(|b| names.contains(&b.name.as_str()));
    }

    /// The line that says what this share runs.
    pub fn describe(&self) -> String {
        let record = &self.record;
        let mine = record
            .benchmarks
            .iter()
            .filter(|e| e.share == record.index)
            .count();
        let suites = |all: bool| {
            let mut seen: Vec<&str> = Vec::new();
            for entry in &record.benchmarks {
                if (all || entry.share == record.index) && !seen.contains(&entry.suite.as_str()) {
                    seen.push(&entry.suite);
                }
            }
            seen.len()
        };
        let mut line = format!(
            "shard {}: {mine} of {} benchmarks in {} of {} suites (partition {}, by {})",
            record.label(),
            record.benchmarks.len(),
            suites(false),
            suites(true),
            record.partition,
            if record.basis == "baseline" {
                "the committed baseline's costs"
            } else {
                "name: no baseline figures"
            }
        );
        if let Some(git_ref) = &record.diff {
            line.push_str(&format!(
                "; --diff {git_ref} is compared by `rho bench merge`, over the whole run"
            ));
        }
        line
    }
}

/// Lists suites with the user's filter. A suite whose harness lists (a C-file suite on the host,
/// rho_suite::Engine::list) is built by the run's engine and asked for its names, nothing run, and that
/// build is the one the share runs; any other is built and run once at the lowest scale, timed, as `rho
/// bench --list` does (its harness registers its benchmarks as it runs them). A suite that fails here fails
/// the share.
struct Lister<'e, 'a> {
    engine: &'e rho_suite::Engine<'a>,
    options: &'e RunOptions,
    /// The engine that lists by running, made when a suite first needs it.
    running: Option<rho_suite::Engine<'a>>,
}

impl<'e, 'a> Lister<'e, 'a> {
    fn new(engine: &'e rho_suite::Engine<'a>, options: &'e RunOptions) -> Lister<'e, 'a> {
        Lister {
            engine,
            options,
            running: None,
        }
    }

    /// Suite `index`'s benchmarks, in run order.
    fn list(&mut self, index: usize) -> Result<Vec<String>, Error> {
        if let Some(listed) = self.engine.list(index)? {
            return Ok(listed);
        }
        let running = match &mut self.running {
            Some(running) => running,
            None => self
                .running
                .insert(listing_engine(self.engine, self.options)?),
        };
        let run = running.run(index)?;
        Ok(run.summary.benchmarks.into_iter().map(|b| b.name).collect())
    }
}

/// The names the baseline's `section` records as suite `suite`'s, in its order (none for a version 3
/// baseline, which names no suites).
pub(crate) fn baseline_names(section: &rho_baseline::TargetBaseline, suite: &str) -> Vec<String> {
    section
        .benchmarks
        .iter()
        .filter(|b| b.suite.as_deref() == Some(suite))
        .map(|b| b.name.clone())
        .collect()
}

/// The share of suite `suite`'s first benchmark in run order: the one that lists it for the benchmarks the
/// baseline does not know.
pub fn owner(entries: &[Entry], suite: &str) -> Option<u32> {
    entries.iter().find(|e| e.suite == suite).map(|e| e.share)
}

/// Suite `suite`'s entries put in `listed`'s order, each listed name the baseline did not know added as
/// share `share`'s (no cost); the baseline's names no longer listed (removed from the code) stay after
/// them, run by nobody. A suite's entries are together, in run order.
pub(crate) fn add_unknown(entries: &mut Vec<Entry>, suite: &str, listed: Vec<String>, share: u32) {
    let Some(start) = entries.iter().position(|e| e.suite == suite) else {
        return;
    };
    let end = start
        + entries[start..]
            .iter()
            .take_while(|e| e.suite == suite)
            .count();
    let mut known: Vec<Entry> = entries.drain(start..end).collect();
    let mut segment = Vec::with_capacity(listed.len() + known.len());
    for name in listed {
        match known.iter().position(|e| e.name == name) {
            Some(at) => segment.push(known.remove(at)),
            None => segment.push(Entry {
                suite: suite.to_string(),
                name,
                cost: None,
                share,
            }),
        }
    }
    segment.extend(known);
    entries.splice(start..start, segment);
}

/// The engine that lists a suite by running it: every benchmark once, no warm-up, at the lowest scale, timed.
fn listing_engine<'a>(
    engine: &rho_suite::Engine<'a>,
    options: &RunOptions,
) -> Result<rho_suite::Engine<'a>, Error> {
    let listing = RunOptions {
        iterations: None,
        warmup: Some(0),
        scale: Some(rho_config::SCALE_RANGE.0),
        measure: Some(Measure::Time),
        cache_sim: false,
        // The listing run samples nothing: it only names the benchmarks.
        functions: None,
        profile: None,
        ..options.clone()
    };
    Ok(rho_suite::Engine::new(
        engine.config(),
        engine.target(),
        &listing,
        1,
    )?)
}

/// The committed baseline's section for this target and measure, or `None` when there is no baseline file
/// or no such section (the shares then go by name).
fn costs(
    config: &ModuleConfig,
    target: &TargetSpec,
    measure: Measure,
) -> Result<Option<rho_baseline::TargetBaseline>, Error> {
    let name = rho_suite::engine::streams_name(config, target).unwrap_or(target.name());
    costs_in(&config.baseline_path(), name, measure)
}

/// The section of the baseline file `path` for target `name` and `measure`, or `None` when there is no such
/// file or section.
pub(crate) fn costs_in(
    path: &Path,
    name: &str,
    measure: Measure,
) -> Result<Option<rho_baseline::TargetBaseline>, Error> {
    let file = match rho_baseline::read_file(path) {
        Ok(file) => file,
        Err(rho_baseline::Error::Missing { .. }) => return Ok(None),
        Err(error) => return Err(error.into()),
    };
    let Some(sections) = file.targets.get(name) else {
        return Ok(None);
    };
    let section = match measure {
        Measure::Instructions => sections.instructions.clone(),
        Measure::Time | Measure::Both => sections.time.clone(),
    };
    Ok(section)
}

/// What `name` cost in the baseline: its figure per iteration (instructions, else nanoseconds, else
/// cycles) times the iterations it did.
pub(crate) fn cost_of(section: &rho_baseline::TargetBaseline, name: &str) -> Option<f64> {
    let bench = section.benchmark(name)?;
    let per_iteration = bench
        .instructions
        .map(|n| n as f64)
        .or_else(|| bench.time_ns.map(|f| f.median.0))
        .or_else(|| bench.cycles.map(|f| f.median.0))?;
    Some(per_iteration * bench.iterations as f64)
}

/// `measure` as `--measure` spells it (and [`Measure::parse`] reads it).
pub fn measure_name(measure: Measure) -> &'static str {
    match measure {
        Measure::Time => "time",
        Measure::Instructions => "instructions",
        Measure::Both => "time,instructions",
    }
}

/// The commit checked out in `dir`'s repository, or `None` outside one (or without git).
pub(crate) fn head_commit(dir: &Path) -> Option<String> {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--verify", "--quiet", "HEAD"])
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let commit = String::from_utf8_lossy(&output.stdout).trim().to_string();
    (output.status.success() && !commit.is_empty()).then_some(commit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(entries: Vec<Entry>) -> Share {
        Share {
            record: ShardRecord {
                index: 1,
                count: 2,
                partition: "0".into(),
                commit: None,
                command: "bench".into(),
                measure: "time".into(),
                filter: None,
                basis: "names".into(),
                diff: None,
                diff_commit: None,
                benchmarks: entries,
            },
        }
    }

    #[test]
    fn a_suite_with_nothing_in_the_share_gets_no_filter_and_is_not_run() {
        let entries = assign(
            vec![
                ("a.c".into(), "bench_1".into(), None),
                ("a.c".into(), "bench_10".into(), None),
                ("b.c".into(), "bench_2".into(), None),
            ],
            2,
        );
        // Sorted a.c/bench_1, a.c/bench_10, b.c/bench_2 -> 1, 2, 1.
        let share = share(entries);
        assert_eq!(share.filter_for("a.c").as_deref(), Some("^bench_1$"));
        assert_eq!(share.filter_for("b.c").as_deref(), Some("^bench_2$"));
        let mut other = share.clone();
        other.record.index = 2;
        assert_eq!(other.filter_for("b.c"), None);
        assert!(
            share
                .describe()
                .starts_with("shard 1/2: 2 of 3 benchmarks in 2 of 2 suites")
        );
    }

    #[test]
    fn the_owner_puts_unknown_benchmarks_in_listed_order_and_keeps_removed_ones_last() {
        let mut entries = assign(
            vec![
                ("a.c".into(), "x".into(), Some(5.0)),
                ("a.c".into(), "gone".into(), Some(4.0)),
                ("a.c".into(), "y".into(), Some(3.0)),
                ("b.c".into(), "z".into(), Some(1.0)),
            ],
            2,
        );
        // x(5) -> 1, gone(4) -> 2, y(3) -> 2, z(1) -> 1: a.c's owner is share 1, b.c's share 1.
        assert_eq!(owner(&entries, "a.c"), Some(1));
        assert_eq!(owner(&entries, "b.c"), Some(1));
        add_unknown(
            &mut entries,
            "a.c",
            vec!["new".into(), "x".into(), "y".into()],
            1,
        );
        let order: Vec<(&str, u32)> = entries.iter().map(|e| (e.name.as_str(), e.share)).collect();
        assert_eq!(
            order,
            [("new", 1), ("x", 1), ("y", 2), ("gone", 2), ("z", 1)]
        );
        assert_eq!(entries[0].cost, None);
    }
}
