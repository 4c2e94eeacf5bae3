#!/usr/bin/env python3
"""`streamtime timeline` on the paper's data and on edge cases.

The trace is checked by tests/tools/trace_verify (jansson: object form,
every X event complete, dur >= 0, slices nesting on each track, every track
named), and its per-stage counts against counts made here from the CSVs:
every merged job has a queue and a run slice, every joined streaming scan a
streaming and a NERSC write slice, every offload scan of the paper's ranges
(SPEC 4.5) an offload slice and one receiver slice per receiver time.

usage: timeline_check.py STREAMTIME TRACE_VERIFY PAPER_DATA
"""
import csv
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

BIN, VERIFY, PAPER = (os.path.abspath(a) for a in sys.argv[1:4])
from checks import check, report  # noqa: E402
# SPEC 4.5: size -> offload scans, inclusive
OFFLOAD = {128: (4858, 4887), 256: (4828, 4857), 512: (4798, 4827),
           1024: (4768, 4797)}


def st(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)


def verify(path):
    """{process: (slices, scans, jobs)} from trace_verify, or None."""
    p = subprocess.run([VERIFY, path], capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout.endswith("ok\n"),
          "trace_verify %s: %s" % (path, p.stderr))
    out = {}
    for line in p.stdout.splitlines()[:-1]:
        name, n, scans, jobs = line.split("\t")
        out[name] = (int(n), int(scans), int(jobs))
    return out


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_paper(tmp):
    res = os.path.join(tmp, "res")
    p = st("reproduce", "--data", PAPER, "--out", res, "-q")
    check(p.returncode == 0, "reproduce: %s" % p.stderr)
    p = st("timeline", "--results", res, "--data", PAPER)
    trace = os.path.join(res, "timeline.json")
    check(p.returncode == 0 and os.path.isfile(trace),
          "timeline: %d %s" % (p.returncode, p.stderr))
    got = verify(trace)

    merged = rows(os.path.join(res, "file_transfer", "merged_job_info.csv"))
    jobs = {r["Job ID"] for r in merged}
    streaming = []
    for f in glob.glob(os.path.join(res, "streaming", "streaming_times_*.csv")):
        streaming += rows(f)
    scans = {r["scan_number"] for r in streaming}
    offload = [r for r in rows(os.path.join(PAPER, "file_transfer",
                                            "write_times.csv"))
               if any(a <= int(r["scan_number"]) <= b
                      for a, b in OFFLOAD.values())]
    created = {r["scan_number"]: r for r in
               rows(os.path.join(PAPER, "streaming",
                                 "ncem_file_created_times.csv"))}
    recv = sum(1 for r in offload for k in range(4) if r["time%d" % k])
    recv += sum(1 for s in scans if s in created
                for k in range(4) if created[s]["time%d" % k])

    print("paper: %d jobs, %d streaming scans, %d offload scans"
          % (len(merged), len(streaming), len(offload)))
    check(len(merged) == 2268 and len(streaming) == 1848,
          "the paper's 2268 jobs and 1848 scans: %d %d"
          % (len(merged), len(streaming)))
    want = {
        "Slurm queue": (len(merged), 0, len(jobs)),
        "Slurm run": (len(merged), 0, len(jobs)),
        "streaming": (len(streaming), len(scans), 0),
        "NERSC write": (len(streaming), len(scans), 0),
        "NCEM offload": (len(offload), len(offload), 0),
        "receivers": (recv, len(offload) + len(scans & set(created)), 0),
    }
    for stage, w in want.items():
        check(got.get(stage) == w, "%s: trace %s, CSVs %s"
              % (stage, got.get(stage), w))

    # names, args, units: a few slices looked at by hand
    with open(trace) as f:
        doc = json.load(f)
    ev = doc["traceEvents"]
    by = {}
    for e in ev:
        if e["ph"] == "X":
            by.setdefault(e["cat"], []).append(e)
    run = [e for e in by["Slurm run"] if e["args"]["job_id"] == 3078555]
    check(len(run) == 1 and run[0]["dur"] == (19 * 60 + 38) * 1000000 and
          "job 3078555" in run[0]["name"] and "1024x1024" in run[0]["name"]
          and run[0]["args"]["distiller_id"] == 3288,
          "job 3078555's run: 00:19:38 in microseconds: %s" % run)
    s = [e for e in by["streaming"] if e["args"]["scan"] == 2709]
    check(len(s) == 1 and s[0]["dur"] == 5000000 and
          s[0]["ts"] == 1697215509000000 and "scan 2709" in s[0]["name"] and
          s[0]["args"]["clock_corrected"] is False,
          "scan 2709 streamed in 5 s from 2023-10-13T16:45:09Z: %s" % s)
    names = {(e["pid"], e["args"]["name"]) for e in ev
             if e["name"] == "process_name"}
    order = sorted((e["args"]["sort_index"], e["pid"]) for e in ev
                   if e["name"] == "process_sort_index")
    pname = dict(names)
    check([pname[p] for _, p in order] ==
          ["receivers", "NCEM offload", "Slurm queue", "Slurm run",
           "NERSC write", "streaming"], "process order: %s" % order)


def test_edges(tmp):
    # empty merged data: a valid, empty trace
    res = os.path.join(tmp, "empty")
    os.makedirs(os.path.join(res, "file_transfer"))
    os.makedirs(os.path.join(res, "streaming"))
    with open(os.path.join(res, "file_transfer", "merged_job_info.csv"),
              "w") as f:
        f.write("Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,ReqNodes,"
                "QOS,User,ExitCode,id,elapsed,size\n")
    p = st("timeline", "--results", res)
    got = verify(os.path.join(res, "timeline.json"))
    check(p.returncode == 0 and all(v == (0, 0, 0) for v in got.values())
          and len(got) == 6, "empty: %d %s %s" % (p.returncode, p.stderr, got))
    # a missing merged file: 66, nothing written
    res2 = os.path.join(tmp, "missing")
    os.makedirs(res2)
    p = st("timeline", "--results", res2)
    check(p.returncode == 66 and "merged_job_info.csv" in p.stderr and
          os.listdir(res2) == [], "missing input: %d %s" % (p.returncode,
                                                            p.stderr))
    # a bad time: 65 naming the file, line and column; old output kept
    with open(os.path.join(res, "timeline.json"), "w") as f:
        f.write("old")
    with open(os.path.join(res, "file_transfer", "merged_job_info.csv"),
              "a") as f:
        f.write("x,7,00:30:00,00:00:10,2023-01-01T00:00:00,yesterday,"
                "2023-01-01T00:00:10,4,q,u,0:0,5,00:00:10,128\n")
    p = st("timeline", "--results", res)
    with open(os.path.join(res, "timeline.json")) as f:
        kept = f.read()
    check(p.returncode == 65 and "merged_job_info.csv" in p.stderr and
          ":2" in p.stderr and "Start" in p.stderr and kept == "old",
          "bad time: %d %s" % (p.returncode, p.stderr))
    # a job that ends before it starts: kept with no length, one warning;
    # overlapping jobs of one size go to separate lanes
    with open(os.path.join(res, "file_transfer", "merged_job_info.csv"),
              "w") as f:
        f.write("Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,ReqNodes,"
                "QOS,User,ExitCode,id,elapsed,size\n"
                "a,1,1:00,0:10,2023-01-01T00:00:00,2023-01-01T00:00:05,"
                "2023-01-01T00:00:04,4,q,u,0:0,5,00:00:10,128\n"
                "b,2,1:00,0:10,2023-01-01T00:00:00,2023-01-01T00:00:02,"
                "2023-01-01T00:00:30,4,q,u,0:0,6,00:00:10,128\n"
                "c,3,1:00,0:10,2023-01-01T00:00:01,2023-01-01T00:00:10,"
                "2023-01-01T00:00:40,4,q,u,0:0,7,00:00:10,128\n")
    p = st("timeline", "--results", res, "--out", "-")
    check(p.returncode == 0 and p.stderr.count("warning") == 1 and
          "ends before it starts" in p.stderr, "negative: %s" % p.stderr)
    doc = json.loads(p.stdout)
    tracks = {e["args"]["name"] for e in doc["traceEvents"]
              if e["name"] == "thread_name" and e["pid"] == 4}
    check(tracks == {"128x128", "128x128 (2)"}, "lanes: %s" % tracks)
    with open(os.path.join(tmp, "neg.json"), "w") as f:
        f.write(p.stdout)
    verify(os.path.join(tmp, "neg.json"))
    # sacct's unset times: a job that never started has no slices, one
    # that never ended has its queue slice only (stats queue's rule)
    with open(os.path.join(res, "file_transfer", "merged_job_info.csv"),
              "w") as f:
        f.write("Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,ReqNodes,"
                "QOS,User,ExitCode,id,elapsed,size\n"
                "a,1,1:00,0:10,2023-01-01T00:00:00,Unknown,Unknown,4,q,u,0:0,"
                "5,00:00:10,128\n"
                "b,2,1:00,0:10,2023-01-01T00:00:00,2023-01-01T00:00:02,None,"
                "4,q,u,0:0,6,00:00:10,128\n")
    p = st("timeline", "--results", res, "--out", "-")
    doc = json.loads(p.stdout) if p.returncode == 0 else {"traceEvents": []}
    xs = [(e["pid"], e["args"]["job_id"]) for e in doc["traceEvents"]
          if e["ph"] == "X"]
    check(p.returncode == 0 and xs == [(3, 2)],
          "unset Start/End: %d %s %s" % (p.returncode, xs, p.stderr))
    # a size that is no size: 65 naming the cell
    with open(os.path.join(res, "file_transfer", "merged_job_info.csv"),
              "w") as f:
        f.write("Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,ReqNodes,"
                "QOS,User,ExitCode,id,elapsed,size\n"
                "a,1,1:00,0:10,2023-01-01T00:00:00,2023-01-01T00:00:02,"
                "2023-01-01T00:00:09,4,q,u,0:0,5,00:00:10,4294967424\n")
    p = st("timeline", "--results", res, "--out", "-")
    check(p.returncode == 65 and "size" in p.stderr,
          "bad size: %d %s" % (p.returncode, p.stderr))
    p = st("timeline")
    check(p.returncode == 64, "no --results: %d" % p.returncode)


def main():
    tmp = tempfile.mkdtemp()
    try:
        test_paper(tmp)
        test_edges(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report("timeline")


if __name__ == "__main__":
    sys.exit(main())
