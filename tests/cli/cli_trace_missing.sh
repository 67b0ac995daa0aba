#!/bin/sh
# What a kernel lacks, said in one line, before or instead of a libbpf
# error, with nothing left attached and CMD never run:
#  - no BPF ring buffer (before Linux 5.8): `usdtkit features` says so,
#    and `usdtkit trace` refuses before it loads, forks or attaches
#    anything, naming the ring buffer and the version that has it;
#  - no CONFIG_NET: `features` has no bpf_jit_enable sysctl, and the
#    failed load is explained as CONFIG_NET missing.
# The kernel here has both. LD_PRELOAD shims make the whole CLI see a
# kernel without: tests/fixtures/shim/no_ringbuf.c fails every ring buffer map
# creation with EINVAL, tests/fixtures/shim/no_net.c every socket filter load
# (libbpf's feature probes) and every open of /proc/sys/net, as such
# kernels do.
# Needs root and BPF.
# usage: cli_trace_missing.sh USDTKIT NO_RINGBUF_SO NO_NET_SO FX_CMD
set -u
u=$1
shim=$2
nonet=$3
fx=$4
. "$(dirname "$0")/../helpers/check.sh"
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

# no CONFIG_NET
LD_PRELOAD=$nonet "$u" features >"$tmp/f2" 2>&1
grep -Eq '^ *bpf_jit_enable: +unknown \(no such sysctl\)' "$tmp/f2" && ok ||
	{ ko "features without CONFIG_NET: no 'no such sysctl'"; cat "$tmp/f2"; }
want="usdtkit trace: loading the BPF program: Invalid argument: this kernel has no CONFIG_NET, which libbpf needs to probe the kernel's BPF support"
shim=$nonet
refused_ok "no CONFIG_NET, -c" -c "$fx 1 120 3" 'cmdt:*'
finish
