#!/bin/sh
# usdtkit trace and list with several pids (live, root, BPF), on
# tests/fixtures/fx_pids.c: four processes of the same program, told on
# stdin what to fire, each a different number of times. -p A,B -p C
# (and a duplicate) counts exactly A's, B's and C's hits per pid, none of
# D's, which fires the same probes at the same time: PROVIDER:NAME and
# PATH targets, a probe behind a semaphore (raised in every traced
# process), a library one of them dlopen()s after the trace began, in
# each mode that can; --children with two pids counts their children's
# too; each pid's user stacks are unwound; the trace ends by itself once
# all three have exited. list -p A,B
# lists both. A space-separated list (pidof's) is a usage error that
# shows the forms that work (exit 2); a pid gone among several is one
# line naming it (exit 1); --mode hwbp and ipmap refuse several pids.
# AUTO on a kernel without cookies (shim/no_cookie.c, as Linux 5.10)
# takes mode inst, not ipmap.
# usage: cli_trace_pids.sh USDTKIT FX_PIDS LIBFX_CMD NO_COOKIE_SHIM
set -u
u=$1 fx=$2 lib=$3 shim=$4
PRE=""	# LD_PRELOAD of the traces: "" (this kernel) or the shim

. "$(dirname "$0")/../helpers/check.sh"
# (gcc's ASan build: the shim is preloaded before its runtime)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
A="" B="" C="" D="" tpid=""
cleanup() {
	exec 3>&- 4>&- 5>&- 6>&- 2>/dev/null
	for p in $tpid $A $B $C $D; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# start: A, B, C and D, each reading its commands from a fifo held open
# on fds 3 to 6, "ready" in $tmp/N.out
start() {
	for _n in A B C D; do
		rm -f "$tmp/$_n.in" "$tmp/$_n.out"
		mkfifo "$tmp/$_n.in"
		"$fx" "$lib" <"$tmp/$_n.in" >"$tmp/$_n.out" 2>&1 &
		eval "$_n=\$!"
	done
	exec 3>"$tmp/A.in" 4>"$tmp/B.in" 5>"$tmp/C.in" 6>"$tmp/D.in"
	for _n in A B C D; do
		eval "_p=\$$_n"
		wait_for "$tmp/$_n.out" '^ready$' 100 "$_p" || ko "fx_pids $_n did not start"
	done
}

# say N FD LINE: LINE to process N (its fifo on FD), and its "ok" waited
say() {
	_k=$(grep -c '^ok$' "$tmp/$1.out")
	echo "$3" >&"$2"
	_n=0
	until [ "$(grep -c '^ok$' "$tmp/$1.out")" -gt "$_k" ]; do
		[ $_n -ge 100 ] && { ko "fx_pids $1: no answer to '$3'"; return; }
		sleep 0.1; _n=$((_n + 1))
	done
}

# trace ARGS...: usdtkit trace in the background (the fifos not its),
# waited until attached; then each process fires: A 3, B 5 and a library
# loaded now 2, C 7, D 11 (and with --children each one's child as
# much); A, B and C end, and the trace with them (exit status in $rc);
# D ends last
trace() {
	# (a stale "Tracing" of the trace before must not be waited for)
	rm -f "$tmp/out" "$tmp/err"
	timeout 60 env ${PRE:+LD_PRELOAD=$PRE} "$u" trace "$@" >"$tmp/out" 2>"$tmp/err" \
		3>&- 4>&- 5>&- 6>&- &
	tpid=$!
	wait_for "$tmp/err" '^Tracing ' 300 $tpid || { ko "trace $*: did not attach"; cat "$tmp/err"; }
	say A 3 "fire 3"
	say B 4 "fire 5"
	say B 4 "lib 2"
	say C 5 "fire 7"
	say D 6 "fire 11"
	if [ "$kids" = 1 ]; then
		say A 3 "fork 3"
		say D 6 "fork 11"
	fi
	exec 3>&- 4>&- 5>&-
	wait $tpid; rc=$?
	tpid=""
	exec 6>&-
	wait $A $B $C $D 2>/dev/null
	A="" B="" C="" D=""
}

# by PROBE: "count pid" lines of --count-by pid's table of PROBE, by pid
by() {
	awk -v p="$1:" '$1 == p { on = 1; next } /^[^ ]/ { on = 0 } on { print $1, $2 }' \
		"$tmp/out" | sort -k2n | tr '\n' ' '
}
# want "COUNT PID"...: the same order
want() { printf '%s\n' "$@" | sort -k2n | tr '\n' ' '; }

kids=0

# ---- usage ----

run "space-separated" 2 "$u" trace -p "3829 3828" pidt:tick
grep -qx "usdtkit trace: bad pid '3829 3828': several pids are separated by commas (-p 3829,3828) or given as -p 3829 -p 3828; pidof -d, NAME prints them so (usdtkit help trace)" "$tmp/err" &&
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || { ko "space-separated: message"; cat "$tmp/err"; }
run "list space-separated" 2 "$u" list -p "3829 3828"
grep -q "bad pid '3829 3828': several pids are separated by commas (-p 3829,3828)" "$tmp/err" &&
	ok || { ko "list space-separated: message"; cat "$tmp/err"; }
for bad in "1," ",1" "1,,2" "0,1" "x"; do
	run "bad pid '$bad'" 2 "$u" trace -p "$bad" pidt:tick
	grep -q "bad pid '$bad': want PID or PID,PID" "$tmp/err" && ok ||
		{ ko "bad pid '$bad': message"; cat "$tmp/err"; }
done
run "hwbp several" 2 "$u" trace --mode hwbp -p 1,2 pidt:tick
grep -q "mode hwbp takes one pid" "$tmp/err" && ok || { ko "hwbp several: message"; cat "$tmp/err"; }

# ---- PROVIDER:NAME, each mode ----

kids=0
for m in multi perf inst no-cookie; do
	start
	want_pids="$A,$B,$C"
	wantA=$A wantB=$B wantC=$C
	[ $m = no-cookie ] && PRE=$shim mode=auto || mode=$m
	trace --mode $mode -v -p "$A,$B" -p "$C,$A" --count-by pid pidt:tick pidt:guarded cmdlib:fire
	PRE=""
	[ $rc -eq 0 ] && ok || { ko "$m: exit $rc"; cat "$tmp/err"; }
	# (AUTO without cookies: inst, as for a PIE by path; not ipmap)
	want_mode=$m
	[ $m = no-cookie ] && want_mode=inst
	grep -q "^Tracing .* in $want_mode mode" "$tmp/err" && ok ||
		{ ko "$m: not in mode $want_mode"; cat "$tmp/err"; }
	got=$(by pidt:tick) w=$(want "3 $wantA" "5 $wantB" "7 $wantC")
	[ "$got" = "$w" ] && ok ||
		{ ko "$m: pidt:tick by pid '$got', want '$w'"; cat "$tmp/out" "$tmp/err"; }
	got=$(by pidt:guarded)
	[ "$got" = "$(want "1 $wantA" "1 $wantB" "1 $wantC")" ] && ok ||
		{ ko "$m: pidt:guarded (semaphore) by pid '$got'"; cat "$tmp/out"; }
	got=$(by cmdlib:fire)
	[ "$got" = "2 $wantB " ] && ok || { ko "$m: cmdlib:fire (dlopen) '$got'"; cat "$tmp/out"; cat "$tmp/err"; }
	grep -qx "usdtkit trace: pids $want_pids exited" "$tmp/err" && ok ||
		{ ko "$m: the end of the pids not said"; cat "$tmp/err"; }
done

# ---- PATH targets ----

start
wantA=$A wantB=$B wantC=$C
trace -p "$A,$B,$C" --count-by pid "$fx:pidt:tick" "$fx:pidt:guarded" "$lib:cmdlib:fire"
[ $rc -eq 0 ] && ok || { ko "PATH: exit $rc"; cat "$tmp/err"; }
got="$(by pidt:tick)$(by pidt:guarded)$(by cmdlib:fire)"
w="$(want "3 $wantA" "5 $wantB" "7 $wantC")$(want "1 $wantA" "1 $wantB" "1 $wantC")2 $wantB "
[ "$got" = "$w" ] && ok || { ko "PATH: by pid '$got', want '$w'"; cat "$tmp/out"; }

# ---- ustack: each pid's stacks unwound, a library loaded later too ----

start
wantA=$A wantB=$B
trace -p "$A,$B" --count-by pid,ustack pidt:tick cmdlib:fire
[ $rc -eq 0 ] && ok || { ko "ustack: exit $rc"; cat "$tmp/err"; }
# a stack each: A's and B's ticks, B's library's fire, down to _start
[ "$(grep -c '^ *_start+0x[0-9a-f]* (' "$tmp/out")" -eq 3 ] &&
	grep -A1 '^ *fx_cmd_lib_fire+0x' "$tmp/out" | grep -q '^ *main+0x' &&
	grep -qx "  *(pid $wantA)" "$tmp/out" && grep -qx "  *(pid $wantB)" "$tmp/out" &&
	ok || { ko "ustack: stacks"; cat "$tmp/out"; }

# ---- --children, two pids ----

kids=1
start
wantA=$A wantC=$C
trace --children -p "$A" -p "$C" --counts pidt:tick
kids=0
[ $rc -eq 0 ] && ok || { ko "--children: exit $rc"; cat "$tmp/err"; }
# A's 3 and its child's 3, C's 7; not B's, D's or D's child's
grep -q "^pidt:tick  *13\$\|^ *13  *pidt:tick\$" "$tmp/out" && ok ||
	{ ko "--children: counts"; cat "$tmp/out"; }
grep -qx "usdtkit trace: pids $wantA,$wantC and their children exited" "$tmp/err" && ok ||
	{ ko "--children: the end not said"; cat "$tmp/err"; }

# ---- list -p, a pid gone, the modes that place probes in one process ----

start
# (pidt:tick's sites: one per copy of fire() the compiler made, each
# process the same)
run "list -p A,B" 0 "$u" list -p "$A,$B" -P pidt:tick
na=$(grep -c "^pidt:tick .* pid $A \"fx_pids\"" "$tmp/out")
nb=$(grep -c "^pidt:tick .* pid $B \"fx_pids\"" "$tmp/out")
[ "$na" -ge 1 ] && [ "$na" -eq "$nb" ] &&
	[ "$(grep -c '^pidt:tick' "$tmp/out")" -eq $((2 * na)) ] && ok || { ko "list -p A,B"; cat "$tmp/out"; }
run "list --json -p A -p B" 0 "$u" list --json -p "$A" -p "$B" -P pidt:tick
[ "$(grep -c "\"pid\":$A," "$tmp/out")" -eq "$na" ] &&
	[ "$(grep -c "\"pid\":$B," "$tmp/out")" -eq "$na" ] &&
	[ "$(wc -l <"$tmp/out")" -eq $((2 * na)) ] && ok || { ko "list --json"; cat "$tmp/out"; }
sh -c 'exit 0' & gone=$!
wait $gone
for t in pidt:tick "$fx:pidt:tick"; do
	run "a pid gone ($t)" 1 "$u" trace -p "$A,$gone" "$t"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "pid $gone: .*No such process" "$tmp/err" &&
		ok || { ko "a pid gone ($t): message"; cat "$tmp/err"; }
done
run "list a pid gone" 1 "$u" list -p "$gone,$A" -P pidt:tick
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "pid $gone: .*No such process" "$tmp/err" &&
	[ "$(grep -c "pid $A " "$tmp/out")" -eq "$na" ] &&
	ok || { ko "list a pid gone"; cat "$tmp/err" "$tmp/out"; }
run "ipmap several" 1 "$u" trace --mode ipmap -p "$A,$B" pidt:tick
grep -q "several pids: mode ipmap places its probes in one process" "$tmp/err" && ok ||
	{ ko "ipmap several: message"; cat "$tmp/err"; }
exec 3>&- 4>&- 5>&- 6>&-
wait $A $B $C $D 2>/dev/null
A="" B="" C="" D=""

finish cli_trace_pids
