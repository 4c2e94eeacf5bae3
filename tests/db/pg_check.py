#!/usr/bin/env python3
"""`streamtime distiller jobs` against a real PostgreSQL (SPEC 4.4, 5.5).

Starts a throwaway server (tests/db/pgserver.py), loads sql/distiller_legacy.sql
and sql/distiller_current.sql into two databases with the same data, and
checks:
  * synthetic rows (NULL slurm_id, NULL elapsed, a scan with two count jobs,
    transfer jobs, both key spellings, mismatched and non-number dimensions,
    intervals over a day, fractions): the output equals what psql returns
    for an independently written query per size, and the few rows worked
    out by hand;
  * the paper's four exports loaded into both schemas come back
    byte-for-byte, from either schema;
  * bad input: sizes (64 before any connection), unreachable servers,
    wrong credentials (69, the password never shown), a missing table or
    column (78), connect_timeout and sslmode passed through, old outputs
    kept and no temporary files left on failure.

usage: pg_check.py STREAMTIME SOURCE_ROOT PAPER_DATA
"""
import csv
import hashlib
import io
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
import pgserver  # noqa: E402
import setup_rule  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
PAPER = os.path.join(os.path.abspath(sys.argv[3]), "file_transfer",
                     "distiller_db")
SIZES = (128, 256, 512, 1024)
HEADER = "id,slurm_id,elapsed\n"
FAILS, CHECKS = [], [0]
MISSING = []        # parts not run for want of their input (setup_rule)


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args, env=None, timeout=120):
    e = dict(os.environ)
    for k in ("PGPASSWORD", "PGPASSFILE", "PGHOST", "PGPORT", "PGUSER",
              "PGDATABASE", "PGCONNECT_TIMEOUT", "PGSSLMODE"):
        e.pop(k, None)
    e.update(env or {})
    return subprocess.run([BIN, "distiller", "jobs", *args], env=e,
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def read_outputs(d, sizes=SIZES):
    out = {}
    for n in sizes:
        with open(os.path.join(d, "%d_%d.csv" % (n, n)), newline="") as f:
            out[n] = f.read()
    return out


def sql_str(s):
    return "NULL" if s is None else "'" + s.replace("'", "''") + "'"


# ---- synthetic data: (id, metadata) scans and (id, type, slurm_id,
# elapsed, scan id) jobs, the same in both schemas ----
SCANS = [
    (1, {"Dimensions 1": 128, "Dimensions 2": 128}),
    (2, {"Dimensions.1": 128, "Dimensions.2": 128}),          # other microscopes
    (3, {"Dimensions 1": 256, "Dimensions 2": 128}),          # mismatched
    (4, {"Dimensions 1": 512.0, "Dimensions 2": 512}),        # 512.0 is 512
    (5, {"Dimensions 1": "1024", "Dimensions 2": "1024"}),    # strings: no
    (6, {"Dimensions 1": 1024, "Dimensions.2": 1024}),        # mixed keys
    (7, None),                                                # no metadata
    (8, {"Dimensions 1": None, "Dimensions.1": 256,           # spaced key
         "Dimensions 2": 256}),                               # wins: null
    (9, {"Dimensions 1": 1024, "Dimensions 2": 1024, "x": "y"}),
    (10, {"Dimensions 1": 256, "Dimensions 2": 256}),
    (11, {}),
    (12, {"Dimensions 1": [128], "Dimensions 2": [128]}),     # arrays: no
    (13, {"Dimensions.1": 512, "Dimensions.2": 512.5}),       # mismatched
    (14, [128, 128]),                                         # no object
    (15, "128"),
    (16, {"Dimensions 1": 1e300, "Dimensions 2": 1e300,       # huge
          "x": 18446744073709551615}),
]
JOBS = [
    (1, "count", 58250603, "00:04:19", 9),
    (2, "count", None, "00:00:30", 1),            # NULL slurm_id
    (3, "count", 111, None, 1),                   # NULL elapsed, 2nd job
    (4, "transfer", None, "00:01:00", 1),         # a transfer job
    (5, "count", 222, "26:00:00", 2),             # over a day, in hours
    (6, "count", 333, "00:00:10", 3),
    (7, "count", 444, "1 day 02:03:04", 4),       # over a day, in days
    (8, "count", 555, "00:00:11", 5),
    (9, "count", 666, "3 days", 6),
    (10, "count", 777, "00:00:12", 7),
    (11, "count", 888, "00:00:13", 8),
    (12, "streaming", 999, "00:00:01.5", 10),     # a fraction
    (13, "count", 1000, "100:00:00.000001", 10),
    (14, "count", 1001, "00:00:14", 11),
    (15, "count", 1002, "00:00:15", 12),
    (16, "count", 1003, "00:00:16", None),        # a job without a scan
    (17, "transfer", 1004, "00:00:05", 9),
    (18, "count", None, None, 13),
    (19, "count", 1005, "00:00:00", 4),
    (20, "count", 1006, "00:00:01", 14),
    (21, "count", 1007, "00:00:02", 15),
    (22, "count", 1008, "00:00:03", 16),
]
# worked out by hand from the table above: (size, job type) -> file body
BY_HAND = {
    (128, "count"): "1,,00:00:30\n1,111,\n2,222,26:00:00\n",
    (256, "count"): "10,1000,100:00:00.000001\n",
    (512, "count"): "4,444,26:03:04\n4,1005,00:00:00\n",
    (1024, "count"): "9,58250603,00:04:19\n6,666,72:00:00\n",
    (128, None): "1,,00:00:30\n1,111,\n1,,00:01:00\n2,222,26:00:00\n",
    (256, None): "10,999,00:00:01.500000\n10,1000,100:00:00.000001\n",
    (1024, None): "9,58250603,00:04:19\n6,666,72:00:00\n9,1004,00:00:05\n",
}


def load(pg, db, schema, scans, jobs):
    """Create DB with SCHEMA (legacy or current) holding SCANS and JOBS."""
    pg.createdb(db)
    pg.psql(db, file=os.path.join(ROOT, "sql", "distiller_%s.sql" % schema))
    buf = io.StringIO()
    buf.write("BEGIN;\n")
    for sid, meta in scans:
        buf.write("INSERT INTO scans (id, scan_id, created, metadata) VALUES "
                  "(%d, %d, '2023-01-02T03:04:05Z', %s);\n"
                  % (sid, sid % 1000, sql_str(None if meta is None else
                                              json.dumps(meta))))
    for jid, jt, slurm, el, sid in jobs:
        cols = "id, job_type, slurm_id, elapsed"
        vals = "%d, '%s', %s, %s" % (jid, jt, "NULL" if slurm is None
                                     else slurm, sql_str(el))
        if schema == "legacy":
            cols += ", scan_id"
            vals += ", %s" % ("NULL" if sid is None else sid)
        buf.write("INSERT INTO jobs (%s) VALUES (%s);\n" % (cols, vals))
        if schema == "current" and sid is not None:
            buf.write("INSERT INTO scan_job_table VALUES (%d, %d);\n"
                      % (sid, jid))
    buf.write("COMMIT;\n")
    pg.psql(db, buf.getvalue())


def psql_expected(pg, db, schema, size, job_type):
    """The file for SIZE by psql, with a query written apart from the
    program's: one statement per size, as the paper ran them, the elapsed
    time formatted by SQL."""
    link = ("JOIN scans s ON s.id = j.scan_id" if schema == "legacy" else
            "JOIN scan_job_table sj ON sj.job_id = j.id "
            "JOIN scans s ON s.id = sj.scan_id")
    dim = ("(CASE WHEN s.metadata ? 'Dimensions %d' "
           "THEN s.metadata -> 'Dimensions %d' "
           "ELSE s.metadata -> 'Dimensions.%d' END)")
    d1, d2 = dim % (1, 1, 1), dim % (2, 2, 2)
    e = "floor(extract(epoch FROM j.elapsed))::bigint"
    us = ("round((extract(epoch FROM j.elapsed) - floor(extract(epoch FROM "
          "j.elapsed))) * 1000000)::bigint")
    el = ("CASE WHEN j.elapsed IS NULL THEN NULL ELSE "
          "lpad((%s / 3600)::text, greatest(2, length((%s / 3600)::text)),"
          " '0') || ':' || "
          "lpad((%s / 60 %% 60)::text, 2, '0') || ':' || "
          "lpad((%s %% 60)::text, 2, '0') || "
          "CASE WHEN %s = 0 THEN '' ELSE '.' || lpad(%s::text, 6, '0') END "
          "END" % (e, e, e, e, us, us))
    q = ("SELECT s.id, j.slurm_id, %s AS elapsed FROM jobs j %s "
         "WHERE jsonb_typeof(%s) = 'number' AND jsonb_typeof(%s) = 'number' "
         "AND (%s)::text::numeric = %d AND (%s)::text::numeric = %d %s "
         "ORDER BY j.id, s.id"
         % (el, link, d1, d2, d1, size, d2, size,
            "AND j.job_type = %s" % sql_str(job_type) if job_type else ""))
    return pg.psql(db, "\\copy (%s) TO STDOUT WITH (FORMAT csv, HEADER)\n"
                   % q)


def test_synthetic(pg, tmp):
    for schema in ("legacy", "current"):
        load(pg, "syn_" + schema, schema, SCANS, JOBS)
    outs = {}
    for schema in ("legacy", "current"):
        for jt in ("count", None):
            d = os.path.join(tmp, "syn-%s-%s" % (schema, jt))
            p = run("--dsn", pg.dsn("syn_" + schema), "--out-dir", d, "-v",
                    *(["--job-type", jt] if jt else []))
            check(p.returncode == 0, "synthetic %s %s: %d %s"
                  % (schema, jt, p.returncode, p.stderr))
            check("%s schema" % schema in p.stderr,
                  "-v names the %s schema: %s" % (schema, p.stderr))
            if p.returncode:
                continue
            got = read_outputs(d)
            outs[schema, jt] = got
            for n in SIZES:
                want = psql_expected(pg, "syn_" + schema, schema, n, jt)
                check(got[n] == want, "%s %s %d: ours %r, psql %r"
                      % (schema, jt, n, got[n], want))
                hand = BY_HAND.get((n, jt))
                if hand is not None:
                    check(got[n] == HEADER + hand, "%s %s %d by hand: %r"
                          % (schema, jt, n, got[n]))
            check(sorted(os.listdir(d)) == ["%d_%d.csv" % (n, n)
                                            for n in sorted(SIZES, key=str)],
                  "only the four files: %s" % os.listdir(d))
    for jt in ("count", None):
        if ("legacy", jt) in outs and ("current", jt) in outs:
            check(outs["legacy", jt] == outs["current", jt],
                  "legacy and current give the same files (%s)" % jt)

    # --size: one size, a list, the order kept in messages
    d = os.path.join(tmp, "one")
    p = run("--dsn", pg.dsn("syn_legacy"), "--out-dir", d, "--size", "512",
            "--job-type", "count")
    check(p.returncode == 0 and os.listdir(d) == ["512_512.csv"],
          "one size: %d %s %s" % (p.returncode, p.stderr, os.listdir(d)))
    d = os.path.join(tmp, "list")
    p = run("--dsn", pg.dsn("syn_current"), "--out-dir", d,
            "--size", "1024,128", "--job-type", "count")
    check(p.returncode == 0 and sorted(os.listdir(d)) ==
          ["1024_1024.csv", "128_128.csv"], "size list: %s" % p.stderr)

    # the current schema: one job over two scans gives a row per scan
    pg.psql("syn_current", "INSERT INTO jobs (id, job_type, slurm_id, elapsed)"
            " VALUES (50, 'count', 5050, '00:00:50');"
            "INSERT INTO scan_job_table VALUES (2, 50), (1, 50);")
    d = os.path.join(tmp, "two-scans")
    p = run("--dsn", pg.dsn("syn_current"), "--out-dir", d, "--size", "128",
            "--job-type", "count")
    got = read_outputs(d, (128,))[128] if p.returncode == 0 else ""
    check(got == psql_expected(pg, "syn_current", "current", 128, "count")
          and got.endswith("1,5050,00:00:50\n2,5050,00:00:50\n"),
          "a job over two scans: %d %s %r" % (p.returncode, p.stderr, got))


def load_paper(pg, db, schema):
    """The paper's four exports as one Distiller table: a scan per id with
    its size (the dotted key for every third scan), a job per row in file
    order, and a transfer job per scan that --job-type count must drop."""
    pg.createdb(db)
    pg.psql(db, file=os.path.join(ROOT, "sql", "distiller_%s.sql" % schema))
    scans, jobs = io.StringIO(), io.StringIO()
    links = io.StringIO()
    seen, jid = set(), 0
    for n in SIZES:
        with open(os.path.join(PAPER, "%d_%d.csv" % (n, n)), newline="") as f:
            for row in csv.DictReader(f):
                sid = int(row["id"])
                if sid not in seen:
                    seen.add(sid)
                    key = "Dimensions.%d" if sid % 3 == 0 else "Dimensions %d"
                    meta = json.dumps({key % 1: n, key % 2: n})
                    scans.write("%d\t%d\t2023-01-01 00:00:00+00\t%s\n"
                                % (sid, sid, meta))
                    jid += 1
                    jobs.write("%d\ttransfer\t\\N\t00:00:07\t%s\n"
                               % (jid, sid if schema == "legacy" else ""))
                    links.write("%d\t%d\n" % (sid, jid))
                jid += 1
                jobs.write("%d\tcount\t%s\t%s\t%s\n" % (
                    jid, row["slurm_id"] or "\\N", row["elapsed"] or "\\N",
                    sid if schema == "legacy" else ""))
                links.write("%d\t%d\n" % (sid, jid))
    cols = "id, job_type, slurm_id, elapsed"
    jt = jobs.getvalue()
    if schema == "legacy":
        cols += ", scan_id"
    else:
        jt = "".join(l.rsplit("\t", 1)[0] + "\n" for l in jt.splitlines())
    script = ("\\copy scans (id, scan_id, created, metadata) FROM STDIN\n" +
              scans.getvalue() + "\\.\n" +
              "\\copy jobs (%s) FROM STDIN\n" % cols + jt + "\\.\n")
    if schema == "current":
        script += ("\\copy scan_job_table (scan_id, job_id) FROM STDIN\n" +
                   links.getvalue() + "\\.\n")
    pg.psql(db, script)
    return jid


def test_paper(pg, tmp):
    if not os.path.isdir(PAPER):
        print("paper: SKIPPED, no %s" % PAPER)
        MISSING.append("no paper data at %s" % PAPER)
        return
    outs = {}
    for schema in ("legacy", "current"):
        njobs = load_paper(pg, "paper_" + schema, schema)
        d = os.path.join(tmp, "paper-" + schema)
        p = run("--dsn", pg.dsn("paper_" + schema), "--out-dir", d,
                "--job-type", "count")
        check(p.returncode == 0, "paper %s: %d %s" % (schema, p.returncode,
                                                      p.stderr))
        if p.returncode == 0:
            outs[schema] = read_outputs(d)
    print("paper: %d jobs loaded per schema" % njobs)
    for n in SIZES:
        with open(os.path.join(PAPER, "%d_%d.csv" % (n, n)), newline="") as f:
            want = f.read()
        for schema, got in outs.items():
            check(got[n] == want, "paper %s %d_%d.csv differs from the "
                  "paper's export" % (schema, n, n))
    check(len(outs) == 2 and outs["legacy"] == outs["current"],
          "paper: both schemas byte-for-byte the same")


def test_session(pg, tmp):
    """session_distiller_live: a session whose Distiller input is the
    database (a DSN file with a password): reproduce asks it, its answer is
    a snapshot in OUT hashed in provenance.json, and the password appears
    nowhere.  The paper's other files make the rest of the session."""
    if not os.path.isdir(PAPER):
        return
    secret = "Sess-5ecret-walrus-41"
    pg.psql("postgres", "CREATE ROLE bob LOGIN PASSWORD '%s';" % secret)
    pg.psql("paper_current", "GRANT SELECT ON ALL TABLES IN SCHEMA public "
            "TO bob;")
    d = os.path.join(tmp, "session")
    os.makedirs(d)
    dsn_file = os.path.join(d, "distiller.dsn")
    with open(dsn_file, "w") as f:
        f.write(pg.dsn("paper_current", "bob", password=secret) + "\n")
    os.chmod(dsn_file, 0o600)
    ft = os.path.dirname(PAPER)
    st = os.path.join(os.path.dirname(ft), "streaming")
    exps = [(128, 4858, 4887, 2709, 3688), (256, 4828, 4857, 3813, 4226),
            (512, 4798, 4827, 4227, 4644), (1024, 4768, 4797, 4653, 4698)]
    sess = {"version": 1, "tz": "America/Los_Angeles", "slurm_tz": "UTC",
            "experiments": [{"size": n, "offload": [a, b],
                             "streaming": [c, e],
                             "h5": os.path.join(st, "scan_times_%d_%d.csv"
                                                % (c, e))}
                            for n, a, b, c, e in exps],
            "inputs": {
                "write_times": os.path.join(ft, "write_times.csv"),
                "created_times": os.path.join(st,
                                              "ncem_file_created_times.csv"),
                "slurm_jobs": os.path.join(ft, "slurm_job_info.csv"),
                "save_time_stats": os.path.join(ft, "save_time_stats.csv"),
                "distiller": {"postgresql": {"dsn_file": "distiller.dsn",
                                             "job_type": "count"}}}}
    path = os.path.join(d, "s.json")
    with open(path, "w") as f:
        json.dump(sess, f)
    out = os.path.join(tmp, "session-out")
    p = subprocess.run([BIN, "reproduce", "--session", path, "--out", out],
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, "session_distiller_live: %d %s"
          % (p.returncode, p.stderr))
    check("| 512 | 138.5 \u00b1 28.2 | 25.1 \u00b1 1.3 | 5.5 |" in p.stdout,
          "session_distiller_live: the paper's table: " + p.stdout)
    snap = os.path.join(out, "sources", "distiller_db")
    for n in SIZES:
        with open(os.path.join(PAPER, "%d_%d.csv" % (n, n)), "rb") as f:
            want = f.read()
        got = open(os.path.join(snap, "%d_%d.csv" % (n, n)), "rb").read() \
            if os.path.isfile(os.path.join(snap, "%d_%d.csv" % (n, n))) \
            else b""
        check(got == want, "session_distiller_live: the snapshot %d_%d.csv "
              "is the paper's export" % (n, n))
    try:
        prov = json.load(open(os.path.join(out, "provenance.json")))
    except (OSError, ValueError) as e:
        check(False, "session_distiller_live: provenance.json: %s" % e)
        return
    live = [i for i in prov["inputs"] if i["key"] == "inputs.distiller"]
    check(len(live) == 4 and all(
        i["source"] == "postgresql" and "distiller.dsn" in i["server"] and
        i["path"] == "sources/distiller_db/%s" % os.path.basename(
            i["path"]) and
        i["sha256"] == hashlib.sha256(open(os.path.join(
            snap, os.path.basename(i["path"])), "rb").read()).hexdigest()
        for i in live), "session_distiller_live: provenance lists the "
        "snapshot's files with their query, server and sha256: %s" % live)
    everything = p.stdout + p.stderr
    for root, _, names in os.walk(out):
        for n in names:
            everything += open(os.path.join(root, n), "rb").read().decode(
                "utf-8", "replace")
    check(secret not in everything and "distiller.dsn" in everything,
          "session_distiller_live: the password is in an output")
    check(not any(i["path"] == dsn_file for i in prov["inputs"]),
          "session_distiller_live: the DSN file is hashed as an input")
    # a DSN inline is refused (78) without being echoed
    sess["inputs"]["distiller"] = {"postgresql": {"dsn": pg.dsn(
        "paper_current", "bob", password=secret)}}
    with open(path, "w") as f:
        json.dump(sess, f)
    p = subprocess.run([BIN, "reproduce", "--session", path, "--out", out],
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 78 and secret not in p.stderr,
          "session_dsn_inline_78: %d %s" % (p.returncode, p.stderr))


class Silent:
    """A TCP listener that accepts and never answers (connect_timeout), or
    answers an SSLRequest with 'N' (sslmode=require must then fail).  Not
    PostgreSQL: a stand-in for a server that hangs or lacks SSL."""

    def __init__(self, ssl_no=False):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.conns = []
        self.ssl_no = ssl_no
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            if self.ssl_no:
                try:
                    c.recv(8)           # SSLRequest: length 8, 80877103
                    c.sendall(b"N")
                except OSError:
                    pass


def test_errors(pg, tmp):
    out = os.path.join(tmp, "err")
    os.makedirs(out)
    old = os.path.join(out, "128_128.csv")
    with open(old, "w") as f:
        f.write("old contents\n")

    def untouched(what):
        with open(old) as f:
            body = f.read()
        check(body == "old contents\n" and os.listdir(out) == ["128_128.csv"],
              "%s: outputs untouched, no temporary files: %s"
              % (what, os.listdir(out)))

    # a bad size is refused before any connection (this DSN would hang)
    hang = Silent()
    for bad in ("0", "-5", "12x", "1.5", "", "128,", "128,128", ",128",
                "1,,2", " 128", "+128", "0128,", "99999999999"):
        t = time.monotonic()
        p = run("--dsn", "host=127.0.0.1 port=%d" % hang.port,
                "--out-dir", out, "--size", bad)
        check(p.returncode == 64 and time.monotonic() - t < 5 and
              "--size" in p.stderr, "--size %r: %d %s"
              % (bad, p.returncode, p.stderr))
    untouched("bad size")

    # unreachable: no server on the socket, a closed TCP port
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    closed = s.getsockname()[1]
    s.close()
    for dsn in ("host=%s/none port=5432 dbname=x" % tmp,
                "postgresql://127.0.0.1:%d/x" % closed):
        p = run("--dsn", dsn, "--out-dir", out)
        check(p.returncode == 69 and "cannot connect" in p.stderr,
              "unreachable %s: %d %s" % (dsn, p.returncode, p.stderr))
        untouched("unreachable")

    # credentials: a role with a password; wrong ones are 69 and never shown
    secret, wrong = "Rt7-right-horse-9q", "Wx4-wrong-staple-2z"
    pg.psql("postgres", "CREATE ROLE alice LOGIN PASSWORD '%s';" % secret)
    pg.psql("syn_legacy", "GRANT SELECT ON ALL TABLES IN SCHEMA public "
            "TO alice;")
    for how, args, env in (
            ("PGPASSWORD", ["--dsn", pg.dsn("syn_legacy", "alice")],
             {"PGPASSWORD": wrong}),
            ("conninfo", ["--dsn", pg.dsn("syn_legacy", "alice",
                                          password=wrong)], {}),
            ("URI", ["--dsn", "postgresql://alice:%s@/syn_legacy?host=%s"
                     % (wrong, pg.dir)], {})):
        p = run(*args, "--out-dir", out, env=env)
        check(p.returncode == 69 and "alice" in p.stderr and
              wrong not in p.stderr + p.stdout and
              secret not in p.stderr + p.stdout,
              "wrong password by %s: %d %s" % (how, p.returncode, p.stderr))
        untouched("wrong password")
    # the right one from a pgpass file works
    passfile = os.path.join(tmp, "pgpass")
    with open(passfile, "w") as f:
        f.write("%s:%d:syn_legacy:alice:%s\n" % (pg.dir, pg.port, secret))
    os.chmod(passfile, 0o600)
    d = os.path.join(tmp, "alice")
    p = run("--dsn", pg.dsn("syn_legacy", "alice"), "--out-dir", d,
            "--job-type", "count", env={"PGPASSFILE": passfile})
    check(p.returncode == 0 and secret not in p.stderr and
          read_outputs(d)[128] == HEADER + BY_HAND[128, "count"],
          "pgpass: %d %s" % (p.returncode, p.stderr))
    # the PG* environment alone, no --dsn
    d = os.path.join(tmp, "env")
    p = run("--out-dir", d, "--size", "128", "--job-type", "count",
            env={"PGHOST": pg.dir, "PGPORT": str(pg.port),
                 "PGUSER": "postgres", "PGDATABASE": "syn_current"})
    check(p.returncode == 0 and read_outputs(d, (128,))[128].startswith(
        HEADER + BY_HAND[128, "count"]), "PG* environment: %d %s"
          % (p.returncode, p.stderr))
    # a DSN libpq cannot parse is a usage error that quotes none of it
    p = run("--dsn", "host=x password %s" % secret, "--out-dir", out)
    check(p.returncode == 64 and secret not in p.stderr,
          "unparsable DSN: %d %s" % (p.returncode, p.stderr))

    # not a Distiller database, neither link, a missing column
    pg.createdb("empty")
    p = run("--dsn", pg.dsn("empty"), "--out-dir", out)
    check(p.returncode == 78 and "scans" in p.stderr,
          "empty database: %d %s" % (p.returncode, p.stderr))
    untouched("empty database")
    pg.createdb("neither")
    pg.psql("neither", "CREATE TABLE scans (id int, metadata jsonb);"
            "CREATE TABLE jobs (id int, job_type text, slurm_id int, "
            "elapsed interval);")
    p = run("--dsn", pg.dsn("neither"), "--out-dir", out)
    check(p.returncode == 78 and "jobs.scan_id" in p.stderr and
          "scan_job_table" in p.stderr, "neither schema: %d %s"
          % (p.returncode, p.stderr))
    untouched("neither schema")
    load(pg, "nometa", "legacy", SCANS[:2], JOBS[1:3])
    pg.psql("nometa", "ALTER TABLE scans DROP COLUMN metadata;")
    p = run("--dsn", pg.dsn("nometa"), "--out-dir", out)
    check(p.returncode == 78 and "metadata" in p.stderr,
          "missing column: %d %s" % (p.returncode, p.stderr))
    untouched("missing column")
    p = run("--dsn", pg.dsn("syn_current"), "--schema", "legacy",
            "--out-dir", out)
    check(p.returncode == 78 and "scan_id" in p.stderr,
          "--schema legacy on the current schema: %d %s"
          % (p.returncode, p.stderr))
    untouched("wrong --schema")

    # connect_timeout: --timeout, and the DSN's own value winning over it.
    # libpq sets its deadline as time(NULL) + N, in whole seconds, so N
    # seconds wait between N - 1 and N (3.2 s was seen for N = 4): the
    # windows below keep 2 and 4 apart without assuming more
    for dsn_extra, opt, lo, hi in (("", "2", 0.9, 2.9),
                                   (" connect_timeout=4", "2", 2.95, 8)):
        t = time.monotonic()
        p = run("--dsn", "host=127.0.0.1 port=%d dbname=x%s"
                % (hang.port, dsn_extra), "--timeout", opt, "--out-dir", out)
        took = time.monotonic() - t
        check(p.returncode == 69 and lo <= took < hi and "timeout" in
              p.stderr, "connect_timeout%s --timeout %s: %d after %.1f s %s"
              % (dsn_extra, opt, p.returncode, took, p.stderr))
    untouched("timeout")
    # sslmode goes to libpq: a server without SSL fails sslmode=require
    nossl = Silent(ssl_no=True)
    p = run("--dsn", "host=127.0.0.1 port=%d dbname=x sslmode=require"
            % nossl.port, "--timeout", "5", "--out-dir", out)
    check(p.returncode == 69 and "SSL" in p.stderr,
          "sslmode=require: %d %s" % (p.returncode, p.stderr))
    untouched("sslmode")

    # a new --out-dir is not left behind by a failed run
    fresh = os.path.join(tmp, "fresh", "dir")
    p = run("--dsn", "host=%s/none dbname=x" % tmp, "--out-dir", fresh)
    check(p.returncode == 69 and not os.path.exists(fresh),
          "failed run, new directory removed: %d %s" % (p.returncode,
                                                        p.stderr))

    # a password in --dsn: a warning, and gone from the process list
    # while the run waits on a server that never answers
    p = subprocess.Popen([BIN, "distiller", "jobs", "--dsn",
                          "host=127.0.0.1 port=%d dbname=x password=%s"
                          % (hang.port, secret), "--timeout", "3",
                          "--out-dir", out], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         stdin=subprocess.DEVNULL)
    time.sleep(1)
    with open("/proc/%d/cmdline" % p.pid, "rb") as f:
        cmdline = f.read().decode(errors="replace")
    _, err = p.communicate(timeout=30)
    check(secret not in cmdline and "--dsn" in cmdline,
          "the DSN's password is wiped from argv: %r" % cmdline)
    check(p.returncode == 69 and "~/.pgpass" in err and secret not in err,
          "password in --dsn: %d %s" % (p.returncode, err))
    untouched("password in --dsn")

    # killed while it waits: the temporaries go with it
    p = subprocess.Popen([BIN, "distiller", "jobs", "--dsn",
                          "host=127.0.0.1 port=%d dbname=x" % hang.port,
                          "--timeout", "30", "--out-dir", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL)
    time.sleep(1)
    tmps = [n for n in os.listdir(out) if n.startswith(".")]
    p.terminate()
    p.wait(10)
    p.stderr.close()
    check(len(tmps) == 4 and p.returncode == -15,
          "temporaries while running: %s, status %s" % (tmps, p.returncode))
    untouched("SIGTERM")

    # a write that fails half-way (the file size limit): 74, nothing
    # published, no temporaries
    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if os.path.isdir(PAPER):
        p = subprocess.run([BIN, "distiller", "jobs", "--dsn",
                            pg.dsn("paper_current"), "--out-dir", out,
                            "--job-type", "count"], capture_output=True,
                           text=True, preexec_fn=small_files)
        check(p.returncode == 74 and "File too large" in p.stderr,
              "a failed write: %d %s" % (p.returncode, p.stderr))
        untouched("failed write")

    # options that do not fit together
    for args in (["--api", "http://127.0.0.1:1", "--dsn", "x"],
                 ["--page-size", "5"], ["--schema", "new"], []):
        p = run(*args, *(["--out-dir", out] if args else []))
        check(p.returncode == 64, "usage %s: %d %s" % (args, p.returncode,
                                                       p.stderr))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        setup_rule.need("db-distiller", pgserver.PACKAGES)
        try:
            pg = pgserver.PgServer(tmp)
        except pgserver.Missing as e:
            setup_rule.missing("db-distiller", str(e))
        try:
            try:
                pg.start()
            except pgserver.Broken as e:
                # not a pass: no check ran
                setup_rule.broken("db-distiller", "a PostgreSQL server",
                                  str(e))
            test_synthetic(pg, tmp)
            test_paper(pg, tmp)
            test_session(pg, tmp)
            test_errors(pg, tmp)
        finally:
            pg.stop()
    print("distiller db: %d checks, %d failed" % (CHECKS[0], len(FAILS)))
    if FAILS or not CHECKS[0]:
        return 1
    if MISSING:
        setup_rule.missing("db-distiller", "; ".join(MISSING))
    return 0


if __name__ == "__main__":
    sys.exit(main())
