#!/usr/bin/env python3
"""CLI test: numbers people read (issue 25 item 9).

Usage: noise_check.py STREAMTIME SOURCE_ROOT PAPER_DATA

No CSV that `reproduce` writes, on the paper's data or on the sample,
holds floating-point noise: a run of six or more 0s or 9s after the point
before a last digit (46.50000000000001, 67.99999999999999).  The paper's
values themselves are checked to 1e-9 by cli-paper.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, report  # noqa: E402
import setup_rule  # noqa: E402

ST, ROOT, PAPER = sys.argv[1], sys.argv[2], sys.argv[3]
NOISE = re.compile(r"\d\.\d*(?:0{6,}|9{6,})\d")
NUMBER = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")


def noisy(out):
    """(file, cell) of every noisy number in OUT's CSV files."""
    found = []
    for d, _, names in os.walk(out):
        for n in names:
            if n.endswith(".csv"):
                path = os.path.join(d, n)
                for cell in re.split(r"[,\n]", open(path).read()):
                    if NUMBER.fullmatch(cell) and NOISE.search(cell):
                        found.append((os.path.relpath(path, out), cell))
    return found


def one(name, args):
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([ST, "reproduce", *args, "--out", tmp, "-q"],
                           capture_output=True, text=True)
        check(p.returncode == 0, "%s: reproduce exit %d: %s"
              % (name, p.returncode, p.stderr))
        bad = noisy(tmp)
        check(bad == [], "%s: numbers with floating-point noise: %s"
              % (name, bad[:10]))


# the rule's own test: the pattern finds what it must
check(NOISE.search("46.50000000000001") and NOISE.search("67.99999999999999")
      and not NOISE.search("3.527639") and not NOISE.search("46.5"),
      "the noise pattern")
one("sample", [])
if os.path.isdir(PAPER):
    one("paper", ["--data", PAPER])
elif os.environ.get("CI") == "true":
    check(False, "no paper data at " + PAPER)
else:
    setup_rule.missing("cli-noise", "no paper data at " + PAPER)
sys.exit(report("noise"))
