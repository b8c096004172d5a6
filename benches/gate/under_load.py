#!/usr/bin/env python3
"""The gate's verdicts and wall time beside two busy loops at normal priority (issue 37, "Done when").

    cargo build --release -p rho-cli
    python3 benches/gate/under_load.py [--rho target/release/rho] [--old OLD_RHO] [--aa 50] [--five 10]
                                       [--no-kata] [--no-load] [--modes json,wire] [--only s01,reference]
                                       [--aa-mode wire|json] [--ab-lock-step]

Everything runs the real `rho` binary with the default gate settings of the module it gates (no --runs, no
--max-runs), in a scratch git repository holding tests/kata committed as `main`: base is the revision `main`,
head the working directory, as CI gates a pull request. Every head is new content (a declaration naming the
gate appended to kernels.c), so no head comes from an earlier gate's cache. While it runs, two
`sh -c 'while :; do :; done'` loops at normal priority (no nice) load the machine; they are this script's
children and are killed when it ends, however it ends.

It prints, each gate on a line with its exit status and seconds:
- the kata's 12 gates (the ten planted slowdowns and the reference twice as head) in JSON mode (tests/kata)
  and in wire mode (tests/kata/wire): slowdowns caught (exit 1 with the slowed kernel's metric regressed),
  references passed (exit 0); with --old, each gate also run by OLD_RHO (e.g. rho 1d5a88b built in a worktree
  of its own), old and new in turn, and the new way's total seconds as a fraction of the old's;
- --aa N no-change (A/A) gates of the wire kata (--aa-mode json: the last-line JSON kata): how many were not ok;
- --five N gates of a one-benchmark suite whose head does 5% more work (a volatile loop of 105,000 adds
  against 100,000) with a 3% budget: how many caught it;
- with --ab-lock-step, each A/A and 5% gate run twice, by default and with `--lock-step`, in turn (which goes
  first alternating), each way's tally apart: the sides one after the other against lock-step rounds.
Exit status 0 when it ran (the figures are the result, not a pass or fail), 2 on a setup error.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
KATA = os.path.join(ROOT, "tests", "kata")
GIT_ENV = {
    "GIT_AUTHOR_NAME": "rho bench",
    "GIT_AUTHOR_EMAIL": "bench@rho.invalid",
    "GIT_COMMITTER_NAME": "rho bench",
    "GIT_COMMITTER_EMAIL": "bench@rho.invalid",
}

SPIN_C = r"""/* One benchmark whose work is SPIN volatile adds: a latency-bound chain, so its time is SPIN's. */
#include <rho/bench.h>

#ifndef SPIN
#define SPIN %d
#endif

static void bench_spin(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        volatile unsigned acc = 0;
        unsigned i;
        for (i = 0; i < SPIN; i++) {
            acc = acc + i;
        }
        RHO_BENCH_KEEP(acc);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};

    RHO_BENCH_ADD(&suite, bench_spin);
    return rho_bench_main(&suite, argc, argv);
}
"""

SPIN_YML = """bench:
  benchmarks:
    bench_spin: {iterations: 200}
  warmup_runs: 20
  targets:
    - name: host
      build: >-
        cc -std=c99 -O2 -I"$RHO_BENCH_INCLUDE" -o "$RHO_BENCH_OUT/spin" spin.c impl.c
      run: '"$RHO_BENCH_OUT/spin"'
  gate:
    budget:
      default: 0.03
"""


def git(repo, *args):
    env = dict(os.environ, **GIT_ENV)
    subprocess.run(["git", "-C", repo, *args], check=True, env=env, stdout=subprocess.DEVNULL)


def make_repo(path, files):
    """A git repository at `path` holding `files` (name -> text, or a path to copy), committed as main."""
    os.makedirs(path)
    for name, content in files.items():
        target = os.path.join(path, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if isinstance(content, str) and not os.path.exists(content):
            with open(target, "w") as out:
                out.write(content)
        else:
            shutil.copy(content, target)
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "reference")


def kata_repo(path):
    files = {}
    for dirpath, _, names in os.walk(KATA):
        for name in names:
            source = os.path.join(dirpath, name)
            files[os.path.relpath(source, KATA)] = source
    make_repo(path, files)


def gate(rho, cwd, new_style, extra=()):
    """One `rho bench gate --base main` in `cwd` (`extra`: more flags): (exit status, seconds, the JSON document
    or None)."""
    json_args = ["--json", "-"] if new_style else ["--json"]
    start = time.monotonic()
    done = subprocess.run(
        [rho, "bench", "gate", "--base", "main", *json_args, *extra],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.monotonic() - start
    lines = [l for l in done.stdout.splitlines() if l.strip()]
    document = None
    if lines:
        try:
            document = json.loads(lines[-1])
        except json.JSONDecodeError:
            pass
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr[-2000:])
    return done.returncode, seconds, document


def set_head(repo, kernels, tag):
    """Head's kernels.c: `kernels` with a declaration naming this gate (new content, as a pull request's)."""
    with open(kernels) as source:
        text = source.read()
    with open(os.path.join(repo, "kernels.c"), "w") as out:
        out.write(text + "\nint rho_gate_head_tag_%s;\n" % tag)


def slowed_metric(name, wire):
    """The metric the slowdown file `name` (s03_matmul_twice) slows."""
    kernel = next(k for k in ("matmul", "sum", "rmsnorm", "count_below") if "_" + k + "_" in name + "_")
    return "bench_%s.ns" % kernel if wire else "%s_ns" % kernel


def heads():
    slowdowns = sorted(f for f in os.listdir(os.path.join(KATA, "slowdowns")) if f.endswith(".c"))
    listed = [(f[:-2], os.path.join(KATA, "slowdowns", f)) for f in slowdowns]
    return listed + [("reference-1", os.path.join(KATA, "kernels.c")), ("reference-2", os.path.join(KATA, "kernels.c"))]


def right(status, document, name, wire):
    """Whether the gate's verdict is the right one: a slowdown failed on its kernel, a reference passed."""
    if name.startswith("reference"):
        return status == 0
    metric = slowed_metric(name, wire)
    return status == 1 and bool(document) and document["metrics"].get(metric, {}).get("regressed") is True


def kata_gates(work, rho, old, modes, only):
    for wire in (False, True):
        if ("wire" if wire else "json") not in modes:
            continue
        mode = "wire" if wire else "json"
        repo = os.path.join(work, "kata-" + mode)
        kata_repo(repo)
        cwd = os.path.join(repo, "wire") if wire else repo
        totals = {"new": 0.0, "old": 0.0}
        correct = {"new": 0, "old": 0}
        print("kata, %s mode: 12 gates (base main, head the working directory)" % mode, flush=True)
        for index, (name, kernels) in enumerate(heads()):
            if only and not any(name.startswith(prefix) for prefix in only):
                continue
            ways = [("new", rho, True)] + ([("old", old, False)] if old else [])
            if index % 2 == 1:
                ways.reverse()
            cells = []
            for way, binary, new_style in ways:
                set_head(repo, kernels, "%s_%s_%d" % (mode, way, index))
                status, seconds, document = gate(binary, cwd, new_style)
                ok = right(status, document, name, wire)
                totals[way] += seconds
                correct[way] += ok
                rounds = ""
                if document and new_style:
                    rounds = " runs %s" % document.get("runs")
                cells.append("%s exit %s %6.2f s%s%s" % (way, status, seconds, rounds, "" if ok else " WRONG"))
            print("  %-40s %s" % (name, "   ".join(sorted(cells))), flush=True)
        count = sum(1 for name, _ in heads() if not only or any(name.startswith(p) for p in only))
        line = "  %s mode: new %d/%d right, %.1f s" % (mode, correct["new"], count, totals["new"])
        if old:
            line += "; old %d/%d right, %.1f s; new/old %.2f" % (
                correct["old"], count, totals["old"], totals["new"] / totals["old"])
        print(line, flush=True)


def ways(ab):
    """The ways each gate is run: the default, and with --ab-lock-step also `--lock-step`."""
    return [("default", ())] + ([("lock-step", ("--lock-step",))] if ab else [])


def aa_gates(work, rho, count, mode, ab=False):
    repo = os.path.join(work, "aa-" + mode)
    kata_repo(repo)
    cwd = os.path.join(repo, "wire") if mode == "wire" else repo
    tally = {name: {"alarms": 0, "total": 0.0, "most": 0} for name, _ in ways(ab)}
    for index in range(count):
        order = ways(ab) if index % 2 == 0 else list(reversed(ways(ab)))
        for name, extra in order:
            set_head(repo, os.path.join(KATA, "kernels.c"), "aa_%d_%s" % (index, name.replace("-", "_")))
            status, seconds, document = gate(rho, cwd, True, extra)
            t = tally[name]
            t["total"] += seconds
            runs = document.get("runs", 0) if document else 0
            t["most"] = max(t["most"], runs)
            turns = document.get("lock_step_turns") if document else None
            if status != 0:
                t["alarms"] += 1
                regressed = [m for m, v in (document or {}).get("metrics", {}).items() if v.get("regressed")]
                print("  A/A gate %d (%s): exit %s %s" % (index + 1, name, status, regressed), flush=True)
            print("  A/A gate %2d (%s): exit %s %5.2f s, %s rounds, %s turns" % (
                index + 1, name, status, seconds, runs, turns), flush=True)
    for name, t in tally.items():
        print("  %d A/A gates (%s kata, %s): %d not ok, %.1f s (%.2f s a gate), at most %d rounds"
              % (count, mode, name, t["alarms"], t["total"], t["total"] / max(count, 1), t["most"]), flush=True)


def five_percent_gates(work, rho, count, ab=False):
    repo = os.path.join(work, "spin")
    make_repo(repo, {
        "spin.c": SPIN_C % 100000,
        "impl.c": "#define RHO_BENCH_IMPLEMENTATION\n#include <rho/bench.h>\n",
        "module.yml": SPIN_YML,
    })
    tally = {name: {"caught": 0, "total": 0.0} for name, _ in ways(ab)}
    for index in range(count):
        order = ways(ab) if index % 2 == 0 else list(reversed(ways(ab)))
        for name, extra in order:
            with open(os.path.join(repo, "spin.c"), "w") as out:
                out.write(SPIN_C % 105000 + "\nint rho_gate_head_tag_%d_%s;\n" % (index, name.replace("-", "_")))
            status, seconds, document = gate(rho, repo, True, extra)
            t = tally[name]
            t["total"] += seconds
            metric = (document or {}).get("metrics", {}).get("bench_spin.ns", {})
            paired = metric.get("paired") or {}
            hit = status == 1 and metric.get("regressed") is True
            t["caught"] += hit
            print("  5%% gate %2d (%s): exit %s %5.2f s, change %s, paired %s (%s to %s, %s rounds), %s turns" % (
                index + 1, name, status, seconds, fmt(metric.get("change")), fmt(paired.get("ratio")),
                fmt(paired.get("low")), fmt(paired.get("high")), paired.get("rounds"),
                (document or {}).get("lock_step_turns")), flush=True)
    for name, t in tally.items():
        print("  a 5%% slowdown with a 3%% budget (%s): caught %d of %d, %.1f s" % (
            name, t["caught"], count, t["total"]), flush=True)


def fmt(value):
    return "-" if value is None else "%.4f" % value


def busy_loops(start):
    if not start:
        return []
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"], start_new_session=True) for _ in range(2)]


def stop(loops):
    for loop in loops:
        try:
            os.killpg(loop.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        loop.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rho", default=os.path.join(ROOT, "target", "release", "rho"))
    parser.add_argument("--old", help="an older rho to time the kata's gates against, gate by gate")
    parser.add_argument("--aa", type=int, default=50)
    parser.add_argument("--aa-mode", choices=["wire", "json"], default="wire", help="the kata module of the A/A gates")
    parser.add_argument("--five", type=int, default=10)
    parser.add_argument("--no-kata", action="store_true")
    parser.add_argument("--no-load", action="store_true", help="without the two busy loops")
    parser.add_argument("--modes", default="json,wire", help="the kata's modes to gate: json, wire or both")
    parser.add_argument("--only", default="", help="the kata's heads to gate, by prefix (s01,s04,reference)")
    parser.add_argument("--ab-lock-step", action="store_true",
                        help="run each A/A and 5%% gate twice, by default and with --lock-step, in turn")
    args = parser.parse_args()
    args.rho = os.path.abspath(args.rho)
    args.old = args.old and os.path.abspath(args.old)
    for binary in [args.rho] + ([args.old] if args.old else []):
        if not os.access(binary, os.X_OK):
            print("under_load.py: error: %s is not an executable rho" % binary, file=sys.stderr)
            return 2
    loops = busy_loops(not args.no_load)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(2))
    try:
        with tempfile.TemporaryDirectory(prefix="rho-gate-load-") as work:
            started = time.monotonic()
            print("%s, load average %.1f at the start, %s" % (
                time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.getloadavg()[0],
                "two busy loops at normal priority" if loops else "no busy loops"), flush=True)
            if not args.no_kata:
                only = [p for p in args.only.split(",") if p]
                kata_gates(work, args.rho, args.old, args.modes.split(","), only)
            if args.aa:
                aa_gates(work, args.rho, args.aa, args.aa_mode, args.ab_lock_step)
            if args.five:
                five_percent_gates(work, args.rho, args.five, args.ab_lock_step)
            print("done in %.0f s, load average %.1f at the end" % (time.monotonic() - started, os.getloadavg()[0]))
    finally:
        stop(loops)
    return 0


if __name__ == "__main__":
    sys.exit(main())
