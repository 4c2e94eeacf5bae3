#!/usr/bin/env python3
"""CLI test: `trace plot` on DFTracer traces and the time bins' bytes read
and written (issue 26 item 3).

Usage: trace_plot_check.py STREAMTIME FIXTURES (the folder of dftracer/)

Everything is held against tests/tools/notebook_ref.py (each line through
json.loads, no streamtime) and a rule written here from DFTracer's own
interception names (brahma/posix.cpp, stdio.cpp: the event is the
function's name, read/pread/pread64/write/pwrite/pwrite64 and
fread/fwrite) and DFAnalyzer's test ("write" in the name, else "read"
and not "readdir"):

bins   `trace summary --time-granularity`: per bin, events, bytes,
       bytes_read and bytes_written in the JSON and the text, read +
       written = bytes on the fixtures; the same through --save-partial
       and `trace merge`; a version 1 partial with bins refused (65)
       naming it, one without bins merged.
figure `trace plot` on the fixtures, each and together: PNG, SVG and PDF
       written (the PNG's chunks, the SVG parsed, the PDF's pages); the
       SVG's text against sums from the trace lines: the axis' ends, the
       bins' width (a 1-2-5 step of the span / 200), bytes and calls
       read and written and each peak in B/s, the processes, every lane's
       name, the functions of the box plots with their counts, the calls
       left out of them.  50 processes: 39 lanes of the busiest and
       'other processes (11)', the lane of over 1500 calls as busy share;
       --per thread: a lane per thread.  A fixture with a system-trace
       directory: both figures, the set's reads in the bandwidth's bytes
       and its process a lane.  Bad input (missing 66, cut gzip 65, not
       a trace 65, nothing the filter keeps 65, --per bogus 64, bins past
       a million 64, the output directory a file 73) leaves the output
       directory as it was.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import setup_rule  # noqa: E402
import notebook_ref  # noqa: E402
from checks import bug, check, record_manifest, report, runner  # noqa: E402
from figcheck import read_pdf  # noqa: E402
import xml.etree.ElementTree as ET  # noqa: E402
import math  # noqa: E402
import struct  # noqa: E402
import zlib  # noqa: E402
import gzip  # noqa: E402

TEST = "cli-trace-plot"
EXE = os.path.abspath(sys.argv[1])
FIX = os.path.join(os.path.abspath(sys.argv[2]), "dftracer")
st = runner(EXE, timeout=300)


def rw(name):
    """'r', 'w' or None: is the call a read or a write?  DFTracer names
    the event after the intercepted function; DFAnalyzer takes 'write'
    first, then 'read' without 'readdir'.  Block I/O ('bio_...') and
    readlink (its ret is a path's length) are neither."""
    if name.startswith("bio") or "readdir" in name or "readlink" in name:
        return None
    if "write" in name:
        return "w"
    if "read" in name:
        return "r"
    return None


def events_of(paths):
    evs = []
    for p in paths:
        e, bad, damaged = notebook_ref.read_trace(p)
        evs += e
    return evs


def ref_bins(evs, gran):
    """{start_us: [events, bytes, read, written]} of the bins that hold
    an event."""
    bins = {}
    for e in evs:
        b = bins.setdefault(e["ts"] // gran * gran, [0, 0, 0, 0])
        b[0] += 1
        if e["bytes"]:
            b[1] += e["bytes"]
            k = rw(e["name"])
            if k == "r":
                b[2] += e["bytes"]
            elif k == "w":
                b[3] += e["bytes"]
    return bins


def json_bins(out):
    j = json.loads(out)
    return {b["start_us"]: [b["events"], b["bytes"], b.get("bytes_read"),
                            b.get("bytes_written")]
            for b in j["bins"] if b["events"]}


def check_bins(label, got, want):
    check(set(got) == set(want),
          "%s: bins with events %s, want %s" % (label, sorted(got)[:5],
                                                sorted(want)[:5]))
    for k in sorted(want):
        g = got.get(k)
        check(g == want[k], "%s: bin %d: %s, want [events, bytes, read, "
              "written] %s" % (label, k, g, want[k]))
        if g and None not in g:
            check(g[2] + g[3] == g[1], "%s: bin %d: read %d + written %d "
                  "!= bytes %d" % (label, k, g[2], g[3], g[1]))


def text_bins(out):
    """The text's bin table: {start text: [events, bytes, read, written]}."""
    rows, on = {}, False
    for line in out.splitlines():
        if line.startswith("bin start (UTC)"):
            on = True
            check("bytes read" in line and "bytes written" in line,
                  "text: bin heading without bytes read/written: " + line)
            continue
        if on and line.strip():
            f = line.split()
            try:
                rows[f[0]] = [int(v) for v in f[1:5]]
            except ValueError:
                check(False, "text: a bin row without four integers: "
                      + line)
    return rows


def utc(us):
    import datetime
    t = datetime.datetime.fromtimestamp(us // 1000000,
                                        datetime.timezone.utc)
    s = t.strftime("%Y-%m-%dT%H:%M:%S")
    if us % 1000000:
        s += ".%06d" % (us % 1000000)
    return s + "+00:00"


def bins_checks(tmp):
    bug("bins_bytes_read_written")
    sets = [["cm1-rank0-new-format.pfw.gz"], ["posix-old-format.pfw"],
            ["small.pfw", "posix-old-format.pfw",
             "cm1-rank0-new-format.pfw.gz"]]
    for names in sets:
        paths = [os.path.join(FIX, n) for n in names]
        evs = events_of(paths)
        for gran in (1000000, 250000, 7):
            want = ref_bins(evs, gran)
            label = "%s at %d us" % ("+".join(names), gran)
            r = st("trace", "summary", "--json", "--time-granularity",
                   str(gran), *paths)
            if not check(r.returncode == 0, label + ": exit %d: %s"
                         % (r.returncode, r.stderr)):
                continue
            check_bins(label + " (json)", json_bins(r.stdout), want)
            if gran != 1000000:
                continue
            r = st("trace", "summary", "--time-granularity", str(gran),
                   *paths)
            rows = text_bins(r.stdout)
            check({utc(k): v for k, v in want.items()} ==
                  {k: v for k, v in rows.items() if v[0]},
                  label + " (text): bins differ: %s" % list(rows.items())[:3])
    # at least one bin of the fixtures holds both a read and a write,
    # else the split is not tested
    both = [v for v in ref_bins(events_of(
        [os.path.join(FIX, "cm1-rank0-new-format.pfw.gz")]), 7 * 10 ** 9)
        .values() if v[2] and v[3]]
    check(both, "no bin of cm1 holds both reads and writes")

    # the partials: two shares merged give the same bins
    bug("bins_in_partials")
    paths = [os.path.join(FIX, n) for n in ("posix-old-format.pfw",
                                            "cm1-rank0-new-format.pfw.gz")]
    want = ref_bins(events_of(paths), 1000000)
    parts = []
    for i, p in enumerate(paths):
        out = os.path.join(tmp, "part%d.json" % i)
        r = st("trace", "summary", "--time-granularity", "1000000",
               "--save-partial", out, p)
        check(r.returncode == 0, "save-partial %s: %s" % (p, r.stderr))
        parts.append(out)
    r = st("trace", "merge", "--json", *parts)
    if check(r.returncode == 0, "merge: exit %d: %s" % (r.returncode,
                                                       r.stderr)):
        check_bins("merged partials", json_bins(r.stdout), want)

    # a version 1 partial: refused with bins, merged without
    bug("bins_old_partial")
    with open(parts[0]) as f:
        text = f.read()
    old = os.path.join(tmp, "old.json")
    with open(old, "w") as f:
        f.write(text.replace('"streamtime_partial":2', '"streamtime_partial":1',
                             1))
    r = st("trace", "merge", "--json", old, parts[1])
    check(r.returncode == 65 and "old.json" in r.stderr and
          "version 1" in r.stderr and r.stdout == "",
          "a version 1 partial with bins: exit %d, %r" % (r.returncode,
                                                         r.stderr))
    nobins = os.path.join(tmp, "nobins.json")
    r = st("trace", "summary", "--save-partial", nobins, paths[0])
    check(r.returncode == 0, "save-partial without bins: " + r.stderr)
    with open(nobins) as f:
        text = f.read()
    with open(nobins, "w") as f:
        f.write(text.replace('"streamtime_partial":2', '"streamtime_partial":1',
                             1))
    r = st("trace", "merge", "--json", nobins)
    whole = st("trace", "summary", "--json", paths[0])
    check(r.returncode == 0 and whole.returncode == 0 and
          json.loads(r.stdout)["events"] == json.loads(whole.stdout)["events"],
          "a version 1 partial without bins: exit %d, %r" % (r.returncode,
                                                            r.stderr))


# ---- the figure ------------------------------------------------------------

FUNCS = 10          # functions in the box plots
ROWS, BARS = 40, 1500


def nice_step(span, target):
    """st_plot_nice_step: 1, 2 or 5 times a power of ten."""
    raw = span / target
    mag = 10 ** math.floor(math.log10(raw))
    norm = raw / mag
    for lim, k in ((1.5, 1), (3.0, 2), (7.0, 5)):
        if norm < lim:
            return mag * k
    return mag * 10


def png_ok(path):
    with open(path, "rb") as f:
        b = f.read()
    if b[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    i = 8
    while i < len(b):
        n, = struct.unpack(">I", b[i:i + 4])
        kind, data = b[i + 4:i + 8], b[i + 8:i + 8 + n]
        crc, = struct.unpack(">I", b[i + 8 + n:i + 12 + n])
        if zlib.crc32(kind + data) != crc:
            return False
        i += 12 + n
    return kind == b"IEND"


def svg_texts(path):
    root = ET.parse(path).getroot()
    return [e.text or "" for e in root.iter() if e.tag.endswith("text")]


def expected(evs, per_thread=False):
    """What the figure should state, from the events."""
    t0 = min(e["ts"] for e in evs)
    t1 = max(e["ts"] + e["dur"] for e in evs)
    gran = max(1, round(nice_step(max(t1 - t0, 1), 200)))
    b0 = t0 // gran
    rd, wr = {}, {}
    x = dict(t0=t0, t1=t1, gran=gran, rbytes=0, wbytes=0, reads=0,
             writes=0, unsized=0, zero=0)
    units, calls, sized, timed = {}, {}, {}, {}
    for e in evs:
        k = rw(e["name"])
        b = e["bytes"] or 0
        bin_ = e["ts"] // gran - b0
        if k == "r":
            x["reads"] += 1
            x["rbytes"] += b
            rd[bin_] = rd.get(bin_, 0) + b
        elif k == "w":
            x["writes"] += 1
            x["wbytes"] += b
            wr[bin_] = wr.get(bin_, 0) + b
        u = (e["host"] or "", e["pid"], e["tid"] if per_thread else 0)
        units[u] = units.get(u, 0) + 1
        calls[e["name"]] = calls.get(e["name"], 0) + 1
        if b > 0:
            sized[e["name"]] = sized.get(e["name"], 0) + 1
        else:
            x["unsized"] += 1
        if e["dur"] > 0:
            timed[e["name"]] = timed.get(e["name"], 0) + 1
        else:
            x["zero"] += 1
    w = gran / 1e6
    x["rpeak"] = max(rd.values(), default=0) / w
    x["wpeak"] = max(wr.values(), default=0) / w
    x["units"] = units
    order = sorted(calls, key=lambda n: (-calls[n], n))
    # the tie order of the C code is its first-seen order: compare as sets
    # where counts tie at the cut
    x["sizes"] = [(n, sized[n]) for n in order if n in sized]
    x["durs"] = [(n, timed[n]) for n in order if n in timed]
    x["calls"] = calls
    return x


def utc_text(us):
    return utc(us)


def caption_numbers(texts):
    cap = {}
    for t in texts:
        m = re.match(r"time axis \(UTC\): (\S+) to (\S+); bins of (\d+) us", t)
        if m:
            cap["ends"] = (m.group(1), m.group(2))
            cap["gran"] = int(m.group(3))
        m = re.match(r"read: (\d+) bytes in (\d+) calls, peak (\S+) B/s; "
                     r"write: (\d+) bytes in (\d+) calls, peak (\S+) B/s", t)
        if m:
            cap["read"] = (int(m.group(1)), int(m.group(2)),
                           float(m.group(3)))
            cap["write"] = (int(m.group(4)), int(m.group(5)),
                            float(m.group(6)))
        m = re.match(r"lanes: (\d+) (process|processes|thread|threads)\b", t)
        if m:
            cap["units"] = int(m.group(1))
        m = re.search(r"(\d+) calls without bytes, (\d+) of 0 us left out", t)
        if m:
            cap["left"] = (int(m.group(1)), int(m.group(2)))
    return cap


def close(a, b):
    return abs(a - b) <= 1e-5 * max(abs(a), abs(b), 1)


def boxes(texts, want, label):
    """The box plots' categories 'NAME (N)' against WANT [(name, n)]: the
    first FUNCS (names tied at the cut may differ)."""
    got = [t for t in texts if re.match(r"^.+ \(\d+\)$", t)]
    shown = ["%s (%d)" % (n[:16], c) for n, c in want]
    head = shown[:FUNCS]
    for t in head:
        if not t.startswith("other "):
            check(t in got, "%s: no box '%s' (have %s)" % (label, t, got[:12]))


def figure_checks(label, out, evs, per_thread=False, formats=("png", "svg")):
    base = os.path.join(out, "trace_overview")
    for f in formats:
        check(os.path.isfile(base + "." + f), "%s: no %s" % (label, f))
    if "png" in formats and os.path.isfile(base + ".png"):
        check(png_ok(base + ".png"), label + ": PNG damaged")
    if "pdf" in formats and os.path.isfile(base + ".pdf"):
        pages, boxes_ = read_pdf(base + ".pdf")
        check(pages == 1, "%s: PDF of %d pages" % (label, pages))
    if not os.path.isfile(base + ".svg"):
        return None
    texts = svg_texts(base + ".svg")
    x = expected(evs, per_thread)
    cap = caption_numbers(texts)
    check(cap.get("ends") == (utc_text(x["t0"]), utc_text(x["t1"])),
          "%s: axis ends %s, want %s" % (label, cap.get("ends"),
                                         (utc_text(x["t0"]),
                                          utc_text(x["t1"]))))
    check(cap.get("gran") == x["gran"], "%s: bins of %s us, want %d"
          % (label, cap.get("gran"), x["gran"]))
    r, w = cap.get("read"), cap.get("write")
    check(r and r[:2] == (x["rbytes"], x["reads"]) and
          close(r[2], x["rpeak"]), "%s: read %s, want %s bytes, %s calls, "
          "peak %s" % (label, r, x["rbytes"], x["reads"], x["rpeak"]))
    check(w and w[:2] == (x["wbytes"], x["writes"]) and
          close(w[2], x["wpeak"]), "%s: write %s, want %s bytes, %s calls, "
          "peak %s" % (label, w, x["wbytes"], x["writes"], x["wpeak"]))
    check(cap.get("units") == len(x["units"]), "%s: %s lanes' units, want %d"
          % (label, cap.get("units"), len(x["units"])))
    check(cap.get("left") == (x["unsized"], x["zero"]), "%s: left out %s, "
          "want %s" % (label, cap.get("left"), (x["unsized"], x["zero"])))
    top, unit = max(x["rpeak"], x["wpeak"]), "B/s"
    for u in ("KiB/s", "MiB/s", "GiB/s", "TiB/s"):
        if top < 1024:
            break
        top, unit = top / 1024, u
    check(unit in texts, "%s: no bandwidth axis in %s (peak %s B/s)"
          % (label, unit, max(x["rpeak"], x["wpeak"])))
    boxes(texts, x["sizes"], label + " sizes")
    boxes(texts, x["durs"], label + " durations")
    return texts, x


def lane_name(u, per_thread):
    host, pid, tid = u
    h = host[:24] + " " if host else ""
    return "%s%d:%d" % (h, pid, tid) if per_thread else "%spid %d" % (h, pid)


def lanes_check(label, texts, x, per_thread=False):
    units = x["units"]
    if len(units) <= ROWS:
        keep, other = list(units), []
    else:
        order = sorted(units, key=lambda u: (-units[u], u[1], u[2]))
        keep, other = order[:ROWS - 1], order[ROWS - 1:]
        # ties at the cut: any of the tied units may be kept
        cut = units[order[ROWS - 2]]
        keep = [u for u in keep if units[u] != cut]
    for u in keep:
        check(lane_name(u, per_thread) in texts, "%s: no lane '%s'"
              % (label, lane_name(u, per_thread)))
    if len(units) > ROWS:
        what = "threads" if per_thread else "processes"
        check("other %s (%d)" % (what, len(units) - ROWS + 1) in texts,
              "%s: no 'other %s (%d)' lane" % (label, what,
                                                len(units) - ROWS + 1))
        named = [t for t in texts if re.match(r"^h\d (pid )?\d+(:\d+)?$", t)]
        check(len(named) == ROWS - 1, "%s: %d named lanes, want %d"
              % (label, len(named), ROWS - 1))


def many_trace(path):
    """50 processes on two hosts: pid 1000 with 2000 calls (over BARS),
    1001..1009 with 100 + p, the rest 3 each; three threads each."""
    import random
    rnd = random.Random(7)
    with open(path, "w") as f:
        f.write("[\n")
        i = 0
        for p in range(50):
            n = 3 if p >= 10 else (2000 if p == 0 else 100 + p)
            t = 1700000000000000 + p * 1000
            for k in range(n):
                name = rnd.choice(["read", "write", "open", "pread64",
                                   "fwrite", "readdir"])
                d = rnd.randint(0, 3000)
                args = {"hostname": "h%d" % (p % 2)}
                if name in ("read", "write", "pread64", "readdir"):
                    args["ret"] = rnd.choice([4096, 1 << 20, 0, 17])
                if name == "fwrite":
                    args.update(ret=2, size=512)
                f.write(json.dumps({"id": i, "name": name, "cat": "POSIX",
                                    "pid": 1000 + p, "tid": 2000 + k % 3,
                                    "ts": t, "dur": d, "ph": "X",
                                    "args": args}) + "\n")
                t += d + rnd.randint(0, 5000)
                i += 1
        f.write("]\n")


def record_dir(d, base_us):
    """A trace record directory: pid 100 'trainer' reads 4096 bytes ten
    times, 1 ms each, 1 s apart from BASE_US + 1 s."""
    os.makedirs(d)
    base = base_us * 1000
    record_manifest(d, base)
    with open(os.path.join(d, "trace_proc.out"), "w") as f:
        f.write("TIMESTAMP EVENT PID PPID COMM\n1000 fork 100 50 bash\n"
                "1100 exec 100 -1 trainer\n")
    lines = ["Attaching 4 probes...",
             "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME"]
    evs = []
    for i in range(10):
        end = (1 + i) * 10 ** 9 + 10 ** 6
        lines.append("%d 100 100 3 4096 1000000 /data/a.bin" % end)
        evs.append(dict(name="read", host="node1", pid=100, tid=100,
                        ts=(base + end - 10 ** 6) // 1000, dur=1000,
                        bytes=4096, file="/data/a.bin"))
    with open(os.path.join(d, "trace_read.out"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return evs


def listing(d):
    return sorted(os.listdir(d)) if os.path.isdir(d) else None


def figure_all(tmp):
    bug("trace_plot_dftracer")
    sets = [["cm1-rank0-new-format.pfw.gz"], ["posix-old-format.pfw"],
            ["small.pfw", "posix-old-format.pfw",
             "cm1-rank0-new-format.pfw.gz"]]
    for k, names in enumerate(sets):
        paths = [os.path.join(FIX, n) for n in names]
        out = os.path.join(tmp, "fig%d" % k)
        r = st("trace", "plot", "--out-dir", out, "--format", "png,svg,pdf",
               *paths)
        label = "trace plot " + "+".join(names)
        if not check(r.returncode == 0, "%s: exit %d: %s" % (
                label, r.returncode, r.stderr)):
            continue
        got = figure_checks(label, out, events_of(paths),
                            formats=("png", "svg", "pdf"))
        if got:
            lanes_check(label, got[0], got[1])

    bug("trace_plot_lanes_bounded")
    many = os.path.join(tmp, "many.pfw")
    many_trace(many)
    evs = events_of([many])
    for per_thread in (False, True):
        out = os.path.join(tmp, "many%d" % per_thread)
        extra = ["--per", "thread"] if per_thread else []
        r = st("trace", "plot", "--out-dir", out, *extra, many)
        label = "50 processes" + (" per thread" if per_thread else "")
        if not check(r.returncode == 0, "%s: exit %d: %s" % (
                label, r.returncode, r.stderr)):
            continue
        got = figure_checks(label, out, evs, per_thread)
        if got:
            lanes_check(label, got[0], got[1], per_thread)
            dense = sum(1 for u, c in got[1]["units"].items() if c > BARS)
            m = re.search(r"\((\d+) as busy share", r.stderr)
            check(m and int(m.group(1)) == dense, "%s: busy-share lanes "
                  "%s, want %d" % (label, m and m.group(1), dense))

    bug("trace_plot_mixed")
    fx = os.path.join(FIX, "posix-old-format.pfw")
    fevs = events_of([fx])
    rec = os.path.join(tmp, "rec")
    sevs = record_dir(rec, min(e["ts"] for e in fevs))
    out = os.path.join(tmp, "mixed")
    r = st("trace", "plot", "--out-dir", out, fx, rec)
    if check(r.returncode == 0, "mixed: exit %d: %s" % (r.returncode,
                                                        r.stderr)):
        check(listing(out) == ["systrace_overview.png",
                               "systrace_overview.svg",
                               "trace_overview.png", "trace_overview.svg"],
              "mixed: files %s" % listing(out))
        got = figure_checks("mixed", out, fevs + sevs)
        if got:
            check("node1 pid 100" in got[0], "mixed: no lane of the "
                  "set's process")

    bug("trace_plot_bad_input")
    out = os.path.join(tmp, "kept")
    os.makedirs(out)
    with open(os.path.join(out, "trace_overview.png"), "w") as f:
        f.write("old")
    cut = os.path.join(tmp, "cut.pfw.gz")
    with open(os.path.join(FIX, "cm1-rank0-new-format.pfw.gz"), "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])
    empty = os.path.join(tmp, "empty.pfw")
    with open(empty, "w") as f:
        f.write("[\n]\n")
    cm1 = os.path.join(FIX, "cm1-rank0-new-format.pfw.gz")
    afile = os.path.join(tmp, "afile")
    with open(afile, "w") as f:
        f.write("x")
    for args, code, say in (
            ([os.path.join(tmp, "missing.pfw")], 66, "missing.pfw"),
            ([cut], 65, "cut.pfw.gz"),
            ([empty], 65, "empty.pfw"),
            (["--filter", "name=nosuchcall", cm1], 65, "nothing to draw"),
            (["--per", "bogus", cm1], 64, "--per"),
            (["--time-granularity", "1", cm1], 64, "--time-granularity"),
            (["--out-dir", os.path.join(afile, "sub"), cm1], 73, "afile")):
        if "--out-dir" not in args:
            args = ["--out-dir", out] + args
        r = st("trace", "plot", *args)
        check(r.returncode == code and say in r.stderr,
              "%s: exit %d, want %d naming %r: %r" % (
                  args[2:], r.returncode, code, say, r.stderr))
        check(listing(out) == ["trace_overview.png"] and
              open(os.path.join(out, "trace_overview.png")).read() == "old",
              "%s: the output directory changed: %s" % (args[2:],
                                                        listing(out)))

    bug("trace_plot_formats")
    out = os.path.join(tmp, "svgonly")
    r = st("trace", "plot", "--out-dir", out, "--format", "svg", cm1)
    check(r.returncode == 0 and listing(out) == ["trace_overview.svg"],
          "--format svg: exit %d, files %s" % (r.returncode, listing(out)))


def main():
    if not os.path.isdir(FIX):
        setup_rule.data_missing(TEST, FIX)
    tmp = tempfile.mkdtemp(prefix="trace_plot_check.")
    try:
        bins_checks(tmp)
        figure_all(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report(TEST)


if __name__ == "__main__":
    sys.exit(main())
