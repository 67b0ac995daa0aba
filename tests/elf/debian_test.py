#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
`usdtkit list` against `readelf -n --wide` on the shared libraries of real
Debian 12 packages, one Debian architecture per run.

usage: debian_test.py --usdtkit PATH [--corrupt] DEBIAN_ARCH

The packages come from debian_fetch.sh (the private apt state of
scripts/cross-apt.sh, cached under $USDTKIT_CACHE/debian/ARCH). For every
file below, note by note in order: provider, name, pc, base, semaphore and
the args text as readelf prints them; as many sites as notes; each
argument's text; every argument with status "ok" unless ALLOWED names its
status with a reason; no site error but the Thumb one on 32-bit arm, and
that one exactly where the code is Thumb. A package that cannot be
fetched, or a file that is missing or carries no note where one is
expected, is a failure, never a skip.

--corrupt changes one value readelf gave (the first pc) before comparing,
to show that the comparison can fail.

Prints "FAIL: FILE PROVIDER:NAME INDEX: FIELD readelf=X usdtkit=Y" lines
and ends with "N passed, M failed"; exits 1 on any failure.
"""
import argparse
import fnmatch
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import elf_test  # noqa: E402  (readelf parsing and the checker, one copy)
import archinfo  # noqa: E402  (elf_test put tests/helpers on the path)

C = elf_test.C
HERE = os.path.dirname(os.path.abspath(__file__))

# package -> globs (relative to the unpacked package) of the files to
# compare, and whether their notes must be there. Debian 12's glibc is
# built without systemtap: libc.so.6 and the dynamic loader carry no
# .note.stapsdt on any architecture, so for them the check is that usdtkit
# finds no site either.
PACKAGES = [
    ("libc6", ["lib/*/libc.so.6", "lib/*/ld*.so.*", "lib*/ld*.so.*"], False),
    ("libstdc++6", ["usr/lib/*/libstdc++.so.6.*"], True),
    ("libpython3.11", ["usr/lib/*/libpython3.11.so.1.0"], True),
    ("libruby3.1", ["usr/lib/*/libruby-3.1.so.*"], True),
]


def usdtkit_arch(debian):
    """The target whose manifest "debian" key lists @debian, or None."""
    for t, r in archinfo.targets("debian").items():
        if debian in (r["debian"] or "").split():
            return t
    return None


# Arguments that may parse with a status other than "ok":
# (Debian arch glob, file basename glob, status, arg text glob) -> reason.
# None is needed on the five architectures of today: every argument of
# every site in these packages parses. An entry that no argument uses is
# reported, so that the list does not outlive its reason. An entry reads
#   ("ppc64el", "libruby-*", "unsupported", "8@*(*)"): "reason",
ALLOWED = {
}

# The one site error expected: Debian's armhf is built for Thumb-2, and
# no kernel places a uprobe on Thumb code.
THUMB_ERROR = "Thumb code"


def fail(path, site, k, field, want, got):
    C.check(False, "%s %s:%s %d: %s readelf=%s usdtkit=%s" %
            (path, site.get("provider"), site.get("name"), k, field,
             want, got))


def same(path, note, k, field, want, got):
    if want == got:
        C.check(True, "")
    else:
        fail(path, note, k, field, want, got)


def allowed(arch, path, arg):
    for (a, f, status, text), why in ALLOWED.items():
        if (fnmatch.fnmatchcase(arch, a) and
                fnmatch.fnmatchcase(os.path.basename(path), f) and
                arg["status"] == status and
                fnmatch.fnmatchcase(arg["text"], text)):
            return (a, f, status, text)
    return None


def compare_file(arch, path, corrupt, used):
    notes = elf_test.readelf_notes(path)
    if corrupt and notes:
        notes[0]["pc"] += 1
    sites, _ = elf_test.usdtkit_list(path, rc=0)
    loads = elf_test.readelf_loads(path) if notes else []
    with open(path, "rb") as f:
        image = f.read()
    em_arm = image[18:20] == b"\x28\x00"	# e_machine EM_ARM, little-endian
    if len(sites) != len(notes):
        C.check(False, "%s: number of sites readelf=%d usdtkit=%d" %
                (path, len(notes), len(sites)))
    else:
        C.check(True, "")
    for k, (n, s) in enumerate(zip(notes, sites)):
        for field in ("provider", "name", "pc", "base", "semaphore"):
            want, got = n[field], s.get(field)
            if field in ("pc", "base", "semaphore"):
                want = "%#x" % want
                got = "%#x" % got if isinstance(got, int) else got
            same(path, n, k, field, want, got)
        same(path, n, k, "args", repr(n["args_text"]),
             repr(s.get("args_text")))
        texts = elf_test.split_args(n["args_text"])
        args = s.get("args", [])
        same(path, n, k, "number of args", len(texts), len(args))
        for i, (t, a) in enumerate(zip(texts, args)):
            same(path, n, k, "arg %d text" % i, repr(t), repr(a.get("text")))
            if a.get("status") == "ok":
                C.check(True, "")
                continue
            key = allowed(arch, path, a)
            if key:
                used.add(key)
                C.check(True, "")
            else:
                fail(path, n, k, "arg %d %r status" % (i, t), "(ok)",
                     "%s (%s)" % (a.get("status"), a.get("error")))
        # the site's own error: only Thumb code on 32-bit arm, and there
        # exactly where the bytes at pc are Thumb
        off = elf_test.expected_offset(loads, n["pc"], True)
        thumb = (em_arm and off is not None and
                 elf_test.arm_thumb(image, n["pc"], off))
        err = s.get("error")
        if thumb:
            if err and THUMB_ERROR in err:
                C.check(True, "")
                used.add("thumb")
            else:
                fail(path, n, k, "error", "(Thumb code)", err)
        else:
            same(path, n, k, "error", None, err)
        same(path, n, k, "pc_offset", off if off is None else "%#x" % off,
             "%#x" % s["pc_offset"] if "pc_offset" in s else None)
    return len(notes), len(sites), sites


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--usdtkit", required=True)
    ap.add_argument("--corrupt", action="store_true")
    ap.add_argument("arch")
    o = ap.parse_args()
    elf_test.USDTKIT = os.path.abspath(o.usdtkit)
    arch = o.arch

    r = subprocess.run(["sh", os.path.join(HERE, "debian_fetch.sh"), arch] +
                       [p for p, _, _ in PACKAGES],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0 or not r.stdout.strip():
        C.check(False, "%s: fetching %s failed (exit %d):\n%s" %
                (arch, " ".join(p for p, _, _ in PACKAGES), r.returncode,
                 r.stderr))
        return C.summary()
    root = r.stdout.strip().splitlines()[-1]
    with open(os.path.join(os.path.dirname(root), "debs.txt")) as f:
        print("%s: %s" % (arch, " ".join(f.read().split())))

    used = set()
    first = True
    machines = set()
    for pkg, globs, must_have_notes in PACKAGES:
        files = []
        for g in globs:
            for p in sorted(glob.glob(os.path.join(root, g))):
                if (os.path.isfile(p) and not os.path.islink(p) and
                        p not in files):
                    files.append(p)
        if not files:
            C.check(False, "%s: %s: no file matches %s" %
                    (arch, pkg, " ".join(globs)))
            continue
        C.check(True, "")
        for p in files:
            n, ns, sites = compare_file(arch, p, o.corrupt and first, used)
            if n:
                first = False
            machines.update(s.get("arch") for s in sites)
            if must_have_notes:
                C.check(n > 0, "%s: %s: no .note.stapsdt note" % (arch, p))
            print("%s: %s %s: %d notes, %d sites" %
                  (arch, pkg, os.path.relpath(p, root), n, ns))
    if "thumb" in used:
        print("%s: Thumb sites seen, each with its error" % arch)
        used.discard("thumb")
    want = usdtkit_arch(arch)
    C.check(want is not None, "%s: no target's manifest has it in its debian "
            "key (usdtkit calls it %s)" % (arch, ", ".join(sorted(machines))
                                           or "-"))
    if want is not None:
        C.check(machines == {want}, "%s: arch readelf=%s usdtkit=%s" %
                (arch, want, ",".join(sorted(machines))))
    for key in ALLOWED:
        if fnmatch.fnmatchcase(arch, key[0]) and key not in used:
            C.check(False, "%s: allow-list entry %r matched no argument" %
                    (arch, key))
    return C.summary()


if __name__ == "__main__":
    sys.exit(main())
