#!/bin/sh
# usdtkit trace --filter and the in-kernel aggregations, live (root, BPF):
# the demo (examples/demo.c) fires demo:request(ID, ID * 100, -ID, path)
# for ID = 1..N and demo:tick(ID / 10, 2^64 - ID / 10) every 10th, so
# every count, sum, extreme, histogram and key is known in advance; the
# latency pair of tests/fx_lat.c has known sleeps, its END in a library.
# Text and JSON (checked against the schema), and the usage errors.
# usage: cli_trace_agg.sh USDTKIT DEMO TESTS_BIN_DIR SCHEMA_DIR
set -u
u=$1 demo=$2 bin=$3 schemas=$4
lat=$bin/fx_lat lib=$bin/libfx_lat.so

. "$(dirname "$0")/check.sh"

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
trace "count-by top" 0 "$demo -n 100 -i 0" --json --filter 'arg0 <= 10' \
	--count-by arg2 --top 3 "$req"
py "count-by top" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
assert o["agg"] == "count_by" and o["by"] == "arg2" and o["keys"] == 10, o
# ties are sorted by key: -10, -9, -8 as unsigned come first
assert o["top"] == [{"key": -10, "count": 1}, {"key": -9, "count": 1},
                    {"key": -8, "count": 1}], o
PY

# ---- --top's default (20 rows), and keys past agg_by's 10240 ----
trace "count-by full" 0 "$demo -n 10300 -i 0" --count-by arg0 "$req"
[ "$(grep -c '^ *1  [0-9]*$' "$tmp/out")" = 20 ] &&
	grep -q "count by arg0, top 20 of 10240 keys" "$tmp/out" && ok ||
	{ ko "count-by full: table"; head -3 "$tmp/out"; }
grep -q "^usdtkit trace: --count-by: 60 hits of keys past the first 10240 not counted\$" \
	"$tmp/err" && ok || { ko "count-by full: message"; cat "$tmp/err"; }

# ---- --count N with an aggregation: the trace stops, CMD with it ----
trace "count agg" 0 "$demo -n 100000 -i 5" --json --count 5 --counts "$req"
py "count agg" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
# the count is read at each 100 ms poll: a hit every 5 ms adds a few
assert o["agg"] == "counts" and 5 <= o["count"] < 100, o
PY

# ---- --interval: reports that add up to the whole ----
trace "interval" 0 "$demo -n 20 -i 50" --json --interval 0.3 --counts "$req"
py "interval" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
assert len(objs) >= 3, objs
assert [o["interval"] for o in objs] == list(range(1, len(objs) + 1)), objs
assert sum(o["count"] for o in objs) == 20, objs
assert max(o["count"] for o in objs) < 20, objs
PY

# ---- --latency: known sleeps, END in another object ----
trace "latency" 0 "$lat sleeps" --json --latency "$lat:lat:start" "$lib:latlib:end"
py "latency" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
assert o["agg"] == "latency" and o["key"] == "tid", o
assert o["count"] == 3 and o["unmatched"] == 2, o
assert 9e6 <= o["min_ns"] < 9e6 + 7e6, o
assert 160e6 <= o["max_ns"] < 268e6, o
# 9, 40 and 160 ms: one in each of [8M, 16M), [32M, 64M), [128M, 256M)
assert [(b["min"], b["count"]) for b in o["buckets"]] == \
    [(1 << 23, 1), (1 << 25, 1), (1 << 27, 1)], o
PY
trace "latency text" 0 "$lat sleeps" --latency "$lat:lat:start" "$lib:latlib:end"
grep -q "^latency .*lat:start -> .*latlib:end by tid: count 3, min [0-9.]* ms, avg [0-9.]* ms, max [0-9.]* ms, 2 unmatched\$" \
	"$tmp/out" && ok || { ko "latency text"; cat "$tmp/out"; }
# two starts in flight: by arg0 both pair; by tid the second replaces the first
trace "latency arg0" 0 "$lat interleave" --json --latency "$lat:lat:start" \
	"$lib:latlib:end" --key arg0
py "latency arg0" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
assert o["key"] == "arg0" and o["count"] == 2 and o["unmatched"] == 0, o
assert 40e6 <= o["min_ns"] < 49e6 <= o["max_ns"], o
PY
trace "latency pid" 0 "$lat sleeps" --json --latency "$lat:lat:start" \
	"$lib:latlib:end" --key pid
py "latency pid" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
assert o["key"] == "pid" and o["count"] == 3 and o["unmatched"] == 2, o
PY
trace "latency tid" 0 "$lat interleave" --json --latency "$lat:lat:start" "$lib:latlib:end"
py "latency tid" <<'PY'
import json, sys
o, = [json.loads(l) for l in open(sys.argv[1])]
assert o["count"] == 1 and o["unmatched"] == 1 and 40e6 <= o["min_ns"] < 49e6, o
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
bad "count-by" "bad --count-by 'arg': want argN or str(argN)" --count-by arg "$req"
bad "stats args" "take the same argument" --sum arg0 --max arg1 "$req"
bad "top" "--top goes with --count-by" --top 3 --counts "$req"
bad "key" "--key goes with --latency" --key pid --counts "$req"
bad "interval" "--interval goes with an aggregation" --interval 1 "$req"
bad "latency end" "END is missing" --latency "$req"
bad "latency both" "is both START and END" --latency "$req" "$req"
bad "str agg" "--str prints hits" --str 3 --counts "$req"

finish cli_trace_agg
