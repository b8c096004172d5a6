#!/usr/bin/env python3
"""Issue 26, "Performance": the wall time of `rho bench examples/crypto_bench.c --measure instructions` keeping
each benchmark's functions (the default, 50) against keeping none (`--functions 0`, today's figure alone),
run side by side, alternating, ROUNDS times each; prints each run, both medians and their ratio (must be at
most 1.3).

    python3 benches/functions/ratio.py [RHO] [ROUNDS]     (RHO defaults to target/debug/rho, ROUNDS to 7)
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def wall(rho, functions, out):
    args = [rho, "bench", os.path.join(REPO, "examples", "crypto_bench.c"), "--measure", "instructions",
            "--functions", str(functions), "--json", out]
    start = time.monotonic()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    rho = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "target", "debug", "rho"))
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    kept, none = [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.json")
        for round_ in range(rounds):
            none.append(wall(rho, 0, out))
            kept.append(wall(rho, 50, out))
            print(f"round {round_ + 1}: --functions 0 {none[-1]:.3f} s, --functions 50 {kept[-1]:.3f} s")
    ratio = statistics.median(kept) / statistics.median(none)
    print(f"median: --functions 0 {statistics.median(none):.3f} s, --functions 50 {statistics.median(kept):.3f} s;"
          f" ratio {ratio:.3f}")


if __name__ == "__main__":
    main()
