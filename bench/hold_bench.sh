#!/bin/sh
# The pause a held thread sees: hold_load dlopen()s the plugin of
# tests/fixtures (a USDT probe, a constructor) ROUNDS times, each timed:
#   - untraced;
#   - under `usdtkit trace -c ... plug:fire`: the plugin is attached when
#     it is mapped, its thread held at the loader until then;
#   - the same with --no-hold (attached while it runs on: hits lost);
#   - under gdb, which stops at the same place for its own list of
#     libraries (its solib event breakpoint) and goes on.
# Each prints the median and p90 of one dlopen() and the whole run.
#
# usage: bench/hold_bench.sh USDTKIT HOLD_LOAD LIBFX_PLUG [ROUNDS]   (root)
set -u
u=$1 load=$2 lib=$3 rounds=${4:-200}
for f in "$u" "$load" "$lib"; do
	[ -e "$f" ] || { echo "hold_bench: no $f" >&2; exit 2; }
done
row() {	# row NAME COMMAND...: the workload's line, or why it failed
	_name=$1; shift
	_out=$("$@" 2>&1) || { echo "hold_bench: $_name failed: $_out" | head -n 3 >&2; exit 1; }
	printf '%-26s %s\n' "$_name" "$(echo "$_out" | grep '^dlopen median')"
}
row untraced "$load" "$lib" "$rounds"
row "usdtkit trace (held)" "$u" trace -q --counts -c "$load $lib $rounds" plug:fire
row "usdtkit trace --no-hold" "$u" trace -q --no-hold --counts -c "$load $lib $rounds" plug:fire
if command -v gdb > /dev/null; then
	row "gdb (solib events)" gdb -q -batch -ex run --args "$load" "$lib" "$rounds"
else
	echo "gdb                        - (not installed)"
fi
