#!/bin/sh
# board_archive.sh BUILD_DIR QEMU: what a board gets from a cross build.
# `cpack` makes the cli archive; it must hold exactly bin/usdtkit, a
# statically linked program for the target that runs under qemu-user
# with no sysroot at all (as on a board that has only busybox).
set -u
dir=$1 qemu=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() {	# check DESCRIPTION COMMAND...
	what=$1; shift
	if "$@" >"$tmp/out" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $what"; sed 's/^/  /' "$tmp/out"
	fi
}
check "cpack" sh -c "cd '$dir' && cpack -B '$tmp/pkg' >/dev/null"
set -- "$tmp"/pkg/usdtkit-*-cli.tar.gz
check "one archive ($*)" test $# -eq 1 -a -f "$1"
top=$tmp/board
mkdir "$top" && tar -C "$top" -xzf "$1" 2>/dev/null
check "only bin/usdtkit in it" sh -c "cd '$top' && test \"\$(find . -type f)\" = ./bin/usdtkit"
check "statically linked" sh -c "file -L '$top/bin/usdtkit' | grep -q 'statically linked'"
check "runs with no sysroot" sh -c "'$qemu' '$top/bin/usdtkit' parse --arch x86_64 -- 4@%eax | grep -q 'reg eax'"
check "has trace" sh -c "'$qemu' '$top/bin/usdtkit' 2>&1 | grep -q '^  trace'"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
