#!/bin/sh
# usdtkit trace --filter and the in-kernel aggregations, live (root, BPF):
# the demo (examples/demo.c) fires demo:request(ID, ID * 100, -ID, path)
# for ID = 1..N and demo:tick(ID / 10, 2^64 - ID / 10) every 10th, so
# every count, sum, extreme, histogram and key is known in advance; the
# latency pair of tests/fixtures/fx_lat.c sleeps between START and END (in a
# library) and writes down when each probe call began and ended, the
# bounds each latency must lie in however slow the machine. No verdict
# rests on elapsed time, only on what the programs did and measured: the
# timeouts are watchdogs. Text and JSON (checked against the schema), and
# the usage errors.
# usage: cli_trace_agg.sh USDTKIT DEMO TESTS_BIN_DIR SCHEMA_DIR
set -u
u=$1 demo=$2 bin=$3 schemas=$4
lat=$bin/fx_lat lib=$bin/libfx_lat.so

. "$(dirname "$0")/../helpers/check.sh"

req=$demo:demo:request tick=$demo:demo:tick

# trace WHAT WANT-RC CMD ARGS...: usdtkit trace -q -c CMD ARGS (CMD's
# stdin: one line, to let fx_lat go; its stdout, the trace's, without
# the demo's first line)
trace() {
	what=$1 want=$2 cmd=$3; shift 3
	echo go | timeout 120 "$u" trace -q -c "$cmd" "$@" >"$tmp/all" 2>"$tmp/err"
	rc=$?
	grep -v '^demo: pid' "$tmp/all" >"$tmp/out"
	if [ "$rc" -eq "$want" ]; then ok; else
		ko "$what: exit $rc, want $want"; cat "$tmp/err"; fi
}

# py WHAT SCRIPT: a python check of $tmp/out (JSON lines in `objs`)
py() {
	what=$1; shift
	if python3 - "$tmp/out" "$schemas" "$@"; then ok; else
		ko "$what:"; cat "$tmp/out" "$tmp/err"; fi
}

# ---- --filter: an exact subset, in the kernel, in two modes ----
for m in multi perf; do
	trace "filter $m" 0 "$demo -n 30 -i 0" --mode $m \
		--filter 'arg0 > 25 || str(arg3) == "/api*" && arg2 >= -10' "$req"
	got=$(sed -n 's/.*demo:request(u64 \([0-9]*\),.*/\1/p' "$tmp/out" | tr '\n' ' ')
	[ "$got" = "2 5 8 26 27 28 29 30 " ] && ok || ko "filter $m: kept $got"
	grep -q "^usdtkit trace: 8 hits printed, 0 lost, 22 dropped by the filter\$" \
		"$tmp/err" && ok || { ko "filter $m: summary"; cat "$tmp/err"; }
done
# a filter that keeps nothing sends nothing; pid and tid are the hit's
trace "filter none" 0 "$demo -n 30 -i 0" --filter 'arg0 < 0 || pid == 0' "$req"
[ ! -s "$tmp/out" ] && grep -q "0 hits printed, 0 lost, 30 dropped" "$tmp/err" &&
	ok || { ko "filter none"; cat "$tmp/out" "$tmp/err"; }
trace "filter pid" 0 "$demo -n 30 -i 0" --json --filter 'pid > 0 && tid == pid && (arg0 & 1 == 0 || arg0 & 1)' "$req"
[ "$(grep -c '"name":"request"' "$tmp/out")" = 30 ] && ok || ko "filter pid: $(wc -l <"$tmp/out") hits"
trace "filter str !=" 0 "$demo -n 9 -i 0" --json --filter 'str(arg3) != "/" && !(arg1 & 0x100)' "$req"
py "filter str !=" <<'PY'
import json, sys
ids = [json.loads(l)["args"][0] for l in open(sys.argv[1])]
want = [i for i in range(1, 10) if i % 3 and not (i * 100) & 0x100]
assert ids == want, (ids, want)
PY

# ---- aggregations, known values: JSON ----
trace "aggregations json" 0 "$demo -n 100 -i 0" --json --counts --sum arg0 \
	--avg arg0 --min arg0 --max arg0 --hist arg1 "$req" "$tick"
py "aggregations json" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
got = {(o["agg"], o["name"]): o for o in objs}
assert len(got) == len(objs) == 12, objs
def val(agg, name, key="value"):
    return got[(agg, name)][key]
assert val("counts", "request", "count") == 100 and val("counts", "tick", "count") == 10
assert val("sum", "request") == 5050 and val("sum", "tick") == 55
assert val("avg", "request") == 50.5 and val("avg", "tick") == 5.5
assert val("min", "request") == 1 and val("min", "tick") == 1
assert val("max", "request") == 100 and val("max", "tick") == 10
# arg1 of request: ID * 100 -> log2 buckets; of tick: 2^64 - ID / 10
want = {}
for i in range(1, 101):
    v = i * 100
    lo = 1 << (v.bit_length() - 1)
    want[lo] = want.get(lo, 0) + 1
b = [(x["min"], x["max"], x["count"]) for x in val("hist", "request", "buckets")]
assert b == [(lo, 2 * lo - 1, n) for lo, n in sorted(want.items())], b
b = [(x["min"], x["max"], x["count"]) for x in val("hist", "tick", "buckets")]
assert b == [(1 << 63, (1 << 64) - 1, 10)], b
try:
    from jsonschema import Draft202012Validator
except ImportError:
    sys.exit(0)
schema = json.load(open(sys.argv[2] + "/usdtkit-trace-agg.schema.json"))
for o in objs:
    Draft202012Validator(schema).validate(o)
PY

# ---- the same in text ----
trace "aggregations text" 0 "$demo -n 100 -i 0" --counts --sum arg0 --avg arg0 \
	--min arg0 --max arg0 --hist arg0 "$tick"
cat >"$tmp/want" <<'TXT'
        HITS  PROBE
          10  demo:tick
demo:tick: arg0: count 10, sum 55, avg 5.50, min 1, max 10
demo:tick: hist of arg0, 10 values
[1]                         1 |@@@@@@@@@@@@@                                       |
[2, 4)                      2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[4, 8)                      4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[8, 16)                     3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@             |
TXT
cmp -s "$tmp/want" "$tmp/out" && ok || { ko "aggregations text:"; diff "$tmp/want" "$tmp/out"; }

# ---- --count-by: strings, signed keys, --top ----
trace "count-by str" 0 "$demo -n 100 -i 0" --count-by 'str(arg3)' "$req"
cat >"$tmp/want" <<'TXT'
demo:request: count by str(arg3), 3 keys
          34  "/index.html"
          33  "/"
          33  "/api/v1/items"
TXT
cmp -s "$tmp/want" "$tmp/out" && ok || { ko "count-by str:"; diff "$tmp/want" "$tmp/out"; }
# keys past --strlen: cut, marked, and merged when they are then equal
# ("/index.html" and "/api/v1/items" are both "/"... at 1), never
# merged with the key that is the whole string ("/")
trace "count-by str cut" 0 "$demo -n 100 -i 0" --count-by 'str(arg3)' --strlen 1 "$req"
cat >"$tmp/want" <<'TXT'
demo:request: count by str(arg3), 2 keys (1 cut at --strlen 1)
          67  "/"...
          33  "/"
TXT
cmp -s "$tmp/want" "$tmp/out" && ok || { ko "count-by str cut:"; diff "$tmp/want" "$tmp/out"; }
trace "count-by top" 0 "$demo -n 100 -i 0" --json --filter 'arg0 <= 10' \
	--count-by arg2 --top 3 "$req"
py "count-by top" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
assert o["agg"] == "count_by" and o["by"] == "arg2" and o["keys"] == 10, o
# ties are sorted by key: -10, -9, -8 as unsigned come first
# (1.2 adds "parts": the key's parts, here one)
assert [{"key": t["key"], "count": t["count"]} for t in o["top"]] == \
    [{"key": -10, "count": 1}, {"key": -9, "count": 1}, {"key": -8, "count": 1}], o
assert all(t["parts"] == [t["key"]] for t in o["top"]), o
PY

# ---- --top's default (20 rows), and keys past agg_by's 10240 ----
trace "count-by full" 0 "$demo -n 10300 -i 0" --count-by arg0 "$req"
[ "$(grep -c '^ *1  [0-9]*$' "$tmp/out")" = 20 ] &&
	grep -q "count by arg0, top 20 of 10240 keys" "$tmp/out" && ok ||
	{ ko "count-by full: table"; head -3 "$tmp/out"; }
grep -q "^usdtkit trace: --count-by: 60 hits of keys past the first 10240 not counted\$" \
	"$tmp/err" && ok || { ko "count-by full: message"; cat "$tmp/err"; }

# ---- --count N with an aggregation: the trace stops, CMD with it ----
# The count is read at each poll and the demo goes on firing meanwhile,
# so a few hits past 5 may be aggregated: how many depends on how soon
# the trace polls, so that is not checked. Whatever their number, the
# report has every hit the program kept (CMD is stopped before the read).
trace "count agg" 0 "$demo -n 100000 -i 5" --json --count 5 --counts "$req"
kept=$(sed -n 's/^usdtkit trace: \([0-9]*\) hits aggregated$/\1/p' "$tmp/err")
py "count agg" "${kept:-0}" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
assert o["agg"] == "counts" and 5 <= o["count"] == int(sys.argv[3]), o
PY
# the demo would go on for 500 s: the trace ended it
grep -q "killed by signal 15" "$tmp/err" && ok || { ko "count agg: CMD"; cat "$tmp/err"; }
# exactly 5 hits, then fx_lat waits to be killed: nothing past the 5 can
# come, so the count is exact, and only --count can end the trace
trace "count exact" 0 "$lat hits 5" --json --count 5 --counts "$lat:lat:start"
py "count exact" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
assert o["agg"] == "counts" and o["count"] == 5, o
PY
grep -q "killed by signal 15" "$tmp/err" && ok || { ko "count exact: CMD"; cat "$tmp/err"; }

# ---- --interval: reports that add up to the whole ----
# In lockstep with the reports, not with a clock: fx_lat fires 5 hits;
# once they are done and two more reports are out (the first may have
# been read before the hits), it fires 15, then exits. So the reports up
# to then hold the 5, those after the 15 (one at least: the last, at the
# end), each report on its own interval, however late each one comes.
# (A hit landing between a report's read and its zeroing would be lost,
# as trace/read.c documents: a window of microseconds, longer
# only if the trace is preempted right there, which two batches of a few
# microseconds each are unlikely to meet: the one way this can fail
# without a bug.)
mkfifo "$tmp/in"
timeout 120 "$u" trace -q -c "$lat batches" --json --interval 0.2 --counts \
	"$lat:lat:start" <"$tmp/in" >"$tmp/all" 2>"$tmp/err" &
tpid=$!
exec 3>"$tmp/in"
# until_ok CMD...: until CMD succeeds (0), or the trace has ended or 60 s
# have passed (1): a watchdog, each wait takes 0.4 s at most unloaded
until_ok() {
	_n=0
	until "$@"; do
		if [ $_n -ge 600 ] || ! kill -0 $tpid 2>/dev/null; then return 1; fi
		sleep 0.1; _n=$((_n + 1))
	done
}
reports() { grep -c '"interval"' "$tmp/all"; }
has_reports() { [ "$(reports)" -ge "$1" ]; }
# tell N: fire N (no SIGPIPE if fx_lat is gone: the verdict says it)
tell() { (trap '' PIPE; echo "$1" >&3) 2>/dev/null; }
tell 5
until_ok grep -q '^fx_lat: fired 5$' "$tmp/all"
until_ok has_reports $(($(reports) + 2))
m=$(reports)
tell 15
until_ok grep -q '^fx_lat: fired 15$' "$tmp/all"
exec 3>&-
wait $tpid
rc=$?
cp "$tmp/all" "$tmp/out"
if [ $rc -eq 0 ]; then ok; else ko "interval: exit $rc, want 0"; cat "$tmp/err"; fi
grep -q "^usdtkit trace: 20 hits aggregated\$" "$tmp/err" && ok ||
	{ ko "interval: summary"; cat "$tmp/err"; }
py "interval" "$m" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1])]
assert [l for l in lines if l.startswith("fx_lat:")] == \
    ["fx_lat: fired 5\n", "fx_lat: fired 15\n"], lines
objs = [json.loads(l) for l in lines if not l.startswith("fx_lat:")]
m = int(sys.argv[3])
assert 2 <= m < len(objs), (m, objs)
assert [o["interval"] for o in objs] == list(range(1, len(objs) + 1)), objs
# each says how long its interval was (how long is the clock's: not checked)
assert all(type(o["seconds"]) in (int, float) and o["seconds"] >= 0
           for o in objs), objs
assert all(o["agg"] == "counts" and o["name"] == "start" for o in objs), objs
c = [o["count"] for o in objs]
assert sum(c[:m]) == 5 and sum(c[m:]) == 15, (m, objs)
PY

# ---- --latency: END in another object ----
# latcheck WHAT KEY: the report in $tmp/out against the calls fx_lat wrote
# to $tmp/lat. The pairs are formed as the tracer must form them (by arg0,
# or by the one thread for tid and pid); a pair's latency is then at least
# end.before - start.after and at most end.after - start.before (the hits
# are inside their calls, a trap's worth of microseconds from either
# clock read), and every figure must fit those bounds: no fixed limit,
# which a loaded machine's longer sleeps would break.
latcheck() {
	py "$1" "$tmp/lat" "$2" <<'PY'
import collections, itertools, json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
key = sys.argv[4]
assert o["agg"] == "latency" and o["key"] == key, o
pending, pairs, unmatched = {}, [], 0
for l in open(sys.argv[3]):
    name, ident, before, after = l.split()
    k = int(ident) if key == "arg0" else 0
    if name == "start":
        pending[k] = (int(before), int(after))
    elif k in pending:
        s = pending.pop(k)
        pairs.append((int(before) - s[1], int(after) - s[0]))
    else:
        unmatched += 1
assert pairs and all(0 < lo <= hi for lo, hi in pairs), pairs
assert o["count"] == len(pairs) and o["unmatched"] == unmatched, (o, pairs)
lo, hi = [p[0] for p in pairs], [p[1] for p in pairs]
assert min(lo) <= o["min_ns"] <= min(hi), (o, pairs)
assert max(lo) <= o["max_ns"] <= max(hi), (o, pairs)
# avg_ns is the sum over the count, as a double
assert sum(lo) - 1 <= o["avg_ns"] * len(pairs) <= sum(hi) + 1, (o, pairs)
# log2 buckets [2^k, 2^(k+1)): a pair whose bounds straddle an edge may
# be in either bucket; the histogram must be one way of putting each
# pair in a bucket its bounds allow (a handful of pairs: try them all)
b = o["buckets"]
assert all(x["max"] == 2 * x["min"] - 1 and x["count"] > 0 for x in b), b
got = sorted((x["min"], x["count"]) for x in b)
choices = [[1 << e for e in range(l.bit_length() - 1, h.bit_length())]
           for l, h in pairs]
assert any(sorted(collections.Counter(c).items()) == got
           for c in itertools.product(*choices)), (o, pairs)
PY
}
trace "latency" 0 "$lat sleeps $tmp/lat" --json --latency "$lat:lat:start" "$lib:latlib:end"
latcheck "latency" tid
py "latency" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
# 9, 40 and 160 ms sleeps, and end(100), end(101) without a start; a
# sleep is never shorter than asked (longer has no limit)
assert o["count"] == 3 and o["unmatched"] == 2, o
assert o["min_ns"] >= 9e6 and o["max_ns"] >= 160e6, o
PY
trace "latency text" 0 "$lat sleeps $tmp/lat" --latency "$lat:lat:start" "$lib:latlib:end"
grep -q "^latency .*lat:start -> .*latlib:end by tid: count 3, min [0-9.]* ms, avg [0-9.]* ms, max [0-9.]* ms, 2 unmatched\$" \
	"$tmp/out" && ok || { ko "latency text"; cat "$tmp/out"; }
# two starts in flight: by arg0 both pair; by tid the second replaces the first
trace "latency arg0" 0 "$lat interleave $tmp/lat" --json --latency "$lat:lat:start" \
	"$lib:latlib:end" --key arg0
latcheck "latency arg0" arg0
py "latency arg0" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
# at least 9 + 40 and 40 ms
assert o["count"] == 2 and o["unmatched"] == 0, o
assert o["min_ns"] >= 40e6 and o["max_ns"] >= 49e6, o
PY
trace "latency pid" 0 "$lat sleeps $tmp/lat" --json --latency "$lat:lat:start" \
	"$lib:latlib:end" --key pid
latcheck "latency pid" pid
py "latency pid" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
assert o["key"] == "pid" and o["count"] == 3 and o["unmatched"] == 2, o
PY
trace "latency tid" 0 "$lat interleave $tmp/lat" --json --latency "$lat:lat:start" "$lib:latlib:end"
latcheck "latency tid" tid
py "latency tid" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
assert o["count"] == 1 and o["unmatched"] == 1 and o["min_ns"] >= 40e6, o
PY

# ---- errors: one line, exit 2 ----
bad() {
	what=$1 msg=$2; shift 2
	trace "$what" 2 "$demo -n 1 -i 0" "$@"
	grep -q -- "$msg" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ] && ok ||
		{ ko "$what: message"; cat "$tmp/err"; }
}
bad "filter syntax" "bad --filter 'arg0 > 25 ||': column 13: " --filter 'arg0 > 25 ||' "$req"
bad "filter unknown" "column 9: unknown identifier 'foo'" --filter 'arg0 == foo' "$req"
bad "filter arg" "column 1: arg7: probe has 4 arguments.*demo:request" --filter 'arg7 > 1' "$req"
bad "hist arg" "demo:tick: --hist arg3: the probe has 2 arguments" --hist arg3 "$req" "$tick"
bad "count-by" "bad key 'arg': want argN, str(argN), pid, tid, comm or ustack, up to 3 joined by ','" --count-by arg "$req"
bad "stats args" "take the same argument" --sum arg0 --max arg1 "$req"
bad "top" "--top goes with --count-by" --top 3 --counts "$req"
bad "key" "--key goes with --latency" --key pid --counts "$req"
bad "interval" "--interval goes with an aggregation" --interval 1 "$req"
bad "latency end" "END is missing" --latency "$req"
bad "latency both" "is both START and END" --latency "$req" "$req"
bad "str agg" "--str prints hits" --str 3 --counts "$req"

finish cli_trace_agg
