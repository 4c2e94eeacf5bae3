#!/usr/bin/env python3
"""CLI tests of `streamtime collect receivers` and `collect h5` (SPEC 5.1, 5.2).

usage: collect_check.py STREAMTIME {correctness|crash|concurrency|fs|h5}

Every directory is generated here, with mtimes set by os.utime(ns=...)
(utimensat), and every expected value is computed here from what was
generated, independently of streamtime's code (Python's datetime).
"""
import csv
import datetime as dt
import fcntl
import io
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zoneinfo

BIN = os.path.abspath(sys.argv[1])
MODE = sys.argv[2]
from checks import FAILS, check, report, runner  # noqa: E402
import setup_rule  # noqa: E402

HEADER = "scan_number,time0,time1,time2,time3,time_last_written"


run = runner(BIN, timeout=120)


def utc_ns(s):
    """A status 'time' (any SPEC 3 form; naive = UTC) as ns since the epoch."""
    if s.count("+") == 2:                      # the doubled offset
        s = s[:s.index("+", s.index("+") + 1)]
    if "." in s:                               # keep nanoseconds exact
        head, frac = s.split(".", 1)
        digits = frac[:len(frac) - len(frac.lstrip("0123456789"))]
        rest = frac[len(digits):]
        ns_frac = int((digits + "000000000")[:9])
        s = head + rest
    else:
        ns_frac = 0
    t = dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return int(t.timestamp()) * 10**9 + ns_frac


def fmt_utc(ns):
    secs, frac = divmod(ns, 10**9)
    s = dt.datetime.fromtimestamp(secs, dt.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S")
    if frac:
        s += ".%06d" % (frac // 1000) if frac % 1000 == 0 else ".%09d" % frac
    return s + "+00:00"


def status_name(r, n):
    return "4dstem_rec_status_%d_scan_%d.json" % (r, n)


def data_names(n, count=72):
    # 4 modules x 18 files, like the detector's 4 receivers x dst/file
    out = []
    for i in range(count):
        a = (i % 4) * 4
        out.append("data_scan%010d_module%dto%d_dst%d_file%d.data"
                   % (n, a, a + 3, i % 4, i // 4))
    return out


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def make_scan(d, n, times, data_mtimes=None, receivers=4):
    """Status files with TIMES (strings) and data files with DATA_MTIMES
    (ns; None = no data).  Returns the expected row (or None)."""
    for r in range(receivers):
        if times[r] is None:
            continue
        p = os.path.join(d, status_name(r, n))
        write(p, '{"time": "%s", "last_scan_number": %d, "progress": 1.0, '
              '"UUID": "6f1e"}' % (times[r], n))
        os.utime(p, ns=(mt(n, 0), mt(n, 0)))    # settled, like the data
    if data_mtimes is not None:
        for name, m in zip(data_names(n, len(data_mtimes)), data_mtimes):
            p = os.path.join(d, name)
            write(p, "")
            os.utime(p, ns=(m, m))
    if data_mtimes is None or any(t is None for t in times):
        return None
    return ",".join([str(n)] + [fmt_utc(utc_ns(t)) for t in times[:receivers]]
                    + [fmt_utc(max(data_mtimes))])


def settle(d, *names):
    for name in names:
        p = os.path.join(d, name)
        os.utime(p, ns=(BASE, BASE))


def read_rows(path):
    with open(path, newline="") as f:
        text = f.read()
    return text


def valid_csv(text, ncols=6):
    """A valid receivers file: header, whole lines, ncols fields each."""
    if not text.endswith("\n"):
        return False, "no final newline"
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or ",".join(rows[0]) != HEADER:
        return False, "bad header"
    for i, row in enumerate(rows[1:], 2):
        if len(row) != ncols or not row[0].isdigit():
            return False, "line %d: %r" % (i, row)
        for cell in row[1:]:
            try:
                utc_ns(cell)
            except ValueError:
                return False, "line %d: bad time %r" % (i, cell)
    return True, ""


BASE = utc_ns("2023-10-13T16:45:00Z")
NOW = time.time_ns()


def mt(scan, k):
    """Data-file mtimes in the past with nanosecond parts."""
    return BASE + scan * 60 * 10**9 + k * 7_919_123 + 1


def test_correctness(tmp):
    d = os.path.join(tmp, "acq")
    os.mkdir(d)
    out = os.path.join(tmp, "receivers.csv")
    expected = {}
    forms = [
        ["2023-10-13T16:45:09+00:00", "2023-10-13T16:45:10Z",
         "2023-10-13T16:45:11.5Z", "2023-10-13T09:45:12-07:00"],
        ["2023-10-13T16:45:09.123456+00:00", "2023-10-13T16:45:09+00:00+00:00",
         "2023-10-13T16:45:09.123456789Z", "2023-10-13T16:45:13"],
        ["2023-10-13 16:45:09", "2023-10-14T01:45:09+09:00",
         "2023-10-13T16:45:09.000001+00:00", "2023-10-13T16:45:09Z"],
    ]
    for i, times in enumerate(forms):
        n = 100 + i
        expected[n] = make_scan(d, n, times, [mt(n, k) for k in range(72)])
    good = ["2023-10-13T17:00:00Z"] * 4
    for n in range(103, 108):       # plain ones
        expected[n] = make_scan(d, n, good, [mt(n, k) for k in range(72)])
    # pending and bad scans
    make_scan(d, 110, good[:3] + [None], [mt(110, k) for k in range(72)])
    make_scan(d, 111, good, [mt(111, k) for k in range(72)])
    write(os.path.join(d, status_name(2, 111)), '{"time": "2023-10-13T17:0')
    make_scan(d, 112, good, [mt(112, k) for k in range(72)])
    write(os.path.join(d, status_name(1, 112)), '{"last_scan_number": 112}')
    make_scan(d, 113, good, [mt(113, k) for k in range(72)])
    write(os.path.join(d, status_name(3, 113)), '{"time": "yesterday noon"}')
    make_scan(d, 114, good, [mt(114, k) for k in range(72)])
    write(os.path.join(d, status_name(0, 114)), "")
    settle(d, status_name(2, 111), status_name(1, 112), status_name(3, 113),
           status_name(0, 114))
    # a status file rewritten just now (receivers update it in place)
    make_scan(d, 117, good, [mt(117, k) for k in range(72)])
    write(os.path.join(d, status_name(1, 117)),
          '{"time": "2023-10-13T17:00:00Z", "progress": 50}')
    changing = [mt(115, k) for k in range(71)] + [time.time_ns()]
    make_scan(d, 115, good, changing)
    make_scan(d, 116, good, None)
    # names that only look like ours: none of these may count
    for name in ["4dstem_rec_status_0_scan_007.json",
                 "4dstem_rec_status_0_scan_120.json.tmp",
                 "4dstem_rec_status_4_scan_120.json",
                 "4dstem_rec_status_-1_scan_120.json",
                 "4dstem_rec_status_1_scan_120.JSON",
                 "x4dstem_rec_status_2_scan_120.json",
                 "data_scan000000120_module0to3_dst0_file0.data",
                 "data_scan0000000120_module0to3_dst0_file0.data.part",
                 "data_scan0000000120_module0to3_dst0_file.data",
                 "data_scan00000001200_module0to3_dst0_file0.data"]:
        write(os.path.join(d, name), '{"time": "2023-10-13T17:00:00Z"}')
    os.mkdir(os.path.join(d, "data_scan0000000121_module0to3_dst0_file0.d"))

    p = run("collect", "receivers", d, "--out", out)
    check(p.returncode == 0, "correctness: exit %d (%s)" % (p.returncode, p.stderr))
    text = read_rows(out)
    want = [HEADER] + [expected[n] for n in sorted(expected)]
    check(text == "\n".join(want) + "\n",
          "correctness: rows\n--- got\n%s--- want\n%s" % (text, "\n".join(want)))
    for bad in [status_name(2, 111), status_name(1, 112), status_name(3, 113),
                status_name(0, 114)]:
        check(os.path.join(d, bad) in p.stderr,
              "correctness: warning names %s: %s" % (bad, p.stderr))
    check("no 'time'" in p.stderr, "correctness: missing time said")
    check("empty file" in p.stderr, "correctness: empty file said")
    check("8 written, 4 pending, 4 bad, 0 already" in p.stderr,
          "correctness: summary line: %s" % p.stderr)
    check(p.stderr.count("\n") == 5, "correctness: 4 warnings + 1 summary: %r"
          % p.stderr)
    for n in (110, 111, 112, 113, 114, 115, 116, 120, 121):
        check(not any(line.startswith("%d," % n) for line in text.splitlines()),
              "correctness: scan %d must not be written" % n)

    # -v says why scans are pending
    p = run("collect", "receivers", d, "--out", "-", "-v")
    check("scan 110: 3 of 4 status files" in p.stderr, "verbose: 110: " + p.stderr)
    check("scan 116: no data files yet" in p.stderr, "verbose: 116")
    check("scan 115: changed" in p.stderr, "verbose: 115")
    check("scan 117: changed" in p.stderr, "verbose: 117 (status file)")
    check(p.stdout == text, "stdout mode prints the same rows")

    # nothing new: nothing written, the file is untouched
    before = os.stat(out)
    p = run("collect", "receivers", d, "--out", out)
    check(p.returncode == 0 and "0 written, 4 pending, 4 bad, 8 already"
          in p.stderr, "rerun: %s" % p.stderr)
    check(read_rows(out) == text and os.stat(out).st_mtime_ns ==
          before.st_mtime_ns, "rerun leaves the file alone")

    # --strict: rows are still written, exit 65
    p = run("collect", "receivers", d, "--out", os.path.join(tmp, "strict.csv"),
            "--strict")
    check(p.returncode == 65, "strict: exit %d" % p.returncode)
    check(read_rows(os.path.join(tmp, "strict.csv")) == text,
          "strict: rows written anyway")

    # complete the pending and bad scans: they appear on the next run, in
    # scan order, after the rows already there
    make_scan(d, 110, [None, None, None, good[3]])
    for n, r in ((111, 2), (112, 1), (113, 3), (114, 0)):
        write(os.path.join(d, status_name(r, n)),
              '{"time": "2023-10-13T17:00:0%d.25Z"}' % r)
        settle(d, status_name(r, n))
    settle(d, status_name(1, 117))
    last = os.path.join(d, data_names(115)[71])
    os.utime(last, ns=(mt(115, 71), mt(115, 71)))
    make_scan(d, 116, [None] * 4, [mt(116, k) for k in range(72)])
    p = run("collect", "receivers", d, "--out", out)
    check(p.returncode == 0 and "8 written, 0 pending, 0 bad, 8 already"
          in p.stderr, "completion run: %s" % p.stderr)
    more = []
    for n in range(110, 118):
        if n in (110, 115, 116, 117):
            times = good
        else:
            times = list(good)
            r = {111: 2, 112: 1, 113: 3, 114: 0}[n]
            times[r] = "2023-10-13T17:00:0%d.25Z" % r
        more.append(",".join([str(n)] + [fmt_utc(utc_ns(t)) for t in times] +
                             [fmt_utc(max(mt(n, k) for k in range(72)))]))
    more = [m for m in more]
    check(read_rows(out) == text + "\n".join(more) + "\n",
          "completion run appends in scan order:\n" + read_rows(out))

    # --since, --receivers, --no-data
    p = run("collect", "receivers", d, "--out", "-", "--since", "105")
    rows = p.stdout.splitlines()
    check(p.returncode == 0 and [r.split(",")[0] for r in rows[1:]] ==
          [str(n) for n in (105, 106, 107, 110, 111, 112, 113, 114, 115, 116,
                            117)],
          "--since 105: %s" % rows)
    p = run("collect", "receivers", d, "--out", "-", "--receivers", "2",
            "--no-data", "--since", "117")
    check(p.stdout == "scan_number,time0,time1\n117,%s,%s\n"
          % (fmt_utc(utc_ns(good[0])), fmt_utc(utc_ns(good[1]))),
          "--receivers 2 --no-data: %r" % p.stdout)
    # --no-data still waits for status files to settle
    nd = os.path.join(tmp, "nodata")
    os.mkdir(nd)
    for r in range(4):
        write(os.path.join(nd, status_name(r, 9)), '{"time": "%s"}' % good[0])
    p = run("collect", "receivers", nd, "--out", "-", "--no-data")
    check(p.stdout == "scan_number,time0,time1,time2,time3\n" and
          "1 pending" in p.stderr, "--no-data settles: %r" % p.stderr)
    p = run("collect", "receivers", d, "--out", out, "--receivers", "3")
    check(p.returncode == 65 and out in p.stderr and "header" in p.stderr,
          "another shape on the same file is exit 65: %s" % p.stderr)
    check(read_rows(out) == text + "\n".join(more) + "\n",
          "a refused run leaves the file alone")

    # --tz for naive status times
    tzd = os.path.join(tmp, "tz")
    os.mkdir(tzd)
    make_scan(tzd, 1, ["2023-11-05 01:30:00"] * 4, [mt(1, 0)])
    p = run("collect", "receivers", tzd, "--out", "-", "--tz",
            "America/Los_Angeles")
    check(p.stdout.splitlines()[1].split(",")[1] == "2023-11-05T08:30:00+00:00",
          "--tz: ambiguous 01:30 is the first (PDT): %s" % p.stdout)

    # a torn last line is cut and its scan written again, once
    full = read_rows(out)
    lines = full.splitlines(keepends=True)
    torn = "".join(lines[:-1]) + lines[-1][:25]
    write(out, torn)
    p = run("collect", "receivers", d, "--out", out)
    check(p.returncode == 0 and "torn last line" in p.stderr and
          "1 written" in p.stderr, "torn line repaired: %s" % p.stderr)
    check(read_rows(out) == full, "after repair the file is whole again")
    # a whole row that only lacks its newline is kept (its files may be
    # gone by now), not cut
    write(out, full[:-1])
    p = run("collect", "receivers", d, "--out", out)
    check(read_rows(out) == full and "lacked a newline" in p.stderr and
          " 0 written" in p.stderr, "whole last row kept: %s" % p.stderr)
    # ... while a row cut inside its last time is cut and written again
    write(out, full[:-4])
    p = run("collect", "receivers", d, "--out", out)
    check(read_rows(out) == full and "torn last line" in p.stderr and
          "1 written" in p.stderr, "cut in the last time: %s" % p.stderr)
    # a header torn by a kill at the very start
    write(out, HEADER[:10])
    p = run("collect", "receivers", d, "--out", out)
    check(p.returncode == 0 and valid_csv(read_rows(out))[0] and
          len(read_rows(out).splitlines()) == 1 + 16, "torn header: %s"
          % p.stderr)

    # a damaged row in the middle is an error, and nothing is touched
    bad = full.replace("\n105,", "\nxyz,", 1)
    write(out, bad)
    p = run("collect", "receivers", d, "--out", out)
    check(p.returncode == 65 and "%s:7" % out in p.stderr,
          "damaged middle row: exit %d %s" % (p.returncode, p.stderr))
    check(read_rows(out) == bad, "damaged file left as is")

    # a file that is not ours is refused before anything in it is touched
    foreign = os.path.join(tmp, "foreign.csv")
    write(foreign, "name,value\nalpha,1\nbeta,2")
    p = run("collect", "receivers", d, "--out", foreign)
    check(p.returncode == 65 and "header" in p.stderr and
          read_rows(foreign) == "name,value\nalpha,1\nbeta,2",
          "foreign file untouched: %d %s" % (p.returncode, p.stderr))
    # bug: a foreign file with no newline at all was "repaired" as a torn
    # line (cut to nothing) and exit 0; only a prefix of our header is ours
    for i, body in enumerate(["precious notes", "scan_number,time0,X",
                              HEADER + ",extra", "x" * 5000]):
        notes = os.path.join(tmp, "notes%d.csv" % i)
        write(notes, body)
        p = run("collect", "receivers", d, "--out", notes)
        check(p.returncode == 65 and "%s:1" % notes in p.stderr and
              read_rows(notes) == body,
              "foreign last line without newline is not repaired as torn: "
              "%r -> %d %s" % (body[:30], p.returncode, p.stderr))

    # odd directory entries: a FIFO named like a status file must not hang
    # the run; a directory named like a data file is not data
    odd = os.path.join(tmp, "odd")
    os.mkdir(odd)
    make_scan(odd, 130, good[:3] + [None], [mt(130, 0)])
    os.mkfifo(os.path.join(odd, status_name(3, 130)))
    make_scan(odd, 131, good, None)
    os.mkdir(os.path.join(odd, data_names(131)[0]))
    p = run("collect", "receivers", odd, "--out", "-", "-q", timeout=20)
    check(p.returncode == 0 and "not a regular file" in p.stderr and
          status_name(3, 130) in p.stderr and p.stdout == HEADER + "\n",
          "FIFO and directory: %d %r %r" % (p.returncode, p.stdout, p.stderr))
    check("collect receivers:" not in p.stderr,
          "-q drops the summary but keeps warnings: %r" % p.stderr)
    p = run("collect", "receivers", odd, "--out", "-", "-q", "--strict",
            timeout=20)
    check(p.returncode == 65 and status_name(3, 130) in p.stderr,
          "-q --strict names the file: %r" % p.stderr)

    # usage and input errors
    p = run("collect", "receivers", os.path.join(tmp, "nope"), "--out",
            os.path.join(tmp, "never.csv"))
    check(p.returncode == 66 and os.path.join(tmp, "nope") in p.stderr,
          "missing DIR: exit %d %s" % (p.returncode, p.stderr))
    check(not os.path.exists(os.path.join(tmp, "never.csv")),
          "missing DIR: no output file made")
    p = run("collect", "receivers", d)
    check(p.returncode == 64 and "--out" in p.stderr, "no --out: 64")
    p = run("collect", "receivers", d, "--out", "-", "--receivers", "0")
    check(p.returncode == 64, "--receivers 0: 64")
    p = run("collect", "receivers", d, "--out", "-", "--settle", "-1")
    check(p.returncode == 64, "--settle -1: 64")


def test_lock(tmp):
    d = os.path.join(tmp, "acq")
    os.mkdir(d)
    out = os.path.join(tmp, "out.csv")
    alias = os.path.join(tmp, "alias.csv")
    make_scan(d, 1, ["2023-10-13T17:00:00Z"] * 4, [mt(1, 0)])
    # receivers: the lock is on the output file itself, so another name
    # for it (a symlink here) meets the same lock
    write(out, HEADER + "\n")
    os.symlink(out, alias)
    fd = os.open(out, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    for name in (out, alias):
        t0 = time.monotonic()
        p = run("collect", "receivers", d, "--out", name)
        check(p.returncode == 75 and "--wait" in p.stderr,
              "lock held (%s): exit %d %s" % (name, p.returncode, p.stderr))
        check(time.monotonic() - t0 < 5, "lock held: exit at once")
    check(read_rows(out) == HEADER + "\n", "lock held: output unchanged")
    threading.Timer(0.5, lambda: os.close(fd)).start()
    t0 = time.monotonic()
    p = run("collect", "receivers", d, "--out", alias, "--wait")
    check(p.returncode == 0 and time.monotonic() - t0 >= 0.4,
          "--wait blocks, then runs: %d %s" % (p.returncode, p.stderr))
    check(len(read_rows(out).splitlines()) == 2, "--wait wrote the row")
    check(os.path.islink(alias), "the symlink is still a symlink")

    # h5: the file is replaced by rename, so the lock is OUT.lock, named
    # after the real path
    h5d = os.path.join(tmp, "counted")
    os.mkdir(h5d)
    p5 = os.path.join(h5d, "FOURD_231013_0945_02209_02709.h5")
    write(p5, "")
    os.utime(p5, ns=(mt(1, 0), mt(1, 0)))
    real = os.path.join(tmp, "h5.csv")
    write(real, "distiller_id,scan_number,datetime\n")
    h5alias = os.path.join(tmp, "h5alias.csv")
    os.symlink(real, h5alias)
    fd = os.open(real + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    p = run("collect", "h5", h5d, "--out", h5alias)
    check(p.returncode == 75, "h5 lock held via an alias: %d %s"
          % (p.returncode, p.stderr))
    os.close(fd)
    p = run("collect", "h5", h5d, "--out", h5alias)
    check(p.returncode == 0 and os.path.islink(h5alias) and
          len(read_rows(real).splitlines()) == 2,
          "h5 writes through the symlink: %s" % p.stderr)


def grow(d, first, count, rng, complete_rows):
    """Add COUNT scans from FIRST; some incomplete (completed on a later
    call).  Records the rows of complete scans."""
    for n in range(first, first + count):
        times = [fmt_utc(BASE + (n * 4 + r) * 10**9 + rng.randrange(10**9))
                 for r in range(4)]
        row = make_scan(d, n, times, [mt(n, k) for k in range(72)])
        complete_rows[n] = row


def check_state(out, complete_rows, where):
    text = read_rows(out)
    ok, why = valid_csv(text)
    check(ok, "%s: invalid CSV: %s" % (where, why))
    rows = text.splitlines()[1:]
    scans = [int(r.split(",")[0]) for r in rows]
    check(len(scans) == len(set(scans)), "%s: duplicate scan" % where)
    check(set(scans) == set(complete_rows), "%s: scans %s missing, %s extra"
          % (where, sorted(set(complete_rows) - set(scans))[:5],
             sorted(set(scans) - set(complete_rows))[:5]))
    for r in rows:
        n = int(r.split(",")[0])
        if r != complete_rows.get(n):
            check(False, "%s: row %d is %r, want %r" % (where, n, r,
                                                         complete_rows.get(n)))
            break
    return text


def test_crash(tmp):
    """SIGKILL collect receivers at random instants, 200+ times, over a
    directory that keeps growing; after each kill the next run must leave a
    valid file with every complete scan exactly once."""
    rng = random.Random(20261122)
    d = os.path.join(tmp, "acq")
    os.mkdir(d)
    out = os.path.join(tmp, "out.csv")
    complete = {}
    grow(d, 1, 200, rng, complete)
    # time a full run to spread the kills over it
    probe = os.path.join(tmp, "probe.csv")
    spans = []
    for _ in range(3):
        t0 = time.monotonic()
        run("collect", "receivers", d, "--out", probe, "--settle", "0")
        spans.append(time.monotonic() - t0)
        os.unlink(probe)
    full = sorted(spans)[1]
    kills = torn = i = 0
    nxt = 201
    while kills < 200 and i < 800:
        i += 1
        if i % 3 == 0:
            # new scans: written by the killed run or by the next one
            k = rng.randrange(1, 12)
            grow(d, nxt, k, rng, complete)
            nxt += k
        # start the killed run from an earlier valid state of the file (a
        # prefix of its rows, or no file), so it has rows to append
        if os.path.exists(out):
            x = rng.random()
            if x < 0.1:
                os.unlink(out)
            elif x < 0.8:
                lines = read_rows(out).splitlines(keepends=True)
                write(out, "".join(lines[:rng.randrange(1, len(lines) + 1)]))
        proc = subprocess.Popen([BIN, "collect", "receivers", d, "--out", out,
                                 "--settle", "0", "-q"],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, full * 0.9))
        if proc.poll() is None:
            kills += 1
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        p = run("collect", "receivers", d, "--out", out, "--settle", "0")
        if "torn last line" in p.stderr:
            torn += 1
        check(p.returncode == 0, "crash %d: next run exit %d %s"
              % (i, p.returncode, p.stderr))
        check_state(out, complete, "crash %d" % i)
        leftovers = [f for f in os.listdir(tmp) if f.startswith(".")]
        check(not leftovers, "crash %d: temp files %s" % (i, leftovers))
        if FAILS:
            break
    print("crash: %d runs killed while running (of %d), %d torn lines "
          "repaired, %d scans, a full run takes %.0f ms"
          % (kills, i, torn, len(complete), full * 1000))
    check(kills >= 200, "at least 200 kills landed while running (%d)" % kills)


def test_concurrency(tmp):
    rng = random.Random(7)
    d = os.path.join(tmp, "acq")
    os.mkdir(d)
    out = os.path.join(tmp, "out.csv")
    complete = {}
    grow(d, 1, 400, rng, complete)
    for round_ in range(3):
        if round_:
            grow(d, 401 + (round_ - 1) * 50, 50, rng, complete)
        procs = [subprocess.Popen([BIN, "collect", "receivers", d, "--out",
                                   out, "--settle", "0"],
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for _ in range(10)]
        res = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
        codes = sorted(c for c, _ in res)
        check(all(c in (0, 75) for c in codes), "concurrency: exits %s" % codes)
        check(codes.count(0) >= 1, "concurrency: a winner")
        check(codes.count(75) >= 1, "concurrency: losers exit 75 (%s)" % codes)
        writers = [e for c, e in res if c == 0 and " 0 written" not in e]
        check(len(writers) == 1, "concurrency: one run wrote (%d)" % len(writers))
        check_state(out, complete, "concurrency round %d" % round_)
        print("concurrency round %d: exits %s" % (round_, codes))


def as_nobody(tmp):
    """Run the binary as an unprivileged user when we are root (root reads
    anything).  Returns (prefix argv, binary path)."""
    if os.geteuid() != 0:
        return [], BIN
    setup_rule.need("cli-collect-" + MODE, ["util-linux"])    # setpriv
    b = os.path.join(tmp, "streamtime")
    shutil.copy(BIN, b)
    os.chmod(tmp, 0o755)
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
            "--reset-env"], b


def test_fs(tmp):
    os.chmod(tmp, 0o755)
    pre, b = as_nobody(tmp)
    env = dict(os.environ)

    def go(*args):
        return subprocess.run(pre + [b, *args], capture_output=True, text=True,
                              timeout=60, env=env)

    d = os.path.join(tmp, "acq")
    os.mkdir(d)
    good = ["2023-10-13T17:00:00Z"] * 4
    make_scan(d, 1, good, [mt(1, 0)])
    make_scan(d, 2, good, [mt(2, 0)])
    locked = os.path.join(d, status_name(1, 2))
    os.chmod(locked, 0)
    for f in os.listdir(d):
        if f != status_name(1, 2):
            os.chmod(os.path.join(d, f), 0o644)
    os.chmod(d, 0o755)
    outd = os.path.join(tmp, "outd")
    os.mkdir(outd, 0o777)
    os.chmod(outd, 0o777)
    out = os.path.join(outd, "out.csv")
    p = go("collect", "receivers", d, "--out", out)
    check(p.returncode == 0 and locked in p.stderr and
          "Permission denied" in p.stderr,
          "unreadable status file is named: %d %s" % (p.returncode, p.stderr))
    check("1 written, 0 pending, 1 bad" in p.stderr, "fs: summary " + p.stderr)

    # an unreadable directory
    hidden = os.path.join(tmp, "hidden")
    os.mkdir(hidden, 0o700)
    os.chmod(hidden, 0o700 if pre else 0)
    if pre:
        os.chown(hidden, 0, 0)
    p = go("collect", "receivers", hidden, "--out", "-")
    check(p.returncode == 66 and hidden in p.stderr and
          "Permission denied" in p.stderr,
          "unreadable directory: %d %s" % (p.returncode, p.stderr))

    # an output directory that is not writable: 73, nothing left behind
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    os.chmod(ro, 0o555)
    for what, args in (("receivers", [d]), ("h5", [d])):
        p = go("collect", what, *args, "--out", os.path.join(ro, "x.csv"))
        check(p.returncode == 73 and os.path.join(ro, "x.csv") in p.stderr,
              "read-only output dir (%s): %d %s" % (what, p.returncode, p.stderr))
        check(os.listdir(ro) == [], "read-only output dir (%s): left %s"
              % (what, os.listdir(ro)))
    # h5 into a directory where the lock can be made but no temporary:
    # the existing file stays as it was
    h5d = os.path.join(tmp, "h5")
    os.mkdir(h5d)
    os.chmod(h5d, 0o755)
    p5 = os.path.join(h5d, "FOURD_231013_0945_02209_02709.h5")
    write(p5, "")
    os.utime(p5, ns=(mt(1, 0), mt(1, 0)))
    os.chmod(p5, 0o644)
    ro2 = os.path.join(tmp, "ro2")
    os.mkdir(ro2)
    write(os.path.join(ro2, "t.csv"), "distiller_id,scan_number,datetime\n")
    write(os.path.join(ro2, "t.csv.lock"), "")
    os.chmod(os.path.join(ro2, "t.csv.lock"), 0o666)
    os.chmod(ro2, 0o555)
    p = go("collect", "h5", h5d, "--out", os.path.join(ro2, "t.csv"))
    if pre or os.geteuid() != 0:
        check(p.returncode == 73, "h5 no temp possible: %d %s"
              % (p.returncode, p.stderr))
        check(sorted(os.listdir(ro2)) == ["t.csv", "t.csv.lock"],
              "h5 no temp possible: left %s" % os.listdir(ro2))
        with open(os.path.join(ro2, "t.csv")) as f:
            check(f.read() == "distiller_id,scan_number,datetime\n",
                  "h5: old file intact")
    # an output file that is not writable
    rof = os.path.join(outd, "ro.csv")
    write(rof, HEADER + "\n")
    os.chmod(rof, 0o444)
    p = go("collect", "receivers", d, "--out", rof)
    check(p.returncode == 73 and rof in p.stderr,
          "read-only output file: %d %s" % (p.returncode, p.stderr))


def test_h5(tmp):
    d = os.path.join(tmp, "counted")
    os.mkdir(d)
    la = zoneinfo.ZoneInfo("America/Los_Angeles")

    def h5(name, utc):
        p = os.path.join(d, name)
        write(p, "")
        ns = utc_ns(utc)
        os.utime(p, ns=(ns, ns))
        return ns

    files = {
        # key: (id as written, scan) -> mtime
        ("02209", 2709): h5("FOURD_231013_0945_02209_02709.h5",
                            "2023-10-13T16:45:14Z"),
        ("02210", 2710): h5("FOURD_231013_0945_02210_02710.h5",
                            "2023-10-13T16:45:18.25Z"),
        # DST end: 01:30 happens twice in Los Angeles
        ("03001", 3001): h5("FOURD_231105_0129_03001_03001.h5",
                            "2023-11-05T08:30:00Z"),
        ("03002", 3002): h5("FOURD_231105_0129_03002_03002.h5",
                            "2023-11-05T09:30:00Z"),
        # DST start
        ("03003", 3003): h5("FOURD_230312_0159_03003_03003.h5",
                            "2023-03-12T10:30:00Z"),
        # a suffix variant alone, and a scan with both forms
        ("04699", 4699): h5("FOURD_231014_1010_04699_04699_electrons.h5",
                            "2023-10-14T17:10:05Z"),
        ("01999", 2800): h5("FOURD_231013_1200_01999_02800.h5",
                            "2023-10-13T19:00:07Z"),
    }
    h5("FOURD_231013_1200_01999_02800_electrons.h5", "2023-10-13T19:00:09Z")
    # ids that sort differently as strings and numbers never happen with
    # zero padding; a 6-digit id does
    files[("100000", 5)] = h5("FOURD_231013_1200_100000_00005.h5",
                              "2023-10-13T19:01:00Z")
    for name in ["FOURD_231013_0945_00000_02711.h5",      # unknown id
                 "FOURD_231013_0945_02212_02712.h5.tmp",
                 "FOURD_2310_0945_02213_02713.h5",
                 "FOURD_231013_0945_02214_02714_.h5",
                 "FOURD_231013_0945_02215.h5",
                 "fourd_231013_0945_02216_02716.h5",
                 "FOURD_231013_0945_02217_02717.H5"]:
        h5(name, "2023-10-13T16:45:14Z")

    def want(naive, keys):
        lines = ["distiller_id,scan_number,datetime"]
        for k in sorted(keys, key=lambda k: (int(k[0]), k[1])):
            ns = files[k]
            if naive:
                t = dt.datetime.fromtimestamp(ns // 10**9, la)
                s = t.strftime("%Y-%m-%d %H:%M:%S")
                if ns % 10**9:
                    s += ".%06d" % (ns % 10**9 // 1000)
            else:
                s = fmt_utc(ns)
            lines.append("%s,%d,%s" % (k[0], k[1], s))
        return "\n".join(lines) + "\n"

    out = os.path.join(tmp, "h5.csv")
    p = run("collect", "h5", d, "--out", out, "-v")
    check(p.returncode == 0, "h5: exit %d %s" % (p.returncode, p.stderr))
    check(read_rows(out) == want(False, files), "h5 UTC rows:\n" +
          read_rows(out) + "want:\n" + want(False, files))
    check("1 file(s) with distiller_id 00000 skipped" in p.stderr,
          "h5: 00000 said with -v: " + p.stderr)
    check("8 written, 0 pending, 0 bad, 0 already" in p.stderr,
          "h5 summary: " + p.stderr)

    naive = os.path.join(tmp, "naive.csv")
    p = run("collect", "h5", d, "--out", naive, "--tz", "America/Los_Angeles",
            "--naive")
    got = read_rows(naive)
    check(got == want(True, files), "h5 naive rows:\n" + got + "want:\n" +
          want(True, files))
    check("03001,3001,2023-11-05 01:30:00" in got and
          "03002,3002,2023-11-05 01:30:00" in got,
          "naive across the DST end: both read 01:30 (PDT, then PST)")
    check("03003,3003,2023-03-12 03:30:00" in got, "naive after DST start")
    p = run("collect", "h5", d, "--out", naive)
    check(p.returncode == 65 and "naive" in p.stderr,
          "UTC run on a naive file: %d %s" % (p.returncode, p.stderr))
    p = run("collect", "h5", d, "--out", "-", "--naive")
    check(p.returncode == 64, "--naive without --tz: 64")

    # range
    p = run("collect", "h5", d, "--out", "-", "--range", "2709-2800")
    check(p.stdout == want(False, [k for k in files if 2709 <= k[1] <= 2800]),
          "h5 --range: " + p.stdout)
    p = run("collect", "h5", d, "--out", "-", "--range", "9-1")
    check(p.returncode == 64, "--range 9-1: 64")
    p = run("collect", "h5", d, "--out", "-", "--range", "3001")
    check(p.stdout == want(False, [("03001", 3001)]), "--range N: " + p.stdout)

    # several directories (one per day at NERSC); a directory named like a
    # counted file is not one
    d2 = os.path.join(tmp, "counted2")
    os.mkdir(d2)
    p2 = os.path.join(d2, "FOURD_231014_0800_05000_05000.h5")
    write(p2, "")
    os.utime(p2, ns=(files[("02209", 2709)],) * 2)
    os.mkdir(os.path.join(d2, "FOURD_231014_0800_05001_05001.h5"))
    p = run("collect", "h5", d, d2, "--out", "-")
    both = dict(files)
    both[("05000", 5000)] = files[("02209", 2709)]
    lines = p.stdout.splitlines()
    check(len(lines) == len(both) + 1 and
          lines[-1] == "100000,5,%s" % fmt_utc(files[("100000", 5)]) and
          "05000,5000,%s" % fmt_utc(files[("02209", 2709)]) in lines and
          not any(l.startswith("05001,") for l in lines),
          "h5 over two directories: " + p.stdout)

    # incremental: a new file is merged in sorted, a vanished file's row
    # stays, nothing new leaves the file alone
    before = read_rows(out)
    st = os.stat(out)
    p = run("collect", "h5", d, "--out", out)
    check(p.returncode == 0 and read_rows(out) == before and
          os.stat(out).st_ino == st.st_ino, "h5 rerun leaves the file alone")
    os.unlink(os.path.join(d, "FOURD_231013_0945_02209_02709.h5"))
    files[("02100", 2600)] = h5("FOURD_231013_0900_02100_02600.h5",
                                "2023-10-13T16:00:00.000000123Z")
    p = run("collect", "h5", d, "--out", out)
    check(p.returncode == 0 and "1 written" in p.stderr and
          "8 already" in p.stderr, "h5 incremental: " + p.stderr)
    check(read_rows(out) == want(False, files), "h5 merged:\n" + read_rows(out))
    # still being written: left for the next run
    files_now = os.path.join(d, "FOURD_231013_0900_02101_02601.h5")
    write(files_now, "")
    p = run("collect", "h5", d, "--out", out)
    check("0 written, 1 pending" in p.stderr, "h5 settle: " + p.stderr)
    check(not [f for f in os.listdir(tmp) if f.startswith(".")],
          "h5: no temp files")

    # bug: invalid existing rows of a collect h5 output were kept and
    # carried into the new file; now 65 naming file and line, untouched
    good_row = "02100,2600,2023-10-13T16:00:00+00:00\n"
    for body, line in [
            ("02100,2600,garbage\n", 2),
            (good_row + "02101,-5,2023-10-13T16:00:00+00:00\n", 3),
            (good_row + "x2101,5,2023-10-13T16:00:00+00:00\n", 3),
            (good_row + "02101,5,2023-10-13T16:00:00\n", 3),
            (good_row + "02101,5,2023-13-40T16:00:00+00:00\n", 3),
            (good_row + good_row, 3)]:
        bad = os.path.join(tmp, "badrows.csv")
        text = "distiller_id,scan_number,datetime\n" + body
        write(bad, text)
        p = run("collect", "h5", d, "--out", bad)
        check(p.returncode == 65 and "%s:%d" % (bad, line) in p.stderr and
              read_rows(bad) == text,
              "invalid existing h5 rows refused: %r -> %d %s"
              % (body, p.returncode, p.stderr))
    extra = os.path.join(tmp, "extracol.csv")
    text = "distiller_id,scan_number,datetime,notes\n" + good_row[:-1] + ",x\n"
    write(extra, text)
    p = run("collect", "h5", d, "--out", extra)
    check(p.returncode == 65 and extra in p.stderr and read_rows(extra) == text,
          "an h5 output with a column we would drop is refused: %d %s"
          % (p.returncode, p.stderr))


def main():
    tmp = tempfile.mkdtemp(prefix="st-collect-")
    try:
        {"correctness": lambda: (test_correctness(tmp), test_lock(
            os.path.join(tmp, "lock") if os.mkdir(os.path.join(tmp, "lock"))
            is None else None)),
         "crash": lambda: test_crash(tmp),
         "concurrency": lambda: test_concurrency(tmp),
         "fs": lambda: test_fs(tmp),
         "h5": lambda: test_h5(tmp)}[MODE]()
    finally:
        for root, dirs, _ in os.walk(tmp):
            for x in dirs:
                os.chmod(os.path.join(root, x), 0o755)
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(report(MODE))


if __name__ == "__main__":
    main()
