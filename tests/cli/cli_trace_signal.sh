#!/bin/sh
# `usdtkit trace` and SIGINT/SIGTERM. A signal during the setup stops it
# there: trace exits at once with the status of Ctrl-C (0) and says so,
# prints no hit, leaves nothing attached and, with -c, never runs CMD
# (tests/fixtures/fx_cmd.c creates $FX_CMD_MARK when it runs). The signal comes
# at a known step, not after a sleep: USDTKIT_TEST_SIGNAL_AT=STEP (a
# test hook of cli/cmd_trace.c) has trace send itself SIGTERM there. A
# signal once the trace runs is sent on an event read from its output
# (a hit, or the "Tracing" line), never after a delay; timeout(1) is
# only a watchdog, 100 times what a run takes.
# Needs root and BPF.
# usage: cli_trace_signal.sh USDTKIT FX_CMD
set -u
u=$1
fx=$2
. "$(dirname "$0")/../helpers/trace_run.sh"

# Links on $fx held by any process (their fdinfo names the file), and
# tracefs uprobes on it. A trace that has exited holds nothing; anything
# here was handed to another process (the held child of -c...).
leftovers() {
	grep -lsF "$fx" /proc/[0-9]*/fdinfo/* 2>/dev/null
	grep -shF "$fx" /sys/kernel/tracing/uprobe_events \
		/sys/kernel/debug/tracing/uprobe_events
}

# CMD "$fx 1 120 3" or trace's held child: processes with that command
# line but the reaper of perf mode (a clone of trace that releases its
# perf events in the background, attach/reaper.c, on purpose)
cmd_procs() {
	for p in $(pgrep -f "$fx 1 120 3"); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = usdtkit-reaper ] || echo $p
	done
}

# gone WHAT: no CMD, no held child, no leftovers
gone() {
	[ -z "$(cmd_procs)" ] && ok || { ko "$1: CMD or its held child still runs:"; ps -f $(cmd_procs); }
	[ -z "$(leftovers)" ] && ok || { ko "$1: left behind:"; leftovers; }
}

# stopped_at STEP TRACE_ARGS...: a SIGTERM at STEP of the setup
stopped_at() {
	step=$1; shift
	what="SIGTERM at $step: trace $*"
	rm -f "$tmp/mark"
	FX_CMD_MARK=$tmp/mark USDTKIT_TEST_SIGNAL_AT=$step \
		timeout -s KILL 60 "$u" trace "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && ok || { ko "$what: exit $rc"; cat "$tmp/err"; }
	[ "$(cat "$tmp/err")" = "usdtkit trace: stopped by SIGTERM before the trace began${cmd:+; the command was not run}" ] &&
		ok || { ko "$what: stderr:"; cat "$tmp/err"; }
	[ ! -s "$tmp/out" ] && ok || { ko "$what: hits:"; cat "$tmp/out"; }
	[ ! -e "$tmp/mark" ] && ok || ko "$what: CMD ran"
	gone "$what"
}

# -c, in both attach modes: 'cmdt:*' is two probes, so "attach" comes
# with one attached and one not. CMD sleeps 120 s: had it run, the
# trace would outlast the watchdog.
cmd=1
for m in multi perf; do
	for step in open spawn load attach go; do
		stopped_at $step --mode "$m" -c "$fx 1 120 3" 'cmdt:*'
	done
done
cmd=
# a PATH target, any process
for step in open load attach go; do
	stopped_at $step "$fx:cmdt:*"
done
# -p: the process traced is not ours to end; traced once it has exec'd
# (its mark made), not while its pid still runs a copy of this shell
FX_CMD_MARK=$tmp/wmark "$fx" 1 600 3 &
wpid=$!
w=0
until [ -e "$tmp/wmark" ] || [ $w -ge 600 ]; do sleep 0.1; w=$((w + 1)); done
for step in open load attach go; do
	stopped_at $step -p $wpid 'cmdt:*'
done
kill -0 $wpid 2>/dev/null && ok || ko "-p: the traced process was ended"

# sig_on_line SIG PATTERN FD TRACE_ARGS...: trace in the background, its
# stdout (FD 1) or stderr (FD 2) into a fifo; once a line matching
# PATTERN comes, SIG to trace (timeout --foreground passes it on to
# trace alone). The fifo is read to the end, so trace never writes to a
# closed pipe (which would end it too). Status in $rc, stdout and stderr
# in $tmp/out and $tmp/err.
sig_on_line() {
	sig=$1 pat=$2 fd=$3; shift 3
	rm -f "$tmp/fifo" "$tmp/out" "$tmp/err"; mkfifo "$tmp/fifo"
	if [ "$fd" = 1 ]; then
		timeout --foreground -s KILL 60 "$u" trace "$@" >"$tmp/fifo" 2>"$tmp/err" &
		lines=$tmp/out
	else
		timeout --foreground -s KILL 60 "$u" trace "$@" 2>"$tmp/fifo" >"$tmp/out" &
		lines=$tmp/err
	fi
	tpid=$!
	seen=
	while IFS= read -r line; do
		printf '%s\n' "$line" >>"$lines"
		case $line in
		$pat)	[ -z "$seen" ] && kill -"$sig" $tpid; seen=1 ;;
		esac
	done <"$tmp/fifo"
	wait $tpid
	rc=$?
	[ -n "$seen" ] && ok || ko "$sig on '$pat': the line never came"
}

# -c with CMD running: trace ends it (SIGTERM), exits 0, summing up
sig_on_line TERM "*cmdt:start(*" 1 -c "$fx 1 120 3" cmdt:start
[ $rc -eq 0 ] && grep -q "command pid [0-9]* killed by signal 15" "$tmp/err" &&
	grep -q "^usdtkit trace: 1 hit printed" "$tmp/err" && ok ||
	{ ko "SIGTERM after a hit: exit $rc"; cat "$tmp/err"; }
gone "SIGTERM after a hit"
# a PATH target, and -p: SIGINT once tracing, the traced process lives on
sig_on_line INT "Tracing *" 2 "$fx:cmdt:start"
[ $rc -eq 0 ] && grep -q "^usdtkit trace: 0 hits printed" "$tmp/err" && ok ||
	{ ko "SIGINT, PATH target: exit $rc"; cat "$tmp/err"; }
sig_on_line INT "Tracing *" 2 -p $wpid cmdt:start
[ $rc -eq 0 ] && grep -q "^usdtkit trace: 0 hits printed" "$tmp/err" && ok ||
	{ ko "SIGINT, -p: exit $rc"; cat "$tmp/err"; }
kill -0 $wpid 2>/dev/null && ok || ko "SIGINT, -p: the traced process was ended"
kill $wpid
wait $wpid 2>/dev/null
gone "SIGINT"

finish
