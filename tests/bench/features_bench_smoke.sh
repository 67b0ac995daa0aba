#!/bin/sh
# bench/features_bench.sh runs once, tiny (3 runs; root, BPF): a row for
# usdtkit features and for bpftrace --info ("-" without bpftrace), and
# the user_stack probe's own row with its answer. Timings are never
# checked.
# usage: features_bench_smoke.sh FEATURES_BENCH USDTKIT DIR
set -u
bench=$1 u=$2 dir=$3

. "$(dirname "$0")/../helpers/check.sh"

run "bench" 0 sh "$bench" "$u" "$dir" 3
num='[0-9][0-9.]*'
grep -q "^usdtkit features  *median  *$num ms, min  *$num, max  *$num (3 runs)$" "$tmp/out" &&
	ok || { ko "row usdtkit features:"; cat "$tmp/out"; }
grep -q "^bpftrace --info  *\(median  *$num ms, .*(3 runs)\|- (not installed)\)$" "$tmp/out" &&
	ok || { ko "row bpftrace --info:"; cat "$tmp/out"; }
grep -q "^user_stack probe  *median  *$num us, .*(201 runs): \(walks\|no walker\)$" "$tmp/out" &&
	ok || { ko "row user_stack probe:"; cat "$tmp/out"; }

finish features_bench_smoke
