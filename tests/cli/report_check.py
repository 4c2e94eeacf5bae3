#!/usr/bin/env python3
"""CLI test: `streamtime report` on the paper's data, then in a real browser.

Usage: report_check.py STREAMTIME PAPER_DATA

1. `reproduce` on the paper's data into a temporary directory, then `report`.
   The page is parsed with html.parser and checked against the CSVs, read and
   formatted here independently: the comparison table, the per-size and
   queue tables, the worst days; every relative link resolves, every CSV
   under the results is linked, nothing is loaded from anywhere (src/href
   never http(s):// or //, no script, no stylesheet link, no url()).
2. Figures: a results copy with hand-made SVG/PNG figures: each embedded as
   a data: URI, in the documented order; a results copy without figures
   says so.
3. Bad and empty input: an empty results directory and one whose CSVs hold
   only headers give a valid page that says "no data"; a missing directory
   is 66, no --results 64, an uncreatable output 73; hostile text in a CSV
   comes out escaped; no temporary file is left behind.
4. Headless Chromium, offline (a fresh network namespace when root, a proxy
   that goes nowhere in any case): a screenshot that is not blank and a
   --dump-dom that holds the comparison table.  Chromium is installed from
   Debian when missing and we are root; when it cannot be had this part is
   skipped (exit 77 once everything else passed, saying why) only off CI
   and not as root: under CI=true, as root, or when the install or the
   browser fails, the test fails (tests/cli/setup_rule.py).

Set REPORT_SCREENSHOT=PATH to keep the screenshot.
"""
import csv
import html
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import zlib
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import setup_rule  # noqa: E402
from checks import FAILS, check, report  # noqa: E402
from checks import run as run_cmd  # noqa: E402

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}


def fmt(v, d):
    """The page's number format: Python's ",.Nf", no negative zero."""
    if v != v or v in (float("inf"), float("-inf")):
        return "n/a"
    s = f"{v:,.{d}f}"
    if s.startswith("-") and set(s[1:]) <= set("0.,"):
        s = s[1:]
    return s


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(s):
    return float("nan") if s.strip() in ("", "nan") else float(s)


class Page(HTMLParser):
    """Tables by id (rows of cell texts), every src/href, the text, and
    whether the elements nest properly."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables = {}
        self.cur_table = None
        self.row = None
        self.cell = None
        self.section = None
        self.urls = []          # (tag, attr, value)
        self.tags = set()
        self.text = []
        self.stack = []
        self.nesting_errors = []
        self.figures = []       # (id, img src or None, caption text)
        self.fig = None
        self.in_caption = False
        self.style = []
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag not in VOID:
            self.stack.append(tag)
        for k in ("src", "href", "action", "data", "poster", "srcset"):
            if k in a and a[k] is not None:
                self.urls.append((tag, k, a[k]))
        if tag == "style":
            self.in_style = True
        if tag == "table":
            self.cur_table = a.get("id", f"table{len(self.tables)}")
            self.tables[self.cur_table] = {"head": [], "body": []}
            self.section = "head"
        elif tag == "tbody":
            self.section = "body"
        elif tag == "tr" and self.cur_table:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []
        elif tag == "figure":
            self.fig = [a.get("id"), None, []]
        elif tag == "img" and self.fig is not None:
            self.fig[1] = a.get("src")
        elif tag == "figcaption":
            self.in_caption = True

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.nesting_errors.append(f"</{tag}> with {self.stack[-3:]} open")
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
        else:
            self.stack.pop()
        if tag == "style":
            self.in_style = False
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.tables[self.cur_table][self.section].append(self.row)
            self.row = None
        elif tag == "table":
            self.cur_table = None
        elif tag == "figcaption":
            self.in_caption = False
        elif tag == "figure" and self.fig is not None:
            self.figures.append((self.fig[0], self.fig[1],
                                 "".join(self.fig[2]).strip()))
            self.fig = None

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell.append(data)
        if self.in_caption and self.fig is not None:
            self.fig[2].append(data)
        if self.in_style:
            self.style.append(data)


def parse(path):
    with open(path, encoding="utf-8") as f:
        src = f.read()
    p = Page()
    p.feed(src)
    p.close()
    p.source = src
    p.alltext = " ".join(" ".join(p.text).split())
    return p


def run(exe, *args, expect=0, what=None):
    r = run_cmd(exe, *args, timeout=120)
    check(r.returncode == expect,
          f"{what or ' '.join(args)}: exit {r.returncode}, expected {expect}; "
          f"stderr: {r.stderr.strip()[:300]}")
    return r


def check_self_contained(p, where):
    for tag, attr, val in p.urls:
        v = val.strip().lower()
        check(not (v.startswith("http:") or v.startswith("https:") or
                   v.startswith("//") or v.startswith("ftp:") or
                   v.startswith("file:")),
              f"{where}: external {tag} {attr}={val[:80]}")
        if attr == "src":
            check(v.startswith("data:"), f"{where}: {tag} src not a data: URI: {val[:60]}")
    for tag in ("script", "link", "iframe", "object", "embed", "base", "form"):
        check(tag not in p.tags, f"{where}: has a <{tag}>")
    check("url(" not in "".join(p.style) and "@import" not in "".join(p.style),
          f"{where}: the stylesheet loads something")
    check(not p.nesting_errors, f"{where}: bad nesting: {p.nesting_errors[:3]}")
    check(not p.stack, f"{where}: elements left open: {p.stack}")
    check("Content-Security-Policy" in p.source, f"{where}: no CSP")


def links(p):
    return [v for t, a, v in p.urls
            if a == "href" and not v.startswith("#") and not v.startswith("data:")]


def check_links_resolve(p, page, where):
    from urllib.parse import unquote
    base = os.path.dirname(os.path.abspath(page))
    for v in links(p):
        target = os.path.normpath(os.path.join(base, unquote(v)))
        check(os.path.isfile(target), f"{where}: link {v} -> {target} does not exist")


def expected_comparison(res):
    rows = read_csv(os.path.join(res, "statistics", "statistics_table.csv"))
    out = []
    for r in rows:
        s = int(r["size"])
        out.append([f"{s}\u00d7{s}", fmt(float(r["data_gb"]), 1),
                    f"{fmt(float(r['file_transfer_mean_s']), 1)} \u00b1 "
                    f"{fmt(float(r['file_transfer_std_s']), 1)}",
                    f"{fmt(float(r['streaming_mean_s']), 1)} \u00b1 "
                    f"{fmt(float(r['streaming_std_s']), 1)}",
                    f"{fmt(float(r['enhancement']), 1)}\u00d7"])
    return out


def check_paper_report(exe, res, page, where):
    p = parse(page)
    check_self_contained(p, where)
    check_links_resolve(p, page, where)

    # the comparison table, recomputed from the CSV
    t = p.tables.get("comparison-table")
    if check(t is not None, f"{where}: no comparison table"):
        exp = expected_comparison(res)
        check(t["body"] == exp, f"{where}: comparison table\n  got {t['body']}\n  "
              f"expected {exp}")
        check(len(t["head"]) == 1 and len(t["head"][0]) == 5, f"{where}: comparison head")
        # and the paper's headline (README)
        check([r[-1] for r in t["body"]] == ["13.0\u00d7", "13.6\u00d7", "5.5\u00d7", "4.6\u00d7"],
              f"{where}: not the paper's enhancements")

    # per-size tables: four rows each, n and mean from the CSV
    for s in (128, 256, 512, 1024):
        t = p.tables.get(f"stats-{s}")
        rows = read_csv(os.path.join(res, "statistics", f"statistics_transfers_{s}.csv"))
        if not check(t is not None, f"{where}: no table for {s}"):
            continue
        check(len(t["body"]) == 4 == len(rows), f"{where}: {s}: {len(t['body'])} rows")
        labels = ["Streaming, with outliers", "Streaming, without outliers",
                  "File transfer, with outliers", "File transfer, without outliers"]
        for got, r, lab in zip(t["body"], rows, labels):
            check(got[0] == lab, f"{where}: {s}: label {got[0]!r}")
            check(got[1] == fmt(num(r["Number of Points"]), 0), f"{where}: {s} n {got[1]}")
            check(got[2] == fmt(num(r["Mean time"]), 2), f"{where}: {s} mean {got[2]}")
            check(got[4] == fmt(num(r["Standard Deviation"]), 2), f"{where}: {s} std {got[4]}")
            check(got[8] == fmt(num(r["75th percentile"]), 2), f"{where}: {s} q75 {got[8]}")

    # queue statistics and the worst ten days
    t = p.tables.get("queue-stats")
    q = read_csv(os.path.join(res, "statistics", "queue_time_statistics.csv"))
    if check(t is not None, f"{where}: no queue table"):
        check([r[1] for r in t["body"]] == [fmt(num(r["n"]), 0) for r in q], f"{where}: queue n")
        check([r[3] for r in t["body"]] == [fmt(num(r["median"]), 2) for r in q],
              f"{where}: queue median")
    t = p.tables.get("worst-days-table")
    days = read_csv(os.path.join(res, "statistics", "ranked_days.csv"))
    if check(t is not None, f"{where}: no worst days"):
        check([r[1] for r in t["body"]] == [d["Submit_date"] for d in days[:10]],
              f"{where}: worst days {[r[1] for r in t['body']]}")
        check([r[2] for r in t["body"]] == [fmt(float(d["queue_time"]), 1) for d in days[:10]],
              f"{where}: worst day means")

    # every CSV under the results is linked, and only files that exist
    from urllib.parse import unquote
    base = os.path.dirname(os.path.abspath(page))
    linked = {os.path.normpath(os.path.join(base, unquote(v))) for v in links(p)}
    for dirpath, _, files in os.walk(res):
        for f in files:
            if f.endswith(".csv"):
                check(os.path.normpath(os.path.join(dirpath, f)) in linked,
                      f"{where}: {os.path.relpath(os.path.join(dirpath, f), res)} not linked")
    if os.path.isfile(os.path.join(res, "timeline.json")):
        check(os.path.normpath(os.path.join(res, "timeline.json")) in linked,
              f"{where}: timeline.json not linked")
    check("ui.perfetto.dev" in p.alltext and "Open trace file" in p.alltext,
          f"{where}: no Perfetto note")

    # the summary and the formulas
    check("Streaming was faster at every size" in p.alltext, f"{where}: no headline")
    for words in ("Start \u2212 Submit", "1.5\u00b7IQR", "n \u2212 1", "(n \u2212 1)\u00b7p",
                  "576\u00b2", "Enhancement", "Linear interpolation"):
        check(words in p.alltext, f"{where}: formulas lack {words!r}")
    return p


# ---- PNG --------------------------------------------------------------

def png_colours(path, enough=64):
    """(width, height, distinct colours seen, non-white pixels seen).  Rows are
    decoded in order and decoding stops once ENOUGH colours were seen (the
    rows before are what a blank page would not have)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"unexpected PNG format depth {depth} type {ctype}")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    colours, ink = set(), 0
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ft == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif ft == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        for x in range(0, stride, bpp):
            px = bytes(line[x:x + 3])
            colours.add(px)
            if px != b"\xff\xff\xff":
                ink += 1
        prev = line
        if len(colours) >= enough:
            break
    return w, h, len(colours), ink


def make_png(path, w=64, h=40):
    rows = b""
    for y in range(h):
        rows += b"\x00" + b"".join(
            bytes(((x * 4) & 255, (y * 6) & 255, 0xCF)) for x in range(w))

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


SVG = """<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="600pt" height="240pt" viewBox="0 0 600 240">
<rect width="600" height="240" fill="#ffffff"/>
<rect x="40" y="40" width="200" height="160" fill="#BB0700"/>
<rect x="300" y="120" width="200" height="80" fill="#0762CF"/>
<text x="40" y="30" font-family="DejaVu Sans" font-size="18">{name}</text>
</svg>
"""


# ---- the browser ------------------------------------------------------

def find_chromium():
    """(path, None), or (None, why) with why[0] True when it is missing
    and we may not install it, False when installing it failed."""
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p, None
    why = setup_rule.install(["chromium"])
    if why:
        return None, why
    p = shutil.which("chromium")
    if not p:
        return None, (False, "chromium installed, but not in PATH")
    return p, None


def offline_prefix():
    """`unshare -n` (a network namespace with nothing in it) when we can."""
    u = shutil.which("unshare")
    if u and os.geteuid() == 0:
        r = subprocess.run([u, "-n", "true"], capture_output=True)
        if r.returncode == 0:
            return [u, "-n"]
    return []


def browser(chrome, prefix, args, out_path, timeout=120):
    """Run headless Chromium in its own session; stdout to OUT_PATH (never
    our own pipe).  Kills the whole group on timeout and after exit (helpers
    such as the crash handler may linger).  Returns the exit code or None."""
    profile = tempfile.mkdtemp(prefix="st-chromium-")
    cmd = prefix + [chrome, "--headless", "--no-sandbox", "--disable-gpu",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--disable-extensions", "--disable-default-apps",
                    "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                    f"--user-data-dir={profile}"] + args
    rc = None
    with open(out_path, "wb") as out, open(out_path + ".err", "wb") as err:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            check(False, f"chromium {args[0]} timed out after {timeout} s")
        finally:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            p.wait()
    shutil.rmtree(profile, ignore_errors=True)
    return rc


def check_in_browser(page, tmp, sizes):
    chrome, why = find_chromium()
    if not chrome:
        return why
    prefix = offline_prefix()
    url = "file://" + os.path.abspath(page)
    shot = os.path.join(tmp, "screenshot.png")
    rc = browser(chrome, prefix, [f"--screenshot={shot}", "--window-size=1280,2000", url],
                 os.path.join(tmp, "shot.out"))
    if check(rc == 0 and os.path.isfile(shot),
             f"chromium --screenshot: exit {rc}, {open(os.path.join(tmp, 'shot.out.err'), errors='replace').read()[-500:]}"):
        w, h, ncol, ink = png_colours(shot)
        check((w, h) == (1280, 2000), f"screenshot is {w}x{h}")
        check(ncol >= 16, f"screenshot looks blank: {ncol} colours")
        check(ink >= 100, f"screenshot looks blank: {ink} non-white pixels")
        keep = os.environ.get("REPORT_SCREENSHOT")
        if keep:
            shutil.copyfile(shot, keep)
    dom = os.path.join(tmp, "dom.html")
    rc = browser(chrome, prefix, ["--dump-dom", url], dom)
    if check(rc == 0, f"chromium --dump-dom: exit {rc}"):
        p = Page()
        with open(dom, encoding="utf-8", errors="replace") as f:
            p.feed(f.read())
        t = p.tables.get("comparison-table")
        if check(t is not None, "dump-dom: no comparison table"):
            check([r[0] for r in t["body"]] == [f"{s}\u00d7{s}" for s in sizes],
                  f"dump-dom: sizes {[r[0] for r in t['body']]}")
        check(sum(1 for f in p.figures if f[1] and f[1].startswith("data:")) >= 1,
              "dump-dom: no embedded figure")
    print(f"chromium: screenshot and DOM checked{' in an empty network namespace' if prefix else ''}")
    return None


# ---- main -------------------------------------------------------------

def main():
    exe, data = os.path.abspath(sys.argv[1]), sys.argv[2]
    if not os.path.isdir(data):
        setup_rule.missing("cli-report", f"no paper data at {data}")
    tmp = tempfile.mkdtemp(prefix="st-report-")
    try:
        return body(exe, data, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def body(exe, data, tmp):
    res = os.path.join(tmp, "res")
    run(exe, "reproduce", "--data", data, "--out", res, what="reproduce")
    if FAILS:
        return report("report")

    # 1. the default place, and a page elsewhere whose links climb back
    page = os.path.join(res, "report.html")
    if os.path.exists(page):
        os.unlink(page)          # reproduce may have made one: ours now
    before = set(os.listdir(res))
    r = run(exe, "report", "--results", res, what="report")
    check("report:" in r.stderr and r.stdout == "", f"report: messages {r.stderr!r} {r.stdout!r}")
    check(set(os.listdir(res)) == before | {"report.html"},
          f"report left {sorted(set(os.listdir(res)) - before)}")
    p = check_paper_report(exe, res, page, "default")
    sizes = [int(r["size"]) for r in read_csv(os.path.join(res, "statistics", "statistics_table.csv"))]

    other = os.path.join(tmp, "pages", "deep")
    os.makedirs(other)
    run(exe, "report", "--results", res, "--out", os.path.join(other, "r.html"), "-q",
        what="report --out elsewhere")
    check_paper_report(exe, res, os.path.join(other, "r.html"), "elsewhere")
    check(any(v.startswith("../../res/") for v in links(parse(os.path.join(other, "r.html")))),
          "elsewhere: links do not climb back to the results")
    r = run(exe, "report", "--results", res, "--out", "-", "-q", what="report --out -")
    check(r.stdout.startswith("<!DOCTYPE html>") and r.stdout.rstrip().endswith("</html>"),
          "report --out -: not a page on stdout")
    check(r.stderr == "", f"-q still said {r.stderr!r}")

    # 2. figures: none made yet -> said so; made -> embedded in order
    figs = os.path.join(res, "figures")
    made_by_plot = os.path.isdir(figs) and any(
        f.endswith(".svg") for f in os.listdir(figs))
    if made_by_plot:
        stems = {f[:-4] for f in os.listdir(figs) if f.endswith((".svg", ".png"))}
        check(len(p.figures) == len(stems), f"{len(p.figures)} figures for {len(stems)} stems")
        check(all(f[1] and f[1].startswith("data:image/") for f in p.figures),
              "a figure of plot's was not embedded")
    else:
        check("the figures were not made" in p.alltext, "no note that the figures are missing")
    fres = os.path.join(tmp, "fres")
    # hand-assembled results: reproduce's manifest.txt left behind, so that
    # the report shows every figure put there (with it, zz_extra, which the
    # run did not write, would be left out: issue 17 item 4)
    shutil.copytree(res, fres, ignore=shutil.ignore_patterns("figures", "report.html",
                                                            "manifest.txt"))
    os.makedirs(os.path.join(fres, "figures"))
    for name in ("queue_by_date", "transfer_hist_1024", "zz_extra", "transfer_hist_128",
                 "transfer_hist_combined", "experiment_timeline"):
        with open(os.path.join(fres, "figures", name + ".svg"), "w") as f:
            f.write(SVG.format(name=name))
    make_png(os.path.join(fres, "figures", "queue_hist.png"))
    make_png(os.path.join(fres, "figures", "transfer_hist_128.png"))
    with open(os.path.join(fres, "timeline.json"), "w") as f:
        f.write('{"traceEvents":[]}\n')
    run(exe, "report", "--results", fres, "-q", what="report with figures")
    fp = check_paper_report(exe, fres, os.path.join(fres, "report.html"), "figures")
    order = [f[0] for f in fp.figures]
    want = ["fig-transfer_hist_combined", "fig-transfer_hist_128", "fig-transfer_hist_1024",
            "fig-experiment_timeline", "fig-queue_hist", "fig-queue_by_date", "fig-zz_extra"]
    check(order == want, f"figure order {order}")
    kinds = {f[0]: (f[1] or "")[:22] for f in fp.figures}
    check(kinds.get("fig-transfer_hist_128") == "data:image/svg+xml;bas", "SVG not preferred")
    check(kinds.get("fig-queue_hist") == "data:image/png;base64,", "PNG-only figure not embedded")
    check("the inset" in dict((f[0], f[2]) for f in fp.figures).get("fig-transfer_hist_128", ""),
          "no caption for a known figure")

    # 3. empty results: no files at all; CSVs with headers only
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    run(exe, "report", "--results", empty, "-q", what="report on an empty directory")
    ep = parse(os.path.join(empty, "report.html"))
    check_self_contained(ep, "empty")
    check(ep.alltext.count("No data") >= 6, f"empty: {ep.alltext.count('No data')} 'No data'")
    check("comparison-table" not in ep.tables, "empty: a comparison table")

    hdr = os.path.join(tmp, "headers")
    for dirpath, _, files in os.walk(res):
        for f in files:
            if not f.endswith(".csv"):
                continue
            src = os.path.join(dirpath, f)
            dst = os.path.join(hdr, os.path.relpath(src, res))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(src) as i, open(dst, "w") as o:
                o.write(i.readline())
    run(exe, "report", "--results", hdr, "-q", what="report on header-only CSVs")
    hp = parse(os.path.join(hdr, "report.html"))
    check_self_contained(hp, "headers")
    check_links_resolve(hp, os.path.join(hdr, "report.html"), "headers")
    check("no data" in hp.alltext.lower() and hp.alltext.count("No data") >= 5,
          "headers: no 'no data'")
    check(not any(t["body"] for t in hp.tables.values()), "headers: a table with rows")

    # hostile text in a CSV comes out as text
    evil = os.path.join(tmp, "evil")
    shutil.copytree(res, evil, ignore=shutil.ignore_patterns("report.html", "figures"))
    rd = os.path.join(evil, "statistics", "ranked_days.csv")
    with open(rd, "w", newline="") as f:
        csv.writer(f).writerows([["Submit_date", "queue_time"],
                                 ['<script>alert("x")</script>', "5"],
                                 ['<img src="https://example.invalid/x.png">', "4"]])
    run(exe, "report", "--results", evil, "-q", what="report on hostile CSV text")
    vp = parse(os.path.join(evil, "report.html"))
    check_self_contained(vp, "hostile")
    check('<script>alert("x")</script>' in vp.alltext, "hostile: text lost")

    # exit codes
    run(exe, "report", "--results", os.path.join(tmp, "nope"), expect=66, what="missing results")
    check(not os.path.exists(os.path.join(tmp, "nope")), "missing results created")
    run(exe, "report", expect=64, what="no --results")
    run(exe, "report", "--results", res, "extra", expect=64, what="extra argument")
    run(exe, "report", "--results", res, "--out", os.path.join(tmp, "no", "dir", "r.html"),
        expect=73, what="uncreatable output")
    bad = os.path.join(tmp, "bad")
    os.makedirs(os.path.join(bad, "statistics"))
    with open(os.path.join(bad, "statistics", "statistics_table.csv"), "w") as f:
        f.write("size,data_gb\n128,1\n")
    r = run(exe, "report", "--results", bad, expect=65, what="missing column")
    check("file_transfer_mean_s" in r.stderr, f"missing column not named: {r.stderr!r}")
    check(not os.path.exists(os.path.join(bad, "report.html")), "a failed run left a page")
    r = run(exe, "report", "--help", what="--help")
    check("--results" in r.stdout, "--help says nothing of --results")

    if FAILS:
        return report("report")
    print("report: tables, links, self-containment, figures, empty and bad input checked")

    # 4. the browser, on the page with figures
    why = check_in_browser(os.path.join(fres, "report.html"), tmp, sizes)
    if FAILS:
        return report("report")
    if why and why[0]:
        setup_rule.missing("cli-report", f"the browser part: {why[1]}")
    if why:
        setup_rule.broken("cli-report", "headless Chromium", why[1])
    return report("report")


if __name__ == "__main__":
    sys.exit(main())
