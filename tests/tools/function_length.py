#!/usr/bin/env python3
"""No function of the library or the binary is over MAX lines (issue 25
item 2: 120), counted from the first line of its signature to its closing
brace, as ctags' start line to the brace.

The sources are in the kernel style the project keeps (STYLE.md): a
function body opens with "{" alone at column 0 and closes with "}" at
column 0; its signature is the lines just above the "{" back to a blank
line, a comment's end or a preprocessor line. Prints each function over
MAX and exits 1 when there is one, 0 when none is; 66 when no source is
found.

usage: function_length.py [SOURCE_DIR [MAX]]
"""
import glob
import os
import re
import sys

NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i] != "{":
            i += 1
            continue
        start = i
        while start > 0:
            prev = lines[start - 1]
            if (not prev.strip() or prev.startswith("#") or
                    prev.rstrip().endswith(("*/", ";", "}"))):
                break
            start -= 1
        end = i + 1
        while end < len(lines) and not lines[end].startswith("}"):
            end += 1
        m = NAME.search(" ".join(lines[start:i]))
        yield (m.group(1) if m else "?"), start + 1, end - start + 1
        i = end + 1


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    most = int(sys.argv[2]) if len(sys.argv) > 2 else 120
    files = sorted(glob.glob(os.path.join(top, "src", "**", "*.c"),
                             recursive=True))
    if not files:
        print("function_length: no sources under %s/src" % top,
              file=sys.stderr)
        return 66
    over, n = [], 0
    for path in files:
        for name, line, length in functions(path):
            n += 1
            if length > most:
                over.append((length, os.path.relpath(path, top), line, name))
    for length, path, line, name in sorted(over, reverse=True):
        print("%s:%d: %s is %d lines" % (path, line, name, length))
    print("%d of %d functions over %d lines" % (len(over), n, most))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
