//! Exact instruction counts on the built-in boards: the suite built with its counting loop
//! (`RHO_BENCH_MEASURE=instructions`, which the ports' Makefile turns into `-DRHO_BENCH_MEASURE_INSTRUCTIONS`)
//! and run under QEMU with rho's counting plugin (`c/qemu/rho_count_plugin.c`, built here with the host's C
//! compiler: Debian's QEMU 7.2 supports plugins but ships none, nor the header to build one).
//!
//! The plugin counts the instructions executed between the marker instructions the harness puts around each
//! iteration's body, known by their addresses (the image's `.rho_marks` section, which the plugin reads from
//! the image it is given as `elf=`; never by their encodings, which a body may hold too), and writes one total
//! per measured loop with the bodies it summed, numbered as the stream's `@count K` lines are;
//! rho reads them into the run's counts (event `Ir`, as Callgrind's dumps; [`rho_wire::qemu_counts`]), so
//! rho-stats takes the harness's share off as it does on a host (here it is none: the markers leave the loop
//! out) and divides by the iterations. A body of N nops reads N on every board.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rho_exec::{Runner, Termination};
use rho_wire::Run;

use crate::error::{Doing as _, Result, SuiteError};
use crate::ports::{BoardData, shell_quote};

/// The plugin's C source, embedded so an installed `rho` needs no checkout.
pub const PLUGIN_SOURCE: &str = include_str!("../../../c/qemu/rho_count_plugin.c");

/// Build the plugin into `dir` (`dir/rho_count_plugin.so`) with the host's `cc`, unless it is there.
pub fn build_plugin(dir: &Path, timeout: Duration) -> Result<PathBuf> {
    let plugin = dir.join("rho_count_plugin.so");
    if plugin.is_file() {
        return Ok(plugin);
    }
    std::fs::create_dir_all(dir).doing(|| format!("cannot create {}", dir.display()))?;
    let source = dir.join("rho_count_plugin.c");
    std::fs::write(&source, PLUGIN_SOURCE)
        .doing(|| format!("cannot write {}", source.display()))?;
    let Some(cc) = crate::tools::find_on_path("cc") else {
        return Err(SuiteError::Unsupported(
            "instructions on a board are counted by rho's QEMU plugin, which is built with the host's C \
             compiler, and `cc` is not on the PATH: install one (Debian/Ubuntu: apt-get install gcc)"
                .to_string(),
        ));
    };
    // Written beside and renamed: a run that stops half way leaves no half-built plugin to load.
    let partial = dir.join("rho_count_plugin.so.partial");
    let mut command = Command::new(cc);
    command
        .args(["-std=c99", "-O2", "-shared", "-fPIC", "-o"])
        .arg(&partial)
        .arg(&source);
    let (finished, stdout) = Runner::new(command)
        .timeout(timeout)
        .run_collect()
        .map_err(|source| SuiteError::Exec {
            doing: "cannot run cc to build rho's QEMU counting plugin".to_string(),
            source,
        })?;
    if finished.termination != Termination::Exited(0) {
        return Err(SuiteError::Build(format!(
            "cannot build rho's QEMU counting plugin ({}): cc {}:\n{stdout}{}",
            source.display(),
            finished.termination,
            finished.stderr.trim_end()
        )));
    }
    std::fs::rename(&partial, &plugin)
        .doing(|| format!("cannot move {} into place", partial.display()))?;
    Ok(plugin)
}

/// The QEMU command that runs the counted image `kernel` (a shell word, e.g. `"$RHO_BENCH_OUT/bench.elf"`) on
/// `board` with the plugin at `plugin` writing its totals to `totals` (a shell word too).
pub fn run_command(board: &BoardData, kernel: &str, plugin: &Path, totals: &str) -> String {
    board.run_command(kernel).replacen(
        " -kernel ",
        &format!(
            " -plugin {} -kernel ",
            plugin_argument(plugin, totals, kernel)
        ),
        1,
    )
}

/// QEMU's `-plugin` argument (as shell words): the plugin at `plugin`, writing its totals to `totals`, reading
/// the markers' addresses from the image `image` (the one QEMU runs).
pub fn plugin_argument(plugin: &Path, totals: &str, image: &str) -> String {
    let plugin = shell_quote(&plugin.display().to_string());
    format!("{plugin},out={totals},elf={image}")
}

/// Where a counted image is: the built-in ports' place for it, which a target's own `build:` uses too
/// (`counter: qemu-plugin`: the plugin reads the markers' addresses from it).
pub const IMAGE_FILE: &str = "bench.elf";

/// The environment variable a target's own `run:` (`counter: qemu-plugin`) adds to QEMU's command line as
/// `-plugin "$RHO_QEMU_PLUGIN"`: the plugin's file and where it writes its totals, in `-plugin`'s syntax.
pub const PLUGIN_VARIABLE: &str = "RHO_QEMU_PLUGIN";
/// The environment variable naming the file the plugin writes its totals to (the same as in
/// [`PLUGIN_VARIABLE`]), for a run that copies it from where QEMU ran.
pub const COUNTS_VARIABLE: &str = "RHO_QEMU_COUNTS";

/// Who runs a counted image under QEMU with the plugin.
#[derive(Debug, Clone, Copy)]
pub enum CountedRunner<'a> {
    /// A built-in board: rho starts QEMU itself.
    Board(&'a BoardData),
    /// A module.yml target with `counter: qemu-plugin`: its own `run:` command (a lab's script, labgrid's
    /// QEMUDriver), handed [`PLUGIN_VARIABLE`] and [`COUNTS_VARIABLE`] in its environment.
    Command { target: &'a str, run: &'a str },
}

/// A board's counted build and run: the suite built again with its counting loop, into `out/counted`, and
/// run under QEMU with the plugin. The same for `rho bench --target BOARD FILE.c` and a module's suites.
#[derive(Debug)]
pub struct CountedBuild<'a> {
    /// Who starts QEMU with the plugin.
    pub runner: CountedRunner<'a>,
    /// The port's build command (it builds into `$RHO_BENCH_OUT`).
    pub build: &'a str,
    /// The timed build's directory; the counted build goes in `counted` under it.
    pub out: &'a Path,
    /// Where the plugin is built (once per directory).
    pub plugin_dir: &'a Path,
    /// Where the commands run (`None`: the current directory).
    pub dir: Option<&'a Path>,
    /// Whether the iterations and warm-ups were set (else counting uses its own few, [`crate::count`]).
    pub iterations_set: bool,
    pub warmup_set: bool,
}

impl CountedBuild<'_> {
    /// Build and run, with the timed build's environment `env`; the run with its counts' totals attached.
    pub fn run(&self, env: &[(String, String)], timeout: Duration, what: &str) -> Result<Run> {
        let out = self.out.join("counted");
        std::fs::create_dir_all(&out).doing(|| format!("cannot create {}", out.display()))?;
        let mut env: Vec<(String, String)> = env
            .iter()
            .filter(|(key, _)| key != "RHO_BENCH_OUT" && key != "RHO_BENCH_MEASURE")
            .cloned()
            .collect();
        env.push(("RHO_BENCH_OUT".to_string(), out.display().to_string()));
        env.push(("RHO_BENCH_MEASURE".to_string(), "instructions".to_string()));
        let env = crate::count::environment(env, self.iterations_set, self.warmup_set);
        let what = format!("{what} (counted)");
        crate::cfiles::run_build(
            self.shell(self.build, &env),
            timeout,
            || format!("cannot run the build command of {what}: `{}`", self.build),
            || format!("cannot build {what}: `{}`", self.build),
        )?;
        let plugin = build_plugin(self.plugin_dir, timeout)?;
        let totals = out.join(rho_wire::qemu_counts::TOTALS_FILE);
        // A totals file left from an earlier run would be read as this one's.
        if totals.exists() {
            std::fs::remove_file(&totals)
                .doing(|| format!("cannot remove {}", totals.display()))?;
        }
        let mut env = env;
        let command = match self.runner {
            CountedRunner::Board(board) => run_command(
                board,
                &shell_quote(&out.join(IMAGE_FILE).display().to_string()),
                &plugin,
                &shell_quote(&totals.display().to_string()),
            ),
            CountedRunner::Command { run, .. } => {
                env.push((
                    PLUGIN_VARIABLE.to_string(),
                    format!(
                        "{},out={},elf={}",
                        plugin.display(),
                        totals.display(),
                        out.join(IMAGE_FILE).display()
                    ),
                ));
                env.push((COUNTS_VARIABLE.to_string(), totals.display().to_string()));
                run.to_string()
            }
        };
        let mut run = crate::stream::run_stream(self.shell(&command, &env), &what, timeout)?;
        if run.counter.is_none() {
            return Err(SuiteError::Run(format!(
                "the suite {what} ran under QEMU's counting plugin but its stream has no @counter: its \
                 harness is not rho's bench.h built with RHO_BENCH_MEASURE_INSTRUCTIONS"
            )));
        }
        if let CountedRunner::Command {
            target,
            run: command,
        } = self.runner
            && !totals.is_file()
        {
            return Err(SuiteError::Run(format!(
                "target {target} has `counter: qemu-plugin`, but its run of {what} left no counts at {}: its \
                 `run:` (`{command}`) must add `-plugin \"${PLUGIN_VARIABLE}\"` to QEMU's command line (the \
                 plugin writes its totals to ${COUNTS_VARIABLE})",
                totals.display()
            )));
        }
        rho_wire::qemu_counts::attach_totals(&mut run, &totals)?;
        Ok(run)
    }

    fn shell(&self, command: &str, env: &[(String, String)]) -> Command {
        let mut sh = Command::new("sh");
        sh.arg("-c").arg(command);
        if let Some(dir) = self.dir {
            sh.current_dir(dir);
        }
        sh.envs(env.iter().map(|(k, v)| (k, v)));
        sh
    }
}

/// A built-in target's build and run commands as a gate's side runs them ([`crate::ports::builtin_commands`],
/// the ports written under `ports`); counting on a board, the run loads rho's plugin (built under `ports`),
/// which writes its totals to `$RHO_BENCH_OUT/counts` (the build compiles the counting loop in: the gate
/// hands its builds `RHO_BENCH_MEASURE=instructions`). `None` for a name that is not built in.
pub fn gate_commands(
    name: &str,
    ports: &Path,
    counting: bool,
    timeout: Duration,
) -> Result<Option<(String, String)>> {
    let Some((build, run)) = crate::ports::builtin_commands(name, ports)? else {
        return Ok(None);
    };
    match crate::ports::board(name).filter(|_| counting) {
        Some(board) => {
            let plugin = build_plugin(&ports.join("qemu-plugin"), timeout)?;
            let totals = format!("\"$RHO_BENCH_OUT/{}\"", rho_wire::qemu_counts::TOTALS_FILE);
            let image = format!("\"$RHO_BENCH_OUT/{IMAGE_FILE}\"");
            let run = run_command(&board, &image, &plugin, &totals);
            Ok(Some((build, run)))
        }
        None => Ok(Some((build, run))),
    }
}

/// A target's own `run` (`counter: qemu-plugin`) as a gate's side runs it, counting: [`PLUGIN_VARIABLE`] and
/// [`COUNTS_VARIABLE`] exported first (the plugin built under `ports`), the totals at `$RHO_BENCH_OUT/counts`
/// as a built-in board's ([`gate_commands`]).
pub fn gate_own_run(run: &str, ports: &Path, timeout: Duration) -> Result<String> {
    let plugin = build_plugin(&ports.join("qemu-plugin"), timeout)?;
    let totals = format!("\"$RHO_BENCH_OUT/{}\"", rho_wire::qemu_counts::TOTALS_FILE);
    let argument = plugin_argument(
        &plugin,
        &totals,
        &format!("\"$RHO_BENCH_OUT/{IMAGE_FILE}\""),
    );
    Ok(format!(
        "{PLUGIN_VARIABLE}={argument}; {COUNTS_VARIABLE}={totals}; \
         export {PLUGIN_VARIABLE} {COUNTS_VARIABLE}\n{run}"
    ))
}

/// Whether rho counts on `spec` with its QEMU plugin: a built-in board, or a target with `counter: qemu-plugin`.
pub fn counts_on_board(spec: &rho_config::TargetSpec) -> bool {
    match spec {
        rho_config::TargetSpec::Builtin { name, .. } => crate::ports::board(name).is_some(),
        rho_config::TargetSpec::Commands { counter, .. } => {
            *counter == Some(rho_config::TargetCounter::QemuPlugin)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plugin is C99, clean under the project's warnings, and builds where rho builds it.
    #[test]
    fn the_plugin_builds_clean_under_the_projects_warnings() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("plugin.c");
        std::fs::write(&source, PLUGIN_SOURCE).unwrap();
        let output = Command::new("cc")
            .args([
                "-std=c99",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-shared",
                "-fPIC",
            ])
            .arg("-o")
            .arg(dir.path().join("plugin.so"))
            .arg(&source)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let built = build_plugin(&dir.path().join("cache"), Duration::from_secs(60)).unwrap();
        assert!(built.is_file());
        // Built once: the second call finds it.
        assert_eq!(
            build_plugin(&dir.path().join("cache"), Duration::from_secs(60)).unwrap(),
            built
        );
    }

    #[test]
    fn the_counted_run_loads_the_plugin_before_the_kernel() {
        let board = crate::ports::board("riscv32-virt").unwrap();
        let command = run_command(
            &board,
            "\"$RHO_BENCH_OUT/bench.elf\"",
            Path::new("/cache dir/plugin.so"),
            "\"$RHO_BENCH_OUT/counts\"",
        );
        assert!(
            command.contains(
                " -plugin '/cache dir/plugin.so',out=\"$RHO_BENCH_OUT/counts\",elf=\"$RHO_BENCH_OUT/bench.elf\" -kernel \"$RHO_BENCH_OUT/bench.elf\""
            ),
            "{command}"
        );
        assert!(command.starts_with("qemu-system-riscv32 "), "{command}");
    }
}
