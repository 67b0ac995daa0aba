#!/bin/sh
# bench/stack_bench.sh runs every part once with tiny M (root, BPF):
# every line of its output is there, with a number where usdtkit
# measured one (bpftrace's rows may read "-" where it is not installed),
# and on the workload built without frame pointers the stack unwound
# with the call frame information is deeper than --stack-fp's (the
# kernel's walk stops after the leaf). Its timings are not checked.
# usage: stack_bench_smoke.sh STACK_BENCH USDTKIT DIR
set -u
bench=$1 u=$2 dir=$3

. "$(dirname "$0")/../helpers/check.sh"

run "stack_bench" 0 sh "$bench" --hits 200 --reps 1 "$u" "$dir"
out=$tmp/out
num='-*[0-9][0-9.]*'
# have PATTERN: one line of the output matches
have() {
	if grep -q "$1" "$out"; then ok; else ko "no line \"$1\""; fi
}
for b in nofp fp; do
	have "^hit $b untraced: loop $num ns/hit$"
	for r in counts ustack16 ustack127 fp16 fp127; do
		have "^hit $b $r: wall $num ns/hit, kernel $num ns, frames "
	done
	for r in bt bt_perf; do
		have "^hit $b $r: "
	done
	for r in ustack16 ustack127 fp16 fp127; do
		have "^stack $b $r: sl_leaf"
	done
done
for o in libstdc++.so.6 libc.so.6 ld-linux stack_load_nofp; do
	have "^rows [^ ]*$o[^ ]* rows [0-9]* fdes [0-9]* unsupported [0-9]* bytes [0-9]* read_ms "
done
for r in counts ustack16 fp16 ustack127 fp127; do
	have "^mem $r: [0-9]* maps, $num MiB memlock; unwinder $num MiB"
done
have "^tables [^ ]*libstdc++.so.6: $num ms median"
for r in counts ustack16 fp16 bt; do
	have "^start load $r: "
	have "^start python $r: "
done
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
