#!/usr/bin/env bash
# Benchmark: `streamtime trace timeline` to Perfetto's protobuf on a big
# DFTracer trace, against one `trace summary` pass over the same input and
# against the JSON timeline, all in one run (issue 26).
#
#   bench/timeline.sh [--events N] [--files K] [--runs R] [--bin PATH]
#                     [--keep DIR] [--no-json] [--also PATH]
#
# Generates K .pfw.gz files of N X events in all (bench/gen_pfw.py; default
# 10,000,000 in 8), and a tenth of them (N/10) for the memory's flatness.
# Then R rounds (default 1), each timing once with hyperfine, one after
# the other, so that the machine's load weighs on all alike:
#   baseline   trace summary (its default -j, the cores) and -j 1
#   protobuf   trace timeline --out t.pftrace (every event, one pass)
#   JSON       trace timeline --max-events 0 --out t.json (every event;
#              left out with --no-json), and its default (thinned to 1 M)
#   --also     the protobuf timeline of another build PATH (an older one)
# and prints the medians and ranges of the times, the median over the
# rounds of each time against the same round's summary's (the figure), the
# CPU time (user + system, which the machine's load moves less),
# bytes per event, the peak RSS of the protobuf run on N/10 and N events,
# and the slices counted in the protobuf by a decoder of its own
# (bench/pftrace_count.py, not streamtime's), which must be N.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
fix="$root/../shared/fixtures/dftracer"
bin="$root/build/streamtime"
events=10000000
files=8
runs=1
keep=""
also=""
json=1
python=${PYTHON:-/usr/bin/python3}

usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "timeline.sh: $*" >&2; exit 1; }
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
isnum() { case $1 in ''|*[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ]; }

while [ $# -gt 0 ]; do
    case $1 in
        --events) events=${2:-}; shift 2 ;;
        --files) files=${2:-}; shift 2 ;;
        --runs) runs=${2:-}; shift 2 ;;
        --bin) bin=$(abspath "${2:-}"); shift 2 ;;
        --keep) keep=$(abspath "${2:-}"); shift 2 ;;
        --no-json) json=0; shift ;;
        --also) also=$(abspath "${2:-}"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
for v in events files runs; do
    isnum "${!v}" || die "--$v takes a positive integer"
done
[ -x "$bin" ] || die "no streamtime binary at $bin (meson compile -C build)"
[ -z "$also" ] || [ -x "$also" ] || die "no streamtime binary at $also"
[ -d "$fix" ] || die "no fixtures at $fix"
command -v hyperfine >/dev/null || die "hyperfine is needed (apt-get install hyperfine)"

if [ -n "$keep" ]; then
    tmp=$keep
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamtime-timeline-bench.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
fi

# ---- the traces: N events, and N/10 -----------------------------------------
gen() {  # DIR N: K .pfw.gz files of N events under DIR/gz
    local d=$1 n=$2
    if [ -f "$d/done" ] && [ "$(cat "$d/done")" = "$n $files" ]; then
        return
    fi
    rm -rf "$d"
    mkdir -p "$d/plain" "$d/gz"
    echo "generating $n events in $files files under $d ..."
    "$python" "$here/gen_pfw.py" "$fix" "$d/plain" "$n" "$files" >/dev/null
    (cd "$d/plain" && ls trace-*.pfw | xargs -P 2 -I{} sh -c 'gzip -6 -c "$1" > ../gz/"$1".gz' _ {})
    rm -rf "$d/plain"
    echo "$n $files" > "$d/done"
}
gen "$tmp/big" "$events"
gen "$tmp/small" $((events / 10))
big=("$tmp"/big/gz/*.gz)
small=("$tmp"/small/gz/*.gz)

hf() {  # NAME COMMAND: one run, its seconds (wall, CPU) to $tmp/times
    local name=$1; shift
    hyperfine -N --style none --runs 1 \
        --export-json "$tmp/hf-$name.json" "$@" >/dev/null 2>&1 ||
        die "$name failed: $*"
    "$python" -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]; print(sys.argv[2], r["median"], r["user"] + r["system"])' \
        "$tmp/hf-$name.json" "$name" >> "$tmp/times"
}
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "timing ($runs rounds) ..."
: > "$tmp/times"
js_bytes=0
for _ in $(seq "$runs"); do
    hf summary "$bin trace summary -q --out $tmp/s.txt ${big[*]}"
    hf summary-j1 "$bin trace summary -q -j 1 --out $tmp/s1.txt ${big[*]}"
    hf pftrace "$bin trace timeline -q --out $tmp/t.pftrace ${big[*]}"
    [ -z "$also" ] ||
        hf pftrace-also "$also trace timeline -q --out $tmp/a.pftrace ${big[*]}"
    if [ "$json" = 1 ]; then
        hf json-all "$bin trace timeline -q --max-events 0 --out $tmp/t.json ${big[*]}"
        js_bytes=$(stat -c %s "$tmp/t.json")
        rm -f "$tmp/t.json"
    fi
    hf json-default "$bin trace timeline -q --out $tmp/d.json ${big[*]}"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
pf_bytes=$(stat -c %s "$tmp/t.pftrace")
rss_big=$(rss "$bin" trace timeline -q --out "$tmp/r.pftrace" "${big[@]}")
rss_small=$(rss "$bin" trace timeline -q --out "$tmp/r.pftrace" "${small[@]}")
rss_sum=$(rss "$bin" trace summary -q --out "$tmp/s.txt" "${big[@]}")
slices=$("$python" "$here/pftrace_count.py" "$tmp/t.pftrace")
[ "$slices" = "$events" ] || die "the protobuf holds $slices slices, the generator wrote $events events"

"$python" - "$tmp/times" "$events" "$pf_bytes" "$js_bytes" "$rss_small" \
    "$rss_big" "$rss_sum" "$slices" <<'EOF'
import statistics, sys
a = sys.argv[1:]
t, cpu = {}, {}
for line in open(a[0]):
    name, sec, c = line.split()
    t.setdefault(name, []).append(float(sec))
    cpu.setdefault(name, []).append(float(c))
ev, pfb, jsb = int(a[1]), int(a[2]), int(a[3])
rs, rb, rsum, sl = int(a[4]), int(a[5]), int(a[6]), int(a[7])
med = statistics.median

def row(what, name, bpe="-"):
    v, s, s1 = t[name], t["summary"], t["summary-j1"]
    c, cs = cpu[name], cpu["summary"]
    print("| %s | %.2f (%.2f-%.2f) | %.2f | %.2f | %.2f (%.2f) | %s |" % (
        what, med(v), min(v), max(v),
        med(x / y for x, y in zip(v, s)), med(x / y for x, y in zip(v, s1)),
        med(c), med(x / y for x, y in zip(c, cs)), bpe))

print()
print("%d rounds; time: median (range); ratios: median over the rounds of "
      "the time / the same round's; CPU: user + system" % len(t["summary"]))
print()
print("| what | time (s) | vs trace summary | vs summary -j 1 | CPU (s) (vs summary's) | bytes per event |")
print("|---|---|---|---|---|---|")
row("trace summary (default -j)", "summary")
row("trace summary -j 1", "summary-j1")
row("trace timeline --out t.pftrace", "pftrace", "%.1f" % (pfb / ev))
if "pftrace-also" in t:
    row("the same, --also's build", "pftrace-also")
if jsb:
    row("trace timeline --max-events 0 --out t.json", "json-all",
        "%.1f" % (jsb / ev))
row("trace timeline --out t.json (thinned to 1 M)", "json-default")
print()
print("protobuf: %d slices decoded (of %d events), %.1f MB" % (sl, ev, pfb / 1e6))
print("peak RSS of the protobuf run: %.1f MB on %d events, %.1f MB on %d "
      "(x%.2f for 10x the events); trace summary: %.1f MB" %
      (rs / 1024, ev // 10, rb / 1024, ev, rb / rs, rsum / 1024))
EOF
echo
echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr)"
echo "streamtime: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)'), $bin${also:+; --also $also}"
echo "load average before/after: $load_before / $load_after"
