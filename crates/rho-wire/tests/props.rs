//! Properties: the parser never panics on any bytes (arbitrary or a valid stream mutated), and whatever the
//! writer prints parses back to exactly the run it was given.

use proptest::prelude::*;
use rho_wire::{
    Benchmark, Clock, ClockRole, HeapFigures, Run, RunConfig, StackMark, StreamParser, Target,
    parse_bytes, run_to_string,
};

fn name() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_:+-][A-Za-z0-9_.:+-]{0,20}"
}

fn clocks() -> impl Strategy<Value = Vec<Clock>> {
    let clock = |role| {
        (name(), name(), proptest::option::of(1u64..), any::<u64>()).prop_map(
            move |(name, unit, hz, resolution)| Clock {
                role,
                name,
                unit,
                hz,
                resolution,
            },
        )
    };
    prop_oneof![
        clock(ClockRole::Cycles).prop_map(|c| vec![c]),
        clock(ClockRole::Time).prop_map(|c| vec![c]),
        (clock(ClockRole::Cycles), clock(ClockRole::Time)).prop_map(|(a, b)| vec![a, b]),
        (clock(ClockRole::Time), clock(ClockRole::Cycles)).prop_map(|(a, b)| vec![a, b]),
    ]
}

/// A benchmark a harness could print: at least 1 op an iteration, a stack mark inside the painted region
/// (`stack_bytes`, `None` when the stack is off), live heap bytes at most the peak.
fn benchmark(
    name: String,
    columns: usize,
    stack_bytes: Option<u64>,
) -> impl Strategy<Value = Benchmark> {
    let stack = match stack_bytes {
        Some(region) => prop_oneof![
            (0..=region).prop_map(StackMark::Bytes),
            Just(StackMark::Overrun),
            Just(StackMark::Off)
        ]
        .boxed(),
        None => Just(StackMark::Off).boxed(),
    };
    (
        0u64..4,
        0u64..12,
        name_or_iter(),
        1u64..,
        any::<bool>(),
        stack,
        any::<[u64; 5]>(),
        any::<u64>(),
        1u64..5,
    )
        .prop_flat_map(
            move |(
                warmup,
                measured,
                unit,
                per_iteration,
                capped,
                stack,
                heap,
                wrap_seed,
                batch,
            )| {
                let rows = (warmup + measured) as usize;
                let name = name.clone();
                proptest::collection::vec(
                    proptest::collection::vec(prop_oneof![0u64..5000, any::<u64>()], rows),
                    columns,
                )
                .prop_map(move |samples| Benchmark {
                    name: name.clone(),
                    unit: unit.clone(),
                    per_iteration,
                    samples,
                    warmup,
                    iterations: measured * batch,
                    capped,
                    stack,
                    // One in five not measured (`@heap off`).
                    heap: (heap[2] % 5 != 0).then_some(HeapFigures {
                        peak: heap[0].max(heap[1]),
                        // With nothing freed, what is held at the end is the peak.
                        live: if heap[3] == 0 {
                            heap[0].max(heap[1])
                        } else {
                            heap[0].min(heap[1])
                        },
                        allocs: heap[2],
                        frees: heap[3],
                        free_errors: heap[4],
                    }),
                    wrapped: wrap_seed % (warmup + measured + 1),
                    counts: Vec::new(),
                    family: None,
                    batch,
                    // A stopped benchmark is one whose stack overran.
                    overran: stack == StackMark::Overrun && wrap_seed % 3 == 0,
                    other_cpu_ns: None,
                    preempted: 0,
                    rerun: 0,
                })
            },
        )
}

fn name_or_iter() -> impl Strategy<Value = String> {
    prop_oneof![Just("iter".to_string()), name()]
}

fn run() -> impl Strategy<Value = Run> {
    (
        clocks(),
        (
            name(),
            name(),
            any::<bool>(),
            proptest::option::of("[!-~]{1,30}"),
        ),
        (
            any::<u64>(),
            any::<u64>(),
            proptest::option::of(1u64..),
            proptest::option::of(1u64..),
        ),
        proptest::collection::btree_set(name(), 0..4),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_flat_map(|(clocks, target, config, names, calibrated, dropped)| {
            let columns = clocks.len();
            let benches: Vec<_> = names
                .into_iter()
                .map(|n| benchmark(n, columns, config.3))
                .collect();
            let calibration = if calibrated {
                benchmark(".overhead".to_string(), columns, config.3)
                    .prop_map(Some)
                    .boxed()
            } else {
                Just(None).boxed()
            };
            (benches, calibration).prop_map(move |(benchmarks, calibration)| Run {
                version: rho_wire::WIRE_VERSION,
                target: Target {
                    name: target.0.clone(),
                    arch: target.1.clone(),
                    optimized: target.2,
                    compiler: target.3.clone(),
                },
                clocks: clocks.clone(),
                counter: None,
                calibration,
                config: RunConfig {
                    iterations: config.0,
                    warmup: config.1,
                    time_cap_ms: config.2,
                    stack_bytes: config.3,
                    stack_guard: config.3.map(|_| "page".to_string()),
                },
                benchmarks,
                dropped,
                noise_lines: 0,
                yardstick: None,
            })
        })
}

/// One edit to a byte stream.
#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
    DuplicateLine(usize),
    DeleteLine(usize),
    SwapLines(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop_oneof![
        any::<u8>(),
        prop::sample::select(b"@:0123456789 \n\r=.-abcdefghijklmnopqrstuvwxyz".to_vec())
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), byte).prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Truncate),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        any::<usize>().prop_map(Mutation::DeleteLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
    ]
}

fn apply(bytes: &mut Vec<u8>, mutation: &Mutation) {
    let len = bytes.len().max(1);
    let mut lines: Vec<Vec<u8>> = bytes
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let line_count = lines.len().max(1);
    match *mutation {
        Mutation::Flip(i, b) => {
            if let Some(slot) = bytes.get_mut(i % len) {
                *slot = b;
            }
            return;
        }
        Mutation::Insert(i, b) => {
            bytes.insert(i % (bytes.len() + 1), b);
            return;
        }
        Mutation::Delete(i) => {
            if !bytes.is_empty() {
                bytes.remove(i % len);
            }
            return;
        }
        Mutation::Truncate(i) => {
            bytes.truncate(i % len);
            return;
        }
        Mutation::DuplicateLine(i) => {
            if !lines.is_empty() {
                let line = lines[i % line_count].clone();
                lines.insert(i % line_count, line);
            }
        }
        Mutation::DeleteLine(i) => {
            if !lines.is_empty() {
                lines.remove(i % line_count);
            }
        }
        Mutation::SwapLines(a, b) => {
            if !lines.is_empty() {
                lines.swap(a % line_count, b % line_count);
            }
        }
    }
    *bytes = lines.concat();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = parse_bytes(&bytes);
        let mut parser = StreamParser::new();
        for line in bytes.split(|&b| b == b'\n') {
            if parser.feed_line(line).is_err() {
                break;
            }
        }
        let _ = parser.finish();
    }

    #[test]
    fn record_shaped_noise_never_panics(
        lines in proptest::collection::vec(
            "(@(rho-bench|target|clock|config|bench|stack|heap|end|done)|:)[ -~]{0,40}", 0..40)
    ) {
        let mut text = String::from("@rho-bench 1\n");
        for line in &lines {
            text.push_str(line);
            text.push('\n');
        }
        let _ = parse_bytes(text.as_bytes());
    }

    #[test]
    fn writer_output_round_trips(run in run()) {
        let text = run_to_string(&run).unwrap();
        let parsed = parse_bytes(text.as_bytes());
        prop_assert!(parsed.is_ok(), "{:?}\n{}", parsed, text);
        prop_assert_eq!(parsed.unwrap(), run.clone());
        // Line by line (no fast path for sample runs) gives the same run.
        let mut parser = StreamParser::new();
        for line in text.split_inclusive('\n') {
            parser.feed_line(line.as_bytes()).unwrap();
        }
        prop_assert_eq!(parser.finish().unwrap(), run);
    }

    #[test]
    fn fast_and_line_by_line_paths_agree(
        run in run(),
        mutations in proptest::collection::vec(mutation(), 0..3),
    ) {
        let mut bytes = run_to_string(&run).unwrap().into_bytes();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        let whole = parse_bytes(&bytes);
        let mut parser = StreamParser::new();
        let mut failed = None;
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            match parser.feed_line(line) {
                Ok(Some(rho_wire::Event::Done)) => break,
                Ok(_) => {}
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        let by_line = match failed {
            Some(e) => Err(e),
            None => parser.finish(),
        };
        match (whole, by_line) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "{:?} vs {:?}", a, b),
        }
    }

    #[test]
    fn mutated_valid_streams_never_panic(
        run in run(),
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let mut bytes = run_to_string(&run).unwrap().into_bytes();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        if let Err(e) = parse_bytes(&bytes) {
            // Every error names a real line of the input (or the one after its end) and says what it wanted.
            let lines = bytes.split(|&b| b == b'\n').count() as u64;
            prop_assert!(e.line() >= 1 && e.line() <= lines + 1, "{} (of {} lines)", e, lines);
            prop_assert!(e.to_string().contains("expected"));
        }
    }
}
