//! The built-in boards: the ports in `c/ports` (one per architecture family, the boards' differences as data in
//! `c/ports/boards/<board>.mk` and `<board>.ld`), embedded so an installed `rho` needs no checkout.
//!
//! What rho needs to know of a board (its QEMU, machine and `-icount` shift, its compiler) it reads from the
//! board's `.mk` file, the same file the ports' Makefile includes: one place says it.

use std::path::Path;

use anyhow::Context;

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
pub fn write_ports(dir: &Path) -> anyhow::Result<()> {
    for (file, text) in PORT_FILES {
        let path = dir.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        if std::fs::read_to_string(&path).is_ok_and(|old| old == *text) {
            continue;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
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
}
