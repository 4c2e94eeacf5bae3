#!/usr/bin/env python3
"""trace summary's memory against the trace (issue 27 item 4): it must not
grow with the events, and a distinct file name must cost little beyond
its text.

Pairs of traces written here, each read by `trace summary -j 1`; the peak
resident sizes of the two runs (ru_maxrss, by tests/tools/peak_rss.c: a
child forked from this Python would count its 10 MB and more) differ by
what the larger one holds more of:
  - processes: 300 and 3,300 processes of 200 disjoint calls each (every
    process in a file of its own, as a rank's trace is).  The intervals of
    the processes read before are in the temporary file; what stays is a
    record per process: under 1 KiB each (each kept room for 256
    intervals, 4 KiB, before);
  - file names: 12,000 and 96,000 distinct names of 51 bytes, two events
    each, half of them named through FH hashes; the same fill of every
    table in both.  Under 65 bytes a name: its base name's 24 bytes once
    (the directory once for all), the tables' ids and the FH map (115
    bytes before, the whole text in a table and the files counted in
    another; 280 before that).  With -j 2 and each of the two files
    naming all of them, under 90: the threads share one copy (each
    thread held its own: 245 bytes a name).
And the libraries: a summary maps neither cairo nor libcurl nor libpq
(nor the 40 libraries they link), which are loaded when a figure is drawn
or a server asked (LD_DEBUG=files says what the loader maps); a figure
without a loadable cairo is an error (69) naming it, nothing written.
The summaries' counts are checked against the generator's.  Skipped (77)
for a build with AddressSanitizer, whose shadow and quarantine change
resident sizes.

usage: summary_memory_check.py STREAMTIME PEAK_RSS
"""
import gzip
import json
import os
import sys

from checks import check, run, run_in_tmp, sanitized

BIN = os.path.abspath(sys.argv[1])
PEAK = os.path.abspath(sys.argv[2])


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
    r = run(PEAK, BIN, "trace", "summary", "-q", "-j", str(jobs), "--json",
            "--out", out, *paths)
    last = r.stderr.splitlines()[-1:] or [""]
    check(r.returncode == 0 and last[0].startswith("peak_rss "),
          "summary: exit %d, %r" % (r.returncode, r.stderr[-300:]))
    return int(last[0].split()[1]) if last[0].startswith("peak_rss ") else 0


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

    # -j 1; then -j 2, each of the two files naming every name, one read
    # by each thread: the threads share one copy of the names
    for jobs, every, limit, name in (
            (1, False, 65, "test_summary_memory_per_file_name"),
            (2, True, 90, "test_summary_memory_names_once_per_run")):
        per = per_name(tmp, out, jobs, every)
        check(per < limit, "%s: %.0f bytes per distinct name of 51 bytes "
              "with -j %d (under %d)" % (name, per, jobs, limit))


def per_name(tmp, out, jobs, every, small=12000, big=96000):
    """What a distinct name costs: the peaks of SMALL and BIG names."""
    kb = []
    for n in (small, big):
        kb.append(peak_kb(names_trace(tmp, n, every), out, jobs))
        check(json.load(open(out))["files"] == n,
              "files counted (-j %d)" % jobs)
    per = (kb[1] - kb[0]) * 1024.0 / (big - small)
    print("file names, -j %d%s: peak %d KB, %d KB: %.0f bytes per name"
          % (jobs, ", every file naming all" if every else "", kb[0], kb[1],
             per))
    return per


def loaded(argv, env=None):
    """The libraries the loader maps for ARGV (their file names), and the
    run."""
    e = dict(os.environ, LD_DEBUG="files", **(env or {}))
    r = run(*argv, env=e)
    libs = set()
    for line in r.stderr.splitlines():
        at = line.find("file=")
        if at >= 0:
            libs.add(os.path.basename(line[at + 5:].split()[0]))
    return libs, r


def libraries(tmp):
    paths = procs_trace(tmp, 2, per=10)
    libs, r = loaded([BIN, "trace", "summary", "-q"] + paths)
    check(r.returncode == 0, "summary: exit %d" % r.returncode)
    check("libjansson.so.4" in libs and "libc.so.6" in libs,
          "LD_DEBUG lists what is loaded: %s" % sorted(libs))
    heavy = sorted(x for x in libs if x.split(".so")[0] in
                   ("libcairo", "libcurl", "libpq", "libgnutls",
                    "libcrypto", "libssl", "libX11", "libfreetype"))
    check(not heavy, "test_summary_loads_no_figure_libraries: trace "
          "summary maps %s" % heavy)
    if "+figures" not in run(BIN, "--version").stdout:
        return
    out = os.path.join(tmp, "fig")
    libs, r = loaded([BIN, "trace", "plot", "--out-dir", out, "--format",
                      "svg"] + paths)
    check(r.returncode == 0 and "libcairo.so.2" in libs,
          "trace plot loads cairo: exit %d, %s" % (r.returncode,
                                                   sorted(libs)))
    # a cairo that cannot be loaded (an empty file in its place)
    fake = os.path.join(tmp, "fakelib")
    os.mkdir(fake)
    open(os.path.join(fake, "libcairo.so.2"), "w").close()
    out = os.path.join(tmp, "fig2")
    r = run(BIN, "trace", "plot", "--out-dir", out, "--format", "svg",
            *paths, env=dict(os.environ, LD_LIBRARY_PATH=fake))
    check(r.returncode == 69 and "cannot load libcairo.so.2" in r.stderr
          and not (os.path.isdir(out) and os.listdir(out)),
          "test_plot_without_cairo_exits_69: exit %d, %r, %s" % (
              r.returncode, r.stderr,
              os.listdir(out) if os.path.isdir(out) else "no dir"))
    # a libpq that cannot be loaded: 69 naming it, and the --dsn's
    # password still seen (warned, wiped from the process list)
    open(os.path.join(fake, "libpq.so.5"), "w").close()
    r = run(BIN, "distiller", "jobs", "--out-dir", os.path.join(tmp, "dj"),
            "--dsn", "host=127.0.0.1 port=1 password=pw0 dbname=x",
            env=dict(os.environ, LD_LIBRARY_PATH=fake))
    check(r.returncode == 69 and "--dsn holds a password" in r.stderr and
          "pw0" not in r.stderr,
          "test_dsn_password_seen_without_libpq: exit %d, %r" % (
              r.returncode, r.stderr))


def everything(tmp):
    libraries(tmp)
    body(tmp)


if sanitized(BIN):
    print("summary-memory: skipped, a sanitized build")
    sys.exit(77)
sys.exit(run_in_tmp("summary-memory", everything))
