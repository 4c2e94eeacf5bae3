#!/usr/bin/env python3
"""CLI tests of how outputs are written: refusals of files that are not
ours, errors that name file and errno, temporaries left by kills, and the
all-or-nothing output set of `reproduce`.

usage: outputs_check.py STREAMTIME DATA_DIR

Every expected value is computed here (file contents, checksums), never
taken from the code under test.
"""
import hashlib
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1])
DATA = os.path.abspath(sys.argv[2])
from checks import check, report, runner  # noqa: E402

CLOCK_HEADER = ("measured_at,reference,target,offset_ms,delay_ms,bound_ms,"
                "samples,method")


run = runner(BIN, timeout=120)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def test_clock_foreign(tmp):
    """bug: `clock probe --out` cut a foreign file's only line as torn."""
    responder = "local=exec:%s clock responder" % BIN
    for i, body in enumerate(["precious notes", "measured_at,reference,x",
                              "a,b\nc,d\n", CLOCK_HEADER + ",extra\n1,2"]):
        out = os.path.join(tmp, "clock%d.csv" % i)
        write(out, body)
        p = run("clock", "probe", responder, "--samples", "2", "--out", out)
        check(p.returncode == 65 and "%s:1" % out in p.stderr and
              read(out) == body,
              "clock probe --out destroys a foreign file: %r -> %d %s"
              % (body[:30], p.returncode, p.stderr))
    # a header cut short by a kill is ours: rewritten, rows follow
    out = os.path.join(tmp, "clock-torn.csv")
    write(out, CLOCK_HEADER[:12])
    p = run("clock", "probe", responder, "--samples", "2", "--out", out)
    lines = read(out).splitlines()
    check(p.returncode == 0 and lines[0] == CLOCK_HEADER and len(lines) == 2
          and lines[1].endswith(",2,exec"),
          "clock probe --out: a torn header is repaired: %d %s %r"
          % (p.returncode, p.stderr, lines))


def test_empty_out_dir(tmp):
    """bug: `stats queue --out-dir ""` overflowed st_mkdir_p's buffer."""
    p = run("reproduce", "--data", DATA, "--out", os.path.join(tmp, "m"))
    check(p.returncode == 0, "reproduce for a merged file: %s" % p.stderr)
    merged = os.path.join(tmp, "m", "file_transfer", "merged_job_info.csv")
    p = run("stats", "queue", "--merged", merged, "--out-dir", "", cwd=tmp)
    check(p.returncode in (64, 73) and "empty" in p.stderr and
          "Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
          "st_mkdir_p(\"\") overflow: stats queue --out-dir '': %d %s"
          % (p.returncode, p.stderr))


def dot_entries(root):
    """Every entry below ROOT whose name starts with a dot (temporaries)."""
    found = []
    for d, dirs, files in os.walk(root):
        found += [os.path.join(d, x) for x in dirs + files if x.startswith(".")]
    return sorted(found)


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def wait_stopped(pid, timeout=60):
    """Wait until PID is stopped (state T in /proc/PID/stat): kill() only
    sends SIGSTOP, the process may run on a little before it takes it."""
    until = time.time() + timeout
    while time.time() < until:
        try:
            with open("/proc/%d/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        if state in ("T", "t"):
            return True
        time.sleep(0.01)
    return False


def swept_in_window(name, where, d, args, is_kind, done):
    """Run ARGS (writing into D) stopped in the window between making its
    stage or temporary (WHERE: STREAMTIME_TEST_STOP) and locking it; age
    what it made by an hour; run ARGS again beside it: what it made stays,
    and once continued it completes (DONE() true), leaving no dot entry."""
    env = dict(os.environ, STREAMTIME_TEST_STOP=where)
    proc = subprocess.Popen([BIN] + args, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    try:
        stopped = wait_stopped(proc.pid)
        check(stopped, "%s: the run stops in the window "
              "(STREAMTIME_TEST_STOP=%s)" % (name, where))
        if not stopped:
            return
        mine = [x for x in dot_entries(d)
                if (".%d" % proc.pid) in os.path.basename(x)]
        check(len(mine) == 1 and is_kind(mine[0]),
              "%s: one made: %s" % (name, mine))
        old = time.time() - 3600
        for x in mine:
            os.utime(x, (old, old))
        p = run(*args)
        check(p.returncode == 0, "%s: a run beside the stopped one: %s" %
              (name, p.stderr))
        check(all(is_kind(x) for x in mine), "%s: what a live run made and "
              "has not locked yet is not removed: %s" % (name, mine))
    finally:
        proc.send_signal(signal.SIGCONT)
        _, err = proc.communicate(timeout=120)
    check(proc.returncode == 0 and done(), "%s: the stopped run completes: "
          "%d %s" % (name, proc.returncode, err))
    check(dot_entries(d) == [], "%s: nothing left: %s" %
          (name, dot_entries(d)))


def test_stage_swept_before_locked(tmp):
    """stage_swept_before_locked (issue 24 item 16): a run's stage was made
    (mkdtemp) before it was locked (flock); a run stopped in between for
    longer than the sweep's grace (15 min: Ctrl-Z, a suspended laptop, a
    starved machine) had its stage removed by another run's sweep, which
    takes an unlocked old stage for a dead run's, and then failed (73)."""
    out = os.path.join(tmp, "window")
    os.makedirs(out)
    swept_in_window("stage_swept_before_locked", "stage", out,
                    ["reproduce", "--data", DATA, "--out", out, "-q"],
                    os.path.isdir, lambda: True)


def test_temp_swept_before_locked(tmp):
    """temp_swept_before_locked (issue 24 item 16, the same window for a
    file): a temporary was made (mkstemp) before it was locked; a run
    stopped in between for longer than the grace lost it to the sweep of
    the next run that wrote the same file, and then failed (74)."""
    d = os.path.join(tmp, "tempwindow")
    os.makedirs(d)
    trace = os.path.join(d, "a.pfw")
    write(trace, '[\n{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,'
          '"ts":1,"dur":2,"ph":"X","args":{"fname":"/x","size":4}}\n')
    target = os.path.join(d, "s.json")
    swept_in_window("temp_swept_before_locked", "temp", d,
                    ["trace", "summary", trace, "--json", "--out", target],
                    os.path.isfile, lambda: os.path.isfile(target))


def test_stale_temporaries(tmp):
    """bug: temporaries left by a SIGKILL were never removed by later runs."""
    out = os.path.join(tmp, "stale")
    rng = random.Random(13)
    p = run("reproduce", "--data", DATA, "--out", out, "-q")
    check(p.returncode == 0, "reproduce: %s" % p.stderr)
    t0 = time.monotonic()
    run("reproduce", "--data", DATA, "--out", out, "-q")
    took = time.monotonic() - t0
    left = 0
    for i in range(12):
        proc = subprocess.Popen([BIN, "reproduce", "--data", DATA, "--out",
                                 out, "-q"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, took))
        proc.kill()
        proc.wait()
        left = max(left, len(dot_entries(out)))
    print("stale temporaries: at most %d left by 12 SIGKILLs" % left)
    # planted ones: what may go and what must stay
    fig = os.path.join(out, "figures")
    me = os.getpid()
    old = time.time() - 3600
    gone = [".report.html.%d.aB3dE9" % dead_pid(),          # dead, unlocked
            ".report.html.Zx81Qp"]                            # no pid, old
    stay = [".report.html.%d.Kq2wE1" % me,                    # live, fresh
            ".report.html.%d.Lq2wE1" % dead_pid(),            # locked
            ".report.html.Mq2wE1",                            # no pid, fresh
            ".report.html.bak", "report.html.%d.Nq2wE1" % dead_pid(),
            ".other.html.%d.Pq2wE1" % dead_pid()]
    for name in gone + stay:
        write(os.path.join(out, name), "x")
    os.utime(os.path.join(out, gone[1]), (old, old))
    import fcntl
    holder = open(os.path.join(out, stay[1]))
    fcntl.flock(holder, fcntl.LOCK_EX)
    p = run("reproduce", "--data", DATA, "--out", out, "-q")
    check(p.returncode == 0, "reproduce after kills: %s" % p.stderr)
    left = [x for x in dot_entries(out)
            if os.path.basename(x) not in stay]
    check(left == [], "temporaries left by SIGKILL are removed by the next "
          "successful run: %s" % left)
    check(all(os.path.exists(os.path.join(out, n)) for n in stay),
          "a live run's temporary (locked, or fresh with a live pid) and "
          "other files are kept: %s" % sorted(os.listdir(out)))
    holder.close()
    for n in stay:
        os.unlink(os.path.join(out, n))

    # a real live run, stopped while it holds temporaries, keeps them
    # while another run completes, then completes itself
    stopped = None
    for attempt in range(40):
        proc = subprocess.Popen([BIN, "reproduce", "--data", DATA, "--out",
                                 out, "-q"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        mine = ".%d." % proc.pid
        while proc.poll() is None:
            held = [x for x in dot_entries(out)
                    if mine in os.path.basename(x) and os.path.isfile(x)]
            if held:
                proc.send_signal(signal.SIGSTOP)
                check(wait_stopped(proc.pid), "the run stops")
                stopped = proc
                break
        if stopped:
            break
        proc.wait()
    check(stopped is not None, "caught a run holding a temporary")
    if stopped:
        held = [x for x in dot_entries(out)
                if (".%d." % stopped.pid) in os.path.basename(x)]
        p = run("reproduce", "--data", DATA, "--out", out, "-q")
        check(p.returncode == 0, "reproduce beside a stopped run: %s" % p.stderr)
        check(all(os.path.exists(x) for x in held),
              "a stopped live run's temporaries are not removed: %s" % held)
        stopped.send_signal(signal.SIGCONT)
        _, err = stopped.communicate(timeout=120)
        check(stopped.returncode == 0,
              "the stopped run completes: %d %s" % (stopped.returncode, err))
        check(dot_entries(out) == [], "nothing left: %s" % dot_entries(out))


def snapshot(root):
    """{relative path: (inode, sha256)} of the files below ROOT, without
    dot entries (temporaries, stages)."""
    snap = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in files:
            if f.startswith("."):
                continue
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                snap[os.path.relpath(p, root)] = (os.stat(p).st_ino,
                                                  hashlib.sha256(fh.read())
                                                  .hexdigest())
    return snap


def json_whole(path):
    """provenance.json differs from run to run (its time): whole when it
    parses and lists the inputs."""
    try:
        with open(path, encoding="utf-8") as f:
            return bool(json.load(f).get("inputs"))
    except (OSError, ValueError):
        return False


def ends_whole(path):
    with open(path, "rb") as f:
        data = f.read()
    return data.rstrip().endswith(b"</svg>") or \
        data.rstrip().endswith(b"</html>")


def test_reproduce_all_or_nothing(tmp):
    """bug: a killed reproduce left OUT with some new files and some old."""
    base = os.path.join(tmp, "aon")
    pristine_dir = os.path.join(base, "pristine")
    os.makedirs(base)
    p = run("reproduce", "--data", DATA, "--out", pristine_dir, "-q")
    check(p.returncode == 0, "reproduce: %s" % p.stderr)
    pristine = snapshot(pristine_dir)
    names = sorted(pristine)
    t0 = time.monotonic()
    run("reproduce", "--data", DATA, "--out", pristine_dir, "-q")
    took = time.monotonic() - t0
    rng = random.Random(3)
    outcome = {"old": 0, "new": 0, "mixed": 0, "cut": 0}
    out = os.path.join(base, "out")
    trials = 24
    for i in range(trials):
        sig = signal.SIGKILL if i % 2 else signal.SIGTERM
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(pristine_dir, out)
        # something only the old set has, which must survive either way
        write(os.path.join(out, "notes.txt"), "mine")
        old = snapshot(out)
        proc = subprocess.Popen([BIN, "reproduce", "--data", DATA, "--out",
                                 out, "-q"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        # most instants over the run, some right at its end (the commit)
        at = rng.uniform(0, took) if i % 3 else rng.uniform(0.7, 1.1) * took
        time.sleep(at)
        proc.send_signal(sig)
        proc.wait()
        snap = snapshot(out)
        olds = [n for n in names if snap.get(n, (0,))[0] == old[n][0]
                and snap[n][1] == old[n][1]]
        news = [n for n in names if n in snap and snap[n][0] != old[n][0]]
        state = "old" if len(olds) == len(names) else \
            "new" if len(news) == len(names) else "mixed"
        stages = [x for x in os.listdir(out)
                  if x.startswith(".streamtime-stage.")]
        if state == "mixed" and sig == signal.SIGKILL and len(stages) == 1:
            # SIGKILL inside the commit's rename loop (signals that can
            # be caught are blocked there): the renamed files are the
            # new set's, the rest still wait whole in the stage.  The
            # old file-by-file commit had no stage holding the rest.
            st = os.path.join(out, stages[0])
            if all(os.path.isfile(os.path.join(st, n)) for n in olds) and \
                    not any(os.path.exists(os.path.join(st, n))
                            for n in news) and \
                    all(snap[n][1] == pristine[n][1] or
                        ((n.endswith(".svg") or n.endswith(".html")) and
                         ends_whole(os.path.join(out, n))) or
                        (n == "provenance.json" and
                         json_whole(os.path.join(out, n))) for n in news):
                state = "cut"
        if state == "new":
            bad = [n for n in news if not (
                snap[n][1] == pristine[n][1] or
                ((n.endswith(".svg") or n.endswith(".html")) and
                 ends_whole(os.path.join(out, n))) or
                (n == "provenance.json" and
                 json_whole(os.path.join(out, n))))]
            check(bad == [], "reproduce killed (%s at %.3f s): new files "
                  "not whole: %s" % (sig.name, at, bad))
        outcome[state] += 1
        check(state != "mixed",
              "reproduce is all-or-nothing: %s at %.3f s of %.3f left %d old "
              "and %d new files of %d" % (sig.name, at, took, len(olds),
                                          len(news), len(names)))
        check(read(os.path.join(out, "notes.txt")) == "mine",
              "a file not of the set is left alone")
        if sig == signal.SIGTERM:
            check(dot_entries(out) == [], "SIGTERM leaves no stage or "
                  "temporary: %s" % dot_entries(out))
    print("reproduce killed %d times (SIGKILL and SIGTERM): %d old, %d new, "
          "%d mixed, %d cut inside the commit's rename loop" %
          (trials, outcome["old"], outcome["new"], outcome["mixed"],
           outcome["cut"]))
    # a later successful run removes what the SIGKILLs left
    p = run("reproduce", "--data", DATA, "--out", out, "-q")
    check(p.returncode == 0 and dot_entries(out) == [],
          "a run after kills leaves no stage behind: %s" % dot_entries(out))

    # the set through symlinks: the file a link names is replaced and the
    # link stays; a device is written in place
    links = os.path.join(base, "links")
    os.makedirs(links)
    elsewhere = os.path.join(base, "elsewhere.html")
    write(elsewhere, "old")
    os.symlink(elsewhere, os.path.join(links, "report.html"))
    os.symlink("/dev/null", os.path.join(links, "timeline.json"))
    p = run("reproduce", "--data", DATA, "--out", links, "-q")
    check(p.returncode == 0 and
          os.path.islink(os.path.join(links, "report.html")) and
          os.path.islink(os.path.join(links, "timeline.json")) and
          ends_whole(elsewhere) and dot_entries(links) == [] and
          not [x for x in os.listdir(base) if x.startswith(".")],
          "reproduce through symlinks: %d %s" % (p.returncode, p.stderr))

    # a full disk: a small tmpfs holding the old set, no room for the new
    mnt = os.path.join(base, "mnt")
    os.mkdir(mnt)
    size = sum(os.path.getsize(os.path.join(pristine_dir, n)) for n in names)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o",
                              "size=%d" % (size * 3 // 2), "tmpfs", mnt],
                             capture_output=True).returncode == 0
    try:
        if mounted:
            full = os.path.join(mnt, "out")
            shutil.copytree(pristine_dir, full)
            old = snapshot(full)
            p = run("reproduce", "--data", DATA, "--out", full, "-q")
            check(p.returncode in (73, 74) and full in p.stderr,
                  "reproduce on a full disk fails naming the file: %d %s"
                  % (p.returncode, p.stderr))
            check(snapshot(full) == old,
                  "a full disk leaves the old set whole: %s"
                  % sorted(set(snapshot(full).items()) ^ set(old.items()))[:4])
            check(dot_entries(full) == [], "a full disk leaves no stage: %s"
                  % dot_entries(full))
        else:
            print("no tmpfs mount (not root?): RLIMIT_FSIZE instead")
        # a file size limit: writes fail with EFBIG
        lim = os.path.join(base, "fsize")
        shutil.copytree(pristine_dir, lim)
        old = snapshot(lim)

        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))
        p = subprocess.run([BIN, "reproduce", "--data", DATA, "--out", lim,
                            "-q"], capture_output=True, text=True,
                           preexec_fn=limit, timeout=120)
        check(p.returncode == 74 and "File too large" in p.stderr,
              "reproduce past RLIMIT_FSIZE: %d %s" % (p.returncode, p.stderr))
        check(snapshot(lim) == old and dot_entries(lim) == [],
              "a failed write leaves the old set whole and no stage")
    finally:
        if mounted:
            subprocess.run(["umount", mnt])


def test_errors_name_file_and_errno(tmp):
    """bug: merge transfer on a full disk said only 'write error'; an
    unwritable lock directory said 'No such file or directory'."""
    ft = os.path.join(DATA, "file_transfer")
    args = ["merge", "transfer", "--jobs", os.path.join(ft, "slurm_job_info.csv"),
            "--db", os.path.join(ft, "distiller_db"), "--out"]
    mnt = os.path.join(tmp, "full")
    os.mkdir(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", mnt],
                      capture_output=True).returncode == 0:
        try:
            out = os.path.join(mnt, "merged.csv")
            p = run(*args, out)
            check(p.returncode == 74 and
                  "cannot write %s: No space left on device" % out in p.stderr
                  and not os.path.exists(out) and os.listdir(mnt) == [],
                  "merge transfer on a full disk names file and errno: %d %s"
                  % (p.returncode, p.stderr))
        finally:
            subprocess.run(["umount", mnt])
    else:
        print("no tmpfs mount (not root?): full disk not tried")

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    out = os.path.join(tmp, "merged-big.csv")
    p = subprocess.run([BIN, *args, out], capture_output=True, text=True,
                       preexec_fn=limit, timeout=60)
    check(p.returncode == 74 and
          "cannot write %s: File too large" % out in p.stderr,
          "merge transfer past RLIMIT_FSIZE names file and errno: %d %s"
          % (p.returncode, p.stderr))

    # a lock file that cannot be created: EACCES, not ENOENT
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    os.chmod(tmp, 0o755)
    os.chmod(ro, 0o555)
    pre = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] \
        if os.geteuid() == 0 else []
    counted = os.path.join(DATA, "counted")
    p = subprocess.run(pre + [BIN, "collect", "h5", counted, "--out",
                              os.path.join(ro, "s.csv"), "--settle", "0"],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 73 and os.path.join(ro, "s.csv.lock") in p.stderr
          and "Permission denied" in p.stderr,
          "an unwritable lock directory is EACCES, named: %d %s"
          % (p.returncode, p.stderr))
    os.chmod(ro, 0o755)


def main():
    tmp = tempfile.mkdtemp(prefix="st-outputs-")
    try:
        test_clock_foreign(tmp)
        test_empty_out_dir(tmp)
        test_stale_temporaries(tmp)
        test_stage_swept_before_locked(tmp)
        test_temp_swept_before_locked(tmp)
        test_reproduce_all_or_nothing(tmp)
        test_errors_name_file_and_errno(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(report("outputs"))


if __name__ == "__main__":
    main()
