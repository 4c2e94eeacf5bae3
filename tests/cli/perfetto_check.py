#!/usr/bin/env python3
"""Perfetto's protobuf trace (issue 26 items 1 and 2), decoded independently.

`trace timeline` and `timeline` write it for an --out named *.pftrace or
*.perfetto-trace, or with --format perfetto.  Each one is decoded here by
`protoc --decode` (Debian's protobuf-compiler, installed on first use)
against the repository's data/perfetto/streamtime_trace.proto, and read
back by the rules that file states (interned strings, incremental clocks,
track descriptors), with nothing of streamtime.  Checked:
  * on the DFTracer fixtures: every X event of the lines themselves
    (tests/tools/notebook_ref.py, json per line) is one slice, with its
    name, category, start and duration to the microsecond, file and bytes,
    on the thread track "tid T" of the process "HOST pid PID";
  * on the fixtures, a system-trace directory and the paper's `timeline`:
    the same slices, instants, counter samples, process and thread names
    as the JSON timeline of the same input;
  * .json.gz is gzip and holds the same JSON as .json;
  * a failed run leaves no output; --format; the sampling warning.

usage: perfetto_check.py STREAMTIME SOURCE_DIR
"""
import collections
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import setup_rule  # noqa: E402
from checks import bug, check, record_manifest, report, runner  # noqa: E402
import notebook_ref  # noqa: E402

TEST = "cli-perfetto"
EXE = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
PROTO_DIR = os.path.join(SRC, "data", "perfetto")
SHARED = os.path.join(SRC, "..", "shared")
FIX = os.path.join(SHARED, "fixtures", "dftracer")
PAPER = os.path.join(SHARED, "paper-data")
PMON = os.path.join(SHARED, "fixtures", "systrace", "gpu_pmon_dgx.out")
st = runner(EXE, timeout=300)


# ---- protoc's text format, read back ---------------------------------------

def unquote(s):
    """A protoc text string (C escapes, octal bytes) as bytes."""
    out, i = bytearray(), 1
    while i < len(s) - 1:
        c = s[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        n = s[i + 1]
        if n in "01234567":
            m = re.match(r"[0-7]{1,3}", s[i + 1:])
            out.append(int(m.group(0), 8))
            i += 1 + len(m.group(0))
            continue
        if n == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", s[i + 2:])
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
            continue
        out += {"n": b"\n", "t": b"\t", "r": b"\r", "\\": b"\\",
                "'": b"'", '"': b'"'}.get(n, n.encode())
        i += 2
    return bytes(out)


def parse_text(text):
    """protoc's text format as nested {field: [values]}."""
    root = collections.defaultdict(list)
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        if line.endswith("{"):
            d = collections.defaultdict(list)
            stack[-1][line[:-1].strip()].append(d)
            stack.append(d)
            continue
        k, v = line.split(":", 1)
        v = v.strip()
        if v.startswith('"'):
            v = unquote(v)
        elif v in ("true", "false"):
            v = v == "true"
        elif re.match(r"^-?\d+$", v):
            v = int(v)
        elif re.match(r"^[A-Z_]+$", v):
            pass                      # an enum by name
        else:
            v = float(v)
        stack[-1][k].append(v)
    return root


def one(d, k, default=None):
    v = d.get(k)
    return v[0] if v else default


def decode(path):
    """The trace at PATH read back: {slices, instants, counters, processes
    {pid: name}, threads {(pid, tid): name}, packets}; None when protoc
    refuses it."""
    with open(path, "rb") as f:
        p = subprocess.run(["protoc", "--decode=perfetto.protos.Trace",
                            "-I", PROTO_DIR, "streamtime_trace.proto"],
                           stdin=f, capture_output=True, text=True)
    if not check(p.returncode == 0, "protoc --decode %s: %s" %
                 (path, p.stderr[-300:])):
        return None
    tr = parse_text(p.stdout)
    tracks, out = {}, dict(slices=[], instants=[], counters=[],
                           processes={}, threads={},
                           packets=len(tr["packet"]))
    events, seqs = [], {}
    for pk in tr["packet"]:
        # each sequence's own interned strings, clocks and defaults
        seq = one(pk, "trusted_packet_sequence_id")
        check(seq is not None, "every packet has its sequence")
        if one(pk, "sequence_flags", 0) & 1:
            seqs[seq] = ({}, {}, {}, {}, {}, set(), [None])
        names, cats, anames, avals, last, incremental, default = seqs[seq]
        d = one(pk, "trace_packet_defaults")
        if d:
            default[0] = one(d, "timestamp_clock_id")
        for cs in pk.get("clock_snapshot", []):
            for c in cs["clocks"]:
                if one(c, "is_incremental"):
                    check(one(c, "unit_multiplier_ns") == 1000,
                          "incremental clocks in microseconds")
                    incremental.add(one(c, "clock_id"))
                    last[one(c, "clock_id")] = one(c, "timestamp")
        for i in pk.get("interned_data", []):
            for k, table in (("event_names", names),
                             ("event_categories", cats),
                             ("debug_annotation_names", anames)):
                for e in i.get(k, []):
                    table[one(e, "iid")] = one(e, "name").decode()
            for e in i.get("debug_annotation_string_values", []):
                avals[one(e, "iid")] = one(e, "str")
        ts = None
        if "timestamp" in pk:
            clock = one(pk, "timestamp_clock_id") or default[0]
            v = one(pk, "timestamp")
            if clock in incremental:
                last[clock] += v
                ts = last[clock]
            elif clock == 6:               # BOOTTIME, ns
                ts = (v - (1 << 64) if v >= 1 << 63 else v)
                check(ts % 1000 == 0, "an absolute time in whole µs")
                ts //= 1000
            else:
                check(False, "timestamp on clock %s" % clock)
        for td in pk.get("track_descriptor", []):
            uuid = one(td, "uuid")
            check(uuid not in tracks or one(td, "process") is not None,
                  "track %s described once" % uuid)
            tracks[uuid] = td
            pr, th = one(td, "process"), one(td, "thread")
            if pr is not None and one(pr, "process_name") is not None:
                out["processes"][one(pr, "pid")] = \
                    one(pr, "process_name").decode()
            if th is not None:
                out["threads"][(one(th, "pid"), one(th, "tid"))] = \
                    (one(th, "thread_name") or b"").decode()
        for te in pk.get("track_event", []):
            events.append((ts, te, names, cats, anames, avals))
    for ts, te, names, cats, anames, avals in events:
        td = tracks.get(one(te, "track_uuid"))
        if not check(td is not None, "an event's track is described"):
            continue
        args = {}
        for a in te.get("debug_annotations", []):
            k = anames[one(a, "name_iid")]
            if "string_value_iid" in a:
                args[k] = avals[one(a, "string_value_iid")].decode(
                    "utf-8", "surrogateescape")
            else:
                for f, conv in (("int_value", int), ("bool_value", bool),
                                ("double_value", float)):
                    if f in a:
                        args[k] = conv(one(a, f))
        typ, leg = one(te, "type"), one(te, "legacy_event")
        name = names.get(one(te, "name_iid"))
        cat = ",".join(cats[c] for c in te.get("category_iids", []))
        if typ == "TYPE_COUNTER":
            pr = tracks[one(td, "parent_uuid")]
            out["counters"].append((one(one(pr, "process"), "pid"),
                                    one(td, "name").decode(), ts,
                                    one(te, "double_counter_value")))
            continue
        th = one(td, "thread")
        key = (one(th, "pid"), one(th, "tid"))
        if leg is not None and one(leg, "phase") == ord("X"):
            out["slices"].append((key, name, cat, ts,
                                  one(leg, "duration_us", 0), args))
        elif typ == "TYPE_INSTANT":
            out["instants"].append((key, name, cat, ts, args))
        else:
            check(False, "an event of type %s" % typ)
    return out


# ---- the JSON timeline, for comparison -------------------------------------

LANE = re.compile(r" \(\d+\)$")


def json_trace(path):
    with open(path, "rb") as f:
        return json.load(f)


def by_names(pf):
    """PF's slices, instants and counters keyed by process and thread
    names instead of numbers."""
    pn = pf["processes"]
    tn = pf["threads"]
    sl = collections.Counter(
        (pn.get(k[0]), tn.get(k), n, c, ts, dur, json.dumps(a, sort_keys=True))
        for k, n, c, ts, dur, a in pf["slices"])
    ins = collections.Counter((pn.get(k[0]), tn.get(k), n, c, ts)
                              for k, n, c, ts, a in pf["instants"])
    cn = collections.Counter((pn.get(p), n, ts, v)
                             for p, n, ts, v in pf["counters"])
    return sl, ins, cn


def json_by_names(doc, lanes):
    """The same of a JSON timeline; LANES: trace timeline's lanes ("tid T
    (2)") taken as their thread (the protobuf has none)."""
    pn, tn = {}, {}
    for e in doc["traceEvents"]:
        if e.get("ph") == "M" and e["name"] == "process_name":
            pn[e["pid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e["name"] == "thread_name":
            tn[(e["pid"], e["tid"])] = LANE.sub("", e["args"]["name"]) \
                if lanes else e["args"]["name"]
    sl, ins, cn = (collections.Counter() for _ in range(3))
    for e in doc["traceEvents"]:
        ph = e.get("ph")
        if ph == "X":
            sl[(pn.get(e["pid"]), tn.get((e["pid"], e["tid"])), e["name"],
                e.get("cat", ""), e["ts"], e["dur"],
                json.dumps(e.get("args", {}), sort_keys=True))] += 1
        elif ph == "i":
            ins[(pn.get(e["pid"]), tn.get((e["pid"], e["tid"])), e["name"],
                 e.get("cat", ""), e["ts"])] += 1
        elif ph == "C":
            for k, v in e["args"].items():
                cn[(pn.get(e["pid"]), "%s %s" % (e["name"], k), e["ts"],
                    float(v))] += 1
    return sl, ins, cn


def same_as_json(pf, doc, what, lanes=True):
    """PF (decoded) holds what the JSON DOC holds, by names."""
    a, b = by_names(pf), json_by_names(doc, lanes)
    for i, kind in enumerate(("slices", "instants", "counter samples")):
        diff = (a[i] - b[i]) + (b[i] - a[i])
        check(not diff, "%s: the protobuf's %s are the JSON's (%d in "
              "JSON, %d in protobuf; first difference %s)" %
              (what, kind, sum(b[i].values()), sum(a[i].values()),
               next(iter(diff), None)))
    check(sum(b[0].values()) > 0, "%s: there are slices" % what)
    return a


# ---- the cases ---------------------------------------------------------------

FIXTURES = ["posix-old-format.pfw", "small.pfw",
            "cm1-rank0-new-format.pfw.gz"]


def test_fixtures(tmp):
    bug("timeline_pftrace_is_perfetto_protobuf")
    paths = [os.path.join(FIX, f) for f in FIXTURES]
    out = os.path.join(tmp, "t.pftrace")
    r = st("trace", "timeline", *paths, "--out", out)
    check(r.returncode == 0, "trace timeline --out t.pftrace: %d %s" %
          (r.returncode, r.stderr))
    pf = decode(out) if os.path.exists(out) else None
    if not check(pf is not None, "a protobuf trace decodes"):
        return
    # the lines themselves
    want = collections.Counter()
    nx = 0
    for p in paths:
        evs, bad, damaged = notebook_ref.read_trace(p)
        for e in evs:
            nx += 1
            want[("%s pid %d" % (e["host"] if e["host"] else
                                 "(unknown host)", e["pid"]),
                  "tid %d" % e["tid"], e["name"], e["cat"], e["ts"],
                  e["dur"], e["file"], e["bytes"])] += 1
    pn, tn = pf["processes"], pf["threads"]
    got = collections.Counter()
    for k, n, c, ts, dur, a in pf["slices"]:
        b = a.get("bytes")
        got[(pn.get(k[0]), tn.get(k), n, c, ts, dur, a.get("file"),
             b if b else None)] += 1
    check(len(pf["slices"]) == nx, "the slices: %d, the lines' X events: "
          "%d" % (len(pf["slices"]), nx))
    diff = (got - want) + (want - got)
    check(not diff, "every X event of the lines is a slice with its name, "
          "category, ts, dur (µs), file and bytes on 'HOST pid PID' / "
          "'tid T' (first difference: %s)" % (next(iter(diff), None),))
    check(len(pn) == len({k[0] for k in want}),
          "one process per (host, pid): %d" % len(pn))
    # bytes per event, the issue's figure (the fixtures' strings dominate
    # this small a trace; bench/timeline.sh has the 10 M-event one)
    size = os.path.getsize(out)
    check(size < 60 * nx, "%d bytes for %d events" % (size, nx))
    # the same as the JSON timeline of the same input
    bug("timeline_pftrace_same_as_json")
    js = os.path.join(tmp, "t.json")
    r = st("trace", "timeline", *paths, "--out", js, "--max-events", "0")
    check(r.returncode == 0, "JSON timeline: %s" % r.stderr)
    same_as_json(pf, json_trace(js), "fixtures")
    # --format perfetto whatever the name, --format json whatever the name
    bug("timeline_format_option")
    o2 = os.path.join(tmp, "t.trace")
    r = st("trace", "timeline", *paths, "--out", o2, "--format", "perfetto")
    check(r.returncode == 0, "--format perfetto: %d %s" %
          (r.returncode, r.stderr))
    check(os.path.exists(o2) and open(o2, "rb").read() ==
          open(out, "rb").read(), "--format perfetto writes the protobuf")
    o3 = os.path.join(tmp, "j.pftrace")
    r = st("trace", "timeline", *paths, "--out", o3, "--format", "json",
           "--max-events", "0")
    check(r.returncode == 0 and os.path.exists(o3) and
          json_trace(o3) == json_trace(js), "--format json writes JSON")
    r = st("trace", "timeline", *paths, "--out", o3, "--format", "xml")
    check(r.returncode == 64, "--format xml: 64 (got %d)" % r.returncode)
    o4 = os.path.join(tmp, "t.perfetto-trace")
    r = st("trace", "timeline", *paths, "--out", o4)
    check(r.returncode == 0 and open(o4, "rb").read() ==
          open(out, "rb").read(), "*.perfetto-trace is the protobuf")


def test_gzip(tmp):
    bug("timeline_json_gz_is_gzipped")
    paths = [os.path.join(FIX, f) for f in FIXTURES]
    js, gz = os.path.join(tmp, "g.json"), os.path.join(tmp, "g.json.gz")
    r1 = st("trace", "timeline", *paths, "--out", js)
    r2 = st("trace", "timeline", *paths, "--out", gz)
    check(r1.returncode == 0 and r2.returncode == 0, "timelines: %s %s" %
          (r1.stderr, r2.stderr))
    with open(gz, "rb") as f:
        head = f.read(2)
    check(head == b"\x1f\x8b", "t.json.gz starts as gzip (got %r)" % head)
    try:
        same = gzip.open(gz).read() == open(js, "rb").read()
    except OSError as e:
        same = False
        check(False, "gunzip t.json.gz: %s" % e)
    check(same, "t.json.gz holds the bytes of t.json")
    # the paper's `timeline`, too
    bug("failed_timeline_leaves_no_output")
    missing = os.path.join(tmp, "none.pfw")
    for name in ("f.pftrace", "f.json.gz", "f.json"):
        o = os.path.join(tmp, name)
        r = st("trace", "timeline", paths[0], missing, "--out", o)
        check(r.returncode == 66 and not os.path.exists(o),
              "a missing input: 66 and no %s (got %d, exists %s)" %
              (name, r.returncode, os.path.exists(o)))
    # a damaged gzip stream, found while the one pass writes
    cut = os.path.join(tmp, "cut.pfw.gz")
    with open(os.path.join(FIX, "cm1-rank0-new-format.pfw.gz"), "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])
    o = os.path.join(tmp, "cut.pftrace")
    r = st("trace", "timeline", cut, "--out", o)
    check(r.returncode == 65 and not os.path.exists(o),
          "a cut .gz: 65 and no output (got %d, exists %s): %s" %
          (r.returncode, os.path.exists(o), r.stderr))
    # the same among other inputs, written in parallel (-j 2) or not
    for j in ("1", "2"):
        r = st("trace", "timeline", paths[0], cut, paths[1], "--out", o,
               "-j", j)
        check(r.returncode == 65 and not os.path.exists(o) and
              "cut.pfw.gz" in r.stderr,
              "-j %s: a cut .gz among others: 65 naming it, no output "
              "(got %d): %s" % (j, r.returncode, r.stderr))
    # -j 1 and -j 2 write the same bytes
    o1, o2 = os.path.join(tmp, "j1.pftrace"), os.path.join(tmp, "j2.pftrace")
    r1 = st("trace", "timeline", *paths, "--out", o1, "-j", "1")
    r2 = st("trace", "timeline", *paths, "--out", o2, "-j", "2")
    check(r1.returncode == 0 and r2.returncode == 0, "-j 1, -j 2: %s %s" %
          (r1.stderr, r2.stderr))
    p1, p2 = decode(o1), decode(o2)
    check(p1 is not None and p2 is not None and
          by_names(p1) == by_names(p2),
          "-j 1 (one writer) and -j 2 (in parts) hold the same trace")
    bug("pftrace_jobs_same_bytes")
    # -j 1 and -j 2 write the same bytes, also
    # when one process's events are in two files (the same file twice:
    # -j 1 made it one process, -j 2 two)
    for name, ins in (("fixtures", paths), ("twice", [paths[0], paths[0]])):
        outs = []
        for j in ("1", "2"):
            o = os.path.join(tmp, "%s-j%s.pftrace" % (name, j))
            r = st("trace", "timeline", *ins, "--out", o, "-j", j)
            outs.append(open(o, "rb").read() if r.returncode == 0 else None)
        check(outs[0] is not None and outs[0] == outs[1],
              "%s: -j 1 and -j 2 write the same "
              "bytes" % name)
    bug("pftrace_parts_bounded")
    # the parts written ahead of the joiner hold a temporary file each: a
    # slow first input and 60 small ones under 32 open files still work
    # at -j 2 (they failed with "Too many open files")
    big = os.path.join(tmp, "big.pfw")
    with open(big, "w") as f:
        lines = [ln for ln in gzip.open(paths[2], "rt", encoding="utf-8")
                 if ln.startswith("{")]
        f.write("[\n")
        for _ in range(40):
            f.writelines(lines)
    small = os.path.join(tmp, "small.pfw")
    with open(small, "w") as f:
        f.write("[\n" + lines[0])
    many = [big] + [small] * 60
    o = os.path.join(tmp, "many.pftrace")
    r = subprocess.run(["bash", "-c", 'ulimit -n 32 && exec "$@"', "sh",
                        EXE, "trace", "timeline", *many, "--out", o, "-j",
                        "2"], capture_output=True, text=True, timeout=300)
    check(r.returncode == 0 and os.path.getsize(o) > 0,
          "61 inputs, 32 open files, -j 2: exit "
          "%d: %s" % (r.returncode, r.stderr[-300:]))
    check(not [f for f in os.listdir(tmp) if f.startswith(".")],
          "no temporaries left: %s" % os.listdir(tmp))
    # parts of 323,280 slices each: at -j 2 a worker's part goes straight
    # onto the output once those before it are joined, what it wrote
    # aside copied there first; the bytes are those of -j 1 all the same
    outs = []
    for j in ("1", "2"):
        o = os.path.join(tmp, "switch-j%s.pftrace" % j)
        r = st("trace", "timeline", big, big, big, "--out", o, "-j", j)
        outs.append(open(o, "rb").read() if r.returncode == 0 else None)
    check(outs[0] is not None and outs[0] == outs[1],
          "three big parts: -j 1 and -j 2 write the same bytes")
    xs = sum(json.loads(ln).get("ph") == "X" for ln in lines)
    check(outs[0] is not None and pftrace_slices(o) == 3 * 40 * xs,
          "three big parts: every slice written")
    bug("pftrace_write_error_names_the_trace")
    # a write that fails (a full disk) is the trace's, at any -j: -j 1
    # said "cannot write a temporary file", where there was none
    for j in ("1", "2"):
        r = st("trace", "timeline", *paths, "--format", "perfetto", "--out",
               "/dev/full", "-j", j)
        check(r.returncode == 74 and
              "cannot write the trace: " in r.stderr and
              "temporary" not in r.stderr,
              "-j %s, /dev/full: 74, cannot write the trace (got %d): %s" %
              (j, r.returncode, r.stderr))


def pftrace_slices(path):
    """The slices of the Trace at PATH, counted by bench/pftrace_count.py
    from the wire format alone."""
    r = subprocess.run([sys.executable, os.path.join(SRC, "bench",
                                                     "pftrace_count.py"),
                        path], capture_output=True, text=True, timeout=300)
    return int(r.stdout) if r.returncode == 0 else None


def test_sampled_warning(tmp):
    bug("timeline_sampled_warning_names_protobuf")
    paths = [os.path.join(FIX, f) for f in FIXTURES]
    o = os.path.join(tmp, "s.json")
    r = st("trace", "timeline", *paths, "--out", o, "--max-events", "100")
    check(r.returncode == 0 and "every k-th kept" in r.stderr and
          ".pftrace" in r.stderr and "--format perfetto" in r.stderr,
          "the sampling warning names the protobuf output: %s" % r.stderr)
    doc = json_trace(o)
    check("sampled" in doc["otherData"] and
          sum(e["ph"] == "X" for e in doc["traceEvents"]) == 100,
          "JSON keeps its default: 100 slices and otherData.sampled")
    # protobuf with --max-events samples the same way, every event without
    o2 = os.path.join(tmp, "s.pftrace")
    r = st("trace", "timeline", *paths, "--out", o2, "--max-events", "100")
    pf = decode(o2) if r.returncode == 0 else None
    check(pf is not None and len(pf["slices"]) == 100,
          "--max-events 100 in protobuf: 100 slices")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def systrace_dir(d):
    """A trace record directory: calls, mpstat, nvidia-smi pmon (the real
    sample), an MLPerf log."""
    base = 1700000000 * 10**9
    os.makedirs(d)
    record_manifest(d, base)
    write(os.path.join(d, "trace_proc.out"),
          "TIMESTAMP EVENT PID PPID COMM\n1000 fork 100 50 bash\n"
          "1100 exec 100 -1 trainer\n")
    lines = ["Attaching 4 probes...",
             "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME"]
    for i in range(50):
        end = (2 + i / 10) * 10**9 + 10**6
        lines.append("%d 100 100 3 4096 1000000 /data/a%d.bin" % (end, i % 3))
    write(os.path.join(d, "trace_read.out"), "\n".join(lines) + "\n")
    rows = ["Linux 6.1.0 (node1) \t11/14/23 \t_x86_64_\t(2 CPU)", "",
            "22:13:21     CPU    %usr   %nice    %sys %iowait    %irq   "
            "%soft  %steal  %guest  %gnice   %idle"]
    for k in range(2, 8):
        rows.append("22:13:%02d     all   %5.2f    0.00    4.00    1.00    "
                    "0.00    0.00    0.00    0.00    0.00   %5.2f" %
                    (20 + k, 40 + k, 55 - k))
    write(os.path.join(d, "cpu.out"), "\n".join(rows) + "\n")
    ml = []
    for key, et, t in (("epoch_start", "INTERVAL_START", 1600),
                       ("epoch_stop", "INTERVAL_END", 6000),
                       ("run_stop", "POINT_IN_TIME", 6500)):
        ml.append(":::MLLOG " + json.dumps({
            "time_ms": base // 10**6 + t, "event_type": et, "key": key,
            "metadata": {"epoch_num": 1}}))
    write(os.path.join(d, "command.stdout.log"), "\n".join(ml) + "\n")
    if os.path.exists(PMON):
        shutil.copy(PMON, os.path.join(d, "gpu.out"))


def test_systrace(tmp):
    bug("timeline_pftrace_system_traces")
    d = os.path.join(tmp, "rec")
    systrace_dir(d)
    js, pt = os.path.join(tmp, "sys.json"), os.path.join(tmp, "sys.pftrace")
    r1 = st("trace", "timeline", d, "--out", js, "--max-events", "0")
    r2 = st("trace", "timeline", d, "--out", pt)
    check(r1.returncode == 0 and r2.returncode == 0,
          "system-trace timelines: %d %s / %d %s" %
          (r1.returncode, r1.stderr, r2.returncode, r2.stderr))
    if r1.returncode or r2.returncode:
        return
    pf = decode(pt)
    if pf is None:
        return
    a = same_as_json(pf, json_trace(js), "system traces")
    check(sum(a[2].values()) > 0 and
          any(k[1].startswith("CPU % ") for k in a[2]),
          "the CPU counters are there: %s" % list(a[2])[:3])
    check(sum(a[1].values()) > 0, "the MLPerf instants are there")
    check(any(k[3] == "phase" for k in a[0]), "the phases are there")


def test_paper(tmp):
    bug("timeline_experiment_pftrace")
    res = os.path.join(tmp, "res")
    r = st("reproduce", "--data", PAPER, "--out", res, "-q")
    if not check(r.returncode == 0, "reproduce: %s" % r.stderr):
        return
    js, pt = os.path.join(tmp, "x.json"), os.path.join(tmp, "x.pftrace")
    gz = os.path.join(tmp, "x.json.gz")
    r1 = st("timeline", "--results", res, "--data", PAPER, "--out", js)
    r2 = st("timeline", "--results", res, "--data", PAPER, "--out", pt)
    r3 = st("timeline", "--results", res, "--data", PAPER, "--out", gz)
    check(r1.returncode == r2.returncode == r3.returncode == 0,
          "timeline: %s %s %s" % (r1.stderr, r2.stderr, r3.stderr))
    if r1.returncode or r2.returncode:
        return
    pf = decode(pt)
    doc = json_trace(js)
    if pf is None:
        return
    same_as_json(pf, doc, "the paper's timeline", lanes=False)
    want = {e["args"]["name"] for e in doc["traceEvents"]
            if e.get("ph") == "M" and e["name"] == "process_name"}
    check(set(pf["processes"].values()) == want,
          "the stages' processes: %s" % sorted(pf["processes"].values()))
    want = {e["args"]["name"] for e in doc["traceEvents"]
            if e.get("ph") == "M" and e["name"] == "thread_name"}
    check(set(pf["threads"].values()) == want, "the tracks' names")
    bug("timeline_json_gz_is_gzipped")
    check(r3.returncode == 0 and gzip.open(gz).read() ==
          open(js, "rb").read(), "timeline --out x.json.gz: gzip of x.json")


def main():
    setup_rule.need(TEST, ["protobuf-compiler"])
    if not os.path.isdir(FIX):
        setup_rule.data_missing(TEST, FIX)
    tmp = tempfile.mkdtemp(prefix="perfetto.")
    try:
        test_fixtures(tmp)
        test_gzip(tmp)
        test_sampled_warning(tmp)
        test_systrace(tmp)
        if os.path.isdir(PAPER):
            test_paper(tmp)
        else:
            setup_rule.data_missing(TEST, PAPER)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report(TEST)


if __name__ == "__main__":
    sys.exit(main())
