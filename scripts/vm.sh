#!/bin/sh
# The VM proof (docs/ARCHES.md "trace on each target's own
# kernel"): for each cross build that scripts/cross.sh made, run its
# tests labelled "vm": one qemu-system boot of Debian's kernel for the
# target per scenario (tests/vm/vm.sh). Kernels and busybox are fetched
# once into $USDTKIT_CACHE/vm (default /var/cache/usdtkit/vm).
#
# usage: scripts/vm.sh [CROSS...]   (default: every manifest with a
# "cross" and a "vm_qemu" key)
set -eu
cd "$(dirname "$0")/.."
targets=${*:-$(scripts/archinfo table cross vm_qemu |
	awk -F'\t' '$3 != "-" && $4 != "-" { print $3 }')}
jobs=$(nproc)
rc=0
start=$(date +%s)
for t in $targets; do
	if [ ! -f "build-cross/$t/CTestTestfile.cmake" ]; then
		echo "vm: FAIL $t: no cross build (run scripts/cross.sh $t first)"
		rc=1
		continue
	fi
	echo "vm: $t"
	ctest --test-dir "build-cross/$t" -L vm --output-on-failure -j "$jobs" || rc=1
done
echo "vm: $targets: $(( $(date +%s) - start )) s"
exit $rc
