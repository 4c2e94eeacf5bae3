#!/usr/bin/env python3
"""The documented cron lines, run as cron runs them (issue 17 item 9).

usage: cron_check.py STREAMTIME SOURCE_ROOT

The crontab lines are taken from contrib/cron/streamtime.crontab itself
(the NERSC line too, which is commented out there), so the file cannot
drift from what is tested; README.md's cron block and the man page's
EXAMPLES must hold the same lines.  Each runs through /bin/sh with cron's
bare environment, its paths moved into a temporary directory:
/usr/local/bin/streamtime -> the built binary, the acquisition and counted
directories -> copies of the sample with settled mtimes plus streaming
scans (status files only), /var/lib/streamtime and $HOME/streamtime ->
directories that do not exist yet.

The bug "cron example records nothing unattended" had four parts, each
checked here: streaming runs were never recorded (no --no-data: all scans
pending, exit 0, hidden by -q); the file-transfer times went to
created_times.csv; a missing /var/lib/streamtime was exit 73 every minute;
and -q still printed "held by another run" on every overlap.  Now: quiet
(no output at all: cron mails nothing) when all is well, loud (stderr and a
non-zero exit) when something needs a person.
"""
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
from checks import bug, check, report  # noqa: E402
BUG = "cron example records nothing unattended"
bug(BUG)
CRON_LINE = re.compile(r"^(?:# )?((?:\S+ ){5})(/usr/local/bin/streamtime .*)$")


def crontab_lines():
    """(active, commented) command parts of the crontab's lines."""
    active, commented = [], []
    with open(os.path.join(SRC, "contrib/cron/streamtime.crontab")) as f:
        for line in f:
            m = CRON_LINE.match(line.rstrip("\n"))
            if m:
                (commented if line.startswith("#") else active).append(
                    m.group(1) + m.group(2))
    return active, commented


def doc_drift(active):
    """README's cron block and the man page's EXAMPLES hold the lines."""
    readme = open(os.path.join(SRC, "README.md")).read()
    block = re.search(r"### From cron\n.*?```\n(.*?)```", readme, re.S)
    lines = block.group(1).strip().split("\n") if block else []
    check(lines == active, "README's cron block %s is the crontab's %s"
          % (lines, active))
    man = open(os.path.join(SRC, "docs/streamtime.1")).read()
    man_lines = [l.replace("\\-", "-") for l in man.split("\n")
                 if l.startswith("* * * * * ")]
    check(man_lines == active, "the man page's cron lines %s are the "
          "crontab's %s" % (man_lines, active))


def status(path, when):
    with open(path, "w") as f:
        json.dump({"time": when, "last_scan_number": 0, "progress": 100}, f)


def main():
    active, commented = crontab_lines()
    check(len(active) == 2 and any("--no-data" in l for l in active),
          "two active crontab lines, one for streaming runs (--no-data): "
          "%s" % active)
    check(len(commented) == 1 and " collect h5 " in commented[0],
          "the NERSC collect h5 line: %s" % commented)
    doc_drift(active)
    tmp = tempfile.mkdtemp(prefix="st-cron-")
    try:
        runs(tmp, active, commented)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(report("cron"))


def runs(tmp, active, commented):
    acq = os.path.join(tmp, "acq")
    counted = os.path.join(tmp, "counted")
    home = os.path.join(tmp, "home")
    varlib = os.path.join(tmp, "var", "lib")
    os.makedirs(home)
    os.makedirs(varlib)
    shutil.copytree(os.path.join(SRC, "data", "acquisition"), acq)
    shutil.copytree(os.path.join(SRC, "data", "counted"), counted)
    # streaming scans: four status files each, no data file
    stream = {}
    for k, scan in enumerate(range(3001, 3006)):
        times = ["2024-03-01T10:%02d:%02d+00:00" % (k, r) for r in range(4)]
        stream[scan] = times
        for r in range(4):
            status(os.path.join(acq, "4dstem_rec_status_%d_scan_%d.json"
                                % (r, scan)), times[r])
    # everything settled: written two hours ago, on a whole second
    t0 = int(time.time()) - 7200
    for d in (acq, counted):
        for f in os.listdir(d):
            os.utime(os.path.join(d, f), (t0, t0))
    t0_text = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(t0))

    def subst(line, state=os.path.join(varlib, "streamtime")):
        cmd = line.split(" ", 5)[5]
        return (cmd.replace("/usr/local/bin/streamtime", BIN)
                .replace("/mnt/nvmedata5/distiller-dev", acq)
                .replace("/global/cfs/cdirs/ncemhub/still/counted/2023.10.13",
                         counted)
                .replace("/var/lib/streamtime", state))

    def cron(cmd):
        # cron: /bin/sh -c, a bare environment, the home directory
        return subprocess.run(["/bin/sh", "-c", cmd], capture_output=True,
                              text=True, timeout=120, cwd=home,
                              env={"PATH": "/usr/bin:/bin", "HOME": home,
                                   "SHELL": "/bin/sh", "LOGNAME": "cron"})

    ft_line = [l for l in active if "--no-data" not in l][0]
    st_line = [l for l in active if "--no-data" in l][0]
    state = os.path.join(varlib, "streamtime")
    ft_out = re.search(r"--out (\S+)", subst(ft_line)).group(1)
    st_out = re.search(r"--out (\S+)", subst(st_line)).group(1)
    check(os.path.basename(ft_out) == "write_times.csv" and
          os.path.basename(st_out) == "created_times.csv",
          "file-transfer rows go to write_times.csv, streaming rows to "
          "created_times.csv: %s %s" % (ft_out, st_out))

    # first runs: the state directory is made, nothing is said
    for line in (ft_line, st_line):
        p = cron(subst(line))
        check(p.returncode == 0 and p.stdout == "" and p.stderr == "",
              "first run of %r is quiet and exits 0: %d %r %r"
              % (line, p.returncode, p.stdout, p.stderr))
    check(os.path.isdir(state), "the missing %s was made" % state)

    # what they recorded: the sample's file-transfer scans with their data
    # files' mtime; every complete scan's status times with --no-data
    want_ft = {}
    with open(os.path.join(SRC, "data/file_transfer/write_times.csv")) as f:
        next(f)
        for row in f:
            v = row.strip().split(",")
            want_ft[int(v[0])] = v[1:5]
    got = read_csv(ft_out)
    check(got and got[0] == ["scan_number", "time0", "time1", "time2",
                             "time3", "time_last_written"],
          "write_times.csv header: %s" % (got[:1],))
    rows = {int(r[0]): r[1:] for r in got[1:]}
    check(rows == {s: t + [t0_text] for s, t in want_ft.items()},
          "write_times.csv holds the %d file-transfer scans, each with its "
          "status times and data mtime %s: %s"
          % (len(want_ft), t0_text, sorted(rows)))
    got = read_csv(st_out)
    check(got and got[0] == ["scan_number", "time0", "time1", "time2",
                             "time3"],
          "created_times.csv header (--no-data): %s" % (got[:1],))
    rows = {int(r[0]): [instant(t) for t in r[1:]] for r in got[1:]}
    want = {k: [instant(t) for t in v] for k, v in want_ft.items()}
    want.update({k: [instant(t) for t in v] for k, v in stream.items()})
    # and the sample's own streamed scans whose four receivers reported
    # (simulate writes their status files; the stray scan 7 has none)
    with open(os.path.join(SRC, "data/streaming/"
                           "ncem_file_created_times.csv")) as f:
        next(f)
        for row in f:
            v = row.strip().split(",")
            if int(v[0]) != 7 and all(v[1:5]):
                want.setdefault(int(v[0]), [instant(t) for t in v[1:5]])
    check(rows == want, "created_times.csv holds the streaming scans %s, "
          "the sample's streamed ones and the file-transfer ones: %s"
          % (sorted(stream), sorted(set(rows) ^ set(want))))

    # a second minute: nothing new, nothing said, nothing changed
    before = read_csv(ft_out), read_csv(st_out)
    for line in (ft_line, st_line):
        p = cron(subst(line))
        check(p.returncode == 0 and p.stdout + p.stderr == "",
              "second run of %r is quiet: %d %r" % (line, p.returncode,
                                                    p.stderr))
    check((read_csv(ft_out), read_csv(st_out)) == before,
          "the second runs changed nothing")

    # overlap: the previous run still holds the lock
    skipped = ft_out + ".skipped"
    with open(ft_out, "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        for _ in range(2):
            p = cron(subst(ft_line))
            check(p.returncode == 75 and p.stdout + p.stderr == "",
                  "an overlap exits 75 and is quiet under -q: %d %r"
                  % (p.returncode, p.stderr))
        lines = open(skipped).read().splitlines() \
            if os.path.exists(skipped) else []
        check(len(lines) == 2, "each overlap is counted in %s: %s"
              % (skipped, lines))
        # runs have found it held for 20 minutes: a stuck run, said
        old = time.strftime("%Y-%m-%dT%H:%M:%S+00:00",
                            time.gmtime(time.time() - 1200))
        with open(skipped, "w") as f:
            f.write("%s pid 1\n" % old + "\n".join(lines) + "\n")
        p = cron(subst(ft_line))
        check(p.returncode == 75 and "held by another run" in p.stderr and
              "4 runs found the lock held since %s" % old in p.stderr and
              "stuck" in p.stderr,
              "a lock held for 20 minutes is loud under -q: %d %r"
              % (p.returncode, p.stderr))
        fcntl.flock(held, fcntl.LOCK_UN)
    p = cron(subst(ft_line).replace(" -q", ""))
    check(p.returncode == 0 and "4 runs found the lock held since %s" % old
          in p.stderr and not os.path.exists(skipped),
          "the next run that gets the lock counts the skipped runs and "
          "clears the count: %d %r" % (p.returncode, p.stderr))
    p = cron(subst(ft_line))
    check(p.returncode == 0 and p.stdout + p.stderr == "",
          "and the minute after is quiet again: %r" % p.stderr)

    # a bad status file: loud (named on stderr, non-zero), and the good
    # new scan is recorded all the same
    status(os.path.join(acq, "4dstem_rec_status_0_scan_3010.json"),
           "2024-03-01T11:00:00+00:00")
    bad = os.path.join(acq, "4dstem_rec_status_1_scan_3010.json")
    with open(bad, "w") as f:
        f.write("{\"time\": ")
    for r in range(4):
        status(os.path.join(acq, "4dstem_rec_status_%d_scan_3011.json" % r),
               "2024-03-01T11:10:0%d+00:00" % r)
    for r in (2, 3):
        status(os.path.join(acq, "4dstem_rec_status_%d_scan_3010.json" % r),
               "2024-03-01T11:00:00+00:00")
    for f in os.listdir(acq):
        os.utime(os.path.join(acq, f), (t0, t0))
    p = cron(subst(st_line))
    check(p.returncode == 65 and bad in p.stderr,
          "a bad status file is loud: exit %d, stderr %r" %
          (p.returncode, p.stderr))
    check([r[0] for r in read_csv(st_out)[1:]][-1:] == ["3011"],
          "the good scan 3011 is written despite the bad one")

    # a state directory that cannot be made: 73, naming it
    deep = os.path.join(tmp, "no", "such", "streamtime")
    p = cron(subst(ft_line, deep))
    check(p.returncode == 73 and deep in p.stderr and "install -d" in
          p.stderr, "a state directory that cannot be made is exit 73 "
          "naming it and how to make it: %d %r" % (p.returncode, p.stderr))

    # NERSC: the collect h5 line, $HOME/streamtime made by the first run
    h5 = subst(commented[0])
    p = cron(h5)
    check(p.returncode == 0 and p.stdout + p.stderr == "",
          "the NERSC line is quiet: %d %r" % (p.returncode, p.stderr))
    out = os.path.join(home, "streamtime", "scan_times.csv")
    keys = set()
    for f in os.listdir(counted):
        m = re.match(r"FOURD_\d{6}_\d{4}_(\d+)_(\d+)(?:_\w+)?\.h5$", f)
        if m and int(m.group(1)) != 0:
            keys.add((m.group(1), str(int(m.group(2)))))
    got = read_csv(out) if os.path.exists(out) else []
    naive = time.strftime("%Y-%m-%d %H:%M:%S", pacific(t0))
    check(got[:1] == [["distiller_id", "scan_number", "datetime"]] and
          {(r[0], r[1]) for r in got[1:]} == keys and
          all(r[2] == naive for r in got[1:]),
          "scan_times.csv: one row per counted scan (%d), naive Pacific "
          "%s: %s" % (len(keys), naive, got[:3]))


def pacific(t):
    """T (epoch seconds) as Los Angeles wall time, from the zone file."""
    os.environ["TZ"] = "America/Los_Angeles"
    time.tzset()
    try:
        return time.localtime(t)
    finally:
        del os.environ["TZ"]
        time.tzset()


def instant(t):
    """A status time as an aware datetime: Z, +00:00, the doubled offset
    of real files, a fraction; collect receivers writes +00:00."""
    from datetime import datetime
    t = t.replace("Z", "+00:00")
    if t.count("+") > 1:
        t = t[:t.index("+") + 6]
    return datetime.fromisoformat(t)


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [l.rstrip("\n").split(",") for l in f if l.strip()]


if __name__ == "__main__":
    main()
