//! The gate's scratch directory and one shell command of a side (a build or a run): its process group, its
//! timeout, its environment, and the error that quotes its stderr.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rho_exec::{LineControl, Runner, ScratchDir};

use crate::error::{CommandFailure, GateError, SideName};
use crate::metrics::StdoutMetrics;

/// How many trailing stderr lines a failure message quotes.
const STDERR_TAIL_LINES: usize = 12;

/// A scratch directory of the gate: the harness header and one build directory per side. Removed on drop
/// and on Ctrl-C.
pub(crate) struct Scratch {
    pub(crate) include: PathBuf,
    out_base: PathBuf,
    out_head: PathBuf,
    dir: ScratchDir,
}

impl Scratch {
    pub(crate) fn create(bench_header: &str) -> Result<Scratch, GateError> {
        let dir = ScratchDir::new("rho-gate-")
            .map_err(|e| GateError::io("cannot create the gate's temporary directory", e))?;
        let include = dir.path().join("include");
        let header_dir = include.join("rho");
        let out_base = dir.path().join("out-base");
        let out_head = dir.path().join("out-head");
        for path in [&header_dir, &out_base, &out_head] {
            std::fs::create_dir_all(path)
                .map_err(|e| GateError::io(format!("cannot create {}", path.display()), e))?;
        }
        let header = header_dir.join("bench.h");
        std::fs::write(&header, bench_header)
            .map_err(|e| GateError::io(format!("cannot write {}", header.display()), e))?;
        Ok(Scratch {
            include,
            out_base,
            out_head,
            dir,
        })
    }

    /// A path for a file of the gate's own in its temporary directory (removed with it).
    pub(crate) fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A fresh build directory for job `job` of `side`.
    pub(crate) fn out(&self, side: SideName, job: usize) -> Result<PathBuf, GateError> {
        let dir = match side {
            SideName::Base => &self.out_base,
            SideName::Head => &self.out_head,
        }
        .join(format!("job{job}"));
        std::fs::create_dir_all(&dir)
            .map_err(|e| GateError::io(format!("cannot create {}", dir.display()), e))?;
        Ok(dir)
    }
}

/// One build or run of one job of one side.
pub(crate) struct Shell<'a> {
    pub(crate) side: SideName,
    pub(crate) command: &'a str,
    pub(crate) dir: &'a Path,
    pub(crate) env: &'a [(String, String)],
    pub(crate) job_env: &'a [(String, String)],
    pub(crate) include: &'a Path,
    pub(crate) out: &'a Path,
    pub(crate) timeout: Duration,
}

/// How a `sh` is started beyond its command and environment: the program it runs under (a build's
/// `strace ... --`, recording what it reads; crate::build), the variables taken out of its environment, and
/// the descriptors it keeps open (a lock-step run's pipes, crate::lockstep, made close-on-exec so that
/// no other child holds them) and the time it waits on the other side, which is not its own.
#[derive(Debug, Clone, Default)]
pub(crate) struct Launch {
    pub(crate) under: Vec<std::ffi::OsString>,
    pub(crate) unset: Vec<String>,
    pub(crate) keep_open: Vec<std::os::fd::RawFd>,
    /// Time the run waits on the other side (a lock-step run's turns), added to its timeout as it accrues.
    pub(crate) paused: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// The one CPU the run is held to (a lock-step run's, with the other side's; Linux only).
    pub(crate) cpu: Option<usize>,
}

impl Shell<'_> {
    /// Run it; its wall time and what its stdout holds of metrics (read as it arrives: see [`StdoutMetrics`]),
    /// or an error that says what failed and quotes the end of its stderr. `what` is `build` or `run 2 of 3`.
    pub(crate) fn run(&self, what: &str) -> Result<(Duration, StdoutMetrics), GateError> {
        self.run_launched(what, &Launch::default())
    }

    /// [`Shell::run`], started as `launch` says.
    pub(crate) fn run_launched(
        &self,
        what: &str,
        launch: &Launch,
    ) -> Result<(Duration, StdoutMetrics), GateError> {
        let mut command = match launch.under.split_first() {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg("sh");
                command
            }
            None => Command::new("sh"),
        };
        for name in &launch.unset {
            command.env_remove(name);
        }
        if !launch.keep_open.is_empty() || launch.cpu.is_some() {
            let fds = launch.keep_open.clone();
            let cpu_set = launch.cpu.and_then(one_cpu);
            // SAFETY: between fork and exec the closure calls only fcntl(2) (async-signal-safe) and
            // sched_setaffinity(2) (a bare system call, though not on POSIX's list), over values moved in before
            // the fork: nothing is allocated or locked.
            unsafe {
                std::os::unix::process::CommandExt::pre_exec(&mut command, move || {
                    for &fd in &fds {
                        if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                            return Err(std::io::Error::last_os_error());
                        }
                    }
                    #[cfg(target_os = "linux")]
                    if let Some(set) = &cpu_set {
                        // Best effort: a run that cannot be held to the CPU still runs.
                        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set);
                    }
                    #[cfg(not(target_os = "linux"))]
                    let _ = &cpu_set;
                    Ok(())
                });
            }
        }
        command
            .arg("-c")
            .arg(self.command)
            .current_dir(self.dir)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .envs(self.job_env.iter().map(|(k, v)| (k, v)))
            .env("RHO_BENCH_INCLUDE", self.include)
            .env("RHO_BENCH_OUT", self.out);
        let failure = |how: String, stderr: &str| {
            GateError::Command(Box::new(CommandFailure {
                side: self.side,
                what: what.to_owned(),
                command: self.command.to_owned(),
                dir: self.dir.to_owned(),
                how,
                stderr: stderr_tail(stderr),
            }))
        };
        if !self.dir.is_dir() {
            return Err(failure(
                "cannot run: the module root does not exist on this side".to_owned(),
                "",
            ));
        }
        let mut stdout = StdoutMetrics::new();
        let mut runner = Runner::new(command).timeout(self.timeout);
        if let Some(paused) = &launch.paused {
            runner = runner.paused_time(std::sync::Arc::clone(paused));
        }
        let finished = runner
            .run_bytes(|line| {
                stdout.line(line);
                LineControl::Continue
            })
            .map_err(|error| failure(format!("could not start: {error}"), ""))?;
        if !finished.termination.success() {
            // Said as `rho bench` says it: the crash a shell reports as 139, and the benchmark it was in.
            let how = format!(
                "{}{}",
                finished.termination.through_shell(),
                stdout.whereabouts()
            );
            return Err(failure(how, &finished.stderr));
        }
        Ok((finished.elapsed, stdout))
    }
}

/// The set of the one CPU `cpu`, made before a fork (the child only applies it).
#[cfg(target_os = "linux")]
fn one_cpu(cpu: usize) -> Option<libc::cpu_set_t> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return None;
    }
    // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET writes one bit of it, within its size (checked).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        Some(set)
    }
}

#[cfg(not(target_os = "linux"))]
fn one_cpu(_cpu: usize) -> Option<()> {
    None
}

/// The last lines of `stderr`, indented under the error message; empty when there was none.
fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let skip = lines.len().saturating_sub(STDERR_TAIL_LINES);
    let mut out = String::from("; the end of its stderr:");
    for line in &lines[skip..] {
        out.push_str("\n  | ");
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stderr_tail_keeps_the_last_lines() {
        let stderr: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let tail = stderr_tail(&stderr);
        assert!(tail.contains("line 30") && tail.contains("line 19"));
        assert!(!tail.contains("line 18\n"));
        assert_eq!(stderr_tail("\n\n"), "");
    }
}
