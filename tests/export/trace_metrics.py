#!/usr/bin/python3.11
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""usdtkit trace --serve and --textfile, live (root, BPF), on fx_tlib's
known values (tests/fixtures/fx_tlib.c): tl:val(i, 1000 * i - 50000)
for i = 0..99, tl:name("alpha"|"beta"|"gamma", i) 30 times, tl:begin /
tl:end 5 times 2 ms apart.
- every family of docs/METRICS.md's table appears, with HELP and TYPE,
  and no other; each value is the one fx_tlib's workload makes;
- the values are cumulative: a second run of the workload doubles them
  (nothing is reset, also across --textfile's intervals);
- --max-series and --top fold keys into __other__, counted;
- --print-hits prints the hits and counts them; the HTTP answers;
- two probes of one PROVIDER:NAME are two series, by path;
- with -c, the trace goes on serving once the command has ended;
- under 300 idle connections, a slow client and a stream of garbage and
  1 MB request lines, a scrape is answered and no hit is lost;
- the usage errors.
usage: trace_metrics.py USDTKIT FX_TLIB METRICS_MD"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from metrics_common import Trace, parse, value  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from checks import Checks  # noqa: E402

usdtkit, fx, doc = sys.argv[1:4]


check = Checks()


def workload():
    subprocess.run([fx], check=True, timeout=60)


def documented():
    """the families of docs/METRICS.md's table: | `name` | type | ..."""
    fams = {}
    for line in open(doc):
        m = re.match(r"^\| `(usdtkit_[a-z_]+)` \| (\w+) \|", line)
        if m:
            fams[m.group(1)] = m.group(2)
    return fams


def scrape(t):
    st, ctype, text = t.scrape()
    check(st == 200, "scrape: status %s" % st)
    check(ctype == "text/plain; version=0.0.4; charset=utf-8", "content type %s" % ctype)
    fams, errors = parse(text)
    check(not errors, "exposition: %s" % errors[:3])
    return fams, text


def all_families():
    """one trace with every aggregation (latency apart: its probes have one
    argument) and one with --latency: together, every family"""
    t = Trace(usdtkit, ["--count-by", "arg0", "--max-series", "40", "--hist", "arg1",
                        "--min", "arg1", "--max", "arg1", fx + ":tl:val"])
    workload()
    f1, _ = scrape(t)
    workload()
    f2, _ = scrape(t)
    check(t.status("/nope") == 404, "another path: 404")
    check(t.status("/metrics", "POST") == 405, "POST: 405")
    check(t.stop() == 0, "trace --serve: exit 0 on SIGTERM")
    lat = Trace(usdtkit, ["--latency", fx + ":tl:begin", fx + ":tl:end", "--key", "arg0"])
    workload()
    f3, _ = scrape(lat)
    lat.stop()
    seen = dict(f2)
    seen.update(f3)
    want = documented()
    check(len(want) == 10, "docs/METRICS.md lists %d families" % len(want))
    for name, typ in want.items():
        f = seen.get(name)
        check(f is not None, "family %s is exposed" % name)
        if f:
            check(f["type"] == typ, "%s: TYPE %s, doc %s" % (name, f["type"], typ))
            check(bool(f["help"]), "%s: HELP" % name)
    for name in seen:
        check(name in want, "family %s is documented" % name)
    return f1, f2, f3


def check_values(f1, f2, f3):
    P = {"probe": "tl:val"}
    A = dict(P, arg="arg1")
    for f, n in ((f1, 1), (f2, 2)):
        check(value(f, "usdtkit_probe_hits_total", "usdtkit_probe_hits_total", **P) == 100 * n,
              "hits_total after %d runs" % n)
        check(value(f, "usdtkit_probe_hits_by_key_total", "usdtkit_probe_hits_by_key_total",
                     probe="tl:val", key="__other__") == 60 * n, "__other__ after %d runs" % n)
        keys = [ls for (nm, ls) in f["usdtkit_probe_hits_by_key_total"]["samples"]]
        check(len(keys) == 41, "40 keys and __other__: %d" % len(keys))
        check(value(f, "usdtkit_series_dropped_total", "usdtkit_series_dropped_total") == 60,
              "60 keys folded")
        # 50 negatives, one 0, then 1000..49000 in their log2 buckets
        for le, c in (("-1", 50), ("0", 51), ("511", 51), ("1023", 52), ("4095", 55),
                      ("16383", 67), ("65535", 100), ("+Inf", 100)):
            got = value(f, "usdtkit_probe_arg", "usdtkit_probe_arg_bucket", le=le, **A)
            check(got == c * n, "bucket le=%s: %s, want %d" % (le, got, c * n))
        check(value(f, "usdtkit_probe_arg", "usdtkit_probe_arg_sum", **A) == -50000 * n, "sum")
        check(value(f, "usdtkit_probe_arg", "usdtkit_probe_arg_count", **A) == 100 * n, "count")
        check(value(f, "usdtkit_probe_arg_min", "usdtkit_probe_arg_min", **A) == -50000, "min")
        check(value(f, "usdtkit_probe_arg_max", "usdtkit_probe_arg_max", **A) == 49000, "max")
        check(value(f, "usdtkit_lost_events_total", "usdtkit_lost_events_total") == 0, "lost")
        check(value(f, "usdtkit_attached_sites", "usdtkit_attached_sites") == 1, "sites")
    ver = subprocess.run([usdtkit, "--version"], capture_output=True, text=True).stdout
    v = [ls for (n, ls) in f1["usdtkit_build_info"]["samples"]]
    check(v and v[0][0][1] in ver, "build_info version %s in '%s'" % (v, ver.strip()))
    L = {"start": "tl:begin", "end": "tl:end"}
    name = "usdtkit_probe_latency_seconds"
    check(value(f3, name, name + "_count", **L) == 5, "latency count")
    s = value(f3, name, name + "_sum", **L)
    check(s is not None and s >= 0.010, "latency sum %s >= 5 x 2 ms" % s)
    check(value(f3, name, name + "_bucket", le="0.001048575", **L) == 0,
          "no latency under 2 ms")
    for p in ("tl:begin", "tl:end"):
        check(value(f3, "usdtkit_probe_hits_total", "usdtkit_probe_hits_total", probe=p) == 5,
              "hits of %s" % p)


def textfile():
    """--textfile every 0.2 s: cumulative across the writes, and the last
    one at the end; no temporary file left"""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "fx.prom")
        t = Trace(usdtkit, ["--textfile", path, "--interval", "0.2", "--count-by",
                            "str(arg0)", "--top", "2", fx + ":tl:name"], serve=False)
        check(os.path.exists(path), "the first write, at the start")
        workload()
        time.sleep(0.6)  # a few intervals, each a write
        workload()
        check(t.stop() == 0, "--textfile: exit 0")
        f, errors = parse(open(path).read())
        check(not errors, "textfile: %s" % errors[:3])
        by = "usdtkit_probe_hits_by_key_total"
        got = sorted(ls[1][1] for (n, ls) in f[by]["samples"])
        check(got == ["__other__", "alpha", "beta"], "--top 2: %s" % got)
        check(value(f, by, by, probe="tl:name", key="alpha") == 20, "alpha x 2 runs")
        check(value(f, by, by, probe="tl:name", key="__other__") == 20, "gamma folded")
        check(value(f, "usdtkit_probe_hits_total", "usdtkit_probe_hits_total",
                    probe="tl:name") == 60, "hits of 2 runs")
        check(os.listdir(d) == ["fx.prom"], "only the file: %s" % os.listdir(d))


def print_hits():
    with tempfile.TemporaryFile("w+") as out:
        t = Trace(usdtkit, ["--print-hits", fx + ":tl:val"], stdout=out)
        workload()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            f, _ = scrape(t)
            if value(f, "usdtkit_probe_hits_total", "usdtkit_probe_hits_total",
                     probe="tl:val") == 100:
                break
            time.sleep(0.1)
        check(value(f, "usdtkit_probe_hits_total", "usdtkit_probe_hits_total",
                    probe="tl:val") == 100, "--print-hits: 100 hits read")
        t.stop()
        out.seek(0)
        n = len([ln for ln in out if "tl:val" in ln])
        check(n == 100, "--print-hits: %d hits printed" % n)


def attack(port, stop):
    """garbage, 1 MB request lines and a slow client, until @stop is set"""
    junk = (b"\x00\xff" * 512, b"GET /" + b"a" * (1 << 20) + b" HTTP/1.1\r\n",
            b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", b"POST /metrics HTTP/1.1\r\n\r\n")
    slow = socket.create_connection(("127.0.0.1", port))
    i = 0
    while not stop.is_set():
        try:
            slow.send(b"G")
            with socket.create_connection(("127.0.0.1", port), timeout=2) as c:
                c.sendall(junk[i % len(junk)])
        except OSError:
            pass
        i += 1
    slow.close()


def under_attack():
    t = Trace(usdtkit, ["--counts", fx + ":tl:val"])
    idle = []
    for _ in range(300):
        try:
            idle.append(socket.create_connection(("127.0.0.1", t.port)))
        except OSError:
            break
    stop = threading.Event()
    th = threading.Thread(target=attack, args=(t.port, stop))
    th.start()
    for _ in range(3):
        workload()
    try:
        f, _ = scrape(t)
        got = value(f, "usdtkit_probe_hits_total", "usdtkit_probe_hits_total", probe="tl:val")
    except OSError as e:
        got = "no answer: %s" % e
    stop.set()
    th.join()
    for c in idle:
        c.close()
    check(got == 300, "under attack: %s hits, want 300" % got)
    check(t.stop() == 0, "under attack: exit 0")


def command_ends():
    """-c CMD with --serve: CMD's end is said, and the counts are served
    after it, until SIGTERM"""
    t = Trace(usdtkit, ["--counts", "-c", fx, fx + ":tl:val"])
    deadline = time.monotonic() + 30  # watchdog
    while time.monotonic() < deadline and not any("exited" in ln for ln in t.err):
        t.err.append(t.p.stderr.readline())
    check(any("exited with status 0" in ln for ln in t.err), "-c: the end said: %s" % t.err)
    check(t.p.poll() is None, "--serve goes on once CMD has ended")
    f, _ = scrape(t)
    check(value(f, "usdtkit_probe_hits_total", "usdtkit_probe_hits_total",
                probe="tl:val") == 100, "-c: the 100 hits served after CMD's end")
    check(t.stop() == 0, "-c: exit 0 on SIGTERM")


def same_name():
    """two probes named tl:val (fx_tlib and a copy): each its own series,
    labelled with its path"""
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "fx_copy")
        shutil.copy(fx, copy)
        t = Trace(usdtkit, ["--counts", fx + ":tl:val", copy + ":tl:val"])
        workload()
        f, _ = scrape(t)
        t.stop()
    h = "usdtkit_probe_hits_total"
    check(value(f, h, h, probe=fx + ":tl:val") == 100 and
          value(f, h, h, probe=copy + ":tl:val") == 0, "same PROVIDER:NAME: %s" % f.get(h))


def usage():
    for args, rc, what in (
            (["--max-series", "5", "--counts"], 2, "--max-series alone"),
            (["--serve", "127.0.0.1:0", "--print-hits", "--counts"], 2,
             "--print-hits with an aggregation"),
            (["--serve", "127.0.0.1:0", "--interval", "1"], 2, "--interval without --textfile"),
            (["--serve", ":9464"], 1, "no host"),
            (["--textfile", ""], 2, "empty PATH")):
        r = subprocess.run([usdtkit, "trace"] + args + [fx + ":tl:val"],
                           capture_output=True, text=True, timeout=60)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == rc, "%s: exit %d, want %d (%s)" % (what, r.returncode, rc, r.stderr))
        check(len(lines) >= 1 and "usdtkit trace" in lines[0], "%s: said" % what)


if os.geteuid() != 0:
    print("SKIP: tracing needs root")
    sys.exit(77)
check_values(*all_families())
textfile()
print_hits()
under_attack()
command_ends()
same_name()
usage()
sys.exit(check.finish("trace_metrics"))
