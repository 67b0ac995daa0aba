#!/bin/sh
# The trace program's load on each VM kernel, per configuration: what
# every `usdtkit trace -v` of the VM proof printed (tests/vm/guest.sh
# runs them; tests/vm/check.py asserts each count is under a quarter of
# the verifier's 1M). Run `sh scripts/vm.sh all` (or any kernels) first;
# this reads build-cross/TARGET/tests/vm/run-*/console.log.
#
# One row per target, kernel and configuration (the program's .rodata
# features, cli/bpf/trace_event.h): the verifier's processed
# instructions (the largest of the runs: a probe with more arguments
# processes more), xlated instructions, and the median verification and
# load time in ms over the runs. Times are qemu TCG's, on a shared
# machine: compare kernels and configurations with each other, not with
# a board.
#
# usage: bench/vm_load.sh [CROSS...]
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- '*'
for t in "$@"; do
	for d in build-cross/$t/tests/vm/run-*; do
		[ -f "$d/console.log" ] || continue
		tt=${d#build-cross/}; tt=${tt%%/*}
		run=${d##*/run-}
		case $run in
		[0-9]*-*) k=${run%%-*} ;;
		*) k=$(grep -a -m1 '^@@begin' "$d/console.log" |
			awk '{ split($4, v, "."); print v[1] "." v[2] }') ;;
		esac
		grep -a -o 'loaded usdtkit_trace: .*' "$d/console.log" |
			tr -d '\r' | sed "s|^|$tt $k |"
	done
done | awk '
function cfg(f) {
	if (f == "0x1") return "print"
	if (f == "0x60") return "latency"
	if (f == "0xb1e") return "filter+str+aggs"
	return f
}
function median(s,   n, a, i, j, x) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++)	# insertion sort: a few runs
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			x = a[j]; a[j] = a[j - 1]; a[j - 1] = x
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	# TARGET KERNEL loaded usdtkit_trace: features F, N insns processed,
	# X xlated, verified in V ms, load L ms
	key = $1 " " $2 " " cfg(substr($6, 1, length($6) - 1))
	if (!(key in ins)) order[++n] = key
	if ($7 + 0 > ins[key] + 0) ins[key] = $7
	xl[key] = $10
	ver[key] = ver[key] " " $14
	ld[key] = ld[key] " " $17
	runs[key]++
}
END {
	printf "%-9s %-6s %-16s %9s %7s %5s %12s %9s\n", "target", "kernel",
		"config", "processed", "xlated", "runs", "verify ms", "load ms"
	for (i = 1; i <= n; i++) {
		split(order[i], k, " ")
		printf "%-9s %-6s %-16s %9d %7d %5d %12.0f %9.0f\n", k[1], k[2],
			k[3], ins[order[i]], xl[order[i]], runs[order[i]],
			median(ver[order[i]]), median(ld[order[i]])
	}
}'
