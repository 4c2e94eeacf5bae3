#!/usr/bin/env python3
"""`streamtime trace summary|timeline DIR` on a system trace recorded here
with the REAL tools (issue 15 item 7), held against the workload's truth.

As root: tracefs mounted if needed, real bpftrace with the test-only
scripts of tests/systrace/seed/ (the seed's layout, docs/systrace.md: read,
write, openat, close, time-align), real `mpstat 1`, real `strace -ttt -f`,
around tests/systrace/workload.py (which records every read/write it makes
with CLOCK_REALTIME and CLOCK_MONOTONIC stamps and prints MLLOG lines on
stdout, kept as app.log).  The tracers and mpstat run in the zone
America/New_York (TZ), which streamtime is told with --tz; the date comes
from mpstat's header.  The workload runs as `stwlPID` (a link to python3,
PID this script's) so that the scripts follow its comm only, and not the
workload of another run of this test on the same machine.

Checks, each computed here from the truth file and the raw trace:
  * the summary: exact read/write call counts and bytes per (pid, file)
    of the workload's files (--filter), the epochs as phases, process
    names (stwlPID for the workload's pids, children under their parent);
  * the alignment: a method and a finite bound, the bound holding for the
    true offset (the workload's REALTIME-MONOTONIC pairs);
  * the timeline: every read/write slice of the workload's files within
    10 ms of the call's true interval [real0, real1], AND within the
    bound streamtime states; the phases on an application track; CPU
    counters; the alignment in otherData.

Before the tracers, without root, on directories written here: bad input
(a directory that is no trace set: 65; a bpftrace name holding another
kind of file: 65 naming file and line, --out left as it was; a time-align
trace without a date: 64 naming --date), trace record's layout (TID
column, manifest clock, trace_proc.out names) and a DFTracer file mixed
in.  Timelines are checked by tests/tools/trace_verify.

Skip rule: tests/cli/setup_rule.py (77 only off CI and not root).
usage: systrace_check.py STREAMTIME SOURCE_DIR [TRACE_VERIFY]
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
# the real tracers (mpstat is sysstat's), installed on first use
PACKAGES = ["bpftrace", "sysstat", "strace"]
BIN = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
SEED = os.path.join(SRC, "tests", "systrace", "seed")
WORKLOAD = os.path.join(SRC, "tests", "systrace", "workload.py")
VERIFY = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
SMALL = os.path.join(SRC, "..", "shared", "fixtures", "dftracer",
                     "small.pfw")
ZONE = "America/New_York"
# the workload's comm: unique to this run (the scripts trace by comm)
COMM = "stwl%d" % (os.getpid() % 100000)
from checks import FAILS, check, record_manifest, report  # noqa: E402
STARTED = []   # the tracers started, stopped whatever happens


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


def stop_all():
    """SIGINT to every tracer still running, then wait (kill at 30 s)."""
    for p in STARTED:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    for p in STARTED:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def record(tdir, data, truth, extra=()):
    """The seed layout in TDIR around the workload (EXTRA: more of its
    options); returns its exit."""
    env = dict(os.environ, TZ=ZONE, LC_ALL="C")
    procs, outs = STARTED, {}
    link_dir = os.path.join(os.path.dirname(tdir), "bin")
    os.makedirs(link_dir, exist_ok=True)
    stwl = os.path.join(link_dir, COMM)
    if not os.path.lexists(stwl):
        os.symlink(os.path.realpath(sys.executable), stwl)
    for name in ("read", "write", "openat", "close", "time_align"):
        out = os.path.join(tdir, "trace_%s.out" % name)
        p = subprocess.Popen(
            ["bpftrace", "-o", out, os.path.join(SEED, "trace_%s.bt" % name),
             COMM], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        procs.append(p)
        outs[out] = p
    wait_for(outs, stwl)
    cpu = open(os.path.join(tdir, "cpu.out"), "w")
    mp = subprocess.Popen(["mpstat", "1"], env=env, stdout=cpu,
                          stderr=subprocess.DEVNULL)
    procs.append(mp)
    time.sleep(1.2)
    with open(os.path.join(tdir, "app.log"), "w") as log:
        rc = subprocess.run(
            ["strace", "-ttt", "-f", "-o", os.path.join(tdir, "strace.out"),
             stwl, WORKLOAD, "--dir", data, "--truth", truth,
             "--epochs", "2", "--files", "4", "--sleep", "1.1"] +
            list(extra),
            stdout=log, stderr=subprocess.PIPE, text=True, timeout=300)
    time.sleep(1.2)
    stop_all()
    cpu.close()
    if rc.returncode != 0:
        setup_rule.broken(TEST, "the workload", rc.stderr[-500:])
    return rc


def verify(path, what):
    if not VERIFY:
        return
    r = subprocess.run([VERIFY, path], capture_output=True, text=True)
    check(r.returncode == 0, "%s: trace_verify: %s" % (what, r.stderr))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def offline(top):
    """Bad input and trace record's layout, on directories written here."""
    d = os.path.join(top, "notaset")
    os.makedirs(d)
    write(os.path.join(d, "notes.txt"), "hello\n")
    r = st("trace", "summary", d)
    check(r.returncode == 65 and "not a trace set" in r.stderr,
          "not_a_trace_set_is_65: a directory without traces: %d %s" %
          (r.returncode, r.stderr))
    d = os.path.join(top, "wrongkind")
    os.makedirs(d)
    write(os.path.join(d, "trace_read.out"),
          'Attaching 1 probe...\n{"name":"read","ph":"X"}\n')
    out = os.path.join(top, "keep.json")
    write(out, "before\n")
    r = st("trace", "timeline", d, "--out", out)
    with open(out) as f:
        kept = f.read()
    check(r.returncode == 65 and "trace_read.out:2:" in r.stderr and
          kept == "before\n", "a DFTracer line under trace_read.out: 65 "
          "naming file:line, --out left: %d %s %r" %
          (r.returncode, r.stderr, kept))
    d = os.path.join(top, "nodate")
    os.makedirs(d)
    write(os.path.join(d, "trace_time_align.out"),
          "TIMESTAMP TIME\n5000000000 10:00:00\n")
    r = st("trace", "summary", d)
    check(r.returncode == 64 and "--date" in r.stderr and "--tz" in
          r.stderr, "a time-align trace without a date: 64 naming --date "
          "and --tz: %d %s" % (r.returncode, r.stderr))
    r = st("trace", "summary", d, "--date", "2026-03-08", "--tz",
           "America/New_York", "--json")
    check(r.returncode == 0, "with --date and --tz it reads: %s" % r.stderr)
    # trace record's layout
    d = os.path.join(top, "record")
    os.makedirs(d)
    record_manifest(d, 1700000000000001000, mono_ns=1000,
                    span_ns=9 * 10**9, bounds=(80, 75))
    write(os.path.join(d, "trace_proc.out"),
          "TIMESTAMP EVENT PID PPID COMM\n1000 fork 100 50 bash\n"
          "1100 exec 100 -1 trainer\n1200 fork 101 100 trainer\n")
    write(os.path.join(d, "trace_read.out"),
          "Attaching 4 probes...\n"
          "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n"
          "2000000000 100 100 3 4096 1000000 /data/a.bin\n"
          "2000500000 100 102 3 4096 1000000 /data/a.bin\n"
          "5000000000 101 101 4 100 1000 /data/b.bin\n")
    write(os.path.join(d, "command.stdout.log"),
          ':::MLLOG {"time_ms": 1700000001000, "event_type": '
          '"INTERVAL_START", "key": "epoch_start", "metadata": '
          '{"epoch_num": 1}}\n:::MLLOG {"time_ms": 1700000004000, '
          '"event_type": "INTERVAL_END", "key": "epoch_stop", "metadata": '
          '{"epoch_num": 1}}\n')
    r = st("trace", "summary", d, "--json")
    check(r.returncode == 0, "record layout: summary: %s" % r.stderr)
    if r.returncode == 0:
        j = json.loads(r.stdout)
        s0 = j["system"][0]
        check(s0["alignment"]["bound_ns"] == 80 and
              "trace record" in s0["alignment"]["method"],
              "record layout: the manifest's clock: %s" % s0["alignment"])
        check(j["by_name"]["read"] == {"count": 3, "bytes": 8292,
                                       "dur_us": 2001},
              "record layout: reads: %s" % j["by_name"])
        check(j["threads"] == 3, "record layout: TID read: %d threads" %
              j["threads"])
        ph = {p["name"]: p for p in s0["phases"]}
        check(ph.get("epoch 1", {}).get("reads") == 2 and
              ph["epoch 1"]["read_bytes"] == 8192,
              "record layout: epoch 1 (1 s to 4 s) holds the two reads at 2 s, not the one at 5 s: %s" % ph)
        pr = {p["pid"]: p for p in s0["processes"]}
        check(pr.get(100, {}).get("name") == "trainer" and
              pr.get(101, {}).get("ppid") == 100,
              "record layout: names and parents from trace_proc.out: %s" %
              pr)
    names = os.path.join(top, "names.txt")
    write(names, "# pid name\n101 data loader 0\n")
    r = st("trace", "summary", d, "--json", "--names", names)
    pr = {p["pid"]: p for p in json.loads(r.stdout)["system"][0][
        "processes"]} if r.returncode == 0 else {}
    check(pr.get(101, {}).get("name") == "data loader 0" and
          pr[101].get("source") == "--names" and
          pr.get(100, {}).get("name") == "trainer",
          "--names FILE names pid 101 over trace_proc.out: %s" % pr)
    write(names, "101\n")
    r = st("trace", "summary", d, "--names", names)
    check(r.returncode == 65 and "names.txt:1:" in r.stderr,
          "--names FILE with a line that is not 'PID NAME': 65 naming it: "
          "%d %s" % (r.returncode, r.stderr))
    pmon = os.path.join(SRC, "..", "shared", "fixtures", "systrace",
                        "gpu_pmon_dgx.out")
    if os.path.exists(pmon):
        shutil.copy(pmon, os.path.join(d, "gpu.out"))
    tl = os.path.join(top, "record.json")
    args = ["trace", "timeline", d, "--out", tl]
    if os.path.exists(SMALL):
        args.insert(3, SMALL)
    r = st(*args)
    check(r.returncode == 0, "record layout: timeline: %s" % r.stderr)
    if r.returncode == 0:
        verify(tl, "record layout timeline")
        with open(tl) as f:
            evs = json.load(f)["traceEvents"]
        names = {e["args"].get("name") for e in evs if e.get("ph") == "M"}
        check("trainer pid 100 (child of 50)" in names and
              "trainer pid 101 (child of 100)" in names,
              "record layout: processes named with parents: %s" % names)
        two = [e for e in evs if e.get("ph") == "X" and
               e.get("name") == "read" and e["args"].get("tid") in (100, 102)]
        check(len(two) == 2 and len({e["tid"] for e in two}) == 2,
              "record layout: overlapping reads on two lanes of the read "
              "track: %s" % two)
        if os.path.exists(SMALL):
            check(any(e.get("cat") == "POSIX" for e in evs),
                  "a DFTracer file mixed in: its events are there")
        if os.path.exists(pmon):
            gp = {e["pid"] for e in evs if e.get("ph") == "M" and
                  str(e["args"].get("name", "")).startswith("GPU ")}
            gc = [e for e in evs if e.get("ph") == "C" and
                  e["name"] == "GPU"]
            # awk on the sample: 8 GPUs, 84 distinct (time, gpu) samples
            check(len(gp) == 8 and len(gc) == 84 and
                  {e["pid"] for e in gc} == gp and
                  max(e["args"]["fb MB"] for e in gc) == 26172,
                  "the pmon sample as GPU counters: %d processes, %d "
                  "samples" % (len(gp), len(gc)))


def main():
    top = tempfile.mkdtemp(prefix="st-sys0-")
    try:
        offline(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    if FAILS:
        return report(TEST)
    if os.geteuid() != 0:
        setup_rule.missing(TEST, "not root: bpftrace needs root")
    setup_rule.need(TEST, PACKAGES)
    for tool in ("bpftrace", "mpstat", "strace"):
        if not shutil.which(tool):
            setup_rule.broken(TEST, tool, "not in PATH")
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
        stop_all()
        if not FAILS and not os.environ.get("SYSTRACE_KEEP"):
            shutil.rmtree(top, ignore_errors=True)
        else:
            print("kept", top, file=sys.stderr)
    return report(TEST)


def load_truth(path):
    calls, ml = [], []
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            (ml if t["op"] == "mllog" else calls).append(t)
    return calls, ml


def true_offset(calls):
    """REALTIME - MONOTONIC as the workload saw it (the median)."""
    offs = sorted(c["real0_ns"] - c["mono0_ns"] for c in calls)
    return offs[len(offs) // 2]


def run_split(top):
    """mllog_split_writes: the workload's MLLOG lines written in two parts
    (--split-mllog: text, then newline); the calls, their MLLOG log and
    mpstat's date only (no strace, no time-align trace), so the MLLOG
    writes alone align: every line matched, a finite bound that holds."""
    tdir = os.path.join(top, "split")
    data = os.path.join(top, "d2")
    truth = os.path.join(top, "truth2.jsonl")
    os.makedirs(tdir)
    record(tdir, data, truth, ["--split-mllog"])
    calls, ml = load_truth(truth)
    only = os.path.join(top, "split-mllog-only")
    os.makedirs(only)
    for f in ("trace_read.out", "trace_write.out", "trace_openat.out",
              "trace_close.out", "app.log", "cpu.out"):
        shutil.copy(os.path.join(tdir, f), only)
    r = st("trace", "summary", only, "--json", "--tz", ZONE)
    check(r.returncode == 0, "mllog_split_writes: trace summary: %d %s" %
          (r.returncode, r.stderr[-500:]))
    if r.returncode != 0:
        return
    al = json.loads(r.stdout).get("system", [{}])[0].get("alignment", {})
    true_off = true_offset(calls)
    bound = al.get("bound_ns")
    # every line but the first closes a pair with the one before it
    check(al.get("mllog_writes") == len(ml) and isinstance(bound, int),
          "mllog_split_writes: %d MLLOG lines matched with a finite bound: "
          "%s" % (len(ml), al))
    if al.get("known") and isinstance(bound, int):
        err = abs(al.get("offset_ns", 0) - true_off)
        print("%s: split MLLOG writes: offset off by %.3f ms, stated bound "
              "%.3f ms" % (TEST, err / 1e6, bound / 1e6))
        check(err <= bound + 100000, "mllog_split_writes: the bound holds: "
              "offset %s, true %d, bound %d" % (al.get("offset_ns"),
                                                true_off, bound))


def run(top):
    run_split(top)
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
    true_off = true_offset(calls)
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
    # a line of bpftrace's own output broken by another CPU's (it happens
    # under load) loses its call: counted exactly where the file has no
    # bad line, else at most the truth and at least the truth less them
    badf = {f["file"]: f["bad_lines"] for f in sysj.get("files", [])}
    for (pid, path, op), (n, b) in sorted(want.items()):
        r = st("trace", "summary", tdir, "--json", "--tz", ZONE,
               "--filter", "pid=%d,file=%s,name=%s" % (pid, path, op))
        got = json.loads(r.stdout)["by_name"].get(op, {}) if \
            r.returncode == 0 else {}
        lost = badf.get("trace_%s.out" % op, 0)
        if lost == 0:
            check(got.get("count") == n and got.get("bytes") == b,
                  "%s of %s by pid %d: %d calls, %d bytes; streamtime: %s"
                  % (op, os.path.basename(path), pid, n, b, got))
        else:
            print("%s: trace_%s.out has %d bad lines: counts checked as "
                  "bounds" % (TEST, op, lost))
            check(n - lost <= got.get("count", 0) <= n and
                  got.get("bytes", 0) <= b,
                  "%s of %s by pid %d: %d calls (%d lines bad); streamtime:"
                  " %s" % (op, os.path.basename(path), pid, n, lost, got))

    # seed_write_filename_9th_field: trace_write.bt's header names no
    # FILENAME, its lines carry one; losing a few lines to interleaving is
    # the most a file may lose, not every write
    wr = [(k, v) for k, v in want.items() if k[2] == "write"]
    r = st("trace", "summary", tdir, "--json", "--tz", ZONE, "--filter",
           "name=write", "--group-by", "file")
    groups = json.loads(r.stdout).get("groups", {}) if r.returncode == 0 \
        else {}
    for (pid, path, op), (n, b) in wr:
        got = groups.get(path, {}).get("count", 0)
        check(got >= n - badf.get("trace_write.out", 0) and got > 0,
              "seed_write_filename_9th_field: writes to %s read with "
              "their file: %d of %d" % (os.path.basename(path), got, n))
    check(len(wr) > 0, "seed_write_filename_9th_field: the workload "
          "wrote files: %d" % len(wr))

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

    # compare_phase_key: trace compare's phase key is trace summary's
    mp = os.path.join(top, "phase-metrics.json")
    write(mp, json.dumps([
        {"name": "n", "value": "count", "by": "phase"},
        {"name": "b", "value": "bytes", "by": "phase"},
        {"name": "mb", "value": "bytes", "by": "phase", "per": "thread",
         "reduce": "max"}]))
    r = st("trace", "compare", "--metrics", mp, "--tz", ZONE, "--json",
           "--case", "run=" + tdir)
    r2 = st("trace", "summary", tdir, "--tz", ZONE, "--json", "--group-by",
            "phase", "--per", "thread")
    check(r.returncode == 0 and r2.returncode == 0,
          "compare_phase_key: compare %d, summary --group-by phase %d: %s%s"
          % (r.returncode, r2.returncode, r.stderr[-400:], r2.stderr[-400:]))
    if r.returncode == 0 and r2.returncode == 0:
        cv = {m["name"]: m["values"]["run"] for m in
              json.loads(r.stdout)["metrics"]}
        gs = json.loads(r2.stdout)["groups"]
        wantp = {"n": {k: g["count"] for k, g in gs.items()},
                 "b": {k: g["bytes"] for k, g in gs.items()},
                 "mb": {k: g["max_per_bytes"] for k, g in gs.items()}}
        check(cv == wantp and "epoch 1" in gs,
              "compare_phase_key: compare by phase = summary --group-by "
              "phase on the recording: %s, %s" % (cv, wantp))

    # names: the workload's pids are COMM, the forked workers its children
    procs = {p["pid"]: p for p in sysj.get("processes", [])}
    pids = sorted({c["pid"] for c in calls})
    main_pid = min(pids, key=lambda p: sum(1 for c in calls if c["pid"] == p))
    main_pid = [m["pid"] for m in ml][0]
    for pid in pids:
        p = procs.get(pid, {})
        check(p.get("name") == COMM, "pid %d named %s: %s" % (pid, COMM, p))
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
        lost = badf.get("trace_%s.out" % k[2], 0)
        check(len(got) == len(tr) if lost == 0 else
              len(tr) - lost <= len(got) <= len(tr),
              "%s: %d slices for %d calls (%d bad lines)" %
              (k, len(got), len(tr), lost))
        if len(got) != len(tr):
            # a call lost: hold each slice against the calls by time
            tr = [min(tr, key=lambda c: abs(c["real0_ns"] / 1000.0 -
                                             e["ts"])) for e in got]
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
    verify(out, "the timeline")


if __name__ == "__main__":
    sys.exit(main())
