#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Every tool the project's tests, scripts and build look for comes from a
# package that scripts/setup.sh installs (scripts/packages), and every
# command or file that table promises is on this machine once setup.sh
# has run. A tool a test needs but no install step brings would pass on a
# warm machine and fail on a fresh one; this fails on both.
#   tools.sh ARCHINFO SOURCE_DIR
set -u
archinfo=$1 src=$2
passed=0 failed=0
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }

# 1. what the tree looks up by name: `command -v NAME` in shell, and
# find_program(VAR [NAMES] NAME ...) in CMake. Names in variables
# ($bt, $cc) are resolved where they are set, from the same table.
found=$(cd "$src" && {
	grep -rhoE 'command -v "?[A-Za-z0-9_.+-]+' \
		--include='*.sh' --include='*.py' --exclude=tools.sh \
		tests fuzz scripts bench |
		sed -E 's/.*command -v "?//'
	grep -rhoE 'find_program\([A-Z_0-9]+ (NAMES )?[A-Za-z0-9_.+-]+' \
		--include='CMakeLists.txt' --include='*.cmake' --include='*.cmake.in' . |
		sed -E 's/.* //' | grep -vx NAMES	# NAMES ${VAR}: a manifest's (archinfo)
} | sort -u)
[ -n "$found" ] || ko "no tool look-ups found under $src: the scan is broken"
for t in $found; do
	case $t in usdtkit) continue ;; esac	# what this project builds
	if p=$(sh "$archinfo" provides "$t"); then
		ok
	else
		ko "the tree looks for $t, but no package in scripts/packages provides it"
	fi
done

# 2. what the table promises is here (scripts/setup.sh installed it)
offers=$(sh "$archinfo" offers) || ko "archinfo offers failed"
[ -n "$offers" ] || ko "archinfo offers: nothing"
while IFS='	' read -r pkg w; do
	case $w in
	/*) [ -e "$w" ] ;;
	*) command -v "$w" >/dev/null 2>&1 ;;
	esac && ok || ko "$w (package $pkg) is not on this machine: run scripts/setup.sh"
done <<EOF
$offers
EOF

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
