#!/bin/sh
# The trace program's load on each VM kernel, per configuration of
# bench/startup_configs: what each `usdtkit trace -v` of the VM proof's
# agg scenario printed (tests/vm/guest.sh, load_configs; tests/vm/
# check.py holds each count to a quarter of the verifier's 1M). Run
# `sh scripts/vm.sh all` (or any kernels) first; this reads
# build-cross/TARGET/tests/vm/run-*agg/console.log (or run-*cell, a
# boot of every scenario).
#
# One row per target, kernel and configuration: the verifier's processed
# instructions, xlated instructions, and the verification and load time
# in ms. Times are qemu TCG's, on a shared machine: compare kernels and
# configurations with each other, not with a board.
#
# usage: bench/vm_load.sh [--host] [CROSS...]
#   --host  a row per configuration for this machine's kernel too: the
#           same loads of the x86_64 cross build's vm_agg, by build/'s CLI
set -eu
cd "$(dirname "$0")/.."
host=0
[ "${1:-}" = --host ] && { host=1; shift; }
[ $# -gt 0 ] || set -- '*'

# "T K NAME ... features F, N insns processed, X xlated, verified in V ms,
# load L ms" -> "T K NAME N X V L"
numbers() {
	sed 's/^\([^ ]* [^ ]* [^ ]*\) .* \([0-9]*\) insns processed, \([0-9]*\) xlated, verified in \([0-9.]*\) ms, load \([0-9.]*\) ms.*/\1 \2 \3 \4 \5/'
}

# this kernel's row: what load_configs (tests/vm/guest.sh) does in a VM
host_loads() (
	p=$PWD/build-cross/x86_64/tests/vm/vm_agg:usdtkit_vm
	k=$(uname -r | awk '{ split($1, v, "[.-]"); print v[1] "." v[2] }')
	set -f
	grep -v '^#' bench/startup_configs |
		sed "s/@NI@/0/g; s/@SI@/3/g; s|@S@|$p:req|g; s|@E@|$p:tick|g" |
	while IFS='|' read -r name opts; do
		# shellcheck disable=SC2086 # OPTIONS are word-split
		build/cli/usdtkit trace -v -q -c /bin/true $opts $p:req 2>&1 \
			>/dev/null </dev/null | grep -a 'loaded usdtkit_trace' |
			sed "s#^#host $k $name #" | numbers
	done
)

{
[ $host = 0 ] || host_loads
for t in "$@"; do
	for d in build-cross/$t/tests/vm/run-*agg build-cross/$t/tests/vm/run-*cell; do
		[ -f "$d/console.log" ] || continue
		tt=${d#build-cross/}; tt=${tt%%/*}
		k=$(grep -a -m1 '^@@begin' "$d/console.log" | tr -d '\r' |
			awk '{ split($4, v, "[.-]"); print v[1] "." v[2] }')
		# @@| load_NAME.err usdtkit: loaded usdtkit_trace: features F,
		# N insns processed, X xlated, verified in V ms, load L ms
		grep -a '^@@| load_.*loaded usdtkit_trace' "$d/console.log" |
			tr -d '\r' | sed "s#^@@| load_\([^ ]*\)\.err#$tt $k \1#" |
			numbers
	done
done
} | awk '
BEGIN {
	printf "%-9s %-6s %-13s %9s %7s %10s %9s\n", "target", "kernel",
		"config", "processed", "xlated", "verify ms", "load ms"
}
{
	printf "%-9s %-6s %-13s %9d %7d %10.0f %9.0f\n", $1, $2, $3, $4, $5,
		$6, $7
}'
