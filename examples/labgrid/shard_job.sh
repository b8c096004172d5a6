#!/bin/sh
# One job of a CI matrix on a labgrid place of several boards: reserve a board (tags LABGRID_TAGS, default
# board=mps2-an386), acquire it, run this job's share of the board suite through it, and give it back.
#
#   RHO_SHARD=K/N LG_COORDINATOR=HOST:PORT shard_job.sh [rho bench arguments, e.g. --json shard-K.json]
#
# then `rho bench merge shard-*.json` in the last job (docs/ci.md, "Board farms"). LABGRID_PYTHON names a
# Python with labgrid (its client runs as `python -m labgrid.remote.client`), LABGRID_ENV the environment
# file with a target per board named as its place (default place-mps2-an386.yaml), RHO the rho binary.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
python=${LABGRID_PYTHON:-python3}
client() { "$python" -m labgrid.remote.client "$@"; }

# Two jobs reserving at once are allocated two boards; a job waits while every board is taken.
eval "$(client reserve --wait --shell "${LABGRID_TAGS:-board=mps2-an386}")"
trap 'client -p "+$LG_TOKEN" release >/dev/null 2>&1 || true; client cancel-reservation "$LG_TOKEN" >/dev/null 2>&1 || true' EXIT
place=$(client -p "+$LG_TOKEN" acquire | sed -n 's/^acquired place //p')
if [ -z "$place" ]; then
  echo "shard_job.sh: reservation $LG_TOKEN acquired no place" >&2
  exit 2
fi
echo "shard_job.sh: share ${RHO_SHARD:-(all)} on place $place" >&2
cd "$here"
LABGRID_ENV=${LABGRID_ENV:-place-mps2-an386.yaml} LABGRID_TARGET=$place \
  "${RHO:-rho}" bench --target lab-mps2-an386 "$@"
