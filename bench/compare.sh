#!/usr/bin/env bash
# Benchmark: `streamtime trace compare` with the notebook's 6 metrics vs one
# `trace summary` pass over the same data (issue 16: at most 1.5x).
#
#   bench/compare.sh [--copies N] [--runs R] [--bin PATH] [--keep DIR]
#
# The trace set: N copies (default 400) of the fixtures posix-old-format.pfw
# and cm1-rank0-new-format.pfw.gz of ../shared/fixtures/dftracer (symbolic
# links: the files are read N times, through the page cache, as summary
# reads them).  Times with hyperfine (median of R runs, default 5, one
# warm-up), both read sequentially (-j 1) and with the defaults:
#   summary   trace summary -q DIR
#   compare   trace compare -q --metrics M --case set=DIR
# M: checkpoint time (the largest per-thread dur of names containing
# PyTorchCheckpointing.checkpoint), per-directory POSIX time per thread and
# its bytes, total bytes, per pattern and process the largest bytes and
# the largest time.  Prints the medians and compare / summary.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
fix="$root/../shared/fixtures/dftracer"
bin="$root/build/streamtime"
copies=400
runs=5
keep=""

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "compare.sh: $*" >&2; exit 1; }
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
isnum() { case $1 in ''|*[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ]; }

while [ $# -gt 0 ]; do
    case $1 in
        --copies) copies=${2:-}; shift 2 ;;
        --runs) runs=${2:-}; shift 2 ;;
        --bin) bin=$(abspath "${2:-}"); shift 2 ;;
        --keep) keep=$(abspath "${2:-}"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
isnum "$copies" || die "--copies takes a positive integer"
isnum "$runs" || die "--runs takes a positive integer"
[ -x "$bin" ] || die "no streamtime binary at $bin (meson compile -C build)"
[ -d "$fix" ] || die "no fixtures at $fix"
command -v hyperfine >/dev/null || die "hyperfine is needed (apt-get install hyperfine)"

if [ -n "$keep" ]; then
    tmp=$keep
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
fi
set_dir="$tmp/set"
mkdir -p "$set_dir"
for i in $(seq 1 "$copies"); do
    ln -sf "$fix/posix-old-format.pfw" "$set_dir/old$i.pfw"
    ln -sf "$fix/cm1-rank0-new-format.pfw.gz" "$set_dir/cm1-$i.pfw.gz"
done
cat > "$tmp/metrics.json" <<'EOF'
[
 {"name": "checkpoint", "filter": "name~PyTorchCheckpointing.checkpoint",
  "value": "dur", "per": "thread", "reduce": "max"},
 {"name": "lustre_time", "filter": ["cat=POSIX", "file^/p/lustre1/"],
  "value": "dur", "per": "thread", "reduce": "max"},
 {"name": "lustre_bytes", "filter": ["cat=POSIX", "file^/p/lustre1/"],
  "value": "bytes"},
 {"name": "total_bytes", "value": "bytes"},
 {"name": "pattern_proc_bytes", "filter": "file~", "value": "bytes",
  "per": ["pattern", "pid"], "reduce": "max"},
 {"name": "pattern_proc_time", "filter": "file~", "value": "dur",
  "per": ["pattern", "pid"], "reduce": "max"}
]
EOF

hf() {  # NAME COMMAND: median seconds
    local name=$1; shift
    hyperfine -N --style none --warmup 1 --runs "$runs" \
        --export-json "$tmp/$name.json" "$@" >/dev/null 2>&1 ||
        die "$name failed: $*"
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' \
        "$tmp/$name.json"
}

events=$("$bin" trace summary -q --json "$set_dir" |
         python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
echo "trace set: $copies copies of 2 fixtures, $((copies * 2)) files, $events events"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "timing ($runs runs each, medians) ..."
s1=$(hf summary-j1 "$bin trace summary -q -j 1 --out $tmp/s.txt $set_dir")
c1=$(hf compare-j1 "$bin trace compare -q -j 1 --metrics $tmp/metrics.json --case set=$set_dir --out $tmp/c.txt")
sd=$(hf summary "$bin trace summary -q --out $tmp/s.txt $set_dir")
cd=$(hf compare "$bin trace compare -q --metrics $tmp/metrics.json --case set=$set_dir --out $tmp/c.txt")
python3 - "$s1" "$c1" "$sd" "$cd" <<'EOF'
import sys
s1, c1, sd, cd = map(float, sys.argv[1:])
print("  -j 1      summary %.3f s  compare (6 metrics) %.3f s  ratio %.2f"
      % (s1, c1, c1 / s1))
print("  default   summary %.3f s  compare (6 metrics) %.3f s  ratio %.2f"
      % (sd, cd, cd / sd))
print("target: compare / summary <= 1.5: %s"
      % ("met" if max(c1 / s1, cd / sd) <= 1.5 else "NOT met"))
EOF
