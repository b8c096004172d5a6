//! The targets rho defines itself: what module.yml may name without saying how to build and run it. Their own
//! module so that the config model and its errors (which list them) both read them.

/// Targets the `rho` binary knows how to build and run without a `build:`/`run:` in module.yml.
pub const BUILTIN_TARGETS: &[&str] = &[
    "host",
    "mps2-an385",
    "mps2-an386",
    "mps2-an500",
    "mps2-an505",
    "microbit",
    "riscv32-virt",
    "aarch64-linux",
    "stm32h743zi",
];
/// The built-in targets that are boards under QEMU's system emulation (c/ports/boards), in the order
/// `--target all` runs them.
pub const BUILTIN_BOARDS: &[&str] = &[
    "mps2-an385",
    "mps2-an386",
    "mps2-an500",
    "mps2-an505",
    "microbit",
    "riscv32-virt",
];
