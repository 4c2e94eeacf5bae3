#!/usr/bin/env python3
"""The command layer of a subsystem stays thin (issue 25 item 1: the
`trace` commands, src/cmd/trace*.c, at most 1,400 lines together): what
they do besides options and messages belongs in the library. Counts the
lines of the files GLOB matches under SOURCE_DIR, prints them, and exits
1 when the total is over MAX, 0 when not, 66 when GLOB matches nothing.

usage: cmd_lines.py SOURCE_DIR GLOB MAX
"""
import glob
import os
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 64
    root, pattern, limit = argv[1], argv[2], int(argv[3])
    paths = sorted(glob.glob(os.path.join(root, pattern)))
    if not paths:
        print("cmd_lines.py: nothing matches %s in %s" % (pattern, root),
              file=sys.stderr)
        return 66
    total = 0
    for p in paths:
        with open(p, encoding="utf-8", errors="replace") as f:
            n = sum(1 for _ in f)
        total += n
        print("%6d %s" % (n, os.path.relpath(p, root)))
    print("%6d total (at most %d)" % (total, limit))
    if total > limit:
        print("cmd_lines.py: %s holds %d lines, more than %d: move what "
              "is not options and messages into the library"
              % (pattern, total, limit), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
