#!/bin/sh
# bench/all_bench.sh runs once, tiny (root, BPF): a row for each exec and
# dlopen() untraced and under trace --all (and bpftrace's where it is
# installed), and the starts. The times are never checked here
# (bench/README.md).
# usage: all_bench_smoke.sh ALL_BENCH USDTKIT HOLD_LOAD FX_UPG LIBFX_PLUG ROUNDS
set -u
bench=$1
shift

. "$(dirname "$0")/../helpers/check.sh"

run "bench" 0 sh "$bench" "$@"
for who in untraced "usdtkit --all"; do
	for row in "exec, no probe" "exec, probe" "dlopen, probe"; do
		grep -q "^$row, $who  *\(exec\|dlopen\) median" "$tmp/out" && ok ||
			{ ko "no row '$row, $who'"; cat "$tmp/out" "$tmp/err"; }
	done
done
grep -q '^start: usdtkit trace --all: [0-9]* ms$' "$tmp/out" && ok || { ko "no start"; cat "$tmp/out"; }
grep -q '^window, not held (--no-hold)  *first hit seen at \([0-9]* \|none \)\{5\}us' "$tmp/out" && ok ||
	{ ko "no window row"; cat "$tmp/out" "$tmp/err"; }
if command -v bpftrace >/dev/null; then
	grep -q '^dlopen, probe, bpftrace  *dlopen median' "$tmp/out" && ok ||
		{ ko "no bpftrace rows"; cat "$tmp/out" "$tmp/err"; }
fi
finish all_bench_smoke
