#!/usr/bin/env bash
# A sweep spread over a Slurm cluster: a job array of N tasks (examples/slurm/sweep.sbatch, task K
# runs `islagen sweep --shard K/N --out OUT/shard-K`), then a merge job that runs once the whole
# array has succeeded (--dependency=afterok; examples/slurm/merge.sbatch) and writes OUT/all.
#
#   scripts/slurm-sweep.sh --tasks 8 --out /shared/sweep [--wait] [--sbatch "--partition=gpu ..."] \
#       -- --seeds 1..1000 --size 2048
#
# OUT must be a folder every node sees. ISLAGEN names the binary the nodes run (default: islagen
# on PATH; sbatch passes the environment on). Logs: OUT/logs/. If a task fails or is cancelled,
# the merge job is dropped (--kill-on-invalid-dep) and nothing is merged: run the same command
# again, and the tasks skip the seeds already done and finish the rest. --wait returns when the
# merge job ends, with its status (non-zero if it did not run).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

tasks=8
out=
wait=()
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --tasks) tasks=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --wait) wait=(--wait); shift ;;
    --sbatch) read -r -a extra <<<"$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown option $1 (sweep's own arguments go after --)" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "usage: $0 --tasks N --out DIR [--wait] -- SWEEP_ARGS..." >&2; exit 2; }
[ $# -gt 0 ] || { echo "give the sweep's seeds after --, e.g. -- --seeds 1..100 --size 2048" >&2; exit 2; }
[[ $tasks =~ ^[1-9][0-9]*$ ]] || { echo "--tasks needs a positive whole number, not $tasks" >&2; exit 2; }
command -v sbatch >/dev/null || { echo "sbatch not found: is this a Slurm login node?" >&2; exit 3; }

mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
array=$(sbatch --parsable --array="0-$((tasks - 1))" --output="$out/logs/sweep-%A_%a.log" \
  "${extra[@]}" "$here/examples/slurm/sweep.sbatch" "$tasks" "$out" "$@")
array=${array%%;*}
echo "array job $array: $tasks tasks into $out/shard-0..$((tasks - 1))"
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$out/logs/merge-%j.log" "${extra[@]}" "${wait[@]}" \
  "$here/examples/slurm/merge.sbatch" "$out") || {
  status=$?
  echo "the merge job did not complete (status $status): see $out/logs/, then run this again" >&2
  exit "$status"
}
echo "merge job ${merge%%;*}: $out/all after every task has succeeded"
