#!/usr/bin/env bash
# Benchmark: the DFAnalyzer notebook for one case, run by the REAL
# DFAnalyzer (issue 16), against streamtime on the same files, in one run.
#
#   bench/dfanalyzer.sh [--src DIR] [--zindex DIR] [--copies N | --set DIR]
#                       [--file F] [--runs R] [--workers W] [--bin PATH]
#                       [--keep DIR]
#
# --src DIR (or $DFANALYZER_SRC): a checkout of dftracer, the project that
# ships DFAnalyzer as its dfanalyzer/ package (tested: v1.0.8).  It is copied
# to a scratch directory and patched there for Debian 12, which has no
# pyarrow and no python-intervals: "string[pyarrow]" becomes pandas'
# "string", "uintN[pyarrow]" "UIntN" (its nullable integers), the intervals
# import optional (only used with time_approximate=False), the pyarrow import
# dropped.  The diff is printed and kept as dfanalyzer-debian12.diff.
# zindex_py (DFAnalyzer reads .pfw.gz through it) must import under
# /usr/bin/python3 with $ZINDEX_PY_DIR on the path, or --zindex DIR (or
# $ZINDEX_SRC) is a checkout of its source, built here with cmake against
# Debian's sqlite3 and pybind11 (-Werror dropped).
# Without them, or without Debian's python3-dask python3-distributed
# python3-rich python3-seaborn python3-pandas, prints what is missing and
# exits 77: nothing measured (bench scripts are not part of CI).
#
# The set: N copies (default 100) of the two real fixtures, as bench/notebook.sh,
# or with --set DIR every .pfw/.pfw.gz of DIR (linked into the scratch
# directory, where DFAnalyzer writes its .zindex files), e.g. the 48 cm1
# traces of dftracer's examples/dfanalyzer/test-trace-distributed.
# --file F: the file of the drill-down (default the fixtures' file_0-40.bat).
# streamtime (bench/notebook_common.sh): the whole notebook in ONE pass, as
# bench/notebook.sh runs it (`trace compare --events-dir` with the 12
# metrics, the per-file writes as "by": "file" metrics and the events of F
# as an "events" metric), and for comparison the three commands of before
# (`trace compare` with the 12 metrics, `trace summary --group-by file`,
# `trace events --format csv`), checked equal to the one pass (exit 1
# otherwise).  Each: a warm-up, R runs (default 3) before DFAnalyzer, one
# after each of its runs (the pairs see the same load) and R after; medians
# over all, of wall and of CPU (user + system) seconds.
# DFAnalyzer: bench/notebook_dfanalyzer.py on a LocalCluster of W workers
# (default 2, the machine's cores): a warm-up (it builds the .zindex files),
# then R runs of DFAnalyzer(DIR/*.pfw*) + the notebook's queries; medians.
# Its answers must equal the one pass's (the event count, the 12 metrics,
# the per-file writes, the events of F; exit 1 otherwise) before the ratios
# are printed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
fix="$root/../shared/fixtures/dftracer"
bin="$root/build/streamtime"
src=${DFANALYZER_SRC:-}
zsrc=${ZINDEX_SRC:-}
copies=100
set_dir=""
drill=""
runs=3
workers=2
keep=""

usage() { sed -n "2,/^set -euo/p" "$0" | sed "\$d; s/^# \\{0,1\\}//"; }
die() { echo "dfanalyzer.sh: $*" >&2; exit 1; }
skip() { echo "dfanalyzer.sh: SKIPPED, nothing measured: $*" >&2; exit 77; }
# shellcheck source=bench/notebook_common.sh
. "$here/notebook_common.sh"

while [ $# -gt 0 ]; do
    case $1 in
        --src) src=${2:-}; shift 2 ;;
        --zindex) zsrc=${2:-}; shift 2 ;;
        --copies) copies=${2:-}; shift 2 ;;
        --set) set_dir=$(abspath "${2:-}"); shift 2 ;;
        --file) drill=${2:-}; shift 2 ;;
        --runs) runs=${2:-}; shift 2 ;;
        --workers) workers=${2:-}; shift 2 ;;
        --bin) bin=$(abspath "${2:-}"); shift 2 ;;
        --keep) keep=$(abspath "${2:-}"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
isnum "$copies" || die "--copies takes a positive integer"
isnum "$runs" || die "--runs takes a positive integer"
isnum "$workers" || die "--workers takes a positive integer"
check_inputs
[ -n "$src" ] || skip "no DFAnalyzer checkout: give --src DIR or set DFANALYZER_SRC (a dftracer checkout with dfanalyzer/main.py)"
src=$(abspath "$src")
[ -f "$src/dfanalyzer/main.py" ] || skip "no dfanalyzer/main.py under $src"
/usr/bin/python3 -c 'import dask, distributed, pandas, rich, seaborn' 2>/dev/null ||
    skip "DFAnalyzer's dependencies are missing for /usr/bin/python3 (apt-get install python3-dask python3-distributed python3-pandas python3-rich python3-seaborn)"

scratch_dir

# zindex_py: prebuilt ($ZINDEX_PY_DIR) or built from --zindex / $ZINDEX_SRC.
zdir=${ZINDEX_PY_DIR:-}
if ! PYTHONPATH=$zdir /usr/bin/python3 -c 'import zindex_py' 2>/dev/null; then
    [ -n "$zsrc" ] || skip "no zindex_py for /usr/bin/python3: set ZINDEX_PY_DIR, or give --zindex DIR / ZINDEX_SRC (its source) to build it"
    [ -f "$zsrc/CMakeLists.txt" ] || skip "no CMakeLists.txt under $zsrc"
    command -v cmake >/dev/null || skip "no cmake (apt-get install cmake)"
    if [ ! -f /usr/include/sqlite3.h ] || [ ! -d /usr/include/pybind11 ]; then
        skip "zindex_py needs libsqlite3-dev and pybind11-dev (apt-get install them)"
    fi
    echo "building zindex_py from $zsrc (log: $tmp/zindex-build.log) ..."
    rm -rf "$tmp/zindex-src" "$tmp/zindex-build"
    cp -r "$zsrc" "$tmp/zindex-src"
    # Debian's sqlite3 instead of the bundled amalgamation; no -Werror.
    rm -f "$tmp/zindex-src/ext/sqlite/sqlite3.h" "$tmp/zindex-src/ext/sqlite/sqlite3ext.h"
    # shellcheck disable=SC2016
    sed -i 's| -Wall -Werror -Wextra| -Wall -Wextra|
            s|^\( *\)${CMAKE_CURRENT_SOURCE_DIR}/ext/sqlite/sqlite3.c)|\1)|
            s|^include_directories(BEFORE SYSTEM ${CMAKE_CURRENT_SOURCE_DIR}/ext/sqlite)||
            s|^set(DEPENDENCY_LIB stdc++fs ${COMMON_LIBS})|set(DEPENDENCY_LIB stdc++fs sqlite3 ${COMMON_LIBS})|' \
        "$tmp/zindex-src/CMakeLists.txt"
    (cmake -S "$tmp/zindex-src" -B "$tmp/zindex-build" -DBUILD_PYTHON_BINDINGS=ON \
        -DCMAKE_BUILD_TYPE=Release -DPYTHON_EXECUTABLE=/usr/bin/python3 &&
     cmake --build "$tmp/zindex-build" -j "$(nproc)") > "$tmp/zindex-build.log" 2>&1 ||
        { tail -20 "$tmp/zindex-build.log" >&2; die "zindex_py did not build"; }
    zdir=$tmp/zindex-build/lib
    PYTHONPATH=$zdir /usr/bin/python3 -c 'import zindex_py' || die "zindex_py built but does not import"
fi

# DFAnalyzer, patched for Debian 12 in a copy.
rm -rf "$tmp/dfa"
mkdir -p "$tmp/dfa/orig" "$tmp/dfa/lib"
cp -r "$src/dfanalyzer" "$tmp/dfa/orig/"
cp -r "$src/dfanalyzer" "$tmp/dfa/lib/"
main=$tmp/dfa/lib/dfanalyzer/main.py
if ! grep -q '^import pyarrow as pa$' "$main" || ! grep -q '^import intervals as I$' "$main"; then
    die "$src/dfanalyzer/main.py is not the version these patches know (v1.0.8): no 'import pyarrow as pa' / 'import intervals as I' line"
fi
sed -i -E "s/\"string\\[pyarrow\\]\"/\"string\"/g
           s/\"uint(8|16|64)\\[pyarrow\\]\"/\"UInt\\1\"/g
           s/'uint(8|16|64)\\[pyarrow\\]'/'UInt\\1'/g
           s/\"int64\\[pyarrow\\]\"/\"Int64\"/g
           s/^import pyarrow as pa\$/pa = None  # Debian 12: no pyarrow; pandas extension dtypes below/
           s/^import intervals as I\$/try:\\n    import intervals as I  # only with time_approximate=False\\nexcept ImportError:\\n    I = None/
           s/^( *)logging.debug\\(f\"pa version \\{pa.__version__\\}\"\\)\$/\\1pass/" "$main"
! grep -q 'pyarrow\]' "$main" || die "a pyarrow dtype is left in $main"
(cd "$tmp/dfa" && diff -ru orig/dfanalyzer lib/dfanalyzer > "$tmp/dfanalyzer-debian12.diff") || true
echo "DFAnalyzer: $src ($(git -C "$src" describe --tags --always 2>/dev/null || echo 'not a git work tree')), patched for Debian 12:"
grep -c '^[-+][^-+]' "$tmp/dfanalyzer-debian12.diff" | sed 's/^/  diff lines changed: /'
echo "  diff kept as $tmp/dfanalyzer-debian12.diff"

file=${drill:-$file}
rm -rf "$tmp/nb"
if [ -n "$set_dir" ]; then
    mkdir -p "$tmp/nb"
    n=0
    for f in "$set_dir"/*.pfw "$set_dir"/*.pfw.gz; do
        [ -e "$f" ] || continue
        ln -s "$f" "$tmp/nb/"
        n=$((n + 1))
    done
    [ "$n" -gt 0 ] || die "no .pfw or .pfw.gz in $set_dir"
    set_line="$n files of $set_dir"
else
    mkset "$tmp/nb" "$copies"
    set_line="$((2 * copies)) files ($copies copies of posix-old-format.pfw and cm1-rank0-new-format.pfw.gz)"
fi
write_metrics "$tmp/metrics.json"
write_notebook "$tmp/metrics.json" "$tmp/notebook.json"
nb_events=$(events_of "$tmp/nb")
machine_line
echo "streamtime: $bin ($(git -C "$root" rev-parse --short HEAD), $("$bin" --version | tail -1))"
echo "python: $(/usr/bin/python3 -c 'import sys, dask, distributed, pandas; print(sys.version.split()[0], "dask", dask.__version__, "distributed", distributed.__version__, "pandas", pandas.__version__)')"
echo "set: $set_line, $nb_events events; drill-down file $file"

# streamtime's commands: 0 the one pass, 1-3 the three commands of before.
st_all() { st_one "$tmp/nb" "$tmp/nb"; st_cmds "$tmp/nb" "$tmp/nb"; }
names=("the one pass (the whole notebook)" "trace compare (12 metrics)"
       "trace summary --group-by file (writes)" "trace events --format csv (one file)")
declare -A st_times st_cpu st_busy
# the machine's busy CPU time while the one pass runs (bench/notebook_common.sh
# busy): what else ran beside it
hz=$(getconf CLK_TCK)
st_round() {  # LABEL: R runs of each command (a warm-up first)
    local cmd i w
    for i in 0 1 2 3; do
        cmd=$(st_all | sed -n "$((i + 1))p")
        # shellcheck disable=SC2086
        $cmd 2>/dev/null   # warm-up
        for _ in $(seq 1 "$runs"); do
            # shellcheck disable=SC2086
            read -r w _ < <(rss $cmd)
            st_times[$1$i]="${st_times[$1$i]:-} $w"
            st_cpu[$1$i]="${st_cpu[$1$i]:-} $(cpu_last)"
            [ "$i" -gt 0 ] || st_busy[$1]="${st_busy[$1]:-} $(awk -v t="$(cat "$tmp/busy.txt")" -v hz="$hz" 'BEGIN {printf "%.2f", t / hz}')"
        done
    done
    echo "  streamtime round $1 done, load $(cut -d' ' -f1-3 /proc/loadavg)"
}

echo "streamtime, before DFAnalyzer ($runs runs of each command) ..."
st_round before
check_one_three "$tmp/nb"

# One run of each command after each of DFAnalyzer's timed runs, its
# cluster idle: each pair sees about the same load.  A line per round:
# milliseconds and CPU seconds of each command.
rm -f "$tmp/st_between.txt" "$tmp/st_between_busy.txt"
{
    echo 'set -e'
    echo "busy() { awk '/^cpu /{print \$2 + \$3 + \$4 + \$7 + \$8}' /proc/stat; }"
    # shellcheck disable=SC2016
    echo 'b0=$(busy)'
    st_all | while read -r cmd; do
        # shellcheck disable=SC2016
        printf 't0=$(date +%%s%%N); /usr/bin/time -f "%%U %%S" -o %s %s 2>/dev/null; t1=$(date +%%s%%N)\n' \
            "$tmp/between_time.txt" "$cmd"
        # shellcheck disable=SC2016
        printf 'printf "%%s %%s " $(( (t1 - t0) / 1000000 )) $(awk '"'"'{printf "%%.3f", $1 + $2}'"'"' %s) >> %s\n' \
            "$tmp/between_time.txt" "$tmp/st_between.txt"
        # after the first command (the one pass): the machine's busy time
        # shellcheck disable=SC2016
        printf '[ -z "$b0" ] || { awk -v a="$b0" -v b="$(busy)" -v hz=%s '"'"'BEGIN {printf "%%.2f\\n", (b - a) / hz}'"'"' >> %s; b0=; }\n' \
            "$hz" "$tmp/st_between_busy.txt"
    done
    echo "echo >> $tmp/st_between.txt"
} > "$tmp/st_once.sh"

echo "DFAnalyzer, $workers workers, a warm-up + $runs runs, each followed by one run of streamtime's commands (log: $tmp/dfa.err) ..."
echo "  load before: $(cut -d' ' -f1-3 /proc/loadavg)"
(cd "$tmp" && PYTHONPATH="$tmp/dfa/lib:$zdir:$here" /usr/bin/python3 \
    "$here/notebook_dfanalyzer.py" --pfs "$pfs" --ssd "$ssd" --model "$model" \
    --file "$file" --workers "$workers" --runs "$runs" --log "$tmp/dfa.log" \
    --events "$nb_events" --check-compare "$tmp/nb.one.json" \
    --check-events "$tmp/nb.ev/c.file_events.csv" \
    --between "bash $tmp/st_once.sh" "$tmp/nb") > "$tmp/dfa.out" 2> "$tmp/dfa.err" ||
    { cat "$tmp/dfa.out"; tail -30 "$tmp/dfa.err" >&2; die "DFAnalyzer failed or disagrees with streamtime's one pass"; }
grep -v -E '^\[?INFO' "$tmp/dfa.out" | sed 's/^/  /'
grep -q "agree on every answer" "$tmp/dfa.out" || die "DFAnalyzer and streamtime differ"
echo "  load after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "streamtime, after DFAnalyzer ($runs runs of each command) ..."
st_round after
check_one_three "$tmp/nb"

echo "  the machine's busy CPU time while the one pass ran (s, every process, streamtime's own included):" \
     "before${st_busy[before]}; between$(tr '\n' ' ' < "$tmp/st_between_busy.txt" | sed 's/^/ /; s/ $//'); after${st_busy[after]}"
for i in 0 1 2 3; do
    echo "  streamtime ${names[$i]} (s): before${st_times[before$i]};" \
         "between$(awk -v c="$i" '{printf " %.3f", $(2 * c + 1) / 1000}' "$tmp/st_between.txt");" \
         "after${st_times[after$i]}"
    echo "    CPU (user + system, s): before${st_cpu[before$i]};" \
         "between$(awk -v c="$i" '{printf " %s", $(2 * c + 2)}' "$tmp/st_between.txt");" \
         "after${st_cpu[after$i]}"
done

python3 - "$tmp/dfa.out" "$tmp/st_between.txt" \
    "${st_times[before0]}" "${st_times[before1]}" "${st_times[before2]}" "${st_times[before3]}" \
    "${st_times[after0]}" "${st_times[after1]}" "${st_times[after2]}" "${st_times[after3]}" \
    "${st_cpu[before0]}" "${st_cpu[before1]}" "${st_cpu[before2]}" "${st_cpu[before3]}" \
    "${st_cpu[after0]}" "${st_cpu[after1]}" "${st_cpu[after2]}" "${st_cpu[after3]}" <<'EOF'
import re, statistics as S, sys
runs = [tuple(float(x) for x in m.groups()) for m in
        re.finditer(r"^run \d+ load ([\d.]+) queries ([\d.]+) cpu ([\d.]+)", open(sys.argv[1]).read(), re.M)]
between = [[float(x) for x in l.split()] for l in open(sys.argv[2]) if l.strip()]
assert len(between) == len(runs), "one streamtime round per DFAnalyzer run"
assert all(len(b) == 8 for b in between), "wall and CPU of 4 commands a round"
a = sys.argv[3:]
wall = [[float(x) for x in (a[i] + " " + a[4 + i]).split()] + [b[2 * i] / 1000 for b in between]
        for i in range(4)]
cpu = [[float(x) for x in (a[8 + i] + " " + a[12 + i]).split()] + [b[2 * i + 1] for b in between]
       for i in range(4)]
one, stc = S.median(wall[0]), S.median(wall[1])
st3 = sum(S.median(w) for w in wall[1:])
c_one, c_cmp = S.median(cpu[0]), S.median(cpu[1])
c3 = sum(S.median(c) for c in cpu[1:])
load = S.median(r[0] for r in runs)
qry = S.median(r[1] for r in runs)
tot = S.median(r[0] + r[1] for r in runs)
dcpu = S.median(r[2] for r in runs)
print("streamtime medians over its %d runs of each (wall / CPU): the one pass %.3f / %.3f s,"
      " the three commands %.3f / %.3f s, trace compare (12 metrics) %.3f / %.3f s"
      % (len(wall[0]), one, c_one, st3, c3, stc, c_cmp))
print("DFAnalyzer (measured, %d runs): load median %.3f s, queries median %.3f s, load + queries median %.3f s,"
      " CPU (its client, scheduler and workers) median %.1f s" % (len(runs), load, qry, tot, dcpu))
def verdict(r):
    return "met" if r >= 100 else "NOT met"
for what, w, c in (("one pass (the whole notebook)", one, c_one),
                   ("three commands", st3, c3),
                   ("trace compare with the 12 metrics alone", stc, c_cmp)):
    print("ratio DFAnalyzer (load + queries) / streamtime's %s (medians): wall %.1fx (target >= 100x: %s),"
          " CPU %.1fx (%s)" % (what, tot / w, verdict(tot / w), dcpu / c, verdict(dcpu / c)))
def paired(f):
    x = [f(r, b) for r, b in zip(runs, between)]
    return "%s (median %.1fx)" % (" ".join("%.0fx" % v for v in x), S.median(x))
print("paired (each DFAnalyzer run / streamtime's run right after it), wall: the one pass %s;"
      " the three commands %s; trace compare %s"
      % (paired(lambda r, b: (r[0] + r[1]) / (b[0] / 1000)),
         paired(lambda r, b: (r[0] + r[1]) / ((b[2] + b[4] + b[6]) / 1000)),
         paired(lambda r, b: (r[0] + r[1]) / (b[2] / 1000))))
print("paired, CPU: the one pass %s; the three commands %s"
      % (paired(lambda r, b: r[2] / b[1]), paired(lambda r, b: r[2] / (b[3] + b[5] + b[7]))))
print("ratio DFAnalyzer load alone / streamtime's one pass (medians, wall): %.1fx" % (load / one))
EOF
