#!/usr/bin/env bash
# Benchmark: `streamtime trace summary DIR` on a big bpftrace directory (the
# seed's layout, SPEC 5.11) against awk summing one column of the same
# files, in one run (issue 15: at most 1.5x awk, memory bounded).
#
#   bench/systrace_parse.sh [--lines N] [--runs R] [--bin PATH] [--keep DIR]
#
# Generates N call lines in all (default 10,000,000), half in
# trace_read.out and half in trace_write.out, 64 pids, 1,000 files, with
# an mpstat header (the date), a time-align trace and an MLLOG log, then
# times (best of R runs, default 3):
#   awk         awk '{s += $4} END {print s}' over the two call files
#   streamtime  trace summary DIR, -j 1 and -j 2
# and prints seconds, lines/s, the ratios, and the peak RSS of each
# (/usr/bin/time -v), with the machine.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
bin="$root/build/streamtime"
lines=10000000
runs=3
keep=
while [ $# -gt 0 ]; do
	case $1 in
	--lines) lines=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--bin) bin=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	*) echo "usage: $0 [--lines N] [--runs R] [--bin PATH] [--keep DIR]" >&2
	   exit 64 ;;
	esac
done
[ -x "$bin" ] || { echo "$0: no $bin (meson compile -C build)" >&2; exit 66; }
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time is needed" >&2; exit 69; }
dir=${keep:-$(mktemp -d /tmp/st-sysbench-XXXXXX)}
mkdir -p "$dir"
[ -n "$keep" ] || trap 'rm -rf "$dir"' EXIT
if [ -n "$keep" ] && [ -s "$dir/trace_write.out" ]; then
	lines=$(($(wc -l < "$dir/trace_read.out") + $(wc -l < "$dir/trace_write.out") - 4))
	echo "reusing the $lines lines in $dir" >&2
else

half=$((lines / 2))
base=5000000000000
echo "generating $lines lines in $dir ..." >&2
awk -v n="$half" -v b="$base" 'BEGIN {
	print "Attaching 6 probes..."
	print "TIMESTAMP          PID      FD    RET (B)      LAT(ns)      FILENAME"
	for (i = 0; i < n; i++)
		printf "%d %d %d %d %d /data/train/shard_%04d.npz\n", b + i * 2000,
		       1000 + i % 64, 3 + i % 7, 65536 - i % 3, 30000 + i % 977, i % 1000
}' > "$dir/trace_read.out"
awk -v n="$half" -v b="$base" 'BEGIN {
	print "Attaching 6 probes..."
	print "TIMESTAMP          PID      FD    BUFFER ADDR        OFFSET   REQ (B)    RET (B)    LAT(ns)      FILENAME"
	for (i = 0; i < n; i++)
		printf "%d %d %d 0x7f0a9065a270 0 %d %d %d /data/ckpt/part_%04d.bin\n",
		       b + i * 2000 + 1000, 1000 + i % 64, 3 + i % 7, 4096, 4096,
		       20000 + i % 499, i % 1000
}' > "$dir/trace_write.out"
printf 'Linux 6.1.0 (bench) \t11/23/26 \t_x86_64_\t(2 CPU)\n\n%s\n%s\n' \
	'10:00:00 CPU %usr %nice %sys %iowait %irq %soft %steal %guest %gnice %idle' \
	'10:00:01 all 50.00 0.00 10.00 5.00 0.00 0.00 0.00 0.00 0.00 35.00' \
	> "$dir/cpu.out"
printf 'TIMESTAMP TIME\n%d 10:00:00\n%d 10:00:01\n' $((base + 999000000)) \
	$((base + 1001000000)) > "$dir/trace_time_align.out"
fi
# an application log (its MLLOG writes are looked for in trace_write.out)
printf ':::MLLOG {"time_ms": %s, "event_type": "INTERVAL_START", "key": "run_start"}\n:::MLLOG {"time_ms": %s, "event_type": "INTERVAL_END", "key": "run_stop"}\n' \
	1795423000500 1795423009500 > "$dir/app.log"

best() {   # "SECONDS RSS": the best wall time of $runs runs of "$@", the
	   # largest peak RSS (KB)
	local t r b= rss=0
	for _ in $(seq "$runs"); do
		/usr/bin/time -v -o "$dir/.time" "$@" > /dev/null
		t=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":");
			s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$dir/.time")
		r=$(awk -F': ' '/Maximum resident/ {print $2}' "$dir/.time")
		[ "$r" -gt "$rss" ] && rss=$r
		if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN {exit !(t < b)}'; then
			b=$t
		fi
	done
	echo "$b $rss"
}

files=("$dir/trace_read.out" "$dir/trace_write.out")
size=$(du -cb "${files[@]}" | tail -1 | cut -f1)
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
echo "input:   $lines call lines, $((size / 1000000)) MB"
read -r awk_t awk_rss < <(best awk '{s += $4} END {print s}' "${files[@]}")
read -r j1_t j1_rss < <(best "$bin" -q trace summary "$dir" -j 1)
read -r j2_t j2_rss < <(best "$bin" -q trace summary "$dir" -j 2)
for row in "awk:$awk_t:$awk_rss" "streamtime -j 1:$j1_t:$j1_rss" \
	   "streamtime -j 2:$j2_t:$j2_rss"; do
	IFS=: read -r what t r <<< "$row"
	awk -v w="$what" -v t="$t" -v r="$r" -v n="$lines" -v a="$awk_t" 'BEGIN {
		printf "%-16s %7.2f s  %6.2f M lines/s  %5.2fx awk  peak RSS %6.1f MB\n",
		       w, t, n / t / 1e6, t / a, r / 1024 }'
done
