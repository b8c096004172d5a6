//! `--measure time` with `--profile NAME` (or `--functions N`): where a benchmark's time goes, function by
//! function, sampled by `perf record` in a run of its own after the timed ones (their figures are not touched).
//!
//! The suite runs again, only the benchmark asked for (`RHO_BENCH_FILTER`), under `perf record -D -1
//! --control fd:C,A`: perf starts with its event off, and the harness (c/include/rho/bench.h, "Sampling")
//! turns it on when the benchmark's first measured iteration is next and off when its loop ends, so the
//! samples are those of the measured loop alone. The event asked is `cycles`; where the PMU has no cycle
//! counter perf falls back to `cpu-clock`, and the event it really sampled is read back (`perf evlist`).
//! Call chains are unwound from a copy of the stack (`--call-graph dwarf`): rho builds suites without frame
//! pointers, and a frame-pointer chain would skip every caller of a function that does not keep one (libc's).
//! The copy must reach from the sampled function up to the benchmark's own frame, or the chain stops short and
//! every caller loses its inclusive share (perf's default copy, 8 KB, cut every chain of a benchmark with a 16
//! KB frame: each function read inclusive = self). So it is sized from the stack the timed run measured for
//! the benchmark (`@stack`, plus [`STACK_COPY_MARGIN`]; perf's largest, 65528 bytes, when unknown), and the
//! rate lowered as it grows so that a second of samples copies what 2000 a second of 8 KB did (perf's default
//! rate is 4000).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rho_exec::{InheritedPipe, ScratchDir};
use rho_profile::perf::Samples;

use crate::error::{Doing as _, Result, SuiteError};
use crate::stream::HarnessSettings;

/// Samples a second with the smallest stack copy, per benchmark run.
const FREQUENCY: u64 = 2000;
/// The fewest samples a second, whatever the copy.
const MIN_FREQUENCY: u64 = 250;
/// The smallest stack copy, perf's default; and the largest perf takes (`--call-graph dwarf,SIZE`: a multiple
/// of 8 below 64 KB).
const MIN_STACK_COPY: u64 = 8192;
const MAX_STACK_COPY: u64 = 65528;
/// Above the benchmark's measured stack: its own frame's return address and the harness's frames.
const STACK_COPY_MARGIN: u64 = 2048;

/// The stack perf copies per sample for a benchmark whose measured loop used `stack` (the timed run's mark),
/// and the samples a second that keeps the bytes copied a second to those of [`FREQUENCY`] 8 KB copies.
fn stack_copy(stack: rho_wire::StackMark) -> (u64, u64) {
    let used = match stack {
        rho_wire::StackMark::Bytes(bytes) => bytes.saturating_add(STACK_COPY_MARGIN),
        rho_wire::StackMark::Overrun | rho_wire::StackMark::Off => MAX_STACK_COPY,
    };
    let copy = used
        .next_multiple_of(8)
        .clamp(MIN_STACK_COPY, MAX_STACK_COPY);
    let frequency = (FREQUENCY * MIN_STACK_COPY / copy).max(MIN_FREQUENCY);
    (copy, frequency)
}

/// `perf`, found on the PATH.
#[derive(Debug)]
pub struct Sampler {
    perf: PathBuf,
}

/// One benchmark's samples and the event perf took them on.
#[derive(Debug)]
pub struct Sampled {
    pub event: String,
    pub samples: Samples,
}

impl Sampler {
    /// `perf` on the PATH; why not as an error the caller words as a hint.
    pub fn find() -> Result<Sampler> {
        crate::tools::find_on_path("perf")
            .map(|perf| Sampler { perf })
            .ok_or_else(|| {
                SuiteError::Unsupported(
                    "`perf` is not on the PATH (Debian/Ubuntu: apt-get install linux-perf)"
                        .to_string(),
                )
            })
    }

    /// Benchmark `bench` of the suite `executable` (run in `program`'s directory with its environment), its
    /// measured loop sampled; `stack` is the stack its timed run measured (what the stack copy must cover).
    pub fn sample(
        &self,
        executable: &Path,
        program: &Program<'_>,
        bench: &str,
        stack: rho_wire::StackMark,
        timeout: Duration,
    ) -> Result<Sampled> {
        let scratch = ScratchDir::new("rho-perf-")
            .doing(|| "cannot create a directory for perf's data".to_string())?;
        let data = scratch.path().join("perf.data");
        let pipes = (|| Ok::<_, std::io::Error>((InheritedPipe::new()?, InheritedPipe::new()?)))()
            .doing(|| "cannot make the pipes perf is controlled through".to_string())?;
        let (control, ack) = pipes;
        let (copy, frequency) = stack_copy(stack);
        let mut perf = Command::new(&self.perf);
        perf.args(["record", "--quiet", "-e", "cycles:u", "-F"])
            .arg(frequency.to_string())
            .args(["--call-graph", &format!("dwarf,{copy}"), "-D", "-1"])
            .arg(format!(
                "--control=fd:{},{}",
                control.read_fd(),
                ack.write_fd()
            ))
            .arg("-o")
            .arg(&data)
            .arg("--")
            .arg(executable)
            .envs(program.env.iter().map(|(k, v)| (k, v)))
            // That benchmark alone (`^NAME$`), not every name holding it.
            .env(
                crate::filter::FILTER_VARIABLE,
                crate::filter::exact_terms(&[bench]).unwrap_or_else(|| bench.to_owned()),
            )
            .env(
                "RHO_BENCH_PERF_CONTROL",
                format!("{},{},{bench}", control.write_fd(), ack.read_fd()),
            );
        if let Some(dir) = program.dir {
            perf.current_dir(dir);
        }
        let run = crate::stream::run_stream(perf, &format!("{bench} under perf record"), timeout);
        drop((control, ack));
        let run = run?;
        if !run.benchmarks.iter().any(|b| b.name == bench) {
            return Err(SuiteError::Run(format!(
                "the suite has no benchmark {bench} to sample"
            )));
        }
        let event = self.read(&data, &["evlist", "-i"], &[])?;
        let script = self.read(&data, &["script", "-i"], &["-F", "ip,sym", "--no-inline"])?;
        let root = bench.split('/').next().unwrap_or(bench);
        let samples = rho_profile::perf::samples(&script, root);
        if samples.total == 0 {
            return Err(SuiteError::Run(format!(
                "perf recorded no sample in {bench}'s measured loop"
            )));
        }
        Ok(Sampled {
            event: rho_profile::perf::event_name(&event).unwrap_or_else(|| "unknown".to_string()),
            samples,
        })
    }

    /// `perf SUBCOMMAND -i DATA ARGS...`'s stdout.
    fn read(&self, data: &Path, subcommand: &[&str], args: &[&str]) -> Result<String> {
        let output = Command::new(&self.perf)
            .args(subcommand)
            .arg(data)
            .args(args)
            .output()
            .map_err(|source| SuiteError::Io {
                doing: format!("cannot run perf {}", subcommand[0]),
                source,
            })?;
        if !output.status.success() {
            return Err(SuiteError::Run(format!(
                "perf {} failed: {}",
                subcommand[0],
                rho_exec::escape_text(String::from_utf8_lossy(&output.stderr).trim())
            )));
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// Which benchmarks a timed run samples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Asked<'a> {
    /// None (the default: sampling is a run more per benchmark).
    #[default]
    Nothing,
    /// `--profile NAME`.
    One(&'a str),
    /// `--functions N` given in time mode: every benchmark the timed run ran.
    Every,
}

impl<'a> Asked<'a> {
    /// What a run measured with `measure` samples: none when it counts (Callgrind's counts are exact);
    /// timed, every benchmark with `--functions N` (N > 0), else the one `--profile NAME` names.
    pub fn of(
        measure: rho_config::Measure,
        profile: Option<&'a str>,
        functions: Option<usize>,
    ) -> Self {
        if measure.counts() {
            return Asked::Nothing;
        }
        match (profile, functions) {
            (_, Some(n)) if n > 0 => Asked::Every,
            (Some(name), _) => Asked::One(name),
            _ => Asked::Nothing,
        }
    }
}

/// How a suite's program is run besides its executable: its environment (the harness settings) and the
/// directory it runs in (`None`: rho's own).
#[derive(Debug, Clone, Copy)]
pub struct Program<'a> {
    pub env: &'a [(String, String)],
    pub dir: Option<&'a Path>,
}

impl Program<'_> {
    /// The harness `settings` as environment pairs, for a [`Program`] of a suite of files.
    pub fn environment(settings: &HarnessSettings) -> Vec<(String, String)> {
        settings
            .environment()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }
}

/// What sampling gave, per benchmark asked: its samples, or why there are none.
pub type Outcomes = Vec<(String, std::result::Result<Sampled, String>)>;

/// Samples each benchmark `asked` names among those `ran` (the timed run's blocks, whose stack marks size the
/// copies); nothing asked, nothing run. Without perf, one outcome says why for every benchmark asked.
pub fn sample_asked(
    asked: &Asked<'_>,
    ran: &[rho_wire::Benchmark],
    executable: &Path,
    program: &Program<'_>,
    timeout: Duration,
) -> Outcomes {
    let names: Vec<String> = match asked {
        Asked::Nothing => return Vec::new(),
        Asked::One(name) => vec![name.to_string()],
        Asked::Every => ran.iter().map(|bench| bench.name.clone()).collect(),
    };
    let sampler = match Sampler::find() {
        Ok(sampler) => sampler,
        Err(why) => {
            return names
                .into_iter()
                .map(|n| (n, Err(one_line(&why.to_string()))))
                .collect();
        }
    };
    names
        .into_iter()
        .map(|name| {
            let stack = ran
                .iter()
                .find(|bench| bench.name == name)
                .map_or(rho_wire::StackMark::Off, |bench| bench.stack);
            let sampled = sampler
                .sample(executable, program, &name, stack, timeout)
                .map_err(|why| one_line(&why.to_string()));
            (name, sampled)
        })
        .collect()
}

/// `text` on one line (perf's stderr, quoted in a failure, has several): a hint is one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Puts each outcome's functions (the top `limit`) on its benchmark in `summary`, scaled by the timed run's
/// net median ns per iteration; returns each that has none and why.
pub fn attach(
    summary: &mut rho_stats::RunSummary,
    outcomes: Outcomes,
    limit: usize,
) -> Vec<(String, String)> {
    let mut notes = Vec::new();
    for (name, outcome) in outcomes {
        let bench = summary.benchmarks.iter_mut().find(|b| b.name == name);
        let ns = bench
            .as_ref()
            .and_then(|b| b.time.as_ref()?.net_median_ns());
        match (outcome, bench, ns) {
            (Ok(sampled), Some(bench), Some(ns)) => {
                let sampling = rho_profile::perf::Sampling {
                    event: sampled.event,
                    samples: sampled.samples.total,
                    call_graph: "dwarf".to_string(),
                    ns_per_iteration: ns,
                };
                bench.sampled_functions = Some(rho_profile::perf::functions(
                    &sampled.samples,
                    sampling,
                    limit.max(1),
                ));
            }
            (Err(why), _, _) => notes.push((name, why)),
            (Ok(_), _, _) => notes.push((
                name,
                "the timed run has no time figures to scale by".to_string(),
            )),
        }
    }
    notes
}
