//! A suite given as files (`rho bench FILE.c...`): built for the host or for a built-in target, run
//! `repetitions` times and, when counting, once under Callgrind, then folded into one summary.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rho_config::Measure;
use rho_stats::RunSummary;

use crate::board::Board;
use crate::cfiles::{BuildOptions, BuiltSuite, Flags};
use crate::error::{Result, SuiteError};
use crate::footprint::{MemCommand, MemDocument};
use crate::stream::HarnessSettings;

/// What a suite of files is measured with, the same on every target.
#[derive(Debug)]
pub struct FilesInputs<'a> {
    pub files: &'a [PathBuf],
    /// How the suite is named in messages.
    pub what: &'a str,
    pub settings: &'a HarnessSettings,
    pub flags: &'a Flags,
    pub timeout: Duration,
    pub repetitions: u32,
    pub measure: Measure,
    /// Callgrind's cache simulation, with instructions.
    pub cache_sim: bool,
    /// With instructions: the functions each benchmark keeps (`--functions N`; 0: none); sampled, as many.
    pub functions: usize,
    /// Timed on the host: the benchmarks whose measured loop `perf record` samples, in a run of its own each.
    pub sample: crate::sample::Asked<'a>,
    /// Where the footprint command runs.
    pub cwd: &'a Path,
}

/// A suite of files measured on one target: its summary (the footprint not yet attached), how it was
/// built, and the footprint command's answer.
#[derive(Debug)]
pub struct FilesRun {
    pub summary: RunSummary,
    pub compiler: Vec<String>,
    pub cflags: Vec<String>,
    pub ldflags: Vec<String>,
    pub footprint: std::result::Result<MemDocument, String>,
    /// Per benchmark asked to be sampled and not: its name and why (no perf, no permission, a board).
    pub sampling_notes: Vec<(String, String)>,
}

/// A suite of files built for the host, kept so that one build is both listed ([`HostFiles::list`]) and run
/// ([`measure_files_built`]): a share of `rho bench FILE.c --shard K/N` builds once.
#[derive(Debug)]
pub struct HostFiles {
    built: BuiltSuite,
}

impl HostFiles {
    /// Builds `inputs.files` for the host.
    pub fn build(inputs: &FilesInputs<'_>) -> Result<HostFiles> {
        let built = crate::cfiles::build(
            inputs.files,
            &BuildOptions {
                flags: inputs.flags.clone(),
                timeout: inputs.timeout,
            },
        )?;
        Ok(HostFiles { built })
    }

    /// The benchmarks `inputs.settings`' filter selects, in run order, as the harness lists them
    /// (`RHO_BENCH_LIST=1`, [`crate::listing`]): no benchmark body runs.
    pub fn list(&self, inputs: &FilesInputs<'_>) -> Result<Vec<String>> {
        let mut names = self.list_all(inputs)?;
        if let Some(filter) = crate::filter::compiled(inputs.settings.filter.as_deref())? {
            names.retain(|name| filter.matches(name));
        }
        Ok(names)
    }

    /// Every benchmark of the suite, whatever the filter, as the harness lists them.
    pub fn list_all(&self, inputs: &FilesInputs<'_>) -> Result<Vec<String>> {
        let mut command = std::process::Command::new(&self.built.executable);
        command.envs(inputs.settings.environment());
        command.env_remove(crate::filter::FILTER_VARIABLE);
        crate::listing::list_program(command, inputs.what, inputs.timeout)
    }
}

/// Build `inputs.files` for `target` (the host for `None` or `host`), run and summarise them. The footprint
/// is asked for while the build directory is there (the board's, or the host build's).
pub fn measure_files(target: Option<&str>, inputs: &FilesInputs<'_>) -> Result<FilesRun> {
    measure_files_built(target, inputs, None)
}

/// [`measure_files`], on the host running `built` when given (a build already listed) instead of building.
pub fn measure_files_built(
    target: Option<&str>,
    inputs: &FilesInputs<'_>,
    built: Option<HostFiles>,
) -> Result<FilesRun> {
    // Counting needs Valgrind: said before anything is built.
    let counter = match (inputs.measure.counts(), target) {
        (true, None | Some("host")) => {
            Some(crate::count::Counter::find(inputs.cache_sim)?.keeping_functions(inputs.functions))
        }
        _ => None,
    };
    let mem_command = MemCommand::resolve(None, inputs.cwd)?;
    let filter = crate::filter::compiled(inputs.settings.filter.as_deref())?;
    let ran = match Board::for_target(target)? {
        Some(board) => {
            let built = board.build_and_run(
                inputs.files,
                inputs.what,
                inputs.settings,
                inputs.flags,
                inputs.repetitions,
                inputs.timeout,
            )?;
            Ran {
                footprint: crate::footprint::ask(&mem_command, &built.files, inputs.timeout),
                sampled: not_on_a_board(&inputs.sample),
                runs: built.runs,
                counted: built.counted.map(rho_stats::CountedRun::from),
                compiler: built.compiler,
                cflags: built.cflags,
                ldflags: built.ldflags,
            }
        }
        None => {
            let built = match built {
                Some(host) => host,
                None => HostFiles::build(inputs)?,
            };
            match &filter {
                // The suite's listing names the benchmarks the regex matches, and the harness runs them
                // (a listing costs the suite's start-up): none matched is an error naming some that exist.
                Some(filter) => {
                    let listed = built.list_all(inputs)?;
                    let named: Vec<&String> =
                        listed.iter().filter(|name| filter.matches(name)).collect();
                    if named.is_empty() {
                        return Err(SuiteError::NoMatch(filter.no_match(&listed)));
                    }
                    let settings = HarnessSettings {
                        filter: Some(crate::filter::exact(&named)),
                        ..inputs.settings.clone()
                    };
                    let inputs = FilesInputs {
                        settings: &settings,
                        ..*inputs
                    };
                    on_host(&inputs, counter.as_ref(), &mem_command, built)?
                }
                None => on_host(inputs, counter.as_ref(), &mem_command, built)?,
            }
        }
    };
    let mut summary = crate::count::summarise(
        &ran.runs,
        ran.counted.as_ref(),
        inputs.functions,
        inputs.what,
    )?;
    let sampling_notes = crate::sample::attach(&mut summary, ran.sampled, inputs.functions);
    // Whatever the harness was told, the report holds exactly the names the filter matches.
    if let Some(filter) = &filter {
        let ran: Vec<String> = summary.benchmarks.iter().map(|b| b.name.clone()).collect();
        summary.benchmarks.retain(|b| filter.matches(&b.name));
        if summary.benchmarks.is_empty() {
            return Err(SuiteError::NoMatch(filter.no_match(&ran)));
        }
    }
    Ok(FilesRun {
        summary,
        sampling_notes,
        compiler: ran.compiler,
        cflags: ran.cflags,
        ldflags: ran.ldflags,
        footprint: ran.footprint,
    })
}

/// The runs of a suite of files and how it was built, before they are folded.
struct Ran {
    runs: Vec<rho_wire::Run>,
    counted: Option<rho_stats::CountedRun>,
    compiler: Vec<String>,
    cflags: Vec<String>,
    ldflags: Vec<String>,
    footprint: std::result::Result<MemDocument, String>,
    sampled: crate::sample::Outcomes,
}

/// A board's run is not sampled: each benchmark asked says so.
fn not_on_a_board(asked: &crate::sample::Asked<'_>) -> crate::sample::Outcomes {
    let why = "a board's run is not sampled (perf samples host processes); --measure instructions counts \
               the loop exactly";
    match asked {
        crate::sample::Asked::One(name) => vec![(name.to_string(), Err(why.to_string()))],
        _ => Vec::new(),
    }
}

/// The suite built on the host and run there, timed and counted.
fn on_host(
    inputs: &FilesInputs<'_>,
    counter: Option<&crate::count::Counter>,
    mem_command: &MemCommand,
    built: HostFiles,
) -> Result<Ran> {
    let built = built.built;
    let mut runs = Vec::new();
    if inputs.measure.times() {
        for _ in 0..inputs.repetitions {
            runs.push(crate::stream::run_suite(
                &built.executable,
                inputs.what,
                inputs.settings,
                inputs.timeout,
            )?);
        }
    }
    let mut counted = None;
    if let Some(counter) = counter {
        let env = inputs
            .settings
            .environment()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let env = crate::count::environment(
            env,
            inputs.settings.iterations.is_some(),
            inputs.settings.warmup.is_some(),
        );
        counted = Some(counter.run(&built.executable, &env, None, inputs.what, inputs.timeout)?);
    }
    let ran = runs.first().map_or(&[][..], |run| &run.benchmarks[..]);
    let env = crate::sample::Program::environment(inputs.settings);
    let sampled = crate::sample::sample_asked(
        &inputs.sample,
        ran,
        &built.executable,
        &crate::sample::Program {
            env: &env,
            dir: None,
        },
        inputs.timeout,
    );
    let footprint = crate::footprint::ask(mem_command, &built.image_files(), inputs.timeout);
    let mut cflags: Vec<String> = crate::cfiles::BASE_FLAGS
        .iter()
        .map(|f| f.to_string())
        .collect();
    cflags.extend(inputs.flags.cflags.iter().cloned());
    let mut ldflags = inputs.flags.ldflags.clone();
    ldflags.extend(crate::cfiles::DEFAULT_LIBS.iter().map(|f| f.to_string()));
    Ok(Ran {
        runs,
        counted,
        sampled,
        compiler: crate::cfiles::compiler_for(inputs.files)?,
        cflags,
        ldflags,
        footprint,
    })
}
