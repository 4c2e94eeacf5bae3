#!/usr/bin/env python3
"""CLI test: numbers that must not mislead (issue 17, items 1-5).

Usage: numbers_check.py STREAMTIME SOURCE_ROOT PAPER_DATA [ITEM...]

Each check is named after the bug it pins.  Expected values are computed here
from the CSV files with Python's standard library (fractions for the
binomial sums), never taken from streamtime's own output.  The paper's data
part exits 77 (skipped) when PAPER_DATA is absent, unless CI=true.
"""
import csv
import math
import os
import statistics
import subprocess
import sys
import tempfile
from fractions import Fraction
from math import comb

ST, ROOT, PAPER = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = set(sys.argv[4:])
SAMPLE = os.path.join(ROOT, "data")
from checks import (FAILS, check, fresh_clone, guide_blocks,  # noqa: E402
                    report, runner)
run = runner(ST)


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def median_ci(values):
    """k, lo, hi, coverage of the order-statistic 95 % interval (exact)."""
    v = sorted(values)
    n = len(v)
    k, cdf = 0, Fraction(0)
    for i in range(n):
        p = Fraction(comb(n, i), 2 ** n)
        if cdf + p > Fraction(1, 40):
            break
        cdf += p
        k = i + 1
    if k == 0:
        return 0, None, None, None
    return k, v[k - 1], v[n - k], float(1 - 2 * cdf)


def quantile(v, p):
    pos = (len(v) - 1) * p
    lo = math.floor(pos)
    if lo >= len(v) - 1:
        return v[-1]
    return v[lo] + (v[lo + 1] - v[lo]) * (pos - lo)


def dropped(values):
    v = sorted(values)
    q1, q3 = quantile(v, 0.25), quantile(v, 0.75)
    iqr = q3 - q1
    return sum(1 for x in v if x < q1 - 1.5 * iqr or x > q3 + 1.5 * iqr), iqr


# ---- item 1 --------------------------------------------------------------

def item1():
    """paper_outlier_rule_misleads: the warning and the medians beside the
    paper's numbers."""
    if not os.path.isdir(PAPER):
        return "skip"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        p = run("reproduce", "--data", PAPER, "--out", out)
        check(p.returncode == 0, f"paper_outlier_rule_misleads: reproduce "
              f"exit {p.returncode}: {p.stderr}")
        # the paper's table is untouched
        check("| 128 | 52.0 ± 30.6 | 4.0 ± 0.0 | 13.0 |" in p.stdout,
              "paper_outlier_rule_misleads: the paper's table changed")
        err = p.stderr
        check("128x128 streaming: the paper's IQR outlier rule drops 232 of "
              "970 values (23.9 %, IQR 0" in err,
              "paper_outlier_rule_misleads: no stderr warning naming "
              "128x128 streaming, 232 of 970, IQR 0:\n" + err)
        check("queue time: the paper's IQR outlier rule drops" in err,
              "paper_outlier_rule_misleads: no queue-time warning")
        check("1024x1024 streaming" not in err,
              "paper_outlier_rule_misleads: a warning for 1024x1024 "
              "streaming, which drops nothing")
        mpath = os.path.join(out, "statistics", "medians.csv")
        if not check(os.path.isfile(mpath), "paper_outlier_rule_misleads: "
                     "no statistics/medians.csv"):
            return "ok"
        med = read(mpath)
        rows = {(r["group"], r["size"]): r for r in med}
        for size in (128, 256, 512, 1024):
            st = [float(r["time_difference_seconds"]) for r in
                  read(os.path.join(out, "streaming",
                                    f"streaming_times_{size}.csv"))]
            r = rows.get(("streaming", str(size)))
            check(r is not None, f"paper_outlier_rule_misleads: medians.csv "
                  f"has no streaming row for {size}")
            if r is None:
                continue
            k, lo, hi, cov = median_ci(st)
            nd, iqr = dropped(st)
            check(int(r["n"]) == len(st), f"medians.csv {size} n")
            check(math.isclose(float(r["median"]), statistics.median(st)),
                  f"medians.csv {size} median {r['median']}")
            check(math.isclose(float(r["ci_low"]), lo) and
                  math.isclose(float(r["ci_high"]), hi) and
                  math.isclose(float(r["ci_level"]), cov, rel_tol=1e-9),
                  f"medians.csv {size} interval {r['ci_low']}..{r['ci_high']}"
                  f" ({r['ci_level']}), expected {lo}..{hi} ({cov})")
            check(int(r["outliers_dropped"]) == nd, f"medians.csv {size} "
                  f"dropped {r['outliers_dropped']}, expected {nd}")
            check(math.isclose(float(r["iqr"]), iqr, abs_tol=1e-9),
                  f"medians.csv {size} iqr")
            check(r["resolution_s"] == "1.0", f"medians.csv {size}: the "
                  f"whole-second inputs give resolution {r['resolution_s']}")
            check(r["clock_bound_s"] == "", "medians.csv: a clock bound "
                  "without measured clocks")
        check(rows[("streaming", "128")]["iqr"] in ("0", "0.0"),
              "the paper's 128x128 streaming IQR is 0")
        q = read(os.path.join(out, "statistics", "queue_time_median.csv"))
        check(len(q) == 1 and q[0]["group"] == "queue" and
              int(q[0]["n"]) == 2268, "queue_time_median.csv: one row, n 2268")
        html = open(os.path.join(out, "report.html"), encoding="utf-8").read()
        check('id="outlier-warnings"' in html and "232 of 970" in html,
              "paper_outlier_rule_misleads: the report has no warning")
        check('id="medians-table"' in html and "order statistics" in html,
              "paper_outlier_rule_misleads: the report has no medians table")
        # stats transfers on its own says it too
        so = os.path.join(tmp, "stats")
        p = run("stats", "transfers", "--merged",
                os.path.join(out, "file_transfer", "merged_job_info.csv"),
                "--offload",
                os.path.join(out, "file_transfer", "ncem_offload_times.csv"),
                "--save-stats",
                os.path.join(PAPER, "file_transfer", "save_time_stats.csv"),
                "--streaming-dir", os.path.join(out, "streaming"),
                "--out-dir", so)
        check(p.returncode == 0 and "232 of 970" in p.stderr and
              os.path.isfile(os.path.join(so, "medians.csv")),
              "paper_outlier_rule_misleads: stats transfers alone does not "
              "warn or write medians.csv: " + p.stderr)
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    check("medians.csv" in readme, "README: the honest error bars are not "
          "named (medians.csv)")
    return "ok"

# ---- item 2 --------------------------------------------------------------

def expected_offloads(write_times, ranges):
    from datetime import datetime
    rows = read(write_times)
    out = {}
    for size, (a, b) in ranges.items():
        vals = []
        for r in rows:
            if a <= int(r["scan_number"]) <= b:
                first = min(datetime.fromisoformat(r[c].split("+00:00+")[0]
                                                   .replace("Z", "+00:00"))
                            for c in r if c.startswith("time") and
                            c != "time_last_written" and r[c])
                last = datetime.fromisoformat(r["time_last_written"])
                vals.append((last - first).total_seconds())
        out[size] = sum(vals) / len(vals)
    return out


def item2():
    """guide_offload_87_million_seconds: the guide's worked example,
    followed literally on a fresh clone, gives the sample's offload times;
    the checkout's mtimes and far clock measurements are warnings."""
    ranges = {128: (2525, 2532), 256: (2517, 2524), 512: (2509, 2516),
              1024: (2501, 2508)}
    want = expected_offloads(os.path.join(SAMPLE, "file_transfer",
                                          "write_times.csv"), ranges)
    with tempfile.TemporaryDirectory() as tmp:
        repo = fresh_clone(ROOT, os.path.join(tmp, "repo"),
                           ("data", "docs"), ST)
        errs = []
        for cmd in guide_blocks(ROOT):
            p = subprocess.run(["bash", "-e", "-c", cmd], cwd=repo,
                               capture_output=True, text=True)
            check(p.returncode == 0, f"guide_offload_87_million_seconds: "
                  f"exit {p.returncode}: {cmd.strip()}\n{p.stderr}")
            errs.append((cmd, p.stderr))
        got = {int(r["size"]): float(r["offload_time"]) for r in
               read(os.path.join(repo, "out", "guide",
                                 "ncem_offload_times.csv"))}
        for size, w in want.items():
            check(size in got and abs(got[size] - w) < 1e-3,
                  f"guide_offload_87_million_seconds: the guide's offload "
                  f"of {size} is {got.get(size)} s, the sample's is {w:.6f}")
        off = [e for c, e in errs if "merge offload" in c]
        check(off and "negative or longer than a day" not in off[0],
              "guide_offload_87_million_seconds: implausible offloads "
              "in the guide's merge")
        check(off and "more than a day away" in off[0],
              "clock_offsets_far_from_data: no warning that today's clock "
              "offsets correct 2024 times")
        # the old way: collect on the checked-out directory, then merge
        wt = os.path.join(tmp, "wt.csv")
        p = run("collect", "receivers", os.path.join(repo, "data",
                "acquisition"), "--out", wt, "--settle", "0")
        p = run("merge", "offload", "--write-times", wt,
                *[a for s, (f, l) in ranges.items()
                  for a in ("--range", f"{s}:{f}-{l}")],
                "--out", os.path.join(tmp, "o.csv"))
        check(p.returncode == 0 and "of 28 scans have an offload time that "
              "is negative or longer than a day" in p.stderr and
              "scans 2501, 2503, 2504, 2505, 2506, ...)" in p.stderr,
              "guide_offload_87_million_seconds: merge offload on the "
              "checkout's mtimes does not warn: " + p.stderr)
    return "ok"


# ---- item 4 --------------------------------------------------------------

def item4():
    """report_links_unrelated_csvs: the report lists what the run wrote
    (OUT/manifest.txt), not every CSV under the directory."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        # an older run's leftovers, there before reproduce runs
        os.makedirs(os.path.join(out, "old", "statistics"))
        os.makedirs(os.path.join(out, "statistics"))
        os.makedirs(os.path.join(out, "figures"))
        for f in ("old/stale.csv", "old/statistics/ranked_days.csv",
                  "statistics/statistics_transfers_64.csv"):
            with open(os.path.join(out, f), "w") as fh:
                fh.write("Statistics,Size,Number of Points\n")
        with open(os.path.join(out, "figures", "stale_figure.svg"), "w") as fh:
            fh.write('<svg xmlns="http://www.w3.org/2000/svg"/>')
        p = run("reproduce", "--out", out)
        check(p.returncode == 0, "reproduce: " + p.stderr)
        written = set()
        for d, _, names in os.walk(out):
            for n in names:
                written.add(os.path.relpath(os.path.join(d, n), out))
        stale = {"old/stale.csv", "old/statistics/ranked_days.csv",
                 "statistics/statistics_transfers_64.csv",
                 "figures/stale_figure.svg"}
        mpath = os.path.join(out, "manifest.txt")
        check(os.path.isfile(mpath), "report_links_unrelated_csvs: "
              "reproduce wrote no manifest.txt")
        man = [l for l in (open(mpath).read() if os.path.isfile(mpath)
                           else "").splitlines()
               if l and not l.startswith("#")]
        check(set(man) == written - stale - {"manifest.txt"},
              "report_links_unrelated_csvs: manifest.txt is not what the "
              f"run wrote: {sorted(set(man) ^ (written - stale - {'manifest.txt'}))}")
        html = open(os.path.join(out, "report.html"), encoding="utf-8").read()
        for f in ("stale.csv", "old/statistics", "64\u00d764",
                  "stale_figure"):
            check(f not in html, f"report_links_unrelated_csvs: reproduce's "
                  f"report shows {f}")
        check("statistics/medians.csv" in html,
              "report_links_unrelated_csvs: the run's own CSVs are missing")
        # report on its own: the same
        p = run("report", "--results", out, "--out",
                os.path.join(tmp, "r.html"))
        html = open(os.path.join(tmp, "r.html"), encoding="utf-8").read()
        check(p.returncode == 0 and "stale.csv" not in html and
              "64\u00d764" not in html and "manifest" not in p.stderr,
              "report_links_unrelated_csvs: report --results links files "
              "the manifest does not name: " + p.stderr)
        # without a manifest: every file, said on the page and on stderr
        os.unlink(os.path.join(out, "manifest.txt"))
        # (a malformed leftover would now be read: exit 65)
        os.unlink(os.path.join(out, "statistics",
                               "statistics_transfers_64.csv"))
        p = run("report", "--results", out, "--out",
                os.path.join(tmp, "r2.html"))
        html = open(os.path.join(tmp, "r2.html"), encoding="utf-8").read()
        check(p.returncode == 0 and "old/stale.csv" in html and
              "no <code>manifest.txt</code>" in html.replace("There is no", "no")
              and "no manifest.txt in" in p.stderr,
              "report_links_unrelated_csvs: without a manifest the report "
              "does not say it lists every file: " + p.stderr)
    return "ok"


ITEMS = {"1": item1, "2": item2, "4": item4}


def main():
    skipped = 0
    for name, fn in ITEMS.items():
        if ONLY and name not in ONLY:
            continue
        if fn() == "skip":
            skipped += 1
    if FAILS:
        return report("numbers")
    if skipped and skipped == len(ONLY or ITEMS):
        if os.environ.get("CI") == "true":
            print("FAIL: paper data missing under CI")
            return 1
        print("skip: no paper data at", PAPER)
        return 77
    return report("numbers")


if __name__ == "__main__":
    sys.exit(main())
