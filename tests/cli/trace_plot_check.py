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
from checks import bug, check, report, runner  # noqa: E402

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
        s += (".%06d" % (us % 1000000)).rstrip("0")
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


def main():
    if not os.path.isdir(FIX):
        setup_rule.data_missing(TEST, FIX)
    tmp = tempfile.mkdtemp(prefix="trace_plot_check.")
    try:
        bins_checks(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report(TEST)


if __name__ == "__main__":
    sys.exit(main())
