#!/usr/bin/env python3
"""A small training-like workload for the system-trace tests (issue 15).

It writes and reads files of known sizes in epochs, from the main thread, a
loader thread and a forked worker process, prints MLPerf `:::MLLOG` lines
(init, epoch N, eval, run) on stdout, and keeps its own record of every
read/write call it made: the truth the tests hold streamtime against.

  workload.py --dir DIR --truth FILE [--epochs N] [--files N] [--size B]
              [--chunk B] [--sleep S] [--split-mllog]

--split-mllog writes each MLLOG line in two write(2) calls, its text and
then its newline, as print(..., flush=True) does.

The truth file (JSON lines, written at the end) has one object per call:
  {"op": "read"|"write", "path": ABS, "bytes": N, "fd": FD, "pid": P,
   "tid": T, "real0_ns", "real1_ns", "mono0_ns", "mono1_ns"}
taken with CLOCK_REALTIME / CLOCK_MONOTONIC just before and just after the
system call, and one object per MLLOG line:
  {"op": "mllog", "key": K, "event_type": E, "time_ms": MS, "pid": P}
Python's os.read/os.write are one system call each for these sizes.
"""
import argparse
import json
import os
import sys
import threading
import time

REAL = time.CLOCK_REALTIME
MONO = time.CLOCK_MONOTONIC
lock = threading.Lock()
truth = []
SPLIT = [False]   # --split-mllog


def stamp():
    return time.clock_gettime_ns(REAL), time.clock_gettime_ns(MONO)


def record(op, path, n, fd, r0, m0, r1, m1):
    with lock:
        truth.append({"op": op, "path": os.path.abspath(path), "bytes": n,
                      "fd": fd, "pid": os.getpid(),
                      "tid": threading.get_native_id(),
                      "real0_ns": r0, "real1_ns": r1,
                      "mono0_ns": m0, "mono1_ns": m1})


def mllog(key, event_type, value=None, metadata=None):
    ms = time.time_ns() // 1000000
    obj = {"namespace": "", "time_ms": ms, "event_type": event_type,
           "key": key, "value": value, "metadata": metadata or {}}
    line = ":::MLLOG " + json.dumps(obj) + "\n"
    if SPLIT[0]:
        # as print(..., flush=True) does: the text, then the newline
        os.write(1, line[:-1].encode())
        os.write(1, b"\n")
    else:
        # one write(2) on fd 1, so the traced write carries time_ms
        os.write(1, line.encode())
    with lock:
        truth.append({"op": "mllog", "key": key, "event_type": event_type,
                      "time_ms": ms, "pid": os.getpid()})


def write_file(path, size, chunk):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    left = size
    while left > 0:
        buf = b"x" * min(chunk, left)
        r0, m0 = stamp()
        n = os.write(fd, buf)
        r1, m1 = stamp()
        record("write", path, n, fd, r0, m0, r1, m1)
        left -= n
    os.close(fd)


def read_file(path, chunk):
    fd = os.open(path, os.O_RDONLY)
    while True:
        r0, m0 = stamp()
        b = os.read(fd, chunk)
        r1, m1 = stamp()
        record("read", path, len(b), fd, r0, m0, r1, m1)
        if not b:
            break
    os.close(fd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--files", type=int, default=4)
    ap.add_argument("--size", type=int, default=3 * 65536 + 123)
    ap.add_argument("--chunk", type=int, default=65536)
    ap.add_argument("--sleep", type=float, default=0.02)
    ap.add_argument("--split-mllog", action="store_true")
    a = ap.parse_args()
    SPLIT[0] = a.split_mllog
    os.makedirs(a.dir, exist_ok=True)
    mllog("init_start", "INTERVAL_START")
    names = [os.path.join(a.dir, "sample_%03d.npz" % i) for i in range(a.files)]
    for p in names:
        write_file(p, a.size, a.chunk)
    mllog("init_stop", "INTERVAL_END")
    mllog("run_start", "INTERVAL_START")
    for e in range(1, a.epochs + 1):
        mllog("epoch_start", "INTERVAL_START", metadata={"epoch_num": e})
        # the loader thread reads the first half, the main thread the rest
        t = threading.Thread(target=lambda: [read_file(p, a.chunk)
                                             for p in names[:len(names) // 2]])
        t.start()
        for p in names[len(names) // 2:]:
            read_file(p, a.chunk)
        t.join()
        time.sleep(a.sleep)  # "compute"
        mllog("eval_start", "INTERVAL_START", metadata={"epoch_num": e})
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # a worker process: writes a checkpoint, reports back
            os.close(r)
            truth.clear()
            write_file(os.path.join(a.dir, "ckpt_%d.bin" % e), a.size, a.chunk)
            os.write(w, json.dumps(truth).encode())
            os.close(w)
            os._exit(0)
        os.close(w)
        data = b""
        while True:
            b = os.read(r, 1 << 20)
            if not b:
                break
            data += b
        os.close(r)
        os.waitpid(pid, 0)
        truth.extend(json.loads(data))
        mllog("eval_stop", "INTERVAL_END", metadata={"epoch_num": e})
        mllog("epoch_stop", "INTERVAL_END", metadata={"epoch_num": e})
    mllog("run_stop", "INTERVAL_END", metadata={"status": "success"})
    with open(a.truth, "w") as f:
        for t in truth:
            f.write(json.dumps(t) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
