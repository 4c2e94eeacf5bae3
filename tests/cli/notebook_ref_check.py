#!/usr/bin/env python3
"""tests/tools/notebook_ref.py, the truth of issue 16's notebook tests, is
itself checked here:

  * on a tiny trace written below whose answers were worked out by hand
    (both DFTracer generations in one file, a hash mapped again to
    another file, numbers as strings, fread's items, a corrupt line, a
    directory whose name is a prefix of another, a checkpoint whose
    per-thread answer differs from the per-process one), as .pfw and
    as .pfw.gz, through its command line (JSON on stdout);
  * its keys on the edge cases of SPEC 5.12;
  * on the fixtures, against `trace summary --json` (a separate reading
    in C): events, corrupt lines, and count, time and bytes per name.

usage: notebook_ref_check.py STREAMTIME FIXTURES
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(HERE), "tools", "notebook_ref.py")
sys.path.insert(0, os.path.dirname(TOOL))
import notebook_ref as ref  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
DF = os.path.join(os.path.abspath(sys.argv[2]), "dftracer")
from checks import check, report  # noqa: E402


CK = "PyTorchCheckpointing.checkpoint"
TINY = [
    '[',
    '{"id":1,"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":"M",'
    '"args":{"name":"nodeA","value":7}}',
    '{"id":2,"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M",'
    '"args":{"name":"/pfs/ckpt/model-0001_rank2.pt","value":11}}',
    # checkpoints: nodeA:1:10 150 us, nodeA:1:11 120, nodeB:2:10 140
    # (per process nodeA:1 would be 270)
    '{"name":"%s","cat":"python","pid":1,"tid":10,"ts":0,"dur":100,'
    '"ph":"X","args":{"hhash":7}},' % CK,
    '{"name":"%s","cat":"python","pid":1,"tid":10,"ts":200,"dur":50,'
    '"ph":"X","args":{"hhash":7}}' % CK,
    '{"name":"%s","cat":"python","pid":1,"tid":11,"ts":0,"dur":120,'
    '"ph":"X","args":{"hhash":7}}' % CK,
    '{"name":"%s","cat":"python","pid":"2","tid":"10","ts":"5",'
    '"dur":"140","ph":"X","args":{"hostname":"nodeB"}}' % CK,
    # model writes under /pfs: 1000 B in 30 us (nodeA:1:10), 3000 B in 20
    # us (nodeA:3:11)
    '{"name":"write","cat":"POSIX","pid":1,"tid":10,"ts":400,"dur":30,'
    '"ph":"X","args":{"hhash":7,"fhash":11,"ret":1000}}',
    '{"name":"write","cat":"POSIX","pid":3,"tid":11,"ts":400,"dur":20,'
    '"ph":"X","args":{"hhash":7,"fhash":11,"ret":3000}}',
    # hash 11 now names another file (DFTracer's hashes collide)
    '{"id":3,"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M",'
    '"args":{"name":"/ssd/cache/model-0002_rank2.pt","value":11}}',
    '{"name":"write","cat":"POSIX","pid":1,"tid":10,"ts":500,"dur":5,'
    '"ph":"X","args":{"hhash":7,"fhash":11,"ret":500}}',
    '{"name":"open","cat":"POSIX","pid":"2","tid":"10","ts":"600",'
    '"dur":"7","ph":"X","args":{"hostname":"nodeB",'
    '"fname":"/pfs/data/img_12-3.npz"}}',
    '{"name":"read","cat":"POSIX","pid":"2","tid":"10","ts":"610",'
    '"dur":"9","ph":"X","args":{"hostname":"nodeB",'
    '"fname":"/pfs/data/img_12-3.npz","ret":"2048"}}',
    # fread: 4 items of 256 bytes; STDIO, so not a POSIX call
    '{"name":"fread","cat":"STDIO","pid":2,"tid":10,"ts":620,"dur":1,'
    '"ph":"X","args":{"hostname":"nodeB","fname":"/pfs/data/img_12-3.npz",'
    '"ret":4,"size":256}}',
    # /pfsx is not under /pfs
    '{"name":"lseek","cat":"POSIX","pid":2,"tid":12,"ts":630,"dur":2,'
    '"ph":"X","args":{"hostname":"nodeB","fname":"/pfsx/model-9.pt"}}',
    # corrupt: no ts
    '{"name":"write","cat":"POSIX","ph":"X","pid":1,"tid":1,"dur":1}',
    ']',
]

WANT = {
    "events": 11,
    "bad_lines": 1,
    "checkpoint": {"name_contains": CK, "events": 4,
                   "max_thread_dur_us": 150, "max_thread_dur_s": 150e-6,
                   "thread": "nodeA:1:10"},
    "dirs": {
        "pfs": {"dir": "/pfs", "events": 4, "max_thread_dur_us": 30,
                "max_thread_dur_s": 30e-6, "thread": "nodeA:1:10",
                "bytes": 6048, "gib": 6048 / 2 ** 30},
        "ssd": {"dir": "/ssd/", "events": 1, "max_thread_dur_us": 5,
                "max_thread_dur_s": 5e-6, "thread": "nodeA:1:10",
                "bytes": 500, "gib": 500 / 2 ** 30},
    },
    "total_bytes": 7572,
    "patterns": {
        "img_*.npz": {"count": 3, "dur_us": 17, "bytes": 3072,
                      "max_process_dur_us": 17, "max_process_bytes": 3072},
        "model*.pt": {"count": 1, "dur_us": 2, "bytes": 0,
                      "max_process_dur_us": 2, "max_process_bytes": 0},
        # nodeA:1 35 us and 1500 B, nodeA:3 20 us and 3000 B
        "model*_rank*.pt": {"count": 3, "dur_us": 55, "bytes": 4500,
                            "max_process_dur_us": 35,
                            "max_process_bytes": 3000},
    },
    "model_counts": {"lseek": 1, "write": 3},
    "file_writes": {
        "/pfs/ckpt/model-0001_rank2.pt": {"count": 2, "dur_us": 50,
                                          "bytes": 4000},
        "/ssd/cache/model-0002_rank2.pt": {"count": 1, "dur_us": 5,
                                           "bytes": 500},
    },
    "damaged": [],
}


def run_ref(*args):
    p = subprocess.run([sys.executable, TOOL, *args], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0, "notebook_ref %s: rc %d %s" %
          (args, p.returncode, p.stderr[-300:]))
    return json.loads(p.stdout) if p.returncode == 0 else {}


def tiny(tmp):
    text = "\n".join(TINY) + "\n"
    plain = os.path.join(tmp, "tiny.pfw")
    gz = os.path.join(tmp, "tiny.pfw.gz")
    with open(plain, "w") as f:
        f.write(text)
    with gzip.open(gz, "wt") as f:
        f.write(text)
    for p in (plain, gz):
        got = run_ref("--dir", "pfs=/pfs", "--dir", "ssd=/ssd/", p)
        for k in WANT:
            check(got.get(k) == WANT[k], "tiny %s: %s = %r, by hand %r" %
                  (os.path.basename(p), k, got.get(k), WANT[k]))
    ev, bad, _ = ref.read_trace(plain)
    check(bad == [16], "tiny: the corrupt line is line 16: %s" % bad)
    check([e["file"] for e in ev if e["name"] == "write"] ==
          ["/pfs/ckpt/model-0001_rank2.pt"] * 2 +
          ["/ssd/cache/model-0002_rank2.pt"],
          "tiny: the hash mapped again names the new file")
    # a gzip stream cut short: the whole lines before the cut
    with open(gz, "rb") as f:
        data = f.read()
    cut = os.path.join(tmp, "cut.pfw.gz")
    with open(cut, "wb") as f:
        f.write(data[:-12])
    got = run_ref(cut)
    check(got.get("damaged") == [cut], "cut gzip said: %r" %
          got.get("damaged"))


def keys():
    for path, b, pat in (("/a/b/ckpt-00012_rank3.pt", "ckpt-00012_rank3.pt",
                          "ckpt*_rank*.pt"),
                         ("/dlio/data1/train/", "train", "train"),
                         ("/", "/", "/"), ("", "", ""), ("0042", "0042", "*"),
                         ("/x/a-b", "a-b", "a*b"),
                         ("/d/été2024-résumé7.txt", "été2024-résumé7.txt",
                          "été*résumé*.txt")):
        check(ref.basename(path) == b, "basename %r: %r" %
              (path, ref.basename(path)))
        check(ref.pattern(path) == pat, "pattern %r: %r" %
              (path, ref.pattern(path)))
    for path, n, want in (("/p/lustre1/x/y", 2, "/p/lustre1"),
                          ("a//b/c", 2, "a//b"), ("/a/b/", 5, "/a/b"),
                          ("/", 3, "/"), ("", 1, ""), ("rel", 1, "rel"),
                          ("/p/lustre1/x", 1, "/p")):
        check(ref.prefix(path, n) == want, "prefix:%d %r: %r" %
              (n, path, ref.prefix(path, n)))
    check(ref.key_text((None, 4, 5)) == "?:4:5", "no host: ?")


def summary(*args):
    p = subprocess.run([BIN, "trace", "summary", "--json", *args],
                       capture_output=True, text=True, timeout=240)
    check(p.returncode == 0, "trace summary %s: rc %d" % (args,
                                                          p.returncode))
    return json.loads(p.stdout) if p.returncode == 0 else {}


def fixtures():
    files = sorted(os.path.join(DF, f) for f in os.listdir(DF))
    for f in files + [files]:
        fl = f if isinstance(f, list) else [f]
        got = run_ref(*fl)
        s = summary(*fl)
        evs = [e for p in fl for e in ref.read_trace(p)[0]]
        what = "fixtures %s" % [os.path.basename(x) for x in fl]
        check(got.get("events") == s.get("events") and evs,
              "%s: events %s vs summary %s" % (what, got.get("events"),
                                               s.get("events")))
        check(got.get("bad_lines") == s.get("bad_lines"),
              "%s: bad lines %s vs %s" % (what, got.get("bad_lines"),
                                          s.get("bad_lines")))
        by = {}
        for e in evs:
            c = by.setdefault(e["name"], {"count": 0, "dur_us": 0,
                                          "bytes": 0})
            c["count"] += 1
            c["dur_us"] += e["dur"]
            c["bytes"] += e["bytes"] or 0
        check(by == s.get("by_name"), "%s: per name differs" % what)
        check(got.get("total_bytes") ==
              sum(v["bytes"] for v in s.get("by_name", {}).values()),
              "%s: total bytes" % what)
    # POSIX calls under /p/lustre1: the file is it or below it
    old = os.path.join(DF, "posix-old-format.pfw")
    got = run_ref("--dir", "pfs=/p/lustre1", old)["dirs"]["pfs"]
    below = summary("--filter", "cat=POSIX,file^/p/lustre1/", old)
    at = summary("--filter", "cat=POSIX,file=/p/lustre1", old)
    check(got["events"] == below.get("events", -1) + at.get("events", -1)
          and got["events"] > 1000, "pfs events %s" % got["events"])
    check(got["bytes"] == sum(v["bytes"] for s in (below, at)
                              for v in s.get("by_name", {}).values())
          and got["bytes"] > 0, "pfs bytes %s" % got["bytes"])


def main():
    if not os.path.isdir(DF):
        print("notebook_ref_check: FAIL: no fixtures at %s" % DF,
              file=sys.stderr)
        return 1
    tmp = tempfile.mkdtemp(prefix="st-nbref-")
    try:
        tiny(tmp)
        keys()
        fixtures()
    finally:
        shutil.rmtree(tmp)
    return report("notebook_ref_check")


if __name__ == "__main__":
    sys.exit(main())
