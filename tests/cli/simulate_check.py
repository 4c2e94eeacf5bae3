#!/usr/bin/env python3
"""cli-simulate: `streamtime simulate` end to end.

- the same seed gives byte-identical trees (mtimes of the raw directories
  included), another seed another tree;
- `reproduce` runs on a --scale 5 dataset, its table equals the one
  sample_expected.py computes in Python from the CSVs, and those means are
  near the paper's (the calibration targets);
- the scan intervals, the queue-time tail, the noise rows that `slurm jobs`
  drops and `merge transfer` never matches;
- --acquisition is collected by `collect receivers` into write_times.csv
  exactly, --counted by `collect h5` into the scan_times files;
- a non-empty --out is refused (73) and left alone; usage errors are 64.

Usage: simulate_check.py STREAMTIME
"""

import csv
import hashlib
import os
import statistics
import sys
import tempfile
from datetime import datetime

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sample_expected  # noqa: E402
from checks import check, report, runner  # noqa: E402

BIN = os.path.abspath(sys.argv[1])

# The paper's values (SPEC 4.5; issue 9) and how far a scale-5 dataset may
# be from them: file transfer and streaming means after outlier removal,
# mean offload, scan interval of the streamed scans.
TARGETS = {128: (52.0, 4.0, 2.73, 5), 256: (92.3, 6.8, 7.93, 15),
           512: (138.5, 25.1, 33.17, 55), 1024: (442.6, 97.2, 149.37, 140)}
TOLERANCE = (0.15, 0.08, 0.10)


run = runner(BIN, env=dict(os.environ, TZDIR="/usr/share/zoneinfo"))


def tree(root):
    """{relative path: (sha256, mtime_ns)} of every file below ROOT."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                h = hashlib.sha256(fh.read()).hexdigest()
            out[os.path.relpath(p, root)] = (h, os.stat(p).st_mtime_ns)
    return out


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def simulate(tmp, name, *args):
    out = os.path.join(tmp, name)
    p = run("simulate", "--out", out, *args)
    check(p.returncode == 0, "simulate %s %s: exit 0 (%s)"
          % (name, " ".join(args), p.stderr.strip()[-200:]))
    return out


def test_help_and_usage(tmp):
    p = run("simulate", "--help")
    check(p.returncode == 0, "--help: exit 0")
    for opt in ("--out", "--seed", "--scale", "--acquisition", "--counted",
                "--files-per-scan", "--force", "--quiet", "--verbose", "--help"):
        check(opt in p.stdout, "--help names " + opt)
    bad = [[], ["--out", os.path.join(tmp, "u"), "--scale", "0"],
           ["--out", os.path.join(tmp, "u"), "--scale", "x"],
           ["--out", os.path.join(tmp, "u"), "--scale", "10001"],
           ["--out", os.path.join(tmp, "u"), "--seed", "-1"],
           ["--out", os.path.join(tmp, "u"), "--seed", "18446744073709551616"],
           ["--out", os.path.join(tmp, "u"), "--files-per-scan", "0"],
           ["--out", os.path.join(tmp, "u"), "extra"],
           ["--out", "-"], ["--out", os.path.join(tmp, "u"), "--bogus"]]
    for args in bad:
        p = run("simulate", *args)
        check(p.returncode == 64 and p.stdout == "",
              "usage error %s: exit 64 (got %d)" % (args, p.returncode))
    check(not os.path.exists(os.path.join(tmp, "u")), "usage errors create nothing")


def test_determinism(tmp):
    a = simulate(tmp, "a", "--seed", "7", "--acquisition", os.path.join(tmp, "a_acq"),
                 "--counted", os.path.join(tmp, "a_cnt"), "--files-per-scan", "2")
    b = simulate(tmp, "b", "--seed", "7", "--acquisition", os.path.join(tmp, "b_acq"),
                 "--counted", os.path.join(tmp, "b_cnt"), "--files-per-scan", "2")
    c = simulate(tmp, "c", "--seed", "8", "--acquisition", os.path.join(tmp, "c_acq"),
                 "--counted", os.path.join(tmp, "c_cnt"), "--files-per-scan", "2")
    for suffix in ("", "_acq", "_cnt"):
        ta, tb, tc = tree(a + suffix), tree(b + suffix), tree(c + suffix)
        if not suffix:      # the dataset's mtimes are when it was written
            ta, tb, tc = ({k: v[0] for k, v in t.items()} for t in (ta, tb, tc))
        check(len(ta) > 0 and ta == tb,
              "seed 7 twice: identical tree%s (%d files, bytes%s)"
              % (suffix, len(ta), " and mtimes" if suffix else ""))
        check(ta != tc, "seed 8: another tree%s" % suffix)
    check(set(tree(a)) == set(tree(c)), "seed 8: the same file names")
    want = {"experiments.json", "file_transfer/slurm_job_info.csv",
            "file_transfer/write_times.csv", "file_transfer/save_time_stats.csv",
            "file_transfer/save_times.json",
            "streaming/ncem_file_created_times.csv"}
    want |= {"file_transfer/distiller_db/%d_%d.csv" % (s, s) for s in TARGETS}
    want |= {"streaming/scan_times_%s.csv" % r for r in
             ("2101_2112", "2113_2124", "2125_2136", "2401_2414")}
    check(set(tree(a)) == want, "scale 1: the sample's file names")
    return a


def test_refuse(tmp, a):
    before = tree(a)
    p = run("simulate", "--out", a, "--seed", "9")
    check(p.returncode == 73 and "is not empty" in p.stderr and a in p.stderr,
          "non-empty --out: exit 73 naming it (%s)" % p.stderr.strip())
    check(tree(a) == before, "non-empty --out: left as it was")
    fresh = os.path.join(tmp, "fresh")
    p = run("simulate", "--out", fresh, "--acquisition", a + "_acq")
    check(p.returncode == 73 and "is not empty" in p.stderr,
          "non-empty --acquisition: exit 73")
    check(not os.path.exists(fresh), "refused before anything is written")
    p = run("simulate", "--out", os.path.join(a, "experiments.json"))
    check(p.returncode == 73 and "not a directory" in p.stderr,
          "--out naming a file: exit 73")
    p = run("simulate", "--out", a, "--seed", "9", "--force", "-q")
    check(p.returncode == 0 and p.stderr == "", "--force -q: exit 0, silent")
    check(tree(a) != before, "--force: rewritten")


def near(got, want, tol):
    return abs(got - want) <= tol * want


def test_scale5(tmp):
    d = simulate(tmp, "s5", "--scale", "5", "--seed", "3")
    r = os.path.join(tmp, "r5")
    p = run("reproduce", "--data", d, "--out", r)
    check(p.returncode == 0, "reproduce on --scale 5: exit 0 (%s)" % p.stderr.strip()[-300:])
    ours = {int(x["size"]): x for x in
            read_csv(os.path.join(r, "statistics", "statistics_table.csv"))}
    exp = sample_expected.expected_table(d)
    for e in exp:
        s = e["size"]
        got = [float(ours[s][c]) for c in sample_expected.COLS]
        want = sample_expected.table_values(e)
        check(all(abs(g - w) <= 1e-9 * max(1, abs(w)) for g, w in zip(got, want)),
              "size %d: reproduce's table = Python's from the CSVs" % s)
        line = "| %d | %.1f ± %.1f | %.1f ± %.1f | %.1f |" % (
            s, want[1], want[2], want[3], want[4], want[5])
        check(line in p.stdout, "size %d: printed %s" % (s, line))
        ft, st, off, _ = TARGETS[s]
        check(near(want[1], ft, TOLERANCE[0]),
              "size %d: file transfer mean %.1f s near the paper's %.1f" % (s, want[1], ft))
        check(near(want[3], st, TOLERANCE[1]),
              "size %d: streaming mean %.1f s near the paper's %.1f" % (s, want[3], st))
        check(near(e["offload"], off, TOLERANCE[2]),
              "size %d: offload mean %.2f s near the paper's %.2f" % (s, e["offload"], off))
        check(e["transfer"][0] >= 100 and e["streaming"][0] >= 55,
              "size %d: scaled rows (%d jobs, %d streamed)"
              % (s, e["transfer"][0], e["streaming"][0]))
    # acquisition intervals of the streamed scans
    created = {int(x["scan_number"]): x for x in
               read_csv(os.path.join(d, "streaming", "ncem_file_created_times.csv"))}
    import json
    for e in json.load(open(os.path.join(d, "experiments.json")))["experiments"]:
        a, b = e["streaming"]
        t = [sample_expected.min_receiver(created[n]) for n in range(a, b + 1)
             if n in created]
        gaps = [(y - x).total_seconds() for x, y in zip(t, t[1:])]
        med = statistics.median(gaps)
        check(abs(med - TARGETS[e["size"]][3]) <= 1,
              "size %d: scan interval median %.0f s" % (e["size"], med))
    # queue times: mostly seconds, a tail of hours
    q = sorted((datetime.fromisoformat(x["Start"]) - datetime.fromisoformat(x["Submit"]))
               .total_seconds() for x in
               read_csv(os.path.join(r, "file_transfer", "merged_job_info.csv")))
    within = sum(1 for v in q if v <= 30) / len(q)
    check(statistics.median(q) <= 3 and 0.7 <= within <= 0.95 and q[-1] >= 1800,
          "queue: median %.0f s, %.0f%% within 30 s, longest %.0f s"
          % (statistics.median(q), 100 * within, q[-1]))
    return d


def test_noise(tmp, d):
    jobs = os.path.join(d, "file_transfer", "slurm_job_info.csv")
    clean = os.path.join(tmp, "clean.csv")
    p = run("slurm", "jobs", "--input", jobs, "--out", clean)
    check(p.returncode == 0, "slurm jobs --input on the simulated rows: exit 0")
    raw, kept = read_csv(jobs), read_csv(clean)
    noise = [x for x in raw if "." in x["Job ID"] or x["ExitCode"] != "0:0"
             or "distiller-count" not in x["Job Name"] or x["ReqNodes"] != "4"
             or "realtime_" not in x["QOS"] or x["Start"] in ("Unknown", "None")]
    kinds = {"step": any("." in x["Job ID"] for x in noise),
             "exit code": any(x["ExitCode"] not in ("0:0", "") for x in noise),
             "name": any("distiller-count" not in x["Job Name"] and "." not in x["Job ID"]
                         for x in noise),
             "qos": any(x["QOS"] and "realtime_" not in x["QOS"] for x in noise),
             "start": any(x["Start"] == "Unknown" for x in noise)}
    check(all(kinds.values()), "noise rows of every kind: %s" % kinds)
    check(len(kept) == len(raw) - len(noise) and len(noise) > 0,
          "slurm jobs drops exactly the %d noise rows" % len(noise))
    m1, m2 = os.path.join(tmp, "m1.csv"), os.path.join(tmp, "m2.csv")
    run("merge", "transfer", "--jobs", jobs, "--db",
        os.path.join(d, "file_transfer", "distiller_db"), "--out", m1)
    run("merge", "transfer", "--jobs", clean, "--db",
        os.path.join(d, "file_transfer", "distiller_db"), "--out", m2)
    check(open(m1).read() == open(m2).read(),
          "merge transfer: the same rows with or without the noise")
    # the Distiller rows: NULLs and scans counted twice
    for s in TARGETS:
        rows = read_csv(os.path.join(d, "file_transfer", "distiller_db", "%d_%d.csv" % (s, s)))
        ids = [x["id"] for x in rows]
        check(any(not x["slurm_id"] for x in rows) and any(not x["elapsed"] for x in rows)
              and len(set(ids)) < len(ids),
              "size %d: Distiller rows with NULLs and a scan counted twice" % s)


def test_acquisition(tmp):
    d = simulate(tmp, "q", "--scale", "2", "--seed", "4",
                 "--acquisition", os.path.join(tmp, "q_acq"),
                 "--counted", os.path.join(tmp, "q_cnt"))
    wt = os.path.join(d, "file_transfer", "write_times.csv")
    n = len(read_csv(wt))
    out = os.path.join(tmp, "created.csv")
    p = run("collect", "receivers", os.path.join(tmp, "q_acq"), "--out", out,
            "--settle", "0")
    created = read_csv(os.path.join(d, "streaming",
                                    "ncem_file_created_times.csv"))
    wt_scans = {int(r["scan_number"]) for r in read_csv(wt)}
    # the streamed scans have status files and no data files: pending;
    # created_times.csv also holds the stray scan 7 (no files) and the
    # offload scan after the ranges (in write_times.csv)
    streamed = [r for r in created if int(r["scan_number"]) != 7 and
                int(r["scan_number"]) not in wt_scans]
    check(p.returncode == 0 and "%d written, %d pending, 0 bad"
          % (n, 1 + len(streamed)) in p.stderr,
          "collect receivers: %d scans written, the one being acquired and "
          "the %d streamed ones pending (%s)"
          % (n, len(streamed), p.stderr.strip()))
    check(open(out).read() == open(wt).read(),
          "collect receivers on --acquisition = write_times.csv, byte for byte")
    # simulate_writes_streaming_status_files: --no-data collects the
    # streamed scans' receiver times, equal to created_times.csv's (a scan
    # with an empty cell lacks a status file: pending)
    p = run("collect", "receivers", os.path.join(tmp, "q_acq"), "--no-data",
            "--out", "-", "--settle", "0")
    got = {int(r["scan_number"]): r for r in csv.DictReader(
        p.stdout.splitlines())}
    whole = [r for r in streamed if all(r["time%d" % i] for i in range(4))]

    def instant(t):
        return datetime.fromisoformat(t.replace("Z", "+00:00")[:32]
                                      .split("+00:00")[0] + "+00:00")
    same = all(int(r["scan_number"]) in got and
               all(instant(got[int(r["scan_number"])]["time%d" % i]) ==
                   instant(r["time%d" % i]) for i in range(4))
               for r in whole)
    check(p.returncode == 0 and len(whole) > 40 and same and
          set(got) == {int(r["scan_number"]) for r in whole} | wt_scans,
          "simulate_writes_streaming_status_files: collect receivers "
          "--no-data gives the %d streamed scans of created_times.csv with "
          "their times, and the offload scans (got %d scans)"
          % (len(whole), len(got)))
    names = os.listdir(os.path.join(tmp, "q_acq"))
    per_scan = {}
    for f in names:
        if f.startswith("data_scan"):
            per_scan[int(f[9:19])] = per_scan.get(int(f[9:19]), 0) + 1
    counts = set(per_scan.values())
    check(counts == {72, 288, 1}, "data files per scan: 72, 288 (1024), 1 (pending): %s"
          % sorted(counts))
    check(not any(f.endswith(".tmp") for f in names), "no temporary left")
    # counted files: collect h5 gives the scan_times files (the listing
    # shows whole seconds, the mtimes have microseconds)
    import json
    for e in json.load(open(os.path.join(d, "experiments.json")))["experiments"]:
        a, b = e["streaming"]
        p = run("collect", "h5", os.path.join(tmp, "q_cnt"), "--out", "-", "--settle",
                "0", "--tz", "America/Los_Angeles", "--naive", "--range", "%d-%d" % (a, b))
        got = [(x["distiller_id"], x["scan_number"], x["datetime"][:19])
               for x in csv.DictReader(p.stdout.splitlines())]
        want = [(x["distiller_id"], x["scan_number"], x["datetime"]) for x in
                read_csv(os.path.join(d, "streaming", e["h5"]))]
        check(p.returncode == 0 and got == want and len(want) > 20,
              "collect h5 --range %d-%d on --counted = %s (%d rows)"
              % (a, b, e["h5"], len(want)))
    cnt = os.listdir(os.path.join(tmp, "q_cnt"))
    check(any("_electrons" in f for f in cnt) and any("_00000_" in f for f in cnt),
          "counted: _electrons variants and unknown (00000) ids")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_help_and_usage(tmp)
        a = test_determinism(tmp)
        test_refuse(tmp, a)
        d = test_scale5(tmp)
        test_noise(tmp, d)
        test_acquisition(tmp)
    sys.exit(report("simulate"))


if __name__ == "__main__":
    main()
