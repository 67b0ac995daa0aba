#!/bin/sh
# The libraries an executable needs, as the loader finds them
# (usdtkit_needed(), core/elf/needed.c), and `usdtkit trace -c CMD
# PROVIDER:NAME` finding its probes there.
#  - needed_print's list equals ldd's (glibc's own loader, run in its
#    list mode), compared as files: system programs, the fixture
#    (RUNPATH $ORIGIN/lib, a library's own RUNPATH $ORIGIN, one library
#    through LD_LIBRARY_PATH only) and the C++ program;
#  - trace -c counts the fixture's three library probes exactly, and
#    libstdc++'s libstdcxx:throw in the C++ program;
#  - a probe in none of them: one line naming CMD and its libraries.
# The trace part needs root and BPF; without the CLI only the lists.
# usage: cli_trace_needed.sh NEEDED_PRINT DIR [USDTKIT]
set -u
np=$1 dir=$(cd "$2" && pwd) u=${3:-}
. "$(dirname "$0")/../helpers/check.sh"

# files EXE: the list of one tool, as sorted real paths
ours() { "$np" "$1" | xargs -r realpath | sort; }
theirs() {
	ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
		$2 != "=>" && $1 ~ /^\// { print $1 }' | xargs -r realpath | sort
}
same_as_ldd() {
	ours "$1" >"$tmp/ours" 2>"$tmp/ours.err"
	theirs "$1" >"$tmp/theirs"
	if [ -s "$tmp/theirs" ] && cmp -s "$tmp/ours" "$tmp/theirs"; then ok; else
		ko "$1: usdtkit_needed and ldd differ:"
		diff "$tmp/ours" "$tmp/theirs"; cat "$tmp/ours.err"
	fi
}
for exe in /bin/ls /usr/bin/python3.11 /usr/bin/cmake "$dir/thrower"; do
	[ -x "$exe" ] && same_as_ldd "$exe"
done
export LD_LIBRARY_PATH="$dir/other"
same_as_ldd "$dir/fx_needed"
# the fixture's three, each once, and where they were found
"$np" "$dir/fx_needed" >"$tmp/l"
for lib in lib/libfxn_a.so lib/libfxn_c.so other/libfxn_b.so; do
	[ "$(grep -c "/$lib\$" "$tmp/l")" = 1 ] && ok ||
		{ ko "fx_needed: $lib not listed once:"; cat "$tmp/l"; }
done
# without LD_LIBRARY_PATH, libfxn_b.so is nowhere: said, and left out
LD_LIBRARY_PATH= "$np" "$dir/fx_needed" >"$tmp/l" 2>"$tmp/e"
grep -q "libfxn_b.so, which it needs, is not found" "$tmp/e" &&
	! grep -q libfxn_b "$tmp/l" && grep -q libfxn_a "$tmp/l" && ok ||
	{ ko "no LD_LIBRARY_PATH:"; cat "$tmp/l" "$tmp/e"; }

if [ -z "$u" ]; then
	finish cli_trace_needed
	exit
fi
# counts TRACE_ARGS...: trace --counts, its table in $tmp/out
counts() {
	timeout 60 "$u" trace -q --counts "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
counts -c "$dir/fx_needed 3" 'fxn:*'
[ $rc -eq 0 ] && ok || { ko "fx_needed: exit $rc"; cat "$tmp/err"; }
for p in a b c; do
	grep -Eq "^ +3  fxn:$p\$" "$tmp/out" && ok ||
		{ ko "fx_needed: fxn:$p not counted 3 times:"; cat "$tmp/out" "$tmp/err"; }
done
if [ -x "$dir/thrower" ]; then
	counts -c "$dir/thrower 5" libstdcxx:throw
	[ $rc -eq 0 ] && grep -Eq '^ +5  libstdcxx:throw$' "$tmp/out" && ok ||
		{ ko "thrower: exit $rc:"; cat "$tmp/out" "$tmp/err"; }
else
	echo "note: no g++: the libstdc++ case did not run"
fi
counts -c "$dir/fx_needed 1" fxn:nope
n=$("$np" "$dir/fx_needed" | wc -l)
# it waits for a library loaded later, which never comes: exit 1, said
[ $rc -eq 1 ] && [ "$(head -n 1 "$tmp/err")" = "usdtkit trace: $dir/fx_needed and its $n libraries: no probe fxn:nope yet: waiting for a library that has it to be loaded" ] &&
	[ "$(tail -n 1 "$tmp/err")" = "usdtkit trace: fxn:nope: no process mapped an object that has it" ] &&
	ok || { ko "no such probe: exit $rc:"; cat "$tmp/err"; }
# a probe asked of the executable that one of its libraries has: named
counts "$dir/fx_needed:fxn:c"
[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "usdtkit trace: $dir/fx_needed: no probe fxn:c; $dir/lib/libfxn_c.so, a library it loads, has it: trace $dir/lib/libfxn_c.so:fxn:c, or run it with -c" ] &&
	ok || { ko "probe in a library: exit $rc:"; cat "$tmp/err"; }
finish cli_trace_needed
