# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""check.py's verdict on the "nop10" scenario (guest.sh scenario_nop10,
workload bench/nop10_hit.c): every hit of both sites counted with both
arguments right, and the nop10 site optimized exactly where the kernel
optimizes nop10. Also prints the per-call figures for bench/README.md."""
import json


def kv(lines):
    out = {}
    for line in lines:
        k, _, val = line.partition(" ")
        try:
            out[k] = int(val)
        except ValueError:
            pass
    return out


def check_nop10(v, log, model):
    files = log["files"]
    r = kv(files.get("result", []))
    n = r.get("n", 0)
    v.check(n > 0, "workload: no result (%s)" % " | ".join(files.get("out", [])))
    err = files.get("trace_nop10.err", [])
    v.check(log["rc"].get("trace_nop10") == 0, "trace: exit status %s (stderr: %s)"
            % (log["rc"].get("trace_nop10"), " | ".join(err[-3:])))
    v.check(log["rc"].get("workload") == 0, "workload: exit status %s (%s)"
            % (log["rc"].get("workload"), " | ".join(files.get("out", []))))
    try:
        feat = json.loads((files.get("features.json") or ["{}"])[0])
    except ValueError:
        feat = {}
    opt = feat.get("uprobe_optimization")
    # the kernels the matrix boots: 7.x optimizes nop10 (seen
    # by hand on 7.3.4), and only kernels with the uprobe syscall any
    if model["version"] >= (7, 0):
        v.check(opt == "nop10", "features: uprobe_optimization %r, want 'nop10' on %s"
                % (opt, ".".join(map(str, model["version"]))))
    s = kv(files.get("summary", []))
    want = {"events": 2 * n, "bad": 0, "sum": n * (2 * n + 1), "min": 1,
            "max": 2 * n, "plain": n, "nop10": n}
    for k, w in want.items():
        v.check(s.get(k) == w, "trace: %s %s, want %s" % (k, s.get(k), w))
    tramp = r.get("trampoline")
    v.check(tramp == (1 if opt == "nop10" else 0),
            "workload: trampoline %s with uprobe_optimization %r" % (tramp, opt))
    print("nop10: %s events, %s with a wrong %%rip-relative argument; "
          "uprobe_optimization %s, trampoline %s" % (s.get("events"), s.get("bad"), opt,
                                                      "mapped" if tramp else "not mapped"))
    if all(k in r for k in ("plain_ns", "nop10_ns", "base_plain_ns", "base_nop10_ns")):
        print("nop10: per call, ns: plain nop %d (unprobed %d), nop;nop10 %d "
              "(unprobed %d); per hit: plain %d, nop10 %d"
              % (r["plain_ns"], r["base_plain_ns"], r["nop10_ns"], r["base_nop10_ns"],
                 r["plain_ns"] - r["base_plain_ns"], r["nop10_ns"] - r["base_nop10_ns"]))
