#!/bin/sh
# `usdtkit trace -c CMD` where CMD is no ELF program: a #! script that
# execs it, a chain of shims (as a version manager's: script -> env ->
# sh -> exec ... -> the program), `sh -c 'exec PROG'`. CMD runs as it
# is, and its PROVIDER:NAME targets are attached in the program it
# execs, that exec held until they are: tests/fixtures/fx_cmd fires
# cmdt:start K times first thing in main(), and cmdt:guarded once only
# if its semaphore was up before main(), so exact counts prove that no
# hit was lost. A script that runs the program as a child: traced with
# --children; without, nothing is attached and a hint says why.
# PATH:PROVIDER:NAME targets under a script: by path, its pid's only.
# A glob there is one probe, and says so when it matched several.
# Needs root and BPF.
# usage: cli_trace_script.sh USDTKIT FX_CMD
set -u
u=$1
fx=$2
. "$(dirname "$0")/../helpers/trace_run.sh"

# hits FILE PROBE: how many lines of FILE are hits of PROBE
hits() { grep -c " $2(" "$1"; }
# args FILE: the (i, argc) of each cmdt:start, in order
args() {
	sed -n 's/.*cmdt:start(s32 \([0-9]*\), s32 \([0-9]*\)).*/\1,\2/p' "$1" | tr '\n' ' '
}

d=$tmp/bin
mkdir "$d"
# wrap.sh: exec, the way a wrapper script ends
printf '#!/bin/sh\nexec %s "$@"\n' "$fx" >"$d/wrap.sh"
# a two-level shim chain: shim1 (sh) execs shim2, whose #! runs env,
# which execs sh, which execs sh -c, which execs the program
printf '#!/bin/sh\nexec "%s/shim2" "$@"\n' "$d" >"$d/shim1"
printf '#!/usr/bin/env sh\nexec sh -c '"'"'exec "$0" "$@"'"'"' %s "$@"\n' "$fx" >"$d/shim2"
# child.sh: runs the program as a child, then says it is done
printf '#!/bin/sh\n%s "$@"\necho child.sh done\n' "$fx" >"$d/child.sh"
chmod +x "$d/wrap.sh" "$d/shim1" "$d/shim2" "$d/child.sh"

# trace_ok TAG WANT-K ARGS...: a trace that exits 0 with WANT-K hits of
# cmdt:start, in order, all of the command's pid, and cmdt:guarded once
trace_ok() {
	tag=$1 k=$2; shift 2
	timeout 30 "$u" trace "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want=$(i=0; while [ $i -lt "$k" ]; do printf '%d,2 ' $i; i=$((i + 1)); done)
	pid=$(sed -n 's/.*command pid \([0-9]*\) exited with status 0.*/\1/p' "$tmp/err")
	if [ $rc -eq 0 ] && [ "$(hits "$tmp/out" cmdt:start)" -eq "$k" ] &&
		[ "$(args "$tmp/out")" = "$want" ] &&
		[ "$(hits "$tmp/out" cmdt:guarded)" -eq 1 ] && [ -n "$pid" ] &&
		[ "$(grep -c " pid $pid tid $pid " "$tmp/out")" -eq $((k + 1)) ]; then
		ok
	else
		ko "$tag: exit $rc, want $k hits of the command's pid '$pid':"
		cat "$tmp/out" "$tmp/err"
	fi
}

# a script that execs the program, by path and found in $PATH, in each
# backend that attaches in a process
for m in multi perf; do
	trace_ok "wrap.sh $m" 7 --mode "$m" -c "$d/wrap.sh 7" cmdt:start cmdt:guarded
done
grep -q '^Tracing 2 waiting for the program the script execs\. Ctrl-C to end\.$' "$tmp/err" &&
	! grep -q 'not an ELF' "$tmp/err" && ok ||
	{ ko "wrap.sh: the Tracing line:"; cat "$tmp/err"; }
PATH=$d:$PATH trace_ok "wrap.sh in PATH" 5 -c "wrap.sh 5" cmdt:start cmdt:guarded
# -v says where the probe is looked for, and where it was attached
trace_ok "wrap.sh -v" 3 -v -c "$d/wrap.sh 3" cmdt:start cmdt:guarded
grep -q "$d/wrap.sh is no ELF program (a script?): cmdt:guarded is looked for in the program it execs" \
	"$tmp/err" && grep -q "cmdt:start: 1 site(s) in [^ ]*/${fx##*/}, mapped later" "$tmp/err" && ok ||
	{ ko "wrap.sh -v:"; cat "$tmp/err"; }

# --no-hold: no exec is held, the program runs on while it is attached
# (its first hits may be lost: not counted); it is found all the same,
# through the loader of the script's interpreter, watched from the start
timeout 30 "$u" trace -v --no-hold -c "$d/wrap.sh 3 1" cmdt:start >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -q "cmdt:start: 1 site(s) in [^ ]*/${fx##*/}, mapped later" "$tmp/err" &&
	! grep -q 'is a script' "$tmp/err" && ok ||
	{ ko "wrap.sh --no-hold: exit $rc"; cat "$tmp/err"; }

# the chain of shims, and sh -c 'exec PROG'
trace_ok "shim chain" 6 -c "$d/shim1 6" cmdt:start cmdt:guarded
trace_ok "sh -c exec" 4 -c "sh -c 'exec $fx 4'" cmdt:start cmdt:guarded

# PATH:PROVIDER:NAME under a script: attached by path with its pid
trace_ok "wrap.sh PATH target" 5 -c "$d/wrap.sh 5" "$fx:cmdt:start" "$fx:cmdt:guarded"

# a script that runs the program as a child: with --children, counted
# (its pid is the child's, not the command's: counted by probe)
for t in cmdt: "$fx:cmdt:"; do
	timeout 30 "$u" trace --children -c "$d/child.sh 6" "${t}start" "${t}guarded" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && [ "$(hits "$tmp/out" cmdt:start)" -eq 6 ] &&
		[ "$(args "$tmp/out")" = "0,2 1,2 2,2 3,2 4,2 5,2 " ] &&
		[ "$(hits "$tmp/out" cmdt:guarded)" -eq 1 ] && grep -qx 'child.sh done' "$tmp/out" &&
		! grep -q 'is a script' "$tmp/err" && ok ||
		{ ko "child.sh --children $t: exit $rc"; cat "$tmp/out" "$tmp/err"; }
done
# without: nothing attached, exit 1, and the hint is the last line
timeout 30 "$u" trace -c "$d/child.sh 6" 'cmdt:start' >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(hits "$tmp/out" cmdt:start)" -eq 0 ] &&
	grep -q '^usdtkit trace: cmdt:start: no process mapped an object that has it$' "$tmp/err" &&
	[ "$(tail -n 1 "$tmp/err")" = "usdtkit trace: $d/child.sh is a script and its probes appeared in no program it exec'd; a program it runs as a child is traced with --children" ] &&
	ok || { ko "child.sh without --children: exit $rc"; cat "$tmp/out" "$tmp/err"; }
# a PATH target there: the child's hits are not the command's pid's
timeout 30 "$u" trace -c "$d/child.sh 6" "$fx:cmdt:start" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ "$(hits "$tmp/out" cmdt:start)" -eq 0 ] && ! grep -q 'is a script' "$tmp/err" &&
	ok || { ko "child.sh PATH target without --children: exit $rc"; cat "$tmp/out" "$tmp/err"; }

# a glob waits as one probe (the program was loaded before the probes it
# matches were known): every hit counted, under that one probe, and a
# line says so when it matched several; a glob of one probe says nothing
timeout 30 "$u" trace -c "$d/wrap.sh 4" 'cmdt:*' >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ' pid [0-9]* tid [0-9]* cmdt:' "$tmp/out")" -eq 5 ] &&
	grep -q "^usdtkit trace: cmdt:\* waited for the program that maps it, as one probe: the hits of cmdt:[a-z]*, cmdt:[a-z]* and the others it matches count together; name each PROVIDER:NAME to count them apart$" "$tmp/err" &&
	ok || { ko "wrap.sh 'cmdt:*': exit $rc"; cat "$tmp/out" "$tmp/err"; }
timeout 30 "$u" trace -c "$d/wrap.sh 4" 'cmdt:gua*' >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ' cmdt:' "$tmp/out")" -eq 1 ] && ! grep -q 'as one probe' "$tmp/err" &&
	ok || { ko "wrap.sh 'cmdt:gua*': exit $rc"; cat "$tmp/out" "$tmp/err"; }

# a script that execs nothing that exists: its status, the probe named
printf '#!/bin/sh\nexec /nonexistent/prog\n' >"$d/broken.sh"
chmod +x "$d/broken.sh"
timeout 30 "$u" trace -c "$d/broken.sh" 'cmdt:start' >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'exited with status 127' "$tmp/err" &&
	grep -q 'cmdt:start: no process mapped an object that has it' "$tmp/err" && ok ||
	{ ko "broken.sh: exit $rc"; cat "$tmp/err"; }

finish
