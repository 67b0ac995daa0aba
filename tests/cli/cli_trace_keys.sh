#!/bin/sh
# usdtkit trace --count-by KEY and --by KEY, live (root, BPF): tests/fixtures/fx_keys.c
# fires known hits per thread name, pid, tid, string and value, so every
# count, histogram, sum, maximum and latency count per key is known in
# advance; a key computed wrongly (another part, another offset) breaks
# them. Also: the bad key's one line and exit 2, a thread name with an
# escape escaped, and 100,000 distinct keys past a small table counted
# in BY_FULL and said once, in bounded memory (max RSS from getrusage,
# via /usr/bin/time-less python).
# usage: cli_trace_keys.sh USDTKIT FX_KEYS SCHEMA_DIR
set -u
u=$1 fx=$2 schemas=$3

. "$(dirname "$0")/../helpers/check.sh"

E=$fx:keys:evt
# run OPTIONS...: a trace of fx_keys fork (and its child), JSON to $tmp/out
run() {
	echo go | timeout 120 "$u" trace -q --children -c "$fx $tmp/fx fork" "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 0 ] && ok || { ko "$*: exit $rc"; cat "$tmp/err"; }
}

# py WHAT: a python check of $tmp/out (JSON objects) and $tmp/fx
py() {
	what=$1; shift
	if python3 - "$tmp/out" "$tmp/fx" "$schemas" "$@"; then ok; else
		ko "$what:"; cat "$tmp/out" "$tmp/err"; fi
}

PYLIB='
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
fx = [l.split() for l in open(sys.argv[2])]
tids = {int(l[2]): int(l[1]) for l in fx if l[0] == "tid"}
pid = [int(l[1]) for l in fx if l[0] == "pid"][0]
child = ([int(l[1]) for l in fx if l[0] == "child"] + [None])[0]
names = ["kw-a", "kw-b", "kw-c", "kw\x1b[2J"]
def rows(agg):
    o = [o for o in objs if o["agg"] == agg]
    assert len(o) == 1, (agg, o)
    return o[0]
def key(t): return tuple(json.dumps(p) for p in t["parts"])
'

run --json --count-by pid "$E"
py "count by pid" <<PY
$PYLIB
got = {t["key"]: t["count"] for t in rows("count_by")["top"]}
assert got == {pid: 66, child: 6}, (got, pid, child)
PY

run --json --count-by tid "$E"
py "count by tid" <<PY
$PYLIB
got = {t["key"]: t["count"] for t in rows("count_by")["top"]}
want = {tids[0]: 10, tids[1]: 20, tids[2]: 30, tids[3]: 2, pid: 4, child: 6}
assert got == want, (got, want)
PY

run --json --count-by comm "$E"
py "count by comm" <<PY
$PYLIB
got = {t["key"]: t["count"] for t in rows("count_by")["top"]}
want = {"kw-a": 10, "kw-b": 20, "kw-c": 30, "kw\x1b[2J": 2, "fx_keys": 10}
assert got == want, (got, want)
PY
# the escape is escaped in text
run --count-by comm "$E"
grep -q '^           2  kw\\x1b\[2J$' "$tmp/out" && ok || { ko "comm escaped"; cat "$tmp/out"; }
if grep -q "$(printf '\033')" "$tmp/out"; then ko "a raw ESC in the output"; else ok; fi

run --json --count-by 'pid, str(arg0)' "$E"
py "count by pid, str(arg0)" <<PY
$PYLIB
got = {(t["parts"][0], t["parts"][1]): t["count"] for t in rows("count_by")["top"]}
want = {(pid, "GET"): 21, (pid, "POST"): 39, (pid, "ESC"): 2, (pid, "MAIN"): 4,
        (child, "CHILD"): 6}
assert got == want, (got, want)
PY

run --json --count-by arg1 --top 3 "$E"
py "count by arg1, top 3" <<PY
$PYLIB
from collections import Counter
c = Counter()
for n in (10, 20, 30):
    for j in range(n): c[j + 1] += 1
c[5] += 2; c[100] += 4; c[7] += 6
o = rows("count_by")
assert o["keys"] == len(c), (o["keys"], len(c))
top = sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
assert [(t["key"], t["count"]) for t in o["top"]] == top, (o["top"], top)
PY

run --json --hist arg1 --by 'str(arg0)' "$E"
py "hist by str(arg0)" <<PY
$PYLIB
from collections import defaultdict
want = defaultdict(lambda: defaultdict(int))
def slot(v): return (0, 0) if v == 0 else (1 << (v.bit_length() - 1), (1 << v.bit_length()) - 1)
for n in (10, 20, 30):
    for j in range(n):
        want["GET" if j % 3 == 0 else "POST"][slot(j + 1)] += 1
want["ESC"][slot(5)] += 2; want["MAIN"][slot(100)] += 4; want["CHILD"][slot(7)] += 6
o = rows("hist")
got = {t["key"]: {(b["min"], b["max"]): b["count"] for b in t["buckets"]} for t in o["top"]}
assert got == {k: dict(v) for k, v in want.items()}, got
assert [t["key"] for t in o["top"]] == ["POST", "GET", "CHILD", "MAIN", "ESC"], o["top"]
PY

run --json --sum arg1 --min arg1 --max arg1 --by comm "$E"
py "sum, min, max by comm" <<PY
$PYLIB
for agg, want in (("sum", {"kw-a": 55, "kw-b": 210, "kw-c": 465, "kw\x1b[2J": 10, "fx_keys": 442}),
                  ("min", {"kw-a": 1, "kw-b": 1, "kw-c": 1, "kw\x1b[2J": 5, "fx_keys": 7}),
                  ("max", {"kw-a": 10, "kw-b": 20, "kw-c": 30, "kw\x1b[2J": 5, "fx_keys": 100})):
    got = {t["key"]: t["value"] for t in rows(agg)["top"]}
    assert got == want, (agg, got)
vals = [t["value"] for t in rows("sum")["top"]]
assert vals == sorted(vals, reverse=True), vals
PY

# --interval reads with RESET: --count-by and --sum... by the same key
# share their table; summed over the reports (however many the machine's
# speed makes), each has every hit once
echo go | timeout 120 "$u" trace -q -c "$fx $tmp/fx slow" --json --interval 0.01 \
	--count-by comm --sum arg1 --by comm "$E" >"$tmp/out" 2>"$tmp/err" && ok ||
	{ ko "--interval: exit $?"; cat "$tmp/err"; }
py "count-by and sum by comm, per interval" <<PY
$PYLIB
from collections import Counter
c, v = Counter(), Counter()
for o in objs:
    for t in o["top"]:
        if o["agg"] == "count_by":
            c[t["key"]] += t["count"]
        elif o["agg"] == "sum":
            v[t["key"]] += t["value"]
assert c == {"kw-a": 10, "kw-b": 20, "kw-c": 30, "kw\x1b[2J": 2, "fx_keys": 4}, c
assert v == {"kw-a": 55, "kw-b": 210, "kw-c": 465, "kw\x1b[2J": 10, "fx_keys": 400}, v
print("--interval: %d reports" % len([o for o in objs if o["agg"] == "sum"]))
PY

run --json --latency "$fx:keys:start" "$fx:keys:done" --by 'str(arg0)' "$E"
py "latency by str(arg0), taken at START" <<PY
$PYLIB
o = rows("latency")
got = {t["key"]: t["count"] for t in o["top"]}
assert got == {"GET": 21, "POST": 39, "ESC": 2, "MAIN": 4, "CHILD": 6}, got
assert all(sum(b["count"] for b in t["buckets"]) == t["count"] for t in o["top"])
PY

py "latency totals" <<PY
$PYLIB
o = rows("latency")
assert o["count"] == 72 and o["unmatched"] == 0 and o["key"] == "tid", o
assert sum(b["count"] for b in o["buckets"]) == 72, o
PY

# ustack (fx_keys has frame pointers): one stack per call site of hit()
# and process: run()'s two (60 and the escaped name's 2), main's 4, the
# child's 6, each whole (hit, its caller, and below). Both processes
# exit before the trace reads its stacks: each is named from the
# mappings kept at its first stack, or, when it exited before the trace
# could read them (the child may, microseconds after its hits), marked
# gone with its addresses (cli_trace_stack_exit.sh makes it certain)
run --json --count-by ustack "$E"
py "count by ustack" <<PY
$PYLIB
top = rows("count_by")["top"]
assert sorted(t["count"] for t in top) == [2, 4, 6, 60], top
for t in top:
    s = t["parts"][0]
    assert s["pid"] == (child if t["count"] == 6 else pid), t
    assert len(s["frames"]) >= 3, t
    if s.get("gone"):
        assert all(f.startswith("0x") for f in s["frames"]), t
    else:
        assert s["frames"][0].startswith("hit+0x"), t
# the same innermost frame (the probe in hit()), four callers
named = [t for t in top if not t["parts"][0].get("gone")]
assert len(set(t["parts"][0]["frames"][0] for t in named)) == 1, top
assert len(set(t["parts"][0]["frames"][1] for t in top)) == 4, top
PY
# the frame-pointer hint only where a frame was found by one: unwound
# (the fixture's code has call frame information), none; --stack-fp, said
run --count-by ustack --stack-depth 2 "$E"
[ "$(grep -c '^        [^ (]' "$tmp/out")" = 8 ] && ! grep -q 'frame pointers' "$tmp/out" &&
	ok || { ko "--stack-depth 2"; cat "$tmp/out"; }
run --count-by ustack --stack-depth 2 --stack-fp "$E"
[ "$(grep -c '^        [^ (]' "$tmp/out")" = 8 ] && grep -q 'without them gives short stacks' "$tmp/out" &&
	ok || { ko "--stack-depth 2 --stack-fp"; cat "$tmp/out"; }

# stack ids in small stack maps (--by-keys 4: 4 buckets, then 8): a
# stack whose buckets are both taken is counted under an error, never
# under another stack's id, so each row with frames is one call site's
# whole count, and the errors hold the rest (the kernel's walk: an
# unwound stack is its frames, in the key)
run --json --count-by ustack --by-keys 4 --stack-fp "$E"
py "count by ustack, small stack maps" <<PY
$PYLIB
top = rows("count_by")["top"]
assert sum(t["count"] for t in top) == 72, top
left = [2, 4, 6, 60]
for t in top:
    s = t["parts"][0]
    if "error" in s:
        assert s["error"] in (-17, -12) and not s["frames"], t
        continue
    assert t["count"] in left, (t, top)
    left.remove(t["count"])
    assert s["pid"] == (child if t["count"] == 6 else pid), t
    assert len(s["frames"]) >= 3, t
assert len(set(t["parts"][0]["frames"][1] for t in top if "error" not in t["parts"][0])) == 4 - len(left), top
PY
# --by-keys 1: stacks holds 1 stack, stacks2 2: of the 4, one at least
# finds no room, and is said
run --json --count-by ustack --by-keys 1 --stack-fp "$E"
py "count by ustack, stack maps full" <<PY
$PYLIB
top = rows("count_by")["top"]
assert len(top) == 1, top
s = top[0]["parts"][0]
assert ("error" in s and s["error"] in (-17, -12)) or top[0]["count"] in (2, 4, 6, 60), top
PY
grep -q "stacks past the stack maps' room counted without frames" "$tmp/err" && ok ||
	{ ko "stack maps full: said"; cat "$tmp/err"; }

# ---- a row's "key" tells it from the others (usdtkit-trace-agg/2.0) ----
# one part: its value; several parts, or a ustack (four stacks of one
# pid, where 1.x gave each its pid): the row as the text table prints
# it, on one line. Each object's keys distinct, one per row, and a
# composite key the text table's row itself (of another run: no pid)
for k in comm 'str(arg0),comm' 'pid,str(arg0)' 'tid,str(arg0),arg1' ustack 'comm,ustack'; do
	run --count-by "$k" --top 1000 "$E"
	mv "$tmp/out" "$tmp/text"
	run --json --count-by "$k" --top 1000 --hist arg1 --by "$k" "$E"
	py "keys distinct: $k" "$k" <<PY
$PYLIB
import os, re
k = sys.argv[4]
text = [l[14:].rstrip("\n") for l in open(os.path.dirname(sys.argv[1]) + "/text")
        if re.match(r"^ {0,11}\d+  ", l)]
assert {o["agg"] for o in objs} == {"count_by", "hist"}, objs
for o in objs:
    keys = [json.dumps(t["key"]) for t in o["top"]]
    assert len(o["top"]) == o["keys"] and len(set(keys)) == len(keys), (k, keys)
    if "," in k or "ustack" in k:
        assert all(isinstance(t["key"], str) for t in o["top"]), (k, o["top"])
    else:
        assert all([t["key"]] == t["parts"] for t in o["top"]), (k, o["top"])
    if "ustack" in k:
        assert all("(pid %d" % t["parts"][-1]["pid"] in t["key"] for t in o["top"]), o
    elif o["agg"] == "count_by" and "," in k and "pid" not in k and "tid" not in k:
        assert sorted(text) == sorted(t["key"] for t in o["top"]), (text, o["top"])
print("%s: %d distinct keys" % (k, len(objs[0]["top"])))
PY
done

# ---- Prometheus: a label per part (docs/METRICS.md), known values ----
# (prom.c escapes the rendered comm's backslash: kw\\x1b[2J)
run --textfile "$tmp/m.prom" --count-by 'comm,str(arg0)' --hist arg1 --sum arg1 \
	--max arg1 --by 'comm,str(arg0)' "$E"
python3 - "$tmp/m.prom" <<'PY' && ok || { ko "metrics by comm,str(arg0)"; cat "$tmp/m.prom"; }
import re, sys
samples = {}
for l in open(sys.argv[1]):
    if l.startswith("#") or not l.strip():
        continue
    m = re.match(r'^(\w+)(?:\{(.*)\})? (\S+)$', l.strip())
    assert m, l
    labels = tuple(sorted(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or "")))
    samples[(m.group(1), labels)] = float(m.group(3))
def get(name, **kw):
    k = (name, tuple(sorted(kw.items())))
    assert k in samples, (k, [s for s in samples if s[0] == name][:5])
    return samples[k]
P = "keys:evt"
assert get("usdtkit_probe_hits_by_key_total", probe=P, comm="kw-a", str_arg0="GET") == 4
assert get("usdtkit_probe_hits_by_key_total", probe=P, comm="kw-c", str_arg0="POST") == 20
assert get("usdtkit_probe_hits_by_key_total", probe=P, comm="kw\\\\x1b[2J", str_arg0="ESC") == 2
assert get("usdtkit_probe_hits_by_key_total", probe=P, comm="fx_keys", str_arg0="CHILD") == 6
assert get("usdtkit_probe_arg_max", probe=P, arg="arg1", comm="kw-a", str_arg0="GET") == 10
assert get("usdtkit_probe_arg_sum", probe=P, arg="arg1", comm="kw-a", str_arg0="GET") == 22
assert get("usdtkit_probe_arg_count", probe=P, arg="arg1", comm="kw-b", str_arg0="POST") == 13
assert get("usdtkit_probe_arg_bucket", probe=P, arg="arg1", comm="fx_keys", str_arg0="MAIN",
           le="127") == 4
assert get("usdtkit_probe_hits_total", probe=P) == 72
assert not any("\x1b" in k[1][i][1] for k in samples for i in range(len(k[1])))
PY
# past --max-series: the rest of a probe's keys in one __other__ series
run --textfile "$tmp/m.prom" --max-series 2 --count-by comm "$E"
grep -q '^usdtkit_probe_hits_by_key_total{probe="keys:evt",comm="__other__"} 22$' "$tmp/m.prom" &&
	grep -q '^usdtkit_series_dropped_total 3$' "$tmp/m.prom" &&
	grep -q '^usdtkit_probe_hits_by_key_total{probe="keys:evt",comm="kw-c"} 30$' "$tmp/m.prom" &&
	ok || { ko "metrics --max-series 2"; cat "$tmp/m.prom"; }

# a bad key: one line, exit 2, naming the key and what is allowed
for k in foo 'arg12' 'pid,tid,comm,ustack' 'str(pid)' ''; do
	"$u" trace --count-by "$k" "$E" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		grep -qF "bad key '$k': want argN, str(argN), pid, tid, comm or ustack, up to 3 joined by ','" \
			"$tmp/err" && ok || { ko "bad key '$k': exit $rc"; cat "$tmp/err"; }
done
"$u" trace --count-by pid --hist arg1 --by comm "$E" >/dev/null 2>"$tmp/err" </dev/null
[ $? = 2 ] && grep -q "one key per trace" "$tmp/err" && ok || { ko "two keys"; cat "$tmp/err"; }

# 100,000 distinct keys, a table of 1,000: the rest counted BY_FULL and
# said once; the CLI's memory bounded by the table, not the keys
python3 - "$u" "$fx" "$tmp" <<'PY' && ok || ko "100,000 keys"
import resource, subprocess, sys
u, fx, tmp = sys.argv[1:4]
def run(n):
    p = subprocess.run([u, "trace", "-q", "--json", "--by-keys", "1000", "--count-by", "arg1",
                        "-c", "%s %s/fx many %d" % (fx, tmp, n), fx + ":keys:evt"],
                       input=b"go\n", capture_output=True, timeout=300)
    return p
p = run(100000)
assert p.returncode == 0, p.stderr
err = p.stderr.decode()
lines = [l for l in err.splitlines() if "not counted" in l]
assert len(lines) == 1 and "99000 hits of keys past the first 1000 not counted" in lines[0], err
import json
o = json.loads(p.stdout.decode().splitlines()[0])
assert o["keys"] == 1000 and sum(t["count"] for t in o["top"]) == 20, o["keys"]
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("100,000 keys, --by-keys 1000: max RSS of the children %d KiB" % rss)
assert rss < 200 * 1024, rss
# the default table (10,240 keys) as JSON and as metrics (--max-series
# 10,000: the other 240 keys in __other__)
for out in ("--json", "--textfile"):
    p = subprocess.run([u, "trace", "-q", "--top", "1000000", "--count-by", "arg1"] +
                       (["--json"] if out == "--json" else ["--textfile", tmp + "/many.prom"]) +
                       ["-c", "%s %s/fx many 100000" % (fx, tmp), fx + ":keys:evt"],
                       input=b"go\n", capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "89760 hits of keys past the first 10240 not counted" in p.stderr.decode(), p.stderr
    if out == "--json":
        o = json.loads(p.stdout.decode().splitlines()[0])
        assert o["keys"] == 10240 and len(o["top"]) == 10240, o["keys"]
prom = open(tmp + "/many.prom").read()
assert prom.count("usdtkit_probe_hits_by_key_total{") == 10001, prom.count("{")
assert 'key="__other__"} 240' in prom and "usdtkit_series_dropped_total 240" in prom
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("100,000 keys, the default 10,240 kept, all as JSON and metrics: max RSS %d KiB" % rss)
assert rss < 200 * 1024, rss
PY

finish cli_trace_keys
