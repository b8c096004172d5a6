#!/bin/sh
# The example project's third suite: a command. rho runs it with `sh -c` in the module root
# and reads the wire stream from its stdout; how it builds and runs is its own business (a
# project's existing build system, a script, another language's harness).
#
# This one builds bench/sort_bench.c against the harness rho hands it, in the build directory
# rho gives it, then replaces itself with the suite, which reads the settings (iterations,
# warm-ups, scale, ...) from the environment rho set:
#   RHO_BENCH_INCLUDE  a directory holding rho/bench.h
#   RHO_BENCH_OUT      a build directory of this suite's own
set -eu

: "${RHO_BENCH_INCLUDE:?run this through rho bench (it sets RHO_BENCH_INCLUDE)}"
: "${RHO_BENCH_OUT:?run this through rho bench (it sets RHO_BENCH_OUT)}"

# RHO_BENCH_OUT is fresh for each rho invocation and kept across its repetitions, so the suite is
# compiled once per invocation, not once per repetition (a compile takes longer than a run).
if [ ! -x "$RHO_BENCH_OUT/sort_bench" ]; then
    # One translation unit compiles the harness's implementation.
    printf '#define RHO_BENCH_IMPLEMENTATION\n#include <rho/bench.h>\n' >"$RHO_BENCH_OUT/rho_bench_impl.c"
    # Compiler messages go to stderr: stdout is the wire stream. Built under a temporary name and
    # renamed, so a failed or interrupted compile never leaves a half-written executable to run.
    ${CC:-cc} -std=c99 -O2 -Wall -Wextra -I"$RHO_BENCH_INCLUDE" \
        bench/sort_bench.c "$RHO_BENCH_OUT/rho_bench_impl.c" -o "$RHO_BENCH_OUT/sort_bench.tmp" 1>&2
    mv "$RHO_BENCH_OUT/sort_bench.tmp" "$RHO_BENCH_OUT/sort_bench"
fi
exec "$RHO_BENCH_OUT/sort_bench"
