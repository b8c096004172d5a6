#!/bin/sh
# Builds the suite and runs it with the arguments rho adds (--benchmark_out=FILE, --benchmark_repetitions=N):
# the gbench: suite in module.yml. The binary goes to rho's scratch directory for the suite when there is
# one (RHO_BENCH_OUT), else to a temporary directory removed on exit.
set -e
out=${RHO_BENCH_OUT:-}
if [ -z "$out" ]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
${CXX:-c++} -O2 -o "$out/gbench_example" bench.cc -lbenchmark -lpthread
"$out/gbench_example" --benchmark_min_time=0.05 "$@"
