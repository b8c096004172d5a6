//! Benchmark families end to end through the real binary: the growth example's members are reported as
//! `name/arg` in registration order, each family's figures are fitted against the argument, and a growth
//! budget fails `check` naming the family.

mod common;

use std::time::Duration;

use common::*;

const LIMIT: Duration = Duration::from_secs(600);

const MEMBERS: [&str; 12] = [
    "sum/256",
    "sum/1024",
    "sum/4096",
    "sum/16384",
    "pairwise/16",
    "pairwise/32",
    "pairwise/64",
    "pairwise/128",
    "dup/256",
    "dup/512",
    "dup/1024",
    "dup/2048",
];

#[test]
fn members_are_reported_as_name_slash_arg_in_registration_order() {
    let (_outcome, document) = rho_json(
        &["bench", "examples/growth_bench.c", "--iterations", "50"],
        LIMIT,
    );
    assert_eq!(bench_names(&document), MEMBERS);
    // RHO_BENCH_ARG reached the body: the copy's heap peak is its argument.
    for (name, bytes) in [("dup/256", 256), ("dup/2048", 2048)] {
        assert_eq!(u64_at(bench(&document, name), "/heap/peak"), bytes);
    }
}

#[test]
fn a_filter_term_picks_one_member() {
    let (_outcome, document) = rho_json(
        &[
            "bench",
            "examples/growth_bench.c",
            "--iterations",
            "20",
            "--filter",
            "sum/1024,pairwise/1",
        ],
        LIMIT,
    );
    assert_eq!(
        bench_names(&document),
        ["sum/1024", "pairwise/16", "pairwise/128"]
    );
}

#[test]
fn a_range_that_cannot_be_walked_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = write_c(
        tmp.path(),
        "bad_range.c",
        "#include <rho/bench.h>\n\
         static void grow(rho_bench_t *state) { RHO_BENCH_LOOP(state) { RHO_BENCH_KEEP(RHO_BENCH_ARG(state)); } }\n\
         int main(int argc, char **argv) {\n\
             rho_bench_suite_t suite = {0};\n\
             RHO_BENCH_ADD_RANGE(&suite, grow, 64, 8, 2);\n\
             return rho_bench_main(&suite, argc, argv);\n\
         }\n",
    );
    let outcome = rho_in(tmp.path(), &["bench", suite.to_str().unwrap()], LIMIT);
    outcome.assert_exit(2);
    outcome.assert_stderr_has(
        "rho: grow: RHO_BENCH_ADD_RANGE: expected lo <= hi and a multiplier >= 2",
    );
}

#[test]
fn a_range_ends_at_its_upper_bound_and_arguments_are_64_bits() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = write_c(
        tmp.path(),
        "ranges.c",
        "#include <rho/bench.h>\n\
         static void grow(rho_bench_t *state) { RHO_BENCH_LOOP(state) { RHO_BENCH_KEEP(RHO_BENCH_ARG(state)); } }\n\
         int main(int argc, char **argv) {\n\
             rho_bench_suite_t suite = {0};\n\
             RHO_BENCH_ADD_RANGE(&suite, grow, 0, 20, 3);\n\
             RHO_BENCH_ADD_ARG(&suite, grow, UINT64_MAX);\n\
             return rho_bench_main(&suite, argc, argv);\n\
         }\n",
    );
    let (_outcome, document) = rho_json(
        &["bench", suite.to_str().unwrap(), "--iterations", "5"],
        LIMIT,
    );
    assert_eq!(
        bench_names(&document),
        [
            "grow/0",
            "grow/1",
            "grow/3",
            "grow/9",
            "grow/20",
            "grow/18446744073709551615"
        ]
    );
}
