#!/bin/sh
# usdtkit trace --children on Debian's python3.11, live (root, BPF): a
# multiprocessing pool (start method fork) runs the script's functions
# in its workers. Three tracers at once, all with a --filter on the
# script's file: -p PARENT --children, -p PARENT, and the path target
# /usr/bin/python3.11 (every python3.11 process). --children counts
# what the path target counts (python:function__entry and python:line),
# the workers' 220 calls among them; -p alone sees none of those.
#
# python:line is attached too: Debian's python3.11 fires function__entry
# only while line's semaphore is raised (tests/cli/trace_python.sh).
#
# Skips (exit 77) without /usr/bin/python3.11 or its probes.
# usage: trace_python_children.sh USDTKIT [PYTHON]
set -u
u=$1 py=${2:-/usr/bin/python3.11}

skip() { echo "SKIP trace_python_children: $*"; exit 77; }
[ -x "$py" ] || skip "no $py (apt-get install python3.11)"
"$u" list "$py" 2>/dev/null | grep -q '^python:function__entry ' ||
	skip "$py has no python:function__entry probe"

. "$(dirname "$0")/../helpers/check.sh"
wpid="" pids=""
cleanup() {
	exec 3>&- 2>/dev/null
	for p in $pids $wpid; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# w() 20 times in the workers, each calling f() 10 times: 220 calls
cat >"$tmp/work.py" <<'PY'
import multiprocessing as mp
import sys


def f(x):
    return x + 1


def w(x):
    s = 0
    for i in range(10):
        s += f(i)
    return s


if __name__ == "__main__":
    mp.set_start_method("fork")
    print("ready", flush=True)
    sys.stdin.readline()
    with mp.Pool(3) as pool:
        r = pool.map(w, range(20), chunksize=1)
    print("done", sum(r), flush=True)
PY

# hits FILE PROBE: PROBE's row of a --counts table
hits() { sed -n "s/^ *\([0-9]*\)  *\(.*:\)*$2\$/\1/p" "$1"; }

filter="str(arg0) == \"$tmp/work.py\""
for m in multi perf ipmap; do
	rm -f "$tmp/go" "$tmp/py.out" "$tmp"/*.out "$tmp"/*.err
	mkfifo "$tmp/go"
	"$py" -S "$tmp/work.py" <"$tmp/go" >"$tmp/py.out" 2>"$tmp/py.err" &
	wpid=$!
	exec 3>"$tmp/go"
	wait_for "$tmp/py.out" '^ready$' 300 $wpid ||
		{ ko "$m: python did not start"; cat "$tmp/py.err"; break; }
	timeout 120 "$u" trace --mode $m --children -p $wpid --counts --filter "$filter" \
		python:function__entry python:line >"$tmp/kids.out" 2>"$tmp/kids.err" &
	kpid=$!
	timeout 120 "$u" trace --mode $m -p $wpid --counts --filter "$filter" \
		python:function__entry python:line >"$tmp/pid.out" 2>"$tmp/pid.err" &
	ppid_=$!
	timeout 120 "$u" trace --mode $m --counts --filter "$filter" \
		"$py:python:function__entry" "$py:python:line" >"$tmp/path.out" 2>"$tmp/path.err" &
	apid=$!
	pids="$kpid $ppid_ $apid"
	for e in kids pid path; do
		wait_for "$tmp/$e.err" '^Tracing 2 probes' 300 || ko "$m $e: did not attach"
	done
	echo go >&3
	exec 3>&-
	wait $wpid; wrc=$?
	wpid=""
	# the -p traces end with the process (and, --children, its workers)
	wait $kpid; krc=$?
	wait $ppid_; prc=$?
	kill -INT $apid
	wait $apid; arc=$?
	pids=""
	[ $wrc -eq 0 ] && grep -q '^done 1100$' "$tmp/py.out" && ok ||
		{ ko "$m: python: exit $wrc"; cat "$tmp/py.err"; }
	[ $krc -eq 0 ] && [ $prc -eq 0 ] && [ $arc -eq 0 ] && ok ||
		{ ko "$m: exits $krc $prc $arc"; cat "$tmp/kids.err" "$tmp/pid.err" "$tmp/path.err"; }
	grep -q "^usdtkit trace: pid [0-9]* and its children exited\$" "$tmp/kids.err" && ok ||
		{ ko "$m --children: did not end with the pool:"; cat "$tmp/kids.err"; }
	k=$(hits "$tmp/kids.out" function__entry) a=$(hits "$tmp/path.out" function__entry)
	p=$(hits "$tmp/pid.out" function__entry)
	[ "$k" = 220 ] && [ "$a" = 220 ] && [ "$p" = 0 ] && ok ||
		{ ko "$m function__entry: --children '$k', path '$a' (want 220), -p '$p' (want 0)"
		  cat "$tmp/kids.out" "$tmp/path.out" "$tmp/pid.out"; }
	kl=$(hits "$tmp/kids.out" line) al=$(hits "$tmp/path.out" line)
	[ -n "$kl" ] && [ "$kl" = "$al" ] && ok ||
		{ ko "$m line: --children '$kl', path '$al'"; cat "$tmp/kids.out" "$tmp/path.out"; }
	echo "trace_python_children: $m: function__entry --children $k, path $a," \
		"-p $p; line --children $kl, path $al"
done

finish trace_python_children
