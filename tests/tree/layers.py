#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The library's rooms and their one direction (docs/ARCHITECTURE.md):

    base < spec (with arch/) < elf < attach < watch < trace < export

Checked on the sources and on the objects (nm) of a build:
- calls: no object calls a function defined in a room above its own;
- includes: no file includes a header of a room above its own, and every
  include of a room's header names the room ("elf/file.h", "attach/mode.h");
  cli/ includes only header-only base headers;
- circles: no circle of calls among files, and none of includes;
- copies: a function is declared once, in a header: not in two files, and
  not in a .c file other than the one that defines it;
- CMake: each room's object library links only rooms below it.
With --doc FILE: every source file of the rooms and of cli/ is named in
that file (docs/ARCHITECTURE.md's tables), and tests/ mirrors the rooms:
a folder per room, each folder named in tests/README.md.

usage: layers.py SOURCE_DIR BUILD_DIR [--doc FILE]
"""
import os
import re
import subprocess
import sys

ROOMS = ["base", "spec", "elf", "attach", "watch", "trace", "export"]
RANK = {r: i for i, r in enumerate(ROOMS)}
SRC_RE = re.compile(r"\.(c|h|re)$")


def room_of(path):
    """the room of a file (a path relative to the source dir), or None"""
    p = path.split("/")
    if p[0] == "core" and len(p) > 2 and p[1] in RANK:
        return p[1]
    if p[0] == "arch":
        return "spec"
    if p[0] in ("attach", "watch", "trace", "export"):
        return p[0]
    return None


def sources(src, top):
    out = []
    for root, dirs, files in os.walk(os.path.join(src, top)):
        dirs[:] = [d for d in dirs if d != "testdata"]
        for f in files:
            if SRC_RE.search(f):
                out.append(os.path.relpath(os.path.join(root, f), src))
    return sorted(out)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def resolve(src, f, name):
    """the file an include names: beside the includer, then from core/
    and from the top (the library's include path); None if not ours"""
    for base in (os.path.dirname(f), "core", ""):
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(src, p)):
            return p
    return None


def check_includes(src, files, fail):
    graph = {}
    for f in files:
        text = open(os.path.join(src, f), errors="replace").read()
        r = room_of(f) if not f.startswith("cli/") else "cli"
        graph[f] = set()
        for name in INCLUDE_RE.findall(text):
            t = resolve(src, f, name)
            if t is None:
                continue	# generated (gen/, skeletons) or a system header
            graph[f].add(t)
            tr = room_of(t)
            if r == "cli":
                if tr is None:
                    continue	# the CLI's own headers
                if tr != "base" or not header_only(src, t):
                    fail(f"{f}: includes {name}: the CLI uses the library "
                         "through <usdtkit/*.h> and header-only base headers only")
                continue
            if tr is None or r is None:
                continue
            if RANK[tr] > RANK[r]:
                fail(f"{f}: includes {name}, of room {tr}, above its own ({r})")
            # a BPF program's headers include each other by their own
            # names: they are compiled by clang -target bpf, not here
            bpf = f.startswith("trace/bpf/") and t.startswith("trace/bpf/")
            if "/" not in name and not bpf:
                fail(f"{f}: includes \"{name}\": name its room "
                     f"(\"{qualified(t)}\")")
    return graph


def qualified(path):
    return path[len("core/"):] if path.startswith("core/") else path


def header_only(src, path):
    """a header that declares no function the library must define"""
    text = strip_comments(open(os.path.join(src, path)).read())
    return not [n for n, body in toplevel_decls(text) if not body]


def toplevel_decls(text):
    """(name, has_body) of each function declared or defined at file scope"""
    out, depth, start = [], 0, 0
    text = re.sub(r"^\s*#.*?(?<!\\)$", "", text, flags=re.M | re.S)
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0:
                m = re.search(r"\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*$", text[start:i])
                stmt = text[start:i]
                if m and not re.match(r"\s*(struct|union|enum)\b[^(]*$", stmt) and \
                        "=" not in stmt:
                    out.append((m.group(1), True))
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                start = i + 1
        elif c == ";" and depth == 0:
            stmt = text[start:i]
            start = i + 1
            if re.search(r"\b(typedef|static)\b", stmt) or "=" in stmt:
                continue
            m = re.search(r"\b([A-Za-z_]\w*)\s*\((?:[^()]|\([^()]*\))*\)\s*"
                          r"(?:__attribute__\s*\(\(.*\)\)\s*)?$", stmt, re.S)
            # SEC(): libbpf's section attribute of a BPF map, not a call
            if m and not m.group(1).startswith("__") and m.group(1) != "SEC" and \
                    not re.search(r"\(\s*\*\s*" + m.group(1), stmt):
                out.append((m.group(1), False))
    return out


def check_copies(src, files, objs, fail):
    declared, defined = {}, {}
    for path, (defs, _) in objs.items():	# defined in asm too
        for name in defs:
            defined.setdefault(name, set()).add(path)
    for f in files:
        text = strip_comments(open(os.path.join(src, f), errors="replace").read())
        for name, body in toplevel_decls(text):
            (defined if body else declared).setdefault(name, set()).add(f)
    for name, where in sorted(declared.items()):
        headers = sorted(w for w in where if w.endswith(".h"))
        if len(headers) > 1:
            fail(f"{name}() declared in {len(headers)} headers: {', '.join(headers)}")
        for w in sorted(where - set(headers)):
            if w not in defined.get(name, set()):
                fail(f"{w}: declares {name}(), defined elsewhere: "
                     "include its header instead of copying the prototype")


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            used.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRVW":
            defined.add(f[2])
    return defined, used


def objects(build, src):
    build = os.path.abspath(build)
    """{source path: (defined, used)} of every room's objects"""
    objs = {}
    for root, _, files in os.walk(build):
        root = os.path.abspath(root)
        m = re.search(r"CMakeFiles/usdtkit_room_(\w+)\.dir(/.*)?$", root)
        if not m:
            continue
        for f in files:
            if not f.endswith(".c.o"):
                continue
            base = root[:root.index("CMakeFiles")] + \
                "CMakeFiles/usdtkit_room_%s.dir" % m.group(1)
            rel = os.path.relpath(os.path.join(root, f[:-2]), base)
            # objects of generated sources (re2c) live under the build
            # dir's own path; sources under the source dir keep theirs
            # a room of a subdirectory (trace/, export/) names its
            # sources from there
            sub = os.path.relpath(root[:root.index("CMakeFiles")], build)
            if not os.path.isfile(os.path.join(src, sub, "CMakeLists.txt")) or \
                    sub.startswith("tests"):
                break	# a nested build (tests/install/subproject's), not ours
            rel = os.path.normpath(os.path.join(sub, rel))
            path = rel if os.path.isfile(os.path.join(src, rel)) else \
                "arch/" + os.path.basename(rel)
            # only spec's generated lexers have no source of their own:
            # another room's object without one is stale, of a source
            # moved or removed since that build
            if path.startswith("arch/") and m.group(1) != "spec" and \
                    not os.path.isfile(os.path.join(src, rel)):
                continue
            objs[path] = symbols(os.path.join(root, f))
    return objs


def cycle(graph):
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return path[path.index(m):] + [m]
            if m not in state:
                c = visit(m, path + [m])
                if c:
                    return c
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n, [n])
            if c:
                return c
    return None


def check_calls(objs, fail):
    owner = {s: n for n, (defs, _) in objs.items() for s in defs}
    graph = {}
    for n, (_, used) in objs.items():
        graph[n] = {owner[s] for s in used if s in owner and owner[s] != n}
        for s in sorted(used):
            o = owner.get(s)
            if o and room_of(o) and room_of(n) and RANK[room_of(o)] > RANK[room_of(n)]:
                fail(f"{n} ({room_of(n)}) calls {s}() of {o} ({room_of(o)}), a room above")
    return graph


def check_cmake(src, fail):
    text = open(os.path.join(src, "CMakeLists.txt")).read()
    for sub in ("watch", "trace", "export"):
        p = os.path.join(src, sub, "CMakeLists.txt")
        if os.path.isfile(p):
            text += open(p).read()
    seen = 0
    for m in re.finditer(r"usdtkit_room\((\w+)((?:\s+BELOW(?:\s+\w+)+)?)\s+SOURCES", text):
        seen += 1
        room, below = m.group(1), m.group(2).split()[1:]
        for b in below:
            if b not in RANK or RANK[b] >= RANK[room]:
                fail(f"CMake: room {room} links {b}, not a room below it")
    if seen < len(ROOMS):
        fail(f"CMake: {seen} usdtkit_room() calls, want one per room ({len(ROOMS)})")


def check_doc(src, doc, fail):
    text = open(doc).read()
    n = 0
    for top in ("core", "arch", "attach", "watch", "trace", "export", "cli"):
        for f in sources(src, top):
            n += 1
            if f not in text and qualified(f) not in text:
                fail(f"{f} is in no room's table of {os.path.relpath(doc, src)}")
    return n + check_tests_doc(src, fail)


# the rooms whose tests have a folder of their own, tests/<room>/
TEST_ROOMS = ("base", "spec", "elf", "attach", "watch", "trace", "export", "cli")


def check_tests_doc(src, fail):
    """tests/ mirrors the code: a folder per room, nothing loose at the
    top but CMakeLists.txt and README.md, and README.md names every
    folder (where a newcomer looks for the test of a file)."""
    tests = os.path.join(src, "tests")
    text = open(os.path.join(tests, "README.md")).read()
    n = 0
    for d in sorted(os.listdir(tests)):
        n += 1
        if not os.path.isdir(os.path.join(tests, d)):
            if d not in ("CMakeLists.txt", "README.md"):
                fail(f"tests/{d}: loose at the top of tests/, not in a folder")
        elif f"tests/{d}/" not in text:
            fail(f"tests/{d}/ is not named in tests/README.md")
    for room in TEST_ROOMS:
        if not os.path.isdir(os.path.join(tests, room)):
            fail(f"room {room} has no tests/{room}/")
    return n


def main():
    src, build = sys.argv[1], sys.argv[2]
    fails = []
    fail = fails.append
    if len(sys.argv) > 4 and sys.argv[3] == "--doc":
        n = check_doc(src, sys.argv[4], fail)
    else:
        files = [f for top in ("core", "arch", "attach", "watch", "trace", "export", "cli")
                 for f in sources(src, top)]
        inc = check_includes(src, files, fail)
        c = cycle(inc)
        if c:
            fail("a circle of includes: " + " -> ".join(c))
        objs = objects(build, src)
        # (not the re2c sources: their rules look like comments here)
        check_copies(src, [f for f in files if not f.startswith("cli/") and
                           not f.endswith(".re")], objs, fail)
        if len(objs) < 40:
            fail(f"only {len(objs)} objects of the rooms under {build}: built?")
        c = cycle(check_calls(objs, fail))
        if c:
            fail("a circle of calls: " + " -> ".join(c))
        check_cmake(src, fail)
        n = len(files)
    for f in fails:
        print("FAIL: " + f)
    print(f"{len(fails)} failed ({n} files)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
