"""Where `meson install` puts the package streamtime for this Python:
the site directory this Python searches under the install prefix
(Debian: PREFIX/lib/python3.X/dist-packages for /usr/local,
PREFIX/lib/python3/dist-packages for /usr), else its posix_prefix
scheme's (PREFIX/lib/python3.X/site-packages: then PYTHONPATH finds it).
Prints the directory relative to PREFIX.

usage: python3 site_dir.py PREFIX
"""
import os
import sys
import sysconfig

prefix = os.path.normpath(sys.argv[1])
for p in sys.path:
    rel = os.path.relpath(p, prefix) if p.startswith(prefix + "/") else ""
    if rel.startswith("lib/") and os.path.basename(p) in ("dist-packages",
                                                          "site-packages"):
        print(rel)
        break
else:
    print(os.path.relpath(sysconfig.get_path(
        "platlib", "posix_prefix", vars={"base": prefix,
                                         "platbase": prefix}), prefix))
