#!/usr/bin/env bash
# Benchmark: `streamtime collect receivers` vs a bash+jq collector and vs `find`.
#
#   bench/collect.sh [--runs N] [--baseline-runs N] [--small NSCANS]
#                    [--large NSCANS] [--json-dir DIR]
#
# Generates synthetic acquisition directories (bench/gen_acq.py, 76 files a
# scan) in a temporary directory and measures, with hyperfine -N:
# (a) bench/paper_collector.sh (our reconstruction of the paper's bash+jq
#     collector) vs `streamtime collect receivers DIR --out NEW --settle 0` on
#     --small scans (default 100); every run starts without an output file.
#     Target: streamtime at least 200x faster.
# (b) `find DIR -printf '%T@ %p\n' >/dev/null` vs a first full streamtime run
#     (fresh output each run) on --large scans (default 2000 = 152,000 files).
#     Target: streamtime at most 3x find.
# (c) a streamtime rerun with nothing new (the output is already complete) vs
#     the same find. Target: at most 1.5x find.
# All ratios are medians from this run. Warm-up runs keep the page, dentry
# and inode caches warm for both sides. STREAMTIME=path overrides the binary
# (default build/streamtime). Needs hyperfine, jq and /usr/bin/python3.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

bin=${STREAMTIME:-$root/build/streamtime}
python=${PYTHON:-/usr/bin/python3}
runs=30            # timed runs of streamtime and find
baseline_runs=5    # timed runs of the bash+jq baseline (about 18 s each for 100 scans)
small=100
large=2000
json_dir=

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "collect.sh: $*" >&2; exit 1; }
posint() { case $2 in ''|*[!0-9]*|0) die "$1 must be a positive integer, got '$2'" ;; esac; }
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }

while [ $# -gt 0 ]; do
    case $1 in
        --runs) [ $# -ge 2 ] || die "--runs needs a number"; runs=$2; shift 2 ;;
        --baseline-runs) [ $# -ge 2 ] || die "--baseline-runs needs a number"; baseline_runs=$2; shift 2 ;;
        --small) [ $# -ge 2 ] || die "--small needs a number"; small=$2; shift 2 ;;
        --large) [ $# -ge 2 ] || die "--large needs a number"; large=$2; shift 2 ;;
        --json-dir) [ $# -ge 2 ] || die "--json-dir needs a directory"; json_dir=$(abspath "$2"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
posint --runs "$runs"; posint --baseline-runs "$baseline_runs"
posint --small "$small"; posint --large "$large"

bin=$(abspath "$bin")
[ -x "$bin" ] || die "streamtime binary not found or not executable: $bin (build it with 'ninja -C build' or set STREAMTIME=path)"
command -v hyperfine >/dev/null || die "hyperfine not found (apt-get install -y hyperfine)"
command -v jq >/dev/null || die "jq not found (apt-get install -y jq); the baseline needs it"
[ -x "$python" ] || die "$python not found (the generator and the checks need python3, stdlib only)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamtime-collect.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -n "$json_dir" ] || json_dir=$tmp/results
mkdir -p "$json_dir"

sdir=$tmp/acq_small
ldir=$tmp/acq_large

echo "== generating $small scans ($((small * 76)) files) and $large scans ($((large * 76)) files) in $tmp"
"$python" "$here/gen_acq.py" "$sdir" "$small"
"$python" "$here/gen_acq.py" "$ldir" "$large"

# ---- correctness first (untimed) -------------------------------------------------
# check_full DIR CSV: every complete scan of DIR is in CSV once, in ascending
# order, with its status times and newest data-file mtime to the nanosecond
# (computed independently with python from the directory itself).
check_full() {
    "$python" - "$1" "$2" <<'EOF'
import csv, datetime as dt, json, os, re, sys
d, f = sys.argv[1], sys.argv[2]
NS = 10**9
def iso_ns(s):
    t = dt.datetime.fromisoformat(s)
    m = re.search(r'\.(\d+)', s)
    frac = int((m.group(1) + '000000000')[:9]) if m else 0
    return int(t.replace(microsecond=0).timestamp()) * NS + frac
status, newest = {}, {}
for e in os.scandir(d):
    m = re.fullmatch(r'4dstem_rec_status_(\d+)_scan_(\d+)\.json', e.name)
    if m:
        with open(e.path) as fh:
            status.setdefault(int(m.group(2)), {})[int(m.group(1))] = iso_ns(json.load(fh)['time'])
        continue
    m = re.fullmatch(r'data_scan(\d{10})_module\d+to\d+_dst\d+_file\d+\.data', e.name)
    if m:
        n = int(m.group(1))
        newest[n] = max(newest.get(n, 0), e.stat().st_mtime_ns)
want = {n: [s[r] for r in range(4)] + [newest[n]] for n, s in status.items()}
with open(f, newline='') as fh:
    rows = list(csv.reader(fh))
if rows[0] != ['scan_number', 'time0', 'time1', 'time2', 'time3', 'time_last_written']:
    sys.exit('%s: header %r' % (f, rows[0]))
scans = [int(r[0]) for r in rows[1:]]
got = {int(r[0]): [iso_ns(x) for x in r[1:]] for r in rows[1:]}
if scans != sorted(set(scans)):
    sys.exit('%s: scans not unique and ascending' % f)
bad = sorted(n for n in set(want) | set(got) if want.get(n) != got.get(n))
if bad:
    sys.exit('%s: %d scans differ from the directory, e.g. scan %d: got %r, want %r'
             % (f, len(bad), bad[0], got.get(bad[0]), want.get(bad[0])))
print('%s: %d rows, all times equal to the directory to the nanosecond' % (os.path.basename(f), len(got)))
EOF
}
# nrows CSV: data rows (header excluded)
nrows() { echo $(($(wc -l <"$1") - 1)); }
# rerun_writes_nothing DIR CSV: a second run leaves CSV byte for byte as it was
rerun_writes_nothing() {
    cp "$2" "$tmp/before.csv"
    "$bin" collect receivers "$1" --out "$2" --settle 0 2>"$tmp/rerun.err"
    cmp -s "$tmp/before.csv" "$2" || die "rerun on $1 changed $2"
    grep -q ': 0 written,' "$tmp/rerun.err" || die "rerun on $1 did not report 0 written: $(cat "$tmp/rerun.err")"
    echo "rerun: 0 rows written, $(basename "$2") unchanged ($(sed 's/^streamtime: //' "$tmp/rerun.err"))"
}

echo
echo "== checking outputs"
bash "$here/paper_collector.sh" "$sdir" "$tmp/check_base.csv"
"$bin" collect receivers "$sdir" --out "$tmp/check_st.csv" --settle 0 2>/dev/null
[ "$(nrows "$tmp/check_base.csv")" = "$small" ] || die "baseline wrote $(nrows "$tmp/check_base.csv") rows, expected $small"
check_full "$sdir" "$tmp/check_st.csv"
# streamtime keeps fractions of a second; the baseline (like the paper) does not
sed -E 's/\.[0-9]+\+00:00/+00:00/g' "$tmp/check_st.csv" >"$tmp/check_st_seconds.csv"
if ! diff -q "$tmp/check_base.csv" "$tmp/check_st_seconds.csv" >/dev/null; then
    diff "$tmp/check_base.csv" "$tmp/check_st_seconds.csv" | head >&2
    die "baseline and streamtime disagree on $sdir"
fi
echo "baseline and streamtime: the same $small scans, the same times to the second"
rerun_writes_nothing "$sdir" "$tmp/check_st.csv"

"$bin" collect receivers "$ldir" --out "$tmp/rerun.csv" --settle 0 2>/dev/null
check_full "$ldir" "$tmp/rerun.csv"
rerun_writes_nothing "$ldir" "$tmp/rerun.csv"

# ---- timing ---------------------------------------------------------------------------
json_median() {
    "$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"
}
# bench NAME WARMUP RUNS PREPARE CMD...: median wall seconds on stdout,
# hyperfine's report on stderr. PREPARE '' for none.
bench() {
    local name=$1 warmup=$2 n=$3 prepare=$4 cmd
    shift 4
    printf -v cmd '%q ' "$@"
    local args=(-N --style basic --output null --time-unit millisecond --warmup "$warmup" --runs "$n"
                --command-name "$name" --export-json "$json_dir/$name.json"
                --export-markdown "$json_dir/$name.md")
    [ -z "$prepare" ] || args+=(--prepare "$prepare")
    hyperfine "${args[@]}" "$cmd" >&2
    json_median "$json_dir/$name.json"
}

echo
echo "== timing with hyperfine $(hyperfine --version | awk '{ print $2 }') -N (warm caches: every command has warm-up runs first)"
echo "-- (a) $small scans: bash+jq baseline vs streamtime, no output file at the start of each run"
a_base=$tmp/a_base.csv a_st=$tmp/a_st.csv
t_base=$(bench a_baseline 1 "$baseline_runs" "rm -f $a_base" bash "$here/paper_collector.sh" "$sdir" "$a_base")
t_a=$(bench a_streamtime 5 "$runs" "rm -f $a_st $a_st.lock" "$bin" collect receivers "$sdir" --out "$a_st" --settle 0)
t_jq=$(bench context_jq 3 20 '' jq -r .time "$sdir/4dstem_rec_status_0_scan_1.json")

echo "-- (b) $large scans: find vs a first full streamtime run"
b_st=$tmp/b_st.csv
t_find=$(bench b_find 3 "$runs" '' find "$ldir" -printf '%T@ %p\n')
t_b=$(bench b_streamtime_first 3 "$runs" "rm -f $b_st $b_st.lock" "$bin" collect receivers "$ldir" --out "$b_st" --settle 0)

echo "-- (c) $large scans: streamtime rerun, nothing new ($(nrows "$tmp/rerun.csv") rows already in the output)"
t_c=$(bench c_streamtime_rerun 3 "$runs" '' "$bin" collect receivers "$ldir" --out "$tmp/rerun.csv" --settle 0)
[ "$(nrows "$tmp/rerun.csv")" = "$large" ] || die "the timed reruns changed the output: $(nrows "$tmp/rerun.csv") rows"
cmp -s "$tmp/before.csv" "$tmp/rerun.csv" || die "the timed reruns changed the output"

# ---- report -----------------------------------------------------------------------------
ms() { awk -v s="$1" 'BEGIN { v = s * 1000; if (v >= 100) printf "%.0f ms", v; else if (v >= 1) printf "%.1f ms", v; else printf "%.3f ms", v }'; }
# verdict RATIO OP TARGET: "met" or "MISSED"
verdict() { awk -v r="$1" -v op="$2" -v t="$3" 'BEGIN { ok = (op == ">=") ? r >= t : r <= t; print ok ? "met" : "MISSED" }'; }
r_a=$(awk -v b="$t_base" -v s="$t_a" 'BEGIN { printf "%.0f", b / s }')
r_b=$(awk -v f="$t_find" -v s="$t_b" 'BEGIN { printf "%.2f", s / f }')
r_c=$(awk -v f="$t_find" -v s="$t_c" 'BEGIN { printf "%.2f", s / f }')
cpu=$(grep -m1 -E '^(model name|Hardware|uarch|cpu model)' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')

echo
echo "== results (median wall time)"
echo "(a) $small scans, $((small * 76)) files:"
echo "    baseline bash+jq (paper_collector.sh):     $(ms "$t_base")"
echo "    streamtime collect receivers, fresh out:   $(ms "$t_a")"
echo "    RATIO baseline/streamtime = ${r_a}x   (target >= 200x: $(verdict "$r_a" '>=' 200))"
echo "    context: one 'jq -r .time FILE' = $(ms "$t_jq"); the baseline runs $((small * 4)) of them = $(awk -v j="$t_jq" -v n=$((small * 4)) -v b="$t_base" 'BEGIN { printf "%.0f%%", 100 * j * n / b }') of its time"
echo "(b) $large scans, $((large * 76)) files:"
printf '    %s     %s\n' "find DIR -printf '%T@ %p\\n' >/dev/null:" "$(ms "$t_find")"
echo "    streamtime, first full run (fresh out):    $(ms "$t_b")"
echo "    RATIO streamtime/find = ${r_b}x   (target <= 3x: $(verdict "$r_b" '<=' 3))"
echo "(c) $large scans, rerun with nothing new:"
echo "    streamtime rerun:                          $(ms "$t_c")"
echo "    RATIO streamtime/find = ${r_c}x   (target <= 1.5x: $(verdict "$r_c" '<=' 1.5))"
echo
echo "== hyperfine tables"
echo '| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |'
echo '|:---|---:|---:|---:|---:|'
for f in a_baseline a_streamtime context_jq b_find b_streamtime_first c_streamtime_rerun; do
    tail -n +3 "$json_dir/$f.md"
done
echo
echo "== machine"
echo "cpus: $(nproc)"
echo "cpu: ${cpu:-unknown}"
echo "kernel: $(uname -sr) ($(uname -m))"
# shellcheck disable=SC1091
echo "os: $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")"
echo "filesystem of $tmp: $(df -T "$tmp" | awk 'NR == 2 { print $2 }')"
echo "jq: $(jq --version), bash $BASH_VERSION, $(find --version | head -n1)"
echo "streamtime: $bin"
echo "raw timings: $json_dir$([ "$json_dir" = "$tmp/results" ] && echo ' (deleted on exit; pass --json-dir DIR to keep them)')"
