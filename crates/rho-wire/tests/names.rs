//! Benchmark names on the wire (version 8): any UTF-8 text without control characters, `%XX`-escaped where a
//! record's field cannot hold a byte as it is; older streams read as they always were.

use rho_wire::{ErrorKind, parse_str, run_to_string};

fn stream(version: u32, benches: &[(&str, &str)]) -> String {
    let mut text = format!(
        "@rho-bench {version}\n@target host arch=x86_64 optimized=1\n\
         @clock cycles tsc unit=cycle hz=0 resolution=1\n\
         @config iterations=2 warmup=0 time_cap_ms=0 stack_bytes=0\n"
    );
    for (name, end) in benches {
        text.push_str(&format!(
            "@bench {name}\n:10\n:12\n@stack off\n\
             @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
             @end {end} iterations=2 warmup=0 capped=0 unit=iter per_iteration=1\n"
        ));
    }
    text.push_str(&format!("@done benchmarks={} dropped=0\n", benches.len()));
    text
}

/// spdlog's pattern benchmarks and their neighbours: before version 8 each of the first two was squeezed into
/// `BM_format___`, one name for two benchmarks.
const NAMES: [&str; 5] = [
    "BM_format/%@",
    "BM_format/%%",
    "BM_log/\"quoted\"",
    "BM_log/with space",
    "BM_ünïcode/日本語",
];

#[test]
fn escaped_names_read_as_written_and_write_back_to_the_same_stream() {
    let escaped: Vec<String> = NAMES
        .iter()
        .map(|n| rho_wire::name::escape(n).into_owned())
        .collect();
    let pairs: Vec<(&str, &str)> = escaped.iter().map(|e| (e.as_str(), e.as_str())).collect();
    let text = stream(8, &pairs);
    assert!(text.contains("@bench BM_format/%25@\n"), "{text}");
    assert!(text.contains("@bench BM_log/with%20space\n"), "{text}");
    let run = parse_str(&text).unwrap();
    let names: Vec<&str> = run.benchmarks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, NAMES);
    assert!(run.benchmarks.iter().all(|b| b.family.is_none()));
    assert_eq!(run_to_string(&run).unwrap(), text);
}

#[test]
fn two_escapes_of_one_name_are_one_benchmark_twice() {
    // `%41` is `A`: the parser compares names, not their spellings.
    let text = stream(8, &[("BM_A", "BM_A"), ("BM_%41", "BM_%41")]);
    let error = parse_str(&text).unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::Duplicate), "{error}");
    // `@end` may spell its name another way: it is the same name.
    let run = parse_str(&stream(8, &[("BM%20x", "BM%20%78")])).unwrap();
    assert_eq!(run.benchmarks[0].name, "BM x");
}

#[test]
fn what_no_name_can_be_is_refused_naming_the_line() {
    for (name, why) in [
        ("BM%1B[31m", "U+001B"),
        ("BM%0Ax", "U+000A"),
        ("BM%2", "a % not followed by two hex digits"),
        ("BM%FF", "not UTF-8"),
    ] {
        let error = parse_str(&stream(8, &[(name, name)])).unwrap_err();
        assert_eq!(error.kind(), Some(ErrorKind::Syntax), "{error}");
        let text = error.to_string();
        assert!(text.starts_with("line 5:") && text.contains(why), "{text}");
    }
}

#[test]
fn an_older_stream_keeps_its_charset_and_a_writer_its_runs_version() {
    // No version before 8 had a `%` or a space in a name: such a stream was refused and still is.
    let error = parse_str(&stream(6, &[("BM_%41", "BM_%41")])).unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::Syntax), "{error}");
    // A run of version 6 whose name needs an escape cannot be written as version 6.
    let mut run = parse_str(&stream(8, &[("BM%20x", "BM%20x")])).unwrap();
    run.version = 6;
    assert!(run_to_string(&run).is_err());
    // A name with a `/` and no family is a version 8 name only.
    let run = parse_str(&stream(8, &[("BM/x", "BM/x")])).unwrap();
    assert_eq!(run.benchmarks[0].name, "BM/x");
    assert!(parse_str(&stream(6, &[("BM/x", "BM/x")])).is_err());
}
