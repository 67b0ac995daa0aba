#!/bin/sh
# bench/trace_bench.sh runs once with tiny M (root, BPF): a table with
# every row, numbers or "n/a" for usdtkit, bpftrace's column when it is
# installed; --json parses. Its timings are not checked.
# usage: trace_bench_smoke.sh TRACE_BENCH USDTKIT
set -u
bench=$1 u=$2

. "$(dirname "$0")/../helpers/check.sh"

run "table" 0 sh "$bench" --hits 500 --reps 1 "$u"
cp "$tmp/out" "$tmp/table"
num='[0-9][0-9.]*'
for row in print str counts filter count-by count-by-str counts-serve count-by-serve; do
	if command -v bpftrace >/dev/null 2>&1; then
		bt=" *-*$num  *$num"
	else
		bt=""
	fi
	grep -q "^$row  *\(-*$num  *$num\|n/a (usdtkit rejected the options)\)$bt" \
		"$tmp/table" && ok || { ko "row $row:"; cat "$tmp/table"; }
done
# print and str exist in every usdtkit with --str
grep -q "^print  *-*$num  *$num" "$tmp/table" && ok || ko "print: no usdtkit numbers"
grep -q "^str  *-*$num  *$num" "$tmp/table" && ok || ko "str: no usdtkit numbers"

run "json" 0 sh "$bench" --json --hits 500 --reps 1 --rows print,counts "$u"
python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert [r["row"] for r in o["rows"]] == ["print", "counts"], o
assert o["rows"][0]["usdtkit"]["run_cnt"] == 500, o
' "$tmp/out" && ok || { ko "json:"; cat "$tmp/out"; }

finish trace_bench_smoke
