#!/usr/bin/env bash
# Checks the MPS2 AN386 port itself under QEMU, without the rho host tool:
#   1. main's return value becomes QEMU's exit status, and the semihosting console reaches
#      QEMU's stdout (with malloc and the FPU working on the way);
#   2. a fault is reported on the console and exits with status 134, not a hang.
# Usage: tests/cortex-m/check-port.sh   (needs arm-none-eabi-gcc, newlib, qemu-system-arm)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
port="$repo/c/ports/mps2-an386"
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

build() { # out-dir, extra cflags
  make -s -f "$port/Makefile" SUITE="$repo/tests/cortex-m/hello.c" RHO_BENCH_OUT="$1" \
    EXTRA_CFLAGS="$2" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; fail "build of $1"; }
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

echo "check-port: ok (exit status, console, malloc, FPU, fault report)"
