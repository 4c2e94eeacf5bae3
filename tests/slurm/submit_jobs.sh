#!/bin/bash
# Submit the test jobs to the cluster of tests/slurm/slurm_up.sh and wait until
# sacct has every one of them in its final state.
#
#   tests/slurm/submit_jobs.sh STATE_DIR
#
# Jobs (user root, account dstlr_acct, partition debug):
#   distiller-count-1..3    -N 4 --qos=realtime_test  srun -N4 true        exit 0   kept
#   distiller-count-4       -N 4 --qos=realtime_test  srun -N4 true; exit 1 (1:0) dropped: ExitCode
#   distiller-count-8       -N 4 --qos=realtime_test  exit 1, no step     (1:0) dropped: ExitCode
#                           (slurmrestd v0.0.38 says 0:0 for both: streamtime derives
#                           1:0 from their state FAILED)
#   distiller-count-5       -N 4 --qos=realtime_test  --begin=now+1hour, scancelled while
#                           pending, never runs.  Not kept, but NOT because Start is empty:
#                           Slurm sets Start=End=cancel time.  It is absent from
#                           `sacct -S since [-E until]` because its Eligible time is 1 h
#                           ahead; with -E past that (e.g. -E now+2hours) sacct and
#                           slurmrestd list it, Start set, ExitCode 0:0.
#   distiller-count-6       -N 2 --qos=realtime_test  srun -N2 true        exit 0   dropped: ReqNodes
#   distiller-count-arr     -N 4 --qos=realtime_test --array=0-1           exit 0   kept (N_0, N_1)
#   distiller-count-7|pipe  -N 4 --qos=realtime_test  srun -N4 true        exit 0   kept
# Writes in STATE_DIR:
#   expected_jobs.txt  JobIDs (as sacct prints them) the filters keep: name contains
#                      distiller-count, Start set, ReqNodes 4, QOS contains realtime_,
#                      ExitCode 0:0; one per line, in submission order
#   all_jobs.txt       every submitted job: JobID<TAB>label
#   window.txt         since=/until= (local %FT%T) bracketing the submissions
# and checks expected_jobs.txt against sacct's own answer.  Exit 1 (stderr says
# why) if a job does not end as planned within 120 s.
set -u -o pipefail
[ $# -eq 1 ] || { echo "usage: $0 STATE_DIR" >&2; exit 2; }
S=$(cd "$1" && pwd) || exit 2
[ -f "$S/env" ] || { echo "submit_jobs: $S/env missing: run tests/slurm/slurm_up.sh $S first" >&2; exit 1; }
. "$S/env"
# With SLURM_JWT set, sbatch/sacct authenticate by JWT and the job inherits it:
# then srun's step launch fails (slurmd only takes munge).  Use munge here.
unset SLURM_JWT
die() { echo "submit_jobs: $*" >&2; exit 1; }
mkdir -p "$S/jobs"; cd "$S/jobs" || exit 1
Q=realtime_test
sb() { sbatch --parsable -o "$S/jobs/%j.out" "$@" | cut -d';' -f1; }

since=$(date +%FT%T)
sleep 1
declare -a ids labels
add() { ids+=("$1"); labels+=("$2"); }
for i in 1 2 3; do
  j=$(sb -J "distiller-count-$i" -N 4 --qos=$Q --wrap 'srun -N4 true') || die "sbatch distiller-count-$i failed"
  add "$j" "distiller-count-$i N=4 $Q exit 0 (kept)"
done
j4=$(sb -J distiller-count-4 -N 4 --qos=$Q --wrap 'srun -N4 true; exit 1') || die "sbatch distiller-count-4 failed"
add "$j4" "distiller-count-4 N=4 $Q exit 1 (dropped: ExitCode 1:0)"
j8=$(sb -J distiller-count-8 -N 4 --qos=$Q --wrap 'exit 1') || die "sbatch distiller-count-8 failed"
add "$j8" "distiller-count-8 N=4 $Q exit 1 without a step (dropped: ExitCode 1:0)"
j5=$(sb -J distiller-count-5 -N 4 --qos=$Q --begin=now+1hour --wrap 'true') || die "sbatch distiller-count-5 failed"
st=$(squeue -h -j "$j5" -o '%T %r')
[ "${st%% *}" = PENDING ] || die "distiller-count-5 ($j5) should be pending, squeue says: $st"
scancel "$j5" || die "scancel $j5 failed"
add "$j5" "distiller-count-5 N=4 $Q cancelled while pending ($st), never ran (not in sacct -S since: Eligible +1h; Start=cancel time)"
j6=$(sb -J distiller-count-6 -N 2 --qos=$Q --wrap 'srun -N2 true') || die "sbatch distiller-count-6 failed"
add "$j6" "distiller-count-6 N=2 $Q exit 0 (dropped: ReqNodes 2)"
ja=$(sb -J distiller-count-arr -N 4 --qos=$Q --array=0-1 --wrap 'srun -N4 true') || die "sbatch distiller-count-arr failed"
add "${ja}_0" "distiller-count-arr task 0 N=4 $Q exit 0 (kept)"
add "${ja}_1" "distiller-count-arr task 1 N=4 $Q exit 0 (kept)"
j7=$(sb -J 'distiller-count-7|pipe' -N 4 --qos=$Q --wrap 'srun -N4 true') || die "sbatch distiller-count-7|pipe failed"
add "$j7" "distiller-count-7|pipe N=4 $Q exit 0 (kept; '|' in the name)"

# planned final State and ExitCode for each id
declare -A want
for k in "${!ids[@]}"; do want[${ids[$k]}]="COMPLETED 0:0"; done
want[$j4]="FAILED 1:0"
want[$j8]="FAILED 1:0"
want[$j5]="CANCELLED 0:0"
joblist=$(printf '%s\n' "${ids[@]}" | sed 's/_.*//' | sort -u | paste -sd,)

# wait until sacct has all of them final (JobName last: a '|' in it cannot shift columns)
end=$(( $(date +%s) + 120 ))
while :; do
  out=$(sacct -X -n -P -j "$joblist" --format=JobID,State,ExitCode 2>&1)
  missing=
  for id in "${ids[@]}"; do
    line=$(awk -F'|' -v id="$id" '$1 == id {sub(/ by .*/, "", $2); print $2 " " $3}' <<<"$out")
    [ "$line" = "${want[$id]}" ] || missing="$missing $id(${line:-none}, want ${want[$id]})"
  done
  [ -z "$missing" ] && [ -z "$(squeue -h -o %i)" ] && break
  [ "$(date +%s)" -ge "$end" ] && die "jobs not accounted as planned after 120 s:$missing
$(sacct -X -P -j "$joblist" --format=JobID,State,ExitCode,Start,End,Reason,JobName 2>&1)"
  sleep 0.5
done
steps=$(sacct -n -P -j "$j5" --format=JobID | paste -sd' ')
[ "$steps" = "$j5" ] || die "distiller-count-5 ($j5) should never have run, sacct has: $steps"
sleep 1
until=$(date +%FT%T)

: >"$S/all_jobs.txt"
for k in "${!ids[@]}"; do printf '%s\t%s\n' "${ids[$k]}" "${labels[$k]}" >>"$S/all_jobs.txt"; done
printf '%s\n' "${ids[0]}" "${ids[1]}" "${ids[2]}" "${ja}_0" "${ja}_1" "$j7" >"$S/expected_jobs.txt"
printf 'since=%s\nuntil=%s\n' "$since" "$until" >"$S/window.txt"

# cross-check: the filters applied to sacct's own output give the same ids
got=$(sacct -X -n -P -S "$since" -E "$until" --format=JobID,ReqNodes,QOS,ExitCode,Start,JobName |
  awk -F'|' '{name = $6; for (i = 7; i <= NF; i++) name = name "|" $i}
             name ~ /distiller-count/ && $5 != "" && $5 != "None" && $5 != "Unknown" &&
             $2 == 4 && $3 ~ /realtime_/ && $4 == "0:0" {print $1}')
# (sacct's order is not submission order: it printed 1 2 3 8 7_0 7_1)
[ "$(sort <<<"$got")" = "$(sort "$S/expected_jobs.txt")" ] ||
  die "sacct's filtered ids differ from expected_jobs.txt:
sacct:    $(echo $got)
expected: $(echo $(cat "$S/expected_jobs.txt"))"
echo "submit_jobs: ${#ids[@]} job ids accounted, $(wc -l <"$S/expected_jobs.txt") expected; window $since .. $until" >&2
