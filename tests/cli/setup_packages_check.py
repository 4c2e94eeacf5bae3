#!/usr/bin/env python3
"""setup.sh installs what the build needs and nothing else (issue 25 item
8); the suites' servers and tracers come through tests/install_packages.sh
on first use.

usage: setup_packages_check.py SRC_ROOT
       setup_packages_check.py --installed    (tests/fresh/run.sh, after
                                               ./setup.sh on a fresh root)

Both scripts run for real, against stand-ins put first in PATH: a
dpkg-query and an apt-get that keep the "installed" packages in a state
directory (apt-get records every call), an `id` that says root or not, a
sudo that refuses, a meson that does nothing.  Checks:

  setup_sh_installs_no_server: on a machine with nothing installed,
    ./setup.sh asks apt-get for the build's packages and CMocka and python3,
    and for no server or tracer (SERVERS below); SETUP_PACKAGES=build not
    even for CMocka;
  installer_installs_missing_only: what is installed is not asked for, and
    when all is, apt-get is not run;
  installer_serializes_parallel_installs: two installs at once (an apt-get
    that fails as dpkg does when its lock is held) both succeed, and
    apt-get waits for dpkg's lock (DPkg::Lock::Timeout);
  installer_updates_when_install_fails: an install that fails on stale
    lists succeeds after apt-get update;
  installer_logs_to_file: apt-get's output is in ST_INSTALL_LOG, its tail
    on stderr when it fails (exit 1);
  installer_not_root_is_69 and need_follows_setup_rule: not root and no
    sudo: 69 naming the package; setup_rule.need() then exits 77 off CI and
    1 under CI=true.
"""
import os
import re
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from checks import check, report, run  # noqa: E402

# the packages of a server or tracer: none of them may come from setup.sh
SERVERS = re.compile(r"^(openssh-server|postgresql(-\d+)?|mariadb-server|"
                     r"bpftrace|sysstat|strace|faketime|libfaketime|slurm.*|"
                     r"munge|chromium)$")
INSTALLER = os.path.join(HERE, "..", "install_packages.sh")

FAKE_DPKG_QUERY = r"""#!/bin/sh
# the last argument is the package
for p; do :; done
grep -qx "$p" "$FAKE_STATE/installed" 2>/dev/null || {
	echo "dpkg-query: no packages found matching $p" >&2; exit 1; }
printf 'install ok installed'
"""
# install and update; refuses as dpkg does while another apt-get runs;
# with FAKE_STALE, install fails until update has run; with FAKE_FAIL,
# every call fails
FAKE_APT_GET = r"""#!/bin/sh
echo "$*" >>"$FAKE_STATE/calls"
[ -z "${FAKE_FAIL:-}" ] || { echo "E: fake failure of apt-get"; exit 100; }
if ! mkdir "$FAKE_STATE/busy" 2>/dev/null; then
	echo "E: Could not get lock /var/lib/dpkg/lock-frontend (fake)"; exit 100
fi
trap 'rmdir "$FAKE_STATE/busy"' EXIT
sleep "${FAKE_SLEEP:-0}"
sub= pkgs=
for a; do
	case $sub$a in
	update) sub=update ;;
	install) sub=install ;;
	install-*) ;;
	install*) pkgs="$pkgs ${a}" ;;
	esac
done
case $sub in
update) touch "$FAKE_STATE/updated"; echo "fake: lists updated" ;;
install)
	if [ -n "${FAKE_STALE:-}" ] && [ ! -e "$FAKE_STATE/updated" ]; then
		echo "E: Unable to locate package (fake, stale lists)"; exit 100
	fi
	for p in $pkgs; do echo "$p" >>"$FAKE_STATE/installed"; done
	echo "fake: installed$pkgs" ;;
esac
"""
FAKE_ID = """#!/bin/sh
[ "$1" = -u ] && { echo "${FAKE_UID:-0}"; exit 0; }
exec /usr/bin/id "$@"
"""
FAKE_SUDO = "#!/bin/sh\nexit 1\n"
FAKE_MESON = "#!/bin/sh\nexit 0\n"


def fakes(tmp):
    """The stand-ins' directory and a fresh state directory; an env."""
    bindir, state = os.path.join(tmp, "bin"), os.path.join(tmp, "state")
    os.makedirs(bindir, exist_ok=True)
    os.makedirs(state)
    for name, text in (("dpkg-query", FAKE_DPKG_QUERY),
                       ("apt-get", FAKE_APT_GET), ("id", FAKE_ID),
                       ("sudo", FAKE_SUDO), ("meson", FAKE_MESON)):
        with open(os.path.join(bindir, name), "w") as f:
            f.write(text)
        os.chmod(os.path.join(bindir, name), 0o755)
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"],
               FAKE_STATE=state, ST_INSTALL_LOG=os.path.join(tmp, "log"),
               ST_INSTALL_LOCK=os.path.join(tmp, "lock"))
    return state, env


def lines(path):
    try:
        with open(path) as f:
            return f.read().split("\n")[:-1]
    except FileNotFoundError:
        return []


def installer(env, *pkgs):
    return run("bash", INSTALLER, *pkgs, env=env, stdin=subprocess.DEVNULL,
               timeout=120)


def setup_sh(src, tmp):
    """setup_sh_installs_no_server."""
    for mode in ("all", "build"):
        d = os.path.join(tmp, "setup-" + mode)
        state, env = fakes(d)
        env.update(BUILD=os.path.join(d, "build"), SETUP_PACKAGES=mode)
        p = run("bash", os.path.join(src, "setup.sh"), env=env,
                stdin=subprocess.DEVNULL, timeout=120)
        got = set(lines(os.path.join(state, "installed")))
        servers = sorted(x for x in got if SERVERS.match(x))
        check(p.returncode == 0 and not servers,
              "setup_sh_installs_no_server (SETUP_PACKAGES=%s): exit %d, "
              "servers and tracers installed: %s %s" %
              (mode, p.returncode, servers, p.stderr[-500:]))
        build = {"gcc", "meson", "libjansson-dev", "libcairo2-dev"}
        tests = {"libcmocka-dev", "python3"}
        want = build | tests if mode == "all" else build
        check(want <= got and (mode == "all" or not tests & got),
              "setup_sh_installs_no_server (SETUP_PACKAGES=%s): the build's "
              "packages %s, installed %s" % (mode, sorted(want), sorted(got)))
        print("SETUP_PACKAGES=%s ./setup.sh with nothing installed: asked "
              "apt-get for %s" % (mode, " ".join(sorted(got))))


def missing_only(tmp):
    """installer_installs_missing_only."""
    state, env = fakes(os.path.join(tmp, "only"))
    with open(os.path.join(state, "installed"), "w") as f:
        f.write("python3\n")
    p = installer(env, "python3", "strace")
    calls = lines(os.path.join(state, "calls"))
    check(p.returncode == 0 and len(calls) == 1 and
          calls[0].split()[-1] == "strace" and "python3" not in calls[0],
          "installer_installs_missing_only: exit %d, apt-get calls %s" %
          (p.returncode, calls))
    p = installer(env, "python3", "strace")
    check(p.returncode == 0 and len(lines(os.path.join(state, "calls"))) == 1,
          "installer_installs_missing_only: all installed, apt-get run "
          "again: %s" % lines(os.path.join(state, "calls")))


def parallel(tmp):
    """installer_serializes_parallel_installs."""
    state, env = fakes(os.path.join(tmp, "par"))
    env["FAKE_SLEEP"] = "0.5"
    res = {}

    def one(pkg):
        res[pkg] = installer(env, pkg)
    ts = [threading.Thread(target=one, args=(p,)) for p in ("sysstat",
                                                            "bpftrace")]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    codes = {k: v.returncode for k, v in res.items()}
    calls = lines(os.path.join(state, "calls"))
    check(codes == {"sysstat": 0, "bpftrace": 0} and
          sorted(lines(os.path.join(state, "installed"))) ==
          ["bpftrace", "sysstat"] and len(calls) == 2,
          "installer_serializes_parallel_installs: exits %s, apt-get calls "
          "%s, %s" % (codes, calls, [v.stderr for v in res.values()]))
    check(all("-o DPkg::Lock::Timeout=300" in c for c in calls),
          "installer_serializes_parallel_installs: apt-get waits for dpkg's "
          "lock: %s" % calls)


def stale(tmp):
    """installer_updates_when_install_fails, installer_logs_to_file."""
    state, env = fakes(os.path.join(tmp, "stale"))
    env["FAKE_STALE"] = "1"
    p = installer(env, "libfaketime")
    subs = [re.findall(r"\b(install|update)\b", c)[0]
            for c in lines(os.path.join(state, "calls"))]
    check(p.returncode == 0 and subs == ["install", "update", "install"] and
          lines(os.path.join(state, "installed")) == ["libfaketime"],
          "installer_updates_when_install_fails: exit %d, calls %s %s" %
          (p.returncode, subs, p.stderr))
    log = "\n".join(lines(env["ST_INSTALL_LOG"]))
    check("stale lists" in log and "fake: lists updated" in log and
          "fake: installed libfaketime" in log,
          "installer_logs_to_file: apt-get's output in the log: %r" % log)
    # a package apt-get cannot install: 1, the log's tail on stderr
    p = installer(dict(env, FAKE_FAIL="1"), "bpftrace")
    check(p.returncode == 1 and "E: fake failure of apt-get" in p.stderr and
          "bpftrace" in p.stderr,
          "installer_logs_to_file: a failed install is 1 with the log's "
          "tail: %d %r" % (p.returncode, p.stderr))


def not_root(tmp):
    """installer_not_root_is_69, need_follows_setup_rule."""
    state, env = fakes(os.path.join(tmp, "user"))
    env["FAKE_UID"] = "1000"
    p = installer(env, "postgresql")
    check(p.returncode == 69 and "postgresql" in p.stderr and
          "not root" in p.stderr and not lines(os.path.join(state, "calls")),
          "installer_not_root_is_69: %d %r" % (p.returncode, p.stderr))
    code = ("import os, sys; sys.path.insert(0, %r); import setup_rule; "
            "os.geteuid = lambda: 1000; "
            "setup_rule.need('db-x', ['postgresql']); sys.exit(0)" % HERE)
    for ci, want in (("", 77), ("true", 1)):
        e = dict(env, CI=ci)
        q = run(sys.executable, "-c", code, env=e, timeout=60)
        said = q.stdout + q.stderr
        check(q.returncode == want and "postgresql" in said and
              "not root" in said,
              "need_follows_setup_rule: CI=%r: exit %d (want %d) %r" %
              (ci, q.returncode, want, said))


def installed_here():
    """--installed: no server or tracer installed on this machine (run by
    tests/fresh/run.sh right after ./setup.sh on a fresh root)."""
    p = run("dpkg-query", "-W", "-f=${Package} ${Status}\n")
    pkgs = [ln.split()[0] for ln in p.stdout.splitlines()
            if ln.endswith("install ok installed")]
    servers = [x for x in pkgs if SERVERS.match(x)]
    check(p.returncode == 0 and len(pkgs) > 50 and not servers,
          "setup_sh_installs_no_server: installed on this machine: %s "
          "(of %d packages)" % (servers, len(pkgs)))
    if not servers:
        print("%d packages installed, none a server or tracer" % len(pkgs))


def main():
    if sys.argv[1:] == ["--installed"]:
        installed_here()
        return report("setup-packages")
    with tempfile.TemporaryDirectory(prefix="st-setup-pkgs-") as tmp:
        setup_sh(sys.argv[1], tmp)
        missing_only(tmp)
        parallel(tmp)
        stale(tmp)
        not_root(tmp)
    return report("setup-packages")


if __name__ == "__main__":
    sys.exit(main())
