#!/bin/sh
# `usdtkit trace -o FILE`: FILE holds the trace's output and nothing
# else (the hits, JSON or text, and the aggregation tables, at the end
# and at each --interval); the command of -c keeps trace's stdout and
# stderr, so its prints reach the terminal and never FILE; messages stay
# on stderr. FILE is created or truncated, mode 0666 less the umask; one
# that cannot be opened is one line naming it, exit 1, nothing run; one
# that cannot be written (/dev/full) is said, exit 1. The command is
# tests/fixtures/fx_cmd, which fires cmdt:start K times first thing.
# Needs root and BPF.
# usage: cli_trace_output.sh USDTKIT FX_CMD
set -u
u=$1
fx=$2
. "$(dirname "$0")/../helpers/trace_run.sh"

# CMD: a line on stdout and one on stderr, then fx_cmd K (an ELF command,
# sh, that execs it: the same pid)
noisy() { echo "sh -c 'echo cmd-out; echo cmd-err >&2; exec $fx $1'"; }

# --json: FILE holds exactly 5 JSON objects, the hits; trace's stdout
# exactly the command's line, its stderr the command's line and the
# messages
echo stale-line-that-must-go >"$tmp/o.json"
timeout 30 "$u" trace --json -o "$tmp/o.json" -c "$(noisy 5)" cmdt:start \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || { ko "json: exit $rc"; cat "$tmp/err"; }
python3 - "$tmp/o.json" <<'PY' && ok || { ko "json: FILE is not the 5 hits:"; cat "$tmp/o.json"; }
import json, sys
hits = [json.loads(l) for l in open(sys.argv[1])]
assert [h["args"] for h in hits] == [[i, 2] for i in range(5)], hits
assert all(h["provider"] == "cmdt" and h["name"] == "start" for h in hits), hits
PY
[ "$(cat "$tmp/out")" = cmd-out ] && ok || { ko "json: stdout is not the command's:"; cat "$tmp/out"; }
grep -qx cmd-err "$tmp/err" && grep -q '^Tracing ' "$tmp/err" &&
	grep -q '5 hits printed' "$tmp/err" && ok ||
	{ ko "json: stderr lacks the command's line or a message:"; cat "$tmp/err"; }

# text, and FILE's mode under a umask
rm -f "$tmp/o.txt"
(umask 027; timeout 30 "$u" trace -o "$tmp/o.txt" -c "$(noisy 3)" cmdt:start) \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ' cmdt:start(s32 [0-2], s32 2)$' "$tmp/o.txt")" -eq 3 ] &&
	[ "$(wc -l <"$tmp/o.txt")" -eq 3 ] && [ "$(cat "$tmp/out")" = cmd-out ] && ok ||
	{ ko "text: exit $rc"; cat "$tmp/o.txt" "$tmp/out" "$tmp/err"; }
[ "$(stat -c %a "$tmp/o.txt")" = 640 ] && ok || ko "text: mode $(stat -c %a "$tmp/o.txt"), want 640"

# --counts: the table in FILE, and each --interval's too (CMD sleeps 1 s
# after its hits: 0.3 s intervals make 3 or more tables, the last at the end)
timeout 30 "$u" trace --counts -o "$tmp/o.cnt" -c "$(noisy 4)" cmdt:start \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ "$(awk '$2 == "cmdt:start" { print $1 }' "$tmp/o.cnt")" = 4 ] &&
	[ "$(cat "$tmp/out")" = cmd-out ] && ok ||
	{ ko "counts: exit $rc"; cat "$tmp/o.cnt" "$tmp/out" "$tmp/err"; }
timeout 30 "$u" trace --counts --interval 0.3 -o "$tmp/o.int" \
	-c "sh -c 'echo cmd-out; exec $fx 4 1'" cmdt:start >"$tmp/out" 2>"$tmp/err"
rc=$?
n=$(grep -c 'HITS' "$tmp/o.int")
sum=$(awk '$2 == "cmdt:start" { s += $1 } END { print s + 0 }' "$tmp/o.int")
[ $rc -eq 0 ] && [ "$n" -ge 3 ] && [ "$sum" -eq 4 ] && [ "$(cat "$tmp/out")" = cmd-out ] &&
	ok || { ko "interval: exit $rc, $n tables, $sum hits"; cat "$tmp/o.int" "$tmp/err"; }

# --textfile with --print-hits: the hits in FILE, the metrics in theirs
timeout 30 "$u" trace --textfile "$tmp/m.prom" --print-hits -o "$tmp/o.ph" \
	-c "$(noisy 2)" cmdt:start >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ' cmdt:start(' "$tmp/o.ph")" -eq 2 ] &&
	[ "$(cat "$tmp/out")" = cmd-out ] && grep -q 'cmdt' "$tmp/m.prom" && ok ||
	{ ko "print-hits: exit $rc"; cat "$tmp/o.ph" "$tmp/err"; }

# a FILE that cannot be opened: one line naming it, exit 1, CMD never run
for bad in "$tmp/no/such/dir/o" "$tmp"; do
	rm -f "$tmp/mark"
	FX_CMD_MARK=$tmp/mark timeout 30 "$u" trace -o "$bad" -c "$fx 1" cmdt:start \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
		grep -q "^usdtkit trace: cannot write $bad: " "$tmp/err" && [ ! -e "$tmp/mark" ] &&
		ok || { ko "-o $bad: exit $rc"; cat "$tmp/err"; }
done
# a FILE that cannot be written: said, exit 1
timeout 30 "$u" trace -o /dev/full -c "$fx 3" cmdt:start >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "^usdtkit trace: writing /dev/full: No space left on device$" "$tmp/err" &&
	ok || { ko "/dev/full: exit $rc"; cat "$tmp/err"; }

# usage errors, exit 2: an empty FILE; metrics that print nothing to it
run "-o ''" 2 "$u" trace -o '' -c "$fx 1" cmdt:start
grep -q "^usdtkit trace: -o: the FILE is empty" "$tmp/err" && ok || { ko "-o '':"; cat "$tmp/err"; }
run "-o with --serve" 2 "$u" trace --serve 127.0.0.1:0 -o "$tmp/x" -c "$fx 1" cmdt:start
grep -q "nothing is printed but with --print-hits" "$tmp/err" && [ ! -e "$tmp/x" ] && ok ||
	{ ko "-o with --serve:"; cat "$tmp/err"; }
run "-o as --textfile" 2 "$u" trace --textfile "$tmp/x" --print-hits -o "$tmp/x" \
	-c "$fx 1" cmdt:start

finish
