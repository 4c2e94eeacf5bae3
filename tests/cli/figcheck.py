"""Reading the figures' files for tests/cli scripts, with Python's
standard library only: a PDF's structure and pages (read_pdf), poppler's
pdfinfo where it is installed, and the advance widths of a TrueType font
(Font), to know where a text drawn by cairo ends."""
import re
import shutil
import subprocess
import struct
import zlib

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
MEDIABOX = re.compile(rb"/MediaBox\s*\[\s*([-\d.\s]+?)\s*\]")
STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)


def read_pdf(path):
    """(pages, [MediaBox sizes]) of a PDF, checked: %PDF- header, %%EOF
    trailer, startxref at a cross-reference table whose in-use entries
    point at their 'N G obj' (or at an xref stream object); page objects
    counted in the file and in its inflated streams (object streams)."""
    with open(path, "rb") as f:
        b = f.read()
    if not b.startswith(b"%PDF-1."):
        raise ValueError(f"header {b[:8]!r}")
    if not b.rstrip(b"\r\n").endswith(b"%%EOF"):
        raise ValueError(f"no %%EOF at the end: {b[-16:]!r}")
    m = re.search(rb"startxref\s+(\d+)\s+%%EOF\s*$", b)
    if not m:
        raise ValueError("no startxref")
    at = int(m.group(1))
    if b[at:at + 4] == b"xref":
        lines = b[at:].split(b"\n")
        first, count = (int(v) for v in lines[1].split())
        for k in range(count):
            off, gen, use = lines[2 + k].split()
            if use == b"n" and not re.match(rb"%d %d obj" % (first + k, int(gen)),
                                            b[int(off):int(off) + 24]):
                raise ValueError(f"xref entry {first + k} -> {int(off)}: "
                                 f"{b[int(off):int(off) + 16]!r}")
    elif not re.match(rb"\d+ \d+ obj", b[at:at + 24]):
        raise ValueError(f"startxref {at} points at {b[at:at + 16]!r}")
    texts = [b]
    for s in STREAM.findall(b):
        try:
            texts.append(zlib.decompress(s))
        except zlib.error:
            pass
    pages = sum(len(PAGE.findall(t)) for t in texts)
    boxes = [tuple(float(v) for v in mb.split())
             for t in texts for mb in MEDIABOX.findall(t)]
    return pages, boxes


def pdfinfo(path):
    """(pages, width, height) by poppler's pdfinfo, or None without it."""
    if not shutil.which("pdfinfo"):
        return None
    r = subprocess.run(["pdfinfo", path], capture_output=True, text=True)
    if r.returncode != 0:
        return (-1, 0, 0)
    pages = re.search(r"^Pages:\s+(\d+)", r.stdout, re.M)
    size = re.search(r"^Page size:\s+([\d.]+) x ([\d.]+) pts", r.stdout, re.M)
    return (int(pages.group(1)) if pages else -1,
            float(size.group(1)) if size else 0,
            float(size.group(2)) if size else 0)


class Font:
    """A TrueType font's metrics from its head, hhea, hmtx and cmap
    (format 4) tables: width(TEXT, SIZE) is the sum of the glyphs'
    advances (cairo's toy text API does no kerning), ascent and descent
    in font units (upem of them to the em)."""
    def __init__(self, path):
        with open(path, "rb") as f:
            b = f.read()
        n, = struct.unpack(">H", b[4:6])
        tables = {}
        for i in range(n):
            tag, _, off, ln = struct.unpack(">4sIII", b[12 + 16 * i:28 + 16 * i])
            tables[tag] = (off, ln)
        head = tables[b"head"][0]
        self.upem, = struct.unpack(">H", b[head + 18:head + 20])
        hhea = tables[b"hhea"][0]
        self.ascent, self.descent = struct.unpack(">hh", b[hhea + 4:hhea + 8])
        nmetrics, = struct.unpack(">H", b[hhea + 34:hhea + 36])
        hmtx = tables[b"hmtx"][0]
        self.adv = [struct.unpack(">H", b[hmtx + 4 * i:hmtx + 4 * i + 2])[0]
                    for i in range(nmetrics)]
        cmap = tables[b"cmap"][0]
        nsub, = struct.unpack(">H", b[cmap + 2:cmap + 4])
        self.cmap = {}
        for i in range(nsub):
            pid, eid, off = struct.unpack(">HHI", b[cmap + 4 + 8 * i:cmap + 12 + 8 * i])
            if (pid, eid) in ((3, 1), (0, 3)):
                self._format4(b, cmap + off)
                break

    def _format4(self, b, at):
        fmt, = struct.unpack(">H", b[at:at + 2])
        if fmt != 4:
            raise ValueError("cmap format %d" % fmt)
        segx2, = struct.unpack(">H", b[at + 6:at + 8])
        seg = segx2 // 2
        ends = struct.unpack(">%dH" % seg, b[at + 14:at + 14 + segx2])
        p = at + 16 + segx2
        starts = struct.unpack(">%dH" % seg, b[p:p + segx2])
        deltas = struct.unpack(">%dh" % seg, b[p + segx2:p + 2 * segx2])
        ro_at = p + 2 * segx2
        ros = struct.unpack(">%dH" % seg, b[ro_at:ro_at + segx2])
        for k in range(seg):
            for c in range(starts[k], ends[k] + 1):
                if c == 0xFFFF:
                    continue
                if ros[k] == 0:
                    g = (c + deltas[k]) & 0xFFFF
                else:
                    a = ro_at + 2 * k + ros[k] + 2 * (c - starts[k])
                    g, = struct.unpack(">H", b[a:a + 2])
                    if g:
                        g = (g + deltas[k]) & 0xFFFF
                self.cmap[c] = g

    def width(self, text, size):
        adv = 0
        for ch in text:
            g = self.cmap.get(ord(ch), 0)
            adv += self.adv[min(g, len(self.adv) - 1)]
        return adv * size / self.upem
