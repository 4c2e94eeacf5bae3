#!/usr/bin/env bash
# CLI test: `streamtime reproduce` on the shipped sample (data/, made by
# `streamtime simulate`; see data/README.md) against the table that
# sample_expected.py computes on its own, in Python's standard library, from
# the same CSV files (SPEC 5.6/5.7 formulas; no code shared with streamtime).
# Usage: sample_check.sh STREAMTIME DATA_DIR
set -euo pipefail
st=$(realpath "$1") data=$2
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# no arguments: the sample, outputs in ./out
(cd "$out" && "$st" reproduce >"$out/table.md")
python3 "$here/sample_expected.py" "$data" --csv >"$out/expected.csv"

python3 - "$out/out/statistics/statistics_table.csv" "$out/expected.csv" "$out/table.md" <<'PY'
import csv, sys
ours = {int(r["size"]): r for r in csv.DictReader(open(sys.argv[1]))}
exp = {int(r["size"]): r for r in csv.DictReader(open(sys.argv[2]))}
assert sorted(exp) == [128, 256, 512, 1024], exp
assert sorted(ours) == sorted(exp), ours
cols = ["data_gb", "file_transfer_mean_s", "file_transfer_std_s",
        "streaming_mean_s", "streaming_std_s", "enhancement"]
bad = []
printed = open(sys.argv[3]).read()
for size, e in exp.items():
    want = [float(e[c]) for c in cols]
    got = [float(ours[size][c]) for c in cols]
    if any(abs(g - w) > 1e-9 * max(1.0, abs(w)) for g, w in zip(got, want)):
        bad.append(f"size {size}: {got} != {want}")
    line = f"| {size} | {want[1]:.1f} ± {want[2]:.1f} | {want[3]:.1f} ± {want[4]:.1f} | {want[5]:.1f} |"
    if line not in printed:
        bad.append(f"printed table lacks {line!r}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("sample data: table equal to sample_expected.py's")
PY
