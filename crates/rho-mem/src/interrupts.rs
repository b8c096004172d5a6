//! The interrupt allowance: what an exception adds to the stack of any function it interrupts, so that a
//! static bound is an upper bound of the measured mark. It is the frame the hardware pushes on exception
//! entry and the deepest handler that can run on the same stack, counted once.
//!
//! - **Cortex-M** (an Arm image whose attributes say profile `M`, or one without attributes that has a
//!   vector table): the core pushes 8 words (32 bytes) on exception entry, 26 words (104 bytes) when the
//!   FPU's lazy context is active, which the build allows when `Tag_FP_arch` is non-zero (-mfloat-abi=hard or
//!   softfp with an -mfpu; an image without attributes is taken to have it), plus 4 bytes when the stack
//!   pointer was not 8-byte aligned. The handlers are every function the vector table (`.vectors` or
//!   `.isr_vector`) points at but reset; each one's own bound comes from the call graph. Nesting is not
//!   counted: the ports leave every configurable exception at its reset priority (0), so none preempts
//!   another; only NMI and the faults can, and on rho's ports those end the run (a crash, or the MPU guard's
//!   "overran"), so no mark is taken after them.
//! - **RISC-V** (bare metal): a trap pushes nothing in hardware, and the built-in port enables no interrupt
//!   (its trap entry reports and ends the run): nothing is added.
//! - **Hosted** (x86-64, x86, aarch64, another Arm profile): the kernel delivers signals, not the hardware.
//!   The harness's own handlers (SIGSEGV, SIGBUS) run on an alternate stack (sigaltstack, SA_ONSTACK) and it
//!   installs no other: nothing is added. A handler a benchmark installs without SA_ONSTACK is not counted.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::elf::{ArmCore, Image};

/// The Cortex-M's basic exception frame: r0-r3, r12, lr, pc, xPSR.
pub const CORTEX_M_BASIC_FRAME_BYTES: u64 = 8 * 4;
/// The Cortex-M's extended frame, with the FPU's lazy context: the basic frame, s0-s15, FPSCR and a
/// reserved word.
pub const CORTEX_M_FPU_FRAME_BYTES: u64 = 26 * 4;
/// The padding the core adds to keep the frame 8-byte aligned (CCR.STKALIGN, set out of reset).
pub const CORTEX_M_ALIGNMENT_BYTES: u64 = 4;

/// One handler the vector table names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handler {
    /// The function (of the names at its address, the one the call graph defines).
    pub name: String,
    /// The vector table entries that point at it (1 is reset, 15 SysTick, 16 on the external interrupts).
    pub vectors: Vec<u32>,
    /// Its own static bound (its deepest call path); None when unbounded or unknown to the call graph.
    pub bound: Option<u64>,
    /// Why it has no bound: unbounded in the call graph, or no frame information (then counted as 0).
    pub unbounded: Option<String>,
}

/// What every function's bound adds for exceptions, and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptAllowance {
    /// `cortex-m`, `riscv` (bare metal) or `hosted`.
    pub model: String,
    /// What the hardware pushes on exception entry, alignment padding included (0 where it pushes nothing).
    pub exception_frame_bytes: u64,
    /// Whether that frame is the one with the FPU's lazy context.
    pub fpu_context: bool,
    /// The handlers that can run on the benchmark's stack (reset left out), in vector order.
    pub handlers: Vec<Handler>,
    /// The deepest of them, counted once.
    pub deepest_handler: Option<String>,
    pub handler_bytes: u64,
    /// `exception_frame_bytes + handler_bytes`; None when a handler is unbounded.
    pub bytes: Option<u64>,
    /// Why there is no allowance (a handler with recursion, an indirect call or a dynamic frame).
    pub unbounded: Option<String>,
    /// Why the allowance is what it is, in a sentence.
    pub note: String,
}

impl InterruptAllowance {
    /// An allowance of nothing: no hardware frame and no handler that can preempt the benchmark, with why.
    fn nothing(model: &str, note: &str) -> InterruptAllowance {
        InterruptAllowance {
            model: model.to_string(),
            exception_frame_bytes: 0,
            fpu_context: false,
            handlers: Vec::new(),
            deepest_handler: None,
            handler_bytes: 0,
            bytes: Some(0),
            unbounded: None,
            note: note.to_string(),
        }
    }
}

/// The allowance of `image`, given each handler's own bound (`handler_bound(name)`: Some(Ok(bytes)),
/// Some(Err(reason)) when unbounded, None when the call graph does not define it).
pub fn allowance(
    image: &Image,
    is_defined: impl Fn(&str) -> bool,
    handler_bound: impl FnMut(&str) -> Option<Result<u64, String>>,
) -> InterruptAllowance {
    match &image.arm {
        Some(core) if core.m_profile || (core.fp.is_none() && !core.vectors.is_empty()) => {
            cortex_m(core, is_defined, handler_bound)
        }
        _ if image.format.machine.starts_with("riscv") => InterruptAllowance::nothing(
            "riscv",
            "a RISC-V trap pushes nothing in hardware, and rho's port enables no interrupt (a trap ends the run)",
        ),
        _ => InterruptAllowance::nothing(
            "hosted",
            "hosted: the harness's signal handlers run on their own alternate stack, and it installs no other",
        ),
    }
}

fn cortex_m(
    core: &ArmCore,
    is_defined: impl Fn(&str) -> bool,
    mut handler_bound: impl FnMut(&str) -> Option<Result<u64, String>>,
) -> InterruptAllowance {
    let fpu_context = core.fp.unwrap_or(true);
    let frame = if fpu_context {
        CORTEX_M_FPU_FRAME_BYTES
    } else {
        CORTEX_M_BASIC_FRAME_BYTES
    } + CORTEX_M_ALIGNMENT_BYTES;
    // Entry 1 is reset: it never interrupts anything.
    let mut by_name: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (index, names) in core.vectors.iter().filter(|(index, _)| *index != 1) {
        let name = names
            .iter()
            .find(|n| is_defined(n))
            .or_else(|| names.first());
        if let Some(name) = name {
            by_name.entry(name.clone()).or_default().push(*index);
        }
    }
    let mut handlers: Vec<Handler> = by_name
        .into_iter()
        .map(|(name, vectors)| {
            let (bound, unbounded) = match handler_bound(&name) {
                Some(Ok(bytes)) => (Some(bytes), None),
                Some(Err(reason)) => (None, Some(reason)),
                None => (
                    None,
                    Some("no frame information (assembly, or built without -fstack-usage): counted as 0".to_string()),
                ),
            };
            Handler { name, vectors, bound, unbounded }
        })
        .collect();
    handlers.sort_by_key(|h| h.vectors.first().copied());
    let unbounded = handlers
        .iter()
        .find(|h| {
            h.bound.is_none()
                && h.unbounded
                    .as_deref()
                    .is_some_and(|r| !r.starts_with("no frame"))
        })
        .map(|h| {
            format!(
                "interrupt handler {}: {}",
                h.name,
                h.unbounded.as_deref().unwrap_or("")
            )
        });
    let deepest = handlers
        .iter()
        .filter(|h| h.bound.is_some())
        .max_by(|a, b| a.bound.cmp(&b.bound).then_with(|| b.name.cmp(&a.name)));
    let handler_bytes = deepest.and_then(|h| h.bound).unwrap_or(0);
    InterruptAllowance {
        model: "cortex-m".to_string(),
        exception_frame_bytes: frame,
        fpu_context,
        deepest_handler: deepest.map(|h| h.name.clone()),
        handler_bytes,
        bytes: unbounded.is_none().then_some(frame + handler_bytes),
        unbounded,
        handlers,
        note: format!(
            "Cortex-M: the {} exception frame ({} bytes with {} of alignment) and the deepest handler the vector \
             table names, once (every configurable exception at one priority: none nests)",
            if fpu_context {
                "FPU's extended"
            } else {
                "basic"
            },
            frame,
            CORTEX_M_ALIGNMENT_BYTES
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attributes::aeabi_attributes;
    use crate::elf::{Format, Totals};

    fn image(machine: &str, arm: Option<ArmCore>) -> Image {
        Image {
            format: Format {
                class: "elf32".to_string(),
                endian: "little".to_string(),
                machine: machine.to_string(),
            },
            sections: Vec::new(),
            totals: Totals::default(),
            symbols: Vec::new(),
            arm,
        }
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn arm_none_eabi_attributes_give_the_profile_and_the_fpu() {
        // `arm-none-eabi-gcc -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16`'s attributes, as readelf -A
        // shows them: Tag_CPU_name "7E-M", Tag_CPU_arch v7E-M (13), profile M, Tag_THUMB_ISA_use 2,
        // Tag_FP_arch VFPv4-D16 (6), Tag_ABI_VFP_args (28) 1.
        let mut sub = vec![5u8];
        sub.extend_from_slice(b"7E-M\0");
        sub.extend_from_slice(&[6, 13, 7, b'M', 9, 2, 10, 6, 28, 1]);
        let mut file = vec![1u8];
        file.extend_from_slice(&((sub.len() + 5) as u32).to_le_bytes());
        file.extend_from_slice(&sub);
        let mut section = Vec::new();
        section.extend_from_slice(&((file.len() + 10) as u32).to_le_bytes());
        section.extend_from_slice(b"aeabi\0");
        section.extend_from_slice(&file);
        let mut data = vec![b'A'];
        data.extend_from_slice(&section);
        let tags = aeabi_attributes(&data);
        assert_eq!(tags.get(&7), Some(&u64::from(b'M')));
        assert_eq!(tags.get(&10), Some(&6));
        assert_eq!(tags.get(&28), Some(&1));
        // Cut anywhere, the reader stops without a panic.
        for end in 0..data.len() {
            let _ = aeabi_attributes(&data[..end]);
        }
    }

    #[test]
    fn a_cortex_m_allowance_is_the_frame_and_the_deepest_handler_once() {
        let core = ArmCore {
            m_profile: true,
            fp: Some(true),
            vectors: vec![
                (1, names(&["Reset_Handler"])),
                (
                    2,
                    names(&["BusFault_Handler", "Fault_Handler", "NMI_Handler"]),
                ),
                (3, names(&["rho_bench_fault_handler"])),
                (15, names(&["rho_bench_systick_handler"])),
                (16, names(&["Fault_Handler", "Irq_Handler"])),
            ],
        };
        let bounds = |name: &str| match name {
            "Reset_Handler" => Some(Ok(4000)),
            "Fault_Handler" => Some(Ok(0)),
            "rho_bench_systick_handler" => Some(Ok(8)),
            _ => None,
        };
        let defined = |name: &str| matches!(name, "Fault_Handler" | "rho_bench_systick_handler");
        let fpu = allowance(&image("arm", Some(core.clone())), defined, bounds);
        assert_eq!(fpu.model, "cortex-m");
        assert_eq!(fpu.exception_frame_bytes, 108);
        assert_eq!(
            fpu.deepest_handler.as_deref(),
            Some("rho_bench_systick_handler")
        );
        assert_eq!(fpu.bytes, Some(116));
        // The aliases at the fault handler's address are one handler, under the name the graph defines.
        let fault = fpu
            .handlers
            .iter()
            .find(|h| h.name == "Fault_Handler")
            .unwrap();
        assert_eq!(fault.vectors, [2, 16]);
        assert!(!fpu.handlers.iter().any(|h| h.name == "Reset_Handler"));
        // An assembly handler is named and counted as 0.
        let asm = fpu
            .handlers
            .iter()
            .find(|h| h.name == "rho_bench_fault_handler")
            .unwrap();
        assert!(
            asm.unbounded
                .as_deref()
                .unwrap()
                .starts_with("no frame information")
        );

        let soft = ArmCore {
            fp: Some(false),
            ..core.clone()
        };
        let soft = allowance(&image("arm", Some(soft)), defined, bounds);
        assert_eq!(soft.exception_frame_bytes, 36);
        assert_eq!(soft.bytes, Some(44));

        let recursive = |name: &str| match name {
            "rho_bench_systick_handler" => Some(Err("recursion: a -> a".to_string())),
            _ => None,
        };
        let none = allowance(&image("arm", Some(core)), defined, recursive);
        assert_eq!(none.bytes, None);
        assert_eq!(
            none.unbounded.as_deref(),
            Some("interrupt handler rho_bench_systick_handler: recursion: a -> a")
        );
    }

    #[test]
    fn hosts_and_risc_v_add_nothing() {
        let never = |_: &str| None;
        let host = allowance(&image("x86-64", None), |_| false, never);
        assert_eq!((host.model.as_str(), host.bytes), ("hosted", Some(0)));
        let linux_arm = ArmCore {
            m_profile: false,
            fp: Some(true),
            vectors: Vec::new(),
        };
        let arm = allowance(&image("arm", Some(linux_arm)), |_| false, never);
        assert_eq!((arm.model.as_str(), arm.bytes), ("hosted", Some(0)));
        let riscv = allowance(&image("riscv32", None), |_| false, never);
        assert_eq!((riscv.model.as_str(), riscv.bytes), ("riscv", Some(0)));
    }
}
