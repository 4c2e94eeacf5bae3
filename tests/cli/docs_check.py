#!/usr/bin/env python3
"""The documents run as shown (issue 25 item 6).

usage: docs_check.py STREAMTIME SOURCE_ROOT

  * readme_at_most_300_lines: README.md is at most 300 lines;
  * docs_commands_run_as_shown: every ```sh block of README.md,
    docs/operations.md, docs/trace.md and docs/systrace.md runs, in that
    order, in a copy of the tracked data/, docs/ and tests/systrace/ with
    build/ pointing at the binary's directory, as a reader copies it
    (bash -euo pipefail: each block must exit 0).  `./setup.sh && ` is
    dropped (the Quick start's first command is then `build/streamtime
    reproduce`); a block that is only ./setup.sh or runs the test suite
    is left to .ci/run and tests/fresh/run.sh.  PAPER_DATA is the paper's
    data in shared/ beside the checkout (a block needing it is left out,
    and said, off CI; a failure under CI, which has it).  A `sudo` block
    (trace record) runs as root, bpftrace and sysstat installed first when
    missing (tests/install_packages.sh), and the rest of its document
    with it; not as root it is said and left out off CI, and fails under
    CI; tracers that cannot be installed as root fail (setup_rule's
    rule; tests/cli/record_check.py covers trace record itself); a block
    that imports streamtime (docs/trace.md) needs the module built and
    Debian's python3-pandas, installed when missing, by the same rule;
  * docs_output_as_shown: an unlabelled ``` block that comes next after a
    ```sh block is what that block prints: each of its lines must be a
    line of the block's standard output or error;
  * docs_links_resolve: every relative link of the documents names a file
    of the tree, and its #anchor a heading of that file.
"""
import os
import re
import shutil
import sys

BIN = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
PAPER = os.path.join(os.path.dirname(SRC), "shared", "paper-data")
from checks import check, fresh_clone, run, run_in_tmp  # noqa: E402
import setup_rule  # noqa: E402

TEST = "cli-docs"

DOCS = ["README.md", "docs/operations.md", "docs/trace.md",
        "docs/systrace.md"]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)


def blocks(text):
    """[(lang, body)] of the fenced blocks, in order."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def can_record():
    """Whether the sudo blocks can run, by setup_rule's rule: not as root
    they are left out, and said, off CI, and fail under CI; as root the
    tracers are installed when missing, and a failed install fails."""
    if os.geteuid() != 0:
        check(not setup_rule.on_ci(), "docs_commands_run_as_shown: the "
              "sudo blocks need root, which CI has")
        return False
    r = setup_rule.install(["bpftrace", "sysstat"])
    check(r is None, "docs_commands_run_as_shown: the tracers of the sudo "
          "blocks: %s" % (r[1] if r else ""))
    return r is None and all(shutil.which(t) for t in ("bpftrace", "mpstat"))


def python_env():
    """The environment of the Python blocks (docs/trace.md, From Python),
    or None when they cannot run: the module built, and Debian's pandas,
    installed when missing by setup_rule's rule (not as root: left out
    off CI, a failure under CI).  A sanitized module loads into the
    unsanitized Python with its sanitizer's runtime preloaded (Python's
    own objects at exit are not leaks of ours)."""
    pydir = os.path.join(os.path.dirname(BIN), "python", "streamtime")
    if not os.path.isdir(pydir):
        check(not setup_rule.on_ci(), "docs_commands_run_as_shown: the "
              "Python blocks need the module (python3-dev), which CI has")
        return None
    r = setup_rule.install(["python3-pandas"])
    if r and r[0] and not setup_rule.on_ci():
        return None
    if not check(r is None, "docs_commands_run_as_shown: pandas for the "
                 "Python blocks: %s" % (r[1] if r else "")):
        return None
    env = dict(os.environ)
    core = [os.path.join(pydir, f) for f in os.listdir(pydir)
            if f.startswith("_core.") and f.endswith(".so")]
    libs = run("ldd", *core).stdout.split() if core else []
    asan = [x for x in libs if os.path.basename(x).startswith("libasan.")]
    if asan:
        env["LD_PRELOAD"] = asan[0]
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + \
            ":detect_leaks=0"
    return env


def run_doc(doc, text, repo):
    runs = 0
    parts = blocks(text)
    for i, (lang, body) in enumerate(parts):
        if lang != "sh":
            continue
        cmd = body.replace("./setup.sh && ", "")
        if cmd.strip() == "./setup.sh" or "meson test" in cmd:
            continue
        if "PAPER_DATA" in cmd:
            if not os.path.isdir(PAPER):
                # setup_rule.data_missing's rule: CI has the data
                print("%s: block %d needs the paper's data (%s): left out"
                      % (doc, i + 1, PAPER))
                check(not setup_rule.on_ci(), "docs_commands_run_as_shown:"
                      " %s block %d: no paper data at %s" % (doc, i + 1,
                                                            PAPER))
                continue
            cmd = cmd.replace("PAPER_DATA", PAPER)
        env = None
        if "import streamtime" in cmd:
            env = python_env()
            if env is None:
                print("%s: block %d needs the Python module and pandas: "
                      "left out" % (doc, i + 1))
                continue
        if re.search(r"^sudo ", cmd, re.M):
            if not can_record():
                print("%s: the sudo blocks and the rest of the page need "
                      "root, bpftrace and mpstat: left out" % doc)
                return runs
            cmd = re.sub(r"^sudo ", "", cmd, flags=re.M)
        p = run("bash", "-euo", "pipefail", "-c", cmd, cwd=repo,
                timeout=600, env=env)
        runs += 1
        check(p.returncode == 0, "docs_commands_run_as_shown: %s, block "
              "%d exits %d:\n%s\n%s" % (doc, i + 1, p.returncode, cmd,
                                        p.stderr[-2000:]))
        if i + 1 < len(parts) and parts[i + 1][0] == "":
            said = set(l.rstrip() for l in
                       (p.stdout + "\n" + p.stderr).split("\n"))
            for line in parts[i + 1][1].rstrip("\n").split("\n"):
                check(line.rstrip() in said, "docs_output_as_shown: %s, "
                      "block %d does not print %r" % (doc, i + 1, line))
    return runs


def anchors(path):
    """The anchors GitHub makes of a Markdown file's headings."""
    with open(path, encoding="utf-8") as f:
        heads = re.findall(r"^#+ (.*)$", f.read(), re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
            for h in heads}


def links(doc, text):
    base = os.path.dirname(os.path.join(SRC, doc))
    for target, anchor in re.findall(r"\]\(([^)#:\s]*)(?:#([^)]*))?\)",
                                     text):
        path = os.path.join(base, target) if target else \
            os.path.join(SRC, doc)
        if not check(os.path.exists(path), "docs_links_resolve: %s links "
                     "%s, which is not there" % (doc, target)):
            continue
        if anchor and path.endswith(".md"):
            check(anchor in anchors(path), "docs_links_resolve: %s links "
                  "%s#%s, which has no such heading" % (doc, target, anchor))


def body(tmp):
    readme = open(os.path.join(SRC, "README.md"), encoding="utf-8").read()
    n = readme.count("\n")
    check(n <= 300, "readme_at_most_300_lines: README.md has %d lines" % n)
    repo = fresh_clone(SRC, os.path.join(tmp, "repo"),
                       ("data", "docs", "tests/systrace"), BIN)
    runs = 0
    for doc in DOCS + ["docs/guide.md", "docs/sessions.md",
                       "docs/slurm-array.md", "docs/development.md"]:
        path = os.path.join(SRC, doc)
        if not check(os.path.isfile(path), "docs_commands_run_as_shown: "
                     "%s is not there" % doc):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        links(doc, text)
        if doc in DOCS:
            runs += run_doc(doc, text, repo)
    print("docs: %d blocks ran" % runs)
    check(runs >= 10, "docs_commands_run_as_shown: only %d blocks ran"
          % runs)


sys.exit(run_in_tmp("docs", body))
