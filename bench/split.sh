#!/usr/bin/env bash
# Benchmark: one big .pfw.gz on two cores (issue 27 item 2), all ratios
# measured in the same hyperfine runs.
#
#   bench/split.sh [--events N] [--runs R] [--rounds K] [--bin PATH]
#                  [--keep DIR]
#
# Generates one .pfw of N X events (default 1,250,000: about 263 MB, as
# one of bench/trace.sh's files) from the fixtures in
# ../shared/fixtures/dftracer with bench/gen_pfw.py, gzips it (gzip -6),
# lets it settle 2 s (the cache keeps nothing of a file changed later),
# and builds its access points with a first `--cache DIR` read.  Then, K
# rounds (default 3), each one hyperfine run of R runs (default 5) of:
#   split   trace summary -j 1 and -j 2 --cache DIR, the result entries
#           removed before each run (--prepare; the access points stay):
#           -j 2 reads the file in two ranges (issue 27's figure: at least
#           1.7x faster than -j 1)
#   build   the first read with a new --cache DIR, which builds the access
#           points, against a plain read without --cache (the figure: at
#           most 1.15x), and against the same first read of the file under
#           a name without ".gz" (the same gzip bytes: read and cached
#           alike, no access points built), which isolates their cost
# and prints the ratios of each round, their spread, the load and the
# machine.  Every output is checked byte-identical to the plain read.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
fix="$root/../shared/fixtures/dftracer"
bin="$root/build/streamtime"
events=1250000
runs=5
rounds=3
keep=""
python=${PYTHON:-/usr/bin/python3}

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "split.sh: $*" >&2; exit 1; }
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
isnum() { case $1 in ''|*[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ]; }

while [ $# -gt 0 ]; do
    case $1 in
        --events) events=${2:-}; shift 2 ;;
        --runs) runs=${2:-}; shift 2 ;;
        --rounds) rounds=${2:-}; shift 2 ;;
        --bin) bin=$(abspath "${2:-}"); shift 2 ;;
        --keep) keep=$(abspath "${2:-}"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
for v in events runs rounds; do
    isnum "${!v}" || die "--$v takes a positive integer"
done
[ -x "$bin" ] || die "no streamtime binary at $bin (meson compile -C build)"
[ -d "$fix" ] || die "no fixtures at $fix"
command -v hyperfine >/dev/null || die "hyperfine is needed (apt-get install hyperfine)"

if [ -n "$keep" ]; then
    tmp=$keep
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamtime-split-bench.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
fi
rm -rf "$tmp/cache" "$tmp/fresh"
mkdir -p "$tmp/plain"

echo "generating $events events under $tmp ..."
"$python" "$here/gen_pfw.py" "$fix" "$tmp/plain" "$events" 1 >/dev/null
gzip -6 -c "$tmp/plain/trace-00.pfw" > "$tmp/big.pfw.gz"
cp "$tmp/big.pfw.gz" "$tmp/big-noidx.pfw"     # gzip bytes, no ".gz"
plain_bytes=$(wc -c < "$tmp/plain/trace-00.pfw")
gz_bytes=$(wc -c < "$tmp/big.pfw.gz")
rm -rf "$tmp/plain"
sleep 2.2

# result entries out, access points kept (their payload's magic)
cat > "$tmp/drop.sh" <<'EOF'
#!/bin/sh
for f in "$1"/st1-*.entry; do
    [ -e "$f" ] || continue
    head -c 400 "$f" | grep -qa stzran1 || rm -f "$f"
done
EOF
chmod +x "$tmp/drop.sh"

"$bin" trace summary -j 1 "$tmp/big.pfw.gz" > "$tmp/ref.txt"
"$bin" -v trace summary -j 1 --cache "$tmp/cache" "$tmp/big.pfw.gz" \
    > "$tmp/out.txt" 2> "$tmp/err.txt"
grep -q "1 indexed" "$tmp/err.txt" || die "no access points built: $(tail -1 "$tmp/err.txt")"
"$tmp/drop.sh" "$tmp/cache"
"$bin" -v trace summary -j 2 --cache "$tmp/cache" "$tmp/big.pfw.gz" \
    > "$tmp/out2.txt" 2> "$tmp/err.txt"
grep -q "1 read in ranges" "$tmp/err.txt" || die "not read in ranges: $(tail -1 "$tmp/err.txt")"
for o in out out2; do
    cmp -s "$tmp/ref.txt" "$tmp/$o.txt" || die "$o differs from the plain read"
done
index_bytes=0
for f in "$tmp"/cache/st1-*.entry; do
    if head -c 400 "$f" | grep -qa stzran1; then index_bytes=$(wc -c < "$f"); fi
done

hf() {  # NAME PREPARE COMMAND...: hyperfine's JSON in $tmp/NAME.json
    local name=$1 prep=$2; shift 2
    hyperfine -N --style none --warmup 1 --runs "$runs" --prepare "$prep" \
        --export-json "$tmp/$name.json" "$@" >/dev/null 2>&1 ||
        die "$name failed: $*"
}
loads=()
for k in $(seq "$rounds"); do
    echo "round $k of $rounds ..."
    loads+=("$(cut -d' ' -f1 /proc/loadavg)")
    hf "split-$k" "$tmp/drop.sh $tmp/cache" \
        "$bin trace summary -j 1 --cache $tmp/cache --out $tmp/s1.txt $tmp/big.pfw.gz" \
        "$bin trace summary -j 2 --cache $tmp/cache --out $tmp/s2.txt $tmp/big.pfw.gz"
    hf "build-$k" "rm -rf $tmp/fresh" \
        "$bin trace summary -j 1 --cache $tmp/fresh --out $tmp/b1.txt $tmp/big.pfw.gz" \
        "$bin trace summary -j 1 --out $tmp/b2.txt $tmp/big.pfw.gz" \
        "$bin trace summary -j 1 --cache $tmp/fresh --out $tmp/b3.txt $tmp/big-noidx.pfw"
    for o in s1 s2 b1 b2; do
        cmp -s "$tmp/ref.txt" "$tmp/$o.txt" || die "$o differs from the plain read"
    done
done
loads+=("$(cut -d' ' -f1 /proc/loadavg)")

"$python" - "$tmp" "$rounds" "$events" "$plain_bytes" "$gz_bytes" \
    "$index_bytes" <<'EOF'
import json, statistics, sys
tmp, rounds, ev, pb, gb, ib = sys.argv[1], int(sys.argv[2]), *map(int, sys.argv[3:])
def med(name, k):
    r = json.load(open("%s/%s-%d.json" % (tmp, name, k)))["results"]
    return [x["median"] for x in r]
def cpu(name, k):
    r = json.load(open("%s/%s-%d.json" % (tmp, name, k)))["results"]
    return [x["user"] + x["system"] for x in r]
print()
print("one file: %d X events, %.0f MB inflated, %.1f MB gzip; its access "
      "points %.1f MB" % (ev, pb / 1e6, gb / 1e6, ib / 1e6))
print()
print("| round | -j 1 (s) | -j 2 in ranges (s) | speed-up | first read, "
      "building (s) | plain read (s) | first read, no index (s) | "
      "building / plain | building / no index |")
print("|---|---|---|---|---|---|---|---|---|")
sp, bp, bn, c = [], [], [], []
for k in range(1, rounds + 1):
    j1, j2 = med("split", k)
    b, p, n = med("build", k)
    sp.append(j1 / j2); bp.append(b / p); bn.append(b / n)
    print("| %d | %.3f | %.3f | %.2fx | %.3f | %.3f | %.3f | %.2fx | %.2fx |"
          % (k, j1, j2, j1 / j2, b, p, n, b / p, b / n))
    c.append((cpu("split", k), cpu("build", k)))
print()
print("CPU time (user + system, means of each round): -j 1 %s s, -j 2 %s s; "
      "first read building %s s, plain %s s, first read without an index "
      "%s s" % tuple("/".join("%.3f" % x[i][j] for x in c)
                     for i, j in ((0, 0), (0, 1), (1, 0), (1, 1), (1, 2))))
print()
for name, v, goal in (("-j 2 speed-up", sp, "at least 1.7x"),
                      ("first read building / plain read", bp,
                       "at most 1.15x"),
                      ("first read building / same without an index", bn,
                       "-")):
    print("%s: median %.2fx, spread %.2f-%.2fx (figure: %s)" % (
        name, statistics.median(v), min(v), max(v), goal))
EOF
echo
echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr)"
echo "streamtime: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)'), $bin"
echo "load average (1 min) at each round's start and at the end: ${loads[*]}"
