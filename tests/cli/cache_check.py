#!/usr/bin/env python3
"""`trace summary --cache DIR` and `trace compare --cache DIR` (issue 27
item 3): the output with the cache, on its first run and on reruns, is
byte for byte the output without it (stdout, stderr, exit status): text
and --json, --group-by/--per, --time-granularity, a --filter, compare
--json with two cases; and the numbers after a change are those Python
counts in the files themselves.  Named checks:
  test_cache_inplace_rewrite   a file rewritten in its middle, size and
                               mtime restored (os.utime): the new answer;
  test_cache_replaced_removed_added  a file replaced (new inode), one
                               removed, one added between runs;
  test_cache_options_changed   another --filter, another --io-cat;
  test_cache_corrupt_entry     entries with a byte flipped, cut short or
                               replaced by garbage: ignored and replaced;
  test_cache_concurrent        two runs at once on one cache;
  test_cache_readonly_input    a read-only input folder: nothing written
                               beside the inputs;
  test_cache_bound             --cache-max 1: the entries fit 1 MiB, an
                               older run's entries gone first, the last
                               run's entry kept;
  test_cache_env               $STREAMTIME_CACHE without --cache;
  test_cache_stdin             standard input read, never cached;
  test_cache_racy_recent       a file changed in the last 2 s is read and
                               not kept (timestamps are coarse);
  test_cache_bad_lines         a corrupt line and a damaged gzip: the same
                               messages and exit status on every rerun.

usage: cache_check.py STREAMTIME FIXTURES
"""
import glob
import gzip
import json
import os
import shutil
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import bug, check, run_in_tmp  # noqa: E402
from checks import run as run_cmd  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
DF = os.path.join(os.path.abspath(sys.argv[2]), "dftracer")
ENV = dict(os.environ)
ENV.pop("STREAMTIME_CACHE", None)


def run(*args, env=None):
    if args[0] == "-v":
        p = run_cmd(BIN, "-v", "trace", *args[1:], text=False, env=env or ENV)
    else:
        p = run_cmd(BIN, "trace", *args, text=False, env=env or ENV)
    return p.returncode, p.stdout, p.stderr


def entries(cache):
    return sorted(glob.glob(os.path.join(cache, "st1-*.entry")))


def big_trace(path, n=600, dur=7):
    """N events of pid 1, each 'read' of 100 bytes with 10000 + DUR
    microseconds: 5 digits, so that one can be changed in place without
    changing the size."""
    with open(path, "w") as f:
        f.write("[\n")
        for i in range(n):
            f.write('{"id":%d,"name":"read","cat":"POSIX","pid":1,"tid":2,'
                    '"ts":%d,"dur":%d,"ph":"X","args":{"hostname":"h",'
                    '"fname":"/data/f%d.bin","ret":100}}\n'
                    % (i, 1_700_000_000_000_000 + 100000 * i, 10000 + dur, i % 7))
        f.write("]\n")


def py_dur(paths):
    """Python's own sum of the X events' dur over PATHS (plain .pfw)."""
    total = 0
    for p in paths:
        with open(p) as f:
            for line in f:
                line = line.strip().rstrip(",")
                if not line.startswith("{"):
                    continue
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if e.get("ph") == "X":
                    total += int(e["dur"])
    return total


def json_dur(out):
    """The summary's total dur (the categories' sum) from --json; None
    when OUT is no JSON."""
    try:
        j = json.loads(out)
    except ValueError:
        return None
    cats = j.get("by_cat") or j.get("categories") or []
    if isinstance(cats, dict):
        return sum(int(v.get("dur_us", 0)) for v in cats.values())
    return sum(int(c.get("dur_us", 0)) for c in cats)


def same(args, files, cache, what, env=None):
    """ARGS over FILES without and with CACHE (twice) give the same."""
    plain = run("summary", *args, *files)
    first = run("summary", "--cache", cache, *args, *files, env=env)
    again = run("summary", "--cache", cache, *args, *files, env=env)
    check(first == plain, "%s: first run with the cache differs: %r" %
          (what, first[2][:300]))
    check(again == plain, "%s: rerun with the cache differs: %r" %
          (what, again[2][:300]))
    return plain


def identical_outputs(tmp, inp, files, cache):
    bug("test_cache_same_output")
    for args in ([], ["--json"], ["--group-by", "pattern,pid", "--per",
                                  "thread"],
                 ["--json", "--group-by", "name"],
                 ["--time-granularity", "1000000"],
                 ["--json", "--time-granularity", "250000"],
                 ["--filter", "cat=POSIX"]):
        same(args, files, cache, " ".join(args) or "plain")
    rc, _, err = run("-v", "summary", "--cache", cache, *files)
    check(b"the run's entry" in err, "a rerun is served by the run's "
          "entry: %r" % err[-300:])
    check(len(entries(cache)) >= len(files) + 1, "an entry per file and "
          "one per run: %d" % len(entries(cache)))
    rc, out, _ = run("summary", "--cache", cache, "--json", *files[:2])
    check(rc == 0 and json_dur(out) == py_dur(files[:2]),
          "the total dur is Python's")
    # compare: two cases, --json and the table
    mpath = os.path.join(tmp, "metrics.json")
    with open(mpath, "w") as f:
        json.dump([{"name": "io", "filter": "cat=POSIX", "value": "dur",
                    "per": "pid", "reduce": "max"},
                   {"name": "n", "value": "count"},
                   {"name": "by", "value": "bytes", "by": "name",
                    "per": "thread", "reduce": "sum"}], f)
    for extra in (["--json"], []):
        args = ["compare", "--metrics", mpath, *extra,
                "--case", "a=" + ",".join(files[:2]),
                "--case", "b=" + files[2]]
        plain = run(*args)
        first = run(*args[:1], "--cache", cache, *args[1:])
        again = run(*args[:1], "--cache", cache, *args[1:])
        check(plain[0] == 0 and first == plain and again == plain,
              "compare %s with the cache as without: %r" % (extra, again[2]))
    rc, out, _ = run("compare", "--metrics", mpath, "--json", "--cache",
                     cache, "--case", "a=" + files[0])
    n = json.loads(out)["metrics"][1]["values"]["a"] if rc == 0 else None
    check(n == 600, "compare's count is the file's 600 events: %r" % n)


def inplace(tmp, inp, files, cache):
    bug("test_cache_inplace_rewrite")
    f = files[0]
    st = os.stat(f)
    base = run("summary", "--cache", cache, "--json", f)
    with open(f, "r+b") as fh:
        data = fh.read()
        mid = data.index(b'"dur":10007', len(data) // 2)
        fh.seek(mid)
        fh.write(b'"dur":99999')
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    st2 = os.stat(f)
    check(st2.st_size == st.st_size and st2.st_mtime_ns == st.st_mtime_ns,
          "size and mtime kept")
    check(mid > 8192 and mid < st.st_size - 8192, "the change is outside "
          "the head and tail hashed")
    rc, out, err = run("summary", "--cache", cache, "--json", f)
    check(rc == 0 and out != base[1], "the rewritten file gives a new "
          "answer")
    check(rc == 0 and json_dur(out) == py_dur([f]),
          "its dur is Python's: %s against %d" % (
              json_dur(out) if rc == 0 else None, py_dur([f])))
    check((rc, out, err) == run("summary", "--json", f),
          "as without the cache")
    # and the whole set, served per file
    same(["--json"], files, cache, "after the rewrite")


def replaced(tmp, inp, files, cache):
    bug("test_cache_replaced_removed_added")
    same([], files, cache, "before")
    new = os.path.join(tmp, "new.pfw")
    big_trace(new, n=500, dur=3)
    os.replace(new, files[1])           # replaced: a new inode
    rc, out, _ = run("summary", "--cache", cache, "--json", *files)
    check(json_dur(out) == py_dur(files), "replaced: Python's dur")
    same(["--json"], files, cache, "replaced")
    same(["--json"], files[:1] + files[2:], cache, "removed")
    add = os.path.join(inp, "added.pfw")
    big_trace(add, n=50, dur=11)
    rc, out, _ = run("summary", "--cache", cache, "--json", *files, add)
    check(json_dur(out) == py_dur(files + [add]), "added: Python's dur")
    same(["--json"], files + [add], cache, "added")
    # compare sees the same changes
    mpath = os.path.join(tmp, "metrics.json")
    args = ["compare", "--metrics", mpath, "--json", "--case",
            "a=" + ",".join(files + [add])]
    plain = run(*args)
    check(run(args[0], "--cache", cache, *args[1:]) == plain,
          "compare after the changes as without the cache")
    n = json.loads(plain[1])["metrics"][1]["values"]["a"]
    check(n == 600 + 500 + 600 + 50, "compare counts Python's events: %r" % n)


def options(tmp, inp, files, cache):
    bug("test_cache_options_changed")
    same(["--filter", "dur>5"], files, cache, "a filter")
    same(["--filter", "dur>8"], files, cache, "another filter")
    same(["--io-cat", "STDIO"], files, cache, "--io-cat")
    same(["--compute-cat", "POSIX"], files, cache, "--compute-cat")


def corrupt(tmp, inp, files, cache):
    bug("test_cache_corrupt_entry")
    same(["--json"], files, cache, "fill")
    os.makedirs(cache, exist_ok=True)
    foreign = os.path.join(cache, "notes.txt")
    with open(foreign, "w") as f:
        f.write("mine\n")
    ents = entries(cache)
    for k, e in enumerate(ents):
        with open(e, "r+b") as fh:
            data = fh.read()
            if k % 3 == 0:          # a digit flipped in the payload
                i = data.rindex(b"1")
                data = data[:i] + b"2" + data[i + 1:]
            elif k % 3 == 1:        # cut short
                data = data[:len(data) // 2]
            else:                   # another file
                data = b'{"streamtime_partial":2}' + b" " * len(data)
            fh.seek(0)
            fh.truncate()
            fh.write(data)
    same(["--json"], files, cache, "corrupt entries")
    rc, _, err = run("-v", "summary", "--json", "--cache", cache, *files)
    check(b"the run's entry" in err, "the entries were replaced: %r" %
          err[-200:])
    check(os.path.exists(foreign), "a foreign file in DIR is left alone")
    # a compare entry damaged: ignored too
    mpath = os.path.join(tmp, "metrics.json")
    args = ["compare", "--metrics", mpath, "--json", "--case",
            "a=" + ",".join(files)]
    plain = run(*args)
    run(args[0], "--cache", cache, *args[1:])
    for e in entries(cache):
        with open(e, "r+b") as fh:
            data = fh.read()
            i = data.rfind(b"1")
            if i >= 0:
                fh.seek(i)
                fh.write(b"7")
    check(run(args[0], "--cache", cache, *args[1:]) == plain,
          "compare with damaged entries as without the cache")


def concurrent(tmp, inp, files, cache):
    bug("test_cache_concurrent")
    plain = run("summary", "--json", *files)
    cache2 = os.path.join(tmp, "cc")
    for rnd in range(3):
        outs = [None, None]

        def go(k):
            outs[k] = run("summary", "--json", "--cache", cache2, *files)
        th = [threading.Thread(target=go, args=(k,)) for k in (0, 1)]
        for t in th:
            t.start()
        for t in th:
            t.join()
        check(outs[0] == plain and outs[1] == plain,
              "round %d: both runs as without the cache" % rnd)
    check(not glob.glob(os.path.join(cache2, ".st1-*")),
          "no temporary left")


def readonly(tmp, inp, files, cache):
    bug("test_cache_readonly_input")
    ro = os.path.join(tmp, "ro")
    before = sorted(os.listdir(ro))
    os.chmod(ro, 0o555)
    try:
        c = os.path.join(tmp, "rocache")
        same(["--json"], sorted(glob.glob(ro + "/*")), c, "read-only")
        check(sorted(os.listdir(ro)) == before, "nothing beside the inputs")
        check(len(entries(c)) > 0, "the entries are in DIR")
    finally:
        os.chmod(ro, 0o755)


def bound(tmp, inp, files, cache, big):
    bug("test_cache_bound")
    c = os.path.join(tmp, "small")
    plain = run("summary", "--json", *big)
    for i in range(3):
        got = run("summary", "--json", "--cache", c, "--cache-max", "1",
                  *big)
        check(got == plain, "bounded: as without the cache")
        total = sum(os.path.getsize(e) for e in entries(c))
        check(total <= 1 << 20, "the entries fit 1 MiB: %d" % total)
    check(len(entries(c)) >= 1, "the newest entries stay")
    # least recently used first: entries of an older run go, the last
    # run's own entry stays (a rerun is served by it)
    c2 = os.path.join(tmp, "lru")
    run("summary", "--cache", c2, "--filter", "dur>0", *big)
    older = set(entries(c2))
    check(sum(os.path.getsize(e) for e in older) > 1 << 19,
          "the older run's entries are half the bound or more")
    os.makedirs(c2, exist_ok=True)
    for e in older:
        os.utime(e, (1_000_000_000, 1_000_000_000))    # used long ago
    run("summary", "--cache", c2, "--cache-max", "1", *big)
    left = set(entries(c2))
    check(not (older & left), "the older run's entries were evicted first")
    rc, _, err = run("-v", "summary", "--cache", c2, "--cache-max", "1", *big)
    check(b"the run's entry" in err, "the newest run's entry stayed: %r" %
          err[-200:])


def racy(tmp, inp, files, cache):
    bug("test_cache_racy_recent")
    f = os.path.join(tmp, "fresh.pfw")
    big_trace(f, n=100, dur=3)
    c = os.path.join(tmp, "racy")
    for k in range(2):
        rc, _, err = run("-v", "summary", "--cache", c, f)
        check(rc == 0 and b"1 changed in the last 2 s" in err and
              b"0 files from it" in err, "a file just written is read, "
              "not kept: %r" % err[-200:])
    check(not entries(c), "nothing kept of it")


def stdin(tmp, inp, files, cache):
    bug("test_cache_stdin")
    with open(files[0], "rb") as f:
        data = f.read()
    plain = run_cmd(BIN, "trace", "summary", "--json", "-", input=data,
                    text=False, env=ENV)
    for k in range(2):
        got = run_cmd(BIN, "-v", "trace", "summary", "--json", "--cache",
                      cache, "-", input=data, text=False, env=ENV)
        check(got.returncode == plain.returncode and
              got.stdout == plain.stdout, "standard input: as without")
        check(b"1 not cacheable" in got.stderr, "standard input is not "
              "cached: %r" % got.stderr[-200:])


def env(tmp, inp, files, cache, big):
    bug("test_cache_env")
    c = os.path.join(tmp, "envcache")
    e = dict(ENV, STREAMTIME_CACHE=c)
    plain = run("summary", *big)
    got = run("summary", *big, env=e)
    check(got == plain, "$STREAMTIME_CACHE: as without")
    check(len(entries(c)) == len(big) + 1, "$STREAMTIME_CACHE: entries "
          "written there: %d" % len(entries(c)))
    rc, _, err = run("-v", "summary", *big, env=e)
    check(b"the run's entry" in err, "$STREAMTIME_CACHE: a rerun hits")


def bad_lines(tmp, inp, files, cache):
    bug("test_cache_bad_lines")
    bad = os.path.join(tmp, "bad.pfw")
    big_trace(bad, n=100)
    with open(bad, "a") as f:
        f.write('{"id":1,"name":"read","cat":"POS\n')
    gz = os.path.join(tmp, "cut.pfw.gz")
    with open(files[0], "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    with open(gz, "r+b") as f:
        f.truncate(os.path.getsize(gz) - 100)
    c = os.path.join(tmp, "badcache")
    for args in ([bad], [bad, files[0]], [gz, bad]):
        plain = same(["--json"], args, c, "bad lines " + str(len(args)))
        check(plain[0] == (65 if gz in args else 0), "exit %d" % plain[0])
        check(b"corrupt" in plain[2] or b"line" in plain[2],
              "the corrupt line is named: %r" % plain[2][:200])
        for k in range(2):
            check(run("summary", "--json", "--cache", c, *args) == plain,
                  "rerun %d: same messages and exit status" % k)
    rc, _, err = run("-v", "summary", "--cache", c, gz)
    check(b"1 not cacheable" in err or b"0 entries written" in err,
          "a damaged gzip is not cached: %r" % err[-200:])


def body(tmp):
    inp = os.path.join(tmp, "in")
    os.mkdir(inp)
    files = []
    for i in range(3):
        p = os.path.join(inp, "t%d.pfw" % i)
        big_trace(p, dur=7)
        files.append(p)
    big = [os.path.join(tmp, "b%d.pfw" % i) for i in range(6)]
    for i, b in enumerate(big):
        big_trace(b, n=9000, dur=5 + i)
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    for f in files:
        shutil.copy(f, ro)
    # a file changed in the last 2 s is read but not kept (coarse
    # timestamps): let them settle
    time.sleep(2.2)
    cache = os.path.join(tmp, "cache")
    identical_outputs(tmp, inp, files, cache)
    for fx in ("cm1-rank0-new-format.pfw.gz", "posix-old-format.pfw",
               "small.pfw"):
        if os.path.exists(os.path.join(DF, fx)):
            bug("test_cache_same_output")
            fxs = [os.path.join(DF, fx)]
            same(["--json", "--group-by", "file"], fxs, cache, fx)
            same([], fxs, cache, fx)
    inplace(tmp, inp, files, cache)
    replaced(tmp, inp, files, cache)
    options(tmp, inp, files, cache)
    corrupt(tmp, inp, big[:3], cache)
    concurrent(tmp, inp, files, cache)
    readonly(tmp, inp, files, cache)
    bound(tmp, inp, files, cache, big)
    env(tmp, inp, files, cache, big)
    stdin(tmp, inp, files, cache)
    racy(tmp, inp, files, cache)
    bad_lines(tmp, inp, files, cache)


def main():
    return run_in_tmp("cache_check", body)


if __name__ == "__main__":
    sys.exit(main())
