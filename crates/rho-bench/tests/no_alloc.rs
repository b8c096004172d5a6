//! Without `CountingAlloc` as the global allocator the heap is not measured: the stream says `@heap off` (wire
//! format version 6), never zeros, and the report says so.

use rho_bench::{Bench, BuildInfo, Entry, Settings, Sink};

fn vec_1000(b: &mut Bench) {
    b.iter(|| Vec::<u8>::with_capacity(std::hint::black_box(1000)));
}

#[test]
fn the_stream_says_heap_off_and_the_report_heap_not_measured() {
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
    let text = String::from_utf8_lossy(&stream);
    assert!(text.starts_with("@rho-bench 9\n"), "{text}");
    // Every block, `.overhead` included: the allocations were made, but nothing counted them.
    assert_eq!(text.matches("\n@heap off\n").count(), 2, "{text}");
    assert!(!text.contains("@heap peak="), "{text}");
    let run = rho_wire::parse_bytes(&stream).unwrap();
    assert_eq!(run.benchmarks[0].heap, None);
    assert!(!run.benchmarks[0].leaked());
    let report = rho_bench::report(&stream, "no_alloc").unwrap();
    assert!(report.contains("heap not measured"), "{report}");
    let row = report
        .lines()
        .find(|l| l.starts_with("vec_1000"))
        .expect("a row for vec_1000");
    assert!(!row.contains(" 0 "), "a heap of 0 bytes: {row}");
}
