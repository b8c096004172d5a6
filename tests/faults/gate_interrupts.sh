#!/usr/bin/env bash
# Interrupt `rho bench gate --base HEAD~1 --head HEAD` at random points in its first WINDOW_MS milliseconds,
# TRIALS times, and count what each interrupt left behind: `.git/worktrees` entries, rho's temporary
# directories, and processes (the suite leaves one that escapes its process group with `setsid`).
#
#   tests/faults/gate_interrupts.sh [TRIALS] [WINDOW_MS] [SIGNAL]     # defaults: 200 300 INT
#
# RHO (default: target/debug/rho, built first with `cargo build -p rho-cli`) is the binary under test.
# Exit status 0 when nothing was left behind in any trial, 1 otherwise. Needs bash, git, GNU sleep, pgrep.
set -uo pipefail
cd "$(dirname "$0")/../.."
trials=${1:-200}
window_ms=${2:-300}
signal=${3:-INT}
. tests/faults/lib.sh

work=$(mktemp -d)
trap 'pkill -f "sleep 987654" 2>/dev/null; rm -rf "$work"' EXIT
repo=$work/repo
scratch=$work/tmp
mkdir -p "$repo" "$scratch"
git -C "$repo" init -q --initial-branch=main
git -C "$repo" config user.email faults@rho.invalid
git -C "$repo" config user.name "rho faults"
# The run leaves a process in a session of its own (out of reach of a process-group kill), marked by its
# argument, and prints one metric as last-line JSON.
module() {
  cat > "$repo/module.yml" <<YML
bench:
  targets:
    - name: fake
      build: 'true'
      run: 'setsid sleep 987654 </dev/null >/dev/null 2>&1 & sleep 0.02; echo "{\"a_ns\": $1}"'
  gate:
    runs: 2
YML
}
module 100
git -C "$repo" add . && git -C "$repo" commit -qm base
module 101
git -C "$repo" commit -qam head

worktrees_left=0 scratch_left=0 processes_left=0 broken=0 finished=0
for trial in $(seq 1 "$trials"); do
  signal_at_random "$repo" "$window_ms" "$signal" bench gate --base HEAD~1 --head HEAD
  entries=$(ls -A "$repo/.git/worktrees" 2>/dev/null | wc -l)
  left=$(ls -A "$scratch" | wc -l)
  procs=$(pgrep -fc "sleep 987654")
  git -C "$repo" worktree list >/dev/null 2>&1 || broken=$((broken + 1))
  if [ "$entries" -gt 0 ] || [ "$left" -gt 0 ] || [ "$procs" -gt 0 ]; then
    echo "trial $trial (signal after ${delay_ms} ms, status $status): worktrees $entries, scratch $left, processes $procs"
    [ "$entries" -gt 0 ] && worktrees_left=$((worktrees_left + 1))
    [ "$left" -gt 0 ] && scratch_left=$((scratch_left + 1))
    [ "$procs" -gt 0 ] && processes_left=$((processes_left + 1))
    # Clean up by hand so that the next trial starts clean and counts only its own leftovers.
    pkill -f "sleep 987654"
    find "$repo/.git/worktrees" -name locked -delete 2>/dev/null
    rm -rf "$repo/.git/worktrees" "$scratch"/* 2>/dev/null
    git -C "$repo" worktree prune 2>/dev/null
  fi
done
echo "gate interrupts: $trials trials (SIG$signal within ${window_ms} ms; $finished ended otherwise than interrupted):" \
  "worktree entries left in $worktrees_left, scratch directories in $scratch_left," \
  "processes in $processes_left, repository broken in $broken"
[ $((worktrees_left + scratch_left + processes_left + broken)) -eq 0 ]
