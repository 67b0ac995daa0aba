#!/bin/sh
# bench/trace_bench.sh runs one set of rows once with tiny M (root, BPF):
# a table with every row of the set, usdtkit's numbers or "n/a" with
# usdtkit's reason under the table, bpftrace's numbers when it is
# installed; the rows every usdtkit takes always have numbers; --json
# parses, with every hit counted and the verifier's count; an unknown
# row or set is refused. Its timings are not checked.
# usage: trace_bench_smoke.sh TRACE_BENCH USDTKIT hot|keys
set -u
bench=$1 u=$2 set=$3

. "$(dirname "$0")/../helpers/check.sh"

m=400
case $set in
hot)	rows="print str counts filter count-by count-by-str counts-serve count-by-serve"
	always="print str counts" json=print,counts ;;
keys)	rows="counts count-by-str count-by-pid count-by-comm hist-by-str count-by-ustack"
	always="counts" json=counts,count-by-pid ;;
*)	echo "usage: trace_bench_smoke.sh TRACE_BENCH USDTKIT hot|keys" >&2; exit 2 ;;
esac

run "table" 0 sh "$bench" --set "$set" --hits $m --reps 1 "$u"
cp "$tmp/out" "$tmp/table"
num='[0-9][0-9.]*' w='-*[0-9][0-9.]*'
if command -v bpftrace >/dev/null 2>&1; then
	bt="  *$w  *$num  *$num"
else
	bt="  *-"
fi
for row in $rows; do
	if grep -q "^$row  *$w  *$num  *$num$bt" "$tmp/table"; then
		ok
	elif grep -q "^$row  *n/a$bt" "$tmp/table"; then
		# rejected: usdtkit's own line says why
		grep -q "^n/a: $row: usdtkit .*usdtkit trace: " "$tmp/table" && ok ||
			{ ko "row $row: n/a without a reason"; cat "$tmp/table"; }
	else
		ko "row $row:"; cat "$tmp/table"
	fi
done
for row in $always; do
	grep -q "^$row  *$w  *$num  *[1-9][0-9]* " "$tmp/table" && ok ||
		ko "$row: no usdtkit numbers"
done

run "json" 0 sh "$bench" --set "$set" --json --hits $m --reps 1 --rows $json "$u"
python3 -c '
import json, sys
o, want, m = json.load(open(sys.argv[1])), sys.argv[2].split(","), int(sys.argv[3])
assert [r["row"] for r in o["rows"]] == want, o
c = o["rows"][0]["usdtkit"]
assert c["run_cnt"] == m and c["verified_insns"] > 0, o
' "$tmp/out" "$json" $m && ok || { ko "json:"; cat "$tmp/out"; }

run "unknown row" 2 sh "$bench" --set "$set" --rows nope "$u"
grep -q "unknown row 'nope' in set $set" "$tmp/err" && ok || ko "unknown row: $(cat "$tmp/err")"
run "unknown set" 2 sh "$bench" --set nope "$u"
grep -q "unknown set 'nope'" "$tmp/err" && ok || ko "unknown set: $(cat "$tmp/err")"

finish "trace_bench_smoke $set"
