//! The heap figures are the measured iterations' alone (issue 22): a set-up allocation held through the loop
//! and dropped after it is not the benchmark's, nor is a free of a block the loop did not allocate.
//! One test: the heap counters are process-wide, so nothing else may allocate while it measures.

use std::hint::black_box;

use rho_bench::{Bench, BuildInfo, Entry, Settings, Sink};
use rho_wire::HeapFigures as Heap;

#[global_allocator]
static ALLOC: rho_bench::CountingAlloc = rho_bench::CountingAlloc::system();

/// A hash over bytes (FNV-1a), allocating nothing: the body of the LZ4 suite's XXH32 benchmark, in effect.
fn hash(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The case: `let d = vec![0u8; 4096]; b.iter(|| hash(black_box(&d)))`; `d` is dropped after the
/// loop.
fn hash_4k(b: &mut Bench) {
    let data = vec![0u8; 4096];
    b.iter(|| hash(black_box(&data)));
}

/// Allocates 100 bytes an iteration and frees them in the same iteration.
fn vec_100(b: &mut Bench) {
    b.iter(|| vec![0u8; 100]);
}

/// Each iteration allocates 16 bytes and keeps them in a set-up `Vec` (with room for all: it never grows),
/// freed after the loop.
fn kept_16(b: &mut Bench) {
    let mut kept: Vec<Box<[u8; 16]>> = Vec::with_capacity(1 << 16);
    b.iter(|| kept.push(black_box(Box::new([1u8; 16]))));
    black_box(&kept);
}

/// Each iteration allocates 16 bytes and grows them to 64 (a reallocation), then frees them.
fn grown_16_64(b: &mut Bench) {
    b.iter(|| {
        let mut v = Vec::<u8>::with_capacity(16);
        black_box(&mut v).reserve_exact(64);
        v
    });
}

/// The first measured iteration grows a set-up block of 16 bytes to 1024 (run with no warm-ups); the block
/// is held to the loop's end and freed after it.
fn grown_setup(b: &mut Bench) {
    let mut grown = Vec::<u8>::with_capacity(16);
    b.iter(|| {
        if grown.capacity() < 1024 {
            grown.reserve_exact(1024);
        }
        grown.capacity()
    });
}

/// Each block's heap figures, measured iterations and samples measured again, in order.
fn heaps(entries: &[Entry], warmup: u64) -> Vec<(String, Heap, u64, u64)> {
    let settings = Settings {
        iterations: 200,
        warmup,
        ..Settings::default()
    };
    let mut sink = Sink::Memory(Vec::new(), false);
    rho_bench::run(entries, &settings, BuildInfo { optimized: true }, &mut sink).unwrap();
    let Sink::Memory(bytes, _) = sink else {
        unreachable!()
    };
    let text = String::from_utf8(bytes).unwrap();
    let run = rho_wire::parse_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run.benchmarks
        .iter()
        .map(|b| {
            let heap = b.heap.expect("heap figures");
            (b.name.clone(), heap, b.iterations, b.rerun)
        })
        .collect()
}

fn heap(peak: u64, live: u64, allocs: u64, frees: u64) -> Heap {
    Heap {
        peak,
        live,
        allocs,
        frees,
        free_errors: 0,
    }
}

#[test]
fn heap_figures_count_only_what_the_measured_loop_allocates_and_frees() {
    let entries = [
        Entry::new("hash_4k", hash_4k),
        Entry::new("vec_100", vec_100),
        Entry::new("kept_16", kept_16),
        Entry::new("grown_16_64", grown_16_64),
    ];
    let run = heaps(&entries, 5);
    let figures = |name: &str| {
        let (_, heap, iterations, _) = run.iter().find(|(n, _, _, _)| n == name).unwrap();
        assert!(*iterations >= 200, "{name}: {iterations} iterations");
        (*heap, *iterations)
    };

    // The set-up's 4096 bytes, held through the loop and freed after it: nothing.
    assert_eq!(figures("hash_4k").0, heap(0, 0, 0, 0));

    let (vec_100, n) = figures("vec_100");
    assert_eq!(vec_100, heap(100, 0, n, n));

    // Allocated in the loop and still held at its end: live, never freed by it (the teardown's frees are not
    // counted).
    let (kept, n) = figures("kept_16");
    assert_eq!(kept, heap(16 * n, 16 * n, n, 0));

    // A reallocation of the loop's own block: one allocation and one free; the peak is the larger block.
    let (grown, n) = figures("grown_16_64");
    assert_eq!(grown, heap(64, 0, 2 * n, 2 * n));

    // A reallocation of a set-up block: the new block is the loop's, the old one's free is not counted. It
    // happens in the first measured iteration only (no warm-up): should its sample be measured again (its
    // thread preempted, on a loaded machine), none of the kept samples reallocates, and the figures say so.
    let run = heaps(&[Entry::new("grown_setup", grown_setup)], 0);
    let (_, figures, _, rerun) = &run[0];
    if *rerun == 0 {
        assert_eq!(*figures, heap(1024, 1024, 1, 0));
    } else {
        assert!(
            [heap(1024, 1024, 1, 0), heap(0, 0, 0, 0)].contains(figures),
            "{figures:?} after {rerun} re-runs"
        );
    }
}
