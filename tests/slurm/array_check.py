"""`trace compare` as a Slurm job array (issue 16 item 5), on the real
single-host Slurm that run_check.py has started: docs/slurm-array/
submit.sh submits compare-share.sbatch as an array of 3 tasks (each
`trace compare --save-partial` over every 3rd trace file of each case)
and compare-reduce.sbatch with --dependency=afterok on it (`trace merge
part.*.json --json --out result.json`).  Checked: every task and the
reduce job COMPLETED in sacct, the reduce job started after the last task
ended, three partials, and result.json byte-identical to one `trace
compare --json` process over all the files.  Then the same for `trace
summary` (KIND=summary submit.sh: 4 tasks of summary-share.sbatch with
--group-by pattern,pid --per thread --time-granularity, and
summary-reduce.sbatch): four partials, summary.json byte-identical to one `trace summary --json`
process.  Then an array whose tasks fail (a metrics file missing): its
reduce job never runs (DependencyNeverSatisfied) and writes no
result.json.

Called by run_check.py (one cluster start for the suite):
checks(state, env, streamtime, fixtures, check).
"""
import gzip
import json
import os
import shutil
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "..", "..", "docs", "slurm-array")
TASKS = 3
SUMMARY_TASKS = 4     # the 4-way split of issue 16's figures

METRICS = [
    {"name": "posix_thread_max", "filter": "cat=POSIX", "value": "dur",
     "per": "thread", "reduce": "max"},
    {"name": "posix_thread_min", "filter": "cat=POSIX", "value": "dur",
     "per": "thread", "reduce": "min"},
    {"name": "pattern_pid_bytes", "filter": "file~", "value": "bytes",
     "per": "pattern,pid", "reduce": "max"},
    {"name": "file_mean_count", "filter": "file~", "value": "count",
     "per": "basename", "reduce": "mean"},
    {"name": "name_sum_dur", "value": "dur", "per": "name",
     "reduce": "sum"},
    {"name": "total_bytes", "value": "bytes"},
    {"name": "events", "value": "count"},
    {"name": "nothing", "filter": "name=nothing", "value": "dur"},
]


def split(path, outdir, parts):
    """PATH's lines into PARTS files in OUTDIR: '[' and the metadata lines
    in each, the events dealt out in turn."""
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        lines = [ln for ln in f.read().split(b"\n") if ln.strip()]
    shares = [[] for _ in range(parts)]
    k = 0
    for ln in lines:
        if ln.strip() in (b"[", b"]") or b'"ph":"M"' in ln:
            for s in shares:
                s.append(ln)
        else:
            shares[k % parts].append(ln)
            k += 1
    for i, s in enumerate(shares):
        with open(os.path.join(outdir, "part%02d.pfw" % i), "wb") as f:
            f.write(b"\n".join(s) + b"\n")


def sacct(env, ids):
    p = subprocess.run(["sacct", "-X", "-n", "-P", "-j", ",".join(ids),
                        "--format=JobID,State,Start,End,Reason"],
                       capture_output=True, text=True, env=env, timeout=60)
    rows = {}
    for ln in p.stdout.splitlines():
        f = ln.split("|")
        if len(f) >= 5:
            rows[f[0]] = f[1:]
    return rows


def wait(env, ids, done, limit=180):
    """sacct's rows of IDS once DONE(rows) holds, or the last rows after
    LIMIT seconds."""
    end = time.time() + limit
    while True:
        rows = sacct(env, ids)
        if done(rows) or time.time() > end:
            return rows
        time.sleep(1)


def logs(d):
    """The jobs' output files in D, their last lines."""
    text = []
    for n in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if n.endswith(".out"):
            with open(os.path.join(d, n), errors="replace") as f:
                text.append("%s: %s" % (n, f.read()[-800:]))
    return "\n".join(text)


FINAL = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_ME",
         "NODE_FAIL")


def run_array(env, check, what, out, prefix, result, n=TASKS):
    """Submit the array ENV describes (KIND, OUT...) of N tasks and its
    reduce job,
    wait for both, and check that every task and the reduce job COMPLETED,
    the reduce job after the last task, with one partial PREFIX.K.json
    per task.  The bytes of OUT/RESULT (b"" when missing) and the tasks,
    the reduce job and their states, or None when submit.sh failed."""
    ids = submit(env, check, what, n)
    if not ids:
        return None
    array, reduce = ids
    tasks = ["%s_%d" % (array, k) for k in range(n)]
    # sacct may learn of the tasks' ends after the reduce job's
    rows = wait(env, [array, reduce], lambda r: all(
        j in r and r[j][0].startswith(FINAL) for j in tasks + [reduce]))
    state_of = {j: rows.get(j, ["none"])[0] for j in tasks + [reduce]}
    check(all(s == "COMPLETED" for s in state_of.values()),
          "%s: %d tasks and the reduce job COMPLETED: %s; their logs:\n%s"
          % (what, n, state_of, logs(out)))
    if all(j in rows for j in tasks + [reduce]):
        last_end = max(rows[j][2] for j in tasks)
        check(rows[reduce][1] >= last_end,
              "%s: the reduce job started (%s) after the last task ended "
              "(%s)" % (what, rows[reduce][1], last_end))
    parts = sorted(n for n in os.listdir(out) if n.startswith(prefix + "."))
    check(parts == ["%s.%d.json" % (prefix, k) for k in range(n)],
          "%s: one partial per task: %s" % (what, parts))
    try:
        with open(os.path.join(out, result), "rb") as f:
            got = f.read()
    except OSError as e:
        got = b""
        check(False, "%s: no %s: %s" % (what, result, e))
    return got, tasks, reduce, state_of


def summary_array(env, check, streamtime, fx, sp, base):
    """The summary's job array over the same files, against one process."""
    out = os.path.join(base, "out-sum")
    opts = ("--group-by pattern,pid --per thread --time-granularity "
            "60000000")
    env = dict(env, KIND="summary", TRACES="%s %s" % (fx, sp), OUT=out,
               SUMMARY_OPTS=opts)
    r = run_array(env, check, "summary array", out, "sum", "summary.json",
                  SUMMARY_TASKS)
    if not r:
        return
    got, tasks, reduce, state_of = r
    one = subprocess.run([streamtime, "trace", "summary", "--json"] +
                         opts.split() + [fx, sp], capture_output=True,
                         timeout=120)
    check(one.returncode == 0 and one.stdout, "one summary: exit %d: %s"
          % (one.returncode, one.stderr))
    check(got == one.stdout, "summary array: summary.json is not "
          "byte-identical to one trace summary process:\n%s\n---\n%s"
          % (got.decode(errors="replace")[:3000],
             one.stdout.decode()[:3000]))
    if got:
        v = json.loads(got)
        check(v["events"] > 0 and v["groups"] and v["bins"] and
              v["io_us"] > 0, "summary array: the summary has answers: "
              "%d events, %d groups" % (v["events"], len(v["groups"])))
    print("slurm summary array: tasks %s, reduce %s: %s"
          % (tasks, reduce, state_of))


def submit(env, check, what, n=TASKS):
    p = subprocess.run([os.path.join(DOCS, "submit.sh"), str(n),
                        "--partition=debug"], capture_output=True,
                       text=True, env=env, timeout=60)
    ids = p.stdout.split()
    check(p.returncode == 0 and len(ids) == 2, "%s: submit.sh exit %d: "
          "%s %s" % (what, p.returncode, p.stdout, p.stderr))
    return ids if len(ids) == 2 else None


def checks(state, env, streamtime, fixtures, check):
    env = dict(env)
    env.pop("SLURM_JWT", None)      # sbatch by munge (see submit_jobs.sh)
    base = os.path.join(state, "array")
    fx = os.path.join(base, "traces", "fx")
    sp = os.path.join(base, "traces", "split")
    os.makedirs(fx)
    os.makedirs(sp)
    df = os.path.join(fixtures, "dftracer")
    for n in sorted(os.listdir(df)):
        shutil.copy(os.path.join(df, n), fx)
    split(os.path.join(df, "cm1-rank0-new-format.pfw.gz"), sp, 5)
    mpath = os.path.join(base, "m.json")
    with open(mpath, "w") as f:
        json.dump(METRICS, f)
    out = os.path.join(base, "out")
    env.update(METRICS=mpath, CASES="fx=%s split=%s" % (fx, sp), OUT=out,
               STREAMTIME=streamtime)

    r = run_array(env, check, "array", out, "part", "result.json")
    if not r:
        return
    got, tasks, reduce, state_of = r
    one = subprocess.run([streamtime, "trace", "compare", "--metrics",
                          mpath, "--json", "--case", "fx=" + fx,
                          "--case", "split=" + sp],
                         capture_output=True, timeout=120)
    check(one.returncode == 0 and one.stdout, "one process: exit %d: %s"
          % (one.returncode, one.stderr))
    check(got == one.stdout, "array: result.json is not byte-identical to "
          "one trace compare process:\n%s\n---\n%s"
          % (got.decode(errors="replace"), one.stdout.decode()))
    if got:
        v = {m["name"]: m["values"] for m in json.loads(got)["metrics"]}
        check(v["events"]["fx"] > 0 and v["events"]["split"] > 0 and
              v["nothing"]["fx"] is None, "array: the table has answers: "
              "%s" % v["events"])
    print("slurm array: tasks %s, reduce %s: %s" % (tasks, reduce,
                                                    state_of))

    summary_array(env, check, streamtime, fx, sp, base)

    # tasks that fail: the reduce job never runs, nothing is written
    out2 = os.path.join(base, "out-fail")
    env.update(METRICS=os.path.join(base, "missing.json"), OUT=out2)
    ids = submit(env, check, "failing array")
    if not ids:
        return
    array, reduce = ids
    tasks = ["%s_%d" % (array, k) for k in range(TASKS)]
    rows = wait(env, [array, reduce], lambda r: reduce in r and
                ("DependencyNeverSatisfied" in r[reduce][3] or
                 r[reduce][0].startswith(FINAL)) and
                all(j in r and r[j][0].startswith(FINAL) for j in tasks),
                limit=120)
    r = rows.get(reduce, ["none", "", "", ""])
    check(r[0] in ("PENDING", "CANCELLED") and
          ("DependencyNeverSatisfied" in r[3] or r[0] == "CANCELLED"),
          "failing array: the reduce job never runs: %s" % r)
    subprocess.run(["scancel", reduce], env=env, capture_output=True,
                   timeout=60)
    check(not os.path.exists(os.path.join(out2, "result.json")),
          "failing array: no result.json")
    tstates = [rows.get(j, ["none"])[0] for j in tasks]
    check(all(s == "FAILED" for s in tstates),
          "failing array: the tasks FAILED: %s" % tstates)
