#!/usr/bin/env python3
"""`trace summary --group-by KEYS --per KEYS` (SPEC 5.10, 5.12; issue 16
item 1) against tests/tools/notebook_ref.py (json per line, plain Python,
nothing of streamtime):

  * the DFTracer fixtures with --group-by thread, pattern,pid, basename,
    prefix:2,cat, name --per thread, pattern --per thread,name, phase:
    every group's count, dur, bytes, keys and both per-unit maxima with
    their unit (the smaller unit on a tie, as notebook_ref's max_by),
    computed from notebook_ref's events;
  * -j 1 = -j 2 = -j 3, byte for byte;
  * the notebook's headline (the largest per-thread dur of one kind of
    call) through --filter name~... --group-by name --per thread, equal
    to notebook_ref.notebook()'s checkpoint answer; and on a hand-made
    trace of two loader threads in one process, where per thread (150)
    and per process (250) differ, as on the DLIO trace;
  * --group-by phase on a system trace with nested phases, by hand;
  * `trace compare`'s phase key (by, per) against --group-by phase on it,
    a DFTracer-only case (none), its partials merged (test_compare_phase);
  * bad keys: exit 64 with a suggestion, --per without --group-by 64;
  * the text table's maxima columns.

usage: groupby_check.py STREAMTIME FIXTURES
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
import notebook_ref as ref  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
DF = os.path.join(os.path.abspath(sys.argv[2]), "dftracer")
FILES = [os.path.join(DF, f) for f in ("posix-old-format.pfw", "small.pfw",
                                       "cm1-rank0-new-format.pfw.gz")]
from checks import check, record_manifest, report, runner  # noqa: E402


run = runner(BIN, "-q", "trace", "summary")


def summary(*args):
    p = run("--json", *args)
    check(p.returncode == 0, "%s: exit %d: %s" % (args, p.returncode,
                                                  p.stderr[-500:]))
    try:
        return json.loads(p.stdout), p.stdout
    except ValueError:
        check(False, "%s: no JSON" % (args,))
        return {}, ""


def events(paths):
    out = []
    for p in paths:
        out += ref.read_trace(p)[0]
    return out


def shown(e, key):
    """KEY's value of E as the tool writes it: processes and threads as
    HOST:PID[:TID], no value "(none)", no host ""."""
    v = ref.key_value(e, key)
    if key in ("pid", "thread"):
        return ref.key_text(v)
    if v is None:
        return "" if key == "host" else "(none)"
    return v


def join(values):
    """Several values as the tool joins them: ',' between, each value's
    escaped text (text.h) with a ',' inside escaped too; one value as its
    escaped text."""
    if len(values) == 1:
        return ref.escaped(values[0])
    return ",".join(ref.escaped(v, True) for v in values)


def expect(evs, group, per, terms=()):
    """The groups as trace summary --json should give them, from EVS."""
    gk, pk = group.split(","), per.split(",")
    groups, units = {}, {}
    for e in evs:
        if not ref.filter_keep(e, terms):
            continue
        keys = [shown(e, k) for k in gk]
        g = join(keys)
        x = groups.setdefault(g, {"count": 0, "dur_us": 0, "bytes": 0,
                                  "keys": keys})
        x["count"] += 1
        x["dur_us"] += e["dur"]
        b = e["bytes"] if e["bytes"] is not None and e["bytes"] > 0 else 0
        x["bytes"] += b
        u = join([shown(e, k) for k in pk])
        d, ub = units.get((g, u), (0, None))
        units[(g, u)] = (d + e["dur"], (ub or 0) + b if b else ub)
    for g, x in groups.items():
        us = {u: v for (gg, u), v in units.items() if gg == g}
        md = max(v[0] for v in us.values())
        x["max_per_dur_us"] = md
        x["max_per_dur_key"] = min(u for u, v in us.items() if v[0] == md)
        sized = {u: v[1] for u, v in us.items() if v[1] is not None}
        mb = max(sized.values(), default=0)
        x["max_per_bytes"] = mb
        x["max_per_bytes_key"] = min((u for u, v in sized.items()
                                      if v == mb), default=None)
        if per == "pid":
            x["max_process_dur_us"] = md
    return groups


def compare(got, want, what):
    g = got.get("groups", {})
    if g == want:
        check(True, what)
        return
    diff = sorted(k for k in set(g) | set(want) if g.get(k) != want.get(k))
    check(False, "%s: %d groups differ, e.g. %s: got %s want %s" % (
        what, len(diff), diff[:1], g.get(diff[0]) if diff else None,
        want.get(diff[0]) if diff else None))


def test_fixtures():
    evs = events(FILES)
    cases = [("thread", "pid"), ("pattern,pid", "pid"), ("basename", "pid"),
             ("prefix:2,cat", "pid"), ("name", "thread"),
             ("pattern", "thread,name"), ("cat,host", "basename"),
             ("phase", "thread")]
    for group, per in cases:
        args = ["--group-by", group] + (["--per", per] if per != "pid"
                                        else [])
        got, text = summary(*FILES, "-j", "1", *args)
        check(got.get("group_by") == group and got.get("per") == per,
              "--group-by %s --per %s: group_by %r per %r" % (
                  group, per, got.get("group_by"), got.get("per")))
        compare(got, expect(evs, group, per),
                "--group-by %s --per %s against notebook_ref" % (group, per))
        for j in ("2", "3"):
            _, t = summary(*FILES, "-j", j, *args)
            check(t == text, "--group-by %s --per %s: -j %s differs from "
                  "-j 1" % (group, per, j))
    # phase: DFTracer files have none, one group "(none)"
    got, _ = summary(*FILES, "--group-by", "phase")
    check(list(got.get("groups", {})) == ["(none)"],
          "--group-by phase: one group (none): %s" % list(got.get("groups",
                                                                  {})))
    # a filter and groups together
    terms = ref.filter_terms("cat=POSIX,dur>10")
    got, _ = summary(*FILES, "--filter", "cat=POSIX,dur>10", "--group-by",
                     "pattern,pid", "--per", "thread")
    compare(got, expect(evs, "pattern,pid", "thread", terms),
            "--filter cat=POSIX,dur>10 --group-by pattern,pid --per thread")


def test_headline():
    """The notebook's headline number, through --group-by name --per
    thread, on the fixtures and on two loader threads made by hand."""
    evs = events(FILES)
    for name in ("fopen64", "__xstat", "write"):
        want = ref.notebook([e for e in evs if e["name"] == name], name,
                            [], "model")["checkpoint"]
        got, _ = summary(*FILES, "--filter", "name=" + name, "--group-by",
                         "name", "--per", "thread")
        g = got.get("groups", {}).get(name, {})
        check(g.get("max_per_dur_us") == want["max_thread_dur_us"] and
              g.get("max_per_dur_key") == want["thread"],
              "headline %s: the largest per-thread dur %s on %s, "
              "notebook_ref %s on %s" % (
                  name, g.get("max_per_dur_us"), g.get("max_per_dur_key"),
                  want["max_thread_dur_us"], want["thread"]))
    ev = ('{"name":"NPZReader.open","cat":"dlio","pid":1,"tid":%d,'
          '"ts":%d,"dur":%d,"ph":"X","args":{"hostname":"n1"}}')
    lines = ["[", ev % (10, 0, 100), ev % (10, 200, 50),
             ev % (11, 0, 100), "]"]
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "dlio.pfw")
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n")
        got, _ = summary(p, "--filter", "name~NPZReader.open",
                         "--group-by", "name", "--per", "thread")
        g = got.get("groups", {}).get("NPZReader.open", {})
        want = ref.notebook(ref.read_trace(p)[0], "NPZReader.open", [],
                            "model")["checkpoint"]
        check(g.get("max_per_dur_us") == 150 == want["max_thread_dur_us"]
              and g.get("max_per_dur_key") == "n1:1:10" == want["thread"],
              "two loader threads: per thread 150 on n1:1:10: %s" % g)
        got, _ = summary(p, "--group-by", "name")
        g = got.get("groups", {}).get("NPZReader.open", {})
        check(g.get("max_process_dur_us") == 250 ==
              g.get("max_per_dur_us") and got.get("per") == "pid",
              "two loader threads: per process (the default) 250: %s" % g)


READS = ("1200000000 100 100 3 10 1000 /data/a.bin\n"
         "2000000000 100 100 3 4096 1000000 /data/a.bin\n"
         "2000500000 100 102 3 4096 1000000 /data/a.bin\n"
         "5000000000 101 101 4 100 1000 /data/b.bin\n")


def phase_set(d, host="node1", reads=READS):
    """A system trace (trace record's layout) in D with an epoch from 1 s
    to 4 s and an eval inside it from 1.5 s to 2.2 s; READS its
    trace_read.out lines (times of CLOCK_MONOTONIC, ns)."""
    ml = (':::MLLOG {"time_ms": %d, "event_type": "%s", "key": "%s", '
          '"metadata": {"epoch_num": 1}}')
    os.makedirs(d, exist_ok=True)
    record_manifest(d, 1700000000000001000, mono_ns=1000,
                    span_ns=9 * 10**9, bounds=(80, 75), host=host)
    with open(os.path.join(d, "trace_read.out"), "w") as f:
        f.write("Attaching 4 probes...\n"
                "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n" + reads)
    with open(os.path.join(d, "command.stdout.log"), "w") as f:
        f.write("\n".join([
            ml % (1700000001000, "INTERVAL_START", "epoch_start"),
            ml % (1700000001500, "INTERVAL_START", "eval_start"),
            ml % (1700000002200, "INTERVAL_END", "eval_stop"),
            ml % (1700000004000, "INTERVAL_END", "epoch_stop")]) + "\n")


def test_phase():
    """--group-by phase on phase_set: by the event's start, the innermost
    phase; none after 4 s."""
    with tempfile.TemporaryDirectory() as d:
        phase_set(d)
        got, _ = summary(d, "--group-by", "phase", "--per", "thread")
        g = {k: (v["count"], v["bytes"], v["max_per_bytes"],
                 v["max_per_bytes_key"])
             for k, v in got.get("groups", {}).items()}
        check(g == {"epoch 1": (1, 10, 10, "node1:100:100"),
                    "eval 1": (2, 8192, 4096, "node1:100:100"),
                    "(none)": (1, 100, 100, "node1:101:101")},
              "--group-by phase: epoch 1 the read at 1.2 s, eval 1 (inside "
              "it) the two at 2 s, none the one at 5 s: %s" % g)


PHASE_METRICS = [
    {"name": "n", "value": "count", "by": "phase"},
    {"name": "b", "value": "bytes", "by": "phase"},
    {"name": "d", "value": "dur", "by": "phase"},
    {"name": "mb", "value": "bytes", "by": "phase", "per": "thread",
     "reduce": "max"},
    {"name": "md", "value": "dur", "by": "phase", "per": "thread",
     "reduce": "max"},
    {"name": "busiest", "value": "count", "per": "phase", "reduce": "max"},
    {"name": "phases", "value": "count", "per": "phase", "reduce": "min"}]


def st_compare(*args):
    p = subprocess.run([BIN, "-q", "trace", "compare"] + list(args),
                       capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def test_events_phase():
    """events_phase_column_empty: `trace events --keys phase` and a compare
    events metric with the phase key fill the column from the set's
    phases (it was always empty, system traces too); by the event's
    start, the innermost phase, empty outside every phase."""
    want = ["epoch 1", "eval 1", "eval 1", ""]
    with tempfile.TemporaryDirectory() as d:
        phase_set(d)
        p = subprocess.run([BIN, "-q", "trace", "events", "--keys", "phase",
                            "--format", "jsonl", d], capture_output=True,
                           text=True)
        check(p.returncode == 0, "trace events --keys phase: exit %d: %s"
              % (p.returncode, p.stderr[-300:]))
        rows = [json.loads(x) for x in p.stdout.splitlines() if x]
        got = [(r["ts"], r.get("phase")) for r in rows]
        check([g[1] or "" for g in sorted(got)] == want,
              "events_phase_column_empty: trace events' phase column "
              "%s, want %s by start" % (sorted(got), want))
        mf = os.path.join(d, "m.json")
        with open(mf, "w") as f:
            json.dump([{"name": "ev", "value": "count", "events": "jsonl",
                        "keys": "phase"}], f)
        ed = os.path.join(d, "ev")
        os.mkdir(ed)
        rc, _, err = st_compare("--metrics", mf, "--case", "c=" + d,
                                "--events-dir", ed, "--out",
                                os.path.join(d, "t.txt"))
        check(rc == 0, "compare events metric: exit %d: %s" % (rc, err))
        try:
            with open(os.path.join(ed, "c.ev.jsonl")) as f:
                crow = [json.loads(x) for x in f if x.strip()]
        except OSError as e:
            crow = []
            check(False, "compare events metric: %s" % e)
        cgot = sorted((r["ts"], r.get("phase") or "") for r in crow)
        check([g[1] for g in cgot] == want,
              "events_phase_column_empty: compare's events metric phase "
              "column %s, want %s" % (cgot, want))


def test_compare_phase():
    """compare_phase_key: `trace compare`'s phase key (by and per) is
    `trace summary --group-by phase`'s, from the case's own system-trace
    sets: per phase the count, bytes, dur and the per-thread maxima equal
    the summary's groups; a DFTracer-only case is all (none); partials
    merge to one process, byte for byte, and a case whose partials saw
    other phases is refused (65)."""
    with tempfile.TemporaryDirectory() as t:
        s1, s2 = os.path.join(t, "s1"), os.path.join(t, "s2")
        phase_set(s1)
        phase_set(s2, "node2", "1300000000 200 200 3 7 5 /data/c.bin\n"
                  "2100000000 200 201 3 33 9 /data/c.bin\n")
        mp = os.path.join(t, "m.json")
        with open(mp, "w") as f:
            json.dump(PHASE_METRICS, f)
        df = FILES[1]
        rc, out, err = st_compare("--metrics", mp, "--json", "--case",
                               "sys=" + s1, "--case", "df=" + df)
        check(rc == 0, "compare_phase_key: compare exit %d: %s" % (rc, err))
        v = {m["name"]: m["values"] for m in
             json.loads(out or "{}").get("metrics", [])}
        groups = summary(s1, "--group-by", "phase", "--per",
                         "thread")[0].get("groups", {})
        check(len(groups) == 3, "compare_phase_key: the summary has 3 "
              "phase groups: %s" % list(groups))
        for name, field, scale in (("n", "count", 1), ("b", "bytes", 1),
                                   ("d", "dur_us", 1e-6),
                                   ("mb", "max_per_bytes", 1),
                                   ("md", "max_per_dur_us", 1e-6)):
            want = {k: g[field] * scale for k, g in groups.items()}
            got = v.get(name, {}).get("sys")
            check(isinstance(got, dict) and set(got) == set(want) and
                  all(abs(got[k] - want[k]) < 1e-9 for k in want),
                  "compare_phase_key: by phase %s: compare %s, summary "
                  "--group-by phase %s %s" % (name, got, field, want))
        check(v.get("busiest", {}).get("sys") == 2 and
              v.get("phases", {}).get("sys") == 1,
              "compare_phase_key: per phase, max 2 (eval 1), min 1: %s %s"
              % (v.get("busiest"), v.get("phases")))
        nd = summary(df)[0].get("events")
        check(v.get("n", {}).get("df") == {"(none)": nd} and nd,
              "compare_phase_key: a DFTracer-only case is all (none): %s, "
              "%s events" % (v.get("n", {}).get("df"), nd))
        # partials: cases in separate shares, and one case over two
        # shares whose sets have the same phases
        one = ["--metrics", mp, "--case", "sys=%s,%s" % (s1, s2),
               "--case", "df=" + df]
        shares = [["--case", "sys=" + s1], ["--case", "sys=" + s2,
                                            "--case", "df=" + df]]
        parts = []
        for i, sh in enumerate(shares):
            parts.append(os.path.join(t, "p%d.json" % i))
            rc, _, err = st_compare("--metrics", mp, "--save-partial",
                                 parts[-1], *sh)
            check(rc == 0, "compare_phase_key: share %d: exit %d: %s"
                  % (i, rc, err))
        with open(parts[0]) as f:
            check('"names":["epoch 1","eval 1","epoch 1",null]' in f.read(),
                  "compare_phase_key: the partial holds the case's phases")
        for fmt in ([], ["--json"]):
            rc1, o1, e1 = st_compare(*(one + fmt))
            p = subprocess.run([BIN, "-q", "trace", "merge"] + parts + fmt,
                               capture_output=True)
            check(rc1 == 0 and p.returncode == 0 and o1 == p.stdout and
                  b"eval 1" in o1, "compare_phase_key: merge %s = one "
                  "process: %d %d\n%s---\n%s%s" % (
                      fmt, rc1, p.returncode, o1.decode(),
                      p.stdout.decode(), p.stderr.decode()))
        # a share of the sys case without its sets: its events would have
        # phases in one process, none in its partial
        rc, _, err = st_compare("--metrics", mp, "--save-partial",
                             os.path.join(t, "p2.json"), "--case",
                             "sys=" + df)
        p = subprocess.run([BIN, "-q", "trace", "merge", parts[0],
                            os.path.join(t, "p2.json")],
                           capture_output=True, text=True)
        check(rc == 0 and p.returncode == 65 and "phases" in p.stderr and
              "p2.json" in p.stderr, "compare_phase_key: a case whose "
              "partials saw other phases: 65: %d %s" % (p.returncode,
                                                        p.stderr))


def test_errors():
    for args, word in ((["--group-by", "patern"], "pattern"),
                       (["--group-by", "name,thred"], "thread"),
                       (["--group-by", "name", "--per", "pids"], "pid"),
                       (["--group-by", "prefix:0"], "prefix:N"),
                       (["--group-by", "name,"], "empty"),
                       (["--group-by", "name,name"], "twice")):
        p = run(*args, FILES[1])
        check(p.returncode == 64 and word in p.stderr and not p.stdout,
              "%s: exit %d (want 64) naming %r: %s" % (
                  args, p.returncode, word, p.stderr.strip()))
    p = run("--per", "thread", FILES[1])
    check(p.returncode == 64 and "--group-by" in p.stderr,
          "--per without --group-by: exit %d: %s" % (p.returncode,
                                                     p.stderr.strip()))


def test_text():
    p = run(FILES[2], "--group-by", "pattern", "--per", "thread")
    check(p.returncode == 0 and "max thread dur (s)" in p.stdout and
          "max thread bytes" in p.stdout, "text: the maxima columns")
    got, _ = summary(FILES[2], "--group-by", "pattern", "--per", "thread")
    x = got.get("groups", {}).get("cm*out_*_*_s.dat", {})
    row = [ln for ln in p.stdout.splitlines()
           if ln.startswith("cm*out_*_*_s.dat ")]
    check(len(row) == 1 and row[0].split()[5] == str(x.get("max_per_bytes"))
          and row[0].split()[-1] == x.get("max_per_dur_key"),
          "text: the row of cm*out_*_*_s.dat gives its maxima: %s" % row)


def test_comma_keys():
    """Two groups whose values joined with ',' would read the same
    ("x,y" + "z" and "x" + "y,z") stay two groups in the JSON object."""
    ev = ('{"name":"read","cat":"%s","pid":1,"tid":1,"ts":%d,"dur":10,'
          '"ph":"X","args":{"fname":"%s","hostname":"h"}}')
    lines = ["[", ev % ("z", 0, "/d/x,y"), ev % ("y,z", 20, "/d/x"),
             ev % ("a\\\\b", 40, "/d/x"), "]"]
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "commas.pfw")
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n")
        got, _ = summary(p, "--group-by", "basename,cat")
        want = expect(ref.read_trace(p)[0], "basename,cat", "pid")
        check(len(want) == 3 and len(got.get("groups", {})) == 3,
              "comma keys: 3 groups, got %s" % sorted(got.get("groups", {})))
        compare(got, want, "comma keys")
        check("x\\,y,z" in got.get("groups", {}) and
              "x,y\\,z" in got.get("groups", {}),
              "comma keys: escaped: %s" % sorted(got.get("groups", {})))


def main():
    test_fixtures()
    test_comma_keys()
    test_headline()
    test_phase()
    test_compare_phase()
    test_events_phase()
    test_errors()
    test_text()
    return report("groupby_check")


if __name__ == "__main__":
    sys.exit(main())
