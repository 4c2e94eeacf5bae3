#!/usr/bin/env python3
"""CLI test: the files a release carries (issue 25 item 7).

Usage: release_check.py STREAMTIME SOURCE_ROOT

LICENSE is BSD-3-Clause as meson.build declares; CITATION.cff,
CHANGELOG.md, meson.build and `streamtime --version` name one version.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, report  # noqa: E402

ST, ROOT = sys.argv[1], sys.argv[2]


def read(name):
    path = os.path.join(ROOT, name)
    if not os.path.isfile(path):
        check(False, "%s is missing" % name)
        return ""
    return open(path, encoding="utf-8").read()


meson = read("meson.build")
m = re.search(r"version\s*:\s*'([0-9]+\.[0-9]+\.[0-9]+)'", meson)
version = m.group(1) if m else None
check(version is not None, "meson.build declares no version")
check("license : 'BSD-3-Clause'" in meson, "meson.build's license")
lic = read("LICENSE")
check(lic.startswith("BSD 3-Clause License") and
      "Neither the name of the copyright holder" in lic,
      "LICENSE is not the BSD 3-Clause text")
cff = read("CITATION.cff")
check(re.search(r"^cff-version: 1\.2\.0$", cff, re.M) is not None and
      re.search(r"^version: %s$" % re.escape(version or "?"), cff, re.M)
      is not None and "license: BSD-3-Clause" in cff and
      "preferred-citation:" in cff and "2407.03215" in cff,
      "CITATION.cff: cff-version 1.2.0, version %s, the license and the "
      "paper" % version)
log = read("CHANGELOG.md")
heads = re.findall(r"^## ([0-9]+\.[0-9]+\.[0-9]+) \(", log, re.M)
check(heads[:1] == [version], "CHANGELOG.md's newest version %s, "
      "meson.build's %s" % (heads[:1], version))
p = subprocess.run([ST, "--version"], capture_output=True, text=True)
check(p.returncode == 0 and
      p.stdout.splitlines()[:1] == ["streamtime %s" % version],
      "streamtime --version says %r, meson.build %s"
      % (p.stdout.splitlines()[:1], version))
sys.exit(report("release"))
