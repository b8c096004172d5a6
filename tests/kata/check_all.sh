#!/bin/sh
# Build check.c against the reference kernels.c and against every planted slowdown, with the project's C
# warnings as errors, and run each: a slowdown is only a perf fault if it keeps every answer right.
# Exit 0 when all pass; 1 (after trying them all) when any fails to build or disagrees with the naive kernels.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/kata-check.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT INT TERM
cc=${CC:-cc}
failed=0
for kernels in "$here/kernels.c" "$here"/slowdowns/s*.c; do
    name=$(basename "$kernels" .c)
    if ! "$cc" -std=c99 -Wall -Wextra -Werror -pedantic -O2 -I"$here" -o "$out/check_$name" \
        "$here/check.c" "$kernels" -lm; then
        echo "FAIL $name: does not build"
        failed=1
    elif ! "$out/check_$name" >/dev/null; then
        echo "FAIL $name: disagrees with the naive kernels"
        failed=1
    else
        echo "ok   $name"
    fi
done
exit $failed
