#!/usr/bin/env bash
# Checks the MPS2 AN386 port itself under QEMU, without the rho host tool:
#   1. main's return value becomes QEMU's exit status, and the semihosting console reaches
#      QEMU's stdout (with malloc and the FPU working on the way);
#   2. a fault is reported on the console and exits with status 134, not a hang;
#   3. the harness on the board: examples/crypto_bench.c builds clean (-Werror -pedantic),
#      its stream names the systick clock, two runs under -icount are byte-identical, the
#      malloc/free pair's heap peak is one slot with nothing live;
#   4. the stack mark: a recursion of known depth reports at least that depth, an overrun
#      reports `overrun`;
#   5. the stack guard: frames that skip bytes past the region read `overrun` and the suite goes
#      on; a fault that is not the guard's, in a benchmark, still reaches the port's report.
# Figures that need a statistic (the CRC-256/CRC-64 median ratio) are the host tool's to check:
# crates/rho-cli/tests/cortex_m.rs runs `rho bench --target mps2-an386` and checks them.
# Usage: tests/cortex-m/check-port.sh   (needs arm-none-eabi-gcc, newlib, qemu-system-arm)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
port="$repo/c/ports"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() { echo "check-port: FAIL: $*" >&2; exit 1; }

# Run an ELF under QEMU the way the README says; prints stdout to $2, returns QEMU's status.
run_elf() {
  local status=0
  timeout 120 make -s -f "$port/Makefile" print-run-command RHO_BENCH_OUT="$1" >"$work/cmd" \
    || fail "cannot get the run command"
  # shellcheck disable=SC2046
  timeout 120 $(cat "$work/cmd") <"/dev/null" >"$2" 2>"$2.err" || status=$?
  return "$status"
}

build() { # out-dir, extra cflags [, suite, more make variables...]
  local out="$1" cflags="$2" suite="${3:-$repo/tests/cortex-m/hello.c}"
  shift 3 2>/dev/null || shift $#
  make -s -f "$port/Makefile" SUITE="$suite" RHO_BENCH_OUT="$out" EXTRA_CFLAGS="$cflags" "$@" \
    >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; fail "build of $out"; }
}

# The `@stack` value of benchmark $2 in stream $1.
stack_of() {
  awk -v name="$2" '$1 == "@bench" { current = $2 } $1 == "@stack" && current == name { print $2 }' "$1"
}

# 1. exit status and console
build "$work/hello" "-DHELLO_STATUS=3"
status=0; run_elf "$work/hello" "$work/hello.out" || status=$?
[ "$status" -eq 3 ] || fail "hello exited $status, expected 3 (stderr: $(cat "$work/hello.out.err"))"
printf 'hello from bench\nmalloc ok\nfpu ok\n' | cmp -s - "$work/hello.out" \
  || fail "hello printed: $(cat "$work/hello.out")"

build "$work/hello0" "-DHELLO_STATUS=0"
status=0; run_elf "$work/hello0" "$work/hello0.out" || status=$?
[ "$status" -eq 0 ] || fail "hello exited $status, expected 0"

# 2. a fault is an error, not a hang
build "$work/fault" "-DHELLO_FAULT"
status=0; run_elf "$work/fault" "$work/fault.out" || status=$?
[ "$status" -eq 134 ] || fail "fault exited $status, expected 134"
grep -q '^rho-port: fault exception=0x00000003 ' "$work/fault.out" \
  || fail "no fault report: $(cat "$work/fault.out")"

# 3. the harness on the board
build "$work/crypto" "" "$repo/examples/crypto_bench.c"
for run in 1 2; do
  status=0; run_elf "$work/crypto" "$work/crypto.$run" || status=$?
  [ "$status" -eq 0 ] || fail "crypto_bench run $run exited $status: $(tail -n 3 "$work/crypto.$run.err")"
done
cmp -s "$work/crypto.1" "$work/crypto.2" || fail "two runs under -icount differ"
grep -q '^@target mps2-an386 arch=armv7e-m optimized=1' "$work/crypto.1" \
  || fail "target line: $(grep '^@target' "$work/crypto.1")"
grep -q '^@clock cycles systick unit=cycle hz=25000000 ' "$work/crypto.1" \
  || fail "no systick clock line: $(grep '^@clock' "$work/crypto.1")"
grep -q '^@done benchmarks=6 dropped=0$' "$work/crypto.1" || fail "no @done line for 6 benchmarks"
heap="$(awk '$1 == "@bench" { current = $2 } $1 == "@heap" && current == "bench_malloc_free"' "$work/crypto.1")"
# One 64-byte slot at a time (SLOT_BYTES in the example), every allocation freed.
echo "$heap" | grep -Eq '^@heap peak=64 live=0 allocs=([1-9][0-9]*) frees=\1 free_errors=0$' \
  || fail "malloc/free heap line: $heap"

# 4. the stack mark, with a painted region larger than the known depth (8192 bytes)
build "$work/stack" "" "$repo/tests/c/stack_suite.c" RHO_BENCH_STACK_BYTES=16384 \
  RHO_BENCH_ITERATIONS=100 RHO_BENCH_WARMUP=10
status=0; run_elf "$work/stack" "$work/stack.out" || status=$?
[ "$status" -eq 0 ] || fail "stack_suite exited $status"
known="$(stack_of "$work/stack.out" bench_recurse_known)"
[ -n "$known" ] && [ "$known" != overrun ] && [ "$known" -ge 8192 ] \
  || fail "bench_recurse_known @stack '$known', expected a number of at least 8192"
[ "$(stack_of "$work/stack.out" bench_stack_overrun)" = overrun ] \
  || fail "bench_stack_overrun @stack '$(stack_of "$work/stack.out" bench_stack_overrun)', expected overrun"

# 5. the MPU stack guard
# The suite is sized for a 2048-byte painted region (the board's default is its stack less 8 kB).
build "$work/skip" "" "$repo/tests/c/skip_frames_suite.c" RHO_BENCH_ITERATIONS=50 RHO_BENCH_WARMUP=5 \
  RHO_BENCH_STACK_BYTES=2048
status=0; run_elf "$work/skip" "$work/skip.out" || status=$?
[ "$status" -eq 0 ] || fail "skip_frames_suite exited $status"
grep -q ' stack_guard=mpu$' "$work/skip.out" || fail "no stack_guard=mpu: $(grep '^@config' "$work/skip.out")"
[ "$(stack_of "$work/skip.out" bench_skip_frames)" = overrun ] \
  || fail "bench_skip_frames @stack '$(stack_of "$work/skip.out" bench_skip_frames)', expected overrun"
grep -q '^@end bench_skip_frames .* overran=1$' "$work/skip.out" || fail "no overran=1"
after="$(stack_of "$work/skip.out" bench_shallow_after)"
[ -n "$after" ] && [ "$after" != overrun ] || fail "bench_shallow_after @stack '$after'"
build "$work/trap" "" "$repo/tests/cortex-m/trap_suite.c" RHO_BENCH_ITERATIONS=50 RHO_BENCH_WARMUP=5
status=0; run_elf "$work/trap" "$work/trap.out" || status=$?
[ "$status" -eq 134 ] || fail "trap_suite exited $status, expected 134"
grep -q '^rho-port: fault exception=0x00000003 ' "$work/trap.out" \
  || fail "no port fault report for a fault outside the guard: $(tail -n 2 "$work/trap.out")"

echo "check-port: ok (exit status, console, malloc, FPU, fault report; harness: systick clock," \
  "identical runs, $heap; stack: known depth $known >= 8192, overrun reported; guard: skipped" \
  "frames overran, $after after it, other faults to the port)"
