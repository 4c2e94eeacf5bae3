#!/usr/bin/env python3
"""Names whatever their bytes (issue 24 items 5, 6 and 14c): every output
valid UTF-8 JSON that Python's json and jansson both read, two names
never one, the exact bytes recoverable, one line per row of a table.

The rule (include/streamtime/text.h, docs/trace.md "Names whatever their bytes"):
a name's escaped text writes a backslash "\\\\", a control character
"\\u00XX", a byte outside valid UTF-8 "\\xHH"; CSV cells, text tables and
keys hold it; a JSON string value holds the name itself when it is UTF-8,
else its escaped text with NAME_hex beside it.  unescape() below undoes
the escapes independently of the tool.

System traces are written as the seed's trace_read.bt (jovonho/
mlperf-traces, HEAD) prints them: header printf("%-17s %-6s %-4s %-12s
%-12s %s\\n", "TIMESTAMP", "PID", "FD", "RET (B)", "LAT(ns)", "FILENAME"),
rows "%-17lu %-6d %-4d %-12lu %-12lu %s\\n" with the dentry's name as
bpftrace's str() gives it: its bytes as they are.  The expected groups are
counted here from the rows written.

usage: names_check.py STREAMTIME JSON_STRINGS
"""
import csv
import io
import json
import os
import subprocess
import sys

from checks import check, run_in_tmp

BIN = os.path.abspath(sys.argv[1])
JSTR = os.path.abspath(sys.argv[2])


def st(*args):
    return subprocess.run([BIN, *args], capture_output=True, timeout=120)


def unescape(t):
    """The bytes of escaped text T (a str); None when it is not one."""
    try:
        return unescape_or_raise(t)
    except (ValueError, IndexError):
        return None


def unescape_or_raise(t):
    out, i = bytearray(), 0
    while i < len(t):
        c = t[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
        elif t[i + 1] in "\\,":
            out += t[i + 1].encode()
            i += 2
        elif t[i + 1] == "x":
            out.append(int(t[i + 2:i + 4], 16))
            i += 4
        elif t[i + 1] == "u":
            out += chr(int(t[i + 2:i + 6], 16)).encode("utf-8")
            i += 6
        else:
            raise ValueError("bad escape in %r" % t)
    return bytes(out)


def value_bytes(obj, key):
    """The bytes of string member KEY of OBJ: its _hex when there is one,
    else the string itself (UTF-8)."""
    if key + "_hex" in obj:
        return bytes.fromhex(obj[key + "_hex"])
    return obj[key].encode("utf-8", "surrogatepass")


def py_strings(v, acc):
    if isinstance(v, str):
        acc.append(v.encode("utf-8").hex())
    elif isinstance(v, list):
        for x in v:
            py_strings(x, acc)
    elif isinstance(v, dict):
        for k, x in v.items():
            acc.append(k.encode("utf-8").hex())
            py_strings(x, acc)
    return acc


def both_read(path, mode, what):
    """Python's json and jansson (tests/tools/json_strings) read PATH
    (a document, or JSON lines) and find the same strings; Python's
    reading, or None."""
    with open(path, "rb") as f:
        raw = f.read()
    try:
        docs = [json.loads(raw)] if mode == "doc" else \
            [json.loads(line) for line in raw.splitlines()]
    except (UnicodeDecodeError, ValueError) as e:
        check(False, "%s: Python's json refuses it: %s" % (what, e))
        return None
    r = subprocess.run([JSTR, mode, path], capture_output=True)
    check(r.returncode == 0, "%s: jansson refuses it: %s" %
          (what, r.stderr.decode(errors="replace")))
    ours = sorted(r.stdout.decode().split("\n")[:-1])
    theirs = sorted(s for d in docs for s in py_strings(d, []))
    check(ours == theirs, "%s: jansson and Python read different strings"
          " (%r)" % (what, set(ours) ^ set(theirs)))
    return docs


READ_HEAD = b"%-17s %-6s %-4s %-12s %-12s %s\n" % (
    b"TIMESTAMP", b"PID", b"FD", b"RET (B)", b"LAT(ns)", b"FILENAME")


def seed_read_trace(d, names):
    """trace_read.out in D as the seed's trace_read.bt prints it: a call
    per name, RET 10 * (i + 1)."""
    os.makedirs(d)
    with open(os.path.join(d, "trace_read.out"), "wb") as f:
        f.write(b"Attaching 4 probes...\n" + READ_HEAD)
        for i, n in enumerate(names):
            f.write(b"%-17d %-6d %-4d %-12d %-12d %s\n" % (
                1000000000 + 1000 * i, 7, 3, 10 * (i + 1), 100, n))


def expected_groups(names):
    g = {}
    for i, n in enumerate(names):
        c, b = g.get(n, (0, 0))
        g[n] = (c + 1, b + 10 * (i + 1))
    return g


def check_groups(tmp, d, names, what):
    """--group-by file --json: every name its own group, counts and
    bytes as written, key and keys/keys_hex giving the bytes."""
    out = os.path.join(tmp, what + ".json")
    r = st("trace", "summary", d, "--group-by", "file", "--json", "--out",
           out)
    check(r.returncode == 0, "%s: exit %d %s" % (what, r.returncode,
                                                  r.stderr))
    docs = both_read(out, "doc", what)
    if not docs:
        return
    got = {}
    for key, g in docs[0]["groups"].items():
        raw = unescape(key)
        k = g["keys"][0]
        keyb = bytes.fromhex(g["keys_hex"][0]) if "keys_hex" in g \
            else k.encode("utf-8")
        check(keyb == raw, "%s: group %r: keys gives %r" % (what, key, keyb))
        got[raw] = (g["count"], g["bytes"])
    check(got == expected_groups(names), "%s: groups %r, expected %r" %
          (what, got, expected_groups(names)))


def check_compare(tmp, d, names, what):
    """trace compare "by":"file": a row per name, count and bytes."""
    mf = os.path.join(tmp, what + ".metrics.json")
    with open(mf, "w") as f:
        json.dump([{"name": "calls", "value": "count", "by": "file"},
                   {"name": "bytes", "value": "bytes", "by": "file"}], f)
    out = os.path.join(tmp, what + ".compare.json")
    r = st("trace", "compare", "--metrics", mf, "--case", "A=" + d,
           "--json", "--out", out)
    check(r.returncode == 0, "%s: exit %d %s" % (what, r.returncode,
                                                  r.stderr))
    docs = both_read(out, "doc", what)
    if not docs:
        return
    m = {x["name"]: x["values"]["A"] for x in docs[0]["metrics"]}
    got = {unescape(k): (v, m["bytes"].get(k)) for k, v in
           m["calls"].items()}
    check(got == expected_groups(names), "%s: rows %r, expected %r" %
          (what, got, expected_groups(names)))


def check_events(tmp, d, names, what):
    """trace events: JSON lines both readers read, the bytes from file
    (and file_hex); CSV valid UTF-8, one line a row, cells unescaped."""
    out = os.path.join(tmp, what + ".jsonl")
    r = st("trace", "events", d, "--format", "jsonl", "--out", out)
    check(r.returncode == 0, "%s: exit %d" % (what, r.returncode))
    docs = both_read(out, "lines", what + " jsonl")
    if docs is not None:
        check([value_bytes(x, "file") for x in docs] == names,
              "%s: jsonl files %r" % (what, [x.get("file") for x in docs]))
        check([value_bytes(x, "basename") for x in docs] ==
              [n.rsplit(b"/", 1)[-1] for n in names],
              "%s: jsonl basenames" % what)
    r = st("trace", "events", d)
    check(r.returncode == 0, "%s: csv exit %d" % (what, r.returncode))
    try:
        text = r.stdout.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, "%s: CSV is not UTF-8: %s" % (what, e))
        return
    check("\0" not in text, "%s: a NUL in the CSV" % what)
    rows = list(csv.DictReader(io.StringIO(text)))
    check(len(text.splitlines()) == len(names) + 1,
          "%s: CSV has %d lines for %d rows" %
          (what, len(text.splitlines()), len(names)))
    check([unescape(x["file"]) for x in rows] == names,
          "%s: CSV files %r" % (what, [x["file"] for x in rows]))


def check_timeline(tmp, d, names, what, *extra):
    out = os.path.join(tmp, what + ".timeline.json")
    r = st("trace", "timeline", d, "--out", out, *extra)
    check(r.returncode == 0, "%s: exit %d %s" % (what, r.returncode,
                                                  r.stderr))
    docs = both_read(out, "doc", what + " timeline")
    if docs is None:
        return
    files = sorted(value_bytes(e["args"], "file")
                   for e in docs[0]["traceEvents"] if e.get("ph") == "X")
    check(files == sorted(names), "%s: timeline files %r" % (what, files))


def check_text(d, names, what):
    """The text summary: UTF-8, no control byte but newlines, a line per
    group."""
    r = st("trace", "summary", d, "--group-by", "file")
    check(r.returncode == 0, "%s: exit %d" % (what, r.returncode))
    try:
        text = r.stdout.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, "%s: text summary is not UTF-8: %s" % (what, e))
        return
    check(not any(ord(c) < 32 and c != "\n" for c in text),
          "%s: a control character in the text summary" % what)
    lines = text.splitlines()
    head = [i for i, x in enumerate(lines) if x.startswith("file ")][0]
    end = lines.index("", head)
    check(end - head - 1 == len(set(names)), "%s: %d group lines for %d "
          "names" % (what, end - head - 1, len(set(names))))


LATIN1 = [b"sample_\xe9.npz", b"sample_\xe8.npz", b"sample_\xc3\xa9.npz",
          b"x\\xe9.npz", b"my file \xff\xfe.npz", b"sample_\xe9.npz",
          b"\xed\xa0\x80.npz", b"\xc0\xaf.npz"]
NUL = [b"/x\0y", b"/x\0z", b"/x", b"/x,y", b"/x\0y"]


def body(tmp):
    d = os.path.join(tmp, "latin1")
    seed_read_trace(d, LATIN1)
    # issue 24 item 5: "2 events, 1 group", invalid JSON
    check_groups(tmp, d, LATIN1, "test_groupby_file_non_utf8_keeps_"
                 "every_group")
    check_compare(tmp, d, LATIN1, "test_compare_by_file_non_utf8_keeps_"
                  "every_row")
    check_events(tmp, d, LATIN1, "test_events_non_utf8_valid_json_and_csv")
    check_timeline(tmp, d, LATIN1, "test_timeline_non_utf8_valid_json")
    check_text(d, LATIN1, "test_summary_text_non_utf8_utf8")

    # a process name that is not UTF-8 (--names, "PID NAME" a line), and
    # the directory's own name: kept, with their bytes
    d = os.path.join(tmp, "ps\xe9".encode("latin-1").decode("utf-8",
                                                            "surrogateescape"))
    seed_read_trace(d, LATIN1[:1])
    names = os.path.join(tmp, "names.txt")
    with open(names, "wb") as f:
        f.write(b"7 tr\xe9in\x1b[31m --x\n")
    out = os.path.join(tmp, "ps.json")
    what = "test_summary_process_name_non_utf8_kept"
    r = st("trace", "summary", d, "--names", names, "--json", "--out", out)
    check(r.returncode == 0, "%s: exit %d" % (what, r.returncode))
    docs = both_read(out, "doc", what)
    if docs:
        sysd = docs[0]["system"][0]
        procs = sysd["processes"]
        check([value_bytes(p, "name") for p in procs] ==
              [b"tr\xe9in\x1b[31m --x"], "%s: processes %r" % (what, procs))
        check("dir" in sysd and value_bytes(sysd, "dir") ==
              os.fsencode(d), "%s: dir %r" % (what, sysd.get("dir")))
    what = "test_summary_text_process_name_one_line"
    r = st("trace", "summary", d, "--names", names)
    text = r.stdout.decode("utf-8", "replace")
    check(r.returncode == 0 and "\ufffd" not in text and
          not any(ord(c) < 32 and c != "\n" for c in text),
          "%s: %r" % (what, text[-200:]))
    check(any(x.strip().startswith("7 ") and
              unescape(x.split()[1]) == b"tr\xe9in\x1b[31m"
              for x in text.splitlines()), "%s: %r" % (what, text[-200:]))
    check_timeline(tmp, d, LATIN1[:1], "test_timeline_process_name_non_utf8",
                   "--names", names)

    # an application log named in Latin-1, an MLLOG key holding an ESC
    # (docs/systrace.md: ":::MLLOG {json}", keys time_ms, event_type, key)
    d = os.path.join(tmp, "log")
    seed_read_trace(d, LATIN1[:1])
    with open(os.path.join(os.fsencode(d), b"app\xe9.log"), "w") as f:
        for t, ev in ((1700000000000, "INTERVAL_START"),
                      (1700000001000, "INTERVAL_END")):
            f.write(":::MLLOG " + json.dumps(
                {"namespace": "", "time_ms": t, "event_type": ev,
                 "key": "epoch\x1b[1m_" + ("start" if "START" in ev
                                            else "stop"),
                 "value": None, "metadata": {"epoch_num": 1}}) + "\n")
    out = os.path.join(tmp, "log.json")
    what = "test_summary_log_file_name_non_utf8_kept"
    r = st("trace", "summary", d, "--json", "--out", out)
    docs = both_read(out, "doc", what)
    if docs:
        files = sorted(value_bytes(x, "file")
                       for x in docs[0]["system"][0]["files"])
        check(files == [b"app\xe9.log", b"trace_read.out"],
              "%s: files %r" % (what, files))
    what = "test_summary_text_phase_and_file_one_line"
    r = st("trace", "summary", d)
    text = r.stdout.decode("utf-8", "replace")
    check(r.returncode == 0 and "\ufffd" not in text and
          not any(ord(c) < 32 and c != "\n" for c in text),
          "%s: %r" % (what, text[-300:]))
    check(any(x.startswith("app\\xe9.log ") for x in text.splitlines()),
          "%s: no app\\xe9.log row: %r" % (what, text[-300:]))

    d = os.path.join(tmp, "nul")
    seed_read_trace(d, NUL)
    # issue 24 item 6: a backslash and a raw NUL; the key cut at the NUL
    check_events(tmp, d, NUL, "test_events_nul_in_name_written_u0000")
    check_groups(tmp, d, NUL, "test_groupby_file_nul_keeps_full_key")
    check_compare(tmp, d, NUL, "test_compare_by_file_nul_keeps_full_key")
    check_text(d, NUL, "test_summary_text_nul_one_line")
    # two keys, one of them holding a NUL and a ','
    out = os.path.join(tmp, "nul2.json")
    r = st("trace", "summary", d, "--group-by", "file,name", "--json",
           "--out", out)
    docs = both_read(out, "doc", "test_groupby_two_keys_nul_kept")
    if docs:
        got = sorted(g["keys"][0].encode() for g in
                     docs[0]["groups"].values())
        check(got == sorted(set(NUL)) and
              all(g["keys"][1] == "read" for g in
                  docs[0]["groups"].values()),
              "test_groupby_two_keys_nul_kept: keys %r" % got)

    # issue 24 item 14c: a metric name holding a newline or an ESC
    mf = os.path.join(tmp, "m.json")
    with open(mf, "w") as f:
        json.dump([{"name": "a\nb", "value": "count"},
                   {"name": "c\x1b[31md", "value": "count", "by": "file"}],
                  f)
    r = st("trace", "compare", "--metrics", mf, "--case", "A\x07=" + d)
    what = "test_compare_table_metric_name_control_chars"
    check(r.returncode == 0, "%s: exit %d" % (what, r.returncode))
    text = r.stdout.decode("utf-8", "replace")
    lines = text.splitlines()
    check(not any(ord(c) < 32 and c != "\n" for c in text),
          "%s: a control character in the table: %r" % (what, text))
    # a header, the scalar, a row per distinct file, the footer
    check(len(lines) == 3 + len(set(NUL)), "%s: %d lines: %r" %
          (what, len(lines), text))
    labels = [unescape(x.split("  ")[0].rstrip()) for x in lines[1:-1]]
    check(labels[0] == b"a\nb" and
          sorted(labels[1:]) == sorted(b"c\x1b[31md[" + n + b"]"
                                       for n in set(NUL)),
          "%s: labels %r" % (what, labels))
    check(unescape(lines[0].split()[-1]) == b"A\x07",
          "%s: case name %r" % (what, lines[0]))


sys.exit(run_in_tmp("names", body))
