#!/bin/bash
# Submit a `trace compare` (or, with KIND=summary, a `trace summary`) as a
# Slurm job array of N shares and a reduce job that runs when every share
# has succeeded:
#
#   METRICS=m.json CASES="base=/p/traces/base ckpt=/p/traces/ckpt" \
#   OUT=/p/scratch/cmp docs/slurm-array/submit.sh N [SBATCH OPTIONS...]
#
#   KIND=summary TRACES="/p/traces/base" SUMMARY_OPTS="--group-by name" \
#   OUT=/p/scratch/sum docs/slurm-array/submit.sh N [SBATCH OPTIONS...]
#
# prints the two job ids; the result is $OUT/result.json (compare) or
# $OUT/summary.json (summary) once the reduce job has ended.  SBATCH
# OPTIONS (--partition, --account, --qos...) go to both jobs.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 N [SBATCH OPTIONS...]" >&2; exit 64; }
n=$1; shift
kind=${KIND:-compare}
case $kind in
  compare) rm_glob=("$OUT"/part.*.json "$OUT/result.json") ;;
  summary) rm_glob=("$OUT"/sum.*.json "$OUT/summary.json") ;;
  *) echo "$0: KIND must be compare or summary, not '$kind'" >&2; exit 64 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
rm -f "${rm_glob[@]}"
array=$(sbatch --parsable --array=0-$((n - 1)) --chdir="$OUT" "$@" \
  --export=ALL "$here/$kind-share.sbatch")
array=${array%%;*}
reduce=$(sbatch --parsable --dependency=afterok:"$array" --chdir="$OUT" \
  "$@" --export=ALL "$here/$kind-reduce.sbatch")
echo "$array ${reduce%%;*}"
