//! The wire parser under a mutation fuzzer (see tests/fuzz/mutate.rs at the repository's root): every input
//! parses or is refused with an error naming a real line, and never panics. A fixed budget here; raise it
//! with `RHO_FUZZ_ITERATIONS` (README: "Fuzzing").

#[path = "../../../tests/fuzz/mutate.rs"]
mod mutate;

/// A whole stream of two clocks, the overhead, a measured benchmark with a stack figure and one that overran.
const STREAM: &str = "boot banner\n@rho-bench 1\n@target host arch=x86_64 optimized=1 compiler=gcc-12.2.0\n\
@clock cycles tsc unit=cycle hz=2899912000 resolution=1\n\
@clock time clock_gettime unit=ns hz=1000000000 resolution=1\n\
@config iterations=4 warmup=0 time_cap_ms=5000 stack_bytes=65536\n\
@bench .overhead\n:24 31\n:25 30\n:24 31\n:23 29\n@stack 144\n\
@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
@end .overhead iterations=4 warmup=0 capped=0 unit=iter per_iteration=1\n\
@bench bench_crc_64\n:2011 700\n:1987 662\n:2003 690\n:1990 671\nnoise in the middle\n@stack 144\n\
@heap peak=64 live=0 allocs=4 frees=4 free_errors=0\n\
@end bench_crc_64 iterations=4 warmup=0 capped=0 unit=byte per_iteration=64\n\
@bench bench_deep\n:5 2\n:5 2\n:5 2\n:5 2\n@stack overrun\n\
@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
@end bench_deep iterations=4 warmup=0 capped=0 unit=iter per_iteration=1\n\
@done benchmarks=2 dropped=0\n";

/// One clock, no stack measured.
const SMALL: &str = "@rho-bench 1\n@target canned arch=none optimized=1\n\
@clock cycles fake unit=cycle hz=0 resolution=1\n\
@config iterations=3 warmup=0 time_cap_ms=0 stack_bytes=0\n@bench bench_canned\n:7\n:7\n:7\n@stack off\n\
@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
@end bench_canned iterations=3 warmup=0 capped=0 unit=iter per_iteration=1\n@done benchmarks=1 dropped=0\n";

/// Version 6: a heap not measured (`@heap off`) beside one that was.
const HEAP_OFF: &str = "@rho-bench 6\n@target canned arch=none optimized=1\n\
@clock cycles fake unit=cycle hz=0 resolution=1\n\
@config iterations=3 warmup=0 time_cap_ms=0 stack_bytes=0\n@bench bench_off\n:7\n:7\n:7\n@stack off\n\
@heap off\n@end bench_off iterations=3 warmup=0 capped=0 unit=iter per_iteration=1\n\
@bench bench_on\n:7\n:7\n:7\n@heap peak=8 live=0 allocs=1 frees=1 free_errors=0\n@stack off\n\
@end bench_on iterations=3 warmup=0 capped=0 unit=iter per_iteration=1\n@done benchmarks=2 dropped=0\n";

#[test]
fn fuzz_the_wire_parser() {
    let seeds = vec![
        STREAM.as_bytes().to_vec(),
        SMALL.as_bytes().to_vec(),
        HEAP_OFF.as_bytes().to_vec(),
    ];
    // The seeds are whole, valid streams: the mutations start from something the parser accepts.
    for seed in &seeds {
        rho_wire::parse_bytes(seed).unwrap();
    }
    mutate::fuzz("wire parser", &seeds, 20_000, |input| {
        // What is read holds heap figures a harness writes (checked here, not by the parser's own rule).
        match rho_wire::parse_bytes(input) {
            Ok(run) => {
                for heap in run.benchmarks.iter().filter_map(|b| b.heap) {
                    assert!(heap.live <= heap.peak, "{heap:?}");
                    assert!(heap.frees != 0 || heap.live == heap.peak, "{heap:?}");
                    assert!(
                        run.version >= 5 || heap.allocs != 0 || heap.peak == 0,
                        "{heap:?}"
                    );
                }
            }
            Err(error) => {
                let lines = input.split(|b| *b == b'\n').count() as u64;
                let line = error.line();
                assert!(
                    (1..=lines + 1).contains(&line),
                    "error at line {line} of a {lines}-line input: {error}"
                );
                assert!(!error.to_string().is_empty());
            }
        }
    });
}
