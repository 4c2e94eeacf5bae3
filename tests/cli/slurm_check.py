#!/usr/bin/env python3
"""CLI tests of `streamtime slurm jobs` without a Slurm (SPEC 5.4).

usage: slurm_check.py STREAMTIME PAPER_DATA_DIR

- saved dumps (--input): column orders, -p trailing delimiters, names with
  the delimiter or a newline, steps, arrays, het jobs, Unknown/None,
  UNLIMITED/Partition_Limit, D-HH:MM:SS, truncated '+' values;
- the paper's slurm_job_info.csv read back as a dump gives the same bytes;
- the windows and error handling of the sacct source, against a FAKE sacct
  (a script that logs its arguments): the fake only checks what streamtime
  asks for and how it reacts.  The real sacct and slurmrestd are tested
  against a real Slurm in tests/slurm/.
"""
import csv
import datetime as dt
import io
import os
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import setup_rule  # noqa: E402
import tempfile
import time

BIN = os.path.abspath(sys.argv[1])
PAPER = sys.argv[2]
from checks import check, report, runner  # noqa: E402
HEADER = "Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,ReqNodes,QOS,User,ExitCode"


run = runner(BIN, "slurm", "jobs", timeout=60)


def rows(text):
    return list(csv.reader(io.StringIO(text)))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


T = "2022-08-26T16:00:07|2022-08-26T16:00:15|2022-08-26T16:10:55"


def test_dumps(tmp):
    d = os.path.join(tmp, "dump.txt")
    # sacct -p order with a trailing delimiter, an extra State column
    write(d, "JobID|JobName|State|Timelimit|Elapsed|Submit|Start|End|ReqNodes|"
          "QOS|User|ExitCode|\n"
          "101|distiller-count-1|COMPLETED|00:30:00|00:10:40|%s|4|realtime_a|u|0:0|\n"
          "101.batch|batch|COMPLETED||00:10:40|%s|1|||0:0|\n"
          "101.extern|extern|COMPLETED||00:10:40|%s|4|||0:0|\n"
          "101.0|true|COMPLETED||00:10:40|%s|4|||0:0|\n"
          "102_3|distiller-count-2|COMPLETED|UNLIMITED|1-02:03:04|%s|4|realtime_a|u|0:0|\n"
          "103+0|distiller-count-3|COMPLETED|Partition_Limit|00:01:00|%s|4|realtime_a|u|0:0|\n"
          "103+1|distiller-count-3|COMPLETED|Partition_Limit|00:01:00|%s|4|realtime_a|u|0:0|\n"
          "104|distiller-count-4|CANCELLED by 0|00:30:00|00:00:00|2022-08-26T16:00:07|"
          "None|2022-08-26T16:05:00|4|realtime_a|u|0:0|\n"
          "105|distiller-count-5|PENDING|00:30:00|00:00:00|2022-08-26T16:00:07|"
          "Unknown|Unknown|4|realtime_a|u|0:0|\n"
          "106|distiller-count-6|FAILED|00:30:00|00:00:05|%s|4|realtime_a|u|1:0|\n"
          "107|distiller-count-7|COMPLETED|00:30:00|00:00:05|%s|2|realtime_a|u|0:0|\n"
          "108|other-job|COMPLETED|00:30:00|00:00:05|%s|4|realtime_a|u|0:0|\n"
          "109|distiller-count-9|COMPLETED|00:30:00|00:00:05|%s|4|debug|u|0:0|\n"
          "101|distiller-count-1|COMPLETED|00:30:00|00:10:40|%s|4|realtime_a|u|0:0|\n"
          % ((T,) * 12))
    p = run("--input", d, "--out", "-")
    got = rows(p.stdout)
    check(p.returncode == 0 and got[0] == HEADER.split(","), "dump: %s" % p.stderr)
    check([r[1] for r in got[1:]] == ["101", "102_3", "103+0", "103+1"],
          "paper filters keep 101, the array task and the het job parts "
          "(steps, Unknown/None start, exit 1, 2 nodes, other name, other "
          "QOS, the repeated id dropped): %s" % [r[1] for r in got[1:]])
    check(got[2][2:4] == ["UNLIMITED", "1-02:03:04"] and
          got[3][2] == "Partition_Limit", "limits kept as sacct wrote them")
    check("14 rows read, 4 kept" in p.stderr, "summary: " + p.stderr)
    # every filter off
    p = run("--input", d, "--out", "-", "--name-contains", "", "--req-nodes",
            "", "--qos-contains", "", "--exit-code", "", "--any-start")
    check([r[1] for r in rows(p.stdout)[1:]] ==
          ["101", "102_3", "103+0", "103+1", "104", "105", "106", "107", "108",
           "109"], "filters off: only steps and the repeated id go: %s"
          % [r[1] for r in rows(p.stdout)[1:]])
    p = run("--input", d, "--out", "-", "--exit-code", "1:0")
    check([r[1] for r in rows(p.stdout)[1:]] == ["106"], "--exit-code 1:0")

    # JobName last: a name with the delimiter, and one with a newline
    write(d, "JobID|Timelimit|Elapsed|Submit|Start|End|ReqNodes|QOS|User|"
          "ExitCode|JobName\n"
          "201|00:30:00|00:01:00|%s|4|realtime_a|u|0:0|distiller-count-7|pipe\n"
          "202|00:30:00|00:01:00|%s|4|realtime_a|u|0:0|distiller-count-8\n"
          "second line\n" % (T, T))
    got = rows(run("--input", d, "--out", "-").stdout)
    check([r[0] for r in got[1:]] == ["distiller-count-7|pipe",
                                      "distiller-count-8\nsecond line"],
          "names with '|' and a newline: %s" % got)
    # ... but not when JobName is in the middle: a clear error
    write(d, "JobID|JobName|Timelimit|Elapsed|Submit|Start|End|ReqNodes|QOS|"
          "User|ExitCode\n"
          "201|distiller-count-7|pipe|00:30:00|00:01:00|%s|4|realtime_a|u|0:0\n" % T)
    p = run("--input", d, "--out", "-")
    check(p.returncode == 65 and "%s:2" % d in p.stderr and "JobName last"
          in p.stderr, "a '|' in a name in the middle: %s" % p.stderr)
    # a short row after a job is an error, not the rest of its name
    write(d, "JobID|Timelimit|Elapsed|Submit|Start|End|ReqNodes|QOS|User|"
          "ExitCode|JobName|\n"
          "1|00:30:00|00:01:00|%s|4|realtime_a|u|0:0|a|\n"
          "2|00:30:00|00:01:00|%s|4|q|u|\n" % (T, T))
    p = run("--input", d, "--out", "-")
    check(p.returncode == 65 and "%s:3" % d in p.stderr,
          "short row: %d %s" % (p.returncode, p.stderr))
    # --user filters a dump too
    write(d, "JobID|JobName|Timelimit|Elapsed|Submit|Start|End|ReqNodes|QOS|"
          "User|ExitCode\n"
          "1|distiller-count-1|00:30:00|00:01:00|%s|4|realtime_a|u|0:0\n"
          "2|distiller-count-2|00:30:00|00:01:00|%s|4|realtime_a|v|0:0\n" % (T, T))
    p = run("--input", d, "--out", "-", "--user", "v")
    check([r[1] for r in rows(p.stdout)[1:]] == ["2"], "--user on a dump")
    # truncated values (sacct without -P)
    write(d, "JobID|JobName|Timelimit|Elapsed|Submit|Start|End|ReqNodes|QOS|"
          "User|ExitCode\n"
          "301|distiller-count-1|00:30:00|00:01:00|%s|4|realtime_+|u|0:0\n" % T)
    p = run("--input", d, "--out", "-")
    check(p.returncode == 65 and "'QOS'" in p.stderr and "cut short"
          in p.stderr, "truncated: %s" % p.stderr)
    # a missing column, no delimiter, an empty file
    write(d, "JobID|JobName|Timelimit\n1|a|b\n")
    p = run("--input", d, "--out", "-")
    check(p.returncode == 65 and "'Elapsed'" in p.stderr, "missing column")
    write(d, "JobID JobName\n")
    p = run("--input", d, "--out", "-")
    check(p.returncode == 65 and "--delimiter" in p.stderr, "no delimiter")
    write(d, "")
    p = run("--input", d, "--out", "-")
    check(p.returncode == 65 and "header" in p.stderr, "empty dump")
    # a given delimiter
    write(d, "JobID;JobName;Timelimit;Elapsed;Submit;Start;End;ReqNodes;QOS;"
          "User;ExitCode\n401;distiller-count-1;00:30:00;00:01:00;%s;4;"
          "realtime_a;u;0:0\n" % T.replace("|", ";"))
    p = run("--input", d, "--out", "-", "--delimiter", ";")
    check([r[1] for r in rows(p.stdout)[1:]] == ["401"], "--delimiter ';'")

    # the paper's file read back: the same bytes
    paper = os.path.join(PAPER, "file_transfer", "slurm_job_info.csv")
    out = os.path.join(tmp, "paper.csv")
    p = run("--input", paper, "--out", out)
    with open(out, "rb") as a, open(paper, "rb") as b:
        check(a.read() == b.read(), "paper file round trip: " + p.stderr)


def test_bad_values(tmp):
    """Issue 13 items 9 and 11: bad values in a dump are refused where they
    are read, naming the dump's file, line and column, not passed on for a
    later step to trip over in its own intermediate file."""
    d = os.path.join(tmp, "bad.txt")
    out = os.path.join(tmp, "bad_out.csv")
    hdr = ("JobID|JobName|Timelimit|Elapsed|Submit|Start|End|ReqNodes|QOS|"
           "User|ExitCode\n")
    good = "1|distiller-count-1|00:30:00|00:01:00|%s|4|realtime_a|u|0:0\n" % T
    cases = [
        ("NaN Submit", "2|distiller-count-2|00:30:00|00:01:00|NaN|"
         "2022-08-26T16:00:15|2022-08-26T16:10:55|4|realtime_a|u|0:0\n", "'Submit'"),
        ("empty Submit", "2|distiller-count-2|00:30:00|00:01:00||"
         "2022-08-26T16:00:15|2022-08-26T16:10:55|4|realtime_a|u|0:0\n", "'Submit'"),
        ("NaN Start", "2|distiller-count-2|00:30:00|00:01:00|2022-08-26T16:00:07|"
         "NaN|2022-08-26T16:10:55|4|realtime_a|u|0:0\n", "'Start'"),
        ("empty Start", "2|distiller-count-2|00:30:00|00:01:00|2022-08-26T16:00:07|"
         "|2022-08-26T16:10:55|4|realtime_a|u|0:0\n", "'Start'"),
        ("empty Job ID", "|distiller-count-2|00:30:00|00:01:00|%s|4|realtime_a|u|0:0\n"
         % T, "'JobID'"),
        ("negative Elapsed", "2|distiller-count-2|00:30:00|-00:01:00|%s|4|"
         "realtime_a|u|0:0\n" % T, "'Elapsed'"),
        ("NUL in a name", "2|disti\0ller-count-2003|00:30:00|00:01:00|%s|4|"
         "realtime_a|u|0:0\n" % T, "NUL"),
    ]
    for what, row, col in cases:
        write(d, hdr + good + row)
        if os.path.exists(out):
            os.unlink(out)
        p = run("--input", d, "--out", out)
        check(p.returncode == 65 and "%s:3:" % d in p.stderr and col in p.stderr
              and not os.path.exists(out),
              "bad dump value (%s) not refused with 65 naming %s:3 and %s: %d %s"
              % (what, d, col, p.returncode, p.stderr))
    # sacct's words for an unset Start are rows for the Start filter
    write(d, hdr + good + "2|distiller-count-2|00:30:00|00:00:00|%s|Unknown|"
          "Unknown|4|realtime_a|u|0:0\n" % T.split("|")[0])
    p = run("--input", d, "--out", "-")
    check(p.returncode == 0 and [r[1] for r in rows(p.stdout)[1:]] == ["1"],
          "Start Unknown is filtered, not an error: %s" % p.stderr)
    p = run("--input", d, "--out", "-", "--any-start")
    check(p.returncode == 0 and [r[1] for r in rows(p.stdout)[1:]] == ["1", "2"],
          "--any-start keeps Start Unknown: %s" % p.stderr)

    # reproduce over a jobs file with a NaN Submit: the message names that
    # file and line, not reproduce's own merged_job_info.csv
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data")
    data = os.path.join(tmp, "data")
    shutil.copytree(src, data)
    jobs = os.path.join(data, "file_transfer", "slurm_job_info.csv")
    with open(jobs, newline="") as f:
        table = list(csv.reader(f))
    col = table[0].index("Submit")
    for r in table[1:]:
        r[col] = "NaN"
    with open(jobs, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(table)
    p = subprocess.run([BIN, "reproduce", "--data", data, "--out",
                        os.path.join(tmp, "repro")], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 65 and "slurm_job_info.csv:" in p.stderr and
          "'Submit'" in p.stderr and "merged_job_info" not in p.stderr,
          "reproduce with a NaN Submit names the jobs file: %d %s"
          % (p.returncode, p.stderr))


FAKE = r'''#!/bin/sh
# FAKE sacct for tests: logs its arguments, refuses windows wider than
# $FAKE_MAX_DAYS days like slurmdbd's MaxQueryTimeRange, prints one job per
# window ($FAKE_NOISE: stray text instead of jobs after the first window).
echo "$@" >> "$FAKE_LOG"
if [ -n "$FAKE_NOISE" ] && [ -f "$FAKE_LOG.seen" ]; then echo "sacct: warning: something odd"; exit 0; fi
touch "$FAKE_LOG.seen"
[ -n "$FAKE_FAIL" ] && { echo "sacct: error: Problem talking to the database: Connection refused" >&2; exit 1; }
s=; e=
for a in "$@"; do case $a in --starttime=*) s=${a#*=};; --endtime=*) e=${a#*=};; esac; done
span=$(( $(date -u -d "$e" +%s) - $(date -u -d "$s" +%s) ))
if [ "$span" -gt $(( ${FAKE_MAX_DAYS:-1000} * 86400 )) ]; then
  echo "sacct: error: slurmdbd: Too wide of a date range in query" >&2
  exit ${FAKE_REFUSE_STATUS:-1}
fi
n=$(date -u -d "$s" +%s)
[ -n "$FAKE_CHATTY" ] && echo "sacct: warning: slurmdbd is slow today" >&2
printf '%s|~#|00:30:00|~#|00:01:00|~#|%s|~#|%s|~#|%s|~#|4|~#|realtime_a|~#|u|~#|0:0|~#|distiller-count-%s\n' "$n" "$s" "$s" "$e" "$n"
'''


def test_fake_sacct(tmp):
    fake = os.path.join(tmp, "sacct")
    write(fake, FAKE)
    os.chmod(fake, 0o755)
    log = os.path.join(tmp, "log")
    env = dict(os.environ, STREAMTIME_SACCT=fake, FAKE_LOG=log, TZ="Asia/Tokyo")

    def windows():
        out = []
        with open(log) as f:
            for line in f:
                a = line.split()
                s = [x.split("=", 1)[1] for x in a if x.startswith("--starttime=")]
                e = [x.split("=", 1)[1] for x in a if x.startswith("--endtime=")]
                out.append((s[0], e[0], a))
        os.unlink(log)
        return out

    p = run("--since", "2023-01-01", "--until", "2023-03-15", "--out", "-",
            "--window-days", "30", env=env)
    w = windows()
    check(p.returncode == 0, "fake sacct run: " + p.stderr)
    check([(s, e) for s, e, _ in w] == [
        ("2023-01-01T00:00:00", "2023-01-31T00:00:00"),
        ("2023-01-31T00:00:00", "2023-03-02T00:00:00"),
        ("2023-03-02T00:00:00", "2023-03-15T00:00:00")],
        "contiguous windows, no gap (the paper's script lost a day between "
        "windows): %s" % [(s, e) for s, e, _ in w])
    a = w[0][2]
    check("-X" in a and "-P" in a and "--noheader" in a and
          "--delimiter=|~#|" in a and any(x.startswith("--format=") and
                                          x.endswith(",JobName") for x in a),
          "sacct flags: %s" % a)
    check(len(rows(p.stdout)) == 4, "one job per window: %r" % p.stdout)
    # Slurm refusing a range: halved until accepted, nothing lost, exit 0
    # status or not
    for status in ("1", "0"):
        env2 = dict(env, FAKE_MAX_DAYS="10", FAKE_REFUSE_STATUS=status)
        p = run("--since", "2023-01-01", "--until", "2023-01-31", "--out", "-",
                env=env2)
        w = windows()
        accepted = [(s, e) for s, e, _ in w
                    if (dt.datetime.fromisoformat(e) -
                        dt.datetime.fromisoformat(s)).days <= 10]
        spans = sorted(accepted)
        check(p.returncode == 0 and spans and spans[0][0] == "2023-01-01T00:00:00"
              and spans[-1][1] == "2023-01-31T00:00:00" and
              all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1)),
              "refused windows halved (exit %s): %s %s" % (status, spans, p.stderr))
    # stray text in a later window is an error, never glued onto the name
    # of the previous window's last job (regression)
    if os.path.exists(log + ".seen"):
        os.unlink(log + ".seen")
    p = run("--since", "2023-01-01", "--until", "2023-03-01", "--out", "-",
            env=dict(env, FAKE_NOISE="1"))
    windows()
    os.unlink(log + ".seen")
    check(p.returncode == 65 and "something odd" not in p.stdout,
          "noise in window 2: %d %r %s" % (p.returncode, p.stdout, p.stderr))
    # what sacct says on stderr while succeeding reaches the user
    p = run("--since", "2023-01-01", "--until", "2023-01-02", "--out", "-",
            env=dict(env, FAKE_CHATTY="1"))
    windows()
    check(p.returncode == 0 and "slurmdbd is slow today" in p.stderr and
          "2023-01-01T00:00:00" in p.stderr, "sacct stderr shown: " + p.stderr)
    # --user '' turns the filter off and is not passed to sacct
    run("--since", "2023-01-01", "--until", "2023-01-02", "--out", "-",
        "--user", "", env=env)
    check("--user" not in windows()[0][2], "--user '' is off")
    # --user and -a are passed through
    run("--since", "2023-01-01", "--until", "2023-01-02", "--out", "-",
        "--user", "dstlr", env=env)
    check("--user dstlr" in " ".join(windows()[0][2]), "--user passed")
    run("--since", "2023-01-01", "--until", "2023-01-02", "--out", "-", "-a",
        env=env)
    check("--allusers" in windows()[0][2], "-a passed")
    # sacct failing: exit 69 with its message; a missing sacct: 69
    out = os.path.join(tmp, "never.csv")
    p = run("--since", "2023-01-01", "--until", "2023-01-02", "--out", out,
            env=dict(env, FAKE_FAIL="1"))
    check(p.returncode == 69 and "Connection refused" in p.stderr and
          "status 1" in p.stderr and not os.path.exists(out),
          "sacct fails: %d %s" % (p.returncode, p.stderr))
    p = run("--since", "2023-01-01", "--until", "2023-01-02", "--out", "-",
            env=dict(env, STREAMTIME_SACCT=os.path.join(tmp, "nope")))
    check(p.returncode == 69 and "nope" in p.stderr, "no sacct: %s" % p.stderr)
    # usage
    p = run("--since", "2023-02-01", "--until", "2023-01-01", "--out", "-", env=env)
    check(p.returncode == 64, "since after until: 64")
    p = run("--input", "x", "--since", "2023-01-01", "--out", "-")
    check(p.returncode == 64, "--input with --since: 64")


def test_rest_limits(tmp):
    """slurm jobs --rest against stand-in servers that misbehave
    (tests/cli/bad_http.py): bounded time, bounded memory, clear messages,
    no password left in the process list (issue 13, items 16, 18, 20)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bad_http
    env = {k: v for k, v in os.environ.items() if k != "SLURM_JWT"}
    span = ["--since", "2023-03-01", "--until", "2023-03-02", "--out", "-"]

    def rest(url, *extra, timeout=120):
        t0 = time.monotonic()
        p = subprocess.run([BIN, "slurm", "jobs", "--rest", url, *span,
                            *extra], capture_output=True, text=True,
                           timeout=timeout, env=env)
        return p, time.monotonic() - t0

    # a silent slurmrestd took 242 s per window (60 s x 4 attempts): with
    # --timeout 2 the whole run ends after about 2 s, one request made
    with bad_http.BadServer("silent") as srv:
        p, took = rest(srv.url(), "--timeout", "2")
        check(p.returncode == 69 and took < 8 and "within the timeout of "
              "2 s" in p.stderr and srv.requests == 1,
              "silent slurmrestd took 242 s per window: exit %d in %.1f s, "
              "%d requests: %s" % (p.returncode, took, srv.requests,
                                   p.stderr))
    # retries stay, inside the same bound: 503 four times (0.25+0.5+1 s
    # of pauses), then the status is reported
    with bad_http.BadServer("status5xx") as srv:
        p, took = rest(srv.url(), "--timeout", "5")
        check(p.returncode == 69 and took < 10 and srv.requests == 4 and
              "HTTP 503" in p.stderr,
              "retries bounded by --timeout: exit %d in %.1f s, %d requests:"
              " %s" % (p.returncode, took, srv.requests, p.stderr))

    # an endless chunked answer was buffered up to 1 GiB: now it stops at
    # --max-response-size, and at 256 MiB by default
    with bad_http.BadServer("chunked") as srv:
        p, took = rest(srv.url("alice:Pw-s3cret"), "--max-response-size",
                       "1M")
        check(p.returncode == 69 and took < 10 and "larger than the limit "
              "of 1 MiB" in p.stderr and "127.0.0.1:%d/slurmdb/" % srv.port
              in p.stderr and "Pw-s3cret" not in p.stderr,
              "endless chunked response buffered up to 1 GiB (1M cap): exit "
              "%d in %.1f s: %s" % (p.returncode, took, p.stderr))
        p, took = rest(srv.url())
        check(p.returncode == 69 and "larger than the limit of 256 MiB"
              in p.stderr, "endless chunked response buffered up to 1 GiB "
              "(default cap): exit %d in %.1f s: %s"
              % (p.returncode, took, p.stderr))

    # a 200 KB header was reported as "Out of memory"
    with bad_http.BadServer("bighdr") as srv:
        p, _ = rest(srv.url())
        check(p.returncode == 69 and "has a header larger than" in p.stderr
              and "127.0.0.1:%d/slurmdb/" % srv.port in p.stderr and
              "Out of memory" not in p.stderr,
              "200 KB HTTP header reported as Out of memory: %d %s"
              % (p.returncode, p.stderr))

    # a password in --rest stayed in /proc/PID/cmdline
    with bad_http.BadServer("silent") as srv:
        cmd, rc, err, _ = bad_http.cmdline_while_running(
            [BIN, "slurm", "jobs", "--rest", srv.url("alice:Pw-s3cret"),
             "--timeout", "4", *span], env=env)
        check(cmd is not None and "Pw-s3cret" not in cmd and "--rest" in cmd
              and "alice:" in cmd, "password in --rest URL stays in "
              "/proc/PID/cmdline: %r" % cmd)
        check(rc == 69 and "password" in err and "$SLURM_JWT" in err and
              "Pw-s3cret" not in err,
              "password in --rest: a warning, never shown: %d %s" % (rc, err))

    # the new options: their values, and only with --rest
    for args in (["--rest", "http://127.0.0.1:9", "--timeout", "0"],
                 ["--rest", "http://127.0.0.1:9", "--timeout", "1.5"],
                 ["--rest", "http://127.0.0.1:9", "--max-response-size", "0"],
                 ["--rest", "http://127.0.0.1:9", "--max-response-size",
                  "12X"],
                 ["--timeout", "5"], ["--max-response-size", "1M"]):
        p = run(*args, *span)
        check(p.returncode == 64, "usage %s: %d %s" % (args, p.returncode,
                                                       p.stderr))


def main():
    if not os.path.isdir(PAPER):
        setup_rule.data_missing("cli-slurm", PAPER)
    tmp = tempfile.mkdtemp(prefix="st-slurm-")
    try:
        test_dumps(tmp)
        test_bad_values(tmp)
        test_fake_sacct(tmp)
        test_rest_limits(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(report("slurm"))


if __name__ == "__main__":
    main()
