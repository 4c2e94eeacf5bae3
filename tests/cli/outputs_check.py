#!/usr/bin/env python3
"""CLI tests of how outputs are written: refusals of files that are not
ours, errors that name file and errno, temporaries left by kills, and the
all-or-nothing output set of `reproduce`.

usage: outputs_check.py STREAMTIME DATA_DIR

Every expected value is computed here (file contents, checksums), never
taken from the code under test.
"""
import hashlib
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1])
DATA = os.path.abspath(sys.argv[2])
FAILS = []
CHECKS = 0

CLOCK_HEADER = ("measured_at,reference,target,offset_ms,delay_ms,bound_ms,"
                "samples,method")


def check(cond, what):
    global CHECKS
    CHECKS += 1
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args, **kw):
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          timeout=kw.pop("timeout", 120), **kw)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def test_clock_foreign(tmp):
    """bug: `clock probe --out` cut a foreign file's only line as torn."""
    responder = "local=exec:%s clock responder" % BIN
    for i, body in enumerate(["precious notes", "measured_at,reference,x",
                              "a,b\nc,d\n", CLOCK_HEADER + ",extra\n1,2"]):
        out = os.path.join(tmp, "clock%d.csv" % i)
        write(out, body)
        p = run("clock", "probe", responder, "--samples", "2", "--out", out)
        check(p.returncode == 65 and "%s:1" % out in p.stderr and
              read(out) == body,
              "clock probe --out destroys a foreign file: %r -> %d %s"
              % (body[:30], p.returncode, p.stderr))
    # a header cut short by a kill is ours: rewritten, rows follow
    out = os.path.join(tmp, "clock-torn.csv")
    write(out, CLOCK_HEADER[:12])
    p = run("clock", "probe", responder, "--samples", "2", "--out", out)
    lines = read(out).splitlines()
    check(p.returncode == 0 and lines[0] == CLOCK_HEADER and len(lines) == 2
          and lines[1].endswith(",2,exec"),
          "clock probe --out: a torn header is repaired: %d %s %r"
          % (p.returncode, p.stderr, lines))


def test_empty_out_dir(tmp):
    """bug: `stats queue --out-dir ""` overflowed st_mkdir_p's buffer."""
    p = run("reproduce", "--data", DATA, "--out", os.path.join(tmp, "m"))
    check(p.returncode == 0, "reproduce for a merged file: %s" % p.stderr)
    merged = os.path.join(tmp, "m", "file_transfer", "merged_job_info.csv")
    p = run("stats", "queue", "--merged", merged, "--out-dir", "", cwd=tmp)
    check(p.returncode in (64, 73) and "empty" in p.stderr and
          "Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
          "st_mkdir_p(\"\") overflow: stats queue --out-dir '': %d %s"
          % (p.returncode, p.stderr))


def main():
    tmp = tempfile.mkdtemp(prefix="st-outputs-")
    try:
        test_clock_foreign(tmp)
        test_empty_out_dir(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("outputs: %d checks, %d failed" % (CHECKS, len(FAILS)))
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
