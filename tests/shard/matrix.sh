#!/usr/bin/env bash
# The closing note's measurement for `--shard` (docs/ci.md, "Measured"): a local matrix of 4 concurrent shares
# (each pinned to a core with taskset where there are enough) over one suite of 200 generated benchmarks in
# instructions mode, merged and compared with the single run: the documents must be equal (exactly), and the
# shares' total CPU time (user + system of each rho and every process under it, from /usr/bin/time) is printed
# against the single run's, as a ratio.
#
#   tests/shard/matrix.sh [ROUNDS [ITERATIONS]]
#   WITH_BASELINE=1 tests/shard/matrix.sh ...   (a baseline recorded and committed first: costed, not listed)
#
# ROUNDS: each benchmark's work per iteration (default 1000 mixes, times 1 to 5); ITERATIONS: counted iterations
# per benchmark (default 1000; `default`: no --iterations, the harness's default). Each share builds the suite
# once, lists it (RHO_BENCH_LIST: nothing runs) and runs its share of that build under Valgrind: that fixed cost
# (the build, Valgrind's start, the footprint of the image), per share, is what the work has to outweigh.
#
# Needs a built rho (RHO=path, default target/release/rho, else target/debug/rho), Valgrind, cc, git, python3.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
rho="${RHO:-}"
if [ -z "$rho" ]; then
  rho="$repo/target/release/rho"
  [ -x "$rho" ] || rho="$repo/target/debug/rho"
fi
rounds="${1:-1000}"
iterations="${2:-1000}"
count=200
shares=4
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

# The suite: bench_001 ... bench_200 (fixed width: no name is a substring of another), each mixing a word
# ROUNDS x (1 + i % 5) times per iteration, so the shares have unequal work to balance.
{
  printf '#include <rho/bench.h>\n#include <stdint.h>\n\n'
  printf 'static uint32_t mix(uint32_t x, unsigned rounds)\n{\n    unsigned i;\n'
  printf '    for (i = 0; i < rounds; i++) {\n        x = (x ^ (x >> 13)) * 2654435761u + i;\n    }\n    return x;\n}\n\n'
  for i in $(seq 1 $count); do
    name=$(printf 'bench_%03d' "$i")
    printf 'static void %s(rho_bench_t *state)\n{\n    uint32_t x = %du;\n' "$name" "$i"
    printf '    RHO_BENCH_LOOP(state) {\n        x = mix(x, %du);\n        RHO_BENCH_KEEP(x);\n    }\n}\n\n' \
      $((rounds * (1 + i % 5)))
  done
  printf 'int main(int argc, char **argv)\n{\n    rho_bench_suite_t suite = {0};\n'
  for i in $(seq 1 $count); do
    printf '    RHO_BENCH_ADD(&suite, bench_%03d);\n' "$i"
  done
  printf '    return rho_bench_main(&suite, argc, argv);\n}\n'
} > gen.c
cat > module.yml <<YML
bench:
  cflags: -DRHO_BENCH_MAX_BENCHMARKS=256
  suites:
    - gen.c
YML
git init -q -b main .
git add gen.c module.yml
git -c user.name=rho -c user.email=rho@rho.invalid -c commit.gpgsign=false commit -q -m suite

# CPU seconds (user + system) of a command and everything it waited for, from /usr/bin/time.
timed() {
  local out="$1"
  shift
  /usr/bin/time -f '%U %S' -o "$out" "$@" >/dev/null 2>"$out.err" || {
    cat "$out.err" >&2
    return 1
  }
}
cpu() { awk '{ print $1 + $2 }' "$1"; }

counted=(--measure instructions --timeout 3600)
[ "$iterations" = default ] || counted+=(--iterations "$iterations")
if [ "${WITH_BASELINE:-0}" = 1 ]; then
  # The shares then take the names and costs from bench/baseline.json (rho-baseline/4 and later name each suite).
  "$rho" bench "${counted[@]}" --write-baseline >/dev/null 2>&1
  git add -f bench/baseline.json
  git -c user.name=rho -c user.email=rho@rho.invalid -c commit.gpgsign=false commit -q -m baseline
fi
timed single.time "$rho" bench "${counted[@]}" --json single.json
cores=$(nproc)
pids=()
for k in $(seq 1 $shares); do
  pin=()
  if [ "$cores" -ge "$shares" ] && command -v taskset >/dev/null 2>&1; then
    pin=(taskset -c $((k - 1)))
  fi
  timed "share$k.time" "${pin[@]}" "$rho" bench "${counted[@]}" --shard "$k/$shares" \
    --json "share$k.json" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
"$rho" bench merge share*.json --json merged.json >/dev/null

python3 - "$count" <<'PY'
import json, sys
single = json.load(open("single.json"))
merged = json.load(open("merged.json"))
names = [b["name"] for s in single["suites"] for b in s["benchmarks"]]
assert len(names) == int(sys.argv[1]), f"{len(names)} benchmarks, expected {sys.argv[1]}"
if merged != single:
    sys.exit("the merged document differs from the single run's")
print(f"merged == single: {len(names)} benchmarks, every figure equal")
PY
single=$(cpu single.time)
total=0
for k in $(seq 1 $shares); do
  own=$(cpu "share$k.time")
  mine=$(python3 -c "import json; d=json.load(open('share$k.json')); print(sum(len(s['benchmarks']) for s in d['suites']))")
  basis=$(python3 -c "import json; print(json.load(open('share$k.json'))['shard']['basis'])")
  echo "share $k/$shares: $mine benchmarks, ${own} s CPU (by $basis)"
  total=$(awk -v a="$total" -v b="$own" 'BEGIN { print a + b }')
done
echo "single run: ${single} s CPU"
echo "shares together: ${total} s CPU"
awk -v t="$total" -v s="$single" 'BEGIN { printf "ratio shares/single: %.3f (%+.1f%%)\n", t / s, (t / s - 1) * 100 }'
