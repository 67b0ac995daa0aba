#!/bin/sh
# The VM proof (docs/ARCHES.md "trace on each target's own
# kernel"): for each cross build that scripts/cross.sh made, run its
# tests of one kernel: one qemu-system boot of Debian's kernel for the
# target per scenario (tests/vm/vm.sh). Kernels and busybox are fetched
# once into $USDTKIT_CACHE/vm (default /var/cache/usdtkit/vm).
#
# usage: scripts/vm.sh [CROSS...] [KERNEL...]
#   CROSS   default: every manifest with a "cross" and a "vm_qemu" key
#           (given KERNELs: those whose vm_kernels has one of them)
#   KERNEL  a version of the manifest's vm_kernels (6.1, 6.12, 5.10) or
#           "all"; default: the first (label vm)
set -eu
cd "$(dirname "$0")/.."
targets=''
kernels=''
for a in "$@"; do
	case $a in
	[0-9]* | all) kernels="$kernels $a" ;;
	*) targets="$targets $a" ;;
	esac
done
explicit=$targets
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

# run CROSS LABEL WHAT
run() {
	t0=$(date +%s)
	echo "vm: $1 $3"
	ctest --test-dir "build-cross/$1" -L "$2" --output-on-failure -j "$jobs" || rc=1
	echo "vm: $1 $3: $(( $(date +%s) - t0 )) s"
}

for t in $targets; do
	if [ ! -f "build-cross/$t/CTestTestfile.cmake" ]; then
		echo "vm: FAIL $t: no cross build (run scripts/cross.sh $t first)"
		rc=1
		continue
	fi
	if [ -z "$kernels" ]; then
		run "$t" '^vm$' "(first kernel)"
		continue
	fi
	for k in $kernels; do
		if [ "$k" = all ]; then
			run "$t" '^vm-' "(every kernel)"
		elif has_kernel "$t" "$k"; then
			run "$t" "^vm-$(echo "$k" | sed 's/\./\\./g')\$" "$k"
		elif [ -n "$explicit" ]; then
			echo "vm: FAIL $t: no kernel $k in its manifest's vm_kernels"
			rc=1
		fi
	done
done
echo "vm: $targets${kernels:+ (kernels$kernels)}: $(( $(date +%s) - start )) s"
exit $rc
