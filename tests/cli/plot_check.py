#!/usr/bin/env python3
"""CLI test: `streamtime plot` on the paper's data.

Usage: plot_check.py STREAMTIME PAPER_DATA

Runs `reproduce` into a temporary directory, then `plot`, and checks every
file with Python's standard library only: PNG chunks and CRCs (zlib.crc32),
the inflated image data and its row filters (unfiltered here), width >= 1200
and a sane height, red and blue pixels where the figure has file-transfer
and streaming bars; SVG parsed with xml.etree, with width, height and a
viewBox of the PNG's aspect.  Then: results with headers only ("no data"),
a missing input (66, named), a bad cell (65, file:line and column), usage
errors (64), --format, --help.  --format pdf: each PDF parsed here (header,
cross-reference table, page objects, also inside object streams, MediaBox,
%%EOF) and by poppler's pdfinfo where it is installed.  Exit 77 (meson: skipped) when PAPER_DATA is
absent.
"""
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import setup_rule  # noqa: E402
from checks import check, report, runner  # noqa: E402
from figcheck import pdfinfo, read_pdf  # noqa: E402
import tempfile
import time
import xml.etree.ElementTree as ET
import zlib

SIZES = [128, 256, 512, 1024]
FIGURES = ([f"transfer_hist_{s}" for s in SIZES] +
           ["transfer_hist_combined", "queue_hist", "queue_by_index",
            "queue_by_date", "streaming_box", "experiment_timeline"])
run = runner(timeout=120)


# ---- PNG ------------------------------------------------------------------

def swar_add(a, b, n):
    """Bytewise (a + b) mod 256 of two n-byte big-endian integers."""
    hi = int.from_bytes(b"\x80" * n, "big")
    lo = hi ^ int.from_bytes(b"\xff" * n, "big")
    return ((a & lo) + (b & lo)) ^ ((a ^ b) & hi)


def unfilter(raw, w, h, bpp):
    """The image bytes of a PNG's inflated IDAT data (all five filters)."""
    stride = w * bpp
    out = bytearray()
    prev = bytes(stride)
    filters = set()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        filters.add(f)
        if f == 0:
            cur = bytes(line)
        elif f == 2:
            cur = swar_add(int.from_bytes(line, "big"),
                           int.from_bytes(prev, "big"),
                           stride).to_bytes(stride, "big")
        elif f in (1, 3, 4):
            c = bytearray(line)
            for i in range(stride):
                a = c[i - bpp] if i >= bpp else 0
                b = prev[i]
                if f == 1:
                    p = a
                elif f == 3:
                    p = (a + b) // 2
                else:
                    cc = prev[i - bpp] if i >= bpp else 0
                    pa, pb, pc = abs(b - cc), abs(a - cc), abs(a + b - 2 * cc)
                    p = a if pa <= pb and pa <= pc else b if pb <= pc else cc
                c[i] = (c[i] + p) & 0xFF
            cur = bytes(c)
        else:
            raise ValueError(f"row {y}: filter type {f}")
        out += cur
        prev = cur
    return bytes(out), filters


def channel_mask(data, bpp, ch, lo, hi):
    """Bit per pixel: channel CH in [lo, hi]."""
    table = bytes(1 if lo <= v <= hi else 0 for v in range(256))
    return int.from_bytes(data[ch::bpp].translate(table), "big")


def read_png(path):
    """(width, height, rgb bytes) of an 8-bit RGB or RGBA PNG, checked."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("no PNG signature")
    i, chunks, idat = 8, [], b""
    while i < len(b):
        n, = struct.unpack(">I", b[i:i + 4])
        kind, data = b[i + 4:i + 8], b[i + 8:i + 8 + n]
        crc, = struct.unpack(">I", b[i + 8 + n:i + 12 + n])
        if zlib.crc32(kind + data) != crc:
            raise ValueError(f"bad CRC in {kind!r}")
        chunks.append(kind)
        if kind == b"IHDR":
            w, h, depth, ctype, comp, filt, inter = struct.unpack(">IIBBBBB", data)
        elif kind == b"IDAT":
            idat += data
        i += 12 + n
    if chunks[0] != b"IHDR" or chunks[-1] != b"IEND" or b"IDAT" not in chunks:
        raise ValueError(f"chunk order {chunks}")
    if depth != 8 or ctype not in (2, 6) or inter != 0:
        raise ValueError(f"depth {depth} colour type {ctype} interlace {inter}")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    if len(raw) != h * (w * bpp + 1):
        raise ValueError(f"{len(raw)} bytes of image data for {w}x{h}")
    pix, _ = unfilter(raw, w, h, bpp)
    return w, h, pix, bpp


def png_colours(pix, bpp):
    """Pixels: total, white, red-ish (file transfer), blue-ish (streaming)."""
    n = len(pix) // bpp
    white = (channel_mask(pix, bpp, 0, 255, 255) & channel_mask(pix, bpp, 1, 255, 255)
             & channel_mask(pix, bpp, 2, 255, 255))
    red = (channel_mask(pix, bpp, 0, 150, 255) & channel_mask(pix, bpp, 1, 0, 90)
           & channel_mask(pix, bpp, 2, 0, 90))
    blue = (channel_mask(pix, bpp, 0, 0, 90) & channel_mask(pix, bpp, 1, 60, 160)
            & channel_mask(pix, bpp, 2, 150, 255))
    return n, bin(white).count("1"), bin(red).count("1"), bin(blue).count("1")


# ---- PDF ------------------------------------------------------------------

def check_pdfs(figdir, what, svgdir):
    """Each NAME.pdf of FIGURES: one page the size of NAME.svg (points),
    as this script and pdfinfo read it."""
    for name in FIGURES:
        pdf = os.path.join(figdir, name + ".pdf")
        if not check(os.path.isfile(pdf), f"{what}: {name}.pdf missing"):
            continue
        try:
            pages, boxes = read_pdf(pdf)
        except (ValueError, IndexError) as e:
            check(False, f"{what}: {name}.pdf: {e}")
            continue
        sw, sh, _, _ = svg_size(os.path.join(svgdir, name + ".svg"))
        check(pages == 1, f"{what}: {name}.pdf has {pages} pages")
        check(boxes and all(bx == (0, 0, sw, sh) for bx in boxes),
              f"{what}: {name}.pdf MediaBox {boxes}, the SVG is {sw} x {sh}")
        info = pdfinfo(pdf)
        if info is not None:
            check(info == (1, sw, sh), f"{what}: {name}.pdf: pdfinfo says "
                  f"{info}, expected 1 page of {sw} x {sh} pts")


# ---- SVG ------------------------------------------------------------------

def svg_size(path):
    """(width, height, viewBox, drawn elements) of an SVG, parsed."""
    root = ET.parse(path).getroot()
    if not root.tag.endswith("svg"):
        raise ValueError(f"root element {root.tag}")
    for a in ("width", "height", "viewBox"):
        if a not in root.attrib:
            raise ValueError(f"no {a}")
    vb = [float(v) for v in root.attrib["viewBox"].replace(",", " ").split()]
    num = lambda s: float(s.rstrip("ptxm"))
    drawn = sum(1 for e in root.iter() if e.tag.split("}")[-1] in
                ("path", "use", "rect", "image"))
    return num(root.attrib["width"]), num(root.attrib["height"]), vb, drawn


def check_figures(figdir, what, expect_data):
    for name in FIGURES:
        png = os.path.join(figdir, name + ".png")
        svg = os.path.join(figdir, name + ".svg")
        if not check(os.path.isfile(png), f"{what}: {name}.png missing"):
            continue
        if not check(os.path.isfile(svg), f"{what}: {name}.svg missing"):
            continue
        try:
            w, h, pix, bpp = read_png(png)
        except (ValueError, zlib.error, struct.error) as e:
            check(False, f"{what}: {name}.png: {e}")
            continue
        check(w >= 1200, f"{what}: {name}.png is {w} px wide")
        check(300 <= h <= 4 * w, f"{what}: {name}.png is {h} px high")
        n, white, red, blue = png_colours(pix, bpp)
        check(white < n, f"{what}: {name}.png is blank")
        check(white > n // 2, f"{what}: {name}.png is mostly not background")
        if name.startswith("transfer_hist"):
            if expect_data:
                check(red > 1000, f"{what}: {name}.png: no file-transfer bars")
                check(blue > 1000, f"{what}: {name}.png: no streaming bars")
            else:
                check(red == 0 and blue == 0,
                      f"{what}: {name}.png: bars without data")
        if name == "queue_hist" and expect_data:
            check(red > 1000, f"{what}: queue_hist.png: no bars")
        if name.startswith("queue_by") and expect_data:
            # queue time is the file transfer's: red points, never the
            # streaming blue (issue 25 item 9)
            check(red > 500, f"{what}: {name}.png: no points")
            check(blue < 50, f"{what}: {name}.png: queue time drawn in "
                  f"the streaming blue ({blue} pixels)")
        try:
            sw, sh, vb, drawn = svg_size(svg)
        except (ET.ParseError, ValueError) as e:
            check(False, f"{what}: {name}.svg: {e}")
            continue
        check(len(vb) == 4 and vb[2] > 0 and vb[3] > 0,
              f"{what}: {name}.svg viewBox {vb}")
        check(abs(sw / sh - vb[2] / vb[3]) < 0.01,
              f"{what}: {name}.svg width/height vs viewBox")
        check(abs(w / h - vb[2] / vb[3]) < 0.01,
              f"{what}: {name}.png and .svg differ in aspect")
        check(drawn > 10, f"{what}: {name}.svg draws nothing")
    leftovers = [f for f in os.listdir(figdir) if f.startswith(".")]
    check(not leftovers, f"{what}: temporary files left: {leftovers}")


def pdf_writes_nothing(exe, results, paper, out, code, what):
    """plot --format pdf on RESULTS fails with CODE, OUT left empty."""
    r = run(exe, "plot", "--results", results, "--data", paper,
            "--out-dir", out, "--format", "pdf")
    files = os.listdir(out) if os.path.exists(out) else []
    check(r.returncode == code and not files, f"--format pdf, {what}: "
          f"exit {r.returncode}, files {files}")


def write_headers_only(src, dst):
    """Copy reproduce's result files, keeping only their header lines."""
    for sub in ("file_transfer", "streaming"):
        os.makedirs(os.path.join(dst, sub))
        for name in os.listdir(os.path.join(src, sub)):
            if not name.endswith(".csv"):
                continue
            with open(os.path.join(src, sub, name)) as f:
                header = f.readline()
            with open(os.path.join(dst, sub, name), "w") as f:
                f.write(header)


def main():
    exe, paper = sys.argv[1], sys.argv[2]
    if not os.path.isdir(paper):
        setup_rule.data_missing("cli-plot", paper)
    tmp = tempfile.mkdtemp(prefix="st-plot-")
    try:
        res = os.path.join(tmp, "res")
        r = run(exe, "reproduce", "--data", paper, "--out", res)
        if r.returncode != 0:
            print("reproduce failed:", r.stderr)
            return 1

        # the paper's data
        figs = os.path.join(tmp, "figs")
        t0 = time.monotonic()
        r = run(exe, "plot", "--results", res, "--data", paper,
                "--out-dir", figs)
        elapsed = time.monotonic() - t0
        print(f"plot on the paper's data: {elapsed * 1000:.0f} ms")
        check(r.returncode == 0, f"plot: exit {r.returncode}: {r.stderr}")
        check(r.stdout == "", f"plot printed to stdout: {r.stdout!r}")
        lines = r.stderr.strip().splitlines()
        check(len(lines) == 1 and "10 figures" in lines[0],
              f"plot: expected one info line with the count: {r.stderr!r}")
        check_figures(figs, "paper", True)
        check(sorted(os.listdir(figs)) ==
              sorted(n + e for n in FIGURES for e in (".png", ".svg")),
              f"unexpected files: {sorted(os.listdir(figs))}")

        # -q: nothing on stderr; --format svg: SVG only
        only = os.path.join(tmp, "svg-only")
        r = run(exe, "plot", "-q", "--results", res, "--data", paper,
                "--out-dir", only, "--format", "svg")
        check(r.returncode == 0 and r.stderr == "",
              f"--format svg -q: exit {r.returncode}: {r.stderr!r}")
        check(os.path.isdir(only) and
              sorted(os.listdir(only)) == sorted(n + ".svg" for n in FIGURES),
              "--format svg wrote other files")

        # plot --format pdf (issue 25 item 9): the PNGs' names as .pdf,
        # each a one-page PDF of the figure's size; with png,svg,pdf in any
        # order all three; a failure writes none
        pdfs = os.path.join(tmp, "pdf")
        r = run(exe, "plot", "--results", res, "--data", paper,
                "--out-dir", pdfs, "--format", "pdf")
        check(r.returncode == 0 and "10 figures (10 files)" in r.stderr,
              f"--format pdf: exit {r.returncode}: {r.stderr!r}")
        if r.returncode == 0:
            names = sorted(os.listdir(pdfs))
            check(names == sorted(f[:-4] + ".pdf" for f in os.listdir(figs)
                                  if f.endswith(".png")),
                  f"--format pdf: files {names} are not the PNGs' names")
            check_pdfs(pdfs, "paper", figs)
        every = os.path.join(tmp, "every")
        r = run(exe, "plot", "-q", "--results", res, "--data", paper,
                "--out-dir", every, "--format", "pdf,svg,png")
        check(r.returncode == 0 and r.stderr == "",
              f"--format pdf,svg,png: exit {r.returncode}: {r.stderr!r}")
        check(os.path.isdir(every) and sorted(os.listdir(every)) ==
              sorted(n + e for n in FIGURES for e in (".png", ".svg", ".pdf")),
              "--format pdf,svg,png: not every file")

        # results with headers only: valid figures that say "no data"
        empty = os.path.join(tmp, "empty")
        write_headers_only(res, empty)
        efigs = os.path.join(tmp, "efigs")
        r = run(exe, "plot", "--results", empty, "--data", paper,
                "--out-dir", efigs)
        check(r.returncode == 0, f"empty results: exit {r.returncode}: {r.stderr}")
        if r.returncode == 0:
            check_figures(efigs, "empty", False)

        # values at the ends of the double range: figures, no crash (the
        # bins are capped; ASan once saw a heap overflow here)
        huge = os.path.join(tmp, "huge")
        shutil.copytree(res, huge)
        st128 = os.path.join(huge, "streaming", "streaming_times_128.csv")
        with open(st128) as f:
            head = f.readline()
        cols = head.strip().split(",")
        with open(st128, "w") as f:
            f.write(head)
            for v in ("-1.7e308", "1.7e308", "4.0"):
                row = {"distiller_id": "1", "scan_number": "2709",
                       "nersc_write_time": "2023-10-13T16:45:14+00:00",
                       "ncem_created_time": "2023-10-13T16:45:09+00:00",
                       "time_difference_seconds": v, "latency_seconds": v}
                f.write(",".join(row.get(c, "") for c in cols) + "\n")
        r = run(exe, "plot", "--results", huge, "--data", paper,
                "--out-dir", os.path.join(tmp, "hfigs"))
        check(r.returncode == 0, f"extreme values: exit {r.returncode}: "
              f"{r.stderr[-300:]!r}")

        # a missing input: 66, named, nothing written
        gone = os.path.join(tmp, "gone")
        shutil.copytree(res, gone)
        os.unlink(os.path.join(gone, "streaming", "streaming_times_512.csv"))
        gfigs = os.path.join(tmp, "gfigs")
        r = run(exe, "plot", "--results", gone, "--data", paper,
                "--out-dir", gfigs)
        check(r.returncode == 66, f"missing input: exit {r.returncode}")
        check("streaming_times_512.csv" in r.stderr,
              f"missing input not named: {r.stderr!r}")
        check(not os.path.exists(gfigs) or not os.listdir(gfigs),
              "missing input: figures written anyway")
        pdf_writes_nothing(exe, gone, paper, gfigs, 66, "missing input")
        r = run(exe, "plot", "--results", res, "--data",
                os.path.join(tmp, "no-such-data"), "--out-dir", gfigs)
        check(r.returncode == 66 and "save_time_stats.csv" in r.stderr,
              f"missing dataset: exit {r.returncode}: {r.stderr!r}")

        # a bad cell: 65 with file, line and column
        bad = os.path.join(tmp, "bad")
        shutil.copytree(res, bad)
        merged = os.path.join(bad, "file_transfer", "merged_job_info.csv")
        with open(merged) as f:
            rows = f.read().split("\n")
        header = rows[0].split(",")
        cells = rows[3].split(",")
        cells[header.index("Start")] = "not-a-time"
        rows[3] = ",".join(cells)
        with open(merged, "w") as f:
            f.write("\n".join(rows))
        bfigs = os.path.join(tmp, "bfigs")
        r = run(exe, "plot", "--results", bad, "--data", paper,
                "--out-dir", bfigs)
        check(r.returncode == 65, f"bad cell: exit {r.returncode}")
        check("merged_job_info.csv:4" in r.stderr and "Start" in r.stderr,
              f"bad cell not located: {r.stderr!r}")
        pdf_writes_nothing(exe, bad, paper, bfigs, 65, "bad cell")
        # an output that cannot be made: 73, and no PDF of the set
        # published (a file where --out-dir's parent should be)
        blocker = os.path.join(tmp, "blocker")
        open(blocker, "w").close()
        r = run(exe, "plot", "--results", res, "--data", paper,
                "--out-dir", os.path.join(blocker, "figs"), "--format", "pdf")
        check(r.returncode == 73 and "blocker" in r.stderr,
              f"--format pdf, out-dir under a file: exit {r.returncode}: "
              f"{r.stderr!r}")

        # usage
        r = run(exe, "plot", "--results", res, "--data", paper)
        check(r.returncode == 64, f"no --out-dir: exit {r.returncode}")
        for bad_fmt in ("gif", "pdf,gif", ""):
            r = run(exe, "plot", "--results", res, "--data", paper,
                    "--out-dir", figs, "--format", bad_fmt)
            check(r.returncode == 64, f"--format {bad_fmt!r}: exit "
                  f"{r.returncode}")
        r = run(exe, "plot", "--results", res, "--data", paper,
                "--out-dir", figs, "extra")
        check(r.returncode == 64, f"extra argument: exit {r.returncode}")
        for h in ("--help", "-h"):
            r = run(exe, "plot", h)
            check(r.returncode == 0 and "usage: streamtime plot" in r.stdout
                  and "--results" in r.stdout and r.stderr == "",
                  f"plot {h}: exit {r.returncode}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    return report("plot")


if __name__ == "__main__":
    sys.exit(main())
