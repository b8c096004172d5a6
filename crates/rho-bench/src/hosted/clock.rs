//! The clocks, as the C harness reads them (`c/include/rho/bench.h`, "Clocks"): each sample reads time
//! start, cycles start, the body, cycles stop, time stop, the cycle window innermost.
//!
//! - x86-64: cycles `tsc` (`lfence; rdtsc; lfence` at both ends), unit cycle, hz calibrated against the
//!   monotonic clock over about 20 ms.
//! - aarch64: cycles `cntvct` (`isb; mrs cntvct_el0`), unit tick, hz from `cntfrq_el0`.
//! - elsewhere: no cycle clock.
//! - time: `clock_gettime(CLOCK_MONOTONIC)` in ns on Unix (`Instant` elsewhere, named `instant`).
//! - cpu (Linux, macOS, FreeBSD): `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` in ns, the thread's CPU time,
//!   read outside the other two windows (before time start, after time stop), as the C harness reads it.

/// A hosted target always has the monotonic clock.
pub const HAS_TIME: bool = true;

/// Counts between two readings of the cycle counter.
#[inline(always)]
pub fn cycles_between(start: u64, stop: u64) -> u64 {
    stop.wrapping_sub(start)
}

/// Whether this target has a cycle clock.
pub const HAS_CYCLES: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// The cycle counter at the start of a window.
#[inline(always)]
pub fn cycles_start() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let (low, high): (u32, u32);
        // SAFETY: rdtsc and lfence only read the counter; no memory is touched (the missing `nomem` keeps the
        // compiler from moving memory accesses across it, as the C harness's "memory" clobber does).
        unsafe {
            core::arch::asm!("lfence", "rdtsc", "lfence", out("eax") low, out("edx") high,
                options(nostack, preserves_flags));
        }
        (u64::from(high) << 32) | u64::from(low)
    }
    #[cfg(target_arch = "aarch64")]
    {
        let value: u64;
        // SAFETY: reads the virtual counter, which EL0 may read on every OS rho runs on.
        unsafe {
            core::arch::asm!("isb", "mrs {v}, cntvct_el0", "isb", v = out(reg) value,
                options(nostack, preserves_flags));
        }
        value
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        0
    }
}

/// The cycle counter at the end of a window.
#[inline(always)]
pub fn cycles_stop() -> u64 {
    #[cfg(target_arch = "aarch64")]
    {
        let value: u64;
        // SAFETY: as in `cycles_start`.
        unsafe {
            core::arch::asm!("isb", "mrs {v}, cntvct_el0", v = out(reg) value,
                options(nostack, preserves_flags));
        }
        value
    }
    #[cfg(not(target_arch = "aarch64"))]
    {
        cycles_start()
    }
}

/// The time clock's name in `@clock time NAME`.
pub const TIME_NAME: &str = if cfg!(unix) {
    "clock_gettime"
} else {
    "instant"
};

/// The monotonic clock in ns. Not inlined, as in the C harness: the same call in every window.
#[inline(never)]
pub fn time_now() -> u64 {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid timespec to write; CLOCK_MONOTONIC exists on every Unix.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
        (now.tv_sec as u64)
            .wrapping_mul(1_000_000_000)
            .wrapping_add(now.tv_nsec as u64)
    }
    #[cfg(not(unix))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<std::time::Instant> = OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64
    }
}

/// Whether this target has the thread's CPU-time clock (`@clock cpu`, wire version 7).
pub const HAS_CPU: bool = cfg!(any(
    target_os = "linux",
    target_os = "macos",
    target_os = "freebsd"
));

/// The CPU time of the calling thread in ns (0 where there is no such clock). Not inlined: a call each end,
/// outside the time window, as the C harness's.
#[inline(never)]
pub fn cpu_now() -> u64 {
    cpu_clock_now(CPU_CLOCK)
}

/// Whether the harness reads the thread's involuntary context switches (Linux: `getrusage(RUSAGE_THREAD)`),
/// to see which samples the scheduler interrupted (`@end preempted=`, `rerun=`).
pub const HAS_PREEMPTION: bool = cfg!(target_os = "linux");

/// The calling thread's involuntary context switches so far (`ru_nivcsw`); -1 when they cannot be read, and
/// always 0 where [`HAS_PREEMPTION`] is false. One system call, outside every window.
#[inline(never)]
pub fn switches_now() -> i64 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: an all-zero rusage is a valid value of the plain C struct, and getrusage writes only it.
        let mut usage: libc::rusage = unsafe { core::mem::zeroed() };
        // SAFETY: `usage` is a valid rusage to write; RUSAGE_THREAD is the calling thread (Linux 2.6.26 on).
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) } != 0 {
            return -1;
        }
        usage.ru_nivcsw as i64
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// The CPU time of the whole process in ns (0 where there is no such clock).
pub fn process_cpu_now() -> u64 {
    cpu_clock_now(PROCESS_CLOCK)
}

#[cfg(any(target_os = "linux", target_os = "macos", target_os = "freebsd"))]
const CPU_CLOCK: libc::clockid_t = libc::CLOCK_THREAD_CPUTIME_ID;
#[cfg(any(target_os = "linux", target_os = "macos", target_os = "freebsd"))]
const PROCESS_CLOCK: libc::clockid_t = libc::CLOCK_PROCESS_CPUTIME_ID;
#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "freebsd")))]
const CPU_CLOCK: i32 = 0;
#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "freebsd")))]
const PROCESS_CLOCK: i32 = 0;

#[cfg(any(target_os = "linux", target_os = "macos", target_os = "freebsd"))]
fn cpu_clock_now(clock: libc::clockid_t) -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec to write; the CPU-time clocks exist on these systems.
    unsafe { libc::clock_gettime(clock, &mut now) };
    (now.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(now.tv_nsec as u64)
}

#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "freebsd")))]
fn cpu_clock_now(_clock: i32) -> u64 {
    0
}

/// The thread CPU clock's declared step (`clock_getres`): successive reads cost more than it (a system call),
/// so no step can be seen between them, as it is for the other clocks.
pub fn cpu_resolution() -> u64 {
    #[cfg(any(target_os = "linux", target_os = "macos", target_os = "freebsd"))]
    {
        let mut step = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `step` is a valid timespec to write.
        if unsafe { libc::clock_getres(CPU_CLOCK, &mut step) } != 0 {
            return 0;
        }
        (step.tv_sec as u64)
            .wrapping_mul(1_000_000_000)
            .wrapping_add(step.tv_nsec as u64)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "freebsd")))]
    {
        0
    }
}

/// The cycle clock's rate in counts per second (0 when unknown), measured or read once.
pub fn cycles_hz() -> u64 {
    #[cfg(target_arch = "aarch64")]
    {
        let hz: u64;
        // SAFETY: reads the counter's frequency register, readable at EL0.
        unsafe {
            core::arch::asm!("mrs {v}, cntfrq_el0", v = out(reg) hz, options(nomem, nostack))
        };
        hz
    }
    #[cfg(target_arch = "x86_64")]
    {
        let t0 = time_now();
        let c0 = cycles_start();
        let mut t1;
        loop {
            t1 = time_now();
            if t1.wrapping_sub(t0) >= 20_000_000 {
                break;
            }
        }
        let c1 = cycles_stop();
        let t1 = time_now();
        ((c1.wrapping_sub(c0)) as f64 * 1e9 / (t1.wrapping_sub(t0)) as f64 + 0.5) as u64
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        0
    }
}

/// The smallest non-zero step between successive reads of the cycle clock (10,000 reads), 0 if it never
/// moved.
pub fn cycles_resolution() -> u64 {
    smallest_step(10_000, 10_000, cycles_start)
}

/// The smallest non-zero step of the time clock (a coarse clock may need many reads to move at all).
pub fn time_resolution() -> u64 {
    smallest_step(10_000, 100_000_000, time_now)
}

fn smallest_step(reads: u64, most: u64, read: impl Fn() -> u64) -> u64 {
    let mut smallest = 0u64;
    let mut previous = read();
    let mut i = 0u64;
    while i < reads || (smallest == 0 && i < most) {
        let now = read();
        let step = now.wrapping_sub(previous);
        if step != 0 && (smallest == 0 || step < smallest) {
            smallest = step;
        }
        previous = now;
        i += 1;
    }
    smallest
}

/// The stack pointer where this is inlined.
#[inline(always)]
pub fn stack_pointer() -> usize {
    let sp: usize;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: copies rsp into a register.
    unsafe {
        core::arch::asm!("mov {}, rsp", out(reg) sp, options(nomem, nostack, preserves_flags));
    }
    #[cfg(any(target_arch = "aarch64", target_arch = "arm"))]
    // SAFETY: copies sp into a register.
    unsafe {
        core::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "arm")))]
    {
        // No way to read it: a local's address, well above where the stack pointer is.
        let here = 0u8;
        sp = core::hint::black_box(&here) as *const u8 as usize - 256;
    }
    sp
}
