#!/usr/bin/env python3
"""trace timeline's memory per slice (issue 24 item 14e): docs/trace.md says
it holds 28 bytes a slice (24 for its time and track while the lanes are
found, 4 for its lane), and at its peak it held about 47 (qsort's merge
sort copies the 24 bytes, and the array grew by doubling).

Two traces written here, of 2,000 and 402,000 events over 8 threads of 3
processes, slices interleaved and overlapping (so the sort has work);
the peak resident size of each run (getrusage of the child) differs by
the slices' memory: per slice it must stay under 32 bytes.  Skipped
(77) for a build with AddressSanitizer, whose shadow and quarantine
change resident sizes.

usage: timeline_memory_check.py STREAMTIME
"""
import gzip
import os
import random
import resource
import sys

from checks import check, run_in_tmp, sanitized

BIN = os.path.abspath(sys.argv[1])


def trace(path, n):
    rnd = random.Random(7)
    with gzip.open(path, "wt", compresslevel=1) as f:
        for i in range(n):
            f.write('{"id":%d,"name":"read","cat":"POSIX","pid":%d,'
                    '"tid":%d,"ts":%d,"dur":%d,"ph":"X","args":'
                    '{"fname":"/f","ret":1}}\n' %
                    (i, 1 + i % 3, i % 8, 1000000 + 10 * i +
                     rnd.randint(0, 50), rnd.randint(1, 100)))


def peak_kb(path, out):
    """The peak resident KB of trace timeline on PATH."""
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 2)
        os.execv(BIN, [BIN, "trace", "timeline", path, "--max-events", "0",
                       "--out", out])
    _, status, ru = os.wait4(pid, 0)
    check(os.waitstatus_to_exitcode(status) == 0,
          "timeline of %s: exit %d" % (path, status))
    return ru.ru_maxrss


def body(tmp):
    small, big = 2000, 402000
    a, b = os.path.join(tmp, "a.pfw.gz"), os.path.join(tmp, "b.pfw.gz")
    trace(a, small)
    trace(b, big)
    ka = peak_kb(a, os.path.join(tmp, "a.json"))
    kb = peak_kb(b, os.path.join(tmp, "b.json"))
    per = (kb - ka) * 1024.0 / (big - small)
    print("peak %d KB, %d KB: %.1f bytes per slice" % (ka, kb, per))
    check(per < 32, "test_timeline_memory_per_slice_as_readme: %.1f bytes "
          "per slice (docs/trace.md: 28)" % per)


if sanitized(BIN):
    print("timeline-memory: skipped, a sanitized build")
    sys.exit(77)
sys.exit(run_in_tmp("timeline-memory", body))
