#!/usr/bin/env python3
"""`import streamtime` (issue 26 item 4) against the command line's JSON,
under the Python the module is built for (/usr/bin/python3, Debian's
python3-pandas, installed on first use by setup_rule.need()):

  python_events_equal_cli     trace_events(...) row for row and column for
                              column equal to `trace events --format jsonl`
                              on the DFTracer fixtures (each file, the
                              directory; the default keys, none,
                              thread,prefix:2,pattern; a filter, a limit),
                              a DataFrame whose columns can be changed;
  python_compare_equal_cli    trace_compare(...) on the notebook's metrics
                              (bench/notebook_common.sh's, and per-file
                              tables as "by" metrics) over cases of the
                              fixtures: a row per metric (NAME[KEY] for a
                              by metric), a column per case, every number
                              the one `trace compare --json` writes (15
                              digits) and NaN for its null; metrics as a
                              list of dicts and as a file alike;
  python_summary_equal_cli    trace_summary(...) equal to `trace summary
                              --json` (plain, --group-by/--per, --filter,
                              --time-granularity);
  python_errors_as_cli        Error(66, ...) for a missing file, Error(65,
                              ...) for a file of corrupt lines only, each
                              message the line the command says; its
                              corrupt-line warnings as TraceWarning; a bad
                              filter 64, a bad metric 78;
  python_without_pandas       with pandas unimportable, dicts of lists of
                              the same values;
  python_gil_released         another Python thread runs while a pass
                              runs (its longest pause well under the
                              pass's time);
  python_installed_on_path    meson install puts the package where this
                              Python looks under the prefix.

A sanitized build's module cannot load into an unsanitized Python: the
script then runs itself again with the sanitizer's runtime preloaded
(LD_PRELOAD=LIBASAN) and leak detection off for the interpreter (Python
keeps its objects at exit).

usage: python_check.py STREAMTIME PYDIR FIXTURES SRC BUILD [LIBASAN]
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from checks import bug, check, report, run  # noqa: E402
import setup_rule  # noqa: E402

BIN, PYDIR, FIX, SRC, BUILD = (os.path.abspath(a) for a in sys.argv[1:6])
ASAN = sys.argv[6] if len(sys.argv) > 6 else ""
DF = os.path.join(FIX, "dftracer")
TEST = "cli-python"

if ASAN and "libasan" not in os.environ.get("LD_PRELOAD", ""):
    env = dict(os.environ, LD_PRELOAD=ASAN, ST_CHECK_ASAN_OPTIONS=os.environ.get(
        "ASAN_OPTIONS", ""))
    env["ASAN_OPTIONS"] = env["ST_CHECK_ASAN_OPTIONS"] + ":detect_leaks=0"
    os.execve(sys.executable, [sys.executable] + sys.argv, env)
if not os.path.isdir(DF):
    setup_rule.data_missing(TEST, DF)
setup_rule.need(TEST, ["python3-pandas"])
# the commands run as they always do (leaks detected), not preloaded
CLI_ENV = dict(os.environ)
if ASAN:
    CLI_ENV.pop("LD_PRELOAD", None)
    CLI_ENV["ASAN_OPTIONS"] = os.environ.get("ST_CHECK_ASAN_OPTIONS", "")
sys.path.insert(0, PYDIR)
import pandas as pd  # noqa: E402
import streamtime  # noqa: E402

OLD = os.path.join(DF, "posix-old-format.pfw")
CM1 = os.path.join(DF, "cm1-rank0-new-format.pfw.gz")
SMALL = os.path.join(DF, "small.pfw")


def cli(*args):
    p = run(BIN, *args, env=CLI_ENV)
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    rc, out, err = cli(*args)
    check(rc == 0, "streamtime %s: exit %d: %s" % (" ".join(args), rc, err))
    return json.loads(out) if rc == 0 else None


def as_written(x):
    """X as the command's JSON writes it: reals to 15 significant digits
    (jansson's JSON_REAL_PRECISION(15)), read back; the rest as is."""
    if isinstance(x, float) and math.isfinite(x):
        return float("%.15g" % x)
    if isinstance(x, dict):
        return {k: as_written(v) for k, v in x.items()}
    if isinstance(x, list):
        return [as_written(v) for v in x]
    return x


def first_diff(a, b, path="$"):
    """Where A and B (JSON values) differ first, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return "%s: keys %s != %s" % (path, list(a)[:8], list(b)[:8])
        for k in a:
            d = first_diff(a[k], b[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return "%s: %d items != %d" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if type(a) is not type(b) or a != b:
        return "%s: %r != %r" % (path, a, b)
    return None


# ---- trace_events -------------------------------------------------------

def df_rows(df):
    """A DataFrame's rows as dicts of plain values (<NA> as None)."""
    return [{k: (None if v is pd.NA else v) for k, v in r.items()}
            for r in df.to_dict("records")]


def events_case(paths, filt=None, keys=None, limit=None):
    args = ["trace", "events", "--format", "jsonl", *paths]
    if filt:
        args += ["--filter", filt]
    if keys is not None:
        args += ["--keys", keys]
    if limit:
        args += ["--limit", str(limit)]
    rc, out, err = cli(*args)
    want = [json.loads(line) for line in out.splitlines()]
    rc2, head, _ = cli(*(["trace", "events", "--limit", "1"] + args[4:]))
    cols = head.splitlines()[0].split(",") if rc2 == 0 else []
    df = streamtime.trace_events(paths, filter=filt, keys=keys, limit=limit)
    got = df_rows(df)
    what = "trace_events(%s, filter=%r, keys=%r, limit=%r)" % (
        [os.path.basename(p) for p in paths], filt, keys, limit)
    check(rc == 0 and len(want) > 0, "%s: the command: exit %d %s" %
          (what, rc, err))
    check(list(df.columns) == cols, "%s: columns %s, the command's %s" %
          (what, list(df.columns), cols))
    check(len(got) == len(want), "%s: %d rows, the command %d" %
          (what, len(got), len(want)))
    d = first_diff(got, want)
    check(d is None, "%s: rows differ from the command's: %s" % (what, d))
    check(str(df["bytes"].dtype) == "Int64" and
          str(df["ts"].dtype) == "int64",
          "%s: dtypes %s" % (what, dict(df.dtypes.astype(str))))
    # a DataFrame of one's own: its columns can be changed
    try:
        df.loc[0, "ts"] = 5
        df["dur"] += 1
        df.loc[0, "bytes"] = 3
        ok = bool(df["ts"].iloc[0] == 5 and df["bytes"].iloc[0] == 3)
    except (ValueError, TypeError) as e:
        ok = e
    check(ok is True, "%s: the DataFrame cannot be changed: %s" % (what, ok))
    return len(got)


def events():
    bug("python_events_equal_cli")
    n = 0
    for p in (OLD, CM1, SMALL):
        n += events_case([p])
    n += events_case([DF], keys="")
    n += events_case([OLD, CM1], keys="thread,prefix:2,pattern")
    n += events_case([DF], filt="cat=POSIX,name~write")
    n += events_case([CM1], limit=100)
    print("trace_events: %d rows equal to trace events --format jsonl" % n)


# ---- trace_compare ------------------------------------------------------

def notebook_metrics(tmp):
    """bench/notebook_common.sh's metrics (the notebook's 12), and the
    per-file writes as by metrics."""
    path = os.path.join(tmp, "metrics.json")
    p = run("bash", "-c", '. "$1"; write_metrics "$2"', "-",
            os.path.join(SRC, "bench", "notebook_common.sh"), path)
    check(p.returncode == 0, "write_metrics: %s" % p.stderr)
    with open(path) as f:
        m = json.load(f)
    w = ["name~write", "file~"]
    m += [{"name": "writes_count", "filter": w, "value": "count",
           "by": "file"},
          {"name": "writes_dur", "filter": w, "value": "dur", "by": "file"},
          {"name": "writes_bytes_mean", "filter": w, "value": "bytes",
           "per": "pid", "reduce": "mean"},
          {"name": "nothing", "filter": "name=no-such-call",
           "value": "dur"}]
    with open(path, "w") as f:
        json.dump(m, f)
    return m, path


def compare_expected(table):
    """`trace compare --json`'s TABLE as {row label: {case: value}}."""
    rows = {}
    for m in table["metrics"]:
        if "by" not in m:
            rows[m["name"]] = m["values"]
            continue
        keys = sorted({k for v in m["values"].values() for k in v},
                      key=lambda k: k.encode())
        for k in keys:
            rows["%s[%s]" % (m["name"], k)] = {
                c: v.get(k) for c, v in m["values"].items()}
    return rows


def compare_check(df, rows, cases, what):
    check(list(df.index) == list(rows) and df.index.name == "metric",
          "%s: rows %s, the command's %s" % (what, list(df.index)[:6],
                                              list(rows)[:6]))
    check(list(df.columns) == list(cases),
          "%s: columns %s" % (what, list(df.columns)))
    bad = []
    for label, vals in rows.items():
        for c in cases:
            want = vals.get(c)
            got = df.loc[label, c] if label in df.index else "missing"
            if want is None:
                ok = isinstance(got, float) and math.isnan(got)
            else:
                ok = not isinstance(got, str) and \
                    as_written(float(got)) == float(want) and \
                    (not isinstance(want, int) or int(got) == want)
            if not ok:
                bad.append((label, c, got, want))
    check(not bad, "%s: values differ from the command's (row, case, "
          "python, cli): %s" % (what, bad[:4]))


def compare(tmp):
    bug("python_compare_equal_cli")
    metrics, mpath = notebook_metrics(tmp)
    cases = {"old": [OLD], "cm1": [CM1], "both": [OLD, CM1], "dir": [DF]}
    table = cli_json("trace", "compare", "--json", "--metrics", mpath,
                     *["--case=%s=%s" % (c, ",".join(p))
                       for c, p in cases.items()])
    if table is None:
        return
    rows = compare_expected(table)
    check(len(rows) > 16 and any(v is None for r in rows.values()
                                 for v in r.values()),
          "the notebook's table has its by rows and a null: %s" % list(rows))
    df = streamtime.trace_compare(metrics, cases)
    compare_check(df, rows, cases, "trace_compare(list of dicts)")
    df2 = streamtime.trace_compare(mpath, cases, jobs=1)
    compare_check(df2, rows, cases, "trace_compare(path, jobs=1)")
    print("trace_compare: %d rows x %d cases equal to trace compare --json"
          % (len(rows), len(cases)))
    return metrics, cases, table


# ---- trace_summary ------------------------------------------------------

def summary():
    bug("python_summary_equal_cli")
    runs = [
        ([OLD], {}, []),
        ([DF], {}, []),
        ([OLD, CM1], {"group_by": "pattern", "per": "thread"},
         ["--group-by", "pattern", "--per", "thread"]),
        ([CM1], {"group_by": ["name", "cat"], "filter": ["cat=POSIX",
                                                         "dur>5"]},
         ["--group-by", "name,cat", "--filter", "cat=POSIX",
          "--filter", "dur>5"]),
        ([OLD], {"time_granularity": 1000000}, ["--time-granularity",
                                                 "1000000"]),
    ]
    for paths, kw, args in runs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", streamtime.TraceWarning)
            got = streamtime.trace_summary(paths, **kw)
        want = cli_json("trace", "summary", "--json", *paths, *args)
        d = first_diff(as_written(got), want)
        check(d is None, "trace_summary(%s, %s) differs from trace summary "
              "--json: %s" % ([os.path.basename(p) for p in paths], kw, d))
    print("trace_summary: %d summaries equal to trace summary --json" %
          len(runs))


# ---- errors -------------------------------------------------------------

def said(stderr, level=""):
    """The command's lines on stderr (of LEVEL: 'warning: '), less the
    program's name."""
    pre = "streamtime: " + level
    return [ln[len(pre):] for ln in stderr.splitlines()
            if ln.startswith(pre) and (level or "warning: " not in ln)]


def raised(fn):
    try:
        fn()
    except streamtime.Error as e:
        return e
    return None


def errors(tmp):
    bug("python_errors_as_cli")
    missing = os.path.join(tmp, "gone.pfw")
    rc, _, err = cli("trace", "summary", "--json", missing)
    for name, fn in (("trace_events", lambda: streamtime.trace_events(
            missing)), ("trace_summary", lambda: streamtime.trace_summary(
                missing)), ("trace_compare", lambda: streamtime.trace_compare(
                    [{"name": "n", "value": "count"}], {"a": [missing]}))):
        e = raised(fn)
        check(e is not None and e.code == 66 == rc and
              e.args == (66, e.message) and
              isinstance(e, Exception) and [e.message] == said(err)[:1],
              "%s(a missing file): %r, the command: exit %d %r" %
              (name, e and e.args, rc, said(err)))
    corrupt = os.path.join(tmp, "corrupt.pfw")
    with open(corrupt, "w") as f:
        f.write('[\n{"ph": "X", "name": "read", "cat": "POSIX", "pid": 1,\n')
    rc, _, err = cli("trace", "summary", "--json", corrupt)
    for name, fn in (("trace_events", lambda: streamtime.trace_events(
            corrupt)), ("trace_summary", lambda: streamtime.trace_summary(
                corrupt))):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            e = raised(fn)
        got_w = [str(w.message) for w in ws
                 if issubclass(w.category, streamtime.TraceWarning)]
        check(e is not None and e.code == 65 == rc and
              e.message == said(err)[0],
              "%s(only corrupt lines): %r, the command: exit %d %r" %
              (name, e and e.args, rc, said(err)))
        check(got_w == said(err, "warning: ") and
              got_w[0].startswith(corrupt + ":2: corrupt line skipped"),
              "%s: warnings %r, the command's %r" %
              (name, got_w, said(err, "warning: ")))
    e = raised(lambda: streamtime.trace_events(OLD, filter="dur>>1"))
    check(e is not None and e.code == 64, "a bad filter: %r" %
          (e and e.args,))
    e = raised(lambda: streamtime.trace_compare(
        [{"name": "x", "value": "durr"}], {"a": [OLD]}))
    check(e is not None and e.code == 78 and "durr" in e.message,
          "a bad metric: %r" % (e and e.args,))
    # python_error_path_not_utf8: a path that is not UTF-8 is named in
    # Error and in the warnings (surrogates, as os.fsdecode), never a
    # UnicodeDecodeError instead of them
    bug("python_error_path_not_utf8")
    raw = os.path.join(os.fsencode(tmp), b"no\xffsuch.pfw")
    try:
        e = raised(lambda: streamtime.trace_summary([os.fsdecode(raw)]))
        why = e and e.args
    except UnicodeDecodeError as u:
        e, why = None, "UnicodeDecodeError: %s" % u
    check(e is not None and e.code == 66 and
          raw in os.fsencode(e.message), "a missing path not UTF-8: %r"
          % (why,))
    bad = os.path.join(os.fsencode(tmp), b"bad\xff.pfw")
    with open(bad, "wb") as f:
        f.write(b'[\n{"ph": "X", "name": "read", "cat": "POSIX", "pid": 1, '
                b'"tid": 1, "ts": 1, "dur": 2}\nnot json\n')
    try:
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            streamtime.trace_summary([os.fsdecode(bad)])
        got = [os.fsencode(str(w.message)) for w in ws
               if issubclass(w.category, streamtime.TraceWarning)]
    except UnicodeDecodeError as u:
        got = ["UnicodeDecodeError: %s" % u]
    check(len(got) == 1 and got[0].startswith(bad + b":3: corrupt line"),
          "a corrupt line in a file not UTF-8: one TraceWarning naming it: "
          "%r" % (got,))
    print("errors: 66 and 65 with the command's messages, 64, 78")


# ---- without pandas -----------------------------------------------------

def without_pandas(metrics, cases, table):
    bug("python_without_pandas")
    code = ("import sys, json; sys.modules['pandas'] = None\n"
            "import streamtime\n"
            "e = streamtime.trace_events(sys.argv[1], keys='pattern')\n"
            "c = streamtime.trace_compare(json.loads(sys.argv[2]), "
            "json.loads(sys.argv[3]))\n"
            "print(json.dumps([type(e).__name__, e, type(c).__name__, c]))\n")
    p = run(sys.executable, "-c", code, CM1, json.dumps(metrics),
            json.dumps(cases), env=dict(os.environ, PYTHONPATH=PYDIR))
    if not check(p.returncode == 0, "without pandas: exit %d: %s" %
                 (p.returncode, p.stderr[-800:])):
        return
    te, ev, tc, cmp_ = json.loads(p.stdout)
    rc, out, _ = cli("trace", "events", "--format", "jsonl", "--keys",
                     "pattern", CM1)
    want = [json.loads(line) for line in out.splitlines()]
    check(te == "dict" and list(ev) == list(want[0]) and
          all(len(v) == len(want) for v in ev.values()) and
          [dict(zip(ev, r)) for r in zip(*ev.values())] == want,
          "trace_events without pandas: not the command's rows as a dict "
          "of lists")
    rows = compare_expected(table)
    check(tc == "dict" and cmp_["metric"] == list(rows) and
          all(as_written(cmp_[c]) == [rows[r][c] for r in rows]
              for c in cases),
          "trace_compare without pandas: not the command's table as a "
          "dict of lists: %s" % str(cmp_)[:300])
    print("without pandas: dicts of lists, the same values")


# ---- the GIL ------------------------------------------------------------

def gil(tmp):
    bug("python_gil_released")
    d = os.path.join(tmp, "many")
    os.mkdir(d)
    for i in range(60):
        os.symlink(OLD, os.path.join(d, "old%d.pfw" % i))
        os.symlink(CM1, os.path.join(d, "cm1-%d.pfw.gz" % i))
    span, go = [], threading.Event()

    def work():
        go.wait()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = time.monotonic()
            streamtime.trace_summary(d, group_by="pattern", jobs=1)
            span.extend([t, time.monotonic()])

    th = threading.Thread(target=work)
    th.start()
    samples = [time.monotonic()]
    go.set()
    while th.is_alive():
        samples.append(time.monotonic())
    th.join()
    if not check(len(span) == 2, "the pass in a thread failed"):
        return
    t0, t1 = span
    inside = [t0] + [x for x in samples if t0 < x < t1] + [t1]
    gap = max(b - a for a, b in zip(inside, inside[1:]))
    check(t1 - t0 > 0.1 and gap < (t1 - t0) / 2,
          "while a pass of %.3f s ran, this thread stopped for %.3f s at "
          "once (%d samples during it): the GIL was held" %
          (t1 - t0, gap, len(inside) - 2))
    print("gil: a pass of %.3f s; the other thread ran %d times during it, "
          "its longest pause %.4f s" % (t1 - t0, len(inside) - 2, gap))


# ---- installed ----------------------------------------------------------

def installed():
    bug("python_installed_on_path")
    p = run("meson", "introspect", "--installed", BUILD)
    if not check(p.returncode == 0, "meson introspect: %s" % p.stderr):
        return
    dest = [v for k, v in json.loads(p.stdout).items()
            if os.path.basename(k).startswith("_core.")]
    p = run("meson", "introspect", "--buildoptions", BUILD)
    prefix = [o["value"] for o in json.loads(p.stdout)
              if o["name"] == "prefix"]
    check(len(dest) == 1 and
          os.path.basename(os.path.dirname(dest[0])) == "streamtime",
          "the module is installed as %s" % dest)
    if dest and prefix and prefix[0] in ("/usr/local", "/usr"):
        site = os.path.dirname(os.path.dirname(dest[0]))
        check(site in sys.path, "installed into %s, not on %s's path %s"
              % (site, sys.executable, sys.path))
        print("installed: %s (on %s's path)" % (dest[0], sys.executable))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        events()
        got = compare(tmp)
        summary()
        errors(tmp)
        if got:
            without_pandas(*got)
        gil(tmp)
        installed()
    return report(TEST)


if __name__ == "__main__":
    sys.exit(main())
