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

/// How a build's `sh` is started beyond its command and environment (crate::build): the program it runs
/// under (`strace ... --`, recording what it reads) and the variables taken out of its environment.
#[derive(Debug, Clone, Default)]
pub(crate) struct Launch {
    pub(crate) under: Vec<std::ffi::OsString>,
    pub(crate) unset: Vec<String>,
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
        let finished = Runner::new(command)
            .timeout(self.timeout)
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
