#!/usr/bin/env bash
# Benchmark: the notebook's one pass by two or more streamtime binaries, in
# one run (a change to the reader or to trace compare against its base).
#
#   bench/notebook_ab.sh BASE NEW... [--copies N] [--rounds R] [-j J]
#                        [--keep DIR]
#
# The set is bench/notebook.sh's (N copies, default 100, of the two real
# fixtures: 200 files, 909,400 events) and the command its one pass
# (`trace compare --events-dir` with the whole notebook).  Every binary's
# outputs must equal BASE's (the table and the events file, byte for byte;
# exit 1 otherwise).  Then R rounds (default 15) after a warm-up, the
# binaries in turn within each round, so that a change of the machine's
# load falls on all of them; each run under /usr/bin/time.  Prints per
# binary the medians of wall and of CPU (user + system) seconds and their
# ratio to BASE's.  -j J (default: streamtime's own, the cores) is passed
# to every run; -j 1 measures the work of one core.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
fix="$root/../shared/fixtures/dftracer"
copies=100
rounds=15
jobs=()
keep=""
bins=()

usage() { sed -n "2,/^set -euo/p" "$0" | sed "\$d; s/^# \\{0,1\\}//"; }
die() { echo "notebook_ab.sh: $*" >&2; exit 1; }
# shellcheck source=bench/notebook_common.sh
. "$here/notebook_common.sh"

while [ $# -gt 0 ]; do
    case $1 in
        --copies) copies=${2:-}; shift 2 ;;
        --rounds) rounds=${2:-}; shift 2 ;;
        -j) jobs=(-j "${2:-}"); shift 2 ;;
        --keep) keep=$(abspath "${2:-}"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) usage >&2; die "unknown option: $1" ;;
        *) bins+=("$(abspath "$1")"); shift ;;
    esac
done
[ ${#bins[@]} -ge 2 ] || { usage >&2; die "give at least two binaries"; }
isnum "$copies" || die "--copies takes a positive integer"
isnum "$rounds" || die "--rounds takes a positive integer"
for bin in "${bins[@]}"; do
    check_inputs
    echo "binary: $bin ($("$bin" --version | tail -1))"
done
scratch_dir
mkset "$tmp/nb" "$copies"
write_metrics "$tmp/metrics.json"
write_notebook "$tmp/metrics.json" "$tmp/notebook.json"
machine_line
echo "set: $copies copies of each fixture, $((2 * copies)) files; rounds: $rounds; jobs: ${jobs[*]:-default}"

run() {  # I: binary I's one pass; appends "wall cpu" to $tmp/t.I
    local out="$tmp/o$1" t0 t1
    rm -rf "$out.ev"
    mkdir -p "$out.ev"
    t0=$(date +%s%N)
    /usr/bin/time -f "%U %S" -o "$tmp/time.txt" "${bins[$1]}" trace compare \
        "${jobs[@]}" -q --json --metrics "$tmp/notebook.json" --case "c=$tmp/nb" \
        --events-dir "$out.ev" --out "$out.one.json" ||
        die "failed: ${bins[$1]}"
    t1=$(date +%s%N)
    awk -v w="$(( (t1 - t0) / 1000 ))" '{printf "%.6f %.3f\n", w / 1e6, $1 + $2}' \
        "$tmp/time.txt" >> "$tmp/t.$1"
}

for i in "${!bins[@]}"; do   # the warm-up, and the answers checked
    run "$i"
    : > "$tmp/t.$i"
    if [ "$i" -gt 0 ]; then
        if ! cmp -s "$tmp/o0.one.json" "$tmp/o$i.one.json" ||
           ! cmp -s "$tmp/o0.ev/c.file_events.csv" "$tmp/o$i.ev/c.file_events.csv"; then
            die "${bins[$i]} answers differently from ${bins[0]}"
        fi
    fi
done
echo "answers: the same from every binary (the table and the events file)"
for _ in $(seq 1 "$rounds"); do
    for i in "${!bins[@]}"; do
        run "$i"
    done
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp" "${bins[@]}" <<'EOF'
import statistics, sys
tmp, bins = sys.argv[1], sys.argv[2:]
rows = []
for i, b in enumerate(bins):
    t = [tuple(map(float, l.split())) for l in open("%s/t.%d" % (tmp, i))]
    rows.append((b, statistics.median(w for w, _ in t), statistics.median(c for _, c in t),
                 min(w for w, _ in t), min(c for _, c in t)))
print("| binary | wall median (min) | CPU median (min) | wall / base | CPU / base |")
print("|---|---|---|---|---|")
for b, w, c, wm, cm in rows:
    print("| %s | %.3f s (%.3f) | %.3f s (%.3f) | %.3f | %.3f |"
          % (b, w, wm, c, cm, w / rows[0][1], c / rows[0][2]))
EOF
