#!/usr/bin/env python3
"""The comparison table a dataset in the paper's layout should give.

Computed here, in Python's standard library only, from the dataset's CSV
files and experiments.json with the definitions of SPEC 5.6/5.7: no code
is shared with streamtime, so this is an independent check of what
`streamtime reproduce` prints.

    sample_expected.py DATA_DIR           # the table as Markdown, and counts
    sample_expected.py DATA_DIR --csv     # full precision, statistics_table.csv columns

Also imported by simulate_check.py (expected_table()).
"""

import csv
import json
import math
import os
import sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

UTC = timezone.utc
COLS = ["data_gb", "file_transfer_mean_s", "file_transfer_std_s",
        "streaming_mean_s", "streaming_std_s", "enhancement"]


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def parse_iso(s):
    """ISO 8601 with Z or +HH:MM (the doubled '+00:00+00:00': the first)."""
    s = s.replace("Z", "+00:00")
    if s.count("+") > 1:
        s = s[:s.index("+", 19) + 6]
    return datetime.fromisoformat(s)


def dur(s):
    """[D-][HH:]MM:SS to seconds."""
    days = 0
    if "-" in s:
        d, s = s.split("-", 1)
        days = int(d)
    p = [int(x) for x in s.split(":")]
    while len(p) < 3:
        p.insert(0, 0)
    return days * 86400 + p[0] * 3600 + p[1] * 60 + p[2]


def to_int(s):
    try:
        return int(s)
    except ValueError:
        return None


def quantile(v, p):
    pos = (len(v) - 1) * p
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def describe(values):
    """(n, n without outliers, mean, std) after IQR outlier removal."""
    v = sorted(values)
    q1, q3 = quantile(v, 0.25), quantile(v, 0.75)
    iqr = q3 - q1
    kept = [x for x in v if q1 - 1.5 * iqr <= x <= q3 + 1.5 * iqr]
    n = len(kept)
    mean = sum(kept) / n
    std = math.sqrt(sum((x - mean) ** 2 for x in kept) / (n - 1)) if n > 1 else 0.0
    return len(v), n, mean, std


def min_receiver(row):
    times = [parse_iso(row[k]) for k in row
             if k.startswith("time") and k[4:].isdigit() and row[k]]
    return min(times)


def expected_table(data):
    exp = json.load(open(os.path.join(data, "experiments.json")))
    tz = ZoneInfo(exp.get("tz", "UTC"))
    limit = dur(exp.get("max_elapsed", "29:00"))
    ft = os.path.join(data, "file_transfer")
    jobs = read_csv(os.path.join(ft, "slurm_job_info.csv"))
    wt = {int(r["scan_number"]): r for r in read_csv(os.path.join(ft, "write_times.csv"))}
    created = {int(r["scan_number"]): r for r in
               read_csv(os.path.join(data, "streaming", "ncem_file_created_times.csv"))}
    save = read_csv(os.path.join(ft, "save_time_stats.csv"))
    out = []
    for e in exp["experiments"]:
        s = e["size"]
        db = {}
        for d in read_csv(os.path.join(ft, "distiller_db", "%d_%d.csv" % (s, s))):
            if d["slurm_id"] and d["elapsed"] and dur(d["elapsed"]) <= limit:
                db.setdefault(int(d["slurm_id"]), []).append(d)
        merged = []
        for j in jobs:
            jid = to_int(j["Job ID"])
            for _ in db.get(jid, []) if jid is not None else []:
                merged.append(dur(j["Elapsed"]))
        a, b = e["offload"]
        offs = [(parse_iso(r["time_last_written"]) - min_receiver(r)).total_seconds()
                for n, r in wt.items() if a <= n <= b]
        offload = sum(offs) / len(offs)

        def sv(typ):
            return float(next(r["save_time"] for r in save if int(r["Size"]) == s
                              and r["Type"] == typ and r["Stat"] == "mean"))
        overhead = 2 * (sv("Real") - sv("Blank"))
        transfer = [x + offload - overhead for x in merged]
        a, b = e["streaming"]
        streaming = []
        for r in read_csv(os.path.join(data, "streaming", e["h5"])):
            n = int(r["scan_number"])
            if n not in created or not a <= n <= b:
                continue
            nersc = datetime.fromisoformat(r["datetime"]).replace(tzinfo=tz)
            streaming.append(abs((nersc - min_receiver(created[n])).total_seconds()))
        ftd, std = describe(transfer), describe(streaming)
        out.append({"size": s, "transfer": ftd, "streaming": std,
                    "offload": offload, "overhead": overhead, "offload_scans": len(offs),
                    "data_gb": s * s * 576 * 576 * 2 * 1e-9,
                    "enhancement": ftd[2] / std[2]})
    return out


def table_values(row):
    return [row["data_gb"], row["transfer"][2], row["transfer"][3],
            row["streaming"][2], row["streaming"][3], row["enhancement"]]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: sample_expected.py DATA_DIR [--csv]")
    out = expected_table(sys.argv[1])
    if "--csv" in sys.argv[2:]:
        print("size," + ",".join(COLS))
        for r in out:
            print("%d," % r["size"] + ",".join(repr(v) for v in table_values(r)))
        return
    print("| size | " + " | ".join(COLS) + " |")
    print("|---|---|---|---|---|---|---|")
    for r in out:
        print("| %d | " % r["size"] + " | ".join("%.1f" % v for v in table_values(r)) + " |")
    print()
    print("| size | merged jobs (w/o outliers) | streaming rows (w/o outliers) "
          "| offload scans | mean offload s | save overhead s |")
    print("|---|---|---|---|---|---|")
    for r in out:
        print("| %d | %d (%d) | %d (%d) | %d | %.6f | %.6f |"
              % (r["size"], r["transfer"][0], r["transfer"][1], r["streaming"][0],
                 r["streaming"][1], r["offload_scans"], r["offload"], r["overhead"]))


if __name__ == "__main__":
    main()
