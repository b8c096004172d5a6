#!/usr/bin/env python3
"""Gives the generated series of crates/rho-stats/tests/changepoint.rs to Apache Otava and prints both tools'
change points side by side.

    python3 -m venv /tmp/otava && /tmp/otava/bin/pip install apache-otava
    cargo run -q -p rho-stats --example change_point_series > /tmp/series.jsonl
    /tmp/otava/bin/python benches/history/otava_compare.py /tmp/series.jsonl

Otava is called as its own analysis calls it: otava.analysis.compute_change_points(series, window_len=50,
max_pvalue=0.001, min_magnitude=0). Exits with a message (status 0) when Otava is not installed.
"""
import json
import sys

try:
    from otava.analysis import compute_change_points
except ImportError:
    print("apache-otava is not installed: pip install apache-otava (skipped)")
    sys.exit(0)


def main(path):
    same = differ = 0
    for text in open(path):
        case = json.loads(text)
        series = case["series"]
        points, _ = compute_change_points(series, window_len=50, max_pvalue=0.001, min_magnitude=0.0)
        otava = [int(p.index) for p in points]
        agree = otava == case["rho"]
        same += agree
        differ += not agree
        magnitudes = ", ".join(f"{p.index}:{p.stats.forward_change_percent():+.1f}%" for p in points)
        print(f"{'same ' if agree else 'DIFF '} {case['name']}: rho {case['rho']}, otava {otava} [{magnitudes}]")
    print(f"{same} series with the same change points, {differ} different")


main(sys.argv[1])
