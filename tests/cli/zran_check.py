#!/usr/bin/env python3
"""One big .pfw.gz read in ranges (issue 27 item 2): with --cache DIR the
first read of a gzip input of 1 MiB or more keeps its access points in
DIR; a later -j N read (trace summary, trace compare) with result entries
gone reads it in N ranges, one thread each, and says what a sequential
read says.  Named checks:
  test_zran_split_same_output  a generated trace (bench/gen_pfw.py, tens
                               of MB inflated) and ten copies of the cm1
                               fixture (its M events mapping hashes, again
                               and again) as one gzip of many members: the
                               index built and kept in DIR only, then -j 2
                               and -j 3 read in ranges (-v says so), stdout
                               and stderr byte-identical to -j 1 without
                               the cache (and to BASE, another streamtime,
                               when given), the events and their total dur
                               those Python counts in the file;
  test_zran_compare_same_output  trace compare (--json and the table)
                               on the same files: -j 2 and -j 3 read in
                               ranges, byte-identical to -j 1 without the
                               cache, the count and dur Python's;
  test_zran_damaged_same_verdict  the file cut short and with a byte
                               flipped in its middle: the same message,
                               exit status and output as without the
                               cache;
  test_zran_rebuilt_after_inplace_change  the file rewritten in its middle,
                               size and mtime restored (os.utime): its old
                               index is not used, a new one is built, the
                               answers are the new file's;
  test_zran_tampered_index_not_trusted  an index whose CRC-32s are not
                               the file's (its entry whole): the ranges'
                               content checked against them fails, the
                               file is read from its start (the output as
                               without the cache), the index dropped, and
                               built again on the next read;
  test_zran_only_in_cache_dir  a read-only input folder: nothing written
                               beside the input;
  test_zran_rekeyed_index_same_verdict  the index of a good file put
                               under the key of a damaged copy (the key as
                               trace_cache.c makes it: "st1 zran VERSION
                               BUILD ZRAN_VERSION 0\n\n" and the file's
                               identity, its ZRAN_VERSION the one whose
                               key names the good file's index), so that
                               the copy is read in ranges from points
                               that are not its own: a file of 200-line
                               gzip members with the compression method
                               of a member where a point is flipped, and a
                               file of a big member and a small one
                               with the big one's CRC-32 flipped (the
                               reviewer's mm.pfw.gz and m3bad.pfw.gz): the
                               verdict, message, exit status and output of
                               -j 1 without the cache, with -j 4 (a range
                               from each point); the key checked on
                               a good copy first (read in ranges);
  test_zran_shifted_index_not_trusted  a file with its M events first and
                               corrupt lines: an index whose points say
                               their line starts a byte later, or whose
                               line numbers are one more (the reviewer's
                               tamper2.py): the output and warnings as
                               without the cache, not read in ranges.

usage: zran_check.py STREAMTIME FIXTURES SRC_ROOT [BASE]
"""
import glob
import gzip
import json
import os
import shutil
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import bug, check, run_in_tmp  # noqa: E402
from checks import run as run_cmd  # noqa: E402
import setup_rule  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
DF = os.path.join(os.path.abspath(sys.argv[2]), "dftracer")
ROOT = os.path.abspath(sys.argv[3])
BASE = os.path.abspath(sys.argv[4]) if len(sys.argv) > 4 else None
ENV = dict(os.environ)
ENV.pop("STREAMTIME_CACHE", None)


def run(*args, binary=BIN):
    p = run_cmd(binary, *args, text=False, env=ENV, timeout=300)
    return p.returncode, p.stdout, p.stderr


def entries(cache):
    return sorted(glob.glob(os.path.join(cache, "st1-*.entry")))


def indexes(cache):
    """The entries holding access points (their payload's magic)."""
    out = []
    for e in entries(cache):
        with open(e, "rb") as f:
            if b"\nstzran1\n" in f.read(400):
                out.append(e)
    return out


def drop_results(cache):
    """The result entries removed, the access points kept."""
    keep = set(indexes(cache))
    for e in entries(cache):
        if e not in keep:
            os.unlink(e)


def py_counts(path):
    """Python's own count of the X events in PATH and their total dur,
    and of the lines that are no JSON object."""
    n = dur = bad = 0
    with gzip.open(path, "rb") as f:
        for line in f:
            line = line.strip()
            if line in (b"", b"[", b"]"):
                continue
            try:
                e = json.loads(line)
            except ValueError:
                bad += 1
                continue
            if e.get("ph") == "X":
                n += 1
                dur += int(e["dur"])
    return n, dur, bad


def json_totals(out):
    j = json.loads(out)
    cats = j.get("by_cat") or j.get("categories") or []
    if isinstance(cats, dict):
        cats = list(cats.values())
    return j["events"], sum(int(c.get("dur_us", 0)) for c in cats)


def settle():
    """A file changed in the last 2 s is read but not kept."""
    time.sleep(2.2)


def make_inputs(tmp):
    plain = os.path.join(tmp, "plain")
    os.mkdir(plain)
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_pfw.py"),
                    DF, plain, "150000", "1"], check=True,
                   capture_output=True)
    inp = os.path.join(tmp, "in")
    os.mkdir(inp)
    big = os.path.join(inp, "gen.pfw.gz")
    with open(os.path.join(plain, "trace-00.pfw"), "rb") as f, \
            gzip.open(big, "wb", compresslevel=6) as g:
        shutil.copyfileobj(f, g)
    # the real fixture ten times over: ten gzip members, each mapping the
    # same hashes again
    cm1 = os.path.join(inp, "cm1x10.pfw.gz")
    with open(os.path.join(DF, "cm1-rank0-new-format.pfw.gz"), "rb") as f:
        one = f.read()
    with open(cm1, "wb") as f:
        for _ in range(10):
            f.write(one)
    # a corrupt line in the middle of a copy of the generated trace
    odd = os.path.join(inp, "odd.pfw.gz")
    with gzip.open(big, "rb") as f:
        lines = f.read().split(b"\n")
    lines[len(lines) // 2] = b'{"id":1,"name":broken'
    with gzip.open(odd, "wb", compresslevel=6) as g:
        g.write(b"\n".join(lines))
    return inp, [big, cm1, odd]


def split_same(tmp, inp, files, cache):
    bug("test_zran_split_same_output")
    for f in files:
        check(os.path.getsize(f) >= 1 << 20, "%s is 1 MiB or more" % f)
        for args in ([], ["--json"], ["--group-by", "file"]):
            plain = run("trace", "summary", "-j", "1", *args, f)
            check(plain[0] == 0, "%s: read: %r" % (f, plain[2][:300]))
            first = run("-v", "trace", "summary", "-j", "1", "--cache",
                        cache, *args, f)
            if not args:
                check(b"1 indexed" in first[2], "%s: the first read keeps "
                      "its access points: %r" % (f, first[2][-300:]))
            check(first[:2] == plain[:2], "%s %s: the first read with the "
                  "cache as without" % (f, args))
            for j in ("2", "3"):
                drop_results(cache)
                got = run("trace", "summary", "-j", j, "--cache", cache,
                          *args, f)
                check(got == plain, "%s %s -j %s: as -j 1 without the "
                      "cache: %r" % (f, args, j, got[2][:300]))
                drop_results(cache)
                got = run("-v", "trace", "summary", "-j", j, "--cache",
                          cache, *args, f)
                check(b"1 read in ranges" in got[2], "%s -j %s: read in "
                      "ranges: %r" % (f, j, got[2][-300:]))
            if BASE:
                check(run("trace", "summary", "-j", "1", *args, f,
                          binary=BASE) == plain,
                      "%s %s: as BASE reads it" % (f, args))
        drop_results(cache)
        rc, out, _ = run("trace", "summary", "-j", "2", "--json", "--cache",
                         cache, f)
        n, dur, bad = py_counts(f)
        check(rc == 0 and json_totals(out) == (n, dur),
              "%s -j 2: events and dur are Python's %d, %d: %r" %
              (f, n, dur, json_totals(out) if rc == 0 else rc))
        check(rc == 0 and json.loads(out).get("bad_lines", bad) == bad,
              "%s -j 2: the corrupt lines Python finds" % f)
    check(len(indexes(cache)) == len(files), "an index per file: %d" %
          len(indexes(cache)))


def compare_same(tmp, inp, files, cache):
    bug("test_zran_compare_same_output")
    mpath = os.path.join(tmp, "metrics.json")
    with open(mpath, "w") as f:
        json.dump([{"name": "io", "filter": "cat=POSIX", "value": "dur",
                    "per": "pid", "reduce": "max"},
                   {"name": "n", "value": "count"},
                   {"name": "d", "value": "dur"},
                   {"name": "files", "value": "count", "per": "file",
                    "reduce": "sum"},
                   {"name": "by", "value": "bytes", "by": "name",
                    "per": "thread", "reduce": "sum"}], f)
    for f in files:
        for extra in (["--json"], []):
            args = ["trace", "compare", "--metrics", mpath, *extra,
                    "--case", "a=" + f]
            plain = run(*args[:2], "-j", "1", *args[2:])
            run(*args[:2], "--cache", cache, *args[2:])
            for j in ("2", "3"):
                drop_results(cache)
                got = run(*args[:2], "-j", j, "--cache", cache, *args[2:])
                check(plain[0] == 0 and got == plain, "%s %s -j %s: as "
                      "without the cache: %r" % (f, extra, j, got[2][:300]))
                drop_results(cache)
                got = run("-v", *args[:2], "-j", j, "--cache", cache,
                          *args[2:])
                check(b"1 read in ranges" in got[2], "%s -j %s: read in "
                      "ranges: %r" % (f, j, got[2][-300:]))
        drop_results(cache)
        rc, out, _ = run("trace", "compare", "--metrics", mpath, "--json",
                         "-j", "2", "--cache", cache, "--case", "a=" + f)
        n, dur, _ = py_counts(f)
        vals = {m["name"]: m["values"]["a"]
                for m in json.loads(out)["metrics"]} if rc == 0 else {}
        check(vals.get("n") == n and vals.get("d") is not None and
              abs(vals["d"] - dur / 1e6) <= 1e-6 * max(1, dur / 1e6),
              "%s -j 2: count and dur are Python's %d, %d: %r" %
              (f, n, dur, vals))


def damaged(tmp, inp, files, cache):
    bug("test_zran_damaged_same_verdict")
    with open(files[0], "rb") as f:
        data = f.read()
    cut = os.path.join(inp, "cut.pfw.gz")
    flip = os.path.join(inp, "flip.pfw.gz")
    with open(cut, "wb") as f:
        f.write(data[:len(data) * 2 // 3])
    mid = bytearray(data)
    mid[len(mid) // 2] ^= 0x55
    with open(flip, "wb") as f:
        f.write(mid)
    settle()
    for f in (cut, flip):
        plain = run("trace", "summary", "-j", "1", f)
        check(plain[0] == 65, "%s: 65 without the cache: %r" %
              (f, plain[2][:300]))
        for j in ("1", "2", "1", "2"):
            got = run("trace", "summary", "-j", j, "--cache", cache, f)
            check(got == plain, "%s -j %s: the same verdict, message and "
                  "output as without the cache: %r" % (f, j, got[2][:300]))
        if BASE:
            check(run("trace", "summary", "-j", "1", f, binary=BASE) ==
                  plain, "%s: as BASE says" % f)
    check(len(indexes(cache)) == len(files), "no index kept of a damaged "
          "file: %d" % len(indexes(cache)))


def inplace(tmp, inp, files, cache):
    bug("test_zran_rebuilt_after_inplace_change")
    f = files[0]
    st = os.stat(f)
    run("trace", "summary", "--cache", cache, f)
    before = set(indexes(cache))
    # a new gzip of changed content, padded to the same size: a different
    # file with the size and mtime of the old one
    with gzip.open(f, "rb") as g:
        text = g.read()
    at = text.index(b'"dur":', len(text) // 2) + 6
    text = text[:at] + b"1" + text[at:]
    new = gzip.compress(text, compresslevel=9)
    check(len(new) <= st.st_size, "the new gzip fits")
    with open(f, "r+b") as fh:
        fh.write(new + b"\0" * (st.st_size - len(new)))
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    st2 = os.stat(f)
    check(st2.st_size == st.st_size and st2.st_mtime_ns == st.st_mtime_ns
          and st2.st_ino == st.st_ino, "size, mtime and inode kept")
    settle()
    drop_results(cache)
    plain = run("trace", "summary", "-j", "1", "--json", f)
    got = run("-v", "trace", "summary", "-j", "2", "--json", "--cache",
              cache, f)
    check(got[:2] == plain[:2], "the changed file's answer: %r" %
          (got[2][-300:],))
    check(b"0 read in ranges" in got[2] and b"1 indexed" in got[2],
          "the old index not used, a new one built: %r" % got[2][-300:])
    n, dur, _ = py_counts(f)
    check(got[0] == 0 and json_totals(got[1]) == (n, dur),
          "Python's count of the changed file")
    after = set(indexes(cache))
    check(len(after - before) == 1, "one new index: %d" %
          len(after - before))
    drop_results(cache)
    again = run("-v", "trace", "summary", "-j", "2", "--json", "--cache",
                cache, f)
    check(again[:2] == plain[:2] and b"1 read in ranges" in again[2],
          "then read in ranges from the new one: %r" % again[2][-300:])


def tamper(entry):
    """The CRC-32 of every access point in the index ENTRY flipped, its
    checksum made again: a whole entry, of an index that is not the
    file's."""
    return edit_points(entry, 3, lambda v: v ^ 1)


def tampered(tmp, inp, files, cache):
    bug("test_zran_tampered_index_not_trusted")
    f = files[0]
    c = os.path.join(tmp, "cache-tampered")
    plain = run("trace", "summary", "-j", "1", f)
    run("trace", "summary", "--cache", c, f)
    idx = indexes(c)
    check(len(idx) == 1 and tamper(idx[0]) > 0, "an index to tamper with")
    drop_results(c)
    got = run("-v", "trace", "summary", "-j", "2", "--cache", c, f)
    check(got[:2] == plain[:2], "a tampered index: the file read from its "
          "start, the output as without the cache: %r" % got[2][-300:])
    check(b"0 read in ranges" in got[2], "not read in ranges: %r" %
          got[2][-300:])
    check(not indexes(c), "the tampered index dropped")
    drop_results(c)
    got = run("-v", "trace", "summary", "-j", "2", "--cache", c, f)
    check(got[:2] == plain[:2] and b"1 indexed" in got[2],
          "then built again: %r" % got[2][-300:])


def readonly(tmp, inp, files, cache):
    bug("test_zran_only_in_cache_dir")
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    shutil.copy(files[1], ro)
    f = os.path.join(ro, os.path.basename(files[1]))
    settle()
    os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR)
    c = os.path.join(tmp, "cache-ro")
    try:
        listing = sorted(os.listdir(ro))
        plain = run("trace", "summary", f)
        first = run("-v", "trace", "summary", "--cache", c, f)
        drop_results(c)
        split = run("-v", "trace", "summary", "-j", "2", "--cache", c, f)
        check(first[:2] == plain[:2] and split[:2] == plain[:2],
              "a read-only input folder: as without the cache")
        check(b"1 read in ranges" in split[2], "read in ranges: %r" %
              split[2][-300:])
        check(sorted(os.listdir(ro)) == listing, "nothing beside the input")
        check(len(indexes(c)) == 1, "the index is in DIR")
    finally:
        os.chmod(ro, stat.S_IRWXU)
    for d in (inp,):
        check(all(x.endswith(".pfw.gz") for x in os.listdir(d)),
              "only the inputs in %s: %s" % (d, os.listdir(d)))


def file_id(path):
    """st_trace_cache_file_id's identity of PATH."""
    import hashlib
    st = os.stat(path)
    with open(path, "rb") as f:
        data = f.read()
    h = hashlib.sha256(data[:4096])
    if len(data) > 4096:
        h.update(data[-min(len(data) - 4096, 4096):])
    return "%d %d %d %d.%09d %d.%09d %s" % (
        st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns // 10**9,
        st.st_mtime_ns % 10**9, st.st_ctime_ns // 10**9,
        st.st_ctime_ns % 10**9, h.hexdigest())


def zran_key(path, zver):
    """The digest of PATH's index entry (trace_cache.c: zran_digest with
    key_start, build_id), ZRAN_VERSION ZVER."""
    import hashlib
    version = run("--version")[1].split()[1].decode()
    st = os.stat(BIN)
    build = "%d.%d.%d.%d.%09d" % (st.st_dev, st.st_ino, st.st_size,
                                  st.st_mtime_ns // 10**9,
                                  st.st_mtime_ns % 10**9)
    key = "st1 zran %s %s %d 0\n\n%s\n" % (version, build, zver,
                                          file_id(path))
    return hashlib.sha256(key.encode()).hexdigest()


def rekey(cache, good, other):
    """The index entry of GOOD in CACHE copied under OTHER's key: True
    when GOOD's entry was found."""
    for zver in range(1, 10):
        e = os.path.join(cache, "st1-%s.entry" % zran_key(good, zver))
        if os.path.exists(e):
            break
    else:
        return False
    with open(e, "rb") as f:
        head = f.read().split(b"\n", 2)
    d = zran_key(other, zver)
    with open(os.path.join(cache, "st1-%s.entry" % d), "wb") as f:
        f.write(b"\n".join([head[0], d.encode(), head[2]]))
    return True


def index_points(entry):
    """The (out, member_out) of each access point of the index ENTRY."""
    import struct
    with open(entry, "rb") as f:
        pay = f.read().split(b"\n", 3)[3]
    n = struct.unpack_from("<Q", pay, 24)[0]
    at, out = 48, []
    for _ in range(n):
        o, mo, cw = struct.unpack_from("<QQQ", pay, at + 8)
        out.append((o, mo))
        at += 56 + (cw >> 32)
    return out


def edit_points(entry, field, fn):
    """FIELD (3 crc and window length, 4 line_out, 5 lineno: the 64-bit
    words of a point) of every access point in the index ENTRY made
    FN(FIELD), its checksum made again: their number."""
    import hashlib
    import struct
    with open(entry, "rb") as f:
        head = f.read().split(b"\n", 3)
    pay = bytearray(head[3])
    n = struct.unpack_from("<Q", pay, 24)[0]
    at = 48
    for _ in range(n):
        v = struct.unpack_from("<Q", pay, at + 8 * field)[0]
        struct.pack_into("<Q", pay, at + 8 * field, fn(v))
        at += 56 + (struct.unpack_from("<Q", pay, at + 24)[0] >> 32)
    line = b"%d %s" % (len(pay), hashlib.sha256(pay).hexdigest().encode())
    with open(entry, "wb") as f:
        f.write(b"\n".join(head[:2] + [line, bytes(pay)]))
    return n


def shifted(tmp, inp, files, cache):
    bug("test_zran_shifted_index_not_trusted")
    with gzip.open(files[0], "rb") as f:
        lines = f.read().splitlines(keepends=True)
    # the M events first, so that a point's M count cannot tell its line
    # number wrong; corrupt lines, whose numbers are said
    meta = [x for x in lines if b'"M"' in x]
    rest = [x for x in lines if b'"M"' not in x]
    for k in range(1000, len(rest), 20000):
        rest[k] = b'{"id":1,"name":broken\n'
    f = os.path.join(tmp, "shifted.pfw.gz")
    with gzip.open(f, "wb", compresslevel=6) as g:
        g.write(b"".join(meta + rest))
    settle()
    plain = run("trace", "summary", "-j", "1", f)
    check(plain[0] == 0 and plain[2].count(b"corrupt line") > 5,
          "corrupt lines said: %r" % plain[2][-300:])
    for field, by, what in ((4, 1, "line_out + 1"), (5, 1, "lineno + 1")):
        c = os.path.join(tmp, "cache-shift%d" % field)
        run("trace", "summary", "--cache", c, f)
        idx = indexes(c)
        check(len(idx) == 1 and
              edit_points(idx[0], field, lambda v: v + by) > 1,
              "an index to shift")
        drop_results(c)
        got = run("-v", "trace", "summary", "-j", "4", "--cache", c, f)
        check(got[:2] == plain[:2] and plain[2] in got[2],
              "%s: the output and warnings as without the cache: %r" %
              (what, got[2][:300]))
        check(b"0 read in ranges" in got[2], "%s: not read in ranges: %r" %
              (what, got[2][-300:]))


def rekeyed(tmp, inp, files, cache):
    import zlib
    bug("test_zran_rekeyed_index_same_verdict")
    with gzip.open(files[0], "rb") as f:
        text = f.read()
    lines = text.splitlines(keepends=True)
    d = os.path.join(tmp, "rekeyed")
    os.mkdir(d)
    # 200-line members: their offsets, compressed and content
    mm = os.path.join(d, "mm.pfw.gz")
    starts, outs, data, out = [], [], bytearray(), 0
    for i in range(0, len(lines), 200):
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
        chunk = b"".join(lines[i:i + 200])
        starts.append(len(data))
        outs.append(out)
        data += c.compress(chunk) + c.flush()
        out += len(chunk)
    with open(mm, "wb") as f:
        f.write(data)
    # a big member and a small one (gen3.py's): 13.5 MiB of lines, a
    # block ended, 3.5 MiB of one line again and again (one block), so
    # that the points are one at about 8 MiB and one where the small
    # member starts: the range between resumes raw and ends where its
    # member does
    m3 = os.path.join(d, "m3.pfw.gz")
    cut = text.index(b"\n", 27 << 19) + 1
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    big = c.compress(text[:cut]) + c.flush(zlib.Z_FULL_FLUSH)
    big += c.compress(lines[-1] * ((7 << 19) // len(lines[-1]))) + c.flush()
    # less than 8 MiB (no point in it), fast (1 MiB or more in all)
    small = gzip.compress(text[cut:text.index(b"\n", cut + (7 << 20))],
                          1)
    with open(m3, "wb") as f:
        f.write(big + small)
    check(os.path.getsize(mm) >= 1 << 20 and os.path.getsize(m3) >= 1 << 20,
          "inputs of 1 MiB or more")
    c = os.path.join(tmp, "cache-rekeyed")
    settle()
    for f in (mm, m3):
        run("trace", "summary", "--cache", c, f)
    idx = indexes(c)
    check(len(idx) == 2, "an index of each: %d" % len(idx))
    pts = [p for e in idx for p in index_points(e)]
    at_start = [o for o, mo in pts if o == mo and o in outs]
    check(at_start, "a point where a member of mm starts: %r" % pts[:20])
    # the damaged copies, and a good one to check the key with
    copies = []
    good = os.path.join(d, "mm-copy.pfw.gz")
    shutil.copyfile(mm, good)
    cm = bytearray(data)
    if at_start:
        cm[starts[outs.index(at_start[len(at_start) // 2])] + 2] ^= 0x01
    bad_cm = os.path.join(d, "mm-cm.pfw.gz")
    with open(bad_cm, "wb") as f:
        f.write(cm)
    bad_crc = os.path.join(d, "m3-crc.pfw.gz")
    with open(bad_crc, "wb") as f:
        f.write(big[:-8] + bytes([big[-8] ^ 1]) + big[-7:] + small)
    copies = [(mm, good), (mm, bad_cm), (m3, bad_crc)]
    settle()
    for src, dst in copies:
        check(rekey(c, src, dst), "%s: its index found" % src)
    drop_results(c)
    for src, dst in copies:
        plain = run("trace", "summary", "-j", "1", dst)
        # -j 4: a range from each point (three of them, at 8 MiB)
        got = run("-v", "trace", "summary", "-j", "4", "--cache", c, dst)
        check(got[:2] == plain[:2], "%s -j 4 with %s's index: as without "
              "the cache: %r vs %r" % (dst, src, got[2][-300:],
                                       plain[2][-300:]))
        if dst == good:
            check(plain[0] == 0 and b"1 read in ranges" in got[2],
                  "the good copy read in ranges: %r" % got[2][-300:])
        else:
            check(plain[0] == 65, "%s: 65: %r" % (dst, plain[2][-300:]))
            msg = plain[2].splitlines()[:1]
            check(msg and msg[0] in got[2], "%s: the message %r" %
                  (dst, msg))


def body(tmp):
    inp, files = make_inputs(tmp)
    settle()
    cache = os.path.join(tmp, "cache")
    split_same(tmp, inp, files, cache)
    compare_same(tmp, inp, files, cache)
    damaged(tmp, inp, files, cache)
    inplace(tmp, inp, files, cache)
    tampered(tmp, inp, files, cache)
    readonly(tmp, inp, files, cache)
    rekeyed(tmp, inp, files, cache)
    shifted(tmp, inp, files, cache)


def main():
    if not os.path.isdir(DF):
        setup_rule.missing("zran_check", "no fixtures at %s" % DF)
    return run_in_tmp("zran_check", body)


if __name__ == "__main__":
    sys.exit(main())
