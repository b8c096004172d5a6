//! rho-mem: the static footprint of a built image, beside the speed `rho bench` measures.
//!
//! `rho mem FILE.elf [--json]` reads an ELF image (32 or 64 bits; x86-64, x86, aarch64, Arm, RISC-V; another
//! machine is refused) as it needs it, never whole, and reports:
//! - its sections as GNU `size -A` lists them, and the Berkeley totals (text, data, bss) `size` prints;
//! - its symbols with sizes;
//! - with GCC's `.su` (`-fstack-usage`) and `.ci` (`-fcallgraph-info=su`) files: per function its code bytes,
//!   frame, the code it can reach through direct calls, and a static stack bound (the deepest path's sum of
//!   frames, plus the interrupt allowance: the exception frame and the deepest handler, on a Cortex-M), or
//!   the reason there is none (recursion, an indirect call, a dynamic frame);
//! - with a GNU ld map file: the bytes each input file (object or archive member) put into the image.
//!
//! `--json` prints the versioned document of [`Document`] (schema [`SCHEMA`], docs/mem-json.md). `rho bench`
//! asks for it by running a command (`rho mem --json` unless module.yml's `bench.mem_command` names
//! another) and reads the document; it never links this library, so either side can be replaced.

pub mod analysis;
pub mod attributes;
pub mod callgraph;
pub mod cli;
pub mod document;
pub mod elf;
mod error;
pub mod interrupts;
pub mod map;

pub use analysis::{FunctionFootprint, Reachable, StackBound};
pub use callgraph::{CallGraph, FrameKind};
pub use document::{Document, Inputs, SCHEMA};
pub use elf::{Image, Section, SectionKind, Symbol, SymbolType, Totals};
pub use error::MemError;
pub use interrupts::InterruptAllowance;
