//! The stack high-water mark by painting: each benchmark runs on a thread of its own whose stack holds the
//! painted region (the `RHO_BENCH_STACK_BYTES` below the stack pointer where the harness calls the
//! benchmark), with slack below it. The region is painted with `0xAA`, again once the warm-ups are over, and
//! scanned from its low end at the end: the mark is the region's top less the first byte no longer painted;
//! a byte of its lowest 16 written is an overrun.
//!
//! The thread's bounds are checked (Linux: `pthread_getattr_np`) so the region lies inside the thread's own
//! stack, above its guard page. An overrun deeper than the slack hits that guard page, which ends the
//! process (Rust's stack-overflow handler), so the stream says `stack_guard=none`: the harness cannot catch a
//! fault and go on with the next benchmark as the C harness does.

use crate::bench::{PAINT, RED_ZONE};

/// The bytes of the benchmark's thread stack below the region (and the frames above it).
pub const SLACK_BYTES: usize = 256 * 1024;
/// The band at the bottom of the region whose every byte must still be painted for a figure to be reported.
pub const BAND_BYTES: usize = 16;

/// Paints `[low, high)` with volatile writes, so no `memset` call pushes a frame into what it paints.
#[inline(always)]
pub fn paint(low: usize, high: usize) {
    let mut p = low as *mut u8;
    let end = high as *mut u8;
    while p < end {
        // SAFETY: [low, high) lies in the region, below the stack pointer of the caller (less the red zone):
        // memory of this thread's stack that nothing live occupies.
        unsafe {
            p.write_volatile(PAINT);
            p = p.add(1);
        }
    }
}

/// A painted region `[low, top)` of the current thread's stack.
pub struct Region {
    low: usize,
    top: usize,
}

impl Region {
    /// The `bytes` below `top` (the stack pointer where the harness calls the benchmark), painted up to the
    /// red zone below the caller's stack pointer. An error when they are not all inside this thread's stack.
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
        paint(low, top - RED_ZONE);
        Ok(Region { low, top })
    }

    /// Where a repaint starts: above the band.
    pub fn limit(&self) -> usize {
        self.low + BAND_BYTES
    }

    /// Bytes used from the top, or `None` for an overrun (a byte of the band was written).
    pub fn scan(&self) -> Option<u64> {
        let mut p = self.low;
        // SAFETY: reads of the region painted above, on this thread's stack below every live frame.
        while p < self.top && unsafe { (p as *const u8).read_volatile() } == PAINT {
            p += 1;
        }
        if p < self.limit() {
            None
        } else {
            Some((self.top - p) as u64)
        }
    }
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
