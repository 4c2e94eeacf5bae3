#!/usr/bin/env python3
"""`streamtime slurm jobs` against a real single-host Slurm (SPEC 5.4).

usage: run_check.py STREAMTIME

Starts munged, MariaDB, slurmdbd, slurmctld, four slurmd and slurmrestd
(tests/slurm/slurm_up.sh, Debian packages, installed when missing), submits
real jobs (submit_jobs.sh: 4-node distiller-count-N jobs in QOS
realtime_test, two that exit 1, a cancelled pending one, one on 2 nodes,
an array, a name with a '|'), then checks that `slurm jobs` over sacct and
over slurmrestd return exactly the expected rows; then runs `trace
compare` as the job array of docs/slurm-array.md (array_check.py) and
compares its result with one process; and stops it all.
Needs root (daemons run as munge, mysql and slurm); otherwise skipped (77),
but never under CI=true (tests/cli/setup_rule.py).  A Slurm that does not
come up (a daemon failing) is a failure, never a pass.
"""
import csv
import io
import os
import shutil
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
import setup_rule  # noqa: E402
import array_check  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
# the fixtures, as tests/meson.build's shared_dir has them
FIXTURES = os.path.join(HERE, "..", "..", "..", "shared", "fixtures")
FAILS, CHECKS = [], [0]


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, file=sys.stderr)


def read_env(path):
    env = dict(os.environ)
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("export "):
                k, v = line[7:].split("=", 1)
                env[k] = v.strip("'\"")
    return env


class SetupFailed(Exception):
    pass


def setup(state):
    """slurm_up.sh and submit_jobs.sh in STATE; SetupFailed saying which
    failed and how."""
    for script in ("slurm_up.sh", "submit_jobs.sh"):
        try:
            p = subprocess.run([os.path.join(HERE, script), state],
                               capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            raise SetupFailed("%s did not finish in 600 s" % script)
        if p.returncode != 0:
            raise SetupFailed("%s exited %d:\n%s%s" % (
                script, p.returncode, p.stdout[-2000:], p.stderr[-4000:]))


def hold_old_ports():
    """slurmd_ports_fixed (issue 24 item 13): slurm_up.sh fixed slurmd's
    ports at 17001-17004 and failed when another test run (a second
    checkout) held them.  They are held here, by listeners of our own, for
    the whole run: a Slurm that picks its ports free comes up anyway.  The
    listeners (those ports that were free), to be closed at the end."""
    held = []
    for port in range(17001, 17005):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind(("0.0.0.0", port))
            s.listen(1)
            held.append(s)
        except OSError:        # another run holds it: as good for the check
            s.close()
    return held


def main():
    if os.geteuid() != 0:
        setup_rule.missing("slurm-real", "the Slurm daemons need root")
    state = tempfile.mkdtemp(prefix="st-slurm-")
    os.rmdir(state)     # slurm_up.sh wants a new or its own directory
    held = hold_old_ports()
    try:
        try:
            setup(state)
        except SetupFailed as e:
            check(False, "slurmd_ports_fixed: slurm_up.sh and submit_jobs.sh succeed while ports "
                  "17001-17004 are held by another process: %s" % e)
            raise
        with open(os.path.join(state, "etc", "slurm.conf")) as f:
            ports = [int(w[5:]) for ln in f if ln.startswith("NodeName=")
                     for w in ln.split() if w.startswith("Port=")]
        check(len(ports) == 4 and len(set(ports)) == 4 and
              not set(ports) & set(range(17001, 17005)),
              "slurmd_ports_fixed: four slurmd ports of their own, none of "
              "17001-17004: %s" % ports)
        checks(state)
        array_check.checks(state, read_env(os.path.join(state, "env")),
                           BIN, FIXTURES, check)
    except SetupFailed as e:
        # not a pass: the checks below never ran
        setup_rule.broken("slurm-real", "a real Slurm", str(e))
    finally:
        subprocess.run([os.path.join(HERE, "slurm_down.sh"), state],
                       capture_output=True, timeout=120)
        shutil.rmtree(state, ignore_errors=True)
        for s in held:
            s.close()
    print("slurm: %d checks, %d failed" % (CHECKS[0], len(FAILS)))
    sys.exit(1 if FAILS or not CHECKS[0] else 0)


def checks(state):
    env = read_env(os.path.join(state, "env"))
    win = dict(l.strip().split("=", 1) for l in open(os.path.join(state,
                                                              "window.txt")))
    expected = [l.strip() for l in open(os.path.join(state,
                                                     "expected_jobs.txt"))
                if l.strip()]
    if not expected:
        raise SetupFailed("submit_jobs.sh expected no job: nothing to "
                          "check against")
    # the machine's zone, which sacct and slurmrestd print times in
    tz = os.environ.get("TZ") or "UTC"
    common = ["--since", win["since"], "--until", win["until"], "--tz", tz,
              "--qos-contains", "realtime_test", "--out", "-"]

    def jobs(*extra):
        p = subprocess.run([BIN, "slurm", "jobs", *common, *extra],
                           capture_output=True, text=True, timeout=120,
                           env=env)
        rows = list(csv.reader(io.StringIO(p.stdout)))
        return p, rows

    p, sacct_rows = jobs()
    check(p.returncode == 0, "over sacct: %d %s" % (p.returncode, p.stderr))
    got = [r[1] for r in sacct_rows[1:]]
    check(sorted(got) == sorted(expected),
          "sacct rows %s, expected %s" % (got, expected))
    names = {r[1]: r[0] for r in sacct_rows[1:]}
    check("distiller-count-7|pipe" in names.values(),
          "the name with a '|' arrives whole: %s" % names)
    check(all(r[7] == "4" and r[8] == "realtime_test" and r[10] == "0:0"
              for r in sacct_rows[1:]), "filter columns: %s" % sacct_rows)

    # one-day windows: the same rows (the windows meet without a gap)
    p, rows = jobs("--window-days", "1")
    check(sorted(r[1] for r in rows[1:]) == sorted(expected),
          "1-day windows: %s" % [r[1] for r in rows[1:]])

    # slurmrestd: Debian 12 serves v0.0.36-38 only, so auto-detection
    # must land on v0.0.38.  Its exit codes are known to be wrong (a job
    # that exited 1 reads SUCCESS/0): the bug "failed job exit code 0 kept"
    # was that this job passed --exit-code 0:0.  Its state FAILED gives it
    # 1:0 now, so the default filters drop it, and stderr counts it.
    tok = env.pop("SLURM_JWT")
    tokfile = os.path.join(state, "token")
    with open(tokfile, "w") as f:
        f.write(tok + "\n")
    os.chmod(tokfile, 0o600)
    rest = ["--rest", env["SLURM_REST_URL"], "--token-file", tokfile,
            "--rest-user", "root"]
    p, rest_rows = jobs(*rest)
    check(p.returncode == 0, "over REST: %d %s" % (p.returncode, p.stderr))
    check(tok not in p.stdout + p.stderr, "the token is never printed")
    check("v0.0.38" in p.stderr and ": 2 jobs whose state is a failure"
          in p.stderr and "ExitCode 1:0" in p.stderr,
          "failed job exit code 0 kept: stderr counts the two failed jobs "
          "given 1:0: %s" % p.stderr)
    all_jobs = {}
    for line in open(os.path.join(state, "all_jobs.txt")):
        parts = line.split()
        if parts:
            all_jobs[parts[0]] = " ".join(parts[1:])
    failed = [j for j, label in all_jobs.items() if " exit 1 " in label]
    check(len(failed) == 2, "submit_jobs.sh has two jobs that exit 1: %s"
          % all_jobs)
    rest_ids = [r[1] for r in rest_rows[1:]]
    check(sorted(rest_ids) == sorted(expected),
          "failed job exit code 0 kept: REST rows %s, expected %s (the "
          "failed job %s dropped)" % (rest_ids, expected, failed))
    # and every other value agrees with sacct's, field by field
    by_id = {r[1]: r for r in rest_rows[1:]}
    for r in sacct_rows[1:]:
        check(by_id.get(r[1]) == r, "REST row of %s: %s, sacct: %s"
              % (r[1], by_id.get(r[1]), r))
    # without the exit-code filter the failed job is there, as sacct has it
    p, sacct_all = jobs("--exit-code", "")
    p2, rest_all = jobs("--exit-code", "", *rest)
    sacct_failed = [r for r in sacct_all[1:] if r[1] in failed]
    rest_failed = [r for r in rest_all[1:] if r[1] in failed]
    check(p.returncode == 0 and p2.returncode == 0 and
          len(sacct_failed) == 2 and
          sorted(rest_failed) == sorted(sacct_failed) and
          all(r[10] == "1:0" for r in sacct_failed),
          "failed job exit code 0 kept: without --exit-code, REST %s, "
          "sacct %s (want both rows, ExitCode 1:0 in both)"
          % (rest_failed, sacct_failed))
    env["SLURM_JWT"] = tok
    p, rows = jobs("--rest", env["SLURM_REST_URL"], "--rest-user", "root")
    check(p.returncode == 0 and len(rows) == len(rest_rows),
          "token from $SLURM_JWT: %s" % p.stderr)
    p, _ = jobs("--rest", env["SLURM_REST_URL"], "--rest-user", "root",
                "--api-version", "v0.0.41")
    check(p.returncode == 69, "a version the server lacks: %d %s"
          % (p.returncode, p.stderr))
    env["SLURM_JWT"] = "not-a-token"
    p, _ = jobs("--rest", env["SLURM_REST_URL"], "--rest-user", "root")
    check(p.returncode == 69 and "not-a-token" not in p.stderr,
          "a bad token: %d %s" % (p.returncode, p.stderr))
    print("sacct: %d rows %s; REST: %d rows" % (len(got), sorted(got),
                                               len(rest_ids)))
    env.pop("SLURM_JWT")
    session_live(state, env, win, tz, tok, tokfile, jobs)


def session_live(state, env, win, tz, tok, tokfile, jobs):
    """session_slurm_live: a session whose Slurm jobs are asked of sacct,
    then of slurmrestd, when reproduce runs: the snapshot in OUT is what
    `slurm jobs` writes with the same window and the default filters, and
    provenance.json names the query and hashes the snapshot.  The rest of
    the session is the shipped sample's files."""
    import hashlib
    import json
    data = os.path.join(HERE, "..", "..", "data")
    exps = json.load(open(os.path.join(data, "experiments.json")))
    for e in exps["experiments"]:
        e["h5"] = os.path.abspath(os.path.join(data, "streaming", e["h5"]))
    ft = os.path.abspath(os.path.join(data, "file_transfer"))
    st = os.path.abspath(os.path.join(data, "streaming"))
    p, want = jobs("--qos-contains", "realtime_")
    want_text = "\n".join(",".join(r) for r in want)
    for kind, query in (
            ("sacct", {"since": win["since"], "until": win["until"]}),
            ("slurmrestd", {"url": env["SLURM_REST_URL"], "user": "root",
                            "token_file": tokfile, "since": win["since"],
                            "until": win["until"]})):
        sess = {"version": 1, "synthetic": True, "tz": exps["tz"],
                "slurm_tz": tz, "experiments": exps["experiments"],
                "inputs": {
                    "write_times": os.path.join(ft, "write_times.csv"),
                    "created_times": os.path.join(
                        st, "ncem_file_created_times.csv"),
                    "slurm_jobs": {kind: query},
                    "distiller": os.path.join(ft, "distiller_db"),
                    "save_times": os.path.join(ft, "save_times.json")}}
        path = os.path.join(state, "session-%s.json" % kind)
        with open(path, "w") as f:
            json.dump(sess, f)
        out = os.path.join(state, "session-out-" + kind)
        r = subprocess.run([BIN, "reproduce", "--session", path, "--out",
                            out], capture_output=True, text=True,
                           timeout=300, env=env)
        check(r.returncode == 0, "session_slurm_live %s: %d %s"
              % (kind, r.returncode, r.stderr))
        snap = os.path.join(out, "sources", "slurm_job_info.csv")
        got = open(snap).read() if os.path.isfile(snap) else ""
        got_rows = list(csv.reader(io.StringIO(got)))
        check(p.returncode == 0 and len(want) > 1 and
              sorted(got_rows[1:]) == sorted(want[1:]) and
              got_rows[:1] == want[:1],
              "session_slurm_live %s: the snapshot is slurm jobs' rows:\n"
              "%s\nwant\n%s" % (kind, got, want_text))
        try:
            prov = json.load(open(os.path.join(out, "provenance.json")))
        except (OSError, ValueError) as e:
            check(False, "session_slurm_live %s: provenance.json: %s"
                  % (kind, e))
            continue
        live = [i for i in prov["inputs"] if i["key"] == "inputs.slurm_jobs"]
        check(len(live) == 1 and live[0]["source"] == kind and
              win["since"] in live[0]["query"] and
              live[0]["path"] == "sources/slurm_job_info.csv" and
              live[0]["sha256"] == hashlib.sha256(got.encode()).hexdigest(),
              "session_slurm_live %s: provenance: %s" % (kind, live))
        if kind == "slurmrestd":
            check(live and live[0]["server"] == env["SLURM_REST_URL"],
                  "session_slurm_live: the server is slurmrestd's URL")
            everything = r.stdout + r.stderr
            for root, _, names in os.walk(out):
                for n in names:
                    everything += open(os.path.join(root, n), "rb").read() \
                        .decode("utf-8", "replace")
            check(tok not in everything and not any(
                i["path"] == tokfile for i in prov["inputs"]),
                "session_slurm_live: the token is in an output")


if __name__ == "__main__":
    main()
