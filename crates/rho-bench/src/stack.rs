//! The stack high-water mark by painting, on a host and on a board alike: the region is the
//! `RHO_BENCH_STACK_BYTES` below the stack pointer where the harness calls the benchmark, painted with `0xAA`
//! (again once the warm-ups are over) and scanned from its low end at the end: the mark is the region's top
//! less the first byte no longer painted; a byte of its lowest 16 written is an overrun. Where the region
//! lies is the platform's concern (`hosted/stack.rs` checks it against the thread's stack; on a board it
//! must lie in the stack's RAM).

/// The paint of the stack region.
pub(crate) const PAINT: u8 = 0xAA;
/// Bytes below the stack pointer left unpainted: x86-64's red zone, which a leaf function may use.
pub(crate) const RED_ZONE: usize = 128;

/// The band at the bottom of the region whose every byte must still be painted for a figure to be reported.
pub const BAND_BYTES: usize = 16;

/// Paints `[low, high)` with volatile writes, so no `memset` call pushes a frame into what it paints.
#[inline(always)]
pub fn paint(low: usize, high: usize) {
    let mut p = low as *mut u8;
    let end = high as *mut u8;
    while p < end {
        // SAFETY: [low, high) lies in the region, below the stack pointer of the caller (less the red zone):
        // memory of this stack that nothing live occupies.
        unsafe {
            p.write_volatile(PAINT);
            p = p.add(1);
        }
    }
}

/// A painted region `[low, top)` of the current stack.
pub struct Region {
    low: usize,
    top: usize,
}

impl Region {
    /// The `bytes` below `top` (the stack pointer where the harness calls the benchmark), painted up to the
    /// red zone below the caller's stack pointer. The caller knows they are memory of this stack.
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
        // SAFETY: reads of the region painted above, below every live frame.
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
