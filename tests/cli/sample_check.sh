#!/usr/bin/env bash
# CLI test: `streamtime reproduce` on the shipped sample (data/) against the
# table that data/generate.py --check computes on its own, in Python, from
# the same files (SPEC 5.7 formulas; no code shared with streamtime).
# Usage: sample_check.sh STREAMTIME DATA_DIR
set -euo pipefail
st=$1 data=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$st" reproduce --data "$data" --out "$out" >"$out/table.md"
python3 "$data/generate.py" --check >"$out/expected.txt"

python3 - "$out/statistics/statistics_table.csv" "$out/expected.txt" "$out/table.md" <<'PY'
import csv, sys
ours = list(csv.DictReader(open(sys.argv[1])))
exp = {}
for line in open(sys.argv[2]):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 7 and cells[0].isdigit():
        exp[int(cells[0])] = [float(c) for c in cells[1:]]
assert sorted(exp) == [128, 256, 512, 1024], exp
assert [int(r["size"]) for r in ours] == [128, 256, 512, 1024], ours
cols = ["data_gb", "file_transfer_mean_s", "file_transfer_std_s",
        "streaming_mean_s", "streaming_std_s", "enhancement"]
bad = []
for r in ours:
    got = [round(float(r[c]), 1) for c in cols]
    if got != exp[int(r["size"])]:
        bad.append(f"size {r['size']}: {got} != {exp[int(r['size'])]}")
printed = open(sys.argv[3]).read()
for size, e in exp.items():
    line = f"| {size} | {e[1]:.1f} ± {e[2]:.1f} | {e[3]:.1f} ± {e[4]:.1f} | {e[5]:.1f} |"
    if line not in printed:
        bad.append(f"printed table lacks {line!r}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("sample data: table equal to generate.py --check")
PY
