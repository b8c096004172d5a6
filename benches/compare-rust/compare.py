#!/usr/bin/env python3
"""rho-bench against criterion on the same Rust functions, measured alternately in one run.

    python3 benches/compare-rust/compare.py [--rounds N] [--rho PATH]     (from the repository root)

The functions are in src/lib.rs; benches/rho_side.rs measures them with rho-bench, benches/criterion_side.rs
with criterion (its default settings: 3 s warm-up, 100 samples over 5 s per function). Both are built once
(`cargo bench --no-run`, the bench profile), then run one after the other, N rounds (default 3), so both see
the same machine at about the same moments. The rho side runs through `rho bench --json` (module.yml's
`cargo: rho_side`): its figure is the net median time per iteration; criterion's is the median of its
estimates.json (per iteration), measured twice: with the thread's CPU time (a criterion Measurement of
CLOCK_THREAD_CPUTIME_ID) and with its default wall clock. Per function it prints them, each the median over
the rounds, and rho's ratio to each; then the wall time of each side's run (the whole suite, per round).
criterion's samples last milliseconds each, so on a machine with more runnable processes than cores its
wall-clock figure includes the time the process waited for a core; its CPU-time figure does not, and rho's
median of short samples mostly does not either: the CPU-time figure is the one to compare with there. The figures are wall-clock: they
vary from run to run and machine to machine, so this is a measurement to read, not a test. Exit status 0
unless something failed to build or run.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FUNCTIONS = ["sum_1k", "sum_4k", "crc32_256", "alloc_1000", "xorshift_step"]
AIM = 0.05  # the issue's: medians within 5%


def run(command, env=None, cwd=HERE):
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr[-4000:]}")
    return result.stdout


def executable(messages, name):
    for line in messages.splitlines():
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue
        target = message.get("target", {})
        if message.get("reason") == "compiler-artifact" and target.get("name") == name \
                and "bench" in target.get("kind", []) and message.get("executable"):
            return message["executable"]
    sys.exit(f"cargo named no executable for {name}")


def rho_round(rho, scratch):
    out = os.path.join(scratch, "rho.json")
    start = time.monotonic()
    run([rho, "bench", "--json", out])
    wall = time.monotonic() - start
    with open(out) as f:
        document = json.load(f)
    figures = {}
    for bench in document["suites"][0]["benchmarks"]:
        figures[bench["name"]] = bench["time"]["per_iteration"]["median"]
    return figures, wall


def criterion_round(binary, scratch):
    home = os.path.join(scratch, "criterion")
    env = dict(os.environ, CRITERION_HOME=home)
    start = time.monotonic()
    run([binary, "--bench"], env=env)
    wall = time.monotonic() - start
    figures = {}
    for name in FUNCTIONS:
        for key in (name, "cpu_" + name):
            with open(os.path.join(home, key, "new", "estimates.json")) as f:
                figures[key] = json.load(f)["median"]["point_estimate"]
    return figures, wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rho", help="the rho binary (default: built from this checkout, --release)")
    args = parser.parse_args()
    rho = os.path.abspath(args.rho) if args.rho else None
    if rho is None:
        run(["cargo", "build", "--release", "-q", "-p", "rho-cli"], cwd=REPO)
        rho = os.path.join(REPO, "target", "release", "rho")
    messages = run(["cargo", "bench", "--no-run", "--message-format=json-render-diagnostics"])
    criterion = executable(messages, "criterion_side")

    rho_figures = {name: [] for name in FUNCTIONS}
    criterion_figures = {key: [] for name in FUNCTIONS for key in (name, "cpu_" + name)}
    walls = {"rho-bench": [], "criterion": []}
    with tempfile.TemporaryDirectory() as scratch:
        for round_number in range(args.rounds):
            for side in ("rho-bench", "criterion"):
                if side == "rho-bench":
                    figures, wall = rho_round(rho, scratch)
                    target = rho_figures
                else:
                    figures, wall = criterion_round(criterion, scratch)
                    target = criterion_figures
                walls[side].append(wall)
                for key in target:
                    target[key].append(figures[key])
            print(f"round {round_number + 1} of {args.rounds} done", file=sys.stderr)

    print(f"{'function':<14} {'rho-bench ns':>13} {'criterion cpu':>14} {'ratio':>7}  within 5%"
          f"  {'criterion wall':>15} {'ratio':>7}")
    for name in FUNCTIONS:
        r = statistics.median(rho_figures[name])
        cpu = statistics.median(criterion_figures["cpu_" + name])
        wall = statistics.median(criterion_figures[name])
        ok = "yes" if abs(r / cpu - 1) <= AIM else "no"
        print(f"{name:<14} {r:>13.2f} {cpu:>14.2f} {r / cpu:>7.3f}  {ok:>9}  {wall:>15.2f} {r / wall:>7.3f}")
    print()
    for side, times in walls.items():
        listed = ", ".join(f"{t:.1f}" for t in times)
        print(f"wall time per suite, {side:<10} median {statistics.median(times):6.1f} s  (rounds: {listed})")


if __name__ == "__main__":
    main()
