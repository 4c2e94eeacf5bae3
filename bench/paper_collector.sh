#!/usr/bin/env bash
# shellcheck disable=SC2012  # `ls` is what the imitated script uses
# Baseline for `streamtime collect receivers`: an imitation of the paper's own
# receiver-side collector (Welborn et al., 2024).
#
#   bench/paper_collector.sh DIR OUT
#
# The paper's collector script is not public. This is our reconstruction of
# what such a bash + jq cron script does, one scan at a time, and it is only
# meant as a timing baseline. For each scan of acquisition directory DIR
# (SPEC 4.1) that is not yet in OUT and has all 4 status files, it:
#   1. runs `jq -r .time` on each of the 4 files 4dstem_rec_status_{r}_scan_{n}.json;
#   2. normalises each time to UTC with `date -u -d TIME +%Y-%m-%dT%H:%M:%S+00:00`;
#   3. finds the newest data file with `ls -lt data_scan{n:010d}_*` (| head | awk);
#   4. takes its mtime with `stat -c %Y` and formats it with `date -u -d @SECS`;
#   5. appends `scan,time0,time1,time2,time3,time_last_written` to OUT.
# OUT is created with the same header as streamtime's. Rows come in ascending
# scan order, like streamtime's. Times have whole-second resolution: `date`
# drops the fraction of a status time and `stat -c %Y` the fraction of an
# mtime. That is the paper's resolution. streamtime keeps the fractions, so its
# rows agree with these to the second.
#
# Scans already in OUT are skipped. The check is done inside bash and costs
# no process. There is no settle time, so compare with `--settle 0`. Nothing
# is locked.
set -u

[ $# -eq 2 ] || { echo "usage: $0 DIR OUT" >&2; exit 64; }
dir=$1
out=$2
case $out in /*) ;; *) out=$PWD/$out ;; esac

[ -e "$out" ] || echo "scan_number,time0,time1,time2,time3,time_last_written" >"$out"

declare -A known=()
while IFS=, read -r s _; do
    known[$s]=1
done <"$out"

cd "$dir" || exit 66

# the scans, from receiver 0's status files (the primary ones)
scans=$(ls 4dstem_rec_status_0_scan_*.json 2>/dev/null |
    sed -n 's/^4dstem_rec_status_0_scan_\([0-9]*\)\.json$/\1/p' | sort -n)

for n in $scans; do
    [ -z "${known[$n]:-}" ] || continue
    row=$n
    for r in 0 1 2 3; do
        f=4dstem_rec_status_${r}_scan_${n}.json
        [ -f "$f" ] || continue 2                 # not complete yet
        t=$(jq -r .time "$f")
        t=$(date -u -d "$t" +%Y-%m-%dT%H:%M:%S+00:00) || continue 2
        row+=",$t"
    done
    printf -v pad '%010d' "$n"
    newest=$(ls -lt data_scan"${pad}"_* 2>/dev/null | head -n 1 | awk '{ print $NF }')
    [ -n "$newest" ] || continue                  # no data files yet
    m=$(stat -c %Y "$newest")
    row+=",$(date -u -d "@$m" +%Y-%m-%dT%H:%M:%S+00:00)"
    echo "$row" >>"$out"
done
