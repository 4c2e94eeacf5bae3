#!/usr/bin/env python3
"""Generate N DFTracer X events in K .pfw files from the fixtures.

    gen_pfw.py FIXTURE_DIR OUT_DIR N K

Copies the three fixtures of ../shared/fixtures/dftracer, every copy a new
process (pid), its times shifted and its durations jittered (seeded, so the
same arguments give the same files).  Prints the number of events written.
Used by bench/trace.sh and bench/timeline.sh.
"""
import gzip, os, random, re, sys

fix, out, total, nfiles = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(8)
# each fixture line cut around pid, tid, ts and dur, so that copies can be
# written with other values without parsing JSON
num = rb'("pid":"?)(\d+)("?,"tid":"?)(\d+)("?,"ts":"?)(\d+)("?,"dur":"?)(\d+)'
meta = rb'("pid":)(\d+)(,"tid":)(\d+)'

def templates(lines):
    out = []
    for l in lines:
        l = l.strip()
        if l in (b"", b"[", b"]"):
            continue
        m = re.search(num, l)
        if m:
            out.append(("X", l[:m.start()], m.groups(), l[m.end():]))
        else:
            m = re.search(meta, l)
            out.append(("M", l[:m.start()], m.groups(), l[m.end():]))
    return out

old = templates(open(os.path.join(fix, "posix-old-format.pfw"), "rb").read().split(b"\n"))
small = templates(open(os.path.join(fix, "small.pfw"), "rb").read().split(b"\n"))
new = templates(gzip.open(os.path.join(fix, "cm1-rank0-new-format.pfw.gz")).read().split(b"\n"))
kinds = [old, old, new, old, small]
per = -(-total // nfiles)
pid, written = 200000, 0
for f in range(nfiles):
    want = min(per, total - written)
    n = 0
    with open(os.path.join(out, "trace-%02d.pfw" % f), "wb") as o:
        o.write(b"[\n")
        while n < want:
            pid += 1
            t = kinds[pid % len(kinds)]
            shift = rng.randrange(0, 3600 * 10**6)
            buf = []
            for kind, pre, g, post in t:
                if kind == "M":
                    buf.append(b"%s%s%d%s%d%s\n" % (pre, g[0], pid, g[2], pid, post))
                    continue
                if n == want:
                    break
                dur = int(g[7]) * rng.randrange(50, 150) // 100
                buf.append(b"%s%s%d%s%d%s%d%s%d%s\n" % (
                    pre, g[0], pid, g[2], pid, g[4], int(g[5]) + shift,
                    g[6], dur, post))
                n += 1
            o.write(b"".join(buf))
        o.write(b"]\n")
    written += n
print(written)
