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
repository) and takes, per benchmark, the median of the per-iteration time samples of the wire stream less the
median of the harness's `.overhead` block (the net figure), then the minimum over runs, as the gate does.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
METRICS = ["matmul_ns", "sum_ns", "rmsnorm_ns", "count_below_ns"]
WIRE_NAMES = {
    "bench_matmul": "matmul_ns",
    "bench_sum": "sum_ns",
    "bench_rmsnorm": "rmsnorm_ns",
    "bench_count_below": "count_below_ns",
}


def target_metric(name):
    """The metric a slowdown named sNN_<kernel>_... is planted in."""
    rest = name.split("_", 1)[1]
    for metric in sorted(METRICS, key=len, reverse=True):
        if rest.startswith(metric[: -len("_ns")]):
            return metric
    raise SystemExit("measure: cannot tell which kernel %s slows down" % name)


def recipe(module_yml):
    """The first target's `build:` and `run:` commands of one of the kata's own module.yml files.

    Not a YAML parser: enough of YAML for these two files (plain, quoted and `>-` folded scalars), so that the
    commands timed here are the very ones the gate runs, not a copy that could drift."""
    with open(module_yml) as f:
        lines = f.read().splitlines()
    found = {}
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("- "):
            stripped = stripped[2:]
        for key in ("build", "run"):
            if key in found or not stripped.startswith(key + ":"):
                continue
            value = stripped[len(key) + 1 :].strip()
            if value in (">-", ">"):
                indent = len(line) - len(line.lstrip())
                parts = []
                for more in lines[index + 1 :]:
                    if more.strip() and len(more) - len(more.lstrip()) <= indent:
                        break
                    parts.append(more.strip())
                value = " ".join(p for p in parts if p)
            elif value[:1] in ("'", '"') and value[-1:] == value[:1]:
                value = value[1:-1].replace("''", "'") if value[0] == "'" else value[1:-1]
            found[key] = value
    if set(found) != {"build", "run"}:
        raise SystemExit("measure: no build:/run: target found in " + module_yml)
    return found["build"], found["run"]


def budgets(module_yml):
    """`bench.gate.budget` of one of the kata's module.yml files: {metric: fraction}, `default` included."""
    out = {}
    inside = None
    with open(module_yml) as f:
        for line in f:
            text = line.split("#", 1)[0].rstrip()
            if not text.strip():
                continue
            indent = len(text) - len(text.lstrip())
            if text.strip() == "budget:":
                inside = indent
            elif inside is not None and indent > inside and ":" in text:
                key, value = text.strip().rsplit(":", 1)
                out[key.strip()] = float(value)
            elif inside is not None:
                inside = None
    return out


def budget_of(metric, source, table):
    """The budget the gate applies to a metric (per-iteration ns for wire metrics)."""
    name = metric if source == "json" else "bench_%s.ns" % metric[: -len("_ns")]
    return table.get(name, table.get("default"))


def build(kernels_c, side_dir, source, include):
    """A copy of the kata with kernels_c as its kernels.c, built by the module's own `build:` command, as the
    gate builds a side; returns the (module root, environment) to run it in."""
    src = os.path.join(side_dir, "kata")
    out = os.path.join(side_dir, "out")
    os.makedirs(os.path.join(src, "wire"))
    os.makedirs(out)
    for name in ["kernels.h", "bench_inputs.h", "bench_json.c", "bench_rho.c", "rho_impl.c", "module.yml",
                 os.path.join("wire", "module.yml")]:
        shutil.copyfile(os.path.join(HERE, name), os.path.join(src, name))
    shutil.copyfile(kernels_c, os.path.join(src, "kernels.c"))
    root = src if source == "json" else os.path.join(src, "wire")
    env = dict(os.environ, RHO_BENCH_INCLUDE=include, RHO_BENCH_OUT=out)
    build_cmd, _ = recipe(os.path.join(root, "module.yml"))
    subprocess.run(["sh", "-c", build_cmd], cwd=root, env=env, check=True, timeout=120)
    return root, env


def parse_json_last_line(stdout):
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        raise RuntimeError("no output")
    values = json.loads(lines[-1])
    return {m: float(values[m]) for m in METRICS}


def parse_wire(stdout):
    """Per-iteration net time of each kata benchmark in a rho wire stream, as the gate takes it: the median of
    its measured time samples less the median of the `.overhead` block's (the cost of an empty iteration).

    Only what this script needs of docs/wire-format.md: `@clock ROLE NAME` lines give the order of the fields
    in each `:A [B]` sample line, a benchmark's block runs from `@bench NAME` to `@end NAME ... warmup=W ...`,
    and its first W samples are warm-ups."""
    medians = {}
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
            if current in WIRE_NAMES or current == ".overhead":
                measured = samples[warmup:]
                if not measured:
                    raise RuntimeError("no measured time samples for " + current)
                medians[current] = statistics.median(measured)
            current = None
    missing = [name for name in [".overhead"] + list(WIRE_NAMES) if name not in medians]
    if missing:
        raise RuntimeError("wire stream lacks " + ", ".join(missing))
    return {metric: max(0.0, medians[name] - medians[".overhead"]) for name, metric in WIRE_NAMES.items()}


def run(side, source):
    """One run of a built side through its module's `run:` command; its metrics."""
    root, env = side
    _, run_cmd = recipe(os.path.join(root, "module.yml"))
    proc = subprocess.run(["sh", "-c", run_cmd], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    return parse_json_last_line(proc.stdout) if source == "json" else parse_wire(proc.stdout)


def gate_once(base, head, runs, source):
    """Alternate base and head `runs` times; each side's minimum per metric, and each side's spread."""
    base_runs, head_runs = [], []
    for _ in range(runs):
        base_runs.append(run(base, source))
        head_runs.append(run(head, source))
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
    parser.add_argument("--same-trials", type=int, default=0,
                        help="trials of identical builds (default: --trials); the noise needs more of them")
    parser.add_argument("--only", default="", help="comma-separated prefixes, e.g. s01,s09,same")
    args = parser.parse_args()

    slowdowns = sorted(f[:-2] for f in os.listdir(os.path.join(HERE, "slowdowns")) if f.endswith(".c"))
    candidates = [("same", os.path.join(HERE, "kernels.c"))]
    candidates += [(s, os.path.join(HERE, "slowdowns", s + ".c")) for s in slowdowns]
    if args.only:
        wanted = args.only.split(",")
        candidates = [c for c in candidates if any(c[0].startswith(w) for w in wanted)]

    table = budgets(os.path.join(HERE, "module.yml" if args.source == "json" else os.path.join("wire", "module.yml")))
    with tempfile.TemporaryDirectory(prefix="kata-measure-") as tmp:
        started = time.monotonic()
        base = build(os.path.join(HERE, "kernels.c"), os.path.join(tmp, "base"), args.source, args.include)
        base_build_s = time.monotonic() - started
        rows = []
        noise = None
        noise_gate_s = 0.0
        for name, path in candidates:
            started = time.monotonic()
            head = build(path, os.path.join(tmp, name), args.source, args.include)
            count = (args.same_trials or args.trials) if name == "same" else args.trials
            trials = [gate_once(base, head, args.runs, args.source) for _ in range(count)]
            # One gate's time: both builds and one trial's alternating runs (the mean trial).
            gate_s = base_build_s + (time.monotonic() - started) / count
            if name == "same":
                noise = trials
                noise_gate_s = gate_s
            else:
                metric = target_metric(name)
                ratios = [h[metric] / b[metric] for b, h, _ in trials]
                spread = max(s[metric] for _, _, s in trials)
                budget = budget_of(metric, args.source, table)
                caught = sum(1 for r in ratios if r > 1 + budget)
                # Cross-talk: how far the metrics this slowdown does not touch moved (largest over trials).
                others = max(abs(h[m] / b[m] - 1.0) for b, h, _ in trials for m in METRICS if m != metric)
                rows.append(
                    (
                        name,
                        metric,
                        "%.2fx" % min(ratios),
                        " / ".join("%.2f" % r for r in ratios),
                        "%d of %d" % (caught, len(ratios)),
                        spread,
                        others,
                        gate_s,
                    )
                )
            print("measured %s" % name, file=sys.stderr)

    print(
        "source %s (%s), %d trial(s) of %d alternating run(s) per side, minimum per side"
        % (args.source, "module.yml" if args.source == "json" else "wire/module.yml", args.trials, args.runs)
    )
    print()
    if rows:
        print(
            "| slowdown | metric | smallest ratio (head/base) | every trial | trials over budget "
            "| largest spread of one side's runs | other metrics, largest \\|change\\| | one gate's time |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for name, metric, headline, detail, caught, spread, others, gate_s in rows:
            print(
                "| %s | %s | %s | %s | %s | %.0f%% | %.1f%% | %.1f s |"
                % (name, metric, headline, detail, caught, 100 * spread, 100 * others, gate_s)
            )
        print()
    if noise is not None:
        print(
            "Identical builds (reference as base and head), %d trial(s); one gate's time %.1f s:"
            % (len(noise), noise_gate_s)
        )
        print()
        print("| metric | budget | largest \\|change\\| | median \\|change\\| | trials over budget "
              "| largest spread of one side's runs |")
        print("|---|---|---|---|---|---|")
        for m in METRICS:
            changes = [abs(h[m] / b[m] - 1.0) for b, h, _ in noise]
            budget = budget_of(m, args.source, table)
            print(
                "| %s | %.2f | %.1f%% | %.1f%% | %d of %d | %.0f%% |"
                % (
                    m,
                    budget,
                    100 * max(changes),
                    100 * statistics.median(changes),
                    sum(1 for b, h, _ in noise if h[m] > b[m] * (1 + budget)),
                    len(noise),
                    100 * max(sp[m] for _, _, sp in noise),
                )
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
