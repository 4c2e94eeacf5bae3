#!/usr/bin/env python3
"""Check the naming rule of public headers (docs/development.md, Naming).

include/streamtime/X.h declares what src/<folder>/X.c defines, or its parts
X_<part>.c, and nothing else. Reads the declarations from the headers (the
names st_*( outside comments) and where each is defined from the objects
of libstreamtime (nm, as file_cycles.py). Prints each header that declares
a function another file defines; exits 1 when any does, 0 when none does.

usage: header_names.py [BUILD_DIR [SOURCE_DIR]]
"""
import glob
import os
import re
import sys

from file_cycles import read_symbols


def declared(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"^\s*#\s*define(.*\\\n)*.*$", " ", text, flags=re.M)
    return set(re.findall(r"\b(st_[a-z0-9_]+)\s*\(", text))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    top = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    src = os.path.join(top, "src")
    objs = sorted(glob.glob(os.path.join(build, "libstreamtime.a.p", "*.o")))
    headers = sorted(glob.glob(os.path.join(top, "include", "streamtime",
                                            "*.h")))
    if not objs or not headers:
        print(f"header_names: no objects in {build}/libstreamtime.a.p or "
              f"no headers in {top}/include/streamtime", file=sys.stderr)
        return 66
    defined, _ = read_symbols(objs, src)
    wrong = 0
    for h in headers:
        name = os.path.basename(h)[:-2]
        own = re.compile(r"^" + re.escape(name) + r"(_[a-z0-9]+)*\.c$")
        elsewhere = {}
        for fn in sorted(declared(h)):
            f = defined.get(fn)
            if f is None:
                continue  # a stub left out of this build, or a macro
            if not own.match(os.path.basename(f)):
                elsewhere.setdefault(f, []).append(fn)
        if elsewhere:
            wrong += 1
            print(f"{name}.h declares what other files define:")
            for f, fns in sorted(elsewhere.items()):
                print(f"  {f}: " + " ".join(fns))
    print(f"{wrong} of {len(headers)} headers declare another file's "
          "functions")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
