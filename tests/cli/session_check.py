#!/usr/bin/env python3
"""CLI test: a facility's own sessions, end to end (issue 23).

Usage: session_check.py STREAMTIME SOURCE_ROOT PAPER_DATA [CHECK...]

Each check is named after what it pins.  Expected values are computed here
with Python's standard library (hashlib, statistics, fractions) from the
input files, never taken from streamtime's own output.  The paper's data
parts are skipped when PAPER_DATA is absent, unless CI=true.
"""
import csv
import hashlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from fractions import Fraction
from math import comb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, guide_blocks, report, runner  # noqa: E402

ST, ROOT, PAPER = (os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]),
                   sys.argv[3])
ONLY = set(sys.argv[4:])
SIZES = (128, 256, 512, 1024)
run = runner(ST)


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def instant(s):
    """An ISO 8601 time as written by the collectors (UTC, Z or +00:00,
    the doubled offset of real files, up to nanoseconds) in ns."""
    s = s.strip().replace("Z", "+00:00")
    if s.count("+00:00") > 1:
        s = s[:s.index("+00:00") + 6]
    base, _, frac = s[:-6].partition(".")
    t = datetime.fromisoformat(base).replace(tzinfo=timezone.utc)
    ns = int((frac + "000000000")[:9]) if frac else 0
    return int(t.timestamp()) * 10**9 + ns


def paper_needed():
    if os.path.isdir(PAPER):
        return True
    if os.environ.get("CI") == "true":
        check(False, "the paper's data is missing: " + PAPER)
    return False


def median_ci(values, tail):
    """lo, hi, coverage of the order-statistic interval of the median
    whose two tails are at most TAIL each (exact, with fractions)."""
    v = sorted(values)
    n = len(v)
    k, cdf = 0, Fraction(0)
    for i in range(n):
        p = Fraction(comb(n, i), 2 ** n)
        if cdf + p > tail:
            break
        cdf += p
        k = i + 1
    if k == 0:
        return None, None, None
    return v[k - 1], v[n - k], float(1 - 2 * cdf)


def close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(b))


# ---- the guide's chain ----------------------------------------------------

def workdir(tmp):
    """A directory with build/ pointing at the binary's, as the guide's
    commands expect from the repository root."""
    repo = os.path.join(tmp, "repo")
    os.makedirs(repo)
    os.symlink(os.path.dirname(ST), os.path.join(repo, "build"))
    return repo


def expected_streaming(g, offsets):
    """Per size, the streaming latencies the guide's files give: the
    counted file's time minus the earliest receiver time, each receiver
    time moved to the reference clock (t - offset of its host)."""
    sess = json.load(open(os.path.join(g, "session.json")))
    created = {int(r["scan_number"]): r
               for r in read(os.path.join(g, "created_times.csv"))}
    h5 = {int(r["scan_number"]): r
          for r in read(os.path.join(g, "scan_times.csv"))}
    out = {}
    for e in sess["experiments"]:
        a, b = e["streaming"]
        lat = []
        for scan, r in h5.items():
            if a <= scan <= b and scan in created:
                c = created[scan]
                first = min(instant(c["time%d" % i]) -
                            round(offsets["rec%d" % i] * 1e6)
                            for i in range(4) if c["time%d" % i])
                lat.append(abs(instant(r["datetime"]) - first) / 1e9)
        out[e["size"]] = lat
    return out


def expected_offload(g, offsets):
    sess = json.load(open(os.path.join(g, "session.json")))
    rows = read(os.path.join(g, "write_times.csv"))
    out = {}
    for e in sess["experiments"]:
        a, b = e["offload"]
        v = []
        for r in rows:
            if a <= int(r["scan_number"]) <= b:
                first = min(instant(r["time%d" % i]) -
                            round(offsets["rec%d" % i] * 1e6)
                            for i in range(4) if r["time%d" % i])
                v.append((instant(r["time_last_written"]) - first) / 1e9)
        out[e["size"]] = sum(v) / len(v)
    return out


def offsets_of(path):
    """The offset (ms) of each target: the file's only measurement."""
    return {r["target"]: float(r["offset_ms"]) for r in read(path)}


def check_numbers(g, res, offsets, what):
    """RES's offload times and streaming medians equal those computed
    here from the guide's own files."""
    want = expected_offload(g, offsets)
    got = {int(r["size"]): float(r["offload_time"]) for r in
           read(os.path.join(res, "file_transfer", "ncem_offload_times.csv"))}
    for s in SIZES:
        check(s in got and abs(got[s] - want[s]) < 1e-6,
              "%s: offload of %d is %s, the guide's files give %.6f"
              % (what, s, got.get(s), want[s]))
    lat = expected_streaming(g, offsets)
    med = {(r["group"], int(r["size"])): r for r in
           read(os.path.join(res, "statistics", "medians.csv"))}
    for s in SIZES:
        r = med.get(("streaming", s))
        check(r is not None and int(r["n"]) == len(lat[s]) and
              abs(float(r["median"]) - statistics.median(lat[s])) < 1e-6,
              "%s: streaming %d: n %s median %s, the guide's files give "
              "n %d median %.6f" % (what, s, r and r["n"],
                                    r and r["median"], len(lat[s]),
                                    statistics.median(lat[s])))
        check(r is not None and r["clock_bound_s"] != "" and
              0 < float(r["clock_bound_s"]) < 0.01,
              "%s: the clock bound of streaming %d reaches medians.csv "
              "(%s)" % (what, s, r and r["clock_bound_s"]))
        f = med.get(("file_transfer", s))
        check(f is not None and f["clock_bound_s"] != "",
              "%s: the clock bound of file transfer %d reaches medians.csv"
              % (what, s))
    return lat


def guide_chain():
    """guide_chain_reaches_the_report: the guide's commands, verbatim,
    end in a report made of the files they built."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = workdir(tmp)
        blocks = guide_blocks(ROOT)
        check(len(blocks) >= 7, "the guide has %d command blocks" % len(blocks))
        for cmd in blocks:
            p = subprocess.run(["bash", "-e", "-c", cmd], cwd=repo,
                               capture_output=True, text=True)
            if not check(p.returncode == 0, "guide: exit %d: %s\n%s"
                         % (p.returncode, cmd.strip()[:200], p.stderr)):
                return
            last = p
        g = os.path.join(repo, "out", "guide")
        res = os.path.join(g, "results")
        check("--session out/guide/session.json" in blocks[-1],
              "the guide's last step is reproduce --session")
        check(last.stdout.startswith("*Synthetic data"),
              "guide: reproduce's stdout says synthetic: " + last.stdout[:80])
        # provenance: every file the guide built that the chain reads,
        # each with its sha256 (computed here)
        prov = json.load(open(os.path.join(res, "provenance.json")))
        listed = {os.path.normpath(i["path"]): i for i in prov["inputs"]}
        built = ["session.json", "write_times.csv", "created_times.csv",
                 "scan_times.csv", "slurm_jobs.csv", "clock_offsets.csv",
                 "sample/file_transfer/save_times.json"] + \
            ["sample/file_transfer/distiller_db/%d_%d.csv" % (s, s)
             for s in SIZES]
        for f in built:
            path = os.path.normpath(os.path.join("out", "guide", f))
            i = listed.get(path)
            data = open(os.path.join(repo, path), "rb").read()
            check(i is not None and i["sha256"] ==
                  hashlib.sha256(data).hexdigest() and i["size"] == len(data),
                  "provenance.json lists %s with its sha256 and size (%s)"
                  % (path, i))
        check(prov["command"][1:] == ["reproduce", "--session",
                                      "out/guide/session.json", "--out",
                                      "out/guide/results"],
              "provenance.json: the command line: %s" % prov["command"])
        check(prov["session"]["synthetic"] is True and
              prov["session"]["file"] == "out/guide/session.json",
              "provenance.json: the session")
        check(set(prov) >= {"streamtime", "host", "time",
                            "working_directory"},
              "provenance.json: version, host, time: %s" % sorted(prov))
        html = open(os.path.join(res, "report.html"), encoding="utf-8").read()
        check('id="synthetic"' in html and "(synthetic data)" in html,
              "guide: the report's title block says synthetic")
        check('id="provenance-table"' in html and
              listed[os.path.normpath("out/guide/write_times.csv")]["sha256"]
              in html, "guide: the report shows the provenance")
        # the numbers come from the guide's files
        offsets = offsets_of(os.path.join(g, "clock_offsets.csv"))
        before = check_numbers(g, res, offsets, "guide")
        st = json.load(open(os.path.join(g, "session.json")))
        check(st["inputs"]["save_times"].endswith("save_times.json"),
              "guide: the save-time records are an input")
        # guide_one_offset_moves_the_report: the receivers' clocks 1.5 s
        # ahead: every offload and latency, so every median, + 1.5 s
        rows = read(os.path.join(g, "clock_offsets.csv"))
        with open(os.path.join(g, "clock_offsets.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            for r in rows:
                r["offset_ms"] = repr(float(r["offset_ms"]) + 1500.0)
                w.writerow(r)
        p = run("reproduce", "--session", "out/guide/session.json", "--out",
                "out/guide/results2", cwd=repo)
        check(p.returncode == 0, "guide, offsets moved: " + p.stderr)
        res2 = os.path.join(g, "results2")
        moved = offsets_of(os.path.join(g, "clock_offsets.csv"))
        check_numbers(g, res2, moved, "guide, offsets moved")
        m1 = {(r["group"], r["size"]): float(r["median"]) for r in
              read(os.path.join(res, "statistics", "medians.csv"))}
        m2 = {(r["group"], r["size"]): float(r["median"]) for r in
              read(os.path.join(res2, "statistics", "medians.csv"))}
        for k in m1:
            check(abs(m2[k] - m1[k] - 1.5) < 1e-6,
                  "guide_one_offset_moves_the_report: %s %s median moved by "
                  "%.9f s, not 1.5" % (k[0], k[1], m2[k] - m1[k]))
        h2 = open(os.path.join(res2, "report.html"), encoding="utf-8").read()
        r1 = {int(r["size"]): r for r in
              read(os.path.join(res, "statistics", "median_ratio.csv"))}
        r2 = {int(r["size"]): r for r in
              read(os.path.join(res2, "statistics", "median_ratio.csv"))}
        for s in SIZES:
            a = float(r1[s]["streaming_median"])
            b = float(r2[s]["streaming_median"])
            check(abs(b - a - 1.5) < 1e-6 and
                  ("<td>%.1f</td>" % b) in h2,
                  "guide_one_offset_moves_the_report: the report's headline "
                  "streaming median of %d: %.6f then %.6f" % (s, a, b))
        # timeline_receivers_corrected: the receivers' and offload slices
        # move with the offsets too (the streaming ones come corrected
        # from the merge): every stage on the reference clock
        def stage_ts(res_dir, stage):
            ev = json.load(open(os.path.join(res_dir, "timeline.json")))[
                "traceEvents"]
            pid = [e["pid"] for e in ev if e.get("ph") == "M" and
                   e.get("name") == "process_name" and
                   e["args"]["name"] == stage]
            return sorted(e["ts"] for e in ev
                          if e.get("ph") == "X" and pid and
                          e["pid"] == pid[0])
        for stage in ("receivers", "NCEM offload", "streaming"):
            a, b = stage_ts(res, stage), stage_ts(res2, stage)
            check(len(a) > 10 and len(a) == len(b) and
                  all(abs(y - x + 1500000) <= 1 for x, y in zip(a, b)),
                  "timeline_receivers_corrected: %s slices moved by %s us, "
                  "not -1500000" % (stage, sorted({y - x for x, y in
                                                   zip(a, b)})[:5]))
        del before


# ---- the paper's data as a session ----------------------------------------

PAPER_EXP = [(128, 4858, 4887, 2709, 3688), (256, 4828, 4857, 3813, 4226),
             (512, 4798, 4827, 4227, 4644), (1024, 4768, 4797, 4653, 4698)]
PAPER_TABLE = ["| 128 | 52.0 ± 30.6 | 4.0 ± 0.0 | 13.0 |",
               "| 256 | 92.3 ± 38.6 | 6.8 ± 0.6 | 13.6 |",
               "| 512 | 138.5 ± 28.2 | 25.1 ± 1.3 | 5.5 |",
               "| 1024 | 442.6 ± 53.5 | 97.2 ± 4.1 | 4.6 |"]


def check_save_stats(path, what):
    want = {(r["Size"], r["Type"], r["Stat"]): r for r in read(
        os.path.join(PAPER, "file_transfer", "save_time_stats.csv"))}
    got = {(r["Size"], r["Type"], r["Stat"]): r for r in read(path)} \
        if os.path.isfile(path) else {}
    check(set(got) == set(want), "%s: save_time_stats.csv rows %s"
          % (what, sorted(set(got) ^ set(want))))
    for k in want:
        for c in ("total_time", "count_time", "save_time"):
            check(k in got and close(float(got[k][c]), float(want[k][c])),
                  "%s: save_time_stats %s %s: %s, the paper's %s"
                  % (what, k, c, got.get(k, {}).get(c), want[k][c]))


def paper_session():
    """paper_as_a_session: the paper's files named by a session file give
    the paper's table, and its save_time_stats.csv from save_times.json."""
    if not paper_needed():
        return
    with tempfile.TemporaryDirectory() as tmp:
        ft = os.path.join(os.path.abspath(PAPER), "file_transfer")
        st = os.path.join(os.path.abspath(PAPER), "streaming")
        sess = {
            "version": 1, "tz": "America/Los_Angeles", "slurm_tz": "UTC",
            "experiments": [
                {"size": s, "offload": [a, b], "streaming": [c, d],
                 "h5": os.path.join(st, "scan_times_%d_%d.csv" % (c, d))}
                for s, a, b, c, d in PAPER_EXP],
            "inputs": {
                "write_times": os.path.join(ft, "write_times.csv"),
                "created_times": os.path.join(st,
                                              "ncem_file_created_times.csv"),
                "slurm_jobs": os.path.join(ft, "slurm_job_info.csv"),
                "distiller": os.path.join(ft, "distiller_db"),
                "save_times": os.path.join(ft, "save_times.json"),
            }}
        path = os.path.join(tmp, "paper.json")
        json.dump(sess, open(path, "w"))
        out = os.path.join(tmp, "out")
        p = run("reproduce", "--session", path, "--out", out)
        check(p.returncode == 0, "paper_as_a_session: " + p.stderr)
        for line in PAPER_TABLE:
            check(line in p.stdout, "paper_as_a_session: the table lacks "
                  + line + "\n" + p.stdout)
        check("ynthetic" not in p.stdout, "paper_as_a_session: synthetic?")
        check_save_stats(os.path.join(out, "file_transfer",
                                      "save_time_stats.csv"),
                         "paper_as_a_session")
        # the outputs equal reproduce --data's, file for file
        out2 = os.path.join(tmp, "out2")
        p2 = run("reproduce", "--data", PAPER, "--out", out2)
        check(p2.returncode == 0 and p2.stdout == p.stdout,
              "paper_as_a_session: the same table as reproduce --data")
        for sub in ("file_transfer/merged_job_info.csv",
                    "file_transfer/ncem_offload_times.csv",
                    "streaming/streaming_times_512.csv",
                    "statistics/statistics_table.csv",
                    "statistics/medians.csv"):
            check(open(os.path.join(out, sub)).read() ==
                  open(os.path.join(out2, sub)).read(),
                  "paper_as_a_session: %s differs from reproduce --data's"
                  % sub)


def paper_save_stats_made():
    """save_time_stats_from_records: reproduce --data on the paper's data
    without save_time_stats.csv makes it from save_times.json."""
    if not paper_needed():
        return
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "paper")
        shutil.copytree(PAPER, data)
        os.remove(os.path.join(data, "file_transfer", "save_time_stats.csv"))
        out = os.path.join(tmp, "out")
        p = run("reproduce", "--data", data, "--out", out)
        check(p.returncode == 0, "save_time_stats_from_records: " + p.stderr)
        for line in PAPER_TABLE:
            check(line in p.stdout, "save_time_stats_from_records: the "
                  "table lacks " + line)
        check_save_stats(os.path.join(out, "file_transfer",
                                      "save_time_stats.csv"),
                         "save_time_stats_from_records")
        prov = json.load(open(os.path.join(out, "provenance.json")))
        keys = {i["key"] for i in prov["inputs"]}
        check("inputs.save_times" in keys and
              "inputs.save_time_stats" not in keys,
              "save_time_stats_from_records: provenance names the records")
        # the map decides: every scan of the records left out is an error
        bad = os.path.join(tmp, "bad.json")
        with open(os.path.join(data, "experiments.json"), "w") as f:
            json.dump({"save_time_map": [{"scans": [500, 600],
                                          "type": "Real", "sizes": [128]}],
                       "experiments": [
                           {"size": s, "offload": [a, b], "streaming": [c, d],
                            "h5": "scan_times_%d_%d.csv" % (c, d)}
                           for s, a, b, c, d in PAPER_EXP]}, f)
        p = run("reproduce", "--data", data, "--out", os.path.join(tmp, "o3"))
        check(p.returncode == 65 and "save_times.json: no record of a scan "
              "the save-time map holds" in p.stderr and
              not os.path.exists(os.path.join(tmp, "o3", "report.html")),
              "save_time_map_holds_no_record: exit %d: %s"
              % (p.returncode, p.stderr))
        del bad


def median_ratio():
    """headline_ratio_of_medians: median_ratio.csv and the report's
    headline against order statistics computed here (97.5 % each)."""
    if not paper_needed():
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        p = run("reproduce", "--data", PAPER, "--out", out)
        check(p.returncode == 0, "headline: " + p.stderr)
        rows = {int(r["size"]): r for r in
                read(os.path.join(out, "statistics", "median_ratio.csv"))}
        merged = read(os.path.join(out, "file_transfer",
                                   "merged_job_info.csv"))
        save = {(r["Size"], r["Type"]): float(r["save_time"]) for r in read(
            os.path.join(PAPER, "file_transfer", "save_time_stats.csv"))
            if r["Stat"] == "mean"}
        off = {int(r["size"]): float(r["offload_time"]) for r in
               read(os.path.join(out, "file_transfer",
                                 "ncem_offload_times.csv"))}
        html = open(os.path.join(out, "report.html"), encoding="utf-8").read()
        table = {int(r["size"]): r for r in read(os.path.join(
            out, "statistics", "statistics_table.csv"))}

        def secs(hms):
            d = 0
            if "-" in hms:
                d, hms = hms.split("-")
            parts = [int(x) for x in hms.split(":")]
            while len(parts) < 3:
                parts.insert(0, 0)
            return int(d) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]
        for s in SIZES:
            ft = [secs(r["Elapsed"]) + off[s] - 2 * (save[(str(s), "Real")] -
                                                     save[(str(s), "Blank")])
                  for r in merged if int(r["size"]) == s]
            stv = [float(r["time_difference_seconds"]) for r in read(
                os.path.join(PAPER, "streaming", "streaming_times_%d.csv" % s))]
            flo, fhi, fcov = median_ci(ft, Fraction(1, 80))
            slo, shi, scov = median_ci(stv, Fraction(1, 80))
            r = rows.get(s)
            if not check(r is not None, "median_ratio.csv has no row %d" % s):
                continue
            ratio = statistics.median(ft) / statistics.median(stv)
            check(close(float(r["median_ratio"]), ratio) and
                  close(float(r["ratio_low"]), flo / shi) and
                  close(float(r["ratio_high"]), fhi / slo),
                  "headline_ratio_of_medians %d: %s [%s, %s], expected "
                  "%.6f [%.6f, %.6f]" % (s, r["median_ratio"], r["ratio_low"],
                                         r["ratio_high"], ratio, flo / shi,
                                         fhi / slo))
            lvl = 1 - (1 - fcov) - (1 - scov)
            check(close(float(r["ratio_level"]), lvl, 1e-9) and lvl >= 0.95,
                  "headline_ratio_of_medians %d: level %s, expected %.9f"
                  % (s, r["ratio_level"], lvl))
            check(close(float(r["mean_ratio"]),
                        float(table[s]["enhancement"])),
                  "headline: the paper's ratio of means beside it (%d)" % s)
            cell = "%.1f\u00d7 \u2013 %.1f\u00d7" % (flo / shi, fhi / slo)
            check(cell in html, "headline: the report shows %r" % cell)
        check('id="headline-method"' in html and "Bonferroni" in html,
              "headline: the method is written under the table")


# ---- the sample says what it is --------------------------------------------

def sample_synthetic():
    """sample_says_synthetic: the shipped sample's stdout and report."""
    with tempfile.TemporaryDirectory() as tmp:
        p = run("reproduce", "--out", os.path.join(tmp, "out"))
        check(p.returncode == 0 and p.stdout.startswith("*Synthetic data"),
              "sample_says_synthetic: stdout: " + p.stdout[:120])
        html = open(os.path.join(tmp, "out", "report.html"),
                    encoding="utf-8").read()
        check('id="synthetic"' in html and
              "<h1>Streaming vs file transfer: NCEM 4D Camera to NERSC "
              "(synthetic data)</h1>" in html,
              "sample_says_synthetic: the report's title block")
    if paper_needed():
        with tempfile.TemporaryDirectory() as tmp:
            p = run("reproduce", "--data", PAPER, "--out", tmp + "/o")
            html = open(tmp + "/o/report.html", encoding="utf-8").read()
            check(p.returncode == 0 and "ynthetic" not in p.stdout and
                  'id="synthetic"' not in html,
                  "the paper's data is not called synthetic")


def names_reach_the_report():
    """session_names_in_report: another site renames the report."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "d")
        shutil.copytree(os.path.join(ROOT, "data"), data,
                        ignore=shutil.ignore_patterns("acquisition", "counted",
                                                      "bpftrace"))
        e = json.load(open(os.path.join(data, "experiments.json")))
        e["names"] = {"instrument": "Krios <G4>", "acquisition_site": "SLAC",
                      "compute_site": "OLCF"}
        json.dump(e, open(os.path.join(data, "experiments.json"), "w"))
        p = run("reproduce", "--data", data, "--out", tmp + "/o")
        html = open(tmp + "/o/report.html", encoding="utf-8").read()
        check(p.returncode == 0 and
              "<h1>Streaming vs file transfer: SLAC Krios &lt;G4&gt; to OLCF"
              in html and "NCEM" not in html.split("<main>")[1]
              .split('id="method"')[0],
              "session_names_in_report: the title and prose use the names")
        ev = json.load(open(tmp + "/o/timeline.json"))["traceEvents"]
        procs = {e["args"]["name"] for e in ev if e.get("ph") == "M" and
                 e.get("name") == "process_name"}
        check({"SLAC offload", "OLCF write"} <= procs and
              not {"NCEM offload", "NERSC write"} & procs,
              "session_names_in_report: the timeline's processes: %s"
              % sorted(procs))


# ---- bad input ------------------------------------------------------------

def bad_input():
    """session_bad_input: missing files 66 naming key and path, a file of
    the wrong kind 65, unknown keys 78, nothing written."""
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(ROOT, "data")
        base = sample_session({})
        base["experiments"] = [e for e in base["experiments"]
                               if e["size"] == 128]

        def attempt(name, mutate):
            s = json.loads(json.dumps(base))
            mutate(s)
            path = os.path.join(tmp, name + ".json")
            json.dump(s, open(path, "w"), indent=1)
            out = os.path.join(tmp, "out-" + name)
            p = run("reproduce", "--session", path, "--out", out)
            left = [f for f in (os.listdir(out) if os.path.isdir(out) else [])]
            return p, path, left

        p, path, left = attempt("ok", lambda s: None)
        check(p.returncode == 0, "session_bad_input: the base session: "
              + p.stderr)

        def missing(s):
            s["inputs"]["write_times"] = "no/such/write_times.csv"
        p, path, left = attempt("missing", missing)
        check(p.returncode == 66 and "inputs.write_times" in p.stderr and
              "no/such/write_times.csv" in p.stderr and left == [],
              "session_missing_file_66: exit %d, left %s: %s"
              % (p.returncode, left, p.stderr))

        def wrong_kind(s):
            s["inputs"]["created_times"] = s["inputs"]["save_times"]
        p, path, left = attempt("kind", wrong_kind)
        check(p.returncode == 65 and "save_times.json" in p.stderr and
              not any(f.endswith(".html") or f == "statistics" for f in left),
              "session_wrong_kind_65: exit %d, left %s: %s"
              % (p.returncode, left, p.stderr))

        def unknown(s):
            s["inputs"]["write_time"] = "x.csv"
        p, path, left = attempt("unknown", unknown)
        check(p.returncode == 78 and "unknown key 'write_time' in inputs"
              in p.stderr, "session_unknown_key_78: exit %d: %s"
              % (p.returncode, p.stderr))

        def no_h5(s):
            del s["experiments"][0]["h5"]
        p, path, left = attempt("noh5", no_h5)
        check(p.returncode == 78 and "inputs.scan_times" in p.stderr,
              "session_no_h5_78: exit %d: %s" % (p.returncode, p.stderr))

        def secret(s):
            s["inputs"]["distiller"] = {"dsn": "postgresql://u:Zq7pw@h/db"}
        p, path, left = attempt("secret", secret)
        # the password only: a temporary directory's random name may hold
        # any two letters ("/tmp/tmpw2st..." holds "pw")
        check(p.returncode == 78 and "Zq7pw" not in p.stderr,
              "session_no_inline_secret: exit %d: %s"
              % (p.returncode, p.stderr))
        def empty_range(s):
            s["experiments"].append({
                "size": 256, "offload": [1, 2], "streaming": [2101, 2112],
                "h5": os.path.join(d, "streaming", "scan_times_2101_2112.csv")})
        p, path2, left = attempt("empty", empty_range)
        out = os.path.join(tmp, "out-empty")
        html = open(os.path.join(out, "report.html"), encoding="utf-8").read() \
            if os.path.isfile(os.path.join(out, "report.html")) else ""
        sizes = [r["size"] for r in read(os.path.join(
            out, "statistics", "statistics_table.csv"))] if html else []
        check(p.returncode == 0 and "size 256: the offload range 1-2 "
              "selects no scan of" in p.stderr and sizes == ["128"] and
              'id="sizes-left-out"' in html and "1\u20132" in html and
              "| 256 |" not in p.stdout,
              "range_selects_no_scan: exit %d, sizes %s: %s"
              % (p.returncode, sizes, p.stderr))

        # select_sizes_double_free: a size left out, then a later size's
        # H5 file of the wrong kind: 65 naming it, nothing freed twice
        # (ASan aborted here)
        wrong = os.path.join(tmp, "wrong_h5.csv")
        with open(wrong, "w") as f:
            f.write("foo,bar\n1,2\n")

        def left_then_bad(s):
            s["experiments"][0]["offload"] = [1, 2]
            s["experiments"].append({"size": 256, "offload": [2517, 2524],
                                     "streaming": [2101, 2112], "h5": wrong})
        p, path2, left = attempt("leftbad", left_then_bad)
        check(p.returncode == 65 and "wrong_h5.csv" in p.stderr and
              "scan_number" in p.stderr and left == [],
              "select_sizes_double_free: exit %d, left %s: %s"
              % (p.returncode, left, p.stderr))

        def all_empty(s):
            s["experiments"][0]["streaming"] = [1, 2]
        p, path2, left = attempt("allempty", all_empty)
        check(p.returncode == 65 and "selects no scan" in p.stderr and
              left == [], "no_size_left_65: exit %d, left %s: %s"
              % (p.returncode, left, p.stderr))
        p = run("reproduce", "--session", path, "--data", d)
        check(p.returncode == 64 and "--session" in p.stderr,
              "session_with_data_64: exit %d: %s" % (p.returncode, p.stderr))


def sample_session(extra_inputs):
    """A session over the shipped sample's files (absolute paths)."""
    d = os.path.join(ROOT, "data")
    exps = json.load(open(os.path.join(d, "experiments.json")))
    for e in exps["experiments"]:
        e["h5"] = os.path.join(d, "streaming", e["h5"])
    sess = {"version": 1, "synthetic": True,
            "tz": exps["tz"], "slurm_tz": exps["slurm_tz"],
            "experiments": exps["experiments"],
            "inputs": {
                "write_times": os.path.join(d, "file_transfer",
                                            "write_times.csv"),
                "created_times": os.path.join(
                    d, "streaming", "ncem_file_created_times.csv"),
                "slurm_jobs": os.path.join(d, "file_transfer",
                                           "slurm_job_info.csv"),
                "distiller": os.path.join(d, "file_transfer", "distiller_db"),
                "save_times": os.path.join(d, "file_transfer",
                                           "save_times.json")}}
    sess["inputs"].update(extra_inputs)
    return sess


def session_traces():
    """session_traces_one_axis: a session's trace sets get a report
    section each, and their events sit in the one timeline beside the
    scans' journeys, both in UTC microseconds."""
    import gzip
    fixture = os.path.join(os.path.dirname(os.path.abspath(PAPER)),
                           "fixtures", "dftracer",
                           "cm1-rank0-new-format.pfw.gz")
    if not os.path.isfile(fixture):
        check(os.environ.get("CI") != "true", "no DFTracer fixture " + fixture)
        return
    with tempfile.TemporaryDirectory() as tmp:
        # a receiver's system traces in the seed's layout (bpftrace's
        # trace_read.bt header and printf: TIMESTAMP PID FD RET LAT NAME)
        # and trace record's clock relation, bound 1000 ns
        sysd = os.path.join(tmp, "rec0")
        os.makedirs(sysd)
        calls = [(1000000000, 7, 3, 4096, 2000, "/data/a.npz"),
                 (1500000000, 7, 3, 100, 1000, "/data/a.npz"),
                 (2000000000, 8, 4, 50, 500, "/data/b.npz")]
        with open(os.path.join(sysd, "trace_read.out"), "w") as f:
            f.write("Attaching 2 probes...\n"
                    "TIMESTAMP PID FD RET (B) LAT(ns) FILENAME\n")
            for c in calls:
                f.write("%d %d %d %d %d %s\n" % c)
        real0 = 1707000000000000000
        json.dump({"clock": [{"mono_ns": 0, "real_ns": real0,
                              "bound_ns": 1000}]},
                  open(os.path.join(sysd, "manifest.json"), "w"))
        sess = sample_session({"traces": [
            {"label": "counting jobs", "role": "counting",
             "paths": [fixture]},
            {"label": "receiver 0", "role": "receiver", "paths": ["rec0"]}]})
        path = os.path.join(tmp, "s.json")
        json.dump(sess, open(path, "w"), indent=1)
        out = os.path.join(tmp, "out")
        p = run("reproduce", "--session", path, "--out", out)
        if not check(p.returncode == 0, "session_traces: " + p.stderr):
            return
        rows = read(os.path.join(out, "traces", "trace_sets.csv"))
        by = {(r["set"], r["scope"], r["key"]): r for r in rows}
        # the DFTracer set: its X events, counted here
        xs = [json.loads(l.rstrip(",\n")) for l in gzip.open(fixture, "rt")
              if l.startswith("{")]
        xs = [e for e in xs if e.get("ph") == "X"]
        tot = by.get(("0", "total", ""))
        check(tot is not None and int(tot["events"]) == len(xs),
              "session_traces: the counting set's events %s, the file has "
              "%d" % (tot and tot["events"], len(xs)))
        t1 = by.get(("1", "total", ""))
        check(t1 is not None and int(t1["events"]) == 3 and
              int(t1["bytes"]) == 4096 + 100 + 50,
              "session_traces: the receiver set: 3 reads, 4246 bytes: %s" % t1)
        p7 = by.get(("1", "process", "?:7"))
        check(p7 is not None and int(p7["events"]) == 2 and
              int(p7["bytes"]) == 4196 and
              abs(float(p7["io_s"]) - 3e-6) < 1e-12,
              "session_traces: pid 7: 2 reads, 4196 bytes, 3 us: %s" % p7)
        sy = [r for r in rows if r["set"] == "1" and r["scope"] == "system"]
        check(len(sy) == 1 and abs(float(sy[0]["align_bound_s"]) - 1e-6)
              < 1e-15, "session_traces: the alignment bound 1000 ns: %s" % sy)
        html = open(os.path.join(out, "report.html"), encoding="utf-8").read()
        check('id="traces"' in html and "counting jobs <small>(counting)"
              in html and "receiver 0 <small>(receiver)" in html,
              "session_traces: a report section per set")
        # one axis: trace slices and scan slices in one file, each at the
        # UTC microsecond computed here
        ev = json.load(open(os.path.join(out, "timeline.json")))["traceEvents"]
        x = [e for e in ev if e.get("ph") == "X"]
        want_sys = {(real0 + ts - lat) // 1000 for ts, _, _, _, lat, _ in calls}
        got_sys = {e["ts"] for e in x if e.get("cat") == "syscall"}
        check(want_sys <= got_sys, "session_traces_one_axis: the reads at "
              "%s us, the timeline has %s" % (sorted(want_sys),
                                               sorted(got_sys)[:5]))
        want_pfw = {e["ts"] for e in xs}
        got_pfw = {e["ts"] for e in x if e.get("cat") in
                   {c.get("cat") for c in xs}}
        check(len(want_pfw) > 100 and want_pfw <= got_pfw,
              "session_traces_one_axis: the DFTracer events at their ts")
        created = {int(r["scan_number"]): r for r in read(os.path.join(
            ROOT, "data", "streaming", "ncem_file_created_times.csv"))}
        scans = [e for e in x if e.get("cat") == "streaming"]
        ok = scans and all(
            e["ts"] == min(instant(created[e["args"]["scan"]]["time%d" % i])
                           for i in range(4)
                           if created[e["args"]["scan"]]["time%d" % i])
            // 1000 for e in scans)
        check(bool(ok), "session_traces_one_axis: %d streamed scans, each "
              "at its created time in us" % len(scans))
        # a set that names nothing there: 66 naming the key
        sess["inputs"]["traces"][1]["paths"] = ["gone"]
        json.dump(sess, open(path, "w"))
        p = run("reproduce", "--session", path, "--out", tmp + "/o2")
        check(p.returncode == 66 and "inputs.traces[1].paths[0]" in p.stderr,
              "session_trace_missing_66: exit %d: %s" % (p.returncode,
                                                         p.stderr))
        # a file that is not a trace: 65, nothing written
        bad = os.path.join(tmp, "bad.pfw")
        open(bad, "w").write("not json\n")
        sess["inputs"]["traces"][1]["paths"] = [bad]
        json.dump(sess, open(path, "w"))
        p = run("reproduce", "--session", path, "--out", tmp + "/o3")
        check(p.returncode == 65 and "bad.pfw" in p.stderr and
              not os.path.exists(tmp + "/o3/report.html"),
              "session_trace_not_a_trace_65: exit %d: %s" % (p.returncode,
                                                             p.stderr))


def provenance_names():
    """provenance_non_utf8_path: a file whose name is not UTF-8 below an
    input directory is listed (escaped text and its bytes in path_hex),
    never a failure ('out of memory' once)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "db")
        shutil.copytree(os.path.join(ROOT, "data", "file_transfer",
                                     "distiller_db"), db)
        odd = os.path.join(db.encode(), b"caf\xe9 notes.txt")
        with open(odd, "wb") as f:
            f.write(b"not read\n")
        sess = sample_session({"distiller": db})
        path = os.path.join(tmp, "s.json")
        json.dump(sess, open(path, "w"))
        p = run("reproduce", "--session", path, "--out", tmp + "/o")
        check(p.returncode == 0, "provenance_non_utf8_path: exit %d: %s"
              % (p.returncode, p.stderr))
        try:
            prov = json.load(open(tmp + "/o/provenance.json",
                                  encoding="utf-8"))
        except (OSError, ValueError) as e:
            check(False, "provenance_non_utf8_path: %s" % e)
            return
        hits = [i for i in prov["inputs"] if "path_hex" in i]
        check(len(hits) == 1 and bytes.fromhex(hits[0]["path_hex"]) == odd
              and hits[0]["sha256"] == hashlib.sha256(b"not read\n")
              .hexdigest() and "\\xe9" in hits[0]["path"],
              "provenance_non_utf8_path: %s" % hits)


CHECKS = {
    "names_bytes": provenance_names,
    "traces": session_traces,
    "guide": guide_chain, "paper_session": paper_session,
    "save_stats": paper_save_stats_made, "headline": median_ratio,
    "synthetic": sample_synthetic, "names": names_reach_the_report,
    "bad": bad_input,
}


def main():
    for name, fn in CHECKS.items():
        if not ONLY or name in ONLY:
            fn()
    return report("session")


if __name__ == "__main__":
    sys.exit(main())
