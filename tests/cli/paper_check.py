#!/usr/bin/env python3
"""CLI test: `streamtime reproduce` on the paper's data against its golden files.

Usage: paper_check.py STREAMTIME PAPER_DATA

Independent of the C code under test: it uses only Python's standard library
(csv, datetime, zoneinfo, statistics) to normalise the paper's pandas artefacts
and to recompute the statistics from the golden intermediates.  Exit 77 (meson:
skipped) when PAPER_DATA is absent.
"""
import csv
import math
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import setup_rule  # noqa: E402
from checks import FAILS, check, report  # noqa: E402
import tempfile
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

LA = ZoneInfo("America/Los_Angeles")
SIZES = [128, 256, 512, 1024]


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def close(a, b, rel=1e-9, abs_=1e-9):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def pandas_elapsed(s):
    # "0 days 00:19:38" -> "00:19:38"
    days, _, hms = s.partition(" days ")
    assert days == "0", s
    return hms


def utc(s):
    d = datetime.fromisoformat(s)
    assert d.tzinfo is not None, s
    return d.astimezone(timezone.utc)


def la_naive(s):
    return datetime.fromisoformat(s).replace(tzinfo=LA).astimezone(timezone.utc)


def quantile(sorted_v, p):
    pos = (len(sorted_v) - 1) * p
    lo = math.floor(pos)
    if lo >= len(sorted_v) - 1:
        return sorted_v[-1]
    return sorted_v[lo] + (sorted_v[lo + 1] - sorted_v[lo]) * (pos - lo)


def describe(v):
    s = sorted(v)
    return {
        "n": len(v), "mean": statistics.fmean(v), "median": statistics.median(v),
        "std": statistics.stdev(v) if len(v) > 1 else float("nan"),
        "min": s[0], "max": s[-1], "q25": quantile(s, 0.25), "q75": quantile(s, 0.75),
    }


def without_outliers(v):
    s = sorted(v)
    q1, q3 = quantile(s, 0.25), quantile(s, 0.75)
    iqr = q3 - q1
    return [x for x in v if q1 - 1.5 * iqr <= x <= q3 + 1.5 * iqr]


def hms_seconds(s):
    h, m, sec = s.split(":")
    return int(h) * 3600 + int(m) * 60 + float(sec)


def main():
    exe, data = sys.argv[1], sys.argv[2]
    if not os.path.isdir(data):
        setup_rule.data_missing("cli-paper", data)
    out = tempfile.mkdtemp(prefix="st-paper-")
    p = subprocess.run([exe, "reproduce", "--data", data, "--out", out],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"reproduce exit {p.returncode}: {p.stderr}")
    if p.returncode != 0:
        return report("paper")

    # 1. The paper's comparison table, as published.
    expected = [
        "| 128 | 52.0 ± 30.6 | 4.0 ± 0.0 | 13.0 |",
        "| 256 | 92.3 ± 38.6 | 6.8 ± 0.6 | 13.6 |",
        "| 512 | 138.5 ± 28.2 | 25.1 ± 1.3 | 5.5 |",
        "| 1024 | 442.6 ± 53.5 | 97.2 ± 4.1 | 4.6 |",
    ]
    lines = p.stdout.splitlines()
    check(lines[2:] == expected, f"comparison table differs:\n{p.stdout}")

    ft = os.path.join(data, "file_transfer")
    st = os.path.join(data, "streaming")

    # 2. merged_job_info.csv: 2268 rows, each equal to the golden row once the
    #    pandas artefacts (floats, "0 days") are undone.
    ours = read(os.path.join(out, "file_transfer", "merged_job_info.csv"))
    gold = read(os.path.join(ft, "merged_job_info.csv"))
    check(len(ours) == 2268, f"merged rows: {len(ours)} != 2268")
    check(len(gold) == len(ours), "merged: row count differs from golden")
    job_cols = ["Job Name", "Job ID", "Timelimit", "Elapsed", "Submit", "Start",
                "End", "ReqNodes", "QOS", "User", "ExitCode"]
    with open(os.path.join(out, "file_transfer", "merged_job_info.csv")) as f:
        header = f.readline().rstrip("\n").split(",")
    check(header == job_cols + ["id", "elapsed", "size"], f"merged header {header}")
    bad = 0
    for i, (o, g) in enumerate(zip(ours, gold)):
        norm = {c: g[c] for c in job_cols}
        norm["id"] = str(int(float(g["id"])))
        norm["size"] = str(int(float(g["size"])))
        norm["elapsed"] = pandas_elapsed(g["elapsed"])
        if o != norm:
            bad += 1
            if bad <= 3:
                check(False, f"merged row {i + 2}: {o} != {norm}")
    check(bad == 0, f"merged: {bad} rows differ")

    # 3. ncem_offload_times.csv equal to 1e-9.
    ours = read(os.path.join(out, "file_transfer", "ncem_offload_times.csv"))
    gold = read(os.path.join(ft, "ncem_offload_times.csv"))
    check([r["size"] for r in ours] == [r["size"] for r in gold], "offload sizes")
    for o, g in zip(ours, gold):
        check(close(float(o["offload_time"]), float(g["offload_time"])),
              f"offload {o} != {g}")
    offload = {int(r["size"]): float(r["offload_time"]) for r in gold}

    # 4. streaming_times_{size}.csv: every row equal.  The paper wrote both
    #    times as naive US/Pacific (it subtracted 7 h from UTC); we write UTC.
    streaming = {}
    for size in SIZES:
        ours = read(os.path.join(out, "streaming", f"streaming_times_{size}.csv"))
        gold = read(os.path.join(st, f"streaming_times_{size}.csv"))
        check(len(ours) == len(gold), f"streaming {size}: {len(ours)} != {len(gold)} rows")
        for i, (o, g) in enumerate(zip(ours, gold)):
            ok = (int(o["distiller_id"]) == int(g["distiller_id"])
                  and o["scan_number"] == g["scan_number"]
                  and utc(o["nersc_write_time"]) == la_naive(g["nersc_write_time"])
                  and utc(o["ncem_created_time"]) == la_naive(g["ncem_created_time"])
                  and float(o["time_difference_seconds"]) == float(g["time_difference_seconds"])
                  and abs(float(o["latency_seconds"])) == float(g["time_difference_seconds"]))
            if not ok:
                check(False, f"streaming {size} row {i + 2}: {o} != {g}")
                break
        streaming[size] = [float(g["time_difference_seconds"]) for g in gold]

    # 5. statistics_transfers_{size}.csv recomputed here from the golden
    #    intermediates with the SPEC 5.7 formulas.
    save = {}
    for r in read(os.path.join(ft, "save_time_stats.csv")):
        if r["Stat"] == "mean":
            save[(int(r["Size"]), r["Type"])] = float(r["save_time"])
    merged = read(os.path.join(ft, "merged_job_info.csv"))
    cols = ["Number of Points", "Mean time", "Median time", "Standard Deviation",
            "Minimum time", "Maximum time", "25th percentile", "75th percentile"]
    keys = ["n", "mean", "median", "std", "min", "max", "q25", "q75"]
    for size in SIZES:
        orig = [hms_seconds(r["Elapsed"]) + offload[size]
                - 2 * (save[(size, "Real")] - save[(size, "Blank")])
                for r in merged if int(float(r["size"])) == size]
        want = {
            f"Statistics for {size}x{size} Streaming with Outliers": describe(streaming[size]),
            f"Statistics for {size}x{size} Streaming without Outliers": describe(without_outliers(streaming[size])),
            f"Statistics for {size}x{size} Original with Outliers": describe(orig),
            f"Statistics for {size}x{size} Original without Outliers": describe(without_outliers(orig)),
        }
        rows = read(os.path.join(out, "statistics", f"statistics_transfers_{size}.csv"))
        check([r["Statistics"] for r in rows] == list(want), f"statistics rows {size}")
        for r in rows:
            w = want.get(r["Statistics"])
            if not w:
                continue
            check(int(r["Size"]) == size, f"Size column {r}")
            for c, k in zip(cols, keys):
                check(close(float(r[c]), float(w[k])), f"{r['Statistics']} {c}: {r[c]} != {w[k]}")

    # 6. statistics_table.csv
    rows = read(os.path.join(out, "statistics", "statistics_table.csv"))
    check([int(r["size"]) for r in rows] == SIZES, "table sizes")
    for r in rows:
        size = int(r["size"])
        check(close(float(r["data_gb"]), size * size * 576 * 576 * 2 * 1e-9), f"data_gb {r}")
        check(close(float(r["enhancement"]),
                    float(r["file_transfer_mean_s"]) / float(r["streaming_mean_s"])), f"enh {r}")
    for name in ["statistics_table.md", "statistics_table.tex"]:
        check(os.path.getsize(os.path.join(out, "statistics", name)) > 0, f"{name} empty")

    # 7. queue statistics and ranked days
    q = []
    days = {}
    for r in merged:
        sub = datetime.fromisoformat(r["Submit"])
        v = (datetime.fromisoformat(r["Start"]) - sub).total_seconds()
        q.append(v)
        days.setdefault(sub.date().isoformat(), []).append(v)
    rows = read(os.path.join(out, "statistics", "queue_time_statistics.csv"))
    check([r["statistics"] for r in rows] == ["with_outliers", "without_outliers"], "queue rows")
    for r, w in zip(rows, [describe(q), describe(without_outliers(q))]):
        for k in keys:
            check(close(float(r[k]), float(w[k])), f"queue {r['statistics']} {k}: {r[k]} != {w[k]}")
    ranked = read(os.path.join(out, "statistics", "ranked_days.csv"))
    means = {d: statistics.fmean(v) for d, v in days.items()}
    check(len(ranked) == len(means), "ranked days count")
    check(all(close(float(r["queue_time"]), means[r["Submit_date"]]) for r in ranked), "ranked means")
    vals = [float(r["queue_time"]) for r in ranked]
    check(vals == sorted(vals, reverse=True), "ranked_days not descending")
    bymonth = read(os.path.join(out, "statistics", "ranked_days_by_month.csv"))
    check(len(bymonth) == len(means), "by month count")
    keyed = [(r["Submit_month_year"], float(r["queue_time"])) for r in bymonth]
    check(keyed == sorted(keyed), "by month order")
    check(all(r["Submit_date"].startswith(r["Submit_month_year"]) for r in bymonth), "month labels")

    if not FAILS:
        print("paper data: table, merged (2268 rows), offload, streaming, statistics all equal")
    return report("paper")


if __name__ == "__main__":
    sys.exit(main())
