#!/usr/bin/env python3
"""`streamtime trace events|summary DIR` on trace directories written with
the seed's own printf formats (issue 24 items 1, 3, 11, 14b; and its
trace_bio.bt's forms).

The seed (github.com/jovonho/mlperf-traces) prints, at HEAD (7e778f0,
840ae83):
  trace_read.bt    "%-17s %-6s %-4s %-12s %-12s %s\\n" TIMESTAMP PID FD
                   RET (B) LAT(ns) FILENAME; "%-17lu %-6d %-4d %-12lu
                   %-12lu %s\\n" (RET unsigned: an error is 2^64 - errno)
  trace_write.bt   "%-17s %-6s %-4s " TIMESTAMP PID FD, "%-13s %-8s %-10s
                   %-10s %-8s\\n" BUFFER ADDR OFFSET REQ (B) RET (B)
                   LAT(ns): no FILENAME named; each line "%-17lu %-6d %-4d
                   0x%-13lx %-8d %-10d " then "%-10d %-10d %s\\n", the
                   file's name as a 9th field
  trace_openat.bt  "%-17s %-6s %-5s %-8s %s %s\\n" TIMESTAMP PID FD LAT(ns)
                   FULLPATH FILENAME; "%-17lu %-6d %-5d %-8d %s %s\\n"
  trace_close.bt   "%-17s %-6s %-5s %-8s %s\\n"; "%-17lu %-6d %-5d %-8d %s\\n"
Read, write and close print the dentry's name (a basename), openat the
path as passed and then the dentry's name.  Before 44fc0ff the read
(1012d15) and write (0cc544b) scripts printed TID where PID is now.
The fixtures here are those formats filled with Python's % (lu, ld, lx
as d, d, x), behind bpftrace's "Attaching N probes..." line.

Every expected value is computed here from the calls written, not from
streamtime's output.  Each named check fails on 9968580.
usage: seed_check.py STREAMTIME
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run_in_tmp  # noqa: E402
from checks import run as run_cmd  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
PID = 4242
T0 = 5000000000000   # ns since boot

READ_H = ("%-17s %-6s %-4s %-12s %-12s %s\n",
          ("TIMESTAMP", "PID", "FD", "RET (B)", "LAT(ns)", "FILENAME"))
READ_L = "%-17d %-6d %-4d %-12d %-12d %s\n"
WRITE_H = (("%-17s %-6s %-4s ", ("TIMESTAMP", "PID", "FD")),
           ("%-13s %-8s %-10s %-10s %-8s\n",
            ("BUFFER ADDR", "OFFSET", "REQ (B)", "RET (B)", "LAT(ns)")))
WRITE_L = ("%-17d %-6d %-4d 0x%-13x %-8d %-10d ", "%-10d %-10d %s\n")
OPEN_H = ("%-17s %-6s %-5s %-8s %s %s\n",
          ("TIMESTAMP", "PID", "FD", "LAT(ns)", "FULLPATH", "FILENAME"))
OPEN_L = "%-17d %-6d %-5d %-8d %s %s\n"
CLOSE_H = ("%-17s %-6s %-5s %-8s %s\n",
           ("TIMESTAMP", "PID", "FD", "LAT(ns)", "FILENAME"))
CLOSE_L = "%-17d %-6d %-5d %-8d %s\n"
# before 44fc0ff: TID in the second column (1012d15, 0cc544b)
OLD_READ_H = ("%-17s %-6s %-4s %-10s %-10s %s\n",
              ("TIMESTAMP", "TID", "FD", "RET (B)", "LAT(ns)", "FILENAME"))
OLD_READ_L = "%-17d %-6d %-4d %-10d %-10d %s\n"
OLD_WRITE_H = (("%-17s %-6s %-4s ", ("TIMESTAMP", "TID", "FD")),
               WRITE_H[1])


def run(args):
    p = run_cmd(BIN, *args)
    return p.returncode, p.stdout, p.stderr


def put(d, name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)


def base(p):
    return p.rsplit("/", 1)[-1]


def calls():
    """The calls of the fixture, in time order: (kind, ts, fd, ret, lat,
    the path as opened, the dentry's name as printed), and the file each
    should be read as (None: no name)."""
    t = T0
    v = []

    def add(kind, fd, ret, lat, path, name, want):
        nonlocal t
        t += 1000000
        v.append(dict(kind=kind, ts=t, fd=fd, ret=ret, lat=lat, path=path,
                      name=name, want=want))

    data = "data/train/sample_003.npz"        # relative, as passed
    ckpt = "/ckpt/model epoch 1.pt"           # a space in the name
    add("openat", 5, 5, 20000, data, base(data), data)
    for _ in range(3):
        add("read", 5, 65536, 38277, data, base(data), data)
    add("read", 5, 0, 9000, data, base(data), data)
    add("close", 5, 0, 3000, data, base(data), data)
    add("openat", 6, 6, 25000, ckpt, base(ckpt), ckpt)
    add("write", 6, 1000, 47811, ckpt, base(ckpt), ckpt)
    add("write", 6, 2000, 50000, ckpt, base(ckpt), ckpt)
    add("close", 6, 0, 4000, ckpt, base(ckpt), ckpt)
    # stdout redirected before tracing (no openat): the basename stays
    add("write", 1, 120, 13611, None, "app.log", "app.log")
    # a pipe: no name printed
    add("write", 2, 80, 9000, None, "", None)
    # fd 5 reused for another file: its own path, not the first one's
    other = "data/val/sample_003.npz"
    add("openat", 5, 5, 21000, other, base(other), other)
    add("read", 5, 4096, 30000, other, base(other), other)
    # a failed read, printed %lu: 2^64 - EAGAIN (11)
    add("read", 7, -11, 5000, None, "speed", "speed")
    # a failed open: no dentry, an empty FILENAME
    add("openat", -2, -2, 15000, "missing/file.npz", "",
        "missing/file.npz")
    return v


def write_seed(d, v, tid_layout=False):
    """The four files of V in the seed's formats (HEAD, or the TID
    layout of 1012d15/0cc544b for read and write)."""
    rh, rl = (OLD_READ_H, OLD_READ_L) if tid_layout else (READ_H, READ_L)
    wh = OLD_WRITE_H if tid_layout else WRITE_H
    out = {"read": "Attaching 4 probes...\n" + rh[0] % rh[1],
           "write": ("Attaching 4 probes...\n" + wh[0][0] % wh[0][1] +
                     wh[1][0] % wh[1][1]),
           "openat": "Attaching 4 probes...\n" + OPEN_H[0] % OPEN_H[1],
           "close": "Attaching 3 probes...\n" + CLOSE_H[0] % CLOSE_H[1]}
    for c in v:
        k = c["kind"]
        if k == "read":
            ret = c["ret"] if c["ret"] >= 0 or tid_layout \
                else 2 ** 64 + c["ret"]
            out[k] += rl % (c["ts"], PID, c["fd"], ret, c["lat"], c["name"])
        elif k == "write":
            out[k] += (WRITE_L[0] % (c["ts"], PID, c["fd"], 0x7f0a9065a270,
                                     0, c["ret"]) +
                       WRITE_L[1] % (c["ret"], c["lat"], c["name"]))
        elif k == "openat":
            out[k] += OPEN_L % (c["ts"], PID, c["fd"], c["lat"], c["path"],
                                c["name"])
        else:
            out[k] += CLOSE_L % (c["ts"], PID, c["fd"], c["lat"], c["name"])
    for k, text in out.items():
        put(d, "trace_%s.out" % k, text)


def events(d):
    rc, out, err = run(["trace", "events", "--format", "jsonl", "--keys",
                        "", d])
    rows = [json.loads(x) for x in out.splitlines()] if rc == 0 else []
    return rc, rows, err


def by_kind(rows, kind):
    return sorted((r for r in rows if r["name"] == kind),
                  key=lambda r: (r["ts"] + r["dur"], r["file"] or ""))


def expect(v, kind):
    return [c for c in v if c["kind"] == kind]


def check_layout(tmp, tid_layout):
    tag = ("seed_tid_column_layout" if tid_layout
           else "seed_write_filename_9th_field")
    d = os.path.join(tmp, tag)
    os.mkdir(d)
    v = calls()
    write_seed(d, v, tid_layout)
    rc, rows, err = events(d)
    check(rc == 0, "%s: trace events exits 0 (%d: %s)" %
          (tag, rc, err.strip()))
    check("corrupt" not in err and "skipped" not in err,
          "%s: no line skipped: %s" % (tag, err.strip()))
    for kind in ("read", "write", "openat", "close"):
        want = expect(v, kind)
        got = by_kind(rows, kind)
        check(len(got) == len(want), "%s: %d %s events, not %d" %
              (tag, len(want), kind, len(got)))
        # ends in ns since boot: as µs, rounded down (no clock known)
        for w, g in zip(want, got):
            check(g["file"] == w["want"],
                  "%s: %s at %d: file %r, not %r" %
                  (tag, kind, w["ts"], w["want"], g["file"]))
            check(g["pid"] == PID, "%s: %s pid %d, not %r" %
                  (tag, kind, PID, g["pid"]))
            check(g["ts"] + g["dur"] == w["ts"] // 1000,
                  "%s: %s ends at %d µs, not %d" %
                  (tag, kind, w["ts"] // 1000, g["ts"] + g["dur"]))
            if kind in ("read", "write"):
                b = w["ret"] if w["ret"] >= 0 else None
                check(g["bytes"] == b, "%s: %s at %d: bytes %r, not "
                      "%r" % (tag, kind, w["ts"], b, g["bytes"]))
    # calls and bytes per file, as trace summary groups them
    rc, out, err = run(["trace", "summary", "--json", "--group-by", "file",
                        d])
    groups = json.loads(out).get("groups", {}) if rc == 0 else {}
    want = {}
    for c in v:
        n, b = want.get(c["want"] or "(none)", (0, 0))
        if c["kind"] in ("read", "write") and c["ret"] > 0:
            b += c["ret"]
        want[c["want"] or "(none)"] = (n + 1, b)
    got = {k: (g.get("count"), g.get("bytes")) for k, g in groups.items()}
    check(got == want, "%s: summary --group-by file: (calls, bytes) "
          "per file %r, not %r" % (tag, want, got))


def check_seed_write_filename_9th_field(tmp):
    """Item 1: the seed's trace_write.bt names 8 columns and prints 9."""
    check_layout(tmp, False)


def check_seed_tid_column_layout(tmp):
    """Item 1: the scripts' older form (TID, not PID, second)."""
    check_layout(tmp, True)


H = "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n"


def check_ps_kind_has_text(tmp):
    """Item 3: ps.out's kind in the text and in --json's files."""
    d = os.path.join(tmp, "ps")
    os.mkdir(d)
    put(d, "trace_read.out", H + "1000000000 7 7 3 10 100 /x\n")
    put(d, "ps.out", "PID PPID CMD\n7 1 app\n")
    rc, out, err = run(["trace", "summary", d])
    line = [x for x in out.splitlines() if x.startswith("ps.out")]
    check(rc == 0 and len(line) == 1 and "ps snapshot" in line[0] and
          "(null)" not in out,
          "ps_kind_has_text: ps.out's row names its kind: %r" % line)
    rc, out, err = run(["trace", "summary", "--json", d])
    files = []
    if rc == 0:
        for s in json.loads(out)["system"]:
            files += [f for f in s["files"] if f["file"] == "ps.out"]
    check(len(files) == 1 and files[0]["kind"] == "ps snapshot" and
          files[0]["lines"] == 2,
          "ps_kind_has_text: --json lists ps.out (2 lines): %r" % files)


def check_proc_tree_parent_cycle(tmp):
    """Item 11: pids 7 and 8 each the other's parent (a pid reused): the
    text summary prints both, each once."""
    d = os.path.join(tmp, "cycle")
    os.mkdir(d)
    put(d, "trace_read.out", H + "1000000000 7 7 3 10 100 /x\n"
        "1000001000 9 9 3 10 100 /y\n")
    put(d, "ps.out", "PID PPID CMD\n7 8 app\n8 7 launcher\n9 1 other\n")
    rc, out, err = run(["trace", "summary", d])
    lines = out.split("processes (children under their parents)\n", 1)
    tree = lines[1].split("\n\n", 1)[0].splitlines() if len(lines) > 1 \
        else []
    pids = sorted(int(x.split()[0]) for x in tree if x.strip())
    check(rc == 0 and pids == [7, 8, 9],
          "proc_tree_parent_cycle: the tree lists 7, 8, 9 once each: %r" %
          tree)


def check_header_too_many_columns(tmp):
    """Item 14b: a header of 300 columns is named as such (65, file and
    line), not 'no header line'."""
    d = os.path.join(tmp, "wide")
    os.mkdir(d)
    cols = ["TIMESTAMP", "PID"] + ["C%d" % i for i in range(298)]
    put(d, "trace_read.out", "Attaching 1 probe...\n" + " ".join(cols) +
        "\n" + " ".join(["1000000000", "7"] + ["1"] * 298) + "\n")
    rc, out, err = run(["trace", "summary", d])
    path = os.path.join(d, "trace_read.out")
    check(rc == 65 and (path + ":2:") in err and "no header" not in err and
          "more than 24 columns" in err,
          "header_too_many_columns: 65 naming %s:2 and the column count: "
          "%d %r" % (path, rc, err.strip()))


# trace_bio.bt's forms: HEAD (a735291), with SECTOR (7e778f0), and the
# first (d3a55ad: "CALLING PID", T the request's op as a number)
BIO = {
    "head": (("%-17s %-8s %-14s %-8s %-14s ", ("TIMESTAMP", "PID", "COMM",
                                               "DONEPID", "DONECOMM")),
             ("%-4s %-1s %-12s %s\n", ("DISK", "T", "BYTES", "LAT(ns)")),
             "%-17d %-8d %-14s %-8d %-14s %-4s ", "%-1s %-12d %d\n"),
    "sector": (("%-17s %-8s %-14s %-8s %-14s ", ("TIMESTAMP", "PID", "COMM",
                                                 "DONEPID", "DONECOMM")),
               ("%-4s %-1s %-16s %-12s %s\n", ("DISK", "T", "SECTOR",
                                               "BYTES", "LAT(ns)")),
               "%-17d %-8d %-14s %-8d %-14s %-4s ", "%-1s %-16d %-12d %d\n"),
    "d3a55ad": (("%-18s %-16s %-8s %-16s %-8s %-8s ",
                 ("TIMESTAMP", "COMM", "PID", "CALLER?", "CALLING PID",
                  "DISK")),
                ("%-1s %-12s %-8s %7s\n", ("T", "SECTOR", "BYTES",
                                           "LAT(ns)")),
                "%d %s %d %s %d %s ", "%d %d %d %d\n"),
}


def check_seed_bio_layouts(tmp):
    """The seed's bio column T (never T(R/W)); its first form's "CALLING
    PID" (one column) and T as REQ_OP (0 read, 1 write)."""
    reqs = [(5000001000000, 4242, "W", 4096, 120000),
            (5000002000000, 4242, "R", 65536, 98000),
            (5000003000000, 4243, "R", 8192, 50000)]
    for form, (h1, h2, l1, l2) in BIO.items():
        d = os.path.join(tmp, "bio_" + form)
        os.mkdir(d)
        text = "Attaching 3 probes...\n" + h1[0] % h1[1] + h2[0] % h2[1]
        for ts, pid, rw, size, lat in reqs:
            if form == "d3a55ad":
                text += l1 % (ts, "python", pid, "swapper/0", 0, "xvda")
                text += l2 % (1 if rw == "W" else 0, 123456, size, lat)
            else:
                text += l1 % (ts, pid, "python", 0, "swapper/0", "xvda")
                text += (l2 % (rw, size, lat) if form == "head" else
                         l2 % (rw, 123456, size, lat))
        put(d, "trace_bio.out", text)
        rc, rows, err = events(d)
        got = sorted((r["ts"] + r["dur"], r["pid"], r["name"], r["bytes"])
                     for r in rows)
        want = sorted((ts // 1000, pid, "bio_write" if rw == "W" else
                       "bio_read", size) for ts, pid, rw, size, lat in reqs)
        check(rc == 0 and got == want and "skipped" not in err,
              "seed_bio_layouts: %s: (end µs, pid, name, bytes) %r, not %r "
              "(%d %s)" % (form, want, got, rc, err.strip()))


def check_seed_sections_mixed(tmp):
    """trace_mmap.bt and trace_create_del.bt (HEAD) print every section's
    line and header in BEGIN, then the calls of all sections mixed: each
    call read under its own section's header (create_del's by its
    FUNCTION column)."""
    d = os.path.join(tmp, "sections")
    os.mkdir(d)
    mm = ("Attaching 5 probes...\nmmap():\n" +
          "%-17s %-6s %-4s %-13s %-8s %s\n" % ("TIMESTAMP", "PID", "FD",
                                               "ADDRESS", "LAT(ns)",
                                               "FILENAME") +
          "munmap():\n" +
          "%-17s %-6s %-13s %-8s %-8s\n" % ("TIMESTAMP", "PID", "ADDRESS",
                                            "LEN", "LAT(ns)"))
    cd = ("Attaching 7 probes...\nmkdir():\n" +
          "%-17s %-6s %-10s %-8s %-8s %s\n" % ("TIMESTAMP", "PID",
                                               "FUNCTION", "MODE",
                                               "LAT(ns)", "FILENAME") +
          "rmdir():\n" +
          "%-17s %-6s %-10s %-8s %s\n" % ("TIMESTAMP", "PID", "FUNCTION",
                                          "LAT(ns)", "FILENAME") +
          "unlink():\n" +
          "%-15s %-6s %-10s %-8s %s %s\n" % ("TIMESTAMP", "PID",
                                             "FUNCTION", "LAT(ns)",
                                             "FILENAME", "FULLPATH"))
    want = []
    t = T0
    for i in range(3):
        t += 1000000
        mm += "%-17d %-6d %-4d 0x%x %-8d %s\n" % (t, PID, 5, 0x7f0000001000,
                                                 3000, "sample_%d.npz" % i)
        want.append((t // 1000, "mmap", "sample_%d.npz" % i, None))
        t += 1000000
        mm += "%-17d %-6d %-4d 0x%x %-8d %s\n" % (t, PID, -1, 0x7f0000002000,
                                                 2000, "")   # anonymous
        want.append((t // 1000, "mmap", None, None))
        t += 1000000
        mm += "%-17d %-6d 0x%x %-8d %-8d\n" % (t, PID, 0x7f0000001000,
                                              8192 * (i + 1), 1500)
        want.append((t // 1000, "munmap", None, 8192 * (i + 1)))
        t += 1000000
        cd += "%-17d %-6d %-10s %-8d %-8d %s\n" % (t, PID, "mkdir()", 511,
                                                   4000, "ckpt/e%d" % i)
        want.append((t // 1000, "mkdir", "ckpt/e%d" % i, None))
        t += 1000000
        cd += "%-17d %-6d %-10s %-8d %s %s\n" % (t, PID, "unlink()", 5000,
                                                 "m.pt", "ckpt/e%d/m.pt" % i)
        want.append((t // 1000, "unlink", "ckpt/e%d/m.pt" % i, None))
        t += 1000000
        cd += "%-17d %-6d %-10s %-8d %s\n" % (t, PID, "rmdir()", 6000,
                                              "ckpt/e%d" % i)
        want.append((t // 1000, "rmdir", "ckpt/e%d" % i, None))
    put(d, "trace_mmap.out", mm)
    put(d, "trace_create_del.out", cd)
    rc, rows, err = events(d)
    got = sorted((r["ts"] + r["dur"], r["name"], r["file"], r["bytes"])
                 for r in rows)
    check(rc == 0 and got == sorted(want) and "skipped" not in err,
          "seed_sections_mixed: (end µs, name, file, bytes) %r, not %r "
          "(%d %s)" % (sorted(want), got, rc, err.strip()[:300]))


def body(tmp):
    check_seed_write_filename_9th_field(tmp)
    check_seed_tid_column_layout(tmp)
    check_ps_kind_has_text(tmp)
    check_proc_tree_parent_cycle(tmp)
    check_header_too_many_columns(tmp)
    check_seed_bio_layouts(tmp)
    check_seed_sections_mixed(tmp)


if __name__ == "__main__":
    sys.exit(run_in_tmp("cli-seed", body))
