#!/bin/sh
# bench/keys_bench.sh runs once with tiny M (root, BPF): a table with
# every row, usdtkit's numbers or "n/a" with usdtkit's reason under the
# table, bpftrace's numbers when it is installed; the unkeyed baseline
# (counts) always has usdtkit's numbers; --json parses, with every hit
# counted and the verifier's count; an unknown row is refused. Its
# timings are not checked.
# usage: keys_bench_smoke.sh KEYS_BENCH USDTKIT
set -u
bench=$1 u=$2

. "$(dirname "$0")/../helpers/check.sh"

run "table" 0 sh "$bench" --hits 400 --reps 1 "$u"
cp "$tmp/out" "$tmp/table"
num='[0-9][0-9.]*' w='-*[0-9][0-9.]*'
if command -v bpftrace >/dev/null 2>&1; then
	bt="$w  *$num  *$num"
else
	bt="-"
fi
for row in counts count-by-str count-by-pid count-by-comm hist-by-str count-by-ustack; do
	if grep -q "^$row  *$w  *$num  *$num  *$bt" "$tmp/table"; then
		ok
	elif grep -q "^$row  *n/a  *$bt" "$tmp/table"; then
		# rejected: usdtkit's own line says why
		grep -q "^n/a: $row: usdtkit .*usdtkit trace: " "$tmp/table" && ok ||
			{ ko "row $row: n/a without a reason"; cat "$tmp/table"; }
	else
		ko "row $row:"; cat "$tmp/table"
	fi
done
grep -q "^counts  *$w  *$num  *[1-9][0-9]* " "$tmp/table" && ok ||
	ko "counts: no usdtkit numbers"

run "json" 0 sh "$bench" --json --hits 400 --reps 1 --rows counts,count-by-pid "$u"
python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert [r["row"] for r in o["rows"]] == ["counts", "count-by-pid"], o
c = o["rows"][0]["usdtkit"]
assert c["run_cnt"] == 400 and c["verified_insns"] > 0, o
' "$tmp/out" && ok || { ko "json:"; cat "$tmp/out"; }

run "unknown row" 2 sh "$bench" --rows nope "$u"
grep -q "unknown row 'nope'" "$tmp/err" && ok || ko "unknown row: $(cat "$tmp/err")"

finish keys_bench_smoke
