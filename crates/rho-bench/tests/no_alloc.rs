//! Without `CountingAlloc` as the global allocator the heap is not measured, and the report says so.

use rho_bench::{Bench, BuildInfo, Entry, Settings, Sink};

fn vec_1000(b: &mut Bench) {
    b.iter(|| Vec::<u8>::with_capacity(std::hint::black_box(1000)));
}

#[test]
fn the_report_says_heap_not_measured_and_the_stream_reads_zero() {
    let settings = Settings {
        iterations: 50,
        warmup: 2,
        ..Settings::default()
    };
    let mut sink = Sink::Memory(Vec::new(), false);
    rho_bench::run(
        &[Entry::new("vec_1000", vec_1000)],
        &settings,
        BuildInfo { optimized: false },
        &mut sink,
    )
    .unwrap();
    let Sink::Memory(stream, _) = sink else {
        unreachable!()
    };
    let run = rho_wire::parse_bytes(&stream).unwrap();
    assert_eq!(run.benchmarks[0].heap.peak, 0);
    assert_eq!(run.benchmarks[0].heap.allocs, 0);
    let report = rho_bench::report(&stream, "no_alloc").unwrap();
    assert!(report.contains("heap not measured"), "{report}");
}
