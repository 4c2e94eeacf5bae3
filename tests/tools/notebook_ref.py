#!/usr/bin/env python3
"""An independent reference for the DFAnalyzer notebook's questions (issue 16).

Plain Python: each line of a .pfw / .pfw.gz through json.loads, no pandas,
nothing of streamtime.  It is the truth the tests of `trace events`,
`--group-by` and `trace compare` are held against.

Reading (the documented rules: docs/trace.md, include/streamtime/pfw.h):
  * lines: a UTF-8 BOM before the first is dropped; blanks and '\\r' at the
    ends and one trailing ',' are cut; empty, '[' and ']' lines skipped;
  * a line is corrupt when it is not JSON as jansson takes it (integers in
    64 bits, no NUL or lone surrogate in a string, no infinite real), not
    an object, or 'ph' or 'name' is not a string; other phases than X and
    M are skipped; an M event HH / FH / SH maps args.value (an integer or
    a string) to args.name (a string) from its line on, else it is
    corrupt; an X event needs a string 'cat' and integers (or strings of
    digits, or reals, rounded) pid, tid, ts, dur with 0 <= dur <= 2^53
    and |ts| <= 2^53, else it is corrupt;
  * host: args.hostname, else args.hhash through the HH map in force
    ("hhash:V" when unmapped); file: args.fname, else args.fhash (FH);
  * bytes: a read or write call (its name holds 'read' or 'write', not
    'readdir' or 'readlink'): args.ret when positive, times args.size for
    fread / fwrite; any other event: args.size, else args.image_size,
    when positive; None otherwise.
  * the gzip stream may be cut short: the lines before the cut count.

Keys (SPEC 5.12): process = (host, pid), thread = (host, pid, tid);
basename = the last component of the file, trailing slashes ignored ("/"
for slashes only, "" for ""); pattern = the basename with every run of
digits and '-' as one '*'; prefix:N = the path as written up to the end
of its Nth non-empty component (whole, less trailing slashes, when it has
no more than N).

The notebook's questions, per case (what `notebook_ref.py` prints, JSON):
  checkpoint   the largest per-thread sum of dur over the events whose
               name contains --checkpoint-name (default
               PyTorchCheckpointing.checkpoint), and that thread;
  dirs         per --dir NAME=DIR: the POSIX calls (cat POSIX) on files
               under DIR (the file is DIR, or starts with DIR and a '/'):
               the largest per-thread sum of dur, and their bytes (also in
               GiB, 2^30);
  total_bytes  the bytes of every event;
  patterns     per pattern (events with a file): count, dur and bytes,
               and the largest per-process sum of dur and of bytes;
  model_counts per name, the events whose file contains --model
               (default 'model');
  file_writes  per file, the events whose name contains 'write': count,
               dur, bytes.
Times are integers in microseconds (the *_us fields) and seconds.

usage: notebook_ref.py [--checkpoint-name S] [--dir NAME=DIR]...
                       [--model S] FILE...
       notebook_ref.py --metrics FILE --case NAME=PATH[,PATH...]...

With "by" (keys as per), a metric is {KEY: value}, computed as above over
the events of each distinct by key (KEY shown: see shown()); "events" and
"keys" do not change a metric's value.

The second form is `trace compare`'s (SPEC 5.12) computed plainly: each
metric {"name", "filter", "value", "per", "reduce"} selects the events
its filter keeps (a string or a list of them, all ANDed), adds up the
value (dur in us, bytes with None as 0, count 1) per distinct tuple of the
per keys (an event without a value of a key has None for it), and reduces
the per-key sums (max, min, sum, mean); no per: one key, the total; no
event selected: null.  Printed as `trace compare --json` prints it: dur in
seconds, bytes and counts as integers (mean: a real).  Paths are files
(a directory: its *.pfw and *.pfw.gz, sorted).
"""
import argparse
import json
import math
import os
import re
import sys
import zlib

INT64 = 2 ** 63
LIM = 2 ** 53


# ---- reading ---------------------------------------------------------------

def _constant(name):
    """NaN and Infinity are not JSON (Python's json takes them)."""
    raise ValueError(name)


def _odd(v):
    """A string the reader cannot hold: NUL or a lone surrogate (issue 24
    item 9: the line is corrupt only when a field it uses holds one)."""
    return isinstance(v, str) and (
        "\x00" in v or any(0xD800 <= ord(c) <= 0xDFFF for c in v))


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v):
    """An integer field: int, None when absent, ValueError otherwise."""
    if v is None:
        return None
    if _is_int(v):
        if not -INT64 <= v < INT64:
            raise ValueError(v)
        return v
    if isinstance(v, float):
        if not -9.2e18 < v < 9.2e18:
            raise ValueError(v)
        return int(math.copysign(math.floor(abs(v) + 0.5), v))
    if isinstance(v, str) and re.fullmatch(r"-?[0-9]{1,19}", v):
        x = int(v)
        if abs(x) >= INT64:
            raise ValueError(v)
        return x
    raise ValueError(v)


def _num_or_none(v):
    try:
        return _num(v)
    except ValueError:
        return None


def _hash_key(v):
    if _is_int(v):
        return str(v)
    if isinstance(v, str):
        return v
    return None


def _bytes(name, args):
    if ("read" in name or "write" in name) and "readdir" not in name \
            and "readlink" not in name:
        ret = _num_or_none(args.get("ret"))
        if ret is None or ret <= 0:
            return None
        if name in ("fread", "fwrite"):
            size = _num_or_none(args.get("size"))
            if size is not None and size > 0:
                b = ret * size
                return b if b < INT64 else None
        return ret
    for k in ("size", "image_size"):
        v = _num_or_none(args.get(k))
        if v is not None and v > 0:
            return v
    return None


def raw_lines(path):
    """(lines as bytes, damaged): a cut gzip stream gives the whole lines
    before the cut."""
    with open(path, "rb") as f:
        data = f.read()
    damaged = False
    if data[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out, rest = b"", data
        # members one after the other, as gzread does
        while rest:
            out += d.decompress(rest)
            if not d.eof:
                damaged = True
                out = out[:out.rfind(b"\n") + 1]
                break
            rest = d.unused_data
            if rest[:2] != b"\x1f\x8b":
                break
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        data = out
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines, damaged


def read_trace(path):
    """(events, corrupt line numbers, damaged): each event a dict with
    name, cat, host, file (None: none), pid, tid, ts, dur, bytes (None:
    none), line."""
    lines, damaged = raw_lines(path)
    maps, events, bad = {}, [], []
    for no, raw in enumerate(lines, 1):
        if no == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        line = raw.rstrip(b" \t\r")
        if line.endswith(b","):
            line = line[:-1]
        line = line.lstrip(b" \t")
        if line in (b"", b"[", b"]"):
            continue
        try:
            # every valid JSON line, numbers of any size (a real
            # beyond a double is inf) and strings with NUL or lone
            # surrogates included; only the fields used decide
            e = json.loads(line.decode("utf-8"),
                           parse_constant=_constant)
        except (ValueError, UnicodeDecodeError, RecursionError):
            bad.append(no)
            continue
        if not isinstance(e, dict) or not isinstance(e.get("ph"), str) \
                or not isinstance(e.get("name"), str) or \
                _odd(e["ph"]) or _odd(e["name"]):
            bad.append(no)
            continue
        ph, name = e["ph"], e["name"]
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if ph == "M":
            if name in ("HH", "FH", "SH"):
                k = _hash_key(args.get("value"))
                if not isinstance(args.get("name"), str) or k is None \
                        or _odd(args["name"]) or _odd(args["value"]):
                    bad.append(no)
                    continue
                maps[(name, k)] = args["name"]
            continue
        if ph != "X":
            continue
        if not isinstance(e.get("cat"), str) or _odd(e["cat"]) or \
                any(_odd(args.get(k))
                    for k in ("hostname", "fname", "hhash", "fhash")):
            bad.append(no)
            continue
        try:
            pid, tid, ts, dur = (_num(e.get(k))
                                 for k in ("pid", "tid", "ts", "dur"))
        except ValueError:
            bad.append(no)
            continue
        if None in (pid, tid, ts, dur) or dur < 0 or abs(ts) > LIM \
                or dur > LIM:
            bad.append(no)
            continue
        host = fname = None
        if isinstance(args.get("hostname"), str):
            host = args["hostname"]
        elif _hash_key(args.get("hhash")) is not None:
            k = _hash_key(args["hhash"])
            host = maps.get(("HH", k), "hhash:" + k)
        if isinstance(args.get("fname"), str):
            fname = args["fname"]
        elif _hash_key(args.get("fhash")) is not None:
            k = _hash_key(args["fhash"])
            fname = maps.get(("FH", k), "fhash:" + k)
        events.append(dict(name=name, cat=e["cat"], host=host, file=fname,
                           pid=pid, tid=tid, ts=ts, dur=dur,
                           bytes=_bytes(name, args), line=no))
    return events, bad, damaged


# ---- keys ------------------------------------------------------------------

def basename(path):
    s = path.rstrip("/")
    if not s:
        return "/" if path else ""
    return s[s.rfind("/") + 1:]


def pattern(path):
    return re.sub(r"[0-9-]+", "*", basename(path))


def prefix(path, n):
    comps = list(re.finditer(r"[^/]+", path))
    if len(comps) <= n:
        s = path.rstrip("/")
        return s if s or not path else "/"
    return path[:comps[n - 1].end()]


def process(e):
    return (e["host"], e["pid"])


def thread(e):
    return (e["host"], e["pid"], e["tid"])


def key_text(t):
    """A process or thread as the tool writes it: HOST:PID[:TID]."""
    return ":".join(["?" if t[0] is None else t[0]] + [str(x) for x in t[1:]])


# ---- --filter --------------------------------------------------------------

NUM_FIELDS = ("pid", "tid", "dur", "bytes", "ts")


def filter_terms(expr):
    """"TERM[,TERM...]" as (field, op, negated, value): FIELD [!] OP VALUE
    with OP one of = (equal), ~ (contains), ^ (starts with), $ (ends
    with), =~ (regular expression, Python's re.search: the tests use the
    part of the syntax POSIX ERE shares), and for the numbers < <= > >=."""
    out = []
    for t in expr.split(","):
        m = re.fullmatch(r"([a-z]+)(!?)(=~|<=|>=|[=~^$<>])(.*)", t, re.S)
        if not m:
            raise ValueError("bad filter term %r" % t)
        out.append((m.group(1), m.group(3), m.group(2) == "!", m.group(4)))
    return out


def filter_keep(e, terms):
    """Do all TERMS hold for event E?  The numbers compare as integers (an
    event without bytes matches no bytes term); basename and pattern are
    the file's; a field the event lacks (no host, no file) matches no
    term, so only a negated one lets it through."""
    for field, op, neg, val in terms:
        if field in ("basename", "pattern"):
            v = e["file"]
            if v is not None:
                v = basename(v) if field == "basename" else pattern(v)
        else:
            v = e[field]
        if field in NUM_FIELDS:
            n = int(val)
            hit = v is not None and v >= 0 if field == "bytes" else True
            hit = hit and {"=": v == n, "<": v < n, "<=": v <= n,
                           ">": v > n, ">=": v >= n}[op]
        elif v is None:
            hit = False
        elif op == "=":
            hit = v == val
        elif op == "~":
            hit = val in v
        elif op == "^":
            hit = v.startswith(val)
        elif op == "$":
            hit = v.endswith(val)
        else:
            hit = re.search(val, v) is not None
        if hit == neg:
            return False
    return True


# ---- the notebook ----------------------------------------------------------

def under(path, d):
    d = d.rstrip("/") or "/"
    return path == d or path.startswith(d if d == "/" else d + "/")


def max_by(events, unit, value):
    """The largest per-UNIT sum of VALUE (None values count 0), and the
    unit; (0, None) when there is no event."""
    sums = {}
    for e in events:
        sums[unit(e)] = sums.get(unit(e), 0) + (value(e) or 0)
    if not sums:
        return 0, None
    best = max(sums.values())
    return best, min((k for k, v in sums.items() if v == best),
                     key=lambda k: key_text(k))


def notebook(events, checkpoint_name, dirs, model):
    out = {"events": len(events)}
    ck = [e for e in events if checkpoint_name in e["name"]]
    v, who = max_by(ck, thread, lambda e: e["dur"])
    out["checkpoint"] = {"name_contains": checkpoint_name, "events": len(ck),
                         "max_thread_dur_us": v, "max_thread_dur_s": v / 1e6,
                         "thread": key_text(who) if who else None}
    out["dirs"] = {}
    for name, d in dirs:
        sel = [e for e in events if e["cat"] == "POSIX" and
               e["file"] is not None and under(e["file"], d)]
        v, who = max_by(sel, thread, lambda e: e["dur"])
        b = sum(e["bytes"] or 0 for e in sel)
        out["dirs"][name] = {"dir": d, "events": len(sel),
                             "max_thread_dur_us": v,
                             "max_thread_dur_s": v / 1e6,
                             "thread": key_text(who) if who else None,
                             "bytes": b, "gib": b / 2 ** 30}
    out["total_bytes"] = sum(e["bytes"] or 0 for e in events)
    pats = {}
    for e in events:
        if e["file"] is not None:
            pats.setdefault(pattern(e["file"]), []).append(e)
    out["patterns"] = {}
    for p, evs in sorted(pats.items()):
        md, _ = max_by(evs, process, lambda e: e["dur"])
        mb, _ = max_by(evs, process, lambda e: e["bytes"])
        out["patterns"][p] = {
            "count": len(evs), "dur_us": sum(e["dur"] for e in evs),
            "bytes": sum(e["bytes"] or 0 for e in evs),
            "max_process_dur_us": md, "max_process_bytes": mb}
    counts = {}
    for e in events:
        if e["file"] is not None and model in e["file"]:
            counts[e["name"]] = counts.get(e["name"], 0) + 1
    out["model_counts"] = dict(sorted(counts.items()))
    writes = {}
    for e in events:
        if e["file"] is not None and "write" in e["name"]:
            w = writes.setdefault(e["file"], {"count": 0, "dur_us": 0,
                                              "bytes": 0})
            w["count"] += 1
            w["dur_us"] += e["dur"]
            w["bytes"] += e["bytes"] or 0
    out["file_writes"] = dict(sorted(writes.items()))
    return out


# ---- trace compare's metrics ------------------------------------------------

def key_value(e, key):
    """The value of KEY (SPEC 5.12) for event E; None when it has none."""
    f = e["file"]
    if key == "host":
        return e["host"]
    if key == "pid":
        return process(e)
    if key == "thread":
        return thread(e)
    if key in ("name", "cat", "file"):
        return e[key]
    if key == "basename":
        return None if f is None else basename(f)
    if key == "pattern":
        return None if f is None else pattern(f)
    if key.startswith("prefix:"):
        return None if f is None else prefix(f, int(key[7:]))
    if key == "phase":
        return None
    raise ValueError("unknown key %r" % key)


def keys_of(v):
    """A metric's per / by: "a,b" or ["a", "b"] -> ["a", "b"]."""
    if v is None or v == "":
        return []
    return v.split(",") if isinstance(v, str) else list(v)


def escaped(t, comma=False):
    """T's escaped text (include/streamtime/text.h): a backslash doubled,
    a control character (U+0000-U+001F, U+007F-U+009F) as \\u00XX, with
    COMMA a ',' as \\, too.  (A str holds no byte outside UTF-8.)"""
    out = []
    for c in t:
        if c == "\\" or (comma and c == ","):
            out.append("\\" + c)
        elif ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f:
            out.append("\\u%04x" % ord(c))
        else:
            out.append(c)
    return "".join(out)


def shown(values, keys):
    """A by key as trace compare shows a row: each value as text (pid and
    thread HOST:PID[:TID], no value "(none)") in its escaped text, joined
    by ',' with ',' escaped too when there are several."""
    out = []
    for v, k in zip(values, keys):
        if k in ("pid", "thread"):
            t = key_text(v)
        else:
            t = "(none)" if v is None else v
        out.append(escaped(t, len(keys) > 1))
    return ",".join(out)


def selected(events, m):
    """The events metric M's filter keeps, in order."""
    flt = m.get("filter", [])
    terms = []
    for x in [flt] if isinstance(flt, str) else flt:
        terms += filter_terms(x)
    return [e for e in events if filter_keep(e, terms)]


def metric(events, m):
    """Metric M (a dict as in the metrics file) over EVENTS: its value as
    trace compare --json writes it, None when no event is selected; with
    "by", {shown key: value} over each by key's events."""
    by = keys_of(m.get("by"))
    if by:
        groups = {}
        for e in selected(events, m):
            groups.setdefault(shown([key_value(e, k) for k in by], by),
                              []).append(e)
        one = dict(m)
        del one["by"]
        one.pop("filter", None)
        return {k: metric(v, one) for k, v in groups.items()}
    per = keys_of(m.get("per"))
    sums = {}
    for e in selected(events, m):
        k = tuple(key_value(e, p) for p in per)
        v = {"dur": e["dur"], "count": 1, "bytes": e["bytes"] or 0}[m["value"]]
        sums[k] = sums.get(k, 0) + v
    if not sums:
        return None
    red = m.get("reduce", "sum")
    vals = list(sums.values())
    if red == "mean":
        r = sum(vals) / len(vals)
    else:
        r = {"max": max, "min": min, "sum": sum}[red](vals)
    return r / 1e6 if m["value"] == "dur" else r


def case_files(paths):
    out = []
    for p in paths.split(","):
        if os.path.isdir(p):
            out += sorted(os.path.join(p, n) for n in os.listdir(p)
                          if n.endswith(".pfw") or n.endswith(".pfw.gz"))
        else:
            out.append(p)
    return out


def compare(metrics, cases):
    """CASES: [(name, [files])] -> trace compare's JSON (a dict)."""
    out = {"cases": [c for c, _ in cases], "metrics": []}
    evs = {}
    for c, files in cases:
        evs[c] = []
        for f in files:
            evs[c] += read_trace(f)[0]
    for m in metrics:
        out["metrics"].append({"name": m["name"], "values": {
            c: metric(evs[c], m) for c, _ in cases}})
    return out


def main(argv):
    ap = argparse.ArgumentParser(description="the DFAnalyzer notebook's "
                                 "answers, computed plainly")
    ap.add_argument("--checkpoint-name",
                    default="PyTorchCheckpointing.checkpoint")
    ap.add_argument("--dir", action="append", default=[],
                    metavar="NAME=DIR")
    ap.add_argument("--model", default="model")
    ap.add_argument("--metrics", metavar="FILE")
    ap.add_argument("--case", action="append", default=[],
                    metavar="NAME=PATH[,PATH...]")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    if a.metrics:
        with open(a.metrics) as f:
            metrics = json.load(f)
        cases = [(c.split("=", 1)[0], case_files(c.split("=", 1)[1]))
                 for c in a.case]
        json.dump(compare(metrics, cases), sys.stdout, indent=1,
                  ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    if not a.files:
        ap.error("FILE... or --metrics")
    dirs = []
    for d in a.dir:
        if "=" not in d:
            ap.error("--dir NAME=DIR")
        dirs.append(tuple(d.split("=", 1)))
    events, bad, damaged = [], 0, []
    for f in a.files:
        ev, b, dmg = read_trace(f)
        events += ev
        bad += len(b)
        if dmg:
            damaged.append(f)
    out = notebook(events, a.checkpoint_name, dirs, a.model)
    out["bad_lines"] = bad
    out["damaged"] = damaged
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
