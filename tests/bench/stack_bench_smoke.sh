#!/bin/sh
# bench/stack_bench.sh's hit part once with tiny M (root, BPF), and the
# rows' reader: every line of their output is there, with a number, and
# on the workload built without frame pointers the stack unwound with
# the call frame information is deeper than --stack-fp's (the kernel's
# walk stops after the leaf). Its timings are not checked.
# usage: stack_bench_smoke.sh STACK_BENCH USDTKIT DIR
set -u
bench=$1 u=$2 dir=$3

. "$(dirname "$0")/../helpers/check.sh"

# the hit part on the workload without frame pointers, three rows (the
# whole bench starts 30 tracers: a minute, more under load)
run "stack_bench" 0 sh "$bench" --hits 200 --reps 1 --parts hit --builds nofp \
	--rows "counts ustack16 fp16" "$u" "$dir"
out=$tmp/out
num='-*[0-9][0-9.]*'
# have PATTERN: one line of the output matches
have() {
	if grep -q "$1" "$out"; then ok; else ko "no line \"$1\""; fi
}
have "^hit nofp untraced: loop $num ns/hit$"
for r in counts ustack16 fp16; do
	have "^hit nofp $r: wall $num ns/hit, kernel $num ns, frames "
done
for r in ustack16 fp16; do
	have "^stack nofp $r: sl_leaf"
done
# the rows' reader, as the mem part runs it
"$dir/cfi_rows" -r 1 "$dir/stack_load_nofp" >> "$out" 2>&1
have "^[^ ]*stack_load_nofp rows [0-9]* fdes [0-9]* unsupported [0-9]* bytes [0-9]* read_ms "
# the point of the unwinder: the whole stack where frame pointers stop
depth() {
	sed -n "s/^hit nofp $1: .*frames \([0-9]*\).*/\1/p" "$out"
}
cfi=$(depth ustack16) fp=$(depth fp16)
if [ "${cfi:-0}" -gt "${fp:-0}" ] && [ "${cfi:-0}" -ge 8 ]; then ok; else
	ko "nofp: unwound stack of ${cfi:-?} frames, --stack-fp ${fp:-?}: want deeper, at least 8"
fi
[ "$fail" -eq 0 ] || cat "$out"
finish stack_bench_smoke
