#!/bin/sh
# The example project's third suite: not C at all. Any program that prints the wire stream
# (docs/wire-format.md) on its stdout is a suite; module.yml runs this one with
# `- command: sh bench/sort_bench.sh` from the module root.
#
# It measures `sort -n` over 1000 numeric lines, one process start per iteration, with the
# time clock only: `date +%s%N` (GNU date; the wall clock, read as nanoseconds) before and
# after. Reading the clock costs a process start of its own, so the `.overhead` block measures
# two back-to-back reads and rho reports the figures net of it.
#
# It reads the settings rho passes (RHO_BENCH_ITERATIONS_bench_sort_1000_lines, else
# RHO_BENCH_ITERATIONS; RHO_BENCH_WARMUP; RHO_BENCH_SCALE; RHO_BENCH_TIME_CAP_MS) like the C
# harness does. Warm-ups are capped at 3: each one is a whole process start, and three are
# enough to have `sort` and its libraries in the page cache.
set -eu

name=bench_sort_1000_lines
lines=1000

fail() {
    echo "sort_bench.sh: $*" >&2
    exit 2
}

case "$(date +%N)" in
    *[!0-9]* | "") fail "needs a date that prints nanoseconds (GNU date's +%N)" ;;
esac

# A count times the scale, rounded, never below `floor` (as rho/bench.h scales its counts).
scaled() {
    awk -v n="$1" -v s="${RHO_BENCH_SCALE:-1}" -v floor="$2" \
        'BEGIN { v = int(n * s + 0.5); if (v < floor) v = floor; print v }'
}
whole() {
    case "$2" in
        "" | *[!0-9]*) fail "$1 must be a whole number, got '$2'" ;;
    esac
}

iterations=${RHO_BENCH_ITERATIONS_bench_sort_1000_lines:-${RHO_BENCH_ITERATIONS:-20}}
warmup=${RHO_BENCH_WARMUP:-3}
cap_ms=${RHO_BENCH_TIME_CAP_MS:-5000}
whole iterations "$iterations"
whole RHO_BENCH_WARMUP "$warmup"
whole RHO_BENCH_TIME_CAP_MS "$cap_ms"
iterations=$(scaled "$iterations" 1)
if [ "$warmup" -gt 3 ]; then warmup=3; fi
if [ "$warmup" -gt 0 ]; then warmup=$(scaled "$warmup" 1); fi

input=$(mktemp "${TMPDIR:-/tmp}/sort_bench.XXXXXX")
trap 'rm -f "$input"' EXIT
trap 'exit 130' INT TERM
# The same pseudo-random lines on every run (a fixed linear congruential sequence).
awk -v n="$lines" 'BEGIN { x = 12345; for (i = 0; i < n; i++) { x = (x * 1103515245 + 12345) % 2147483648; print x } }' >"$input"

# One block: `run_block NAME ITERATIONS WARMUP UNIT PER_ITERATION COMMAND...`.
run_block() {
    block=$1 count=$2 warm=$3 unit=$4 per=$5
    shift 5
    printf '@bench %s\n' "$block"
    done_count=0 done_warm=0 measured_ns=0 capped=0
    while [ "$done_warm" -lt "$warm" ] || [ "$done_count" -lt "$count" ]; do
        t0=$(date +%s%N)
        "$@"
        t1=$(date +%s%N)
        elapsed=$((t1 - t0))
        printf ':%s\n' "$elapsed"
        if [ "$done_warm" -lt "$warm" ]; then
            done_warm=$((done_warm + 1))
        else
            done_count=$((done_count + 1))
            measured_ns=$((measured_ns + elapsed))
            if [ "$cap_ms" -gt 0 ] && [ "$done_count" -lt "$count" ] &&
                [ "$measured_ns" -ge $((cap_ms * 1000000)) ]; then
                capped=1
                break
            fi
        fi
    done
    printf '@stack off\n'
    printf '@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n'
    printf '@end %s iterations=%s warmup=%s capped=%s unit=%s per_iteration=%s\n' \
        "$block" "$done_count" "$done_warm" "$capped" "$unit" "$per"
}

sort_lines() {
    sort -n "$input" >/dev/null
}
nothing() {
    :
}

printf '@rho-bench 1\n'
# optimized=1: what is measured is the system's own `sort`, a release build.
printf '@target host arch=%s optimized=1 compiler=sh\n' "$(uname -m)"
printf '@clock time date unit=ns hz=1000000000 resolution=1\n'
printf '@config iterations=%s warmup=%s time_cap_ms=%s stack_bytes=0\n' "$iterations" "$warmup" "$cap_ms"
run_block .overhead "$iterations" "$warmup" iter 1 nothing
run_block "$name" "$iterations" "$warmup" line "$lines" sort_lines
printf '@done benchmarks=1 dropped=0\n'
