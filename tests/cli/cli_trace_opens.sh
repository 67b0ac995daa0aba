#!/bin/sh
# `usdtkit trace` reads a PATH target once, however many of its probes
# it attaches: the probes are attached from the parse that found them
# (usdtkit_attach_opts.file), not from one more open and parse of the
# file per probe. Counted with strace, not timed: the opens of the
# target itself, in trace and in the children it forks.
# Needs root and BPF.
# usage: cli_trace_opens.sh USDTKIT FX_CMD
set -u
u=$1
fx=$2
. "$(dirname "$0")/../helpers/check.sh"
if ! command -v strace >/dev/null; then
	echo "SKIP: no strace (scripts/setup.sh installs it)"
	exit 77
fi

# opens WHAT WANT TRACE_ARGS...: trace under strace, exit 0, and WANT
# opens of $fx
opens() {
	what=$1 want=$2; shift 2
	# LeakSanitizer cannot run under ptrace (the ASan build's other
	# tests look for leaks)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=open,openat -o "$tmp/strace" \
		"$u" trace -q "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && ok || { ko "$what: exit $rc"; cat "$tmp/err"; }
	n=$(grep -c "\"$fx\"" "$tmp/strace")
	[ "$n" -eq "$want" ] && ok ||
		{ ko "$what: $n opens of $fx, want $want:"; grep -F "\"$fx\"" "$tmp/strace"; }
}
# fx_cmd has two probes, cmdt:start and cmdt:guarded (a semaphore)
opens "two probes, -c /bin/true" 1 -c /bin/true "$fx:cmdt:*"
# the same file named in two targets: read once per target, no more
opens "two targets, -c /bin/true" 2 -c /bin/true "$fx:cmdt:start" "$fx:cmdt:guarded"
# ipmap on a PIE: the addresses come from the process's own view of the
# file (its /proc/PID/root path), read once for the process; the path
# itself still once
"$fx" 0 600 &
wpid=$!
opens "ipmap, -p" 1 --mode ipmap -p $wpid --duration 0.1 "$fx:cmdt:*"
kill $wpid
finish
