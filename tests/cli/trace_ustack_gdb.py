#!/usr/bin/python3.11
"""usdtkit trace --count-by ustack against gdb's bt, frame for frame.

Two programs, each run once under usdtkit and once under gdb, compared
with each frame as its object and its address in the object (the JSON's
"symbols"; gdb's pcs through the process's maps and the object's
PT_LOADs), as two runs of a program may map a library a page apart:
 - fx_throw (C++, -O2, no frame pointers): 3 throws through
   app::level1 -> level2 -> level3, at its own probe fxthrow:raise and at
   libstdc++'s libstdcxx:throw (through libstdc++, which has no frame
   pointers either);
 - fx_throw again, with its plugin dlopen()ed after the trace began
   (libfx_throw_plug.so, built the same way), which throws from its
   own functions past its own probe fxplug:raise: a library's rows must
   be in the tables before its code runs (the loader's thread is held);
 - /usr/bin/python3.11 at python:function__entry, on a small script: the
   interpreter's frames down to the C library's start.
gdb stops at the same probes (break -probe-stap) and walks each stop's
frames (past main, to _start). The multisets of stacks must be equal:
every frame's object and address, and how often each stack was seen. Then
the frames must be named: no bare address where the object is known.

usage: trace_ustack_gdb.py USDTKIT FX_THROW
Root, BPF. Exit 77 without gdb or python3.11 (scripts/packages installs
both for the tests).
"""
import json
import struct
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

DEPTH = 127

GDB_SCRIPT = r'''
import gdb, struct
stacks, phdrs = [], {}
def loads(path):
    # an object's PT_LOADs (offset, vaddr, filesz): ELF64 little-endian
    if path not in phdrs:
        with open(path, "rb") as f:
            h = f.read(64)
            phoff, = struct.unpack_from("<Q", h, 32)
            phentsize, phnum = struct.unpack_from("<HH", h, 54)
            f.seek(phoff)
            t = f.read(phentsize * phnum)
        segs = []
        for i in range(phnum):
            ty, _, off, va, _, fsz = struct.unpack_from("<IIQQQQ", t, i * phentsize)
            if ty == 1:
                segs.append((off, va, fsz))
        phdrs[path] = segs
    return phdrs[path]
def where(pc, maps):
    # (object, its virtual address) as the symbolizer says it
    for lo, hi, off, path in maps:
        if lo <= pc < hi:
            for so, sv, sz in loads(path):
                if so & ~0xfff <= off < so + sz:
                    return "%%s@%%x" %% (path, pc - lo + off + sv - so)
    return "?@%%x" %% pc
def walk():
    maps = []
    for l in open("/proc/%%d/maps" %% gdb.selected_inferior().pid):
        f = l.split()
        if len(f) >= 6 and f[5].startswith("/") and "x" in f[1]:
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            maps.append((lo, hi, int(f[2], 16), f[5]))
    # an inlined function is a frame of gdb's (from the debug info) at
    # its caller's pc, not a frame on the stack: the physical frames only
    pcs, f = [], gdb.newest_frame()
    while f is not None and len(pcs) < %d:
        if f.type() != gdb.INLINE_FRAME:
            pcs.append(where(f.pc(), maps))
        f = f.older()
    stacks.append(pcs)
gdb.execute("run", to_string=True)
while gdb.selected_inferior().pid:
    walk()
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
with open(%r, "w") as out:
    for s in stacks:
        out.write(" ".join(s) + "\n")
'''

fails = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += 0 if ok else 1


def gdb_stacks(tmp, probes, argv):
    out = os.path.join(tmp, "gdb.out")
    script = os.path.join(tmp, "walk.py")
    with open(script, "w") as f:
        f.write(GDB_SCRIPT % (DEPTH, out))
    cmd = ["gdb", "-batch", "-nx", "-ex", "set pagination off",
           "-ex", "set breakpoint pending on",
           "-ex", "set backtrace past-main on",
           "-ex", "set disable-randomization on"]
    for p in probes:
        cmd += ["-ex", "break -probe-stap " + p]
    cmd += ["-x", script, "--args"] + argv
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if not os.path.exists(out):
        print(r.stdout[-2000:], r.stderr[-2000:])
        return Counter()
    got = Counter()
    for line in open(out):
        got[tuple(line.split())] += 1
    return got


def usdtkit_stacks(u, probes, argv):
    cmd = [u, "trace", "--json", "--count-by", "ustack", "--stack-depth",
           str(DEPTH), "--by-keys", "4096", "-c", " ".join(argv)] + probes
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    got, frames = Counter(), {}
    for line in r.stdout.splitlines():
        if not line.startswith("{"):
            continue
        o = json.loads(line)
        for k in o.get("top", []):
            st = k["parts"][0]
            key = tuple("%s@%x" % (y["object"], y["address"]) if y else
                        "?@%x" % ip for y, ip in zip(st["symbols"], st["ips"]))
            got[key] += k["count"]
            frames[key] = st["frames"]
    if r.returncode:
        print(r.stderr[-2000:])
    check(r.returncode == 0, "usdtkit %s: exit %d" % (" ".join(probes), r.returncode))
    check("frame pointers" not in r.stdout,
          "no frame-pointer hint: every frame came from call frame information")
    return got, frames


def compare(name, want, got, frames):
    check(want and got == want,
          "%s: %d stacks, %d hits, gdb %d stacks, %d hits"
          % (name, len(got), sum(got.values()), len(want), sum(want.values())))
    if got != want:
        for s in sorted(set(want) | set(got), key=len)[:4]:
            print("  gdb %d usdtkit %d:" % (want[s], got[s]))
            for i, pc in enumerate(s):
                print("    %s %s" % (pc, frames.get(s, [""] * len(s))[i]))
        only = [s for s in got if s not in want][:2]
        for s in only:
            print("  usdtkit only:", frames[s])
        for s in [s for s in want if s not in got][:2]:
            print("  gdb only:", " ".join(s))
    bare = [f for fs in frames.values() for f in fs if f.startswith("0x")]
    check(not bare, "%s: every frame in an object is named (%s)" % (name, bare[:3]))


def eh_frame_offset(path):
    """the file offset of @path's .eh_frame (ELF64 little-endian)"""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    strtab = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 24)[0]
    for i in range(shnum):
        name, = struct.unpack_from("<I", data, shoff + i * shentsize)
        end = data.index(b"\0", strtab + name)
        if data[strtab + name:end] == b".eh_frame":
            return struct.unpack_from("<Q", data, shoff + i * shentsize + 24)[0]
    raise SystemExit("no .eh_frame in " + path)


def hostile(u, fx, tmp):
    """a copy of fx_throw whose .eh_frame's first entry claims 4 GiB:
    one line naming it, no crash, its frames by the frame pointer"""
    bad = os.path.join(tmp, "fx_throw_bad_cfi")
    shutil.copy(fx, bad)
    with open(bad, "r+b") as f:
        f.seek(eh_frame_offset(bad))
        f.write(struct.pack("<I", 0xfffffff0))
    r = subprocess.run([u, "trace", "--count-by", "ustack", "-c", bad + " 1",
                        "fxthrow:raise"], capture_output=True, text=True, timeout=120)
    said = [l for l in r.stderr.splitlines() if bad in l and "ustack:" in l]
    check(r.returncode == 0 and len(said) == 1 and ".eh_frame" in said[0],
          "a hostile .eh_frame: exit %d, said once naming the file (%s)"
          % (r.returncode, said or r.stderr[-300:]))
    check("frame pointers" in r.stdout and "level3" in r.stdout,
          "a hostile .eh_frame: its stack by the frame pointer, and the hint")


def main():
    u, fx = sys.argv[1], os.path.realpath(sys.argv[2])
    if not shutil.which("gdb") or not os.path.exists("/usr/bin/python3.11"):
        print("SKIP: gdb or /usr/bin/python3.11 missing (scripts/packages: test)")
        return 77
    tmp = tempfile.mkdtemp()
    try:
        probes = ["libstdcxx:throw", "fxthrow:raise"]
        argv = [fx, "3"]
        got, frames = usdtkit_stacks(u, probes, argv)
        want = gdb_stacks(tmp, probes, argv)
        compare("fx_throw", want, got, frames)
        ends = [fs[-1].split("+0x")[0] for fs in frames.values()]
        check(len(frames) == 2 and ends == ["_start"] * 2,
              "fx_throw: 2 stacks, each down to _start (%s)" % ends)
        plug = os.path.join(os.path.dirname(fx), "libfx_throw_plug.so")
        probes = ["libstdcxx:throw", "fxthrow:raise", "fxplug:raise"]
        argv = [fx, "3", plug]
        got, frames = usdtkit_stacks(u, probes, argv)
        want = gdb_stacks(tmp, probes, argv)
        compare("fx_throw + plugin", want, got, frames)
        inplug = [fs for fs in frames.values()
                  if any(f.startswith("plug::deep1(int)+0x") for f in fs)]
        check(len(inplug) == 2 and all(fs[-1].startswith("_start+0x") for fs in inplug),
              "fx_throw + plugin: 2 stacks through plug::deep1, down to _start (%s)"
              % [fs[:3] for fs in inplug])
        hostile(u, fx, tmp)
        script = os.path.join(tmp, "calls.py")
        with open(script, "w") as f:
            # calls through C (map, sorted's key) enter the
            # interpreter again: deeper stacks, each its own probe hit
            f.write("def leaf(n):\n    return n + 1\n\n"
                    "def mid(n):\n    return sum(map(leaf, range(n))) * 2\n\n"
                    "for i in range(3):\n    mid(i)\n"
                    "sorted(range(4), key=mid)\n")
        argv = ["/usr/bin/python3.11", "-S", "-E", script]
        probes = ["python:function__entry"]
        got, frames = usdtkit_stacks(u, probes, argv)
        want = gdb_stacks(tmp, probes, argv)
        compare("python3.11", want, got, frames)
        names = {f.split("+0x")[0] for fs in frames.values() for f in fs}
        for fn in ("_PyEval_EvalFrameDefault", "Py_BytesMain",
                   "__libc_start_call_main", "_start"):
            check(fn in names, "python3.11: a frame in %s" % fn)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("trace_ustack_gdb: %s" % ("FAILED %d" % fails if fails else "passed"))
    return 1 if fails else 0


sys.exit(main())
