#!/usr/bin/env bash
# Benchmark: what `trace record` costs the workload (issue 15).
#
#   bench/record_overhead.sh [--bin PATH] [--runs N] [-- WORKLOAD ARGS...]
#
# Runs tests/systrace/workload.py N times plain and N times under
# `streamtime trace record` (all tracers; as root), alternating, and prints
# the median of the workload's own wall time (its first to its last MLLOG
# line, so Python's start-up is left out) plain and traced, their ratio,
# the number of read/write calls a run makes, and the median time from
# `trace record`'s start to the workload's exec (manifest startup_ns) and
# of the whole `trace record` run.  Default workload: 16 epochs of 64 files
# of 1 MiB read in 64 KiB calls (about 2 s here).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
bin="$root/build/streamtime"
runs=5
python=${PYTHON:-/usr/bin/python3}
wargs=(--epochs 16 --files 64 --size 1048576 --chunk 65536 --sleep 0.05)

die() { echo "record_overhead.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case $1 in
        --bin) [ $# -ge 2 ] || die "--bin needs a path"; bin=$2; shift 2 ;;
        --runs) [ $# -ge 2 ] || die "--runs needs a number"; runs=$2; shift 2 ;;
        --) shift; wargs=("$@"); break ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1'" ;;
    esac
done
[ "$(id -u)" = 0 ] || die "trace record's tracers need root"
[ -x "$bin" ] || die "no streamtime at $bin (meson compile -C build)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
workload="$root/tests/systrace/workload.py"

# the workload's own wall time in ms: its first to its last MLLOG line
span() {
    "$python" - "$1" <<'PY'
import json, sys
t = [json.loads(l)["time_ms"] for l in open(sys.argv[1]) if '"mllog"' in l]
print(max(t) - min(t))
PY
}

plain=() traced=() startup=() total=() calls=0
for i in $(seq 1 "$runs"); do
    rm -rf "$tmp/w" "$tmp/rec"
    "$python" "$workload" --dir "$tmp/w" --truth "$tmp/plain.jsonl" \
        "${wargs[@]}" >/dev/null
    plain+=("$(span "$tmp/plain.jsonl")")
    rm -rf "$tmp/w"
    t0=$(date +%s%N)
    "$bin" -q trace record --out "$tmp/rec" -- "$python" "$workload" \
        --dir "$tmp/w" --truth "$tmp/traced.jsonl" "${wargs[@]}" >/dev/null
    t1=$(date +%s%N)
    traced+=("$(span "$tmp/traced.jsonl")")
    total+=("$(( (t1 - t0) / 1000000 ))")
    startup+=("$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["startup_ns"] // 1000000)' "$tmp/rec/manifest.json")")
    calls=$(grep -c '"op": "\(read\|write\)"' "$tmp/traced.jsonl")
done

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
mp=$(median "${plain[@]}") mt=$(median "${traced[@]}")
echo "workload: ${wargs[*]} ($calls read/write calls a run), $runs runs each"
echo "plain:   ${plain[*]} ms, median $mp ms"
echo "traced:  ${traced[*]} ms, median $mt ms"
awk -v a="$mt" -v b="$mp" 'BEGIN { printf "ratio traced/plain: %.3f\n", a / b }'
echo "trace record start to the workload's exec: median $(median "${startup[@]}") ms (${startup[*]})"
echo "whole trace record run: median $(median "${total[@]}") ms (${total[*]})"
echo "machine: $(nproc) CPUs, $(uname -r), $(bpftrace --version 2>/dev/null)"
