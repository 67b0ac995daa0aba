#!/usr/bin/python3.11
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A real Prometheus (Debian's 2.42) scrapes `usdtkit trace --serve`, and
Debian's node_exporter reads `usdtkit trace --textfile` with its textfile
collector (scraped by the same Prometheus), both tracing fx_tlib's
tl:name("alpha"|"beta"|"gamma", i) for i = 0..29, run twice
(tests/fixtures/fx_tlib.c). Prometheus and node_exporter are started
here on 127.0.0.1 only, with a temporary config and storage and a 1 s
scrape interval. Through Prometheus's query API, for each job:
- usdtkit_probe_hits_total is 60;
- the count-by series key="alpha" is 20;
- histogram_quantile() over the argument histogram is the quantile that
  the log2 buckets of the known values give, and the bucket it falls in
  holds the true quantile of 0..29;
and `promtool check metrics` accepts both expositions. The only waits
are for Prometheus to have scraped the final values: watchdogs, no
verdict on time. Skips (77) only when a program is missing (its package
could not be installed) or without root.
usage: trace_prometheus.py USDTKIT FX_TLIB"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from metrics_common import Trace  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from checks import Checks  # noqa: E402

usdtkit, fx = sys.argv[1:3]
RUNS, I = 2, list(range(30))  # tl:name's i, per run


check = Checks()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, proc, what):
    deadline = time.monotonic() + 60  # watchdog
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("%s exited with %d" % (what, proc.returncode))
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("%s does not answer %s" % (what, url))


def query(base, q):
    url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(url, timeout=10) as r:
        res = json.load(r)["data"]["result"]
    return float(res[0]["value"][1]) if len(res) == 1 else None


def le_quantile(q, values):
    """histogram_quantile() over values in the log2 buckets of
    docs/METRICS.md (le = 0, 1, 3, 7, ...): Prometheus's linear
    interpolation inside the bucket of rank q * count, and that bucket"""
    les = [0] + [2 ** (k + 1) - 1 for k in range(40)]
    cum = [sum(1 for v in values if v <= le) for le in les]
    rank = q * len(values)
    for b, le in enumerate(les):
        if cum[b] >= rank:
            lo = 0 if b == 0 else les[b - 1]
            below = 0 if b == 0 else cum[b - 1]
            if b == 0:
                return le, (lo, le)
            return lo + (le - lo) * (rank - below) / (cum[b] - below), (lo, le)
    raise ValueError(q)


def true_quantile(q, values):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def promtool(text, what):
    r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 0, "promtool check metrics (%s): %d %s%s" %
          (what, r.returncode, r.stdout, r.stderr))


def start(tmp):
    pport, nport = free_port(), free_port()
    tdir = os.path.join(tmp, "textfile")
    os.mkdir(tdir)
    args = ["--count-by", "str(arg0)", "--hist", "arg1", fx + ":tl:name"]
    served = Trace(usdtkit, args)
    written = Trace(usdtkit, ["--textfile", os.path.join(tdir, "usdtkit.prom"),
                              "--interval", "0.5"] + args, serve=False)
    node = subprocess.Popen(
        ["prometheus-node-exporter", "--web.listen-address=127.0.0.1:%d" % nport,
         "--collector.disable-defaults", "--collector.textfile",
         "--collector.textfile.directory=" + tdir],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cfg = os.path.join(tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "scrape_configs:\n"
                "  - job_name: usdtkit\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n"
                "  - job_name: node\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % (served.port, nport))
    prom = subprocess.Popen(
        ["prometheus", "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(tmp, "db"),
         "--web.listen-address=127.0.0.1:%d" % pport],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "prom.log"), "w"))
    return served, written, node, prom, "http://127.0.0.1:%d" % pport, nport


def expect(base):
    """what each job must show once the runs are scraped"""
    want = {}
    for job in ("usdtkit", "node"):
        sel = 'job="%s",probe="tl:name"' % job
        want['usdtkit_probe_hits_total{%s}' % sel] = len(I) * RUNS
        want['usdtkit_probe_hits_by_key_total{%s,key="alpha"}' % sel] = 10 * RUNS
        for q in (0.5, 0.9):
            est, _ = le_quantile(q, I)
            want['histogram_quantile(%g, usdtkit_probe_arg_bucket{%s,arg="arg1"})'
                 % (q, sel)] = est
    deadline = time.monotonic() + 90  # watchdog: scrapes every second
    got = {}
    while time.monotonic() < deadline:
        got = {q: query(base, q) for q in want}
        if all(got[q] is not None and abs(got[q] - v) < 1e-9 for q, v in want.items()):
            break
        time.sleep(0.5)
    for q, v in want.items():
        check(got.get(q) is not None and abs(got[q] - v) < 1e-9,
              "%s = %s, want %s" % (q, got.get(q), v))
    for q in (0.5, 0.9):
        _, (lo, hi) = le_quantile(q, I)
        t = true_quantile(q, I)
        check(lo < t <= hi, "the true %g quantile %d is in (%d, %d]" % (q, t, lo, hi))
    for job in ("usdtkit", "node"):
        check(query(base, 'up{job="%s"}' % job) == 1, "up{job=%s}" % job)


def main():
    for tool in ("prometheus", "promtool", "prometheus-node-exporter"):
        if not shutil.which(tool):
            print("SKIP: %s is not installed (Debian: prometheus, "
                  "prometheus-node-exporter)" % tool)
            return 77
    if os.geteuid() != 0:
        print("SKIP: tracing needs root")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        served, written, node, prom, base, nport = start(tmp)
        try:
            wait_http(base + "/-/ready", prom, "prometheus")
            wait_http("http://127.0.0.1:%d/metrics" % nport, node, "node_exporter")
            for _ in range(RUNS):
                subprocess.run([fx], check=True, timeout=60)
            expect(base)
            promtool(served.scrape()[2], "--serve")
            check(written.stop() == 0, "--textfile: exit 0")
            promtool(open(os.path.join(tmp, "textfile", "usdtkit.prom")).read(), "--textfile")
        finally:
            for p in (prom, node):
                p.terminate()
                p.wait(timeout=30)
            served.stop()
            written.stop()
    return check.finish("trace_prometheus")


sys.exit(main())
