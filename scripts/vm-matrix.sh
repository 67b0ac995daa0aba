#!/bin/sh
# The VM proof's last results, one line per target, kernel and scenario
# (docs/ARCHES.md's matrix): what tests/vm/vm.sh left in each
# build-cross/TARGET/tests/vm/run-[KERNEL-]SCENARIO: pass or FAIL (the
# verdict's last line), the accelerator and qemu's wall time, the guest's
# kernel, machine, JIT and BTF, and the mode AUTO picked there.
#
# usage: scripts/vm-matrix.sh [CROSS...]
set -eu
cd "$(dirname "$0")/.."
printf '%-9s %-7s %-9s %-5s %-4s %6s  %-26s %-4s %-4s %s\n' \
	target kernel scenario ok accel secs uname jit btf auto
for d in build-cross/${1:-*}/tests/vm/run-*; do
	[ -f "$d/verdict" ] || continue
	t=${d#build-cross/}; t=${t%%/*}
	run=${d##*/run-}
	case $run in
	[0-9]*-*) k=${run%%-*} s=${run#*-} ;;
	*) k=first s=$run ;;
	esac
	ok=FAIL
	tail -1 "$d/verdict" | grep -q ' 0 failed$' && ok=pass
	read -r accel secs _ < "$d/machine" || true
	log=$d/console.log
	uname=$(grep -a -m1 '^@@begin' "$log" | awk '{ print $4 }')
	b=${d%/*}/run-basics
	[ "$k" = first ] || b=${d%/*}/run-$k-basics
	feat=$(grep -a -h -m1 '"auto_mode"' "$b/console.log" 2>/dev/null || true)
	jit=$(echo "$feat" | sed -n 's/.*"jit":\([a-z]*\).*/\1/p')
	btf=$(echo "$feat" | sed -n 's/.*"btf":\([a-z]*\).*/\1/p')
	auto=$(echo "$feat" | sed -n 's/.*"auto_mode":"\([a-z]*\)".*/\1/p')
	printf '%-9s %-7s %-9s %-5s %-4s %6s  %-26s %-4s %-4s %s\n' \
		"$t" "$k" "$s" "$ok" "${accel:--}" "${secs:--}" "${uname:--}" \
		"${jit:--}" "${btf:--}" "${auto:--}"
done
