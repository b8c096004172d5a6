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

# One translation unit compiles the harness's implementation.
printf '#define RHO_BENCH_IMPLEMENTATION\n#include <rho/bench.h>\n' >"$RHO_BENCH_OUT/rho_bench_impl.c"
# Compiler messages go to stderr: stdout is the wire stream.
${CC:-cc} -std=c99 -O2 -Wall -Wextra -I"$RHO_BENCH_INCLUDE" \
    bench/sort_bench.c "$RHO_BENCH_OUT/rho_bench_impl.c" -o "$RHO_BENCH_OUT/sort_bench" 1>&2
exec "$RHO_BENCH_OUT/sort_bench"
