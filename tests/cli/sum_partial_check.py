#!/usr/bin/env python3
"""`trace summary --save-partial` and `trace merge` of summary partials
(SPEC 5.12, issue 16 item 5): the DFTracer fixtures (the POSIX trace, the
cm1 trace, small.pfw of 1970) and a DLIO-like trace written here (ranks as
pids, loader threads as tids, one process's events dealt over every share
so that its intervals overlap across shares, reads of many sizes, a corrupt
line) split 4 ways (every metadata line in each share, the events dealt out
in turn), a partial per share, and `trace merge` of the partials
byte-identical to one `trace summary` process over all the shares, text and
--json: plain, --group-by pattern,pid --per thread, a --filter, a
--time-granularity, --io-cat/--compute-cat; the span warning and the
corrupt line said by the merge as by one process.  Errors: a truncated
partial (65 naming it and the line), partials of other options (65 naming
both and the option), a compare partial with a summary partial (65 naming
both), a missing partial (66), --save-partial with --json (64) or a
system-trace directory (64), each leaving --out FILE as it was.

usage: sum_partial_check.py STREAMTIME FIXTURES
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import partial_check as pc  # noqa: E402
from checks import check, run_in_tmp  # noqa: E402

DF = pc.DF
run = pc.run
SHARES = 4
pc.SHARES = SHARES


def dlio(path):
    """Two ranks (pids 1, 2) of 3 loader threads each: NPZReader.open and
    reads of varied sizes on img_<n>.npz, compute between them, events of
    one thread overlapping those of another (interval unions per process),
    and a corrupt line."""
    ev = ('{"id":%d,"name":"%s","cat":"%s","pid":%d,"tid":%d,"ts":%d,'
          '"dur":%d,"ph":"X","args":{"hostname":"n%d","fname":'
          '"/dlio/data/train/img_%d_of_8.npz","ret":%d}}')
    lines, k = ["["], 0
    for pid in (1, 2):
        for tid in (10, 11, 12):
            for i in range(30):
                ts = 1_700_000_000_000_000 + i * 1000 + tid * 37 + pid * 5
                lines.append(ev % (k, "NPZReader.open", "dlio", pid, tid,
                                   ts, 400 + 13 * i, pid, i % 8, 0))
                k += 1
                lines.append(ev % (k, "read", "POSIX", pid, tid, ts + 100,
                                   300 + 7 * (i % 5), pid, i % 8,
                                   4096 * (1 + i % 3) + tid))
                k += 1
                lines.append(ev % (k, "compute", "compute", pid, tid,
                                   ts + 350, 500, pid, i % 8, 0))
                k += 1
        if pid == 1:
            lines.append('{"id":9999,"name":"read","cat":"POS')
    lines.append("]")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


VARIANTS = [
    [],
    ["--group-by", "pattern,pid", "--per", "thread"],
    ["--group-by", "name", "--filter", "cat=POSIX,bytes>4100",
     "--filter", "name!~open"],
    ["--time-granularity", "250000"],
    ["--group-by", "basename", "--time-granularity", "7000",
     "--io-cat", "POSIX,dlio", "--compute-cat", "compute"],
]


def body(tmp):
    d = os.path.join(tmp, "dlio.pfw")
    dlio(d)
    srcs = [d] + [os.path.join(DF, n) for n in (
        "posix-old-format.pfw", "cm1-rank0-new-format.pfw.gz", "small.pfw")]
    split = [pc.split(p, tmp, "s%d" % i) for i, p in enumerate(srcs)]
    shares = [[s[i] for s in split] for i in range(SHARES)]
    allf = [p for s in shares for p in s]
    for vi, v in enumerate(VARIANTS):
        parts = []
        for i in range(SHARES):
            p = os.path.join(tmp, "sum.%d.%d.json" % (vi, i))
            rc, out, err = run("summary", "-j", str(1 + i % 2),
                               "--save-partial", p, *(v + shares[i]))
            check(rc == 0 and out == b"" and os.path.exists(p),
                  "%s share %d: --save-partial exit %d, stdout %r: %s"
                  % (v, i, rc, out[:80], err))
            parts.append(p)
        order = parts[::-1]         # not the order of the shares
        for fmt in ([], ["--json"]):
            rc1, one, err1 = run("summary", *(v + fmt + allf))
            check(rc1 == 0 and one, "%s one process %s: exit %d: %s"
                  % (v, fmt, rc1, err1))
            rc2, merged, err2 = run("merge", *(fmt + order))
            check(rc2 == 0, "%s merge %s: exit %d: %s" % (v, fmt, rc2, err2))
            check(one == merged, "%s merge %s is not byte-identical to one "
                  "process:\n%s\n---\n%s" % (v, fmt, one.decode(),
                                             merged.decode()))
            for needle in ("look like unrelated runs",
                           "corrupt line skipped"):
                check((needle in err1) == (needle in err2) and
                      needle in err2, "%s merge %s: %r said as by one "
                      "process: %r" % (v, fmt, needle, err2))
        if vi == 0:
            plain_checks(tmp, one_json(allf), parts)
        if vi == 1:
            g = one_json(allf, *v)["groups"]
            check("img_*_of_*.npz,n1:1" in g and
                  g["img_*_of_*.npz,n1:1"]["max_per_dur_key"].startswith(
                      "n1:1:"), "groups by pattern,pid per thread: %s"
                  % sorted(g)[:6])
    non_utf8_path_unreadable_partial(tmp)
    errors(tmp, shares, allf)


def non_utf8_path_unreadable_partial(tmp):
    """Bug: an input path that is not UTF-8 (written as {"x": HEX}) and
    a corrupt line's message quoting a byte that is not made the partial
    unreadable: trace merge said 'its inputs are malformed' (65), for
    summary and compare partials alike."""
    src = os.path.join(DF, "small.pfw")
    bad = os.path.join(tmp, "sm\udcffall.pfw")       # b"sm\xffall.pfw"
    with open(src, "rb") as f, open(bad, "wb") as g:
        g.write(f.read() + b'{"name":"re\xffad"}\n')
    p = os.path.join(tmp, "u.json")
    rc, _, err = run("summary", "--save-partial", p, bad)
    rc2, merged, err2 = run("merge", p)
    one = run("summary", bad)[1]
    check(rc == rc2 == 0 and merged == one and
          "corrupt line skipped" in err2, "non-UTF-8 path: a summary "
          "partial merges (exit %d %d): %s" % (rc, rc2, err2))
    m = os.path.join(tmp, "n.json")
    with open(m, "w") as f:
        json.dump([{"name": "n", "value": "count"}], f)
    p = os.path.join(tmp, "cu.json")
    rc, _, err = run("compare", "--metrics", m, "--case", "a=" + bad,
                     "--save-partial", p)
    rc2, merged, err2 = run("merge", p)
    check(rc == rc2 == 0 and merged == run("compare", "--metrics", m,
                                           "--case", "a=" + bad)[1],
          "non-UTF-8 path: a compare partial merges (exit %d %d): %s"
          % (rc, rc2, err2))


def one_json(files, *extra):
    rc, out, err = run("summary", "--json", *(list(extra) + files))
    return json.loads(out) if rc == 0 else {}


def plain_checks(tmp, one, parts):
    """The figures of the DLIO-like trace that a merge could get wrong:
    its processes' intervals overlap across the shares (a sum of the
    shares' I/O times would be larger than the union), and the read
    sizes' quartiles."""
    got = json.loads(run("merge", "--json", *parts)[1])
    sums = 0
    for p in parts:
        sums += json.loads(run("merge", "--json", p)[1])["io_us"]
    check(got["io_us"] == one["io_us"] and sums > got["io_us"],
          "the I/O union across shares: merged %d, one process %d, the "
          "shares' sum %d (must be larger)" % (got["io_us"], one["io_us"],
                                                sums))
    rd = one["by_name"]["read"]
    check(rd["bytes"] > 0 and rd["count"] > 180 + 1000,
          "the reads' bytes are counted: %s" % rd)
    check(got["processes"] == one["processes"] and
          got["threads"] == one["threads"] and got["events"] ==
          one["events"] > 0, "processes %d/%d, threads %d/%d, events %d/%d"
          % (got["processes"], one["processes"], got["threads"],
             one["threads"], got["events"], one["events"]))


def errors(tmp, shares, allf):
    outp = os.path.join(tmp, "keep.txt")

    def bad(files, code, *needles, cmd="merge", extra=()):
        with open(outp, "w") as f:
            f.write("old\n")
        rc, out, err = run(*([cmd] + list(extra) + ["--out", outp] +
                             files))
        check(rc == code, "%s %s: exit %d, want %d: %s"
              % (cmd, needles, rc, code, err))
        for n in needles:
            check(n in err, "%s: %r not in %r" % (cmd, n, err))
        with open(outp) as f:
            check(f.read() == "old\n", "%s %s: --out left as it was"
                  % (cmd, needles))

    def partial(name, text):
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    a = os.path.join(tmp, "sum.0.0.json")
    b = os.path.join(tmp, "sum.0.1.json")
    with open(a) as f:
        good = f.read()
    lines = good.split("\n")
    cut = partial("cut.json", "\n".join(lines[:6]) + "\n")
    bad([b, cut], 65, "cut.json:7:", "not a partial of trace summary")
    bad([a, partial("v9.json", good.replace('"streamtime_partial":2',
                                            '"streamtime_partial":9', 1))],
        65, "v9.json", "version 9")
    bad([a, partial("neg.json", good.replace('"events":', '"events":-', 1))],
        65, "neg.json", "malformed")
    # other options: naming both partials and the option
    bad([a, os.path.join(tmp, "sum.1.1.json")], 65,
        "sum.1.1.json: computed with other options than " + a, "group_by")
    bad([os.path.join(tmp, "sum.2.0.json"), os.path.join(tmp,
                                                         "sum.3.1.json")],
        65, "sum.3.1.json: computed with other options than", "filter")
    # the same options written otherwise are the same options
    p1 = os.path.join(tmp, "f1.json")
    p2 = os.path.join(tmp, "f2.json")
    rc1 = run("summary", "--filter", "cat=POSIX,dur>=0010", "--save-partial",
              p1, shares[0][0])[0]
    rc2 = run("summary", "--filter", "dur>=10", "--filter", "cat=POSIX",
              "--save-partial", p2, shares[1][0])[0]
    rc, out, err = run("merge", p1, p2)
    check(rc1 == rc2 == rc == 0, "a filter's terms in another order, "
          "repeated or as --filter twice are the same options: %d %d %d %s"
          % (rc1, rc2, rc, err))
    # a compare partial with a summary partial
    mpath = partial("m.json", json.dumps([{"name": "n", "value": "count"}]))
    cp = os.path.join(tmp, "cmp.json")
    rc, _, err = run("compare", "--metrics", mpath, "--case",
                     "a=" + shares[0][0], "--save-partial", cp)
    check(rc == 0, "compare partial written: %s" % err)
    bad([a, cp], 65, "cmp.json is a partial of trace compare and " + a +
        " one of trace summary")
    bad([cp, a], 65, a + " is a partial of trace summary and " + cp +
        " one of trace compare")
    bad([a, os.path.join(tmp, "nope.json")], 66, "nope.json")
    # --save-partial: with --json, with a system-trace directory, with a
    # missing input: nothing written
    p = os.path.join(tmp, "never.json")
    rc, _, err = run("summary", "--save-partial", p, "--json", allf[0])
    check(rc == 64 and not os.path.exists(p),
          "--save-partial with --json: exit %d: %s" % (rc, err))
    import compare_check as cc
    sysd = cc.system_traces(os.path.join(tmp, "sys"))
    rc, _, err = run("summary", "--save-partial", p, "--date", "2024-01-02",
                     sysd)
    check(rc == 64 and not os.path.exists(p) and
          "system-trace directory" in err,
          "--save-partial with a system-trace directory: exit %d: %s"
          % (rc, err))
    rc, _, err = run("summary", "--save-partial", p,
                     os.path.join(tmp, "missing.pfw"))
    check(rc == 66 and not os.path.exists(p),
          "--save-partial with a missing input: exit %d: %s" % (rc, err))


def main():
    return run_in_tmp("sum_partial_check", body)


if __name__ == "__main__":
    sys.exit(main())
