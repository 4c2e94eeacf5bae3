"""streamtime's trace analyses for notebooks: the passes of `streamtime
trace events`, `trace summary` and `trace compare` over DFTracer traces
(.pfw, .pfw.gz, a directory of them) and system-trace directories, run by
libstreamtime in this process (the GIL released during a pass).

    import streamtime
    df = streamtime.trace_compare(metrics, {"ssd": ["run1/"], "pfs": ["run2/"]})

The answers are those of the command line's JSON (docs/trace.md, "From
Python"): trace_events and trace_compare give pandas DataFrames, or, when
pandas cannot be imported, dicts of lists; trace_summary gives a dict.  A
failure raises streamtime.Error(code, message), code the command's exit
status (65 bad data, 66 a missing input, 64 a bad argument, 78 a bad
metric, 74 I/O).  What the command says as a warning (corrupt lines
skipped, an input without events) is a streamtime.TraceWarning.
"""
import json
import os


class Error(Exception):
    """A pass failed: CODE is the exit status the command would give,
    MESSAGE what it would say."""

    def __init__(self, code, message):
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self):
        return "%s (exit %d)" % (self.message, self.code)


class TraceWarning(UserWarning):
    """What the command says as a warning: corrupt lines skipped, an input
    without events, inputs far apart in time."""


from . import _core  # noqa: E402  (after Error: _core raises it)

_core.init(Error, TraceWarning)
__version__ = _core.version
__all__ = ["trace_events", "trace_summary", "trace_compare", "Error",
           "TraceWarning"]


def _pandas():
    """pandas, or None when it cannot be imported."""
    try:
        import pandas
    except ImportError:
        return None
    return pandas


def _list(x):
    """A path or text, or a list of them, as a list (None: empty)."""
    if x is None:
        return []
    if isinstance(x, (str, bytes, os.PathLike)):
        return [x]
    return list(x)


def _jobs(jobs):
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise Error(64, "jobs: a positive number of threads")
    return jobs or 0


def trace_events(paths, filter=None, keys=None, limit=None):
    """The events of PATHS that FILTER keeps, one row per event, with the
    columns of `trace events`: ts, dur (microseconds), start, end (UTC, as
    text), host, pid, tid, name, cat, file, bytes (None when the event
    moved no data known), then a column per derived key of KEYS (a list or
    "basename,pattern", the default; "" or [] for none).  FILTER: a
    --filter expression, or a list of them (all ANDed).  LIMIT: at most
    that many rows.  A DataFrame (bytes as the nullable Int64), or a dict
    of lists without pandas."""
    if keys is not None and not isinstance(keys, str):
        keys = ",".join(keys)
    if limit is not None and (not isinstance(limit, int) or limit < 1):
        raise Error(64, "limit: a positive number of rows")
    pd = _pandas()
    cols = _core.events(_list(paths), _list(filter), keys, limit or 0,
                        pd is not None)
    if pd is None:
        return cols
    import numpy as np
    for k in ("ts", "dur", "pid", "tid"):
        cols[k] = np.frombuffer(cols[k], dtype=np.int64)
    b = np.frombuffer(cols["bytes"], dtype=np.int64)
    cols["bytes"] = pd.arrays.IntegerArray(b, b < 0)
    return pd.DataFrame(cols, copy=False)


def trace_summary(paths, group_by=None, filter=None, per=None,
                  time_granularity=None, io_cats=None, compute_cats=None,
                  jobs=None):
    """`trace summary --json` of PATHS as a dict: GROUP_BY and PER keys as
    "pattern,pid" or a list, FILTER a --filter expression or a list of
    them, TIME_GRANULARITY the bins' width in microseconds, IO_CATS and
    COMPUTE_CATS the categories (lists, or "POSIX,STDIO"), JOBS the files
    read at once (default: the cores)."""
    def csv(x):
        return x if x is None or isinstance(x, str) else ",".join(x)
    if time_granularity is not None and (
            not isinstance(time_granularity, int) or time_granularity < 1):
        raise Error(64, "time_granularity: a positive number of "
                    "microseconds")
    return _core.summary(_list(paths), _list(filter), csv(group_by),
                         csv(per), time_granularity or 0, csv(io_cats),
                         csv(compute_cats), _jobs(jobs))


def _metric_rows(table):
    """The rows of `trace compare --json`'s TABLE: (label, {case: value}),
    a by metric's as NAME[KEY] for each key of any case (sorted by its
    bytes, as the text table), NAME alone when no case has one."""
    for m in table["metrics"]:
        vals = m["values"]
        if "by" not in m:
            yield m["name"], vals
            continue
        keys = sorted({k for v in vals.values() for k in v},
                      key=lambda k: k.encode("utf-8", "surrogatepass"))
        if not keys:
            yield m["name"], {c: None for c in vals}
        for k in keys:
            yield "%s[%s]" % (m["name"], k), {c: v.get(k)
                                              for c, v in vals.items()}


def trace_compare(metrics, cases, jobs=None):
    """`trace compare`'s table: METRICS, a list of dicts (as the metrics
    file holds them) or the path of a metrics file, computed for each case
    of CASES, a dict from the case's name to its paths (a list, or one
    path), every metric of a case in one pass.  A DataFrame with a row per
    metric, indexed by its name (a by metric's rows NAME[KEY]), and a
    column per case, the numbers those of `trace compare --json` (dur in
    seconds, bytes and counts), NaN where it gives null; without pandas
    {"metric": [names], CASE: [values]} with None."""
    if isinstance(metrics, (str, bytes, os.PathLike)):
        text, path = None, metrics
    else:
        text, path = json.dumps(list(metrics)), None
    if not isinstance(cases, dict):
        raise TypeError("cases: a dict from a case's name to its paths")
    table = _core.compare(text, path, [(str(n), _list(p))
                                       for n, p in cases.items()],
                          _jobs(jobs))
    names = list(cases)
    rows = list(_metric_rows(table))
    pd = _pandas()
    if pd is None:
        out = {"metric": [r[0] for r in rows]}
        for c, shown in zip(names, table["cases"]):
            out[c] = [r[1].get(shown) for r in rows]
        return out
    data = {c: [float("nan") if r[1].get(shown) is None else r[1][shown]
                for r in rows] for c, shown in zip(names, table["cases"])}
    return pd.DataFrame(data, index=pd.Index([r[0] for r in rows],
                                             name="metric"),
                        columns=names)
