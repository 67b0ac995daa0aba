#!/bin/sh
# `usdtkit trace -c CMD`: CMD (tests/fixtures/fx_cmd.c) fires its probes first
# thing in main(), so every hit counted proves the probes were attached
# before it ran; its semaphore-guarded probe fires only if the semaphore
# was raised before then; a library it dlopen()s later is traced once
# mapped; the trace ends with CMD, and ends CMD when it ends first.
# Needs root and BPF.
# usage: cli_trace_cmd.sh USDTKIT FX_CMD FX_CMD_LIB
set -u
u=$1
fx=$2
lib=$3
. "$(dirname "$0")/../helpers/trace_run.sh"

# hits FILE PROBE: how many lines of FILE are hits of PROBE
hits() { grep -c " $2(" "$1"; }

# K hits of cmdt:start, all fired before anything could attach after the
# start, and cmdt:guarded once, in each backend that can attach by path
for m in multi perf; do
	timeout 30 "$u" trace --mode "$m" -c "$fx 7" 'cmdt:*' >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && ok || { ko "$m: exit $rc"; cat "$tmp/err"; }
	[ "$(hits "$tmp/out" cmdt:start)" -eq 7 ] && ok ||
		{ ko "$m: want 7 cmdt:start hits:"; cat "$tmp/out" "$tmp/err"; }
	[ "$(hits "$tmp/out" cmdt:guarded)" -eq 1 ] && ok ||
		{ ko "$m: semaphore not raised before the start:"; cat "$tmp/out"; }
	# the i of start(i, argc) in order, and CMD's own argc
	got=$(sed -n 's/.*cmdt:start(s32 \([0-9]*\), s32 \([0-9]*\)).*/\1,\2/p' "$tmp/out" | tr '\n' ' ')
	[ "$got" = "0,2 1,2 2,2 3,2 4,2 5,2 6,2 " ] && ok || ko "$m: start args: $got"
	grep -q "command pid [0-9]* exited with status 0" "$tmp/err" && ok ||
		{ ko "$m: no exit status line:"; cat "$tmp/err"; }
done

# the hits are CMD's: its pid, the one reported at its exit
pid=$(sed -n 's/.*command pid \([0-9]*\) exited.*/\1/p' "$tmp/err")
[ -n "$pid" ] && [ "$(grep -c " pid $pid tid $pid " "$tmp/out")" -eq 8 ] && ok ||
	{ ko "hits not of pid '$pid'"; cat "$tmp/out"; }

# a full PATH target, CMD found in $PATH, quoted words (argc 4: the
# quoted "a b" is one word), and CMD's own exit status, which is not
# trace's
d=$(dirname "$fx") b=$(basename "$fx")
PATH=$d:$PATH timeout 30 "$u" trace --json -c "$b 3 'a b' 5" "$fx:cmdt:start" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || { ko "PATH target: exit $rc"; cat "$tmp/err"; }
python3 - "$tmp/out" <<'PY' && ok || ko "PATH target: JSON $(cat "$tmp/out")"
import json, sys
hits = [json.loads(l) for l in open(sys.argv[1])]
assert [h["args"] for h in hits] == [[0, 4], [1, 4], [2, 4]], hits
PY
grep -q "exited with status 5" "$tmp/err" && ok || { ko "status 5:"; cat "$tmp/err"; }

# a library dlopen()ed after the start: attached by path with CMD's pid
FX_CMD_LIB=$lib timeout 30 "$u" trace -c "$fx 4" "$lib:cmdlib:fire" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ "$(hits "$tmp/out" cmdlib:fire)" -eq 4 ] && ok ||
	{ ko "dlopen: exit $rc"; cat "$tmp/out" "$tmp/err"; }

# the trace ends with CMD: CMD sleeps 1 s (so it exits while traced) and
# exits 7; the trace reports that status and exits 0 by itself. No clock:
# timeout is only a watchdog (30 s, over 10x the normal 2 s): a trace that
# did not end with CMD would run until it, and exit 124.
timeout 30 "$u" trace -c "$fx 1 1 7" cmdt:start >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ "$(hits "$tmp/out" cmdt:start)" -eq 1 ] &&
	grep -q "command pid [0-9]* exited with status 7" "$tmp/err" && ok ||
	{ ko "ends with CMD: exit $rc"; cat "$tmp/out" "$tmp/err"; }

# --count ends the trace first: CMD (sleeping 60 s, longer than the
# watchdog) is terminated by the trace, which reports the signal, and is
# gone once the trace has exited
timeout 30 "$u" trace --count 1 -c "$fx 3 60" cmdt:start >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ "$(hits "$tmp/out" cmdt:start)" -eq 1 ] &&
	grep -q "killed by signal 15" "$tmp/err" && ok ||
	{ ko "--count: exit $rc"; cat "$tmp/out" "$tmp/err"; }
pgrep -f "$fx 3 60" >/dev/null && ko "--count: CMD still runs" || ok

# SIGTERM to trace, during its setup and once CMD runs: cli_trace_signal.sh

# a command that does not exist: one line, exit 1, nothing run
timeout 30 "$u" trace -c "/nonexistent/cmd 1" cmdt:start >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "cannot run /nonexistent/cmd: No such file" "$tmp/err" && ok ||
	{ ko "no such command: exit $rc"; cat "$tmp/err"; }
timeout 30 env PATH=/nonexistent "$u" trace -c "no-such-cmd-xyz" cmdt:start >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok ||
	{ ko "no such command in PATH: exit $rc"; cat "$tmp/err"; }
# a probe CMD does not have: it waits for a library CMD loads later;
# none has it: said at the start and at the end, exit 1
timeout 30 "$u" trace -c "$fx 1" cmdt:nope >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "no probe cmdt:nope yet: waiting for a library" "$tmp/err" &&
	[ "$(tail -n 1 "$tmp/err")" = "usdtkit trace: cmdt:nope: no process mapped an object that has it" ] &&
	ok || { ko "no such probe: exit $rc"; cat "$tmp/err"; }
# --mode ipmap (AUTO before Linux 5.15) and a PIE: its sites have no
# address until CMD runs. One line, before anything is forked or loaded
rm -f "$tmp/mark"
FX_CMD_MARK=$tmp/mark timeout 30 "$u" trace --mode ipmap -c "$fx 1" 'cmdt:*' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
	[ ! -e "$tmp/mark" ] &&
	grep -q "^usdtkit trace: -c with --mode ipmap: $fx is placed in memory only once the command runs" "$tmp/err" &&
	ok || { ko "ipmap and a PIE: exit $rc"; cat "$tmp/err"; }

finish
