#!/usr/bin/env bash
# Benchmark: the DFAnalyzer notebook for one case (issue 16): streamtime vs
# pandas (load once, all queries), DFAnalyzer derived from its measured
# rate, and streamtime's peak memory on a 2 GB trace set.
#
#   bench/notebook.sh [--copies N] [--big-copies M] [--runs R] [--bin PATH]
#                     [--keep DIR]
#
# Trace sets (symbolic links to ../shared/fixtures/dftracer, as compare.sh):
# N copies (default 100) of posix-old-format.pfw and
# cm1-rank0-new-format.pfw.gz for the notebook; M copies (default 1100,
# about 2.05 GB as read) for memory.  The notebook for streamtime is ONE
# command, one pass: `trace compare --json --events-dir D` with the
# notebook's 12 scalar metrics, the per-file writes table as three "by":
# "file" metrics (count, dur, bytes) and the events of one file as an
# "events": "csv" metric; R runs (default 3), the median.  For comparison
# the same notebook as three commands (as before issue 16's one-pass
# metrics): `trace compare` with the 12 metrics, `trace summary --filter
# name~write --group-by file --json`, `trace events --filter file=F
# --format csv`; R runs each, medians, summed; their outputs are checked
# equal to the one pass's (exit 1 otherwise).  pandas:
# bench/notebook_pandas.py under /usr/bin/python3, once, checked equal to
# the one pass's answers (exit 1 otherwise).  Peak RSS by /usr/bin/time -v.
# DFAnalyzer itself is not run here (bench/dfanalyzer.sh runs the real one
# on the same set): its time is DERIVED from the 10-13 k
# events/s per worker measured in issue 8, on 2 workers (this machine's
# cores); MEASURED beside it, as a lower bound, its per-line loading work
# without Dask or queries (bench/notebook_dfa_lines.py, 2 processes).
# Prints the ratios of the run: pandas / streamtime's one pass, and pandas
# / the three commands and / `trace compare` with the 12 metrics alone.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
fix="$root/../shared/fixtures/dftracer"
bin="$root/build/streamtime"
copies=100
big=1100
runs=3
keep=""

usage() { sed -n "2,/^set -euo/p" "$0" | sed "\$d; s/^# \\{0,1\\}//"; }
die() { echo "notebook.sh: $*" >&2; exit 1; }
# shellcheck source=bench/notebook_common.sh
. "$here/notebook_common.sh"

while [ $# -gt 0 ]; do
    case $1 in
        --copies) copies=${2:-}; shift 2 ;;
        --big-copies) big=${2:-}; shift 2 ;;
        --runs) runs=${2:-}; shift 2 ;;
        --bin) bin=$(abspath "${2:-}"); shift 2 ;;
        --keep) keep=$(abspath "${2:-}"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
isnum "$copies" || die "--copies takes a positive integer"
isnum "$big" || die "--big-copies takes a positive integer"
isnum "$runs" || die "--runs takes a positive integer"
check_inputs
/usr/bin/python3 -c 'import pandas' || die "no pandas for /usr/bin/python3 (apt-get install python3-pandas)"

scratch_dir
mkset "$tmp/nb" "$copies"
mkset "$tmp/big" "$big"
write_metrics "$tmp/metrics.json"
write_notebook "$tmp/metrics.json" "$tmp/notebook.json"

bytes_read() {  # DIR: bytes as read (gz inflated), bytes on disk of the targets
    python3 - "$1" <<'EOF'
import gzip, os, sys
d = sys.argv[1]
read = disk = 0
seen = {}
for n in os.listdir(d):
    p = os.path.realpath(os.path.join(d, n))
    if p not in seen:
        with (gzip.open if p.endswith(".gz") else open)(p, "rb") as f:
            seen[p] = len(f.read())
        disk += os.path.getsize(p)
    read += seen[p]
print(read, disk, len(os.listdir(d)))
EOF
}
read -r nb_read nb_disk nb_files < <(bytes_read "$tmp/nb")
read -r big_read big_disk big_files < <(bytes_read "$tmp/big")
nb_events=$(events_of "$tmp/nb")
big_events=$(events_of "$tmp/big")
machine_line
echo "streamtime: $bin ($(git -C "$root" rev-parse --short HEAD), $("$bin" --version | tail -1))"
echo "notebook set: $nb_files files, $nb_events events, $nb_read bytes as read (links to $nb_disk bytes on disk)"
echo "memory set:   $big_files files, $big_events events, $big_read bytes as read (links to $big_disk bytes on disk)"

timed() {  # COMMAND: a warm-up, then R runs; sets med
    # shellcheck disable=SC2086
    $1 2>/dev/null  # warm-up
    ts=()
    for _ in $(seq 1 "$runs"); do
        # shellcheck disable=SC2086
        read -r w r < <(rss $1)
        ts+=("$w")
    done
    med=$(median "${ts[@]}")
    echo "  $(echo "$1" | sed "s|$tmp|TMP|g; s|$bin|streamtime|")"
    echo "    median $med s (runs: ${ts[*]}), peak RSS $((r / 1024)) MB"
}

echo "streamtime, notebook set, ONE pass ($runs runs, median) ..."
timed "$(st_one "$tmp/nb" "$tmp/nb")"
st_one_s=$med
echo "  streamtime notebook, one pass: $st_one_s s"
echo "streamtime, notebook set, three commands for comparison ($runs runs each, medians) ..."
st_total=0
st_compare=""
for k in 1 2 3; do
    timed "$(st_cmds "$tmp/nb" "$tmp/nb" | sed -n "${k}p")"
    st_total=$(python3 -c "print('%.3f' % ($st_total + $med))")
    [ -n "$st_compare" ] || st_compare=$med
done
echo "  streamtime notebook, three commands: $st_total s"
check_one_three "$tmp/nb"

echo "pandas (load once, all queries; /usr/bin/python3, pandas $(/usr/bin/python3 -c 'import pandas; print(pandas.__version__)')) ..."
read -r pd_wall pd_rss < <(rss /usr/bin/python3 "$here/notebook_pandas.py" \
    --pfs "$pfs" --ssd "$ssd" --model "$model" --file "$file" \
    --check-compare "$tmp/nb.one.json" --check-events "$tmp/nb.ev/c.file_events.csv" \
    "$tmp/nb")
cat "$tmp/err.txt" "$tmp/out.txt"
grep -q "agree on every answer" "$tmp/out.txt" || die "pandas and streamtime differ"
echo "  pandas wall $pd_wall s, peak RSS $((pd_rss / 1024)) MB"

echo "DFAnalyzer's per-line work without Dask (bench/notebook_dfa_lines.py), 2 processes, half the files each ..."
half1=() half2=()
for f in "$tmp"/nb/*; do
    if [ $(( (${#half1[@]} + ${#half2[@]}) % 2 )) -eq 0 ]; then half1+=("$f"); else half2+=("$f"); fi
done
t0=$(date +%s%N)
/usr/bin/python3 "$here/notebook_dfa_lines.py" "${half2[@]}" > "$tmp/n2" &
/usr/bin/python3 "$here/notebook_dfa_lines.py" "${half1[@]}" > "$tmp/n1"
wait
t1=$(date +%s%N)
dfa_ev=$(( $(cat "$tmp/n1") + $(cat "$tmp/n2") ))
dfa_wall=$(python3 -c "print('%.3f' % (($t1 - $t0) / 1e9))")
[ "$dfa_ev" -eq "$nb_events" ] || die "DFAnalyzer lines: $dfa_ev events, streamtime $nb_events"
echo "  $dfa_ev events, wall $dfa_wall s (MEASURED lower bound: no Dask, no query)"

echo "memory set (2 GB as read), streamtime under /usr/bin/time -v ..."
mkdir -p "$tmp/big.ev"
read -r bc_wall bc_rss < <(rss "$bin" trace compare -q --json --metrics "$tmp/notebook.json" \
    --case "c=$tmp/big" --events-dir "$tmp/big.ev" --out "$tmp/big.compare.json")
echo "  trace compare, the whole notebook (16 metrics, $(( $(wc -l < "$tmp/big.ev/c.file_events.csv") - 1 )) event rows written): wall $bc_wall s, peak RSS $((bc_rss / 1024)) MB"
read -r bs_wall bs_rss < <(rss "$bin" trace summary -q --json "$tmp/big" --out "$tmp/big.summary.json")
echo "  trace summary:              wall $bs_wall s, peak RSS $((bs_rss / 1024)) MB"

python3 - "$st_one_s" "$pd_wall" "$nb_events" "$big_events" "$bc_wall" "$bc_rss" "$st_compare" "$dfa_wall" "$st_total" <<'EOF'
import sys
st, pd_, nbev, bigev, bcw, bcrss, stc, dfa, st3 = (float(x) for x in sys.argv[1:])
r = pd_ / st
print("ratio pandas / streamtime's whole notebook in one pass (notebook set, measured): %.1fx  (target >= 20x: %s)"
      % (r, "met" if r >= 20 else "NOT met"))
print("ratio pandas / streamtime's three commands (the notebook before one-pass metrics, measured): %.1fx"
      % (pd_ / st3))
print("ratio pandas / streamtime's trace compare with the 12 scalar metrics alone (measured): %.1fx"
      % (pd_ / stc))
print("ratio DFAnalyzer per-line work, 2 processes, no Dask (MEASURED lower bound) / streamtime's one pass: %.1fx"
      % (dfa / st))
for rate in (13000, 10000):
    d = nbev / (2 * rate)
    print("DFAnalyzer DERIVED (not run): %d events / (2 workers x %d events/s) = %.1f s"
          " -> %.0fx streamtime's one pass" % (nbev, rate, d, d / st))
    d = bigev / (2 * rate)
    print("DFAnalyzer DERIVED (not run), memory set: %d events -> %.1f s -> %.0fx"
          " streamtime's one pass (%.2f s)" % (bigev, d, d / bcw, bcw))
print("peak RSS of the one pass on the 2 GB set: %.1f MB (target < 100 MB: %s)"
      % (bcrss / 1024, "met" if bcrss / 1024 < 100 else "NOT met"))
EOF
