#!/usr/bin/python3
"""The DFAnalyzer notebook for one case, run by the REAL DFAnalyzer (issue 16).

  notebook_dfanalyzer.py --pfs DIR --ssd DIR --model S --file F
                         [--workers N] [--runs R] [--log FILE]
                         --check-compare J [--check-writes J] --check-events CSV
                         [--events N] [--between CMD] DIR

Needs `dfanalyzer` (dftracer's dfanalyzer/ package, see bench/dfanalyzer.sh
for the patches Debian 12 needs) and `zindex_py` on PYTHONPATH.  Does what
its example notebook does (update_dft_configuration(workers=N),
setup_logging(), setup_dask_cluster(): a LocalCluster of N workers), then
R+1 times (the first, a warm-up that also builds the .zindex files next to
the .pfw.gz, is not counted): loads DIR/*.pfw* with DFAnalyzer(...) and asks
the notebook's questions of analyzer.events with dask, one .compute() each,
as a notebook does.  The custom columns (DFAnalyzer's load_fn/load_cols):
args.fname and args.hostname, which the old .pfw format carries inline
(DFAnalyzer only maps fhash/hhash), and `bytes` by streamtime's rule
(README "trace"; DFAnalyzer's own `size` leaves out STDIO fread/fwrite).
Every answer is compared with streamtime's, as notebook_pandas.check does
(the one pass: `trace compare --json` with the 12 metrics and the by-file
writes, and the events metric's CSV; or the three commands' outputs, with
--check-writes), the events of the file by ts from its first event, name,
pid, tid and dur; exit 1 on any difference.  Prints one line per run: "run K load S queries S cpu S"
(user + system seconds of this process and the workers); runs
the --between command after each timed run (the cluster idle meanwhile).
"""
import argparse
import logging
import os
import resource
import subprocess
import sys
import time

from notebook_pandas import check, host_file, nbytes

CKPT = "PyTorchCheckpointing.checkpoint"
OPS = ("write", "open", "lseek", "close")
LOAD_COLS = {"fname": "string", "hostname": "string", "bytes": "UInt64"}


# FH/HH names seen so far, in line order: the cm1 trace reuses a hash for
# another file (5 of its 699 hashes), which DFAnalyzer's own file_hash
# (groupby('hash').first()) cannot tell apart.  Each partition DFAnalyzer
# maps is one whole file here (a .pfw, or a .pfw.gz of fewer lines than its
# batch_size), and a file defines a hash before it uses it.
NAMES = {}


def load_fn(json_object, current_dict, time_approximate, condition_fn,
            load_data):
    """DFAnalyzer's custom-column hook: called on every line it loads."""
    args = json_object.get("args") or {}
    if json_object.get("ph") == "M":
        if json_object.get("name") in ("FH", "HH") and "value" in args:
            NAMES[(json_object["name"], str(args["value"]))] = args.get("name")
        return {}
    d = {"bytes": nbytes(json_object.get("name", ""), args)}
    h, f = host_file(args, NAMES)
    if f is not None:
        d["fname"] = f
    if h is not None:
        d["hostname"] = h
    return d


def scalar(v):
    import pandas as pd
    return None if v is None or pd.isna(v) else int(v)


def queries(an, a):
    """The notebook's questions on DFAnalyzer's analyzer.events."""
    ev = an.events.rename(columns={"fname": "file", "hostname": "host"})
    base = ev["file"].str.rstrip("/").str.replace(r"^.*/", "", regex=True)
    ev = ev.assign(pattern=base.str.replace(r"[0-9-]+", "*", regex=True))
    ev = ev.persist()
    thread = ["host", "pid", "tid"]
    proc = ["host", "pid"]
    m = {}
    sel = ev[ev["name"].str.contains(CKPT, regex=False).fillna(False)]
    m["checkpoint"] = scalar(sel.groupby(thread)["dur"].sum().max().compute())
    posix = ev[(ev["cat"] == "POSIX").fillna(False)]
    for label, d in (("pfs", a.pfs), ("ssd", a.ssd)):
        sel = posix[posix["file"].str.startswith(d).fillna(False)]
        m[label + "_time"] = scalar(sel.groupby(thread)["dur"].sum().max().compute())
        n, b = sel["bytes"].count().compute(), sel["bytes"].sum().compute()
        m[label + "_bytes"] = int(b) if n else None
    m["total_bytes"] = int(ev["bytes"].sum().compute())
    wf = ev[ev["file"].notnull()]
    m["pattern_proc_bytes"] = scalar(
        wf.groupby(["pattern"] + proc)["bytes"].sum().max().compute())
    m["pattern_proc_time"] = scalar(
        wf.groupby(["pattern"] + proc)["dur"].sum().max().compute())
    model = ev[ev["file"].str.contains(a.model, regex=False).fillna(False)]
    counts = model["name"].value_counts().compute()
    for op in OPS:
        n = int(counts.get(op, 0))
        m["model_" + op] = n if n else None
    w = ev[ev["name"].str.contains("write", regex=False).fillna(False)
           & ev["file"].notnull()]
    g = w.groupby("file").agg({"dur": ["count", "sum"], "bytes": "sum"}).compute()
    writes = {f: (int(r[("dur", "count")]), int(r[("dur", "sum")]),
                  int(r[("bytes", "sum")])) for f, r in g.iterrows()}
    rows = ev[(ev["file"] == a.file).fillna(False)][
        ["ts", "dur", "name", "pid", "tid"]].compute()
    return m, writes, rows, int(ev["dur"].count().compute())


def worker_cpu():
    import psutil
    t = psutil.Process().cpu_times()
    return t.user + t.system


def cpu_seconds():
    """User + system seconds so far of this process (the client and the
    LocalCluster's scheduler) and of the Dask workers."""
    from distributed import get_client
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime + sum(get_client().run(worker_cpu).values())


def main():
    p = argparse.ArgumentParser()
    for o in ("--pfs", "--ssd", "--model", "--file", "--check-compare",
              "--check-events"):
        p.add_argument(o, required=True)
    p.add_argument("--check-writes")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--log", default="dfanalyzer.log")
    p.add_argument("--events", type=int, help="streamtime's event count")
    p.add_argument("--between", help="a shell command run after each timed run")
    p.add_argument("dir")
    a = p.parse_args()

    from dfanalyzer.main import (DFAnalyzer, update_dft_configuration,
                                 setup_logging, setup_dask_cluster)
    update_dft_configuration(workers=a.workers, log_file=a.log)
    setup_logging()
    setup_dask_cluster()
    bad = []
    for run in range(a.runs + 1):
        c0 = cpu_seconds()
        t0 = time.perf_counter()
        an = DFAnalyzer(os.path.join(a.dir, "*.pfw*"), load_fn=load_fn,
                        load_cols=LOAD_COLS)
        t1 = time.perf_counter()
        m, writes, rows, nev = queries(an, a)
        t2 = time.perf_counter()
        c2 = cpu_seconds()
        label = "warm-up" if run == 0 else "run %d" % run
        print("%s load %.3f queries %.3f cpu %.3f events %d"
              % (label, t1 - t0, t2 - t1, c2 - c0, nev), flush=True)
        if run == 0:
            if a.events is not None and nev != a.events:
                bad.append("event count (streamtime %d)" % a.events)
            bad += check(m, writes, rows, a, who="dfanalyzer", rel_ts=True)
            if bad:
                print("MISMATCH dfanalyzer vs streamtime: " + ", ".join(bad),
                      file=sys.stderr)
                sys.exit(1)
            print("  dfanalyzer and streamtime agree on every answer", flush=True)
        del an
        if run > 0 and a.between:
            subprocess.run(a.between, shell=True, check=True)
    logging.shutdown()


if __name__ == "__main__":
    main()
