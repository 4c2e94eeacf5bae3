#!/usr/bin/env python3
"""--help, the man page and the bash completion against the option tables.

`streamtime --dump-options` (hidden) prints every command's descriptor and
option table, the tables the parser reads and --help is made from.  For
every leaf command, both ways (nothing missing, nothing extra):
  * --help exits 0, starts with "usage: streamtime CMD" and shows exactly
    the table's options;
  * the man page (docs/streamtime.1) has a subsection `.SS streamtime CMD`
    with exactly the table's options, one .TP entry per option (no two
    run together), and one .TP entry per list item of the description;
  * the bash completion (contrib/completion/streamtime.bash), sourced,
    offers the command, exactly the table's options after "--", for each
    option's value exactly the table's choices, zone names for a zone,
    file names only for file and directory options, nothing for the rest;
  * both files are what docs/gen_man.py makes from the tables now.

usage: help_check.py STREAMTIME SOURCE_ROOT
"""
import json
import os
import re
import subprocess
import sys
import tempfile

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
from checks import CHECKS, FAILS, check  # noqa: E402
OPT = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# options every command takes; the man page lists them once, under OPTIONS
COMMON = {"--help", "--quiet", "--verbose", "--version"}
ITEM = re.compile(r"^  (\S(?:\S| (?! ))*)  +(\S.*)$")
ZONEINFO = os.environ.get("TZDIR", "/usr/share/zoneinfo")


def helptext(words):
    p = subprocess.run([BIN, *words, "--help"], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    check(p.returncode == 0, "%s --help: exit %d" % (" ".join(words),
                                                     p.returncode))
    return p.stdout


def man_sections():
    """{"merge offload": text} from the .SS subsections of the man page."""
    with open(os.path.join(ROOT, "docs", "streamtime.1")) as f:
        man = f.read()
    plain = man.replace("\\-", "-").replace("\\(em", "-")
    plain = re.sub(r"\\f[BIRP]", "", plain)
    out = {}
    parts = re.split(r'^\.S[SH] +"?([^"\n]*)"?\s*$', plain, flags=re.M)
    for head, body in zip(parts[1::2], parts[2::2]):
        m = re.match(r"streamtime ([a-z0-9 -]+)$", head.strip())
        if m:
            out[m.group(1).strip()] = body
    return out, plain


def tp_heads(sec):
    """The head line of every .TP entry of a man section."""
    lines = sec.split("\n")
    return [lines[i + 1] for i, x in enumerate(lines[:-1]) if x == ".TP"]


def complete(words, cwd=None):
    script = ('source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _streamtime; '
              'printf "%%s\\n" "${COMPREPLY[@]}"'
              % (os.path.join(ROOT, "contrib", "completion",
                              "streamtime.bash"),
                 " ".join("'%s'" % w for w in [BIN] + words), len(words)))
    p = subprocess.run(["bash", "-c", script], capture_output=True,
                       text=True, cwd=cwd)
    return {w.strip() for w in p.stdout.split("\n") if w.strip()}


def generated(flag):
    args = [sys.executable, os.path.join(ROOT, "docs", "gen_man.py")]
    p = subprocess.run(args + flag + [BIN], capture_output=True, text=True)
    check(p.returncode == 0, "gen_man.py %s: exit %d %s"
          % (flag, p.returncode, p.stderr))
    return p.stdout


def check_generated():
    for flag, path in (([], "docs/streamtime.1"),
                       (["--completion"], "contrib/completion/streamtime.bash")):
        with open(os.path.join(ROOT, path)) as f:
            check(f.read() == generated(flag), "%s is not what docs/gen_man.py "
                  "%s makes from the option tables: regenerate it"
                  % (path, " ".join(flag)))


def check_values(name, words, c, scratch):
    """The completion of every option's value, in SCRATCH (which holds
    zz_file.csv and the directory zz_dir)."""
    for o in c["options"]:
        if o["kind"] == "group" or not o["value"] or not o["long"]:
            continue
        opt = "--" + o["long"]
        kind = o["complete"]
        if kind == "choice":
            got = complete(words + [opt, ""], scratch)
            check(got == set(o["choices"]), "%s %s: completion offers %s, "
                  "the table %s" % (name, opt, sorted(got), o["choices"]))
            continue
        got = complete(words + [opt, "zz_"], scratch)
        want = {"file": {"zz_file.csv", "zz_dir"}, "dir": {"zz_dir"}}.get(
            kind, set())
        check(got == want, "%s %s (%s): completion offers %s, expected %s"
              % (name, opt, kind, sorted(got), sorted(want)))
        if kind == "zone" and os.path.isfile(os.path.join(ZONEINFO,
                                                         "Europe/Berlin")):
            got = complete(words + [opt, "Europe/Be"], scratch)
            check("Europe/Berlin" in got, "%s %s: completion offers no zone "
                  "names: %s" % (name, opt, sorted(got)))


def check_leaf(c, sections, scratch):
    words = c["path"].split()[1:]
    name = " ".join(words)
    table = {"--" + o["long"] for o in c["options"] if o.get("long")}
    text = helptext(words)
    check(text.startswith("usage: streamtime " + name),
          "%s --help starts with its usage line" % name)
    # the option rows (their heads) and the synopsis
    rows = re.findall(r"^  (-\S.*?)(?:  |$)", text, re.M)
    shown = set(OPT.findall(" ".join(rows))) - COMMON
    check(shown == table, "%s: --help rows show %s, the table has %s"
          % (name, sorted(shown - table), sorted(table - shown)))
    synopsis = text.split("\n\n", 1)[0]
    shown = set(OPT.findall(synopsis))
    check(shown == table, "%s: --help synopsis shows %s, the table has %s"
          % (name, sorted(shown - table), sorted(table - shown)))
    sec = sections.get(name)
    check(sec is not None, "the man page has a section for %s" % name)
    if sec is not None:
        heads = tp_heads(sec)
        in_man = set()
        for h in heads:
            found = set(OPT.findall(h))
            check(len(found) <= 1, "%s: one man entry runs options together: "
                  "%r" % (name, h))
            in_man |= found
        check(in_man == table, "%s: man page entries %s, the table has %s"
              % (name, sorted(in_man - table), sorted(table - in_man)))
        # each entry's head is the option and its value, nothing fused on
        for o in c["options"]:
            if o["kind"] != "group":
                check(o["head"] in heads, "%s: no man entry headed %r (one "
                      "runs its help into the head?)" % (name, o["head"]))
        for text_part in (c["description"] or "", c["epilogue"] or ""):
            for line in text_part.split("\n"):
                m = ITEM.match(line)
                if m:
                    check(".B " + m.group(1) in heads,
                          "%s: the man page runs the list item %r into "
                          "its paragraph" % (name, m.group(1)))
    check(words[-1] in complete(words[:-1] + [words[-1][:2]]),
          "completion offers %s" % name)
    got = {w for w in complete(words + ["--"]) if w.startswith("--")}
    check(got == table | (COMMON - {"--version"}),
          "completion of %s options: extra %s, missing %s"
          % (name, sorted(got - table - COMMON),
             sorted(table - got)))
    check_values(name, words, c, scratch)
    if c["args"]:
        got = complete(words + ["zz_"], scratch)
        want = {"file": {"zz_file.csv", "zz_dir"}, "dir": {"zz_dir"}}.get(
            c["args_complete"], set())
        check(got == want, "%s %s: completion offers %s, expected %s"
              % (name, c["args"], sorted(got), sorted(want)))


def main():
    p = subprocess.run([BIN, "--dump-options"], capture_output=True,
                       text=True)
    check(p.returncode == 0, "--dump-options: exit %d" % p.returncode)
    cmds = json.loads(p.stdout)
    leaves = [c for c in cmds if "options" in c]
    sections, man = man_sections()
    check(len(leaves) >= 15, "found %d commands" % len(leaves))
    # the groups' --help list what the tables hold
    for g in (c for c in cmds if "commands" in c):
        text = helptext(g["path"].split()[1:])
        part = text.split("commands:", 1)[-1]
        listed = re.findall(r"^  ([a-z][a-z0-9-]*)  ", part, re.M)
        check(listed == g["commands"], "%s --help lists %s, the table %s"
              % (g["path"], listed, g["commands"]))
    with tempfile.TemporaryDirectory() as scratch:
        open(os.path.join(scratch, "zz_file.csv"), "w").close()
        os.mkdir(os.path.join(scratch, "zz_dir"))
        for c in leaves:
            check_leaf(c, sections, scratch)
    check_generated()
    for opt in COMMON - {"--version"}:
        check(opt in man, "the man page lists %s" % opt)
    for code in ("64", "65", "66", "69", "73", "74", "75", "78"):
        check(re.search(r"^\.TP\s*\n\.?B?\s*%s\b" % code, man, re.M) or
              ("\n%s " % code) in man, "the man page lists exit code %s" % code)
    print("help: %d commands, %d checks, %d failed"
          % (len(leaves), CHECKS[0], len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
