# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""check.py's verdict on the "unwind" scenario (guest.sh scenario_unwind,
workload tests/fixtures/fx_throw.cc as /w/fx_throw): `trace --count-by
ustack` at libstdcxx:throw and fxthrow:raise, unwound from call frame
information, gives one stack for the 3 throws, the one gdb's bt shows:
[__cxa_throw,] level3, level2, level1, main, __libc_start_call_main,
__libc_start_main, _start. The kernel's frame-pointer walk (--stack-fp)
is only measured: on code built without frame pointers it stops early,
and the unwound stack at __cxa_throw must be longer. Prints both lengths."""
import json
import re

THROWS = 3
OUTER = ["app::level3", "app::level2", "app::level1", "main",
         "__libc_start_call_main", "__libc_start_main", "_start"]
PROBES = (("libstdcxx", ["__cxa_throw"] + OUTER), ("fxthrow", OUTER))


def symbol(frame):
    """A frame as the symbolizer names it ("sym+0xoff (object)") reduced
    to its function: mangled or demangled, a .cold part as its function,
    symbol versions and glibc's _impl/_alias variants of
    __libc_start_main as __libc_start_main."""
    s = re.sub(r" \([^()]*\)$", "", frame)	# " (/lib/libc.so.6)"
    s = re.sub(r"\+0x[0-9a-f]+$", "", s)
    s = re.sub(r"@.*$", "", s)			# "@@GLIBC_2.34"
    s = re.sub(r" \[clone [^]]*\]$", "", s)	# demangled .cold part
    s = re.sub(r"\.cold(\.\d+)?$", "", s)		# mangled or plain one
    m = re.match(r"_ZN3app6(level\d)Ei$", s)
    if m:
        return "app::" + m.group(1)
    m = re.match(r"(app::level\d)\(int\)$", s)
    if m:
        return m.group(1)
    if s.startswith("__libc_start_main"):
        return "__libc_start_main"
    return s


def stacks(v, log, tag):
    """The count_by object of run TAG: [(count, frames)], its stderr"""
    files = log["files"]
    name = "trace_unwind_" + tag
    err = files.get(name + ".err", [])
    v.check(log["rc"].get(name) == 0, "unwind %s: exit status %s (%s)"
            % (tag, log["rc"].get(name), " | ".join(err[-4:])))
    # fx_throw's own check: every throw caught in main
    v.check(any("exited with status 0" in l for l in err),
            "unwind %s: fx_throw failed: %s" % (tag, " | ".join(err[-4:])))
    objs = []
    for line in files.get(name + ".json", []):
        try:
            objs.append(json.loads(line))
        except ValueError:
            v.check(False, "unwind %s: not JSON: %r" % (tag, line))
    by = [o for o in objs if o.get("agg") == "count_by" and o.get("by") == "ustack"]
    if not v.check(len(by) == 1, "unwind %s: %d count_by ustack objects, want 1: %s"
                   % (tag, len(by), [json.dumps(o) for o in objs])):
        return [], err
    out = []
    for t in by[0].get("top") or []:
        parts = t.get("parts") or [{}]
        st = parts[0] if isinstance(parts[0], dict) else {}
        out.append((t.get("count"), st.get("frames") or []))
    return out, err


def check_unwind(v, log, model):
    for prov, want in PROBES:
        cfi, _ = stacks(v, log, prov + "_cfi")
        fp, _ = stacks(v, log, prov + "_fp")
        # one key for the 3 throws: one call path, the same frames each time
        v.check(len(cfi) == 1 and cfi[0][0] == THROWS,
                "unwind %s: keys %s, want one of count %d"
                % (prov, [(c, f) for c, f in cfi], THROWS))
        frames = cfi[0][1] if cfi else []
        got = [symbol(f) for f in frames]
        v.check(got == want, "unwind %s: frames %s (%s), want %s"
                % (prov, got, frames, want))
        n_fp = max((len(f) for _, f in fp), default=0)
        print("unwind: %s on %s: fp %d frames, cfi %d frames: %s"
              % (prov, ".".join(map(str, model["version"])), n_fp, len(frames),
                 " < ".join(frames)))
        if prov == "libstdcxx":
            v.check(len(frames) > n_fp,
                    "unwind %s: cfi %d frames, fp %d: the unwinder walks no "
                    "further than the frame pointers (fp keys %s)"
                    % (prov, len(frames), n_fp, fp))
