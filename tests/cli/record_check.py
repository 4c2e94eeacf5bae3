#!/usr/bin/env python3
"""`streamtime trace record` with the real tracers (issue 15 items 6, 7).

usage: record_check.py STREAMTIME SOURCE_ROOT

As root, runs the real bpftrace, mpstat (and nvidia-smi pmon where there is
one) under `trace record` around tests/systrace/workload.py, and holds the
directory against the workload's own record of its calls, parsed here in
Python (the layout of docs/systrace.md; TIMESTAMP mapped to UTC with the
manifest's clock measurements, interpolated):
  - every read/write of the workload's files is in trace_read.out /
    trace_write.out exactly once, with its pid, tid, fd, bytes and path,
    and [TIMESTAMP - LAT, TIMESTAMP] within 0.5 ms of the workload's own
    [real0, real1] around the call; per file and process the counts and
    bytes are exact;
  - the forked worker's writes are there (descendants are followed) and
    trace_proc.out shows the fork; cpu.out has mpstat rows;
  - command.stdout.log holds the MLLOG lines, which also came through on
    stdout; manifest.json is valid, exit_status 0, the clock bound small;
  - a failing COMMAND gives its status (3; 143 for SIGTERM); SIGINT to the
    harness stops everything and leaves a readable directory (signal in
    the manifest); SIGKILL to it leaves no tracer running and the first
    manifest; --tracers with an unknown name is 64 (with a did you
    mean); a non-empty DIR is 73 and left alone; without root or without
    bpftrace: 69 naming what is missing and --tracers as the way out;
    a COMMAND that does not exist: 127.
The real tracers are what this tests: when bpftrace or mpstat is missing,
see setup_rule.py (a failure as root or under CI).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import setup_rule  # noqa: E402

TEST = "cli-trace-record"
# the real tracers of trace record (mpstat is sysstat's; nvidia-smi comes
# with a GPU's driver, never installed here) and pgrep (procps), installed
# on first use
PACKAGES = ["bpftrace", "sysstat", "procps"]
BIN = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
WORKLOAD = os.path.join(SRC, "tests", "systrace", "workload.py")
PY = sys.executable
from checks import FAILS, check, report  # noqa: E402
SLACK_NS = 500000          # 0.5 ms, the figure for trace record
HEADERS = {
    "trace_read.out": "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME",
    "trace_write.out": "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME",
    "trace_openat.out": "TIMESTAMP PID TID FD LAT(ns) FILENAME",
    "trace_close.out": "TIMESTAMP PID TID FD RET LAT(ns) FILENAME",
    "trace_proc.out": "TIMESTAMP EVENT PID PPID COMM",
}


def record(out, cmd, tracers=None, env=None, timeout=180):
    args = [BIN, "trace", "record", "--out", out]
    if tracers:
        args += ["--tracers", tracers]
    return subprocess.run(args + ["--"] + cmd, capture_output=True,
                          text=True, timeout=timeout, env=env)


def read_lines(path):
    """The lines of a trace file after 'Attaching' and the header, and
    the header."""
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    if lines and lines[0].startswith("Attaching "):
        i = 1
    header = lines[i] if i < len(lines) else None
    return header, lines[i + 1:]


def parse_calls(path, op):
    """trace_read.out / trace_write.out as dicts, and the lines that do
    not parse."""
    header, lines = read_lines(path)
    check(header == HEADERS[os.path.basename(path)],
          "%s: header %r, docs/systrace.md says %r" %
          (path, header, HEADERS[os.path.basename(path)]))
    calls, bad = [], []
    for ln in lines:
        f = ln.split(" ", 6)
        try:
            c = {"op": op, "ts": int(f[0]), "pid": int(f[1]),
                 "tid": int(f[2]), "fd": int(f[3]), "ret": int(f[4]),
                 "lat": int(f[5]), "path": f[6] if len(f) > 6 else ""}
        except (ValueError, IndexError):
            bad.append(ln)
            continue
        calls.append(c)
    return calls, bad


def mono_to_real(manifest):
    """t_real(t_mono) from the manifest's clock entries, interpolated."""
    clk = manifest["clock"]
    m0, o0 = clk[0]["mono_ns"], clk[0]["real_ns"] - clk[0]["mono_ns"]
    if len(clk) < 2 or clk[1]["mono_ns"] == m0:
        return lambda t: t + o0
    m1, o1 = clk[1]["mono_ns"], clk[1]["real_ns"] - clk[1]["mono_ns"]
    return lambda t: t + o0 + (o1 - o0) * (t - m0) // (m1 - m0)


def load_manifest(d, what):
    try:
        with open(os.path.join(d, "manifest.json")) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        check(False, "%s: manifest.json not readable: %s" % (what, e))
        return None


def no_temporaries(d, what):
    left = [n for n in os.listdir(d) if n.startswith(".")]
    check(not left, "%s: temporaries left in the directory: %s" % (what, left))


def main_run(tmp):
    """The workload recorded with every tracer; its truth against DIR."""
    d = os.path.join(tmp, "rec")
    wdir = os.path.join(tmp, "work")
    truth_path = os.path.join(tmp, "truth.jsonl")
    cmd = [PY, WORKLOAD, "--dir", wdir, "--truth", truth_path,
           "--epochs", "3", "--files", "4", "--sleep", "0.4"]
    t0 = time.monotonic()
    p = record(d, cmd)
    took = time.monotonic() - t0
    if not check(p.returncode == 0, "main run: exit %d, stderr %s" %
                 (p.returncode, p.stderr[-2000:])):
        return
    print("main run: %.1f s" % took)
    with open(truth_path) as f:
        truth = [json.loads(x) for x in f]
    m = load_manifest(d, "main run")
    if not m:
        return
    # the manifest
    check(m.get("streamtime_record") == 1 and m.get("complete") is True,
          "manifest: streamtime_record 1 and complete: %r" % m)
    check(m.get("exit_status") == 0 and m.get("signal") is None,
          "manifest: exit_status 0, signal null: %r %r" %
          (m.get("exit_status"), m.get("signal")))
    check(m.get("command") == cmd, "manifest: command %r" % m.get("command"))
    for k in ("host", "kernel", "tz", "streamtime"):
        check(isinstance(m.get(k), str) and m[k], "manifest: %s %r" %
              (k, m.get(k)))
    clk = m.get("clock", [])
    check(len(clk) == 2 and [c.get("when") for c in clk] == ["start", "end"],
          "manifest: clock start and end: %r" % clk)
    for c in clk:
        check(all(isinstance(c.get(k), int) for k in
                  ("mono_ns", "real_ns", "bound_ns")) and
              0 < c["bound_ns"] < 100000,
              "manifest: clock entry with a bound under 100 us: %r" % c)
    tr = {t["name"]: t for t in m.get("tracers", [])}
    check(set(tr) == {"io", "proc", "cpu", "gpu"},
          "manifest: tracers io, proc, cpu, gpu: %r" % sorted(tr))
    for n in ("io", "proc", "cpu"):
        check(tr.get(n, {}).get("ran") is True, "manifest: %s ran" % n)
    has_gpu = shutil.which("nvidia-smi") is not None
    g = tr.get("gpu", {})
    check(g.get("ran") is has_gpu and (has_gpu or g.get("why")),
          "manifest: gpu ran only where nvidia-smi exists, why said: %r" % g)
    if not has_gpu:
        check("nvidia-smi" in p.stderr, "no nvidia-smi: said on stderr: %r" %
              p.stderr)
    check(tr.get("io", {}).get("lost_events") == 0,
          "manifest: bpftrace lost no events: %r" % tr.get("io"))
    no_temporaries(d, "main run")

    # the calls, parsed here
    calls = []
    for name, op in (("trace_read.out", "read"), ("trace_write.out", "write")):
        c, bad = parse_calls(os.path.join(d, name), op)
        check(not bad, "%s: %d lines that do not parse, e.g. %r" %
              (name, len(bad), bad[:3]))
        calls += c
    for name in ("trace_openat.out", "trace_close.out", "trace_proc.out"):
        header, _ = read_lines(os.path.join(d, name))
        check(header == HEADERS[name], "%s: header %r" % (name, header))
    to_real = mono_to_real(m)
    io_truth = [t for t in truth if t["op"] in ("read", "write")]
    main_pid = next(t["pid"] for t in truth if t["op"] == "mllog")

    def key(c):
        return (c["op"], c["pid"], c["tid"], c["fd"], c["path"])

    got = {}
    for c in calls:
        if c["path"].startswith(wdir + "/"):
            got.setdefault(key(c), []).append(c)
    want = {}
    for t in io_truth:
        want.setdefault(key(t), []).append(t)
    check(set(got) == set(want),
          "the (op, pid, tid, fd, file) of the workload's calls: trace has "
          "%d, truth %d; only in trace %r, only in truth %r" %
          (len(got), len(want), sorted(set(got) - set(want))[:3],
           sorted(set(want) - set(got))[:3]))
    worst, n_cmp = -10 ** 18, 0
    for k in want:
        tw = sorted(want[k], key=lambda t: t["real0_ns"])
        gw = sorted(got.get(k, []), key=lambda c: c["ts"])
        if not check(len(tw) == len(gw), "%r: %d calls in the truth, %d in "
                     "the trace (each exactly once)" % (k, len(tw), len(gw))):
            continue
        for t, c in zip(tw, gw):
            n_cmp += 1
            check(c["ret"] == t["bytes"], "%r: %d bytes in the trace, %d in "
                  "the truth" % (k, c["ret"], t["bytes"]))
            s, e = to_real(c["ts"] - c["lat"]), to_real(c["ts"])
            early = t["real0_ns"] - s
            late = e - t["real1_ns"]
            worst = max(worst, early, late)
            check(early <= SLACK_NS and late <= SLACK_NS,
                  "%r: trace [%d, %d] not within 0.5 ms of the truth [%d, "
                  "%d] (%d ns early, %d ns late)" %
                  (k, s, e, t["real0_ns"], t["real1_ns"], early, late))
    print("compared %d calls; the trace's interval is at worst %.1f us "
          "outside the truth's (negative: inside)" % (n_cmp, worst / 1000))
    check(n_cmp == len(io_truth) and n_cmp > 50,
          "every call of the truth compared: %d of %d" % (n_cmp, len(io_truth)))
    # per file and process: exact counts and bytes
    per_t, per_g = {}, {}
    for t in io_truth:
        a = per_t.setdefault((t["op"], t["pid"], t["path"]), [0, 0])
        a[0] += 1
        a[1] += t["bytes"]
    for c in calls:
        if c["path"].startswith(wdir + "/"):
            a = per_g.setdefault((c["op"], c["pid"], c["path"]), [0, 0])
            a[0] += 1
            a[1] += c["ret"]
    check(per_t == per_g, "counts and bytes per (op, pid, file) differ: "
          "truth %r trace %r" % (sorted(per_t.items())[:4],
                                 sorted(per_g.items())[:4]))
    # descendants: the worker's checkpoint writes and its fork
    workers = {t["pid"] for t in io_truth if t["pid"] != main_pid}
    check(len(workers) == 3, "the truth has 3 forked workers: %r" % workers)
    check(all(any(c["pid"] == w and c["op"] == "write" and
                  "/ckpt_" in c["path"] for c in calls) for w in workers),
          "the forked workers' writes are in trace_write.out")
    _, proc = read_lines(os.path.join(d, "trace_proc.out"))
    forks = set()
    for ln in proc:
        f = ln.split(" ", 4)
        if len(f) >= 4 and f[1] == "fork":
            forks.add((int(f[2]), int(f[3])))
    for w in workers:
        check((w, main_pid) in forks, "trace_proc.out: fork of %d by %d "
              "(forks seen: %d)" % (w, main_pid, len(forks)))
    check(any(ln.split(" ")[1:3] == ["exec", str(main_pid)] for ln in proc
              if len(ln.split(" ")) > 3),
          "trace_proc.out: the exec of COMMAND's pid %d" % main_pid)
    check(m.get("pid") == main_pid, "manifest: pid %r is COMMAND's, %d" %
          (m.get("pid"), main_pid))
    # mpstat
    with open(os.path.join(d, "cpu.out")) as f:
        cpu = f.read().split("\n")
    rows = [ln for ln in cpu if ln.split()[1:2] == ["all"] and
            not ln.startswith("Average")]
    check(any("%usr" in ln for ln in cpu) and len(rows) >= 1,
          "cpu.out: mpstat's header and rows: %r" % cpu[:6])
    # COMMAND's output: saved and passed through
    with open(os.path.join(d, "command.stdout.log")) as f:
        log = f.read()
    ml = [t for t in truth if t["op"] == "mllog"]
    for t in ml:
        needle = '"time_ms": %d, "event_type": "%s", "key": "%s"' % (
            t["time_ms"], t["event_type"], t["key"])
        check(needle in log, "command.stdout.log: MLLOG %s" % t["key"])
        check(needle in p.stdout, "passed through on stdout: MLLOG %s" %
              t["key"])
    check(log == p.stdout, "command.stdout.log is what came through stdout")


def failing_runs(tmp):
    d = os.path.join(tmp, "fail3")
    p = record(d, ["sh", "-c", "echo to-stderr >&2; exit 3"])
    check(p.returncode == 3, "exit 3: harness exit %d (%s)" %
          (p.returncode, p.stderr))
    m = load_manifest(d, "exit 3")
    check(m and m.get("exit_status") == 3, "exit 3: manifest exit_status %r"
          % (m and m.get("exit_status")))
    check("to-stderr" in p.stderr, "exit 3: stderr passed through")
    with open(os.path.join(d, "command.stderr.log")) as f:
        check(f.read() == "to-stderr\n", "exit 3: command.stderr.log")
    d = os.path.join(tmp, "term")
    p = record(d, ["sh", "-c", "kill -TERM $$"], tracers="cpu")
    check(p.returncode == 143, "killed by SIGTERM: harness exit %d, want 143"
          % p.returncode)
    m = load_manifest(d, "SIGTERM")
    check(m and m.get("exit_status") == 143, "SIGTERM: manifest exit_status")
    d = os.path.join(tmp, "nocmd")
    p = record(d, ["no-such-command-here"], tracers="cpu")
    check(p.returncode == 127 and "no-such-command-here" in p.stderr,
          "a COMMAND that does not exist: 127 naming it: %d %r" %
          (p.returncode, p.stderr))


def interrupted_run(tmp):
    d = os.path.join(tmp, "int")
    wdir = os.path.join(tmp, "work-int")
    cmd = [PY, WORKLOAD, "--dir", wdir, "--truth",
           os.path.join(tmp, "truth-int.jsonl"), "--epochs", "200",
           "--sleep", "0.1"]
    h = subprocess.Popen([BIN, "trace", "record", "--out", d, "--"] + cmd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    log = os.path.join(d, "command.stdout.log")
    until = time.monotonic() + 60
    while time.monotonic() < until:
        if os.path.exists(log) and "epoch_start" in open(log).read():
            break
        time.sleep(0.05)
    time.sleep(0.3)
    t0 = time.monotonic()
    h.send_signal(signal.SIGINT)
    try:
        out, err = h.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        h.kill()
        check(False, "SIGINT: the harness did not end within 60 s")
        return
    took = time.monotonic() - t0
    print("SIGINT: the harness ended %.2f s after it" % took)
    check(h.returncode == 130, "SIGINT: exit %d, want 130 (COMMAND died of "
          "the SIGINT passed on); stderr %s" % (h.returncode, err[-500:]))
    m = load_manifest(d, "SIGINT")
    if m:
        check(m.get("signal") == "SIGINT" and m.get("complete") is True and
              m.get("exit_status") == 130,
              "SIGINT: manifest signal, complete, exit_status: %r %r %r" %
              (m.get("signal"), m.get("complete"), m.get("exit_status")))
        check(len(m.get("clock", [])) == 2, "SIGINT: both clock entries")
    for name in HEADERS:
        p = os.path.join(d, name)
        check(os.path.exists(p) and read_lines(p)[0] == HEADERS[name],
              "SIGINT: %s there with its header" % name)
    _, reads = read_lines(os.path.join(d, "trace_read.out"))
    check(any(wdir in ln for ln in reads),
          "SIGINT: the workload's reads up to the signal are there")
    no_temporaries(d, "SIGINT")
    left = subprocess.run(["pgrep", "-f", "workload.py --dir " + wdir],
                          capture_output=True, text=True).stdout.split()
    check(not left, "SIGINT: no workload process left: %r" % left)


def holders(d):
    """The processes that hold a file below D open."""
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for fd in os.listdir("/proc/%s/fd" % pid):
                try:
                    if os.readlink("/proc/%s/fd/%s" % (pid, fd)).startswith(
                            d + "/"):
                        found.add(int(pid))
                except OSError:
                    pass
        except OSError:
            pass
    return found


def killed_run(tmp):
    """SIGKILL to the harness: the tracers end by themselves (bpftrace's
    watchdog on our pid, setpriv --pdeathsig for mpstat), and DIR keeps
    the first manifest with the start's clock."""
    d = os.path.join(tmp, "killed")
    h = subprocess.Popen([BIN, "trace", "record", "--out", d, "--",
                          "sleep", "60"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    until = time.monotonic() + 60
    m = None
    while time.monotonic() < until:
        try:
            with open(os.path.join(d, "manifest.json")) as f:
                m = json.load(f)
            if m.get("clock"):
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    time.sleep(1.5)            # mpstat has sampled
    h.kill()
    h.wait()
    left = holders(d)
    until = time.monotonic() + 10
    while left and time.monotonic() < until:
        time.sleep(0.1)
        left = holders(d)
    check(not left, "killed harness: tracers still running, holding files "
          "of DIR: %r" % sorted(left))
    check(m is not None and m.get("complete") is False and
          len(m.get("clock", [])) == 1,
          "killed harness: the first manifest with the start's clock: %r" % m)
    if m and isinstance(m.get("pid"), int):
        try:
            os.kill(m["pid"], signal.SIGKILL)   # our sleep 60
        except OSError:
            pass


def usage_errors(tmp):
    d = os.path.join(tmp, "usage")
    p = record(d, ["true"], tracers="io,cpuu")
    check(p.returncode == 64 and "cpuu" in p.stderr and "'cpu'" in p.stderr,
          "--tracers io,cpuu: 64 with did you mean 'cpu': %d %r" %
          (p.returncode, p.stderr))
    check(not os.path.exists(d), "--tracers unknown: no directory made")
    p = subprocess.run([BIN, "trace", "record", "--out", d, "true"],
                       capture_output=True, text=True)
    check(p.returncode == 64 and "--" in p.stderr,
          "COMMAND without '--': 64: %d %r" % (p.returncode, p.stderr))
    full = os.path.join(tmp, "full")
    os.makedirs(full)
    with open(os.path.join(full, "keep.txt"), "w") as f:
        f.write("mine\n")
    p = record(full, ["true"], tracers="cpu")
    check(p.returncode == 73 and "not empty" in p.stderr,
          "non-empty DIR: 73: %d %r" % (p.returncode, p.stderr))
    check(os.listdir(full) == ["keep.txt"], "non-empty DIR left alone: %r" %
          os.listdir(full))
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    p = record(empty, ["true"], tracers="cpu")
    check(p.returncode == 0 and os.path.exists(os.path.join(empty,
                                                            "manifest.json")),
          "an empty DIR is taken: %d %r" % (p.returncode, p.stderr))
    # no bpftrace in PATH: 69 naming it and the way out
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    for prog in ("mpstat", "true"):
        os.symlink(shutil.which(prog), os.path.join(bindir, prog))
    env = dict(os.environ, PATH=bindir)
    p = record(os.path.join(tmp, "nobt"), ["true"], env=env)
    check(p.returncode == 69 and "bpftrace" in p.stderr and
          "--tracers cpu" in p.stderr,
          "no bpftrace: 69 naming it and --tracers cpu: %d %r" %
          (p.returncode, p.stderr))
    p = record(os.path.join(tmp, "nobt2"), ["true"], tracers="cpu", env=env)
    check(p.returncode == 0, "no bpftrace, --tracers cpu runs: %d %r" %
          (p.returncode, p.stderr))
    # not root: 69 naming root and the way out (as nobody, when setpriv is
    # there and nobody can reach the binary)
    if shutil.which("setpriv"):
        nd = tempfile.mkdtemp(prefix="rec-nobody-")
        os.chmod(nd, 0o777)
        q = subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534",
                            "--clear-groups", BIN, "trace", "record", "--out",
                            os.path.join(nd, "d"), "--", "true"],
                           capture_output=True, text=True)
        if q.returncode == 126 or "Permission denied" in q.stderr:
            print("not root: not checked (nobody cannot run %s)" % BIN)
        else:
            check(q.returncode == 69 and "root" in q.stderr and
                  "--tracers cpu" in q.stderr,
                  "not root: 69 naming root and --tracers cpu: %d %r" %
                  (q.returncode, q.stderr))
        shutil.rmtree(nd, ignore_errors=True)
        non_root_checked_before_scripts()
    command_is_a_directory(tmp)


def non_root_checked_before_scripts():
    """non_root_said_scripts_missing (issue 24 item 12): a streamtime whose
    bpftrace scripts are not where it looks (a checkout under /root that
    nobody can read, here a copy of the binary alone), run by a user who is
    not root, said 66 "the bpftrace scripts are not where this streamtime
    looks"; that it needs root (69, --tracers cpu) is what helps."""
    if not shutil.which("setpriv"):
        print("non_root_said_scripts_missing: not checked (no setpriv)")
        return
    nd = tempfile.mkdtemp(prefix="rec-alone-")
    try:
        os.chmod(nd, 0o777)
        exe = os.path.join(nd, "streamtime")
        shutil.copy(BIN, exe)
        os.chmod(exe, 0o755)
        q = subprocess.run(["setpriv", "--reuid", "65534", "--regid",
                            "65534", "--clear-groups", exe, "trace",
                            "record", "--out", os.path.join(nd, "d"), "--",
                            "true"], capture_output=True, text=True)
        check(q.returncode == 69 and "needs root" in q.stderr and
              "--tracers cpu" in q.stderr and "scripts" not in q.stderr,
              "non_root_said_scripts_missing: not root and no scripts: 69 "
              "naming root and --tracers cpu: %d %r" %
              (q.returncode, q.stderr))
        check(not os.path.exists(os.path.join(nd, "d")),
              "non_root_said_scripts_missing: no DIR made")
        # as root the missing scripts are what stops it: 66 naming them
        q = subprocess.run([exe, "trace", "record", "--out",
                            os.path.join(nd, "r"), "--tracers", "io",
                            "--", "true"], capture_output=True, text=True)
        if shutil.which("bpftrace"):
            check(q.returncode == 66 and "bpftrace scripts" in q.stderr,
                  "root, no scripts: 66 naming them: %d %r" %
                  (q.returncode, q.stderr))
    finally:
        shutil.rmtree(nd, ignore_errors=True)


def command_is_a_directory(tmp):
    """directory_command_started_tracers (issue 24 item 14): `trace record
    -- /tmp` passed the check of COMMAND (access(X_OK) is true of a
    directory), started bpftrace and mpstat, then failed with 126 and a
    spurious "mpstat failed".  A COMMAND that is a directory is 126 before
    anything starts: no DIR, no tracer's word."""
    d = os.path.join(tmp, "dircmd")
    p = record(d, [tmp], tracers="cpu")
    check(p.returncode == 126 and "directory" in p.stderr and
          "mpstat" not in p.stderr,
          "directory_command_started_tracers: 126 saying it is a directory, "
          "nothing of mpstat: %d %r" % (p.returncode, p.stderr))
    check(not os.path.exists(d),
          "directory_command_started_tracers: no DIR made (no tracer ran)")


LAUNCHER = """
import os, sys, time
side, a, b = sys.argv[1], sys.argv[2], sys.argv[3]
def work(path, n, delay, tag):
    time.sleep(delay)
    fd = os.open(path, os.O_RDONLY)
    got = len(os.read(fd, n))
    os.close(fd)
    with open(side + "." + tag, "w") as f:
        f.write("%d %d\\n" % (os.getpid(), got))
if os.fork() == 0:                 # a worker, left running
    work(a, 100, 1.0, "worker")
    os._exit(0)
mid = os.fork()
if mid == 0:                       # a daemon: setsid, fork, the parent ends
    os.setsid()
    if os.fork() == 0:
        work(b, 200, 1.3, "daemon")
    os._exit(0)
os.waitpid(mid, 0)
print("launched")
"""


def follow_children(tmp):
    """record_stopped_with_children_running (issue 24 item 15): a launcher
    that starts a worker and a daemon (setsid, double fork) and returns
    ended the record at once; the two then read their files untraced, and
    nothing said so.  Without --follow-children the record still ends with
    the launcher, but a warning names the two pids and the manifest counts
    them (left_running 2); with it the record lasts until the last one
    ends, and both reads (100 and 200 bytes, by the pids the processes
    wrote themselves) are in trace_read.out."""
    d = os.path.join(tmp, "follow")
    os.makedirs(d)
    a, b = os.path.join(d, "a.bin"), os.path.join(d, "b.bin")
    for path in (a, b):
        with open(path, "wb") as f:
            f.write(os.urandom(4096))
    script = os.path.join(d, "launcher.py")
    with open(script, "w") as f:
        f.write(LAUNCHER)

    def truth(side):
        """{tag: (pid, bytes)} as the processes wrote it, once both ended."""
        until = time.time() + 10
        got = {}
        while time.time() < until and len(got) < 2:
            for tag in ("worker", "daemon"):
                try:
                    with open(side + "." + tag) as f:
                        pid, n = f.read().split()
                    got[tag] = (int(pid), int(n))
                except (OSError, ValueError):
                    pass
            time.sleep(0.05)
        return got

    for follow in (False, True):
        out = os.path.join(d, "rec%d" % follow)
        side = os.path.join(d, "side%d" % follow)
        args = [BIN, "trace", "record", "--out", out, "--tracers", "io,proc"]
        if follow:
            args.append("--follow-children")
        p = subprocess.run(args + ["--", sys.executable, script, side, a, b],
                           capture_output=True, text=True, timeout=120)
        what = "record_stopped_with_children_running (%s)" % (
            "--follow-children" if follow else "default")
        if not check(p.returncode == 0, "%s: exit %d %r" %
                     (what, p.returncode, p.stderr)):
            continue
        t = truth(side)
        if not check(len(t) == 2 and t["worker"][1] == 100 and
                     t["daemon"][1] == 200, "%s: the workload ran: %r" %
                     (what, t)):
            continue
        m = load_manifest(out, what)
        reads, bad = parse_calls(os.path.join(out, "trace_read.out"), "read")
        seen = {tag: [c for c in reads if c["pid"] == pid and
                      c["path"] == path and c["ret"] == n]
                for (tag, (pid, n)), path in zip(sorted(t.items()), (b, a))}
        if follow:
            check(all(len(v) == 1 for v in seen.values()),
                  "%s: the worker's and the daemon's reads are traced: %r" %
                  (what, seen))
            check(m and m.get("left_running") == 0 and
                  m.get("follow_children") is True,
                  "%s: manifest left_running 0, follow_children true: %r" %
                  (what, m and (m.get("left_running"),
                                m.get("follow_children"))))
            check(m and m["clock"][1]["mono_ns"] - m["clock"][0]["mono_ns"]
                  >= 1.3e9, "%s: the record lasts until the daemon ends "
                  "(>= 1.3 s)" % what)
            check("still run" not in p.stderr, "%s: no warning: %r" %
                  (what, p.stderr))
        else:
            pids = [str(v[0]) for v in t.values()]
            check("still run" in p.stderr and "untraced" in p.stderr and
                  all(x in p.stderr for x in pids) and
                  "--follow-children" in p.stderr,
                  "%s: a warning names the 2 processes left (%s) and "
                  "--follow-children: %r" % (what, pids, p.stderr))
            check(m and m.get("left_running") == 2,
                  "%s: manifest left_running 2: %r" %
                  (what, m and m.get("left_running")))
            check(not any(seen.values()), "%s: their reads came after the "
                  "record stopped: %r" % (what, seen))
    # following, signals go to the processes left; a third one kills them
    # (a background job of sh ignores SIGINT)
    out = os.path.join(d, "recsig")
    proc = subprocess.Popen([BIN, "trace", "record", "--out", out,
                             "--tracers", "cpu", "--follow-children", "--",
                             "sh", "-c", "setsid sleep 60 & echo $!"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    line = proc.stdout.readline()
    if not check(line.strip().isdigit(), "follow_children: the process "
                 "left is started: %r" % line):
        proc.kill()
        proc.communicate()
        return
    left = int(line)
    time.sleep(0.5)
    for _ in range(3):
        proc.send_signal(signal.SIGINT)
        time.sleep(0.2)
    try:
        proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
    try:                                  # gone, or a zombie not yet reaped
        with open("/proc/%d/stat" % left) as f:
            gone = f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        gone = True
    check(proc.returncode == 0 and gone, "follow_children: three SIGINTs "
          "end the record and the process left (%d): exit %s, %s" %
          (left, proc.returncode, "gone" if gone else "still there"))
    m = load_manifest(out, "follow_children signals")
    check(m and m.get("signal") == "SIGINT", "follow_children: the signal "
          "in the manifest: %r" % (m and m.get("signal")))


RACE_WORKLOAD = """
import os, sys, threading
def loop(names):
    for _ in range(int(sys.argv[1])):
        for n in names:
            fd = os.open(n, os.O_RDONLY)
            os.read(fd, 100)
            os.close(fd)
ts = [threading.Thread(target=loop, args=(sys.argv[2:4],)),
      threading.Thread(target=loop, args=(sys.argv[4:6],))]
for t in ts:
    t.start()
for t in ts:
    t.join()
"""


def close_path_race(tmp):
    """close_forgot_other_threads_file: io.bt forgot an fd's path at
    close's exit, by which time another thread's openat could have been
    given the same fd; that thread's reads then had no file (about 4 % of
    the reads here before the fix).  Two threads of one process open,
    read and close four files 3,000 times each: every read must name
    its file."""
    d = os.path.join(tmp, "race")
    os.makedirs(d)
    files = []
    for i in range(4):
        files.append(os.path.join(d, "f%d.bin" % i))
        with open(files[-1], "wb") as f:
            f.write(os.urandom(5000))
    script = os.path.join(d, "work.py")
    with open(script, "w") as f:
        f.write(RACE_WORKLOAD)
    out = os.path.join(d, "rec")
    p = record(out, [sys.executable, script, "3000"] + files, tracers="io")
    if not check(p.returncode == 0, "close race: exit %d, stderr %s" %
                 (p.returncode, p.stderr[-500:])):
        return
    reads, bad = parse_calls(os.path.join(out, "trace_read.out"), "read")
    check(not bad, "close race: lines that do not parse: %r" % bad[:3])
    ours = [c for c in reads if c["ret"] == 100]
    named = sum(1 for c in ours if c["path"] in files)
    check(len(ours) == 12000 and named == len(ours),
          "close_forgot_other_threads_file: %d of %d reads of 100 bytes "
          "name their file (12000 made)" % (named, len(ours)))


def main():
    if os.geteuid() != 0:
        setup_rule.missing(TEST, "trace record's tracers need root")
    setup_rule.need(TEST, PACKAGES)
    for prog in ("bpftrace", "mpstat"):
        if not shutil.which(prog):
            setup_rule.broken(TEST, prog, "not in PATH")
    tmp = tempfile.mkdtemp(prefix="rec-check-")
    try:
        main_run(tmp)
        failing_runs(tmp)
        interrupted_run(tmp)
        killed_run(tmp)
        usage_errors(tmp)
        close_path_race(tmp)
        follow_children(tmp)
    finally:
        if not FAILS:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept", tmp, file=sys.stderr)
    sys.exit(report("trace-record"))


if __name__ == "__main__":
    main()
