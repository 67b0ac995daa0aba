#!/bin/sh
# The VM proof's last results, one line per target, kernel and scenario
# (docs/ARCHES.md's matrix): what tests/vm/vm.sh left in each
# build-cross/TARGET/tests/vm/run-[KERNEL-]SCENARIO or run-[KERNEL-]cell
# (every scenario of one boot): pass or FAIL (each scenario's verdict
# line), the accelerator and the scenario's time (qemu's wall time for a
# boot of one, the guest's for a scenario of a cell), the guest's kernel,
# JIT and BTF, and the mode AUTO picked there.
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
	[0-9]*-*) k=${run%%-*} ;;
	*) k=first ;;
	esac
	read -r accel secs _ < "$d/machine" || true
	log=$d/console.log
	uname=$(grep -a -m1 '@@begin' "$log" | sed 's/.*@@begin//' | awk '{ print $3 }')
	feat=$(grep -a -h -m1 '"auto_mode"' "$log" 2>/dev/null || true)
	[ -n "$feat" ] || feat=$(grep -a -h -m1 '"auto_mode"' \
		"${d%/*}/run-${k#first}${k#first:+-}basics/console.log" 2>/dev/null || true)
	jit=$(echo "$feat" | sed -n 's/.*"jit":\([a-z]*\).*/\1/p')
	btf=$(echo "$feat" | sed -n 's/.*"btf":\([a-z]*\).*/\1/p')
	auto=$(echo "$feat" | sed -n 's/.*"auto_mode":"\([a-z]*\)".*/\1/p')
	# a scenario's seconds: qemu's for a boot of one, the guest's own
	# (@@begin to @@finish) for each of a cell's
	tr -d '\r' < "$log" | awk '
		{ i = index($0, "@@") } i == 0 { next } { $0 = substr($0, i) }
		$1 == "@@begin" { s = $3; t = $6 }
		$1 == "@@finish" && s != "" { printf "%s %.1f\n", s, $2 - t; s = "" }' \
		> "$d/.secs"
	sed -n 's/^vm [^ ]* \([^:]*\): [0-9]* passed, \([0-9]*\) failed$/\1 \2/p' \
		"$d/verdict" | while read -r s nf; do
		ok=FAIL
		[ "$nf" = 0 ] && ok=pass
		ss=$secs
		case $run in
		*cell) ss=$(awk -v s="$s" '$1 == s { print $2 }' "$d/.secs") ;;
		esac
		printf '%-9s %-7s %-9s %-5s %-4s %6s  %-26s %-4s %-4s %s\n' \
			"$t" "$k" "$s" "$ok" "${accel:--}" "${ss:--}" "${uname:--}" \
			"${jit:--}" "${btf:--}" "${auto:--}"
	done
	rm -f "$d/.secs"
done
