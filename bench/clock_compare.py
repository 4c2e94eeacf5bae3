#!/usr/bin/python3
"""Clock offset over ssh: the paper's `ssh host date +%s%3N` vs `streamtime clock probe`.

    bench/clock_compare.py [--runs N] [--streamtime PATH] [--raw FILE]

Starts one throwaway sshd on 127.0.0.1 (tests/cli/sshd_helper.py) and, in
one run against that sshd, measures the offset of a remote clock shifted by
libfaketime (`faketime -f +1.234`), so the true offset is exactly +1234 ms:

* paper: the paper's one-liner, run through bash with the same ssh options,
      echo $(( $(ssh HOST 'faketime -f +1.234 date +%s%3N') - $(date +%s%3N) ))
  i.e. remote milliseconds minus local milliseconds read right after ssh
  returns.  It gives no bound.
* ssh: `streamtime clock probe ssh://HOST --samples 16` with the remote
  command `faketime -f +1.234 STREAMTIME clock responder`.
* ssh-date: `streamtime clock probe ssh-date://HOST --samples 4` with the
  date command `faketime -f +1.234 date +%s%N`.

Each method runs N times (default 30), interleaved (paper, ssh, ssh-date,
paper, ...), so all three see the same machine at the same time.  Error =
measured offset - 1234 ms.  Prints a markdown table: n, median and max
|error|, mean error (its sign shows the bias), median bound and the fraction
of probes whose bound covers the truth (streamtime only).

Needs ssh, sshd, ssh-keygen, faketime and bash.  Standard library only.
Exit status 1 if a probe failed or a streamtime bound missed the truth.
"""
import argparse
import csv
import io
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))
import sshd_helper  # noqa: E402

TRUTH_MS = 1234
SHIFT = "+%d.%03d" % divmod(TRUTH_MS, 1000)          # "+1.234"
HEADER = "measured_at,reference,target,offset_ms,delay_ms,bound_ms,samples,method"


def die(msg):
    print("clock_compare.py: " + msg, file=sys.stderr)
    sys.exit(2)


def paper_once(ssh_argv, host):
    """The paper's one-liner through bash; returns (error_ms, wall_ms) or a string."""
    ssh = " ".join(shlex.quote(a) for a in ssh_argv)
    remote = shlex.quote("faketime -f %s date +%%s%%3N" % SHIFT)
    line = "echo $(( $(%s %s %s) - $(date +%%s%%3N) ))" % (ssh, host, remote)
    t0 = time.monotonic()
    p = subprocess.run(["bash", "-c", line], capture_output=True, text=True,
                       timeout=120)
    wall = (time.monotonic() - t0) * 1e3
    try:
        off = int(p.stdout.strip())
    except ValueError:
        return "exit %d, stdout %r, stderr %r" % (p.returncode, p.stdout, p.stderr)
    # a failed ssh still leaves bash printing $(( - LOCAL )): catch it
    if p.returncode != 0 or p.stderr.strip() or abs(off) > 10**8:
        return "exit %d, offset %d, stderr %r" % (p.returncode, off, p.stderr)
    return off - TRUTH_MS, wall, line


def probe_once(bin_, ssh_argv, target, samples):
    """One `streamtime clock probe`; returns (error_ms, bound_ms, delay_ms) or a string."""
    argv = [bin_, "clock", "probe", target, "--samples", str(samples),
            "--ssh", " ".join(ssh_argv)]
    if target.startswith("ssh://"):
        argv += ["--remote-command", "faketime -f %s %s clock responder" % (SHIFT, bin_)]
    else:
        argv += ["--date-command", "faketime -f %s date +%%s%%N" % SHIFT]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if p.returncode != 0 or not p.stdout.startswith(HEADER):
        return "exit %d, stderr %r" % (p.returncode, p.stderr.strip())
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    if len(rows) != 1:
        return "%d rows: %r" % (len(rows), p.stdout)
    r = rows[0]
    return (float(r["offset_ms"]) - TRUTH_MS, float(r["bound_ms"]),
            float(r["delay_ms"]), argv)


def fmt(x, digits):
    return "%.*f" % (digits, x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=30,
                    help="probes per method (default 30)")
    ap.add_argument("--streamtime", default=os.environ.get(
        "STREAMTIME", os.path.join(ROOT, "build", "streamtime")),
        help="the binary (default $STREAMTIME or build/streamtime)")
    ap.add_argument("--raw", help="also write every probe to this CSV file")
    a = ap.parse_args()
    if a.runs < 1:
        die("--runs must be at least 1")
    bin_ = os.path.abspath(a.streamtime)
    if not os.access(bin_, os.X_OK):
        die("streamtime not found or not executable: %s" % bin_)
    for tool in ("ssh", "ssh-keygen", "faketime", "bash"):
        if not shutil.which(tool):
            die("%s not found (Debian: apt-get install -y openssh-client "
                "openssh-server faketime)" % tool)

    methods = {
        "paper": {"errors": [], "bounds": [], "delays": [], "fails": []},
        "ssh": {"errors": [], "bounds": [], "delays": [], "fails": []},
        "ssh-date": {"errors": [], "bounds": [], "delays": [], "fails": []},
    }
    samples = {"ssh": 16, "ssh-date": 4}
    cmds = {}
    raw = []
    tmp = tempfile.mkdtemp(prefix="streamtime-clock.")
    d = sshd_helper.Sshd(tmp)
    try:
        ssh_argv = d.ssh_argv()
        print("== sshd on 127.0.0.1:%d, remote clock shifted by %s s (truth "
              "%+d ms), %d probes per method" % (d.port, SHIFT, TRUTH_MS, a.runs),
              file=sys.stderr)
        for i in range(a.runs):
            got = paper_once(ssh_argv, d.host)
            m = methods["paper"]
            if isinstance(got, str):
                m["fails"].append(got)
            else:
                m["errors"].append(got[0])
                m["delays"].append(got[1])
                cmds["paper"] = got[2]
                raw.append(("paper", i, got[0], "", "%.3f" % got[1]))
            for meth in ("ssh", "ssh-date"):
                got = probe_once(bin_, ssh_argv, "%s://%s" % (meth, d.host),
                                 samples[meth])
                m = methods[meth]
                if isinstance(got, str):
                    m["fails"].append(got)
                    continue
                m["errors"].append(got[0])
                m["bounds"].append(got[1])
                m["delays"].append(got[2])
                cmds[meth] = got[3]
                raw.append((meth, i, "%.6f" % got[0], "%.6f" % got[1],
                            "%.6f" % got[2]))
            print("  run %d/%d done" % (i + 1, a.runs), file=sys.stderr)
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    if a.raw:
        with open(a.raw, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["method", "run", "error_ms", "bound_ms", "delay_ms"])
            w.writerows(raw)

    bad = False
    print("Commands (ssh options abbreviated as SSH; HOST = %s):" % d.host)
    ssh_s = " ".join(ssh_argv)
    for meth in ("paper", "ssh", "ssh-date"):
        if meth in cmds:
            c = cmds[meth]
            c = c if isinstance(c, str) else " ".join(shlex.quote(x) for x in c)
            c = c.replace(" ".join(shlex.quote(x) for x in ssh_argv), "SSH")
            c = c.replace(shlex.quote(ssh_s), "'SSH'").replace(d.host, "HOST")
            print("  %-9s %s" % (meth + ":", c))
    print()
    print("| method | n | median \\|error\\| ms | max \\|error\\| ms | mean error ms "
          "| median bound ms | bound covers truth |")
    print("|---|---|---|---|---|---|---|")
    names = {"paper": "paper: `ssh HOST date +%s%3N` - `date +%s%3N`",
             "ssh": "streamtime `ssh://` (--samples 16)",
             "ssh-date": "streamtime `ssh-date://` (--samples 4)"}
    for meth in ("paper", "ssh", "ssh-date"):
        m = methods[meth]
        e = m["errors"]
        n = "%d" % len(e) + (" (%d failed)" % len(m["fails"]) if m["fails"] else "")
        if m["fails"]:
            bad = True
        if not e:
            print("| %s | %s | | | | | |" % (names[meth], n))
            continue
        digits = 0 if meth == "paper" else 3
        absd = [abs(x) for x in e]
        if meth == "paper":
            bound, cover = "none", "no bound"
        else:
            bound = fmt(statistics.median(m["bounds"]), 3)
            ok = sum(abs(x) <= b for x, b in zip(e, m["bounds"]))
            cover = "%d/%d" % (ok, len(e))
            if ok != len(e):
                bad = True
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            names[meth], n, fmt(statistics.median(absd), 1 if meth == "paper" else 3),
            fmt(max(absd), digits), "%+.*f" % (1 if meth == "paper" else 3, statistics.mean(e)),
            bound, cover))
    print()
    for meth, what in (("paper", "wall time of the bash one-liner"),
                       ("ssh", "delay_ms of the kept exchange"),
                       ("ssh-date", "delay_ms of the kept ssh call")):
        v = methods[meth]["delays"]
        if v:
            print("%s: median %s %.3f ms (range %.3f..%.3f)"
                  % (meth, what, statistics.median(v), min(v), max(v)))
    e = methods["paper"]["errors"]
    if e:
        print("paper: errors %s" % ", ".join(
            "%+d ms x%d" % (k, e.count(k)) for k in sorted(set(e))))
    for meth in methods:
        for f in methods[meth]["fails"][:5]:
            print("FAILED %s: %s" % (meth, f), file=sys.stderr)
    if bad:
        print("clock_compare.py: a probe failed or a bound missed the truth",
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
