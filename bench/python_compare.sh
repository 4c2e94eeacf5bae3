#!/usr/bin/env bash
# Benchmark (issue 26 item 4): streamtime.trace_compare inside Python
# against `streamtime trace compare --json`, on the notebook set.
#
#   bench/python_compare.sh [--copies N] [--runs R] [--bin PATH]
#                           [--pydir DIR] [--python PY]
#
# The notebook set as bench/notebook.sh makes it: N copies (default 100)
# of the two real fixtures (symbolic links), the notebook's 12 metrics
# (notebook_common.sh's write_metrics), one case.  The CLI: R runs
# (default 5, after a warm-up) of `streamtime trace compare --json
# --metrics M --case nb=SET`, each a fresh process, wall time.  Python:
# one /usr/bin/python3 process (Debian's pandas) that imports pandas and
# streamtime (from --pydir, default build/python) first, then times R
# calls of streamtime.trace_compare(METRICS, {"nb": [SET]}) (after a
# warm-up) with time.perf_counter, and checks that every number is the
# CLI's (exit 1 otherwise).  The runs alternate, CLI then Python, so
# both see the same load.  Prints the medians of wall time and of CPU
# time (user + system: the CLI's from RUSAGE_CHILDREN, Python's from
# RUSAGE_SELF around the call) and their ratios (target: Python / CLI <=
# 1.2 by wall time).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
fix="$root/../shared/fixtures/dftracer"
bin="$root/build/streamtime"
pydir="$root/build/python"
py=/usr/bin/python3
copies=100
runs=5
keep=""

usage() { sed -n "2,/^set -euo/p" "$0" | sed "\$d; s/^# \\{0,1\\}//"; }
die() { echo "python_compare.sh: $*" >&2; exit 1; }
# shellcheck source=bench/notebook_common.sh
. "$here/notebook_common.sh"

while [ $# -gt 0 ]; do
    case $1 in
        --copies) copies=${2:-}; shift 2 ;;
        --runs) runs=${2:-}; shift 2 ;;
        --bin) bin=$(abspath "${2:-}"); shift 2 ;;
        --pydir) pydir=$(abspath "${2:-}"); shift 2 ;;
        --python) py=${2:-}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
isnum "$copies" || die "--copies takes a positive integer"
isnum "$runs" || die "--runs takes a positive integer"
check_inputs
[ -d "$pydir/streamtime" ] || die "no module at $pydir/streamtime (meson compile -C build, with python3-dev)"
"$py" -c 'import pandas' || die "no pandas for $py (apt-get install python3-pandas)"

scratch_dir
mkset "$tmp/nb" "$copies"
write_metrics "$tmp/metrics.json"
machine_line
echo "streamtime: $bin ($(git -C "$root" rev-parse --short HEAD)); module: $pydir; python: $py"
echo "notebook set: $(find "$tmp/nb" -maxdepth 1 -name '*.pfw*' | wc -l) files, $(events_of "$tmp/nb") events, one case, 12 metrics"

PYTHONPATH="$pydir" "$py" - "$bin" "$tmp/metrics.json" "$tmp/nb" "$runs" <<'PYEOF'
import json, math, resource, statistics, subprocess, sys, time
import pandas  # noqa: F401  (imported before the timing, as in a notebook)
import streamtime

st, mpath, nb, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
metrics = json.load(open(mpath))
cmd = [st, "trace", "compare", "-q", "--json", "--metrics", mpath,
       "--case", "nb=" + nb]


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def cli():
    t, c = time.perf_counter(), cpu(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    cc.append(cpu(resource.RUSAGE_CHILDREN) - c)
    return time.perf_counter() - t, json.loads(p.stdout)


def py():
    t, c = time.perf_counter(), cpu(resource.RUSAGE_SELF)
    df = streamtime.trace_compare(metrics, {"nb": [nb]})
    cp.append(cpu(resource.RUSAGE_SELF) - c)
    return time.perf_counter() - t, df


cc, cp = [], []

cli(), py()   # warm-up: the page cache, the module's pages
tc, tp = [], []
del cc[:], cp[:]
for _ in range(runs):
    t, table = cli()
    tc.append(t)
    t, df = py()
    tp.append(t)
bad = []
for m in table["metrics"]:
    want, got = m["values"]["nb"], df.loc[m["name"], "nb"]
    if want is None:
        ok = math.isnan(got)
    else:
        ok = float("%.15g" % float(got)) == float(want)
    if not ok:
        bad.append((m["name"], got, want))
print("numbers: %d metrics, %s" % (len(table["metrics"]),
      "all equal to the CLI's" if not bad else "DIFFER: %s" % bad))
mc, mp = statistics.median(tc), statistics.median(tp)
print("CLI    trace compare --json: median %.3f s (runs: %s)" %
      (mc, " ".join("%.3f" % t for t in tc)))
print("Python trace_compare:        median %.3f s (runs: %s)" %
      (mp, " ".join("%.3f" % t for t in tp)))
print("CPU (user + system), medians: CLI %.3f s, Python %.3f s" %
      (statistics.median(cc), statistics.median(cp)))
print("ratio Python / CLI: %.3f wall (target <= 1.2), %.3f CPU" %
      (mp / mc, statistics.median(cp) / statistics.median(cc)))
sys.exit(1 if bad else 0)
PYEOF
