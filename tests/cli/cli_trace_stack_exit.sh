#!/bin/sh
# usdtkit trace --count-by ustack names the stacks of a process that has
# exited before the report (root, BPF): tests/fixtures/fx_stack.c (a PIE
# with frame pointers: main -> fx_stack_a -> fx_stack_b -> fx_stack_c,
# the probe in fx_stack_c) fires its probe, waits (on stdin, a fifo this
# test holds) until the trace says under -v that it kept its mappings,
# then exits; the report comes after that exit. Under -c, -p, --children
# and a PATH target, and a copy of the binary deleted while it runs (its
# object opened through /proc/PID/map_files when kept): every frame is
# named, none marked "gone before its stack was named".
# usage: cli_trace_stack_exit.sh USDTKIT FX_STACK
set -u
u=$1 fx=$2

. "$(dirname "$0")/../helpers/check.sh"
fx=$(cd "$(dirname "$fx")" && pwd -P)/$(basename "$fx")
upid="" fpid=""
cleanup() {
	exec 3>&- 2>/dev/null
	kill $upid $fpid 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# fifo: a new $tmp/in, held open on fd 3 once its reader opens it
fifo() {
	rm -f "$tmp/in"
	mkfifo "$tmp/in"
}

# kept: until the trace has kept a pid's mappings (its pid in $kept)
kept() {
	wait_for "$tmp/err" 'ustack: kept the mappings of pid' 50 "$upid" ||
		{ ko "$1: no pid kept"; cat "$tmp/err"; return 1; }
	kept=$(sed -n 's/.*ustack: kept the mappings of pid \([0-9]*\),.*/\1/p' "$tmp/err" |
		head -n 1)
	ok
}

# check WHAT OBJECT: the report in $tmp/out names the frames of pid $kept
# in OBJECT (the path maps shows), marked nowhere as gone
check() {
	if grep -q 'gone before its stack was named' "$tmp/out"; then
		ko "$1: a stack marked gone"; cat "$tmp/out" "$tmp/err"; return
	fi
	grep -q "^        (pid $kept)\$" "$tmp/out" && ok ||
		{ ko "$1: no stack of pid $kept"; cat "$tmp/out"; }
	for f in fx_stack_c fx_stack_b fx_stack_a main; do
		grep -qF "        $f+0x" "$tmp/out" && grep -F "        $f+0x" "$tmp/out" |
			grep -qF "($2)" && ok ||
			{ ko "$1: $f not named in $2"; cat "$tmp/out" "$tmp/err"; return; }
	done
	grep -q "^ *3  \$" "$tmp/out" && ok || { ko "$1: count"; cat "$tmp/out"; }
}

# -c: the trace ends with the command, and reports after its exit
fifo
"$u" trace -v --count-by ustack -c "$fx" "$fx:fxstack:hit" <"$tmp/in" >"$tmp/out" \
	2>"$tmp/err" &
upid=$!
exec 3>"$tmp/in"
wait_for "$tmp/out" '^ready$' 100 "$upid" || ko "-c: fixture not ready"
echo "hit 3" >&3
kept "-c" && {
	grep -q "command pid $kept exited" "$tmp/err" && ko "-c: exited before kept" || ok
}
exec 3>&-
wait "$upid" && ok || { ko "-c: exit $?"; cat "$tmp/err"; }
upid=""
check "-c" "$fx"

# -c, and the command exits the moment it has hit, no one waiting for the
# trace to keep it: its exit is held (ptrace) until its mappings are read
printf 'hit 3\n' | "$u" trace -v --count-by ustack -c "$fx" "$fx:fxstack:hit" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
kept=$(sed -n 's/.*command pid \([0-9]*\) exited.*/\1/p' "$tmp/err")
[ $rc -eq 0 ] && [ -n "$kept" ] && ok || { ko "-c at once: exit $rc"; cat "$tmp/err"; }
check "-c, exiting at once" "$fx"

# --children: the fixture a child of the command
fifo
"$u" trace -v --count-by ustack --children -c "sh -c '\"$fx\"; echo sh done'" \
	"$fx:fxstack:hit" <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
upid=$!
exec 3>"$tmp/in"
wait_for "$tmp/out" '^ready$' 100 "$upid" || ko "--children: fixture not ready"
echo "hit 3" >&3
kept "--children"
exec 3>&-
wait "$upid" && ok || { ko "--children: exit $?"; cat "$tmp/err"; }
upid=""
grep -q '^sh done$' "$tmp/out" && ok || ko "--children: the command did not end"
check "--children" "$fx"

# start_fx BINARY: the fixture on $tmp/in, $fpid, ready
start_fx() {
	fifo
	"$1" <"$tmp/in" >"$tmp/fx.out" &
	fpid=$!
	exec 3>"$tmp/in"
	wait_for "$tmp/fx.out" '^ready$' 100 "$fpid" || ko "$1: fixture not ready"
}

# end_fx: the fixture told to exit, and reaped
end_fx() {
	exec 3>&-
	wait "$fpid"
	fpid=""
}

# -p: the trace ends by itself once the process has exited; of a copy
# deleted while it runs, named through its map_files link
cp "$fx" "$tmp/fx_copy"
start_fx "$tmp/fx_copy"
# (3>&-: the fifo's writer is this test's only, or the fixture never
# sees the end of its input)
: >"$tmp/err" # (no "Tracing" of an earlier trace, read before this one truncates it)
"$u" trace -v --count-by ustack -p "$fpid" fxstack:hit >"$tmp/out" 2>"$tmp/err" 3>&- &
upid=$!
wait_for "$tmp/err" '^Tracing ' 300 "$upid" && ok || { ko "-p: not attached"; cat "$tmp/err"; }
rm "$tmp/fx_copy"
echo "hit 3" >&3
kept "-p"
[ "$kept" = "$fpid" ] && ok || ko "-p: kept $kept, not $fpid"
end_fx
wait "$upid" && ok || { ko "-p: exit $?"; cat "$tmp/err"; }
upid=""
grep -q "pid $kept exited" "$tmp/err" && ok || { ko "-p: no exit said"; cat "$tmp/err"; }
check "-p, deleted" "$tmp/fx_copy (deleted)"

# a PATH target: every process of the binary; the report at SIGINT,
# after the fixture has exited
: >"$tmp/err" # (no "Tracing" of the last trace, read before this one truncates it)
"$u" trace -v --count-by ustack "$fx:fxstack:hit" >"$tmp/out" 2>"$tmp/err" &
upid=$!
wait_for "$tmp/err" '^Tracing ' 300 "$upid" && ok || { ko "PATH: not attached"; cat "$tmp/err"; }
start_fx "$fx"
echo "hit 3" >&3
kept "PATH"
[ "$kept" = "$fpid" ] && ok || ko "PATH: kept $kept, not $fpid"
end_fx
[ ! -e "/proc/$kept" ] && ok || ko "PATH: pid $kept still there"
kill -INT "$upid"
wait "$upid" && ok || { ko "PATH: exit $?"; cat "$tmp/err"; }
upid=""
check "PATH" "$fx"

finish cli_trace_stack_exit
