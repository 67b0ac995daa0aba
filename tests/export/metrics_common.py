# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""What the metrics tests share: a `usdtkit trace --serve` to start and
stop, its scrape, and a reader of the text format that keeps what the
tests compare (families with their HELP and TYPE, samples by labels)."""
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


class Trace:
    """usdtkit trace ARGS, started; .port once it serves (port 0 given)"""

    def __init__(self, usdtkit, args, serve=True, stdout=subprocess.DEVNULL):
        cmd = [usdtkit, "trace"] + (["--serve", "127.0.0.1:0"] if serve else []) + args
        self.p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True)
        self.err = []
        self.port = None
        want = "Tracing"  # said after "Serving metrics on ..."
        # watchdog only: the trace says when it is ready
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.p.stderr.readline()
            if not line:
                break
            self.err.append(line)
            m = re.search(r"^Serving metrics on .* \(port (\d+)\)", line)
            if m:
                self.port = int(m.group(1))
            if line.startswith(want):
                return
        self.stop()
        raise RuntimeError("trace did not start: " + "".join(self.err))

    def url(self, path="/metrics"):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def scrape(self):
        with urllib.request.urlopen(self.url(), timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()

    def status(self, path, method="GET"):
        req = urllib.request.Request(self.url(path), method=method)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            out, err = self.p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, err = self.p.communicate()
        self.err.append(err or "")
        return self.p.returncode


def parse(text):
    """{family: {"help", "type", "samples": {(name, labels): value}}}, and
    the errors of form found (a sample before its family's TYPE...)"""
    fams, errors, cur = {}, [], None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, hlp = line[7:].partition(" ")
            cur = fams.setdefault(name, {"help": None, "type": None, "samples": {}})
            cur["help"] = hlp
        elif line.startswith("# TYPE "):
            name, _, typ = line[7:].partition(" ")
            if name not in fams:
                errors.append("TYPE before HELP: " + name)
            cur = fams.setdefault(name, {"help": None, "type": None, "samples": {}})
            cur["type"] = typ
            cur["name"] = name
        elif line:
            m = SAMPLE.match(line)
            if not m:
                errors.append("bad line: " + line)
                continue
            name, labels = m.group(1), tuple(LABEL.findall(m.group(3) or ""))
            base = cur["name"] if cur else None
            if not base or not (name == base or name.startswith(base + "_")):
                errors.append("sample outside its family: " + line)
                continue
            cur["samples"][(name, labels)] = m.group(4)
    return fams, errors


def value(fams, family, name, **labels):
    """the sample's value as an int (or float), None if absent"""
    want = tuple(sorted(labels.items()))
    for (n, ls), v in fams.get(family, {}).get("samples", {}).items():
        if n == name and tuple(sorted(ls)) == want:
            return float(v) if "." in v or "e" in v else int(v)
    return None


def strip_le(labels):
    return tuple(sorted((k, v) for k, v in labels if k != "le"))
