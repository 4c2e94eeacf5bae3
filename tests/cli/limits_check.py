#!/usr/bin/env python3
"""Numbers at their limits and records cut short (issue 24 items 4, 8, 10
and 14a): system traces and summary partials written here, each held
against what this script computes itself.

  * a time that does not fit in int64 ns is a bad line, never a wrapped
    date: a bpftrace TIMESTAMP near 2^63 with the manifest's offset,
    strace's -T duration <99999999999999999.000000>, an MLLOG time_ms of
    999999999999999;
  * a manifest whose clock pairs leave int64 or imply a rate more than 1 %
    from 1 s per s is 65 naming it; a slope within 1 % is applied exactly;
    a manifest that is no object names no line ("manifest.json:-1");
  * a killed `trace record` (manifest "complete": false, bpftrace's output
    left unsplit in .bpftrace.out): warned, the counts shown, its calls
    read; a complete one's lost events said; and, as root with bpftrace, a
    real record SIGKILLed (skipped off CI when not root, setup_rule.py);
  * impossible values: mpstat's header dated 02/31/2026 (65), pmon sm/mem
    beyond 100 % and a pmon date that does not exist (bad lines);
  * tampered summary partials: sizes counting more calls than the tables,
    first_us after end_us (65).

The formats are written from the tools' own code: bpftrace lines as
data/bpftrace/io.bt and proc.bt print them ("R %lu %d %d %d %ld %lu %s"),
split as trace record's st_record_split does; mpstat's first line as
sysstat's print_gal_header ("%s %s (%s) \\t%s \\t_%s_\\t(%d CPU)", the date
by strftime %x); strace -f -ttt -T as strace's syscall.c (" <%ld.%06ld>");
MLLOG as mlperf_logging's _encode_log (":::MLLOG " + json.dumps of
namespace, time_ms, event_type, key, value, metadata); nvidia-smi pmon as
the real sample in ../shared/fixtures/systrace.

usage: limits_check.py STREAMTIME
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run_in_tmp  # noqa: E402
from checks import run as run_cmd  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
H = "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n"
OFF = 1700000000000000000
M = {"clock": [{"mono_ns": 0, "real_ns": OFF, "bound_ns": 1}]}
I64 = 2**63 - 1
CPU_HDR = ("10:00:01     CPU    %usr   %nice    %sys %iowait    %irq   "
           "%soft  %steal  %guest  %gnice   %idle\n")
PMON_HDR = ("#Date       Time        gpu        pid  type    sm   mem   enc   "
            "dec    fb   command\n"
            "#YYYYMMDD   HH:MM:SS    Idx          #   C/G     %     %     % "
            "    %    MB   name\n")


def run(*args, env=None):
    p = run_cmd(BIN, "trace", *args, env=env, text=False)
    return p.returncode, p.stdout.decode(errors="replace"), \
        p.stderr.decode(errors="replace")


def mkset(tmp, name, files):
    d = os.path.join(tmp, name)
    os.mkdir(d)
    for f, text in files.items():
        with open(os.path.join(d, f), "w") as fp:
            fp.write(text if isinstance(text, str) else json.dumps(text))
    return d


def events(d, *extra):
    rc, out, err = run("events", "--format", "jsonl", d, *extra)
    return rc, [json.loads(x) for x in out.splitlines() if x], err


def summary(d, *extra, env=None):
    rc, out, err = run("summary", "--json", d, *extra, env=env)
    return rc, (json.loads(out) if rc == 0 else None), err


def file_stat(js, name):
    for f in js["system"][0]["files"]:
        if f["file"] == name:
            return f
    return {}


def mllog(t, et, key, num=None):
    return ":::MLLOG " + json.dumps({
        "namespace": "", "time_ms": t, "event_type": et, "key": key,
        "value": None, "metadata": {"epoch_num": num} if num else {}})


def overflow(tmp):
    # bpftrace_timestamp_overflow_is_bad_line: 9e18 + the offset passes
    # 2^63 (was dated 1724-07-07)
    d = mkset(tmp, "ts", {"manifest.json": M, "trace_read.out":
                          H + "9000000000000000000 7 7 3 10 100 /x\n"
                          "1000000000 7 7 3 10 100 /y\n"})
    rc, ev, err = events(d)
    want = (OFF + 1000000000 - 100) // 1000
    check(rc == 0 and [(e["file"], e["ts"]) for e in ev] == [("/y", want)]
          and "trace_read.out:2" in err and "out of range" in err,
          "bpftrace_timestamp_overflow_is_bad_line: exit %d, %s, %s"
          % (rc, [(e["file"], e["ts"], e["start"]) for e in ev], err))
    rc, js, err = summary(d)
    check(rc == 0 and js["events"] == 1 and js["bad_lines"] == 1 and
          file_stat(js, "trace_read.out").get("bad_lines") == 1,
          "bpftrace_timestamp_overflow_is_bad_line (summary): exit %d, %s"
          % (rc, err if not js else (js["events"], js["bad_lines"])))

    # strace_duration_overflow_is_bad_line: -T of 1e17 s (was 2e17 µs)
    d = mkset(tmp, "st", {"strace.out":
                          '7 1700000000.000000 read(3, "x", 1) = 1 '
                          '<99999999999999999.000000>\n'
                          '7 1700000001.000000 read(3, "x", 1) = 1 '
                          '<0.000010>\n'})
    rc, ev, err = events(d)
    check(rc == 0 and [(e["ts"], e["dur"]) for e in ev] ==
          [(1700000001000000, 10)] and "strace.out:1" in err,
          "strace_duration_overflow_is_bad_line: exit %d, %s, %s"
          % (rc, [(e["ts"], e["dur"]) for e in ev], err))

    # mllog_time_ms_overflow_is_bad_line: time_ms 999999999999999 (its
    # phase was put in 2092)
    t0 = 1700000000000
    d = mkset(tmp, "ml", {"app.log": "\n".join([
        mllog(999999999999999, "INTERVAL_START", "epoch_start", 1),
        mllog(t0, "INTERVAL_START", "epoch_start", 2),
        mllog(t0 + 1500, "INTERVAL_END", "epoch_stop", 2)]) + "\n"})
    rc, js, err = summary(d)
    ph = js and [(p["name"], p["start_ns"], p["end_ns"])
                 for p in js["system"][0]["phases"]]
    check(rc == 0 and ph == [("epoch 2", t0 * 10**6, (t0 + 1500) * 10**6)]
          and file_stat(js, "app.log").get("bad_lines") == 1
          and "app.log:1" in err,
          "mllog_time_ms_overflow_is_bad_line: exit %d, %s, %s"
          % (rc, ph, err))


def manifests(tmp):
    line = H + "1000000000 7 7 3 10 100 /y\n"
    # manifest_clock_out_of_range_is_65: +-(2^63-1) (UBSan at the offset
    # and at its difference)
    for tag, clock in (
            ("real_max", [{"mono_ns": 0, "real_ns": I64, "bound_ns": 1}]),
            ("mono_max", [{"mono_ns": I64, "real_ns": -I64,
                           "bound_ns": 1}]),
            ("pair_max", [{"mono_ns": 0, "real_ns": -I64, "bound_ns": 1},
                          {"mono_ns": 1, "real_ns": I64, "bound_ns": 1}])):
        d = mkset(tmp, "m_" + tag, {"manifest.json": {"clock": clock},
                                    "trace_read.out": line})
        rc, out, err = run("summary", d)
        check(rc == 65 and "manifest.json" in err and not out,
              "manifest_clock_out_of_range_is_65 (%s): exit %d, %s"
              % (tag, rc, err))
    # manifest_steep_slope_is_65: real moves 1.1 s per s of mono (printed
    # "UTC = nsecs + 1700000000000000000 ns" yet dated the events 1731)
    for tag, rate in (("fast", 1.1), ("backwards", -1.0), ("stopped", 0)):
        d = mkset(tmp, "s_" + tag, {"manifest.json": {"clock": [
            {"mono_ns": 0, "real_ns": OFF, "bound_ns": 1},
            {"mono_ns": 10**9, "real_ns": OFF + int(rate * 10**9),
             "bound_ns": 1}]}, "trace_read.out": line})
        rc, out, err = run("summary", d)
        check(rc == 65 and "manifest.json" in err and "1 %" in err,
              "manifest_steep_slope_is_65 (%s): exit %d, %s"
              % (tag, rc, err))
    # a drift within 1 %: 10 ms over 1000 s, interpolated exactly
    d = mkset(tmp, "drift", {"manifest.json": {"clock": [
        {"mono_ns": 0, "real_ns": OFF, "bound_ns": 1},
        {"mono_ns": 10**12, "real_ns": OFF + 10**12 + 10**7,
         "bound_ns": 1}]},
        "trace_read.out": H + "500000000000 7 7 3 10 0 /y\n"})
    rc, ev, err = events(d)
    want = (OFF + 500000000000 + 5 * 10**6) // 1000
    check(rc == 0 and [e["ts"] for e in ev] == [want],
          "manifest_drift_within_1_percent_interpolated: exit %d, %s "
          "(want %d), %s" % (rc, [e["ts"] for e in ev], want, err))
    # manifest_not_object_names_no_line: '[1]' said "manifest.json:-1"
    d = mkset(tmp, "arr", {"manifest.json": "[1]", "trace_read.out": line})
    rc, out, err = run("summary", d)
    check(rc == 65 and "manifest.json" in err and ":-1" not in err and
          "not a JSON object" in err,
          "manifest_not_object_names_no_line: exit %d, %s" % (rc, err))


def killed(tmp):
    # killed_record_reads_unsplit_output: as io.bt/proc.bt print (tag, a
    # space, the line); trace record wrote its manifest at the start
    # ("complete": false, no counts) and was killed before the split
    calls = [("R", 2000000000, 7, 7, 3, 100, 500, "a.npz"),
             ("W", 2100000000, 7, 8, 4, 50, 400, "b.out"),
             ("R", 2200000000, 7, 7, 3, 4096, 900, "a.npz"),
             ("C", 2300000000, 7, 7, 3, 0, 300, "a.npz")]
    raw = ["Attaching 14 probes..."]
    raw += ["%s %d %d %d %d %d %d %s" % c for c in calls[:2]]
    raw += ["Lost 3 events", "Lost 2 events"]
    raw += ["%s %d %d %d %d %d %d %s" % c for c in calls[2:]]
    raw += ["P 2400000000 exec 7 -1 python", "R 2500000000 7 7 3 1"]
    man = {"streamtime_record": 1, "complete": False, "host": "node1",
           "tz": "UTC", "command": ["python", "train.py"], "pid": 7,
           "exit_status": None,
           "clock": [{"when": "start", "mono_ns": 10**9,
                      "real_ns": OFF + 10**9, "bound_ns": 100}],
           "tracers": [{"name": "io", "program": "bpftrace",
                        "files": ["trace_read.out", "trace_write.out",
                                  "trace_openat.out", "trace_close.out"],
                        "ran": True}]}
    d = mkset(tmp, "killed", {"manifest.json": man,
                              ".bpftrace.out": "\n".join(raw)})
    tdir = os.path.join(tmp, "tmpdir")
    os.mkdir(tdir)
    env = dict(os.environ, TMPDIR=tdir)
    rc, js, err = summary(d, env=env)
    reads = [c for c in calls if c[0] == "R"]
    by = js and js["by_name"]
    check(rc == 0 and js["events"] == len(calls) and
          by["read"]["count"] == len(reads) and
          by["read"]["bytes"] == sum(c[5] for c in reads) and
          by["write"]["bytes"] == 50 and js["bad_lines"] == 1,
          "killed_record_reads_unsplit_output: exit %d, %s, %s"
          % (rc, js and (js["events"], js["bad_lines"], by), err))
    check("incomplete record" in err and "5 lost events" in err and
          ".bpftrace.out" in err,
          "killed_record_warns_with_counts: %s" % err)
    check(os.listdir(tdir) == [],
          "killed_record_leaves_no_temporary: %s" % os.listdir(tdir))
    # a complete record whose bpftrace lost events: said, with the counts
    man["complete"] = True
    man["tracers"][0].update(lost_events=7, bad_lines=2)
    d = mkset(tmp, "lossy", {"manifest.json": man, "trace_read.out":
                             "TIMESTAMP PID TID FD RET (B) LAT(ns) "
                             "FILENAME\n2000000000 7 7 3 100 500 a.npz\n"})
    rc, js, err = summary(d)
    check(rc == 0 and js["events"] == 1 and "lost 7 events" in err and
          "printed 2 lines" in err and "incomplete" not in err,
          "complete_record_says_lost_events: exit %d, %s" % (rc, err))


def impossible(tmp):
    t0 = 1700000000000
    # cpu_header_impossible_date_is_65: put on March 3 before
    d = mkset(tmp, "cpu", {
        "cpu.out": "Linux 6.1.0 (node1) \t02/31/2026 \t_x86_64_\t(2 CPU)"
                   "\n\n" + CPU_HDR + "10:00:02     all   40.00    0.00    "
                   "5.00    2.00    0.00    0.00    0.00    0.00    0.00   "
                   "53.00\n",
        "app.log": mllog(t0, "INTERVAL_START", "epoch_start", 1) + "\n"})
    rc, out, err = run("summary", d)
    check(rc == 65 and "cpu.out:1" in err and "2026-02-31" in err,
          "cpu_header_impossible_date_is_65: exit %d, %s" % (rc, err))

    # pmon_percent_over_100_is_bad_line: sm 2^63-1 and mem 250 were
    # counters of 9.2e18 % and 250 %; a pmon date 20230229 does not exist
    day = "20231114"     # t0 is 2023-11-14T22:13:20Z
    rows = [" %s   22:13:21      0       4242     C   %s   %s     -     -"
            "   100   python" % (day, sm, mem)
            for sm, mem in (("30", "20"), (str(I64), "10"), ("40", "250"))]
    rows.append(" 20230229   22:13:22      0       4242     C    50    50     "
                "-     -   100   python")
    d = mkset(tmp, "pmon", {
        "gpu.out": PMON_HDR + "\n".join(rows) + "\n",
        "app.log": "\n".join([
            mllog(t0, "INTERVAL_START", "epoch_start", 1),
            mllog(t0 + 5000, "INTERVAL_END", "epoch_stop", 1)]) + "\n"})
    rc, js, err = summary(d)
    g = js and js["system"][0]["phases"][0]["gpus"]
    check(rc == 0 and file_stat(js, "gpu.out").get("bad_lines") == 3 and
          len(g) == 1 and g[0]["sm"] == 30 and g[0]["mem"] == 20 and
          g[0]["samples"] == 1,
          "pmon_percent_over_100_is_bad_line: exit %d, %s, %s"
          % (rc, g, js and file_stat(js, "gpu.out")))


def partials(tmp):
    # tampered partials: made from a trace written here (one read of 100
    # bytes, one of 300), then edited
    pfw = os.path.join(tmp, "t.pfw")
    with open(pfw, "w") as f:
        for i, (ts, ret) in enumerate(((10, 100), (50, 300))):
            f.write(json.dumps({"id": i, "name": "read", "cat": "POSIX",
                                "pid": 1, "tid": 1, "ts": ts, "dur": 5,
                                "ph": "X", "args": {"ret": ret}}) + "\n")
    part = os.path.join(tmp, "p.json")
    rc, out, err = run("summary", "--save-partial", part, pfw)
    with open(part) as f:
        base = json.load(f)
    check(rc == 0 and sorted(s[1:] for s in base["sizes"]) ==
          [[100, 1], [300, 1]],
          "partial made: exit %d, %s, %s" % (rc, base.get("sizes"), err))

    def tampered(tag, edit, needle):
        p = json.loads(json.dumps(base))
        edit(p)
        path = os.path.join(tmp, tag + ".json")
        with open(path, "w") as f:
            json.dump(p, f)
        rc, out, err = run("merge", path)
        check(rc == 65 and tag + ".json" in err and needle in err,
              "%s: exit %d, %s" % (tag, rc, err or out[:300]))

    # partial_sizes_beyond_counts_is_65: wrapped the quartiles' count
    tampered("partial_sizes_beyond_counts_is_65",
             lambda p: p["sizes"].extend([[0, 200, I64], [0, 400, I64]]),
             "sizes")
    tampered("partial_size_count_over_table_is_65",
             lambda p: p["sizes"].append([0, 200, 1]), "sizes")

    def first_after_end(p):
        p["first_us"] = p["end_us"] + 1

    def file_first_after_end(p):
        p["files"][0]["first_us"] = p["files"][0]["end_us"] + 1
    # partial_first_after_end_is_65: shrank the span
    tampered("partial_first_after_end_is_65", first_after_end, "first_us")
    tampered("partial_file_first_after_end_is_65", file_first_after_end,
             "malformed")


WORKLOAD = r"""
import os, sys, time
data, truth = sys.argv[1], sys.argv[2]
with open(data, "wb") as f:
    f.write(b"x" * 4096)
t = os.open(truth, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
n = 0
while n < 100000:
    with open(data, "rb") as f:
        f.read(4096)
    n += 1
    os.write(t, b"%d\n" % n)
    time.sleep(0.002)
"""


def killed_real(tmp):
    """killed_record_real: a real `trace record` SIGKILLed while its
    command reads a file (read 0 events before)."""
    import signal
    import time
    import setup_rule
    # root, then bpftrace (its io and proc tracers), installed on first use
    why = (True, "needs root") if os.geteuid() != 0 else \
        setup_rule.install(["bpftrace"])
    if why:
        if why[0] and setup_rule.may_skip():
            print("killed_record_real: skipped: %s" % why[1])
            return
        check(False, "killed_record_real: %s" % why[1])
        return
    out, wl = os.path.join(tmp, "rec"), os.path.join(tmp, "wl.py")
    data, truth = os.path.join(tmp, "wl.dat"), os.path.join(tmp, "truth")
    with open(wl, "w") as f:
        f.write(WORKLOAD)
    rec = subprocess.Popen([BIN, "trace", "record", "--out", out,
                            "--tracers", "io,proc", "--", sys.executable,
                            wl, data, truth],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    n = 0
    for _ in range(600):            # the probes attach in about 1 s
        time.sleep(0.1)
        try:
            with open(truth) as f:
                n = len(f.read().split())
        except OSError:
            pass
        if n >= 300 or rec.poll() is not None:
            break
    rec.send_signal(signal.SIGKILL)
    rec.wait()
    with open(os.path.join(out, "manifest.json")) as f:
        pid = json.load(f).get("pid")
    if pid:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    time.sleep(1)                   # bpftrace drains and ends
    with open(truth) as f:
        done = len(f.read().split())
    rc, ev, err = events(out, "--filter", "name=read",
                         "--filter", "file=" + data)
    sizes = {e["bytes"] for e in ev}
    check(rc == 0 and 0 < len(ev) <= done and sizes == {4096} and
          "incomplete record" in err,
          "killed_record_real: exit %d, %d reads of %s read back (the "
          "workload made %d, %d at the kill), sizes %s: %s"
          % (rc, len(ev), data, done, n, sizes, err[-600:]))


def body(tmp):
    overflow(tmp)
    manifests(tmp)
    killed(tmp)
    impossible(tmp)
    partials(tmp)
    killed_real(tmp)


if __name__ == "__main__":
    sys.exit(run_in_tmp("limits_check", body))
