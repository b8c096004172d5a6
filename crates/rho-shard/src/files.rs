//! `rho bench FILE.c... --shard K/N`: a share of a suite of files, and `rho bench merge` of such shares back
//! into the `rho-bench-run/1` document the unsharded run writes (docs/ci.md, "A suite of files").
//!
//! The suite is one suite of the partition ([`crate::partition`]): its benchmarks named by the baseline
//! `--diff` reads (`bench/baseline.json` in the current directory) when it is version 4 and names the suite,
//! else listed (on the host by the harness from the build the share then runs, on a board by a run at the
//! lowest scale); costed from that baseline when it has the target's section, by name otherwise; the share runs with `RHO_BENCH_FILTER` set to its
//! names ([`Share::filter_for`]) and keeps only its own ([`Share::trim`]). The merge refuses what the merge
//! of module shares refuses ([`crate::merge`]), plus shares built by another compiler.

use rho_baseline::export::SuiteInfo;
use rho_compare::plan::Plan;
use rho_config::Measure;
use rho_stats::RunSummary;
use rho_suite::stream::HarnessSettings;
use rho_suite::{FilesInputs, HostFiles};
use serde::Deserialize;

use crate::error::Error;
use crate::merge::{RunOf, in_order, same_run};
use crate::partition::{assign, identity};
use crate::record::ShardRecord;
use crate::share::{
    Share, add_unknown, baseline_names, cost_of, costs_in, head_commit, measure_name, owner,
};
use crate::spec::Shard;

/// The share of the suite of files `inputs` on built-in `target` (the host for `None`), planned before it
/// runs, the baseline's `plan` with the comparison taken out (the merge compares the whole run, at the
/// commit recorded here), and the host build that listed the suite, which the share runs (one build a
/// share). `--write-baseline` is refused, as is a share that would hold no benchmark.
///
/// As a module's share ([`crate::share::Share::plan`]): a version 4 baseline that names the suite (and no
/// `--filter`) gives its names and costs; then only the share holding its first benchmark lists it, for the
/// benchmarks the baseline does not know. Otherwise every share lists it.
pub fn plan_run(
    target: Option<&str>,
    inputs: &FilesInputs<'_>,
    shard: Shard,
    diff: &Option<String>,
    plan: Plan,
) -> Result<(Share, Plan, Option<HostFiles>), Error> {
    if plan.write {
        return Err(Error::WriteBaseline {
            shard: shard.to_string(),
        });
    }
    let target_name = target.unwrap_or("host");
    let costs = costs_in(&plan.path, target_name, inputs.measure)?;
    let named = match (&costs, &inputs.settings.filter) {
        (Some(section), None) => baseline_names(section, inputs.what),
        _ => Vec::new(),
    };
    let from_baseline = !named.is_empty();
    let mut built = None;
    let names = if from_baseline {
        named
    } else {
        list(target, inputs, &mut built)?
    };
    let benchmarks: Vec<(String, String, Option<f64>)> = names
        .into_iter()
        .map(|name| {
            let cost = costs.as_ref().and_then(|c| cost_of(c, &name));
            (inputs.what.to_string(), name, cost)
        })
        .collect();
    let mut entries = assign(benchmarks, shard.count);
    if !entries.iter().any(|e| e.share == shard.index) {
        return Err(Error::EmptyShare {
            shard: shard.to_string(),
            benchmarks: entries.len(),
        });
    }
    let partition = identity(
        shard.count,
        &[inputs.what, target_name, &run_settings(inputs)],
        &entries,
    );
    // After the identity, which every share computes alike: what only the owner of the suite learns.
    if from_baseline && owner(&entries, inputs.what) == Some(shard.index) {
        let listed = list(target, inputs, &mut built)?;
        add_unknown(&mut entries, inputs.what, listed, shard.index);
    }
    let record = ShardRecord {
        index: shard.index,
        count: shard.count,
        partition,
        commit: head_commit(inputs.cwd),
        command: "bench".to_string(),
        measure: measure_name(inputs.measure).to_string(),
        filter: inputs.settings.filter.clone(),
        basis: if costs.is_some() { "baseline" } else { "names" }.to_string(),
        diff: diff.clone(),
        diff_commit: plan.base.as_ref().map(|(_, source)| source.commit.clone()),
        benchmarks: entries,
    };
    let plan = Plan {
        base: None,
        markdown: None,
        ..plan
    };
    Ok((Share { record }, plan, built))
}

/// The run's settings, as the partition's identity holds them: shares run alike or refuse to merge.
fn run_settings(inputs: &FilesInputs<'_>) -> String {
    let settings = inputs.settings;
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {} {} {}",
        settings.iterations,
        settings.warmup,
        settings.scale,
        settings.filter,
        inputs.flags.cflags,
        inputs.flags.ldflags,
        measure_name(inputs.measure),
        inputs.cache_sim,
        inputs.repetitions
    )
}

/// The suite's benchmarks in run order, with the user's filter. On the host the suite is built into `built`
/// and its harness lists them (`RHO_BENCH_LIST=1`, nothing run), and the share runs that build. A board's
/// image has its filter compiled in, so a listing there is a build run once at the lowest scale, timed (as
/// `rho bench --list FILE.c` does), and the share builds again with its own filter.
fn list(
    target: Option<&str>,
    inputs: &FilesInputs<'_>,
    built: &mut Option<HostFiles>,
) -> Result<Vec<String>, Error> {
    if matches!(target, None | Some("host")) {
        let host = match built.take() {
            Some(host) => host,
            None => HostFiles::build(inputs)?,
        };
        let names = host.list(inputs)?;
        *built = Some(host);
        return Ok(names);
    }
    let settings = HarnessSettings {
        iterations: None,
        warmup: Some(0),
        scale: Some(rho_config::SCALE_RANGE.0),
        filter: inputs.settings.filter.clone(),
    };
    let listing = FilesInputs {
        settings: &settings,
        measure: Measure::Time,
        cache_sim: false,
        functions: 0,
        sample: rho_suite::sample::Asked::Nothing,
        repetitions: 1,
        ..*inputs
    };
    let run = rho_suite::measure_files(target, &listing)?;
    Ok(run.summary.benchmarks.into_iter().map(|b| b.name).collect())
}

/// Whether `text` is a suite of files' run document (`rho-bench-run/1`), which a share of `rho bench FILE.c
/// --shard K/N` is.
pub fn is_run_document(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Schema {
        schema: Option<String>,
    }
    serde_json::from_str::<Schema>(text)
        .is_ok_and(|s| s.schema.as_deref() == Some(rho_baseline::saved::RUN_SCHEMA))
}

/// The shares of a suite of files put back together: the unsharded run's suite and summary.
#[derive(Debug)]
pub struct FileShares {
    /// The first share's record (the partition, commit and `--diff` every share has).
    pub record: ShardRecord,
    /// How the suite was built and run (the first share's; on a board it names that share's filter).
    pub suite: SuiteInfo,
    /// What ran (the suite's files, space-separated).
    pub what: String,
    /// The run: the summary of the share holding the first benchmark, with every benchmark in run order
    /// from the share that ran it.
    pub summary: RunSummary,
}

/// The top level of a file share's document.
#[derive(Deserialize)]
struct FileShareDocument {
    rho_version: String,
    suite: SuiteInfo,
    shard: Option<ShardRecord>,
}

/// One file share read.
struct Read {
    file: String,
    document: FileShareDocument,
    record: ShardRecord,
    what: String,
    summary: RunSummary,
}

impl Read {
    fn run(&self) -> RunOf<'_> {
        RunOf {
            file: &self.file,
            rho_version: &self.document.rho_version,
            target: &self.summary.target.name,
            record: &self.record,
        }
    }
}

/// Reads the shares of a suite of files (`(file name, text)`, in any order) and merges them; refuses shares
/// of different runs (and of a suite built otherwise), a share twice and a missing share, naming them.
pub fn merge(files: &[(String, String)]) -> Result<FileShares, Error> {
    let shares = crate::merge::read_all(files, read)?;
    let first = &shares[0];
    for share in &shares[1..] {
        same_run(&first.run(), &share.run())?;
        same_build(first, share)?;
    }
    let indices: Vec<(u32, &str)> = shares
        .iter()
        .map(|s| (s.record.index, s.file.as_str()))
        .collect();
    let order = in_order(first.record.count, &indices)?;
    let ordered: Vec<&Read> = order.iter().map(|at| &shares[*at]).collect();
    // The suite's owner (the share of its first benchmark; the partitions are equal, so any share's record
    // says which) listed it, so only its record also holds the benchmarks the baseline did not know.
    let holder = first
        .record
        .benchmarks
        .first()
        .map_or(0, |e| e.share as usize - 1);
    let owning = ordered[holder];
    let mut benchmarks = Vec::new();
    for entry in &owning.record.benchmarks {
        let share = ordered[entry.share as usize - 1];
        let Some(bench) = share
            .summary
            .benchmarks
            .iter()
            .find(|b| b.name == entry.name)
        else {
            return Err(Error::NotAShare {
                file: share.file.clone(),
                why: format!(
                    "share {} has no benchmark {}, which its partition gives it",
                    share.record.label(),
                    entry.name
                ),
            });
        };
        benchmarks.push(bench.clone());
    }
    let mut summary = owning.summary.clone();
    summary.benchmarks = benchmarks;
    Ok(FileShares {
        record: owning.record.clone(),
        suite: first.document.suite.clone(),
        what: first.what.clone(),
        summary,
    })
}

/// A file share's document read and checked: a `rho-bench-run/1` with a `shard` record whose share is in
/// range, and its summary (checked as every saved run is, rho_baseline::saved).
fn read(file: &str, text: &str) -> Result<Read, Error> {
    let not_a_share = |why: String| Error::NotAShare {
        file: file.to_string(),
        why,
    };
    let mut suites = rho_baseline::saved::parse(text, file)?;
    let document: FileShareDocument = serde_json::from_str(text).map_err(|e| {
        not_a_share(format!(
            "line {} column {}: {e} (expected a `rho bench FILE.c --shard K/N --json` document)",
            e.line(),
            e.column()
        ))
    })?;
    let Some(record) = document.shard.clone() else {
        return Err(not_a_share(
            "no \"shard\" object: written without --shard K/N".to_string(),
        ));
    };
    if record.index == 0 || record.index > record.count {
        return Err(not_a_share(format!(
            "shard {}: expected K/N with 1 <= K <= N",
            record.label()
        )));
    }
    let Some(saved) = suites.pop().filter(|_| suites.is_empty()) else {
        return Err(not_a_share(
            "not one suite: expected a `rho bench FILE.c --shard K/N --json` document".to_string(),
        ));
    };
    Ok(Read {
        file: file.to_string(),
        document,
        record,
        what: saved.what,
        summary: saved.summary,
    })
}

/// Refuses `share` unless its suite is `first`'s, built alike (the files, the compiler and the linker's
/// flags; the compiler's flags and settings are in the partition's identity).
fn same_build(first: &Read, share: &Read) -> Result<(), Error> {
    let (a, b) = (&first.document.suite, &share.document.suite);
    let what = if first.what != share.what {
        Some(format!("files {} against {}", share.what, first.what))
    } else if a.compiler != b.compiler || a.ldflags != b.ldflags {
        Some(format!(
            "built with {} against {}",
            [b.compiler.clone(), b.ldflags.clone()].concat().join(" "),
            [a.compiler.clone(), a.ldflags.clone()].concat().join(" ")
        ))
    } else {
        None
    };
    Error::unless_same(what, &share.file, &first.file)
}
