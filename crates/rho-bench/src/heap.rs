//! Heap figures: [`CountingAlloc`], a global allocator that wraps another and counts what goes through it,
//! so a benchmark's heap peak, live bytes and allocation counts need no call in the user's code.

use core::alloc::{GlobalAlloc, Layout};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Bytes held now, through every [`CountingAlloc`] of the program (there is one global allocator).
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The most `LIVE` has been since the harness last restarted it.
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static FREES: AtomicUsize = AtomicUsize::new(0);
/// A `CountingAlloc` has served an allocation: it is the program's global allocator.
static INSTALLED: AtomicBool = AtomicBool::new(false);

#[cfg(feature = "std")]
std::thread_local! {
    /// The harness's own allocations on this thread (the sample buffer growing mid-benchmark) are not counted.
    static UNCOUNTED: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// A global allocator that counts: every allocation, reallocation and free goes to the wrapped allocator
/// `A` and is added to the heap figures the harness prints for the running benchmark (`@heap peak= live=
/// allocs= frees=`). Install it once per benchmark program:
///
/// ```
/// #[global_allocator]
/// static ALLOC: rho_bench::CountingAlloc = rho_bench::CountingAlloc::system();
/// ```
///
/// Without it the harness prints `@heap off`: the heap is not measured, and reports say so. A reallocation counts as one
/// allocation and one free (the block moves, or may). The counters are process-wide: the harness runs one
/// benchmark at a time, and allocations made by other threads meanwhile are counted too.
#[cfg(feature = "std")]
pub struct CountingAlloc<A = std::alloc::System> {
    inner: A,
}

/// A global allocator that counts (see the hosted documentation): wraps the allocator `A`.
#[cfg(not(feature = "std"))]
pub struct CountingAlloc<A> {
    inner: A,
}

#[cfg(feature = "std")]
impl CountingAlloc<std::alloc::System> {
    /// The system allocator, counted.
    pub const fn system() -> Self {
        CountingAlloc {
            inner: std::alloc::System,
        }
    }
}

impl<A> CountingAlloc<A> {
    /// `inner`, counted (for a program with an allocator of its own, or without `std`).
    pub const fn new(inner: A) -> Self {
        CountingAlloc { inner }
    }
}

#[inline]
fn counted() -> bool {
    #[cfg(feature = "std")]
    {
        // During thread teardown the slot may be gone: count then.
        !UNCOUNTED.try_with(|c| c.get()).unwrap_or(false)
    }
    #[cfg(not(feature = "std"))]
    {
        true
    }
}

#[inline]
fn added(bytes: usize) {
    INSTALLED.store(true, Ordering::Relaxed);
    if counted() {
        let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
        PEAK.fetch_max(live, Ordering::Relaxed);
        ALLOCS.fetch_add(1, Ordering::Relaxed);
    }
}

#[inline]
fn removed(bytes: usize) {
    if counted() {
        LIVE.fetch_sub(bytes, Ordering::Relaxed);
        FREES.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed to `inner` unchanged; the counting touches only atomics.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAlloc<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `inner`'s.
        let ptr = unsafe { self.inner.alloc(layout) };
        if !ptr.is_null() {
            added(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        let ptr = unsafe { self.inner.alloc_zeroed(layout) };
        if !ptr.is_null() {
            added(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { self.inner.dealloc(ptr, layout) };
        removed(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let new = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            removed(layout.size());
            added(new_size);
        }
        new
    }
}

/// The counters as they stand.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Snapshot {
    pub live: usize,
    pub peak: usize,
    pub allocs: usize,
    pub frees: usize,
}

pub(crate) fn snapshot() -> Snapshot {
    Snapshot {
        live: LIVE.load(Ordering::Relaxed),
        peak: PEAK.load(Ordering::Relaxed),
        allocs: ALLOCS.load(Ordering::Relaxed),
        frees: FREES.load(Ordering::Relaxed),
    }
}

/// The peak starts again from what is held now.
pub(crate) fn restart_peak() {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// Whether a `CountingAlloc` is the global allocator: it has served an allocation. The hosted harness
/// allocates once before asking; on a board (no `alloc` in the harness) it is known from the first allocation
/// the program makes, and until then the heap reads as not measured (`@heap off`).
pub(crate) fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// Runs `f` with this thread's allocations left out of the counts.
#[cfg(feature = "std")]
pub(crate) fn uncounted<T>(f: impl FnOnce() -> T) -> T {
    let before = UNCOUNTED.with(|c| c.replace(true));
    let result = f();
    UNCOUNTED.with(|c| c.set(before));
    result
}
