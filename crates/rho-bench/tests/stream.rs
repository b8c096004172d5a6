//! The harness's stream, read by rho-wire (the one parser): its shape, and the figures that are exact.
//! One test: the heap counters are process-wide, so nothing else may allocate while it measures.

use std::hint::black_box;

use rho_bench::{Bench, BuildInfo, Entry, Settings, Sink};
use rho_wire::StackMark;

#[global_allocator]
static ALLOC: rho_bench::CountingAlloc = rho_bench::CountingAlloc::system();

fn sum_1k(b: &mut Bench) {
    let data = vec![1u8; 1024];
    b.unit("byte", 1024);
    b.iter(|| black_box(&data).iter().map(|&x| u64::from(x)).sum::<u64>());
}

fn vec_1000(b: &mut Bench) {
    b.iter(|| Vec::<u8>::with_capacity(1000));
}

// The example suite's recursion of 1 KiB frames, the same code.
#[path = "../../../examples/rust-bench/benches/frames/mod.rs"]
mod frames;
use frames::recurse;

fn deep_9k(b: &mut Bench) {
    b.iter(|| recurse(black_box(9)));
}

fn sorted_64(b: &mut Bench) {
    b.iterations(40);
    b.iter_batched(
        || (0..64u32).rev().collect::<Vec<u32>>(),
        |mut v| {
            v.sort_unstable();
            v
        },
    );
}

/// A family member: the sum over `b.arg()` bytes.
fn sum_n(b: &mut Bench) {
    let data = vec![1u8; b.arg() as usize];
    b.unit("byte", b.arg().max(1));
    b.iter(|| black_box(&data).iter().map(|&x| u64::from(x)).sum::<u64>());
}

fn empty(b: &mut Bench) {
    b.iter(|| ());
}

fn two_loops(b: &mut Bench) {
    b.iter(|| ());
    b.iter(|| ());
}

fn stream(entries: &[Entry], settings: &Settings) -> Result<String, rho_bench::Error> {
    let mut sink = Sink::Memory(Vec::new(), false);
    rho_bench::run(entries, settings, BuildInfo { optimized: true }, &mut sink)?;
    let Sink::Memory(bytes, _) = sink else {
        unreachable!()
    };
    Ok(String::from_utf8(bytes).unwrap())
}

/// A block's name, its family and argument, and its heap peak (the set-up's buffer is not in it: 0).
type Member<'a> = (&'a str, Option<(&'a str, u64)>, u64);

#[test]
fn the_stream_parses_and_its_exact_figures_hold() {
    let settings = Settings {
        iterations: 200,
        warmup: 5,
        ..Settings::default()
    };
    let entries = [
        Entry::new("sum_1k", sum_1k),
        Entry::new("vec_1000", vec_1000),
        Entry::new("deep_9k", deep_9k),
        Entry::new("sorted_64", sorted_64),
        Entry::new("empty", empty),
    ];
    let text = stream(&entries, &settings).unwrap();
    let run = rho_wire::parse_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(run.version, 9);
    // Version 9: the machine's yardstick, 9 repetitions read on every clock, before `.overhead`.
    let yardstick = run.yardstick.as_ref().expect("@yardstick");
    assert_eq!(yardstick.name, "rho1");
    assert_eq!(yardstick.samples.len(), run.clocks.len());
    assert!(
        yardstick
            .samples
            .iter()
            .all(|c| c.len() == 9 && c.iter().all(|&v| v > 0))
    );
    assert_eq!(run.target.name, "host");
    assert!(run.target.optimized);
    assert!(
        run.target
            .compiler
            .as_deref()
            .unwrap()
            .starts_with("rustc-")
    );
    assert_eq!(run.config.iterations, 200);
    assert_eq!(run.config.stack_bytes, Some(65536));
    let calibration = run.calibration.as_ref().expect(".overhead");
    assert_eq!(calibration.iterations, 1000);
    assert_eq!(calibration.batch, 1);
    let names: Vec<&str> = run.benchmarks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        ["sum_1k", "vec_1000", "deep_9k", "sorted_64", "empty"]
    );
    let bench = |name: &str| run.benchmarks.iter().find(|b| b.name == name).unwrap();

    // CountingAlloc is this test's global allocator: every block has heap figures.
    assert!(text.starts_with("@rho-bench 9\n"), "{text}");
    // Version 7: the thread's CPU time beside the wall clock where the system has it, and what the process's
    // other threads used during each measured loop (this test binary's other tests run beside it).
    let cpu = run.clock_index(rho_wire::ClockRole::Cpu);
    assert_eq!(cpu.is_some(), cfg!(target_os = "linux"), "{text}");
    if cpu.is_some() {
        assert!(
            run.benchmarks.iter().all(|b| b.other_cpu_ns.is_some()),
            "{text}"
        );
    }
    assert!(!text.contains("@heap off"), "{text}");
    let heap = |name: &str| bench(name).heap.expect("heap figures");

    let sum = bench("sum_1k");
    assert_eq!((sum.unit.as_str(), sum.per_iteration), ("byte", 1024));
    assert!(sum.iterations >= 200 && sum.iterations % sum.batch == 0);
    assert_eq!(sum.warmup, 5);
    // The set-up's 1024 bytes are held through the loop but not allocated in it: not the benchmark's heap.
    assert_eq!(
        (heap("sum_1k").peak, heap("sum_1k").allocs),
        (0, 0),
        "{:?}",
        sum.heap
    );

    let vec = bench("vec_1000");
    let vec_heap = heap("vec_1000");
    assert!(vec_heap.peak >= 1000, "{vec_heap:?}");
    assert_eq!(vec_heap.live, 0);
    assert_eq!(
        vec_heap.allocs, vec.iterations,
        "one allocation an iteration"
    );
    assert_eq!(vec_heap.frees, vec.iterations);

    let StackMark::Bytes(deep) = bench("deep_9k").stack else {
        panic!("{:?}", bench("deep_9k").stack)
    };
    let StackMark::Bytes(shallow) = bench("empty").stack else {
        panic!("{:?}", bench("empty").stack)
    };
    assert!(deep >= 9 * 1024, "nine 1 KiB frames read {deep} bytes");
    assert!(shallow < 2048, "an empty body reads {shallow} bytes");

    let sorted = bench("sorted_64");
    assert!(
        sorted.iterations >= 40 && sorted.iterations < 200,
        "b.iterations(40)"
    );
    assert!(sorted.batch <= rho_bench::BATCHED_INPUTS as u64);
    // Each iteration's input is a 256-byte Vec made by the setup.
    assert!(heap("sorted_64").peak >= 256, "{:?}", sorted.heap);

    // The report renders from the same stream.
    let report = rho_bench::report(text.as_bytes(), "stream").unwrap();
    assert!(
        report.contains("sum_1k") && report.contains("deep_9k"),
        "{report}"
    );
    assert!(!report.contains("heap not measured"), "{report}");

    // A filter runs only the names that contain a term.
    let filtered = Settings {
        filter: vec!["vec".to_string()],
        ..settings.clone()
    };
    let run = rho_wire::parse_str(&stream(&entries, &filtered).unwrap()).unwrap();
    assert_eq!(run.benchmarks.len(), 1);
    assert_eq!(run.benchmarks[0].name, "vec_1000");

    // Two loops in one benchmark is a misuse: the run stops with an error naming it.
    let error = stream(&[Entry::new("two_loops", two_loops)], &settings).unwrap_err();
    assert!(error.to_string().contains("two_loops"), "{error}");

    // Families: each member its own block, `FAMILY/ARG` with `family=` and `arg=`, in registration order; a
    // range walks lo, lo*m, ... then hi (0 is followed by 1), as RHO_BENCH_ADD_RANGE does.
    let families = rho_bench::entries!(empty, sum_n = [64, 256], sum_n = range(0, 20, 4));
    let run = rho_wire::parse_str(&stream(&families, &settings).unwrap()).unwrap();
    let members: Vec<Member<'_>> = run
        .benchmarks
        .iter()
        .map(|b| {
            let family = b.family.as_ref().map(|f| (f.name.as_str(), f.arg));
            (b.name.as_str(), family, b.heap.expect("heap figures").peak)
        })
        .collect();
    assert_eq!(
        members,
        [
            ("empty", None, 0),
            ("sum_n/64", Some(("sum_n", 64)), 0),
            ("sum_n/256", Some(("sum_n", 256)), 0),
            ("sum_n/0", Some(("sum_n", 0)), 0),
            ("sum_n/1", Some(("sum_n", 1)), 0),
            ("sum_n/4", Some(("sum_n", 4)), 0),
            ("sum_n/16", Some(("sum_n", 16)), 0),
            ("sum_n/20", Some(("sum_n", 20)), 0),
        ]
    );
    assert_eq!(
        run.benchmarks[2].per_iteration, 256,
        "b.unit(\"byte\", b.arg())"
    );
    // A filter term holding `/` picks one member.
    let one = Settings {
        filter: vec!["sum_n/25".to_string()],
        ..settings.clone()
    };
    let run = rho_wire::parse_str(&stream(&families, &one).unwrap()).unwrap();
    let names: Vec<&str> = run.benchmarks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["sum_n/256"]);
    // A range that cannot be walked, or an empty list, is a misuse naming the family.
    for bad in [
        Entry::range("sum_n", sum_n, 8, 4, 2),
        Entry::range("sum_n", sum_n, 1, 8, 1),
        Entry::family("sum_n", sum_n, &[]),
    ] {
        let error = stream(&[bad], &settings).unwrap_err();
        assert!(error.to_string().starts_with("sum_n: a "), "{error}");
    }

    // No stack region: `@stack off`.
    let off = Settings {
        stack_bytes: 0,
        ..settings
    };
    let run = rho_wire::parse_str(&stream(&entries[..1], &off).unwrap()).unwrap();
    assert_eq!(run.benchmarks[0].stack, StackMark::Off);
}
