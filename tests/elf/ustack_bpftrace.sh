#!/bin/sh
# The user stack symbolizer against bpftrace 0.17 on one run of
# tests/fixtures/fx_stack.c (a PIE with frame pointers): bpftrace counts
# @[ustack(perf)] at fxstack:hit, which prints each frame's address and
# its name, "fx_stack_c+21 (/path)"; tests/elf/ustack_name.c names the same
# addresses of the same live process, "fx_stack_c+0x15 (/path)". Every
# frame must agree, the offset read as decimal there and hex here: the
# fixture's four functions and libc's frame below main (named through
# libc6-dbg's build-id file when it is installed, as bcc names it; by
# neither tool without it). Root, BPF; skipped (77) without bpftrace.
# usage: ustack_bpftrace.sh USTACK_NAME FX_STACK
set -u
namer=$1
fx=$2
. "$(dirname "$0")/../helpers/fx_stack.sh"
BPFTRACE_NO_CPP_DEMANGLE=1 __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 bpftrace -p "$fpid" \
	-e "usdt:$fx:fxstack:hit { @[ustack(perf)] = count(); }" \
	>"$tmp/bt.out" 2>"$tmp/bt.err" &
bpid=$!
wait_for "$tmp/bt.err" '^__BPFTRACE_NOTIFY_PROBES_ATTACHED$' 300 "$bpid" && ok ||
	{ ko "bpftrace did not attach"; cat "$tmp/bt.err"; }
echo "hit 7" >&3
wait_for "$tmp/fx.out" '^ok$' 100 "$fpid" && ok || ko "no hits"
kill -INT "$bpid"; wait "$bpid"; bpid=""
# "\t5565a821f3c5 fx_stack_c+21 (/path)" -> "ADDR fx_stack_c+0x15 (/path)"
awk -F'\t' 'NF == 2 { split($2, w, " "); print w[1] }' "$tmp/bt.out" >"$tmp/addrs"
awk -F'\t' 'NF == 2 {
	line = $2; sp = index(line, " "); rest = substr(line, sp + 1)
	if (match(rest, /^[^ ]+\+[0-9]+ /)) {
		sym = substr(rest, 1, RLENGTH - 1); obj = substr(rest, RLENGTH + 1)
		p = match(sym, /\+[0-9]+$/)
		printf "0 %s+0x%x %s\n", substr(sym, 1, p - 1), substr(sym, p + 1) + 0, obj
	} else
		printf "0 0x%s\n", substr(line, 1, sp - 1)
}' "$tmp/bt.out" >"$tmp/want"
# shellcheck disable=SC2046
"$namer" "$fpid" $(cat "$tmp/addrs") >"$tmp/got"
[ "$(wc -l <"$tmp/want")" -ge 4 ] && ok ||
	{ ko "bpftrace printed fewer than 4 frames"; cat "$tmp/bt.out"; }
cmp -s "$tmp/want" "$tmp/got" && ok ||
	{ ko "names differ (bpftrace, then usdtkit):"; cat "$tmp/want" "$tmp/got"; }
for f in fx_stack_c fx_stack_b fx_stack_a main; do
	grep -q "^0 $f+0x[0-9a-f]* ($fx)\$" "$tmp/got" && ok || ko "no frame $f"
done
cat "$tmp/got"
finish ustack_bpftrace
