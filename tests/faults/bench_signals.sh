#!/usr/bin/env bash
# Send SIGNAL to `rho bench` (module mode, in a copy of examples/project: three suites, one of them a
# command) at random points in its first WINDOW_MS milliseconds, TRIALS times, and count the trials that left
# something in rho's temporary directory (a build or scratch directory, a compiler's temporary file) or a
# process running from it.
#
#   tests/faults/bench_signals.sh [TRIALS] [WINDOW_MS] [SIGNAL]     # defaults: 300 2000 TERM
#
# RHO (default: target/debug/rho, built first with `cargo build -p rho-cli`) is the binary under test.
# Exit status 0 when nothing was left behind in any trial, 1 otherwise. Needs bash, a C compiler, GNU sleep.
set -uo pipefail
cd "$(dirname "$0")/../.."
trials=${1:-300}
window_ms=${2:-2000}
signal=${3:-TERM}
. tests/faults/lib.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
project=$work/project
scratch=$work/tmp
mkdir -p "$scratch"
cp -r examples/project "$project"

scratch_left=0 processes_left=0 finished=0
for trial in $(seq 1 "$trials"); do
  signal_at_random "$project" "$window_ms" "$signal" bench --iterations 2000
  left=$(ls -A "$scratch" | wc -l)
  procs=$(pgrep -fc "$scratch")
  if [ "$left" -gt 0 ] || [ "$procs" -gt 0 ]; then
    echo "trial $trial (signal after ${delay_ms} ms, status $status): left $(ls -A "$scratch" | tr '\n' ' ')processes $procs"
    [ "$left" -gt 0 ] && scratch_left=$((scratch_left + 1))
    [ "$procs" -gt 0 ] && processes_left=$((processes_left + 1))
    pkill -f "$scratch"
    rm -rf "${scratch:?}"/* "$scratch"/.[!.]* 2>/dev/null
  fi
done
echo "bench signals: $trials trials (SIG$signal within ${window_ms} ms; $finished ended otherwise than interrupted):" \
  "temporary files left in $scratch_left, processes in $processes_left"
[ $((scratch_left + processes_left)) -eq 0 ]
