#!/usr/bin/env python3
"""`trace compare`'s table metrics ("by") and events metrics ("events"),
the two that make a whole DFAnalyzer notebook one pass (issue 16):

  * "by" metrics (by file, pattern and pid, thread, name and cat, with
    per and every reduce) on the hand-made trace of compare_check.py and
    on the DFTracer fixtures, against tests/tools/notebook_ref.py (json
    per line, plain Python, nothing of streamtime), and the per-file
    writes of the hand-made trace against numbers worked out by hand;
    -j 1 = -j 3 (text and JSON); the text table's NAME[KEY] rows, '-'
    for a case without the key;
  * "events" metrics: the file DIR/CASE.METRIC.csv (or .jsonl) byte for
    byte what `trace events --filter ... --format F --keys K` writes over
    the same inputs, in the order of the paths with -j 3 over many files,
    and its rows' ts and dur those notebook_ref.py selects; a filter that
    keeps nothing gives the header only;
  * every error path: a bad 'by', 'events' or 'keys' (78 naming the file,
    the metric and the field), --events-dir missing or not wanted, an
    events metric with --save-partial, a case name that cannot name a
    file (64), a directory that cannot take the files (73), an input
    that is not a trace (65): --out FILE and the events files left as
    they were, no file left behind.

usage: compare_tables_check.py STREAMTIME FIXTURES
"""
import csv
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
import compare_check as cc  # noqa: E402
import notebook_ref as ref  # noqa: E402
from checks import check, report  # noqa: E402
from partial_check import run  # noqa: E402

DF = os.path.join(os.path.abspath(sys.argv[2]), "dftracer")
FX = [os.path.join(DF, n) for n in ("posix-old-format.pfw",
                                    "cm1-rank0-new-format.pfw.gz",
                                    "small.pfw")]
ONE_FILE = "/p/lustre1/haridev/dftracer_data/file_0-40.bat"

BY = [
    {"name": "writes_count", "filter": "name~write", "value": "count",
     "by": "file"},
    {"name": "writes_dur", "filter": "name~write", "value": "dur",
     "by": "file"},
    {"name": "writes_bytes", "filter": "name~write", "value": "bytes",
     "by": ["file"]},
    {"name": "pattern_thread_max", "filter": "file~", "value": "dur",
     "by": "pattern", "per": "thread", "reduce": "max"},
    {"name": "pattern_pid_bytes", "value": "bytes", "by": "pattern,pid"},
    {"name": "thread_min_name", "value": "dur", "by": "thread",
     "per": "name", "reduce": "min"},
    {"name": "name_cat_mean", "value": "dur", "by": ["name", "cat"],
     "per": "pid", "reduce": "mean"},
    {"name": "host_sum_files", "value": "count", "by": "host",
     "per": "basename", "reduce": "sum"},
    {"name": "by_nothing", "filter": "name=nothing", "value": "count",
     "by": "file"},
    {"name": "total", "value": "count"},
]

# the hand-made trace's writes per file, from compare_check.HAND's comments
HAND_WRITES = {
    "writes_count": {"/pfs/ckpt/model-0001_rank2.pt": 1,
                     "/pfs/ckpt/model-0002_rank3.pt": 1},
    "writes_dur": {"/pfs/ckpt/model-0001_rank2.pt": 30e-6,
                   "/pfs/ckpt/model-0002_rank3.pt": 20e-6},
    "writes_bytes": {"/pfs/ckpt/model-0001_rank2.pt": 1000,
                     "/pfs/ckpt/model-0002_rank3.pt": 3000},
}


def compare(mpath, cases, *extra):
    args = ["compare", "--metrics", mpath, "--json"] + list(extra)
    for name, paths in cases:
        args += ["--case", "%s=%s" % (name, ",".join(paths))]
    return run(*args)


# a ',' and a '\\' in a file name, an event without a file, one without
# a host: shown as escaped text (a backslash doubled; a ',' escaped when
# there are several by keys), "(none)", "?"
ODD = [
    '{"name":"write","cat":"POSIX","pid":1,"tid":2,"ts":1,"dur":3,"ph":"X",'
    '"args":{"hostname":"h","fname":"/a,b\\\\c","ret":5}}',
    '{"name":"write","cat":"POSIX","pid":1,"tid":2,"ts":5,"dur":4,"ph":"X",'
    '"args":{"hostname":"h"}}',
    '{"name":"write","cat":"POSIX","pid":4,"tid":4,"ts":9,"dur":6,"ph":"X",'
    '"args":{"fname":"/a,b\\\\c","ret":7}}',
]
ODD_METRICS = [
    {"name": "file_pid", "filter": "name=write", "value": "dur",
     "by": "file,pid"},
    {"name": "file", "value": "bytes", "by": "file"},
    {"name": "thread", "value": "count", "by": "thread"},
]
# by hand from ODD
ODD_ANSWERS = {
    "file_pid": {"/a\\,b\\\\c,h:1": 3e-6, "(none),h:1": 4e-6,
                 "/a\\,b\\\\c,?:4": 6e-6},
    "file": {"/a,b\\\\c": 12, "(none)": 0},
    "thread": {"h:1:2": 2, "?:4:4": 1},
}


def by_metrics(tmp, hand):
    odd = cc.write(os.path.join(tmp, "odd.pfw"), "\n".join(ODD) + "\n")
    mo = cc.write(os.path.join(tmp, "odd.json"), json.dumps(ODD_METRICS))
    rc, out, err = compare(mo, [("odd", [odd])])
    check(rc == 0, "by: odd names: exit %d: %s" % (rc, err))
    want = ref.compare(ODD_METRICS, [("odd", [odd])])
    for m in (json.loads(out)["metrics"] if rc == 0 else []):
        w = [x for x in want["metrics"] if x["name"] == m["name"]][0]
        check(cc.same(m["values"]["odd"], ODD_ANSWERS[m["name"]]) and
              cc.same(w["values"]["odd"], ODD_ANSWERS[m["name"]]),
              "by: odd names: %s: %r, notebook_ref.py %r, by hand %r"
              % (m["name"], m["values"]["odd"], w["values"]["odd"],
                 ODD_ANSWERS[m["name"]]))
    mpath = cc.write(os.path.join(tmp, "by.json"), json.dumps(BY))
    cases = [("hand", [hand]), ("fx", FX), ("old", FX[:1])]
    rc, out, err = compare(mpath, cases)
    check(rc == 0, "by: exit %d: %s" % (rc, err))
    if rc:
        return
    got = {m["name"]: m for m in json.loads(out)["metrics"]}
    want = ref.compare(BY, [(n, ref.case_files(",".join(p)))
                            for n, p in cases])
    for m in want["metrics"]:
        for c, v in m["values"].items():
            g = got[m["name"]]["values"].get(c, "missing")
            check(cc.same(g, v), "by: %s of %s: %r, notebook_ref.py says %r"
                  % (m["name"], c, g if not isinstance(g, dict) else
                     sorted(g.items())[:4], v if not isinstance(v, dict)
                     else sorted(v.items())[:4]))
    check(got["writes_count"]["by"] == ["file"] and
          got["name_cat_mean"]["by"] == ["name", "cat"] and
          "by" not in got["total"], "by: the 'by' keys in JSON")
    for k, v in HAND_WRITES.items():
        check(cc.same(got[k]["values"]["hand"], v), "by: hand %s: %r, by hand "
              "%r" % (k, got[k]["values"]["hand"], v))
    check(got["by_nothing"]["values"]["fx"] == {},
          "by: a by metric selecting nothing is {}")
    check(len(got["writes_count"]["values"]["fx"]) > 10,
          "by: the fixtures write to many files")
    # several by keys: ',' joins them (the fixtures' names hold none)
    check(any(k.count(",") == 1 for k in
              got["name_cat_mean"]["values"]["fx"]), "by: name,cat shown")
    # -j 1 = -j 3, text and JSON
    for j in ("1", "3"):
        rc2, out2, _ = compare(mpath, cases, "-j", j)
        check(rc2 == 0 and out2 == out, "by: -j %s gives the same JSON" % j)
    args = ["compare", "--metrics", mpath]
    for name, paths in cases:
        args += ["--case", "%s=%s" % (name, ",".join(paths))]
    rc1, t1, _ = run(*args, "-j", "1")
    rc3, t3, _ = run(*args, "-j", "3")
    check(rc1 == 0 and t1 == t3, "by: -j 1 and -j 3 give the same table")
    rows = {ln.split()[0]: ln.split()[2:] for ln in
            t1.decode().splitlines()[1:-1]}
    key = "writes_count[%s]" % ONE_FILE
    check(key in rows and rows[key][0] == "-" and
          rows[key][1] == str(got["writes_count"]["values"]["fx"][ONE_FILE])
          and rows[key][2] == rows[key][1],
          "by: text row %s: %r (no such file in the hand case)"
          % (key, rows.get(key)))
    check(rows.get("by_nothing") == ["-", "-", "-"],
          "by: a by metric without rows is one row of '-': %r"
          % rows.get("by_nothing"))
    check(rows.get("total", [None])[0] == "13",
          "by: the scalar rows stay (13 events in the hand-made trace): %r"
          % rows.get("total"))


def events_metrics(tmp, hand):
    # big and small files in turn: with -j 3 many are read out of turn,
    # so their rows wait in a temporary file (seen with a probe: 17 of 60
    # files with -j 2)
    many = [FX[i % 3] for i in range(30)]
    metrics = [
        {"name": "one_file", "filter": "file=" + ONE_FILE, "value": "count",
         "events": "csv"},
        {"name": "writes", "filter": "name~write", "value": "bytes",
         "events": "jsonl", "keys": "pattern,prefix:2,thread"},
        {"name": "all", "value": "count", "events": "csv", "keys": []},
        {"name": "none", "filter": "name=nothing", "value": "count",
         "events": "csv"},
        {"name": "none_j", "filter": "name=nothing", "value": "count",
         "events": "jsonl"},
        {"name": "writes_by_file", "filter": "name~write", "value": "count",
         "by": "file"},
    ]
    mpath = cc.write(os.path.join(tmp, "ev.json"), json.dumps(metrics))
    ed = os.path.join(tmp, "evd")
    os.mkdir(ed)
    cases = [("many", many), ("hand", [hand])]
    rc, out, err = compare(mpath, cases, "--events-dir", ed, "-j", "3")
    check(rc == 0, "events: exit %d: %s" % (rc, err))
    if rc:
        return
    got = {m["name"]: m["values"] for m in json.loads(out)["metrics"]}
    check(sorted(os.listdir(ed)) == sorted(
        "%s.%s.%s" % (c, m["name"], "jsonl" if m["events"] == "jsonl"
                      else "csv")
        for c, _ in cases for m in metrics if "events" in m),
        "events: the files written: %r" % sorted(os.listdir(ed)))
    for c, paths in cases:
        evs = []
        for p in paths:
            evs += ref.read_trace(p)[0]
        for m in metrics:
            if "events" not in m:
                continue
            fmt = m["events"]
            keys = m.get("keys", "basename,pattern")
            keys = ",".join(keys) if isinstance(keys, list) else keys
            args = ["events", "--format", fmt, "--keys", keys] + paths
            if "filter" in m:
                args[1:1] = ["--filter", m["filter"]]
            rc2, want, err2 = run(*args)
            with open(os.path.join(ed, "%s.%s.%s" % (c, m["name"],
                                                      fmt)), "rb") as f:
                have = f.read()
            what = "events: %s of %s" % (m["name"], c)
            check(rc2 == 0 and have == want, "%s: not what trace events "
                  "writes (%d and %d bytes; %s)" % (what, len(have),
                                                    len(want), err2))
            sel = ref.selected(evs, m)
            if fmt == "csv":
                rows = list(csv.DictReader(have.decode().splitlines()))
            else:
                rows = [json.loads(ln) for ln in have.decode().splitlines()]
            check([(int(r["ts"]), int(r["dur"])) for r in rows] ==
                  [(e["ts"], e["dur"]) for e in sel],
                  "%s: %d rows, notebook_ref.py selects %d" %
                  (what, len(rows), len(sel)))
            if m["value"] == "count":
                check(got[m["name"]][c] == (len(sel) or None),
                      "%s: its count %r" % (what, got[m["name"]][c]))
        check(len(ref.selected(evs, metrics[0])) > 0 or c == "hand",
              "events: the file of the drill-down is in the fixtures")
    with open(os.path.join(ed, "many.none.csv")) as f:
        check(f.read().count("\n") == 1, "events: nothing kept: the header")
    check(os.path.getsize(os.path.join(ed, "many.none_j.jsonl")) == 0,
          "events: nothing kept in JSON lines: an empty file")


def errors(tmp, hand):
    out = os.path.join(tmp, "out.txt")
    ed = os.path.join(tmp, "errd")
    os.makedirs(ed, exist_ok=True)
    keep = "KEEP ME\n"
    old_ev = os.path.join(ed, "a.e.csv")

    def bad(text, code, *needles, case=None, extra=(), to=True):
        path = cc.write(os.path.join(tmp, "bad.json"), text)
        cc.write(out, keep)
        cc.write(old_ev, keep)
        before = set(os.listdir(tmp)) | set("d/" + n for n in os.listdir(ed))
        rc, o, e = run("compare", "--metrics", path, "--case",
                       case or "a=" + hand, *(("--out", out) if to else ()),
                       *extra)
        what = "error %r / %r" % (text, extra)
        check(rc == code, "%s: exit %d, wanted %d (%s)" % (what, rc, code, e))
        for n in needles:
            check(n in e, "%s: %r not in %r" % (what, n, e))
        with open(out) as f:
            check(f.read() == keep, "%s: --out changed" % what)
        with open(old_ev) as f:
            check(f.read() == keep, "%s: the events file changed" % what)
        after = set(os.listdir(tmp)) | set("d/" + n for n in os.listdir(ed))
        check(after == before, "%s: a file left behind: %r"
              % (what, after ^ before))

    m = "bad.json: metric 1 ('e'): "
    ev = ("--events-dir", ed)
    bad('[{"name":"e","value":"count","by":"fil"}]', 78, m + "'by': ",
        "did you mean 'file'")
    bad('[{"name":"e","value":"count","by":[]}]', 78,
        m + "'by' must be a string or a non-empty array")
    bad('[{"name":"e","value":"count","by":""}]', 78, m + "'by': no key")
    bad('[{"name":"e","value":"count","by":["file",3]}]', 78,
        m + "'by'[1] must be a string")
    bad('[{"name":"e","value":"count","by":"file,name,cat,host,pid,'
        'thread,basename,pattern","per":"prefix:1,prefix:2,prefix:3,'
        'prefix:4,prefix:5,prefix:6,prefix:7,prefix:8,prefix:9",'
        '"reduce":"max"}]', 78, m + "'by' and 'per': more than 16 keys")
    bad('[{"name":"e","value":"count","events":"csvv"}]', 78,
        m + "'events': \"csvv\" is not csv or jsonl; did you mean 'csv'?",
        extra=ev)
    bad('[{"name":"e","value":"count","events":true}]', 78,
        m + "'events' must be a string", extra=ev)
    bad('[{"name":"e","value":"count","keys":"pattern"}]', 78,
        m + "'keys' goes with 'events'")
    bad('[{"name":"e","value":"count","events":"csv","keys":"file"}]', 78,
        m + "'keys': 'file' is a column already", extra=ev)
    bad('[{"name":"e","value":"count","events":"csv","keys":"patern"}]', 78,
        m + "'keys': ", "did you mean 'pattern'", extra=ev)
    bad('[{"name":"e/x","value":"count","events":"csv"}]', 78,
        "metric 1 ('e/x'): 'name' names the file of its events", extra=ev)
    bad('[{"name":".e","value":"count","events":"csv"}]', 78,
        "metric 1 ('.e'): 'name' names the file of its events", extra=ev)
    bad('[{"name":"e","value":"count","evnts":"csv"}]', 78,
        "unknown field 'evnts'; did you mean 'events'?")
    one = '[{"name":"e","value":"count","events":"csv"}]'
    bad(one, 64, "metric 'e' writes events: give --events-dir DIR")
    bad('[{"name":"e","value":"count"}]', 64,
        "--events-dir: no metric writes events", extra=ev)
    bad(one, 64, "--save-partial: metric 'e' writes events",
        extra=("--save-partial", os.path.join(tmp, "p.json")), to=False)
    bad(one, 64, "--save-partial: metric 'e' writes events",
        extra=("--save-partial", os.path.join(tmp, "p.json")) + ev,
        to=False)
    bad(one, 64, "--case a/b: the name of a case names its events files",
        case="a/b=" + hand, extra=ev)
    bad(one, 73, os.path.join(tmp, "nodir"),
        extra=("--events-dir", os.path.join(tmp, "nodir")))
    empty = cc.write(os.path.join(tmp, "empty.pfw"), "")
    bad(one, 65, "empty.pfw", "no events written", case="a=%s,%s"
        % (hand, empty), extra=ev)
    # success replaces the events file whole
    cc.write(os.path.join(tmp, "bad.json"), one)
    rc, o, e = run("compare", "--metrics", os.path.join(tmp, "bad.json"),
                   "--case", "a=" + hand, "--events-dir", ed)
    with open(old_ev) as f:
        check(rc == 0 and f.read().startswith("ts,dur,start,end,"),
              "events: a run replaces DIR/CASE.METRIC.csv (%d %s)" % (rc, e))


def main():
    tmp = tempfile.mkdtemp(prefix="compare_tables.")
    try:
        hand = cc.write(os.path.join(tmp, "hand.pfw"), "\n".join(cc.HAND) + "\n")
        by_metrics(tmp, hand)
        events_metrics(tmp, hand)
        errors(tmp, hand)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report("compare_tables_check")


if __name__ == "__main__":
    sys.exit(main())
