"""What a test does when it cannot set up the real component it tests.

A test that did not run its checks must not pass.  The one rule, for every
suite that starts a real server or tool (tests/slurm, tests/db, the sshd of
cli-clock-ssh, Chromium in cli-report, openssl in cli-distiller-rest,
tests/docker, tests/fresh):

  * the component is MISSING and cannot be had (not installed, and we are
    not root to install it): skipped, exit 77 -- but only off CI and not
    as root; under CI=true, or as root (who could have installed it), it
    is a failure, exit 1;
  * the component is there but does not come up (a port taken, initdb or a
    daemon failing, an install that fails as root): always a failure,
    exit 1, saying what failed.

setup.sh installs only what building needs: a suite names the Debian
packages of its component once and calls need() (or install()) on first
use, which installs the missing ones through tests/install_packages.sh.
"""
import os
import subprocess
import sys

INSTALLER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "install_packages.sh")


def on_ci():
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def may_skip():
    """Whether a missing component may be a skip (77): not CI, not root."""
    return not on_ci() and os.geteuid() != 0


def missing(test, why):
    """The component cannot be had: exit 77 when may_skip(), else 1."""
    if may_skip():
        print("%s: skipped: %s" % (test, why))
        sys.exit(77)
    print("%s: FAIL: %s (%s: a skip is not allowed here)" %
          (test, why, "CI=%s" % os.environ.get("CI") if on_ci() else "root"),
          file=sys.stderr)
    sys.exit(1)


def install(packages):
    """Install those of the Debian PACKAGES that are missing (tests/
    install_packages.sh, what it says on our stderr).  None when all are
    installed now, else (cannot, why): cannot True when they cannot be had
    here (not root), False when installing them failed."""
    p = subprocess.run(["bash", INSTALLER, *packages],
                       stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode == 69:      # its one line is why
        return True, p.stderr.strip()
    sys.stderr.write(p.stderr)
    if p.returncode == 0:
        return None
    return False, "installing %s failed (exit %d)" % (" ".join(packages),
                                                       p.returncode)


def need(test, packages):
    """The Debian PACKAGES of TEST's component, installed when missing; or
    exit by the rule: missing() when they cannot be had here, broken()
    when installing them failed."""
    r = install(packages)
    if r is None:
        return
    if r[0]:
        missing(test, r[1])
    broken(test, "its packages", r[1])


def broken(test, what, detail=""):
    """The component is there but did not come up: exit 1."""
    print("%s: FAIL: cannot set up %s%s" % (test, what,
                                          (": " + detail) if detail else ""),
          file=sys.stderr)
    sys.exit(1)


def data_missing(test, path):
    """The test data at PATH (the paper's data, ../shared beside the
    checkout) is not there: exit 77 off CI, a failure under CI, which has
    it."""
    why = "no test data at %s" % path
    if not on_ci():
        print("%s: skipped: %s" % (test, why))
        sys.exit(77)
    print("%s: FAIL: %s (CI=%s: a skip is not allowed here)" %
          (test, why, os.environ.get("CI")), file=sys.stderr)
    sys.exit(1)
