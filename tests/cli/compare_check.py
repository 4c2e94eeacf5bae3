#!/usr/bin/env python3
"""`trace compare` (SPEC 5.12, issue 16 item 3) against answers worked out
by hand and against tests/tools/notebook_ref.py (json per line, plain
Python, nothing of streamtime):

  * a hand-made trace (both DFTracer generations, hashes, numbers as
    strings, fread's items, a corrupt line, /ssd beside /ssd2): every
    metric of the notebook (checkpoint = the largest per-thread dur,
    per-directory POSIX time and GiB, total bytes, per pattern and
    process the largest bytes and time, counts of write/open/lseek/close
    on model files, min/sum/mean, a metric selecting nothing) equal to
    the numbers written below AND to notebook_ref.py; as .pfw, as
    .pfw.gz, and both files in one case (keys are case-wide);
  * the DFTracer fixtures: the same metrics, equal to notebook_ref.py
    and, where the notebook's own questions ask the same, to its
    notebook() answers; -j 1 = -j 3; the text table's cells;
  * a small system-trace directory written below: counts and bytes by
    hand, and counts, bytes and time per name against `trace summary DIR
    --json`;
  * every error path of a metrics file (78 naming the file, the metric
    and the field, did-you-mean; 66 unreadable), of --case (64), of the
    inputs (66, 65), each leaving --out FILE as it was.

usage: compare_check.py STREAMTIME FIXTURES
"""
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(HERE), "tools", "notebook_ref.py")
sys.path.insert(0, os.path.dirname(TOOL))
import notebook_ref as ref  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
DF = os.path.join(os.path.abspath(sys.argv[2]), "dftracer")
from checks import check, run_in_tmp  # noqa: E402
from checks import run as run_cmd  # noqa: E402


def run(*args, stdin=None):
    p = run_cmd(BIN, "trace", "compare", *args, input=stdin)
    return p.returncode, p.stdout, p.stderr


def same(a, b):
    """Equal values: integers exactly, reals to 1e-12 relative (the tool
    writes 15 significant digits); a by metric's {KEY: value} key by
    key."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and \
            a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


CK = "PyTorchCheckpointing.checkpoint"
HAND = [
    '[',
    '{"id":1,"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":"M",'
    '"args":{"name":"nodeA","value":7}}',
    '{"id":2,"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M",'
    '"args":{"name":"/pfs/ckpt/model-0001_rank2.pt","value":11}}',
    # checkpoints: nodeA:1:10 100+50, nodeA:1:11 120, nodeB:2:10 140
    '{"name":"%s","cat":"python","pid":1,"tid":10,"ts":0,"dur":100,'
    '"ph":"X","args":{"hhash":7}}' % CK,
    '{"name":"%s","cat":"python","pid":1,"tid":10,"ts":200,"dur":50,'
    '"ph":"X","args":{"hhash":7}}' % CK,
    '{"name":"%s","cat":"python","pid":1,"tid":11,"ts":0,"dur":120,'
    '"ph":"X","args":{"hhash":7}}' % CK,
    '{"name":"%s","cat":"python","pid":"2","tid":"10","ts":"5",'
    '"dur":"140","ph":"X","args":{"hostname":"nodeB"}}' % CK,
    # POSIX on /pfs model files: nodeA:1:10 write 1000 B 30 us, open 5,
    # lseek64 1, close 2; nodeA:3:11 write 3000 B 20 us
    '{"name":"write","cat":"POSIX","pid":1,"tid":10,"ts":300,"dur":30,'
    '"ph":"X","args":{"hhash":7,"fhash":11,"ret":1000}}',
    '{"name":"write","cat":"POSIX","pid":3,"tid":11,"ts":300,"dur":20,'
    '"ph":"X","args":{"hostname":"nodeA",'
    '"fname":"/pfs/ckpt/model-0002_rank3.pt","ret":3000}}',
    '{"name":"open","cat":"POSIX","pid":1,"tid":10,"ts":290,"dur":5,'
    '"ph":"X","args":{"hhash":7,"fhash":11}}',
    '{"name":"lseek64","cat":"POSIX","pid":1,"tid":10,"ts":296,"dur":1,'
    '"ph":"X","args":{"hhash":7,"fhash":11}}',
    '{"name":"close","cat":"POSIX","pid":1,"tid":10,"ts":331,"dur":2,'
    '"ph":"X","args":{"hhash":7,"fhash":11}}',
    # STDIO fread of 10 items of 4 B, 3 us, on the model file
    '{"name":"fread","cat":"STDIO","pid":1,"tid":10,"ts":340,"dur":3,'
    '"ph":"X","args":{"hhash":7,"fhash":11,"size":4,"ret":10}}',
    # SSD reads: nodeB:2:10 500 B 40 us, nodeB:2:12 700 B 60 us; /ssd2
    # is not under /ssd: 9 B 7 us on nodeB:2:12
    '{"name":"read","cat":"POSIX","pid":2,"tid":10,"ts":400,"dur":40,'
    '"ph":"X","args":{"hostname":"nodeB","fname":"/ssd/data/img_17.npz",'
    '"ret":"500"}}',
    '{"name":"read","cat":"POSIX","pid":2,"tid":12,"ts":400,"dur":60,'
    '"ph":"X","args":{"hostname":"nodeB","fname":"/ssd/data/img_18.npz",'
    '"ret":700}}',
    '{"name":"read","cat":"POSIX","pid":2,"tid":12,"ts":470,"dur":7,'
    '"ph":"X","args":{"hostname":"nodeB","fname":"/ssd2/x.npz","ret":9}}',
    '{"name":"read","cat":"POSIX","pid":2,"tid":12,"ts":480,"dur":7,'
    '"ph":"X","args":{"hostname":"nodeB","fname":"/ssd/broken\x01',
    ']',
]

METRICS = [
    {"name": "checkpoint", "filter": "name~" + CK, "value": "dur",
     "per": "thread", "reduce": "max"},
    {"name": "checkpoint_proc", "filter": "name~" + CK, "value": "dur",
     "per": "pid", "reduce": "max"},
    {"name": "pfs_time", "filter": ["cat=POSIX", "file^/pfs/"],
     "value": "dur", "per": "thread", "reduce": "max"},
    {"name": "ssd_time", "filter": ["cat=POSIX", "file^/ssd/"],
     "value": "dur", "per": "thread", "reduce": "max"},
    {"name": "ssd_bytes", "filter": "cat=POSIX,file^/ssd/",
     "value": "bytes"},
    {"name": "total_bytes", "value": "bytes"},
    {"name": "pattern_proc_bytes", "filter": "file~", "value": "bytes",
     "per": ["pattern", "pid"], "reduce": "max"},
    {"name": "pattern_proc_time", "filter": "file~", "value": "dur",
     "per": "pattern,pid", "reduce": "max"},
    {"name": "model_writes", "filter": ["name=write", "file~model"],
     "value": "count"},
    {"name": "model_opens", "filter": ["name=open", "file~model"],
     "value": "count"},
    {"name": "model_lseeks", "filter": ["name^lseek", "file~model"],
     "value": "count"},
    {"name": "model_closes", "filter": ["name=close", "file~model"],
     "value": "count"},
    {"name": "posix_thread_min", "filter": "cat=POSIX", "value": "dur",
     "per": "thread", "reduce": "min"},
    {"name": "posix_thread_sum", "filter": "cat=POSIX", "value": "dur",
     "per": "thread", "reduce": "sum"},
    {"name": "posix_thread_mean", "filter": "cat=POSIX", "value": "dur",
     "per": "thread", "reduce": "mean"},
    {"name": "files_mean_count", "filter": "file~", "value": "count",
     "per": "basename", "reduce": "mean"},
    {"name": "nothing", "filter": "name=nothing", "value": "dur",
     "per": "thread", "reduce": "max"},
]

# worked out by hand from HAND's comments (dur in seconds)
HAND_ANSWERS = {
    "checkpoint": 150e-6,            # nodeA:1:10 100 + 50
    "checkpoint_proc": 270e-6,       # nodeA:1 150 + 120
    "pfs_time": 38e-6,               # nodeA:1:10 30 + 5 + 1 + 2
    "ssd_time": 60e-6,               # nodeB:2:12 (not the /ssd2 read)
    "ssd_bytes": 1200,               # 500 + 700
    "total_bytes": 5249,             # 1000 + 3000 + 40 + 500 + 700 + 9
    "pattern_proc_bytes": 3000,      # (model*_rank*.pt, nodeA:3)
    "pattern_proc_time": 100e-6,     # (img_*.npz, nodeB:2) 40 + 60
    "model_writes": 2, "model_opens": 1, "model_lseeks": 1,
    "model_closes": 1,
    "posix_thread_min": 20e-6,       # nodeA:3:11
    "posix_thread_sum": 165e-6,      # 38 + 20 + 40 + 67
    "posix_thread_mean": 41.25e-6,   # 165 / 4 threads
    "files_mean_count": 9 / 5,       # 5 + 1 + 1 + 1 + 1 events, 5 files
    "nothing": None,
}


def values(out):
    d = json.loads(out)
    return d["cases"], {m["name"]: m["values"] for m in d["metrics"]}


def against_ref(mpath, cases, what, jobs=None):
    """trace compare --json over CASES [(name, paths)] = notebook_ref.py's
    compare(); returns the tool's values."""
    args = ["--metrics", mpath, "--json"]
    for name, paths in cases:
        args += ["--case", "%s=%s" % (name, ",".join(paths))]
    if jobs:
        args += ["-j", str(jobs)]
    rc, out, err = run(*args)
    check(rc == 0, "%s: exit %d: %s" % (what, rc, err))
    if rc:
        return None
    with open(mpath) as f:
        metrics = json.load(f)
    want = ref.compare(metrics, [(n, ref.case_files(",".join(p)))
                                 for n, p in cases])
    names, got = values(out)
    check(names == [n for n, _ in cases], "%s: cases %r" % (what, names))
    check([m["name"] for m in json.loads(out)["metrics"]] ==
          [m["name"] for m in metrics], "%s: metric order" % what)
    for m in want["metrics"]:
        for c, v in m["values"].items():
            g = got.get(m["name"], {}).get(c, "missing")
            check(g != "missing" and same(g, v), "%s: %s of %s: %r, "
                  "notebook_ref.py says %r" % (what, m["name"], c, g, v))
    return got


def main():
    return run_in_tmp("compare_check", body)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def body(tmp):
    mpath = write(os.path.join(tmp, "m.json"), json.dumps(METRICS))
    hand = write(os.path.join(tmp, "hand.pfw"), "\n".join(HAND) + "\n")
    handgz = os.path.join(tmp, "hand.pfw.gz")
    with open(hand, "rb") as f, gzip.open(handgz, "wb") as g:
        g.write(f.read())

    # ---- the hand-made trace: by hand, and notebook_ref.py --------------
    got = against_ref(mpath, [("plain", [hand]), ("gz", [handgz]),
                              ("both", [hand, handgz])], "hand")
    if got:
        for k, v in HAND_ANSWERS.items():
            for c in ("plain", "gz"):
                check(same(got[k][c], v), "hand: %s of %s: %r, by hand %r"
                      % (k, c, got[k][c], v))
        # keys are case-wide: the same thread in two files is one key
        check(same(got["checkpoint"]["both"], 300e-6),
              "hand: checkpoint over both files: %r, by hand 0.0003"
              % got["checkpoint"]["both"])
        check(got["model_writes"]["both"] == 4,
              "hand: model writes over both files")
        check(isinstance(got["model_writes"]["plain"], int) and
              isinstance(got["ssd_bytes"]["plain"], int),
              "hand: counts and bytes are JSON integers")
    rc, out, err = run("--metrics", mpath, "--case", "a=" + hand)
    check(rc == 0 and "hand.pfw:17: corrupt line skipped" in err,
          "hand: the corrupt line named on stderr: %r" % err)
    rows = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines()
            if ln.strip()}
    check(rows.get("metric") == ["unit", "a"], "text: header %r"
          % rows.get("metric"))
    check(rows.get("checkpoint") == ["s", "0.000150"],
          "text: checkpoint row %r" % rows.get("checkpoint"))
    check(rows.get("ssd_bytes") == ["GiB", "%.6f" % (1200 / 2 ** 30)],
          "text: ssd_bytes row %r" % rows.get("ssd_bytes"))
    check(rows.get("model_writes") == ["count", "2"],
          "text: model_writes row %r" % rows.get("model_writes"))
    check(rows.get("posix_thread_mean") == ["s", "0.000041"],
          "text: mean row %r" % rows.get("posix_thread_mean"))
    check(rows.get("files_mean_count") == ["count", "1.800"],
          "text: mean count row %r" % rows.get("files_mean_count"))
    check(rows.get("nothing") == ["s", "-"],
          "text: no event selected is '-': %r" % rows.get("nothing"))
    check("no event selected" in out, "text: the footer says what '-' is")

    # ---- the fixtures ---------------------------------------------------
    fx = [os.path.join(DF, n) for n in ("posix-old-format.pfw",
                                        "cm1-rank0-new-format.pfw.gz",
                                        "small.pfw")]
    fm = METRICS + [
        {"name": "lustre_time", "filter": ["cat=POSIX", "file^/p/lustre1/"],
         "value": "dur", "per": "thread", "reduce": "max"},
        {"name": "lustre_bytes", "filter": "cat=POSIX,file^/p/lustre1/",
         "value": "bytes"},
        {"name": "sys_time", "filter": ["cat=POSIX", "file^/sys/"],
         "value": "dur", "per": "thread", "reduce": "max"},
        {"name": "cm1_writes", "filter": ["name=write", "file~cm1out"],
         "value": "count"},
        {"name": "cm1_opens", "filter": ["name=open", "file~cm1out"],
         "value": "count"},
        {"name": "cm1_closes", "filter": ["name=close", "file~cm1out"],
         "value": "count"},
        {"name": "name_file_max_bytes", "value": "bytes",
         "per": ["name", "file"], "reduce": "max"},
        {"name": "prefix2_min_dur", "value": "dur", "per": "prefix:2",
         "reduce": "min"},
        {"name": "cat_host_mean", "value": "bytes", "per": "cat,host",
         "reduce": "mean"},
        {"name": "events", "value": "count"},
    ]
    fpath = write(os.path.join(tmp, "f.json"), json.dumps(fm))
    cases = [("old", [fx[0]]), ("cm1", [fx[1]]), ("small", [fx[2]]),
             ("all", fx), ("dir", [DF])]
    g1 = against_ref(fpath, cases, "fixtures", jobs=1)
    g3 = against_ref(fpath, cases, "fixtures -j 3", jobs=3)
    check(g1 == g3, "fixtures: -j 1 and -j 3 agree")
    if g1:
        # the notebook's own answers (notebook_ref.notebook) where they ask
        # the same thing
        for c, paths in cases[:4]:
            evs = []
            for p in paths:
                evs += ref.read_trace(p)[0]
            nb = ref.notebook(evs, CK, [("lustre", "/p/lustre1")], "cm1out")
            check(same(g1["total_bytes"][c], nb["total_bytes"]),
                  "fixtures %s: total bytes = notebook()'s" % c)
            lus = nb["dirs"]["lustre"]
            if lus["events"]:
                check(same(g1["lustre_time"][c],
                           lus["max_thread_dur_us"] / 1e6),
                      "fixtures %s: lustre time = notebook()'s" % c)
            pats = nb["patterns"].values()
            check(same(g1["pattern_proc_bytes"][c],
                       max(p["max_process_bytes"] for p in pats)),
                  "fixtures %s: pattern/process bytes = notebook()'s" % c)
            check(same(g1["pattern_proc_time"][c],
                       max(p["max_process_dur_us"] for p in pats) / 1e6),
                  "fixtures %s: pattern/process time = notebook()'s" % c)
            mc = nb["model_counts"]
            check((g1["cm1_writes"][c] or 0) == mc.get("write", 0) and
                  (g1["cm1_opens"][c] or 0) == mc.get("open", 0) and
                  (g1["cm1_closes"][c] or 0) == mc.get("close", 0),
                  "fixtures %s: model counts = notebook()'s" % c)
        check(g1["events"]["all"] == 1012 + 8082 + 12,
              "fixtures: events of all three")
        check(g1["dir"] == g1["all"] if False else
              all(g1[k]["dir"] == g1[k]["all"] for k in g1),
              "fixtures: a directory is its files")

    # ---- a system-trace directory --------------------------------------
    st = system_traces(os.path.join(tmp, "st"))
    sm = [{"name": "n", "value": "count"}]
    for nm in ("read", "write", "openat", "close"):
        sm += [{"name": nm + "_n", "filter": "name=" + nm,
                "value": "count"},
               {"name": nm + "_dur", "filter": "name=" + nm, "value": "dur"},
               {"name": nm + "_bytes", "filter": "name=" + nm,
                "value": "bytes"}]
    spath = write(os.path.join(tmp, "s.json"), json.dumps(sm))
    p = subprocess.run([BIN, "trace", "summary", st, "--date", "2024-01-01",
                        "--json"], capture_output=True, text=True)
    rc, out, err = run("--metrics", spath, "--case", "st=" + st, "--date",
                       "2024-01-01", "--json")
    check(p.returncode == 0 and rc == 0, "systrace: exit %d/%d: %s" %
          (p.returncode, rc, err))
    if p.returncode == 0 and rc == 0:
        s = json.loads(p.stdout)
        _, got = values(out)
        check(got["n"]["st"] == s["events"] == 7,
              "systrace: events %r, summary %r, by hand 7"
              % (got["n"], s["events"]))
        check(got["read_bytes"]["st"] == 131072 + 4096 + 10 and
              got["write_bytes"]["st"] == 4096 + 100 and
              got["read_n"]["st"] == 3 and got["close_n"]["st"] == 1,
              "systrace: read/write bytes and counts by hand: %r" % got)
        for nm, b in s["by_name"].items():
            check(got[nm + "_n"]["st"] == b["count"],
                  "systrace: %s count" % nm)
            check(same(got[nm + "_dur"]["st"], b["dur_us"] / 1e6),
                  "systrace: %s dur" % nm)
            check((got[nm + "_bytes"]["st"] or 0) == b.get("bytes", 0),
                  "systrace: %s bytes" % nm)
    rc, out, err = run("--metrics", spath, "--case", "st=" + st)
    check(rc == 64 and "--date" in err,
          "systrace: no date is 64 as for trace summary: %d %r" % (rc, err))

    # the bug "an empty call file is not a trace": a recording with no
    # close call (its file only the header) was exit 65
    empty = system_traces(os.path.join(tmp, "st-empty"))
    write(os.path.join(empty, "trace_close.out"), "Attaching 4 probes...\n"
          "TIMESTAMP PID FD LAT(ns) FILENAME\n")
    rc, out, err = run("--metrics", spath, "--case", "st=" + empty,
                       "--date", "2024-03-01", "--json")
    check(rc == 0 and "not a DFTracer trace" not in err,
          "systrace: an empty call file is no calls, not exit 65: %d %r"
          % (rc, err))

    errors(tmp, hand)


def system_traces(d):
    """A small directory in the seed's layout (docs/systrace.md): 3 reads (131072
    + 4096 + 10 B), 2 writes (4096 + 100 B), an openat and a close, over
    two processes, and the time-align trace (times of day: --date)."""
    os.makedirs(d)
    t0 = 3_000_000_000_000
    files = {
        "read": ["TIMESTAMP PID FD RET (B) LAT(ns) FILENAME",
                 "%d 100 3 131072 20000 img_000001.npz" % (t0 + 10_000),
                 "%d 100 3 4096 5000 img_000001.npz" % (t0 + 20_000),
                 "%d 117 4 10 3000 my file.txt" % (t0 + 30_000)],
        "write": ["TIMESTAMP PID FD BUFFER ADDR OFFSET REQ (B) RET (B) "
                  "LAT(ns) FILENAME",
                  "%d 100 5 0x7f0000000001 0 4096 4096 7000 out.bin"
                  % (t0 + 40_000),
                  "%d 117 5 0x7f0000000002 4096 100 100 9000 out.bin"
                  % (t0 + 50_000)],
        "openat": ["TIMESTAMP PID FD LAT(ns) FULLPATH FILENAME",
                   "%d 100 3 4000 /data/img_000001.npz img_000001.npz"
                   % (t0 + 5_000)],
        "close": ["TIMESTAMP PID FD LAT(ns) FILENAME",
                  "%d 100 3 1000 img_000001.npz" % (t0 + 60_000)],
    }
    for kind, lines in files.items():
        write(os.path.join(d, "trace_%s.out" % kind),
              "Attaching 4 probes...\n" + "\n".join(lines) + "\n")
    write(os.path.join(d, "trace_time_align.out"),
          "Attaching 1 probe...\nTIMESTAMP TIME\n"
          "%d 10:15:00\n%d 10:15:01\n" % (t0 - 500_000_000,
                                          t0 + 500_000_000))
    return d


def errors(tmp, hand):
    out = os.path.join(tmp, "out.txt")
    keep = "KEEP ME\n"

    def bad(text, code, *needles, case=None, extra=()):
        path = write(os.path.join(tmp, "bad.json"), text) \
            if text is not None else os.path.join(tmp, "none.json")
        write(out, keep)
        before = set(os.listdir(tmp))
        rc, o, e = run("--metrics", path, "--case",
                       case or "a=" + hand, "--out", out, *extra)
        what = "error %r / %r" % (text, case)
        check(rc == code, "%s: exit %d, wanted %d (%s)" % (what, rc, code, e))
        for n in needles:
            check(n in e, "%s: %r not in %r" % (what, n, e))
        with open(out) as f:
            check(f.read() == keep, "%s: --out changed" % what)
        check(set(os.listdir(tmp)) == before, "%s: a file left behind" % what)

    one = '{"name":"a","value":"count"}'
    m = "bad.json: metric "
    bad('[{"name":"a"', 78, "bad.json:1:")
    bad('{"name":"a","value":"count"}', 78, "bad.json: expected a JSON array")
    bad('[]', 78, "bad.json: no metric")
    bad('[3]', 78, m + "1: must be an object")
    bad('[%s,{"name":"b","value":"dur","filer":"x"}]' % one, 78,
        m + "2 ('b'): unknown field 'filer'; did you mean 'filter'?")
    bad('[{"value":"dur"}]', 78, m + "1: 'name' must be a non-empty string")
    bad('[{"name":"","value":"dur"}]', 78, m + "1: 'name' must be")
    bad('[%s,%s]' % (one, one), 78, m + "2 ('a'): 'name' given to metric 1")
    bad('[{"name":"a","value":"count","filter":3}]', 78,
        m + "1 ('a'): 'filter' must be a string or an array of strings")
    bad('[{"name":"a","value":"count","filter":["cat=POSIX",1]}]', 78,
        m + "1 ('a'): 'filter'[1] must be a string")
    bad('[{"name":"a","value":"count","filter":"size>3"}]', 78,
        m + "1 ('a'): 'filter': 'size>3'")
    bad('[{"name":"a"}]', 78, m + "1 ('a'): 'value' is missing")
    bad('[{"name":"a","value":"durr"}]', 78, m + "1 ('a'): 'value': "
        "\"durr\" is not dur, bytes or count; did you mean 'dur'?")
    bad('[{"name":"a","value":5}]', 78, m + "1 ('a'): 'value' must be a "
        "string")
    bad('[{"name":"a","value":"dur","per":"patern","reduce":"max"}]', 78,
        m + "1 ('a'): 'per': ", "did you mean 'pattern'")
    bad('[{"name":"a","value":"dur","per":[],"reduce":"max"}]', 78,
        m + "1 ('a'): 'per' must be a string or a non-empty array")
    bad('[{"name":"a","value":"dur","per":["pid",2],"reduce":"max"}]', 78,
        m + "1 ('a'): 'per'[1] must be a string")
    bad('[{"name":"a","value":"dur","per":["pid,tid"],"reduce":"max"}]', 78,
        m + "1 ('a'): 'per'[0]: one key per string")
    bad('[{"name":"a","value":"dur","per":""}]', 78,
        m + "1 ('a'): 'per': no key")
    bad('[{"name":"a","value":"dur","per":"thread"}]', 78,
        m + "1 ('a'): 'reduce' is missing")
    bad('[{"name":"a","value":"dur","per":"thread","reduce":"maxx"}]', 78,
        m + "1 ('a'): 'reduce': \"maxx\" is not max, min, sum or mean; "
        "did you mean 'max'?")
    bad('[{"name":"a","value":"dur","value":"count"}]', 78, "bad.json:1:",
        "duplicate")
    bad(None, 66, "none.json")
    # --case and the inputs
    bad('[%s]' % one, 64, "--case 'a': expected NAME=PATH", case="a")
    bad('[%s]' % one, 64, "expected NAME=PATH", case="=" + hand)
    bad('[%s]' % one, 64, "--case 'a=': expected NAME=PATH", case="a=")
    bad('[%s]' % one, 64, "an empty path", case="a=%s,,%s" % (hand, hand))
    # compare_case_trailing_comma: "a=P," was taken as "a=P"
    bad('[%s]' % one, 64, "--case a: an empty path in '%s,'" % hand,
        case="a=%s," % hand)
    bad('[%s]' % one, 64, "--case a given twice", case="a=" + hand,
        extra=("--case", "a=" + hand))
    # compare_case_after_bad_case: a case that is not one, then a good
    # one: the good one's name was checked against the first's, which
    # has none (a crash, 139)
    bad('[%s]' % one, 64, "--case 'a': expected NAME=PATH", case="a",
        extra=("--case", "b=" + hand))
    bad('[%s]' % one, 66, "cannot read %s" % os.path.join(tmp, "no.pfw"),
        case="a=%s,%s" % (hand, os.path.join(tmp, "no.pfw")))
    empty = write(os.path.join(tmp, "empty.pfw"), "")
    bad('[%s]' % one, 65, "empty.pfw", "nothing written", case="a=" + empty)
    cut = os.path.join(tmp, "cut.pfw.gz")
    with open(os.path.join(tmp, "hand.pfw.gz"), "rb") as f:
        data = f.read()
    write(cut, "")
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])
    bad('[%s]' % one, 65, "cut.pfw.gz", case="b=%s" % hand,
        extra=("--case", "c=" + cut))
    rc, o, e = run("--metrics", os.path.join(tmp, "bad.json"))
    check(rc == 64 and "--case" in e, "no --case is 64: %d %r" % (rc, e))
    rc, o, e = run("--case", "a=" + hand)
    check(rc == 64 and "--metrics" in e, "no --metrics is 64: %d %r" % (rc, e))
    rc, o, e = run("--metrics", os.path.join(tmp, "bad.json"), "--case",
                   "a=" + hand, hand)
    check(rc == 64 and "unexpected argument" in e, "a FILE argument is 64")
    # --out written whole on success, the same as stdout
    write(os.path.join(tmp, "bad.json"), '[%s]' % one)
    rc, o1, e = run("--metrics", os.path.join(tmp, "bad.json"), "--case",
                    "a=" + hand, "--out", out, "--json")
    rc2, o2, e = run("--metrics", os.path.join(tmp, "bad.json"), "--case",
                     "a=" + hand, "--json")
    with open(out) as f:
        check(rc == 0 and rc2 == 0 and o1 == "" and f.read() == o2 and
              json.loads(o2)["metrics"][0]["values"]["a"] == 13,
              "--out FILE holds what stdout gets")


if __name__ == "__main__":
    sys.exit(main())
