#!/bin/sh
# `usdtkit trace` on the demo program (examples/demo.c), live: every
# backend, the JSON shape, the argument values the demo passes, the text
# format, and the exit codes of the error cases. Needs root and BPF.
# usage: cli_trace.sh USDTKIT DEMO
set -u
u=$1
demo=$2
pass=0 fail=0
tmp=$(mktemp -d)
# What the unprivileged runs execute and read: copies in a folder that
# anyone may enter (a build under /root, mode 700, is closed to nobody)
pub=$tmp/pub
mkdir -p "$pub" && cp "$u" "$demo" "$pub/" && chmod 755 "$tmp" "$pub" ||
	{ echo "FAIL: cannot copy $u and $demo to $pub"; exit 1; }
pu=$pub/usdtkit pdemo=$pub/$(basename "$demo")
ok() { pass=$((pass+1)); }
ko() { fail=$((fail+1)); echo "FAIL: $*"; }

# iteration ID fires demo:request(ID, ID*100, -ID, ptr), and every 10th
# demo:tick(ID/10, 2^64 - ID/10); -i 2: a hit every 2 ms. -n bounds the run
# if this script is killed before its trap runs.
"$demo" -i 2 -n 200000 >/dev/null &
dpid=$!
trap 'kill $dpid 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
sleep 0.2

# check_json FILE WANT: the lines parse and carry the demo's values
check_json() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
path, want = sys.argv[1], int(sys.argv[2])
lines = open(path).read().splitlines()
assert len(lines) == want, f"{len(lines)} lines, want {want}"
ids, ticks = [], 0
for l in lines:
    e = json.loads(l)
    assert set(e) == {"schema", "ts_ns", "pid", "tid", "provider", "name", "args"}, e
    assert e["schema"] == "usdtkit-trace/1.2", e
    assert e["provider"] == "demo" and e["pid"] == e["tid"] > 0, e
    a = e["args"]
    if e["name"] == "request":
        i = a[0]
        assert a[1:3] == [i * 100, -i] and a[3] > 0, e
        ids.append(i)
    elif e["name"] == "tick":
        n = a[0]
        assert n > 0 and a[1] == 2**64 - n, e
        ticks += 1
    elif e["name"] == "query__start":
        assert a[0] > 0 and a[1] > 0, e
    elif e["name"] == "query__done":
        assert a[1] == a[0] % 3, e
    else:
        raise AssertionError(f"unexpected probe: {e}")
    assert all(isinstance(x, int) for x in a), e
# consecutive iterations of one process, in order
assert ids == list(range(ids[0], ids[0] + len(ids))), ids
# a tick follows each 10th request (with the queries, 25 hits of
# demo:* may end before the first one)
assert ticks >= 1 or not any(i % 10 == 0 for i in ids[:-1]), "no demo:tick"
EOF
}

# check_requests FILE N PID: N demo:request hits of PID, with its values
check_requests() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
path, want, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = open(path).read().splitlines()
assert len(lines) == want, f"{len(lines)} lines, want {want}"
for l in lines:
    e = json.loads(l)
    a = e["args"]
    assert e["pid"] == pid and e["name"] == "request", e
    assert a[1:3] == [a[0] * 100, -a[0]] and a[3] > 0, e
EOF
}

# trace_ok NAME ARGS...: 25 hits as JSON, checked; lost events reported
trace_ok() {
	what=$1; shift
	timeout 30 "$u" trace --count 25 --json "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		ko "$what: exit $rc"; cat "$tmp/err"; return
	fi
	if check_json "$tmp/out" 25 >"$tmp/py" 2>&1; then ok; else
		ko "$what: JSON"; cat "$tmp/py" "$tmp/out"; fi
	if grep -q "25 hits printed, 0 lost" "$tmp/err"; then ok; else
		ko "$what: stderr summary"; cat "$tmp/err"; fi
}

for m in multi perf auto; do
	trace_ok "mode $m" --mode "$m" "$demo:demo:request" "$demo:demo:tick"
done
# IP-map addresses of a PIE come from the process: -p
trace_ok "mode ipmap" --mode ipmap -p "$dpid" "$demo:demo:request" "$demo:demo:tick"
trace_ok "-p with PROVIDER:NAME" -p "$dpid" 'demo:*'
trace_ok "glob" "$demo:de*:*"

# text: time, pid, tid, probe, each argument with its sign and width
line=$(timeout 30 "$u" trace --count 1 "$demo:demo:request" 2>/dev/null)
case $line in
*" pid $dpid tid $dpid demo:request(u64 "*", u32 "*"00, s32 -"*", u64 "*")") ok ;;
*) ko "text line: $line" ;;
esac
line=$(timeout 30 "$u" trace --count 1 "$demo:demo:tick" 2>/dev/null)
case $line in
*"demo:tick(s16 "*", u64 1844674407370955"*")") ok ;;
*) ko "text tick: $line" ;;
esac

# the "tracing has begun" line: exact, once, and not with -q
timeout 30 "$u" trace --count 1 --mode perf "$demo:demo:request" "$demo:demo:tick" \
	>/dev/null 2>"$tmp/err"
n=$(grep -c '^Tracing' "$tmp/err")
if [ "$n" -eq 1 ] && grep -qx 'Tracing 2 probes (2 sites) in perf mode. Ctrl-C to end.' "$tmp/err"; then
	ok; else ko "Tracing line:"; cat "$tmp/err"; fi
timeout 30 "$u" trace --count 1 --mode multi "$demo:demo:request" >/dev/null 2>"$tmp/err"
grep -qx 'Tracing 1 probe (1 site) in multi mode. Ctrl-C to end.' "$tmp/err" && ok ||
	{ ko "Tracing line, one probe:"; cat "$tmp/err"; }
timeout 30 "$u" trace -q --count 1 "$demo:demo:request" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && ! grep -q Tracing "$tmp/err" && grep -q "1 hit printed" "$tmp/err"; then
	ok; else ko "-q: exit $rc:"; cat "$tmp/err"; fi

# expect RC WHAT MESSAGE-PATTERN ARGS...
expect() {
	want=$1 what=$2 pat=$3; shift 3
	timeout 30 "$u" trace "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		ko "$what: exit $rc, want $want"; cat "$tmp/err"; return
	fi
	if grep -q -- "$pat" "$tmp/err"; then ok; else
		ko "$what: no '$pat' in:"; cat "$tmp/err"; fi
}

expect 1 "no such probe" "no probe demo:nope\$" "$demo:demo:nope"
# a typo: the nearest probe is named; a glob or a far name gets no guess
expect 1 "typo" "no probe demo:requets (did you mean demo:request?)\$" "$demo:demo:requets"
expect 1 "typo, provider" "no probe dmeo:tick (did you mean demo:tick?)\$" "$demo:dmeo:tick"
expect 1 "glob, no guess" "no probe demo:requets\*\$" "$demo:demo:requets*"
expect 1 "no such file" "No such file" /nonexistent/demo:demo:request
expect 2 "bad mode" "bad mode" --mode bogus "$demo:demo:request"
expect 2 "bad count" "bad count" --count x "$demo:demo:request"
expect 2 "count overflow" "bad count" --count 99999999999999999999999 "$demo:demo:request"
# --help: the usage on stdout, exit 0, and no TARGET error
"$u" trace --help >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "^usage: usdtkit trace" "$tmp/out" && [ ! -s "$tmp/err" ]; then
	ok; else ko "trace --help: exit $rc"; cat "$tmp/err"; fi
expect 1 "dead pid" "No such process" -p 999999999 demo:request
# a malformed TARGET is a usage error (exit 2), with the form meant
expect 2 "PROVIDER:NAME without -p" "bad target 'demo:request': PROVIDER:NAME needs -p PID, -c CMD or --all" demo:request
expect 1 "ipmap on a PIE without -p" "needs a PID" --mode ipmap "$demo:demo:request"
expect 2 "no target" "no TARGET" --count 1
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$pu" trace --duration 1 "$pdemo:demo:request" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "needs root" "$tmp/err"; then ok; else
		ko "not root: exit $rc"; cat "$tmp/err"; fi
fi

# -p on a running program whose file was deleted (as by a package
# upgrade): the probes are found and traced in the inode it maps
cp "$demo" "$tmp/gone"
"$tmp/gone" -i 2 -n 200000 >/dev/null &
gpid=$!
sleep 0.2
rm "$tmp/gone"
timeout 30 "$u" trace --count 5 --json -p "$gpid" 'demo:request' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ] && check_requests "$tmp/out" 5 "$gpid" >"$tmp/py" 2>&1; then ok; else
	ko "-p on a deleted binary: exit $rc"; cat "$tmp/err" "$tmp/py"; fi
kill "$gpid" 2>/dev/null
wait "$gpid" 2>/dev/null

# Least privilege: CAP_BPF and CAP_PERFMON, nothing else, as a user that
# is not root (ambient capabilities), against a demo of the same user.
# uprobe_multi (AUTO on kernels that have it) must trace; perf-event
# uprobes need CAP_SYS_ADMIN on current kernels, which the message must say.
capped() {
	timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+bpf,+perfmon --ambient-caps=-all,+bpf,+perfmon \
		--bounding-set=-all,+bpf,+perfmon -- "$@"
}
if command -v setpriv >/dev/null && capped true 2>/dev/null &&
   "$u" features 2>/dev/null | grep -q '^uprobe_multi: *yes'; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$pdemo" -i 2 -n 200000 >/dev/null &
	npid=$!
	sleep 0.2
	for how in path pid; do
		if [ $how = path ]; then set -- -p "$npid" "$pdemo:demo:request"; else set -- -p "$npid" 'demo:request'; fi
		capped "$pu" trace --count 5 --json "$@" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ "$rc" -eq 0 ] && check_requests "$tmp/out" 5 "$npid" >"$tmp/py" 2>&1; then ok; else
			ko "CAP_BPF+CAP_PERFMON, $how: exit $rc"; cat "$tmp/err" "$tmp/py"; fi
	done
	# a PATH target traces; the exec hold after an upgrade (fanotify
	# permission events) needs CAP_SYS_ADMIN: said once, with what is lost
	capped "$pu" trace --count 5 --json "$pdemo:demo:request" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$(grep -c "cannot hold a process that execs it after an upgrade" "$tmp/err")" -eq 1 ] &&
	   grep -q "they need CAP_SYS_ADMIN): its hits until the new file is attached may be lost" "$tmp/err"; then ok; else
		ko "CAP_BPF+CAP_PERFMON, PATH target: exit $rc, want 0 and one line on the exec hold"; cat "$tmp/err"; fi
	capped "$pu" trace --count 1 --mode perf "$pdemo:demo:request" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "CAP_SYS_ADMIN" "$tmp/err"; then ok; else
		ko "CAP_BPF+CAP_PERFMON, perf mode: exit $rc, want 1 naming CAP_SYS_ADMIN"; cat "$tmp/err"; fi
	kill "$npid" 2>/dev/null
	wait "$npid" 2>/dev/null
else
	echo "SKIP least privilege: no setpriv with ambient capabilities, or no uprobe_multi"
fi

# a copy of the demo that never runs: --duration ends a trace without hits.
# Nothing else would end it: exit 0 and the summary say it ended by
# itself, before expect's watchdog (30 s, 30x the duration) fired. How
# long after the duration it ends is a figure, not a verdict:
# bench/trace_duration.sh prints it.
cp "$demo" "$tmp/idle"
expect 0 "--duration without hits" "0 hits printed, 0 lost" --duration 1 "$tmp/idle:demo:request"
[ -s "$tmp/out" ] && ko "--duration without hits printed: $(cat "$tmp/out")" || ok

# SIGINT stops the trace, with exit 0 and the summary: sent once a hit is
# out (an event, not a sleep: a signal during the setup stops it before
# any hit, which tests/cli/cli_trace_signal.sh checks); a 60 s watchdog
"$u" trace "$demo:demo:request" >"$tmp/out" 2>"$tmp/err" &
tpid=$!
n=0
while [ ! -s "$tmp/out" ] && [ $n -lt 600 ] && kill -0 "$tpid" 2>/dev/null; do
	sleep 0.1
	n=$((n + 1))
done
kill -INT "$tpid"
wait "$tpid"
rc=$?
if [ "$rc" -eq 0 ] && [ -s "$tmp/out" ] && grep -q "hits printed, 0 lost" "$tmp/err"; then
	ok
else
	ko "SIGINT: exit $rc"; cat "$tmp/err"
fi

echo "cli_trace: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
