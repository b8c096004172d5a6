//! The suites of one side of `rho bench gate` as the engine builds them: on the built-in `host` target each
//! suite built as `rho bench` builds it (apart from the other side's build) with its image's static figures,
//! each command suite as its command; on any other target, the C-file suites' own flags and the target's
//! `stack_bytes` as the environment of the target's build command. The gate runs what this returns; it never
//! learns how a suite is built.

use std::path::Path;
use std::time::Duration;

use rho_config::{ModuleConfig, Suite, TargetSpec};

use crate::cfiles::Flags;
use crate::engine::HostBuild;
use crate::error::{Result, SuiteError};

/// One suite of a side, ready to run: its name in messages, the command that runs it, what that command
/// needs in its environment, and the image's static figures (`(benchmark, metric, value)`).
#[derive(Debug)]
pub struct SideJob {
    pub what: String,
    pub run: String,
    pub env: Vec<(String, String)>,
    pub static_metrics: Vec<(String, String, u64)>,
}

/// The jobs of the built-in `host` target: each suite of `config` built by the engine
/// ([`crate::engine::build_on_host_apart`]; the executable is run in the module root), each command suite as
/// its command. The builds are pushed onto `built`, to be kept until the runs are over; `note` is told each
/// step as it happens (`building SUITE for host`) and each warning (`warning: ...`).
pub fn host_side(
    config: &ModuleConfig,
    spec: &TargetSpec,
    timeout: Duration,
    built: &mut Vec<HostBuild>,
    note: &mut dyn FnMut(&str),
) -> Result<Vec<SideJob>> {
    let mut jobs = Vec::new();
    for job in crate::engine::jobs(config, spec)? {
        if let crate::engine::JobKind::Foreign(suite) = &job.kind {
            // The running rho reads the tool's report into a wire stream for the gate.
            let rho = std::env::current_exe().map_err(|source| SuiteError::Io {
                doing: "cannot find the rho binary to read another harness's report".to_string(),
                source,
            })?;
            jobs.push(SideJob {
                what: job.what.clone(),
                run: crate::foreign::gate_command(suite, &quoted(&rho)?),
                env: Vec::new(),
                static_metrics: Vec::new(),
            });
            continue;
        }
        if let Some(command) = job.command() {
            jobs.push(SideJob {
                what: command.to_string(),
                run: command.to_string(),
                env: Vec::new(),
                static_metrics: Vec::new(),
            });
            continue;
        }
        let what = job.what.clone();
        note(&format!("building {what} for host"));
        let host = crate::engine::build_on_host_apart(config, &job, timeout)
            .map_err(|e| e.context(format!("cannot build {what} for host")))?;
        let static_metrics = match &host.image {
            Some(files) => static_metrics(config, &what, files, timeout, note),
            None => Vec::new(),
        };
        jobs.push(SideJob {
            what,
            run: quoted(&host.executable)?,
            env: host.run_env.clone(),
            static_metrics,
        });
        built.push(host);
    }
    Ok(jobs)
}

/// The image's static figures (`<bench>.code`, `<bench>.static_stack`), asked of the footprint command like
/// `rho bench` asks; a command that does not answer leaves them out, with a warning.
fn static_metrics(
    config: &ModuleConfig,
    what: &str,
    files: &crate::footprint::ImageFiles,
    timeout: Duration,
    note: &mut dyn FnMut(&str),
) -> Vec<(String, String, u64)> {
    match crate::footprint::MemCommand::resolve(config.mem_command.as_deref(), &config.root)
        .map_err(|e| e.to_string())
        .and_then(|command| crate::footprint::ask(&command, files, timeout))
    {
        Ok(document) => crate::footprint::gate_metrics(&document),
        Err(warning) => {
            note(&format!(
                "warning: {what}: {warning}; no code or static stack metrics"
            ));
            Vec::new()
        }
    }
}

/// `path` as one shell word.
fn quoted(path: &Path) -> Result<String> {
    let text = path.display().to_string();
    shlex::try_quote(&text)
        .map(|q| q.into_owned())
        .map_err(|e| SuiteError::Unsupported(format!("{text}: {e}")))
}

/// Per suite of `config`, in order, what a target's build command gets in its environment on target `spec`:
/// a C-file suite's own flags (over module.yml's defaults) as RHO_BENCH_CFLAGS and RHO_BENCH_LDFLAGS, as
/// `rho bench` passes them (nothing for the other kinds), and for every suite module.yml's `stack_bytes:` for
/// the target as RHO_BENCH_STACK_BYTES (a board's port compiles it in: the painted region).
pub fn build_environments(
    config: &ModuleConfig,
    spec: &TargetSpec,
    timeout: Duration,
) -> Result<Vec<Vec<(String, String)>>> {
    let stack_bytes = crate::cfiles::configured_stack_bytes(config, spec.name(), &Flags::default());
    let mut environments = Vec::new();
    for suite in &config.suites {
        let mut environment = Vec::new();
        if let Suite::CFiles { build, .. } = suite {
            let flags =
                crate::cfiles::suite_flags(config, spec.name(), build, &Flags::default(), timeout)?;
            environment.extend(crate::board::flags_environment(&flags));
        }
        if let Some(bytes) = stack_bytes {
            environment.push(("RHO_BENCH_STACK_BYTES".to_string(), bytes.to_string()));
        }
        environments.push(environment);
    }
    Ok(environments)
}
