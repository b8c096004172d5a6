//! CMake: the module that gives a CMake project `rho_add_benchmark(NAME SOURCES ... LINK ...)`
//! (`cmake/RhoBench.cmake`, embedded like the header), `rho bench --cmake-module DIR` writing it, and a
//! module.yml suite `{ cmake: { build_dir, target } }` built with `cmake --build` and run.
//!
//! For a CMake suite rho writes the module (with the header, the board ports and the toolchain file) into
//! `BUILD_DIR/rho-cmake`, so the build directory keeps working after rho is gone, then configures
//! (`cmake -S SOURCE_DIR -B BUILD_DIR -DCMAKE_MODULE_PATH=BUILD_DIR/rho-cmake`, kept cache and all) and builds
//! the target. `RhoBench.cmake` records each suite's executable in `BUILD_DIR/rho-benchmarks/NAME`, which rho
//! runs: directly on the host, under QEMU for a built-in emulated board (configured with the toolchain file
//! `rho-board.toolchain.cmake` and `RHO_BENCH_PORT=BOARD`, which read the board's data from
//! `c/ports/boards/BOARD.mk`, in `BUILD_DIR-BOARD`, with the settings compiled in through `RHO_BENCH_DEFINES`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::error::{Doing as _, Result, SuiteError};
use rho_config::{CMakeSuite, ModuleConfig};

use crate::cfiles::{BENCH_HEADER, run_build};
use crate::footprint::ImageFiles;

/// `cmake/RhoBench.cmake`, embedded so that an installed `rho` needs no checkout.
pub const RHO_BENCH_CMAKE: &str = include_str!("../../../cmake/RhoBench.cmake");
/// `cmake/mps2-an386.toolchain.cmake`.
pub const MPS2_AN386_TOOLCHAIN: &str = include_str!("../../../cmake/mps2-an386.toolchain.cmake");
/// `cmake/rho-board.toolchain.cmake`: any built-in emulated board, named by `RHO_BENCH_PORT`.
pub const BOARD_TOOLCHAIN: &str = include_str!("../../../cmake/rho-board.toolchain.cmake");
/// `cmake/RhoBoard.cmake`: a board's data, read from its `.mk` file.
pub const RHO_BOARD_CMAKE: &str = include_str!("../../../cmake/RhoBoard.cmake");

/// The settings a board build compiles in (it has no environment), as the port's Makefile reads them.
const COMPILED_IN: &[&str] = &[
    "RHO_BENCH_ITERATIONS",
    "RHO_BENCH_WARMUP",
    "RHO_BENCH_SCALE",
    "RHO_BENCH_STACK_BYTES",
    "RHO_BENCH_TIME_CAP_MS",
    "RHO_BENCH_FILTER",
];

/// Write the module into `dir`: `RhoBench.cmake`, `RhoBoard.cmake`, the toolchain files
/// (`rho-board.toolchain.cmake`, `mps2-an386.toolchain.cmake`), `include/rho/bench.h` and
/// `ports/` (the board ports, c/ports). A file already holding the same text is left alone (its time too, so a build does not
/// start over). Returns the path of `RhoBench.cmake`.
pub fn write_module(dir: &Path) -> Result<PathBuf> {
    let mut files: Vec<(PathBuf, &str)> = vec![
        (PathBuf::from("RhoBench.cmake"), RHO_BENCH_CMAKE),
        (PathBuf::from("RhoBoard.cmake"), RHO_BOARD_CMAKE),
        (PathBuf::from("rho-board.toolchain.cmake"), BOARD_TOOLCHAIN),
        (
            PathBuf::from("mps2-an386.toolchain.cmake"),
            MPS2_AN386_TOOLCHAIN,
        ),
        (PathBuf::from("include/rho/bench.h"), BENCH_HEADER),
    ];
    for (name, text) in crate::ports::PORT_FILES {
        files.push((Path::new("ports").join(name), text));
    }
    for (relative, text) in files {
        let path = dir.join(relative);
        if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .doing(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).doing(|| format!("cannot write {}", path.display()))?;
    }
    Ok(dir.join("RhoBench.cmake"))
}

/// A CMake suite built for a target.
pub struct BuiltCMake {
    /// The executable, as `RhoBench.cmake` recorded it.
    pub executable: PathBuf,
    /// The executable and its stack-usage files, for the footprint command.
    pub image: ImageFiles,
    /// The built-in board it is for (run under its QEMU), or `None` for the host.
    board: Option<crate::ports::BoardData>,
    /// Where it runs (the module root), and with what added to its environment.
    root: PathBuf,
    env: Vec<(String, String)>,
}

impl BuiltCMake {
    /// A command that runs it once: the executable itself, or QEMU with it.
    pub fn command(&self) -> Result<Command> {
        let mut run = if let Some(board) = &self.board {
            let path = self.executable.display().to_string();
            let quoted = shlex::try_quote(&path)
                .map(|q| q.into_owned())
                .map_err(|e| SuiteError::Unsupported(format!("{path}: {e}")))?;
            let mut sh = Command::new("sh");
            sh.arg("-c").arg(board.run_command(&quoted));
            sh
        } else {
            Command::new(&self.executable)
        };
        run.current_dir(&self.root)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        Ok(run)
    }
}

/// The build directory of `suite` for `target`: `build_dir` for the host, `build_dir-TARGET` for a board (a
/// CMake build directory has one toolchain).
pub fn build_dir(config: &ModuleConfig, suite: &CMakeSuite, target: &str) -> PathBuf {
    let dir = config.resolve(&suite.build_dir);
    if target == "host" {
        dir
    } else {
        let mut name = dir.into_os_string();
        name.push(format!("-{target}"));
        PathBuf::from(name)
    }
}

/// Configure (keeping what the build directory already has), build the suite's target for `target` (`host`
/// or a built-in emulated board) with `env` (the harness settings), and return how to run it.
pub fn build(
    config: &ModuleConfig,
    suite: &CMakeSuite,
    target: &str,
    env: &[(String, String)],
    timeout: Duration,
) -> Result<BuiltCMake> {
    let board = crate::ports::board(target);
    if target != "host" && board.is_none() {
        return Err(SuiteError::Unsupported(format!(
            "a cmake suite is built by rho for host and the built-in emulated boards ({}), not for target {target}",
            crate::ports::BOARDS.join(", ")
        )));
    }
    let dir = build_dir(config, suite, target);
    let module_dir = dir.join("rho-cmake");
    write_module(&module_dir)?;
    let source_dir = config.resolve(&suite.source_dir);
    let what = format!("cmake target {}", suite.target);

    let mut configure = Command::new("cmake");
    configure
        .arg("-S")
        .arg(&source_dir)
        .arg("-B")
        .arg(&dir)
        .arg(format!("-DCMAKE_MODULE_PATH={}", module_dir.display()))
        .envs(env.iter().map(|(k, v)| (k, v)));
    if board.is_some() {
        configure.arg(format!(
            "-DCMAKE_TOOLCHAIN_FILE={}",
            module_dir.join("rho-board.toolchain.cmake").display()
        ));
        configure.arg(format!("-DRHO_BENCH_PORT={target}"));
        let defines: Vec<String> = env
            .iter()
            .filter(|(k, _)| COMPILED_IN.contains(&k.as_str()))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        configure.arg(format!("-DRHO_BENCH_DEFINES={}", defines.join(";")));
    }
    run_build(
        configure,
        timeout,
        || "cannot run `cmake` (Debian package: cmake)".to_string(),
        || format!("cannot configure {what} in {}: `cmake`", dir.display()),
    )?;
    let mut build = Command::new("cmake");
    build
        .arg("--build")
        .arg(&dir)
        .arg("--target")
        .arg(&suite.target)
        .envs(env.iter().map(|(k, v)| (k, v)));
    run_build(
        build,
        timeout,
        || "cannot run `cmake --build`".to_string(),
        || format!("cannot build {what} in {}: `cmake --build`", dir.display()),
    )
    .map_err(|error| crate::cfiles::with_link_hint(error, &[]))?;

    let record = dir.join("rho-benchmarks").join(&suite.target);
    let text = std::fs::read_to_string(&record).doing(|| {
        format!(
            "{what} was built, but {} does not say where its executable is: is the target made by \
             rho_add_benchmark (include(RhoBench) in CMakeLists.txt)?",
            record.display()
        )
    })?;
    let executable = PathBuf::from(text.trim());
    if !executable.is_file() {
        return Err(SuiteError::Build(format!(
            "{what}: {} names {}, which is not there (a multi-config generator is not supported: use Unix \
             Makefiles or Ninja)",
            record.display(),
            executable.display()
        )));
    }
    let image = image_files(&dir, &suite.target, &executable)?;
    Ok(BuiltCMake {
        executable,
        image,
        board,
        root: config.root.clone(),
        env: env.to_vec(),
    })
}

/// The suite's image and its stack-usage files for the footprint command. GCC writes a `.su` and a `.ci` beside
/// each object, under `CMakeFiles/TARGET.dir` in directories that mirror the sources'; the footprint command
/// reads one directory, so they are copied, flat, into `BUILD_DIR/rho-stack-usage/TARGET` (rho's own, made
/// afresh on each build; the files' names do not matter, their content names each function's source). When
/// there are none (a compiler without `-fstack-usage`), the image alone: code bytes, no bound.
fn image_files(dir: &Path, target: &str, executable: &Path) -> Result<ImageFiles> {
    let objects = dir.join("CMakeFiles").join(format!("{target}.dir"));
    let mut found = Vec::new();
    let mut pending = vec![objects.clone()];
    while let Some(at) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                pending.push(path);
            } else if matches!(path.extension().and_then(|e| e.to_str()), Some("su" | "ci")) {
                found.push(path);
            }
        }
    }
    let image = executable.to_path_buf();
    if found.is_empty() {
        return Ok(ImageFiles {
            image,
            stack_usage: None,
        });
    }
    let flat = dir.join("rho-stack-usage").join(target);
    if flat.exists() {
        std::fs::remove_dir_all(&flat).doing(|| format!("cannot remove {}", flat.display()))?;
    }
    std::fs::create_dir_all(&flat).doing(|| format!("cannot create {}", flat.display()))?;
    for path in found {
        let relative = path.strip_prefix(&objects).unwrap_or(&path);
        let name = relative.to_string_lossy().replace(['/', '\\'], "__");
        std::fs::copy(&path, flat.join(&name))
            .doing(|| format!("cannot copy {} to {}", path.display(), flat.display()))?;
    }
    Ok(ImageFiles {
        image,
        stack_usage: Some(flat),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_is_written_with_the_header_and_the_port_and_rewritten_only_when_it_changed() {
        let dir = tempfile::tempdir().unwrap();
        let module = write_module(dir.path()).unwrap();
        assert_eq!(std::fs::read_to_string(&module).unwrap(), RHO_BENCH_CMAKE);
        assert!(dir.path().join("include/rho/bench.h").is_file());
        assert!(dir.path().join("ports/cortex-m/startup.c").is_file());
        assert!(dir.path().join("mps2-an386.toolchain.cmake").is_file());
        assert!(dir.path().join("rho-board.toolchain.cmake").is_file());
        assert!(dir.path().join("RhoBoard.cmake").is_file());
        assert!(RHO_BENCH_CMAKE.contains("function(rho_add_benchmark name)"));

        let before = std::fs::metadata(&module).unwrap().modified().unwrap();
        std::thread::sleep(Duration::from_millis(20));
        write_module(dir.path()).unwrap();
        assert_eq!(
            std::fs::metadata(&module).unwrap().modified().unwrap(),
            before
        );
    }

    #[test]
    fn a_board_builds_in_a_directory_of_its_own() {
        let config = ModuleConfig::from_str(
            "bench:\n  suites:\n    - cmake: { build_dir: build/bench, target: s }\n",
            Path::new("m/module.yml"),
        )
        .unwrap();
        let rho_config::Suite::CMake(suite) = &config.suites[0] else {
            panic!("{:?}", config.suites[0]);
        };
        assert_eq!(
            build_dir(&config, suite, "host"),
            Path::new("m/build/bench")
        );
        assert_eq!(
            build_dir(&config, suite, "mps2-an386"),
            Path::new("m/build/bench-mps2-an386")
        );
    }
}
