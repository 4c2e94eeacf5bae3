#!/usr/bin/env python3
"""Write a large system-trace directory in the seed's layout (SPEC 5.11).

  systrace_gen.py DIR [--lines N] [--pids P] [--files F] [--seed S]

N lines in all (default 10,000,000): 50 % trace_read.out, 30 %
trace_write.out, 10 % trace_openat.out, 10 % trace_close.out, plus a
trace_time_align.out over the same span.  The calls are spread over P
processes and F files, ten microseconds apart, with the faults real traces
have (about one line in 100,000 interleaved or cut), so that the reader's
slow path is exercised at a realistic rate.  Deterministic for a seed.
"""
import argparse
import os
import random

BOOT_NS = 3_000_000_000_000  # 50 minutes after boot


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--lines", type=int, default=10_000_000)
    ap.add_argument("--pids", type=int, default=16)
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    os.makedirs(a.dir, exist_ok=True)
    pids = [100000 + 17 * i for i in range(a.pids)]
    files = ["/data/train/img_%06d.npz" % i for i in range(a.files)]
    share = {"read": 0.5, "write": 0.3, "openat": 0.1, "close": 0.1}
    heads = {
        "read": "TIMESTAMP PID FD RET (B) LAT(ns) FILENAME",
        "write": "TIMESTAMP PID FD BUFFER ADDR OFFSET REQ (B) RET (B) "
                 "LAT(ns) FILENAME",
        "openat": "TIMESTAMP PID FD LAT(ns) FULLPATH FILENAME",
        "close": "TIMESTAMP PID FD LAT(ns) FILENAME",
    }
    span = 0
    for kind, frac in share.items():
        n = int(a.lines * frac)
        t = BOOT_NS + rnd.randrange(1000)
        with open(os.path.join(a.dir, "trace_%s.out" % kind), "w",
                  buffering=1 << 20) as f:
            f.write("Attaching 4 probes...\n%s\n" % heads[kind])
            out = []
            for i in range(n):
                t += 10_000 + rnd.randrange(50)
                pid = pids[i % len(pids)]
                fd = 3 + (i % 40)
                path = files[(i * 7) % len(files)]
                lat = 2_000 + rnd.randrange(40_000)
                if kind == "read":
                    line = "%d %d %d %d %d %s" % (t, pid, fd, 131072, lat,
                                                   os.path.basename(path))
                elif kind == "write":
                    line = "%d %d %d 0x7f%010x %d %d %d %d %s" % (
                        t, pid, fd, i & 0xffffffffff, i * 4096, 4096, 4096,
                        lat, os.path.basename(path))
                elif kind == "openat":
                    line = "%d %d %d %d %s %s" % (t, pid, fd, lat, path,
                                                   os.path.basename(path))
                else:
                    line = "%d %d %d %d %s" % (t, pid, fd, lat,
                                                os.path.basename(path))
                if i % 100_003 == 99_999:     # two CPUs' lines run together
                    line = line[:len(line) // 2] + str(t + 7) + " " + line
                out.append(line)
                if len(out) == 10_000:
                    f.write("\n".join(out) + "\n")
                    out = []
            if out:
                f.write("\n".join(out) + "\n")
        span = max(span, t - BOOT_NS)
    with open(os.path.join(a.dir, "trace_time_align.out"), "w") as f:
        f.write("Attaching 1 probe...\nTIMESTAMP TIME\n")
        t = BOOT_NS - 400_000_000
        wall = 10 * 3600 + 15 * 60  # 10:15:00 local
        while t < BOOT_NS + span + 1_000_000_000:
            s = wall + (t - BOOT_NS + 400_000_000) // 1_000_000_000
            f.write("%d %02d:%02d:%02d\n" % (t, s // 3600 % 24, s // 60 % 60,
                                             s % 60))
            t += 100_000_000
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
