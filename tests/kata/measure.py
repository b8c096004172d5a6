#!/usr/bin/env python3
"""Measure how much slower each planted slowdown is than the reference kata, and how far two identical
builds of the reference disagree (the noise a gate's budget must sit above).

It does what `rho bench gate` does, by hand and with the standard library only, so the figures in README.md
come from a command rather than from memory:

    python3 tests/kata/measure.py [--runs 3] [--trials 3] [--source json|wire] [--only s01,s04]

For each slowdown and for a second, identical build of the reference ("same"), every trial builds the
benchmark against the reference (base) and the candidate (head), runs them alternately (base, head, base,
head, ...) `--runs` times, keeps each side's minimum per metric and reports head / base. The table gives, per
candidate, the ratio on the metric the slowdown targets for every trial, and the smallest over trials, which is
the one that matters to a gate. For "same" it gives the largest |head / base - 1| over trials and metrics.

`--source json` times bench_json.c (last stdout line: one JSON object of ns per call). `--source wire` times
bench_rho.c through rho/bench.h (needs `--include DIR` holding rho/bench.h, default c/include of this
repository) and takes, per benchmark, the median of the per-iteration time samples of the wire stream, then
the minimum over runs, as the gate does for wire metrics.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
METRICS = ["matmul_ns", "sum_ns", "rmsnorm_ns", "count_below_ns"]
WIRE_NAMES = {
    "bench_matmul": "matmul_ns",
    "bench_sum": "sum_ns",
    "bench_rmsnorm": "rmsnorm_ns",
    "bench_count_below": "count_below_ns",
}
CFLAGS = ["-std=c99", "-O2"]


def target_metric(name):
    """The metric a slowdown named sNN_<kernel>_... is planted in."""
    rest = name.split("_", 1)[1]
    for metric in sorted(METRICS, key=len, reverse=True):
        if rest.startswith(metric[: -len("_ns")]):
            return metric
    raise SystemExit("measure: cannot tell which kernel %s slows down" % name)


def build(kernels_c, out_dir, source, include):
    """Build the benchmark against kernels_c, as the module.yml recipes do; return the binary's path."""
    os.makedirs(out_dir, exist_ok=True)
    # The candidate is copied next to kernels.h under the name the recipes use, as the gate's sides are.
    src_dir = os.path.join(out_dir, "src")
    os.makedirs(src_dir, exist_ok=True)
    for name in ["kernels.h", "bench_inputs.h", "bench_json.c", "bench_rho.c", "rho_impl.c"]:
        path = os.path.join(HERE, name)
        if os.path.exists(path):
            with open(path) as f, open(os.path.join(src_dir, name), "w") as g:
                g.write(f.read())
    with open(kernels_c) as f, open(os.path.join(src_dir, "kernels.c"), "w") as g:
        g.write(f.read())
    exe = os.path.join(out_dir, "bench")
    if source == "json":
        cmd = ["cc"] + CFLAGS + ["-o", exe, "bench_json.c", "kernels.c", "-lm"]
    else:
        cmd = ["cc"] + CFLAGS + ["-I", include, "-o", exe, "bench_rho.c", "rho_impl.c", "kernels.c", "-lm"]
    subprocess.run(cmd, cwd=src_dir, check=True, timeout=120)
    return exe


def parse_json_last_line(stdout):
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        raise RuntimeError("no output")
    values = json.loads(lines[-1])
    return {m: float(values[m]) for m in METRICS}


def parse_wire(stdout):
    """Median of the per-iteration time samples of each kata benchmark in a rho wire stream (raw, that is with
    the harness's own overhead in it, as the samples are printed).

    Only what this script needs of docs/wire-format.md: `@clock ROLE NAME` lines give the order of the fields
    in each `:A [B]` sample line, a benchmark's block runs from `@bench NAME` to `@end NAME ... warmup=W ...`,
    and its first W samples are warm-ups."""
    out = {}
    clocks = []
    current = None
    samples = []
    for line in stdout.splitlines():
        fields = line.split()
        if not fields:
            continue
        if fields[0] == "@clock" and len(fields) > 1:
            clocks.append(fields[1])
        elif fields[0] == "@bench" and len(fields) > 1:
            current, samples = fields[1], []
        elif current is not None and fields[0].startswith(":"):
            values = [fields[0][1:]] + fields[1:]
            if "time" in clocks and clocks.index("time") < len(values):
                samples.append(float(values[clocks.index("time")]))
        elif fields[0] == "@end" and len(fields) > 1 and fields[1] == current:
            attrs = dict(f.split("=", 1) for f in fields[2:] if "=" in f)
            warmup = int(attrs.get("warmup", "0"))
            if current in WIRE_NAMES:
                measured = samples[warmup:]
                if not measured:
                    raise RuntimeError("no measured time samples for " + current)
                out[WIRE_NAMES[current]] = statistics.median(measured)
            current = None
    missing = [m for m in METRICS if m not in out]
    if missing:
        raise RuntimeError("wire stream lacks " + ", ".join(missing))
    return out


def run(exe, source, env):
    proc = subprocess.run([exe], capture_output=True, text=True, timeout=120, env=env, check=True)
    return parse_json_last_line(proc.stdout) if source == "json" else parse_wire(proc.stdout)


def gate_once(base_exe, head_exe, runs, source, env):
    """Alternate base and head `runs` times; each side's minimum per metric, and each side's spread."""
    base_runs, head_runs = [], []
    for _ in range(runs):
        base_runs.append(run(base_exe, source, env))
        head_runs.append(run(head_exe, source, env))
    base = {m: min(r[m] for r in base_runs) for m in METRICS}
    head = {m: min(r[m] for r in head_runs) for m in METRICS}
    spread = {
        m: max(max(r[m] for r in side) / min(r[m] for r in side) - 1.0 for side in (base_runs, head_runs))
        for m in METRICS
    }
    return base, head, spread


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="alternating runs per side in one trial")
    parser.add_argument("--trials", type=int, default=3, help="independent base-vs-head trials per candidate")
    parser.add_argument("--source", choices=["json", "wire"], default="json")
    parser.add_argument("--include", default=os.path.join(REPO, "c", "include"), help="directory with rho/bench.h")
    parser.add_argument("--iterations", type=int, default=300, help="RHO_BENCH_ITERATIONS for --source wire")
    parser.add_argument("--only", default="", help="comma-separated prefixes, e.g. s01,s09,same")
    args = parser.parse_args()

    slowdowns = sorted(f[:-2] for f in os.listdir(os.path.join(HERE, "slowdowns")) if f.endswith(".c"))
    candidates = [("same", os.path.join(HERE, "kernels.c"))]
    candidates += [(s, os.path.join(HERE, "slowdowns", s + ".c")) for s in slowdowns]
    if args.only:
        wanted = args.only.split(",")
        candidates = [c for c in candidates if any(c[0].startswith(w) for w in wanted)]

    env = dict(os.environ)
    env["RHO_BENCH_ITERATIONS"] = str(args.iterations)

    with tempfile.TemporaryDirectory(prefix="kata-measure-") as tmp:
        base_exe = build(os.path.join(HERE, "kernels.c"), os.path.join(tmp, "base"), args.source, args.include)
        rows = []
        for name, path in candidates:
            head_exe = build(path, os.path.join(tmp, name), args.source, args.include)
            trials = [gate_once(base_exe, head_exe, args.runs, args.source, env) for _ in range(args.trials)]
            if name == "same":
                worst = max(abs(h[m] / b[m] - 1.0) for b, h, _ in trials for m in METRICS)
                per_metric = ", ".join(
                    "%s %s" % (m, "/".join("%+.1f%%" % (100.0 * (h[m] / b[m] - 1.0)) for b, h, _ in trials))
                    for m in METRICS
                )
                spread = max(s[m] for _, _, s in trials for m in METRICS)
                rows.append((name, "all", "largest |change| %.1f%%" % (100 * worst), per_metric, spread))
            else:
                metric = target_metric(name)
                ratios = [h[metric] / b[metric] for b, h, _ in trials]
                spread = max(s[metric] for _, _, s in trials)
                rows.append(
                    (
                        name,
                        metric,
                        "%.2fx" % min(ratios),
                        " / ".join("%.2f" % r for r in ratios),
                        spread,
                    )
                )
            print("measured %s" % name, file=sys.stderr)

    print(
        "source %s, %d trial(s) of %d alternating run(s) per side, min per side; cc %s"
        % (args.source, args.trials, args.runs, " ".join(CFLAGS))
    )
    print()
    print("| candidate | metric | smallest ratio (head/base) | every trial | largest spread of one side's runs |")
    print("|---|---|---|---|---|")
    for name, metric, headline, detail, spread in rows:
        print("| %s | %s | %s | %s | %.0f%% |" % (name, metric, headline, detail, 100 * spread))
    return 0


if __name__ == "__main__":
    sys.exit(main())
