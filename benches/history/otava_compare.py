#!/usr/bin/env python3
"""Gives the generated series of crates/rho-stats/tests/changepoint.rs to Apache Otava and prints both tools'
change points side by side, then, for the series with planted change points, each tool's recall and false
alarms per kind (a planted change point is recalled by a change point within one index of it, each found one
matched once, the nearest first: tests/series/mod.rs `score`).

    python3 -m venv /tmp/otava && /tmp/otava/bin/pip install apache-otava
    cargo run -q -p rho-stats --example change_point_series > /tmp/series.jsonl
    /tmp/otava/bin/python benches/history/otava_compare.py /tmp/series.jsonl

Otava is called as its own analysis calls it: otava.analysis.compute_change_points(series, window_len=50,
max_pvalue=0.001, min_magnitude=0). Exits with a message (status 0) when Otava is not installed.
"""
import json
import sys
import time

try:
    from otava.analysis import compute_change_points
except ImportError:
    print("apache-otava is not installed: pip install apache-otava (skipped)")
    sys.exit(0)


def score(planted, found):
    used = [False] * len(found)
    recalled = 0
    for p in planted:
        near = [k for k in range(len(found)) if not used[k] and abs(found[k] - p) <= 1]
        if near:
            k = min(near, key=lambda k: abs(found[k] - p))
            used[k] = True
            recalled += 1
    return recalled, used.count(False)


def main(path):
    same = differ = 0
    kinds = {}
    for text in open(path):
        case = json.loads(text)
        series = case["series"]
        began = time.perf_counter()
        points, _ = compute_change_points(series, window_len=50, max_pvalue=0.001, min_magnitude=0.0)
        took = time.perf_counter() - began
        otava = [int(p.index) for p in points]
        agree = otava == case["rho"]
        same += agree
        differ += not agree
        planted = case.get("planted")
        mark = "same " if agree else "DIFF "
        if len(series) > 1_000:
            # A long series: counts and Otava's time, not every index.
            print(f"{mark} {case['name']}: rho {len(case['rho'])} change points, otava {len(otava)} ({took:.2f} s)")
        else:
            magnitudes = ", ".join(f"{p.index}:{p.stats.forward_change_percent():+.1f}%" for p in points)
            shown = f" planted {planted}" if planted is not None else ""
            print(f"{mark} {case['name']}:{shown} rho {case['rho']}, otava {otava} [{magnitudes}]")
        if planted is not None:
            kind = case["name"].rsplit(", seed", 1)[0]
            row = kinds.setdefault(kind, [0, 0, 0, 0, 0])
            row[0] += len(planted)
            for offset, found in ((1, case["rho"]), (3, otava)):
                recalled, false_alarms = score(planted, found)
                row[offset] += recalled
                row[offset + 1] += false_alarms
    print(f"{same} series with the same change points, {differ} different")
    print()
    print("| kind | planted | rho recalled | rho false alarms | Otava recalled | Otava false alarms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    total = [0] * 5
    for kind, row in kinds.items():
        print(f"| {kind} | " + " | ".join(str(v) for v in row) + " |")
        total = [a + b for a, b in zip(total, row)]
    print("| all | " + " | ".join(f"**{v}**" for v in total) + " |")


main(sys.argv[1])
