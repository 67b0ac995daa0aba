#!/bin/sh
# usdtkit trace --str on tests/fixtures/fx_str.c, live (root, BPF): a string
# argument printed exactly, cut at --strlen, a NULL and a bad pointer as
# the fault marker, control characters and ill-formed UTF-8 escaped, in
# text and in JSON (checked against the schema); the usage errors.
# usage: cli_trace_str.sh USDTKIT FX_STR SCHEMA_DIR
set -u
u=$1 fx=$2 schemas=$3

. "$(dirname "$0")/../helpers/trace_run.sh"

# ---- text, in each mode ----
for m in multi perf; do
	if run_traced "$fx" 1 "$tmp/$m.txt" "$tmp/$m.err" --mode $m --count 6 \
		--str 1 --strlen 16 "$fx:str:s"; then ok; else
		ko "text $m: exit $rc"; cat "$tmp/$m.err"; continue; fi
	sed 's/^.* str:s(/str:s(/' "$tmp/$m.txt" >"$tmp/$m.got"
	cat >"$tmp/want" <<'TXT'
str:s(s32 0, str "hello, world")
str:s(s32 1, str "xxxxxxxxxxxxxxxx"...)
str:s(s32 2, str <fault 0x0>)
str:s(s32 3, str <fault 0x10>)
str:s(s32 4, str "a\x1b[2J\"\\\x0a\x7f\xffé\xc2\x9b")
str:s(s32 5, str "")
TXT
	if cmp -s "$tmp/want" "$tmp/$m.got"; then ok; else
		ko "text $m:"; diff "$tmp/want" "$tmp/$m.got"; fi
done

# ---- the default --strlen (128), and the maximum ----
run_traced "$fx" 1 "$tmp/d.txt" "$tmp/d.err" --count 2 --str 1 "$fx:str:s"
x128=$(printf '%0128d' 0 | tr 0 x)
grep -q "(s32 1, str \"$x128\"...)\$" "$tmp/d.txt" && ok || { ko "default --strlen:"; cat "$tmp/d.txt" "$tmp/d.err"; }
# arguments 0 and 1: an int 0 read as a pointer faults; 300 bytes fit 4096
run_traced "$fx" 1 "$tmp/m.txt" "$tmp/m.err" --count 2 --str 0,1 --strlen 4096 "$fx:str:s"
x300=$(printf '%0300d' 0 | tr 0 x)
grep -q "(str <fault 0x0>, str \"hello, world\")\$" "$tmp/m.txt" &&
	grep -q "(str <fault 0x1>, str \"$x300\")\$" "$tmp/m.txt" && ok ||
	{ ko "--str 0,1 --strlen 4096:"; cat "$tmp/m.txt" "$tmp/m.err"; }

# ---- JSON: the values, and the schema ----
if run_traced "$fx" 1 "$tmp/j.json" "$tmp/j.err" --json --count 6 --str 1 \
	--strlen 16 "$fx:str:s"; then ok; else ko "json: exit $rc"; cat "$tmp/j.err"; fi
if python3 - "$tmp/j.json" "$schemas" <<'PY'; then ok; else ko "json:"; cat "$tmp/j.json"; fi
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
want = [
    ([0, "hello, world"], None, None),
    ([1, "x" * 16], [1], None),
    ([2, None], None, -14),
    ([3, None], None, -14),
    ([4, "a\x1b[2J\"\\\n\x7f\ufffd\u00e9\u009b"], None, None),
    ([5, ""], None, None),
]
got = [(o["args"], o.get("truncated"), o.get("err")) for o in objs]
assert got == want, got
try:
    from jsonschema import Draft202012Validator
except ImportError:
    sys.exit(0)
s = json.load(open(sys.argv[2] + "/usdtkit-trace.schema.json"))
v = Draft202012Validator(s)
for o in objs:
    v.validate(o)
assert all(o["schema"] == "usdtkit-trace/1.2" for o in objs)
PY
# nothing below 0x20 on stdout, no DEL, no C1 (as UTF-8) either
for f in "$tmp/multi.txt" "$tmp/j.json"; do
	if LC_ALL=C tr -d '\n' <"$f" | LC_ALL=C grep -q "[[:cntrl:]]\|$(printf '\302')[$(printf '\200-\237')]"; then
		ko "control character in $(basename "$f"):"; od -c "$f" | head
	else ok; fi
done

# ---- --count-by str(): keys past --strlen are cut and marked, never
# inside a UTF-8 character (case 4 has \xc3\xa9 at bytes 10-11: a cut at
# 11 keeps 10), and counted ----
echo go | timeout 60 "$u" trace -q --json --count-by 'str(arg1)' --strlen 11 \
	-c "$fx 1" str:s >"$tmp/k.json" 2>"$tmp/k.err"
rc=$?
if [ $rc -eq 0 ] && python3 - "$tmp/k.json" <<'PY'
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if '"count_by"' in l][0]
assert o["keys"] == 5 and o["keys_cut"] == 3, o
top = {(k["key"], k.get("cut", False)): k["count"] for k in o["top"]}
assert top == {(None, False): 2, ("", False): 1,
               ("a\u001b[2J\"\\\n\u007f\ufffd", True): 1,
               ("hello, worl", True): 1, ("xxxxxxxxxxx", True): 1}, top
PY
then ok; else ko "count-by str cut: exit $rc"; cat "$tmp/k.json" "$tmp/k.err"; fi

# ---- usage errors ----
for bad in "--str 12" "--str x" "--str ," "--str 1,,x" "--strlen 0" "--strlen 4097"; do
	# shellcheck disable=SC2086
	"$u" trace $bad "$fx:str:s" >/dev/null 2>"$tmp/u.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "bad --str" "$tmp/u.err" && ok ||
		{ ko "$bad: exit $rc"; cat "$tmp/u.err"; }
done
# an argument the probe does not have (str:s has 2): an error, as it is
# for --filter and --count-by, never a number printed instead
"$u" trace --str 1,9 -c /bin/true "$fx:str:s" >"$tmp/u.out" 2>"$tmp/u.err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/u.out" ] &&
	[ "$(cat "$tmp/u.err")" = "usdtkit trace: $fx:str:s: --str arg9: the probe has 2 arguments" ] &&
	ok || { ko "--str 1,9: exit $rc"; cat "$tmp/u.err"; }

finish
