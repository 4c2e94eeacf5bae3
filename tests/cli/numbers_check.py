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
import shutil
import statistics
import subprocess
import sys
import tempfile
from fractions import Fraction
from math import comb

ST, ROOT, PAPER = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = set(sys.argv[4:])
SAMPLE = os.path.join(ROOT, "data")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def run(*args, cwd=None, env=None):
    return subprocess.run([ST, *args], capture_output=True, text=True,
                          cwd=cwd, env=env)


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
        med = read(os.path.join(out, "statistics", "medians.csv"))
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


ITEMS = {"1": item1}


def main():
    skipped = 0
    for name, fn in ITEMS.items():
        if ONLY and name not in ONLY:
            continue
        if fn() == "skip":
            skipped += 1
    if failures:
        for f in failures:
            print("FAIL:", f)
        return 1
    if skipped and skipped == len(ONLY or ITEMS):
        if os.environ.get("CI") == "true":
            print("FAIL: paper data missing under CI")
            return 1
        print("skip: no paper data at", PAPER)
        return 77
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
