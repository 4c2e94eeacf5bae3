#!/usr/bin/env bash
# Benchmark: `streamtime trace compare` with the notebook's 6 metrics vs one
# `trace summary` pass over the same data (issue 16: at most 1.5x).
#
#   bench/compare.sh [--copies N] [--runs R] [--bin PATH] [--keep DIR]
#
# The trace set: N copies (default 400) of the fixtures posix-old-format.pfw
# and cm1-rank0-new-format.pfw.gz of ../shared/fixtures/dftracer (symbolic
# links: the files are read N times, through the page cache, as summary
# reads them).  R rounds (default 7) after a warm-up, each timing summary
# then compare back to back so that both see the same load of a shared
# machine; medians, and the median of the rounds' ratios; both read
# sequentially (-j 1) and with the defaults:
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
runs=7
keep=""

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "compare.sh: $*" >&2; exit 1; }
# abspath, isnum, scratch_dir and mkset
# shellcheck source=bench/notebook_common.sh
. "$here/notebook_common.sh"

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

scratch_dir
set_dir="$tmp/set"
mkset "$set_dir" "$copies"
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

events=$("$bin" trace summary -q --json "$set_dir" |
         python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
echo "trace set: $copies copies of 2 fixtures, $((copies * 2)) files, $events events"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "timing ($runs rounds after a warm-up, medians) ..."
python3 - "$bin" "$tmp" "$set_dir" "$runs" <<'EOF'
import statistics, subprocess, sys, time
bin_, tmp, set_dir, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
summary = [bin_, "trace", "summary", "-q", "--out", tmp + "/s.txt", set_dir]
compare = [bin_, "trace", "compare", "-q", "--metrics", tmp + "/metrics.json",
           "--case", "set=" + set_dir, "--out", tmp + "/c.txt"]


def t(cmd):
    # stderr kept: the set's unrelated-runs warning, once per run, would
    # drown the table (it shows once above); printed if the command fails
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stderr=subprocess.PIPE)
    if p.returncode:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd),
                                          p.stderr.decode(errors="replace")))
    return time.perf_counter() - t0


ok = True
for label, j in (("-j 1", ["-j", "1"]), ("default", [])):
    t(summary + j), t(compare + j)       # warm-up
    s, c = [], []
    for _ in range(runs):
        s.append(t(summary + j))
        c.append(t(compare + j))
    ratios = [b / a for a, b in zip(s, c)]
    r = statistics.median(ratios)
    ok = ok and r <= 1.5
    print("  %-8s summary %.3f s  compare (6 metrics) %.3f s  ratio %.2f "
          "(median of the rounds' ratios; %.2f-%.2f)"
          % (label, statistics.median(s), statistics.median(c), r,
             min(ratios), max(ratios)))
print("target: compare / summary <= 1.5: %s" % ("met" if ok else "NOT met"))
EOF
