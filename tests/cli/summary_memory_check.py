#!/usr/bin/env python3
"""trace summary's memory against the trace (issue 27 item 4): it must not
grow with the events, and a distinct file name must cost little beyond
its text.

Pairs of traces written here, each read by `trace summary -j 1`; the peak
resident sizes of the two runs (getrusage of the child) differ by what the
larger one holds more of:
  - processes: 300 and 3,300 processes of 200 disjoint calls each (every
    process in a file of its own, as a rank's trace is).  The intervals of
    the processes read before are in the temporary file; what stays is a
    record per process: under 1 KiB each (each kept room for 256
    intervals, 4 KiB, before);
  - file names: 12,000 and 96,000 distinct names of 51 bytes, two events
    each, half of them named through FH hashes; the same fill of every
    table in both.  Under 160 bytes a name: its text once and the tables'
    ids (the text was held twice, by the reader and by the gathering,
    with 32 bytes of counters: about 280 bytes).
The summaries' counts are checked against the generator's.  Skipped (77)
for a build with AddressSanitizer, whose shadow and quarantine change
resident sizes.

usage: summary_memory_check.py STREAMTIME
"""
import gzip
import json
import os
import sys

from checks import check, run_in_tmp, sanitized

BIN = os.path.abspath(sys.argv[1])


def procs_trace(tmp, nprocs, per=200):
    """NPROCS files of a process each, PER disjoint calls; the paths."""
    paths = []
    for p in range(nprocs):
        path = os.path.join(tmp, "p%d-%05d.pfw.gz" % (nprocs, p))
        lines = []
        ts = 1000000 + p
        for i in range(per):
            lines.append('{"id":%d,"name":"read","cat":"POSIX","pid":%d,'
                         '"tid":%d,"ts":%d,"dur":%d,"ph":"X","args":'
                         '{"hostname":"h","ret":4}}\n'
                         % (i, 1000 + p, 1000 + p, ts, 3 + i % 5))
            ts += 20
        with gzip.open(path, "wt", compresslevel=1) as f:
            f.write("".join(lines))
        paths.append(path)
    return paths


def names_trace(tmp, n, every=False):
    """Two files naming N distinct files, twice each: inline (args.fname)
    and through FH hashes, half of them each, or EVERY file all of them;
    the paths."""
    tag = "e" if every else "h"
    plain = os.path.join(tmp, "n%d%s-plain.pfw.gz" % (n, tag))
    hashed = os.path.join(tmp, "n%d%s-hashed.pfw.gz" % (n, tag))
    names = ["/p/lustre1/dlio/data/train/img_%06d_of_%06d.npz" % (k, n)
             for k in range(n)]
    assert all(len(x) == 51 for x in names)
    with gzip.open(plain, "wt", compresslevel=1) as f:
        for k in range(n if every else n // 2):
            for r in range(2):
                f.write('{"id":%d,"name":"open","cat":"POSIX","pid":7,'
                        '"tid":7,"ts":%d,"dur":3,"ph":"X","args":'
                        '{"hostname":"h","fname":"%s"}}\n'
                        % (k, 10 * (2 * k + r), names[k]))
    with gzip.open(hashed, "wt", compresslevel=1) as f:
        for k in range(0 if every else n // 2, n):
            f.write('{"id":0,"name":"FH","cat":"dftracer","pid":8,"tid":8,'
                    '"ph":"M","args":{"name":"%s","value":%d}}\n'
                    % (names[k], 77000 + k))
            for r in range(2):
                f.write('{"id":%d,"name":"read","cat":"POSIX","pid":8,'
                        '"tid":8,"ts":%d,"dur":3,"ph":"X","args":'
                        '{"hhash":5,"fhash":%d,"ret":4}}\n'
                        % (k, 10 * (2 * k + r), 77000 + k))
    return [plain, hashed]


def peak_kb(paths, out, jobs=1):
    """The peak resident KB of trace summary -j JOBS --json of PATHS."""
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 2)
        os.execv(BIN, [BIN, "trace", "summary", "-q", "-j", str(jobs),
                       "--json", "--out", out] + paths)
    _, status, ru = os.wait4(pid, 0)
    check(os.waitstatus_to_exitcode(status) == 0,
          "summary: exit %d" % status)
    return ru.ru_maxrss


def body(tmp):
    out = os.path.join(tmp, "s.json")
    small, big = 300, 3300
    ka = peak_kb(procs_trace(tmp, small), out)
    check(json.load(open(out))["processes"] == small, "processes counted")
    kb = peak_kb(procs_trace(tmp, big), out)
    s = json.load(open(out))
    check(s["processes"] == big and s["events"] == big * 200,
          "processes and events counted: %s %s" % (s["processes"],
                                                   s["events"]))
    per = (kb - ka) * 1024.0 / (big - small)
    print("processes: peak %d KB, %d KB: %.0f bytes per process"
          % (ka, kb, per))
    check(per < 1024, "test_summary_memory_flat_in_processes: %.0f bytes "
          "per process (under 1024)" % per)

    small, big = 12000, 96000
    ka = peak_kb(names_trace(tmp, small), out)
    check(json.load(open(out))["files"] == small, "files counted")
    kb = peak_kb(names_trace(tmp, big), out)
    check(json.load(open(out))["files"] == big, "files counted")
    per = (kb - ka) * 1024.0 / (big - small)
    print("file names: peak %d KB, %d KB: %.0f bytes per name (51 of "
          "text)" % (ka, kb, per))
    check(per < 160, "test_summary_memory_per_file_name: %.0f bytes per "
          "distinct name of 51 bytes (under 160)" % per)

    # -j 2, each of the two files naming every name, one read by each
    # thread: the threads share one copy of the names
    ka = peak_kb(names_trace(tmp, small, every=True), out, 2)
    check(json.load(open(out))["files"] == small, "files counted (-j 2)")
    kb = peak_kb(names_trace(tmp, big, every=True), out, 2)
    check(json.load(open(out))["files"] == big, "files counted (-j 2)")
    per = (kb - ka) * 1024.0 / (big - small)
    print("file names, -j 2, every file naming all: peak %d KB, %d KB: "
          "%.0f bytes per name" % (ka, kb, per))
    check(per < 160, "test_summary_memory_names_once_per_run: %.0f bytes "
          "per distinct name with -j 2 (under 160)" % per)


if sanitized(BIN):
    print("summary-memory: skipped, a sanitized build")
    sys.exit(77)
sys.exit(run_in_tmp("summary-memory", body))
