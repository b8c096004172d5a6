#!/usr/bin/env python3
"""rho against Google Benchmark on the same C kernels, measured alternately in one run.

    python3 benches/compare/compare.py [--rounds N] [--rho PATH]      (from the repository root)

Builds benches/compare/rho_side.c with `rho bench` (-O2, rho's own flags) and gbench_side.cc with
g++ -O2 against libbenchmark (Debian: apt-get install libbenchmark-dev), then runs them one after
the other, N rounds (default 5), so both see the same machine at about the same moments. Per
kernel it prints rho's net median per iteration (time clock) and Google Benchmark's CPU time and
real time per iteration, each the median over the rounds, and rho's ratio to each.

Google Benchmark's real time counts the time its process was descheduled, so on a loaded machine
it runs far above the CPU time; its CPU time is the figure to compare with. On a quiet machine
the two agree. rho's figure is a median of samples, which a descheduled sample does not move.
The figures are wall-clock: they vary from run to run and machine to machine, so this is a
measurement to read, not a test. Exit status 0 unless something failed to build or run.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
KERNELS = ["crc32_64", "crc32_256", "malloc_free_64", "xorshift_step"]
# The agreement issue 10 asks for: within 10%, the xorshift step within 25%.
AIM = {"crc32_64": 0.10, "crc32_256": 0.10, "malloc_free_64": 0.10, "xorshift_step": 0.25}


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")
    return result.stdout


def find_rho(explicit):
    if explicit:
        return explicit
    built = os.path.join(REPO, "target", "release", "rho")
    run(["cargo", "build", "--release", "-q", "-p", "rho-cli"], cwd=REPO)
    return built if os.path.exists(built) else shutil.which("rho")


def rho_round(rho):
    text = run(
        [rho, "bench", "benches/compare/rho_side.c", "--cflags", "-Ibenches/compare", "--json", "-"],
        cwd=REPO,
    )
    figures = {}
    for bench in json.loads(text)["benchmarks"]:
        time = bench["time"]
        figures[bench["name"]] = {
            "ns": time["per_iteration"]["median"],
            "batch": time["batch"],
            "below": time["below_resolution"],
        }
    return figures


def gbench_round(binary):
    text = run([binary, "--benchmark_format=json", "--benchmark_min_time=0.2"])
    figures = {}
    for bench in json.loads(text)["benchmarks"]:
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[bench.get("time_unit", "ns")]
        figures[bench["name"]] = {
            "cpu": bench["cpu_time"] * scale,
            "real": bench["real_time"] * scale,
        }
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rho", help="the rho binary (default: cargo build --release)")
    args = parser.parse_args()

    rho = find_rho(args.rho)
    work = tempfile.mkdtemp(prefix="rho-compare-")
    try:
        gbench = os.path.join(work, "gbench_side")
        run(["g++", "-O2", "-I", HERE, os.path.join(HERE, "gbench_side.cc"), "-o", gbench,
             "-lbenchmark", "-lpthread"])
        rounds = []
        for index in range(args.rounds):
            r = rho_round(rho)
            g = gbench_round(gbench)
            rounds.append((r, g))
            line = "  ".join(
                f"{k} rho {r[k]['ns']:.2f} gb {g[k]['cpu']:.2f}" for k in KERNELS)
            print(f"round {index + 1}: {line}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print()
    print(f"{'kernel':<16}{'rho ns':>10}{'batch':>7}{'gb cpu ns':>11}{'gb real ns':>12}"
          f"{'rho/cpu':>9}{'rho/real':>10}  aim")
    for kernel in KERNELS:
        rho_ns = statistics.median(r[kernel]["ns"] for r, _ in rounds)
        batch = max(r[kernel]["batch"] for r, _ in rounds)
        below = any(r[kernel]["below"] for r, _ in rounds)
        cpu = statistics.median(g[kernel]["cpu"] for _, g in rounds)
        real = statistics.median(g[kernel]["real"] for _, g in rounds)
        ratio = rho_ns / cpu
        within = abs(ratio - 1.0) <= AIM[kernel]
        note = f"within {AIM[kernel]:.0%}" if within else f"OUTSIDE {AIM[kernel]:.0%}"
        if below:
            note += ", rho: below resolution"
        print(f"{kernel:<16}{rho_ns:>10.2f}{batch:>7}{cpu:>11.2f}{real:>12.2f}"
              f"{ratio:>9.3f}{rho_ns / real:>10.3f}  {note}")


if __name__ == "__main__":
    main()
