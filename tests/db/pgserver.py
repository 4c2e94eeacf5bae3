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


def bindir():
    """The newest /usr/lib/postgresql/N/bin holding pg_ctl, or None."""
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
            raise RuntimeError("no PostgreSQL server (apt-get install "
                               "postgresql)")
        self.dir = tempfile.mkdtemp(prefix="st-pg-", dir=parent)
        self.data = os.path.join(self.dir, "data")
        self.port = 5432
        self.root = os.geteuid() == 0
        os.chmod(self.dir, 0o755)
        if self.root:
            shutil.chown(self.dir, "postgres", "postgres")
        self.started = False

    def _run(self, argv, **kw):
        if self.root:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        return subprocess.run(argv, **kw)

    def start(self):
        self._run([os.path.join(self.bin, "initdb"), "-D", self.data,
                   "-U", "postgres", "-A", "trust", "-E", "UTF8",
                   "--locale=C"], check=True, capture_output=True)
        with open(os.path.join(self.data, "pg_hba.conf"), "w") as f:
            f.write("local all postgres trust\n"
                    "local all all scram-sha-256\n")
        log = os.path.join(self.dir, "server.log")
        # -w: return once the server accepts connections; the log file
        # keeps the server's output off the test's pipes
        self._run([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-w",
                   "-l", log, "-o", "-k %s -h '' -p %d -c fsync=off" %
                   (self.dir, self.port), "start"],
                  check=True, capture_output=True, stdin=subprocess.DEVNULL)
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
