//! Valgrind client requests: the magic instruction sequences of `<valgrind/valgrind.h>` for x86-64 and
//! aarch64 (no-ops outside Valgrind), and the Callgrind requests of `<valgrind/callgrind.h>` the counting loop
//! uses. Elsewhere every request answers its default, so the harness never counts there.

/// `VG_USERREQ__RUNNING_ON_VALGRIND`.
const RUNNING_ON_VALGRIND: usize = 0x1001;
/// `VG_USERREQ_TOOL_BASE('C', 'T')`: Callgrind's requests.
const CALLGRIND_BASE: usize = ((b'C' as usize) << 24) | ((b'T' as usize) << 16);
const ZERO_STATS: usize = CALLGRIND_BASE + 1;
const TOGGLE_COLLECT: usize = CALLGRIND_BASE + 2;
const DUMP_STATS_AT: usize = CALLGRIND_BASE + 3;

/// Whether this target can make client requests.
pub const SUPPORTED: bool = cfg!(all(
    any(
        target_os = "linux",
        target_os = "macos",
        target_os = "freebsd"
    ),
    any(target_arch = "x86_64", target_arch = "aarch64")
));

/// `VALGRIND_DO_CLIENT_REQUEST_EXPR(default, request, arg1, 0, 0, 0, 0)`.
#[inline(always)]
fn request(default: usize, request: usize, arg1: usize) -> usize {
    let args: [usize; 6] = [request, arg1, 0, 0, 0, 0];
    let args = core::hint::black_box(&args);
    #[allow(unused_mut)]
    let mut result = default;
    #[cfg(all(
        any(target_os = "linux", target_os = "macos", target_os = "freebsd"),
        target_arch = "x86_64"
    ))]
    // SAFETY: the preamble rotates rdi by 128 bits in all (unchanged); `xchg rbx, rbx` is a no-op on a real
    // CPU. Under Valgrind, rdx = request(rax), which reads the six words at rax.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") args.as_ptr(),
            options(nostack),
        );
    }
    #[cfg(all(
        any(target_os = "linux", target_os = "macos", target_os = "freebsd"),
        target_arch = "aarch64"
    ))]
    // SAFETY: the preamble rotates x12 by 128 bits in all (unchanged); `orr x10, x10, x10` is a no-op on a
    // real CPU. Under Valgrind, x3 = request(x4).
    unsafe {
        core::arch::asm!(
            "ror x12, x12, #3", "ror x12, x12, #13", "ror x12, x12, #51", "ror x12, x12, #61",
            "orr x10, x10, x10",
            inout("x3") result,
            in("x4") args.as_ptr(),
            options(nostack),
        );
    }
    let _ = args;
    result
}

/// Whether the program runs under Valgrind (any tool).
pub fn running_on_valgrind() -> bool {
    request(0, RUNNING_ON_VALGRIND, 0) != 0
}

/// `CALLGRIND_ZERO_STATS`.
#[inline(never)]
pub fn zero_stats() {
    request(0, ZERO_STATS, 0);
}

/// `CALLGRIND_TOGGLE_COLLECT`.
#[inline(never)]
pub fn toggle_collect() {
    request(0, TOGGLE_COLLECT, 0);
}

/// `CALLGRIND_DUMP_STATS_AT(name)`: `name` must end in a NUL byte.
#[inline(never)]
pub fn dump_stats_at(name: &[u8]) {
    debug_assert_eq!(name.last(), Some(&0));
    request(0, DUMP_STATS_AT, name.as_ptr() as usize);
}
