#!/usr/bin/env python3
"""`streamtime trace summary|timeline` against an independent count.

The reference here is a plain Python loop: json.loads per line, the same
documented rules (docs/trace.md, include/streamtime/trace.h): X events only, hosts
by args.hostname or args.hhash, files by args.fname or args.fhash resolved
with the HH/FH maps in force at the line, bytes from args.ret of read/write
calls (times args.size for fread/fwrite) else args.size else
args.image_size, I/O and compute as exact unions of [ts, ts+dur) per
(host, pid).  It never uses the C scanner.

Cases: the three fixtures alone and together, -j 1 = -j 2 (text and JSON)
on many files, corrupt lines (control character, truncated JSON, missing
ts, a pid that is no number), a truncated .gz (exit 65, nothing written),
an empty file, a file that is not a trace, a missing file, link loops
(the rule of issue 13: 65/66 said before any output is replaced),
--group-by (every kind, prefix:2), --filter, --time-granularity, usage
errors, and trace timeline (trace_verify, counts, --max-events sampling,
--clock-offsets, --experiment with a reproduce results dir).

usage: trace_check.py STREAMTIME FIXTURES [TRACE_VERIFY]
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import setup_rule  # noqa: E402
import tempfile
import zlib

BIN = os.path.abspath(sys.argv[1])
FIX = os.path.abspath(sys.argv[2])
DF = os.path.join(FIX, "dftracer")
VERIFY = (os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else
          os.path.join(os.path.dirname(BIN), "tests", "trace_verify"))
PAPER = os.path.join(os.path.dirname(FIX), "paper-data")
OLD = os.path.join(DF, "posix-old-format.pfw")
SMALL = os.path.join(DF, "small.pfw")
NEW = os.path.join(DF, "cm1-rank0-new-format.pfw.gz")
from checks import check, report  # noqa: E402


def st(*args, timeout=240):
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=timeout)


# ---- the reference --------------------------------------------------------

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def int64(text):
    v = int(text)
    if not -2**63 <= v < 2**63:
        raise ValueError(text)
    return v


def as_int(v):
    """int, None (absent) or raise ValueError (not an integer)."""
    if v is None:
        return None
    if is_int(v):
        return v
    if isinstance(v, float):
        return round(v)
    if isinstance(v, str):
        s = v[1:] if v.startswith("-") else v
        if not s or len(s) > 19 or not all("0" <= c <= "9" for c in s):
            raise ValueError(v)
        return int(v)
    raise ValueError(v)


def maybe_int(v):
    try:
        return as_int(v)
    except ValueError:
        return None


def key_text(v):
    if is_int(v):
        return str(v)
    if isinstance(v, str):
        return v
    return None


def event_bytes(name, args):
    if ("read" in name or "write" in name) and "readdir" not in name \
            and "readlink" not in name:
        ret = maybe_int(args.get("ret"))
        if ret is None or ret <= 0:
            return -1
        if name in ("fread", "fwrite"):
            size = maybe_int(args.get("size"))
            if size is not None and size > 0:
                return ret * size
        return ret
    for k in ("size", "image_size"):
        v = maybe_int(args.get(k))
        if v is not None and v > 0:
            return v
    return -1


def lines_of(path):
    """Physical lines as bytes; a damaged gzip yields what came before,
    without the cut line, and sets the flag."""
    with open(path, "rb") as f:
        data = f.read()
    damaged = False
    if data[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out = d.decompress(data)
        if not d.eof:
            damaged = True
            cut = out.rfind(b"\n")
            out = out[:cut + 1]
        data = out
    ls = data.split(b"\n")
    if ls and ls[-1] == b"":
        ls.pop()
    return ls, damaged


def read_events(path):
    """(events, bad, damaged): events as dicts."""
    ls, damaged = lines_of(path)
    maps = {}
    out, bad = [], 0
    for no, raw in enumerate(ls, 1):
        if no == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        line = raw.rstrip(b" \t\r")
        if line.endswith(b","):
            line = line[:-1]
        line = line.lstrip(b" \t")
        if line in (b"", b"[", b"]"):
            continue
        try:
            # jansson: integers must fit in 64 bits
            e = json.loads(line.decode("utf-8"), parse_int=int64)
        except (ValueError, UnicodeDecodeError):
            bad += 1
            continue
        if not isinstance(e, dict):
            bad += 1
            continue
        ph, name = e.get("ph"), e.get("name")
        if not isinstance(ph, str) or not isinstance(name, str):
            bad += 1
            continue
        if ph not in ("X", "M"):
            continue
        args = e.get("args")
        args = args if isinstance(args, dict) else {}
        if ph == "M":
            if name in ("HH", "FH", "SH"):
                k = key_text(args.get("value"))
                if not isinstance(args.get("name"), str) or k is None:
                    bad += 1
                    continue
                maps[(name, k)] = args["name"]
            continue
        if not isinstance(e.get("cat"), str):
            bad += 1
            continue
        try:
            nums = [as_int(e.get(k)) for k in ("pid", "tid", "ts", "dur")]
        except ValueError:
            bad += 1
            continue
        if None in nums or nums[3] < 0 or abs(nums[2]) > 2**53 or \
                nums[3] > 2**53:
            bad += 1
            continue
        pid, tid, ts, dur = nums
        host = None
        if isinstance(args.get("hostname"), str):
            host = args["hostname"]
        elif key_text(args.get("hhash")) is not None:
            k = key_text(args["hhash"])
            host = maps.get(("HH", k), "hhash:" + k)
        fname = None
        if isinstance(args.get("fname"), str):
            fname = args["fname"]
        elif key_text(args.get("fhash")) is not None:
            k = key_text(args["fhash"])
            fname = maps.get(("FH", k), "fhash:" + k)
        out.append(dict(name=name, cat=e["cat"], pid=pid, tid=tid, ts=ts,
                        dur=dur, host=host, file=fname,
                        bytes=event_bytes(name, args)))
    return out, bad, damaged


def union(iv):
    iv = sorted((s, e) for s, e in iv if e > s)
    out = []
    for s, e in iv:
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(u):
    return sum(e - s for s, e in u)


def overlap(a, b):
    i = j = t = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            t += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return t


def prefix(path, depth):
    comps, i, n = 0, 0, len(path)
    while i < n:
        while i < n and path[i] == "/":
            i += 1
        if i == n:
            break
        while i < n and path[i] != "/":
            i += 1
        comps += 1
        if comps == depth:
            return path[:i]
    p = path
    while len(p) > 1 and p.endswith("/"):
        p = p[:-1]
    return p


def matches(ev, terms):
    for field, op, neg, val in terms:
        v = ev.get(field)
        if field in ("pid", "tid"):
            m = v == int(val)
        elif v is None:
            m = False
        elif op == "=":
            m = v == val
        elif op == "~":
            m = val in v
        else:
            m = v.startswith(val)
        if m == neg:
            return False
    return True


def parse_filter(expr):
    terms = []
    for t in expr.split(","):
        k = 0
        while t[k].isalpha():
            k += 1
        neg = t[k] == "!"
        k += neg
        terms.append((t[:k - neg], t[k], neg, t[k + 1:]))
    return terms


def reference(paths, group=None, terms=(), io=("POSIX", "STDIO"),
              comp=("compute",)):
    evs, bad = [], 0
    for p in paths:
        e, b, _ = read_events(p)
        evs += e
        bad += b
    evs = [e for e in evs if matches(e, terms)]
    procs = {}
    by_cat, by_name, groups, gproc = {}, {}, {}, {}
    for e in evs:
        pk = (e["host"] or "", e["pid"])
        pr = procs.setdefault(pk, {"io": [], "comp": [], "tids": set()})
        pr["tids"].add(e["tid"])
        iv = (e["ts"], e["ts"] + e["dur"])
        if e["cat"] in io:
            pr["io"].append(iv)
        if e["cat"] in comp:
            pr["comp"].append(iv)
        c = by_cat.setdefault(e["cat"], {"count": 0, "dur_us": 0})
        c["count"] += 1
        c["dur_us"] += e["dur"]
        n = by_name.setdefault(e["name"], {"count": 0, "dur_us": 0,
                                           "bytes": 0})
        n["count"] += 1
        n["dur_us"] += e["dur"]
        if e["bytes"] >= 0:
            n["bytes"] += e["bytes"]
        if group:
            if group == "name":
                g = e["name"]
            elif group == "cat":
                g = e["cat"]
            elif group == "host":
                g = e["host"] or ""
            elif group == "pid":
                g = "%s:%d" % (e["host"] or "?", e["pid"])
            elif group == "file":
                g = e["file"] if e["file"] is not None else "(none)"
            else:
                d = int(group.split(":")[1])
                g = prefix(e["file"], d) if e["file"] is not None \
                    else "(none)"
            x = groups.setdefault(g, {"count": 0, "dur_us": 0, "bytes": 0,
                                      "keys": [g]})
            x["count"] += 1
            x["dur_us"] += e["dur"]
            if e["bytes"] > 0:
                x["bytes"] += e["bytes"]
            unit = "%s:%d" % (e["host"] or "?", e["pid"])
            d, b = gproc.get((g, unit), (0, None))
            if e["bytes"] > 0:
                b = (b or 0) + e["bytes"]
            gproc[(g, unit)] = (d + e["dur"], b)
    # the busiest process of each group, the smaller name on a tie; no
    # process has bytes: 0 and no name
    for g, x in groups.items():
        units = sorted((u, v) for (gg, u), v in gproc.items() if gg == g)
        md = max(v[0] for _, v in units)
        x["max_process_dur_us"] = x["max_per_dur_us"] = md
        x["max_per_dur_key"] = min(u for u, v in units if v[0] == md)
        sized = [(u, v[1]) for u, v in units if v[1] is not None]
        mb = max((v for _, v in sized), default=0)
        x["max_per_bytes"] = mb
        x["max_per_bytes_key"] = min((u for u, v in sized if v == mb),
                                     default=None)
    io_us = comp_us = io_un = comp_un = 0
    for pr in procs.values():
        a, b = union(pr["io"]), union(pr["comp"])
        both = overlap(a, b)
        io_us += length(a)
        comp_us += length(b)
        io_un += length(a) - both
        comp_un += length(b) - both
    first = min((e["ts"] for e in evs), default=0)
    end = max((e["ts"] + e["dur"] for e in evs), default=0)
    out = {
        "events": len(evs), "bad_lines": bad,
        "hosts": len({e["host"] for e in evs if e["host"]}),
        "processes": len(procs),
        "threads": sum(len(p["tids"]) for p in procs.values()),
        "files": len({e["file"] for e in evs if e["file"] is not None}),
        "span_us": end - first,
        "by_cat": by_cat, "by_name": by_name,
        "io_us": io_us, "compute_us": comp_us,
        "io_unoverlapped_us": io_un, "compute_unoverlapped_us": comp_un,
    }
    if group:
        out["group_by"] = group
        out["per"] = "pid"
        out["groups"] = groups
    return out


def summary(*args, want_rc=0):
    p = st("trace", "summary", "--json", *args)
    check(p.returncode == want_rc, "summary %s: exit %d, want %d: %s"
          % (args, p.returncode, want_rc, p.stderr[-2000:]))
    try:
        return json.loads(p.stdout), p
    except ValueError:
        check(False, "summary %s: no JSON on stdout" % (args,))
        return {}, p


def same(got, want, what):
    if got == want:
        check(True, what)
        return
    diffs = [k for k in set(got) | set(want) if got.get(k) != want.get(k)]
    check(False, "%s: differs in %s: got %s want %s" % (
        what, diffs, {k: got.get(k) for k in diffs[:3]},
        {k: want.get(k) for k in diffs[:3]}))


# ---- the cases ------------------------------------------------------------

def test_fixtures():
    for path in (OLD, SMALL, NEW):
        got, _ = summary(path)
        same(got, reference([path]), os.path.basename(path))
    got, _ = summary(OLD, SMALL, NEW, "-j", "2")
    same(got, reference([OLD, SMALL, NEW]), "three fixtures")
    # a few facts read off the files by hand
    g, _ = summary(NEW)
    check(g.get("events") == 8082 and g.get("files") == 703 and
          g.get("hosts") == 1 and g["by_name"]["write"]["count"] == 3031,
          "cm1: 8082 X events, 703 files, 1 host, 3031 writes: %s"
          % {k: g.get(k) for k in ("events", "files", "hosts")})
    g, _ = summary(OLD)
    check(g.get("events") == 1012 and
          g["by_name"]["read"]["bytes"] == 1000 * 131072 and
          g["by_name"]["write"]["bytes"] == 3276800,
          "old format: 1000 reads of 131072 bytes, one 3276800-byte write")
    # small.pfw: overlapping reads; the union by hand: [10,90) [110,193)
    # [210,250) -> 80 + 83 + 40
    g, _ = summary(SMALL)
    check(g.get("io_us") == 203 and g.get("span_us") == 240,
          "small.pfw union 203 us, span 240: %s %s"
          % (g.get("io_us"), g.get("span_us")))


def test_jobs(tmp):
    d = os.path.join(tmp, "many")
    os.makedirs(d)
    paths = []
    for i in range(6):
        for src in (OLD, NEW, SMALL):
            dst = os.path.join(d, "%d-%s" % (i, os.path.basename(src)))
            shutil.copy(src, dst)
            paths.append(dst)
    for extra in ([], ["--group-by", "prefix:2"], ["--group-by", "pid"]):
        outs = []
        for j in ("1", "2", "5"):
            a = st("trace", "summary", *paths, "-j", j, *extra)
            b = st("trace", "summary", "--json", *paths, "-j", j, *extra)
            check(a.returncode == 0 and b.returncode == 0,
                  "-j %s: %s %s" % (j, a.stderr, b.stderr))
            outs.append((a.stdout, b.stdout))
        check(outs[0] == outs[1] == outs[2],
              "-j 1, 2, 5 give the same output %s" % extra)
    got, _ = summary(d, "-j", "2")
    same(got, reference(sorted(paths)), "a directory of 18 traces")


def test_corrupt(tmp):
    src = open(OLD, "rb").read().split(b"\n")
    ev = src[5]
    inject = [
        (3, ev.replace(b'"hostname":"corona237"', b'"hostname":"coro\x01na"')),
        (7, ev[:len(ev) // 2]),
        (11, re.sub(rb'"ts":"[0-9]+",', b"", ev)),
        (15, ev.replace(b'"pid":"1338896"', b'"pid":"13a8896"')),
    ]
    lines = list(src)
    for at, bad in sorted(inject):   # ascending: AT is the final index
        lines.insert(at, bad)
    path = os.path.join(tmp, "corrupt.pfw")
    with open(path, "wb") as f:
        f.write(b"\n".join(lines))
    got, p = summary(path)
    want = reference([path])
    check(want["bad_lines"] == 4, "the reference sees 4 corrupt lines")
    same(got, want, "corrupt lines skipped")
    for at, _ in inject:
        check("corrupt.pfw:%d:" % (at + 1) in p.stderr,
              "warning names corrupt.pfw:%d: %s" % (at + 1, p.stderr))
    check("control character" in p.stderr and "missing 'ts'" in p.stderr
          and "'pid' is not an integer" in p.stderr,
          "warnings say why: %s" % p.stderr)
    # many corrupt lines: ten named, then a count
    path2 = os.path.join(tmp, "many-bad.pfw")
    with open(path2, "wb") as f:
        f.write(b"\n".join([ev] + [b"{not json"] * 25 + [ev]) + b"\n")
    got, p = summary(path2)
    check(got.get("bad_lines") == 25 and got.get("events") == 2,
          "25 corrupt, 2 events: %s" % got.get("bad_lines"))
    check(p.stderr.count("corrupt line skipped") == 10 and
          "15 more corrupt lines skipped (25 in all)" in p.stderr,
          "ten warnings then a count: %s" % p.stderr)
    # the fast scanner's tricky cases, each also as jansson sees it
    tricky = [
        b'{"name":"w\\u00e9rite","cat":"POSIX","pid":1,"tid":1,"ts":5,'
        b'"dur":3,"ph":"X","args":{"hostname":"h\\"1","ret":7}}',
        '{"name":"écrire","cat":"POSIX","pid":1,"tid":2,"ts":5,"dur":3,'
        '"ph":"X","args":{"fname":"/d/f","size":"12"}}'.encode(),
        b' {"ph":"X","args":{"x":[1,{"y":null}],"fname":"/a/b"},"name":"read",'
        b'"cat":"STDIO","pid":"2","tid":"3","ts":1.0e1,"dur":"4","id":9},',
        b'{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":5,"dur":3,'
        b'"ph":"X","name":"write","args":{"ret":-1}}',
        b'{"name":"fread","cat":"STDIO","pid":1,"tid":1,"ts":5,"dur":3,'
        b'"ph":"X","args":{"ret":3,"size":4096}}',
        b'{"name":"x","cat":"c","pid":1,"tid":1,"ts":5,"dur":-3,"ph":"X"}',
        b'{"name":"x","cat":"c","pid":1,"tid":1,"ts":5,"dur":3,"ph":"B"}',
        b'{"name":"x","cat":"c","pid":1,"tid":1,"ts":5,"dur":99999999999'
        b'999999999,"ph":"X"}',
        b'{"name":"x","cat":"c","pid":01,"tid":1,"ts":5,"dur":3,"ph":"X"}',
        b'[1,2]',
        b'{"name":"x","cat":"c","pid":1,"tid":1,"ts":5,"dur":3,"ph":"X"} x',
    ]
    path3 = os.path.join(tmp, "tricky.pfw")
    with open(path3, "wb") as f:
        f.write(b"[\n" + b"\n".join(tricky) + b"\n]\n")
    got, _ = summary(path3)
    same(got, reference([path3]), "tricky lines")
    check(got.get("bad_lines") == 5 and got.get("events") == 5,
          "tricky: 5 events, 5 corrupt: %s %s"
          % (got.get("events"), got.get("bad_lines")))
    check(got.get("by_name", {}).get("fread", {}).get("bytes") == 3 * 4096,
          "fread: ret items of size bytes")


def test_damaged(tmp):
    data = open(NEW, "rb").read()
    cut = os.path.join(tmp, "cut.pfw.gz")
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])
    p = st("trace", "summary", "--json", cut)
    check(p.returncode == 65 and p.stdout == "",
          "truncated gzip: exit 65, no summary (one rule: a damaged input "
          "writes nothing): %d %r" % (p.returncode, p.stdout[:200]))
    check("damaged gzip data" in p.stderr and "cut.pfw.gz" in p.stderr,
          "truncated gzip: an error naming it: %s" % p.stderr)
    # with a good file beside it: still 65, still nothing
    p = st("trace", "summary", "--json", cut, OLD)
    check(p.returncode == 65 and p.stdout == "",
          "a damaged file beside a good one: 65, nothing written")
    # garbage in the middle of a gzip stream
    bad = bytearray(data)
    for i in range(2000, 2400):
        bad[i] ^= 0x5a
    path = os.path.join(tmp, "garbled.pfw.gz")
    with open(path, "wb") as f:
        f.write(bad)
    p = st("trace", "summary", path)
    check(p.returncode == 65 and "damaged gzip data" in p.stderr,
          "garbled gzip: exit 65: %d %s" % (p.returncode, p.stderr))


def test_edges(tmp):
    empty = os.path.join(tmp, "empty.pfw")
    open(empty, "w").close()
    p = st("trace", "summary", "--json", empty)
    check(p.returncode == 65 and p.stdout == "" and "empty.pfw" in p.stderr
          and "empty" in p.stderr,
          "issue 13 item 17, trace summary on an empty file exits 0: want "
          "65 naming it, nothing written: %d %r %s"
          % (p.returncode, p.stdout[:100], p.stderr))
    p = subprocess.run([BIN, "trace", "summary", "-"], input=b"",
                       capture_output=True)
    check(p.returncode == 65 and p.stdout == b"" and
          b"standard input: not a DFTracer trace" in p.stderr,
          "issue 13 item 17, an empty standard input: 65: %d %s"
          % (p.returncode, p.stderr))
    brackets = os.path.join(tmp, "brackets.pfw.gz")
    with gzip.open(brackets, "wb") as f:
        f.write(b"[\n]\n")
    p = st("trace", "summary", "--json", brackets)
    check(p.returncode == 65 and p.stdout == "" and
          "none of its 2 lines is an event" in p.stderr,
          "only brackets: no event, not a trace (65): %d %s"
          % (p.returncode, p.stderr))
    meta = os.path.join(tmp, "meta-only.pfw")
    with open(meta, "w") as f:
        f.write('[\n{"name":"HH","cat":"dftracer","ph":"M","pid":1,"tid":1,'
                '"args":{"name":"h","value":7}}\n]\n')
    got, p = summary(meta)
    check(got.get("events") == 0 and "no X events" in p.stderr,
          "only M events: a trace with no X events, exit 0, a warning: %s"
          % p.stderr)
    csv = os.path.join(tmp, "table.pfw")
    with open(csv, "w") as f:
        f.write("a,b,c\n1,2,3\n4,5,6\n")
    p = st("trace", "summary", "--json", csv)
    check(p.returncode == 65 and p.stdout == "" and
          "not a DFTracer trace" in p.stderr and
          "none of its 3 lines" in p.stderr,
          "a CSV: not a trace, exit 65: %s" % p.stderr)
    p = st("trace", "summary", os.path.join(tmp, "missing.pfw"))
    check(p.returncode == 66 and "missing.pfw" in p.stderr,
          "a missing file: exit 66: %d %s" % (p.returncode, p.stderr))
    for args in ([], ["--group-by", "nope", OLD], ["--group-by", "prefix:0",
                                                   OLD],
                 ["--filter", "size=3", OLD], ["--filter", "name", OLD],
                 ["--filter", "pid~3", OLD], ["-j", "0", OLD],
                 ["--time-granularity", "0", OLD], ["--bogus", OLD]):
        p = st("trace", "summary", *args)
        check(p.returncode == 64, "usage %s: exit 64, got %d"
              % (args, p.returncode))
    p = st("trace", "frobnicate")
    check(p.returncode == 64, "unknown subcommand: 64")
    p = st("trace", "summary", "--help")
    check(p.returncode == 0 and "--group-by" in p.stdout, "--help")
    # standard input
    p = subprocess.run([BIN, "trace", "summary", "--json", "-"],
                       stdin=open(NEW, "rb"), capture_output=True)
    check(p.returncode == 0 and json.loads(p.stdout) == reference([NEW]),
          "'-' reads standard input (gzip): %s" % p.stderr)
    p = st("trace", "timeline", "-", "--out", os.path.join(tmp, "x.json"))
    check(p.returncode == 64, "timeline of '-': 64")
    # --out: atomic file, same text as stdout
    out = os.path.join(tmp, "summary.txt")
    a = st("trace", "summary", OLD, "--out", out)
    b = st("trace", "summary", OLD)
    check(a.returncode == 0 and open(out).read() == b.stdout,
          "--out FILE holds what stdout gets")
    check("union of intervals" in b.stdout and "131072 / 131072 / 131072"
          in b.stdout, "the text table: quartiles of read sizes")


def test_groups_filters():
    for g in ("name", "cat", "host", "pid", "file", "prefix:2", "prefix:1",
              "prefix:9"):
        got, _ = summary(OLD, NEW, SMALL, "--group-by", g)
        same(got, reference([OLD, NEW, SMALL], group=g), "--group-by " + g)
    got, _ = summary(OLD, "--group-by", "prefix:2")
    check(list(got.get("groups", {})) == ["/p/lustre1"] and
          got["groups"]["/p/lustre1"]["count"] == 1012,
          "prefix:2 of the old fixture is /p/lustre1: %s"
          % list(got.get("groups", {})))
    for f in ("cat=POSIX", "name~write", "file^/p/lustre",
              "cat=POSIX,name~write", "name!~read,cat!=dftracer",
              "file^/usr/tce", "host=corona173", "pid=3537780",
              "file!^/p", "tid=19"):
        got, _ = summary(OLD, NEW, SMALL, "--filter", f)
        same(got, reference([OLD, NEW, SMALL], terms=parse_filter(f)),
             "--filter " + f)
    got, _ = summary(OLD, NEW, "--filter", "cat=POSIX", "--filter",
                     "name~write", "--group-by", "prefix:2")
    same(got, reference([OLD, NEW], group="prefix:2",
                        terms=parse_filter("cat=POSIX,name~write")),
         "two --filter options and --group-by")
    got, _ = summary(NEW, "--io-cat", "POSIX", "--compute-cat", "STDIO")
    same(got, reference([NEW], io=("POSIX",), comp=("STDIO",)),
         "--io-cat POSIX --compute-cat STDIO (overlap)")
    check(got.get("compute_us", 0) > 0, "STDIO as compute: some time")
    got, _ = summary(OLD, NEW, "--io-cat", "", "--compute-cat", "POSIX")
    same(got, reference([OLD, NEW], io=(), comp=("POSIX",)),
         "--io-cat ''")
    got, _ = summary(OLD, "--time-granularity", "500000")
    bins = got.get("bins", [])
    check(len(bins) == 4 and sum(b["events"] for b in bins) == 1012 and
          sum(b["io_us"] for b in bins) == got.get("io_us") and
          all(b["start_us"] % 500000 == 0 for b in bins),
          "time bins of 0.5 s over 1.9 s: 4 not empty, all events, all I/O time: %s"
          % [(b["start_us"], b["events"]) for b in bins])


def verify(path):
    p = subprocess.run([VERIFY, path], capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout.endswith("ok\n"),
          "trace_verify %s: %s" % (path, p.stderr))
    out = {}
    for line in p.stdout.splitlines()[:-1]:
        name, n, _, _ = line.split("\t")
        out[name] = int(n)
    return out


def test_timeline(tmp):
    out = os.path.join(tmp, "tl.json")
    p = st("trace", "timeline", OLD, NEW, "--out", out)
    check(p.returncode == 0, "timeline: %s" % p.stderr)
    got = verify(out)
    check(got == {"corona237 pid 1338896": 1012,
                  "corona173 pid 3537780": 8082},
          "a process per (host, pid), every event: %s" % got)
    doc = json.load(open(out))
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    ref = read_events(OLD)[0] + read_events(NEW)[0]
    check(sorted((e["ts"], e["dur"], e["name"]) for e in xs) ==
          sorted((e["ts"], e["dur"], e["name"]) for e in ref),
          "every slice is an event, ts and dur as read")
    check("sampled" not in doc.get("otherData", {}), "no sampling note")
    # --max-events: exactly N, evenly spaced, said
    out2 = os.path.join(tmp, "tl-sampled.json")
    p = st("trace", "timeline", OLD, NEW, "--out", out2, "--max-events",
           "500")
    doc = json.load(open(out2))
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    check(p.returncode == 0 and len(xs) == 500 and
          "sampled" in doc["otherData"] and "max-events" in p.stderr,
          "--max-events 500: 500 slices and a notice: %d %s"
          % (len(xs), p.stderr))
    verify(out2)
    # the same with -j 1: the same bytes
    out3 = os.path.join(tmp, "tl-j1.json")
    st("trace", "timeline", OLD, NEW, "--out", out3, "--max-events", "500",
       "-j", "1")
    check(open(out2).read() == open(out3).read(), "timeline -j1 = -j2")
    # --clock-offsets: corona237 is 1.5 s ahead of the reference
    offs = os.path.join(tmp, "offsets.csv")
    with open(offs, "w") as f:
        f.write("measured_at,reference,target,offset_ms,delay_ms,bound_ms,"
                "samples,method\n"
                "2023-10-23T17:00:00Z,ref,corona237,1500,0.1,0.05,8,udp\n")
    out4 = os.path.join(tmp, "tl-clock.json")
    p = st("trace", "timeline", OLD, NEW, "--out", out4, "--clock-offsets",
           offs)
    check(p.returncode == 0 and "corona173" in p.stderr,
          "an unmeasured host is named: %s" % p.stderr)
    a = json.load(open(out))["traceEvents"]
    b = json.load(open(out4))["traceEvents"]
    sa = sorted(e["ts"] for e in a if e["ph"] == "X" and e["pid"] == 2)
    sb = sorted(e["ts"] for e in b if e["ph"] == "X" and e["pid"] == 2)
    check(len(sa) == 1012 and [x - 1500000 for x in sa] == sb,
          "corona237's times moved back 1.5 s")
    check(json.load(open(out4))["otherData"].get("clock_corrected_hosts")
          == 1, "one host corrected")
    # --filter
    out5 = os.path.join(tmp, "tl-filter.json")
    st("trace", "timeline", OLD, NEW, "--out", out5, "--filter",
       "name=write")
    got = verify(out5)
    check(got == {"corona237 pid 1338896": 1, "corona173 pid 3537780": 3031},
          "--filter name=write: %s" % got)
    p = st("trace", "timeline", OLD)
    check(p.returncode == 64, "timeline without --out: 64")
    # --experiment: a reproduce results dir of the paper's data
    if not os.path.isdir(PAPER):
        setup_rule.data_missing("cli-trace --experiment", PAPER)
    res = os.path.join(tmp, "res")
    p = st("reproduce", "--data", PAPER, "--out", res, "-q")
    check(p.returncode == 0, "reproduce: %s" % p.stderr)
    out6 = os.path.join(tmp, "tl-exp.json")
    p = st("trace", "timeline", OLD, NEW, "--out", out6, "--experiment",
           res, "--data", PAPER)
    check(p.returncode == 0, "--experiment: %s" % p.stderr)
    got = verify(out6)
    check(got.get("corona237 pid 1338896") == 1012 and
          got.get("Slurm queue") == 2268 and got.get("streaming") == 1848,
          "the trace and the experiment's stages: %s" % got)
    doc = json.load(open(out6))
    pn = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"]
          if e["name"] == "process_name"}
    check(pn.get(1) == "corona173 pid 3537780" and
          pn.get(3) == "receivers" and pn.get(8) == "streaming",
          "experiment pids above the trace's: %s" % pn)


def x_events(path):
    return [e for e in json.load(open(path))["traceEvents"] if e["ph"] == "X"]


def thread_names(path):
    return {(e["pid"], e["tid"]): e["args"]["name"]
            for e in json.load(open(path))["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name"}


def test_timeline_lanes(tmp):
    # small.pfw: reads of tid 19 that overlap without nesting ([10,60)
    # and [40,90)) go on a second track "tid 19 (2)"; nested ones stay
    out = os.path.join(tmp, "tl-small.json")
    p = st("trace", "timeline", SMALL, "--out", out)
    check(p.returncode == 0, "timeline small.pfw: %s" % p.stderr)
    got = verify(out)
    check(sum(got.values()) == 12, "small.pfw: 12 slices: %s" % got)
    names = thread_names(out)
    xs = x_events(out)
    lane2 = sorted((e["ts"], e["ts"] + e["dur"]) for e in xs
                   if names.get((e["pid"], e["tid"])) == "tid 19 (2)")
    check(lane2 == [(40, 90), (140, 185), (189, 193)],
          "small.pfw: the partial overlaps on 'tid 19 (2)': %s %s"
          % (lane2, sorted(set(names.values()))))
    check(sorted(set(names.values())) == ["tid 19", "tid 19 (2)"],
          "small.pfw: two tracks named: %s" % names)
    check(json.load(open(out))["otherData"].get("overlap_lanes") == 1,
          "otherData.overlap_lanes")
    # the three fixtures together
    out = os.path.join(tmp, "tl-three.json")
    p = st("trace", "timeline", OLD, NEW, SMALL, "--out", out)
    check(p.returncode == 0, "timeline of three: %s" % p.stderr)
    got = verify(out)
    check(sum(got.values()) == 1012 + 8082 + 12,
          "three fixtures: every slice: %s" % got)
    # random slices that overlap a lot, on few threads of a few
    # processes; the name holds the thread, so every slice can be traced
    # back to its thread's track
    import random
    rnd = random.Random(5)
    paths = []
    for k in range(3):
        path = os.path.join(tmp, "overlap-%d.pfw" % k)
        with open(path, "w") as f:
            f.write("[\n")
            for i in range(700):
                pid, tid = rnd.choice(((1, 7), (1, 8), (2, 7), (3, 2**40)))
                ts = rnd.randrange(0, 3000)
                dur = rnd.choice((0, 1, rnd.randrange(1, 400)))
                f.write(json.dumps({
                    "name": "op-%d-%d-%d-%d" % (pid, tid, k, i),
                    "cat": "POSIX", "pid": pid, "tid": tid, "ts": ts,
                    "dur": dur, "ph": "X",
                    "args": {"hostname": "h%d" % (pid % 2)}}) + "\n")
            # a nest and a staircase
            for j in range(5):
                f.write(json.dumps({
                    "name": "nest-%d-%d" % (k, j), "cat": "POSIX", "pid": 4,
                    "tid": 1, "ts": 10000 + 10 * j, "dur": 1000 - 20 * j,
                    "ph": "X"}) + "\n")
                f.write(json.dumps({
                    "name": "stair-%d-%d" % (k, j), "cat": "POSIX",
                    "pid": 4, "tid": 2, "ts": 10000 + 10 * j + k,
                    "dur": 100, "ph": "X"}) + "\n")
            f.write("]\n")
        paths.append(path)
    outs = []
    for j in ("1", "3"):
        out = os.path.join(tmp, "tl-overlap-j%s.json" % j)
        p = st("trace", "timeline", *paths, "--out", out, "-j", j)
        check(p.returncode == 0, "timeline of overlaps -j %s: %s"
              % (j, p.stderr))
        verify(out)
        outs.append(open(out).read())
    check(outs[0] == outs[1], "timeline of overlaps: -j 1 = -j 3, bytes")
    xs = x_events(out)
    names = thread_names(out)
    ref = sum((read_events(q)[0] for q in paths), [])
    check(sorted((e["ts"], e["dur"], e["name"]) for e in xs) ==
          sorted((e["ts"], e["dur"], e["name"]) for e in ref),
          "overlaps: every slice once, ts and dur as read")
    wrong = [e["name"] for e in xs if e["name"].startswith("op-") and
             not re.fullmatch(r"tid %s( \(\d+\))?" % e["name"].split("-")[2],
                              names.get((e["pid"], e["tid"]), ""))]
    check(not wrong, "overlaps: each slice on a track of its thread: %s"
          % wrong[:5])
    nest = {names.get((e["pid"], e["tid"])) for e in xs
            if e["name"].startswith("nest-")}
    check(nest == {"tid 1"}, "nested slices share one track: %s" % nest)
    named = [(e["pid"], e["tid"]) for e in json.load(open(out))["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"]
    check(len(named) == len(set(named)), "a tid names one track")
    check(any(n.endswith(" (2)") for n in names.values()),
          "overlaps: some extra tracks")
    # sampled, and clock-corrected: still nested
    out = os.path.join(tmp, "tl-overlap-sampled.json")
    offs = os.path.join(tmp, "offsets-h1.csv")
    with open(offs, "w") as f:
        f.write("measured_at,reference,target,offset_ms,delay_ms,bound_ms,"
                "samples,method\n"
                "1970-01-01T00:00:00Z,ref,h1,0.25,0.1,0.05,8,udp\n")
    p = st("trace", "timeline", *paths, "--out", out, "--max-events", "900",
           "--clock-offsets", offs)
    check(p.returncode == 0, "sampled overlaps: %s" % p.stderr)
    got = verify(out)
    check(sum(got.values()) == 900, "sampled overlaps: 900 slices: %s" % got)


def test_review_edges(tmp):
    # byte totals stop at INT64_MAX, with one warning, instead of wrapping
    big = os.path.join(tmp, "big.pfw")
    with open(big, "w") as f:
        for i, ret in enumerate((2**63 - 1, 2**63 - 1, 5)):
            f.write(json.dumps({"name": "read", "cat": "POSIX", "pid": 1,
                                "tid": 1, "ts": i, "dur": 1, "ph": "X",
                                "args": {"ret": ret}}) + "\n")
    for j in ("1", "2"):
        got, p = summary(big, "--group-by", "name", "-j", j)
        check(got.get("by_name", {}).get("read", {}).get("bytes") ==
              2**63 - 1 and got["groups"]["read"]["bytes"] == 2**63 - 1,
              "bytes capped at 2^63-1, not wrapped: %s" % got.get("by_name"))
        check(p.stderr.count("capped") == 1,
              "one warning says the total was capped: %s" % p.stderr)
    got, p = summary(OLD)
    check("capped" not in p.stderr, "no cap warning when the sums fit")
    check(set(got) == {"events", "bad_lines", "hosts", "processes",
                       "threads", "files", "span_us", "by_cat", "by_name",
                       "io_us", "compute_us", "io_unoverlapped_us",
                       "compute_unoverlapped_us"} and
          all(set(v) == {"count", "dur_us", "bytes"}
              for v in got["by_name"].values()),
          "the issue's JSON shape: %s" % sorted(got))
    # quartiles: linear interpolation at (n-1)p (SPEC 5.7)
    q = os.path.join(tmp, "quart.pfw")
    with open(q, "w") as f:
        for i, ret in enumerate((400, 100, 500, 300)):
            f.write(json.dumps({"name": "read", "cat": "POSIX", "pid": 1,
                                "tid": 1, "ts": i, "dur": 1, "ph": "X",
                                "args": {"ret": ret}}) + "\n")
    p = st("trace", "summary", q)
    check(p.returncode == 0 and "250 / 350 / 425 (4 calls)" in p.stdout,
          "quartiles of 100 300 400 500: 250 / 350 / 425: %s" % p.stdout)
    with open(q, "a") as f:
        f.write(json.dumps({"name": "read", "cat": "POSIX", "pid": 1,
                            "tid": 1, "ts": 9, "dur": 1, "ph": "X",
                            "args": {"ret": 101}}) + "\n")
    p = st("trace", "summary", q)
    check("101 / 300 / 400 (5 calls)" in p.stdout,
          "quartiles of 100 101 300 400 500: %s" % p.stdout)
    with open(q, "w") as f:
        for i, ret in enumerate((1, 2)):
            f.write(json.dumps({"name": "read", "cat": "POSIX", "pid": 1,
                                "tid": 1, "ts": i, "dur": 1, "ph": "X",
                                "args": {"ret": ret}}) + "\n")
    p = st("trace", "summary", q)
    check("1.25 / 1.50 / 1.75 (2 calls)" in p.stdout,
          "quartiles of 1 2: 1.25 / 1.50 / 1.75: %s" % p.stdout)
    # an empty category in --io-cat/--compute-cat is a usage error
    for opt in ("--io-cat", "--compute-cat"):
        for val in (",", ",,", "POSIX,", ",POSIX", "POSIX,,STDIO"):
            p = st("trace", "summary", OLD, opt, val)
            check(p.returncode == 64 and opt in p.stderr and
                  "empty category" in p.stderr,
                  "%s '%s': exit 64 naming it: %d %s"
                  % (opt, val, p.returncode, p.stderr))
    # io_cat_checked_after_options: the lists are checked once the options
    # are read, as every option value is: --help still helps, the last
    # --io-cat given is the one used, no FILE is said first
    p = st("trace", "summary", "--io-cat", ",", "--help")
    check(p.returncode == 0 and "--io-cat" in p.stdout,
          "io_cat_checked_after_options: --io-cat , --help: help, exit 0: "
          "%d %s" % (p.returncode, p.stderr))
    want = st("trace", "summary", OLD, "--io-cat", "POSIX")
    p = st("trace", "summary", OLD, "--io-cat", ",", "--io-cat", "POSIX")
    check(p.returncode == 0 and p.stdout == want.stdout,
          "io_cat_checked_after_options: the last --io-cat wins: %d %s"
          % (p.returncode, p.stderr))
    p = st("trace", "summary", "--io-cat", ",")
    check(p.returncode == 64 and "no trace file given" in p.stderr,
          "io_cat_checked_after_options: no FILE is said first: %d %s"
          % (p.returncode, p.stderr))


def temporaries(d, name):
    return [f for f in os.listdir(d) if f.startswith("." + name + ".")]


def test_no_output_replaced(tmp):
    """Issue 13 items 1 and 17: one rule for every trace command.  An
    input that is not a trace (65) or is missing/unreadable (66) is said
    before any output is replaced: the old --out file stays, no temporary
    is left.  Events that the filter all drops are an empty result."""
    d = os.path.join(tmp, "rule")
    os.mkdir(d)
    empty = os.path.join(d, "e.pfw")
    open(empty, "w").close()
    junk = os.path.join(d, "junk.pfw.gz")
    with open(junk, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00garbage, not a gzip stream\n")
    cut = os.path.join(d, "cut.pfw.gz")
    with open(cut, "wb") as f:
        data = open(NEW, "rb").read()
        f.write(data[:len(data) // 2])
    cycle = os.path.join(d, "cycle")
    os.mkdir(cycle)
    shutil.copy(SMALL, cycle)
    os.symlink("b.pfw", os.path.join(cycle, "a.pfw"))
    os.symlink("a.pfw", os.path.join(cycle, "b.pfw"))
    dirlink = os.path.join(d, "dirlink")
    os.mkdir(dirlink)
    shutil.copy(SMALL, dirlink)
    os.symlink(".", os.path.join(dirlink, "loop.pfw"))
    dotloop = os.path.join(d, "dotloop")
    os.mkdir(dotloop)
    shutil.copy(SMALL, dotloop)
    os.symlink(".", os.path.join(dotloop, "loop"))
    selfloop = os.path.join(d, "self.pfw")
    os.symlink("self.pfw", selfloop)
    cases = (
        ("empty file", [empty], 65, "e.pfw"),
        ("an empty file beside a good one", [SMALL, empty], 65, "e.pfw"),
        ("not gzip-valid", [junk], 65, "junk.pfw.gz"),
        ("gzip cut short", [cut], 65, "cut.pfw.gz"),
        ("missing", [os.path.join(d, "nope.pfw")], 66, "nope.pfw"),
        ("a link cycle a->b->a in a directory", [cycle], 66,
         "cycle/a.pfw: a loop of symbolic links"),
        ("a link to itself", [selfloop], 66,
         "self.pfw: a loop of symbolic links"),
        ("a looped directory link named .pfw", [dirlink], 66,
         "dirlink/loop.pfw: a directory"),
    )
    for what, inputs, rc, named in cases:
        for cmd in ("summary", "timeline"):
            out = os.path.join(d, "out-%s.json" % cmd)
            with open(out, "w") as f:
                f.write("the old output\n")
            p = st("trace", cmd, *inputs, "--out", out, timeout=60)
            check(p.returncode == rc and named in p.stderr,
                  "issue 13 item 17, trace %s on %s: exit %d naming %r, "
                  "got %d: %s" % (cmd, what, rc, named, p.returncode,
                                  p.stderr))
            check(open(out).read() == "the old output\n" and
                  not temporaries(d, os.path.basename(out)),
                  "issue 13 item 17, trace %s on %s replaces the output or "
                  "leaves a temporary: %r %s" % (
                      cmd, what, open(out).read()[:80],
                      temporaries(d, os.path.basename(out))))
    # the SIGSEGV of item 1: an empty file, exit 65 and not a crash
    out = os.path.join(d, "t.json")
    p = st("trace", "timeline", empty, "--out", out)
    check(p.returncode == 65 and not os.path.exists(out) and
          not temporaries(d, "t.json"),
          "issue 13 item 1, trace timeline of an empty .pfw dies with "
          "SIGSEGV and leaves .t.json.XXXXXX: %d %s %s"
          % (p.returncode, p.stderr, temporaries(d, "t.json")))
    # item 1: events that the filter all drops: a valid, empty timeline
    p = st("trace", "timeline", SMALL, "--filter", "cat=NONE", "--out", out)
    check(p.returncode == 0 and os.path.exists(out) and
          not temporaries(d, "t.json"),
          "issue 13 item 1, trace timeline --filter cat=NONE dies with "
          "SIGSEGV: %d %s" % (p.returncode, p.stderr))
    if os.path.exists(out):
        check(verify(out) == {} and x_events(out) == [] and
              json.load(open(out))["otherData"]["written"] == 0,
              "--filter cat=NONE: a Chrome trace with no slice")
    got, p = summary(SMALL, "--filter", "cat=NONE")
    check(got.get("events") == 0 and got.get("processes") == 0 and
          got.get("by_cat") == {},
          "summary --filter cat=NONE: a zero summary, exit 0: %s" % got)
    # a link '.' that is no trace name is not followed: no hang, exit 0
    p = st("trace", "timeline", dotloop, "--out", out, timeout=60)
    check(p.returncode == 0 and sum(verify(out).values()) == 12,
          "a directory holding 'loop -> .': its trace, the link left "
          "alone: %d %s" % (p.returncode, p.stderr))
    # an unreadable trace in a directory: 66 before anything
    if os.geteuid() != 0:
        locked = os.path.join(d, "locked")
        os.mkdir(locked)
        shutil.copy(SMALL, locked)
        os.chmod(os.path.join(locked, "small.pfw"), 0)
        with open(out, "w") as f:
            f.write("the old output\n")
        p = st("trace", "timeline", locked, "--out", out)
        check(p.returncode == 66 and "small.pfw" in p.stderr and
              open(out).read() == "the old output\n",
              "an unreadable trace: 66, the output left: %s" % p.stderr)


def test_span_and_meter(tmp):
    """Issue 16 item 6: a warning when the inputs' events lie more than a
    day apart (unrelated runs), computed here from the events; and a
    progress meter (on a terminal) that never goes backwards across the
    timeline's three passes."""
    spans = {}
    for path in (SMALL, OLD, NEW):
        evs = read_events(path)[0]
        xs = [e for e in evs]
        spans[path] = (min(e["ts"] for e in xs),
                       max(e["ts"] + e["dur"] for e in xs))
    for paths in ([SMALL, OLD], [OLD, NEW], [SMALL, OLD, NEW], [NEW]):
        order = sorted(paths, key=lambda q: spans[q][0])
        gap, end, pair = 86400 * 10 ** 6, None, None
        for q in order:
            if end is not None and spans[q][0] - end[0] > gap:
                gap, pair = spans[q][0] - end[0], (end[1], q)
            if end is None or spans[q][1] > end[0]:
                end = (spans[q][1], q)
        _, p = summary(*paths)
        said = "unrelated runs" in p.stderr
        check(said == (pair is not None), "span warning for %s: said %s, "
              "want %s: %s" % ([os.path.basename(q) for q in paths], said,
                              pair, p.stderr[-500:]))
        if pair:
            check(pair[0] in p.stderr and pair[1] in p.stderr and
                  p.stderr.index(pair[0]) < p.stderr.index(pair[1]),
                  "span warning names %s then %s: %s" % (pair[0], pair[1],
                                                        p.stderr[-500:]))
    # the meter: a trace big enough to take more than a second, the
    # timeline run on a pseudo-terminal (the meter shows only there)
    big = os.path.join(tmp, "big.pfw")
    with open(OLD) as f:
        lines = [x for x in f.read().splitlines() if x.strip() not in
                 ("[", "]", "")]
    with open(big, "w") as f:
        for i in range(500):
            f.write("\n".join(lines) + "\n")
    out = os.path.join(tmp, "big.json")
    pid, fd = os.forkpty()
    if pid == 0:
        os.environ["STREAMTIME_PROGRESS_DELAY"] = "0"
        os.execv(BIN, [BIN, "trace", "timeline", big, "--out", out,
                       "-j", "1"])
    text = b""
    while True:
        try:
            b = os.read(fd, 65536)
        except OSError:
            break
        if not b:
            break
        text += b
    _, status = os.waitpid(pid, 0)
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
          "meter: the timeline ran: %r" % text[-300:])
    pcts = [float(x) for x in re.findall(rb"trace timeline: +([0-9.]+)%",
                                         text)]
    check(len(pcts) >= 2, "meter: shown at least twice: %r" % text[-300:])
    check(all(a <= b for a, b in zip(pcts, pcts[1:])),
          "meter: never backwards: %s" % pcts)


def main():
    tmp = tempfile.mkdtemp(prefix="st-trace-")
    try:
        test_fixtures()
        test_jobs(tmp)
        test_corrupt(tmp)
        test_damaged(tmp)
        test_edges(tmp)
        test_groups_filters()
        test_timeline(tmp)
        test_timeline_lanes(tmp)
        test_review_edges(tmp)
        test_no_output_replaced(tmp)
        test_span_and_meter(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report("trace")


if __name__ == "__main__":
    sys.exit(main())
