# shellcheck shell=bash disable=SC2154
# Shared by bench/notebook.sh and bench/dfanalyzer.sh (sourced, not run):
# the notebook's trace sets, its metrics, streamtime's one pass and its three
# commands of before, the check that they agree, and the timing helpers.  The caller sets $fix (../shared/fixtures/dftracer),
# $bin (streamtime), $keep (a directory to keep, or empty) and defines die();
# scratch_dir sets $tmp.

abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
isnum() { case $1 in ''|*[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ]; }

check_inputs() {   # the streamtime binary, the fixtures, /usr/bin/time
    [ -x "$bin" ] || die "no streamtime binary at $bin (meson compile -C build)"
    [ -d "$fix" ] || die "no fixtures at $fix"
    [ -x /usr/bin/time ] || die "no /usr/bin/time (apt-get install time)"
}

scratch_dir() {   # sets tmp: $keep (kept) or a new temporary directory (removed on exit)
    if [ -n "$keep" ]; then
        tmp=$keep
        mkdir -p "$tmp"
    else
        tmp=$(mktemp -d)
        trap 'rm -rf "$tmp"' EXIT
    fi
}

# The notebook's questions on these traces: the fixtures' PFS, a node-local
# tree for the SSD, cm1's model output, the file of the drill-down.
pfs=/p/lustre1/ ssd=/sys/ model=cm1out
file=/p/lustre1/haridev/dftracer_data/file_0-40.bat

mkset() {   # DIR N: N symbolic links to each of the two real fixtures
    mkdir -p "$1"
    for i in $(seq 1 "$2"); do
        ln -sf "$fix/posix-old-format.pfw" "$1/old$i.pfw"
        ln -sf "$fix/cm1-rank0-new-format.pfw.gz" "$1/cm1-$i.pfw.gz"
    done
}

write_metrics() {   # FILE: the notebook's 12 metrics for `trace compare`
    cat > "$1" <<EOF
[
 {"name": "checkpoint", "filter": "name~PyTorchCheckpointing.checkpoint",
  "value": "dur", "per": "thread", "reduce": "max"},
 {"name": "pfs_time", "filter": ["cat=POSIX", "file^$pfs"],
  "value": "dur", "per": "thread", "reduce": "max"},
 {"name": "pfs_bytes", "filter": ["cat=POSIX", "file^$pfs"], "value": "bytes"},
 {"name": "ssd_time", "filter": ["cat=POSIX", "file^$ssd"],
  "value": "dur", "per": "thread", "reduce": "max"},
 {"name": "ssd_bytes", "filter": ["cat=POSIX", "file^$ssd"], "value": "bytes"},
 {"name": "total_bytes", "value": "bytes"},
 {"name": "pattern_proc_bytes", "filter": "file~", "value": "bytes",
  "per": ["pattern", "pid"], "reduce": "max"},
 {"name": "pattern_proc_time", "filter": "file~", "value": "dur",
  "per": ["pattern", "pid"], "reduce": "max"},
 {"name": "model_write", "filter": ["file~$model", "name=write"], "value": "count"},
 {"name": "model_open", "filter": ["file~$model", "name=open"], "value": "count"},
 {"name": "model_lseek", "filter": ["file~$model", "name=lseek"], "value": "count"},
 {"name": "model_close", "filter": ["file~$model", "name=close"], "value": "count"}
]
EOF
}

write_notebook() {   # METRICS OUT: the whole notebook for one `trace compare` pass:
    # the 12 metrics, the per-file writes as "by": "file" metrics and the
    # events of $file as an "events" metric
    python3 - "$1" "$2" "$file" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
w = ["name~write", "file~"]
m += [{"name": "writes_count", "filter": w, "value": "count", "by": "file"},
      {"name": "writes_dur", "filter": w, "value": "dur", "by": "file"},
      {"name": "writes_bytes", "filter": w, "value": "bytes", "by": "file"},
      {"name": "file_events", "filter": "file=" + sys.argv[3],
       "value": "count", "events": "csv"}]
json.dump(m, open(sys.argv[2], "w"), indent=1)
EOF
}

events_of() {   # DIR: the events streamtime reads there
    "$bin" trace summary -q --json "$1" 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])'
}

st_one() {  # DIR OUTPREFIX: the notebook in one command ($tmp/notebook.json);
    # writes OUTPREFIX.one.json and OUTPREFIX.ev/c.file_events.csv
    mkdir -p "$2.ev"
    printf '%s\n' "$bin trace compare -q --json --metrics $tmp/notebook.json --case c=$1 --events-dir $2.ev --out $2.one.json"
}

st_cmds() {  # DIR OUTPREFIX: the three commands of the notebook, one per line
    printf '%s\n' \
        "$bin trace compare -q --json --metrics $tmp/metrics.json --case c=$1 --out $2.compare.json" \
        "$bin trace summary -q --json --filter name~write --group-by file $1 --out $2.writes.json" \
        "$bin trace events -q --filter file=$file --format csv $1 --out $2.events.csv"
}

check_one_three() {  # OUTPREFIX: st_one's outputs equal st_cmds' (die otherwise)
    python3 - "$1.one.json" "$1.compare.json" "$1.writes.json" \
        "$1.ev/c.file_events.csv" "$1.events.csv" <<'EOF' || die "the one pass and the three commands differ"
import json, sys
one = {m["name"]: m["values"]["c"] for m in json.load(open(sys.argv[1]))["metrics"]}
three = {m["name"]: m["values"]["c"] for m in json.load(open(sys.argv[2]))["metrics"]}
bad = [k for k in three if three[k] != one[k]]
groups = json.load(open(sys.argv[3]))["groups"]
w = {f: (g["count"], g["dur_us"], g["bytes"]) for f, g in groups.items() if f != "(none)"}
o = {f: (one["writes_count"][f], round(one["writes_dur"][f] * 1e6),
         one["writes_bytes"][f]) for f in one["writes_count"]}
if w != o:
    bad.append("per-file writes")
if open(sys.argv[4], "rb").read() != open(sys.argv[5], "rb").read():
    bad.append("events of one file")
print("  one pass vs three commands: %s" % ("the same answers (12 metrics, %d files' writes, the events file byte for byte)" % len(w) if not bad else "DIFFER: " + ", ".join(bad)))
sys.exit(1 if bad else 0)
EOF
}

# The machine's busy CPU time (every process: user, nice, system, irq,
# softirq), in clock ticks.
busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }

rss() {  # COMMAND...: runs it under /usr/bin/time -v; prints "wall_s rss_kb";
    # the machine's busy ticks meanwhile into $tmp/busy.txt
    local t0 t1 b0
    b0=$(busy)
    t0=$(date +%s%N)
    /usr/bin/time -v -o "$tmp/time.txt" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" ||
        { cat "$tmp/err.txt" >&2; die "failed: $*"; }
    t1=$(date +%s%N)
    echo $(( $(busy) - b0 )) > "$tmp/busy.txt"
    python3 - "$tmp/time.txt" "$t0" "$t1" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
s = "%.3f" % ((int(sys.argv[3]) - int(sys.argv[2])) / 1e9)
print(s, re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
EOF
}

cpu_last() {  # the user + system seconds of the last rss command
    awk -F': ' '/User time|System time/ {t += $2} END {printf "%.3f\n", t}' "$tmp/time.txt"
}

median() {  # NUMBER...: the median (the lower middle one of an even count)
    printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}

machine_line() {
    echo "machine: $(nproc) cores, $(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1)," \
         "$(free -g | awk '/^Mem/{print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
}
