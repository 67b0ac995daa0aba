#!/bin/sh
# usdtkit trace --mode hwbp (root, BPF) on the host: hardware breakpoints
# per thread of a process (attach/hwbp.c). Whether they work here is the
# machine's answer, found by doing it (attach/hwbp_probe.c): the x86-64
# VMs usdtkit is built on take the event and never fire it. Either way
# something is asserted:
#  - they work: -p counts the box's K hits exactly, and -c its K hits
#    from the exec (enable_on_exec), the box's fork not among them;
#  - they do not: one line that names the file, the pid, the kernel and
#    what is wrong, exit 1, nothing left attached, the process unharmed.
# Always: --mode hwbp without a process is a usage error, AUTO never
# takes it for a native process, and the BPF program loads as a
# perf-event program (its direct context loads pass the verifier).
# The VM scenario compat32 (tests/vm) proves the mode where it fires.
# usage: cli_trace_hwbp.sh USDTKIT FX_BOX FX_CMD
set -u
u=$1 box=$2 pie=$3

. "$(dirname "$0")/../helpers/check.sh"
spid=""
cleanup() {
	exec 3>&- 2>/dev/null
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

K=5

# start [C]: the box (C children), held on a fifo (fd 3) until go
start() {
	rm -f "$tmp/go"
	mkfifo "$tmp/go"
	"$box" "${1:-0}" "$K" <"$tmp/go" >"$tmp/box.out" 2>"$tmp/box.err" &
	spid=$!
	exec 3>"$tmp/go"
	wait_for "$tmp/box.out" '^ready$' 100 $spid || ko "the box did not start"
}

go() {
	echo go >&3
	exec 3>&-
	wait $spid
	brc=$?
	spid=""
}

# usage errors: no process, or every process
run "hwbp without a process" 2 "$u" trace --mode hwbp "$box:box:tick"
grep -q "^usdtkit trace: --mode hwbp goes with -p PID or -c CMD" "$tmp/err" && ok ||
	ko "hwbp without a process: $(cat "$tmp/err")"
run "hwbp with --all" 2 "$u" trace --mode hwbp --all box:tick
grep -q "goes with -p PID or -c CMD\|--all excludes" "$tmp/err" && ok ||
	ko "hwbp with --all: $(cat "$tmp/err")"

# AUTO, native code: a uprobe mode, never hwbp
start
"$u" trace -v --counts -d 0.5 -p "$spid" box:tick >"$tmp/out" 2>"$tmp/err"
if grep -q "box:tick: 1 site(s), mode \(multi\|perf\|ipmap\|inst\)$" "$tmp/err"; then ok; else
	ko "AUTO on native code: $(cat "$tmp/err")"; fi
go

# -p in mode hwbp, K hits or one line that says why not
start
"$u" trace -v --counts --json -p "$spid" --mode hwbp box:tick >"$tmp/out" 2>"$tmp/err" &
tp=$!
wait_for "$tmp/err" '^Tracing\|cannot attach' 300 $tp
if grep -q "cannot attach" "$tmp/err"; then
	wait $tp
	trc=$?
	# one line: the file (pid): mode hwbp: the kernel, and why
	n=$(grep -c "mode hwbp: .*\(this\|under this\) [a-z0-9_]* kernel (Linux [^)]*)" "$tmp/err")
	if [ "$trc" -eq 1 ] && [ "$n" -eq 1 ] &&
	   grep -q "cannot attach: $box (pid $spid): mode hwbp: " "$tmp/err"; then ok; else
		ko "hwbp -p refused: exit $trc, $n reason lines: $(cat "$tmp/err")"; fi
	grep -q "loaded usdtkit_trace" "$tmp/err" && ok ||
		ko "hwbp -p: the perf-event program did not load: $(cat "$tmp/err")"
	# nothing left: no breakpoint event of ours on the box
	if ls -l /proc/$spid/fd 2>/dev/null | grep -q perf_event; then
		ko "hwbp -p refused: the box holds a perf event"; else ok; fi
	go
	[ "$brc" -eq 0 ] && ok ||
		ko "hwbp -p refused: the box after it: exit $brc, $(cat "$tmp/box.err")"
	works=0
else
	go
	sleep 0.3
	kill -INT $tp
	wait $tp
	grep -q '"count":'"$K"'[,}]' "$tmp/out" && ok ||
		ko "hwbp -p: want $K hits: $(cat "$tmp/out") $(cat "$tmp/err")"
	works=1
fi

# -c: from the exec, the box's one child (a fork) not counted
"$u" trace --counts --json --mode hwbp -c "$box 1 $K" box:tick \
	</dev/null >"$tmp/out" 2>"$tmp/err"
trc=$?
if [ $works = 1 ]; then
	[ $trc -eq 0 ] && grep -q '"count":'"$K"'[,}]' "$tmp/out" && ok ||
		ko "hwbp -c: want $K hits (exit $trc): $(cat "$tmp/out") $(cat "$tmp/err")"
else
	[ $trc -eq 1 ] && [ "$(grep -c "mode hwbp: " "$tmp/err")" -eq 1 ] && ok ||
		ko "hwbp -c refused: exit $trc: $(cat "$tmp/err")"
fi
# -c and a PIE: its sites have no address before the exec; one line,
# before anything is forked (the mark file would say the command ran)
rm -f "$tmp/mark"
FX_CMD_MARK=$tmp/mark "$u" trace --mode hwbp -c "$pie 1" 'cmdt:*' >"$tmp/out" 2>"$tmp/err"
trc=$?
[ $trc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/mark" ] &&
	grep -q "^usdtkit trace: -c with --mode hwbp: $pie is placed in memory only once the command runs.*: run it and trace it with -p PID$" "$tmp/err" &&
	ok || ko "hwbp -c and a PIE: exit $trc: $(cat "$tmp/err")"
echo "hardware breakpoints here: $([ $works = 1 ] && echo fire || echo refused)"
finish cli_trace_hwbp
