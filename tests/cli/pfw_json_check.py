#!/usr/bin/env python3
"""DFTracer lines that are valid JSON but beyond jansson (issue 24 item 9).

valid_json_not_corrupt: a line with "inode":18446744073709551615 in args
(a 64-bit unsigned value), 1e400, "\\u0000" or "\\ud800" anywhere was
"invalid JSON", counted corrupt (exit 65 when no line was left).  Python's
json reads them all.  Now only the fields the reader uses decide: such a
value in an unused field is ignored; an integer beyond 64 bits is a hash
(its digits) where a hash is read and "out of range" where a number is;
a used string holding NUL or a lone surrogate makes the line corrupt,
saying so.  The reference is tests/tools/notebook_ref.py (json.loads per
line, no streamtime code): events, corrupt line numbers, and every
file's count, duration and bytes.  Lines are hand-written cases plus
random ones with such values put in random fields.

usage: pfw_json_check.py STREAMTIME
"""
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
import notebook_ref as ref  # noqa: E402
from checks import check, run_in_tmp  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
BIG = "18446744073709551615"

HAND = [
    # the four, in args fields the reader does not use
    '{"name":"read","cat":"POSIX","ph":"X","pid":1,"tid":1,"ts":10,'
    '"dur":5,"args":{"fname":"/a","ret":4,"inode":%s}}' % BIG,
    '{"name":"read","cat":"POSIX","ph":"X","pid":1,"tid":1,"ts":20,'
    '"dur":5,"args":{"fname":"/a","ret":4,"x":1e400}}',
    '{"name":"read","cat":"POSIX","ph":"X","pid":1,"tid":1,"ts":30,'
    '"dur":5,"args":{"fname":"/a","ret":4,"x":"a\\u0000b"}}',
    '{"name":"read","cat":"POSIX","ph":"X","pid":1,"tid":1,"ts":40,'
    '"dur":5,"args":{"fname":"/a","ret":4,"x":"\\ud800"},"y":-%s}' % BIG,
    # a 64-bit hash, mapped and used
    '{"name":"FH","cat":"dftracer","ph":"M","pid":1,"tid":1,'
    '"args":{"name":"/big","value":%s}}' % BIG,
    '{"name":"write","cat":"POSIX","ph":"X","pid":1,"tid":1,"ts":50,'
    '"dur":5,"args":{"fhash":%s,"ret":8}}' % BIG,
    # an unmapped one: "fhash:" + its digits
    '{"name":"write","cat":"POSIX","ph":"X","pid":1,"tid":1,"ts":55,'
    '"dur":5,"args":{"fhash":%s1,"ret":8}}' % BIG,
    # used fields out of range: corrupt, saying why
    '{"name":"read","cat":"POSIX","ph":"X","pid":1,"tid":1,"ts":%s,'
    '"dur":5}' % BIG,
    '{"name":"read","cat":"POSIX","ph":"X","pid":1,"tid":1,"ts":1e400,'
    '"dur":5}',
    '{"name":"re\\u0000ad","cat":"POSIX","ph":"X","pid":1,"tid":1,'
    '"ts":60,"dur":5}',
    '{"name":"read","cat":"POSIX","ph":"X","pid":1,"tid":1,"ts":70,'
    '"dur":5,"args":{"fname":"/\\udc80"}}',
    # a surrogate pair is a character; escapes in a used field decoded
    '{"name":"re\\u0061d","cat":"POSIX","ph":"X","pid":1,"tid":1,'
    '"ts":80,"dur":5,"args":{"fname":"/\\ud83d\\ude00","ret":2,'
    '"z":[1e400,-1e400,%s]}}' % BIG,
    # a return of (size_t)-1: no bytes, not a corrupt line
    '{"name":"read","cat":"POSIX","ph":"X","pid":1,"tid":1,"ts":90,'
    '"dur":5,"args":{"fname":"/a","ret":%s}}' % BIG,
]
WHY = {8: "'ts' out of range", 9: "'ts' out of range",
       10: "'name' holds \\u0000 or a lone surrogate",
       11: "'args.fname' holds \\u0000 or a lone surrogate"}

ODD = [BIG, "-" + BIG, "1e400", "-1e400", '"a\\u0000"', '"\\ud800"',
       '"\\udfff x"', "123456789012345678901234567890"]
FIELDS = ["pid", "tid", "ts", "dur", "name", "cat", "args.fname",
          "args.hostname", "args.fhash", "args.hhash", "args.ret",
          "args.size", "args.other", "other"]


def random_lines(rnd, n):
    out = []
    for i in range(n):
        e = {"name": rnd.choice(["read", "write", "open", "fread"]),
             "cat": "POSIX", "ph": "X", "pid": rnd.randint(1, 3),
             "tid": 1, "ts": 1000 + i, "dur": rnd.randint(0, 9),
             "args": {"fname": rnd.choice(["/a", "/b", "/c"]),
                      "ret": rnd.randint(-1, 9), "size": 2}}
        text = json.dumps(e, separators=(",", ":"))
        for _ in range(rnd.randint(1, 2)):
            f = rnd.choice(FIELDS)
            v = rnd.choice(ODD)
            if f.startswith("args."):
                k = f[5:]
                text = text.replace('"args":{', '"args":{"%s":%s,' %
                                    (k, v), 1)
            else:
                # written last: the last of a duplicate key wins
                text = text[:-1] + ',"%s":%s}' % (f, v)
        out.append(text)
    return out


def summary(path, *more):
    p = subprocess.run([BIN, "trace", "summary", "--json", "--group-by",
                        "file", *more, path], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL, timeout=120)
    try:
        return p, json.loads(p.stdout)
    except ValueError:
        return p, {}


def against_ref(path, what):
    evs, bad, _ = ref.read_trace(path)
    p, got = summary(path)
    check(p.returncode == 0, "valid_json_not_corrupt: %s: exit %d: %s" %
          (what, p.returncode, p.stderr[:300]))
    check(got.get("events") == len(evs) and
          got.get("bad_lines") == len(bad),
          "valid_json_not_corrupt: %s: events %s bad %s, want %d %d" %
          (what, got.get("events"), got.get("bad_lines"), len(evs),
           len(bad)))
    want = {}
    for e in evs:
        g = want.setdefault(e["file"], [0, 0, 0])
        g[0] += 1
        g[1] += e["dur"]
        g[2] += e["bytes"] or 0
    groups = {k: [v.get("count"), v.get("dur_us"), v.get("bytes", 0)]
              for k, v in got.get("groups", {}).items()}
    # events with no file are in no group of --group-by file
    want.pop(None, None)
    check(groups == {k: v for k, v in want.items()},
          "valid_json_not_corrupt: %s: groups %s, want %s" %
          (what, sorted(groups.items())[:6], sorted(want.items())[:6]))
    return p, bad


def valid_json_not_corrupt(tmp):
    t = os.path.join(tmp, "hand.pfw")
    with open(t, "w") as f:
        f.write("\n".join(HAND) + "\n")
    p, bad = against_ref(t, "hand")
    check(bad == sorted(WHY), "valid_json_not_corrupt: the reference's "
          "corrupt lines are %s" % bad)
    for no, why in WHY.items():
        check("hand.pfw:%d: corrupt line skipped: %s" % (no, why)
              in p.stderr, "valid_json_not_corrupt: line %d: %s" %
              (no, why))
    # the first line alone: one event, exit 0 (was 65)
    one = os.path.join(tmp, "one.pfw")
    with open(one, "w") as f:
        f.write(HAND[0] + "\n")
    p, got = summary(one)
    check(p.returncode == 0 and got.get("events") == 1 and
          got.get("bad_lines") == 0,
          "valid_json_not_corrupt: inode 2^64-1: exit %d, %s" %
          (p.returncode, p.stderr[:200]))
    rnd = random.Random(24)
    r = os.path.join(tmp, "random.pfw")
    with open(r, "w") as f:
        f.write("\n".join(HAND[4:5] + random_lines(rnd, 400)) + "\n")
    against_ref(r, "random")


if __name__ == "__main__":
    sys.exit(run_in_tmp("pfw_json_check", valid_json_not_corrupt))
