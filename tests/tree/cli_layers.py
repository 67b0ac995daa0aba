#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The CLI's files as a graph, from their objects' symbols (nm):
- no circle: no file of cli/ calls, directly or through others, back
  into one that calls it (a file's own symbols do not count);
- `usdtkit trace`'s files (cmd_trace, trace_*, cmd_split) call the
  library through <usdtkit/trace.h> only: usdtkit_trace_* and the mode
  names (usdtkit_mode_*), nothing below it;
- no CLI object calls an internal usdtkit__ function.
usage: cli_layers.py OBJECT_DIR   (the CLI target's CMakeFiles/*.dir)
"""
import os
import sys

# the object reader and the circle finder of the library's check
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layers import cycle, symbols  # noqa: E402


def main():
    d = sys.argv[1]
    objs = {}
    for root, _, files in os.walk(d):
        for f in files:
            if f.endswith(".o"):
                objs[f[:-len(".c.o")]] = symbols(os.path.join(root, f))
    fails = passes = 0
    if len(objs) < 5:
        print(f"FAIL: only {len(objs)} objects in {d}")
        return 1
    owner = {s: n for n, (defs, _) in objs.items() for s in defs}
    graph = {n: {owner[s] for s in used if s in owner and owner[s] != n}
             for n, (_, used) in objs.items()}
    c = cycle(graph)
    if c:
        print("FAIL: a circle among cli/ files: " + " -> ".join(c))
        fails += 1
    else:
        passes += 1
    trace_files = [n for n in objs if n.startswith("trace_") or
                   n in ("cmd_trace", "cmd_split")]
    if "cmd_trace" not in trace_files:
        print("FAIL: no cmd_trace object: is the trace CLI built?")
        fails += 1
    for n in sorted(trace_files):
        lib = {s for s in objs[n][1] if s.startswith("usdtkit_")}
        below = sorted(s for s in lib if not s.startswith(("usdtkit_trace_",
                                                           "usdtkit_mode_")))
        if below:
            print(f"FAIL: cli/{n}.c calls below <usdtkit/trace.h>: {below}")
            fails += 1
        else:
            passes += 1
    for n in sorted(objs):
        internal = sorted(s for s in objs[n][1] if s.startswith("usdtkit__"))
        if internal:
            print(f"FAIL: cli/{n}.c calls library internals: {internal}")
            fails += 1
        else:
            passes += 1
    print(f"{passes} passed, {fails} failed ({len(objs)} objects)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
