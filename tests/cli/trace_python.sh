#!/bin/sh
# usdtkit trace --str against bpftrace on Debian's python3.11, live (root,
# BPF): one run of a Python script, held on a fifo until both tracers say
# they are attached, traced by both at once; the (file, function) pairs of
# python:function__entry must be the same multiset in both, and hold the
# script's functions as many times as it calls them.
#
# Debian's python3.11 fires function__entry only while python:line's
# semaphore is raised too (seen on 3.11.2: function__entry alone, no
# hits): both tracers therefore also attach python:line, and the usdtkit
# side drops those hits.
#
# bpftrace prints "Attaching N probes..." before it attaches them: the
# wait is for the line its own tests use, which comes once they are.
#
# Skips (exit 77) without /usr/bin/python3.11, its probes, or bpftrace;
# scripts/setup.sh installs both.
# usage: trace_python.sh USDTKIT [PYTHON [BPFTRACE]]
set -u
u=$1 py=${2:-/usr/bin/python3.11} bt=${3:-bpftrace}

skip() { echo "SKIP trace_python: $*"; exit 77; }
[ -x "$py" ] || skip "no $py (apt-get install python3.11)"
command -v "$bt" >/dev/null 2>&1 || skip "no $bt (apt-get install bpftrace)"
"$u" list "$py" 2>/dev/null | grep -q '^python:function__entry ' ||
	skip "$py has no python:function__entry probe"

. "$(dirname "$0")/../helpers/check.sh"
wpid="" upid="" bpid=""
cleanup() {
	exec 3>&- 2>/dev/null
	for p in $upid $bpid $wpid; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# ---- the script: f, g, K.m and fib called a known number of times once
# it reads a line, then "done" and a second read, so that the tracers
# are stopped while it is idle ----
cat >"$tmp/helper.py" <<'PY'
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
PY
cat >"$tmp/work.py" <<'PY'
import sys
from helper import fib


def f(x):
    return x + 1


def g(x):
    return f(x) * 2


class K:
    def m(self):
        return g(1)


print("ready", flush=True)
sys.stdin.readline()
for i in range(7):
    g(i)
for i in range(5):
    K().m()
fib(10)
print("done", flush=True)
sys.stdin.readline()
PY
# (file, function) -> calls: g 7 + 5 (from m), f as g, fib(10) 177
cat >"$tmp/want" <<TXT
$tmp/helper.py fib 177
$tmp/work.py f 12
$tmp/work.py g 12
$tmp/work.py m 5
TXT

mkfifo "$tmp/go"
"$py" -S "$tmp/work.py" <"$tmp/go" >"$tmp/py.out" 2>"$tmp/py.err" &
wpid=$!
exec 3>"$tmp/go"
wait_for "$tmp/py.out" '^ready$' 300 $wpid ||
	{ ko "python did not start"; cat "$tmp/py.err"; finish trace_python; exit; }

timeout 120 "$u" trace --str 0,1 -p $wpid python:function__entry python:line \
	>"$tmp/uk.out" 2>"$tmp/uk.err" &
upid=$!
__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 timeout 120 "$bt" -p $wpid -e "usdt:$py:python:line {}
usdt:$py:python:function__entry { printf(\"%s %s\\n\", str(arg0), str(arg1)); }" \
	>"$tmp/bt.out" 2>"$tmp/bt.err" &
bpid=$!
wait_for "$tmp/uk.err" '^Tracing 2 probes' 300 $upid || ko "usdtkit did not attach"
wait_for "$tmp/bt.err" '^__BPFTRACE_NOTIFY_PROBES_ATTACHED$' 300 $bpid || ko "bpftrace did not attach"
if [ "$fail" -ne 0 ]; then
	cat "$tmp/uk.err" "$tmp/bt.err"; finish trace_python; exit
fi

echo go >&3
wait_for "$tmp/py.out" '^done$' 300 $wpid || { ko "the script did not end"; cat "$tmp/py.err"; }
# the script's last calls (fib) read by both: on a loaded machine a
# reader may be seconds behind
fibs() { [ "$(grep -c "helper\.py.*fib" "$1")" -ge 177 ]; }
_n=0
until { fibs "$tmp/uk.out" && fibs "$tmp/bt.out"; } || [ $_n -ge 150 ]; do
	sleep 0.1; _n=$((_n + 1))
done
sleep 0.3
kill -INT $upid
interrupt $bpid
wait $upid; urc=$?
wait $bpid; brc=$?
upid="" bpid=""
echo go >&3
exec 3>&-
wait $wpid; wrc=$?
wpid=""
[ $urc -eq 0 ] && ok || { ko "usdtkit trace: exit $urc"; cat "$tmp/uk.err"; }
# bpftrace 0.17 prints errors on detach (no tracefs here) and exits 0
[ $brc -eq 0 ] && ok || { ko "bpftrace: exit $brc"; cat "$tmp/bt.err"; }
[ $wrc -eq 0 ] && ok || { ko "python: exit $wrc"; cat "$tmp/py.err"; }
grep -q " 0 lost$" "$tmp/uk.err" && ok || { ko "usdtkit lost hits:"; cat "$tmp/uk.err"; }

# ---- the two multisets ----
sed -n 's/^ *[0-9.]* pid [0-9]* tid [0-9]* python:function__entry(str "\(.*\)", str "\(.*\)", s32 -*[0-9]*)$/\1 \2/p' \
	"$tmp/uk.out" | sort >"$tmp/uk.set"
grep -v '^Attaching ' "$tmp/bt.out" | grep -v '^$' | sort >"$tmp/bt.set"
n=$(wc -l <"$tmp/uk.set")
[ "$n" -gt 0 ] && [ "$n" -eq "$(grep -c 'python:function__entry(' "$tmp/uk.out")" ] && ok ||
	{ ko "usdtkit: $n function__entry hits parsed, of:"; grep function__entry "$tmp/uk.out" | head; }
if cmp -s "$tmp/uk.set" "$tmp/bt.set"; then ok; else
	ko "usdtkit and bpftrace differ (< usdtkit, > bpftrace):"
	diff "$tmp/uk.set" "$tmp/bt.set" | head -20
fi
grep "^$tmp/" "$tmp/uk.set" | uniq -c | awk '{ print $2, $3, $1 }' >"$tmp/got"
if cmp -s "$tmp/want" "$tmp/got"; then ok; else
	ko "the script's calls (< want, > usdtkit):"; diff "$tmp/want" "$tmp/got"; fi
echo "trace_python: function__entry hits: usdtkit $n, bpftrace $(wc -l <"$tmp/bt.set");" \
	"$(grep -vc "^$tmp/" "$tmp/uk.set") of usdtkit's outside the script"

finish trace_python
