#!/usr/bin/env python3
"""Issue 26, "Done when": the kata gate counting instructions, for each of its ten planted slowdowns, and the
functions it names under the regressed benchmark. Prints, per slowdown, the regressed benchmark's change and
the first changed function's own and inclusive change (instructions per iteration).

    python3 benches/functions/kata.py [RHO]     (RHO defaults to target/debug/rho)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KATA = os.path.join(REPO, "tests", "kata")


def gate(rho, tmp, slowdown):
    base, head = os.path.join(tmp, "base"), os.path.join(tmp, "head")
    for side in (base, head):
        shutil.rmtree(side, ignore_errors=True)
        shutil.copytree(KATA, side)
    shutil.copy(os.path.join(KATA, "slowdowns", slowdown), os.path.join(head, "kernels.c"))
    out = subprocess.run(
        [rho, "bench", "gate", "--json", "-", "--base", "../../base/wire", "--measure", "instructions"],
        cwd=os.path.join(head, "wire"), capture_output=True, text=True, timeout=900,
    )
    return json.loads(out.stdout)


def main():
    rho = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "target", "debug", "rho"))
    slowdowns = sorted(f for f in os.listdir(os.path.join(KATA, "slowdowns")) if f.endswith(".c"))
    with tempfile.TemporaryDirectory() as tmp:
        for slowdown in slowdowns:
            doc = gate(rho, tmp, slowdown)
            for regressed in doc.get("functions", []):
                bench = regressed["bench"]
                metric = doc["metrics"][bench + ".instructions"]
                change = metric["head"] - metric["base"]
                first = regressed["functions"][0] if regressed["functions"] else None
                if first is None:
                    print(f"{slowdown}: {bench} {change:+.0f}: no function changed")
                    continue
                own = (first["head"] or {}).get("self", 0) - (first["base"] or {}).get("self", 0)
                inclusive = (first["head"] or {}).get("inclusive", 0) - (first["base"] or {}).get("inclusive", 0)
                print(f"{slowdown}: {bench} {metric['base']:.0f} -> {metric['head']:.0f} ({change:+.0f}); "
                      f"first changed: {first['name']} self {own:+.0f}, inclusive {inclusive:+.0f}")
            if not doc.get("functions"):
                print(f"{slowdown}: verdict {doc['verdict']}, no regressed benchmark with functions")


if __name__ == "__main__":
    main()
