//! The parser on valid streams and on every kind of malformed one: each error names its line and says what
//! was expected and what was found.

use rho_wire::{
    ClockRole, ErrorKind, Event, Run, StackMark, StreamParser, WireError, parse_run, parse_str,
    run_to_string,
};

/// A small but complete stream in the shape `docs/wire-format.md` shows, with noise around it.
const VALID: &str = "\
boot: rho demo v1.0\r
@rho-bench 1
@target host arch=x86_64 optimized=1 compiler=gcc-12.2.0
@clock cycles tsc unit=cycle hz=2899912000 resolution=1
@clock time clock_gettime unit=ns hz=1000000000 resolution=1
@config iterations=3 warmup=1 time_cap_ms=5000 stack_bytes=65536 future_key=7
@bench .overhead
:30 40
:24 31
:25 30
:24 31
@stack off
@heap peak=0 live=0 allocs=0 frees=0 free_errors=0
@end .overhead iterations=3 warmup=1 capped=0 unit=iter per_iteration=1
[log] a line the board printed in the middle
@bench bench_crc_64
:2500 900
:2011 700
:1987 662\r
:1990 680
@stack 312
@heap peak=0 live=0 allocs=0 frees=0 free_errors=0
@end bench_crc_64 iterations=3 warmup=1 capped=0 unit=byte per_iteration=64
@bench bench_malloc_free
:150 60
:107 40
:108 41
:  110   42  
@heap peak=64 live=64 allocs=3 frees=2 free_errors=1
@stack overrun
@end bench_malloc_free iterations=3 warmup=1 capped=1 unit=pair per_iteration=1
@done benchmarks=2 dropped=1
anything after @done is not read
";

fn err(text: &str) -> WireError {
    match parse_str(text) {
        Ok(run) => panic!("expected an error, parsed {run:?}"),
        Err(e) => e,
    }
}

/// The valid stream with `from` replaced by `to` (exactly once).
fn mutate(from: &str, to: &str) -> String {
    assert_eq!(VALID.matches(from).count(), 1, "{from:?} must occur once");
    VALID.replace(from, to)
}

fn assert_error(text: &str, line: u64, kind: ErrorKind, message: &str) {
    let e = err(text);
    assert_eq!(e.to_string(), message);
    assert_eq!(e.line(), line, "{e}");
    assert_eq!(e.kind(), Some(kind), "{e}");
}

#[test]
fn parses_the_valid_stream() {
    let run = parse_str(VALID).unwrap();
    assert_eq!(run.version, 1);
    assert_eq!(run.target.name, "host");
    assert_eq!(run.target.arch, "x86_64");
    assert!(run.target.optimized);
    assert_eq!(run.target.compiler.as_deref(), Some("gcc-12.2.0"));
    assert_eq!(run.clocks.len(), 2);
    assert_eq!(run.clocks[0].role, ClockRole::Cycles);
    assert_eq!(run.clocks[0].name, "tsc");
    assert_eq!(run.clocks[0].hz, Some(2_899_912_000));
    assert_eq!(run.clocks[1].role, ClockRole::Time);
    assert_eq!(run.clocks[1].unit, "ns");
    assert_eq!(run.clock_index(ClockRole::Time), Some(1));
    assert_eq!(run.config.iterations, 3);
    assert_eq!(run.config.time_cap_ms, Some(5000));
    assert_eq!(run.config.stack_bytes, Some(65536));
    assert_eq!(run.dropped, 1);
    // The banner and the log line; the line after @done is never read.
    assert_eq!(run.noise_lines, 2);

    let calibration = run.calibration.as_ref().unwrap();
    assert_eq!(calibration.name, ".overhead");
    assert_eq!(calibration.measured(0), &[24, 25, 24]);
    assert_eq!(calibration.measured(1), &[31, 30, 31]);

    assert_eq!(run.benchmarks.len(), 2);
    let crc = &run.benchmarks[0];
    assert_eq!(crc.name, "bench_crc_64");
    assert_eq!(crc.unit, "byte");
    assert_eq!(crc.per_iteration, 64);
    assert_eq!(crc.samples[0], vec![2500, 2011, 1987, 1990]);
    assert_eq!(crc.measured(0), &[2011, 1987, 1990]);
    assert_eq!(crc.measured(1), &[700, 662, 680]);
    assert_eq!(crc.measured(7), &[] as &[u64]);
    assert_eq!(crc.stack, StackMark::Bytes(312));
    assert!(!crc.capped);
    assert!(!crc.leaked());

    let pair = &run.benchmarks[1];
    assert_eq!(pair.measured(0), &[107, 108, 110]);
    assert_eq!(pair.stack, StackMark::Overrun);
    let heap = pair.heap.expect("heap figures");
    assert_eq!(heap.peak, 64);
    assert_eq!(heap.free_errors, 1);
    assert!(pair.capped);
    assert!(pair.leaked());
}

#[test]
fn one_clock_stack_off_and_no_calibration() {
    let text = "@rho-bench 1\n@target mps2-an386 arch=armv7e-m optimized=0\n\
                @clock cycles dwt unit=cycle hz=0 resolution=1\n\
                @config iterations=2 warmup=0 time_cap_ms=0 stack_bytes=0\n\
                @bench b\n:5\n:6\n@stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
                @end b iterations=2 warmup=0 capped=0 unit=iter per_iteration=1\n@done benchmarks=1 dropped=0";
    let run = parse_str(text).unwrap();
    assert_eq!(run.clocks[0].hz, None);
    assert_eq!(run.config.time_cap_ms, None);
    assert_eq!(run.config.stack_bytes, None);
    assert_eq!(run.target.compiler, None);
    assert!(!run.target.optimized);
    assert!(run.calibration.is_none());
    assert_eq!(run.benchmarks[0].measured(0), &[5, 6]);
}

#[test]
fn not_utf8_noise_is_skipped() {
    let mut bytes = b"\xff\xfe garbage \x00\n".to_vec();
    bytes.extend_from_slice(VALID.as_bytes());
    let run = parse_run(&bytes[..]).unwrap();
    assert_eq!(run.noise_lines, 3);
}

#[test]
fn stops_reading_at_done() {
    // A reader that fails if read past @done: parse_run must not touch it.
    struct ThenFail<'a>(&'a [u8]);
    impl std::io::Read for ThenFail<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("read past @done"));
            }
            let n = out.len().min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let end = VALID.find("anything after").unwrap();
    let reader = std::io::BufReader::with_capacity(16, ThenFail(&VALID.as_bytes()[..end]));
    let run = parse_run(reader).unwrap();
    assert_eq!(run.benchmarks.len(), 2);
}

#[test]
fn small_buffers_give_the_same_run() {
    let whole = parse_str(VALID).unwrap();
    for capacity in [1, 2, 3, 7, 64] {
        let reader = std::io::BufReader::with_capacity(capacity, VALID.as_bytes());
        assert_eq!(parse_run(reader).unwrap(), whole, "buffer of {capacity}");
    }
}

#[test]
fn io_errors_name_the_line() {
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("cable pulled"))
        }
    }
    let reader = std::io::Read::chain(b"@rho-bench 1\n".as_slice(), Broken);
    let e = parse_run(std::io::BufReader::new(reader)).unwrap_err();
    assert!(matches!(e, WireError::Io { line: 2, .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "line 2: reading the stream failed: cable pulled"
    );
    assert_eq!(e.kind(), None);
}

#[test]
fn events_arrive_in_order() {
    let mut parser = StreamParser::new();
    let mut seen = Vec::new();
    for line in VALID.split_inclusive('\n') {
        let event = parser.feed_line(line.as_bytes()).unwrap();
        let label = match event {
            None => continue,
            Some(Event::Noise(_)) => "noise".to_string(),
            Some(Event::HeaderComplete(h)) => format!("header {} clocks", h.clocks.len()),
            Some(Event::BenchStarted { name }) => format!("start {name}"),
            Some(Event::CalibrationFinished(b)) => format!("calibrated {}", b.iterations),
            Some(Event::BenchFinished(b)) => format!("finished {}", b.name),
            Some(Event::Done) => "done".to_string(),
        };
        seen.push(label);
        if let Some(("bench_crc_64", n)) = parser.in_progress() {
            assert_eq!(n, 0, "just started");
        }
    }
    assert_eq!(
        seen,
        [
            "noise",
            "header 2 clocks",
            "start .overhead",
            "calibrated 3",
            "noise",
            "start bench_crc_64",
            "finished bench_crc_64",
            "start bench_malloc_free",
            "finished bench_malloc_free",
            "done",
        ]
    );
    assert!(parser.is_done());
    assert_eq!(parser.benchmarks().len(), 2);
    assert_eq!(parser.finish().unwrap(), parse_str(VALID).unwrap());
}

#[test]
fn round_trips_through_the_writer() {
    let run = parse_str(VALID).unwrap();
    let text = run_to_string(&run).unwrap();
    let again = parse_str(&text).unwrap();
    assert_eq!(again.noise_lines, 0);
    assert_eq!(
        again,
        rho_wire::Run {
            noise_lines: 0,
            yardstick: None,
            ..run
        }
    );
    // A harness's exact line shapes.
    assert!(
        text.starts_with(
            "@rho-bench 1\n@target host arch=x86_64 optimized=1 compiler=gcc-12.2.0\n"
        )
    );
    assert!(text.contains("\n@bench bench_crc_64\n:2500 900\n:2011 700\n"));
    assert!(text.contains(
        "\n@end bench_malloc_free iterations=3 warmup=1 capped=1 unit=pair per_iteration=1\n"
    ));
    assert!(text.ends_with("\n@done benchmarks=2 dropped=1\n"));
}

#[test]
fn the_writer_refuses_what_the_format_cannot_say() {
    let mut run = parse_str(VALID).unwrap();
    run.benchmarks[0].name = "has space".to_string();
    let e = run_to_string(&run).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    let mut run = parse_str(VALID).unwrap();
    run.benchmarks[1].samples[1].pop();
    assert!(run_to_string(&run).is_err());
}

// ---- errors ----

#[test]
fn sample_with_too_few_fields() {
    assert_error(
        &mutate(":2011 700\n", ":12\n"),
        18,
        ErrorKind::Syntax,
        "line 18: expected a sample of 2 fields (one per @clock) or @stack, found \":12\"",
    );
}

#[test]
fn sample_with_too_many_fields_or_junk() {
    for bad in [
        ":2011 700 5\n",
        ":2011 7x0\n",
        ":2011 -700\n",
        ":\n",
        ":2011,700\n",
    ] {
        let e = err(&mutate(":2011 700\n", bad));
        assert_eq!(e.line(), 18, "{bad:?}: {e}");
        assert_eq!(e.kind(), Some(ErrorKind::Syntax), "{bad:?}: {e}");
    }
}

#[test]
fn one_clock_sample_message_is_singular() {
    let text = "@rho-bench 1\n@target t arch=a optimized=1\n@clock cycles c unit=cycle hz=0 resolution=1\n\
                @config iterations=1 warmup=0 time_cap_ms=0 stack_bytes=0\n@bench b\n:1 2\n";
    assert_error(
        text,
        6,
        ErrorKind::Syntax,
        "line 6: expected a sample of 1 field (one per @clock) or @stack, found \":1 2\"",
    );
}

#[test]
fn overflowing_numbers() {
    assert_error(
        &mutate(":2011 700\n", ":18446744073709551616 700\n"),
        18,
        ErrorKind::BadNumber,
        "line 18: expected a sample of 2 fields (one per @clock) or @stack, found \
         \":18446744073709551616 700\" (field 1 does not fit in 64 bits)",
    );
    // The largest u64 is fine.
    let run = parse_str(&mutate(":2011 700\n", ":18446744073709551615 0000700\n")).unwrap();
    assert_eq!(run.benchmarks[0].samples[0][1], u64::MAX);
    assert_eq!(run.benchmarks[0].samples[1][1], 700);
    assert_error(
        &mutate("@stack 312", "@stack 99999999999999999999"),
        21,
        ErrorKind::BadNumber,
        "line 21: expected a stack depth in bytes, overrun or off, found \"@stack 99999999999999999999\"",
    );
    assert_error(
        &mutate("hz=2899912000", "hz=2.9e9"),
        4,
        ErrorKind::BadNumber,
        "line 4: expected hz= an unsigned integer that fits in 64 bits, found \
         \"@clock cycles tsc unit=cycle hz=2.9e9 resolution=1\"",
    );
}

#[test]
fn truncated_streams() {
    let cut = VALID.find("@done").unwrap();
    assert_error(
        &VALID[..cut],
        32,
        ErrorKind::Truncated,
        "line 32: expected @bench or @done, found end of input",
    );
    let cut = VALID.find(":1987").unwrap();
    assert_error(
        &VALID[..cut],
        19,
        ErrorKind::Truncated,
        "line 19: expected a sample of 2 fields (one per @clock) or @stack, found end of input",
    );
    assert_error(
        "",
        1,
        ErrorKind::Truncated,
        "line 1: expected @rho-bench, found end of input",
    );
    assert_error(
        "just a board talking\n",
        2,
        ErrorKind::Truncated,
        "line 2: expected @rho-bench, found end of input",
    );
}

#[test]
fn end_name_mismatch() {
    assert_error(
        &mutate("@end bench_crc_64", "@end bench_crc_256"),
        23,
        ErrorKind::NameMismatch,
        "line 23: expected @end bench_crc_64 (the benchmark started on line 16), found \
         \"@end bench_crc_256 iterations=3 warmup=1 capped=0 unit=byte per_iteration=64\"",
    );
}

#[test]
fn sample_count_must_be_warmup_plus_iterations() {
    assert_error(
        &mutate(":1987 662\r\n", ""),
        22,
        ErrorKind::CountMismatch,
        "line 22: expected warmup + iterations = 1 + 3 samples since @bench bench_crc_64 on line 16, \
         found 3 samples",
    );
    let e = err(&mutate(
        "@end bench_crc_64 iterations=3 warmup=1",
        "@end bench_crc_64 iterations=18446744073709551615 warmup=1",
    ));
    assert_eq!(e.kind(), Some(ErrorKind::CountMismatch), "{e}");
}

#[test]
fn done_must_count_the_benchmarks() {
    assert_error(
        &mutate("@done benchmarks=2", "@done benchmarks=3"),
        32,
        ErrorKind::CountMismatch,
        "line 32: expected @done benchmarks=2 (the benchmarks of the suite in this stream, not counting \
         .overhead), found \"@done benchmarks=3 dropped=1\"",
    );
}

#[test]
fn unknown_record_keyword() {
    assert_error(
        &mutate("@stack 312\n", "@stak 312\n"),
        21,
        ErrorKind::UnknownRecord,
        "line 21: expected a sample of 2 fields (one per @clock) or @stack (a record keyword of wire format \
         version 1), found \"@stak 312\"",
    );
}

#[test]
fn duplicate_records() {
    assert_error(
        &mutate("@config", "@target host arch=x86_64 optimized=1\n@config"),
        6,
        ErrorKind::Duplicate,
        "line 6: expected @clock or @config (only one @target, already on line 3), found \
         \"@target host arch=x86_64 optimized=1\"",
    );
    assert_error(
        &mutate("@clock time clock_gettime", "@clock cycles clock_gettime"),
        5,
        ErrorKind::Duplicate,
        "line 5: expected @clock or @config (only one @clock cycles, already on line 4), found \
         \"@clock cycles clock_gettime unit=ns hz=1000000000 resolution=1\"",
    );
    let e = err(&mutate(
        "@bench bench_crc_64\n",
        "@clock time x unit=ns hz=0 resolution=1\n",
    ));
    assert_eq!(e.kind(), Some(ErrorKind::Duplicate), "{e}");
    let e = err(&mutate("@stack 312\n", "@stack 312\n@stack 313\n"));
    assert_eq!(e.kind(), Some(ErrorKind::Duplicate), "{e}");
    assert_eq!(e.line(), 22);
    let e = err(&mutate(
        "@stack overrun\n",
        "@stack overrun\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n",
    ));
    assert_eq!(e.kind(), Some(ErrorKind::Duplicate), "{e}");
    let e = err(&mutate("@bench bench_malloc_free", "@bench bench_crc_64"));
    assert_eq!(e.kind(), Some(ErrorKind::Duplicate), "{e}");
    assert!(
        e.to_string().contains("bench_crc_64 started on line 16"),
        "{e}"
    );
    let e = err(&mutate(
        "@rho-bench 1\n@target",
        "@rho-bench 1\n@rho-bench 1\n@target",
    ));
    assert_eq!(e.kind(), Some(ErrorKind::Duplicate), "{e}");
    let e = err(&mutate(
        "stack_bytes=65536 future_key=7",
        "stack_bytes=65536 stack_bytes=1",
    ));
    assert_eq!(e.kind(), Some(ErrorKind::Duplicate), "{e}");
    let doubled = VALID.replacen("@bench bench_crc_64", "@bench .overhead", 1);
    let e = err(&doubled);
    assert_eq!(e.kind(), Some(ErrorKind::Duplicate), "{e}");
}

#[test]
fn missing_header() {
    assert_error(
        "banner\n@target host arch=x86_64 optimized=1\n",
        2,
        ErrorKind::MissingHeader,
        "line 2: expected @rho-bench before any record, found \"@target host arch=x86_64 optimized=1\"",
    );
    assert_error(
        ":12 34\n",
        1,
        ErrorKind::MissingHeader,
        "line 1: expected @rho-bench, found \":12 34\"",
    );
    // An `@` line that is no record of the format is a board's banner before the stream starts.
    let run = parse_str(&format!("@@@ boot @@@\n{VALID}")).unwrap();
    assert_eq!(run.noise_lines, 3);
}

#[test]
fn unsupported_version() {
    assert_error(
        &mutate("@rho-bench 1", "@rho-bench 10"),
        2,
        ErrorKind::UnsupportedVersion,
        "line 2: expected wire format version 1 to 9 (the versions this rho reads), found \"@rho-bench 10\"",
    );
    let e = err(&mutate("@rho-bench 1", "@rho-bench 0"));
    assert_eq!(e.kind(), Some(ErrorKind::UnsupportedVersion), "{e}");
    let e = err(&mutate("@rho-bench 1", "@rho-bench"));
    assert_eq!(e.kind(), Some(ErrorKind::Syntax), "{e}");
}

#[test]
fn records_out_of_order() {
    let cases = [
        // header order
        (
            mutate(
                "@target host arch=x86_64 optimized=1 compiler=gcc-12.2.0\n",
                "",
            ),
            3,
            "@target",
        ),
        // a sample outside a benchmark
        (
            mutate("[log] a line", ":5 5\n[log] a line"),
            15,
            "@bench or @done",
        ),
        // @end before @heap
        (
            mutate(
                "@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n@end bench_crc_64",
                "@end bench_crc_64",
            ),
            22,
            "@heap",
        ),
        // a sample after @stack
        (mutate("@stack 312\n", "@stack 312\n:1 1\n"), 22, "@heap"),
        // @done inside a benchmark
        (
            mutate(
                "@end bench_malloc_free iterations=3 warmup=1 capped=1 unit=pair per_iteration=1\n",
                "",
            ),
            31,
            "@end bench_malloc_free",
        ),
        // @bench before @config
        (
            mutate(
                "@config iterations=3 warmup=1 time_cap_ms=5000 stack_bytes=65536 future_key=7\n",
                "",
            ),
            6,
            "@clock or @config",
        ),
    ];
    for (text, line, expected) in cases {
        let e = err(&text);
        assert_eq!(e.kind(), Some(ErrorKind::OutOfOrder), "{e}");
        assert_eq!(e.line(), line, "{e}");
        assert!(
            e.to_string()
                .contains(&format!("expected {expected}, found")),
            "{e}"
        );
    }
}

#[test]
fn bad_fields() {
    let cases = [
        ("unit=byte per_iteration=64", "per_iteration=64", "unit="),
        (
            "@bench bench_crc_64",
            "@bench .secret",
            "names starting with '.'",
        ),
        ("@bench bench_crc_64", "@bench bad/name", "a benchmark name"),
        ("optimized=1", "optimized=yes", "optimized=0 or optimized=1"),
        (
            "@clock time clock_gettime",
            "@clock wall clock_gettime",
            "a clock role, cycles or time",
        ),
        (
            "@stack 312",
            "@stack 312 bytes",
            "a stack depth in bytes, overrun or off",
        ),
        (
            "@done benchmarks=2 dropped=1",
            "@done benchmarks=2 dropped=1 extra",
            "only key=value fields",
        ),
        (
            "stack_bytes=65536",
            "stack_bytes=65536 =3",
            "key=value fields with a key",
        ),
        ("compiler=gcc-12.2.0", "compiler=", "a non-empty compiler="),
    ];
    for (from, to, expected) in cases {
        let e = err(&mutate(from, to));
        assert!(e.to_string().contains(expected), "{to:?}: {e}");
        assert!(e.to_string().contains("found \"@"), "{to:?}: {e}");
    }
    let long_name = "x".repeat(64);
    let e = err(&mutate(
        "@bench bench_crc_64",
        &format!("@bench {long_name}"),
    ));
    assert_eq!(e.kind(), Some(ErrorKind::Syntax), "{e}");
}

#[test]
fn long_lines() {
    // A long noise line is skipped; a long record is an error that quotes nothing huge.
    let noise = "n".repeat(rho_wire::MAX_LINE_BYTES * 3);
    let run = parse_str(&format!("{noise}\n{VALID}")).unwrap();
    assert_eq!(run.noise_lines, 3);
    let record = format!("@{noise}\n");
    let e = err(&mutate(
        "[log] a line the board printed in the middle\n",
        &record,
    ));
    assert_eq!(e.kind(), Some(ErrorKind::LineTooLong), "{e}");
    assert!(e.to_string().len() < 200);
}

#[test]
fn wrapped_samples_are_read_from_end_and_absent_means_none() {
    let run = parse_str(VALID).unwrap();
    assert!(
        run.benchmarks
            .iter()
            .all(|b| b.wrapped == 0 && b.cycles_measured())
    );
    let run = parse_str(&mutate(
        "unit=byte per_iteration=64",
        "unit=byte per_iteration=64 wrapped=2",
    ))
    .unwrap();
    let crc = &run.benchmarks[0];
    assert_eq!(crc.wrapped, 2);
    assert!(!crc.cycles_measured());
    // The writer keeps it, and only where it is not 0.
    let written = run_to_string(&run).unwrap();
    assert_eq!(written.matches(" wrapped=").count(), 1, "{written}");
    let reread = parse_str(&written).unwrap();
    assert_eq!(reread.benchmarks, run.benchmarks);
}

#[test]
fn wrapped_must_be_a_count_of_the_samples() {
    assert_error(
        &mutate(
            "unit=byte per_iteration=64",
            "unit=byte per_iteration=64 wrapped=5",
        ),
        23,
        ErrorKind::CountMismatch,
        "line 23: expected wrapped= at most the 4 samples since @bench bench_crc_64 on line 16, found \
         \"@end bench_crc_64 iterations=3 warmup=1 capped=0 unit=byte per_iteration=64 wrap\"...",
    );
    let e = err(&mutate(
        "unit=byte per_iteration=64",
        "unit=byte per_iteration=64 wrapped=x",
    ));
    assert_eq!(e.kind(), Some(ErrorKind::BadNumber), "{e}");
    assert_eq!(e.line(), 23);
}

#[test]
fn zero_ops_per_iteration_is_refused() {
    assert_error(
        &mutate("unit=byte per_iteration=64", "unit=byte per_iteration=0"),
        23,
        ErrorKind::Inconsistent,
        "line 23: expected per_iteration= at least 1 (ops in one iteration), found \
         \"@end bench_crc_64 iterations=3 warmup=1 capped=0 unit=byte per_iteration=0\"",
    );
}

#[test]
fn a_stack_mark_beyond_the_painted_region_is_refused() {
    assert_error(
        &mutate("@stack 312\n", "@stack 65537\n"),
        21,
        ErrorKind::Inconsistent,
        "line 21: expected a stack depth of at most @config stack_bytes=65536, overrun or off, found \
         \"@stack 65537\"",
    );
    // The whole region is a possible figure (a harness with no guard bytes could print it).
    assert!(parse_str(&mutate("@stack 312\n", "@stack 65536\n")).is_ok());
    // With no painted region, a number or an overrun cannot have been measured.
    let unpainted = VALID.replace("stack_bytes=65536", "stack_bytes=0");
    let e = err(&unpainted);
    assert_eq!(
        e.to_string(),
        "line 21: expected @stack off (@config stack_bytes=0: the stack is not measured), found \
         \"@stack 312\""
    );
    assert_eq!(e.kind(), Some(ErrorKind::Inconsistent));
    let e = err(&unpainted.replace("@stack 312\n", "@stack off\n"));
    assert_eq!(e.line(), 30, "{e}");
    assert_eq!(e.kind(), Some(ErrorKind::Inconsistent), "{e}");
}

#[test]
fn heap_live_above_its_peak_is_refused() {
    assert_error(
        &mutate("peak=64 live=64", "peak=32 live=64"),
        29,
        ErrorKind::Inconsistent,
        "line 29: expected live= at most peak= (the bytes held at the end were held at the peak too): \
         peak=32 live=64, found \"@heap peak=32 live=64 allocs=3 frees=2 free_errors=1\"",
    );
}

/// Heap records no harness writes are refused; the ones a set-up and tear-down around the measured
/// iterations do write are not (`allocs=` and `frees=` count the measured iterations from version 5).
#[test]
fn heap_figures_no_harness_writes_are_refused() {
    // Nothing freed, yet less held at the end than at the peak.
    let e = err(&mutate(
        "peak=64 live=64 allocs=3 frees=2",
        "peak=64 live=5 allocs=3 frees=0",
    ));
    assert_eq!(
        (e.line(), e.kind()),
        (29, Some(ErrorKind::Inconsistent)),
        "{e}"
    );
    assert!(
        e.to_string().contains("live= equal to peak= when frees=0"),
        "{e}"
    );
    // The record: in this version 1 stream, counted from the benchmark's start, nothing was ever
    // allocated, so nothing can be held.
    let e = err(&mutate(
        "peak=64 live=64 allocs=3 frees=2",
        "peak=8 live=5 allocs=0 frees=3",
    ));
    assert_eq!(
        (e.line(), e.kind()),
        (29, Some(ErrorKind::Inconsistent)),
        "{e}"
    );
    assert!(e.to_string().contains("peak=0 when allocs=0"), "{e}");
    // From version 5 the same record is what a benchmark that allocated 8 bytes in its set-up and freed 3
    // blocks of it in its tear-down writes: read.
    let v5 = mutate(
        "peak=64 live=64 allocs=3 frees=2",
        "peak=8 live=5 allocs=0 frees=3",
    )
    .replace("@rho-bench 1\n", "@rho-bench 5\n");
    assert!(parse_str(&v5).is_ok());
    // ...but not with nothing freed, nor live above peak, in any version.
    let v5_unfreed = v5.replace(
        "peak=8 live=5 allocs=0 frees=3",
        "peak=8 live=5 allocs=0 frees=0",
    );
    assert_eq!(err(&v5_unfreed).kind(), Some(ErrorKind::Inconsistent));
}

#[test]
fn the_writer_refuses_inconsistent_figures() {
    let run = parse_str(VALID).unwrap();
    let mut zero_ops = run.clone();
    zero_ops.benchmarks[0].per_iteration = 0;
    let mut deep = run.clone();
    deep.benchmarks[0].stack = StackMark::Bytes(70_000);
    let mut live = run.clone();
    live.benchmarks[1].heap.as_mut().unwrap().live = 65;
    // `@heap off` is version 6: a version 1 run cannot say it.
    let mut off = run.clone();
    off.benchmarks[0].heap = None;
    for bad in [zero_ops, deep, live, off] {
        let e = run_to_string(&bad).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{e}");
    }
}

/// Version 2's counted stream (`rho bench --measure instructions`): no clock, a `@counter`, and per block the
/// dump that holds its loop (`.overhead` two, N and 2N iterations); version 1 streams stay readable and have
/// no such records.
#[test]
fn a_counted_stream_names_its_dumps_and_version_1_has_none() {
    const COUNTED: &str = "@rho-bench 2\n@target host arch=x86_64 optimized=1\n\
        @counter instructions callgrind\n@config iterations=10 warmup=1 time_cap_ms=0 stack_bytes=65536\n\
        @bench .overhead\n@count 1 iterations=1000\n@count 2 iterations=2000\n@stack 304\n\
        @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
        @end .overhead iterations=1000 warmup=1 capped=0 unit=iter per_iteration=1\n\
        @bench bench_nop\n@count 3 iterations=10\n@stack 304\n\
        @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
        @end bench_nop iterations=10 warmup=1 capped=0 unit=iter per_iteration=1\n\
        @done benchmarks=1 dropped=0\n";
    let run = parse_str(COUNTED).unwrap();
    assert_eq!(run.version, 2);
    assert!(run.clocks.is_empty());
    assert_eq!(run.counter.as_ref().unwrap().name, "callgrind");
    let calibration = run.calibration.as_ref().unwrap();
    assert_eq!(
        calibration
            .counts
            .iter()
            .map(|c| (c.dump, c.iterations))
            .collect::<Vec<_>>(),
        [(1, 1000), (2, 2000)]
    );
    assert_eq!(run.benchmarks[0].counts[0].dump, 3);
    // Written back, it parses to itself.
    assert_eq!(parse_str(&run_to_string(&run).unwrap()).unwrap(), run);

    let refused = |text: &str| parse_str(text).unwrap_err().to_string();
    // A count that does not match its block's iterations, dumps going backwards, a count in a timed stream,
    // and @counter in a version 1 stream.
    let error = refused(&COUNTED.replace("@count 3 iterations=10", "@count 3 iterations=9"));
    assert!(error.contains("iterations=10"), "{error}");
    let error = refused(&COUNTED.replace("@count 3 ", "@count 2 "));
    assert!(
        error.contains("dump number above the last one (2)"),
        "{error}"
    );
    let error = refused(&COUNTED.replace("@rho-bench 2", "@rho-bench 1"));
    assert!(
        error.contains("line 3") && error.contains("version 1"),
        "{error}"
    );
    let error = refused(&COUNTED.replace("@rho-bench 2", "@rho-bench 10"));
    assert!(error.contains("1 to 9"), "{error}");
}

/// The valid stream as version 4, with bench_crc_64's three measured samples made batches of 4 iterations.
fn batched(end: &str) -> String {
    mutate(
        "@end bench_crc_64 iterations=3 warmup=1 capped=0 unit=byte per_iteration=64\n",
        end,
    )
    .replace("@rho-bench 1", "@rho-bench 4")
}

#[test]
fn a_version_4_end_says_how_many_iterations_each_measured_sample_is() {
    let run = parse_str(&batched(
        "@end bench_crc_64 iterations=12 warmup=1 capped=0 unit=byte per_iteration=64 batch=4\n",
    ))
    .unwrap();
    assert_eq!(run.version, 4);
    let crc = &run.benchmarks[0];
    assert_eq!(
        (crc.iterations, crc.batch, crc.measured_samples()),
        (12, 4, 3)
    );
    assert_eq!(crc.measured(0), &[2011, 1987, 1990]);
    // Absent: one iteration a sample, as every version 1 stream.
    assert_eq!(run.benchmarks[1].batch, 1);
    // The writer says it, and it reads back the same.
    let text = run_to_string(&run).unwrap();
    assert!(text.contains("per_iteration=64 batch=4\n"), "{text}");
    assert_eq!(
        parse_str(&text).unwrap(),
        Run {
            noise_lines: 0,
            yardstick: None,
            ..run
        }
    );
}

#[test]
fn batches_that_do_not_add_up_are_refused() {
    assert_error(
        &batched(
            "@end bench_crc_64 iterations=12 warmup=1 capped=0 unit=byte per_iteration=64 batch=5\n",
        ),
        23,
        ErrorKind::Inconsistent,
        "line 23: expected iterations= a multiple of batch=5 (whole samples of 5 iterations), found \
         \"@end bench_crc_64 iterations=12 warmup=1 capped=0 unit=byte per_iteration=64 bat\"...",
    );
    assert_error(
        &batched(
            "@end bench_crc_64 iterations=16 warmup=1 capped=0 unit=byte per_iteration=64 batch=4\n",
        ),
        23,
        ErrorKind::CountMismatch,
        "line 23: expected warmup + iterations / batch = 1 + 16 / 4 samples since @bench bench_crc_64 on \
         line 16, found 4 samples",
    );
    let e = err(&batched(
        "@end bench_crc_64 iterations=3 warmup=1 capped=0 unit=byte per_iteration=64 batch=0\n",
    ));
    assert_eq!(e.kind(), Some(ErrorKind::Inconsistent), "{e}");
}

#[test]
fn a_version_1_to_3_stream_keeps_its_meaning_whatever_batch_it_carries() {
    // Version 1 has no batches: an unknown key=value is ignored there, so the samples are single iterations.
    let run = parse_str(&mutate("per_iteration=64\n", "per_iteration=64 batch=4\n")).unwrap();
    assert_eq!(run.version, 1);
    assert_eq!(
        (run.benchmarks[0].iterations, run.benchmarks[0].batch),
        (3, 1)
    );
    // And the writer will not put a batch into a version 1 stream.
    let mut run = run;
    run.benchmarks[0].batch = 3;
    run.benchmarks[0].iterations = 9;
    assert!(run_to_string(&run).is_err());
}

/// Version 5: `@config stack_guard=` says what catches an overrun, and `@end overran=1` marks a benchmark the
/// harness stopped when its stack ran into the guard. Both round-trip through the writer.
#[test]
fn version_5_reads_the_stack_guard_and_a_benchmark_stopped_by_an_overrun() {
    let text = mutate("@rho-bench 1", "@rho-bench 5")
        .replace(
            "stack_bytes=65536 future_key=7",
            "stack_bytes=65536 stack_guard=page",
        )
        .replace(
            "unit=pair per_iteration=1",
            "unit=pair per_iteration=1 overran=1",
        );
    let run = parse_str(&text).unwrap();
    assert_eq!(run.version, 5);
    assert_eq!(run.config.stack_guard.as_deref(), Some("page"));
    let stopped = &run.benchmarks[1];
    assert!(stopped.overran);
    assert_eq!(stopped.stack, StackMark::Overrun);
    assert!(!run.benchmarks[0].overran);
    let written = run_to_string(&run).unwrap();
    assert!(written.starts_with("@rho-bench 5\n"), "{written}");
    assert_eq!(written.matches(" overran=1").count(), 1, "{written}");
    assert_eq!(
        parse_str(&written).unwrap(),
        rho_wire::Run {
            noise_lines: 0,
            yardstick: None,
            ..run
        }
    );
}

/// Versions 1 to 4 keep their meaning: the fields version 5 added are unknown there, so ignored.
#[test]
fn versions_1_to_4_ignore_the_fields_version_5_added() {
    for version in ["1", "2", "3", "4"] {
        let text = VALID
            .replace("@rho-bench 1", &format!("@rho-bench {version}"))
            .replace("future_key=7", "stack_guard=page")
            .replace(
                "unit=pair per_iteration=1",
                "unit=pair per_iteration=1 overran=1",
            );
        let run = parse_str(&text).unwrap();
        assert_eq!(run.version.to_string(), version);
        assert_eq!(run.config.stack_guard, None);
        assert!(run.benchmarks.iter().all(|b| !b.overran));
        // And the run is written back in its own version.
        assert!(
            run_to_string(&run)
                .unwrap()
                .starts_with(&format!("@rho-bench {version}\n"))
        );
    }
}

#[test]
fn overran_needs_a_stack_overrun_and_a_flag() {
    let v2 = mutate("@rho-bench 1", "@rho-bench 5");
    assert_error(
        &v2.replace(
            "unit=byte per_iteration=64",
            "unit=byte per_iteration=64 overran=1",
        ),
        23,
        ErrorKind::Inconsistent,
        "line 23: expected overran=1 only after @stack overrun (the benchmark started on line 16), found \
         \"@end bench_crc_64 iterations=3 warmup=1 capped=0 unit=byte per_iteration=64 over\"...",
    );
    let e = err(&v2.replace(
        "unit=pair per_iteration=1",
        "unit=pair per_iteration=1 overran=yes",
    ));
    assert_eq!(e.kind(), Some(ErrorKind::Syntax), "{e}");
    let e = err(&v2.replace("future_key=7", "stack_guard=a/b"));
    assert_eq!(e.line(), 6, "{e}");
}

/// Version 6: `@heap off`, a heap the harness did not measure, is no figure (not zeros), and it is written back.
#[test]
fn version_6_reads_heap_off_as_not_measured() {
    let text = mutate("@rho-bench 1", "@rho-bench 6").replace(
        "@stack 312\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0",
        "@stack 312\n@heap off",
    );
    let run = parse_str(&text).unwrap();
    assert_eq!(run.version, 6);
    let crc = &run.benchmarks[0];
    assert_eq!(crc.heap, None);
    assert!(!crc.leaked());
    // The other blocks keep their figures.
    assert_eq!(run.benchmarks[1].heap.map(|h| h.peak), Some(64));
    let written = run_to_string(&run).unwrap();
    assert!(written.starts_with("@rho-bench 6\n"), "{written}");
    assert_eq!(written.matches("\n@heap off\n").count(), 1, "{written}");
    assert_eq!(
        parse_str(&written).unwrap(),
        rho_wire::Run {
            noise_lines: 0,
            yardstick: None,
            ..run
        }
    );
    // Nothing but `off` in place of the figures.
    for bad in ["@heap on", "@heap off off", "@heap 0"] {
        let e = err(&text.replace("@heap off", bad));
        assert_eq!(e.kind(), Some(ErrorKind::Syntax), "{bad}: {e}");
        assert_eq!(e.line(), 22, "{bad}: {e}");
    }
    // Once per block, like any `@heap`.
    let e = err(&text.replace("@heap off", "@heap off\n@heap off"));
    assert_eq!(e.kind(), Some(ErrorKind::Duplicate), "{e}");
}

/// Versions 1 to 5 have no `@heap off`: every `@heap` carries figures, and `off` there is an error naming the
/// version that has it.
#[test]
fn versions_1_to_5_refuse_heap_off() {
    for version in ["1", "2", "3", "4", "5"] {
        let text = VALID.replace("@rho-bench 1", &format!("@rho-bench {version}"));
        // As before: figures, zeros included, are figures.
        let run = parse_str(&text).unwrap();
        assert_eq!(run.benchmarks[0].heap.map(|h| h.peak), Some(0));
        let off = text.replace(
            "@stack 312\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0",
            "@stack 312\n@heap off",
        );
        assert_error(
            &off,
            22,
            ErrorKind::Syntax,
            &format!(
                "line 22: expected peak= live= allocs= frees= free_errors= (`@heap off` is wire format version 6; \
                 this stream is version {version}), found \"@heap off\""
            ),
        );
    }
}

#[test]
fn control_and_non_ascii_bytes_in_a_record_field_are_refused_naming_the_field() {
    // ESC ] 0 ; PWNED BEL retitles a terminal; no writer puts it (or any byte outside printable ASCII) in a
    // record, so the parser refuses it rather than let it reach a report.
    let cases = [
        (
            "compiler=gcc-12.2.0",
            "compiler=gcc\x1b]0;PWNED\x07",
            "compiler=",
        ),
        ("compiler=gcc-12.2.0", "compiler=gcc\u{9b}31m", "compiler="),
        ("arch=x86_64", "arch=x86\x07", "arch="),
        ("@bench bench_crc_64", "@bench bench\x1b[2J", "field 1"),
        (
            "stack_bytes=65536",
            "stack_bytes=65536 note\x1b=1",
            "the key \"note\\x1b\"",
        ),
    ];
    for (from, to, field) in cases {
        let e = err(&mutate(from, to));
        assert_eq!(e.kind(), Some(ErrorKind::Syntax), "{to:?}: {e}");
        let text = e.to_string();
        assert!(
            text.contains(&format!("printable ASCII in {field} ")),
            "{to:?}: {text}"
        );
        assert!(
            !text.chars().any(char::is_control),
            "the message quotes the line escaped: {text:?}"
        );
    }
    let e = err(&mutate(
        "compiler=gcc-12.2.0",
        "compiler=gcc\x1b]0;PWNED\x07",
    ));
    assert_eq!(e.line(), 3, "{e}");
}

/// Where a stream had got to, as `rho bench` and the gate say it after a crash or a timeout.
#[test]
fn whereabouts_follow_the_stream() {
    let mut parser = StreamParser::new();
    assert_eq!(parser.whereabouts(), " before its first benchmark");
    for line in [
        "@rho-bench 1",
        "@target host arch=x86_64 optimized=1",
        "@clock cycles tsc unit=cycle hz=1000 resolution=1",
        "@config iterations=1 warmup=0 time_cap_ms=0 stack_bytes=0",
        "@bench bench_a",
        ":5",
    ] {
        parser.feed_line(line.as_bytes()).unwrap();
    }
    assert_eq!(
        parser.whereabouts(),
        " while running bench_a (1 of its samples received; the harness writes them in blocks, so it \
         may have run further)"
    );
    for line in [
        "@stack off",
        "@heap peak=0 live=0 allocs=0 frees=0 free_errors=0",
    ] {
        parser.feed_line(line.as_bytes()).unwrap();
    }
    parser
        .feed_line(b"@end bench_a iterations=1 warmup=0 capped=0 unit=iter per_iteration=1")
        .unwrap();
    assert_eq!(parser.whereabouts(), " after bench_a");
    parser.feed_line(b"@done benchmarks=1 dropped=0").unwrap();
    assert_eq!(parser.whereabouts(), "");
}

/// Version 9's `@end rerun=`: interrupted samples the harness measured again, beside `preempted=` (kept), read
/// and written back as they came; in a version 8 stream `rerun=` is an unknown field (ignored, 0), and writing a
/// re-run count into a version 8 stream is refused.
#[test]
fn rerun_is_read_from_version_9_and_ignored_before() {
    const V9: &str = "@rho-bench 9\n@target host arch=x86_64 optimized=1\n\
        @clock time clock_gettime unit=ns hz=1000000000 resolution=20\n\
        @clock cpu clock_thread_cputime unit=ns hz=1000000000 resolution=9\n\
        @config iterations=2 warmup=1 time_cap_ms=0 stack_bytes=0\n\
        @bench bench_a\n:40 30\n:35 28\n:36 29\n@stack off\n@heap off\n\
        @end bench_a iterations=2 warmup=1 capped=0 unit=iter per_iteration=1 other_cpu_ns=12 preempted=1 rerun=4\n\
        @done benchmarks=1 dropped=0\n";
    let run = parse_str(V9).unwrap();
    assert_eq!(
        (run.benchmarks[0].preempted, run.benchmarks[0].rerun),
        (1, 4)
    );
    assert_eq!(parse_str(&run_to_string(&run).unwrap()).unwrap(), run);

    let v8 = parse_str(&V9.replace("@rho-bench 9", "@rho-bench 8")).unwrap();
    assert_eq!((v8.benchmarks[0].preempted, v8.benchmarks[0].rerun), (1, 0));
    let mut old = run.clone();
    old.version = 8;
    assert!(
        run_to_string(&old)
            .unwrap_err()
            .to_string()
            .contains("rerun=")
    );
    let bad = V9.replace("rerun=4", "rerun=four");
    assert_eq!(err(&bad).kind(), Some(ErrorKind::BadNumber));
}

/// Version 7's `@clock cpu`: the thread's CPU time, a third sample column beside cycles and time, read and
/// written back as it came; in a version 6 stream the role is refused naming the version that has it, and a
/// cpu clock alone (no wall clock beside it) is refused at `@config`.
#[test]
fn a_cpu_clock_is_a_third_column_from_version_7() {
    const CPU: &str = "@rho-bench 7\n@target host arch=x86_64 optimized=1\n\
        @clock cycles tsc unit=cycle hz=2899912000 resolution=1\n\
        @clock time clock_gettime unit=ns hz=1000000000 resolution=20\n\
        @clock cpu clock_thread_cputime unit=ns hz=1000000000 resolution=9\n\
        @config iterations=2 warmup=1 time_cap_ms=0 stack_bytes=0\n\
        @bench bench_a\n:100 40 30\n:90 35 28\n:91 36 29\n@stack off\n@heap off\n\
        @end bench_a iterations=2 warmup=1 capped=0 unit=iter per_iteration=1 other_cpu_ns=12 preempted=3\n\
        @done benchmarks=1 dropped=0\n";
    let run = parse_str(CPU).unwrap();
    assert_eq!(run.benchmarks[0].other_cpu_ns, Some(12));
    assert_eq!(run.benchmarks[0].preempted, 3);
    let cpu = run.clock_index(ClockRole::Cpu).unwrap();
    assert_eq!(cpu, 2);
    assert_eq!(run.clocks[cpu].name, "clock_thread_cputime");
    assert_eq!(run.benchmarks[0].measured(cpu), &[28, 29]);
    assert_eq!(parse_str(&run_to_string(&run).unwrap()).unwrap(), run);

    let v6 = CPU.replace("@rho-bench 7", "@rho-bench 6");
    let e = err(&v6);
    assert_eq!((e.line(), e.kind()), (5, Some(ErrorKind::Syntax)), "{e}");
    assert!(e.to_string().contains("cpu is version 7"), "{e}");
    let mut old = run.clone();
    old.version = 6;
    assert!(run_to_string(&old).is_err());

    let alone = CPU
        .replace(
            "@clock cycles tsc unit=cycle hz=2899912000 resolution=1\n",
            "",
        )
        .replace(
            "@clock time clock_gettime unit=ns hz=1000000000 resolution=20\n",
            "",
        )
        .replace(":100 40 30\n:90 35 28\n:91 36 29\n", ":30\n:28\n:29\n");
    let e = err(&alone);
    assert_eq!(
        (e.line(), e.kind()),
        (4, Some(ErrorKind::Inconsistent)),
        "{e}"
    );
}

/// A version 9 stream with the machine's yardstick: two clocks, three repetitions.
const YARDSTICK: &str = "@rho-bench 9\n@target host arch=x86_64 optimized=1\n\
    @clock cycles tsc unit=cycle hz=2899912000 resolution=1\n\
    @clock time clock_gettime unit=ns hz=1000000000 resolution=1\n\
    @config iterations=2 warmup=0 time_cap_ms=0 stack_bytes=0\n\
    @yardstick rho1 iterations=1000 repetitions=3\n:4400 1700\n:4410 1710\n:4390 1690\n\
    @bench bench_nop\n:10 4\n:11 4\n@stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
    @end bench_nop iterations=2 warmup=0 capped=0 unit=iter per_iteration=1\n\
    @done benchmarks=1 dropped=0\n";

#[test]
fn a_version_9_yardstick_is_read_by_clock_and_written_back() {
    let run = parse_str(YARDSTICK).unwrap();
    let yardstick = run.yardstick.as_ref().unwrap();
    assert_eq!(yardstick.name, "rho1");
    assert_eq!(yardstick.iterations, 1000);
    assert_eq!(
        yardstick.samples,
        [vec![4400, 4410, 4390], vec![1700, 1710, 1690]]
    );
    assert_eq!(run.benchmarks.len(), 1);
    assert_eq!(parse_str(&run_to_string(&run).unwrap()).unwrap(), run);
}

#[test]
fn a_yardstick_is_refused_where_its_version_or_its_place_does_not_allow_it() {
    let refused = |text: &str| parse_str(text).unwrap_err().to_string();
    // Version 8 has no such record.
    let error = refused(&YARDSTICK.replace("@rho-bench 9", "@rho-bench 8"));
    assert!(
        error.contains("line 6") && error.contains("version 8"),
        "{error}"
    );
    // Two of them; one after a benchmark.
    let twice = YARDSTICK.replace(
        "@bench bench_nop\n",
        "@yardstick rho1 iterations=1000 repetitions=1\n:1 1\n@bench bench_nop\n",
    );
    assert!(refused(&twice).contains("only one @yardstick, already on line 6"));
    let late = YARDSTICK.replace(
        "@done",
        "@yardstick rho2 iterations=1000 repetitions=1\n:1 1\n@done",
    );
    let error = refused(&late.replace(
        "@yardstick rho1 iterations=1000 repetitions=3\n:4400 1700\n:4410 1710\n:4390 1690\n",
        "",
    ));
    assert!(
        error.contains("only between @config and the first @bench"),
        "{error}"
    );
    // Fewer sample lines than repetitions, and a sample with a field missing.
    let error = refused(&YARDSTICK.replace(":4390 1690\n", ""));
    assert!(
        error.contains("the 3 sample line(s) of @yardstick on line 6"),
        "{error}"
    );
    let error = refused(&YARDSTICK.replace(":4410 1710\n", ":4410\n"));
    assert!(
        error.contains("a sample of @yardstick: 2 unsigned number(s)"),
        "{error}"
    );
    // No iterations, no repetitions, and a counted run's.
    let error = refused(&YARDSTICK.replace("iterations=1000", "iterations=0"));
    assert!(error.contains("iterations= at least 1"), "{error}");
    let error = refused(&YARDSTICK.replace("repetitions=3", "repetitions=0"));
    assert!(error.contains("repetitions= 1 to 1000"), "{error}");
    let counted = "@rho-bench 9\n@target host arch=x86_64 optimized=1\n@counter instructions callgrind\n\
        @config iterations=10 warmup=1 time_cap_ms=0 stack_bytes=0\n\
        @yardstick rho1 iterations=1000 repetitions=1\n";
    assert!(refused(counted).contains("no @yardstick in a counted run"));
}
