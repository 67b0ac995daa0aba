#!/bin/sh
# The kernel verifies only what a trace uses: the instructions the
# verifier processed for a print of one probe are a fraction of those of
# the richest configuration (filter, every aggregation, string keys,
# latency), and each stays under a quarter of the 1M limit. Counts, from
# `usdtkit trace -v` (the verifier's own statistics), never times. Root,
# BPF; skipped (77), saying why, when the kernel's log has no count.
# usage: trace_verifier_insns.sh USDTKIT TRACE_LOAD_C
set -u
u=$1 src=$2

. "$(dirname "$0")/../helpers/check.sh"

${CC:-cc} -O2 -std=c11 -o "$tmp/load" "$src" || exit 1
S=$tmp/load:tload:hot E=$tmp/load:tload:done

# insns OPTIONS...: the count of one load, or nothing
insns() {
	"$u" trace -v -c /bin/true "$@" "$S" 2>&1 </dev/null |
		sed -n 's/.*loaded usdtkit_trace: .*, \([0-9]*\) insns processed,.*/\1/p'
}

print=$(insns)
if [ -z "$print" ] || [ "$print" = 0 ]; then
	echo "SKIP: this kernel's verifier log states no processed count" \
		"(or the load failed): $(uname -r)"
	exit 77
fi
filter=$(insns --filter 'arg0 < 0')
counts=$(insns --counts)
rich=$(insns --filter 'arg0 >= 0 && str(arg1) == "key*"' --counts \
	--count-by 'str(arg1)' --hist arg0 --sum arg0 --avg arg0 --min arg0 \
	--max arg0 --latency "$S" "$E" --key 'str(arg1)')
kids=$(insns --children --counts)
echo "processed insns: print $print, filter $filter, counts $counts, richest $rich," \
	"counts --children $kids"

for n in "$filter" "$counts" "$rich"; do
	[ -n "$n" ] && ok || ko "a configuration did not load"
done
[ "${rich:-0}" -gt $((print * 3 / 2)) ] && ok ||
	ko "print ($print) is not much below the richest ($rich)"
[ "${filter:-0}" -gt "$print" ] && ok || ko "the filter ($filter) adds nothing to print ($print)"
[ "${counts:-0}" -lt "$print" ] && ok || ko "counts ($counts) verify more than print ($print)"
[ "${rich:-1000000}" -lt 250000 ] && ok || ko "richest ($rich) is past a quarter of 1M"
# a trace that reads no string loads the program it always did (the
# string reads that fault pages in are in usdtkit_trace_str only), so
# its counts above cannot grow; one that reads a string loads
# usdtkit_trace_str, sleepable or not, and says which
strs() {
	"$u" trace -v -c /bin/true "$@" "$S" 2>&1 </dev/null |
		sed -n 's/.*loaded usdtkit_trace: .*load [0-9.]* ms\(.*\)$/[\1]/p'
}
for o in "" "--filter arg0<0" "--counts" "--count-by arg0" "--hist arg0"; do
	# shellcheck disable=SC2086
	[ "$(strs $o)" = "[]" ] && ok || ko "no string ($o): $(strs $o)"
done
case $(strs --str 1) in
"[, strings faulted in at the hit (sleepable)]"|"[, strings not in memory read late]") ok ;;
*) ko "--str 1: $(strs --str 1)" ;;
esac
[ "$(strs --str 1 --no-fault-in)" = "[, strings not in memory read late]" ] && ok ||
	ko "--str 1 --no-fault-in: $(strs --str 1 --no-fault-in)"
late=$(insns --filter 'arg0 >= 0 && str(arg1) == "key*"' --counts \
	--count-by 'str(arg1)' --latency "$S" "$E" --key 'str(arg1)' --no-fault-in)
echo "processed insns: strings read late (--no-fault-in), richest $late"
[ "${late:-1000000}" -lt 250000 ] && ok || ko "richest read late ($late) is past a quarter of 1M"

# keys: the keyed code is in usdtkit_trace_by(_str) only, so a
# trace without a key verifies what it did before keys (the counts were
# print 5452, filter 8319, counts 619, --hist 2831 on 6.18; since the
# per-hit slots print 5591, filter 8930, counts 717: their ratios above
# hold); each keyed configuration loads, under a quarter of 1M
for o in "--count-by pid" "--count-by tid" "--count-by comm" "--count-by ustack" \
	"--count-by pid,comm,arg0" "--hist arg0 --by str(arg1)" \
	"--sum arg0 --max arg0 --by comm" "--latency $S $E --by str(arg1)" \
	"--count-by ustack --stack-depth 127"; do
	# shellcheck disable=SC2086
	n=$(insns $o)
	echo "processed insns: $o: $n"
	[ -n "$n" ] && [ "$n" -lt 250000 ] && ok || ko "$o: '$n'"
done
# a trace without a key loads usdtkit_trace, not the keyed program
[ "$(insns --hist arg0)" -lt "$(insns --hist arg0 --by pid)" ] && ok ||
	ko "--hist without a key verifies the keyed code"
# a ustack key tells the engine of each process's first stack (an event:
# a few dozen instructions, 926 -> 984 on 6.18), walked only for a
# ustack part (by_kind, load-time): the other keys verify what they did.
# --stack-fp: the kernel's walk, a stack id and its note
pid=$(insns --count-by pid) fp=$(insns --count-by ustack --stack-fp)
[ -n "$pid" ] && [ -n "$fp" ] && [ "$fp" -lt $((pid + 250)) ] && ok ||
	ko "--count-by ustack --stack-fp ($fp) against --count-by pid ($pid): more than a stack and its note"
# unwound (trace_unwind.h): the step is a global function, verified once
# (about 1200 instructions on 6.18), and the frame loop grows with the
# depth, linearly: 127 frames cost less than 4 times 16 (a walk verified
# once per frame it may end at was 178051 for 127 frames, 16x)
ust=$(insns --count-by ustack) deep=$(insns --count-by ustack --stack-depth 127)
echo "processed insns: --count-by ustack --stack-fp: $fp"
[ -n "$ust" ] && [ -n "$deep" ] && [ "$deep" -lt $((4 * ust)) ] && ok ||
	ko "--count-by ustack: 16 frames $ust, 127 frames $deep: not linear in the depth"

# --children's check is walked with it only (a load-time constant), and
# is a few instructions
[ "${kids:-0}" -gt "${counts:-0}" ] && [ "${kids:-0}" -lt $((counts + 100)) ] && ok ||
	ko "--children ($kids) against counts ($counts): not a few more"

finish trace_verifier_insns
