#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
The JSON contract (docs/JSON.md): real output of each `usdtkit ... --json`
stream validated against its schema in docs/schema/.

usage: json_schema.py --usdtkit PATH --schemas DIR [--elf-dir DIR]
                      [--demo PATH] TEST

TEST is one of:
  schemas  the schema files are valid draft 2020-12, parse and list share
           one argument definition, and the validator is not vacuous:
           every scalar field of real objects, changed to another JSON
           type, is refused
  parse    specs of every architecture, every status (ok, invalid,
           unresolved, unreadable, bad_size, unsupported), constants at
           the edges of 64 bits, more than 12 arguments
  list     every fixture of tests/elf (--elf-dir), `list --all`, and `list -p` of a
           running fixture
  trace    a short live trace of examples/demo (--demo; root, BPF)
  features `usdtkit features --json`

Validation is strict where the published schemas are open: the schemas
let a consumer of version 1.0 read 1.x output (unknown fields are
allowed), but here every object is closed (additionalProperties false),
so a field the CLI prints and docs/JSON.md does not describe fails. In
the default mode a 64-bit field must be a JSON integer; with
--json-u64-strings the same command must print exactly the same objects
but for integers outside +-(2^53 - 1), which become decimal strings.
"""
import argparse
import copy
import json
import os
import subprocess
import sys
import time

from jsonschema import Draft202012Validator

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from checks import Checks  # noqa: E402

SAFE = 2 ** 53 - 1
STREAMS = ("parse", "list", "trace", "trace-agg", "features")
# each stream's version now (docs/JSON.md); 1.0 when not named
VERSIONS = {"list": "1.1", "trace": "1.2", "features": "1.4", "trace-agg": "2.0"}


def version(stream):
    return "usdtkit-%s/%s" % (stream, VERSIONS.get(stream, "1.0"))


check = Checks()


def load(stream):
    with open(os.path.join(ARGS.schemas, "usdtkit-%s.schema.json" % stream)) as f:
        return json.load(f)


def closed(schema, u64_strings):
    """The strict variant: every object closed; in the default mode no
    64-bit field may be a string."""
    s = copy.deepcopy(schema)

    def walk(n):
        if isinstance(n, dict):
            if n.get("type") == "object" and "properties" in n:
                n["additionalProperties"] = False
            for v in n.values():
                walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)
    walk(s)
    if not u64_strings:
        for k in ("big_uint_string", "big_int_string"):
            if k in s.get("$defs", {}):
                s["$defs"][k] = False
    return s


VALIDATORS = {}


def validator(stream, u64_strings=False):
    key = (stream, u64_strings)
    if key not in VALIDATORS:
        VALIDATORS[key] = Draft202012Validator(closed(load(stream), u64_strings))
    return VALIDATORS[key]


def validate(stream, objs, what, u64_strings=False):
    """Each object against the strict schema; the first errors shown."""
    v = validator(stream, u64_strings)
    bad = 0
    for o in objs:
        errs = list(v.iter_errors(o))
        if errs and bad < 3:
            e = min(errs, key=lambda e: len(list(e.path)))
            print("  %s: %s at %s in %s" % (what, e.message,
                                            "/".join(map(str, e.absolute_path)),
                                            json.dumps(o)[:400]))
        bad += bool(errs)
    check(not bad, "%s: %d of %d objects do not match usdtkit-%s"
          % (what, bad, len(objs), stream))
    check(objs, "%s: no output" % what)
    return objs


def run(args, rc=(0,)):
    p = subprocess.run([ARGS.usdtkit] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    check(p.returncode in rc, "usdtkit %s: exit %d\n%s" % (" ".join(args),
                                                          p.returncode, p.stderr))
    return p.stdout


def lines(out, what):
    objs = []
    for l in out.splitlines():
        try:
            objs.append(json.loads(l))
        except ValueError as e:
            check(False, "%s: not JSON (%s): %r" % (what, e, l[:200]))
    return objs


def stringified(o):
    """@o as --json-u64-strings must print it: integers beyond 2^53 - 1
    as strings (bools are not integers here)."""
    if isinstance(o, dict):
        return {k: stringified(v) for k, v in o.items()}
    if isinstance(o, list):
        return [stringified(v) for v in o]
    if isinstance(o, int) and not isinstance(o, bool) and abs(o) > SAFE:
        return str(o)
    return o


def both_modes(stream, args, what, rc=(0,), same=None):
    """Run @args with --json and with --json-u64-strings: both valid, and
    the second exactly the first but for its big integers (the objects
    @same keeps, when given: a host's processes change between runs)."""
    objs = validate(stream, lines(run(args + ["--json"] if stream != "parse"
                                      else args[:1] + ["--json"] + args[1:], rc),
                                  what), what)
    alt = args + ["--json-u64-strings"] if stream != "parse" else \
        args[:1] + ["--json-u64-strings"] + args[1:]
    objs2 = validate(stream, lines(run(alt, rc), what), what + " (u64 strings)",
                     u64_strings=True)
    if same:
        objs, objs2 = [o for o in objs if same(o)], [o for o in objs2 if same(o)]
    check(objs2 == [stringified(o) for o in objs],
          "%s: --json-u64-strings differs from --json beyond the big integers"
          % what)
    for o in objs:
        check(o.get("schema") == version(stream),
              "%s: schema %r" % (what, o.get("schema")))
    return objs


# ------------------------------------------------------------------

# spec, what must hold of its arguments' (status, value) -- per arch
PARSE_CASES = {
    "x86_64": [
        "-4@-1204(%rbp,%rax,8) 8@%rdi -1@%ah 4@counter.0(%rip) -4@%bad",
        "8@$0xffffffffffffffff -8@$0xffffffffffffffff 8@$-1 4@$-1 "
        "-4@$4294967295 -1@$255 2@$65535 -8@$-9223372036854775808",
        "8@$9007199254740991 8@$9007199254740992 -8@$-9007199254740992",
        "8@$sym 4@sym@GOTPCREL(%rip) 8@%fs:sym@tpoff 8f@%xmm0 3@%eax 16@%rax",
        "8@-8(%rip) -8@0x10(,%rcx,4)",
        "", ":",
        " ".join(["8@%rax"] * 13),
    ],
    "i386": ["-4@8(%ebp) 4@sym@GOTOFF(%ebx) 8@%eax -4@$-1 4@$-1"],
    "x32": ["-4@%eax 8@%rsi 4@$4294967295"],
    "aarch64": ["8@[sp, 16] -8@x0 8@:lo12:sym 4@[x1, #:lo12:sym] -4@w2 8@#-1"],
    "arm": ["-4@[fp, #-8] 4@r0 8@#-1 4@[r1]"],
    "riscv64": ["8@%lo(sym)(a0) -8@8(sp) 8@a1 -4@-1"],
    "riscv32": ["4@%lo(sym)(a0) -4@8(sp) 4@a1"],
    "s390x": ["8@%r2 -4@160(%r15) 8@-1"],
    "mips64el": ["8@$4 -4@16($sp) 8@%got_ofst(sym)($28)"],
    "mips64": ["8@$4 -4@16($sp)"],
    "ppc64le": ["8@3 -4@-16(1) 8@%r4 4@i5"],
    "ppc64": ["8@3 -4@-16(1)"],
}


def test_parse():
    seen = set()
    objs = []
    for arch, specs in PARSE_CASES.items():
        objs += both_modes("parse", ["parse", "--arch", arch, "--"] + specs,
                           "parse --arch " + arch, rc=(0, 1))
    for o in objs:
        for a in o["args"]:
            seen.add(a["status"])
            seen.add("kind:" + a["kind"])
    for want in ("ok", "invalid", "unresolved", "unreadable", "bad_size",
                 "unsupported", "kind:const", "kind:reg", "kind:mem",
                 "kind:symbol", "kind:unreadable", "kind:invalid"):
        check(want in seen, "parse: no argument with %s" % want)
    # unsigned values print unsigned, at their width; signed ones signed
    consts = {a["text"]: a.get("value") for o in objs for a in o["args"]}
    for text, want in (("8@$0xffffffffffffffff", 2 ** 64 - 1),
                       ("-8@$0xffffffffffffffff", -1), ("8@$-1", 2 ** 64 - 1),
                       ("4@$-1", 2 ** 32 - 1), ("-4@$4294967295", -1),
                       ("-1@$255", -1), ("2@$65535", 65535),
                       ("-8@$-9223372036854775808", -2 ** 63),
                       ("8@#-1", 2 ** 64 - 1), ("-4@$-1", -1),
                       ("8@-1", 2 ** 64 - 1)):
        check(consts.get(text) == want, "parse: %s: value %r, want %r"
              % (text, consts.get(text), want))
    # stdin gives the same objects
    p = subprocess.run([ARGS.usdtkit, "parse", "--json", "--arch", "x86_64"],
                       input="8@$-1\n-4@%bad\n", stdout=subprocess.PIPE, text=True)
    validate("parse", lines(p.stdout, "parse stdin"), "parse stdin")


def test_list():
    with open(os.path.join(ARGS.elf_dir, "manifest.json")) as f:
        m = json.load(f)
    files = [e["path"] for e in m["files"] if not e.get("no_probes")]
    check(len(files) > 20, "list: only %d fixtures" % len(files))
    objs = []
    for i in range(0, len(files), 16):
        objs += both_modes("list", ["list"] + files[i:i + 16],
                           "list fixtures %d.." % i)
    arches = {o["arch"] for o in objs}
    check({"x86_64", "i386", "aarch64", "arm"} <= arches,
          "list: fixtures of %s only" % sorted(arches))
    keys = {k for o in objs for k in o}
    for k in ("nop5_offset",):
        check(k in keys, "list: no site with %s" % k)
    statuses = {a["status"] for o in objs for a in o["args"]}
    for s in ("ok", "unresolved", "ambiguous"):
        check(s in statuses, "list: no argument %s" % s)
    big = [a for o in objs for a in o["args"] if a["kind"] == "const"
           and isinstance(a.get("value"), int) and a["value"] > SAFE]
    check(big, "list: no constant above 2^53 (fix:pos_const)")
    # a live process: pid and abs_pc
    x = os.path.join(ARGS.elf_dir, "x86_64")
    p = subprocess.Popen([os.path.join(x, "fix_live"), "block"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        check(p.stdout.readline() == b"ready\n", "fix_live: started")
        live = both_modes("list", ["list", "-p", str(p.pid)], "list -p")
        check(live and all(o.get("pid") == p.pid and "abs_pc" in o for o in live),
              "list -p: every site with pid and abs_pc")
        # --all: the same sites among the host's, each with its pid and comm
        mine = both_modes("list", ["list", "--all"], "list --all",
                          same=lambda o: o.get("pid") == p.pid)
        check(len(mine) == len(live) and all(o.get("comm") == "fix_live" for o in mine),
              "list --all: fix_live's %d sites, named (got %d)" % (len(live), len(mine)))
    finally:
        p.stdin.close()
        p.wait()


def test_trace():
    demo = subprocess.Popen([ARGS.demo, "-i", "2", "-n", "200000"],
                            stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.2)
        for mode in ("--json", "--json-u64-strings"):
            what = "trace " + mode
            # 45: an iteration is 3 hits (request, query__start, __done),
            # every 10th a tick too: at least one tick, whatever the phase
            out = run(["trace", "--count", "45", mode, "-p", str(demo.pid),
                       "demo:*"])
            objs = validate("trace", lines(out, what), what,
                            u64_strings=mode != "--json")
            check(len(objs) == 45, "%s: %d hits" % (what, len(objs)))
            ticks = [o for o in objs if o["name"] == "tick"]
            check(ticks, "%s: no demo:tick" % what)
            for o in objs:
                check(o["schema"] == "usdtkit-trace/1.2", what + ": schema")
                # ts_ns (CLOCK_MONOTONIC) stays below 2^53 for 104 days
                check(isinstance(o["ts_ns"], int), what + ": ts_ns %r" % o["ts_ns"])
            for o in ticks:
                # demo:tick(s16 n, u64 2^64 - n): unsigned, never negative
                n, big = o["args"]
                want = 2 ** 64 - n if mode == "--json" else str(2 ** 64 - n)
                check(big == want, "%s: tick arg 1 %r, want %r" % (what, big, want))
            for o in objs:
                if o["name"] == "request":
                    check(all(isinstance(a, int) for a in o["args"]),
                          "%s: request args %r" % (what, o["args"]))
    finally:
        demo.kill()
        demo.wait()


def test_trace_agg():
    """every aggregation of the demo, live, in both 64-bit modes (the hist
    of demo:tick's arg1 has values of 2^64 - n: strings in the second)"""
    for mode in ("--json", "--json-u64-strings"):
        what = "trace-agg " + mode
        out = run(["trace", "-q", mode, "-c", ARGS.demo + " -n 40 -i 0",
                   "--counts", "--sum", "arg0", "--avg", "arg0", "--min", "arg0",
                   "--max", "arg0", "--hist", "arg1", "--count-by", "arg0",
                   "--latency", ARGS.demo + ":demo:request",
                   ARGS.demo + ":demo:tick"])
        out = "\n".join(l for l in out.splitlines() if not l.startswith("demo:"))
        objs = validate("trace-agg", lines(out, what), what,
                        u64_strings=mode != "--json")
        aggs = sorted(set(o["agg"] for o in objs))
        check(aggs == ["avg", "count_by", "counts", "hist", "latency", "max",
                       "min", "sum"], "%s: %r" % (what, aggs))
        # since 1.2: every aggregation by a key of three parts, and the
        # kinds of key alone (ustack's frames, comm's text)
        key = "str(arg3),pid,arg0"
        for opts in (["--counts", "--sum", "arg0", "--avg", "arg0", "--min", "arg0",
                      "--max", "arg0", "--hist", "arg1", "--count-by", key, "--by", key],
                     ["--latency", ARGS.demo + ":demo:request", ARGS.demo + ":demo:tick",
                      "--by", "str(arg3),tid"],
                     ["--count-by", "ustack"], ["--count-by", "comm,tid"],
                     ["--count-by", "cgroup,pid"],
                     ["--hist", "arg1", "--by", "comm"]):
            out = run(["trace", "-q", mode, "-c", ARGS.demo + " -n 40 -i 0"] + opts +
                      [ARGS.demo + ":demo:request"])
            out = "\n".join(l for l in out.splitlines() if not l.startswith("demo:"))
            objs = validate("trace-agg", lines(out, what + " by"), what + " " + opts[-1],
                            u64_strings=mode != "--json")
            check(all("top" in o for o in objs if o["agg"] != "counts"),
                  "%s by: %r" % (what, objs))
            if opts == ["--count-by", "ustack"]:
                check_symbols(objs, what)


def check_symbols(objs, what):
    """since 1.3: a ustack's symbols, parallel to its frames, each the
    parts of its frame's text"""
    stacks = [p for o in objs for t in o.get("top", []) for p in t.get("parts", [])
              if isinstance(p, dict) and "frames" in p]
    check(stacks, "%s ustack: no stack" % what)
    named = 0
    for k in stacks:
        check(len(k["symbols"]) == len(k["frames"]),
              "%s ustack: %d symbols, %d frames" % (what, len(k["symbols"]),
                                                    len(k["frames"])))
        for text, sym in zip(k["frames"], k["symbols"]):
            if sym is None:
                check(text.startswith("0x"), "%s ustack: %r unnamed" % (what, text))
            elif sym["name"] is not None:
                named += 1
                check(text.startswith(sym["name"] + "+") and
                      text.endswith(" (%s)" % sym["object"]),
                      "%s ustack: %r vs %r" % (what, text, sym))
    check(named > 0, "%s ustack: no frame named" % what)


def test_features():
    objs = validate("features", lines(run(["features", "--json"]), "features"),
                    "features")
    check(len(objs) == 1, "features: %d objects, want 1" % len(objs))
    check(lines(run(["features", "--json-u64-strings"]), "features") == objs,
          "features --json-u64-strings: not the same object")


# ------------------------------------------------------------------

def mutations(o, path=()):
    """(path, value) for every scalar of @o, changed to JSON types it
    never has: an object for any scalar; a non-numeric string for a
    number, bool or null; a fraction for a string, bool or null."""
    if isinstance(o, dict):
        for k, v in o.items():
            yield from mutations(v, path + (k,))
        return
    if isinstance(o, list):
        for i, v in enumerate(o):
            yield from mutations(v, path + (i,))
        return
    if path == ("schema",):
        return
    yield path, {"wrong": 1}
    # null stands for a missing value of any type (an unreadable
    # argument, an unknown answer): only an object is never one
    if o is None:
        return
    if not isinstance(o, str):
        yield path, "wrong"
    if not isinstance(o, (int, float)) or isinstance(o, bool):
        yield path, 0.5


def put(o, path, v):
    o = copy.deepcopy(o)
    t = o
    for k in path[:-1]:
        t = t[k]
    t[path[-1]] = v
    return o


def test_schemas():
    for s in STREAMS:
        Draft202012Validator.check_schema(load(s))
        check(load(s)["properties"]["schema"]["const"] == version(s),
              "%s: schema const" % s)
    check(load("parse")["$defs"]["arg"] == load("list")["$defs"]["arg"] and
          load("parse")["$defs"]["reg"] == load("list")["$defs"]["reg"],
          "parse and list describe arguments differently")
    samples = {
        "parse": lines(run(["parse", "--json", "--arch", "x86_64", "--",
                            "-4@-1204(%rbp,%rax,8) -1@%ah 8@$-1 8@$sym "
                            "8f@%xmm0 -4@%bad 8@-8(%rip)"], rc=(1,)), "parse"),
        "trace": [{"schema": "usdtkit-trace/1.2", "ts_ns": 1, "pid": 2,
                   "tid": 3, "provider": "p", "name": "n",
                   "args": [1, -1, 2 ** 64 - 1, 1.5, None, "s\ufffd"],
                   "truncated": [5], "err": -14}],
        "features": lines(run(["features", "--json"]), "features"),
        # one of each aggregation (tests/cli/cli_trace_agg.sh checks them live)
        "trace-agg": [
            {"schema": "usdtkit-trace-agg/2.0", "agg": "counts", "provider": "p",
             "name": "n", "path": "/x", "count": 3},
            {"schema": "usdtkit-trace-agg/2.0", "agg": "avg", "interval": 2,
             "provider": "p", "name": "n", "arg": 0, "count": 2, "value": 1.5},
            {"schema": "usdtkit-trace-agg/2.0", "agg": "min", "provider": "p",
             "name": "n", "arg": 11, "count": 2, "value": -7},
            {"schema": "usdtkit-trace-agg/2.0", "agg": "hist", "provider": "p",
             "name": "n", "arg": 1, "count": 3, "buckets": [
                 {"min": -2 ** 63, "max": -1, "count": 1},
                 {"min": 2 ** 63, "max": 2 ** 64 - 1, "count": 2}]},
            {"schema": "usdtkit-trace-agg/2.0", "agg": "count_by", "provider": "p",
             "name": "n", "by": "str(arg3)", "keys": 3,
             "top": [{"key": "a", "count": 2}, {"key": None, "count": 1}]},
            # since 2.0: a composite key's and a stack's key, the row's text
            {"schema": "usdtkit-trace-agg/2.0", "agg": "count_by", "provider": "p",
             "name": "n", "by": "pid,str(arg0)", "keys": 2, "keys_cut": 0,
             "top": [{"key": "7, \"a\"", "parts": [7, "a"], "count": 2},
                     {"key": "7, <fault>", "parts": [7, None], "count": 1}]},
            {"schema": "usdtkit-trace-agg/2.0", "agg": "count_by", "provider": "p",
             "name": "n", "by": "ustack", "keys": 1,
             "top": [{"key": "f+0x1 (/x) (pid 7)", "count": 1,
                      "parts": [{"pid": 7, "frames": ["f+0x1 (/x)"], "ips": [1],
                                 "symbols": [None]}]}]},
            {"schema": "usdtkit-trace-agg/2.0", "agg": "latency", "start": "a:b:c",
             "end": "a:b:d", "key": "tid", "count": 1, "unmatched": 0,
             "min_ns": 5, "avg_ns": 5.0, "max_ns": 5,
             "buckets": [{"min": 4, "max": 7, "count": 1}]},
        ],
    }
    if ARGS.elf_dir:
        x = os.path.join(ARGS.elf_dir, "x86_64")
        samples["list"] = lines(run(["list", "--json", os.path.join(x, "fix_pie_O2"),
                                     os.path.join(x, "libfix.so")]), "list")
    for stream, objs in samples.items():
        v = validator(stream)
        check(objs and all(v.is_valid(o) for o in objs),
              "%s: the samples themselves do not validate" % stream)
        n = 0
        for o in objs[:8]:
            for path, bad in mutations(o):
                # an argument may be any scalar since 1.1 (a string with
                # --str): only an object is never one
                if stream == "trace" and path[0] == "args" and not isinstance(bad, dict):
                    continue
                # a --count-by key is an integer or a string (or null)
                if stream == "trace-agg" and path[0] == "top" and \
                        path[-1] == "key" and not isinstance(bad, dict):
                    continue
                # and so is a part of it (a str() part: a string)
                if stream == "trace-agg" and path[0] == "top" and len(path) == 4 and \
                        path[2] == "parts" and not isinstance(bad, dict):
                    continue
                n += 1
                check(not v.is_valid(put(o, path, bad)),
                      "%s: %s = %r is accepted" % (stream, "/".join(map(str, path)),
                                                   bad))
        # a field that is not in the contract is refused here
        check(not v.is_valid(dict(objs[0], undocumented=1)),
              "%s: an undocumented field is accepted" % stream)
        # and a type change of the value of an unsigned constant: -1
        print("%s: %d mutations refused" % (stream, n))
    # since 2.0: a composite key or a stack is never its first part
    for i, path in ((5, ("top", 0, "key")), (6, ("top", 0, "key"))):
        for first in (7, None):
            check(not validator("trace-agg").is_valid(put(samples["trace-agg"][i], path, first)),
                  "trace-agg: a composite or ustack key %r is accepted" % first)
    bad = put(samples["parse"][0], ("args", 2, "value"), -1)
    check(not validator("parse").is_valid(bad),
          "parse: a negative value of an unsigned constant is accepted")


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--usdtkit", required=True)
    ap.add_argument("--schemas", required=True)
    ap.add_argument("--elf-dir")
    ap.add_argument("--demo")
    ap.add_argument("test", choices=("schemas",) + STREAMS)
    ARGS = ap.parse_args()
    {"schemas": test_schemas, "parse": test_parse, "list": test_list,
     "trace": test_trace, "trace-agg": test_trace_agg,
     "features": test_features}[ARGS.test]()
    sys.exit(check.finish("json_schema"))


if __name__ == "__main__":
    main()
