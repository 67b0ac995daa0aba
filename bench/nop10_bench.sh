#!/bin/sh
# The per-hit cost of one probe at a plain nop site and at a "nop; nop10"
# site, in one run of bench/nop10_hit.c each round, traced by `usdtkit
# trace -p` in AUTO (bench/README.md, "nop10 sites"). Root, x86-64. On a
# kernel that does not optimize nop10 (`usdtkit features`:
# uprobe_optimization) both sites are attached at their nop, so the two
# figures measure the same thing; the VM's nop10 scenario gives them on
# 7.3 (tests/vm/check_nop10.py prints them).
#
# usage: bench/nop10_bench.sh USDTKIT_CLI NOP10_HIT [N] [ROUNDS]
set -eu
cli=$1 hit=$2 n=${3:-20000} rounds=${4:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "kernel $(uname -r), $("$cli" features | grep '^uprobe_optimization')"
echo "round plain_ns nop10_ns base_plain_ns base_nop10_ns trampoline (per call)"
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	rm -f "$dir"/*
	"$hit" "$n" "$dir" &
	w=$!
	while [ ! -s "$dir/info" ]; do sleep 0.05; done
	"$cli" trace -q -v -p "$w" --count $((2 * n)) nop10bench:hit \
		> /dev/null 2> "$dir/err" &
	t=$!
	until grep -qs 'site(s), mode' "$dir/err"; do sleep 0.05; done
	touch "$dir/go"
	wait "$w"
	wait "$t" || { cat "$dir/err"; exit 1; }
	awk -v r=$r '{ v[$1] = $2 } END { print r, v["plain_ns"], v["nop10_ns"],
		v["base_plain_ns"], v["base_nop10_ns"], v["trampoline"] }' "$dir/result"
done
