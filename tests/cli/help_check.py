#!/usr/bin/env python3
"""Every command's --help against the man page and the bash completion.

The commands are discovered from the program itself: `streamtime --help`
lists the commands, a command whose --help lists "commands:" has
subcommands.  For every command that takes options:
  * the man page (docs/streamtime.1) has a subsection `.SS streamtime CMD`;
  * every long option its --help shows is in that subsection, and every
    long option the subsection shows is in --help (the two agree);
  * --help exits 0 and starts with "usage: streamtime CMD".
The bash completion (contrib/completion/streamtime.bash) is sourced and
must offer each command, and a command's options after "--".

usage: help_check.py STREAMTIME SOURCE_ROOT
"""
import os
import re
import subprocess
import sys

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
FAILS, CHECKS = [], [0]
OPT = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# options every command takes; the man page lists them once, under OPTIONS
COMMON = {"--help", "--quiet", "--verbose", "--version"}


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, file=sys.stderr)


def helptext(words):
    p = subprocess.run([BIN, *words, "--help"], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    check(p.returncode == 0, "%s --help: exit %d" % (" ".join(words),
                                                     p.returncode))
    return p.stdout


def subcommands(text):
    if "commands:" not in text:
        return []
    part = text.split("commands:", 1)[1]
    return re.findall(r"^  ([a-z][a-z0-9-]*)  ", part, re.M)


def discover():
    """[(words, help text)] of every leaf command."""
    leaves, todo = [], [[]]
    while todo:
        words = todo.pop(0)
        text = helptext(words)
        subs = subcommands(text)
        if words and not subs:
            leaves.append((words, text))
        todo += [words + [s] for s in subs]
    return leaves


def man_sections():
    """{"merge offload": text} from the .SS subsections of the man page."""
    with open(os.path.join(ROOT, "docs", "streamtime.1")) as f:
        man = f.read()
    plain = man.replace("\\-", "-").replace("\\(em", "-")
    out = {}
    parts = re.split(r'^\.S[SH] +"?([^"\n]*)"?\s*$', plain, flags=re.M)
    for head, body in zip(parts[1::2], parts[2::2]):
        m = re.match(r"streamtime ([a-z0-9 -]+)$", head.strip())
        if m:
            out[m.group(1).strip()] = body
    return out, plain


def complete(words):
    script = ('source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _streamtime; '
              'printf "%%s\\n" "${COMPREPLY[@]}"'
              % (os.path.join(ROOT, "contrib", "completion",
                              "streamtime.bash"),
                 " ".join("'%s'" % w for w in [BIN] + words), len(words)))
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    return set(p.stdout.split())


def main():
    leaves = discover()
    sections, man = man_sections()
    check(len(leaves) >= 15, "found %d commands" % len(leaves))
    for words, text in leaves:
        name = " ".join(words)
        check(text.startswith("usage: streamtime " + name),
              "%s --help starts with its usage line" % name)
        shown = set(OPT.findall(text)) - COMMON
        sec = sections.get(name)
        check(sec is not None, "the man page has a section for %s" % name)
        if sec is None:
            continue
        in_man = set(OPT.findall(sec)) - COMMON
        check(shown <= in_man, "%s: in --help, not in the man page: %s"
              % (name, sorted(shown - in_man)))
        check(in_man <= shown, "%s: in the man page, not in --help: %s"
              % (name, sorted(in_man - shown)))
        # completion: the command, then its options
        check(words[-1] in complete(words[:-1] + [words[-1][:2]]),
              "completion offers %s" % name)
        if shown:
            got = complete(words + ["--"])
            check(shown <= got, "completion of %s options lacks %s"
                  % (name, sorted(shown - got)))
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
