#!/usr/bin/env bash
# Benchmark against the peer: `streamtime trace summary` (every event
# parsed) against LLNL dftracer-utils' dftracer_event_count (counts the
# valid event lines), on the same directory of .pfw.gz files.
#
#   bench/peer.sh [--runs R] [--bin PATH] [--mirror DIR] [--build DIR] GZDIR
#
# GZDIR holds the .pfw.gz files (bench/trace.sh --keep DIR leaves them in
# DIR/gz).  The peer is built offline, once, into --build (default
# ~/.cache/streamtime-bench/dftracer-utils-REV), from git repositories under
# --mirror (default /work/.mirror, laid out OWNER+NAME/repo as the fetch
# tool leaves them): LLNL/dftracer-utils and its CPM dependencies
# (cpm-cmake/CPM.cmake v0.42.0, p-ranav/argparse v3.2, gulrak/filesystem
# v1.5.14, ibireme/yyjson 0.12.0, Cyan4973/xxHash, hariharan-devarajan/
# cpp-logger); zlib and SQLite come from Debian (zlib1g-dev,
# libsqlite3-dev).  Without them it exits 77.  Times (hyperfine, medians
# of R runs, default 5; the peer's index is built by the warm-up run, in a
# directory of its own):
#   streamtime trace summary -q -j 1 and -j 2, and dftracer_event_count
#   --threads 2 (at 317b0d8 it never ends with --threads 1: it waits with
#   no CPU time), and the ratios.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
bin="$root/build/streamtime"
mirror=/work/.mirror
build=""
runs=5
python=${PYTHON:-/usr/bin/python3}

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "peer.sh: $*" >&2; exit 1; }
skip() { echo "peer.sh: $*: skipped" >&2; exit 77; }
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }

while [ $# -gt 0 ]; do
    case $1 in
        --runs) runs=${2:-}; shift 2 ;;
        --bin) bin=$(abspath "${2:-}"); shift 2 ;;
        --mirror) mirror=$(abspath "${2:-}"); shift 2 ;;
        --build) build=$(abspath "${2:-}"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) usage >&2; die "unknown argument: $1" ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] || { usage >&2; die "one GZDIR expected"; }
gzdir=$(abspath "$1")
case $runs in ''|*[!0-9]*|0) die "--runs takes a positive integer" ;; esac
[ -x "$bin" ] || die "no streamtime binary at $bin (meson compile -C build)"
ls "$gzdir"/*.pfw.gz >/dev/null 2>&1 || die "no .pfw.gz files in $gzdir"
command -v hyperfine >/dev/null || die "hyperfine is needed (apt-get install hyperfine)"

# ---- the peer, built offline ---------------------------------------------------
# NAME (as CPM calls it) REPOSITORY REVISION
deps="argparse p-ranav+argparse v3.2
ghc_filesystem gulrak+filesystem v1.5.14
yyjson ibireme+yyjson 0.12.0
xxhash Cyan4973+xxHash HEAD
cpplogger hariharan-devarajan+cpp-logger HEAD"
peer_git="$mirror/LLNL+dftracer-utils/repo"
[ -d "$peer_git" ] || skip "no dftracer-utils source at $peer_git"
for r in "cpm-cmake+CPM.cmake" $(echo "$deps" | awk '{print $2}'); do
    [ -d "$mirror/$r/repo" ] || skip "no $r at $mirror/$r/repo"
done
command -v cmake >/dev/null && command -v g++ >/dev/null || skip "cmake and g++ are needed"
"$root/tests/install_packages.sh" zlib1g-dev libsqlite3-dev >&2 || skip "zlib1g-dev and libsqlite3-dev are needed"
rev=$(git -C "$peer_git" rev-parse --short HEAD)
[ -n "$build" ] || build="${XDG_CACHE_HOME:-$HOME/.cache}/streamtime-bench/dftracer-utils-$rev"
peer="$build/build/bin/dftracer_event_count"
if [ ! -x "$peer" ]; then
    echo "building dftracer-utils $rev offline in $build ..." >&2
    rm -rf "$build"
    mkdir -p "$build/src"
    src="$build/src/dftracer-utils"
    git -C "$peer_git" archive HEAD | tar -x -C "$build/src" --one-top-level=dftracer-utils
    mkdir -p "$build/src/cpm"
    git -C "$mirror/cpm-cmake+CPM.cmake/repo" archive v0.42.0 cmake/CPM.cmake | tar -x -C "$build/src/cpm"
    # its CPM.cmake downloads CPM itself: the fetched one instead
    printf 'include(%s)\n' "$build/src/cpm/cmake/CPM.cmake" > "$src/cmake/modules/CPM.cmake"
    # the packages are added with FORCE, which ignores CPM_<name>_SOURCE:
    # each goes where CPM looks in its source cache (a directory it names
    # on the first configure that misses it)
    for i in 1 2 3 4 5 6; do
        rm -rf "$build/build"
        if cmake -S "$src" -B "$build/build" -DCMAKE_BUILD_TYPE=Release -Wno-dev \
            >"$build/cmake.log" 2>&1; then
            break
        fi
        line=$(grep -o "Adding package [^ ]* ([^ ]* to [^)]*)" "$build/cmake.log" | tail -1) ||
            die "configure failed: $build/cmake.log"
        name=${line#Adding package }; name=${name%%@*}
        dir=${line##* to }; dir=${dir%)}
        dep=$(echo "$deps" | awk -v n="$name" '$1 == n')
        [ -n "$dep" ] && [ ! -e "$dir" ] || die "configure failed at $name: $build/cmake.log"
        set -- $dep
        mkdir -p "$dir"
        # xxHash: the two files it builds from (its snapshot lacks test data)
        if [ "$name" = xxhash ]; then
            git -C "$mirror/$2/repo" archive "$3" xxhash.c xxhash.h | tar -x -C "$dir"
        else
            git -C "$mirror/$2/repo" archive "$3" | tar -x -C "$dir"
        fi
    done
    [ -f "$build/build/Makefile" ] || die "configure failed: $build/cmake.log"
    make -C "$build/build" -j "$(nproc)" dftracer_event_count >"$build/make.log" 2>&1 ||
        die "build failed: $build/make.log"
    [ -x "$peer" ] || peer=$(find "$build/build" -name dftracer_event_count -type f -perm -u+x | head -1)
    [ -x "$peer" ] || die "no dftracer_event_count in $build/build"
fi
[ -x "$peer" ] || peer=$(find "$build/build" -name dftracer_event_count -type f -perm -u+x | head -1)

# ---- timing ---------------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamtime-peer-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/index"
gzs=("$gzdir"/*.pfw.gz)
events=$("$bin" trace summary --json -q -j 2 "${gzs[@]}" |
    "$python" -c 'import json,sys; print(json.load(sys.stdin)["events"])')
counted=$(timeout 600 "$peer" -d "$gzdir" --threads 2 --index-dir "$tmp/index" 2>/dev/null | tail -1) ||
    die "dftracer_event_count failed or ran 10 minutes"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
hf() {  # COMMAND: median seconds
    hyperfine -N --style none --warmup 1 --runs "$runs" --export-json "$tmp/hf.json" "$1" \
        >/dev/null 2>&1 || die "failed: $1"
    "$python" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["median"], min(r["times"]), max(r["times"]))' "$tmp/hf.json"
}
echo "timing ($runs runs each, medians) ..." >&2
declare -A t
t[peer]=$(hf "$peer -d $gzdir --threads 2 --index-dir $tmp/index")
t[st1]=$(hf "$bin trace summary -q -j 1 --out $tmp/s.txt ${gzs[*]}")
t[st2]=$(hf "$bin trace summary -q -j 2 --out $tmp/s.txt ${gzs[*]}")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "files: ${#gzs[@]} .pfw.gz in $gzdir, $(cat "${gzs[@]}" | wc -c) bytes; streamtime: $events X events"
echo "dftracer_event_count counts: $counted"
echo
echo "| what | threads | median (s) | min-max (s) | time / the peer's |"
echo "|---|---|---|---|---|"
read -r pm plo phi <<<"${t[peer]}"
printf '| dftracer_event_count (%s) | 2 | %.3f | %.3f-%.3f | - |\n' "$rev" "$pm" "$plo" "$phi"
for n in 1 2; do
    read -r sm slo shi <<<"${t[st$n]}"
    ratio=$(awk -v a="$sm" -v b="$pm" 'BEGIN{printf "%.2fx", a / b}')
    printf '| streamtime trace summary -j %d | %d | %.3f | %.3f-%.3f | %s |\n' "$n" "$n" "$sm" "$slo" "$shi" "$ratio"
done
echo
echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr)"
echo "streamtime: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)'), $bin; peer: $peer"
echo "load average before/after: $load_before / $load_after"
