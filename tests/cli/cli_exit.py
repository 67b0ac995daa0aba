#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Exit statuses as the manual pages say them, against the CLI.

usdtkit(1)'s EXIT STATUS is the one table (0 ran, 1 failed, 2 usage);
each usdtkit-CMD(1)'s EXIT STATUS paragraph says which of them CMD gives,
and when. Both are read from the pages' sources (docs/man/*.scd), and
the CLI is driven into every status each page documents, by the cases
below: a status a page names with no case here, a case of a status the
page does not name, a phrase of a case that its page does not say under
that status, or an exit other than the case's fails. A usage error (2)
prints nothing on stdout and one line on stderr. Every command the CLI
lists (`usdtkit __complete commands`) has its paragraph. Needs root and
BPF (a trace that runs, `features`); the unprivileged case runs as
nobody (setpriv).

usage: cli_exit.py USDTKIT MAN_SRC_DIR FX_CMD
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from checks import Checks  # noqa: E402

U, MAN, FX = sys.argv[1:4]
check = Checks()


def exit_section(page):
    """the EXIT STATUS section of PAGE's source, as one line of text"""
    text = open(os.path.join(MAN, page)).read()
    m = re.search(r"^# EXIT STATUS\n(.*?)(?=^# )", text, re.S | re.M)
    return " ".join(m.group(1).split()) if m else ""


def statuses(section):
    """{status: its text}: each *N* up to the next *N*"""
    parts = re.split(r"\*(\d+)\*", section)
    return {int(parts[i]): parts[i + 1] for i in range(1, len(parts), 2)}


# CASES[command]: (status, the phrase its page says it under, argv after
# `usdtkit`, options); "" is the command-less top level, whose page is
# usdtkit.1's table itself. Options: stdout (a file to write to), user
# ("nobody"), usage (the list of commands, not one line). @FX@ and @PUB@
# (a copy of it anyone may read) are filled in.
CASES = {
    "": [
        (0, "help", ["help"], {}),
        (0, "--version", ["--version"], {}),
        (0, "help", ["help", "trace"], {}),
        (2, "no command", [], {"usage": True}),
        (2, "unknown command", ["frob"], {}),
        (2, "unknown command", ["help", "frob"], {}),
        (2, "option", ["--frob"], {}),
    ],
    "parse": [
        (0, "every argument parsed", ["parse", "--arch", "x86_64", "8@%rdi -4@$5"], {}),
        (1, "an argument is invalid", ["parse", "--arch", "x86_64", "8@%bogus"], {}),
        (1, "the output cannot be written", ["parse", "--arch", "x86_64", "8@%rdi"],
         {"stdout": "/dev/full"}),
        (2, "no *--arch*", ["parse", "8@%rdi"], {}),
        (2, "an unknown architecture", ["parse", "--arch", "vax", "8@%rdi"], {}),
        (2, "option", ["parse", "--frob"], {}),
    ],
    "list": [
        (0, "could be read", ["list", "@FX@"], {}),
        (0, "matches nothing", ["list", "-P", "cmdt:strat", "@FX@"], {}),
        (1, "could not", ["list", "/nonexistent/fx"], {}),
        (1, "the output cannot be written", ["list", "@FX@"], {"stdout": "/dev/full"}),
        (2, "no _FILE_", ["list"], {}),
        (2, "an unknown option", ["list", "--frob", "@FX@"], {}),
    ],
    "trace": [
        (0, "ended normally", ["trace", "-q", "-d", "0.2", "@FX@:cmdt:start"], {}),
        (0, "whatever the exit status of _CMD_",
         ["trace", "-q", "-c", "@FX@ 2 0 7", "cmdt:start"], {}),
        (1, "no such file", ["trace", "/nonexistent/fx:cmdt:start"], {}),
        (1, "process", ["trace", "-p", "999999999", "cmdt:start"], {}),
        (1, "probe", ["trace", "@FX@:cmdt:strat"], {}),
        (1, "no privileges", ["trace", "-d", "0.2", "@PUB@:cmdt:start"], {"user": "nobody"}),
        (2, "*--mode bogus*", ["trace", "--mode", "bogus", "@FX@:cmdt:start"], {}),
        (2, "*--count x*", ["trace", "--count", "x", "@FX@:cmdt:start"], {}),
        (2, "a bad *--filter*", ["trace", "--filter", "arg0 and arg1", "@FX@:cmdt:start"],
         {}),
        (2, "an aggregation of an argument a probe does not have",
         ["trace", "--hist", "arg5", "@FX@:cmdt:start"], {}),
        (2, "*usdt:*_PATH_:_PROVIDER_:_NAME_", ["trace", "usdt:@FX@:cmdt:start"], {}),
        (2, "*U:*", ["trace", "U:@FX@:cmdt:start"], {}),
        (2, "*usdt:*_PATH_:_NAME_", ["trace", "usdt:@FX@:start"], {}),
        (2, "*a:b:c:d:e*", ["trace", "a:b:c:d:e"], {}),
        (2, "a _PATH_ alone", ["trace", "@FX@"], {}),
        (2, "_PROVIDER_:_NAME_ without *-p*, *-c* or *--all*", ["trace", "cmdt:start"],
         {}),
        (2, "a malformed _TARGET_", ["trace", "--latency", "a:b:c:d:e", "@FX@:cmdt:start"],
         {}),
    ],
    "features": [
        (0, "the report is printed", ["features"], {}),
        (1, "it cannot be written", ["features"], {"stdout": "/dev/full"}),
        (2, "an unknown option", ["features", "--frob"], {}),
    ],
}


def run(argv, opts, pub):
    argv = [a.replace("@PUB@", pub).replace("@FX@", FX) for a in argv]
    cmd = [U] + argv
    if opts.get("user") == "nobody":
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
               os.path.join(os.path.dirname(pub), "usdtkit")] + argv
    out = open(opts.get("stdout", os.devnull), "w") if "stdout" in opts else None
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out or subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    if out:
        out.close()
    return p.returncode, (p.stdout or b"").decode(errors="replace"), \
        p.stderr.decode(errors="replace")


def main():
    table = statuses(exit_section("usdtkit.1.scd"))
    check(sorted(table) == [0, 1, 2], "usdtkit.1's table: %r, want 0, 1, 2" % sorted(table))
    cmds = subprocess.run([U, "__complete", "commands"], capture_output=True,
                          text=True).stdout.split()
    check(sorted(c for c in cmds if c != "help") == sorted(c for c in CASES if c),
          "the commands %r and the cases %r differ" % (cmds, sorted(CASES)))
    # what the unprivileged case runs and reads: copies anyone may read
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o755)
    pub = os.path.join(tmp, "fx_cmd")
    shutil.copy(U, os.path.join(tmp, "usdtkit"))
    shutil.copy(FX, pub)
    try:
        for cmd, cases in CASES.items():
            doc = table if not cmd else statuses(exit_section("usdtkit-%s.1.scd" % cmd))
            name = cmd or "usdtkit"
            check(doc and set(doc) <= set(table),
                  "%s: EXIT STATUS %r, want some of %r" % (name, sorted(doc), sorted(table)))
            # (the table is every command's; the top level itself
            # fails at nothing, its 1 is the commands')
            reached = {c[0] for c in cases} | (set() if cmd else {1})
            check(set(doc) == reached, "%s: the page documents %r, the cases reach %r" %
                  (name, sorted(doc), sorted(reached)))
            for want, phrase, argv, opts in cases:
                what = "%s %s" % (name, " ".join(argv[1:] if cmd else argv))
                check(phrase in doc.get(want, ""),
                      "%s: the page does not say '%s' under %d: %r" %
                      (what, phrase, want, doc.get(want)))
                rc, out, err = run(argv, opts, pub)
                check(rc == want, "%s: exit %d, want %d (%s): %s" %
                      (what, rc, want, phrase, err.strip()))
                if want == 2 and opts.get("usage"):
                    check(not out and err.startswith("usage: usdtkit COMMAND"),
                          "%s: no list of commands on stderr: %r" % (what, err))
                elif want == 2:
                    check(not out and len(err.splitlines()) == 1,
                          "%s: a usage error: %d bytes on stdout, stderr %r" %
                          (what, len(out), err))
    finally:
        shutil.rmtree(tmp)
    sys.exit(check.finish("cli_exit"))


if __name__ == "__main__":
    main()
