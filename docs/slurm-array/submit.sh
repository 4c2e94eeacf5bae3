#!/bin/bash
# Submit a `trace compare` as a Slurm job array of N shares and a reduce
# job that runs when every share has succeeded:
#
#   METRICS=m.json CASES="base=/p/traces/base ckpt=/p/traces/ckpt" \
#   OUT=/p/scratch/cmp docs/slurm-array/submit.sh N [SBATCH OPTIONS...]
#
# prints the two job ids; the table is $OUT/result.json once the reduce
# job has ended.  SBATCH OPTIONS (--partition, --account, --qos...) go to
# both jobs.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 N [SBATCH OPTIONS...]" >&2; exit 64; }
n=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
rm -f "$OUT"/part.*.json "$OUT/result.json"
array=$(sbatch --parsable --array=0-$((n - 1)) --chdir="$OUT" "$@" \
  --export=ALL "$here/compare-share.sbatch")
array=${array%%;*}
reduce=$(sbatch --parsable --dependency=afterok:"$array" --chdir="$OUT" \
  "$@" --export=ALL "$here/compare-reduce.sbatch")
echo "$array ${reduce%%;*}"
