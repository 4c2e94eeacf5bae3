#!/usr/bin/env python3
"""docker/run.sh and docker/build.sh pick an engine that can run (issue 17
item 10).

usage: docker_engine_check.py SOURCE_ROOT

The bug "docker/run.sh uses docker without a daemon": with a docker CLI on
PATH whose daemon does not answer (none installed or running: common on
HPC hosts and in CI), run.sh picked docker and failed.  Now `docker info`
decides: docker when it answers, else podman, and stderr says which.

FAKE engines: `docker` and `podman` below are stand-ins written by this
test, not the real tools.  Building the image takes minutes and no daemon
runs here, so what is checked is the selection and the command run.sh
would run: the fakes record their arguments, the fake docker's `info`
fails or answers as each case needs.  The real docker CLI, where one is
installed without a daemon (as on this project's machines), is also tried
for `info`.  Nothing here builds or runs an image (tests/docker/ does).
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1])
from checks import bug, check, report  # noqa: E402
from checks import run as run_cmd  # noqa: E402
BUG = "docker/run.sh uses docker without a daemon"
bug(BUG)
TOOLS = ("dirname", "id", "timeout", "mkdir", "sh", "cat", "env")


def script(path, text):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP |
             stat.S_IXOTH)


def fake_docker(d, log, daemon):
    """A FAKE docker: `info` answers when DAEMON, else fails as the real
    CLI does without a daemon; anything else is recorded in LOG."""
    os.makedirs(d, exist_ok=True)
    script(os.path.join(d, "docker"),
           'if [ "$1" = info ]; then\n' +
           ('  echo "Server Version: fake"; exit 0\n' if daemon else
            '  echo "Cannot connect to the Docker daemon at '
            'unix:///var/run/docker.sock. Is the docker daemon running?" '
            '>&2; exit 1\n') +
           'fi\necho "docker $*" >>"%s"\n' % log)


def fake_podman(d, log):
    """A FAKE podman that records its arguments in LOG and succeeds."""
    os.makedirs(d, exist_ok=True)
    script(os.path.join(d, "podman"), 'echo "podman $*" >>"%s"\n' % log)


def tools(d):
    """The few real tools the scripts need, alone in D (no podman)."""
    os.makedirs(d, exist_ok=True)
    for t in TOOLS:
        p = shutil.which(t)
        if p:
            os.symlink(p, os.path.join(d, t))


def run(script_name, path, *args, env=None, cwd=None):
    e = {"PATH": path, "HOME": os.environ.get("HOME", "/")}
    e.update(env or {})
    return run_cmd(os.path.join(SRC, "docker", script_name), *args,
                   timeout=60, env=e, cwd=cwd)


def read(p):
    return open(p).read() if os.path.exists(p) else ""


def main():
    tmp = tempfile.mkdtemp(prefix="st-engine-")
    try:
        cases(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(report("docker engine"))


def cases(tmp):
    t = os.path.join(tmp, "tools")
    tools(t)
    dlog, plog = os.path.join(tmp, "docker.log"), os.path.join(tmp, "podman.log")
    nodaemon, daemon = os.path.join(tmp, "nodaemon"), os.path.join(tmp, "daemon")
    pod = os.path.join(tmp, "podman")
    fake_docker(nodaemon, dlog, False)
    fake_docker(daemon, dlog, True)
    fake_podman(pod, plog)
    out = os.path.join(tmp, "out")
    uid = "%d:%d" % (os.getuid(), os.getgid())

    # a docker CLI without a daemon, and podman: podman, and it says so
    path = ":".join((nodaemon, pod, t))
    p = run("run.sh", path, "--dry-run", "", out, cwd=tmp)
    check(p.returncode == 0 and p.stdout.strip() ==
          "podman run --rm -v %s:/out --user %s streamtime" % (out, uid),
          "no daemon: run.sh --dry-run would run podman: %d %r %r"
          % (p.returncode, p.stdout, p.stderr))
    check("run.sh: engine: podman (docker is installed but its daemon does "
          "not answer (docker info failed))" in p.stderr,
          "stderr says podman and why: %r" % p.stderr)
    check(not os.path.exists(out), "--dry-run makes nothing")
    # and for real (the fake podman records what it was given)
    p = run("run.sh", path, SRC + "/data", out, "st:test", cwd=tmp)
    check(p.returncode == 0 and read(plog).strip() ==
          "podman run --rm -v %s/data:/data:ro -v %s:/out --user %s st:test "
          "reproduce --data /data --out /out" % (SRC, out, uid),
          "no daemon: run.sh ran podman with the data and out mounts: %d "
          "%r %r" % (p.returncode, read(plog), p.stderr))
    check(read(dlog) == "", "docker was asked nothing but info: %r"
          % read(dlog))
    p = run("build.sh", path, "--dry-run", "st:test")
    check(p.returncode == 0 and p.stdout.strip() ==
          "podman build -f docker/Dockerfile -t st:test ." and
          "build.sh: engine: podman (docker is installed" in p.stderr,
          "no daemon: build.sh --dry-run would build with podman: %d %r %r"
          % (p.returncode, p.stdout, p.stderr))

    # a docker whose daemon answers: docker
    p = run("run.sh", ":".join((daemon, pod, t)), "--dry-run", "", out)
    check(p.returncode == 0 and p.stdout.startswith("docker run --rm ") and
          "run.sh: engine: docker" in p.stderr,
          "a daemon: docker: %d %r %r" % (p.returncode, p.stdout, p.stderr))

    # no daemon and no podman: 69, saying both
    p = run("run.sh", ":".join((nodaemon, t)), "--dry-run")
    check(p.returncode == 69 and "daemon does not answer" in p.stderr and
          "podman is not installed" in p.stderr and p.stdout == "",
          "no daemon, no podman: 69: %d %r" % (p.returncode, p.stderr))
    p = run("run.sh", t, "--dry-run")
    check(p.returncode == 69 and "neither docker nor podman" in p.stderr,
          "no engine at all: 69: %d %r" % (p.returncode, p.stderr))

    # STREAMTIME_ENGINE is taken as given
    p = run("run.sh", path, "--dry-run", env={"STREAMTIME_ENGINE": "docker"})
    check(p.returncode == 0 and p.stdout.startswith("docker run ") and
          "engine: docker (STREAMTIME_ENGINE)" in p.stderr,
          "STREAMTIME_ENGINE=docker: %d %r %r" % (p.returncode, p.stdout,
                                                  p.stderr))

    # the real docker CLI, where one is installed and its daemon is down
    real = shutil.which("docker")
    if real and subprocess.run([real, "info"], capture_output=True,
                               timeout=30).returncode != 0:
        rd = os.path.join(tmp, "real")
        os.makedirs(rd)
        os.symlink(real, os.path.join(rd, "docker"))
        p = run("run.sh", ":".join((rd, pod, t)), "--dry-run", "", out)
        check(p.returncode == 0 and p.stdout.startswith("podman run ") and
              "engine: podman (docker is installed" in p.stderr,
              "the real %s without a daemon: podman: %d %r %r"
              % (real, p.returncode, p.stdout, p.stderr))
    else:
        print("(no real docker CLI without a daemon here: that case not "
              "tried)")


if __name__ == "__main__":
    main()
