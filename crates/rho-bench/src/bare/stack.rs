//! The stack high-water mark on a board: the region is the `RHO_BENCH_STACK_BYTES` below the stack pointer
//! where the harness calls the benchmark (they must exist in the board's RAM), painted with `0xAA` and
//! scanned from its low end. No guard below it: `stack_guard=none`, the 16-byte band only.

use crate::bench::{PAINT, RED_ZONE};

/// The band at the bottom of the region whose every byte must still be painted for a figure to be reported.
pub const BAND_BYTES: usize = 16;

/// Paints `[low, high)` with volatile writes.
#[inline(always)]
pub fn paint(low: usize, high: usize) {
    let mut p = low as *mut u8;
    let end = high as *mut u8;
    while p < end {
        // SAFETY: [low, high) lies below the caller's stack pointer, in the stack's RAM, where nothing lives.
        unsafe {
            p.write_volatile(PAINT);
            p = p.add(1);
        }
    }
}

/// A painted region `[low, top)` below the stack pointer.
pub struct Region {
    low: usize,
    top: usize,
}

impl Region {
    /// The `bytes` below `top`, painted up to a margin below the caller's stack pointer.
    #[inline(always)]
    pub fn paint_below(top: usize, bytes: usize) -> Region {
        let low = top.saturating_sub(bytes);
        paint(low, top - RED_ZONE);
        Region { low, top }
    }

    /// Where a repaint starts: above the band.
    pub fn limit(&self) -> usize {
        self.low + BAND_BYTES
    }

    /// Bytes used from the top, or `None` for an overrun (a byte of the band was written).
    pub fn scan(&self) -> Option<u64> {
        let mut p = self.low;
        // SAFETY: reads of the region painted above.
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
