#!/usr/bin/env bash
# Start two `rho bench --write-baseline` runs at once, for targets alpha and beta of two modules whose
# module.yml name one baseline file (two CI jobs of a matrix), PAIRS times, and count the pairs after which the
# file lacks a target's section, the runs that failed, and what was left beside the file.
#
#   tests/faults/baseline_writers.sh [PAIRS]     # default: 50
#
# RHO (default: target/debug/rho, built first with `cargo build -p rho-cli`) is the binary under test.
# Exit status 0 when no pair lost a section and every run passed, 1 otherwise. Needs bash and sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
pairs=${1:-50}
rho=$(realpath "${RHO:-target/debug/rho}")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in alpha beta; do
  mkdir -p "$work/$target"
  # A canned stream: one benchmark, 100 cycles an iteration, on the module's own target.
  cat >"$work/$target/canned.sh" <<STREAM
cat <<X
@rho-bench 1
@target $target arch=none optimized=1
@clock cycles fake unit=cycle hz=0 resolution=1
@config iterations=3 warmup=0 time_cap_ms=0 stack_bytes=0
@bench bench_canned
:100
:100
:100
@stack off
@heap peak=0 live=0 allocs=0 frees=0 free_errors=0
@end bench_canned iterations=3 warmup=0 capped=0 unit=iter per_iteration=1
@done benchmarks=1 dropped=0
X
STREAM
  printf 'bench:\n  baseline: ../shared/baseline.json\n  suites:\n    - command: sh canned.sh\n' \
    >"$work/$target/module.yml"
done

lost=0 failed=0
for pair in $(seq 1 "$pairs"); do
  rm -f "$work/shared/baseline.json"
  (cd "$work/alpha" && "$rho" bench --write-baseline >/dev/null 2>&1) & alpha=$!
  (cd "$work/beta" && "$rho" bench --write-baseline >/dev/null 2>&1) & beta=$!
  wait "$alpha" || failed=$((failed + 1))
  wait "$beta" || failed=$((failed + 1))
  if ! grep -q '"alpha": {' "$work/shared/baseline.json" || ! grep -q '"beta": {' "$work/shared/baseline.json"; then
    lost=$((lost + 1))
  fi
done
left=$(ls -A "$work/shared" | grep -vx baseline.json | tr '\n' ' ')
echo "baseline writers: $pairs pairs: a section lost in $lost, $failed runs failed, left beside the file: ${left:-nothing}"
[ $((lost + failed)) -eq 0 ] && [ -z "$left" ]
