#!/usr/bin/python3
"""The DFAnalyzer notebook for one case in pandas (issue 16's baseline).

  notebook_pandas.py --pfs DIR --ssd DIR --model S --file F \
                     [--check-compare J [--check-writes J] --check-events CSV] DIR

Loads every .pfw / .pfw.gz of DIR once, as a DFAnalyzer user does (each
line through json.loads, HH/FH hashes mapped to their names, the events in
one pandas DataFrame), then runs all the notebook's queries on it:
checkpoint time (largest per-thread dur of names containing
PyTorchCheckpointing.checkpoint), PFS and SSD time (POSIX calls on files
under --pfs / --ssd, largest per-thread dur) and their bytes, total bytes,
per pattern the largest per-process bytes and dur, write/open/lseek/close
counts on files containing --model, per file the writes' count, dur and
bytes, and the events of --file.  Bytes follow streamtime's rule (README
"trace"; tests/tools/notebook_ref.py).  Prints the load and query times
(stderr) and, with --check-*, compares every answer with streamtime's
(`trace compare --json`: the 12 metrics, and the per-file writes from its
"by": "file" metrics writes_count / writes_dur / writes_bytes when it has
them, else from `trace summary --group-by file --json` given by
--check-writes; the events of --file as `trace events --format csv` or an
"events" metric writes them: ts, dur, name, pid, tid of every row);
exit 1 on any difference.
"""
import argparse
import csv
import gzip
import json
import os
import sys
import time

import pandas as pd

CKPT = "PyTorchCheckpointing.checkpoint"
OPS = ("write", "open", "lseek", "close")


def num(v):
    return int(v) if v is not None else None


def nbytes(name, args):
    if ("read" in name or "write" in name) and "readdir" not in name \
            and "readlink" not in name:
        ret = args.get("ret")
        try:
            ret = int(ret)
        except (TypeError, ValueError):
            return 0
        if ret <= 0:
            return 0
        if name in ("fread", "fwrite"):
            try:
                size = int(args.get("size"))
            except (TypeError, ValueError):
                size = 0
            if size > 0:
                return ret * size
        return ret
    for k in ("size", "image_size"):
        try:
            v = int(args.get(k))
        except (TypeError, ValueError):
            continue
        if v > 0:
            return v
    return 0


def host_file(args, maps):
    """An event's host and file: inline (old format) or through the HH/FH
    names defined before it, maps[("HH"|"FH", str(value))]."""
    host = args.get("hostname")
    if host is None and "hhash" in args:
        host = maps.get(("HH", str(args["hhash"])))
    fname = args.get("fname")
    if fname is None and "fhash" in args:
        fname = maps.get(("FH", str(args["fhash"])))
    return host, fname


def load(paths):
    cols = {k: [] for k in ("name", "cat", "host", "pid", "tid", "ts", "dur",
                            "file", "bytes")}
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        maps = {}
        with opener(path, "rb") as f:
            for raw in f:
                line = raw.strip()
                if line.endswith(b","):
                    line = line[:-1]
                if line in (b"", b"[", b"]"):
                    continue
                e = json.loads(line)
                args = e.get("args") or {}
                if e["ph"] == "M":
                    if e["name"] in ("HH", "FH", "SH"):
                        maps[(e["name"], str(args["value"]))] = args["name"]
                    continue
                if e["ph"] != "X":
                    continue
                host, fname = host_file(args, maps)
                cols["name"].append(e["name"])
                cols["cat"].append(e["cat"])
                cols["host"].append(host)
                cols["pid"].append(num(e["pid"]))
                cols["tid"].append(num(e["tid"]))
                cols["ts"].append(num(e["ts"]))
                cols["dur"].append(num(e["dur"]))
                cols["file"].append(fname)
                cols["bytes"].append(nbytes(e["name"], args))
    df = pd.DataFrame(cols)
    base = df["file"].str.rstrip("/").str.rsplit("/", n=1).str[-1]
    df["pattern"] = base.str.replace(r"[0-9-]+", "*", regex=True)
    return df


THREAD = ["host", "pid", "tid"]
PROC = ["host", "pid"]


def top(sel, keys, col):
    if sel.empty:
        return None
    return int(sel.groupby(keys, dropna=False)[col].sum().max())


def queries(df, a):
    m = {}
    m["checkpoint"] = top(df[df["name"].str.contains(CKPT, regex=False)],
                          THREAD, "dur")
    posix = df[df["cat"] == "POSIX"]
    for label, d in (("pfs", a.pfs), ("ssd", a.ssd)):
        sel = posix[posix["file"].str.startswith(d, na=False)]
        m[label + "_time"] = top(sel, THREAD, "dur")
        m[label + "_bytes"] = int(sel["bytes"].sum()) if len(sel) else None
    m["total_bytes"] = int(df["bytes"].sum())
    withfile = df[df["file"].notna()]
    m["pattern_proc_bytes"] = top(withfile, ["pattern"] + PROC, "bytes")
    m["pattern_proc_time"] = top(withfile, ["pattern"] + PROC, "dur")
    model = df[df["file"].str.contains(a.model, regex=False, na=False)]
    counts = model["name"].value_counts()
    for op in OPS:
        n = int(counts.get(op, 0))
        m["model_" + op] = n if n else None
    w = df[df["name"].str.contains("write", regex=False) & df["file"].notna()]
    g = w.groupby("file").agg(count=("dur", "size"), dur=("dur", "sum"),
                              bytes=("bytes", "sum"))
    writes = {f: (int(r["count"]), int(r["dur"]), int(r["bytes"]))
              for f, r in g.iterrows()}
    events = df[df["file"] == a.file]
    return m, writes, events


def check(m, writes, events, a, who="pandas", rel_ts=False):
    """Compares the answers with streamtime's files; returns what differs.
    With rel_ts, the events' ts count from the file's first event on each
    side, in sorted order (DFAnalyzer shifts ts to the set's first event
    and its rows come in partition order)."""
    bad = []
    st = json.load(open(a.check_compare))
    case = st["cases"][0]
    stm = {x["name"]: x["values"][case] for x in st["metrics"]}
    for k, v in m.items():
        s = stm.get(k, "missing")
        if k.endswith("_time") or k == "checkpoint":
            s = None if s is None else round(s * 1e6)   # seconds -> us
        print("  %-20s %s %-16s streamtime %s" % (k, who, v, s))
        if s != v:
            bad.append(k)
    if "writes_count" in stm:
        stw = {f: (n, round(stm["writes_dur"][f] * 1e6),
                   stm["writes_bytes"][f])
               for f, n in stm["writes_count"].items()}
        src = "trace compare's by-file metrics"
    else:
        groups = json.load(open(a.check_writes))["groups"]
        stw = {f: (g["count"], g["dur_us"], g["bytes"])
               for f, g in groups.items() if f != "(none)"}
        src = "trace summary --group-by file"
    print("  per-file writes: %s %d files, streamtime (%s) %d files"
          % (who, len(writes), src, len(stw)))
    if stw != writes:
        bad.append("per-file writes")
    with open(a.check_events, newline="") as f:
        st_rows = [(int(r["ts"]), int(r["dur"]), r["name"], int(r["pid"]),
                    int(r["tid"])) for r in csv.DictReader(f)]
    rows = [(int(t), int(d), n, int(p), int(i)) for t, d, n, p, i in
            zip(events["ts"], events["dur"], events["name"], events["pid"],
                events["tid"])]
    if rel_ts:
        def rel(rs):
            t0 = min((r[0] for r in rs), default=0)
            return sorted((r[0] - t0,) + r[1:] for r in rs)
        st_rows, rows = rel(st_rows), rel(rows)
    print("  events of %s: %s %d rows, streamtime %d rows"
          % (a.file, who, len(rows), len(st_rows)))
    if rows != st_rows:
        bad.append("events of one file")
    if "file_events" in stm and stm["file_events"] != (len(events) or None):
        bad.append("the count of the events of one file")
    return bad


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pfs", required=True)
    p.add_argument("--ssd", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--file", required=True)
    p.add_argument("--check-compare")
    p.add_argument("--check-writes")
    p.add_argument("--check-events")
    p.add_argument("dir")
    a = p.parse_args()
    paths = sorted(os.path.join(a.dir, n) for n in os.listdir(a.dir)
                   if n.endswith((".pfw", ".pfw.gz")))
    t0 = time.perf_counter()
    df = load(paths)
    t1 = time.perf_counter()
    m, writes, events = queries(df, a)
    t2 = time.perf_counter()
    print("pandas: %d events; load %.3f s, all queries %.3f s"
          % (len(df), t1 - t0, t2 - t1), file=sys.stderr)
    if a.check_compare:
        bad = check(m, writes, events, a)
        if bad:
            print("MISMATCH pandas vs streamtime: " + ", ".join(bad),
                  file=sys.stderr)
            sys.exit(1)
        print("  pandas and streamtime agree on every answer")


if __name__ == "__main__":
    main()
