"""The checks of a tests/cli script: check() counts each one and names
the failures on stderr; report() prints the closing line and gives the
exit status; run() runs a command for its output.  Scripts import it
from their own directory (sys.path[0])."""
import subprocess
import sys

FAILS, CHECKS = [], [0]
BUG = [None]


def bug(name):
    """Name the bug every later failure belongs to: 'FAIL: NAME: WHAT'."""
    BUG[0] = name


def check(cond, what):
    """Count a check; name it on stderr when COND is false.  Gives COND
    back, for 'if not check(...)'."""
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        if BUG[0]:
            print("FAIL: %s: %s" % (BUG[0], what), file=sys.stderr)
        else:
            print("FAIL:", what, file=sys.stderr)
    return cond


def report(name):
    """Print 'NAME: N checks, M failed'; 1 if any failed or none ran (a
    test that checked nothing has not passed), else 0."""
    print("%s: %d checks, %d failed" % (name, CHECKS[0], len(FAILS)))
    return 1 if FAILS or not CHECKS[0] else 0


def run(*argv, **kw):
    """subprocess.run(ARGV) with its stdout and stderr captured, as text
    unless text=False; KW as for subprocess.run (timeout, cwd, env, input,
    ...)."""
    kw.setdefault("text", True)
    return subprocess.run(list(argv), capture_output=True, **kw)


def runner(*head, **defaults):
    """A script's run(): run(*ARGS, **KW) is run(*HEAD, *ARGS) with
    DEFAULTS for the keywords KW does not give."""
    def run_(*args, **kw):
        return run(*head, *args, **dict(defaults, **kw))
    return run_


def run_in_tmp(name, body):
    """BODY(TMP) in a new temporary directory, removed after; then
    report(NAME)."""
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp(prefix=name + ".")
    try:
        body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report(name)


def guide_blocks(root):
    """The ```sh blocks of docs/guide.md's worked example (section 1), in
    order, as a reader copies them."""
    import os
    with open(os.path.join(root, "docs", "guide.md"), encoding="utf-8") as f:
        text = f.read()
    part = text[text.index("## 1."):text.index("## 2.")]
    blocks = []
    while "```sh\n" in part:
        part = part[part.index("```sh\n") + 6:]
        blocks.append(part[:part.index("```")])
        part = part[part.index("```") + 3:]
    return blocks


def fresh_clone(root, repo, tops, binary):
    """The tracked files of the folders TOPS of ROOT copied into REPO
    without their mtimes (as a git clone leaves them), and REPO/build
    pointing at BINARY's directory: the documents' commands run there as
    a reader runs them after the Quick start.  Gives REPO."""
    import os
    import shutil
    try:
        files = subprocess.run(["git", "-C", root, "ls-files"] + list(tops),
                               capture_output=True, text=True).stdout.split()
    except FileNotFoundError:   # no git (a fresh Debian minbase has none)
        files = []
    if not files:       # not a git checkout: every file of TOPS
        for top in tops:
            for d, _, names in os.walk(os.path.join(root, top)):
                files += [os.path.relpath(os.path.join(d, n), root)
                          for n in names]
    for f in files:
        os.makedirs(os.path.join(repo, os.path.dirname(f)), exist_ok=True)
        shutil.copyfile(os.path.join(root, f), os.path.join(repo, f))
    os.symlink(os.path.dirname(os.path.abspath(binary)),
               os.path.join(repo, "build"))
    return repo


def sanitized(binary):
    """Is BINARY built with AddressSanitizer (its shadow memory and
    quarantine make resident sizes and memory limits another matter)?"""
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


def record_manifest(d, real_ns, mono_ns=0, span_ns=20 * 10**9,
                    bounds=(80, 80), host="node1"):
    """D/manifest.json of a complete trace record in the layout of
    docs/systrace.md: HOST in UTC, its clock pairs at the start (MONO_NS,
    REAL_NS) and SPAN_NS later, with BOUNDS (start, end) in ns."""
    import json
    import os
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump({"streamtime_record": 1, "host": host, "tz": "UTC",
                   "clock": [{"when": "start", "mono_ns": mono_ns,
                              "real_ns": real_ns, "bound_ns": bounds[0]},
                             {"when": "end", "mono_ns": mono_ns + span_ns,
                              "real_ns": real_ns + span_ns,
                              "bound_ns": bounds[1]}]}, f)
