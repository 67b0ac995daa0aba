#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
The docs match the machine: every `usdtkit` command that README.md and
docs/USING.md show is run here, as a newcomer would paste it, on the
bundled demo (examples/demo.c), Debian's python3.11 and the C++
fixture fx_throw; a command the docs show that fails fails this test.

usage: docs_examples.py --usdtkit PATH --demo PATH --fx-throw PATH
                        DOC...

Taken from a doc: each line that starts with `usdtkit ` in a ```sh block,
and each `$ usdtkit ...` line of a plain ``` block (a transcript: the
lines after it are its output). A plain block without `$` is a synopsis,
not a command. In a manual page (.scd), every line of the EXAMPLES
blocks that runs usdtkit. The few that need what no test machine has
(PostgreSQL, a service's file) are named in CANNOT and said, not run. Each runs with `sh -c` in a directory that holds ./demo
and ./fx_throw, with usdtkit first in PATH, while two demos and two
python3.11 loops run (so `pidof -d, demo` names two processes, as on a
machine where a newcomer trips). One rewrite, printed: the textfile
collector's directory becomes that directory.

How each is judged:
- A command that ends by itself (--count, --duration, -c, or list,
  parse, features): exit 0 within 60 s.
- A trace that runs until Ctrl-C: once it says "Tracing", 0.8 s later
  SIGINT; exit 0. --serve: GET /metrics answers 200 with usdtkit_
  series first; --textfile: the file holds usdtkit_ series.
- Every trace prints something on stdout (hits or a table), or into its
  -o FILE, unless it serves or writes a textfile.
- A `$ usdtkit parse` transcript's output is compared line for line.
- A transcript whose output is usdtkit's own messages shows a mistake:
  its standard error must be those lines, and nothing printed on stdout.
Root (BPF): run alone, label bpf.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

TEXTFILE_DIR = "/var/lib/prometheus/node-exporter/"
# shown, and cannot run on a test machine: what each needs
CANNOT = {
    "pidof -s postgres": "a running PostgreSQL built with --enable-dtrace",
    "--args-file /etc/usdtkit/": "a service's arguments file (docs/EXPORTER.md)",
}
PY_LOOP = ("import time\n"
           "def f(i):\n    return i + 1\n"
           "i = 0\n"
           "while True:\n    i = f(i)\n    time.sleep(0.01)\n")

failures = 0


def ok(msg):
    print(f"ok: {msg}")


def ko(msg, out=""):
    global failures
    failures += 1
    print(f"FAIL: {msg}")
    if out:
        print("  | " + "\n  | ".join(out.rstrip("\n").split("\n")[-15:]))


def examples(path):
    """[(doc:line, command, transcript lines or None)] of one doc."""
    found, fence, lang, cur = [], None, "", None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    name = os.path.basename(path)
    # a manual page's EXAMPLES: each line of its blocks is a command
    man, section = path.endswith(".scd"), ""
    for n, line in enumerate(lines, 1):
        if line.startswith("# "):
            section = line[2:].strip()
        if man and fence is not None and not line.startswith(fence):
            if section == "EXAMPLES" and "usdtkit " in line:
                found.append((f"{name}:{n}", line, None))
            continue
        m = re.match(r"^(```+)(\w*)\s*$", line)
        if m and fence is None:
            fence, lang, cur = m.group(1), m.group(2), None
            continue
        if fence is not None and line.startswith(fence):
            fence = None
            continue
        if fence is None:
            continue
        if lang == "sh" and line.startswith("usdtkit "):
            found.append((f"{name}:{n}", line, None))
        elif lang == "" and line.startswith("$ "):
            cur = (f"{name}:{n}", line[2:], [])
            if cur[1].startswith("usdtkit "):
                found.append(cur)
        elif lang == "" and cur is not None:
            cur[2].append(line)
    return found


def subcommand(cmd):
    """usdtkit's subcommand in @cmd, which may be a pipeline's end"""
    m = re.search(r"(^|\|\s*)usdtkit\s+(\S+)", cmd)
    return m.group(2) if m else ""


def ends_by_itself(cmd):
    if subcommand(cmd) in ("list", "parse", "features"):
        return True
    return bool(re.search(r"(^|\s)(--count|--duration|-d|-c)(\s|=)", cmd))


def start_bg(argv, cwd):
    return subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def wait_for(path, pattern, timeout, proc=None):
    """Has @path a line that matches @pattern within @timeout s (and
    before @proc, when given, exits)?"""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            proc = None
            end = time.monotonic() + 0.1
        try:
            with open(path, errors="replace") as f:
                if re.search(pattern, f.read(), re.M):
                    return True
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    return False


def get_metrics(cmd):
    m = re.search(r"--serve[ =](\S+)", cmd)
    url = f"http://{m.group(1)}/metrics"
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            body = r.read().decode()
            return r.status == 200 and "usdtkit_" in body, body
    except OSError as e:
        return False, str(e)


def shows_mistake(transcript):
    """a transcript whose output is usdtkit's own messages: a mistake
    and the line that answers it"""
    lines = [l for l in (transcript or []) if l.strip()]
    return bool(lines) and all(re.match(r"usdtkit \w+: ", l) for l in lines)


def run_mistake(where, cmd, transcript, work, env):
    want = [l for l in transcript if l.strip()]
    p = subprocess.run(["sh", "-c", cmd], cwd=work, env=env, capture_output=True,
                       text=True, timeout=60)
    got = p.stderr.rstrip("\n").split("\n")
    if got == want and not p.stdout:
        ok(f"{where}: {cmd}: said as shown (exit {p.returncode})")
    else:
        ko(f"{where}: {cmd}: not what the doc shows",
           "want:\n" + "\n".join(want) + "\ngot:\n" + p.stderr + p.stdout)


def run_one(where, cmd, transcript, work, env):
    if shows_mistake(transcript):
        return run_mistake(where, cmd, transcript, work, env)
    out, err = os.path.join(work, "out"), os.path.join(work, "err")
    with open(out, "w") as fo, open(err, "w") as fe:
        by_itself = ends_by_itself(cmd)
        # exec: SIGINT reaches usdtkit, not a shell that dies of it
        p = subprocess.Popen(["sh", "-c", cmd if by_itself else "exec " + cmd],
                             cwd=work, env=env, stdout=fo, stderr=fe,
                             start_new_session=True)
        served, why = True, ""
        if by_itself:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                why = "did not end in 60 s"
        elif not wait_for(err, r"^Tracing", 60, p):
            why = "never said Tracing"
        else:
            time.sleep(0.8)
            if "--serve" in cmd:
                served, body = get_metrics(cmd)
                why = "" if served else "GET /metrics: " + body[:200]
            if "--textfile" in cmd:
                tf = re.search(r"--textfile[ =](\S+)", cmd).group(1)
                served = wait_for(os.path.join(work, tf), r"^usdtkit_", 10)
                why = "" if served else f"no usdtkit_ series in {tf}"
            os.killpg(p.pid, signal.SIGINT)
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            rc = p.wait()
            why = why or "did not end 30 s after SIGINT"
    text = open(out, errors="replace").read()
    msgs = open(err, errors="replace").read()
    m = re.search(r"(^|\s)-o[ =](\S+)", cmd)
    if m:
        path = os.path.join(work, m.group(2))
        text = open(path, errors="replace").read() if os.path.exists(path) else ""
    if not why and rc != 0:
        why = f"exit {rc}"
    if not why and subcommand(cmd) == "trace" and not text.strip() and \
            "--serve" not in cmd and "--textfile" not in cmd:
        why = "printed nothing"
    if not why and transcript is not None and subcommand(cmd) == "parse":
        want = [l for l in transcript if l.strip()]
        if text.rstrip("\n").split("\n") != want:
            why = "output differs from the doc's"
            msgs = "want:\n" + "\n".join(want) + "\ngot:\n" + text
    if why:
        ko(f"{where}: {cmd}: {why}", msgs + text[-2000:])
    else:
        ok(f"{where}: {cmd}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--usdtkit", required=True)
    ap.add_argument("--demo", required=True)
    ap.add_argument("--fx-throw", required=True)
    ap.add_argument("docs", nargs="+")
    a = ap.parse_args()
    if os.geteuid():
        print("SKIP: not root (BPF)")
        return 77
    work = tempfile.mkdtemp(prefix="usdtkit-docs.")
    bg = []
    try:
        os.mkdir(os.path.join(work, "bin"))
        os.symlink(os.path.abspath(a.usdtkit), os.path.join(work, "bin", "usdtkit"))
        shutil.copy(a.demo, os.path.join(work, "demo"))
        shutil.copy(a.fx_throw, os.path.join(work, "fx_throw"))
        env = dict(os.environ)
        # Debian's python3.11, as a fresh machine's PATH finds it
        env["PATH"] = os.path.join(work, "bin") + ":/usr/sbin:/usr/bin:/sbin:/bin"
        for _ in range(2):
            bg.append(start_bg(["./demo", "-i", "2"], work))
            bg.append(start_bg(["/usr/bin/python3.11", "-c", PY_LOOP], work))
        time.sleep(0.3)
        cmds = [e for d in a.docs for e in examples(d)]
        # a doc that shows no command would pass vacuously
        if len(cmds) < 40:
            ko(f"only {len(cmds)} commands found in {a.docs}")
        for where, cmd, transcript in cmds:
            need = [v for k, v in CANNOT.items() if k in cmd]
            if need:
                print(f"not run: {where}: {cmd}: needs {need[0]}")
                continue
            if TEXTFILE_DIR in cmd:
                cmd = cmd.replace(TEXTFILE_DIR, "")
                print(f"note: {where}: the textfile is written here, not in {TEXTFILE_DIR}")
            run_one(where, cmd, transcript, work, env)
        print(f"{len(cmds)} commands, {failures} failed")
    finally:
        for p in bg:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
