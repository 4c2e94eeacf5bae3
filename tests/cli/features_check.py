#!/usr/bin/env python3
"""CLI test: the features a build may leave out (meson -Dpostgresql=,
-Dhttp=, -Dfigures=; issue 14 item 6).  `streamtime --version` lists each
as +NAME (built) or -NAME (left out); a command that needs one that was
left out exits 69 with "this streamtime was built without X (meson
-DNAME=enabled)" and leaves no output behind, and one that was built never
says so.  reproduce works without figures, and its report says why there
are none.  Runs in every build: the default one checks the + side, the
minimal one (.ci/run) the - side.

Usage: features_check.py STREAMTIME DATA_DIR
"""
import os
import sys
import tempfile

BIN, DATA = sys.argv[1], sys.argv[2]
FEATURES = ["postgresql", "http", "figures", "python"]
from checks import FAILS, check, report, runner  # noqa: E402
run = runner(BIN, timeout=120)


def files_under(d):
    return [os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs]


def missing_says(p, title, name, prefix, what):
    """P failed the way a left-out feature fails: exit 69, one line that
    names WHAT needed it and the meson option that builds it."""
    want = ("%s: this streamtime was built without %s (meson -D%s=enabled)"
            % (what, title, name))
    check(p.returncode == 69 and p.stderr.startswith("streamtime") and
          want in p.stderr,
          "%s without %s: exit %d, stderr %r (wanted 69 and %r)"
          % (prefix, name, p.returncode, p.stderr, want))


def built_silent(p, name, prefix):
    check("built without" not in p.stderr,
          "%s with %s built says it is not: %r" % (prefix, name, p.stderr))


p = run("--version")
lines = p.stdout.splitlines()
check(p.returncode == 0 and len(lines) == 3 and
      lines[0].startswith("streamtime "),
      "--version: exit %d, %r" % (p.returncode, p.stdout))
check(lines[2:] in (["inflater: ISA-L"], ["inflater: zlib"]),
      "--version does not say what inflates .pfw.gz: %r" % p.stdout)
words = lines[1].split() if len(lines) == 3 else []
check(words[:1] == ["features:"] and
      [w[1:] for w in words[1:]] == FEATURES and
      all(w[0] in "+-" for w in words[1:]),
      "--version does not list the features as +NAME/-NAME: %r" % p.stdout)
if FAILS:
    sys.exit(report("features"))
built = {w[1:]: w[0] == "+" for w in words[1:]}
print("features: %s" % " ".join(("+" if built.get(f) else "-") + f
                                for f in FEATURES))

with tempfile.TemporaryDirectory() as tmp:
    # postgresql: a socket directory that does not exist
    out = os.path.join(tmp, "pg")
    p = run("distiller", "jobs", "--out-dir", out, "--size", "128",
            "--dsn", "host=/nonexistent/dir dbname=d user=u")
    prefix = "streamtime distiller jobs"
    if built.get("postgresql"):
        check(p.returncode == 69, "distiller jobs on a missing socket: exit "
              "%d: %r" % (p.returncode, p.stderr))
        built_silent(p, "postgresql", prefix)
    else:
        missing_says(p, "PostgreSQL", "postgresql", prefix,
                     "the Distiller database")
    check(not files_under(out) if os.path.isdir(out) else True,
          "distiller jobs left files behind: %r" % files_under(out))

    # http: a port nobody listens on, both REST sources
    url = "http://127.0.0.1:9/"
    p = run("slurm", "jobs", "--rest", url, "--since", "2023-03-01",
            "--until", "2023-03-02", "--timeout", "2", "--out",
            os.path.join(tmp, "jobs.csv"),
            env=dict(os.environ, SLURM_JWT="x", USER="u"))
    prefix = "streamtime slurm jobs"
    if built.get("http"):
        check(p.returncode == 69, "slurm jobs --rest on a closed port: exit "
              "%d: %r" % (p.returncode, p.stderr))
        built_silent(p, "http", prefix)
    else:
        missing_says(p, "HTTP", "http", prefix, "slurmrestd")
    check(not os.path.exists(os.path.join(tmp, "jobs.csv")),
          "slurm jobs --rest wrote its output anyway")
    out = os.path.join(tmp, "api")
    p = run("distiller", "jobs", "--out-dir", out, "--size", "128",
            "--api", url, "--timeout", "2", "--retries", "0")
    prefix = "streamtime distiller jobs"
    if built.get("http"):
        check(p.returncode == 69, "distiller jobs --api on a closed port: "
              "exit %d: %r" % (p.returncode, p.stderr))
        built_silent(p, "http", prefix)
    else:
        missing_says(p, "HTTP", "http", prefix, "the Distiller API")

    # figures: reproduce works either way; plot needs them
    res = os.path.join(tmp, "res")
    p = run("reproduce", "--data", DATA, "--out", res, "-q")
    check(p.returncode == 0 and "| 256 |" in p.stdout,
          "reproduce: exit %d: %r" % (p.returncode, p.stderr))
    figs = sorted(os.listdir(os.path.join(res, "figures"))) \
        if os.path.isdir(os.path.join(res, "figures")) else []
    page = open(os.path.join(res, "report.html")).read() \
        if os.path.exists(os.path.join(res, "report.html")) else ""
    note = "built without figures"
    figdir = os.path.join(tmp, "figs")
    p = run("plot", "--results", res, "--data", DATA, "--out-dir", figdir)
    if built.get("figures"):
        check(len(figs) > 0 and note not in page,
              "reproduce with figures: %d figures, report says %r"
              % (len(figs), note in page))
        check(p.returncode == 0 and os.listdir(figdir),
              "plot: exit %d: %r" % (p.returncode, p.stderr))
        built_silent(p, "figures", "streamtime plot")
    else:
        check(figs == [] and note in page,
              "reproduce without figures: figures %r, report says why: %r"
              % (figs, note in page))
        missing_says(p, "figures", "figures", "streamtime plot", "streamtime")
        check(not files_under(figdir) if os.path.isdir(figdir) else True,
              "plot left files behind: %r" % files_under(figdir))

sys.exit(report("features"))
