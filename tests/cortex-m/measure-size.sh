#!/usr/bin/env bash
# The harness's own cost on a core at -Os (issue 6 part 5; every core since issue 14), with the
# board's `size`: a built-in board (c/ports/boards/<board>.mk, built by c/ports/Makefile), or a
# port of its own with a Makefile of the same inputs (`measure-size.sh stm32h743zi`: c/ports/
# stm32h743zi/Makefile, the Cortex-M7 of the NUCLEO-H743ZI).
#
# Two programs built by the port with the same flags:
#   no_harness.c   the port alone (start-up, semihosting, newlib's exit), main returns 0;
#   empty_suite.c  the same with the harness linked and a suite of no benchmarks (the
#                  `.overhead` calibration still runs the whole measurement path).
# Their difference is what the harness adds to a firmware. It is split into code (the
# instructions) and read-only data (the stream's record text and the misuse messages) from
# the harness's object, and static RAM (.data + .bss) less the suite's list. The harness's object
# is measured twice: as built (with the MPU stack guard, on by default on ARMv7-M) and with
# -DRHO_BENCH_NO_STACK_GUARD, so the guard's own cost shows (the same figure twice on a core
# without a guard).
# Usage: tests/cortex-m/measure-size.sh [BOARD]   (default mps2-an386: c/ports/boards/*.mk, or a
#        directory of c/ports with its own Makefile)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
board="${1:-mps2-an386}"
# A value of `make` variable $1 as file $2 sets it (`NAME ?= value` or `NAME := value`).
make_value() { awk -v key="$1" '$1 == key && ($2 == "?=" || $2 == ":=") { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' "$2"; }
if [ -f "$repo/c/ports/boards/$board.mk" ]; then
  port="$repo/c/ports"
  data="$port/boards/$board.mk"
  board_arg="BOARD=$board"
elif [ -f "$repo/c/ports/$board/Makefile" ]; then
  port="$repo/c/ports/$board"
  data="$port/Makefile"
  board_arg=""
else
  echo "measure-size: no board $board (no c/ports/boards/$board.mk, no c/ports/$board/Makefile)" >&2
  exit 2
fi
cross="$(make_value CROSS "$data")"
arch_flags="$(make_value ARCH_FLAGS "$data")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

make -s -f "$port/Makefile" $board_arg SUITE="$repo/tests/cortex-m/no_harness.c" HARNESS_IMPL= \
  RHO_BENCH_OUT="$work/none" EXTRA_CFLAGS=-save-temps=obj
make -s -f "$port/Makefile" $board_arg SUITE="$repo/tests/cortex-m/empty_suite.c" \
  RHO_BENCH_OUT="$work/empty" EXTRA_CFLAGS=-save-temps=obj
make -s -f "$port/Makefile" $board_arg SUITE="$repo/tests/cortex-m/empty_suite.c" \
  RHO_BENCH_OUT="$work/noguard" EXTRA_CFLAGS="-save-temps=obj -DRHO_BENCH_NO_STACK_GUARD"

# Berkeley totals: text (code + read-only data), data, bss.
read -r none_text none_data none_bss _ < <("${cross}size" "$work/none/bench.elf" | tail -n 1)
read -r empty_text empty_data empty_bss _ < <("${cross}size" "$work/empty/bench.elf" | tail -n 1)
# The heap section is NOLOAD and fills the rest of RAM, so take .bss itself, not Berkeley bss.
section() { "${cross}size" -A "$1" | awk -v name="$2" '$1 == name { print $2 }'; }
none_bss="$(section "$work/none/bench.elf" .bss)"
empty_bss="$(section "$work/empty/bench.elf" .bss)"
suite_bytes="$("${cross}nm" -S -t d "$work/empty/bench.elf" | awk '$4 ~ /^suite/ { print $2 + 0 }')"

# The harness's object: the port compiles its own files (the harness's implementation among them)
# each to an object in the build directory.
object_sizes() { # code, read-only data and static RAM of the harness's object in build dir $1
  "${cross}size" -A "$(ls "$1"/*rho_bench_impl*.o)" | awk '
    $1 ~ /^\.text/ { code += $2 } $1 ~ /^\.s?rodata/ { ro += $2 } $1 ~ /^\.s?(data|bss)/ { ram += $2 }
    END { print code + 0, ro + 0, ram + 0 }'
}
read -r impl_code impl_rodata impl_ram < <(object_sizes "$work/empty")
read -r bare_code bare_rodata bare_ram < <(object_sizes "$work/noguard")

echo "board $board, flags: -std=c99 -Os $arch_flags -ffunction-sections -Wl,--gc-sections ($("${cross}gcc" -dumpversion))"
echo "port alone (no_harness.c):        text $none_text  data $none_data  .bss $none_bss"
echo "port + harness (empty_suite.c):   text $empty_text  data $empty_data  .bss $empty_bss"
echo "harness, total flash:             $((empty_text - none_text)) bytes (code + read-only data + the suite's main)"
echo "harness object rho_bench_impl.o:  code $impl_code bytes, read-only data $impl_rodata bytes, static RAM $impl_ram bytes"
echo "without the stack guard:          code $bare_code bytes, read-only data $bare_rodata bytes, static RAM $bare_ram bytes (-DRHO_BENCH_NO_STACK_GUARD)"
echo "static RAM added:                 $((empty_data + empty_bss - none_data - none_bss)) bytes, of which the suite's list $suite_bytes bytes -> harness $((empty_data + empty_bss - none_data - none_bss - suite_bytes)) bytes"
echo "stack: RHO_BENCH_STACK_BYTES painted below the stack pointer (default 2048), not static"
