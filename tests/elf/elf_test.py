#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
`usdtkit list` against binutils, on the fixtures that build_fixtures.py
made for every target whose manifest has fixture_cc (scripts/archinfo).

usage: elf_test.py --usdtkit PATH --dir FIXTURE_DIR TEST

TEST is one of:
  notes-ARCH  every fixture of ARCH (a target with fixture_cc),
              stripped or not: each site agrees with `readelf -n --wide`
              (same sites, same order, provider name pc base semaphore args),
              pc_offset / semaphore_offset agree with the PT_LOADs of
              `readelf -lW`, arch name, argument count / size / sign from
              the args text, no invalid argument, symbol-relative arguments
              resolved (checked against `readelf -sW`: pc + pc_rel == S,
              :lo12: / %lo() / @GOTOFF displacements), ambiguous or
              unresolved exactly when the symbol tables say so, nop5_offset
              exactly where the file holds 90 0f 1f 44 00 00
  nop5        the x86-64 "nop; nop5" sites in every x86-64 executable
  prelink     copies whose .stapsdt.base section was moved: pc and
              semaphore shift by the delta, readelf keeps the raw values
  live        `usdtkit list -p PID` on a running PIE + shared library:
              abs_pc from /proc/PID/maps (and the bytes there), the same
              with both files deleted, with a prelinked executable mapped
              from offset 0, a dead PID, a process without probes
  cli         `usdtkit list` behaviours: no probes, missing file,
              directory, not ELF, glob filters, text output

Each test prints "FAIL: ..." lines and ends with "N passed, M failed";
the exit status is 1 when anything failed.
"""
import argparse
import fnmatch
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "helpers"))
import archinfo  # noqa: E402  (the manifests, through scripts/archinfo)

# the targets with fixtures, and the pointer width of every target
FIXTURE_ARCHES = list(archinfo.having("fixture_cc"))
ARCH_BITS = {t: int(r["elf_class"])
             for t, r in archinfo.targets("elf_class").items()}
NOP_NOP5 = bytes([0x90, 0x0F, 0x1F, 0x44, 0x00, 0x00])


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: " + what, flush=True)
        return cond

    def eq(self, got, want, what):
        return self.check(got == want, "%s: got %r, want %r" % (what, got, want))

    def summary(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed or not self.passed else 0


C = Checker()
USDTKIT = None


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


def asan_clean(p, what):
    C.check("Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
            "%s: sanitizer report:\n%s" % (what, p.stderr))


def usdtkit_list(*args, rc=0):
    """Run `usdtkit list --json ARGS`, check its exit status, parse lines."""
    p = run([USDTKIT, "list", "--json"] + list(args))
    what = "usdtkit list --json " + " ".join(args)
    asan_clean(p, what)
    C.check(p.returncode == rc, "%s: exit %d, want %d\n%s" %
            (what, p.returncode, rc, p.stderr))
    sites = []
    for line in p.stdout.splitlines():
        try:
            sites.append(json.loads(line))
        except ValueError as e:
            C.check(False, "%s: bad JSON line %r: %s" % (what, line, e))
    return sites, p


# ------------------------------------------------------------------
# binutils, parsed independently of usdtkit
# ------------------------------------------------------------------

NOTE_RE = re.compile(
    r"Provider: (.*)\n\s*Name: (.*)\n\s*Location: (0x[0-9a-fA-F]+), "
    r"Base: (0x[0-9a-fA-F]+), Semaphore: (0x[0-9a-fA-F]+)\n"
    r"\s*Arguments: ?(.*)\n")


def readelf_notes(path):
    out = run(["readelf", "-n", "--wide", path]).stdout
    notes = []
    for m in NOTE_RE.finditer(out):
        notes.append({"provider": m.group(1), "name": m.group(2),
                      "pc": int(m.group(3), 16), "base": int(m.group(4), 16),
                      "semaphore": int(m.group(5), 16),
                      "args_text": m.group(6)})
    C.check(out.count("NT_STAPSDT") == len(notes),
            "%s: parsed %d of %d readelf stapsdt notes" %
            (path, len(notes), out.count("NT_STAPSDT")))
    return notes


LOAD_RE = re.compile(
    r"^\s*LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+"
    r"(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+([RWE ]+?)\s+(0x[0-9a-f]+)\s*$")


def readelf_loads(path):
    loads = []
    for line in run(["readelf", "-lW", path]).stdout.splitlines():
        m = LOAD_RE.match(line)
        if m:
            loads.append({"offset": int(m.group(1), 16),
                          "vaddr": int(m.group(2), 16),
                          "filesz": int(m.group(4), 16),
                          "memsz": int(m.group(5), 16),
                          "flags": m.group(6)})
    C.check(loads, "%s: no PT_LOAD in readelf -lW" % path)
    return loads


SYM_RE = re.compile(
    r"^\s*\d+:\s+([0-9a-f]+)\s+\S+\s+(\S+)\s+(\S+)\s+(\S+)"
    r"(?:\s+\[[^\]]*\])?\s+(\S+)(?:\s+(\S.*))?$")


def readelf_syms(path):
    """{'.symtab': {name: set(values)}, '.dynsym': {...}} of defined symbols
    (not sections or files), as usdtkit may use them."""
    tabs = {".symtab": {}, ".dynsym": {}}
    cur = None
    for line in run(["readelf", "-sW", path]).stdout.splitlines():
        m = re.match(r"Symbol table '([^']+)'", line)
        if m:
            cur = tabs.setdefault(m.group(1), {})
            continue
        m = SYM_RE.match(line)
        if not m or cur is None:
            continue
        value, typ, _bind, _vis, ndx, name = m.groups()
        if not name or ndx == "UND" or typ in ("SECTION", "FILE"):
            continue
        name = name.split("@")[0].strip()
        cur.setdefault(name, set()).add(int(value, 16))
    return tabs


def readelf_section_addr(path, name):
    for line in run(["readelf", "-SW", path]).stdout.splitlines():
        m = re.match(r"^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s", line)
        if m and m.group(1) == name:
            return int(m.group(2), 16)
    return None


def arm_thumb(image, pc, pc_off):
    """A 32-bit arm site in Thumb state: not 4-aligned, or sys/sdt.h's
    "nop" in its 16-bit Thumb encoding (0xbf00, stored little-endian)."""
    return bool(pc & 3) or image[pc_off:pc_off + 2] == b"\x00\xbf"


def expected_offset(loads, addr, want_exec):
    """File offset of @addr in the PT_LOAD containing it, or None when it
    is not in a segment of the wanted kind."""
    for s in loads:
        if s["vaddr"] <= addr < s["vaddr"] + s["memsz"]:
            if want_exec != ("E" in s["flags"]):
                return None
            if want_exec and addr - s["vaddr"] >= s["filesz"]:
                return None
            return addr - s["vaddr"] + s["offset"]
    return None


# ------------------------------------------------------------------
# argument text, decoded independently of usdtkit
# ------------------------------------------------------------------

def split_args(text):
    """Split an args string on blanks outside brackets/parens."""
    args, cur, depth = [], "", 0
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == " " and depth == 0:
            if cur:
                args.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        args.append(cur)
    return args


IDENT = r"[A-Za-z_.][A-Za-z0-9_.$]*"


def x86_symbol(op):
    """(symbol, addend, reloc, deref) of an x86 operand, or None."""
    deref = True
    if op.startswith("%"):
        return None
    if op.startswith("$"):
        op, deref = op[1:], False
    paren = op.find("(")
    disp, regs = (op, "") if paren < 0 else (op[:paren], op[paren:])
    terms = re.findall(r"([+-]?)([^+-]+)", disp)
    sym, addend, reloc = None, 0, "none"
    for sign, t in terms:
        if re.fullmatch(r"\d+|0x[0-9a-fA-F]+", t):
            addend += int(t, 0) * (-1 if sign == "-" else 1)
            continue
        m = re.fullmatch("(%s)(@GOTOFF)?" % IDENT, t)
        if not m:
            return ("?", 0, "bad", deref)
        sym = m.group(1)
        if m.group(2):
            reloc = "gotoff"
    if sym is None:
        return None
    if "%rip" in regs or "%eip" in regs:
        reloc = "pcrel"
    return (sym, addend, reloc, deref)


# How each ISA spells a symbol-relative operand (test knowledge, by target):
# arg_symbol() knows these; a fixture target it does not know fails.
SYMBOL_FORMS = ("x86_64", "i386", "aarch64", "arm", "riscv64", "s390x",
                "mips64el", "mips64", "ppc64le", "ppc64")


def arg_symbol(arch, op):
    if arch not in SYMBOL_FORMS:
        raise KeyError("%s: no symbol operand forms in elf_test.py "
                       "(SYMBOL_FORMS, arg_symbol)" % arch)
    if arch in ("x86_64", "i386"):
        return x86_symbol(op)
    if arch == "aarch64":
        m = re.search(r":lo12:(%s)([+-]\d+)?" % IDENT, op)
        if m:
            return (m.group(1), int(m.group(2) or 0), "lo12", True)
    elif arch == "arm":
        m = re.fullmatch(r"#(%s)([+-]\d+)?" % IDENT, op)
        if m:
            return (m.group(1), int(m.group(2) or 0), "none", False)
    elif arch == "riscv64":
        m = re.search(r"%%lo\((%s)([+-]\d+)?\)" % IDENT, op)
        if m:
            return (m.group(1), int(m.group(2) or 0), "riscv_lo", True)
    elif arch in ("mips64el", "mips64"):
        m = re.fullmatch(r"%%got_ofst\((%s)([+-]\d+)?\)\(\$\w+\)" % IDENT, op)
        if m:
            return (m.group(1), int(m.group(2) or 0), "got_ofst", True)
    return None


def ppc_plain(op):
    """(kind, value or register name) of a powerpc operand: sys/sdt.h's
    %I prints "i" before a constant, GCC prints registers by number and
    an indexed address as "RA,RB" """
    m = re.fullmatch(r"i(-?\d+)", op)
    if m:
        return "const", int(m.group(1))
    m = re.fullmatch(r"%?r?(\d+)", op)
    if m:
        return "reg", "r" + m.group(1)
    if "(" in op or "," in op:
        return "mem", None
    return "?", None


def plain_kind(op, arch=None):
    """const / reg / mem of an operand without a symbol"""
    if arch in ("ppc64le", "ppc64"):
        return ppc_plain(op)[0]
    if arch in ("mips64el", "mips64"):
        # "$N" is a register there, except the hard-wired zero
        if re.fullmatch(r"-?\d+|\$0|\$zero", op):
            return "const"
        if re.fullmatch(r"\$[a-z0-9]+", op):
            return "reg"
    if re.fullmatch(r"[$#]?-?\d+", op):
        return "const"
    if re.fullmatch(r"%?[a-z][a-z0-9]*", op):
        return "reg"
    if "(" in op or "[" in op:
        return "mem"
    return "?"


def typed_value(v, size, signed):
    """A constant as the probe delivers it (docs/JSON.md "value"): cut to
    @size bytes, extended by its sign: "8@$-1" is 2**64 - 1."""
    bits = 8 * size if 0 < size < 8 else 64
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def sext16(v):
    v &= 0xFFFF
    return v - 0x10000 if v >= 0x8000 else v


def sext12(v):
    v &= 0xFFF
    return v - 0x1000 if v >= 0x800 else v


def expected_status(syms, name):
    """What usdtkit must say of a symbol operand, from readelf alone."""
    vals = syms[".symtab"].get(name)
    if vals is None:
        vals = syms[".dynsym"].get(name)
    if vals is None:
        return "unresolved", None
    if len(vals) > 1:
        return "ambiguous", None
    return "ok", next(iter(vals))


class Stats:
    def __init__(self):
        self.counts = {}

    def add(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1

    def get(self, key):
        return self.counts.get(key, 0)


def check_args(where, arch, site, syms, got_addr, stats, stripped):
    bits = ARCH_BITS[arch]
    mask = (1 << bits) - 1
    texts = split_args(site["args_text"])
    args = site["args"]
    if not C.eq(len(args), len(texts), where + ": number of args"):
        return
    for i, (a, t) in enumerate(zip(args, texts)):
        w = "%s: arg %d %r" % (where, i, t)
        C.eq(a["text"], t, w + ": text")
        m = re.match(r"^(-?)(\d+)(f?)@(.*)$", t)
        if not C.check(m, w + ": no SIZE@ prefix"):
            continue
        C.eq(a["size"], int(m.group(2)), w + ": size")
        C.eq(a["signed"], m.group(1) == "-", w + ": signed")
        C.check(a["status"] not in ("invalid", "bad_size", "unreadable",
                                    "unsupported"),
                w + ": status %s (%s)" % (a["status"], a.get("error")))
        sym = arg_symbol(arch, m.group(4))
        if sym is None:
            C.eq(a["status"], "ok", w + ": status")
            C.eq(a["kind"], plain_kind(m.group(4), arch), w + ": kind")
            op = m.group(4)
            ppc = ppc_plain(op)[1] if arch in ("ppc64le", "ppc64") else None
            if a["kind"] == "const":
                lit = ppc if ppc is not None else int(op.lstrip("$#"))
                C.eq(a.get("value"), typed_value(lit, a["size"],
                                                 a["signed"] and not a["float"]),
                     w + ": value")
                stats.add("const")
            elif a["kind"] == "reg":
                C.eq(a.get("reg", {}).get("name"), ppc or op.lstrip("%"),
                     w + ": register")
            stats.add("plain")
            continue
        name, addend, reloc, deref = sym
        C.eq(a.get("symbol"), name, w + ": symbol")
        want, value = expected_status(syms, name)
        C.eq(a["status"], want, w + ": status of symbol " + name)
        stats.add(want)
        if want != "ok" or a["status"] != "ok":
            C.eq(a["kind"], "symbol", w + ": kind of a symbol not resolved")
            if want == "ambiguous":
                stats.add("ambiguous:" + name)
            continue
        S = (value + addend) & mask
        stats.add("ok:" + reloc)
        if stripped:
            stats.add("stripped_ok:" + reloc)
        C.eq(a["kind"], "mem" if deref else "const", w + ": kind")
        if reloc in ("none", "pcrel"):
            if C.check("pc_rel" in a, w + ": resolved, no pc_rel"):
                C.eq((site["pc"] + a["pc_rel"]) & mask, S,
                     w + ": pc + pc_rel == %s+%d" % (name, addend))
        elif reloc == "gotoff":
            C.check(a.get("base"), w + ": GOTOFF without base")
            C.eq(a.get("disp"), S - got_addr, w + ": disp == S - GOT")
        elif reloc == "lo12":
            C.check(a.get("base"), w + ": :lo12: without base")
            C.eq(a.get("disp"), S & 0xFFF, w + ": disp == S & 0xfff")
        elif reloc == "riscv_lo":
            C.check(a.get("base"), w + ": %lo() without base")
            C.eq(a.get("disp"), sext12(S), w + ": disp == sext(S & 0xfff)")
        elif reloc == "got_ofst":
            # the base holds the GOT page entry (S + 0x8000) & ~0xffff
            C.check(a.get("base"), w + ": %got_ofst() without base")
            C.eq(a.get("disp"), sext16(S), w + ": disp == sext(S & 0xffff)")
        else:
            C.check(False, w + ": unexpected operand form")


def check_file(ent, stats, delta=0, path=None, only=None):
    """Compare `usdtkit list --json` of one file with binutils. With
    @delta (prelink), usdtkit's pc and semaphore are readelf's + delta."""
    path = path or ent["path"]
    arch = ent["arch"]
    mask = (1 << ARCH_BITS[arch]) - 1
    sites, _ = usdtkit_list(path)
    notes = readelf_notes(path)
    loads = readelf_loads(path)
    syms = readelf_syms(path)
    # the GOT of a stripped file is the one its unstripped original names
    unstripped = path[:-len(".stripped")] if ent["stripped"] else path
    got = readelf_syms(unstripped)[".symtab"].get("_GLOBAL_OFFSET_TABLE_")
    got = next(iter(got)) if got else None
    image = open(path, "rb").read()
    base = os.path.basename(path)
    if not C.eq(len(sites), len(notes), base + ": number of sites"):
        return sites
    C.check(len(notes) >= (30 if is_main(ent) else 3),
            base + ": only %d probes" % len(notes))
    for k, (s, n) in enumerate(zip(sites, notes)):
        w = "%s: site %d %s:%s" % (base, k, n["provider"], n["name"])
        C.eq(s["file"], path, w + ": file")
        C.eq(s["arch"], arch, w + ": arch")
        for key in ("provider", "name", "base", "args_text"):
            C.eq(s[key], n[key], w + ": " + key)
        pc = (n["pc"] + delta) & mask
        C.eq(s["pc"], pc, w + ": pc")
        sem = (n["semaphore"] + delta) & mask if n["semaphore"] else 0
        C.eq(s["semaphore"], sem, w + ": semaphore")
        # placement, from the program headers
        pc_off = expected_offset(loads, pc, True)
        sem_off = expected_offset(loads, sem, False) if sem else 0
        if pc_off is None or sem_off is None:
            C.check("error" in s, w + ": misplaced site has no error")
            stats.add("misplaced")
        elif arch == "arm" and arm_thumb(image, pc, pc_off):
            # no kernel places a uprobe on Thumb code: the site says so
            C.check("Thumb" in s.get("error", ""), w + ": Thumb site, error %r"
                    % s.get("error"))
            # a prelink copy (delta) moves the notes, not the code
            C.check(delta or "_arm" not in ent["variant"],
                    w + ": -marm built, Thumb seen")
            stats.add("thumb")
        else:
            C.check("error" not in s, w + ": unexpected error %r" % s.get("error"))
            C.check(delta or arch != "arm" or "_arm" in ent["variant"],
                    w + ": Thumb-2 build, ARM-state site seen")
            stats.add("placed")
            if sem:
                stats.add("placed_sema")
        C.eq(s["pc_offset"], pc_off or 0, w + ": pc_offset")
        if pc_off is not None:
            C.eq(s["semaphore_offset"], sem_off or 0, w + ": semaphore_offset")
        # nop5 only where the file holds "nop; nop5"
        nop5 = (pc_off is not None and arch == "x86_64" and
                image[pc_off:pc_off + 6] == NOP_NOP5)
        if nop5:
            C.eq(s.get("nop5_offset"), pc_off + 1, w + ": nop5_offset")
            stats.add("nop5")
        else:
            C.check("nop5_offset" not in s, w + ": nop5_offset %r where the "
                    "bytes are not 90 0f 1f 44 00 00" % s.get("nop5_offset"))
        check_args(w, arch, s, syms, got, stats, ent["stripped"])
    return sites


# ------------------------------------------------------------------
# tests
# ------------------------------------------------------------------

def manifest(d):
    with open(os.path.join(d, "manifest.json")) as f:
        return json.load(f)


def is_main(ent):
    """fix_main.c + fix_other.c + fix_sema.c, in one of four builds"""
    return ent["variant"].startswith(("pie_", "nopie_"))


def probe_files(m, arch=None):
    return [e for e in m["files"]
            if not e.get("no_probes") and (arch is None or e["arch"] == arch)]


# Non-vacuity: what the fixtures of each arch must exercise (the compilers'
# output was inspected to set these; if a compiler changes its mind, the
# test says which case it no longer covers).
REQUIRED = {
    "x86_64": ["ok:pcrel", "ok:none", "ambiguous:dup_static", "unresolved",
               "stripped_ok:pcrel", "nop5", "placed_sema"],
    "i386": ["ok:none", "ok:gotoff", "ambiguous:dup_static", "unresolved",
             "stripped_ok:gotoff", "placed_sema"],
    "aarch64": ["ok:lo12", "ambiguous:dup_static", "unresolved",
                "placed_sema"],
    "arm": ["ok:none", "unresolved", "placed_sema"],
    "riscv64": ["ok:riscv_lo", "ambiguous:dup_static", "unresolved",
                "placed_sema"],
    "s390x": ["placed_sema"],
    "mips64el": ["ok:got_ofst", "unresolved", "placed_sema"],
    "mips64": ["ok:got_ofst", "unresolved", "placed_sema"],
    "ppc64le": ["placed_sema"],
    "ppc64": ["placed_sema"],
}


def test_notes(d, arch):
    # a fixture target without expectations fails, never passes vacuously
    for what, known in (("REQUIRED", REQUIRED), ("SYMBOL_FORMS", SYMBOL_FORMS)):
        if not C.check(arch in known, "%s: has fixtures (manifest fixture_cc) "
                       "but no %s in tests/elf/elf_test.py" % (arch, what)):
            return
    m = manifest(d)
    files = probe_files(m, arch)
    C.check(len(files) >= 10, "%s: only %d fixture files" % (arch, len(files)))
    stats = Stats()
    by_path = {}
    for ent in files:
        st = Stats()
        by_path[ent["path"]] = (ent, check_file(ent, st))
        for k, v in st.counts.items():
            stats.counts[k] = stats.counts.get(k, 0) + v
        if is_main(ent):
            check_consts(ent["path"], by_path[ent["path"]][1])
        # the duplicate statics really are two symbols, and strip drops them
        if is_main(ent):
            syms = readelf_syms(ent["path"])
            n = len(syms[".symtab"].get("dup_static", ()))
            C.eq(n, 0 if ent["stripped"] else 2,
                 os.path.basename(ent["path"]) + ": dup_static symbols")
        # the same number of sites with or without symbols; the symbol
        # operands that were ambiguous become unresolved when stripped
        if ent["stripped"]:
            orig = by_path.get(ent["path"][:-len(".stripped")])
            if C.check(orig, ent["path"] + ": unstripped file not checked"):
                check_stripped(orig[1], by_path[ent["path"]][1], ent["path"])
    # semaphores point at the provider_name_semaphore variables
    for ent in files:
        if not is_main(ent) or ent["stripped"]:
            continue
        syms = readelf_syms(ent["path"])[".symtab"]
        sites, _ = usdtkit_list(ent["path"], "-P", "fixsema:*")
        C.eq(len(sites), 3, ent["path"] + ": fixsema sites")
        for s in sites:
            want = syms.get("fixsema_%s_semaphore" % s["name"])
            C.eq({s["semaphore"]}, want, "%s: %s semaphore address" %
                 (ent["path"], s["name"]))
            C.check(s["semaphore_offset"] > 0, "%s: %s semaphore_offset" %
                    (ent["path"], s["name"]))
    for key in REQUIRED[arch]:
        C.check(stats.get(key) > 0, "%s: no fixture exercises %s" % (arch, key))
    print("%s: %s" % (arch, ", ".join("%s=%d" % kv
                                      for kv in sorted(stats.counts.items()))))


NEG_CONST = [(1, -1), (2, -2), (4, -3), (8, -4), (1, -128), (2, -32768),
             (4, -2 ** 31), (8, -2 ** 63)]
POS_CONST = [(1, 255), (2, 65535), (4, 2 ** 32 - 1), (8, 2 ** 64 - 1)]


def check_consts(path, sites):
    """Negative constants of every width, and the widest unsigned ones,
    exactly: an unsigned one is never printed negative."""
    got = {s["name"]: s for s in sites if s["provider"] == "fix"}
    for name, want, signed in (("neg_const", NEG_CONST, True),
                               ("pos_const", POS_CONST, False)):
        s = got.get(name)
        if not C.check(s, "%s: no fix:%s" % (path, name)):
            continue
        args = s["args"]
        C.eq([(a["size"], a["signed"], a["kind"]) for a in args],
             [(sz, signed, "const") for sz, _ in want],
             "%s: fix:%s sizes and signs" % (path, name))
        C.eq([a.get("value") for a in args], [v for _, v in want],
             "%s: fix:%s values" % (path, name))


def check_stripped(orig_sites, strip_sites, path):
    if not C.eq(len(strip_sites), len(orig_sites), path + ": sites after strip"):
        return
    for a, b in zip(orig_sites, strip_sites):
        for key in ("provider", "name", "pc", "pc_offset", "semaphore",
                    "semaphore_offset", "args_text"):
            C.eq(b[key], a[key], "%s: %s:%s %s after strip" %
                 (path, a["provider"], a["name"], key))
        for x, y in zip(a["args"], b["args"]):
            if x["status"] == "ambiguous":
                C.eq(y["status"], "unresolved", "%s: %s:%s %s after strip" %
                     (path, a["provider"], a["name"], x["text"]))


def test_nop5(d):
    m = manifest(d)
    exes = [e for e in probe_files(m, "x86_64") if is_main(e)]
    C.check(len(exes) >= 8, "x86_64: only %d executables" % len(exes))
    for e in exes:
        sites, _ = usdtkit_list(e["path"], "-P", "fixnop5:*")
        image = open(e["path"], "rb").read()
        got = {s["name"]: s for s in sites}
        C.eq(sorted(got), ["args", "bare", "plain"], e["path"] + ": fixnop5 sites")
        for name in ("bare", "args"):
            s = got.get(name)
            if not s:
                continue
            off = s["pc_offset"]
            C.eq(image[off:off + 6], NOP_NOP5, "%s: %s: bytes at pc_offset" %
                 (e["path"], name))
            C.eq(s.get("nop5_offset"), off + 1, "%s: %s: nop5_offset" %
                 (e["path"], name))
        s = got.get("plain")
        if s:
            C.check(image[s["pc_offset"]] == 0x90, e["path"] + ": plain: nop")
            C.check("nop5_offset" not in s, e["path"] + ": plain has nop5_offset")
    # no other architecture ever reports one
    for e in probe_files(m):
        if e["arch"] != "x86_64":
            sites, _ = usdtkit_list(e["path"])
            C.check(not any("nop5_offset" in s for s in sites),
                    e["path"] + ": nop5_offset on " + e["arch"])


def patch_base_section(path, delta):
    """Move .stapsdt.base's sh_addr by @delta in place; returns the old
    address. Handles both classes and byte orders."""
    with open(path, "r+b") as f:
        img = bytearray(f.read())
        is64 = img[4] == 2
        e = "<" if img[5] == 1 else ">"
        if is64:
            shoff, = struct.unpack_from(e + "Q", img, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", img, 0x3A)
            addr_off, addr_fmt, off_off = 16, "Q", 24
        else:
            shoff, = struct.unpack_from(e + "I", img, 0x20)
            shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", img, 0x2E)
            addr_off, addr_fmt, off_off = 12, "I", 16
        strtab = shoff + shstrndx * shentsize
        stroff, = struct.unpack_from(e + addr_fmt, img, strtab + off_off)
        for i in range(shnum):
            sh = shoff + i * shentsize
            name_idx, = struct.unpack_from(e + "I", img, sh)
            start = stroff + name_idx
            name = bytes(img[start:img.index(0, start)])
            if name == b".stapsdt.base":
                old, = struct.unpack_from(e + addr_fmt, img, sh + addr_off)
                mask = (1 << (64 if is64 else 32)) - 1
                struct.pack_into(e + addr_fmt, img, sh + addr_off,
                                 (old + delta) & mask)
                f.seek(0)
                f.write(img)
                return old
    raise RuntimeError(path + ": no .stapsdt.base section")


def test_prelink(d):
    m = manifest(d)
    picks = [("x86_64", "pie_O2"), ("i386", "nopie_O2"), ("s390x", "pie_O2"),
             ("arm", "pie_O0"), ("aarch64", "nopie_O1"), ("riscv64", "lib"),
             ("mips64", "nopie_O2"), ("mips64el", "lib")]
    stats = Stats()
    with tempfile.TemporaryDirectory(dir=d) as tmp:
        for arch, var in picks:
            ents = [e for e in probe_files(m, arch)
                    if e["variant"] == var and not e["stripped"]]
            if not C.eq(len(ents), 1, "%s %s fixture" % (arch, var)):
                continue
            ent = ents[0]
            orig_notes = readelf_notes(ent["path"])
            for delta in (0x1000, -0x10, 4):
                copy = os.path.join(tmp, "%s_%s_%x" % (arch, var, delta & 0xffff))
                shutil.copyfile(ent["path"], copy)
                old = patch_base_section(copy, delta)
                mask = (1 << ARCH_BITS[arch]) - 1
                C.eq(readelf_section_addr(copy, ".stapsdt.base"),
                     (old + delta) & mask, copy + ": patched section address")
                # readelf still shows the raw note values
                C.eq(readelf_notes(copy), orig_notes, copy + ": raw notes")
                C.check(all(n["base"] == old for n in orig_notes),
                        copy + ": note base == original section address")
                check_file(ent, stats, delta=delta, path=copy)
    # both outcomes happened: shifted sites that still attach (with a
    # semaphore), and sites shifted out of their segments
    for key in ("placed", "placed_sema", "misplaced"):
        C.check(stats.get(key) > 0, "prelink: no site " + key)
    print("prelink: %s" % ", ".join("%s=%d" % kv
                                    for kv in sorted(stats.counts.items())))


def read_maps(pid):
    maps = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split(None, 5)
            start, end = (int(x, 16) for x in parts[0].split("-"))
            path = parts[5].strip() if len(parts) > 5 else ""
            maps.append({"start": start, "end": end, "perms": parts[1],
                         "offset": int(parts[2], 16), "path": path})
    return maps


def start_blocking(cmd):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    line = p.stdout.readline()
    C.eq(line, b"ready\n", "%s: started" % cmd[0])
    return p


def stop(p):
    p.stdin.close()
    rc = p.wait(timeout=10)
    p.stdout.close()
    return rc


def check_pid_sites(pid, sites, sources):
    """Every site of `list -p PID`: abs_pc from /proc/PID/maps, and the
    process holds the file's bytes there. @sources maps the path the
    process sees to a readable copy of the file. Returns {path: sites}."""
    maps = read_maps(pid)
    by_file = {}
    with open("/proc/%d/mem" % pid, "rb") as mem:
        for s in sites:
            w = "pid %d: %s %s:%s" % (pid, s["file"], s["provider"], s["name"])
            by_file.setdefault(s["file"], []).append(s)
            C.eq(s.get("pid"), pid, w + ": pid")
            if "error" in s:
                C.check("abs_pc" not in s, w + ": abs_pc %r for a site that "
                        "cannot attach (%s)" % (s.get("abs_pc"), s["error"]))
                continue
            ex = [mp for mp in maps if mp["path"] == s["file"] and
                  mp["perms"][2] == "x" and mp["offset"] <= s["pc_offset"] <
                  mp["offset"] + mp["end"] - mp["start"]]
            if not C.eq(len(ex), 1, w + ": executable mappings"):
                continue
            want = ex[0]["start"] + s["pc_offset"] - ex[0]["offset"]
            C.eq(s.get("abs_pc"), want, w + ": abs_pc")
            with open(sources.get(s["file"], s["file"]), "rb") as f:
                f.seek(s["pc_offset"])
                fb = f.read(4)
            mem.seek(want)
            C.eq(mem.read(4), fb, w + ": bytes at abs_pc")
    return by_file


SITE_KEY = lambda s: (s["provider"], s["name"], s["pc"], s["pc_offset"],
                      s["args_text"], s.get("error"))


def live_case(what, exe, lib, sources, delta=None):
    """Start @exe (linked against @lib), list -p, compare with the files."""
    p = start_blocking([exe, "block"])
    try:
        pid = p.pid
        if sources.get("delete"):
            for f in (exe, lib):
                os.unlink(f)
            exe += " (deleted)"
            lib += " (deleted)"
        sites, _ = usdtkit_list("-p", str(pid))
        by_file = check_pid_sites(pid, sites, sources)
        C.eq(sorted(by_file), sorted([exe, lib]), what + ": objects with probes")
        # per object: the sites of the file itself, in order
        for path in (exe, lib):
            own, _ = usdtkit_list(sources.get(path, path))
            C.eq([SITE_KEY(s) for s in by_file.get(path, [])],
                 [SITE_KEY(s) for s in own], "%s: sites of %s" % (what, path))
        if delta is not None:
            placed = [s for s in by_file.get(exe, []) if "error" not in s]
            C.eq(len(placed), 0 if delta > 0 else len(by_file.get(exe, [])),
                 what + ": sites of the executable that attach")
        # the filter works with -p too
        only, _ = usdtkit_list("-p", str(pid), "-P", "fixlib:*")
        C.eq([SITE_KEY(s) for s in only],
             [SITE_KEY(s) for s in sites if s["provider"] == "fixlib"],
             what + ": -p PID 'fixlib:*'")
        none, r = usdtkit_list("-p", str(pid), "-P", "nosuchprovider:*")
        C.eq(none, [], what + ": filter matching nothing: stdout")
        C.check("no USDT probes match" in r.stderr,
                what + ": filter matching nothing: stderr %r" % r.stderr)
    finally:
        C.eq(stop(p), 0, what + ": exit status")


def test_live(d):
    x = os.path.join(d, "x86_64")
    live = os.path.realpath(os.path.join(x, "fix_live"))
    lib = os.path.realpath(os.path.join(x, "libfix.so"))
    live_case("fix_live", live, lib, {})

    with tempfile.TemporaryDirectory(dir=d) as tmp:
        tmp = os.path.realpath(tmp)
        # files deleted while mapped: read through /proc/PID/map_files
        dd = os.path.join(tmp, "deleted")
        os.mkdir(dd)
        for f in (live, lib):
            shutil.copy(f, dd)
        e, l = os.path.join(dd, "fix_live"), os.path.join(dd, "libfix.so")
        live_case("deleted files", e, l, {"delete": True,
                                          e + " (deleted)": live,
                                          l + " (deleted)": lib})
        # prelinked executables whose text starts at file offset 0: the
        # shifted sites either attach where the shift puts them, or have
        # no address at all (not the start of the mapping)
        for delta in (-0x10, 0x100000):
            pd = os.path.join(tmp, "prelink%d" % delta)
            os.mkdir(pd)
            e = os.path.join(pd, "fix_live_nsc")
            shutil.copy(os.path.join(x, "fix_live_nsc"), e)
            shutil.copy(lib, pd)
            patch_base_section(e, delta)
            loads = readelf_loads(e)
            C.check(any(s["offset"] == 0 and "E" in s["flags"] for s in loads),
                    e + ": no executable PT_LOAD at file offset 0")
            live_case("prelinked %+#x" % delta, e, os.path.join(pd, "libfix.so"),
                      {}, delta)

    # a dead pid: exit 1 and a message that says so
    q = subprocess.Popen(["true"])
    q.wait()
    dead = q.pid
    sites, r = usdtkit_list("-p", str(dead), rc=1)
    C.eq(r.stdout, "", "dead pid %d: stdout" % dead)
    C.check("pid %d" % dead in r.stderr and "No such process" in r.stderr,
            "dead pid %d: message %r" % (dead, r.stderr))

    # a process none of whose objects has probes: nothing on stdout, exit 0
    p = start_blocking([os.path.join(x, "fix_noprobe")])
    try:
        for fmt in ([], ["--json"]):
            r = run([USDTKIT, "list"] + fmt + ["-p", str(p.pid)])
            asan_clean(r, "list -p noprobe")
            C.eq(r.returncode, 0, "no-probe pid: exit status")
            C.eq(r.stdout, "", "no-probe pid: stdout")
            C.check("no USDT probes" in r.stderr, "no-probe pid: note on "
                    "stderr %r" % r.stderr)
    finally:
        C.eq(stop(p), 0, "fix_noprobe exit status")


def test_cli(d):
    m = manifest(d)
    x = os.path.join(d, "x86_64")
    noprobe = os.path.join(x, "fix_noprobe")
    with tempfile.TemporaryDirectory(dir=d) as tmp:
        # a file with no probes: nothing on stdout, a note, exit 0
        for fmt in ([], ["--json"]):
            r = run([USDTKIT, "list"] + fmt + [noprobe])
            asan_clean(r, "no probes")
            C.eq(r.returncode, 0, "no probes: exit status")
            C.eq(r.stdout, "", "no probes: stdout")
            C.check(noprobe in r.stderr and "no USDT probes" in r.stderr,
                    "no probes: stderr %r" % r.stderr)

        # files that cannot be listed: exit 1, a message naming the file
        text = os.path.join(tmp, "notes.txt")
        with open(text, "w") as f:
            f.write("this is not an ELF file\n" * 8)
        empty = os.path.join(tmp, "empty")
        open(empty, "w").close()
        short = os.path.join(tmp, "short")
        with open(short, "wb") as f:
            f.write(b"\x7fELF\x02\x01\x01")
        vax = os.path.join(tmp, "vax")
        img = bytearray(open(os.path.join(x, "fix_pie_O2"), "rb").read())
        struct.pack_into("<H", img, 18, 75)	# e_machine = EM_VAX
        open(vax, "wb").write(img)
        missing = os.path.join(tmp, "no", "such", "file")
        bad = [(missing, "No such file"), (tmp, "directory"),
               (text, "not an ELF file"), (empty, ""), (short, ""),
               (vax, "unsupported machine")]
        for path, why in bad:
            for fmt in ([], ["--json"]):
                r = run([USDTKIT, "list"] + fmt + [path])
                asan_clean(r, "list " + path)
                C.eq(r.returncode, 1, "%s: exit status" % path)
                C.eq(r.stdout, "", "%s: stdout" % path)
                C.check(path in r.stderr and why in r.stderr,
                        "%s: message %r (want the path and %r)" %
                        (path, r.stderr, why))
                # one line per error, not the library's and then the CLI's
                C.eq(len(r.stderr.splitlines()), 1, "%s: stderr lines" % path)
        # a missing file given without a slash is still a missing file
        r = run([USDTKIT, "list", "no_such_file_here.so"], cwd=tmp)
        C.eq(r.returncode, 1, "bare missing file: exit status")
        C.check("no_such_file_here.so" in r.stderr,
                "bare missing file: message %r" % r.stderr)
        # a symlink loop or a dangling link is a file that cannot be
        # opened, named with its errno, never a PROVIDER filter; so is a
        # missing name that is not the last argument
        good = os.path.join(x, "libfix.so")
        os.symlink("loopb", os.path.join(tmp, "loopa"))
        os.symlink("loopa", os.path.join(tmp, "loopb"))
        os.symlink("missing", os.path.join(tmp, "dangling"))
        eloop, enoent = os.strerror(40), os.strerror(2)
        for args, name, why, nsites in [
                (["loopa"], "loopa", eloop, 0),
                ([good, "loopa"], "loopa", eloop, len(readelf_notes(good))),
                (["dangling"], "dangling", enoent, 0),
                (["nonexistent", good], "nonexistent", enoent,
                 len(readelf_notes(good)))]:
            r = run([USDTKIT, "list", "--json"] + args, cwd=tmp)
            what = "list " + " ".join(args)
            asan_clean(r, what)
            C.eq(r.returncode, 1, what + ": exit status")
            C.eq(r.stderr, "usdtkit list: %s: %s\n" % (name, why),
                 what + ": message")
            C.eq(len(r.stdout.splitlines()), nsites, what + ": sites listed")

        # a path longer than the library's old 512-byte message buffer:
        # the reason after it is still there
        deep = tmp
        while len(deep) < 700:
            deep = os.path.join(deep, "d" * 60)
        os.makedirs(deep)
        longtext = os.path.join(deep, "notes.txt")
        shutil.copy(text, longtext)
        r = run([USDTKIT, "list", longtext])
        C.eq(r.returncode, 1, "long path: exit status")
        C.eq(r.stderr, "usdtkit list: %s: not an ELF file\n" % longtext,
             "long path: message")

        # usage errors exit 2
        for args in (["--bogus"], [], ["-p"], ["-p", "x"]):
            r = run([USDTKIT, "list"] + args)
            C.eq(r.returncode, 2, "list %s: exit status" % " ".join(args))

        # a bad file among good ones: the good ones are still listed
        good = os.path.join(x, "libfix.so")
        r = run([USDTKIT, "list", "--json", missing, good])
        C.eq(r.returncode, 1, "missing + good: exit status")
        C.eq(len(r.stdout.splitlines()), len(readelf_notes(good)),
             "missing + good: sites of the good file")

        # names with control characters (a hostile file): the text table
        # shows them as \xNN and stays one line per site; JSON has them
        hostile = os.path.join(tmp, "hostile")
        img = bytearray(open(os.path.join(x, "fix_pie_O2"), "rb").read())
        at = img.find(b"stapsdt\x00") + 8 + 24	# owner, then pc/base/sema
        C.eq(bytes(img[at:at + 4]), b"fix\x00", "first provider of fix_pie_O2")
        img[at + 1] = 0x1b
        name = img.index(b"\x00", at) + 1
        img[name + 1] = 0x0a
        open(hostile, "wb").write(img)
        r = run([USDTKIT, "list", hostile])
        asan_clean(r, "list hostile")
        C.check("f\\x1bx:" in r.stdout and "\x1b" not in r.stdout,
                "hostile provider in text: %r" % r.stdout[:200])
        sites, _ = usdtkit_list(hostile)
        C.eq(len([l for l in r.stdout.splitlines() if not l.startswith(" ")]),
             len(sites), "hostile: one header line per site")
        C.eq(sites[0]["provider"], "f\x1bx", "hostile provider in JSON")
        C.check("\n" in sites[0]["name"], "hostile name in JSON")

    # several files: all their sites, in order
    a, b = os.path.join(x, "fix_pie_O2"), os.path.join(d, "arm", "libfix.so")
    sites, _ = usdtkit_list(a, b)
    na, nb = readelf_notes(a), readelf_notes(b)
    C.eq([(s["file"], s["name"]) for s in sites],
         [(a, n["name"]) for n in na] + [(b, n["name"]) for n in nb],
         "two files: sites in order")

    # PROVIDER[:NAME] globs select the sites fnmatch selects
    patterns = ["fix*:arg1?", "fix", "fixsema", ":dt*", "other:*", "*:gate[02]*",
                "fix*:*", "*", "", "fi?:d[a-u]p*", "fixlib:many", "nomatch:x",
                "fix:", ":arg1"]
    for ent in [e for e in probe_files(m) if not e["stripped"] and
                e["variant"] in ("pie_O2", "lib")]:
        notes = readelf_notes(ent["path"])
        for pat in patterns:
            prov, _, name = pat.partition(":")
            want = [(n["provider"], n["name"], n["pc"]) for n in notes
                    if (not prov or fnmatch.fnmatchcase(n["provider"], prov))
                    and (not name or fnmatch.fnmatchcase(n["name"], name))]
            sites, r = usdtkit_list(ent["path"], "-P", pat)
            C.eq([(s["provider"], s["name"], s["pc"]) for s in sites], want,
                 "%s %r" % (ent["path"], pat))
            if not want:
                C.check("no probe matches" in r.stderr,
                        "%s %r: stderr %r" % (ent["path"], pat, r.stderr))
    fixed = os.path.join(x, "fix_pie_O2")
    sites, _ = usdtkit_list(fixed, "-P", "fix*:arg1?")
    C.eq(sorted(s["name"] for s in sites), ["arg10", "arg11", "arg12"],
         "'fix*:arg1?' selects arg10..arg12")

    # text output: one header line per site, then one line per argument
    for ent in [e for e in probe_files(m) if e["variant"] in ("nopie_O2", "lib")]:
        path = ent["path"]
        sites, _ = usdtkit_list(path)
        r = run([USDTKIT, "list", path])
        asan_clean(r, "list " + path)
        C.eq(r.returncode, 0, path + ": text exit status")
        lines = r.stdout.splitlines()
        heads = [l for l in lines if not l.startswith(" ")]
        C.eq(len(heads), len(sites), path + ": header lines")
        C.eq(len(lines) - len(heads), sum(len(s["args"]) for s in sites),
             path + ": argument lines")
        for h, s in zip(heads, sites):
            want = "%s:%s  %s  pc 0x%x (file offset 0x%x)" % (
                s["provider"], s["name"], path, s["pc"], s["pc_offset"])
            C.check(h.startswith(want), "%s: header %r, want %r..." %
                    (path, h, want))
            if s["semaphore"]:
                C.check("semaphore 0x%x (file offset 0x%x)" %
                        (s["semaphore"], s["semaphore_offset"]) in h,
                        "%s: header %r lacks the semaphore" % (path, h))


def main():
    global USDTKIT
    ap = argparse.ArgumentParser()
    ap.add_argument("--usdtkit", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("test")
    o = ap.parse_args()
    USDTKIT = os.path.abspath(o.usdtkit)
    d = os.path.abspath(o.dir)
    if not os.path.isfile(os.path.join(d, "manifest.json")):
        C.check(False, "%s/manifest.json missing: the elf_fixtures test "
                "(build_fixtures.py) did not run or failed" % d)
        return C.summary()
    if o.test.startswith("notes-"):
        arch = o.test[len("notes-"):]
        if C.check(arch in FIXTURE_ARCHES, "%s: no target with fixtures "
                   "(manifest key fixture_cc): %s" %
                   (arch, " ".join(FIXTURE_ARCHES))):
            test_notes(d, arch)
    elif o.test == "nop5":
        test_nop5(d)
    elif o.test == "prelink":
        test_prelink(d)
    elif o.test == "live":
        test_live(d)
    elif o.test == "cli":
        test_cli(d)
    else:
        C.check(False, "unknown test " + o.test)
    return C.summary()


if __name__ == "__main__":
    sys.exit(main())
