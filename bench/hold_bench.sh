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
# Then the same for an exec held until the file is attached (below).
#
# usage: bench/hold_bench.sh USDTKIT HOLD_LOAD LIBFX_PLUG [ROUNDS]   (root)
set -u
u=$1 load=$2 lib=$3 rounds=${4:-200}
for f in "$u" "$load" "$lib"; do
	[ -e "$f" ] || { echo "hold_bench: no $f" >&2; exit 2; }
done
row() {	# row NAME COMMAND...: the workload's line, or why it failed
	# (a trace's own exit status is not the workload's: --no-hold may
	# attach after a fast run ended, and exit 1 with no hit)
	_name=$1; shift
	_out=$("$@" 2>&1)
	echo "$_out" | grep -q '^dlopen median' ||
		{ echo "hold_bench: $_name failed: $_out" | head -n 3 >&2; exit 1; }
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

# An exec held until its file is looked at (an upgrade's new file
# attached first): a program in the directory of a PATH target, run
# ROUNDS times (fork, exec, wait), untraced, then under a trace of that
# directory's target (each exec there is held, the target's or not),
# with --no-hold, and under bpftrace on the same probe (it holds no
# exec).
dir=$(mktemp -d)
tp=
trap '[ -n "$tp" ] && kill $tp 2>/dev/null; rm -rf "$dir"' EXIT
cp /bin/true "$dir/prog"
cp "$lib" "$dir/libfx_plug.so"
xrow() { # xrow NAME: the exec line, with whatever runs in the background
	printf '%-26s %s\n' "$1" "$("$load" -x "$dir/prog" "$rounds" | grep '^exec median')"
}
bg() { # bg WORD COMMAND...: COMMAND in the background, once its stderr has WORD
	_word=$1; shift
	"$@" >"$dir/err" 2>&1 &
	tp=$!
	_i=0
	while [ $_i -lt 300 ] && ! grep -q "$_word" "$dir/err"; do
		sleep 0.1; _i=$((_i + 1))
	done
	grep -q "$_word" "$dir/err" || { echo "hold_bench: $*: $(cat "$dir/err")" >&2; exit 1; }
}
end_bg() { kill -INT $tp; wait $tp; tp=; }
xrow "exec untraced"
bg "^Tracing" "$u" trace --counts "$dir/libfx_plug.so:plug:fire"
xrow "exec, usdtkit trace (held)"
end_bg
bg "^Tracing" "$u" trace --no-hold --counts "$dir/libfx_plug.so:plug:fire"
xrow "exec, usdtkit --no-hold"
end_bg
if command -v bpftrace > /dev/null; then
	bg "^Attaching" bpftrace -e "usdt:$dir/libfx_plug.so:plug:fire { @ = count(); }"
	xrow "exec, bpftrace"
	end_bg
else
	echo "exec, bpftrace             - (not installed)"
fi
