//! The stack region on a host (painted and scanned by `crate::stack`): each benchmark runs on a thread of its
//! own whose stack holds the region (the `RHO_BENCH_STACK_BYTES` below the stack pointer where the harness
//! calls the benchmark), with slack below it.
//!
//! The thread's bounds are checked (Linux: `pthread_getattr_np`) so the region lies inside the thread's own
//! stack, above its guard page. An overrun deeper than the slack hits that guard page, which ends the
//! process (Rust's stack-overflow handler), so the stream says `stack_guard=none`: the harness cannot catch a
//! fault and go on with the next benchmark as the C harness does.

use crate::stack::Region;

/// The bytes of the benchmark's thread stack below the region (and the frames above it).
pub const SLACK_BYTES: usize = 256 * 1024;

/// The painted region of `bytes` below `top` ([`Region::paint_below`]), once they are known to lie inside
/// this thread's stack, above its guard page; an error when they do not.
#[inline(always)]
pub fn paint_below(top: usize, bytes: usize) -> Result<Region, String> {
    let low = top
        .checked_sub(bytes)
        .ok_or_else(|| "the stack region does not fit below the stack pointer".to_string())?;
    if let Some(lowest) = thread_stack_low() {
        // One page above the lowest byte: the guard page may be counted in the reported stack.
        if low < lowest + 4096 {
            return Err(format!(
                "the stack region of {bytes} bytes does not fit in the benchmark thread's stack \
                 ({} bytes below the harness's frame)",
                top.saturating_sub(lowest)
            ));
        }
    }
    Ok(Region::paint_below(top, bytes))
}

/// The lowest address of the current thread's stack, where the OS says it.
fn thread_stack_low() -> Option<usize> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `attr` is initialised by pthread_getattr_np before use and destroyed after.
        unsafe {
            let mut attr: libc::pthread_attr_t = core::mem::zeroed();
            if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
                return None;
            }
            let mut address: *mut libc::c_void = core::ptr::null_mut();
            let mut size: libc::size_t = 0;
            let status = libc::pthread_attr_getstack(&attr, &mut address, &mut size);
            libc::pthread_attr_destroy(&mut attr);
            (status == 0).then_some(address as usize)
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}
