#!/usr/bin/env python3
"""CLI regression: `clock probe` refuses implausible clock replies (issue 13).

usage: clock_reply_check.py STREAMTIME

A clock reply of INT64_MAX overflowed the offset arithmetic and was stored
as an offset of -1.8e12 ms with exit 0.  Each absurd reply must now be
dropped with a warning naming the target; a target left without samples
is not measured (exit 69, no row).  The responders here are exec: targets
speaking the wire format of include/streamtime/clock.h; ssh-date:// runs
through a stand-in ssh that drops the host and runs the loop locally.
"""
import csv
import io
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading

BIN = os.path.abspath(sys.argv[1])
HEADER = "measured_at,reference,target,offset_ms,delay_ms,bound_ms,samples,method"
from checks import check, report  # noqa: E402
INT64_MAX = 2**63 - 1

# A responder: reads 16-byte requests, answers each with the times MODE
# gives (every other reply is honest in the mode "alternate").
RESPONDER = r'''
import struct, sys, time
mode = sys.argv[1]
n = 0
while True:
    req = sys.stdin.buffer.read(16)
    if len(req) < 16:
        break
    now = time.time_ns()
    m = mode if mode != "alternate" else ("max" if n % 2 else "good")
    n += 1
    t2, t3 = {
        "good": (now, now),
        "max": (INT64_MAX, INT64_MAX),
        "backwards": (now, now - 5000000000),
        "far": (now + 200 * 365 * 86400 * 10**9,) * 2,
        "negdelay": (now, now + 10 * 10**9),
    }[m]
    sys.stdout.buffer.write(b"STCK\x01R\x00\x00" + req[8:16] +
                            struct.pack(">qqI", t2, t3, 1) + bytes(4))
    sys.stdout.buffer.flush()
'''.replace("INT64_MAX", str(INT64_MAX))


def probe(*args):
    p = subprocess.run([BIN, "clock", "probe", *args], capture_output=True,
                       text=True, timeout=120)
    rows = []
    if p.stdout.startswith(HEADER):
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
    return p, rows


def main():
    tmp = tempfile.mkdtemp(prefix="st-clock-reply-")
    try:
        resp = os.path.join(tmp, "responder.py")
        with open(resp, "w") as f:
            f.write(RESPONDER)
        # the honest responder is measured: the harness itself works
        p, rows = probe("ok=exec:%s %s good" % (sys.executable, resp),
                        "--samples", "3")
        check(p.returncode == 0 and len(rows) == 1 and
              abs(float(rows[0]["offset_ms"])) < 1000,
              "honest responder: %d %s %s" % (p.returncode, rows, p.stderr))
        for mode in ("max", "backwards", "far", "negdelay"):
            p, rows = probe("bad-%s=exec:%s %s %s" % (mode, sys.executable,
                                                      resp, mode),
                            "--samples", "3")
            check(p.returncode == 69 and rows == [] and
                  "bad-%s: not measured" % mode in p.stderr and
                  "implausible" in p.stderr,
                  "clock reply overflow: exec responder '%s' must be refused "
                  "(exit 69, no row, a message naming it): %d %s %s"
                  % (mode, p.returncode, rows, p.stderr))
        # INT64_MAX every other reply: the honest ones are kept, the others
        # dropped with a warning naming the target
        p, rows = probe("half=exec:%s %s alternate" % (sys.executable, resp),
                        "--samples", "4")
        check(p.returncode == 69 and len(rows) == 1 and
              rows[0]["samples"] == "2" and
              abs(float(rows[0]["offset_ms"])) < 1000 and
              "half: only 2 of 4 samples: 2 implausible replies" in p.stderr,
              "clock reply overflow: half INT64_MAX replies: %d %s %s"
              % (p.returncode, rows, p.stderr))

        # UDP: a server answering every request with INT64_MAX
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.0.1", 0))
        sock.settimeout(0.2)
        done = threading.Event()

        def serve():
            while not done.is_set():
                try:
                    req, peer = sock.recvfrom(100)
                except socket.timeout:
                    continue
                if len(req) == 16 and req.startswith(b"STCK\x01Q"):
                    sock.sendto(b"STCK\x01R\x00\x00" + req[8:16] +
                                struct.pack(">qqI", INT64_MAX, INT64_MAX, 1) +
                                bytes(4), peer)
        th = threading.Thread(target=serve)
        th.start()
        try:
            p, rows = probe("u=udp://127.0.0.1:%d" % sock.getsockname()[1],
                            "--samples", "2", "--sample-timeout", "2")
        finally:
            done.set()
            th.join()
            sock.close()
        check(p.returncode == 69 and rows == [] and
              "u: not measured" in p.stderr and "implausible" in p.stderr,
              "clock reply overflow: udp INT64_MAX must be refused (exit 69, "
              "no row, a message naming it): %d %s %s"
              % (p.returncode, rows, p.stderr))

        # ssh-date:// through a stand-in ssh (argv: HOST LOOP)
        ssh = os.path.join(tmp, "fake-ssh")
        with open(ssh, "w") as f:
            f.write('#!/bin/sh\nshift\nexec /bin/sh -c "$1"\n')
        os.chmod(ssh, 0o755)
        p, rows = probe("d=ssh-date://rec", "--ssh", ssh, "--samples", "2",
                        "--date-command", "date +%s%N")
        check(p.returncode == 0 and len(rows) == 1 and
              abs(float(rows[0]["offset_ms"])) < 1000,
              "honest ssh-date: %d %s %s" % (p.returncode, rows, p.stderr))
        for what, cmd in (("max", "echo %d" % INT64_MAX),
                          ("over", "echo 99999999999999999999"),
                          ("far", "echo 1"),
                          ("neg", "echo -1700000000000000000")):
            p, rows = probe("d=ssh-date://rec", "--ssh", ssh, "--samples", "2",
                            "--date-command", cmd)
            check(p.returncode == 69 and rows == [] and
                  "d: not measured" in p.stderr,
                  "clock reply overflow: ssh-date '%s' must be refused "
                  "(exit 69, no row, a message naming it): %d %s %s"
                  % (what, p.returncode, rows, p.stderr))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(report("clock-implausible-replies"))


if __name__ == "__main__":
    main()
