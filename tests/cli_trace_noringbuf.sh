#!/bin/sh
# A kernel without the BPF ring buffer (before Linux 5.8): `usdtkit
# features` says so, and `usdtkit trace` refuses in one line naming the
# ring buffer and the Linux version that has it, before it loads, forks
# or attaches anything: no libbpf error, no hit, CMD never run, nothing
# left attached. The kernel here has a ring buffer; tests/shim/
# no_ringbuf.c (LD_PRELOAD) makes every ring buffer map creation fail as
# an older kernel's does, so the whole CLI runs as it would there.
# Needs root and BPF.
# usage: cli_trace_noringbuf.sh USDTKIT SHIM FX_CMD
set -u
u=$1
shim=$2
fx=$3
. "$(dirname "$0")/check.sh"
# an ASan build's runtime must come first; the shim only forwards
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# the kernel itself has one: otherwise this test proves nothing
"$u" features >"$tmp/f0" 2>&1
grep -Eq '^ *ringbuf: +yes' "$tmp/f0" && ok ||
	{ ko "features without the shim: no ringbuf: yes line"; cat "$tmp/f0"; }

LD_PRELOAD=$shim "$u" features >"$tmp/f1" 2>&1
grep -Eq '^ *ringbuf: +no .*usdtkit trace needs it' "$tmp/f1" && ok ||
	{ ko "features under the shim: no ringbuf: no line"; cat "$tmp/f1"; }
LD_PRELOAD=$shim "$u" features --json >"$tmp/fj" 2>&1
grep -q '"ringbuf": *false' "$tmp/fj" && ok ||
	{ ko "features --json under the shim: ringbuf not false"; cat "$tmp/fj"; }

want="usdtkit trace: this kernel has no BPF ring buffer (Linux 5.8 and later), which trace needs"
# refused_ok WHAT TRACE_ARGS...
refused_ok() {
	what=$1; shift
	rm -f "$tmp/mark"
	FX_CMD_MARK=$tmp/mark LD_PRELOAD=$shim timeout -s KILL 60 \
		"$u" trace "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && ok || ko "$what: exit $rc, not 1"
	[ "$(cat "$tmp/err")" = "$want" ] && ok ||
		{ ko "$what: stderr is not the one line:"; cat "$tmp/err"; }
	[ ! -s "$tmp/out" ] && ok || { ko "$what: stdout:"; cat "$tmp/out"; }
	[ ! -e "$tmp/mark" ] && ok || ko "$what: CMD ran"
	grep -lsF "$fx" /proc/[0-9]*/fdinfo/* >"$tmp/held" 2>/dev/null
	[ ! -s "$tmp/held" ] && ok || { ko "$what: links left:"; cat "$tmp/held"; }
}
refused_ok "-c, auto" -c "$fx 1 120 3" 'cmdt:*'
refused_ok "-c, ipmap, counts" --mode ipmap --counts -c "$fx 1 120 3" 'cmdt:*'
refused_ok "a PATH target, -v" -v "$fx:cmdt:*"
finish
