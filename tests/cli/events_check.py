#!/usr/bin/env python3
"""`streamtime trace events` against an independent reading of the traces.

Every row the tool writes, CSV and JSON lines both parsed back, is held
against tests/tools/notebook_ref.py's reading (json.loads per line, the
hash maps of the new format resolved, no streamtime code), with the
derived keys (basename, pattern, prefix:N, thread) computed there in
plain Python and start/end by Python's datetime.  Cases: the three
fixtures alone, together and as a directory, standard input, --filter
(every operator, negation, pid), --keys, --limit, a file name full of
control characters, quotes, commas and UTF-8 that must come back exactly
(the notebook's "\\u0001" line), corrupt lines (named, never fatal), the
exit codes (65 empty or cut .gz, 66 missing, 73, 64 usage) with --out left
as it was, and stdout streaming.  A seed-layout system-trace directory
written here: a row per call, name, pid, bytes and file as written, times
within the time-align trace's bound, --date required (64).

usage: events_check.py STREAMTIME FIXTURES
"""
import csv
import datetime
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
import notebook_ref as ref  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
DF = os.path.join(os.path.abspath(sys.argv[2]), "dftracer")
OLD = os.path.join(DF, "posix-old-format.pfw")
SMALL = os.path.join(DF, "small.pfw")
NEW = os.path.join(DF, "cm1-rank0-new-format.pfw.gz")
from checks import check, report  # noqa: E402
COLS = ["ts", "dur", "start", "end", "host", "pid", "tid", "name", "cat",
        "file", "bytes"]
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def st(*args, stdin=None):
    return subprocess.run([BIN, *args], capture_output=True,
                          input=stdin if stdin is not None else b"",
                          timeout=240)


# ---- the reference ---------------------------------------------------------

def utc(us):
    return (EPOCH + datetime.timedelta(microseconds=us)).isoformat()


def key_value(e, key):
    if key == "thread":
        return ref.key_text(ref.thread(e))
    if key == "phase" or e["file"] is None:
        return None
    if key == "basename":
        return ref.basename(e["file"])
    if key == "pattern":
        return ref.pattern(e["file"])
    if key.startswith("prefix:"):
        return ref.prefix(e["file"], int(key[7:]))
    raise KeyError(key)


def expected_rows(paths, keys=("basename", "pattern"), keep=None):
    rows = []
    for p in paths:
        for e in ref.read_trace(p)[0]:
            if keep and not keep(e):
                continue
            r = dict(ts=e["ts"], dur=e["dur"], start=utc(e["ts"]),
                     end=utc(e["ts"] + e["dur"]), host=e["host"],
                     pid=e["pid"], tid=e["tid"], name=e["name"],
                     cat=e["cat"], file=e["file"], bytes=e["bytes"])
            for k in keys:
                r[k] = key_value(e, k)
            rows.append(r)
    return rows


def unescape(s):
    """Undo the two escapes of the CSV cells: \\\\ and \\u00XX."""
    return re.sub(r"\\(\\|u([0-9a-f]{4}))",
                  lambda m: "\\" if m.group(1) == "\\"
                  else chr(int(m.group(2), 16)), s)


def parse_csv(text, keys):
    """Rows of the tool's CSV as the reference's dicts (empty: None)."""
    lines = text.split("\n")
    check(lines[-1] == "", "csv: ends with a newline")
    rd = list(csv.reader(io.StringIO(text)))
    check(rd and rd[0] == COLS + list(keys),
          "csv header %r" % (rd[0] if rd else None))
    check(len(rd) == len(lines) - 1,
          "csv: every row is one line (%d rows, %d lines)" %
          (len(rd), len(lines) - 1))
    out = []
    for row in rd[1:]:
        r = {}
        for k, v in zip(COLS + list(keys), row):
            if v == "":
                r[k] = None
            elif k in ("ts", "dur", "pid", "tid", "bytes"):
                r[k] = int(v)
            else:
                r[k] = unescape(v)
        out.append(r)
    return out


def parse_jsonl(text, keys):
    out = [json.loads(line) for line in text.split("\n")[:-1]]
    bad = [list(o) for o in out if list(o) != COLS + list(keys)]
    check(not bad, "jsonl keys %r" % bad[:1])
    return out


def empty_to_none(rows):
    """CSV cannot tell "" from none: the reference's "" as None."""
    return [{k: (None if v == "" else v) for k, v in r.items()}
            for r in rows]


def same_rows(got, want, what):
    check(len(got) == len(want), "%s: %d rows, want %d" %
          (what, len(got), len(want)))
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    check(not bad, "%s: %d rows differ, first %s: got %r want %r" %
          (what, len(bad), bad[:1],
           got[bad[0]] if bad else None, want[bad[0]] if bad else None))


def run_both(args, want, keys, what, csv_none=True):
    """The rows of `trace events ARGS` in both formats against WANT."""
    keyarg = ["--keys", ",".join(keys)] if keys is not None else []
    keys = ("basename", "pattern") if keys is None else keys
    r = st("trace", "events", *args, *keyarg)
    check(r.returncode == 0, "%s csv: rc %d %s" % (what, r.returncode,
                                                   r.stderr[-300:]))
    same_rows(parse_csv(r.stdout.decode(), keys),
              empty_to_none(want) if csv_none else want, what + " csv")
    r = st("trace", "events", *args, *keyarg, "--format", "jsonl")
    check(r.returncode == 0, "%s jsonl: rc %d" % (what, r.returncode))
    same_rows(parse_jsonl(r.stdout.decode(), keys), want, what + " jsonl")


# ---- cases -----------------------------------------------------------------

def fixtures():
    for p in (SMALL, OLD, NEW):
        run_both([p], expected_rows([p]), None, os.path.basename(p))
    allp = [NEW, OLD, SMALL]
    run_both(allp, expected_rows(allp), None, "three fixtures")
    # a directory: its traces in name order
    run_both([DF], expected_rows(sorted(
        os.path.join(DF, f) for f in os.listdir(DF)
        if f.endswith((".pfw", ".pfw.gz")))), None, "directory")
    keys = ("thread", "prefix:2", "prefix:9", "basename", "pattern", "phase")
    run_both([OLD, NEW], expected_rows([OLD, NEW], keys), keys,
             "keys " + ",".join(keys))
    run_both([SMALL], expected_rows([SMALL], ()), (), "no keys")
    # standard input, gzip
    with open(NEW, "rb") as f:
        r = st("trace", "events", "-", "--format", "jsonl", stdin=f.read())
    check(r.returncode == 0, "stdin: rc %d" % r.returncode)
    same_rows(parse_jsonl(r.stdout.decode(), ("basename", "pattern")),
              expected_rows([NEW]), "stdin")


def filters():
    for exprs in (["cat=POSIX"], ["cat=POSIX,name~write"],
                  ["file^/p/lustre1", "name!~stat"], ["name=read"],
                  ["pid=1338896"], ["tid!=2677792"], ["host~corona"],
                  ["file!^/usr", "cat!=dftracer"], ["name=nothing"],
                  # issue 16 item 2: ends-with, basename, pattern, regular
                  # expressions, numbers
                  ["file$.dat"], ["basename^cm1out_0", "cat=POSIX"],
                  ["pattern=cm1out_*_*_s.dat"],
                  ["pattern~*"], ["name=~^(p?read|p?write)(64)?$"],
                  ["name!=~^(open|close)", "cat=POSIX"],
                  ["dur>100"], ["dur<=3,bytes>0"], ["bytes>=4096"],
                  ["ts<1700000000000000"], ["pid!=1338896,tid>0"]):
        terms = [t for x in exprs for t in ref.filter_terms(x)]
        args = [a for x in exprs for a in ("--filter", x)]
        allp = [SMALL, OLD, NEW]
        want = expected_rows(allp, keep=lambda e: ref.filter_keep(e, terms))
        run_both(allp + args, want, None, "filter %s" % exprs)
        if exprs == ["cat=POSIX,name~write"]:
            check(len(want) > 100, "the write filter keeps rows")
    # --limit: the first N in order; the rest is not read
    want = expected_rows([OLD, NEW])[:1500]
    run_both([OLD, NEW, "--limit", "1500"], want, None, "limit 1500")
    r = st("trace", "events", OLD, "--limit", "1", "--format", "jsonl")
    check(r.returncode == 0 and r.stdout.count(b"\n") == 1, "limit 1")


# a file name with every kind of awkward byte (the notebook's \\u0001 line)
NASTY = ("/d/a\u0001b\\c,\"q\" \tend\n\r\u007f\u0085\u00e9t\u00e9-01"
         "_\u4e2d\u6587.npz")


def nasty(tmp):
    p = os.path.join(tmp, "nasty.pfw")
    evs = [
        {"name": "write", "cat": "POSIX", "pid": 1, "tid": 2, "ts": 10,
         "dur": 5, "ph": "X",
         "args": {"hostname": "h,1", "fname": NASTY, "ret": 7}},
        {"name": "open\u0001", "cat": " c ", "pid": 1, "tid": 2, "ts": 0,
         "dur": 0, "ph": "X", "args": {"hostname": "", "fname": ""}},
        {"name": "x\\u0001y", "cat": "\"q\"", "pid": -1, "tid": 0,
         "ts": -5, "dur": 3, "ph": "X", "args": {}},
    ]
    with open(p, "w") as f:
        for e in evs:
            f.write(json.dumps(e) + "\n")
    want = expected_rows([p])
    check(want[0]["file"] == NASTY, "the reference reads the nasty name")
    keys = ("basename", "pattern")
    r = st("trace", "events", p)
    text = r.stdout.decode()
    check(r.returncode == 0, "nasty: rc %d %s" % (r.returncode, r.stderr))
    check("a\\u0001b" in text and "\\u007f\\u0085" in text and
          "\\u000a" in text and "b\\\\c" in text,
          "nasty csv: control characters readable as \\u00XX: %r" % text)
    check(not re.search("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]", text),
          "nasty csv: no raw control character")
    got = parse_csv(text, keys)
    # "" is none in CSV; the two "" of the second event
    same_rows(got, empty_to_none(want), "nasty csv round trip")
    check(got and got[0]["file"] == NASTY, "nasty csv: the name comes back")
    r = st("trace", "events", p, "--format", "jsonl")
    text = r.stdout.decode()
    check(text.count("\n") == 3, "nasty jsonl: a line per event")
    check(not re.search("[\x00-\x1f\x7f\x80-\x9f]", text.replace("\n", "")),
          "nasty jsonl: no raw control character")
    same_rows(parse_jsonl(text, keys), want, "nasty jsonl round trip")
    check("\u4e2d\u6587" in text, "nasty jsonl: UTF-8 kept as it is")


def corrupt(tmp):
    p = os.path.join(tmp, "corrupt.pfw")
    good = json.dumps({"name": "read", "cat": "POSIX", "pid": 1, "tid": 1,
                       "ts": 1, "dur": 1, "ph": "X", "args": {"ret": 3}})
    lines = [good]
    for i in range(12):
        lines.append('{"name": "read\x01", "ph": "X"}' if i % 2 else
                     '{"name": "read", "cat": "POSIX", "ph": "X", "pid": 1}')
    lines.append(good)
    with open(p, "w") as f:
        f.write("\n".join(lines) + "\n")
    ref_ev, ref_bad, _ = ref.read_trace(p)
    check(len(ref_ev) == 2 and len(ref_bad) == 12, "reference: corrupt")
    r = st("trace", "events", p)
    err = r.stderr.decode()
    check(r.returncode == 0, "corrupt lines are not fatal: rc %d" %
          r.returncode)
    named = re.findall(r"corrupt\.pfw:(\d+): corrupt line skipped", err)
    check([int(x) for x in named] == ref_bad[:10],
          "the first ten corrupt lines named: %s" % named)
    check("2 more corrupt lines skipped (12 in all)" in err,
          "the rest counted: %s" % err[-200:])
    same_rows(parse_csv(r.stdout.decode(), ("basename", "pattern")),
              empty_to_none(expected_rows([p])), "corrupt: the good rows")


def exits(tmp):
    out = os.path.join(tmp, "out.csv")
    with open(out, "w") as f:
        f.write("old\n")
    empty = os.path.join(tmp, "empty.pfw")
    open(empty, "w").close()
    cut = os.path.join(tmp, "cut.pfw.gz")
    with open(NEW, "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])

    def untouched(what):
        with open(out) as f:
            check(f.read() == "old\n", "%s: --out left as it was" % what)
        check(sorted(os.listdir(tmp)) ==
              ["cut.pfw.gz", "empty.pfw", "out.csv"],
              "%s: no temporary left: %s" % (what, os.listdir(tmp)))

    r = st("trace", "events", SMALL, empty, "--out", out)
    check(r.returncode == 65, "empty input: rc %d" % r.returncode)
    check(b"empty.pfw: not a DFTracer trace: it is empty" in r.stderr,
          "empty named: %r" % r.stderr)
    untouched("empty input")
    r = st("trace", "events", cut, "--out", out)
    check(r.returncode == 65, "cut gzip: rc %d" % r.returncode)
    untouched("cut gzip")
    r = st("trace", "events", SMALL, os.path.join(tmp, "missing.pfw"),
           "--out", out)
    check(r.returncode == 66 and b"missing.pfw" in r.stderr,
          "missing input: rc %d %r" % (r.returncode, r.stderr))
    untouched("missing input")
    r = st("trace", "events", SMALL, "--out",
           os.path.join(tmp, "no-dir", "x.csv"))
    check(r.returncode == 73, "output cannot be created: rc %d" %
          r.returncode)
    # stdout streams: the first input's rows are out before the fault
    r = st("trace", "events", SMALL, empty)
    check(r.returncode == 65, "stdout, empty second input: rc %d" %
          r.returncode)
    check(r.stdout.count(b"\n") == 1 + len(ref.read_trace(SMALL)[0]),
          "stdout has the rows before the fault")
    check(b"standard output got the first" in r.stderr,
          "stdout: says the output is incomplete")
    # success: the file is written whole
    r = st("trace", "events", SMALL, "--out", out, "--format", "jsonl")
    check(r.returncode == 0 and r.stdout == b"", "--out: rc %d" %
          r.returncode)
    with open(out) as f:
        check(parse_jsonl(f.read(), ("basename", "pattern")) ==
              expected_rows([SMALL]), "--out FILE holds the rows")
    # a full disk: 74, said with its cause
    if os.path.exists("/dev/full"):
        r = st("trace", "events", OLD, "--out", "/dev/full")
        check(r.returncode == 74 and b"cannot write /dev/full: No space"
              in r.stderr, "--out /dev/full: rc %d %r" %
              (r.returncode, r.stderr))
        with open("/dev/full", "wb") as full:
            p = subprocess.run([BIN, "trace", "events", OLD, "--format",
                                "jsonl"], stdout=full,
                               stderr=subprocess.PIPE, timeout=60)
        check(p.returncode == 74 and p.stderr.count(b"\n") == 1 and
              b"standard output: No space" in p.stderr,
              "stdout on a full disk: rc %d %r" % (p.returncode, p.stderr))
    # only a header when the filter keeps nothing
    r = st("trace", "events", SMALL, "--filter", "name=none")
    check(r.returncode == 0 and r.stdout.decode() ==
          ",".join(COLS + ["basename", "pattern"]) + "\n",
          "no event kept: the header alone")


def usage():
    for args, want in ((["--keys", "patern"], "did you mean 'pattern'"),
                       (["--keys", "pid"], "a column already"),
                       (["--keys", "basename,"], "an empty key"),
                       (["--keys", "prefix:0"], "1-64"),
                       (["--format", "xml"], "--format"),
                       (["--limit", "0"], "--limit"),
                       (["--filter", "size=3"], "--filter"),
                       # issue 16 item 2: a malformed filter is 64, not a
                       # silent zero
                       (["--filter", "cat==POSIX"],
                        "did you mean 'cat=POSIX'"),
                       (["--filter", "name=~("], "regular expression"),
                       (["--filter", "dur>1.5"], "integer"),
                       (["--out", ""], "--out")):
        r = st("trace", "events", SMALL, *args)
        check(r.returncode == 64 and want.encode() in r.stderr and
              r.stdout == b"", "usage %s: rc %d %r" %
              (args, r.returncode, r.stderr))
    r = st("trace", "events")
    check(r.returncode == 64, "no file: rc %d" % r.returncode)


def systrace(tmp):
    """trace events on a seed-layout directory written here: a row per
    call, its start and end computed here from the bpftrace columns
    (TIMESTAMP - LAT .. TIMESTAMP, nsecs since boot) and the time-align
    trace (the offset of nsecs to UTC is bounded within the second that
    the printed time of day names; the rows must fall within it)."""
    d = os.path.join(tmp, "seed")
    os.makedirs(d)
    # nsecs 5e9 printed 10:00:00 on 2026-03-08 (UTC): UTC = nsecs + off,
    # off in [10:00:00 - 5 s, 10:00:01 - 5 s + 10 ms]
    day = datetime.datetime(2026, 3, 8, tzinfo=datetime.timezone.utc)
    lo_off = int((day + datetime.timedelta(hours=10)).timestamp() *
                 10**6) - 5 * 10**6
    with open(os.path.join(d, "trace_time_align.out"), "w") as f:
        f.write("TIMESTAMP          TIME\n")
        for k in range(3):
            f.write("%-18d 10:00:%02d\n" % (5 * 10**9 + k * 10**9, k))
    calls = []   # (name, pid, fd, ret, start_ns, end_ns, file)
    for name, fname in (("read", "trace_read.out"),
                        ("write", "trace_write.out")):
        with open(os.path.join(d, fname), "w") as f:
            f.write("%-18s %-8s %-5s %-12s %-12s %s\n" % (
                "TIMESTAMP", "PID", "FD", "RET (B)", "LAT(ns)", "FILENAME"))
            for i in range(7 if name == "read" else 4):
                end = 5 * 10**9 + 250 * 10**6 * i + 1234 + (name == "write")
                lat = 100000 + 1000 * i
                ret = 4096 * (i + 1) if name == "read" else 512
                path = "/data/%s file %d.bin" % (name, i)
                pid = 300 + i % 2
                f.write("%-18d %-8d %-5d %-12d %-12d %s\n" % (
                    end, pid, 3 + i, ret, lat, path))
                calls.append((name, pid, ret, end - lat, end, path))
    r = st("trace", "events", d, "--date", "2026-03-08", "--tz", "UTC",
           "--format", "jsonl", "--keys", "")
    check(r.returncode == 0, "trace events on a seed-layout directory: "
          "rc %d %s" % (r.returncode, r.stderr.decode(errors="replace")))
    rows = [json.loads(l) for l in r.stdout.decode().splitlines()]
    check(len(rows) == len(calls), "system traces: a row per call: %d rows, "
          "%d calls written" % (len(rows), len(calls)))
    got = sorted((e["name"], e["pid"], e["bytes"], e["file"]) for e in rows)
    want = sorted((c[0], c[1], c[2], c[5]) for c in calls)
    check(got == want, "system traces: name, pid, bytes, file of each call: "
          "%s vs %s" % (got, want))
    off = None
    for e in rows:
        c = [c for c in calls if c[5] == e["file"]][0]
        # the offset this row implies, from its start and from its end
        o1 = e["ts"] - c[3] // 1000
        o2 = e["ts"] + e["dur"] - c[4] // 1000
        check(abs(o1 - o2) <= 1 and lo_off - 1 <= o1 <= lo_off + 10**6 +
              10**4 + 1, "system traces: %s within the time-align bound: "
              "offset %d, allowed [%d, %d]" % (e["file"], o1, lo_off,
                                               lo_off + 1010000))
        check(e["start"] == utc(e["ts"]), "system traces: start of %s" %
              e["file"])
        off = o1 if off is None else off
        check(abs(o1 - off) <= 1, "system traces: one offset for all rows")
    r = st("trace", "events", d, "--tz", "UTC")
    check(r.returncode == 64 and b"--date" in r.stderr,
          "system traces without --date: 64 naming it: rc %d" %
          r.returncode)
    r = st("trace", "events", d, "--date", "2026-03-08", "--filter",
           "name=write")
    check(r.returncode == 0 and len(r.stdout.decode().splitlines()) == 5,
          "system traces --filter name=write: the header and 4 rows: %r" %
          r.stdout[:300])


def main():
    if not os.path.isdir(DF):
        print("events_check: FAIL: no fixtures at %s" % DF, file=sys.stderr)
        return 1
    tmp = tempfile.mkdtemp(prefix="st-events-")
    try:
        fixtures()
        filters()
        nasty(tmp)
        corrupt(tmp)
        os.makedirs(os.path.join(tmp, "x"))
        exits(os.path.join(tmp, "x"))
        usage()
        systrace(tmp)
    finally:
        shutil.rmtree(tmp)
    return report("events_check")


if __name__ == "__main__":
    sys.exit(main())
