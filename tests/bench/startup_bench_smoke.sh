#!/bin/sh
# bench/startup_bench.sh runs once, tiny (10 sites, 1 repetition; root,
# BPF): both whole-process rows and every configuration row, with
# numbers (bpftrace's column "-" when it is not installed). Its timings
# are never checked.
# usage: startup_bench_smoke.sh STARTUP_BENCH USDTKIT DIR
set -u
bench=$1 u=$2 dir=$3

. "$(dirname "$0")/../helpers/check.sh"

run "bench" 0 sh "$bench" --sites 10 --reps 1 "$u" "$dir"
num='[0-9][0-9.]*'
grep -q "^attach-10  *$num  *$num  *$num$" "$tmp/out" && ok ||
	{ ko "row attach-10:"; cat "$tmp/out"; }
grep -q "^attached  *$num  *\($num  *$num\|fail  *-\)$" "$tmp/out" && ok ||
	{ ko "row attached:"; cat "$tmp/out"; }
# every configuration of its table, each with its numbers
for c in $(grep -v '^#' "$(dirname "$bench")/startup_configs" | cut -d'|' -f1); do
	grep -q "^$c  *[0-9][0-9]*  *[0-9][0-9]*  *$num  *$num$" "$tmp/out" && ok ||
		{ ko "config $c:"; cat "$tmp/out"; }
done

finish startup_bench_smoke
