#!/usr/bin/python3
"""Generate a synthetic acquisition directory (SPEC 4.1) for benchmarks.

    bench/gen_acq.py DIR NSCANS [--first N]

Creates DIR (it must not exist or be empty) with NSCANS scans numbered
N, N+1, ... (default N = 1).  Each scan has 76 files:

* 4 status files 4dstem_rec_status_{r}_scan_{n}.json (r = 0..3), JSON like
  {"time": "2023-10-13T16:45:09+00:00", "last_scan_number": n,
   "progress": 1.0, "UUID": "..."}.  Most times are written as the example
  in the SPEC ("+00:00"); a deterministic few use "Z", a fraction of a
  second, or a "-07:00" offset (the same instant), so that a collector has
  to normalise them.
* 72 empty data files data_scan{n:010d}_module{a}to{b}_dst{k}_file{f}.data:
  4 module ranges (0to3, 4to7, 8to11, 12to15) x 3 dst x 6 files.

Everything is deterministic (no randomness, no clock): scan n starts at
2023-10-13T16:45:09Z + 60 s * (n - first); its data files get mtimes with
nanoseconds, 20..27.1 s after the start, set with os.utime(ns=...).  The
newest data file is not the last one in name order.  All times are in 2023,
so every scan is long settled.  Status files get the mtime of their 'time'.

Standard library only; run with /usr/bin/python3.
"""
import argparse
import datetime as dt
import hashlib
import json
import os
import sys
import uuid

BASE = int(dt.datetime(2023, 10, 13, 16, 45, 9, tzinfo=dt.timezone.utc).timestamp())
NS = 1_000_000_000
MODULES = [(0, 3), (4, 7), (8, 11), (12, 15)]
DSTS = 3
FILES = 6          # 4 * 3 * 6 = 72 data files per scan
RECEIVERS = 4
MINUS7 = dt.timezone(dt.timedelta(hours=-7))


def status_time(n, r, start):
    """(ISO text, ns instant) of receiver r's status time for scan n."""
    secs = start + 30 + 2 * r          # receivers report a little apart
    frac_us = 0
    kind = (n * 7 + r) % 23
    t = dt.datetime.fromtimestamp(secs, dt.timezone.utc)
    if kind == 0:                      # "Z"
        text = t.strftime("%Y-%m-%dT%H:%M:%SZ")
    elif kind == 5:                    # a fraction of a second
        frac_us = (n * 7919 + r * 104729) % 1_000_000
        text = t.strftime("%Y-%m-%dT%H:%M:%S") + ".%06d+00:00" % frac_us
    elif kind == 11:                   # local time with an offset
        text = t.astimezone(MINUS7).isoformat()
    else:                              # the SPEC's example form
        text = t.strftime("%Y-%m-%dT%H:%M:%S+00:00")
    return text, secs * NS + frac_us * 1000


def uuid_for(n, r):
    return str(uuid.UUID(bytes=hashlib.md5(b"scan %d receiver %d" % (n, r)).digest(), version=4))


def make_scan(d, n, start):
    for r in range(RECEIVERS):
        text, ns = status_time(n, r, start)
        path = os.path.join(d, "4dstem_rec_status_%d_scan_%d.json" % (r, n))
        with open(path, "w") as f:
            json.dump({"time": text, "last_scan_number": n, "progress": 1.0,
                       "UUID": uuid_for(n, r)}, f)
        os.utime(path, ns=(ns, ns))
    i = 0
    for a, b in MODULES:
        for k in range(DSTS):
            for fi in range(FILES):
                name = "data_scan%010d_module%dto%d_dst%d_file%d.data" % (n, a, b, k, fi)
                path = os.path.join(d, name)
                # a permutation of 0..71: the newest file is not the last name
                slot = (i * 37 + n) % 72
                ns = (start + 20) * NS + slot * 100_000_000 + (n * 1234567 + i * 89) % 99_999_999
                open(path, "wb").close()
                os.utime(path, ns=(ns, ns))
                i += 1


def main(argv):
    p = argparse.ArgumentParser(description="make a synthetic acquisition directory")
    p.add_argument("dir")
    p.add_argument("nscans", type=int)
    p.add_argument("--first", type=int, default=1, help="first scan number (default 1)")
    a = p.parse_args(argv)
    if a.nscans < 0 or a.first < 0:
        p.error("NSCANS and --first must be >= 0")
    os.makedirs(a.dir, exist_ok=True)
    if os.listdir(a.dir):
        p.error("%s is not empty" % a.dir)
    for j in range(a.nscans):
        n = a.first + j
        make_scan(a.dir, n, BASE + 60 * j)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
