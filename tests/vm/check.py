#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The host's verdict on one VM scenario (tests/vm/vm.sh): read the serial
console log the guest wrote (tests/vm/guest.sh's "@@" lines) and check it.

Trace scenarios are compared hit by hit: every `usdtkit trace --json` event
of a workload's pid against the line the workload wrote for that hit
(vm_sites.c): same probe, same number of arguments, every value equal with
its sign (floats bit for bit), hits in the same order, so the count of
every probe is exact. Every failure names the target, the trace (mode),
the probe, the argument and both values. Exit 1 on any failure, or when
nothing was checked.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys

FP_PROBE = "fpregs"	# sites_fp.c: float and double in FP registers


class Verdict:
    def __init__(self, target, scenario):
        self.where = "vm %s %s" % (target, scenario)
        self.passed = 0
        self.failed = 0

    def check(self, cond, msg):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL %s: %s" % (self.where, msg))
        return cond


def split_log(text):
    """A boot's console split at each "@@begin": the text before the
    first, then {scenario: its text} (a cell runs several, vm.sh)."""
    head, parts, cur = [], {}, None
    for line in text.splitlines():
        i = line.find("@@begin ")
        if i >= 0:
            f = line[i:].split()
            cur = f[2] if len(f) > 2 else "?"
            parts[cur] = []
        (parts[cur] if cur else head).append(line)
    return "\n".join(head), {k: "\n".join(v) for k, v in parts.items()}


def parse_log(text):
    """The guest's @@ lines: files, exit codes, pids, notes, times."""
    log = {"files": {}, "rc": {}, "pids": [], "notes": [], "times": {},
           "begin": None, "finish": None}
    for line in text.splitlines():
        line = line.rstrip("\r")
        i = line.find("@@")
        if i < 0:
            continue
        line = line[i:]
        if line.startswith("@@| "):
            name, _, rest = line[4:].partition(" ")
            log["files"].setdefault(name, []).append(rest)
        elif line.startswith("@@file "):
            log["files"].setdefault(line[7:], [])
        elif line.startswith("@@rc "):
            _, what, n = line.split()
            log["rc"][what] = int(n)
        elif line.startswith("@@pid "):
            _, trace, key, pid = line.split()
            log["pids"].append((trace, key, int(pid)))
        elif line.startswith("@@note "):
            log["notes"].append(line[7:])
        elif line.startswith("@@time "):
            _, what, a, b = line.split()
            log["times"][what] = float(b) - float(a)
        elif line.startswith("@@begin "):
            log["begin"] = line.split()
        elif line.startswith("@@finish "):
            log["finish"] = float(line.split()[1])
    return log, text


def parse_expect(lines):
    """vm_sites.c's lines: NAME KIND:SIZE:HEX ..."""
    hits = []
    for line in lines:
        f = line.split()
        if not f:
            continue
        args = []
        for a in f[1:]:
            kind, size, hexv = a.split(":")
            args.append((kind, int(size), int(hexv, 16)))
        hits.append((f[0], args))
    return hits


def float_bits(v, size):
    if isinstance(v, str):	# "nan", "inf", "-inf"
        v = float(v)
    return struct.unpack("<I", struct.pack("<f", v))[0] if size == 4 else \
        struct.unpack("<Q", struct.pack("<d", v))[0]


def arg_equal(kind, size, want, got):
    """got: the JSON value; want: the 64-bit value as sdt.h extends it."""
    if got is None:
        return False
    if kind == "f":
        mask = (1 << (8 * size)) - 1
        return isinstance(got, (int, float, str)) and \
            float_bits(got, size) == want & mask
    if isinstance(got, bool) or not isinstance(got, int):
        return False
    if kind == "s":
        return got == (want - (1 << 64) if want >> 63 else want)
    return got == want


def show(kind, size, want):
    if kind == "s" and want >> 63:
        return "%d (%s%d)" % (want - (1 << 64), kind, size * 8)
    return "%d (%s%d)" % (want, kind, size * 8)


def trace_info(err_lines):
    """From `usdtkit trace -v`'s stderr: attached probes and their mode,
    probes skipped."""
    attached, skipped = {}, set()
    for line in err_lines:
        m = re.match(r"usdtkit trace: ([^:]+):([^:]+): (\d+) site\(s\), mode (\w+)", line)
        if m:
            attached[m.group(2)] = m.group(4)
        m = re.match(r"usdtkit trace: skipping ([^:]+):(\S+)", line)
        if m:
            skipped.add(m.group(2))
    return attached, skipped


def json_lines(v, files, name, tag):
    """The objects of FILE trace_NAME.json, one a line; a line that is
    not JSON is a failure, named."""
    out = []
    for i, line in enumerate(files.get("trace_%s.json" % name, [])):
        try:
            out.append(json.loads(line))
        except ValueError:
            v.check(False, "%s: line %d is not JSON: %r" % (tag, i + 1, line))
    return out


def check_trace(v, log, name, want_mode):
    """One trace: its events per pid against the workloads' hits."""
    files = log["files"]
    tag = "trace %s" % name
    v.check(log["rc"].get("trace_" + name) == 0,
            "%s: exit status %s (stderr: %s)" % (tag, log["rc"].get("trace_" + name),
                                                 " | ".join(files.get("trace_%s.err" % name, [])[-3:])))
    attached, skipped = trace_info(files.get("trace_%s.err" % name, []))
    v.check(attached, "%s: no probe attached" % tag)
    for probe, mode in sorted(attached.items()):
        v.check(mode == want_mode, "%s: usdtkit_cross:%s attached in mode %s, want %s"
                % (tag, probe, mode, want_mode))
    # only the FP-register probe may be skipped, and it must be when it
    # was in the glob: its arguments are unreadable, never silently read
    v.check(skipped <= {FP_PROBE}, "%s: skipped %s" % (tag, sorted(skipped)))
    if FP_PROBE in skipped:
        err = files.get("trace_%s.err" % name, [])
        v.check(any(":%s:" % FP_PROBE in l and "FP/vector register" in l for l in err),
                "%s: %s skipped without saying its arguments are in FP registers"
                % (tag, FP_PROBE))
    events = json_lines(v, files, name, tag)
    pids = {pid: key for trace, key, pid in log["pids"] if trace == "trace_" + name}
    v.check(pids, "%s: no workload" % tag)
    for e in events:
        if e.get("pid") not in pids:
            v.check(False, "%s: event of pid %s, which it must not see: %s"
                    % (tag, e.get("pid"), json.dumps(e)))
    total = 0
    for pid, key in sorted(pids.items()):
        want = parse_expect(files.get(key + ".expect", []))
        v.check(want, "%s: workload %s wrote no hits" % (tag, key))
        if FP_PROBE in {h[0] for h in want} and len(attached) > 1:
            v.check(FP_PROBE in skipped or FP_PROBE in attached,
                    "%s: %s neither attached nor reported skipped" % (tag, FP_PROBE))
        want = [h for h in want if h[0] in attached]
        got = [e for e in events if e.get("pid") == pid]
        total += compare_hits(v, "%s %s (pid %d)" % (tag, key, pid), want, got)
    print("%s: %d events, %d hits compared, probes %d attached, skipped %s"
          % (tag, len(events), total, len(attached), sorted(skipped) or "none"))


def compare_hits(v, tag, want, got):
    counts_w, counts_g = {}, {}
    for h in want:
        counts_w[h[0]] = counts_w.get(h[0], 0) + 1
    for e in got:
        counts_g[e.get("name")] = counts_g.get(e.get("name"), 0) + 1
    for probe in sorted(set(counts_w) | set(counts_g)):
        v.check(counts_w.get(probe, 0) == counts_g.get(probe, 0),
                "%s: usdtkit_cross:%s: %d hits traced, %d fired"
                % (tag, probe, counts_g.get(probe, 0), counts_w.get(probe, 0)))
    n = 0
    for i, (h, e) in enumerate(zip(want, got)):
        name, args = h
        if not v.check(e.get("name") == name and e.get("provider") == "usdtkit_cross",
                       "%s: hit %d is %s:%s, want usdtkit_cross:%s"
                       % (tag, i, e.get("provider"), e.get("name"), name)):
            return n	# out of step: the counts above say why
        ga = e.get("args", [])
        if name == FP_PROBE:
            # attached after all: its arguments must come back unreadable
            v.check(all(a is None for a in ga) and e.get("err"),
                    "%s: %s hit %d: FP-register arguments read as %s"
                    % (tag, name, i, ga))
            continue
        v.check(len(ga) == len(args) and "err" not in e,
                "%s: usdtkit_cross:%s hit %d: %d args (err %s), want %d"
                % (tag, name, i, len(ga), e.get("err"), len(args)))
        for k, (kind, size, val) in enumerate(args):
            g = ga[k] if k < len(ga) else None
            v.check(arg_equal(kind, size, val, g),
                    "%s: usdtkit_cross:%s hit %d arg %d: got %s, want %s"
                    % (tag, name, i, k, g, show(kind, size, val)))
        n += 1
    return n


# What each kernel offers (README): BPF cookies from 5.15; uprobe_multi
# from 6.6, on 64-bit kernels only (the kernel refuses it where a pointer
# is not 64 bits). AUTO picks the best of multi, perf, ipmap.
FEATURES = (("bpf_cookie", (5, 15), "BPF cookies", r"BPF cookies.*Linux 5\.15"),
            ("uprobe_multi", (6, 6), "uprobe_multi", r"uprobe_multi.*Linux 6\.6"))


def kernel_model(log):
    """From the guest's uname -r and -m (@@begin): the features its
    kernel must have and the mode AUTO must pick."""
    rel, machine = log["begin"][3], log["begin"][4]
    m = re.match(r"(\d+)\.(\d+)", rel)
    ver = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    bits64 = bool(re.search(r"64|s390x", machine))
    k = {"version": ver, "bits64": bits64,
         "bpf_cookie": ver >= (5, 15),
         "uprobe_multi": ver >= (6, 6) and bits64}
    k["auto"] = "multi" if k["uprobe_multi"] else "perf" if k["bpf_cookie"] else "ipmap"
    # a user stack walker (perf_callchain_user): mips has none; s390x's
    # 6.1 has none, a later one has (not pinned here: None, unchecked)
    k["user_stack"] = (False if machine.startswith("mips") else
                       None if machine.startswith("s390") else True)
    return k


def features_json(log):
    """The guest's `usdtkit features --json`, or {}."""
    try:
        return json.loads("\n".join(log["files"].get("features.json", [])))
    except ValueError:
        return {}


def check_refused(v, log, name, why):
    """A mode the kernel lacks: exit 1, nothing on stdout, one line on
    stderr naming the feature and the Linux version that has it."""
    files = log["files"]
    err = [l for l in files.get("trace_%s.err" % name, []) if l.strip()]
    v.check(log["rc"].get("trace_" + name) == 1, "trace %s: exit %s, want 1 (refused)"
            % (name, log["rc"].get("trace_" + name)))
    v.check(len(err) == 1 and re.search(why, err[0]),
            "trace %s: want one line matching %r, got %s" % (name, why, err))
    v.check(not files.get("trace_%s.json" % name), "trace %s printed %s"
            % (name, files.get("trace_%s.json" % name)))
    print("trace %s: refused as expected: %s" % (name, " | ".join(err)))


def check_mode(v, log, mode):
    """scenario perf or multi: traced where the kernel has the feature,
    else refused in one line"""
    k = kernel_model(log)
    feat = {"perf": FEATURES[0], "multi": FEATURES[1]}[mode]
    if k[feat[0]]:
        check_trace(v, log, mode, mode)
    else:
        check_refused(v, log, mode, feat[3])


def check_auto(v, log):
    """AUTO picks the kernel's best mode and traces exactly; where that
    is ipmap, the guest traced by PID (scenario_pids)"""
    want = kernel_model(log)["auto"]
    if "trace_a.err" in log["files"]:
        v.check(want == "ipmap", "auto traced by PID (ipmap), want %s" % want)
        check_trace(v, log, "a", want)
        check_trace(v, log, "b", want)
    else:
        check_trace(v, log, "auto", want)


# ---- the "forms" scenario (vm_forms.c, guest.sh scenario_forms) ----

def forms_hits(base, probes=("exe", "lib")):
    """vm_forms's hits from BASE: (probe, args) in firing order."""
    out = []
    for i in range(base, base + 3):
        if "exe" in probes:
            out.append(("exe", [i, -i]))
        if "lib" in probes:
            out.append(("lib", [i]))
    return out


# cell: its hits, and what AUTO picks there on a kernel without cookies
# (before 5.15): ipmap where the sites have an address now (a non-PIE, a
# live process), inst where they have none (a PIE or library by path, a
# command not yet run)
FORMS = {
    "exe": (forms_hits(100, ("exe",)), "ipmap"),
    "pie": (forms_hits(100, ("exe",)), "inst"),
    "lib": (forms_hits(100, ("lib",)), "inst"),
    "pid": (forms_hits(100), "ipmap"),
    "cmd": (forms_hits(200), "inst"),
    "kids": (forms_hits(300, ("exe",)) + forms_hits(400, ("exe",)), "inst"),
}


def check_forms(v, log):
    """Every target form in AUTO: traced exactly, in the mode the kernel
    and the form call for; on 5.15 and later AUTO's one mode for all."""
    k = kernel_model(log)
    files = log["files"]
    for cell, (want, nocookie) in FORMS.items():
        tag = "forms %s" % cell
        err = files.get("trace_%s.err" % cell, [])
        mode = nocookie if k["auto"] == "ipmap" else k["auto"]
        v.check(log["rc"].get("trace_" + cell) == 0, "%s: exit %s: %s"
                % (tag, log["rc"].get("trace_" + cell), " | ".join(err[-3:])))
        attached, _ = trace_info(err)
        v.check(attached and set(attached.values()) == {mode},
                "%s: modes %s, want %s" % (tag, attached, mode))
        events = json_lines(v, files, cell, tag)
        got = [(e.get("name"), e.get("args")) for e in events]
        v.check(sorted(got) == sorted(want), "%s: hits %s, want %s" % (tag, got, want))
        pids = {e.get("pid") for e in events}
        w = [pid for trace, _, pid in log["pids"] if trace == "trace_" + cell]
        cmd = [int(m.group(1)) for l in err
               for m in [re.search(r"command pid (\d+) exited with status 0", l)] if m]
        if w:
            v.check(pids == set(w), "%s: pids %s, want %s" % (tag, pids, w))
        elif cell == "cmd":
            v.check(cmd and pids == set(cmd), "%s: pids %s, command %s" % (tag, pids, cmd))
        else:
            v.check(cmd and len(pids) == 2 and cmd[0] in pids,
                    "%s: pids %s, want the command %s and its child" % (tag, pids, cmd))
        print("%s: %d hits exact, mode %s" % (tag, len(got), mode))


# ---- the "follow" scenario (vm_follow.c, guest.sh scenario_follow) ----

FOLLOW_N, FOLLOW_K = 5, 4	# guest.sh's FOLLOW_N and FOLLOW_K
FOLLOW_WAIT = re.compile(r"usdtkit trace: .*: no probe follow:(fire|init) yet: "
                         r"waiting for a library that has it to be loaded$")
FOLLOW_LATER = re.compile(r"usdtkit trace: pid (\d+): follow:(fire|init): "
                          r"1 site\(s\) in (\S+), mapped later$")


# A 32-bit arm kernel has no Thumb uprobes, and Debian's armhf loader is
# Thumb-2 code: the uprobe on its _dl_debug_state() is refused (EINVAL),
# and trace says so in this line, then reads the process's maps each
# second instead. vm_follow's plugin is mapped for a moment each round,
# so those reads may find it or not: no count can be required there.
FOLLOW_THUMB = re.compile(r"usdtkit trace: \S+: cannot watch it for objects loaded later "
                          r"\(_dl_debug_state uprobe\): Invalid argument: they are "
                          r"looked for every second instead, and hits before they are "
                          r"attached are lost$")


def follow_hits():
    """vm_follow's hits in firing order: (name, args) per round, init
    in the plugin's constructor then K fires"""
    out = []
    for r in range(FOLLOW_N):
        out.append(("init", []))
        out.extend(("fire", [r * 10 + k]) for k in range(FOLLOW_K))
    return out


def check_follow(v, log):
    """Both probes waited for, attached when the plugin was mapped, every
    hit of every round counted in order, by -c and by -p, in a chroot too."""
    files = log["files"]
    want = follow_hits()
    thumb = log["begin"][4].startswith("arm")	# armv7l: not aarch64
    for cell in ("cmd", "pid", "boxpid", "boxcmd"):
        tag = "follow %s" % cell
        err = [l for l in files.get("trace_%s.err" % cell, []) if l.strip()]
        if thumb:
            check_follow_thumb(v, log, cell, err, want)
            continue
        v.check(log["rc"].get("trace_" + cell) == 0, "%s: exit %s: %s"
                % (tag, log["rc"].get("trace_" + cell), " | ".join(err[-3:])))
        # nothing has either probe when the trace starts: both wait
        v.check(sorted(m.group(1) for l in err for m in [FOLLOW_WAIT.match(l)] if m)
                == ["fire", "init"] and "Tracing 2 waiting for a library. Ctrl-C to end." in err,
                "%s: follow:fire and follow:init not both waiting: %s" % (tag, " | ".join(err)))
        # one loader watched: the program's (busybox, which boxcmd runs
        # first, is static)
        watching = [l for l in err if re.match(
            r"usdtkit trace: watching \S+ \(_dl_debug_state\) for objects mapped later$", l)]
        v.check(len(watching) == 1, "%s: loaders watched: %s" % (tag, watching))
        pid = follow_workload(v, log, cell, err)
        later = [m.groups() for l in err for m in [FOLLOW_LATER.match(l)] if m]
        v.check({g[1] for g in later} == {"fire", "init"} and
                {int(g[0]) for g in later} == set(pid),
                "%s: attached when mapped: %s" % (tag, later))
        events = json_lines(v, files, cell, tag)
        got = [(e.get("name"), e.get("args")) for e in events]
        v.check(got == want, "%s: %d hits, want %d: %s" % (tag, len(got), len(want), got))
        pids = {e.get("pid") for e in events}
        v.check(pids == set(pid), "%s: pids %s, want %s" % (tag, pids, pid))
        print("%s: %d hits exact (%d loads), pid %s, %d attach(es) when mapped"
              % (tag, len(got), FOLLOW_N, pid, len(later)))


# ---- the "compat32" scenario (guest.sh scenario_compat32) ----

HWBP_OLD = "has no perf inherit_thread and remove_on_exec (Linux 5.13)"


def check_compat32(v, log):
    """A 32-bit arm program on an arm64 kernel: by path and in a forced
    uprobe mode, refused in one line that names the file (and the pid),
    the kernel, why and what works; by pid, traced with hardware
    breakpoints, ARM and Thumb, every hit and argument compared, threads
    and children followed, aggregated in the kernel. Before Linux 5.13
    (no inherit_thread, no remove_on_exec) mode hwbp is refused in one
    line each time."""
    kernel = log["begin"][3] if log["begin"] else "?"
    old = kernel_model(log)["version"] < (5, 13)
    if not v.check("compat32: no armhf workload" not in log["notes"],
                   "compat32: no armhf workload in the guest: the aarch64 cells take "
                   "build-cross/armhf's vm_sites (sh scripts/cross.sh armhf first)"):
        return
    pid = [p for t, _, p in log["pids"] if t == "trace_c32p"]
    for cell, who in (("c32p", " (pid %s)" % (pid[0] if pid else "?")), ("c32f", "")):
        err = [l for l in log["files"].get("trace_%s.err" % cell, []) if l.strip()]
        want = ("/w/vm_sites_a32%s: this aarch64 kernel (Linux %s) runs arm programs "
                "but fires no uprobe in them: nothing attached" % (who, kernel))
        v.check(log["rc"].get("trace_" + cell) == 1, "compat32 %s: exit %s, want 1: %s"
                % (cell, log["rc"].get("trace_" + cell), " | ".join(err)))
        if cell == "c32p" and kernel_model(log)["version"] < (5, 15):
            want = "--mode perf: this kernel has no BPF cookies"
        else:
            want = [want, "--mode hwbp"]
        v.check(sum(all(w in l for w in (want if isinstance(want, list) else [want]))
                    for l in err) == 1 and not any(l.startswith("Tracing") for l in err),
                "compat32 %s: want one line with %r, no Tracing: %s"
                % (cell, want, " | ".join(err)))
    hwbp_tags = sorted(t for t, _, _ in log["pids"]
                       if re.match(r"trace_([at]32\d|so32|c32(th|tree|kids|agg|keys)[a-z]*)$", t))
    err = log["files"].get("trace_c32s.err", [])
    v.check(log["rc"].get("trace_c32s") == 1 and
            sum("usdtkit_cross:sema has a semaphore, which mode hwbp raises in a "
                "running process only" in l or HWBP_OLD in l for l in err) == 1,
            "compat32: the semaphore probe under -c in mode hwbp: want exit 1 and one "
            "line that says why: exit %s: %s" % (log["rc"].get("trace_c32s"), " | ".join(err)))
    if old:
        for tag in ["trace_c32b"] + hwbp_tags:
            err = log["files"].get(tag[len("trace_"):] + ".err",
                                   log["files"].get(tag + ".err", []))
            v.check(log["rc"].get(tag) == 1 and sum(HWBP_OLD in l for l in err) == 1,
                    "compat32 %s on %s: want exit 1 and one line %r: exit %s: %s"
                    % (tag, kernel, HWBP_OLD, log["rc"].get(tag), " | ".join(err[-3:])))
        print("compat32: mode hwbp refused on %s, once per trace (%d traces)"
              % (kernel, len(hwbp_tags) + 2))
        return
    # every probe, --best-effort: as many sites as a thread has breakpoints
    err = log["files"].get("trace_c32b.err", [])
    attached, skipped = trace_info(err)
    v.check(attached and set(attached.values()) == {"hwbp"} and skipped and
            any(re.search(r"no hardware breakpoint left: a thread has \d+ here", l)
                for l in err),
            "compat32 --best-effort: want the first probes in mode hwbp and the rest "
            "named with the number of breakpoints: %s" % " | ".join(err[-6:]))
    groups = 0
    for tag in hwbp_tags:
        name = tag[len("trace_"):]
        if name.startswith("c32"):
            continue
        groups += 1
        err = log["files"].get("trace_%s.err" % name, [])
        attached, skipped = trace_info(err)
        v.check(log["rc"].get(tag) == 0, "compat32 %s: exit %s: %s"
                % (name, log["rc"].get(tag), " | ".join(err[-3:])))
        v.check(attached and set(attached.values()) == {"hwbp"},
                "compat32 %s: want every probe in mode hwbp: %s" % (name, attached))
        v.check(not skipped, "compat32 %s: left out: %s" % (name, skipped))
        pids = [p for t, _, p in log["pids"] if t == tag]
        events = [json.loads(l) for l in log["files"].get("trace_%s.json" % name, [])
                  if l.startswith("{")]
        want = [h for h in parse_expect(log["files"].get("%s.expect" % name, []))
                if h[0] in attached]
        v.check(want, "compat32 %s: no hit expected: nothing compared" % name)
        n = compare_hits(v, "compat32 " + name, want,
                         [e for e in events if e.get("pid") in pids])
        print("compat32 %s: %d probes in mode hwbp, %d left out, %d hits compared"
              % (name, len(attached), len(skipped), n))
    v.check(groups == 9, "compat32: %d groups traced, want 9 (4 ARM, 4 Thumb, 1 in a "
            "shared library of a dynamic PIE)" % groups)
    semas = re.findall(r"^@@sema (\S+) *(\d*)", log["text"], re.M)
    v.check(len(semas) == 2 and all(x == "0" for _, x in semas),
            "compat32: the semaphore after the trace: %s, want 0 in both" % semas)
    # threads and processes (vm_agg, Thumb): -p and -c, with and without
    # --children; each a counts object of usdtkit_vm:forked
    for name, want in (("c32thp", 5), ("c32thc", 5), ("c32tree", 1), ("c32kids", 4)):
        objs, err = agg_objects(v, log, name)
        got = [o.get("count") for o in objs if o.get("agg") == "counts"]
        v.check(log["rc"].get("trace_" + name) == 0 and got == [want],
                "compat32 %s: usdtkit_vm:forked counted %s, want [%d] (exit %s): %s"
                % (name, got, want, log["rc"].get("trace_" + name), " | ".join(err[-3:])))
    check_agg_objects(v, log, "c32agg")
    # keys: pid, comm and the user stack, per process of the tree
    objs, err = agg_objects(v, log, "c32keys")
    top, per_pid, stk = keys_by_pid(objs)
    v.check(sorted(per_pid.values()) == [1, 1, 2] and
            all(t.get("parts", [None, None])[1] == "vm_agg_a32" for t in top) and
            len(stk) == len(top),
            "compat32 c32keys: %s, want per pid 1, 1, 2 of vm_agg_a32, each with a "
            "stack part" % [json.dumps(x) for x in objs])
    print("compat32 c32keys: %d keys, stacks %s" % (len(top), json.dumps(stk)[:300]))
    # a dynamic 32-bit PIE loading its plugin late, by pid (mode hwbp)
    err = [l for l in log["files"].get("trace_c32pid.err", []) if l.strip()]
    check_follow_thumb(v, log, "c32pid", err, follow_hits(), FOLLOW_COMPAT,
                       "this arm64 kernel fires no uprobe on the 32-bit loader")
    print("compat32: refused by path and in mode perf, in one line each; threads, "
          "children and aggregations in mode hwbp")


# ---- the "hwbpnative" scenario (x86_64: mode hwbp on a native process) ----

def check_hwbpnative(v, log):
    """--mode hwbp where the CPU's breakpoints fire: every hit and
    argument of 4 sites, and threads before and after the attach. Before
    Linux 5.13, the one line of what the kernel lacks, each time."""
    if kernel_model(log)["version"] < (5, 13):
        for c in ("n1", "n2"):
            err = log["files"].get("trace_%s.err" % c, [])
            v.check(log["rc"].get("trace_" + c) == 1 and sum(HWBP_OLD in l for l in err) == 1,
                    "hwbpnative %s: want exit 1 and one line %r: %s"
                    % (c, HWBP_OLD, " | ".join(err[-3:])))
        print("hwbpnative: mode hwbp refused on %s, in one line" % log["begin"][3])
        return
    err = log["files"].get("trace_n1.err", [])
    attached, skipped = trace_info(err)
    v.check(log["rc"].get("trace_n1") == 0 and attached and
            set(attached.values()) == {"hwbp"} and not skipped,
            "hwbpnative n1: exit %s, modes %s, left out %s: %s" % (
                log["rc"].get("trace_n1"), attached, skipped, " | ".join(err[-3:])))
    pids = [p for t, _, p in log["pids"] if t == "trace_n1"]
    events = [json.loads(l) for l in log["files"].get("trace_n1.json", [])
              if l.startswith("{")]
    want = [h for h in parse_expect(log["files"].get("n1.expect", [])) if h[0] in attached]
    v.check(want, "hwbpnative n1: no hit expected: nothing compared")
    n = compare_hits(v, "hwbpnative n1", want, [e for e in events if e.get("pid") in pids])
    objs, err = agg_objects(v, log, "n2")
    got = [o.get("count") for o in objs if o.get("agg") == "counts"]
    v.check(got == [5], "hwbpnative n2: usdtkit_vm:forked counted %s, want [5]: %s"
            % (got, " | ".join(err[-3:])))
    print("hwbpnative: %d probes in mode hwbp, %d hits compared; threads %s"
          % (len(attached), n, got))


# ---- the "hwbp_bench" scenario (by hand: bench/README.md, "Mode hwbp") ----

def check_hwbp_bench(v, log):
    """Every hit counted in both builds, each in its mode; the per-hit
    cost (probed minus unprobed) and the time to "Tracing", medians."""
    rows = {}
    for line in log["text"].splitlines():
        if not line.startswith("@@hwbp_bench "):
            continue
        f = line.split()
        kv = dict(zip(f[6::2], f[7::2]))
        w = f[1]
        start = float(f[5]) - float(f[4])
        v.check(kv.get("hits") == kv.get("n"), "hwbp_bench %s round %s: %s hits of %s"
                % (w, f[2], kv.get("hits"), kv.get("n")))
        want = "hwbp" if w.endswith("_a32") else None
        v.check(kv.get("mode") == want if want else kv.get("mode") in ("multi", "perf"),
                "hwbp_bench %s: mode %s" % (w, kv.get("mode")))
        rows.setdefault(w, []).append((int(kv.get("hit_ns", 0)) - int(kv.get("base_ns", 0)),
                                       int(kv.get("base_ns", 0)), start))
    v.check(len(rows) == 2, "hwbp_bench: rounds of %s, want both builds" % sorted(rows))
    med = lambda x: sorted(x)[len(x) // 2]
    for w, r in sorted(rows.items()):
        print("hwbp_bench %s: %d rounds, per hit %s ns (median %d), unprobed %d ns, "
              "start to Tracing median %.2f s" % (w, len(r), [x[0] for x in r],
              med([x[0] for x in r]), med([x[1] for x in r]), med([x[2] for x in r])))
    if len(rows) == 2:
        u, h = (med([x[0] for x in rows[k]]) for k in ("vm_hwbp_hit", "vm_hwbp_hit_a32"))
        print("hwbp_bench: a breakpoint hit / a uprobe hit: %.2f" % (h / u if u else 0))


# ---- the "all" scenario (guest.sh scenario_all: trace --all) ----

ALL_LOSS = re.compile(r"usdtkit trace: --all: a library new to the trace is attached "
                      r"once its loader has mapped it")


def check_all(v, log):
    """trace --all: three vm_follow, running before the trace, started
    after it, in a chroot; every hit of each counted in order, each pid
    its own, where the kernel holds the opens (Linux 5.19); before, the
    loss is said once and what came is the workloads' hits in order."""
    files = log["files"]
    err = [l for l in files.get("trace_all.err", []) if l.strip()]
    tag = "all"
    held = not any(ALL_LOSS.match(l) for l in err)
    rc = log["rc"].get("trace_all")
    # where the loss was said, a plugin mapped for a moment each round
    # may never be seen: exit 1, nothing attached, both probes named
    nomap = sum(bool(re.match(r"usdtkit trace: follow:(fire|init): no process mapped "
                              r"an object that has it$", l)) for l in err)
    v.check(rc == 0 or not held and rc == 1 and nomap == 2, "%s: exit %s: %s"
            % (tag, rc, " | ".join(err[-3:])))
    pids = [p for t, _, p in log["pids"] if t == "trace_all"]
    v.check(len(pids) == 3, "%s: the workloads' pids: %s" % (tag, pids))
    for o in ("all_a.out", "all_l.out", "all_b.out"):
        v.check("vm_follow: done %d" % (FOLLOW_N * FOLLOW_K) in files.get(o, []),
                "%s: %s did not finish: %s" % (tag, o, files.get(o, [])[-3:]))
    events = json_lines(v, files, "all", tag)
    want = follow_hits()
    for p in pids:
        got = [(e.get("name"), e.get("args")) for e in events if e.get("pid") == p]
        if held:
            v.check(got == want, "%s: pid %s: %d hits, want %d: %s"
                    % (tag, p, len(got), len(want), got))
        else:
            it = iter(want)
            v.check(all(g in it for g in got), "%s: pid %s: hits not in order: %s"
                    % (tag, p, got))
    v.check({e.get("pid") for e in events} <= set(pids),
            "%s: hits of other processes: %s" % (tag, events))
    lines = sum(bool(ALL_LOSS.match(l)) for l in err)
    v.check(lines <= 1, "%s: the loss said %d times" % (tag, lines))
    print("%s: %d hits of 3 processes, %s" % (tag, len(events),
          "every one (opens held)" if held else "the library's may be lost (said)"))


def follow_workload(v, log, cell, err):
    """The pid of CELL's vm_follow, which must have fired every hit"""
    tag = "follow %s" % cell
    if cell.endswith("pid"):
        pid = [p for t, _, p in log["pids"] if t == "trace_" + cell]
        out = log["files"].get("%s.out" % cell, [])
    else:
        pid = [int(m.group(1)) for l in err
               for m in [re.search(r"command pid (\d+) exited with status 0$", l)] if m]
        out = err
    v.check(len(pid) == 1, "%s: the workload's pid: %s" % (tag, pid))
    v.check("vm_follow: done %d" % (FOLLOW_N * FOLLOW_K) in out,
            "%s: the workload did not finish: %s" % (tag, " | ".join(out[-3:])))
    return pid


FOLLOW_COMPAT = re.compile(r"usdtkit trace: \S+: cannot watch it for objects loaded later "
                           r"\(_dl_debug_state uprobe\): this kernel fires no uprobe in its "
                           r"processes: they are looked for every second instead, and hits "
                           r"before they are attached are lost$")


def check_follow_thumb(v, log, cell, err, want, refused_re=FOLLOW_THUMB,
                       why="this 32-bit arm kernel cannot uprobe the loader's "
                           "_dl_debug_state (Thumb code)"):
    """A loader uprobes cannot probe: both probes waited for, the loader
    refused in FOLLOW_THUMB's line, once, and none watched; what the
    maps read each second caught (the plugin mapped at that moment) is
    hits of the workload, in order, and a trace that caught nothing says
    of both probes that nothing had them. The count is not required."""
    tag = "follow %s" % cell
    rc = log["rc"].get("trace_" + cell)
    v.check(sorted(m.group(1) for l in err for m in [FOLLOW_WAIT.match(l)] if m)
            == ["fire", "init"], "%s: follow:fire and follow:init not both waiting: %s"
            % (tag, " | ".join(err)))
    refused = [l for l in err if refused_re.match(l)]
    v.check(len(refused) == 1 and not any(" (_dl_debug_state) for objects mapped later" in l
                                          for l in err),
            "%s: the loader must be refused in one line matching %r: %s"
            % (tag, refused_re.pattern, " | ".join(err)))
    pid = follow_workload(v, log, cell, err)
    events = [json.loads(l) for l in log["files"].get("trace_%s.json" % cell, [])
              if l.startswith("{")]
    got = [(e.get("name"), e.get("args")) for e in events]
    it = iter(want)
    v.check(all(g in it for g in got) and {e.get("pid") for e in events} <= set(pid),
            "%s: hits not the workload's, in order: %s" % (tag, events))
    nomap = sum(bool(re.match(r"usdtkit trace: follow:(fire|init): no process mapped "
                              r"an object that has it$", l)) for l in err)
    v.check(rc == 0 and got or rc == 1 and not got and nomap == 2,
            "%s: exit %s with %d hits: %s" % (tag, rc, len(got), " | ".join(err[-4:])))
    print("%s: count not checked (%d of %d hits caught): %s, so the plugin "
          "is looked for each second instead, as trace said: %s"
          % (tag, len(got), len(want), why, refused[0] if refused else None))


def check_basics(v, log, args):
    files, rc = log["files"], log["rc"]
    v.check(rc.get("features") == 0, "usdtkit features: exit %s" % rc.get("features"))
    text = "\n".join(files.get("features.txt", []))
    v.check(re.search(r"auto", text), "usdtkit features: no AUTO mode line:\n%s" % text)
    v.check(rc.get("features_json") == 0, "features --json: exit %s" % rc.get("features_json"))
    feat = features_json(log)
    v.check(feat.get("bpf") is True, "features: bpf %s" % feat.get("bpf"))
    # mode hwbp, found by doing it: an arm64 kernel with perf's 5.13
    # flags under qemu -cpu max has 6 breakpoints that fire and step
    if log["begin"][4] == "aarch64" and kernel_model(log)["version"] >= (5, 13):
        v.check(feat.get("hwbp") is True and feat.get("hwbp_slots") == 6,
                "features: hwbp %s, slots %s (%s), want true and 6" % (
                    feat.get("hwbp"), feat.get("hwbp_slots"), feat.get("hwbp_reason")))
    print("features: hwbp %s, slots %s%s" % (feat.get("hwbp"), feat.get("hwbp_slots"),
          ": " + feat["hwbp_reason"] if feat.get("hwbp_reason") else ""))
    k = kernel_model(log)
    kv = "Linux %d.%d, %d-bit" % (k["version"] + (64 if k["bits64"] else 32,))
    v.check(feat.get("auto_mode") == k["auto"], "features: auto_mode %s, want %s (%s)"
            % (feat.get("auto_mode"), k["auto"], kv))
    for key, since, _, _ in FEATURES:
        v.check(feat.get(key) is k[key], "features: %s %s, want %s (%s; from %d.%d)"
                % (key, feat.get(key), k[key], kv, since[0], since[1]))
        line = [l for l in files.get("features.txt", []) if l.startswith(key + ":")]
        v.check(line and line[0].split()[-1] == ("yes" if k[key] else "no"),
                "features text: %s, want %s (%s)" % (line, k[key], kv))
    if k["user_stack"] is not None:
        v.check(feat.get("user_stack") is k["user_stack"], "features: user_stack %s, "
                "want %s on %s" % (feat.get("user_stack"), k["user_stack"], log["begin"][4]))
    v.check(feat.get("ringbuf") is True, "features: ringbuf %s (Linux 5.8)" % feat.get("ringbuf"))
    v.check(feat.get("uprobes") is True, "features: uprobes %s" % feat.get("uprobes"))
    print("features: " + ", ".join("%s=%s" % (k, feat.get(k)) for k in
          ("kernel", "bpf", "jit", "btf", "bpf_cookie", "uprobe_multi", "user_stack",
           "ref_ctr_offset", "ringbuf", "auto_mode")))
    # list: the guest's output equals the host CLI's on the same files
    for f in ("vm_sites", "vm_sites_so", "vm_api", "libvmsites.so"):
        guest = "\n".join(files.get("list_" + f, []))
        v.check(rc.get("list_" + f) == 0, "list %s: exit %s" % (f, rc.get("list_" + f)))
        if not v.check(args.host_cli, "list %s: no host CLI to compare with" % f):
            continue
        # both streams, as the guest keeps them (a file without probes
        # says so on stderr)
        host = subprocess.run([args.host_cli, "list", "--json", f], cwd=args.files,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True).stdout.rstrip("\n")
        v.check(host and guest == host, "list %s differs from the host's:\n  guest: %s\n  host:  %s"
                % (f, guest[:300], host[:300]))
    # --mode multi without uprobe_multi: exit 1, one line naming it,
    # nothing left behind
    if not k["uprobe_multi"]:
        err = [l for l in files.get("multi.err", []) if l.strip()]
        v.check(rc.get("multi") == 1, "trace --mode multi: exit %s, want 1" % rc.get("multi"))
        v.check(len(err) == 1 and re.search(FEATURES[1][3], err[0]),
                "trace --mode multi: message %r" % err)
        v.check(not files.get("multi.out"), "trace --mode multi printed %s" % files.get("multi.out"))
    v.check(not files.get("leftovers"), "left behind after --mode multi: %s"
            % files.get("leftovers"))
    check_trace(v, log, "after", k["auto"])


def check_api(v, log, what):
    out = log["files"].get("api_" + what, [])
    v.check(log["rc"].get("api_" + what) == 0, "vm_api %s: exit %s" % (what, log["rc"].get("api_" + what)))
    for line in out:
        if line.startswith("FAIL") or line.startswith("vm_api"):
            print("  " + line)
    m = [re.search(r": (\d+) passed, (\d+) failed", l) for l in out]
    m = [x for x in m if x]
    v.check(m and int(m[-1].group(1)) > 0 and int(m[-1].group(2)) == 0,
            "vm_api %s: %s" % (what, m[-1].group(0) if m else "no result line"))


def check_thumb(v, log):
    """Thumb-2 sites on a 32-bit arm kernel (no Thumb uprobes): every
    probe traced right or refused with a reason that says Thumb, and the
    workload unharmed."""
    v.check("@@fired s" in log["text"], "the Thumb workload never finished firing "
            "its probes with the trace attached (it crashed or hung at a uprobe)")
    st = log["rc"].get("workload")
    v.check(st == 0, "the Thumb workload's exit status: %s%s" % (
        st, " (killed by signal %d)" % (st - 128) if st and st > 128 else ""))
    err = log["files"].get("trace_thumb.err", [])
    attached, skipped = trace_info(err)
    # never vacuous: every probe was attached or refused
    v.check(len(attached) + len(skipped) > 1, "trace thumb: no probe attached or "
            "refused: %s" % " | ".join(err[-3:]))
    for probe in sorted(skipped - {FP_PROBE}):
        why = [l for l in err if ":%s:" % probe in l or ":%s " % probe in l]
        # case matters: the workload's own path says "thumb"
        v.check(any(re.search(r"Thumb", l) for l in why),
                "trace thumb: usdtkit_cross:%s refused without saying Thumb: %s"
                % (probe, " | ".join(why)[:300]))
    # AUTO looked for hardware breakpoints first (mode hwbp): where they
    # do not work (qemu's 32-bit arm), one line says what the kernel lacks
    hw = [l for l in err if "no hardware breakpoint either (mode hwbp): " in l]
    v.check(len(hw) == 1 and re.search(r"kernel \(Linux [^)]+\)", hw[0]) or
            not any("mode hwbp" in l for l in err) and attached,
            "trace thumb: want one line saying why mode hwbp cannot either: %s"
            % " | ".join(hw or err[:3]))
    if hw:
        print("trace thumb: %s" % hw[0])
    events = [json.loads(l) for l in log["files"].get("trace_thumb.json", [])
              if l.startswith("{")]
    pid = [p for t, k, p in log["pids"] if t == "trace_thumb"]
    want = [h for h in parse_expect(log["files"].get("s.expect", [])) if h[0] in attached]
    n = compare_hits(v, "trace thumb", want, [e for e in events if e.get("pid") in pid])
    print("trace thumb: %d probes attached, %d refused, %d hits compared"
          % (len(attached), len(skipped), n))


# ---- the "agg" scenario (vm_agg.c, guest.sh scenario_agg) ----

AGG_PATHS = ("/", "/index.html", "/api/v1/items")


def agg_model():
    """vm_agg agg's hits, as vm_agg.c fires them: probe -> [(arg0..arg3)]
    (arg2 signed, the others unsigned, arg3 the string)."""
    hits = {"req": [], "tick": []}
    for i in range(1, 31):
        hits["req"].append((i, i * 100, -i, AGG_PATHS[i % 3]))
        if i % 10 == 0:
            hits["tick"].append((i, (1 << 64) - i, -i * 10 ** 9, "/tick"))
    return hits


def agg_filter(a):
    """the guest's --filter, in Python"""
    return a[0] > 2 and (a[3].startswith("/api") or a[3] == "/tick" or a[2] <= -28)


def hist_buckets(values):
    """bpftrace's log2 slots of unsigned values, as the JSON lists them"""
    b = {}
    for x in values:
        lo, hi = (x, x) if x < 2 else (1 << (x.bit_length() - 1), (1 << x.bit_length()) - 1)
        b[(lo, hi)] = b.get((lo, hi), 0) + 1
    return [{"min": lo, "max": hi, "count": n} for (lo, hi), n in sorted(b.items())]


def agg_objects(v, log, name):
    files = log["files"]
    tag = "trace %s" % name
    err = files.get("trace_%s.err" % name, [])
    v.check(log["rc"].get("trace_" + name) == 0, "%s: exit status %s (stderr: %s)"
            % (tag, log["rc"].get("trace_" + name), " | ".join(err[-5:])))
    objs = json_lines(v, files, name, tag)
    for o in objs:
        v.check(o.get("schema", "").startswith("usdtkit-trace-agg/2."),
                "%s: schema %s in %s" % (tag, o.get("schema"), json.dumps(o)))
    # the JSON contract (docs/schema), where jsonschema is installed
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        return objs, err
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                           "schema", "usdtkit-trace-agg.schema.json")) as f:
        val = Draft202012Validator(json.load(f))
    for o in objs:
        bad = [e.message for e in val.iter_errors(o)]
        v.check(not bad, "%s: %s against the schema: %s" % (tag, json.dumps(o), bad))
    return objs, err


def startup_configs():
    """The names of bench/startup_configs, in order."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "bench", "startup_configs")
    with open(path) as f:
        return [l.split("|")[0] for l in f.read().splitlines()
                if l and not l.startswith("#")]


def check_load_configs(v, log):
    """Every configuration loaded (exit 0: the trace of /bin/true had
    nothing to report) and said what it cost (check_loads holds it to
    the verifier budget)."""
    for name in startup_configs():
        rc = log["rc"].get("load_" + name)
        lines = log["files"].get("load_%s.err" % name, [])
        v.check(rc == 0, "load %s: exit %s: %s" % (name, rc, " | ".join(lines[-3:])))
        v.check(any(LOADED_RE.search(l) for l in lines),
                "load %s: no \"loaded usdtkit_trace\" line" % name)


def check_agg(v, log):
    """--filter and every aggregation against agg_model(), exactly; the
    latency's count, unmatched and pairing exactly, its times loosely"""
    check_agg_objects(v, log, "agg")
    check_latency(v, log)


def keys_by_pid(objs):
    """A pid,comm,ustack count_by object's keys, its hits per pid, and
    the stack part of each key"""
    top = (objs[0].get("top") if len(objs) == 1 else None) or []
    per_pid = {}
    for t in top:
        p = (t.get("parts") or [None])[0]
        per_pid[p] = per_pid.get(p, 0) + (t.get("count") or 0)
    stk = [t["parts"][2] for t in top if isinstance(t.get("parts"), list) and
           len(t["parts"]) == 3 and isinstance(t["parts"][2], dict)]
    return top, per_pid, stk


def check_agg_objects(v, log, name):
    """trace NAME: vm_agg agg's --filter and aggregations, exactly"""
    objs, err = agg_objects(v, log, name)
    got = {}
    for o in objs:
        k = (o.get("agg"), o.get("name"))
        v.check(k not in got, "trace %s: two %s objects of %s" % ((name,) + k))
        got[k] = o
    model = agg_model()
    # the model itself, against numbers worked out by hand
    kept = {p: [a for a in h if agg_filter(a)] for p, h in model.items()}
    v.check([a[0] for a in kept["req"]] == [5, 8, 11, 14, 17, 20, 23, 26, 28, 29, 30]
            and [a[0] for a in kept["tick"]] == [10, 20, 30], "agg_model: kept %s" % kept)
    want = {}
    for p, h in kept.items():
        a2 = [a[2] for a in h]
        want[("counts", p)] = {"count": len(h)}
        want[("sum", p)] = {"count": len(h), "value": sum(a2), "arg": 2}
        want[("min", p)] = {"count": len(h), "value": min(a2), "arg": 2}
        want[("max", p)] = {"count": len(h), "value": max(a2), "arg": 2}
        want[("hist", p)] = {"count": len(h), "arg": 1,
                             "buckets": hist_buckets([a[1] for a in h])}
        by = {}
        for a in h:
            by[a[3]] = by.get(a[3], 0) + 1
        # most frequent first, ties in key order
        want[("count_by", p)] = {"by": "str(arg3)", "keys": len(by), "top":
                                 [{"key": k, "count": n} for k, n in
                                  sorted(by.items(), key=lambda x: (-x[1], x[0]))]}
    v.check(want[("sum", "tick")]["value"] == -60 * 10 ** 9 and
            want[("count_by", "req")]["top"][0] == {"key": "/api/v1/items", "count": 9},
            "agg_model: %s" % want)
    for k, w in sorted(want.items()):
        o = got.get(k)
        if not v.check(o is not None, "trace %s: no %s object of usdtkit_vm:%s" % ((name,) + k)):
            continue
        v.check(o.get("provider") == "usdtkit_vm", "trace %s: %s %s" % (name, k, json.dumps(o)))
        for f, x in w.items():
            g = o.get(f)
            if f == "top" and isinstance(g, list):
                # each key's count (schema 1.2 adds its parts: not looked at)
                g = [{"key": t.get("key"), "count": t.get("count")} for t in g]
            v.check(g == x, "trace %s: %s of usdtkit_vm:%s: %s is %s, want %s"
                    % (name, k[0], k[1], f, json.dumps(g), json.dumps(x)))
    for p, h in kept.items():
        o = got.get(("avg", p), {})
        a = sum(x[2] for x in h) / len(h)
        v.check(o.get("count") == len(h) and isinstance(o.get("value"), (int, float))
                and abs(o["value"] - a) <= 1e-9 * abs(a),
                "trace %s: avg of usdtkit_vm:%s: %s, want %r" % (name, p, json.dumps(o), a))
    extra = sorted(set(got) - set(want) - {("avg", p) for p in kept})
    v.check(not extra, "trace %s: objects nobody asked for: %s" % (name, extra))
    nkept = sum(len(h) for h in kept.values())
    ndrop = sum(len(h) for h in model.values()) - nkept
    line = "usdtkit trace: %d hits aggregated, %d dropped by the filter" % (nkept, ndrop)
    v.check(line in err, "trace %s: no line %r on stderr: %s" % (name, line, " | ".join(err)))
    print("trace %s: %d objects, %d hits kept of %d" % (name, len(objs), nkept, nkept + ndrop))


def check_latency(v, log):
    """--latency: count, unmatched and pairing exactly, times loosely"""

    # --latency begin end --key arg0: 4 pairs (10 ms, 30 ms, 5+ ms twice),
    # end(1) again and end(99) unmatched
    objs, err = agg_objects(v, log, "lat")
    v.check(len(objs) == 1, "trace lat: %d objects, want 1" % len(objs))
    o = objs[0] if objs else {}
    v.check(o.get("agg") == "latency" and o.get("key") == "arg0" and
            o.get("start") == "usdtkit_vm:begin" and o.get("end") == "usdtkit_vm:end",
            "trace lat: %s" % json.dumps(o))
    v.check(o.get("count") == 4 and o.get("unmatched") == 2,
            "trace lat: count %s, unmatched %s, want 4 and 2" % (o.get("count"), o.get("unmatched")))
    b = o.get("buckets", [])
    v.check(sum(x.get("count", 0) for x in b) == 4, "trace lat: buckets %s" % b)
    # TCG is slow: only that the sleeps are in there, and no wild value
    mn, mx = o.get("min_ns", 0), o.get("max_ns", 0)
    v.check(5e6 <= mn <= mx and 30e6 <= mx < 20e9,
            "trace lat: min %s ns, max %s ns: want >= 5 ms and >= 30 ms" % (mn, mx))
    v.check(all(x["min"] >= 1 << 22 for x in b), "trace lat: a pair under 4 ms: %s" % b)
    print("trace lat: count %s, unmatched %s, min %.1f ms, max %.1f ms"
          % (o.get("count"), o.get("unmatched"), mn / 1e6, mx / 1e6))

    # --children --counts on vm_agg tree: its 4 tasks (a thread among
    # them) in 3 processes, each firing once
    objs, err = agg_objects(v, log, "tree")
    v.check(len(objs) == 1 and objs[0].get("agg") == "counts" and
            objs[0].get("name") == "forked" and objs[0].get("count") == 4,
            "trace tree (--children): %s, want one count of 4" % [json.dumps(o) for o in objs])
    v.check("usdtkit trace: 4 hits aggregated" in err,
            "trace tree: no line '4 hits aggregated': %s" % " | ".join(err))
    # the child and its child, not the thread: CLONE_THREAD read right
    # from this kernel's task_newtask (its place differs by word size
    # and byte order)
    v.check("usdtkit trace: --children: 2 forks followed" in err,
            "trace tree: no line '--children: 2 forks followed': %s" % " | ".join(err))
    print("trace tree: --children counted %s" % (objs[0].get("count") if objs else None))

    # keys on this kernel: str(arg3),ustack on 30 req hits (one call
    # site: one stack, raw as the command has exited: each path's 10).
    # A kernel that walks no user stack (features user_stack false) gives
    # every key the same empty stack, and trace says so once.
    walks = features_json(log).get("user_stack") is not False
    no_walk = "usdtkit trace: ustack: this kernel walks no user stack"

    def frames_ok(stacks, err):
        said = sum(l.startswith(no_walk) for l in err)
        if walks:	# and no false warning
            return all(s.get("frames") for s in stacks) and said == 0
        return not any(s.get("frames") for s in stacks) and said == 1
    objs, err = agg_objects(v, log, "aggst")
    o = objs[0] if len(objs) == 1 else {}
    top = o.get("top") or []
    v.check(o.get("agg") == "count_by" and o.get("by") == "str(arg3),ustack" and
            o.get("keys") == 3 and
            sorted(((t.get("parts") or [None])[0], t.get("count")) for t in top) ==
            sorted((p, 10) for p in AGG_PATHS),
            "trace aggst: %s, want 3 keys of 10" % [json.dumps(x) for x in objs])
    st = [t["parts"][1] for t in top if isinstance(t.get("parts"), list) and
          len(t["parts"]) == 2 and isinstance(t["parts"][1], dict)]
    v.check(len(st) == 3 and frames_ok(st, err) and
            len({(s.get("frames") or [None])[0] for s in st}) == 1,
            "trace aggst: stacks %s, want one site's, in every key (%s)"
            % (json.dumps(st), "walked" if walks else "none: '%s' once" % no_walk))
    # pid,comm,ustack on the tree: 3 processes, the child's own hit and
    # its thread's under one pid (one key, or two where their stacks
    # differ); the command's pid once; every stack an id's frames
    objs, err = agg_objects(v, log, "treek")
    o = objs[0] if len(objs) == 1 else {}
    m = [re.search(r"command pid (\d+) exited", l) for l in err]
    cmd = [int(x.group(1)) for x in m if x]
    top, per_pid, stk = keys_by_pid(objs)
    v.check(o.get("by") == "pid,comm,ustack" and
            sorted(per_pid.values()) == [1, 1, 2] and
            all(t.get("parts", [None, None])[1] == "vm_agg" for t in top) and
            cmd and per_pid.get(cmd[0]) == 1 and
            len(stk) == len(top) and frames_ok(stk, err),
            "trace treek: %s (command pid %s), want per pid 1, 1, 2 of vm_agg, "
            "each with frames (%s)" % ([json.dumps(x) for x in objs], cmd,
                                       "walked" if walks else "none, said once"))
    print("trace keys: str,ustack %d keys, pid,comm,ustack %d keys%s"
          % (len(st), len(top), "" if walks else
             "; frames not checked: this kernel walks no user stack (features "
             "user_stack false), and trace said so"))


# The verifier stops at 1M processed instructions (BPF_COMPLEXITY_LIMIT_INSNS);
# every configuration stays under a quarter of it, to leave room to grow
# (bench/README.md, "Startup").
VERIFIER_BUDGET = 1000000 // 4
LOADED_RE = re.compile(r"usdtkit(?: trace)?: loaded usdtkit_trace: features (0x[0-9a-f]+), "
                       r"(\d+) insns processed, (\d+) xlated, "
                       r"verified in ([0-9.]+) ms, load ([0-9.]+) ms")


def check_loads(v, log):
    """Every `trace -v` of the scenario: what its load cost this kernel,
    printed for bench/vm_load.sh, and the verifier's count in budget."""
    for name, lines in sorted(log["files"].items()):
        for line in lines:
            m = LOADED_RE.search(line)
            if not m:
                continue
            feat, insns = m.group(1), int(m.group(2))
            print("guest: load %s: features %s, %d insns processed, %s xlated, "
                  "verified in %s ms, load %s ms"
                  % (name, feat, insns, m.group(3), m.group(4), m.group(5)))
            v.check(insns < VERIFIER_BUDGET,
                    "%s: features %s: %d insns processed, over a quarter "
                    "of the verifier's 1M" % (name, feat, insns))


def check_scenario(v, s, log, args):
    if s == "auto":
        check_auto(v, log)
    elif s in ("perf", "multi"):
        check_mode(v, log, s)
    elif s == "ipmap":
        check_trace(v, log, "a", "ipmap")
        check_trace(v, log, "b", "ipmap")
    elif s == "basics":
        check_basics(v, log, args)
    elif s == "api":
        check_api(v, log, "values")
    elif s == "rollback":
        check_api(v, log, "rollback_auto")
        check_api(v, log, "rollback_ipmap")
        v.check(not log["files"].get("leftovers"), "left behind: %s"
                % log["files"].get("leftovers"))
    elif s == "thumb":
        check_thumb(v, log)
    elif s == "forms":
        check_forms(v, log)
    elif s == "follow":
        check_follow(v, log)
    elif s == "all":
        check_all(v, log)
    elif s == "compat32":
        check_compat32(v, log)
    elif s == "hwbpnative":
        check_hwbpnative(v, log)
    elif s == "hwbp_bench":
        check_hwbp_bench(v, log)
    elif s == "hwbp":
        for tag in ("a32", "t32"):
            out = log["files"].get("hwbp_%s.out" % tag, [])
            print("hwbp %s: %s" % (tag, " | ".join(out)))
            v.check(any(l.startswith("hwbp: runs ") for l in out), "hwbp %s: no count" % tag)
    elif s == "agg":
        check_agg(v, log)
        check_load_configs(v, log)
    elif s == "cold":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from check_cold import check_cold
        check_cold(v, log, kernel_model(log))
    elif s == "unwind":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from check_unwind import check_unwind
        check_unwind(v, log, kernel_model(log))
    elif s == "nop10":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from check_nop10 import check_nop10
        check_nop10(v, log, kernel_model(log))
    elif s == "instbench":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from check_instbench import check_instbench
        check_instbench(v, log, kernel_model(log))
    else:
        v.check(False, "unknown scenario")


def verdict(args, s, seg, tail):
    """One scenario's checks on its part of the console; True if passed."""
    v = Verdict(args.target, s)
    log, text = parse_log(seg)
    log["text"] = text
    for n in log["notes"]:
        print("guest: " + n)
    if not v.check(log["begin"] and log["finish"] is not None,
                   "the guest did not finish (boot failure, panic, timeout "
                   "or an earlier scenario of the boot hung); console tail:\n"
                   + tail):
        print("%s: %d passed, %d failed" % (v.where, v.passed, v.failed))
        return False
    print("guest: %s, scenario finished %.1f s from boot"
          % (" ".join(log["begin"][1:5]), log["finish"]))
    for k, t in log["times"].items():
        print("guest: %s %.2f s" % (k, t))
    check_loads(v, log)
    check_scenario(v, s, log, args)
    print("%s: %d passed, %d failed" % (v.where, v.passed, v.failed))
    return not v.failed and v.passed > 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--scenario", required=True,
                    help="one, or several joined by commas (one boot)")
    ap.add_argument("--log", required=True)
    ap.add_argument("--files", required=True, help="the build's tests/vm")
    ap.add_argument("--host-cli")
    args = ap.parse_args()
    with open(args.log, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    tail = "\n".join(text.splitlines()[-25:])
    head, parts = split_log(text)
    for n in parse_log(head)[0]["notes"]:
        print("guest: " + n)
    failed = [s for s in args.scenario.split(",")
              if not verdict(args, s, parts.get(s, head), tail)]
    if failed:
        print("vm %s: failed: %s" % (args.target, " ".join(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
