# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""check.py's verdict on the "instbench" scenario (guest.sh
scenario_instbench, run by bench/vm_inst.sh): only what is exact, never
a time. Every trace exits 0; every trace of a workload mN counts its N
hits, each site's constant once (1000 .. 1000 + N - 1); each attaches in
the mode the kernel and the form call for; and mode inst holds one
program per distinct spec more than ipmap on the same sites. Prints the
figures for bench/vm_inst.sh."""
import re

# "@@ib SET HOW RUN MS PROGS PROG_BYTES MAPS MAP_BYTES PERF RC EVENTS SUM
# MIN MAX TEARDOWN_MS"
IB_RE = re.compile(r"^@@ib (\S+) (\S+) (\d+)((?: -?\d+){12})\s*$")
FIELDS = ("ms", "progs", "prog_bytes", "maps", "map_bytes", "perf", "rc",
          "events", "sum", "min", "max", "teardown_ms")
MODE_RE = re.compile(r"usdtkit trace: [^:]+:[^:]+: \d+ site\(s\), mode (\w+)")


def runs(text):
    out = []
    for line in text.splitlines():
        i = line.find("@@ib ")
        if i < 0:
            continue
        m = IB_RE.match(line[i:].rstrip("\r"))
        if m:
            r = dict(zip(FIELDS, (int(x) for x in m.group(4).split())))
            r.update(set=m.group(1), how=m.group(2), run=int(m.group(3)))
            out.append(r)
    return out


def want_mode(model, set_, how):
    """What the trace must attach with: AUTO's mode where the kernel has
    cookies; before that ipmap where the sites have an address (a -p
    PID, a non-PIE executable by path) and inst elsewhere."""
    if how.startswith("inst"):
        return "inst"
    if model["auto"] != "ipmap":
        return model["auto"]
    if how == "auto_pid" or set_ == "python":	# python3.11: not a PIE
        return "ipmap"
    return "inst"


def check_instbench(v, log, model):
    # what a 5.10 user reads first: the whole line (it was cut at 96 bytes)
    if model["auto"] == "ipmap":
        auto = [l for l in log["files"].get("features.txt", []) if l.startswith("auto mode:")]
        v.check(auto and auto[0].endswith("inst for a PIE or library by path and for -c)"),
                "features: auto mode line %s" % auto)
    rs = runs(log["text"])
    v.check(rs, "no @@ib line: the scenario ran nothing")
    progs = {}
    for r in rs:
        tag = "instbench %s %s run %d" % (r["set"], r["how"], r["run"])
        err = log["files"].get("ib_%s_%s_%d.err" % (r["set"], r["how"], r["run"]), [])
        v.check(r["rc"] == 0, "%s: exit %d: %s" % (tag, r["rc"], " | ".join(err[-3:])))
        modes = {m.group(1) for l in err for m in [MODE_RE.search(l)] if m}
        want = want_mode(model, r["set"], r["how"])
        v.check(modes == {want}, "%s: modes %s, want %s" % (tag, sorted(modes), want))
        m = re.match(r"m(\d+)$", r["set"])
        if m:
            n = int(m.group(1))
            got = (r["events"], r["sum"], r["min"], r["max"])
            exp = (n, n * 1000 + n * (n - 1) // 2, 1000, 1000 + n - 1)
            v.check(got == exp, "%s: events, sum, min, max of arg0 %s, want %s"
                    % (tag, got, exp))
            v.check(r["perf"] == n, "%s: %d perf events, want %d (one per site)"
                    % (tag, r["perf"], n))
        if r["set"] == "rt":	# gen_probes.py probes 22 40: 40 sites
            v.check(r["events"] == 40 and r["perf"] == 40,
                    "%s: %d events, %d perf events, want 40 each"
                    % (tag, r["events"], r["perf"]))
        progs.setdefault((r["set"], r["how"]), set()).add(r["progs"])
    # one program per distinct spec: inst by -p against ipmap by -p on the
    # same process (mN: N specs)
    for (set_, how), p in sorted(progs.items()):
        v.check(len(p) == 1, "instbench %s %s: programs differ between runs: %s"
                % (set_, how, sorted(p)))
        m = re.match(r"m(\d+)$", set_)
        if m and how == "inst_pid" and model["auto"] == "ipmap" and \
           (set_, "auto_pid") in progs:
            extra = min(p) - min(progs[(set_, "auto_pid")])
            v.check(extra == int(m.group(1)), "instbench %s: inst holds %d programs "
                    "more than ipmap, want %s (one per spec)" % (set_, extra, m.group(1)))
    # the cap: 1100 specs in mode inst, refused in one line, nothing left
    if "ib_cap.err" in log["files"]:
        err = [l for l in log["files"]["ib_cap.err"] if l.strip()]
        v.check(log["rc"].get("ib_cap") == 1, "instbench cap: exit %s, want 1"
                % log["rc"].get("ib_cap"))
        v.check(len(err) == 1 and "would pass its cap of 1024" in err[0],
                "instbench cap: want one line naming the cap of 1024, got %s" % err)
        v.check(not log["files"].get("ib_cap.out"), "instbench cap: printed %s"
                % log["files"].get("ib_cap.out"))
        v.check(not log["files"].get("ib_cap.left"), "instbench cap: left behind %s"
                % log["files"].get("ib_cap.left"))
        print("instbench cap: %s (%.2f s)" % (" | ".join(err), log["times"].get("ib_cap", -1)))
    for r in rs:
        print("instbench: %(set)s %(how)s run %(run)d: %(ms)d ms to Tracing, "
              "%(progs)d programs %(prog_bytes)d B, %(maps)d maps %(map_bytes)d B, "
              "%(perf)d perf events, %(events)d events, teardown %(teardown_ms)d ms" % r)
