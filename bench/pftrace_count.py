#!/usr/bin/env python3
"""Count the slices of a Perfetto protobuf trace without streamtime.

    pftrace_count.py FILE

A Trace is packets (field 1, length-delimited); a slice is a packet whose
TrackEvent (field 11) has a LegacyEvent (field 6) of phase 'X' (field 2 =
88), as data/perfetto/streamtime_trace.proto says.  Reads the file in
pieces, so that a 10 M-event trace needs no protoc text of gigabytes.
Prints the count.
"""
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field, wire type, value or bytes) of the message B."""
    i = 0
    while i < len(b):
        t, i = varint(b, i)
        f, w = t >> 3, t & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v


def is_slice(packet):
    for f, w, v in fields(packet):
        if f == 11 and w == 2:
            for f2, w2, v2 in fields(v):
                if f2 == 6 and w2 == 2:
                    return any(f3 == 2 and v3 == 88
                               for f3, _, v3 in fields(v2))
    return False


def main(path):
    n, buf = 0, b""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 24)
            buf += chunk
            i = 0
            while True:
                try:
                    t, j = varint(buf, i)
                    ln, j = varint(buf, j)
                except IndexError:
                    break
                if j + ln > len(buf):
                    break
                if t != (1 << 3 | 2):
                    raise ValueError("not a Trace: field tag %d" % t)
                # a slice's packet carries field 6 inside field 11; the
                # quick test first, the full one to be sure
                p = buf[j:j + ln]
                if b"\x32" in p and is_slice(p):
                    n += 1
                i = j + ln
            buf = buf[i:]
            if not chunk:
                break
    if buf:
        raise ValueError("a packet cut short at the end")
    print(n)


if __name__ == "__main__":
    main(sys.argv[1])
