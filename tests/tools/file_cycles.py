#!/usr/bin/env python3
"""List the call cycles between the library's .c files.

Reads the objects of libstreamtime with nm: an object that leaves a symbol
undefined (U) uses the object that defines it (T, D, B, R). The strongly
connected components of that graph with more than one file are the cycles.
Prints one line per component, files sorted, and the symbols each file takes
from the others in it; exits 1 when any cycle remains, 0 when none does.

usage: file_cycles.py [BUILD_DIR [SOURCE_DIR]]
  (defaults: build, and the tree this script is in)
"""
import glob
import os
import subprocess
import sys


def source_name(obj, src):
    # meson names objects src_trace_keys.c.o: the path under src/ with
    # its slashes as '_'; the folders of SRC tell which '_' were slashes
    base = os.path.basename(obj)
    if base.endswith(".o"):
        base = base[:-2]
    if base.startswith("src_"):
        base = base[4:]
    parts = base.split("_")
    for i in range(1, len(parts)):
        head = "/".join(parts[:i])
        if os.path.isdir(os.path.join(src, head)):
            return head + "/" + "_".join(parts[i:])
    return base


def read_symbols(objs, src):
    defined, used = {}, {}
    out = subprocess.run(["nm", "-A"] + objs, check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        # path.o:  addr T name   or   path.o:  U name
        path, _, rest = line.partition(":")
        fields = rest.split()
        if len(fields) < 2:
            continue
        kind, name = fields[-2], fields[-1]
        f = source_name(path, src)
        used.setdefault(f, set())
        if kind == "U":
            used[f].add(name)
        elif kind in "TDBRCVW":
            defined.setdefault(name, f)
    return defined, used


def components(nodes, edges):
    # Tarjan's algorithm, iterative.
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    top = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    src = os.path.join(top, "src")
    objs = sorted(glob.glob(os.path.join(build, "libstreamtime.a.p", "*.o")))
    if not objs:
        print(f"file_cycles: no objects in {build}/libstreamtime.a.p",
              file=sys.stderr)
        return 66
    defined, used = read_symbols(objs, src)
    edges = {}
    takes = {}
    for f, names in used.items():
        for n in names:
            g = defined.get(n)
            if g is None or g == f:
                continue
            edges.setdefault(f, set()).add(g)
            takes.setdefault((f, g), set()).add(n)
    cycles = [c for c in components(set(used), edges) if len(c) > 1]
    for c in sorted(cycles):
        print("cycle: " + " <-> ".join(c))
        for f in c:
            for g in c:
                if (f, g) in takes:
                    print(f"  {f} -> {g}: " + " ".join(sorted(takes[(f, g)])))
    print(f"{len(cycles)} cycle(s) among {len(used)} files")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
