#!/usr/bin/env bash
# Benchmark: the paper's pandas pipeline (baseline) vs `streamtime reproduce`.
#
#   bench/run.sh [--data DIR] [--bin PATH] [--runs N] [--json-dir DIR] [--baseline-only]
#
# (a) baseline: the seven non-plotting steps of the paper's run_all.sh, one
#     fresh `/usr/bin/python3 bench/paper_pipeline.py STEP DATA OUT` process per
#     step, as the paper ran them;
# (b) `$BIN reproduce --data DATA --out OUT`.
# Prints the median wall time of each, the ratio baseline/streamtime, the cost
# of `import pandas` alone (context), and facts about the machine.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

data="$root/../shared/paper-data"
bin="$root/build/streamtime"
runs=10
json_dir="$root/out/bench"
baseline_only=0
python=${PYTHON:-/usr/bin/python3}   # Debian's python3 + python3-pandas, not whatever is on PATH

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "run.sh: $*" >&2; exit 1; }
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }

while [ $# -gt 0 ]; do
    case $1 in
        --data) [ $# -ge 2 ] || die "--data needs a directory"; data=$(abspath "$2"); shift 2 ;;
        --bin) [ $# -ge 2 ] || die "--bin needs a path"; bin=$(abspath "$2"); shift 2 ;;
        --runs) [ $# -ge 2 ] || die "--runs needs a number"; runs=$2; shift 2 ;;
        --json-dir) [ $# -ge 2 ] || die "--json-dir needs a directory"; json_dir=$(abspath "$2"); shift 2 ;;
        --baseline-only) baseline_only=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done

case $runs in ''|*[!0-9]*|0) die "--runs must be a positive integer, got '$runs'" ;; esac
if [ ! -d "$data/file_transfer" ] || [ ! -d "$data/streaming" ]; then
    die "$data is not the paper's data folder (needs file_transfer/ and streaming/); pass --data DIR"
fi
data=$(cd "$data" && pwd)
if [ "$baseline_only" = 0 ]; then
    [ -e "$bin" ] || die "streamtime binary not found: $bin (build it first, e.g. 'meson setup build && meson compile -C build', or pass --bin PATH; --baseline-only times the baseline alone)"
    [ -x "$bin" ] || die "streamtime binary is not executable: $bin"
fi
[ -x "$python" ] || die "$python not found (install python3)"
"$python" -c 'import pandas' 2>/dev/null || die "$python cannot import pandas (apt-get install python3-pandas)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamtime-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$json_dir" "$tmp/baseline_out" "$tmp/streamtime_out"
cd "$root"

# The baseline as one command: seven python processes, stdout discarded.
baseline_sh="$tmp/baseline.sh"
{
    echo 'set -e'
    for step in 1 2 3 4 5 6 7; do
        printf '%q %q %s %q %q >/dev/null\n' "$python" "$root/bench/paper_pipeline.py" "$step" "$data" "$tmp/baseline_out"
    done
} >"$baseline_sh"
baseline_cmd=(bash "$baseline_sh")
streamtime_cmd=("$bin" reproduce --data "$data" --out "$tmp/streamtime_out")
onepass_cmd=("$python" "$root/bench/paper_pipeline.py" all "$data" "$tmp/baseline_out")
import_cmd=("$python" -c 'import pandas')
python_cmd=("$python" -c 'pass')

# ---- correctness first (untimed): both must produce the paper's table --------
# shellcheck disable=SC2016,SC1003  # literal LaTeX
expected_rows=(
    '128 x 128 x 576 x 576 & 10 GB & $52.0 \pm 30.6$ & $4.0 \pm 0.0$ & 13.0 \\'
    '256 x 256 x 576 x 576 & 43 GB & $92.3 \pm 38.6$ & $6.8 \pm 0.6$ & 13.6 \\'
    '512 x 512 x 576 x 576 & 173 GB & $138.5 \pm 28.2$ & $25.1 \pm 1.3$ & 5.5 \\'
    '1024 x 1024 x 576 x 576 & 695 GB & $442.6 \pm 53.5$ & $97.2 \pm 4.1$ & 4.6 \\'
)
echo "== checking outputs"
bash "$baseline_sh"
for row in "${expected_rows[@]}"; do
    grep -qxF -- "$row" "$tmp/baseline_out/outputs/statistics_table.tex" ||
        die "baseline table lacks the paper's row: $row"
done
echo "baseline: statistics_table.tex matches the paper's table"
if [ "$baseline_only" = 0 ]; then
    rc=0
    "${streamtime_cmd[@]}" >"$tmp/streamtime.stdout" 2>"$tmp/streamtime.stderr" || rc=$?
    if [ "$rc" != 0 ]; then
        cat "$tmp/streamtime.stderr" >&2
        die "'$bin reproduce --data $data --out ...' failed (exit $rc)"
    fi
    missing=()
    for v in 52.0 30.6 13.0 92.3 38.6 6.8 13.6 138.5 28.2 25.1 5.5 442.6 53.5 97.2 4.1 4.6; do
        grep -qF -- "$v" "$tmp/streamtime.stdout" || missing+=("$v")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "streamtime: stdout shows the paper's numbers"
    else
        echo "WARNING: streamtime stdout lacks ${missing[*]} - is it computing the same thing?" >&2
    fi
fi

# ---- timing ------------------------------------------------------------------
# median_of FILE: median of the numbers (seconds), one per line
median_of() {
    sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
json_median() {
    "$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"
}

# BENCH_TIMER=loop forces the fallback even when hyperfine is installed.
if [ "${BENCH_TIMER:-}" != loop ] && command -v hyperfine >/dev/null 2>&1; then
    timer="hyperfine $(hyperfine --version | awk '{ print $2 }')"
    # bench NAME WARMUP CMD...: median wall seconds on stdout, hyperfine's report on stderr
    bench() {
        local name=$1 warmup=$2; shift 2
        local cmd
        printf -v cmd '%q ' "$@"
        hyperfine -N --style basic --warmup "$warmup" --runs "$runs" \
            --command-name "$name" --export-json "$json_dir/$name.json" "$cmd" >&2
        json_median "$json_dir/$name.json"
    }
else
    [ "${BENCH_TIMER:-}" = loop ] || echo "hyperfine not found (apt-get install hyperfine); using a shell loop" >&2
    if [ -n "${EPOCHREALTIME:-}" ]; then
        timer="bash loop (EPOCHREALTIME)"
        now_ns() { local t=${EPOCHREALTIME/[.,]/}; echo "${t}000"; }
    else
        timer="bash loop (date +%s%N)"
        now_ns() { date +%s%N; }
    fi
    bench() {
        local name=$1 warmup=$2; shift 2
        local i t0 t1 f="$json_dir/$name.times"
        for ((i = 0; i < warmup; i++)); do "$@" >/dev/null; done
        : >"$f"
        for ((i = 0; i < runs; i++)); do
            t0=$(now_ns); "$@" >/dev/null; t1=$(now_ns)
            awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.9f\n", (b - a) / 1e9 }' >>"$f"
        done
        echo "$name: $runs runs, median $(median_of "$f") s (times in $f)" >&2
        median_of "$f"
    }
fi

echo
echo "== timing with $timer, $runs runs each"
t_base=$(bench baseline 1 "${baseline_cmd[@]}")
if [ "$baseline_only" = 0 ]; then
    t_st=$(bench streamtime 3 "${streamtime_cmd[@]}")
fi
t_onepass=$(bench baseline_one_process 1 "${onepass_cmd[@]}")
t_import=$(bench pandas_import 1 "${import_cmd[@]}")
t_python=$(bench python_startup 1 "${python_cmd[@]}")

# ---- report --------------------------------------------------------------------
ms() { awk -v s="$1" 'BEGIN { v = s * 1000; if (v >= 100) printf "%.0f ms", v; else if (v >= 1) printf "%.1f ms", v; else printf "%.3f ms", v }'; }
cpu=$(grep -m1 -E '^(model name|Hardware|uarch|cpu model)' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')
py_versions=$("$python" -c 'import sys, pandas, numpy; print("python %s, pandas %s, numpy %s" % (sys.version.split()[0], pandas.__version__, numpy.__version__))')

echo
echo "== results (median wall time)"
echo "baseline (7 python+pandas processes): $(ms "$t_base")"
if [ "$baseline_only" = 0 ]; then
    echo "streamtime reproduce:                 $(ms "$t_st")"
    awk -v b="$t_base" -v s="$t_st" 'BEGIN { r = b / s; if (r >= 10) printf "speedup: %.0fx\n", r; else printf "speedup: %.1fx\n", r }'
fi
echo
echo "context (not the baseline):"
echo "  python3 -c 'import pandas':          $(ms "$t_import") (bare interpreter start: $(ms "$t_python"))"
echo "  7 x import pandas:                   $(awk -v t="$t_import" -v b="$t_base" 'BEGIN { printf "%.0f ms = %.0f%% of the baseline median", t * 7000, 100 * 7 * t / b }')"
echo "  the 7 steps in ONE python process:   $(ms "$t_onepass") (paper_pipeline.py all)"
echo
echo "== machine"
echo "cpus: $(nproc)"
echo "cpu: ${cpu:-unknown}"
echo "kernel: $(uname -sr) ($(uname -m))"
# shellcheck disable=SC1091
echo "os: $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")"
echo "$py_versions ($python)"
echo "timer: $timer"
if [ "$baseline_only" = 0 ]; then
    echo "streamtime: $bin ($("$bin" --version 2>/dev/null | head -n1 || true))"
fi
echo "data: $data"
echo "raw timings: $json_dir"
