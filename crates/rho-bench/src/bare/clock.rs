//! The Cortex-M cycle counter, as the C harness's port reads it: DWT's CYCCNT when it advances (it reads 0
//! under QEMU), else SysTick, which the harness takes (reload 0xFFFFFF on the core clock) and whose exception
//! counts the counter's wraps, so a body of any length below 2^32 cycles is measured whole. No time clock:
//! rho derives time from `hz`.

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering, compiler_fence};

const DEMCR: *mut u32 = 0xE000_EDFC as *mut u32;
const DWT_CTRL: *mut u32 = 0xE000_1000 as *mut u32;
const DWT_CYCCNT: *const u32 = 0xE000_1004 as *const u32;
const SYST_CSR: *mut u32 = 0xE000_E010 as *mut u32;
const SYST_RVR: *mut u32 = 0xE000_E014 as *mut u32;
const SYST_CVR: *mut u32 = 0xE000_E018 as *mut u32;
const ICSR: *const u32 = 0xE000_ED04 as *const u32;

/// No time clock on a board.
pub const HAS_TIME: bool = false;
/// A cycle clock, always.
pub const HAS_CYCLES: bool = true;

static USE_SYSTICK: AtomicBool = AtomicBool::new(false);
static WRAPS: AtomicU32 = AtomicU32::new(0);

/// SysTick's exception: the counter went through 0 and reloaded.
#[cortex_m_rt::exception]
fn SysTick() {
    WRAPS.fetch_add(1, Ordering::Relaxed);
}

fn read(register: *const u32) -> u32 {
    // SAFETY: a core peripheral register of every ARMv7-M part, read as the architecture defines it.
    unsafe { register.read_volatile() }
}

fn write(register: *mut u32, value: u32) {
    // SAFETY: as above, written as the architecture defines it.
    unsafe { register.write_volatile(value) }
}

/// The counter, counting up. Not inlined: one short call in every window, which `.overhead` measures too.
#[inline(never)]
pub fn cycles_now() -> u32 {
    if !USE_SYSTICK.load(Ordering::Relaxed) {
        return read(DWT_CYCCNT);
    }
    loop {
        let wraps = WRAPS.load(Ordering::Relaxed);
        let value = read(SYST_CVR);
        // A wrap pended but not yet taken (PENDSTSET), or taken meanwhile: read again.
        if read(ICSR) & (1 << 26) == 0 && wraps == WRAPS.load(Ordering::Relaxed) {
            return (wraps << 24).wrapping_sub(value);
        }
    }
}

/// The counter at the start of a window.
#[inline(always)]
pub fn cycles_start() -> u64 {
    let value = cycles_now();
    compiler_fence(Ordering::SeqCst);
    u64::from(value)
}

/// The counter at the end of a window.
#[inline(always)]
pub fn cycles_stop() -> u64 {
    compiler_fence(Ordering::SeqCst);
    u64::from(cycles_now())
}

/// Counts between two readings: 32-bit, one wrap handled.
#[inline(always)]
pub fn cycles_between(start: u64, stop: u64) -> u64 {
    u64::from((stop as u32).wrapping_sub(start as u32))
}

/// No time clock.
#[inline(always)]
pub fn time_now() -> u64 {
    0
}

/// No CPU-time clock on a board: nothing is printed rather than a figure that is not one.
pub const HAS_CPU: bool = false;

/// No CPU-time clock.
#[inline(always)]
pub fn cpu_now() -> u64 {
    0
}

/// No CPU-time clock: nothing to read.
pub fn process_cpu_now() -> u64 {
    0
}

/// No scheduler on a board: no sample is preempted, and nothing is printed.
pub const HAS_PREEMPTION: bool = false;

/// No scheduler: nothing to read.
#[inline(always)]
pub fn switches_now() -> i64 {
    0
}

/// The smallest non-zero step between successive reads (1000 reads), 0 if the counter never moved.
pub fn resolution() -> u64 {
    let mut smallest = 0u32;
    let mut previous = cycles_now();
    for _ in 0..1000 {
        let now = cycles_now();
        let step = now.wrapping_sub(previous);
        if step != 0 && (smallest == 0 || step < smallest) {
            smallest = step;
        }
        previous = now;
    }
    u64::from(smallest)
}

/// Chooses the counter; its name for `@clock`. An error when SysTick is already running.
pub fn init() -> Result<&'static str, &'static str> {
    write(DEMCR, read(DEMCR) | (1 << 24));
    if read(DWT_CTRL) & (1 << 25) == 0 {
        write(DWT_CTRL, read(DWT_CTRL) | 1);
        if resolution() != 0 {
            return Ok("dwt");
        }
    }
    if read(SYST_CSR) & 1 != 0 {
        return Err("no DWT cycle counter, and SysTick is busy: the harness needs it");
    }
    write(SYST_RVR, 0x00FF_FFFF);
    write(SYST_CVR, 0);
    USE_SYSTICK.store(true, Ordering::Relaxed);
    write(SYST_CSR, 0b111); // core clock, exception on wrap, enabled
    Ok("systick")
}

/// The stack pointer where this is inlined.
#[inline(always)]
pub fn stack_pointer() -> usize {
    let sp: usize;
    // SAFETY: copies sp into a register.
    unsafe {
        core::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags));
    }
    sp
}
