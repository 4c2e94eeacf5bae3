#!/usr/bin/env python3
"""Generate N DFTracer X events in K .pfw files that name D distinct files.

    gen_names.py OUT_DIR N K D

The set that measures what a distinct file name costs (bench/memory.sh):
every file names all D files, in its own seeded order, through open, read
and close calls of one process (two threads), their intervals disjoint.
The even-numbered files are in DFTracer's old format (the name in
args.fname, strings quoted), the odd ones in the new one (an FH M-event
maps the name's hash before its first use, events carry fhash and hhash).
Names look like a DLIO data set's: /p/lustre1/dlio/data/train/img_012345
_of_200000.npz.  Prints the number of events written.
"""
import os, random, sys

out, total, nfiles, ndist = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
per = -(-total // nfiles)
calls = ("open", "read", "close")
written = 0
for f in range(nfiles):
    rng = random.Random(1000 + f)
    order = list(range(ndist))
    rng.shuffle(order)
    want = min(per, total - written)
    pid = 300000 + f
    new = f % 2 == 1
    ts = 1727387307981693 + f * 1000
    mapped = set()
    o = open(os.path.join(out, "names-%02d.pfw" % f), "wb")
    buf = [b"[\n"]
    if new:
        buf.append(b'{"id":0,"name":"HH","cat":"dftracer","pid":%d,"tid":%d,'
                   b'"ph":"M","args":{"name":"corona%03d","value":%d}}\n'
                   % (pid, pid, f, 7000 + f))
    for i in range(want):
        k = order[i % ndist]
        name = b"/p/lustre1/dlio/data/train/img_%06d_of_%06d.npz" % (k, ndist)
        call = calls[i % 3]
        tid = pid + (i // 3) % 2
        dur = 5 + rng.randrange(0, 200)
        size = b'"ret":131072,"count":131072,' if call == "read" else b""
        if new:
            h = (k * 2654435761 + 12345) % (1 << 32)
            if k not in mapped:
                mapped.add(k)
                buf.append(b'{"id":%d,"name":"FH","cat":"dftracer","pid":%d,'
                           b'"tid":%d,"ph":"M","args":{"name":"%s","value":%d}}\n'
                           % (i, pid, tid, name, h))
            buf.append(b'{"id":%d,"name":"%s","cat":"POSIX","pid":%d,"tid":%d,'
                       b'"ts":%d,"dur":%d,"ph":"X","args":{"hhash":%d,"p_idx":-1,'
                       b'"level":1,%s"fhash":%d,"fd":11}}\n'
                       % (i, call.encode(), pid, tid, ts, dur, 7000 + f, size, h))
        else:
            size = size.replace(b":131072", b':"131072"')
            buf.append(b'{"id":"%d","name":"%s","cat":"POSIX","pid":"%d",'
                       b'"tid":"%d","ts":"%d","dur":"%d","ph":"X","args":'
                       b'{"hostname":"corona%03d",%s"fname":"%s","fd":18}}\n'
                       % (i, call.encode(), pid, tid, ts, dur, f, size, name))
        ts += dur + 1 + rng.randrange(0, 20)
        if len(buf) > 65536:
            o.write(b"".join(buf))
            buf = []
    buf.append(b"]\n")
    o.write(b"".join(buf))
    o.close()
    written += want
print(written)
