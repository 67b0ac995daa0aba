#!/bin/sh
# The VM proof (docs/ARCHES.md "trace on each target's own
# kernel"): for each cross build that scripts/cross.sh made, run its
# tests of one kernel: one qemu-system boot of Debian's kernel for the
# target runs every scenario (a cell, tests/vm/vm.sh); cells run nproc
# at a time. Kernels and busybox are fetched once into $USDTKIT_CACHE/vm
# (default /var/cache/usdtkit/vm).
#
# usage: scripts/vm.sh [CROSS...] [KERNEL...] [CROSS:KERNEL...]
#   CROSS   default: every manifest with a "cross" and a "vm_qemu" key
#           (given KERNELs: those whose vm_kernels has one of them)
#   KERNEL  a version of the manifest's vm_kernels (6.1, 6.12, 5.10),
#           "all", or "first" (label vm); default: the first
#   CROSS:KERNEL  one cell more (KERNEL "first": the first); given only
#           these, only these run
set -eu
cd "$(dirname "$0")/.."
targets=''
kernels=''
cells=''
for a in "$@"; do
	case $a in
	--one) break ;;
	*:*) cells="$cells $a" ;;
	[0-9]* | all | first) kernels="$kernels $a" ;;
	*) targets="$targets $a" ;;
	esac
done
explicit=$targets
[ -n "$targets$kernels" ] || [ -z "$cells" ] ||
	targets=' ' # cells alone
targets=${targets:-$(scripts/archinfo table cross vm_qemu |
	awk -F'\t' '$3 != "-" && $4 != "-" { print $3 }')}
jobs=$(nproc)
rc=0
start=$(date +%s)

# has_kernel CROSS KERNEL: the manifest lists it
has_kernel() {
	scripts/archinfo get "$(scripts/archinfo find cross "$1")" vm_kernels "" |
		tr ' ' '\n' | grep -q "^$2\(=\|$\)"
}

# one CROSS LABEL WHAT LOG: that cross build's cells of one label, its
# output to LOG, a line "rc N" last
if [ "${1:-}" = --one ]; then
	t0=$(date +%s)
	r=0
	ctest --test-dir "build-cross/$2" -L "$3" --output-on-failure > "$5" 2>&1 || r=1
	echo "vm: $2 $4: $(( $(date +%s) - t0 )) s" >> "$5"
	echo "rc $r" >> "$5"
	exit 0
fi

# kernel_label KERNEL: the ctest label of its cell
kernel_label() {
	echo "^vm-$(echo "$1" | sed 's/\./\\./g')\$"
}

# Each cell is one boot (tests/vm/CMakeLists.txt) on one core of qemu
# TCG: cells of different targets and kernels run side by side, nproc
# at a time, and print in order once done.
list=$(mktemp -d)
trap 'rm -rf "$list"' EXIT INT TERM
n=0
queue() {	# queue CROSS LABEL WHAT
	n=$((n + 1))
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$list/$n.log" >> "$list/jobs"
}

# cells first, in the order given: a long one (riscv64 6.1 builds its
# kernel the first time) then runs beside the others
for c in $cells; do
	t=${c%%:*} k=${c#*:}
	if [ ! -f "build-cross/$t/CTestTestfile.cmake" ]; then
		echo "vm: FAIL $t: no cross build (run scripts/cross.sh $t first)"
		rc=1
	elif [ "$k" = first ]; then
		queue "$t" '^vm$' "(first kernel)"
	elif has_kernel "$t" "$k"; then
		queue "$t" "$(kernel_label "$k")" "$k"
	else
		echo "vm: FAIL $t: no kernel $k in its manifest's vm_kernels"
		rc=1
	fi
done
for t in $targets; do
	if [ ! -f "build-cross/$t/CTestTestfile.cmake" ]; then
		echo "vm: FAIL $t: no cross build (run scripts/cross.sh $t first)"
		rc=1
		continue
	fi
	if [ -z "$kernels" ]; then
		queue "$t" '^vm$' "(first kernel)"
		continue
	fi
	for k in $kernels; do
		if [ "$k" = all ]; then
			queue "$t" '^vm-' "(every kernel)"
		elif [ "$k" = first ]; then
			queue "$t" '^vm$' "(first kernel)"
		elif has_kernel "$t" "$k"; then
			queue "$t" "$(kernel_label "$k")" "$k"
		elif [ -n "$explicit" ]; then
			echo "vm: FAIL $t: no kernel $k in its manifest's vm_kernels"
			rc=1
		fi
	done
done
if [ -f "$list/jobs" ]; then
	tr '\n' '\0' < "$list/jobs" | xargs -0 -P "$jobs" -I{} \
		sh -c 'IFS="	"; set -- $1; exec sh scripts/vm.sh --one "$@"' _ {}
	i=1
	while [ $i -le $n ]; do
		sed '$d' "$list/$i.log"
		tail -n1 "$list/$i.log" | grep -qx 'rc 0' || rc=1
		i=$((i + 1))
	done
fi
# shellcheck disable=SC2086 # one line of the targets
echo "vm:" $targets "${kernels:+(kernels$kernels)}${cells:+ cells$cells}: $(( $(date +%s) - start )) s"
exit $rc
