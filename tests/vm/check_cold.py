# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""check.py's verdict on the "cold" scenario (guest.sh scenario_cold,
workload tests/fixtures/fx_cold.c): strings on pages the process had not touched
are read right, at the hit where the kernel runs sleepable uprobes for
the mode AUTO picked (perf events from 6.0, uprobe_multi from 6.6), read
late and marked elsewhere and with --no-fault-in; bad pointers stay
faults; a filter on them drops nothing it would keep; --count-by keys
one per string. Prints what this kernel did, for docs/ATTACH.md."""
import json

STRS = ["cold literal", "spans two pages", "cold data", "memfd page", ""]


def events(v, log, name):
    files = log["files"]
    err = files.get("trace_cold_%s.err" % name, [])
    v.check(log["rc"].get("trace_cold_" + name) == 0, "%s: exit status %s (%s)"
            % (name, log["rc"].get("trace_cold_" + name), " | ".join(err[-4:])))
    # the workload's own checks (exit 3: a page was not cold)
    v.check(any("exited with status 0" in l for l in err),
            "%s: the workload failed: %s" % (name, " | ".join(err[-4:])))
    out = []
    for line in files.get("trace_cold_%s.json" % name, []):
        try:
            out.append(json.loads(line))
        except ValueError:
            v.check(False, "%s: not JSON: %r" % (name, line))
    return out, err


def check_cold(v, log, model):
    files = log["files"]
    try:
        feat = json.loads((files.get("features.json") or ["{}"])[0])
    except ValueError:
        feat = {}
    ver = model["version"]
    v.check(feat.get("sleepable_uprobe") == (ver >= (6, 0)),
            "features: sleepable_uprobe %r on %s" % (feat.get("sleepable_uprobe"), ver))
    v.check(feat.get("sleepable_multi") == bool(feat.get("uprobe_multi")),
            "features: sleepable_multi %r, uprobe_multi %r"
            % (feat.get("sleepable_multi"), feat.get("uprobe_multi")))
    multi = feat.get("auto_mode") == "multi"
    at_hit = bool(feat.get("sleepable_multi") if multi else feat.get("sleepable_uprobe"))
    print("cold: kernel %s, auto mode %s: strings %s" % (
        ".".join(map(str, ver)), feat.get("auto_mode"),
        "faulted in at the hit (sleepable)" if at_hit else "read late"))
    for name, late in (("default", not at_hit), ("nofault", True)):
        ev, err = events(v, log, name)
        said = ("strings faulted in at the hit (sleepable)" if not late
                else "strings not in memory read late")
        v.check(any(said in l for l in err), "%s: the load does not say %r" % (name, said))
        got = [(o["args"], o.get("late"), o.get("err")) for o in ev]
        want = [([i, s], [1] if late else None, None) for i, s in enumerate(STRS)]
        want += [([i, None], None, -14) for i in (5, 6, 7)]
        v.check(got == want, "%s: %s, want %s" % (name, got, want))
    for name, late in (("filter", not at_hit), ("nofault_filter", True)):
        ev, err = events(v, log, name)
        got = [(o["args"], o.get("late"), o.get("filter_undecided")) for o in ev]
        want = [([i, STRS[i]], [1] if late else None, None) for i in (0, 2)]
        v.check(got == want, "%s: %s, want %s" % (name, got, want))
        v.check(any("2 hits printed, 0 lost, 6 dropped by the filter" in l for l in err),
                "%s: %s" % (name, " | ".join(err[-3:])))
    for name, late in (("count", not at_hit), ("nofault_count", True)):
        ev, err = events(v, log, name)
        by = [o for o in ev if o.get("agg") == "count_by"]
        top = sorted(("<null>" if k["key"] is None else k["key"], k.get("late", False),
                      k["count"]) for k in (by[0]["top"] if by else []))
        want = sorted([(s, late, 1) for s in STRS] + [("<null>", False, 3)])
        v.check(top == want, "%s: %s, want %s" % (name, top, want))
