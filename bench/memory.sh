#!/usr/bin/env bash
# Benchmark: the peak resident memory of `streamtime trace summary` against
# the trace's length and its distinct file names, this build against a
# baseline binary in the same run (issue 27 item 4).
#
#   bench/memory.sh [--bin PATH] [--base PATH] [--runs R] [--sizes LIST]
#                   [--keep DIR]
#
# Sets, gzip -6, generated once (kept with --keep DIR):
#   N M events   bench/gen_pfw.py's 8 files of N events in all (the
#                fixtures copied, every copy a new process) for N in
#                --sizes (default 1,10,30 millions)
#   names        bench/gen_names.py's 4 files of 2 M events that name
#                200,000 distinct files (51 bytes each), every file all of
#                them, half in the old format (args.fname), half through
#                FH hashes
# Each set is summarized with -j 1 and -j 2 by both binaries, alternating,
# R times (default 3); prints the median peak RSS (/usr/bin/time %M) and
# the spread, and the medians of the wall and user+sys seconds, with the
# RSS of `streamtime --version` (what the shared libraries alone take) and
# the load.  The summaries of both binaries must be the same bytes.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
fix="$root/../shared/fixtures/dftracer"
bin="$root/build/streamtime"
base=/work/wt-base/build/streamtime
runs=3
sizes="1,10,30"
keep=""
python=${PYTHON:-/usr/bin/python3}

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "memory.sh: $*" >&2; exit 1; }
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
isnum() { case $1 in ''|*[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ]; }

while [ $# -gt 0 ]; do
    case $1 in
        --bin) bin=$(abspath "${2:-}"); shift 2 ;;
        --base) base=$(abspath "${2:-}"); shift 2 ;;
        --runs) runs=${2:-}; shift 2 ;;
        --sizes) sizes=${2:-}; shift 2 ;;
        --keep) keep=$(abspath "${2:-}"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
isnum "$runs" || die "--runs takes a positive integer"
for s in ${sizes//,/ }; do isnum "$s" || die "--sizes takes millions: $sizes"; done
[ -x "$bin" ] || die "no streamtime binary at $bin (meson compile -C build)"
[ -x "$base" ] || die "no baseline binary at $base"
[ -d "$fix" ] || die "no fixtures at $fix"
[ -x /usr/bin/time ] || die "/usr/bin/time is needed (apt-get install time)"

if [ -n "$keep" ]; then
    tmp=$keep
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamtime-memory-bench.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
fi

# gen NAME GENERATOR ARGS...: the set's .gz files in $tmp/NAME, made once
gen() {
    local name=$1; shift
    [ -f "$tmp/$name/done" ] && return 0
    echo "generating $name ..." >&2
    rm -rf "$tmp/$name" && mkdir -p "$tmp/$name/plain"
    "$python" "$@" >/dev/null
    (cd "$tmp/$name/plain" && ls | xargs -P 2 -I{} sh -c 'gzip -6 "$1" && mv "$1.gz" ..' _ {})
    rmdir "$tmp/$name/plain"
    touch "$tmp/$name/done"
}
sets=()
for m in ${sizes//,/ }; do
    gen "m$m" "$here/gen_pfw.py" "$fix" "$tmp/m$m/plain" "${m}000000" 8
    sets+=("m$m")
done
gen names "$here/gen_names.py" "$tmp/names/plain" 2000000 4 200000
sets+=(names)

# one RUN: "KB wall user+sys" of BIN trace summary -j J on SET
one() {
    local b=$1 j=$2 set=$3 out=$4
    /usr/bin/time -f "%M %e %U %S" "$b" trace summary -q -j "$j" \
        --out "$out" "$tmp/$set"/*.gz 2>&1 >/dev/null | tail -1 |
        awk '{ printf "%d %.2f %.2f\n", $1, $2, $3 + $4 }'
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
floor_new=$(/usr/bin/time -f %M "$bin" --version 2>&1 >/dev/null | tail -1)
floor_base=$(/usr/bin/time -f %M "$base" --version 2>&1 >/dev/null | tail -1)
res="$tmp/results"
: > "$res"
for set in "${sets[@]}"; do
    for j in 1 2; do
        for r in $(seq "$runs"); do
            echo "$set -j $j run $r ..." >&2
            echo "$set $j base $(one "$base" "$j" "$set" "$tmp/b.txt")" >> "$res"
            echo "$set $j new $(one "$bin" "$j" "$set" "$tmp/n.txt")" >> "$res"
            cmp -s "$tmp/b.txt" "$tmp/n.txt" ||
                die "$set -j $j: the summaries of $base and $bin differ"
        done
    done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

"$python" - "$res" "$floor_base" "$floor_new" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
fb, fn = int(sys.argv[2]), int(sys.argv[3])
keys = []
for r in rows:
    if (r[0], r[1]) not in keys:
        keys.append((r[0], r[1]))
def col(s, j, who, i):
    return [float(r[3 + i]) for r in rows if (r[0], r[1], r[2]) == (s, j, who)]
def name(s):
    return "2 M events, 200,000 names" if s == "names" else "%s M events" % s[1:]
print("| set | -j | peak RSS base (MiB) | peak RSS new (MiB) | new/base | wall base / new (s) | CPU base / new (s) |")
print("|---|---|---|---|---|---|---|")
for s, j in keys:
    kb, kn = col(s, j, "base", 0), col(s, j, "new", 0)
    wb, wn = col(s, j, "base", 1), col(s, j, "new", 1)
    cb, cn = col(s, j, "base", 2), col(s, j, "new", 2)
    med = statistics.median
    print("| %s | %s | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) | %.2f | %.2f / %.2f | %.2f / %.2f |" % (
        name(s), j, med(kb) / 1024, min(kb) / 1024, max(kb) / 1024,
        med(kn) / 1024, min(kn) / 1024, max(kn) / 1024, med(kn) / med(kb),
        med(wb), med(wn), med(cb), med(cn)))
print()
print("`streamtime --version` alone (the shared libraries): base %.1f MiB, new %.1f MiB" % (fb / 1024, fn / 1024))
EOF
echo
echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr)"
echo "streamtime: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)'), $bin; baseline $base"
echo "runs: $runs each, alternating; load average before/after: $load_before / $load_after"
