#!/usr/bin/env python3
"""CLI test: `streamtime trace plot DIR` (issue 15 item 5, the figure).

Usage: sysplot_check.py STREAMTIME SOURCE_ROOT

On directories written here in trace record's layout (no root needed): a
trainer (pid 100) with 10 reads and 5 writes, its loader child (pid 101)
with 3000 reads (over ST_SYSPLOT_BARS: drawn as busy share per column),
mpstat rows, MLLOG epochs and an eval.  Checks, with Python's standard
library only: the PNG (signature, IHDR size, CRCs) and the SVG (parsed as
XML); the SVG's text layer holds the process names, call kinds and phase
labels; the bars drawn per row (the rectangles of the row's paths,
assigned to rows by the y of the row names) equal the calls the test
wrote (sparse rows) or the distinct columns of the axis the calls touch,
computed here from the caption's axis ends (the dense row); bad input
exits as trace summary's (65 not a trace set, 64 a time-align trace
without --date, 65 nothing to draw) leaving the output directory as it
was; --format svg writes the SVG only; the GPU panels on the real pmon
sample (../shared/fixtures/systrace/gpu_pmon_dgx.out) beside a small
trace.  As root with bpftrace: a real `trace record` of
tests/systrace/workload.py drawn (77 only off CI and not root, as
tests/cli/setup_rule.py says).
"""
import datetime
import json
import math
import os
import re
import shutil
import struct
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import setup_rule  # noqa: E402
from checks import bug, check, record_manifest, report, runner  # noqa: E402
from figcheck import DEJAVU, Font, read_pdf  # noqa: E402

TEST = "cli-sysplot"
EXE = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
PMON = os.path.join(SRC, "..", "shared", "fixtures", "systrace",
                    "gpu_pmon_dgx.out")
COLS = 1000
st = runner(EXE, timeout=300)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def png_size(path):
    """(width, height) of a PNG whose chunks and CRCs are checked."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("no PNG signature")
    i, kinds, wh = 8, [], None
    while i < len(b):
        n, = struct.unpack(">I", b[i:i + 4])
        kind, data = b[i + 4:i + 8], b[i + 8:i + 8 + n]
        crc, = struct.unpack(">I", b[i + 8 + n:i + 12 + n])
        if zlib.crc32(kind + data) != crc:
            raise ValueError("bad CRC in %r" % kind)
        if kind == b"IHDR":
            wh = struct.unpack(">II", data[:8])
        kinds.append(kind)
        i += 12 + n
    if kinds[0] != b"IHDR" or kinds[-1] != b"IEND":
        raise ValueError("chunks %s" % kinds)
    return wh


def svg_read(path):
    """The texts (text, x, y) and the filled paths (colour, [rects]) of an
    SVG, rects as (x0, y0, x1, y1)."""
    root = ET.parse(path).getroot()
    texts, paths = [], []
    for e in root.iter():
        tag = e.tag.split("}")[-1]
        if tag == "text":
            texts.append((e.text or "", float(e.get("x")), float(e.get("y"))))
        elif tag == "path" and "fill:rgb" in (e.get("style") or ""):
            rects = []
            for sub in e.get("d", "").split("Z"):
                nums = [float(v) for v in re.findall(r"-?[\d.]+", sub)]
                if len(nums) == 8 and "C" not in sub:
                    xs, ys = nums[0::2], nums[1::2]
                    rects.append((min(xs), min(ys), max(xs), max(ys)))
            style = e.get("style")
            paths.append((re.search(r"fill:rgb\(([^)]*)\)", style).group(1),
                          rects))
    return texts, paths


def row_names(texts):
    """The row names of the calls panel: {(process, kind): y centre}, the
    process taken from the last name that holds one ('NAME PID · KIND')."""
    rows, proc = {}, None
    for t, x, y in texts:
        m = re.match(r"^\s*(?:\u21b3 )?(.+?) \u00b7 (\w+)$", t)
        if m:
            proc = m.group(1)
            rows[(proc, m.group(2))] = y - 0.73 * 9.0 * 0.5
        elif proc and re.match(r"^\w+$", t) and t in (
                "read", "write", "openat", "close", "mmap", "bio_read"):
            rows[(proc, t)] = y - 0.73 * 9.0 * 0.5
    return rows


def bars_per_row(paths, rows):
    """Rectangles of the filled paths whose centre lies in a row (within
    5 points of its centre, narrower than a row), per row."""
    out = {k: 0 for k in rows}
    for colour, rects in paths:
        for x0, y0, x1, y1 in rects:
            if y1 - y0 > 12:
                continue
            yc = (y0 + y1) / 2
            for k, c in rows.items():
                if abs(yc - c) <= 5.5:
                    out[k] += 1
                    break
    return out


def axis_ends(texts):
    for t, _, _ in texts:
        m = re.match(r"time axis \(UTC\): (\S+) to (\S+)", t)
        if m:
            f = datetime.datetime.fromisoformat
            return (round(f(m.group(1)).timestamp() * 1e6),
                    round(f(m.group(2)).timestamp() * 1e6))
    return None


BASE = 1700000000 * 10**9     # UTC ns of mono 0 in the record layout


def record_dir(d, base=BASE, dense=3000, mpstat_date="11/14/23"):
    """A trace record directory; returns {(pid, kind): [(s_us, e_us)]}."""
    os.makedirs(d)
    record_manifest(d, base)
    write(os.path.join(d, "trace_proc.out"),
          "TIMESTAMP EVENT PID PPID COMM\n1000 fork 100 50 bash\n"
          "1100 exec 100 -1 trainer\n1200 fork 101 100 trainer\n"
          "1300 exec 101 -1 loader\n")
    calls = {}
    lines = ["Attaching 4 probes...",
             "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME"]
    for i in range(10):                       # 1 ms each, at 2 s .. 11 s
        end = (2 + i) * 10**9 + 10**6
        lines.append("%d 100 100 3 4096 1000000 /data/a.bin" % end)
        calls.setdefault((100, "read"), []).append(
            ((base + end - 10**6) // 1000, (base + end) // 1000))
    for i in range(dense):                    # 0.5 ms each, every 2 ms
        end = 3 * 10**9 + i * 2 * 10**6 + 500000 + 17
        lines.append("%d 101 101 4 100 500000 /data/b.bin" % end)
        calls.setdefault((101, "read"), []).append(
            ((base + end - 500000) // 1000, (base + end) // 1000))
    write(os.path.join(d, "trace_read.out"), "\n".join(lines) + "\n")
    lines = lines[:2]
    for i in range(5):
        end = (4 + 2 * i) * 10**9 + 2 * 10**6
        lines.append("%d 100 100 5 8192 2000000 /data/out.bin" % end)
        calls.setdefault((100, "write"), []).append(
            ((base + end - 2 * 10**6) // 1000, (base + end) // 1000))
    write(os.path.join(d, "trace_write.out"), "\n".join(lines) + "\n")
    s0 = base // 10**9
    hms = lambda s: datetime.datetime.fromtimestamp(
        s, datetime.timezone.utc).strftime("%H:%M:%S")
    rows = ["Linux 6.1.0 (node1) \t%s \t_x86_64_\t(2 CPU)" % mpstat_date, "",
            "%s     CPU    %%usr   %%nice    %%sys %%iowait    %%irq   %%soft  "
            "%%steal  %%guest  %%gnice   %%idle" % hms(s0 + 1)]
    for k in range(2, 13):
        # work under nice (cron, shared nodes) is busy too: %nice 7
        rows.append("%s     all   %5.2f    %4.2f    %4.2f    %4.2f    0.00    "
                    "0.00    0.00    0.00    0.00   %5.2f" %
                    (hms(s0 + k), 40 + k, 7.0, 5.0, 2.0, 46 - k))
    write(os.path.join(d, "cpu.out"), "\n".join(rows) + "\n")
    ml = []
    ms0 = base // 10**6
    for key, et, t, num in (("init_start", "INTERVAL_START", 500, None),
                            ("init_stop", "INTERVAL_END", 1500, None),
                            ("epoch_start", "INTERVAL_START", 1600, 1),
                            ("eval_start", "INTERVAL_START", 5000, 1),
                            ("eval_stop", "INTERVAL_END", 5800, 1),
                            ("epoch_stop", "INTERVAL_END", 6000, 1),
                            ("epoch_start", "INTERVAL_START", 6100, 2),
                            ("epoch_stop", "INTERVAL_END", 11500, 2)):
        md = {"epoch_num": num} if num else {}
        ml.append(":::MLLOG " + json.dumps({
            "time_ms": ms0 + t, "event_type": et, "key": key,
            "metadata": md}))
    write(os.path.join(d, "command.stdout.log"), "\n".join(ml) + "\n")
    return calls


def expected_columns(spans, t0, t1):
    """The columns of [t0, t1] (COLS of them) that the calls touch, as
    sysplot.h defines them."""
    cols = set()
    for s, e in spans:
        c0 = min(COLS - 1, max(0, math.floor((s - t0) / (t1 - t0) * COLS)))
        c1 = min(COLS - 1, math.floor((e - t0) / (t1 - t0) * COLS))
        if c1 > c0 and t0 + c1 * (t1 - t0) / COLS >= e:
            c1 -= 1
        cols.update(range(c0, c1 + 1))
    return cols


def figure_ok(out, what, formats=("png", "svg")):
    png = os.path.join(out, "systrace_overview.png")
    svg = os.path.join(out, "systrace_overview.svg")
    if "png" in formats and check(os.path.isfile(png), "%s: no PNG" % what):
        try:
            w, h = png_size(png)
            check(w == 1280 and 300 <= h <= 4 * w,
                  "%s: PNG is %dx%d" % (what, w, h))
        except (ValueError, struct.error) as e:
            check(False, "%s: PNG: %s" % (what, e))
    if not check(os.path.isfile(svg), "%s: no SVG" % what):
        return None
    try:
        return svg_read(svg)
    except (ET.ParseError, ValueError, AttributeError) as e:
        check(False, "%s: SVG: %s" % (what, e))
        return None


def offline(top):
    d = os.path.join(top, "rec")
    calls = record_dir(d)
    out = os.path.join(top, "fig")
    r = st("trace", "plot", d, "--out-dir", out)
    check(r.returncode == 0, "trace plot: exit %d: %s" % (r.returncode,
                                                          r.stderr))
    got = figure_ok(out, "record layout")
    if got:
        texts, paths = got
        words = " ".join(t for t, _, _ in texts)
        for w in ("trainer 100", "loader 101", "read", "write", "epoch 1",
                  "epoch 2", "eval 1", "%usr", "%nice", "%iowait",
                  "times aligned to UTC within 80 ns"):
            check(w in words, "the SVG's text holds %r: %s" % (w, words[:600]))
        rows = row_names(texts)
        want = {("trainer 100", "read"): len(calls[(100, "read")]),
                ("trainer 100", "write"): len(calls[(100, "write")])}
        ends = axis_ends(texts)
        check(ends is not None, "the caption gives the axis' ends")
        lo = min(s for v in calls.values() for s, _ in v)
        # the axis starts at the earlier of the first call and the first
        # mpstat sample (the middle of the second it averages)
        first_cpu = (BASE // 10**9 + 2) * 10**6 - 500000
        check(ends and ends[0] == min(lo, first_cpu),
              "the axis starts at the first call or sample: %s vs %d" %
              (ends, min(lo, first_cpu)))
        n = bars_per_row(paths, rows)
        for k, v in want.items():
            check(n.get(k) == v, "sysplot_bars_per_row: row %s: %s bars, "
                  "%d calls written" % (k, n.get(k), v))
        if ends:
            cols = expected_columns(calls[(101, "read")], *ends)
            k = ("\u21b3 loader 101", "read")
            k = k if k in rows else ("loader 101", "read")
            check(n.get(k) == len(cols) and 0 < len(cols) <= COLS,
                  "sysplot_dense_row_columns: loader's 3000 reads: %s bars, "
                  "%d columns touched (rows %s)" % (n.get(k), len(cols),
                                                    sorted(rows)))
        check(sum(len(r) for _, r in paths) < 4000,
              "the drawing stays bounded: %d rectangles" %
              sum(len(r) for _, r in paths))
    # --filter: the loader only
    out2 = os.path.join(top, "fig-filter")
    r = st("trace", "plot", d, "--out-dir", out2, "--filter", "pid=101",
           "--format", "svg")
    check(r.returncode == 0 and sorted(os.listdir(out2)) ==
          ["systrace_overview.svg"], "--filter pid=101 --format svg: exit "
          "%d, files %s: %s" % (r.returncode, os.listdir(out2)
                                if os.path.isdir(out2) else None, r.stderr))
    got = figure_ok(out2, "--filter", formats=("svg",))
    if got:
        words = " ".join(t for t, _, _ in got[0])
        check("loader 101" in words and "trainer 100 \u00b7" not in words,
              "--filter pid=101 draws the loader's rows only: %s" %
              words[:400])
    # bad input: as trace summary's, the output left as it was
    before = {f: open(os.path.join(out, f), "rb").read()
              for f in os.listdir(out)}
    bad = os.path.join(top, "notaset")
    os.makedirs(bad)
    write(os.path.join(bad, "notes.txt"), "hello\n")
    r = st("trace", "plot", bad, "--out-dir", out)
    check(r.returncode == 65 and "not a trace set" in r.stderr,
          "not a trace set: 65: %d %s" % (r.returncode, r.stderr))
    nodate = os.path.join(top, "nodate")
    os.makedirs(nodate)
    write(os.path.join(nodate, "trace_time_align.out"),
          "TIMESTAMP TIME\n5000000000 10:00:00\n")
    r = st("trace", "plot", nodate, "--out-dir", out)
    check(r.returncode == 64 and "--date" in r.stderr,
          "a time-align trace without a date: 64 naming --date: %d %s" %
          (r.returncode, r.stderr))
    empty = os.path.join(top, "empty")
    os.makedirs(empty)
    write(os.path.join(empty, "trace_read.out"),
          "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n")
    r = st("trace", "plot", empty, "--out-dir", out)
    check(r.returncode == 65 and "nothing to draw" in r.stderr,
          "no call and no sample: 65 nothing to draw: %d %s" %
          (r.returncode, r.stderr))
    r = st("trace", "plot", d, "--out-dir", out, "--format", "gif")
    check(r.returncode == 64, "--format gif: 64: %d" % r.returncode)
    after = {f: open(os.path.join(out, f), "rb").read()
             for f in os.listdir(out)}
    check(after == before, "failed runs left the output directory as it "
          "was: %s" % sorted(after))
    # the GPU panels: the real pmon sample beside a small trace at its time
    if check(os.path.exists(PMON), "the pmon sample is there: %s" % PMON):
        g = os.path.join(top, "gpu")
        gbase = int(datetime.datetime(2023, 2, 11, 8, 11, 17, tzinfo=
                                      datetime.timezone.utc).timestamp()) \
            * 10**9
        record_dir(g, base=gbase, dense=10, mpstat_date="02/11/23")
        shutil.copy(PMON, os.path.join(g, "gpu.out"))
        gout = os.path.join(top, "gfig")
        r = st("trace", "plot", g, "--out-dir", gout)
        check(r.returncode == 0, "gpu: exit %d: %s" % (r.returncode,
                                                       r.stderr))
        got = figure_ok(gout, "gpu")
        if got:
            words = [t for t, _, _ in got[0]]
            # awk on the sample: GPUs 0..7 appear
            check(all("gpu%d" % i in words for i in range(8)) and
                  "gpu8" not in words and "GPU sm % (pmon)" in words and
                  "GPU memory % (pmon)" in words,
                  "sysplot_gpu_panels: 8 GPUs in two panels: %s" % words)

    # sysplot_empty_calls_panel_ticks: a set with no call file (mpstat and
    # the application's log only): the calls panel says none in its title
    # and has no numeric y ticks (it showed -2 and -1)
    e = os.path.join(top, "cpuonly")
    record_dir(e)
    for f in ("trace_read.out", "trace_write.out", "trace_proc.out"):
        os.remove(os.path.join(e, f))
    eout = os.path.join(top, "efig")
    r = st("trace", "plot", e, "--out-dir", eout)
    check(r.returncode == 0, "no calls: exit %d: %s" % (r.returncode,
                                                        r.stderr))
    got = figure_ok(eout, "no calls")
    if got:
        words = [t for t, _, _ in got[0]]
        check("calls per process and kind: none" in words and
              not any(re.fullmatch(r"-\d+", w) for w in words) and
              "%nice" in words,
              "sysplot_empty_calls_panel_ticks: %s" % words)


def labelled_set(d, base=BASE):
    """A set whose init (50 ms) ends 10 ms before epoch 1 starts, a few
    points apart on a 10 s axis, epoch 1 holding a narrow eval 1 at its
    end, epoch 2 a wide eval 2; calls at 0.5 s and 10.5 s make the axis.
    Returns (the phases {name: (start, end) in UTC s}, the axis' ends)."""
    os.makedirs(d)
    write(os.path.join(d, "trace_proc.out"),
          "TIMESTAMP EVENT PID PPID COMM\n1100 exec 100 -1 trainer\n")
    write(os.path.join(d, "trace_read.out"),
          "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n"
          "%d 100 100 3 4096 1000000 /a\n%d 100 100 3 4096 1000000 /a\n"
          % (base + 501 * 10**6, base + 10501 * 10**6))
    phases = {"init": (1000, 1050), "epoch 1": (1060, 5000),
              "eval 1": (4900, 4980), "epoch 2": (5000, 9000),
              "eval 2": (7000, 8900)}
    ml = []
    for name, (t0, t1) in phases.items():
        key, num = (name.split() + [None])[:2]
        md = {"epoch_num": int(num)} if num else {}
        for t, kind, et in ((t0, "_start", "INTERVAL_START"),
                            (t1, "_stop", "INTERVAL_END")):
            ml.append((t, ":::MLLOG " + json.dumps({
                "time_ms": base // 10**6 + t, "event_type": et,
                "key": key + kind, "metadata": md})))
    write(os.path.join(d, "command.stdout.log"),
          "\n".join(line for _, line in sorted(ml)) + "\n")
    s0 = base / 1e9
    return ({k: (s0 + a / 1e3, s0 + b / 1e3) for k, (a, b) in phases.items()},
            (s0 + 0.5, s0 + 10.501))


def phase_labels(top):
    """sysplot_phase_labels_apart: the phase labels of the overview (the
    SVG's text elements, boxes from DejaVu Sans' own metrics) never
    overlap, each stands inside its own phase's shading (x from the tick
    labels' centres), and the phases without a label are named in the
    caption.  It drew "init" under "epoch 1", over epoch 1's shading."""
    bug("sysplot_phase_labels_apart")
    d = os.path.join(top, "labels")
    phases, (lo, hi) = labelled_set(d)
    out = os.path.join(top, "labels-fig")
    r = st("trace", "plot", d, "--out-dir", out, "--format", "svg")
    if not check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr)):
        return
    font = Font(DEJAVU)
    day = datetime.datetime.fromtimestamp(lo, datetime.timezone.utc).date()
    ticks, labels, caption = [], [], None
    for e in ET.parse(os.path.join(out, "systrace_overview.svg")).iter():
        if not e.tag.endswith("text"):
            continue
        t, size = e.text or "", float(e.get("font-size"))
        x, y = float(e.get("x")), float(e.get("y"))
        w = font.width(t, size)
        if re.fullmatch(r"\d\d:\d\d:\d\d(\.\d+)?", t):
            tod = datetime.datetime.combine(day, datetime.time.fromisoformat(
                t), datetime.timezone.utc).timestamp()
            ticks.append((tod, x + w / 2))
        elif t in phases:
            labels.append((t, x, y - font.ascent * size / font.upem, x + w,
                           y - font.descent * size / font.upem))
        elif t.startswith("shaded, not labelled"):
            caption = t
    ticks.sort()
    if not check(len(ticks) >= 2, "tick labels: %s" % ticks):
        return
    (t0, x0), (t1, x1) = ticks[0], ticks[-1]
    px = lambda t: x0 + (t - t0) / (t1 - t0) * (x1 - x0)  # noqa: E731
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            check(not (a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and
                       b[2] < a[4]), "labels %s and %s overlap" % (a, b))
        s, e = (px(max(v, lo)) for v in phases[a[0]])
        e = min(e, px(hi))
        check(s - 0.01 <= a[1] and a[3] <= e + 0.01,
              "%r [%.2f, %.2f] stands outside its phase [%.2f, %.2f]" %
              (a[0], a[1], a[3], s, e))
    named = [t for t, *_ in labels]
    for name in phases:
        listed = caption is not None and re.search(
            r"[:,] %s(,| and|$)" % name, caption) is not None
        check((name in named) != listed, "%r: labelled %s, in the caption "
              "%s (%r)" % (name, name in named, listed, caption))
    # at 1000 points for 10 s: init and eval 1 are 4 and 6 points wide,
    # narrower than their names; the epochs and eval 2 have room
    check(sorted(named) == ["epoch 1", "epoch 2", "eval 2"] and caption ==
          "shaded, not labelled (no room): init, eval 1",
          "labels %s, caption %r" % (sorted(named), caption))
    bug(None)


def pdf_format(top):
    """trace plot --format pdf: systrace_overview.pdf alone, one page."""
    d = os.path.join(top, "pdfset")
    labelled_set(d)
    out = os.path.join(top, "pdf-fig")
    r = st("trace", "plot", d, "--out-dir", out, "--format", "pdf")
    check(r.returncode == 0 and os.path.isdir(out) and
          os.listdir(out) == ["systrace_overview.pdf"],
          "--format pdf: exit %d, files %s: %s" % (
              r.returncode, os.listdir(out) if os.path.isdir(out) else None,
              r.stderr))
    if r.returncode == 0:
        try:
            pages, boxes = read_pdf(os.path.join(out, "systrace_overview.pdf"))
            check(pages == 1 and len(boxes) == 1 and boxes[0][2] == 1000,
                  "--format pdf: %d pages, MediaBox %s" % (pages, boxes))
        except (ValueError, IndexError) as e:
            check(False, "--format pdf: %s" % e)


def real(top):
    """A real trace record around the workload, drawn."""
    if os.geteuid() != 0:
        setup_rule.missing(TEST, "not root: bpftrace needs root")
    # trace record's default tracers: bpftrace, and sysstat's mpstat
    setup_rule.need(TEST, ["bpftrace", "sysstat"])
    d = os.path.join(top, "real")
    wd = os.path.join(top, "wd")
    os.makedirs(wd)
    r = st("trace", "record", "--out", d, "--", sys.executable,
           os.path.join(SRC, "tests", "systrace", "workload.py"), "--dir",
           wd, "--truth", os.path.join(top, "truth.jsonl"), "--epochs", "3",
           "--sleep", "0.4")
    if r.returncode != 0:
        setup_rule.broken(TEST, "trace record", r.stderr[-500:])
    truth = [json.loads(line) for line in open(os.path.join(
        top, "truth.jsonl"))]
    out = os.path.join(top, "realfig")
    r = st("trace", "plot", d, "--out-dir", out)
    print("real recording drawn:", r.stderr.strip())
    check(r.returncode == 0, "real: exit %d: %s" % (r.returncode, r.stderr))
    got = figure_ok(out, "real recording")
    if got:
        words = " ".join(t for t, _, _ in got[0])
        pid = truth[0]["pid"]
        check(("%d \u00b7 read" % pid) in words and "epoch 1" in words and
              "epoch 3" in words and "%usr" in words,
              "real: the workload's pid %d, its epochs and the CPU: %s" %
              (pid, words[:800]))


def main():
    top = tempfile.mkdtemp(prefix="st-sysplot-")
    try:
        offline(top)
        phase_labels(top)
        pdf_format(top)
        real(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    return report("sysplot")


if __name__ == "__main__":
    sys.exit(main())
