#!/bin/sh
# Change points on real timed runs (issue 25, "Done when"): a suite is run 60 times with `rho bench`, its work
# doubled from run 30 on (-DWORK=200 instead of 100), each run added to a scratch repository's history as a
# commit of its own; then 5 series of 60 runs of unchanged code. Prints, per series, the change points
# `rho bench history` finds on the time metrics (cycles, time_ns) of bench_work.
#
#   benches/history/real_runs.sh [RHO] [RUNS]     (RHO defaults to target/release/rho, RUNS to 60)
#
# With OTAVA_PYTHON set to a Python that has apache-otava (pip install apache-otava), each series is also given
# to otava.analysis.compute_change_points (window 50, p 0.001) and its change points printed beside rho's.
#
# Time: about 2 s a run (compile and run), so 6 minutes for the 360 runs on a 2-core machine. Leaves nothing
# behind: everything is in a temporary directory removed at exit.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
rho=${1:-$here/target/release/rho}
runs=${2:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
export GIT_AUTHOR_NAME=rho GIT_AUTHOR_EMAIL=rho@bench.invalid GIT_COMMITTER_NAME=rho GIT_COMMITTER_EMAIL=rho@bench.invalid

cat >"$work/suite.c" <<'C'
#include <rho/bench.h>
#include <stdint.h>

#ifndef WORK
#define WORK 100
#endif

static void bench_work(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        uint32_t sum = 0;
        int i;
        for (i = 0; i < WORK; i++) {
            RHO_BENCH_KEEP(sum);
            sum = sum * 31u + (uint32_t)i;
        }
        RHO_BENCH_KEEP(sum);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_work);
    return rho_bench_main(&suite, argc, argv);
}
C

# series NAME STEP: RUNS runs, WORK doubled from run STEP on (STEP > RUNS: never), each a commit of its own.
series() {
    repo="$work/$1"
    mkdir -p "$repo"
    git -C "$repo" init --quiet --initial-branch=main
    n=0
    while [ "$n" -lt "$runs" ]; do
        if [ "$n" -ge "$2" ]; then w=200; else w=100; fi
        git -C "$repo" commit --quiet --allow-empty -m "run $n (WORK=$w)"
        "$rho" bench "$work/suite.c" --cflags "-DWORK=$w" --iterations 5000 --json "$work/run.json" >/dev/null 2>&1
        (cd "$repo" && "$rho" bench history add "$work/run.json" --machine this-machine >/dev/null)
        n=$((n + 1))
    done
    (cd "$repo" && "$rho" bench history --bench bench_work --json "$work/$1.json" >/dev/null)
    "${OTAVA_PYTHON:-python3}" - "$work/$1.json" "$1" <<'PY'
import json, sys
try:
    from otava.analysis import compute_change_points
except ImportError:
    compute_change_points = None
doc = json.load(open(sys.argv[1]))
for s in doc["series"]:
    if s["metric"] not in ("cycles", "time_ns"):
        continue
    found = ", ".join(
        f"run {c['commit_index']} ({c['change_percent']:+.1f}%, p={c['pvalue']:.1e})" for c in s["change_points"]
    ) or "none"
    line = f"{sys.argv[2]}: {s['metric']}: median {s['median']}, change points: {found}"
    if compute_change_points is not None:
        values = [p["value"] for p in s["points"]]
        points, _ = compute_change_points(values, window_len=50, max_pvalue=0.001, min_magnitude=0.0)
        otava = ", ".join(f"run {int(p.index)} ({p.stats.forward_change_percent():+.1f}%)" for p in points) or "none"
        line += f"; otava: {otava}"
    print(line)
PY
}

series stepped 30
for k in 1 2 3 4 5; do
    series "flat$k" 99999
done
