#!/usr/bin/env bash
# Benchmark: the result cache (issue 27 item 3): `trace summary` and `trace
# compare` with `--cache DIR` over unchanged files, the rerun against the
# first run of the same cache and against a run without the cache.
#
#   bench/cache.sh [--copies N] [--runs R] [--bin PATH] [--repo GITDIR]
#                  [--keep DIR]
#
# The set: N copies (default 32) of the 48 cm1 ranks of DFTracer's
# repository (examples/dfanalyzer/test-trace-distributed/cm1_1_48_20240926,
# 80 KB gzipped each; 1,536 files at 32), read out of GITDIR with git
# (default: the `fetch` tool's mirror /work/.mirror/hariharan-devarajan+
# dftracer/repo; exit 77 when it is not there), as real files (no links:
# the key is the file's own inode), N folders of 48.  Per round, R rounds
# (default 3): a run without the cache, then the first run with a new
# --cache DIR, then the rerun with it, for `trace summary` and for `trace
# compare --json` (the notebook's 12 metrics of bench/notebook_common.sh, one
# case); every output is checked byte for byte against the run without
# the cache (exit 1 otherwise).  Prints each run's wall time, the medians
# and the ratios first/rerun (the figure: at least 20) and plain/rerun.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
bin="$root/build/streamtime"
repo=/work/.mirror/hariharan-devarajan+dftracer/repo
copies=32
runs=3
keep=""
fix="$root/../shared/fixtures/dftracer"   # for notebook_common.sh

usage() { sed -n "2,/^set -euo/p" "$0" | sed "\$d; s/^# \\{0,1\\}//"; }
die() { echo "cache.sh: $*" >&2; exit 1; }
# shellcheck source=bench/notebook_common.sh
. "$here/notebook_common.sh"

while [ $# -gt 0 ]; do
    case $1 in
        --copies) copies=${2:-}; shift 2 ;;
        --runs) runs=${2:-}; shift 2 ;;
        --bin) bin=$(abspath "${2:-}"); shift 2 ;;
        --repo) repo=$(abspath "${2:-}"); shift 2 ;;
        --keep) keep=$(abspath "${2:-}"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
isnum "$copies" || die "--copies takes a positive integer"
isnum "$runs" || die "--runs takes a positive integer"
[ -x "$bin" ] || die "no streamtime binary at $bin (meson compile -C build)"
ranks=examples/dfanalyzer/test-trace-distributed/cm1_1_48_20240926
if ! git --git-dir "$repo" cat-file -e "HEAD:$ranks" 2>/dev/null; then
    echo "cache.sh: no DFTracer repository at $repo (fetch" \
         "github:hariharan-devarajan/dftracer): skipped" >&2
    exit 77
fi
scratch_dir

set_dir=$tmp/set
if [ ! -d "$set_dir/c1" ]; then
    mkdir -p "$set_dir/c1"
    git --git-dir "$repo" ls-tree --name-only "HEAD:$ranks" |
        while read -r f; do
            git --git-dir "$repo" show "HEAD:$ranks/$f" > "$set_dir/c1/$f"
        done
    for i in $(seq 2 "$copies"); do cp -r "$set_dir/c1" "$set_dir/c$i"; done
fi
sleep 2   # a file changed in the last 2 s is not kept (docs/trace.md)
nfiles=$(find "$set_dir" -name '*.pfw.gz' | wc -l)
write_metrics "$tmp/metrics.json"

now() { date +%s%N; }
# timed NAME COMMAND...: runs it, stdout to $tmp/NAME.out; prints seconds
timed() {
    local name=$1 t0 t1
    shift
    t0=$(now)
    "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" ||
        { cat "$tmp/$name.err" >&2; die "failed: $*"; }
    t1=$(now)
    echo "scale=3; ($t1 - $t0) / 1000000000" | bc
}

sum_cmd() { "$bin" trace summary "$@" "$set_dir"/c*; }
cmp_cmd() {
    local dirs
    dirs=$(printf '%s,' "$set_dir"/c*)
    "$bin" trace compare --json --metrics "$tmp/metrics.json" \
        --case "cm1=${dirs%,}" "$@"
}

declare -a s_p s_f s_r c_p c_f c_r
machine_line
echo "set: $nfiles files ($copies copies of the 48 cm1 ranks)," \
     "$(du -sh "$set_dir" | cut -f1) gzipped; streamtime $bin"
for r in $(seq 1 "$runs"); do
    rm -rf "$tmp/cache"
    s_p+=("$(timed sum_plain sum_cmd)")
    s_f+=("$(timed sum_first sum_cmd --cache "$tmp/cache")")
    s_r+=("$(timed sum_rerun sum_cmd --cache "$tmp/cache")")
    c_p+=("$(timed cmp_plain cmp_cmd)")
    c_f+=("$(timed cmp_first cmp_cmd --cache "$tmp/cache")")
    c_r+=("$(timed cmp_rerun cmp_cmd --cache "$tmp/cache")")
    for k in sum_first sum_rerun; do
        cmp -s "$tmp/sum_plain.out" "$tmp/$k.out" ||
            die "summary: $k differs from the run without the cache"
        cmp -s "$tmp/sum_plain.err" "$tmp/$k.err" ||
            die "summary: $k's messages differ"
    done
    for k in cmp_first cmp_rerun; do
        cmp -s "$tmp/cmp_plain.out" "$tmp/$k.out" ||
            die "compare: $k differs from the run without the cache"
    done
    echo "round $r: summary plain ${s_p[-1]} s, first ${s_f[-1]} s," \
         "rerun ${s_r[-1]} s; compare plain ${c_p[-1]} s, first ${c_f[-1]} s," \
         "rerun ${c_r[-1]} s; load $(cut -d' ' -f1 /proc/loadavg)"
done
echo "cache: $(du -sh "$tmp/cache" | cut -f1), $(find "$tmp/cache" -name 'st1-*' | wc -l) entries"
ratio() { echo "scale=1; $1 / $2" | bc; }
for c in sum cmp; do
    p=$(eval median "\"\${${c:0:1}_p[@]}\"")
    f=$(eval median "\"\${${c:0:1}_f[@]}\"")
    rr=$(eval median "\"\${${c:0:1}_r[@]}\"")
    echo "$c: median plain $p s, first $f s, rerun $rr s;" \
         "first/rerun $(ratio "$f" "$rr")x, plain/rerun $(ratio "$p" "$rr")x;" \
         "outputs identical"
done
