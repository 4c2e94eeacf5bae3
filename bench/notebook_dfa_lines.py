#!/usr/bin/python3
"""DFAnalyzer's per-line work (dfanalyzer/dftracer.py load_objects and
io_function, as bench/trace.sh measures it), without Dask and without any
query: ASCII filter, json.loads(strict=False), the row dict with its
interval string and size.  A LOWER BOUND on DFAnalyzer's time for the same
files (in Dask it reached 10-13 k events/s per worker, issue 8).

  notebook_dfa_lines.py [--stop N] FILE...
      prints the X events it built rows for (stopping after N of them;
      bench/trace.sh times the first N)
"""
import gzip
import json
import sys

args, want = sys.argv[1:], 0
if args[:1] == ["--stop"]:
    want, args = int(args[1]), args[2:]
n = 0
for path in args:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line or line[0] in "[]" or line == "\n":
                continue
            d = {}
            try:
                uline = "".join([c if ord(c) < 128 else "#" for c in line])
                val = json.loads(uline.rstrip().rstrip(","), strict=False)
                for k in ("name", "cat", "pid", "tid"):
                    if k in val:
                        d[k] = val[k]
                args = val.get("args", {})
                if "hhash" in args:
                    d["hhash"] = args["hhash"]
                if val["ph"] != "X":
                    continue
                ts, dur = int(val["ts"]), int(val["dur"])
                d["ts"], d["dur"], d["te"] = ts, dur, ts + dur
                d["tinterval"] = "[%d,%d]" % (ts, ts + dur)
                d["trange"] = int(((ts + dur) / 2.0) / 1e6)
                d["phase"] = 2 if val["cat"] == "POSIX" else 0
                if "fname" in args:
                    d["filename"] = args["fname"]
                if val["cat"] == "POSIX" and "ret" in args:
                    size = int(args["ret"])
                    if size > 0 and ("write" in val["name"] or
                                     ("read" in val["name"] and
                                      "readdir" not in val["name"])):
                        d["size"] = size
            except (ValueError, KeyError):
                continue
            n += 1
            if n == want:
                print(n)
                sys.exit(0)
print(n)
