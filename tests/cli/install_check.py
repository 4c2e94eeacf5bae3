#!/usr/bin/env python3
"""An installed streamtime stands alone (issue 17 item 8).

usage: install_check.py STREAMTIME BUILD_DIR SOURCE_ROOT

The bug "installed reproduce needs the source tree": the sample's path was
compiled in, so an install found its dataset only while the checkout
existed.  Here `meson install --destdir` puts a copy in a temporary
directory, which is then renamed (so neither the configured prefix nor the
DESTDIR path holds it any more), and the copy must:
  * name in --help its README, guide and sample under the new place, and
    have them there (also when run through a symlink);
  * run `reproduce --out X` with the installed sample: the table for the
    four sizes, exit 0;
  * not fall back to the source tree: with the installed sample renamed
    away, reproduce fails (66) naming the installed path, never the
    source's; a lone copy of the binary names no source path either;
and the systemd units' Documentation= files are installed.  The binary in
the build directory still reads the source tree.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import setup_rule  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
BUILD = os.path.abspath(sys.argv[2])
SRC = os.path.abspath(sys.argv[3])
from checks import bug, check, report, runner  # noqa: E402
BUG = "installed reproduce needs the source tree"
bug(BUG)


run = runner(timeout=120)


def help_paths(exe):
    """(doc dir, data dir) as `EXE --help` names them."""
    p = run(exe, "--help")
    doc = re.search(r"^documentation: (\S+)/README\.md, ", p.stdout, re.M)
    data = re.search(r"^sample dataset \(reproduce's default\): (\S+)$",
                     p.stdout, re.M)
    check(p.returncode == 0 and doc and data,
          "%s --help names the docs and the sample: %d %s" %
          (exe, p.returncode, p.stdout[-400:]))
    return (doc.group(1) if doc else None, data.group(1) if data else None)


def main():
    meson = shutil.which("meson")
    if not meson:
        setup_rule.missing("cli-install", "meson is not on PATH")
    tmp = tempfile.mkdtemp(prefix="st-install-")
    try:
        checks(meson, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(report("install"))


def checks(meson, tmp):
    dest = os.path.join(tmp, "destdir")
    p = subprocess.run([meson, "install", "-C", BUILD, "--no-rebuild",
                        "--destdir", dest], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        setup_rule.broken("cli-install", "meson install --destdir",
                          p.stdout[-1000:] + p.stderr[-2000:])
    found = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs
             if f == "streamtime" and os.path.basename(d) == "bin"]
    check(len(found) == 1, "one bin/streamtime installed: %s" % found)
    if len(found) != 1:
        return
    # the prefix as configured (/usr/local by default), inside DESTDIR
    prefix = os.path.dirname(os.path.dirname(found[0]))[len(dest):]

    # move the whole install: nothing of it is where it was installed
    moved = os.path.join(tmp, "elsewhere")
    os.rename(dest, moved)
    root = moved + prefix
    exe = root + "/bin/streamtime"
    check(not os.path.exists(dest), "the DESTDIR path is gone")

    doc, data = help_paths(exe)
    check(doc == root + "/share/doc/streamtime",
          "--help: docs in the moved install, not %s" % doc)
    check(data == root + "/share/streamtime/data",
          "--help: the sample in the moved install, not %s" % data)
    for f in ("share/doc/streamtime/README.md",
              "share/doc/streamtime/docs/guide.md",
              "share/streamtime/data/experiments.json",
              "share/man/man1/streamtime.1"):
        check(os.path.isfile(os.path.join(root, f)), "installed: %s" % f)
    # README's links into docs/ hold in the installed layout
    readme = open(os.path.join(root, "share/doc/streamtime/README.md")).read()
    for link in re.findall(r"\]\((docs/[^)#]+)\)", readme):
        check(os.path.exists(os.path.join(root, "share/doc/streamtime",
                                          link)),
              "README's link %s resolves in the install" % link)

    # through a symlink elsewhere: /proc/self/exe is the real file
    link = os.path.join(tmp, "streamtime-link")
    os.symlink(exe, link)
    check(help_paths(link) == (doc, data),
          "run through a symlink: the same paths")

    # reproduce with the default dataset, from an unrelated directory
    out = os.path.join(tmp, "out")
    p = run(exe, "reproduce", "--out", out, cwd=tmp)
    check(p.returncode == 0, "reproduce from the moved install: %d %s" %
          (p.returncode, p.stderr[-1500:]))
    sizes = re.findall(r"^\| (128|256|512|1024) \|", p.stdout, re.M)
    check(sizes == ["128", "256", "512", "1024"],
          "reproduce prints the table of four sizes: %s" % p.stdout[-600:])
    check(os.path.isfile(os.path.join(out, "report.html")),
          "reproduce wrote out/report.html")

    # proof that the source tree is not read: hide the installed sample
    hidden = data + ".hidden"
    os.rename(data, hidden)
    p = run(exe, "reproduce", "--out", os.path.join(tmp, "out2"), cwd=tmp)
    check(p.returncode == 66 and data in p.stderr,
          "without the installed sample: 66 naming %s, got %d %s" %
          (data, p.returncode, p.stderr[-600:]))
    check(SRC + "/data" not in p.stdout + p.stderr,
          "no fallback to the source's %s/data: %s" % (SRC, p.stderr[-600:]))
    os.rename(hidden, data)

    # a lone copy of the binary names no source path
    lone = os.path.join(tmp, "lone", "bin")
    os.makedirs(lone)
    shutil.copy2(exe, lone)
    ldoc, ldata = help_paths(os.path.join(lone, "streamtime"))
    check(ldoc and ldata and not ldoc.startswith(SRC) and
          not ldata.startswith(SRC),
          "a lone binary does not read the source tree: %s %s" %
          (ldoc, ldata))

    # the systemd units' Documentation= is a file the install holds
    unitdir = os.path.join(SRC, "contrib", "systemd")
    for unit in sorted(os.listdir(unitdir)):
        if not unit.endswith(".service"):
            continue
        text = open(os.path.join(unitdir, unit)).read()
        docs = re.findall(r"^Documentation=(.*)$", text, re.M)
        check(docs, "%s has a Documentation= line" % unit)
        for uri in " ".join(docs).split():
            if uri.startswith("man:"):
                check(uri == "man:streamtime(1)", "%s: %s" % (unit, uri))
                continue
            check(uri.startswith("file:///usr/local/"),
                  "%s: Documentation= %s is a file under /usr/local"
                  % (unit, uri))
            path = prefix + uri[len("file:///usr/local"):]
            check(os.path.isfile(moved + path),
                  "%s: Documentation= %s is installed (%s)"
                  % (unit, uri, moved + path))

    # the build directory's binary keeps reading the source tree
    check(help_paths(BIN) == (SRC, SRC + "/data"),
          "the build tree's binary reads %s" % SRC)


if __name__ == "__main__":
    main()
