#!/usr/bin/env python3
"""`streamtime trace summary|timeline DIR` on a system trace recorded here
with the REAL tools (issue 15 item 7), held against the workload's truth.

As root: tracefs mounted if needed, real bpftrace with the test-only
scripts of tests/systrace/seed/ (the seed's layout, SPEC 5.11: read,
write, openat, close, time-align), real `mpstat 1`, real `strace -ttt -f`,
around tests/systrace/workload.py (which records every read/write it makes
with CLOCK_REALTIME and CLOCK_MONOTONIC stamps and prints MLLOG lines on
stdout, kept as app.log).  The tracers and mpstat run in the zone
America/New_York (TZ), which streamtime is told with --tz; the date comes
from mpstat's header.  The workload runs as `stwl` (a link to python3) so
that the scripts follow its comm only.

Checks, each computed here from the truth file and the raw trace:
  * the summary: exact read/write call counts and bytes per (pid, file)
    of the workload's files (--filter), the epochs as phases, process
    names (stwl for the workload's pids, children under their parent);
  * the alignment: a method and a finite bound, the bound holding for the
    true offset (the workload's REALTIME-MONOTONIC pairs);
  * the timeline: every read/write slice of the workload's files within
    10 ms of the call's true interval [real0, real1], AND within the
    bound streamtime states; the phases on an application track; CPU
    counters; the alignment in otherData.

Skip rule: tests/cli/setup_rule.py (77 only off CI and not root).
usage: systrace_check.py STREAMTIME SOURCE_DIR
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import setup_rule  # noqa: E402

TEST = "cli-systrace"
BIN = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
SEED = os.path.join(SRC, "tests", "systrace", "seed")
WORKLOAD = os.path.join(SRC, "tests", "systrace", "workload.py")
ZONE = "America/New_York"
FAILS, CHECKS = [], [0]


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, file=sys.stderr)


def st(*args, timeout=300):
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=timeout)


def wait_for(outs, stwl, secs=30):
    """Wait until every bpftrace output in OUTS (path -> process) holds
    its header: bpftrace hands BEGIN's line to its output only when the
    ring buffer wakes it, so a throwaway `stwl` run makes events."""
    end = time.time() + secs
    while time.time() < end:
        for path, p in outs.items():
            if p.poll() is not None:
                setup_rule.broken(TEST, "bpftrace for " + path,
                                  "exited with %d: %s" % (
                                      p.returncode, p.stderr.read()[-300:]))
        subprocess.run([stwl, "-c", "import os\nfor i in range(300): "
                        "os.write(1, b'x\\n')"],
                       stdout=subprocess.DEVNULL)
        ok = True
        for path in outs:
            try:
                with open(path) as f:
                    ok = ok and "TIMESTAMP" in f.read()
            except OSError:
                ok = False
        if ok:
            return
        time.sleep(0.3)
    for path in outs:
        with open(path) as f:
            print(path, repr(f.read()[:200]), file=sys.stderr)
    setup_rule.broken(TEST, "bpftrace", "no header in %s after %ds" %
                      (sorted(outs), secs))


def record(tdir, data, truth):
    """The seed layout in TDIR around the workload; returns its exit."""
    env = dict(os.environ, TZ=ZONE, LC_ALL="C")
    procs, outs = [], {}
    link_dir = os.path.join(os.path.dirname(tdir), "bin")
    os.makedirs(link_dir, exist_ok=True)
    stwl = os.path.join(link_dir, "stwl")
    os.symlink(os.path.realpath(sys.executable), stwl)
    for name in ("read", "write", "openat", "close", "time_align"):
        out = os.path.join(tdir, "trace_%s.out" % name)
        p = subprocess.Popen(
            ["bpftrace", "-o", out, os.path.join(SEED, "trace_%s.bt" % name),
             "stwl"], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        procs.append(p)
        outs[out] = p
    wait_for(outs, stwl)
    cpu = open(os.path.join(tdir, "cpu.out"), "w")
    mp = subprocess.Popen(["mpstat", "1"], env=env, stdout=cpu,
                          stderr=subprocess.DEVNULL)
    time.sleep(1.2)
    with open(os.path.join(tdir, "app.log"), "w") as log:
        rc = subprocess.run(
            ["strace", "-ttt", "-f", "-o", os.path.join(tdir, "strace.out"),
             stwl, WORKLOAD, "--dir", data, "--truth", truth,
             "--epochs", "2", "--files", "4", "--sleep", "1.1"],
            stdout=log, stderr=subprocess.PIPE, text=True, timeout=300)
    time.sleep(1.2)
    for p in procs + [mp]:
        p.send_signal(signal.SIGINT)
    for p in procs + [mp]:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
    cpu.close()
    if rc.returncode != 0:
        setup_rule.broken(TEST, "the workload", rc.stderr[-500:])
    return rc


def main():
    if os.geteuid() != 0:
        setup_rule.missing(TEST, "not root: bpftrace needs root")
    for tool in ("bpftrace", "mpstat", "strace"):
        if not shutil.which(tool):
            setup_rule.missing(TEST, "%s is not installed" % tool)
    if not os.path.ismount("/sys/kernel/tracing"):
        r = subprocess.run(["mount", "-t", "tracefs", "nodev",
                            "/sys/kernel/tracing"], capture_output=True,
                           text=True)
        if r.returncode != 0:
            setup_rule.broken(TEST, "tracefs", r.stderr.strip())
    top = tempfile.mkdtemp(prefix="st-sys-")
    try:
        run(top)
    finally:
        if not FAILS and not os.environ.get("SYSTRACE_KEEP"):
            shutil.rmtree(top, ignore_errors=True)
        else:
            print("kept", top, file=sys.stderr)
    print("%s: %d checks, %d failed" % (TEST, CHECKS[0], len(FAILS)))
    return 1 if FAILS else 0


def load_truth(path):
    calls, ml = [], []
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            (ml if t["op"] == "mllog" else calls).append(t)
    return calls, ml


def run(top):
    tdir = os.path.join(top, "trace")
    data = os.path.join(top, "d")
    truth = os.path.join(top, "truth.jsonl")
    os.makedirs(tdir)
    record(tdir, data, truth)
    calls, ml = load_truth(truth)
    check(len(calls) > 20, "the workload recorded its calls: %d" % len(calls))

    # ---- summary -------------------------------------------------------
    r = st("trace", "summary", tdir, "--json", "--tz", ZONE)
    check(r.returncode == 0, "trace summary DIR: exit 0: %d %s" %
          (r.returncode, r.stderr[-800:]))
    if r.returncode != 0:
        return
    summ = json.loads(r.stdout)
    sysj = summ.get("system", [{}])[0]
    al = sysj.get("alignment", {})
    check(al.get("known") and isinstance(al.get("bound_ns"), int),
          "the alignment states a method and a finite bound: %s" % al)
    # the true offset, from the workload's own clock pairs
    offs = sorted(c["real0_ns"] - c["mono0_ns"] for c in calls)
    true_off = offs[len(offs) // 2]
    bound = al.get("bound_ns") or 0
    check(abs(al.get("offset_ns", 0) - true_off) <= bound + 100000,
          "the stated bound holds: offset %s, true %d, bound %s" %
          (al.get("offset_ns"), true_off, bound))
    check(bound <= 10000000, "the bound is within 10 ms: %s" % bound)
    check(al.get("mllog_writes", 0) >= 4,
          "the MLLOG writes were matched in trace_write.out: %s" % al)

    # exact counts and bytes per (pid, file, op)
    want = {}
    for c in calls:
        k = (c["pid"], c["path"], c["op"])
        n, b = want.get(k, (0, 0))
        want[k] = (n + 1, b + c["bytes"])
    for (pid, path, op), (n, b) in sorted(want.items()):
        r = st("trace", "summary", tdir, "--json", "--tz", ZONE,
               "--filter", "pid=%d,file=%s,name=%s" % (pid, path, op))
        got = json.loads(r.stdout)["by_name"].get(op, {}) if \
            r.returncode == 0 else {}
        check(got.get("count") == n and got.get("bytes") == b,
              "%s of %s by pid %d: %d calls, %d bytes; streamtime: %s" %
              (op, os.path.basename(path), pid, n, b, got))

    # phases: init, run, epoch 1..2, eval 1..2
    names = [p["name"] for p in sysj.get("phases", [])]
    for want_ph in ("init", "run", "epoch 1", "epoch 2", "eval 1", "eval 2"):
        check(want_ph in names, "phase %r found: %s" % (want_ph, names))
    for p in sysj.get("phases", []):
        if p["name"].startswith("epoch "):
            e = int(p["name"].split()[1])
            rb = sum(c["bytes"] for c in calls if c["op"] == "read" and
                     p["start_ns"] <= c["real0_ns"] and
                     (p["end_ns"] is None or c["real1_ns"] <= p["end_ns"]))
            check(p["read_bytes"] >= rb > 0,
                  "epoch %d: bytes read %d, at least the workload's %d" %
                  (e, p["read_bytes"], rb))
    ml_ts = sorted(m["time_ms"] for m in ml)
    check(len(ml_ts) == len(sysj.get("phases", [])) * 2,
          "every MLLOG interval paired: %d lines, %d phases" %
          (len(ml_ts), len(sysj.get("phases", []))))

    # names: the workload's pids are stwl, the forked workers its children
    procs = {p["pid"]: p for p in sysj.get("processes", [])}
    pids = sorted({c["pid"] for c in calls})
    main_pid = min(pids, key=lambda p: sum(1 for c in calls if c["pid"] == p))
    main_pid = [m["pid"] for m in ml][0]
    for pid in pids:
        p = procs.get(pid, {})
        check(p.get("name") == "stwl", "pid %d named stwl: %s" % (pid, p))
        if pid != main_pid:
            check(p.get("ppid") == main_pid,
                  "worker %d is a child of %d: %s" % (pid, main_pid, p))

    # text: the same sections
    r = st("trace", "summary", tdir, "--tz", ZONE)
    check(r.returncode == 0 and "alignment" in r.stdout and
          "epoch 1" in r.stdout and "children under their parents" in
          r.stdout, "the text summary has alignment, phases, processes")

    # ---- timeline ------------------------------------------------------
    out = os.path.join(top, "tl.json")
    r = st("trace", "timeline", tdir, "--out", out, "--tz", ZONE)
    check(r.returncode == 0, "trace timeline DIR: exit 0: %d %s" %
          (r.returncode, r.stderr[-800:]))
    if r.returncode != 0:
        return
    with open(out) as f:
        tl = json.load(f)
    evs = tl["traceEvents"]
    pname = {e["pid"]: e["args"]["name"] for e in evs
             if e.get("ph") == "M" and e["name"] == "process_name"}
    realpid = {}
    for tp, n in pname.items():
        m = re.search(r"pid (\d+)", n)
        if m:
            realpid[tp] = int(m.group(1))
    slices = {}
    for e in evs:
        if e.get("ph") != "X" or e.get("name") not in ("read", "write"):
            continue
        f = e.get("args", {}).get("file")
        pid = realpid.get(e["pid"])
        if pid is None or not f or not f.startswith(data):
            continue
        slices.setdefault((pid, f, e["name"]), []).append(e)
    bound_us = bound / 1000.0 + 1
    worst = 0.0
    for k, n_b in want.items():
        got = sorted(slices.get(k, []), key=lambda e: e["ts"])
        tr = sorted((c for c in calls if (c["pid"], c["path"], c["op"]) == k),
                    key=lambda c: c["real0_ns"])
        check(len(got) == len(tr), "%s: %d slices for %d calls" %
              (k, len(got), len(tr)))
        for e, c in zip(got, tr):
            r0, r1 = c["real0_ns"] / 1000.0, c["real1_ns"] / 1000.0
            s, t = e["ts"], e["ts"] + e["dur"]
            err = max(r0 - s, t - r1, 0.0)
            worst = max(worst, err)
            check(err <= 10000, "%s slice [%d, %d] within 10 ms of the call "
                  "[%.0f, %.0f]" % (k, s, t, r0, r1))
            check(err <= bound_us, "%s slice [%d, %d] within the stated "
                  "bound %.1f us of the call [%.0f, %.0f]" %
                  (k, s, t, bound_us, r0, r1))
            check(e["args"].get("bytes") == c["bytes"] and
                  "latency_ns" in e["args"] and "fd" in e["args"],
                  "%s slice args bytes/fd/latency: %s" % (k, e["args"]))
    print("%s: worst slice error %.1f us, stated bound %.1f us" %
          (TEST, worst, bound_us))
    phases = [e["name"] for e in evs if e.get("ph") == "X" and
              e.get("cat") == "phase"]
    check("epoch 1" in phases and "epoch 2" in phases,
          "the timeline has the epochs as phase slices: %s" % phases)
    check(any(e.get("ph") == "C" and e["name"] == "CPU %" for e in evs),
          "the timeline has CPU counters")
    tracks = {e["args"]["name"] for e in evs if e.get("ph") == "M" and
              e["name"] == "thread_name"}
    check({"read", "write"} <= tracks, "tracks per call kind: %s" % tracks)
    od = tl.get("otherData", {}).get("system_traces", [{}])[0]
    check(od.get("alignment", {}).get("bound_ns") == bound,
          "the timeline's metadata states the alignment: %s" % od)


if __name__ == "__main__":
    sys.exit(main())
