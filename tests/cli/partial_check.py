#!/usr/bin/env python3
"""`trace compare --save-partial` and `trace merge` (SPEC 5.12, issue 16
item 5): the hand-made trace of compare_check.py and the DFTracer
fixtures split into shares (every metadata line in each share, the events
dealt out in turn), a partial per share, and `trace merge` of the partials
byte-identical (text, --json, --out) to one `trace compare` process over
all the shares, for every reduce (max, min, sum, mean), with a case split
across partials, a case in only one partial, and -j 1 / -j 2; the corrupt
line reported by the merge as one process reports it; every error path
(65 naming the partial and the line, other metrics naming both partials,
66 a missing partial, 64 usage), each leaving --out FILE as it was.

usage: partial_check.py STREAMTIME FIXTURES
"""
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_check as cc  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
DF = os.path.join(os.path.abspath(sys.argv[2]), "dftracer")
from checks import check, run_in_tmp  # noqa: E402
from checks import run as run_cmd  # noqa: E402
SHARES = 3


def run(*args):
    p = run_cmd(BIN, "trace", *args, text=False)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def lines_of(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        return f.read().split(b"\n")


def split(path, tmp, tag):
    """PATH's lines into SHARES files: '[' and every metadata line in
    each, the other lines dealt out in turn."""
    shares = [[] for _ in range(SHARES)]
    k = 0
    for ln in lines_of(path):
        if not ln.strip():
            continue
        if ln.strip() in (b"[", b"]") or b'"ph":"M"' in ln:
            for s in shares:
                s.append(ln)
            continue
        shares[k % SHARES].append(ln)
        k += 1
    out = []
    for i, s in enumerate(shares):
        p = os.path.join(tmp, "%s.%d.pfw" % (tag, i))
        with open(p, "wb") as f:
            f.write(b"\n".join(s) + b"\n")
        out.append(p)
    return out


METRICS = cc.METRICS + [
    {"name": "name_file_max_bytes", "value": "bytes",
     "per": ["name", "file"], "reduce": "max"},
    {"name": "prefix2_min_dur", "value": "dur", "per": "prefix:2",
     "reduce": "min"},
    {"name": "cat_host_mean", "value": "bytes", "per": "cat,host",
     "reduce": "mean"},
    {"name": "pattern_sum_count", "value": "count", "per": "pattern",
     "reduce": "sum"},
    {"name": "events", "value": "count"},
    # table metrics ("by") merge as one process too
    {"name": "by_file_writes", "filter": "name~write", "value": "bytes",
     "by": "file"},
    {"name": "by_pattern_thread_max", "value": "dur", "by": "pattern",
     "per": "thread", "reduce": "max"},
    {"name": "by_name_cat_mean", "value": "dur", "by": ["name", "cat"],
     "per": "pid", "reduce": "mean"},
    {"name": "by_thread_min", "value": "count", "by": "thread",
     "per": "name", "reduce": "min"},
]


def body(tmp):
    mpath = os.path.join(tmp, "m.json")
    with open(mpath, "w") as f:
        json.dump(METRICS, f)
    hand = os.path.join(tmp, "hand.pfw")
    with open(hand, "w") as f:
        f.write("\n".join(cc.HAND) + "\n")
    check(set(r for m in METRICS for r in [m.get("reduce", "sum")]) ==
          {"max", "min", "sum", "mean"}, "the metrics cover every reduce")
    hs = split(hand, tmp, "hand")
    fs = []
    for n in ("posix-old-format.pfw", "cm1-rank0-new-format.pfw.gz",
              "small.pfw"):
        fs.append(split(os.path.join(DF, n), tmp, n.split(".")[0]))
    # share i: the i-th share of every file
    share = [[hs[i]] for i in range(SHARES)]
    fshare = [[f[i] for f in fs] for i in range(SHARES)]
    allf = [p for s in fshare for p in s]
    one_args = ["compare", "--metrics", mpath,
                "--case", "hand=" + ",".join(hs),
                "--case", "fx=" + ",".join(allf),
                "--case", "only=" + fs[1][0]]
    parts = []
    for i in range(SHARES):
        p = os.path.join(tmp, "part.%d.json" % i)
        args = ["compare", "--metrics", mpath, "--save-partial", p,
                "-j", str(1 + i % 2),
                "--case", "hand=" + ",".join(share[i]),
                "--case", "fx=" + ",".join(fshare[i])]
        if i == 0:
            args += ["--case", "only=" + fs[1][0]]
        rc, out, err = run(*args)
        check(rc == 0 and out == b"" and os.path.exists(p),
              "share %d: --save-partial exit %d, stdout %r: %s"
              % (i, rc, out[:80], err))
        parts.append(p)
    # the partials in another order than the shares: the table must not
    # depend on it
    order = [parts[2], parts[0], parts[1]]
    for fmt in ([], ["--json"]):
        rc1, one, err1 = run(*(one_args + fmt))
        check(rc1 == 0, "one process %s: exit %d: %s" % (fmt, rc1, err1))
        rc2, merged, err2 = run(*(["merge"] + order + fmt))
        check(rc2 == 0, "merge %s: exit %d: %s" % (fmt, rc2, err2))
        check(one == merged and one, "merge %s is not byte-identical to "
              "one process:\n%s\n---\n%s" % (fmt, one.decode(),
                                             merged.decode()))
        check("hand.%d.pfw" % (16 % SHARES) in err2 and
              "corrupt line skipped" in err2,
              "merge %s: the corrupt line of the hand trace reported: %r"
              % (fmt, err2))
        check(err1.count("corrupt line skipped") ==
              err2.count("corrupt line skipped"),
              "merge %s: as many corrupt lines named as one process" % fmt)
    got = json.loads(run(*(["merge"] + parts + ["--json"]))[1])
    check(got["cases"] == ["hand", "fx", "only"],
          "cases in the order first seen: %r" % got["cases"])
    vals = {m["name"]: m["values"] for m in got["metrics"]}
    for k, v in cc.HAND_ANSWERS.items():
        check(cc.same(vals[k]["hand"], v), "merged hand: %s: %r, by hand %r"
              % (k, vals[k]["hand"], v))
    # the answers over the original files equal those over the shares
    rc, orig, _ = run("compare", "--metrics", mpath, "--json",
                      "--case", "hand=" + hand)
    ov = {m["name"]: m["values"] for m in json.loads(orig)["metrics"]}
    for k in ov:
        check(cc.same(ov[k]["hand"], vals[k]["hand"]),
              "hand.pfw and its shares: %s" % k)
    check(len(vals["by_file_writes"]["fx"]) > 10 and
          len(vals["by_name_cat_mean"]["hand"]) > 3,
          "the by metrics have rows to merge")
    # --out: the same bytes as stdout
    outp = os.path.join(tmp, "result.json")
    rc, out, err = run("merge", "--json", "--out", outp, *parts)
    with open(outp, "rb") as f:
        check(rc == 0 and out == b"" and f.read() ==
              run(*(one_args + ["--json"]))[1], "--out holds the table")
    errors(tmp, mpath, parts, hand)


def errors(tmp, mpath, parts, hand):
    outp = os.path.join(tmp, "keep.txt")

    def bad(files, code, *needles, extra=()):
        with open(outp, "w") as f:
            f.write("old\n")
        rc, out, err = run(*(["merge"] + list(extra) + ["--out", outp] +
                             files))
        check(rc == code, "merge %s: exit %d, want %d: %s"
              % (needles, rc, code, err))
        for n in needles:
            check(n in err, "merge: %r not in %r" % (n, err))
        with open(outp) as f:
            check(f.read() == "old\n", "merge %s: --out left as it was"
                  % (needles,))

    def partial(name, text):
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    with open(parts[0]) as f:
        good = f.read()
    lines = good.split("\n")
    cut = partial("cut.json", "\n".join(lines[:4]) + "\n")
    bad([parts[1], cut], 65, "cut.json:5:")
    bad([partial("text.json", "hello\n")], 65, "text.json:1:")
    bad([partial("v2.json", good.replace('"streamtime_partial":1',
                                         '"streamtime_partial":2', 1))],
        65, "v2.json", "version 2")
    bad([parts[0], partial("sum.json", '{"streamtime_partial":1,'
                           '"command":"trace summary"}')], 65,
        "sum.json is a partial of trace summary and " + parts[0] +
        " one of trace compare")
    other = os.path.join(tmp, "other.json")
    m2 = os.path.join(tmp, "m2.json")
    with open(m2, "w") as f:
        json.dump(METRICS[:2], f)
    rc, _, err = run("compare", "--metrics", m2, "--case", "a=" + hand,
                     "--save-partial", other)
    check(rc == 0, "other metrics: partial written: %s" % err)
    bad([parts[0], other], 65, "other.json: computed with other metrics "
        "than " + parts[0])
    # a metric that writes events cannot be in a partial: refused when
    # one is made by hand
    pj = json.loads(good)
    pj["metrics"] = json.dumps([{"name": "e", "value": "count",
                                 "events": "csv"}])
    for c in pj["cases"]:
        c["metrics"] = [{"name": "e", "keys": [[]], "sums": [1]}]
    bad([partial("events.json", json.dumps(pj))], 65, "events.json: its "
        "metric 'e' writes events, which no partial holds")
    bad([parts[0], os.path.join(tmp, "nope.json")], 66, "nope.json")
    bad([], 64, "no partial given")
    # --save-partial writes nothing when an input is missing
    p = os.path.join(tmp, "never.json")
    rc, _, err = run("compare", "--metrics", mpath, "--case",
                     "a=" + os.path.join(tmp, "missing.pfw"),
                     "--save-partial", p)
    check(rc == 66 and not os.path.exists(p),
          "--save-partial with a missing input: exit %d, written %s"
          % (rc, os.path.exists(p)))
    rc, _, err = run("compare", "--metrics", mpath, "--case", "a=" + hand,
                     "--save-partial", p, "--json")
    check(rc == 64 and not os.path.exists(p),
          "--save-partial with --json: exit %d: %s" % (rc, err))


def main():
    return run_in_tmp("partial_check", body)


if __name__ == "__main__":
    sys.exit(main())
