#!/usr/bin/env bash
# Benchmark: `streamtime trace summary` on a big DFTracer trace vs gzip's
# decompression alone (igzip, the floor, and gzip) and Python json loaders,
# all in one run.
#
#   bench/trace.sh [--events N] [--files K] [--runs R] [--bin PATH]
#                  [--python-events N] [--json-dir DIR] [--keep DIR]
#
# Generates K .pfw files holding N X events in all (default 12,000,000 in 8)
# from the three fixtures in ../shared/fixtures/dftracer, every copy a new
# process (pid), its times shifted and its durations jittered, then gzips
# each (gzip -6).  Times, with hyperfine (medians of R runs, default 3):
#   floor       igzip -dc (ISA-L, Debian's isal, installed on first use by
#               tests/install_packages.sh) of all the .gz files, output
#               discarded: the inflater streamtime itself uses
#   ceiling     gzip -dc of the same; also two gzip processes side by side
#               (xargs -P2), the ceiling for -j2
#   baseline    /usr/bin/python3, gzip.open + json.loads per line (what each
#               DFAnalyzer worker does before Dask), on the first
#               --python-events events (default 1,000,000); and DFAnalyzer's
#               load_objects itself (its ASCII filter, json.loads with
#               strict=False, the dict it builds), on a tenth of that
#   streamtime  trace summary -j 1 and -j 2 of all the .gz files, and of
#               the plain files
# and prints events/s, events/s per core and the ratios (trace summary -j 1
# against igzip -dc: the parse-speed figure of issue 27, at most 2.5x),
# with the machine.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
fix="$root/../shared/fixtures/dftracer"
bin="$root/build/streamtime"
events=12000000
files=8
runs=3
py_events=1000000
json_dir="$root/out/bench"
keep=""
python=${PYTHON:-/usr/bin/python3}

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "trace.sh: $*" >&2; exit 1; }
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
isnum() { case $1 in ''|*[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ]; }

while [ $# -gt 0 ]; do
    case $1 in
        --events) events=${2:-}; shift 2 ;;
        --files) files=${2:-}; shift 2 ;;
        --runs) runs=${2:-}; shift 2 ;;
        --python-events) py_events=${2:-}; shift 2 ;;
        --bin) bin=$(abspath "${2:-}"); shift 2 ;;
        --json-dir) json_dir=$(abspath "${2:-}"); shift 2 ;;
        --keep) keep=$(abspath "${2:-}"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
for v in events files runs py_events; do
    isnum "${!v}" || die "--${v//_/-} takes a positive integer"
done
[ -x "$bin" ] || die "no streamtime binary at $bin (meson compile -C build)"
[ -d "$fix" ] || die "no fixtures at $fix"
command -v hyperfine >/dev/null || die "hyperfine is needed (apt-get install hyperfine)"
command -v igzip >/dev/null || "$root/tests/install_packages.sh" isal >&2 ||
    die "igzip is needed (Debian package isal)"
[ -x "$python" ] || die "$python not found"

if [ -n "$keep" ]; then
    tmp=$keep
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamtime-trace-bench.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
fi
mkdir -p "$json_dir" "$tmp/plain" "$tmp/gz"

# ---- the trace --------------------------------------------------------------
echo "generating $events events in $files files under $tmp ..."
"$python" "$here/gen_pfw.py" "$fix" "$tmp/plain" "$events" "$files"
(cd "$tmp/plain" && ls trace-*.pfw) > "$tmp/list"
echo "compressing (gzip -6, 2 at a time) ..."
(cd "$tmp/plain" && xargs -P 2 -I{} sh -c 'gzip -6 -c "$1" > "../gz/$1.gz"' _ {} < "$tmp/list")
gzs=() plains=()
while read -r f; do gzs+=("$tmp/gz/$f.gz"); plains+=("$tmp/plain/$f"); done < "$tmp/list"

# what streamtime counts, checked against the generator's count
"$bin" trace summary --json -q "${gzs[@]}" --out "$tmp/summary.json"
got=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$tmp/summary.json")
[ "$got" = "$events" ] || die "streamtime counted $got events, the generator wrote $events"
plain_bytes=$(cat "${plains[@]}" | wc -c)
gz_bytes=$(cat "${gzs[@]}" | wc -c)

# the Python baselines read the first py_events events of the gzip files
cat > "$tmp/py_loads.py" <<'EOF'
import gzip, json, sys
want, n = int(sys.argv[1]), 0
for path in sys.argv[2:]:
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            if line[0] in "[]\n":
                continue
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("ph") == "X":
                n += 1
                if n == want:
                    print(n)
                    sys.exit(0)
print(n)
EOF
py_df_events=$((py_events / 10))
[ "$py_df_events" -gt 0 ] || py_df_events=1
[ "$py_events" -le "$events" ] || py_events=$events

# ---- timing -------------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
hf() {  # NAME COMMAND: median seconds
    local name=$1; shift
    hyperfine -N --style none --warmup 1 --runs "$runs" \
        --export-json "$json_dir/trace-$name.json" "$@" >/dev/null 2>&1 ||
        die "$name failed: $*"
    "$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' \
        "$json_dir/trace-$name.json"
}
echo "timing ($runs runs each, medians) ..."
t_igzip=$(hf igzip "igzip -dc ${gzs[*]}")
t_gzip=$(hf gzip "gzip -dc ${gzs[*]}")
t_gzip2=$(hf gzip2 "bash -c 'printf \"%s\\n\" ${gzs[*]} | xargs -P 2 -n 1 gzip -dc > /dev/null'")
t_py=$(hf python "$python $tmp/py_loads.py $py_events ${gzs[*]}")
t_pydf=$(hf python-dfanalyzer "$python $here/notebook_dfa_lines.py --stop $py_df_events ${gzs[*]}")
t_j1=$(hf gz-j1 "$bin trace summary -q -j 1 --out $tmp/s1.txt ${gzs[*]}")
t_j2=$(hf gz-j2 "$bin trace summary -q -j 2 --out $tmp/s2.txt ${gzs[*]}")
t_p1=$(hf plain-j1 "$bin trace summary -q -j 1 --out $tmp/s3.txt ${plains[*]}")
t_p2=$(hf plain-j2 "$bin trace summary -q -j 2 --out $tmp/s4.txt ${plains[*]}")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cmp -s "$tmp/s1.txt" "$tmp/s2.txt" || die "-j 1 and -j 2 summaries differ"
cmp -s "$tmp/s1.txt" "$tmp/s3.txt" || die "gzip and plain summaries differ"

# peak memory of the -j 1 and -j 2 runs
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
rss_j1=$(rss "$bin" trace summary -q -j 1 --out "$tmp/s5.txt" "${gzs[@]}")
rss_j2=$(rss "$bin" trace summary -q -j 2 --out "$tmp/s6.txt" "${gzs[@]}")

# ---- report -------------------------------------------------------------------
"$python" - "$events" "$py_events" "$py_df_events" "$plain_bytes" "$gz_bytes" \
    "$t_gzip" "$t_gzip2" "$t_py" "$t_pydf" "$t_j1" "$t_j2" "$t_p1" "$t_p2" \
    "$rss_j1" "$rss_j2" "$t_igzip" <<'EOF'
import sys
a = sys.argv[1:]
ev, pyev, pydfev, pb, gb = (int(x) for x in a[:5])
g1, g2, py, pydf, j1, j2, p1, p2 = (float(x) for x in a[5:13])
r1, r2 = int(a[13]), int(a[14])
ig = float(a[15])
M = 1e6
print()
print("trace: %d X events, %.2f GB plain, %.2f GB gzip (%.1fx), %.0f bytes "
      "per event" % (ev, pb / 1e9, gb / 1e9, pb / gb, pb / ev))
print()
print("| what | cores | time (s) | M events/s | M events/s per core | vs gzip -dc (same cores) | vs igzip -dc |")
print("|---|---|---|---|---|---|---|")
def row(name, cores, t, n, base, floor=None):
    print("| %s | %d | %.2f | %.2f | %.2f | %s | %s |" % (
        name, cores, t, n / t / M, n / t / M / cores,
        "%.2fx the time" % (t / base) if base else "-",
        "%.2fx the time" % (t / floor) if floor else "-"))
row("igzip -dc (ISA-L, decompression only)", 1, ig, ev, None)
row("gzip -dc (decompression only)", 1, g1, ev, None)
row("2 x gzip -dc (xargs -P2)", 2, g2, ev, None)
row("python3 gzip + json.loads per line (%d events)" % pyev, 1, py, pyev, None)
row("python3 DFAnalyzer load_objects (%d events)" % pydfev, 1, pydf, pydfev, None)
row("streamtime trace summary -j 1 (.gz)", 1, j1, ev, g1, ig)
row("streamtime trace summary -j 2 (.gz)", 2, j2, ev, g2)
row("streamtime trace summary -j 1 (plain)", 1, p1, ev, None)
row("streamtime trace summary -j 2 (plain)", 2, p2, ev, None)
print()
print("-j 2 speed-up: %.2fx (.gz), %.2fx (plain)" % (j1 / j2, p1 / p2))
print("parse speed: trace summary -j 1 takes %.2fx the time of igzip -dc "
      "(issue 27's figure: at most 2.5x)" % (j1 / ig))
print("streamtime -j 1 vs python json.loads: %.0fx events/s; vs DFAnalyzer "
      "load_objects: %.0fx; vs DFAnalyzer's 10-13 k events/s per worker: "
      "%.0f-%.0fx" % ((ev / j1) / (pyev / py), (ev / j1) / (pydfev / pydf),
                     (ev / j1) / 13e3, (ev / j1) / 10e3))
print("peak RSS: -j 1 %.0f MB, -j 2 %.0f MB" % (r1 / 1024, r2 / 1024))
EOF
echo
echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr)"
echo "tools: $(gzip --version | head -1), igzip $(igzip --version 2>&1 | head -1 | grep -o '[0-9][0-9.]*' | head -1), zlib $("$python" -c 'import zlib; print(zlib.ZLIB_RUNTIME_VERSION)'), $("$python" --version), $(hyperfine --version)"
echo "streamtime: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)'), $bin"
echo "load average before/after: $load_before / $load_after; JSON in $json_dir/trace-*.json"
