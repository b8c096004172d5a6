//! `rho bench --target NAME FILE.c...`: a suite built for a built-in board target and run on it, reported like
//! a host run.
//!
//! The target's definition is the one module.yml mode uses ([`crate::ports::builtin_commands`]: for a board
//! such as `mps2-an386`, the embedded ports' Makefile and the QEMU command line, [`crate::ports`]), so
//! `targets: [mps2-an386]` in a module.yml and `--target mps2-an386` on the command line build and run a suite
//! the same way. Here the two
//! commands run in the current directory, with the embedded header, the port and the build directory in one
//! temporary directory (removed afterwards, and on Ctrl-C), and the settings (`--iterations`, `--warmup`,
//! `--scale`, `--cflags`, `--ldflags`) in their environment: the port compiles them in as `-D` defines, since a board has
//! no environment at run time. Every command goes through `rho-exec` (own process group, `--timeout`, the
//! group killed on timeout or Ctrl-C), so a hung emulator never outlives `rho`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::error::{Doing as _, Result, SuiteError};

use crate::cfiles::{Flags, ScratchDir, run_build, with_link_hint, write_header};
use crate::stream::HarnessSettings;
use crate::tools::find_on_path;

/// The targets `--target` accepts with FILE.c arguments (`host` is the plain `rho bench FILE.c`).
pub const BUILTIN_TARGETS: &[&str] = rho_config::BUILTIN_TARGETS;

/// What a built-in target that is not a QEMU board (crate::ports) needs on the PATH, and where Debian gets it.
fn tools_of(target: &str) -> &'static [(&'static str, &'static str)] {
    match target {
        "aarch64-linux" => &[
            ("make", "make"),
            (
                "aarch64-linux-gnu-gcc",
                "gcc-aarch64-linux-gnu and libc6-dev-arm64-cross",
            ),
            ("qemu-aarch64", "qemu-user"),
        ],
        // What builds the suite; what runs it (probe-rs and the board) is checked after the build, so a machine
        // without them still builds and checks the suite for the part.
        "stm32h743zi" => &[
            ("make", "make"),
            (
                "arm-none-eabi-gcc",
                "gcc-arm-none-eabi and libnewlib-arm-none-eabi",
            ),
        ],
        _ => &[],
    }
}

/// A target whose run needs more than the build: the program that runs it, and what it runs on.
fn runner_of(target: &str) -> Option<(&'static str, &'static str)> {
    match target {
        "stm32h743zi" => Some((
            "probe-rs",
            "a NUCLEO-H743ZI on USB and probe-rs (`cargo install probe-rs-tools`), which flashes the image, prints \
             its RTT output and exits with its status; without them, build and keep the image with \
             `make -f c/ports/stm32h743zi/Makefile SUITE=FILE.c` in a rho checkout (c/ports/stm32h743zi/README.md)",
        )),
        _ => None,
    }
}

/// A board target ready to build suites: its commands and the temporary directory they work in.
#[derive(Debug)]
pub struct Board {
    name: String,
    build: String,
    run: String,
    dir: ScratchDir,
}

/// A suite built for a board and run on it.
#[derive(Debug)]
pub struct BoardRuns {
    pub runs: Vec<rho_wire::Run>,
    /// A built-in QEMU board's run counted by rho's plugin (exact instructions), `None` on another target.
    pub counted: Option<rho_wire::Run>,
    /// The compiler the port ran, and its flags, as its recorded build command says (without the words that
    /// name rho's temporary directory or the suite's files, and without the libraries): what `--json` reports.
    pub compiler: Vec<String>,
    pub cflags: Vec<String>,
    /// The libraries and library directories of the recorded link (`-lm`, `--ldflags`'s `-l` and `-L`).
    pub ldflags: Vec<String>,
    /// The image the port built (`$RHO_BENCH_OUT/bench.elf`) and its stack-usage files, for the footprint
    /// command; they live as long as the board.
    pub files: crate::footprint::ImageFiles,
}

/// The compiler a built-in target's port runs, probed for the stack-usage flags.
fn compiler_of(target: &str) -> Option<String> {
    match target {
        "aarch64-linux" => Some("aarch64-linux-gnu-gcc".to_string()),
        "stm32h743zi" => Some("arm-none-eabi-gcc".to_string()),
        _ => crate::ports::board(target).map(|b| b.compiler),
    }
}

/// The stack-usage flags `target`'s compiler takes (none for a target rho does not know the compiler of),
/// and a warning when it lacks some.
pub fn stack_usage_flags(target: &str) -> Vec<String> {
    let Some(compiler) = compiler_of(target) else {
        return Vec::new();
    };
    let probe = crate::footprint::probe(&[compiler]);
    if let Some(missing) = &probe.missing {
        crate::observe::warning(missing);
    }
    probe.flags
}

impl Board {
    /// The board `--target` names, or `None` for the host (no `--target`, or `--target host`).
    pub fn for_target(target: Option<&str>) -> Result<Option<Board>> {
        let name = match target {
            None | Some("host") => return Ok(None),
            Some(name) => name,
        };
        let dir = ScratchDir::new("rho-board-")
            .doing(|| "cannot create a temporary directory".to_string())?;
        let Some((build, run)) = crate::ports::builtin_commands(name, &dir.path().join("ports"))?
        else {
            return Err(SuiteError::Unsupported(format!(
                "--target {name}: not a built-in target (built in: {}); a board of your own is a target in \
                 module.yml (`targets:` with `build:` and `run:`), run with `rho bench --target {name}` and no \
                 FILE.c arguments",
                BUILTIN_TARGETS.join(", ")
            )));
        };
        let tools = match crate::ports::board(name) {
            Some(board) => board.tools(),
            None => tools_of(name)
                .iter()
                .map(|(program, package)| (program.to_string(), *package))
                .collect(),
        };
        for (program, package) in tools {
            if find_on_path(&program).is_none() {
                return Err(SuiteError::Unsupported(format!(
                    "--target {name} needs `{program}`, which is not on the PATH (Debian package: {package})"
                )));
            }
        }
        write_header(dir.path())?;
        Ok(Some(Board {
            name: name.to_string(),
            build,
            run,
            dir,
        }))
    }

    /// Build `sources` for the board with `settings` and `flags` compiled in, then run the result
    /// `repetitions` times, each run's stream parsed as it arrives. `what` names the suite in messages.
    pub fn build_and_run(
        &self,
        sources: &[PathBuf],
        what: &str,
        settings: &HarnessSettings,
        flags: &Flags,
        repetitions: u32,
        timeout: Duration,
    ) -> Result<BoardRuns> {
        if sources.is_empty() {
            return Err(SuiteError::Unsupported(format!(
                "no suite given: name one or more C files, e.g. `rho bench --target {} examples/crypto_bench.c`",
                self.name
            )));
        }
        for source in sources {
            if !source.is_file() {
                return Err(SuiteError::Unsupported(format!(
                    "{}: no such file",
                    source.display()
                )));
            }
            // make splits its SUITE variable on blanks, whatever the quoting.
            if source
                .as_os_str()
                .to_string_lossy()
                .contains(char::is_whitespace)
            {
                return Err(SuiteError::Unsupported(format!(
                    "{}: --target {} builds with make, which cannot take a file name with a blank in it",
                    source.display(),
                    self.name
                )));
            }
        }
        let out = self.dir.path().join("out");
        std::fs::create_dir_all(&out).doing(|| format!("cannot create {}", out.display()))?;
        let mut env: Vec<(String, String)> = settings
            .environment()
            .into_iter()
            // The filter is compiled in through make and the preprocessor, which read a `$`: its terms
            // without their anchors (the same names or more; the report is cut to the regex's names).
            .map(|(k, v)| match k {
                crate::filter::FILTER_VARIABLE => (k.to_string(), crate::filter::unanchored(&v)),
                _ => (k.to_string(), v),
            })
            .collect();
        env.push((
            "RHO_BENCH_SOURCES".to_string(),
            sources
                .iter()
                .map(|s| s.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
        ));
        env.push(("RHO_BENCH_OUT".to_string(), out.display().to_string()));
        env.push((
            "RHO_BENCH_INCLUDE".to_string(),
            self.dir.path().join("include").display().to_string(),
        ));
        // rho's stack-usage flags, where the port's compiler takes them (kept out of the build's description).
        let stack_usage = stack_usage_flags(&self.name);
        let mut flags = flags.clone();
        flags.cflags.extend(stack_usage.iter().cloned());
        env.extend(flags_environment(&flags));
        // The compiler's temporaries go inside the temporary directory, removed even after a killed build.
        let compiler_tmp = self.dir.path().join("tmp");
        std::fs::create_dir_all(&compiler_tmp)
            .doing(|| format!("cannot create {}", compiler_tmp.display()))?;
        env.push(("TMPDIR".to_string(), compiler_tmp.display().to_string()));

        let what = format!("{what} for target {}", self.name);
        run_build(
            shell(&self.build, &env),
            timeout,
            || format!("cannot run the build command of {what}: `{}`", self.build),
            || format!("cannot build {what}: `{}`", self.build),
        )
        .map_err(|error| with_link_hint(error, &flags.cflags))?;
        let recorded = recorded_build(&out.join("build-command"), self.dir.path())?;
        if let Some((runner, needs)) = runner_of(&self.name)
            && find_on_path(runner).is_none()
        {
            return Err(SuiteError::Unsupported(format!(
                "--target {}: built {what}, but cannot run it here: `{runner}` is not on the PATH. Running it needs \
                 {needs}",
                self.name
            )));
        }

        let mut runs = Vec::new();
        for _ in 0..repetitions.max(1) {
            runs.push(crate::stream::run_stream(
                shell(&self.run, &env),
                &what,
                timeout,
            )?);
        }
        let counted = match crate::ports::board(&self.name) {
            Some(board) => Some(
                crate::qemu_count::CountedBuild {
                    runner: crate::qemu_count::CountedRunner::Board(&board),
                    build: &self.build,
                    out: &out,
                    plugin_dir: &self.dir.path().join("qemu-plugin"),
                    dir: None,
                    iterations_set: settings.iterations.is_some(),
                    warmup_set: settings.warmup.is_some(),
                }
                .run(&env, timeout, &what)?,
            ),
            None => None,
        };
        Ok(BoardRuns {
            runs,
            counted,
            compiler: recorded.compiler,
            cflags: recorded.cflags,
            ldflags: recorded.ldflags,
            files: crate::footprint::ImageFiles {
                image: out.join("bench.elf"),
                stack_usage: (!stack_usage.is_empty()).then(|| out.clone()),
            },
        })
    }
}

/// `RHO_BENCH_CFLAGS` and `RHO_BENCH_LDFLAGS` for a board's build command. The port's recipe hands them to the
/// shell: quoted, each flag stays one word (and a plain one stays as it is, so the Makefile can read
/// -DRHO_BENCH_STACK_BYTES=N out of it).
pub fn flags_environment(flags: &Flags) -> [(String, String); 2] {
    let quoted = |words: &[String]| {
        words
            .iter()
            .map(|flag| shell_word(flag))
            .collect::<Vec<_>>()
            .join(" ")
    };
    [
        ("RHO_BENCH_CFLAGS".to_string(), quoted(&flags.cflags)),
        ("RHO_BENCH_LDFLAGS".to_string(), quoted(&flags.ldflags)),
    ]
}

/// `sh -c COMMAND` in the current directory with `env` added (the built-in commands read their inputs there).
fn shell(command: &str, env: &[(String, String)]) -> Command {
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(command);
    sh.envs(env.iter().map(|(k, v)| (k, v)));
    sh
}

/// A board's build as the port recorded it.
#[derive(Debug, PartialEq)]
struct RecordedBuild {
    compiler: Vec<String>,
    cflags: Vec<String>,
    ldflags: Vec<String>,
}

/// The compiler and flags of the build command the port recorded (`$RHO_BENCH_OUT/build-command`, one shell
/// line: the port's own compiles, a C++ suite's compiles and the link, joined by `&&`; the first compiler
/// named), without the words that name files (the sources, the output, anything under `scratch`), each flag
/// once. The port's compiles of its own files (a `-c` of a file under `scratch`, with `-Werror`) are not the
/// user's build and are left out.
fn recorded_build(record: &Path, scratch: &Path) -> Result<RecordedBuild> {
    let text = std::fs::read_to_string(record).doing(|| {
        format!(
            "cannot read the port's record of its build command, {}",
            record.display()
        )
    })?;
    let words = shlex::split(text.trim()).ok_or_else(|| {
        SuiteError::Build(format!(
            "{}: the recorded build command is not a shell line",
            record.display()
        ))
    })?;
    let scratch = scratch.display().to_string();
    let port_compile = |segment: &[String]| {
        segment.iter().any(|w| w == "-c")
            && segment
                .iter()
                .any(|w| !w.starts_with('-') && w.contains(&scratch) && !w.ends_with(".o"))
    };
    let users: Vec<&[String]> = words
        .split(|word| word == "&&")
        .filter(|segment| !segment.is_empty() && !port_compile(segment))
        .collect();
    let Some((compiler, _)) = users.first().and_then(|segment| segment.split_first()) else {
        return Err(SuiteError::Build(format!(
            "{}: the recorded build command is empty",
            record.display()
        )));
    };
    let mut cflags: Vec<String> = Vec::new();
    let mut ldflags: Vec<String> = Vec::new();
    for word in users.iter().flat_map(|segment| &segment[1..]) {
        if !word.starts_with('-') || ["-o", "-T", "-c"].contains(&word.as_str()) {
            continue;
        }
        // rho's own stack-usage flags change no code: the build is described as the user asked for it.
        if word.contains(&scratch) || crate::footprint::STACK_USAGE_FLAGS.contains(&word.as_str()) {
            continue;
        }
        let list = if word.starts_with("-l") || word.starts_with("-L") {
            &mut ldflags
        } else {
            &mut cflags
        };
        if !list.contains(word) {
            list.push(word.clone());
        }
    }
    Ok(RecordedBuild {
        compiler: vec![compiler.clone()],
        cflags,
        ldflags,
    })
}

/// `word` as one shell word: as it is when it holds nothing the shell treats specially, else single-quoted.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_=+.,:/@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_is_no_board_and_an_unknown_target_is_refused_with_the_choices() {
        assert!(Board::for_target(None).unwrap().is_none());
        assert!(Board::for_target(Some("host")).unwrap().is_none());
        let error = Board::for_target(Some("nrf52840dk"))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("--target nrf52840dk: not a built-in target"),
            "{error}"
        );
        assert!(error.contains("host, mps2-an385, mps2-an386"), "{error}");
        assert!(error.contains("module.yml"), "{error}");
    }

    #[test]
    fn the_recorded_build_command_gives_the_compiler_and_its_flags_without_paths() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = dir.path().join("scratch");
        let record = dir.path().join("build-command");
        std::fs::write(
            &record,
            format!(
                "arm-none-eabi-gcc -std=c99 -Os -Werror -c {s}/ports/startup.c -o {s}/out/port/startup.c.o && \
                 arm-none-eabi-gcc -std=c99 -Os -mcpu=cortex-m4 -I{s}/include -DRHO_BENCH_ITERATIONS=50 \
                 '-DNAME=a b' -T {s}/ports/x.ld -Wl,-Map={s}/out/bench.map -o {s}/out/bench.elf suite.c \
                 {s}/out/port/startup.c.o -lmbedcrypto -L/opt/lib -lm\n",
                s = scratch.display()
            ),
        )
        .unwrap();
        let recorded = recorded_build(&record, &scratch).unwrap();
        assert_eq!(recorded.compiler, ["arm-none-eabi-gcc"]);
        assert_eq!(recorded.ldflags, ["-lmbedcrypto", "-L/opt/lib", "-lm"]);
        assert_eq!(
            recorded.cflags,
            [
                "-std=c99",
                "-Os",
                "-mcpu=cortex-m4",
                "-DRHO_BENCH_ITERATIONS=50",
                "-DNAME=a b"
            ]
        );
        let missing = recorded_build(&dir.path().join("none"), &scratch).unwrap_err();
        assert!(
            format!("{missing:#}").contains("build command"),
            "{missing:#}"
        );
    }

    #[test]
    fn flags_are_quoted_for_the_shell_only_when_they_need_it() {
        assert_eq!(
            shell_word("-DRHO_BENCH_STACK_BYTES=16384"),
            "-DRHO_BENCH_STACK_BYTES=16384"
        );
        assert_eq!(shell_word("-DNAME=a b"), "'-DNAME=a b'");
        assert_eq!(shell_word("-DQ='x'"), r"'-DQ='\''x'\'''");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn every_builtin_target_but_the_host_has_a_definition() {
        let dir = tempfile::tempdir().unwrap();
        for name in BUILTIN_TARGETS.iter().filter(|t| **t != "host") {
            assert!(
                crate::ports::builtin_commands(name, dir.path())
                    .unwrap()
                    .is_some(),
                "{name}"
            );
            assert!(
                crate::ports::board(name).is_some() || !tools_of(name).is_empty(),
                "{name}"
            );
        }
    }
}
