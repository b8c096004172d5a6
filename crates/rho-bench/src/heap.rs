//! Heap figures: [`CountingAlloc`], a global allocator that wraps another and counts what goes through it,
//! so a benchmark's heap peak, live bytes and allocation counts need no call in the user's code.
//!
//! Only the measured iterations' heap is the benchmark's: the set-up before its loop and the teardown after
//! it are not (as `c/include/rho/bench.h` restarts its counts when the measured iterations begin). Counting
//! from the loop's start alone is not enough: a set-up `Vec` dropped after the loop would read as a free with
//! no allocation, and one dropped inside it (a `Vec` grown by the body) as a free of bytes the loop never
//! allocated. So every block carries, in a word before it, the tag of the measured loop that allocated it
//! (0: none), and a free counts only when its block's tag is the running loop's.

use core::alloc::{GlobalAlloc, Layout};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Bytes held now that the running measured loop allocated.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The most `LIVE` has been during the running (or last) measured loop.
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static FREES: AtomicUsize = AtomicUsize::new(0);
/// The bytes samples measured again (preempted) left held: `live` and `peak` leave them out, as `allocs`
/// leaves out their allocations ([`discard_sample`]).
static DISCOUNT: AtomicUsize = AtomicUsize::new(0);
/// The tag of the running measured loop; 0 between loops (nothing is counted).
static LOOP_TAG: AtomicUsize = AtomicUsize::new(0);
/// The last tag handed out: each loop has its own, so a block from an earlier loop is never the running one's.
static LAST_TAG: AtomicUsize = AtomicUsize::new(0);
/// A `CountingAlloc` has served an allocation: it is the program's global allocator.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The word before each block that holds its tag.
const TAG_BYTES: usize = core::mem::size_of::<usize>();

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
/// Without it the harness prints `@heap off`: the heap is not measured, and reports say so. The figures are
/// those of the measured iterations (`iter`'s or `iter_batched`'s loop after the warm-ups) alone: the peak is
/// the most bytes held at once among the blocks the loop allocated, `live` what of them is still held when it
/// ends, and a free counts only when the loop allocated the block; what the benchmark allocates or frees
/// before or after its loop is not counted. A reallocation in the loop counts as one allocation, and as one
/// free too when the loop had allocated the old block. Each block is given one more word (or its alignment,
/// if larger) in front, to hold which loop allocated it; the figures count the sizes asked for. The counters
/// are process-wide: the harness runs one benchmark at a time, and allocations made by other threads during
/// the loop are counted too.
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

/// The tag of a block allocated now: the running loop's, or 0 (outside a loop, or the harness's own).
#[inline]
fn tag_now() -> usize {
    INSTALLED.store(true, Ordering::Relaxed);
    let tag = LOOP_TAG.load(Ordering::Relaxed);
    if tag != 0 && counted() { tag } else { 0 }
}

#[inline]
fn added(tag: usize, bytes: usize) {
    if tag != 0 {
        let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
        PEAK.fetch_max(
            live.saturating_sub(DISCOUNT.load(Ordering::Relaxed)),
            Ordering::Relaxed,
        );
        ALLOCS.fetch_add(1, Ordering::Relaxed);
    }
}

#[inline]
fn removed(tag: usize, bytes: usize) {
    if tag != 0 && tag == LOOP_TAG.load(Ordering::Relaxed) {
        LIVE.fetch_sub(bytes, Ordering::Relaxed);
        FREES.fetch_add(1, Ordering::Relaxed);
    }
}

/// The bytes in front of a block of `layout`: room for the tag, keeping the block at its alignment.
#[inline]
fn front(layout: Layout) -> usize {
    layout.align().max(TAG_BYTES)
}

/// The layout asked of the wrapped allocator for a block of `layout`: `None` past `isize::MAX`.
#[inline]
fn outer(layout: Layout) -> Option<Layout> {
    let size = layout.size().checked_add(front(layout))?;
    Layout::from_size_align(size, layout.align().max(TAG_BYTES)).ok()
}

/// Writes `tag` before the block at `base` + `front` and returns the block.
///
/// # Safety
/// `base` is a live allocation of `outer(layout)`.
#[inline]
unsafe fn tagged(base: *mut u8, layout: Layout, tag: usize) -> *mut u8 {
    // SAFETY: `front` is at least a word and a multiple of the word's alignment, inside the allocation.
    unsafe {
        let block = base.add(front(layout));
        block.sub(TAG_BYTES).cast::<usize>().write(tag);
        block
    }
}

/// The allocation behind `block` and its tag.
///
/// # Safety
/// `block` came from [`tagged`] with the same `layout`.
#[inline]
unsafe fn untagged(block: *mut u8, layout: Layout) -> (*mut u8, usize) {
    // SAFETY: as `tagged` wrote them.
    unsafe {
        let tag = block.sub(TAG_BYTES).cast::<usize>().read();
        (block.sub(front(layout)), tag)
    }
}

// SAFETY: every call goes to `inner` with a layout one tag larger, and the block handed out is inside it at
// the alignment asked for; the counting touches only atomics and the tag word.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAlloc<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(whole) = outer(layout) else {
            return core::ptr::null_mut();
        };
        // SAFETY: `whole` is not zero-sized (it holds the tag); the caller's contract is `inner`'s.
        let base = unsafe { self.inner.alloc(whole) };
        if base.is_null() {
            return base;
        }
        let tag = tag_now();
        added(tag, layout.size());
        // SAFETY: `base` is an allocation of `whole`.
        unsafe { tagged(base, layout, tag) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let Some(whole) = outer(layout) else {
            return core::ptr::null_mut();
        };
        // SAFETY: as above.
        let base = unsafe { self.inner.alloc_zeroed(whole) };
        if base.is_null() {
            return base;
        }
        let tag = tag_now();
        added(tag, layout.size());
        // SAFETY: as above.
        unsafe { tagged(base, layout, tag) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` with `layout`, so the whole layout exists and the tag is there.
        unsafe {
            let (base, tag) = untagged(ptr, layout);
            removed(tag, layout.size());
            self.inner.dealloc(base, outer(layout).unwrap_unchecked());
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new_layout = match Layout::from_size_align(new_size, layout.align()) {
            Ok(new_layout) => new_layout,
            Err(_) => return core::ptr::null_mut(),
        };
        let Some(new_whole) = outer(new_layout) else {
            return core::ptr::null_mut();
        };
        // SAFETY: `ptr` came from `alloc` with `layout` (the caller's contract); the front is the same for
        // both sizes (it depends on the alignment alone), so the block stays at the same offset.
        unsafe {
            let (base, old_tag) = untagged(ptr, layout);
            let whole = outer(layout).unwrap_unchecked();
            let new_base = self.inner.realloc(base, whole, new_whole.size());
            if new_base.is_null() {
                return new_base;
            }
            removed(old_tag, layout.size());
            let tag = tag_now();
            added(tag, new_size);
            tagged(new_base, new_layout, tag)
        }
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

fn snapshot() -> Snapshot {
    Snapshot {
        live: LIVE
            .load(Ordering::Relaxed)
            .saturating_sub(DISCOUNT.load(Ordering::Relaxed)),
        peak: PEAK.load(Ordering::Relaxed),
        allocs: ALLOCS.load(Ordering::Relaxed),
        frees: FREES.load(Ordering::Relaxed),
    }
}

/// The measured iterations begin: the counts start from 0, and only blocks allocated from now on count.
pub(crate) fn loop_starts() {
    LOOP_TAG.store(0, Ordering::Relaxed);
    for counter in [&LIVE, &PEAK, &ALLOCS, &FREES, &DISCOUNT] {
        counter.store(0, Ordering::Relaxed);
    }
    let tag = LAST_TAG
        .fetch_add(1, Ordering::Relaxed)
        .wrapping_add(1)
        .max(1);
    LOOP_TAG.store(tag, Ordering::Relaxed);
}

/// The heap's counts as a sample starts: allocations, frees, live bytes and the peak so far in the running
/// measured loop, so a sample measured again ([`discard_sample`]) leaves its own out of the figures.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AtSample {
    allocs: usize,
    frees: usize,
    live: usize,
    peak: usize,
}

pub(crate) fn counts() -> AtSample {
    AtSample {
        allocs: ALLOCS.load(Ordering::Relaxed),
        frees: FREES.load(Ordering::Relaxed),
        live: LIVE.load(Ordering::Relaxed),
        peak: PEAK.load(Ordering::Relaxed),
    }
}

/// A sample is measured again (its thread was preempted): the counts and the peak go back to what
/// [`counts`] read as it started, so `allocs` and `frees` cover the kept samples' iterations, as the
/// iteration count does; what it left held is taken out of `live` and of every later peak (a body that keeps
/// what it allocates would otherwise read the re-run's bytes as the kept iterations').
pub(crate) fn discard_sample(at: AtSample) {
    ALLOCS.store(at.allocs, Ordering::Relaxed);
    FREES.store(at.frees, Ordering::Relaxed);
    PEAK.store(at.peak, Ordering::Relaxed);
    let held = LIVE.load(Ordering::Relaxed).saturating_sub(at.live);
    DISCOUNT.fetch_add(held, Ordering::Relaxed);
}

/// The measured iterations are over (if they were running): nothing more is counted; their figures.
pub(crate) fn loop_ends() -> Option<Snapshot> {
    (LOOP_TAG.swap(0, Ordering::Relaxed) != 0).then(snapshot)
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

/// A buffer the harness owns on the benchmark's thread: allocated, grown and freed outside the heap counts.
#[cfg(feature = "std")]
pub(crate) struct Uncounted<T>(pub(crate) Vec<T>);

#[cfg(feature = "std")]
impl<T> Uncounted<T> {
    pub(crate) fn new() -> Self {
        Uncounted(Vec::new())
    }

    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Uncounted(uncounted(|| Vec::with_capacity(capacity)))
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, value: T) {
        if self.0.len() == self.0.capacity() {
            uncounted(|| self.0.reserve(self.0.len().max(64)));
        }
        self.0.push(value);
    }
}

#[cfg(feature = "std")]
impl<T> Drop for Uncounted<T> {
    fn drop(&mut self) {
        let vec = core::mem::take(&mut self.0);
        uncounted(|| drop(vec));
    }
}
