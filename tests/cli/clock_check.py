#!/usr/bin/env python3
"""CLI tests of `streamtime clock` (SPEC 5.3) against shifted clocks.

usage: clock_check.py STREAMTIME {local|paths|ssh|faults|merge}

Shifted clocks come from libfaketime (`shifted.sh +1.234 CMD`), so the true
offset of every target is known exactly.  For each probe the test checks
that the reported bound contains the truth, and on loopback that the error
is at most 0.5 ms.  Delayed paths go through tests/cli/udp_delay_proxy.py
(user space: the kernel's netem is not available here).
"""
import csv
import faulthandler
import io
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

faulthandler.dump_traceback_later(int(os.environ.get("ST_TEST_DUMP", "900")), exit=True)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import setup_rule  # noqa: E402
import sshd_helper  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
# clocks are shifted by preloading libfaketime (tests/cli/shifted.sh), not
# with the faketime wrapper, which leaks per-pid semaphores when killed
SHIFTED = os.path.join(HERE, "shifted.sh")
MODE = sys.argv[2]
# the Debian packages of each mode, installed on first use (setup_rule)
PACKAGES = {"local": ["libfaketime"], "paths": ["libfaketime"],
            "ssh": ["libfaketime", "openssh-client", "openssh-server"],
            "faults": [], "merge": ["libfaketime"]}[MODE]
from checks import check, report, runner  # noqa: E402
STARTED = []        # every server started, stopped however the test ends
HEADER = "measured_at,reference,target,offset_ms,delay_ms,bound_ms,samples,method"


def probe(*args, timeout=120):
    p = subprocess.run([BIN, "clock", "probe", *args], capture_output=True,
                       text=True, timeout=timeout)
    rows = []
    if p.stdout.startswith(HEADER):
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
    return p, rows


def honest(row, truth_ms, what, accuracy_ms=None):
    off, bound = float(row["offset_ms"]), float(row["bound_ms"])
    err = off - truth_ms
    check(abs(err) <= bound, "%s: |%.6f - %.3f| = %.6f ms > bound %.6f ms"
          % (what, off, truth_ms, abs(err), bound))
    if accuracy_ms is not None:
        check(abs(err) <= accuracy_ms, "%s: error %.6f ms > %.3f ms"
              % (what, err, accuracy_ms))
    return err


def serve(shift, tmp, *extra):
    """`shifted.sh SHIFT streamtime clock serve` on a free loopback port."""
    cmd = [SHIFTED, shift] if shift else []
    # its own session: the whole group is stopped
    proc = subprocess.Popen(cmd + [BIN, "clock", "serve", "--listen",
                                   "127.0.0.1:0", *extra],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    STARTED.append(proc)
    line = proc.stderr.readline()
    m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    if not m:
        proc.kill()
        raise RuntimeError("clock serve did not start: %r" % line)
    return proc, int(m.group(1))


def stop(proc):
    """SIGTERM to the process group of PROC; its exit status."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    return proc.wait(10)


def test_local(tmp):
    stats = []
    for shift, truth in (("+1.234", 1234.0), ("-0.777", -777.0)):
        exe = "exec:%s %s %s clock responder" % (SHIFTED, shift, BIN)
        srv, port = serve(shift, tmp)
        for i in range(10):
            p, rows = probe("pipe=" + exe, "udp=udp://127.0.0.1:%d" % port,
                            "--samples", "16")
            check(p.returncode == 0 and len(rows) == 2,
                  "local %s: %d %s" % (shift, p.returncode, p.stderr))
            for row in rows:
                e = honest(row, truth, "%s %s #%d" % (row["target"], shift, i),
                           accuracy_ms=0.5)
                stats.append((row["method"], abs(e), float(row["bound_ms"])))
                check(row["samples"] == "16", "16 samples")
        stop(srv)
    for m in ("exec", "udp"):
        errs = [e for k, e, _ in stats if k == m]
        bounds = [b for k, _, b in stats if k == m]
        print("%s: %d probes, max |error| %.4f ms, max bound %.4f ms"
              % (m, len(errs), max(errs), max(bounds)))

    # rows appended to a file, header once; the target name and method
    out = os.path.join(tmp, "offsets.csv")
    for _ in range(2):
        p, _ = probe("rec0=exec:%s +1.234 %s clock responder" % (SHIFTED, BIN),
                     "--out", out, "--samples", "4", "--reference", "ncem")
        check(p.returncode == 0 and p.stdout == "", "--out: " + p.stderr)
    with open(out) as f:
        text = f.read()
    lines = text.splitlines()
    check(lines[0] == HEADER and len(lines) == 3 and
          all(",ncem,rec0," in l and l.endswith(",4,exec") for l in lines[1:]),
          "--out appends rows: " + text)
    with open(out, "a") as f:
        f.write("2026-01-01T00:00:00+00:00,ncem,rec0,1.0")     # torn
    p, _ = probe("exec:%s clock responder" % BIN, "--out", out, "--samples", "2")
    with open(out) as f:
        lines = f.read().splitlines()
    check(p.returncode == 0 and len(lines) == 4 and
          all(len(l.split(",")) == 8 for l in lines),
          "--out repairs a torn last line: %s" % lines)

    # usage errors
    for bad in ("ftp://x", "udp://", "ssh://-oProxyCommand=x", "udp://h:99999",
                "=exec:x", "exec:"):
        p, _ = probe(bad)
        check(p.returncode == 64, "bad target %r: %d" % (bad, p.returncode))


def proxied(tmp, out_ms, out_j, back_ms, back_j, seed):
    srv, port = serve("+1.234", tmp)
    lport = sshd_helper.free_port()
    proxy = subprocess.Popen([sys.executable, os.path.join(HERE,
                              "udp_delay_proxy.py"), str(lport), str(port),
                              str(out_ms), str(out_j), str(back_ms),
                              str(back_j), str(seed)],
                             stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
    STARTED.append(proxy)
    check(proxy.stdout.readline().strip() == "ready", "proxy ready")
    return srv, proxy, lport


def test_paths(tmp):
    for name, args, lo, hi in (
            ("symmetric 10+-2 ms", (10, 2, 10, 2), 0.0, 2.5),
            ("asymmetric 2 ms out, 12 ms back", (2, 0.2, 12, 0.2), 3.5, 7.0)):
        srv, proxy, lport = proxied(tmp, *args, seed=7)
        errs, bounds = [], []
        for i in range(10):
            p, rows = probe("udp://127.0.0.1:%d" % lport, "--samples", "8",
                            "--sample-timeout", "0.5")
            check(p.returncode == 0 and len(rows) == 1,
                  "%s: %d %s" % (name, p.returncode, p.stderr))
            if rows:
                e = honest(rows[0], 1234.0, "%s #%d" % (name, i))
                errs.append(e)
                bounds.append(float(rows[0]["bound_ms"]))
        # the asymmetry really was there: offset off by about (2-12)/2 ms
        # on average (single probes vary with the load of the machine; the
        # bound above must hold for every one)
        mean = sum(abs(e) for e in errs) / max(1, len(errs))
        check(errs and lo <= mean <= hi,
              "%s: mean |error| %.3f of %s not in [%g, %g]"
              % (name, mean, errs, lo, hi))
        print("%s: errors %.3f..%.3f ms, bounds %.3f..%.3f ms, all covered"
              % (name, min(errs), max(errs), min(bounds), max(bounds)))
        proxy.kill()
        proxy.wait()
        stop(srv)


def start_sshd(tmp):
    """A throwaway sshd that accepts connections, or exit: an sshd that
    does not come up is a failure (its packages are installed by main)."""
    for prog in ("ssh", "ssh-keygen"):
        if not shutil.which(prog):
            setup_rule.broken("cli-clock-ssh", "ssh", "no %s in PATH" % prog)
    if not (shutil.which("sshd") or os.path.exists("/usr/sbin/sshd")):
        setup_rule.broken("cli-clock-ssh", "sshd", "no sshd in PATH nor "
                          "/usr/sbin")
    try:
        d = sshd_helper.Sshd(tmp)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        setup_rule.broken("cli-clock-ssh", "a throwaway sshd", str(e))
    try:
        socket.create_connection(("127.0.0.1", d.port), 2).close()
    except OSError as e:
        d.stop()
        setup_rule.broken("cli-clock-ssh", "a throwaway sshd",
                          "nothing listens on 127.0.0.1:%d: %s" % (d.port, e))
    return d


def test_ssh(tmp):
    d = start_sshd(tmp)
    try:
        ssh = " ".join(d.ssh_argv())
        errs = {"ssh": [], "ssh-date": []}
        for i in range(5):
            p, rows = probe(
                "r=ssh://" + d.host, "d=ssh-date://" + d.host,
                "--ssh", ssh, "--samples", "8", "--timeout", "60",
                "--sample-timeout", "10",
                "--remote-command",
                "%s +1.234 %s clock responder" % (SHIFTED, BIN),
                "--date-command", SHIFTED + " +1.234 date +%s%N")
            check(p.returncode == 0 and len(rows) == 2,
                  "ssh #%d: %d %s" % (i, p.returncode, p.stderr))
            for row in rows:
                e = honest(row, 1234.0, "%s #%d" % (row["method"], i))
                errs[row["method"]].append((e, float(row["bound_ms"])))
        for m, v in errs.items():
            if v:
                print("%s: max |error| %.3f ms, bounds %.3f..%.3f ms"
                      % (m, max(abs(e) for e, _ in v), min(b for _, b in v),
                         max(b for _, b in v)))
        if errs["ssh"]:
            check(max(abs(e) for e, _ in errs["ssh"]) <= 0.5,
                  "ssh:// on loopback within 0.5 ms")
        # a host that refuses: warning, exit 69, the other target measured
        p, rows = probe("ssh://" + d.host, "ssh://nobody@127.0.0.1",
                        "--ssh", ssh, "--samples", "2", "--remote-command",
                        "%s clock responder" % BIN)
        check(p.returncode == 69 and len(rows) == 1 and
              "127.0.0.1" in p.stderr, "refused ssh: %d %s"
              % (p.returncode, p.stderr))
    finally:
        d.stop()


def test_faults(tmp):
    # a responder that dies after 3 exchanges: the samples taken are kept,
    # the target counts as failed (69)
    p, rows = probe("exec:dd bs=16 count=3 iflag=fullblock status=none | "
                    "%s clock responder" % BIN, "--samples", "8")
    check(p.returncode == 69 and len(rows) == 1 and rows[0]["samples"] == "3"
          and "went away after 3" in p.stderr,
          "dying responder: %d %s %s" % (p.returncode, rows, p.stderr))
    # one that never answers: per-sample and per-target timeouts
    t0 = time.monotonic()
    p, rows = probe("exec:sleep 30", "exec:%s clock responder" % BIN,
                    "--timeout", "2", "--samples", "4")
    check(p.returncode == 69 and len(rows) == 1 and
          time.monotonic() - t0 < 10, "silent responder: %d in %.1f s %s"
          % (p.returncode, time.monotonic() - t0, p.stderr))
    # one that prints a banner first (a chatty login shell) still works
    p, rows = probe("exec:echo hello; %s clock responder" % BIN, "--samples", "4")
    check(p.returncode == 0 and len(rows) == 1, "banner: %s" % p.stderr)
    # unreachable UDP target after a good one
    p, rows = probe("exec:%s clock responder" % BIN, "udp://127.0.0.1:9",
                    "--samples", "3", "--sample-timeout", "0.2")
    check(p.returncode == 69 and len(rows) == 1 and "127.0.0.1" in p.stderr,
          "unreachable udp: %d %s" % (p.returncode, p.stderr))

    # live fuzz: garbage gets silence, and the server keeps answering
    srv, port = serve(None, tmp)
    rng = random.Random(5)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(0.2)
    s.connect(("127.0.0.1", port))
    good = b"STCK\x01Q\x00\x00" + bytes(8)
    for i in range(3000):
        kind = i % 4
        if kind == 0:
            pkt = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 600)))
        elif kind == 1:        # right magic, something else wrong
            pkt = bytearray(good)
            pkt[rng.randrange(4, 16)] ^= 1 + rng.randrange(255)
            pkt = bytes(pkt) if pkt[4:8] != good[4:8] else pkt + b"x"
        elif kind == 2:        # a request with bytes missing or extra
            pkt = good[:rng.randrange(0, 16)] + bytes(rng.randrange(2)) * 0
        else:
            pkt = good + bytes(rng.randrange(1, 30))
        s.send(bytes(pkt))
    answers = 0
    try:
        while True:
            s.recv(100)
            answers += 1
    except (socket.timeout, ConnectionRefusedError):
        pass
    check(answers == 0, "garbage got %d answers" % answers)
    check(srv.poll() is None, "clock serve survived 3000 garbage datagrams")
    p, rows = probe("udp://127.0.0.1:%d" % port, "--samples", "4")
    check(p.returncode == 0 and len(rows) == 1, "serve still answers")
    check(stop(srv) == 0, "serve exits 0 on SIGTERM")


run = runner(BIN, timeout=60)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def iso(ns):
    import datetime as dt
    secs, frac = divmod(ns, 10**9)
    s = dt.datetime.fromtimestamp(secs, dt.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S")
    return s + (".%09d" % frac if frac else "") + "+00:00"


T0 = 1697213700 * 10**9             # 2023-10-13T16:15:00Z


def test_merge(tmp):
    """--clock-offsets in merge offload and merge streaming: values computed
    here from the offsets written here, then an end-to-end check with
    offsets measured by clock probe against faketime-shifted responders."""
    off = os.path.join(tmp, "offsets.csv")
    ms = 10**6
    meas = [  # target, at, offset ns, bound ns
        ("rec0", T0 - 900 * 10**9, 100 * ms, 500_000),
        ("rec0", T0 + 6300 * 10**9, 200 * ms, 700_000),
        ("rec1", T0, -50 * ms, 200_000),
        ("rec2", T0, 0, 100_000),
        ("rec3", T0, 1000 * ms, 300_000),
        ("store", T0, 10 * ms, 50_000),
        ("nersc", T0, -2000 * ms, 900_000),
    ]
    write(off, HEADER + "\n" + "".join(
        "%s,ncem,%s,%.6f,0.1,%.6f,16,udp\n" % (iso(at), t, o / 1e6, b / 1e6)
        for t, at, o, b in meas))
    offs = {}
    for t, at, o, b in meas:
        offs.setdefault(t, []).append((at, o, b))

    def nearest(host, t):
        return min(offs[host], key=lambda m: abs(m[0] - t))

    wt = os.path.join(tmp, "write_times.csv")
    rows = {  # scan: receiver times, last written
        1: ([T0 + 1800 * 10**9 + k * 10**9 for k in (0, 1, 2, 3)],
            T0 + 1805 * 10**9),
        2: ([T0 + 5700 * 10**9 + k * 10**8 for k in (3, 0, 2, 1)],
            T0 + 5702 * 10**9),
    }
    write(wt, "scan_number,time0,time1,time2,time3,time_last_written\n" +
          "".join("%d,%s,%s\n" % (n, ",".join(iso(t) for t in ts), iso(last))
                  for n, (ts, last) in rows.items()))
    hosts = ["rec0", "rec1", "rec2", "rec3"]
    out, per = os.path.join(tmp, "o.csv"), os.path.join(tmp, "p.csv")
    p = run("merge", "offload", "--write-times", wt, "--range", "128:1-2",
            "--out", out, "--per-scan", per, "--clock-offsets", off,
            "--receiver-hosts", ",".join(hosts), "--data-host", "store")
    check(p.returncode == 0, "merge offload --clock-offsets: " + p.stderr)
    got = list(csv.DictReader(open(per)))
    check([r["scan_number"] for r in got] == ["1", "2"], "per-scan rows")
    corr_sum = 0.0
    for r in got:
        ts, last = rows[int(r["scan_number"])]
        fixed = [t - nearest(h, t)[1] for t, h in zip(ts, hosts)]
        i = min(range(4), key=lambda k: fixed[k])
        flast = last - nearest("store", last)[1]
        want = (flast - fixed[i]) / 1e9
        raw = (last - min(ts)) / 1e9
        bound = (nearest(hosts[i], ts[i])[2] + nearest("store", last)[2]) / 1e9
        corr_sum += want - raw
        check(abs(float(r["offload_time"]) - want) < 1e-9 and
              abs(float(r["clock_correction_seconds"]) - (want - raw)) < 1e-9 and
              abs(float(r["clock_bound_seconds"]) - bound) < 1e-12,
              "scan %s: %s, want offload %r correction %r bound %r"
              % (r["scan_number"], r, want, want - raw, bound))
    summary = list(csv.DictReader(open(out)))
    check(len(summary) == 1 and abs(float(summary[0]["clock_correction_seconds"])
                                     - corr_sum / 2) < 1e-9,
          "offload summary says the mean correction: %s" % summary)
    # without the options: the columns of before
    p = run("merge", "offload", "--write-times", wt, "--range", "128:1-2",
            "--out", "-")
    check(p.stdout.startswith("size,offload_time\n128,"), "no clock columns")

    # streaming: NERSC's clock corrected too
    created = os.path.join(tmp, "created.csv")
    write(created, "scan_number,time0,time1,time2,time3\n" + "".join(
        "%d,%s\n" % (n, ",".join(iso(t) for t in ts))
        for n, (ts, _) in rows.items()))
    h5 = os.path.join(tmp, "h5.csv")
    h5t = {1: T0 + 1830 * 10**9, 2: T0 + 5733 * 10**9}
    write(h5, "distiller_id,scan_number,datetime\n" + "".join(
        "%05d,%d,%s\n" % (n + 100, n, iso(t)) for n, t in h5t.items()))
    sd = os.path.join(tmp, "s")
    p = run("merge", "streaming", "--created", created, "--h5", "128:" + h5,
            "--out-dir", sd, "--clock-offsets", off, "--receiver-hosts",
            ",".join(hosts), "--nersc-host", "nersc")
    check(p.returncode == 0, "merge streaming --clock-offsets: " + p.stderr)
    for r in csv.DictReader(open(os.path.join(sd, "streaming_times_128.csv"))):
        n = int(r["scan_number"])
        ts = rows[n][0]
        fixed = [t - nearest(h, t)[1] for t, h in zip(ts, hosts)]
        fn = h5t[n] - nearest("nersc", h5t[n])[1]
        want = (fn - min(fixed)) / 1e9
        check(abs(float(r["latency_seconds"]) - want) < 1e-9 and
              abs(float(r["clock_correction_seconds"]) -
                  (want - (h5t[n] - min(ts)) / 1e9)) < 1e-9 and
              r["nersc_write_time"] == iso(fn).replace(".000000000", ""),
              "streaming scan %d: %s, want latency %r" % (n, r, want))

    # errors: an unmeasured host, a wrong number of hosts, options alone,
    # two reference clocks in one file
    p = run("merge", "offload", "--write-times", wt, "--range", "128:1-2",
            "--out", "-", "--clock-offsets", off, "--receiver-hosts",
            "rec0,rec1,rec2,recX")
    check(p.returncode == 65 and "'recX'" in p.stderr and wt in p.stderr,
          "unmeasured host: %d %s" % (p.returncode, p.stderr))
    p = run("merge", "offload", "--write-times", wt, "--range", "128:1-2",
            "--out", "-", "--clock-offsets", off, "--receiver-hosts", "rec0")
    check(p.returncode == 64 and "time0..time3" in p.stderr,
          "host count: %d %s" % (p.returncode, p.stderr))
    p = run("merge", "offload", "--write-times", wt, "--range", "128:1-2",
            "--out", "-", "--receiver-hosts", "a,b,c,d")
    check(p.returncode == 64, "--receiver-hosts alone: %d" % p.returncode)
    two = os.path.join(tmp, "two.csv")
    write(two, open(off).read() + "%s,nersc,rec0,1.0,0.1,0.1,16,udp\n" % iso(T0))
    p = run("merge", "offload", "--write-times", wt, "--range", "128:1-2",
            "--out", "-", "--clock-offsets", two, "--receiver-hosts",
            ",".join(hosts))
    check(p.returncode == 65 and "reference" in p.stderr and two in p.stderr,
          "two references: %d %s" % (p.returncode, p.stderr))

    # end to end: receivers whose clocks are off by +1.234 s and -0.777 s
    # stamp the status times; clock probe measures them; the corrected
    # offload is the true one, within the reported bound
    shifts = {"rec0": 1234 * ms, "rec1": -777 * ms, "rec2": 0, "rec3": 0}
    meas = os.path.join(tmp, "measured.csv")
    targets = ["%s=exec:%s%s clock responder" % (
        h, "%s %+.3f " % (SHIFTED, v / 1e9) if v else "", BIN)
        for h, v in shifts.items()]
    p, _ = probe(*targets, "--out", meas, "--reference", "ncem")
    check(p.returncode == 0, "probe for end to end: " + p.stderr)
    now = time.time_ns()
    true_first, true_last = now, now + 2_700_000_000     # a 2.7 s offload
    stamped = [true_first + 5_000_000 * k + shifts[h]
               for k, h in enumerate(hosts)]
    wt2 = os.path.join(tmp, "wt2.csv")
    write(wt2, "scan_number,time0,time1,time2,time3,time_last_written\n"
          "7,%s,%s\n" % (",".join(iso(t) for t in stamped), iso(true_last)))
    p = run("merge", "offload", "--write-times", wt2, "--range", "128:7-7",
            "--out", "-", "--per-scan", per, "--clock-offsets", meas,
            "--receiver-hosts", ",".join(hosts))
    r = list(csv.DictReader(open(per)))[0]
    err = float(r["offload_time"]) - 2.7
    check(abs(err) <= float(r["clock_bound_seconds"]) + 1e-9,
          "end to end: offload %s, truth 2.7, bound %s" % (
              r["offload_time"], r["clock_bound_seconds"]))
    raw = (true_last - min(stamped)) / 1e9
    print("end to end: uncorrected offload %.6f s, corrected %s s (truth "
          "2.700000, bound %s s)" % (raw, r["offload_time"],
                                     r["clock_bound_seconds"]))


def have_faketime():
    """shifted.sh's test: libfaketime where it looks for it."""
    p = subprocess.run([SHIFTED, "+0", "true"], capture_output=True, text=True)
    return p.returncode == 0, p.stderr.strip()


def main():
    setup_rule.need("cli-clock-" + MODE, PACKAGES)
    if MODE != "faults":
        ok, why = have_faketime()
        if not ok:
            setup_rule.broken("cli-clock-" + MODE, "shifted clocks", why)
    tmp = tempfile.mkdtemp(prefix="st-clock-")
    try:
        {"local": test_local, "paths": test_paths, "ssh": test_ssh,
         "faults": test_faults, "merge": test_merge}[MODE](tmp)
    finally:
        for proc in STARTED:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(report(MODE))


if __name__ == "__main__":
    main()
