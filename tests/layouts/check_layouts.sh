#!/bin/sh
# Prove every register offset of every layout against the real uapi
# headers: generate _Static_asserts from the library's tables, compile
# them with the target's own (cross) compiler. A wrong offset is a compile
# error naming the register.
# usage: check_layouts.sh GEN_LAYOUT_ASSERTS WORKDIR
set -u
gen=$1 work=$2
mkdir -p "$work"
pass=0 fail=0
# arch layout compiler [flags]
while read -r arch layout cc flags; do
	[ -n "$arch" ] || continue
	f=$work/$arch-$layout.c
	if ! "$gen" "$arch" "$layout" > "$f"; then
		echo "FAIL: $arch $layout: cannot generate asserts"; fail=$((fail+1)); continue
	fi
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "FAIL: $arch $layout: compiler $cc not installed (see .ci/run)"
		fail=$((fail+1)); continue
	fi
	# shellcheck disable=SC2086
	if "$cc" $flags -std=c11 -fsyntax-only "$f" 2> "$f.err"; then
		echo "ok: $arch $layout: $(grep -c offsetof "$f") offsets match ($cc)"
		pass=$((pass+1))
	else
		echo "FAIL: $arch $layout ($cc):"; grep -E 'error' "$f.err" | head -20
		fail=$((fail+1))
	fi
done <<LIST
x86_64 native gcc
x32 native gcc
i386 native i686-linux-gnu-gcc
i386 compat64 gcc
aarch64 native aarch64-linux-gnu-gcc
arm native arm-linux-gnueabihf-gcc
arm compat64 aarch64-linux-gnu-gcc
riscv64 native riscv64-linux-gnu-gcc
riscv32 native riscv64-linux-gnu-gcc -march=rv32gc -mabi=ilp32
s390x native s390x-linux-gnu-gcc
ppc64le native powerpc64le-linux-gnu-gcc
ppc64 native powerpc64-linux-gnu-gcc
LIST
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
