#!/bin/sh
# Strings on pages the traced process has not touched yet
# (docs/ATTACH.md "Strings"), live (root, BPF), on tests/fixtures/fx_cold.c: its
# literals, a .data string, a memfd page and an anonymous page are each
# asserted absent from its page tables before the probe fires (exit 3
# otherwise). Where the kernel runs sleepable uprobes (usdtkit features:
# sleepable_uprobe, _multi) they read right at the hit; elsewhere, and
# with --no-fault-in everywhere, they are read late and marked so, in
# text and JSON (checked against the schema). Bad pointers (NULL, the
# first page, an unmapped page) stay faults. The same for --filter and
# --count-by str(arg1): a filter on a string it cannot read yet keeps the
# hit (undecided) and decides once it reads it late. A swapped-out
# anonymous page too, where a swap device can be had (an unused zram0 is
# set up for the test and reset after); said and skipped otherwise.
# usage: cli_trace_cold.sh USDTKIT FX_COLD SCHEMA_DIR
set -u
u=$1 fx=$2 schemas=$3

. "$(dirname "$0")/../helpers/check.sh"
zram=
cleanup() {
	if [ -n "$zram" ]; then
		swapoff /dev/zram0 2>/dev/null
		echo 1 >/sys/block/zram0/reset 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# tr OUT ERR FX_ARGS TRACE_ARGS...: trace fx_cold (held by -c until
# attached, fed its go line); the trace's status in $rc
tr_() {
	_o=$1 _e=$2 _a=$3; shift 3
	echo go | timeout 60 "$u" trace -v "$@" -c "$fx 1 $_a" "$fx:cold:s" >"$_o" 2>"$_e"
	rc=$?
	[ $rc -eq 0 ] || { ko "trace exit $rc ($*):"; tail -n 5 "$_e"; }
	# the fixture's own checks: its exit 3 says which page was not cold
	grep -q "command pid [0-9]* exited with status 0" "$_e" ||
		{ ko "fx_cold $_a failed ($*):"; cat "$_e"; }
}

set -- $("$u" features --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(int(bool(j["uprobe_multi"])), int(bool(j["sleepable_uprobe"])),
      int(bool(j["sleepable_multi"])))')
multi=$1 sl_perf=$2 sl_multi=$3
echo "kernel $(uname -r): uprobe_multi $multi, sleepable uprobes: perf $sl_perf, multi $sl_multi"
modes=perf
[ "$multi" = 1 ] && modes="multi perf"

# want LATE [SWAP]: the text expected, LATE the mark of strings read late
want() {
	_s=""
	[ "${2:-}" = swap ] && _s="swapped out"
	cat <<TXT
cold:s(s32 0, str "cold literal"$1)
cold:s(s32 1, str "spans two pages"$1)
cold:s(s32 2, str "cold data"$1)
cold:s(s32 3, str "memfd page"$1)
cold:s(s32 4, str "$_s"$1)
cold:s(s32 5, str <fault 0x0>)
cold:s(s32 6, str <fault 0x10>)
TXT
}
# the text of a trace, without time, pid, and the unmapped page's address
strip() {
	sed 's/^.* cold:s(/cold:s(/; /(s32 7, str <fault 0x[0-9a-f]*>)$/d' "$1"
}

for m in $modes; do
	sl=$sl_perf
	[ $m = multi ] && sl=$sl_multi
	late=" (read late)"
	[ "$sl" = 1 ] && late=""
	# ---- the default: faulted in at the hit, or read late (the
	# fixture lingers a second so that its memory can be read) ----
	tr_ "$tmp/d.txt" "$tmp/d.err" linger --mode $m --str 1
	want "$late" >"$tmp/want"
	if strip "$tmp/d.txt" | cmp -s "$tmp/want" -; then ok; else
		ko "$m default:"; strip "$tmp/d.txt" | diff "$tmp/want" -; cat "$tmp/d.err"; fi
	grep -q "(s32 7, str <fault 0x[0-9a-f]*>)$" "$tmp/d.txt" && ok ||
		ko "$m: the unmapped page is not a fault"
	if [ "$sl" = 1 ]; then
		grep -q "strings faulted in at the hit (sleepable)" "$tmp/d.err" && ok ||
			{ ko "$m: not loaded sleepable"; cat "$tmp/d.err"; }
	fi
	# ---- --no-fault-in: read late, marked ----
	tr_ "$tmp/n.txt" "$tmp/n.err" linger --mode $m --str 1 --no-fault-in
	want " (read late)" >"$tmp/want"
	if strip "$tmp/n.txt" | cmp -s "$tmp/want" -; then ok; else
		ko "$m --no-fault-in:"; strip "$tmp/n.txt" | diff "$tmp/want" -; cat "$tmp/n.err"; fi
	grep -q "strings not in memory read late" "$tmp/n.err" && ok ||
		{ ko "$m --no-fault-in: not said"; cat "$tmp/n.err"; }
	# the process exits right after its hits: each cold string is read
	# late or, once it is gone, "not read", never a fault
	tr_ "$tmp/g.txt" "$tmp/g.err" "" --mode $m --str 1 --no-fault-in
	n=$(grep -c '(s32 [0-4], str \(".*" (read late)\|<not read 0x[0-9a-f]*>\))$' "$tmp/g.txt")
	[ "$n" = 5 ] && grep -q "(s32 5, str <fault 0x0>)" "$tmp/g.txt" && ok ||
		{ ko "$m --no-fault-in, process gone: $n"; cat "$tmp/g.txt" "$tmp/g.err"; }
	# ---- --filter on a cold string: never dropped for it ----
	tr_ "$tmp/f.txt" "$tmp/f.err" "" --mode $m --str 1 --filter 'str(arg1) == "cold*"'
	if [ "$sl" = 1 ]; then
		printf 'cold:s(s32 0, str "cold literal")\ncold:s(s32 2, str "cold data")\n' >"$tmp/want"
		if strip "$tmp/f.txt" | cmp -s "$tmp/want" -; then ok; else
			ko "$m filter:"; strip "$tmp/f.txt" | diff "$tmp/want" -; cat "$tmp/f.err"; fi
		grep -q "2 hits printed, 0 lost, 6 dropped by the filter" "$tmp/f.err" && ok ||
			{ ko "$m filter counts"; cat "$tmp/f.err"; }
	fi
	# late, the process still there: decided on the strings read late
	tr_ "$tmp/fl.txt" "$tmp/fl.err" linger --mode $m --str 1 --no-fault-in \
		--filter 'str(arg1) == "cold*"'
	printf 'cold:s(s32 0, str "cold literal" (read late))\ncold:s(s32 2, str "cold data" (read late))\n' >"$tmp/want"
	if strip "$tmp/fl.txt" | cmp -s "$tmp/want" -; then ok; else
		ko "$m filter late:"; strip "$tmp/fl.txt" | diff "$tmp/want" -; cat "$tmp/fl.err"; fi
	grep -q "2 hits printed, 0 lost, 6 dropped by the filter" "$tmp/fl.err" && ok ||
		{ ko "$m filter late counts"; cat "$tmp/fl.err"; }
	# late, the process maybe gone (it exits right after its last hit,
	# and which hits the engine reads before that is a race): a hit whose
	# string can no longer be read is kept and marked, never dropped; one
	# read in time is decided ("x" matches none); NULL and 16 dropped
	tr_ "$tmp/fg.txt" "$tmp/fg.err" "" --mode $m --no-fault-in \
		--filter 'str(arg1) == "x"'
	n=$(grep -c "\[filter undecided: a string could not be read\]$" "$tmp/fg.txt")
	[ "$n" = "$(wc -l <"$tmp/fg.txt")" ] && ! grep -q "(s32 [56]," "$tmp/fg.txt" &&
		grep -q "$n hits\{0,1\} printed, 0 lost, $((8 - n)) dropped by the filter" "$tmp/fg.err" &&
		ok || { ko "$m filter, process gone: $n undecided"; cat "$tmp/fg.txt" "$tmp/fg.err"; }
	# the same aggregated: kept, counted, and said
	tr_ "$tmp/fa.txt" "$tmp/fa.err" "" --mode $m --no-fault-in --counts \
		--filter 'str(arg1) == "cold*"'
	grep -q "6 hits kept undecided" "$tmp/fa.err" && grep -q "6 hits aggregated, 2 dropped" "$tmp/fa.err" &&
		ok || { ko "$m filter aggregated, undecided:"; cat "$tmp/fa.txt" "$tmp/fa.err"; }
done

# ---- mode inst: its per-spec programs tail-call the trace's, in their
# non-sleepable context: read late on every kernel ----
tr_ "$tmp/i.txt" "$tmp/i.err" linger --mode inst --str 1
want " (read late)" >"$tmp/want"
if strip "$tmp/i.txt" | cmp -s "$tmp/want" - &&
	grep -q "strings not in memory read late" "$tmp/i.err"; then ok; else
	ko "inst:"; strip "$tmp/i.txt" | diff "$tmp/want" -; cat "$tmp/i.err"; fi

# ---- JSON: "late", "filter_undecided", the schema ----
tr_ "$tmp/j.json" "$tmp/j.err" linger --json --str 1 --no-fault-in
tr_ "$tmp/jf.json" "$tmp/jf.err" "" --json --no-fault-in --filter 'str(arg1) == "x"'
if python3 - "$tmp/j.json" "$tmp/jf.json" "$schemas" <<'PY'; then ok; else ko "json:"; cat "$tmp/j.json" "$tmp/jf.json"; fi
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
got = [(o["args"], o.get("late"), o.get("err")) for o in objs]
want = [([0, "cold literal"], [1], None), ([1, "spans two pages"], [1], None),
        ([2, "cold data"], [1], None), ([3, "memfd page"], [1], None),
        ([4, ""], [1], None), ([5, None], None, -14), ([6, None], None, -14),
        ([7, None], None, -14)]
assert got == want, got
und = [json.loads(l) for l in open(sys.argv[2])]
# those the engine could not read in time (a race with the exit): kept
assert set(o["args"][0] for o in und) <= {0, 1, 2, 3, 4, 7}, und
assert all(o["filter_undecided"] is True for o in und), und
try:
    from jsonschema import Draft202012Validator
except ImportError:
    sys.exit(0)
v = Draft202012Validator(json.load(open(sys.argv[3] + "/usdtkit-trace.schema.json")))
for o in objs + und:
    v.validate(o)
    assert o["schema"] == "usdtkit-trace/1.2"
PY

# ---- --count-by str(arg1): one key per string, not one null key ----
keys() {
	python3 - "$1" "$schemas" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if '"count_by"' in l]
try:
    from jsonschema import Draft202012Validator
    v = Draft202012Validator(json.load(open(sys.argv[2] + "/usdtkit-trace-agg.schema.json")))
    for o in objs:
        v.validate(o)
except ImportError:
    pass
top = sorted(("<null>" if k["key"] is None else k["key"], k.get("late", False),
              k.get("unread", False), k["count"]) for k in objs[0]["top"])
print(top)
PY
}
cnt_want() {
	python3 -c '
import sys
late = sys.argv[1] == "1"
print(sorted([(s, late, False, 1) for s in
              ["cold literal", "spans two pages", "cold data", "memfd page", ""]] +
             [("<null>", False, False, 3)]))' "$1"
}
late=1
[ "$sl_perf" = 1 ] && [ "$sl_multi" = "$multi" ] && late=0
tr_ "$tmp/k.json" "$tmp/k.err" linger --json -i 5 --count-by 'str(arg1)'
[ "$(keys "$tmp/k.json")" = "$(cnt_want $late)" ] && ok ||
	{ ko "count-by: $(keys "$tmp/k.json")"; cat "$tmp/k.json" "$tmp/k.err"; }
# late, read at the interval while the process lingers
tr_ "$tmp/kl.json" "$tmp/kl.err" linger --json -i 0.5 --count-by 'str(arg1)' --no-fault-in
[ "$(keys "$tmp/kl.json")" = "$(cnt_want 1)" ] && ok ||
	{ ko "count-by late: $(keys "$tmp/kl.json")"; cat "$tmp/kl.json" "$tmp/kl.err"; }
# the same strings read late at one hit and at the hit at the next (warm
# then): one key each, not two rows that print alike
tr_ "$tmp/ka.json" "$tmp/ka.err" "linger again" --json -i 0.5 --count-by 'str(arg1)' --no-fault-in
want=$(python3 -c '
print(sorted([(s, True, False, 2) for s in ["cold literal", "spans two pages", "cold data"]] +
             [(s, True, False, 1) for s in ["memfd page", ""]] + [("<null>", False, False, 3)]))')
[ "$(keys "$tmp/ka.json")" = "$want" ] && ok ||
	{ ko "count-by late then at the hit: $(keys "$tmp/ka.json")"; cat "$tmp/ka.json" "$tmp/ka.err"; }
# late, the process gone: unread, apart from the faults
tr_ "$tmp/kg.json" "$tmp/kg.err" "" --json --count-by 'str(arg1)' --no-fault-in
[ "$(keys "$tmp/kg.json")" = "[('<null>', False, False, 2), ('<null>', False, True, 6)]" ] && ok ||
	{ ko "count-by unread: $(keys "$tmp/kg.json")"; cat "$tmp/kg.json" "$tmp/kg.err"; }

# ---- an anonymous page swapped out ----
if ! grep -q . /proc/swaps 2>/dev/null || [ "$(wc -l </proc/swaps)" -lt 2 ]; then
	# no swap: an unused zram0, if the kernel has one, for this test
	if [ -e /sys/block/zram0/disksize ] && [ "$(cat /sys/block/zram0/disksize)" = 0 ] &&
		command -v mkswap >/dev/null && echo 64M >/sys/block/zram0/disksize 2>/dev/null; then
		zram=1
		mkswap /dev/zram0 >/dev/null 2>&1 && swapon /dev/zram0 2>/dev/null || zram=1
	fi
fi
if [ "$(wc -l </proc/swaps)" -ge 2 ]; then
	for x in "" --no-fault-in; do
		tr_ "$tmp/s.txt" "$tmp/s.err" "linger swap" --str 1 $x
		l=" (read late)"
		[ -z "$x" ] && [ "$sl_perf$sl_multi" = "1$multi" ] && l=""
		want "$l" swap >"$tmp/want"
		if strip "$tmp/s.txt" | cmp -s "$tmp/want" -; then ok; else
			ko "swapped out $x:"; strip "$tmp/s.txt" | diff "$tmp/want" -; cat "$tmp/s.err"; fi
	done
else
	echo "SKIP swapped-out page: no swap device, and no unused zram0 to make one"
fi

finish cli_trace_cold
