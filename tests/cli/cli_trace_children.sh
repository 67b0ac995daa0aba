#!/bin/sh
# usdtkit trace --children, live (root, BPF), on tests/fixtures/fx_fork.c: a
# process with a child alive before the trace, children forked once it
# runs, their threads and their children. -p PID --children counts the
# hits of every one of them and none of another tree firing the same
# probe at the same time, in each mode, and ends by itself once the
# whole tree has exited; -p PID alone counts PID's; -c CMD --children
# as -p; --children without either is a usage error.
# usage: cli_trace_children.sh USDTKIT FX_FORK
set -u
u=$1 fx=$2

. "$(dirname "$0")/../helpers/check.sh"
wpid="" opid="" tpid=""
cleanup() {
	exec 3>&- 4>&- 2>/dev/null
	for p in $tpid $wpid $opid; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# the tree: C children with G children each, K hits per process or thread
C=3 G=2 K=5

# tree OUT ERR TRACE_ARGS...: fx_fork C G K, and another fx_fork (not of
# its tree) on the same probe, both held on fifos until the trace is
# attached (an argument @PID is the first one's pid); the trace's exit
# status in $rc, the first tree's in $wrc
tree() {
	_out=$1 _err=$2; shift 2
	rm -f "$tmp/go" "$tmp/go2" "$tmp/fx.out" "$_out" "$_err"
	mkfifo "$tmp/go" "$tmp/go2"
	"$fx" $C $G $K <"$tmp/go" >"$tmp/fx.out" &
	wpid=$!
	"$fx" 1 1 $K <"$tmp/go2" >/dev/null &
	opid=$!
	exec 3>"$tmp/go" 4>"$tmp/go2"
	# "ready": its first child is forked, before the trace starts
	wait_for "$tmp/fx.out" '^ready$' 300 $wpid || ko "fx_fork did not start"
	for _a in "$@"; do
		shift
		[ "$_a" = @PID ] && _a=$wpid
		set -- "$@" "$_a"
	done
	timeout 60 "$u" trace "$@" >"$_out" 2>"$_err" &
	tpid=$!
	wait_for "$_err" '^Tracing ' 300 $tpid || ko "trace $*: did not attach"
	echo go >&3
	echo go >&4
	exec 3>&- 4>&-
	wait $tpid; rc=$?
	wait $wpid; wrc=$?
	wait $opid
	tpid="" opid=""
}

# who OUT N: the hits of forkt:hit(N) in OUT
who() { grep -c "forkt:hit(s32 $2)\$" "$1"; }

# every process of the tree, by who (fx_fork.c): 0 itself, 4 the child
# forked before the trace, 1 the children, 3 their threads, 2 theirs
want="0:$K 4:$K 1:$((C * K)) 3:$((C * K)) 2:$((C * G * K))"
all=$((K * (2 + C * (2 + G))))
counts() {
	_got=""
	for _w in 0 4 1 3 2; do _got="$_got $_w:$(who "$1" $_w)"; done
	echo "${_got# }"
}

for m in multi perf ipmap; do
	tree "$tmp/out" "$tmp/err" --mode $m -v --children -p @PID forkt:hit
	[ $rc -eq 0 ] && [ $wrc -eq 0 ] && ok ||
		{ ko "$m --children: exit $rc (fx_fork $wrc)"; cat "$tmp/err"; continue; }
	got=$(counts "$tmp/out")
	[ "$got" = "$want" ] && ok || { ko "$m --children: hits $got, want $want"; cat "$tmp/err"; }
	[ "$(grep -c 'forkt:hit(' "$tmp/out")" -eq $all ] && ok ||
		{ ko "$m --children: other hits than the tree's:"; grep -v "pid $wpid " "$tmp/out" | head; }
	# the forks followed: the C children and their G each, not their
	# threads (the child forked before the trace was found in /proc)
	grep -q "^usdtkit trace: --children: $((C + C * G)) forks followed\$" "$tmp/err" && ok ||
		{ ko "$m --children: want $((C + C * G)) forks followed:"; cat "$tmp/err"; }
	# it ended by itself: the tree's exits emptied the map
	grep -q "^usdtkit trace: pid $wpid and its children exited\$" "$tmp/err" && ok ||
		{ ko "$m --children: did not end with the tree:"; cat "$tmp/err"; }

	tree "$tmp/out" "$tmp/err" --mode $m -p @PID forkt:hit
	got=$(counts "$tmp/out")
	[ $rc -eq 0 ] && [ "$got" = "0:$K 4:0 1:0 3:0 2:0" ] && ok ||
		{ ko "$m without --children: exit $rc, hits $got"; cat "$tmp/err"; }
	[ "$(grep -c "pid $wpid tid $wpid forkt:hit" "$tmp/out")" -eq $K ] && ok ||
		{ ko "$m without --children: hits not of pid $wpid"; cat "$tmp/out"; }
done

# a PATH target with -p, and the aggregations (counted in the kernel)
tree "$tmp/out" "$tmp/err" --children -p @PID --counts "$fx:forkt:hit"
[ $rc -eq 0 ] && grep -q "^ *$all  *forkt:hit\$" "$tmp/out" && ok ||
	{ ko "--counts PATH target: exit $rc, want $all hits:"; cat "$tmp/out" "$tmp/err"; }

# -c CMD --children: CMD's tree (its stdin is trace's: EOF lets it go)
timeout 60 "$u" trace -v --children -c "$fx $C $G $K" forkt:hit </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
got=$(counts "$tmp/out")
[ $rc -eq 0 ] && [ "$got" = "$want" ] && ok ||
	{ ko "-c --children: exit $rc, hits $got, want $want"; cat "$tmp/err"; }
# every process but CMD was forked while traced, its first child too
grep -q "^usdtkit trace: --children: $((1 + C + C * G)) forks followed\$" "$tmp/err" && ok ||
	{ ko "-c --children: want $((1 + C + C * G)) forks followed:"; cat "$tmp/err"; }
timeout 60 "$u" trace -c "$fx $C $G $K" forkt:hit </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
got=$(counts "$tmp/out")
[ $rc -eq 0 ] && [ "$got" = "0:$K 4:0 1:0 3:0 2:0" ] && ok ||
	{ ko "-c without --children: exit $rc, hits $got"; cat "$tmp/err"; }

# without -p or -c: one line, exit 2, before anything is loaded
run "--children alone" 2 "$u" trace --children "$fx:forkt:hit"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "--children goes with -p PID or -c CMD" "$tmp/err" &&
	ok || { ko "--children alone:"; cat "$tmp/err"; }

finish cli_trace_children
