#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""What `usdtkit trace --serve` costs (docs/METRICS.md):

- scrape: the tracer's CPU time and the bytes of one scrape with SERIES
  count-by series: bench/trace_load.c fires tload:hot SERIES times with
  arg0 = 0..SERIES-1, traced with --count-by arg0 (one series per key;
  --max-series is 10,000 by default), then the endpoint is scraped
  SCRAPES times back to back. CPU is the tracer's on-CPU time
  (/proc/PID/schedstat, ns) over the scrapes, less what its loop costs
  idle over the same wall time (measured before), divided by SCRAPES;
- rss: the resident memory of a trace of PROBES probes
  (bench/gen_probes.sh, attached with --counts), with --serve after a
  scrape, and without --serve (VmRSS and VmHWM of /proc/PID/status).

The per-hit cost with --serve against the same aggregation without it
is bench/trace_bench.sh's rows counts-serve and count-by-serve.
Root. Not a ctest test (ctest metrics_bench_smoke only runs it small).

usage: bench/metrics_bench.py [--series N] [--scrapes N] [--probes N] USDTKIT
       (N 10000, 50, 1000; env CC (cc))"""
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

here = os.path.dirname(os.path.abspath(__file__))


def tracer(usdtkit, args):
    """usdtkit trace ARGS in the background, once it says "Tracing";
    (process, port or None)"""
    p = subprocess.Popen([usdtkit, "trace"] + args, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    port, said = None, []
    while True:
        line = p.stderr.readline()
        if not line:
            p.wait()
            sys.exit("metrics_bench: trace failed: " + "".join(said))
        said.append(line)
        m = re.search(r"^Serving metrics on .*\(port (\d+)\)", line)
        if m:
            port = int(m.group(1))
        if line.startswith("Tracing"):
            return p, port, line.strip()


def stop(p):
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)


def oncpu_ns(pid):
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0])


def status_kib(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def scrape(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=30) as r:
        return r.read()


def bench_scrape(usdtkit, tmp, series, scrapes):
    cc = os.environ.get("CC", "cc")
    load = os.path.join(tmp, "load")
    subprocess.run([cc, "-O2", "-std=c11", "-o", load, os.path.join(here, "trace_load.c")],
                   check=True)
    w = subprocess.Popen([load, str(series)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    t, port, _ = tracer(usdtkit, ["-p", str(w.pid), "--count-by", "arg0", "--serve",
                                  "127.0.0.1:0", load + ":tload:hot"])
    w.stdin.write("go\n")
    w.stdin.flush()
    w.stdout.readline()  # the loop is done: every key is counted
    body = scrape(port)
    nseries = body.count(b"\nusdtkit_probe_hits_by_key_total{")
    # the loop's own cost, idle, over a second
    c0, t0 = oncpu_ns(t.pid), time.monotonic()
    time.sleep(1.0)
    idle = (oncpu_ns(t.pid) - c0) / (time.monotonic() - t0)
    c0, t0 = oncpu_ns(t.pid), time.monotonic()
    for _ in range(scrapes):
        scrape(port)
    wall = time.monotonic() - t0
    cpu = (oncpu_ns(t.pid) - c0 - idle * wall) / scrapes
    w.stdin.write("go\n")
    w.stdin.close()
    w.wait()
    stop(t)
    print("scrape: %d count-by series, %d bytes, tracer CPU %.2f ms per scrape, "
          "client wall %.2f ms per scrape (%d scrapes)" %
          (nseries, len(body), cpu / 1e6, wall * 1e3 / scrapes, scrapes))


def bench_rss(usdtkit, tmp, probes):
    cc = os.environ.get("CC", "cc")
    src = os.path.join(tmp, "gen")
    nfunc = max(1, probes // 100)
    subprocess.run(["sh", os.path.join(here, "gen_probes.sh"), src, str(nfunc),
                    str(probes // nfunc)], check=True, stdout=subprocess.DEVNULL)
    prog = os.path.join(tmp, "probes")
    subprocess.run([cc, "-O2", "-o", prog] +
                   sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".c")),
                   check=True)
    args = ["--counts", "--best-effort", prog + "::"]
    for serve in (False, True):
        t, port, said = tracer(usdtkit, (["--serve", "127.0.0.1:0"] if serve else []) + args)
        size = len(scrape(port)) if serve else 0
        rss, hwm = status_kib(t.pid, "VmRSS"), status_kib(t.pid, "VmHWM")
        stop(t)
        print("rss: %s: %s VmRSS %d KiB, VmHWM %d KiB%s" %
              ("--serve" if serve else "no --serve", said.split(". Ctrl-C")[0], rss, hwm,
               ", scrape %d bytes" % size if serve else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--series", type=int, default=10000)
    ap.add_argument("--scrapes", type=int, default=50)
    ap.add_argument("--probes", type=int, default=1000)
    ap.add_argument("usdtkit")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    try:
        bench_scrape(a.usdtkit, tmp, a.series, a.scrapes)
        bench_rss(a.usdtkit, tmp, a.probes)
    finally:
        shutil.rmtree(tmp)


main()
