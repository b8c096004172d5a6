//! The built-in boards: the ports in `c/ports` (one per architecture family, the boards' differences as data in
//! `c/ports/boards/<board>.mk` and `<board>.ld`), embedded so an installed `rho` needs no checkout.
//!
//! What rho needs to know of a board (its QEMU, machine and `-icount` shift, its compiler) it reads from the
//! board's `.mk` file, the same file the ports' Makefile includes: one place says it.

use std::path::Path;

use crate::error::{Doing as _, Result};

/// The built-in targets `--target` and module.yml accept besides `host`, in the order `--target all` runs them
/// (rho-config's list, which validates module.yml, is the same).
pub const BOARDS: &[&str] = rho_config::BUILTIN_BOARDS;

/// Every file of `c/ports`, by its path there.
pub(crate) const PORT_FILES: &[(&str, &str)] = &[
    ("Makefile", include_str!("../../../c/ports/Makefile")),
    (
        "common/port.h",
        include_str!("../../../c/ports/common/port.h"),
    ),
    (
        "common/runtime.c",
        include_str!("../../../c/ports/common/runtime.c"),
    ),
    (
        "common/semihost.c",
        include_str!("../../../c/ports/common/semihost.c"),
    ),
    (
        "common/semihost.h",
        include_str!("../../../c/ports/common/semihost.h"),
    ),
    (
        "common/syscalls.c",
        include_str!("../../../c/ports/common/syscalls.c"),
    ),
    (
        "common/heap.c",
        include_str!("../../../c/ports/common/heap.c"),
    ),
    (
        "common/settings.mk",
        include_str!("../../../c/ports/common/settings.mk"),
    ),
    (
        "common/rules.mk",
        include_str!("../../../c/ports/common/rules.mk"),
    ),
    (
        "common/rho_bench_impl.c",
        include_str!("../../../c/ports/common/rho_bench_impl.c"),
    ),
    (
        "cortex-m/startup.c",
        include_str!("../../../c/ports/cortex-m/startup.c"),
    ),
    (
        "cortex-m/vectors.c",
        include_str!("../../../c/ports/cortex-m/vectors.c"),
    ),
    (
        "cortex-m/sections.ld",
        include_str!("../../../c/ports/cortex-m/sections.ld"),
    ),
    (
        "riscv/startup.c",
        include_str!("../../../c/ports/riscv/startup.c"),
    ),
    (
        "riscv/sections.ld",
        include_str!("../../../c/ports/riscv/sections.ld"),
    ),
    (
        "boards/mps2-an385.mk",
        include_str!("../../../c/ports/boards/mps2-an385.mk"),
    ),
    (
        "boards/mps2-an385.ld",
        include_str!("../../../c/ports/boards/mps2-an385.ld"),
    ),
    (
        "boards/mps2-an386.mk",
        include_str!("../../../c/ports/boards/mps2-an386.mk"),
    ),
    (
        "boards/mps2-an386.ld",
        include_str!("../../../c/ports/boards/mps2-an386.ld"),
    ),
    (
        "boards/mps2-an500.mk",
        include_str!("../../../c/ports/boards/mps2-an500.mk"),
    ),
    (
        "boards/mps2-an500.ld",
        include_str!("../../../c/ports/boards/mps2-an500.ld"),
    ),
    (
        "boards/mps2-an505.mk",
        include_str!("../../../c/ports/boards/mps2-an505.mk"),
    ),
    (
        "boards/mps2-an505.ld",
        include_str!("../../../c/ports/boards/mps2-an505.ld"),
    ),
    (
        "boards/microbit.mk",
        include_str!("../../../c/ports/boards/microbit.mk"),
    ),
    (
        "boards/microbit.ld",
        include_str!("../../../c/ports/boards/microbit.ld"),
    ),
    (
        "boards/microbit.c",
        include_str!("../../../c/ports/boards/microbit.c"),
    ),
    (
        "boards/riscv32-virt.mk",
        include_str!("../../../c/ports/boards/riscv32-virt.mk"),
    ),
    (
        "boards/riscv32-virt.ld",
        include_str!("../../../c/ports/boards/riscv32-virt.ld"),
    ),
];

/// Write every port file under `dir` (as `c/ports` lays them out).
pub fn write_ports(dir: &Path) -> Result<()> {
    for (file, text) in PORT_FILES {
        let path = dir.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .doing(|| format!("cannot create {}", parent.display()))?;
        }
        if std::fs::read_to_string(&path).is_ok_and(|old| old == *text) {
            continue;
        }
        std::fs::write(&path, text).doing(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// What rho reads of a built-in board's `.mk` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardData {
    pub name: &'static str,
    /// The compiler driver (`CROSS` + `gcc`).
    pub compiler: String,
    /// The emulator and its `-M` argument (which may carry more options, e.g. `virt -bios none`).
    pub qemu: String,
    pub machine: String,
    /// `-icount shift=`: every instruction advances QEMU's virtual time by `2^shift` ns.
    pub icount_shift: u32,
    /// The core clock in Hz, which the cycle counter counts.
    pub cpu_hz: u64,
}

/// The data of built-in board `name`, `None` for any other name.
pub fn board(name: &str) -> Option<BoardData> {
    let name = *BOARDS.iter().find(|b| **b == name)?;
    let path = format!("boards/{name}.mk");
    let text = PORT_FILES.iter().find(|(f, _)| *f == path)?.1;
    let value = |key: &str| {
        text.lines().find_map(|line| {
            let rest = line.strip_prefix(key)?.trim_start();
            let rest = rest
                .strip_prefix("?=")
                .or_else(|| rest.strip_prefix(":="))?;
            Some(rest.trim().to_string())
        })
    };
    Some(BoardData {
        name,
        compiler: format!("{}gcc", value("CROSS")?),
        qemu: value("QEMU")?,
        machine: value("QEMU_MACHINE")?,
        icount_shift: value("ICOUNT_SHIFT")?.parse().ok()?,
        cpu_hz: value("CPU_HZ")?.parse().ok()?,
    })
}

/// The `-icount` shift of the board whose streams carry target name `target`: its figures are instructions.
pub fn icount_shift(target: &str) -> Option<u32> {
    board(target).map(|b| b.icount_shift)
}

impl BoardData {
    /// The QEMU command line that runs the ELF `kernel` (a shell word), as the Makefile's `print-run-command`
    /// prints it.
    pub fn run_command(&self, kernel: &str) -> String {
        format!(
            "{} -M {} -display none -serial none -monitor none -icount shift={} \
             -chardev stdio,id=rho-console -semihosting-config enable=on,target=native,chardev=rho-console \
             -kernel {kernel}",
            self.qemu, self.machine, self.icount_shift
        )
    }

    /// What the board needs on the PATH, and where Debian gets it.
    pub fn tools(&self) -> Vec<(String, &'static str)> {
        vec![
            ("make".to_string(), "make"),
            (self.compiler.clone(), package_of(&self.compiler)),
            (self.qemu.clone(), package_of(&self.qemu)),
        ]
    }
}

/// The Debian packages that give `program`.
fn package_of(program: &str) -> &'static str {
    match program {
        "arm-none-eabi-gcc" => "gcc-arm-none-eabi and libnewlib-arm-none-eabi",
        "riscv64-unknown-elf-gcc" => "gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf",
        "qemu-system-arm" => "qemu-system-arm",
        "qemu-system-riscv32" => "qemu-system-misc",
        _ => "see c/ports/README.md",
    }
}

/// A port of its own (`files`) written under `ports/dir`, and the shell command that builds the suite with its
/// Makefile, the settings and flags from the environment.
fn port_build(ports: &Path, dir: &str, files: &[(&str, &str)]) -> Result<String> {
    // What every port shares (c/ports/common, the Cortex-M vector table), beside the port's own files.
    write_ports(ports)?;
    let port = ports.join(dir);
    std::fs::create_dir_all(&port).doing(|| format!("cannot create {}", port.display()))?;
    for (file, text) in files {
        let path = port.join(file);
        std::fs::write(&path, text).doing(|| format!("cannot write {}", path.display()))?;
    }
    let makefile = shell_quote(&port.join("Makefile").display().to_string());
    Ok(format!(
        "make -s -f {makefile} SUITE=\"$RHO_BENCH_SOURCES\" RHO_BENCH_OUT=\"$RHO_BENCH_OUT\" \
         RHO_BENCH_INCLUDE=\"$RHO_BENCH_INCLUDE\" EXTRA_CFLAGS=\"$RHO_BENCH_CFLAGS\" \
         EXTRA_LDFLAGS=\"$RHO_BENCH_LDFLAGS\" all"
    ))
}

/// How a built-in target other than `host` builds and runs a C suite: two shell commands, run like a
/// module.yml target's `build:` and `run:` (in the module root, with `RHO_BENCH_SOURCES`, `RHO_BENCH_OUT`,
/// `RHO_BENCH_INCLUDE` and the settings in the environment). `None` for `host`, which rho builds itself, and
/// for a name that is not built in. The port's files are written under `ports` first.
pub fn builtin_commands(name: &str, ports: &Path) -> Result<Option<(String, String)>> {
    if name == "aarch64-linux" {
        // The hosted harness cross-compiled for 64-bit Arm Linux and run under QEMU's user-mode emulator: the
        // `cntvct` counter's path on a machine that is not arm64. Its settings are read from the environment at
        // run time, which qemu-aarch64 passes through, as on a host.
        let build = port_build(ports, "aarch64-linux", &AARCH64_LINUX_PORT)?;
        return Ok(Some((
            build,
            "qemu-aarch64 \"$RHO_BENCH_OUT/bench.elf\"".to_string(),
        )));
    }
    if name == "stm32h743zi" {
        // A real board: built with its own port (the README's recipe), flashed and run by probe-rs, whose standard
        // output is the RTT console and whose exit status is the program's (semihosting SYS_EXIT_EXTENDED).
        let build = port_build(ports, "stm32h743zi", &STM32H743ZI_PORT)?;
        let run = "probe-rs run --chip STM32H743ZITx \"$RHO_BENCH_OUT/bench.elf\"".to_string();
        return Ok(Some((build, run)));
    }
    let Some(board) = board(name) else {
        return Ok(None);
    };
    write_ports(ports)?;
    let makefile = shell_quote(&ports.join("Makefile").display().to_string());
    // The suite's settings reach the Makefile through the environment (make reads it), and it compiles
    // them in as defines: a board has no environment at run time.
    let build = format!(
        "make -s -f {makefile} BOARD={name} SUITE=\"$RHO_BENCH_SOURCES\" RHO_BENCH_OUT=\"$RHO_BENCH_OUT\" \
         RHO_BENCH_INCLUDE=\"$RHO_BENCH_INCLUDE\" EXTRA_CFLAGS=\"$RHO_BENCH_CFLAGS\" \
         EXTRA_LDFLAGS=\"$RHO_BENCH_LDFLAGS\" all"
    );
    // QEMU run directly (not `make run`, which would turn the suite's exit status into make's own 2);
    // the same command as the Makefile's `print-run-command`. Stdin is closed by the runner.
    let run = board.run_command("\"$RHO_BENCH_OUT/bench.elf\"");
    Ok(Some((build, run)))
}

/// The aarch64-linux port (a Makefile for the cross compiler), embedded; it builds with `c/ports/common`'s harness
/// unit and rules, which `write_ports` lays beside it.
pub(crate) const AARCH64_LINUX_PORT: [(&str, &str); 1] = [(
    "Makefile",
    include_str!("../../../c/ports/aarch64-linux/Makefile"),
)];

/// The stm32h743zi port (NUCLEO-H743ZI, Cortex-M7), embedded; it shares `c/ports/common` and
/// `c/ports/cortex-m/vectors.c` with the built-in boards, which `write_ports` lays beside it.
pub(crate) const STM32H743ZI_PORT: [(&str, &str); 5] = [
    (
        "Makefile",
        include_str!("../../../c/ports/stm32h743zi/Makefile"),
    ),
    (
        "startup.c",
        include_str!("../../../c/ports/stm32h743zi/startup.c"),
    ),
    (
        "console.c",
        include_str!("../../../c/ports/stm32h743zi/console.c"),
    ),
    (
        "stm32h743zi.ld",
        include_str!("../../../c/ports/stm32h743zi/stm32h743zi.ld"),
    ),
    (
        "stm32h743zi-memory.ld",
        include_str!("../../../c/ports/stm32h743zi/stm32h743zi-memory.ld"),
    ),
];

/// `text` quoted for `sh`.
pub fn shell_quote(text: &str) -> String {
    shlex::try_quote(text)
        .map(|q| q.into_owned())
        .unwrap_or_else(|_| format!("'{}'", text.replace('\'', "'\\''")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_has_its_files_and_reads_its_data() {
        for name in BOARDS {
            let data = board(name).unwrap_or_else(|| panic!("{name}: no data"));
            assert!(data.icount_shift <= 10, "{name}");
            assert!(data.compiler.ends_with("gcc"), "{name}");
            assert!(
                PORT_FILES
                    .iter()
                    .any(|(f, _)| *f == format!("boards/{name}.ld")),
                "{name}"
            );
            for (program, package) in data.tools() {
                assert!(!package.starts_with("see"), "{name}: {program}");
            }
        }
        assert_eq!(board("mps2-an386").unwrap().qemu, "qemu-system-arm");
        assert_eq!(icount_shift("mps2-an386"), Some(5));
        assert!(board("host").is_none() && board("stm32h743zi").is_none());
    }

    #[test]
    fn every_file_of_c_ports_is_embedded() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../c/ports");
        let mut on_disk = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let relative = path
                        .strip_prefix(&root)
                        .unwrap()
                        .to_str()
                        .unwrap()
                        .to_string();
                    on_disk.push(relative);
                }
            }
        }
        for file in on_disk {
            // The docs are not part of a build; another board's port (a real part, not built in) has its own.
            if file.ends_with(".md")
                || file.starts_with('.')
                || !(file.starts_with("common/")
                    || file.starts_with("boards/")
                    || file.starts_with("cortex-m/")
                    || file.starts_with("riscv/")
                    || file == "Makefile")
            {
                continue;
            }
            assert!(
                PORT_FILES.iter().any(|(f, _)| *f == file),
                "c/ports/{file} is not in PORT_FILES"
            );
        }
    }

    #[test]
    fn the_mps2_an386_hook_writes_its_port_and_names_its_commands() {
        let dir = tempfile::tempdir().unwrap();
        let (build, run) = builtin_commands("mps2-an386", dir.path()).unwrap().unwrap();
        assert!(dir.path().join("Makefile").is_file());
        assert!(dir.path().join("boards/mps2-an386.mk").is_file());
        assert!(build.contains("BOARD=mps2-an386"), "{build}");
        assert!(build.contains("SUITE=\"$RHO_BENCH_SOURCES\""), "{build}");
        assert!(run.starts_with("qemu-system-arm -M mps2-an386"), "{run}");
        assert!(builtin_commands("host", dir.path()).unwrap().is_none());
    }
}
