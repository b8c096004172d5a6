# Sourced by the fault scripts here, from the repository's root: the binary under test and one trial.
#
# RHO is the binary under test; when it is not set, target/debug/rho, built first with `cargo build -p rho-cli`.
if [ -z "${RHO:-}" ]; then
  cargo build -q -p rho-cli || exit 2
  RHO=$PWD/target/debug/rho
fi

# signal_at_random DIR WINDOW_MS SIGNAL ARGS...: run `$RHO ARGS` in DIR with TMPDIR=$scratch, send it SIGNAL
# after a random delay of 0 to WINDOW_MS milliseconds and wait for it; sets delay_ms and status, counts in
# `finished` a run that ended otherwise than interrupted (130), and waits a moment for its leftovers to settle.
signal_at_random() {
  local dir=$1 window_ms=$2 signal=$3 pid
  shift 3
  delay_ms=$(( RANDOM % (window_ms + 1) ))
  ( cd "$dir" && TMPDIR=$scratch exec "$RHO" "$@" >/dev/null 2>&1 ) &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  kill -s "$signal" "$pid" 2>/dev/null
  wait "$pid"
  status=$?
  [ "$status" -ne 130 ] && finished=$((finished + 1))
  sleep 0.05
}
