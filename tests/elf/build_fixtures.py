#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Build the ELF test fixtures (run by ctest as the setup of the "elf" tests).

usage: build_fixtures.py OUT_DIR

For each target whose manifest has fixture_cc (the compiler; strip is
<triplet>-strip), as scripts/archinfo says, with Debian's (cross)
compilers and <sys/sdt.h> from systemtap-sdt-dev:

  pie_O0    fix_main.c fix_other.c fix_sema.c   -O0, PIE (the default)
  pie_O2    same, -O2, PIE
  nopie_O1  same, -O1 -fno-pie -no-pie
  nopie_O2  same, -O2 -fno-pie -no-pie -fno-section-anchors
  pie_O2_dyn  same, -O2 -rdynamic (globals in .dynsym, PIE)
  lib       fix_lib.c -O2 -fPIC -shared  (libfix.so)

plus a stripped copy of each (the target's own strip); with
fixture_variant_cflags (arm: -marm), pie_O2_<v> and nopie_O2_<v> too,
built with those flags (v: the first flag without "-m"). x86_64 also gets
fix_nop5_x86_64.c in its executables, the live-process fixtures (fix_live,
a PIE linked against libfix.so, and fix_live_nsc, the same linked with
-z noseparate-code so that its text is mapped from file offset 0) and
fix_noprobe (static, no probes).

The cross builds see a scratch include dir holding only sys/sdt.h and
sys/sdt-config.h, never the host's whole x86_64 include dir. A missing
compiler or header is a FAILURE (with a message), never a skip. Writes
OUT_DIR/manifest.json describing every file, and ends with
"N passed, M failed".
"""
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "fixtures")

sys.path.insert(0, os.path.join(HERE, "..", "helpers"))
import archinfo  # noqa: E402  (the manifests, through scripts/archinfo)


def fixture_arches():
    """target -> (compiler argv, strip, Debian packages, variant cflags)
    for every target with fixture_cc."""
    out = {}
    for t, r in archinfo.having("fixture_cc", "triplet", "debian",
                                "fixture_variant_cflags").items():
        cc = r["fixture_cc"].split()
        if not r["triplet"]:
            raise SystemExit("build_fixtures.py: %s has fixture_cc but no "
                             "triplet (for <triplet>-strip)" % t)
        native = cc[0] == "gcc"
        pkgs = "gcc" if native else "gcc-%s libc6-dev-%s-cross" % (
            r["triplet"], (r["debian"] or t).split()[0])
        out[t] = (cc, r["triplet"] + "-strip", pkgs,
                  (r["fixture_variant_cflags"] or "").split())
    return out


ARCHES = fixture_arches()

EXE_SRCS = ["fix_main.c", "fix_other.c", "fix_sema.c"]
EXE_VARIANTS = {
    "pie_O0": (["-O0"], True),
    "pie_O2": (["-O2"], True),
    "nopie_O1": (["-O1", "-fno-pie", "-no-pie"], False),
    "nopie_O2": (["-O2", "-fno-pie", "-no-pie", "-fno-section-anchors"], False),
    # globals exported in .dynsym: they still resolve once stripped
    "pie_O2_dyn": (["-O2", "-rdynamic"], True),
}
COMMON = ["-g0", "-Wall", "-Wno-unused-variable"]

SDT_CANDIDATES = [
    "/usr/include/x86_64-linux-gnu/sys",
    "/usr/include/sys",
]

passed = 0
failed = 0


def ok(msg=None):
    global passed
    passed += 1


def ko(msg):
    global failed
    failed += 1
    print("FAIL: " + msg, flush=True)


def sdt_include(out):
    """OUT/inc/sys/{sdt.h,sdt-config.h}: copies, nothing else."""
    for d in SDT_CANDIDATES:
        if os.path.isfile(os.path.join(d, "sdt.h")) and \
           os.path.isfile(os.path.join(d, "sdt-config.h")):
            inc = os.path.join(out, "inc")
            sysd = os.path.join(inc, "sys")
            os.makedirs(sysd, exist_ok=True)
            for h in ("sdt.h", "sdt-config.h"):
                shutil.copyfile(os.path.join(d, h), os.path.join(sysd, h))
            return inc
    return None


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if p.returncode != 0:
        return "%s: %s exited %d\n%s" % (what, " ".join(cmd), p.returncode,
                                          p.stdout)
    return None


def jobs_for(arch, out, inc):
    """List of (output file, [commands], manifest entry)."""
    cc, strip, _, vflags = ARCHES[arch]
    d = os.path.join(out, arch)
    os.makedirs(d, exist_ok=True)
    base = cc + ["-I", inc, "-I", SRC] + COMMON
    srcs = [os.path.join(SRC, s) for s in EXE_SRCS]
    if arch == "x86_64":
        srcs = srcs + [os.path.join(SRC, "fix_nop5_x86_64.c")]
        base = base + ["-DFIX_NOP5"]
    jobs = []
    variants = dict(EXE_VARIANTS)
    # Debian's armhf compiler emits Thumb-2, where no kernel places uprobes
    # (the sites are reported as such); fixture_variant_cflags (-marm)
    # builds ARM state too, for attachable sites.
    if vflags:
        v = vflags[0].lstrip("-")
        v = v[1:] if v.startswith("m") else v
        for name in ("pie_O2", "nopie_O2"):
            flags, pie = EXE_VARIANTS[name]
            variants["%s_%s" % (name, v)] = (flags + vflags, pie)
    for var, (flags, pie) in variants.items():
        f = os.path.join(d, "fix_" + var)
        cmds = [base + flags + ["-o", f] + srcs,
                [strip, "-o", f + ".stripped", f]]
        jobs.append((f, cmds, [
            {"path": f, "arch": arch, "variant": var, "kind": "exe",
             "pie": pie, "stripped": False},
            {"path": f + ".stripped", "arch": arch, "variant": var,
             "kind": "exe", "pie": pie, "stripped": True}]))
    lib = os.path.join(d, "libfix.so")
    cmds = [base + ["-O2", "-fPIC", "-shared", "-o", lib,
                    os.path.join(SRC, "fix_lib.c")],
            [strip, "-o", lib + ".stripped", lib]]
    if arch == "x86_64":
        live = os.path.join(d, "fix_live")
        cmds.append(base + ["-O2", "-o", live, os.path.join(SRC, "fix_live.c"),
                            "-L" + d, "-lfix", "-Wl,-rpath,$ORIGIN"])
        # text at file offset 0 (one R E segment from the ELF header on)
        live_nsc = os.path.join(d, "fix_live_nsc")
        cmds.append(base + ["-O2", "-o", live_nsc,
                            os.path.join(SRC, "fix_live.c"), "-L" + d, "-lfix",
                            "-Wl,-rpath,$ORIGIN", "-Wl,-z,noseparate-code"])
        noprobe = os.path.join(d, "fix_noprobe")
        cmds.append(cc + ["-O2", "-static", "-nostdlib", "-fno-stack-protector",
                     "-fno-pie", "-no-pie", "-o", noprobe,
                     os.path.join(SRC, "fix_noprobe_x86_64.c")])
    entries = [
        {"path": lib, "arch": arch, "variant": "lib", "kind": "lib",
         "pie": True, "stripped": False},
        {"path": lib + ".stripped", "arch": arch, "variant": "lib",
         "kind": "lib", "pie": True, "stripped": True}]
    if arch == "x86_64":
        entries.append({"path": live, "arch": arch, "variant": "live",
                        "kind": "exe", "pie": True, "stripped": False})
        entries.append({"path": live_nsc, "arch": arch, "variant": "live_nsc",
                        "kind": "exe", "pie": True, "stripped": False})
        entries.append({"path": noprobe, "arch": arch, "variant": "noprobe",
                        "kind": "exe", "pie": False, "stripped": False,
                        "no_probes": True})
    jobs.append((lib, cmds, entries))
    return jobs


def do_job(job):
    out, cmds, _ = job
    for c in cmds:
        err = run(c, out)
        if err:
            return err
    return None


def main():
    if not ARCHES:
        ko("no target has fixture_cc in its manifest (scripts/archinfo)")
        print("%d passed, %d failed" % (passed, failed))
        return 1
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    out = os.path.abspath(sys.argv[1])
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    inc = sdt_include(out)
    if not inc:
        ko("sys/sdt.h not found in %s: install systemtap-sdt-dev"
           % " or ".join(SDT_CANDIDATES))
        print("%d passed, %d failed" % (passed, failed))
        return 1
    ok()
    jobs = []
    for arch, (cc, strip, pkgs, _) in ARCHES.items():
        missing = [t for t in (cc[0], strip) if not shutil.which(t)]
        if missing:
            ko("%s: %s not installed (Debian: apt-get install %s; see "
               "scripts/setup.sh)" % (arch, " and ".join(missing),
                                      pkgs))
            continue
        ok()
        jobs += jobs_for(arch, out, inc)
    manifest = []
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        for job, err in zip(jobs, ex.map(do_job, jobs)):
            if err:
                ko(err)
            else:
                ok()
                manifest += job[2]
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"arches": sorted(ARCHES), "files": manifest}, f, indent=1)
    print("built %d files in %s" % (len(manifest), out))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
