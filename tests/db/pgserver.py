"""A throwaway PostgreSQL server for tests and benchmarks.

initdb and pg_ctl on a temporary directory, listening only on a Unix socket
in that directory (no TCP), stopped by stop() however the caller ends.  As
root the server runs as the `postgres` user (initdb refuses root), through
runuser.  Local connections as the superuser `postgres` are trusted; every
other role must give its password (scram-sha-256), so that credential
handling can be tested.
"""
import glob
import os
import shutil
import subprocess
import tempfile

# its Debian packages (initdb, pg_ctl; psql): tests/db/pg_check.py installs
# them on first use (tests/cli/setup_rule.py)
PACKAGES = ["postgresql", "postgresql-client"]


class Missing(RuntimeError):
    """No PostgreSQL server is installed."""


class Broken(RuntimeError):
    """The server is installed but did not come up; the message says why."""


def bindir():
    """$ST_PG_BINDIR (for tests of this module), else the newest
    /usr/lib/postgresql/N/bin holding pg_ctl, or None."""
    if os.environ.get("ST_PG_BINDIR"):
        return os.environ["ST_PG_BINDIR"]
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                   key=lambda p: int(p.split("/")[4]) if
                   p.split("/")[4].isdigit() else 0)
    if found:
        return os.path.dirname(found[-1])
    path = shutil.which("pg_ctl")
    return os.path.dirname(path) if path else None


class PgServer:
    def __init__(self, parent=None):
        self.bin = bindir()
        if not self.bin:
            raise Missing("no PostgreSQL server (apt-get install "
                          "postgresql)")
        self.dir = tempfile.mkdtemp(prefix="st-pg-", dir=parent)
        self.data = os.path.join(self.dir, "data")
        self.port = 5432
        self.root = os.geteuid() == 0
        os.chmod(self.dir, 0o755)
        self.started = False
        if self.root:
            try:
                shutil.chown(self.dir, "postgres", "postgres")
            except LookupError:
                shutil.rmtree(self.dir, ignore_errors=True)
                raise Missing("no user postgres to run the server as "
                              "(apt-get install postgresql)")

    def _run(self, argv, **kw):
        if self.root:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        return subprocess.run(argv, **kw)

    def _step(self, what, argv, **kw):
        """Run ARGV; Broken naming WHAT, its status and output on failure."""
        try:
            p = self._run(argv, capture_output=True, text=True, **kw)
        except OSError as e:
            raise Broken("%s: %s" % (what, e))
        if p.returncode != 0:
            raise Broken("%s exited %d: %s%s" % (what, p.returncode,
                                                 p.stdout[-1000:],
                                                 p.stderr[-2000:]))

    def start(self):
        """initdb and start; Broken saying which step failed."""
        self._step("initdb", [os.path.join(self.bin, "initdb"), "-D",
                              self.data, "-U", "postgres", "-A", "trust",
                              "-E", "UTF8", "--locale=C"])
        with open(os.path.join(self.data, "pg_hba.conf"), "w") as f:
            f.write("local all postgres trust\n"
                    "local all all scram-sha-256\n")
        log = os.path.join(self.dir, "server.log")
        # -w: return once the server accepts connections; the log file
        # keeps the server's output off the test's pipes
        try:
            self._step("pg_ctl start", [
                os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-w",
                "-l", log, "-o", "-k %s -h '' -p %d -c fsync=off" %
                (self.dir, self.port), "start"], stdin=subprocess.DEVNULL)
        except Broken as e:
            try:
                with open(log, errors="replace") as f:
                    tail = f.read()[-2000:]
            except OSError:
                tail = ""
            raise Broken("%s; server log: %s" % (e, tail))
        self.started = True
        return self

    def stop(self):
        if self.started:
            self._run([os.path.join(self.bin, "pg_ctl"), "-D", self.data,
                       "-m", "immediate", "stop"], capture_output=True)
            self.started = False
        shutil.rmtree(self.dir, ignore_errors=True)

    def dsn(self, db, user="postgres", **extra):
        """A key=value conninfo for DB on this server's socket."""
        parts = ["host=%s" % self.dir, "port=%d" % self.port,
                 "dbname=%s" % db, "user=%s" % user]
        parts += ["%s=%s" % kv for kv in extra.items()]
        return " ".join(parts)

    def psql(self, db, sql=None, file=None, args=()):
        """Run psql as postgres on DB; its stdout, or raise with stderr."""
        argv = [os.path.join(self.bin, "psql"), "-X", "-q", "-v",
                "ON_ERROR_STOP=1", "-h", self.dir, "-p", str(self.port),
                "-U", "postgres", "-d", db, *args]
        if file:
            argv += ["-f", file]
        p = subprocess.run(argv, input=sql, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("psql %s: %s" % (db, p.stderr))
        return p.stdout

    def createdb(self, db):
        self.psql("postgres", "CREATE DATABASE %s;" % db)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
