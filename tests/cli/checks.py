"""The checks of a tests/cli script: check() counts each one and names
the failures on stderr; report() prints the closing line and gives the
exit status.  Scripts import it from their own directory (sys.path[0])."""
import sys

FAILS, CHECKS = [], [0]


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, file=sys.stderr)


def report(name):
    """Print 'NAME: N checks, M failed'; 1 if any failed, else 0."""
    print("%s: %d checks, %d failed" % (name, CHECKS[0], len(FAILS)))
    return 1 if FAILS else 0


def run_in_tmp(name, body):
    """BODY(TMP) in a new temporary directory, removed after; then
    report(NAME)."""
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp(prefix=name + ".")
    try:
        body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report(name)
