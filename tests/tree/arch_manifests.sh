#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The architecture manifests are complete, and `archinfo check` would say
# so if they were not: it must fail, naming the file and the key, on a
# copy of arch/ with a required key removed from one manifest, on one
# where a folder lacks the file its "check" key names, and on one with a
# key nobody reads, and on one whose "apt" key no longer installs the
# cross compiler it names.
#   arch_manifests.sh ARCHINFO ARCH_DIR WORK_DIR
set -u
archinfo=$1 arch=$2 work=$3
passed=0 failed=0
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect_fail WHAT DIR PATTERN: check on DIR fails and prints PATTERN
expect_fail() {
	out=$(sh "$archinfo" -C "$2" check 2>&1) && rc=0 || rc=$?
	if [ "$rc" -eq 0 ]; then
		ko "$1: archinfo check passed"
	elif ! printf '%s\n' "$out" | grep -qF -- "$3"; then
		ko "$1: archinfo check failed, but without \"$3\":
$out"
	else
		ok
		echo "$1: $(printf '%s\n' "$out" | grep -F -- "$3")"
	fi
}

if out=$(sh "$archinfo" -C "$arch" check 2>&1) && [ -z "$out" ]; then
	ok
else
	ko "archinfo check on $arch:
$out"
fi

# the first target of the first folder, whatever they are
d=$(sh "$archinfo" -C "$arch" dirs | head -1)
t=$(sh "$archinfo" -C "$arch" table | awk -F'\t' -v d="$d" '$2 == d { print $1; exit }')
if [ -z "$d" ] || [ -z "$t" ]; then
	ko "no folder or target in $arch"
	echo "$passed passed, $failed failed"
	exit 1
fi
rm -rf "$work"
mkdir -p "$work"

# a required target key (e_machine) removed from [$t]
cp -R "$arch" "$work/nokey"
awk -v t="[$t]" '
	/^\[/ { in_t = ($0 == t) }
	in_t && !done && /^[ \t]*e_machine[ \t]*=/ { done = 1; next }
	{ print }' "$arch/$d/manifest.ini" >"$work/nokey/$d/manifest.ini"
if cmp -s "$arch/$d/manifest.ini" "$work/nokey/$d/manifest.ini"; then
	ko "arch/$d/manifest.ini: [$t] has no e_machine line to remove"
else
	expect_fail "key removed" "$work/nokey" \
		"arch/$d/manifest.ini: [$t]: missing key e_machine"
fi

# the folder's check file missing
cp -R "$arch" "$work/nocheck"
f=$(sh "$archinfo" -C "$arch" get "$t" check)
rm -f "$work/nocheck/$d/$f"
expect_fail "check file missing" "$work/nocheck" \
	"arch/$d/manifest.ini: check names $f, which is not in arch/$d"

# a key no consumer reads (a typo, say) is refused, not ignored
cp -R "$arch" "$work/unknown"
echo "ip_ofset = 8" >>"$work/unknown/$d/manifest.ini"
expect_fail "unknown key" "$work/unknown" \
	"arch/$d/manifest.ini: unknown key ip_ofset"

# the "apt" key removed from the first target with a cross compiler:
# nothing installs that compiler any more
set -- $(sh "$archinfo" -C "$arch" table apt layout_cc |
	awk -F'\t' '$3 != "-" && $4 ~ /^[^ ]+-gcc( |$)/ { split($4, w, " "); print $1, $2, w[1]; exit }')
if [ $# -ne 3 ]; then
	ko "no target with an apt key and a cross compiler in $arch"
else
	cp -R "$arch" "$work/noapt"
	awk -v t="[$1]" '
		/^\[/ { in_t = ($0 == t) }
		in_t && /^[ \t]*apt[ \t]*=/ { next }
		{ print }' "$arch/$2/manifest.ini" >"$work/noapt/$2/manifest.ini"
	expect_fail "apt key removed" "$work/noapt" \
		"arch/$2/manifest.ini: [$1]: layout_cc needs $3, which no package"
fi

rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
