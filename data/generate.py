#!/usr/bin/env python3
"""Generate streamtime's synthetic sample dataset (the paper's data layout).

Everything in data/ except README.md and this script is written by this
generator.  The output is deterministic: a fixed seed, no clock, no locale,
no hash-order dependence.  Python 3.9+ standard library only (zoneinfo needs
the system tz database, e.g. Debian's tzdata package).

    python3 data/generate.py            # rewrite the files, print expected table
    python3 data/generate.py --check    # only recompute the table from the files

The expected comparison table is recomputed from the written files (not from
the generator's internal state) with the definitions of SPEC 5.6/5.7, so it is
an independent check of what `streamtime reproduce` should print.
"""

import csv
import json
import math
import os
import random
import sys
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

SEED = 20240229
HERE = os.path.dirname(os.path.abspath(__file__))
LA = ZoneInfo("America/Los_Angeles")
UTC = timezone.utc
SIZES = [128, 256, 512, 1024]
MAX_ELAPSED = 29 * 60

# Offload experiments (write_times.csv), February 2024, UTC.
OFFLOAD = {1024: (2501, 2508), 512: (2509, 2516), 256: (2517, 2524), 128: (2525, 2532)}
# Streaming experiments: 256/512/1024 in October 2023 (PDT, UTC-7),
# 128 in January 2024 (PST, UTC-8).
STREAMING = {256: (2101, 2112), 512: (2113, 2124), 1024: (2125, 2136), 128: (2401, 2414)}

SLURM_HEADER = ["Job Name", "Job ID", "Timelimit", "Elapsed", "Submit", "Start",
                "End", "ReqNodes", "QOS", "User", "ExitCode"]


# ---------------------------------------------------------------- helpers

def hms(seconds):
    seconds = int(seconds)
    return "%02d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def iso_utc(dt, z=False):
    """UTC instant as ISO 8601: +00:00 (or Z), fraction only when non-zero."""
    dt = dt.astimezone(UTC)
    s = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if dt.microsecond:
        s += ".%06d" % dt.microsecond
    return s + ("Z" if z else "+00:00")


def naive(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S")


def write_csv(relpath, header, rows):
    path = os.path.join(HERE, relpath)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="", encoding="ascii") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


# ---------------------------------------------------------------- slurm + distiller

def gen_transfer(rng):
    """slurm_job_info.csv and distiller_db/{N}_{N}.csv."""
    # Per-size job elapsed (seconds) as (mean, sd); a few slow jobs added below.
    elapsed_dist = {128: (42, 8), 256: (90, 9), 512: (140, 12), 1024: (440, 30)}
    per_size = {128: 12, 256: 12, 512: 11, 1024: 11}

    jobs = []  # dicts: size (None = no distiller row), elapsed, db_elapsed, flags
    for size in SIZES:
        mu, sd = elapsed_dist[size]
        for _ in range(per_size[size]):
            e = max(20, int(round(rng.gauss(mu, sd))))
            jobs.append({"size": size, "elapsed": e, "db_elapsed": hms(e)})
    # Slow but legitimate jobs (stay in the merge, removed as IQR outliers).
    jobs.append({"size": 128, "elapsed": 191, "db_elapsed": hms(191)})
    jobs.append({"size": 1024, "elapsed": 1262, "db_elapsed": hms(1262)})
    # Exactly at the limit: kept (the limit is inclusive).
    jobs.append({"size": 512, "elapsed": MAX_ELAPSED, "db_elapsed": hms(MAX_ELAPSED)})
    # Over the limit: dropped by merge transfer.
    jobs.append({"size": 256, "elapsed": 1777, "db_elapsed": hms(1777), "note": "over"})
    # Distiller never recorded the elapsed: dropped.
    jobs.append({"size": 1024, "elapsed": 455, "db_elapsed": "", "note": "empty"})
    # Jobs with no Distiller row at all (e.g. counted by hand): dropped.
    jobs.append({"size": None, "elapsed": 77})
    jobs.append({"size": None, "elapsed": 402})
    # Recount: two jobs for one scan, both kept.
    jobs.append({"size": 256, "elapsed": 93, "db_elapsed": hms(93), "note": "recount1"})
    jobs.append({"size": 256, "elapsed": 88, "db_elapsed": hms(88), "note": "recount2"})

    rng.shuffle(jobs)
    # Keep the recount pair adjacent and in order.
    i1 = next(i for i, j in enumerate(jobs) if j.get("note") == "recount1")
    j2 = jobs.pop(next(i for i, j in enumerate(jobs) if j.get("note") == "recount2"))
    i1 = next(i for i, j in enumerate(jobs) if j.get("note") == "recount1")
    jobs.insert(i1 + 1, j2)

    # Distiller's elapsed is polled, it can be a second short of sacct's.
    for k in (3, 17, 29):
        j = jobs[k]
        if j.get("size") and j["db_elapsed"] and "note" not in j:
            j["db_elapsed"] = hms(j["elapsed"] - 1)

    # Submit times: sessions on ~3 months of days (Nov 2023 - Jan 2024, UTC).
    days = ["2023-11-02", "2023-11-09", "2023-11-21", "2023-12-05", "2023-12-06",
            "2023-12-14", "2024-01-10", "2024-01-11", "2024-01-23", "2024-01-30"]
    per_day = [len(jobs) // len(days)] * len(days)
    for k in range(len(jobs) - sum(per_day)):
        per_day[k] += 1
    # Long queue waits (seconds) on a few jobs: minutes to hours.
    long_queue = {5: 412, 22: 2710, 40: 9436}

    rows = []
    jid = 19384211
    jname = 6120
    scan_id = 9450
    k = 0
    db = {s: [] for s in SIZES}
    for day, n in zip(days, per_day):
        t = datetime.fromisoformat(day + "T" + "%02d:%02d:%02d" % (
            rng.randint(15, 21), rng.randint(0, 59), rng.randint(0, 59)))
        for _ in range(n):
            j = jobs[k]
            if k in long_queue:
                q = long_queue[k]
            else:
                q = min(20, int(rng.expovariate(1 / 4.0)))
            submit = t
            start = submit + timedelta(seconds=q)
            end = start + timedelta(seconds=j["elapsed"])
            rows.append(["distiller-count-%d" % jname, str(jid), "00:30:00",
                         hms(j["elapsed"]), naive(submit), naive(start), naive(end),
                         "4", "realtime_m4242", "dstlr", "0:0"])
            if j["size"]:
                if j.get("note") != "recount2":
                    scan_id += rng.randint(1, 4)
                db[j["size"]].append([str(scan_id), str(jid), j["db_elapsed"]])
            k += 1
            jid += rng.randint(2, 900)
            jname += rng.randint(1, 3)
            t += timedelta(seconds=rng.randint(20, 900))
    assert k == len(jobs)

    # Distiller rows without a (matching) Slurm job: never submitted, or a
    # failed job that the sacct filters removed.
    db[128].append([str(scan_id + 3), "", ""])
    db[512].append([str(scan_id + 5), "", ""])
    db[1024].append([str(scan_id + 8), "", ""])
    db[256].append([str(scan_id + 9), str(jid + 17), "00:00:04"])
    db[512].append([str(scan_id + 11), str(jid + 58), "00:00:02"])
    for s in SIZES:
        rng.shuffle(db[s])
        write_csv("file_transfer/distiller_db/%d_%d.csv" % (s, s),
                  ["id", "slurm_id", "elapsed"], db[s])
    write_csv("file_transfer/slurm_job_info.csv", SLURM_HEADER, rows)


# ---------------------------------------------------------------- offload

def gen_write_times(rng):
    target = {128: (2.2, 3.6), 256: (7.0, 9.0), 512: (30.0, 36.0), 1024: (138.0, 162.0)}
    size_of = {}
    for s, (a, b) in OFFLOAD.items():
        for n in range(a, b + 1):
            size_of[n] = s
    missing = {2505}  # a scan of the 1024 range that never completed
    t = datetime(2024, 2, 20, 18, 12, 37, tzinfo=UTC)
    rows = []
    for n in range(2500, 2534):
        if n in missing:
            t += timedelta(seconds=200)
            continue
        s = size_of.get(n)
        if s is None:
            off = 611.25  # outside every range: a scan that must not be averaged
        else:
            lo, hi = target[s]
            off = round(rng.uniform(lo, hi), 6 if n % 3 == 0 else 0)
        rec = [t + timedelta(seconds=rng.randint(0, 3)) for _ in range(4)]
        first = min(rec)
        last = first + timedelta(seconds=off)
        rows.append([str(n)] + [iso_utc(x) for x in rec] + [iso_utc(last)])
        # Status files carry whole seconds; only data-file mtimes have fractions.
        t = (last + timedelta(seconds=rng.randint(15, 90))).replace(microsecond=0)
    write_csv("file_transfer/write_times.csv",
              ["scan_number", "time0", "time1", "time2", "time3", "time_last_written"],
              rows)


def gen_save_stats(rng):
    # (count_time mean, Real save_time mean, Blank save_time mean) per size.
    base = {128: (3.87, 0.241, 0.0283), 256: (5.11, 0.962, 0.0877),
            512: (11.02, 3.91, 0.347), 1024: (37.9, 16.3, 1.251)}
    rows = []
    for s in SIZES:
        count, real, blank = base[s]
        for typ, save in (("Real", real), ("Blank", blank)):
            c = count * rng.uniform(0.97, 1.03) * (1 if typ == "Real" else 0.93)
            sv = save * rng.uniform(0.98, 1.02)
            tot = c + sv + rng.uniform(0.04, 0.09) * (s / 128) ** 0.5
            rows.append([str(s), typ, "mean", "%.9f" % tot, "%.9f" % c, "%.9f" % sv])
            rows.append([str(s), typ, "std", "%.9f" % (tot * rng.uniform(0.012, 0.05)),
                         "%.9f" % (c * rng.uniform(0.012, 0.05)),
                         "%.9f" % (sv * rng.uniform(0.003, 0.05))])
    write_csv("file_transfer/save_time_stats.csv",
              ["Size", "Type", "Stat", "total_time", "count_time", "save_time"], rows)


# ---------------------------------------------------------------- streaming

def gen_streaming(rng):
    # Mean latency + 0.5 s: mtimes are listed in whole seconds (floored).
    latency = {128: (4.5, 0.8), 256: (7.5, 1.0), 512: (25.5, 2.0), 1024: (97.5, 2.5)}
    outliers = {2405: 21.0, 2118: 58.0, 2130: 141.0}
    start = {256: datetime(2023, 10, 5, 16, 3, 11, tzinfo=UTC),
             512: datetime(2023, 10, 5, 20, 40, 52, tzinfo=UTC),
             1024: datetime(2023, 10, 6, 17, 22, 5, tzinfo=UTC),
             128: datetime(2024, 1, 18, 17, 2, 41, tzinfo=UTC)}
    gap = {128: (8, 40), 256: (30, 150), 512: (50, 200), 1024: (130, 260)}
    no_created = {2107}          # h5 file exists, status files lost: inner join drops it
    z_form, frac_form = 2122, 2403

    created_rows = [
        # Stray scans of other sessions, in no experiment.
        ["7", "2023-09-28T22:14:05+00:00", "2023-09-28T22:14:03+00:00",
         "2023-09-28T22:14:06+00:00", "2023-09-28T22:14:05+00:00"],
    ]
    for s in (256, 512, 1024, 128):
        first, last = STREAMING[s]
        t = start[s]
        h5 = []
        for n in range(first, last + 1):
            rec = [t + timedelta(seconds=rng.randint(0, 2)) for _ in range(4)]
            if n == frac_form:
                rec[2] = t - timedelta(microseconds=517087)
            created = min(rec)
            lat = outliers.get(n, max(1.0, rng.gauss(*latency[s])))
            nersc = created + timedelta(seconds=lat)
            nersc = nersc.replace(microsecond=0)  # mtime as listed, whole seconds
            local = nersc.astimezone(LA).strftime("%Y-%m-%d %H:%M:%S")
            h5.append(["%05d" % (n - 612), str(n), local])
            if n not in no_created:
                created_rows.append([str(n)] + [iso_utc(x, z=(n == z_form)) for x in rec])
            t += timedelta(seconds=rng.randint(*gap[s]))
        write_csv("streaming/scan_times_%d_%d.csv" % (first, last),
                  ["distiller_id", "scan_number", "datetime"], h5)
    created_rows.append(["2533", "2024-02-20T19:49:02+00:00", "2024-02-20T19:49:01+00:00",
                         "2024-02-20T19:49:03+00:00", "2024-02-20T19:49:02+00:00"])
    created_rows.sort(key=lambda r: int(r[0]))
    write_csv("streaming/ncem_file_created_times.csv",
              ["scan_number", "time0", "time1", "time2", "time3"], created_rows)


def gen_experiments():
    lines = ['{', '  "tz": "America/Los_Angeles",', '  "slurm_tz": "UTC",',
             '  "max_elapsed": "29:00",', '  "experiments": [']
    for i, s in enumerate(SIZES):
        e = {"size": s, "offload": list(OFFLOAD[s]), "streaming": list(STREAMING[s]),
             "h5": "scan_times_%d_%d.csv" % STREAMING[s]}
        lines.append("    " + json.dumps(e) + ("," if i < len(SIZES) - 1 else ""))
    lines += ["  ]", "}"]
    text = "\n".join(lines) + "\n"
    json.loads(text)
    with open(os.path.join(HERE, "experiments.json"), "w", encoding="ascii") as f:
        f.write(text)


def gen_collect_examples():
    """Tiny directories for the README's `collect` examples: what the
    receivers leave at NCEM (acquisition/) and the counted files at NERSC
    (counted/).  The files are empty; only names (and mtimes, which git does
    not keep) matter to the collectors."""
    acq = os.path.join(HERE, "acquisition")
    os.makedirs(acq, exist_ok=True)
    for f in os.listdir(acq):
        os.unlink(os.path.join(acq, f))
    times = {2525: ["2024-02-20T19:30:01+00:00", "2024-02-20T19:30:00Z",
                    "2024-02-20T19:30:02.250+00:00", "2024-02-20T19:30:01+00:00+00:00"],
             2526: ["2024-02-20T19:31:11+00:00"] * 4,
             2527: ["2024-02-20T19:32:20+00:00"] * 3}      # receiver 3 missing
    for n, ts in times.items():
        for r, t in enumerate(ts):
            with open(os.path.join(acq, "4dstem_rec_status_%d_scan_%d.json" % (r, n)),
                      "w", encoding="ascii") as f:
                f.write(json.dumps({"time": t, "last_scan_number": n,
                                    "progress": 100, "UUID": "00000000-0000-4000-8000-%012d" % n}) + "\n")
        for k in range(3):
            open(os.path.join(acq, "data_scan%010d_module%dto%d_dst%d_file0.data"
                              % (n, 4 * k, 4 * k + 3, k)), "w").close()
    counted = os.path.join(HERE, "counted")
    os.makedirs(counted, exist_ok=True)
    for f in os.listdir(counted):
        os.unlink(os.path.join(counted, f))
    for name in ["FOURD_240220_1130_02601_02525.h5", "FOURD_240220_1131_02602_02526.h5",
                 "FOURD_240220_1131_02602_02526_electrons.h5",
                 "FOURD_240220_1132_00000_02527.h5"]:
        open(os.path.join(counted, name), "w").close()


# ---------------------------------------------------------------- expected table

def read_csv(relpath):
    with open(os.path.join(HERE, relpath), newline="", encoding="ascii") as f:
        return list(csv.DictReader(f))


def parse_iso(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def dur(s):
    p = [int(x) for x in s.split(":")]
    while len(p) < 3:
        p.insert(0, 0)
    return p[0] * 3600 + p[1] * 60 + p[2]


def quantile(sorted_v, p):
    pos = (len(sorted_v) - 1) * p
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_v) - 1)
    return sorted_v[lo] + (sorted_v[hi] - sorted_v[lo]) * (pos - lo)


def describe(values):
    v = sorted(values)
    q1, q3 = quantile(v, 0.25), quantile(v, 0.75)
    iqr = q3 - q1
    kept = [x for x in v if q1 - 1.5 * iqr <= x <= q3 + 1.5 * iqr]
    n = len(kept)
    mean = sum(kept) / n
    std = math.sqrt(sum((x - mean) ** 2 for x in kept) / (n - 1))
    return len(v), n, mean, std


def expected_table():
    exp = json.load(open(os.path.join(HERE, "experiments.json")))
    tz = ZoneInfo(exp["tz"])
    limit = dur(exp["max_elapsed"])
    jobs = read_csv("file_transfer/slurm_job_info.csv")
    wt = {int(r["scan_number"]): r for r in read_csv("file_transfer/write_times.csv")}
    created = {int(r["scan_number"]): r
               for r in read_csv("streaming/ncem_file_created_times.csv")}
    save = read_csv("file_transfer/save_time_stats.csv")
    out = []
    for e in exp["experiments"]:
        s = e["size"]
        dbrows = read_csv("file_transfer/distiller_db/%d_%d.csv" % (s, s))
        merged = []
        for j in jobs:
            for d in dbrows:
                if d["slurm_id"] and int(d["slurm_id"]) == int(j["Job ID"]) \
                        and d["elapsed"] and dur(d["elapsed"]) <= limit:
                    merged.append(dur(j["Elapsed"]))
        a, b = e["offload"]
        offs = [(parse_iso(r["time_last_written"])
                 - min(parse_iso(r["time%d" % i]) for i in range(4))).total_seconds()
                for n, r in wt.items() if a <= n <= b]
        offload = sum(offs) / len(offs)

        def sv(typ):
            return float(next(r["save_time"] for r in save if int(r["Size"]) == s
                              and r["Type"] == typ and r["Stat"] == "mean"))
        overhead = 2 * (sv("Real") - sv("Blank"))
        ft = [x + offload - overhead for x in merged]
        a, b = e["streaming"]
        st = []
        for r in read_csv("streaming/" + e["h5"]):
            n = int(r["scan_number"])
            if n not in created or not a <= n <= b:
                continue
            nersc = datetime.fromisoformat(r["datetime"]).replace(tzinfo=tz)
            c = min(parse_iso(created[n]["time%d" % i]) for i in range(4))
            st.append(abs((nersc - c).total_seconds()))
        out.append((s, describe(ft), describe(st), offload, overhead, len(offs)))
    return out


def print_table(out):
    print("| size | data_gb | file_transfer_mean_s | file_transfer_std_s | "
          "streaming_mean_s | streaming_std_s | enhancement |")
    print("|---|---|---|---|---|---|---|")
    for s, ft, st, _, _, _ in out:
        gb = s * s * 576 * 576 * 2 * 1e-9
        print("| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |"
              % (s, gb, ft[2], ft[3], st[2], st[3], ft[2] / st[2]))
    print()
    for s, ft, st, off, ovh, noff in out:
        print("size %4d: merged jobs %d (%d without outliers), streaming rows %d "
              "(%d without outliers), offload scans %d, offload mean %.6f s, "
              "save overhead %.6f s" % (s, ft[0], ft[1], st[0], st[1], noff, off, ovh))


def main():
    if "--check" not in sys.argv[1:]:
        rng = random.Random(SEED)
        gen_transfer(rng)
        gen_write_times(rng)
        gen_save_stats(rng)
        gen_streaming(rng)
        gen_experiments()
        gen_collect_examples()
    out = expected_table()
    for s, ft, st, _, _, _ in out:
        assert ft[1] >= 8 and st[1] >= 8 and st[3] > 0, s
    print_table(out)


if __name__ == "__main__":
    main()
