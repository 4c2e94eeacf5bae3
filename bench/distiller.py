#!/usr/bin/python3
"""Benchmark: `streamtime distiller jobs` on a generated Distiller table.

usage: bench/distiller.py [--bin PATH] [--jobs N[,N...]] [--schema S]

For each N (default 100000,1000000) a throwaway PostgreSQL server
(tests/db/pgserver.py) gets N count jobs over N/4 scans (sizes 128, 256,
512, 1024 and 2048 in turn, dotted keys for every third scan, NULL
slurm_id and elapsed now and then), in the current schema by default.
Then, per N:
  (a) baseline: psql, one `\\copy (SELECT ...) TO FILE` per size, as the
      paper's manual procedure ran them (the query written for psql, the
      elapsed interval as PostgreSQL prints it);
  (b) `streamtime distiller jobs --size 128,256,512,1024 --job-type count`.
Prints wall time and peak RSS of
each (GNU time's %M) and the ratios streamtime/psql.  Bounded memory shows as a peak RSS
that does not grow with N.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "db"))
import pgserver  # noqa: E402

SIZES = (128, 256, 512, 1024)


def measure(argv, env=None):
    """Wall seconds and peak RSS (KiB) of ARGV, which must succeed.  GNU
    time runs it: a child forked from this Python would start with
    Python's RSS as its high-water mark."""
    fd, rep = tempfile.mkstemp()
    os.close(fd)
    t = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-o", rep, "-f", "%M", *argv],
                       env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t
    with open(rep) as f:
        rss = int(f.read().split()[-1])
    os.unlink(rep)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(argv), p.stderr))
    return wall, rss


def generate(pg, db, schema, n):
    pg.createdb(db)
    pg.psql(db, file=os.path.join(ROOT, "sql", "distiller_%s.sql" % schema))
    nscans = max(1, n // 4)
    legacy = schema == "legacy"
    sql = """
INSERT INTO scans (id, scan_id, created, metadata)
SELECT i, i % 5000, '2023-01-01'::timestamptz + i * interval '1 minute',
       CASE WHEN i % 3 = 0
            THEN jsonb_build_object('Dimensions.1', d, 'Dimensions.2', d)
            ELSE jsonb_build_object('Dimensions 1', d, 'Dimensions 2', d,
                                    'Scan ID', i) END
FROM (SELECT i, (ARRAY[128,256,512,1024,2048])[1 + i % 5] AS d
      FROM generate_series(1, NSCANS) i) g;
INSERT INTO jobs (id, job_type, SCANCOL slurm_id, elapsed, state)
SELECT j, 'count', SCANVAL
       CASE WHEN j % 97 = 0 THEN NULL ELSE 50000000 + j END,
       CASE WHEN j % 89 = 0 THEN NULL ELSE (j % 400) * interval '1 second' END,
       'COMPLETED'
FROM generate_series(1, NJOBS) j;
LINKS
ANALYZE;
"""
    sql = (sql.replace("NSCANS", str(nscans)).replace("NJOBS", str(n))
           .replace("SCANCOL", "scan_id," if legacy else "")
           .replace("SCANVAL", "1 + (j - 1) %% %d," % nscans if legacy
                    else "")
           .replace("LINKS", "" if legacy else
                    "INSERT INTO scan_job_table SELECT 1 + (j - 1) %% %d, j "
                    "FROM generate_series(1, %d) j;" % (nscans, n)))
    pg.psql(db, sql)


def baseline_script(schema, outdir):
    link = ("JOIN scans s ON s.id = j.scan_id" if schema == "legacy" else
            "JOIN scan_job_table sj ON sj.job_id = j.id "
            "JOIN scans s ON s.id = sj.scan_id")
    lines = []
    for n in SIZES:
        lines.append(
            "\\copy (SELECT s.id, j.slurm_id, j.elapsed FROM jobs j %s "
            "WHERE COALESCE(s.metadata->>'Dimensions 1', "
            "s.metadata->>'Dimensions.1') = '%d' AND "
            "COALESCE(s.metadata->>'Dimensions 2', "
            "s.metadata->>'Dimensions.2') = '%d' AND j.job_type = 'count' "
            "ORDER BY j.id, s.id) TO '%s/%d_%d.csv' WITH (FORMAT csv, HEADER)"
            % (link, n, n, outdir, n, n))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "streamtime"))
    ap.add_argument("--jobs", default="100000,1000000")
    ap.add_argument("--schema", default="current",
                    choices=("legacy", "current"))
    a = ap.parse_args()
    bin_ = os.path.abspath(a.bin)
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        pg = pgserver.PgServer(tmp)
        try:
            pg.start()
            print("machine: %s, %d cores; PostgreSQL %s; schema %s" % (
                os.uname().release, os.cpu_count(),
                pg.psql("postgres", "SHOW server_version;",
                        args=("-At",)).strip(), a.schema))
            for n in (int(x) for x in a.jobs.split(",")):
                db = "bench%d" % n
                t = time.monotonic()
                generate(pg, db, a.schema, n)
                print("\n%d jobs generated in %.1f s" % (n, time.monotonic() - t))
                base = os.path.join(tmp, "psql-%d" % n)
                ours = os.path.join(tmp, "ours-%d" % n)
                os.makedirs(base)
                script = os.path.join(tmp, "copy-%d.sql" % n)
                with open(script, "w") as f:
                    f.write(baseline_script(a.schema, base))
                bw, brss = measure([os.path.join(pg.bin, "psql"), "-X", "-q",
                                    "-v", "ON_ERROR_STOP=1", "-h", pg.dir,
                                    "-U", "postgres", "-d", db, "-f", script])
                ow, orss = measure([bin_, "distiller", "jobs", "--dsn",
                                    pg.dsn(db), "--out-dir", ours,
                                    "--size", ",".join(map(str, SIZES)),
                                    "--job-type", "count", "-q"])
                rows = sum(sum(1 for _ in open(os.path.join(ours, "%d_%d.csv"
                                                            % (s, s)))) - 1
                           for s in SIZES)
                brows = sum(sum(1 for _ in open(os.path.join(base, "%d_%d.csv"
                                                             % (s, s)))) - 1
                            for s in SIZES)
                print("  rows written: streamtime %d, psql %d" % (rows, brows))
                print("  psql \\copy x4 (baseline): %7.2f s  peak RSS %7d KiB"
                      % (bw, brss))
                print("  streamtime distiller jobs: %7.2f s  peak RSS %7d KiB"
                      % (ow, orss))
                print("  ratio streamtime/psql:     time %.2fx  RSS %.2fx"
                      % (ow / bw, orss / brss))
        finally:
            pg.stop()


if __name__ == "__main__":
    main()
