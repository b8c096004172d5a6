//! Real Callgrind dumps of examples/crypto_bench.c's measured loops (gcc -O2 -g, valgrind 3.19, paths
//! shortened to /src/rho and /build): the empty loop of 1000 and 2000 iterations, bench_crc_64 and
//! bench_malloc_free of 10.

use rho_profile::{Overhead, net, parse};

fn dump(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn overhead() -> Overhead {
    let short = parse(&dump("crypto.1")).unwrap();
    let long = parse(&dump("crypto.2")).unwrap();
    Overhead::fit(&short, 1000, &long, 2000)
}

/// The benchmark's net figure as rho-stats computes it from the dumps' totals.
fn benchmark_net(total: f64, n: f64) -> f64 {
    let (short, long) = (14020.0, 28020.0);
    let b = (long - short) / 1000.0;
    let a = short - b * 1000.0;
    (total - a - b * n) / n
}

#[test]
fn the_stack_above_the_loop_is_not_in_the_profile() {
    let profile = parse(&dump("crypto.4")).unwrap();
    let names: Vec<&str> = profile.functions.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "bench_crc_64",
            "rho_bench__count_next",
            "rho_bench__count_turn"
        ]
    );
    assert_eq!(net::root(&profile).as_deref(), Some("bench_crc_64"));
    assert_eq!(profile.functions["bench_crc_64"].inclusive(), 45660);
}

#[test]
fn compressed_names_and_positions_read_the_same_as_plain_ones() {
    assert_eq!(
        parse(&dump("crypto-compressed.4")).unwrap(),
        parse(&dump("crypto.4")).unwrap()
    );
}

#[test]
fn the_harness_nets_out_and_the_root_carries_the_benchmarks_figure() {
    let profile = parse(&dump("crypto.4")).unwrap();
    let rows = overhead().net(&profile, 10);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let crc = &rows[0];
    assert_eq!(crc.name, "bench_crc_64");
    assert_eq!(crc.inclusive_per_iteration, benchmark_net(45660.0, 10.0));
    assert_eq!(crc.inclusive_per_iteration, 4550.0);
    assert_eq!(crc.self_per_iteration, crc.inclusive_per_iteration);
    assert_eq!(crc.file.as_deref(), Some("/src/rho/c/include/rho/bench.h"));
    assert!(crc.calls.is_empty(), "{:?}", crc.calls);
}

#[test]
fn called_functions_keep_their_own_and_inclusive_figures_and_files() {
    let profile = parse(&dump("crypto.6")).unwrap();
    let functions = net::top(overhead().net(&profile, 10), 2, "callgrind");
    let root = &functions.listed[0];
    assert_eq!(root.name, "bench_malloc_free");
    assert_eq!(root.inclusive_per_iteration, benchmark_net(1681.0, 10.0));
    let names: Vec<&str> = functions.listed.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["bench_malloc_free", "free"]);
    let free = &functions.listed[1];
    assert_eq!(free.file.as_deref(), Some("./malloc/./malloc/malloc.c"));
    // The dump's 11 calls of free: its own 240 and _int_free's 640, over 10 iterations.
    assert_eq!(free.self_per_iteration, 24.0);
    assert_eq!(free.inclusive_per_iteration, 88.0);
    assert!(functions.other.functions >= 1);
    assert_eq!(
        root.calls.len(),
        1,
        "calls to functions left out are dropped"
    );
    assert_eq!(root.calls[0].callee, "free");
}
