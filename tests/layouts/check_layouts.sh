#!/bin/sh
# Prove every register offset of every layout against the real uapi
# headers: generate _Static_asserts from the library's tables, compile
# them with the target's own (cross) compiler. A wrong offset is a compile
# error naming the register.
# The targets, layouts and compilers come from the manifests (keys
# layout_cc and compat64_cc, read through scripts/archinfo).
# usage: check_layouts.sh GEN_LAYOUT_ASSERTS WORKDIR ARCHINFO
set -u
gen=$1 work=$2 archinfo=$3
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
$("$archinfo" table layout_cc compat64_cc | awk -F'	' '
	{ print $1, "native", $3 }
	$4 != "-" { print $1, "compat64", $4 }')
LIST
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
