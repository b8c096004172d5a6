#!/usr/bin/env bash
# Checks the STM32H743ZI port (c/ports/stm32h743zi) without the board:
#   1. the image for the part: examples/crypto_bench.c builds clean (-Werror -pedantic) and links
#      for the part's memories; the vector table is at the start of FLASH (0x08000000) with the
#      initial stack pointer at the top of DTCM and a Thumb reset handler in FLASH; the RTT control
#      block `_SEGGER_RTT` is in DTCM and its ID string is nowhere in the image (a probe scanning
#      RAM finds only the live block); the run command is `probe-rs run --chip STM32H743ZITx`;
#      the sections it fills, against the part's 2 MB of FLASH and 128 kB of DTCM, are printed;
#   2. the same port on QEMU's Cortex-M7 (mps2-an500), its memories moved there
#      (tests/cortex-m/stm32h743zi-on-qemu.ld) and its console on semihosting: the start-up code
#      (VTOR, FPU, DWT unlock, caches, .data/.bss, heap) reaches main, whose status becomes
#      QEMU's; a fault is reported and exits 134; the harness's stream names the target and the
#      64 MHz clock and completes; the MPU guard catches frames that skip past the painted stack.
#   3. the RTT console (the default) on the same emulated M7, with gdb-multiarch on QEMU's gdbstub
#      standing in for the probe (tests/cortex-m/rtt-host.py): a buffer that wraps and fills, the
#      drain before the exit, the exit status, and a whole stream; skipped with a note where
#      gdb-multiarch is missing, unless RHO_REQUIRE_CROSS is set.
# None measures the board: QEMU has no DWT (the stream there says systick) and no caches.
# Usage: tests/cortex-m/check-stm32h743zi.sh   (needs arm-none-eabi-gcc, newlib, qemu-system-arm;
#        gdb-multiarch for part 3)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
port="$repo/c/ports/stm32h743zi"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() { echo "check-stm32h743zi: FAIL: $*" >&2; exit 1; }

build() { # out-dir, suite, make variables...
  local out="$1" suite="$2"
  shift 2
  make -s -f "$port/Makefile" SUITE="$suite" RHO_BENCH_OUT="$out" "$@" >"$work/build.log" 2>&1 \
    || { cat "$work/build.log" >&2; fail "build of $out"; }
}

# 1. the image for the part
build "$work/part" "$repo/examples/crypto_bench.c"
elf="$work/part/bench.elf"
section() { arm-none-eabi-size -A "$elf" | awk -v name="$1" '$1 == name { print $2, $3 }'; }
read -r text_size text_addr < <(section .text)
[ "$text_addr" -eq $((0x08000000)) ] || fail ".text at $text_addr, expected 0x08000000"
# Word 0: the initial stack pointer; word 1: the reset handler (Thumb: odd).
read -r sp reset < <(arm-none-eabi-objdump -s -j .text --start-address=0x08000000 \
  --stop-address=0x08000008 "$elf" | awk '/^ 8000000/ { print $2, $3 }')
le() { echo "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/'; }
[ "$(le "$sp")" = 20020000 ] || fail "initial SP 0x$(le "$sp"), expected the top of DTCM 0x20020000"
reset=$((16#$(le "$reset")))
handler=$((16#$(arm-none-eabi-nm "$elf" | awk '$3 == "Reset_Handler" { print $1 }')))
[ "$reset" -eq $((handler | 1)) ] || fail "reset vector $reset, Reset_Handler at $handler"
[ "$handler" -ge $((0x08000000)) ] && [ "$handler" -lt $((0x08200000)) ] || fail "Reset_Handler not in FLASH"
rtt=$((16#$(arm-none-eabi-nm "$elf" | awk '$3 == "_SEGGER_RTT" { print $1 }')))
[ "$rtt" -ge $((0x20000000)) ] && [ "$rtt" -lt $((0x20020000)) ] || fail "_SEGGER_RTT at $rtt, not in DTCM"
arm-none-eabi-objcopy -O binary "$elf" "$work/part/bench.bin"
! grep -q 'SEGGER RTT' "$work/part/bench.bin" || fail "the RTT ID string is in the image"
run_command="$(make -s -f "$port/Makefile" RHO_BENCH_OUT="$work/part" print-run-command)"
[ "$run_command" = "probe-rs run --chip STM32H743ZITx $elf" ] || fail "run command: $run_command"
read -r data_size _ < <(section .data)
read -r bss_size _ < <(section .bss)
read -r stack_size _ < <(section .stack)
flash=$((text_size + data_size))
dtcm=$((data_size + bss_size + stack_size))
[ "$flash" -le $((2 * 1024 * 1024)) ] && [ "$dtcm" -le $((128 * 1024)) ] || fail "does not fit"
# Console on semihosting and caches off also build for the part.
build "$work/semi" "$repo/examples/crypto_bench.c" CONSOLE=semihosting CACHES=0

# 2. on QEMU's Cortex-M7
qemu_m7() { # elf, stdout file; returns QEMU's status
  local status=0
  timeout 120 qemu-system-arm -M mps2-an500 -display none -serial none -monitor none \
    -icount shift=5 -chardev stdio,id=rho-console \
    -semihosting-config enable=on,target=native,chardev=rho-console -kernel "$1" \
    </dev/null >"$2" 2>"$2.err" || status=$?
  return "$status"
}
on_qemu=(CONSOLE=semihosting MEMORY_LD="$repo/tests/cortex-m/stm32h743zi-on-qemu.ld")
build "$work/hello" "$repo/tests/cortex-m/hello.c" "${on_qemu[@]}" HARNESS_IMPL= \
  EXTRA_CFLAGS="-DHELLO_STATUS=3 -DRHO_PORT_HOST_ALWAYS_THERE"
status=0; qemu_m7 "$work/hello/bench.elf" "$work/hello.out" || status=$?
[ "$status" -eq 3 ] || fail "hello exited $status, expected 3: $(cat "$work/hello.out.err")"
printf 'hello from bench\nmalloc ok\nfpu ok\n' | cmp -s - "$work/hello.out" \
  || fail "hello printed: $(cat "$work/hello.out")"

build "$work/fault" "$repo/tests/cortex-m/hello.c" "${on_qemu[@]}" HARNESS_IMPL= \
  EXTRA_CFLAGS="-DHELLO_FAULT -DRHO_PORT_HOST_ALWAYS_THERE"
status=0; qemu_m7 "$work/fault/bench.elf" "$work/fault.out" || status=$?
[ "$status" -eq 134 ] || fail "fault exited $status, expected 134"
grep -q '^rho-port: fault exception=0x00000003 ' "$work/fault.out" || fail "no fault report"

build "$work/crypto" "$repo/examples/crypto_bench.c" "${on_qemu[@]}" \
  EXTRA_CFLAGS=-DRHO_PORT_HOST_ALWAYS_THERE RHO_BENCH_ITERATIONS=300 RHO_BENCH_WARMUP=10
status=0; qemu_m7 "$work/crypto/bench.elf" "$work/crypto.out" || status=$?
[ "$status" -eq 0 ] || fail "crypto_bench exited $status"
grep -q '^@target stm32h743zi arch=armv7e-m optimized=1' "$work/crypto.out" \
  || fail "target line: $(grep '^@target' "$work/crypto.out")"
# QEMU has no DWT: systick there; on the board the same line says dwt.
grep -q '^@clock cycles systick unit=cycle hz=64000000 ' "$work/crypto.out" \
  || fail "clock line: $(grep '^@clock' "$work/crypto.out")"
grep -q '^@done benchmarks=6 dropped=0$' "$work/crypto.out" || fail "no @done line for 6 benchmarks"

# The suite is sized for a 2048-byte painted region (the port's default is its stack less 8 kB).
build "$work/skip" "$repo/tests/c/skip_frames_suite.c" "${on_qemu[@]}" \
  EXTRA_CFLAGS=-DRHO_PORT_HOST_ALWAYS_THERE RHO_BENCH_ITERATIONS=50 RHO_BENCH_WARMUP=5 \
  RHO_BENCH_STACK_BYTES=2048
status=0; qemu_m7 "$work/skip/bench.elf" "$work/skip.out" || status=$?
[ "$status" -eq 0 ] || fail "skip_frames_suite exited $status"
grep -q ' stack_guard=mpu$' "$work/skip.out" || fail "no stack_guard=mpu"
grep -q '^@end bench_skip_frames .* overran=1$' "$work/skip.out" || fail "the guard did not catch the skip"

# 3. the RTT console on QEMU's Cortex-M7, gdb-multiarch standing in for the probe
# (tests/cortex-m/rtt-host.py: at each stop on rho_port_rtt_wait it reads up-buffer 0 and moves
# RdOff, as probe-rs does while the core runs).
rtt_run() { # elf, file for what the stand-in read; returns QEMU's status
  local sock="$work/gdb.sock" status=0 qemu
  rm -f "$sock"
  timeout 120 qemu-system-arm -M mps2-an500 -display none -serial none -monitor none \
    -icount shift=5 -semihosting-config enable=on,target=native -S \
    -chardev socket,path="$sock",server=on,wait=off,id=gdb0 -gdb chardev:gdb0 -kernel "$1" \
    </dev/null >"$2.qemu" 2>&1 &
  qemu=$!
  for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
  RTT_GDB_SOCKET="$sock" timeout 120 gdb-multiarch -batch -ex "python OUT=\"$2\"" \
    -x "$repo/tests/cortex-m/rtt-host.py" "$1" >"$2.gdb" 2>&1 || true
  wait "$qemu" || status=$?
  return "$status"
}
rtt_note="RTT not checked (no gdb-multiarch)"
if command -v gdb-multiarch >/dev/null 2>&1; then
  # A 16-byte buffer: the 34 bytes of hello.c wrap it and wait for the reader twice.
  build "$work/rtt-hello" "$repo/tests/cortex-m/hello.c" CONSOLE=rtt \
    MEMORY_LD="$repo/tests/cortex-m/stm32h743zi-on-qemu.ld" HARNESS_IMPL= \
    EXTRA_CFLAGS="-DHELLO_STATUS=3 -DRHO_PORT_HOST_ALWAYS_THERE -DRHO_PORT_RTT_BUFFER_BYTES=16"
  status=0; rtt_run "$work/rtt-hello/bench.elf" "$work/rtt-hello.out" || status=$?
  [ "$status" -eq 3 ] || fail "hello over RTT exited $status, expected 3: $(cat "$work/rtt-hello.out.gdb")"
  printf 'hello from bench\nmalloc ok\nfpu ok\n' | cmp -s - "$work/rtt-hello.out" \
    || fail "hello over RTT read: $(cat "$work/rtt-hello.out" 2>/dev/null) ($(tail -n 3 "$work/rtt-hello.out.gdb"))"
  # The whole stream through the default 8 kB buffer.
  build "$work/rtt-crypto" "$repo/examples/crypto_bench.c" CONSOLE=rtt \
    MEMORY_LD="$repo/tests/cortex-m/stm32h743zi-on-qemu.ld" \
    EXTRA_CFLAGS=-DRHO_PORT_HOST_ALWAYS_THERE RHO_BENCH_ITERATIONS=300 RHO_BENCH_WARMUP=10
  status=0; rtt_run "$work/rtt-crypto/bench.elf" "$work/rtt-crypto.out" || status=$?
  [ "$status" -eq 0 ] || fail "crypto_bench over RTT exited $status"
  grep -q '^@target stm32h743zi ' "$work/rtt-crypto.out" || fail "no @target line over RTT"
  grep -q '^@done benchmarks=6 dropped=0$' "$work/rtt-crypto.out" || fail "no @done line over RTT"
  rtt_note="RTT: hello through a 16-byte buffer ($(tail -n 1 "$work/rtt-hello.out.gdb" | sed 's/^rtt-host: //')), crypto_bench's stream whole ($(tail -n 1 "$work/rtt-crypto.out.gdb" | sed 's/^rtt-host: //'))"
elif [ -n "${RHO_REQUIRE_CROSS:-}" ]; then
  fail "gdb-multiarch not installed, and RHO_REQUIRE_CROSS says the RTT check must run"
fi

echo "check-stm32h743zi: ok (image for the part: FLASH $flash bytes of 2097152 (.text $text_size," \
  ".data $data_size), DTCM $dtcm bytes of 131072 (.data, .bss $bss_size, stack $stack_size);" \
  "vectors at 0x08000000, SP 0x20020000, RTT block in DTCM; on QEMU's M7: exit status, console," \
  "fault report, the stream with hz=64000000, the MPU guard; $rtt_note)"
