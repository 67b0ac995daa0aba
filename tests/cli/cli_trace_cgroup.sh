#!/bin/sh
# The cgroup key (root, BPF): the demo run 30 times in a cgroup of its
# own, named with a quote and a backslash, and 5 times in ours, under
# one --count-by cgroup: each cgroup its path and its own count, in text,
# JSON and a textfile (the label escaped as every label). A cgroup
# removed before the report keeps its id. Needs a cgroup2 mount (on a
# hybrid system, /sys/fs/cgroup/unified).
# usage: cli_trace_cgroup.sh USDTKIT DEMO
set -u
u=$1 demo=$2

. "$(dirname "$0")/../helpers/check.sh"
cg2=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
[ -n "$cg2" ] || { echo "SKIP cli_trace_cgroup: no cgroup2 is mounted here"; exit 77; }
top="$cg2/usdtkit-test-$$"
name='a"b\c d'
tpid=""
cleanup() {
	[ -n "$tpid" ] && kill -9 "$tpid" 2>/dev/null
	rmdir "$top/$name" "$top/gone" "$top" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
mkdir -p "$top/$name" "$top/gone" ||
	{ echo "SKIP cli_trace_cgroup: cannot make a cgroup under $cg2"; exit 77; }
ours=$(sed -n 's/^0:://p' /proc/self/cgroup)

# in CGROUP_DIR, N requests of the demo (its own process, moved first)
demo_in() {
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" -i 1 -n "$3"' - "$1" "$demo" "$2" \
		>/dev/null 2>&1
}
# trace OPTIONS...: a trace of the demo's probe until the workloads ran
trace() {
	rm -f "$tmp/out" "$tmp/err"
	"$u" trace "$@" --count-by cgroup "$demo:demo:request" >"$tmp/out" 2>"$tmp/err" &
	tpid=$!
	wait_for "$tmp/err" '^Tracing ' 100 "$tpid" || { ko "$*: not attached"; cat "$tmp/err"; }
	demo_in "$top/$name" 30
	"$demo" -i 1 -n 5 >/dev/null 2>&1
	demo_in "$top/gone" 7
	# removed before the report: its key keeps only its id
	rmdir "$top/gone"
	kill -INT $tpid
	wait $tpid
	rc=$?
	tpid=""
	[ $rc -eq 0 ] && ok || { ko "$*: exit $rc"; cat "$tmp/err"; }
}

trace --json
python3 - "$tmp/out" "/usdtkit-test-$$/$name" "$ours" <<'EOF' && ok || { ko "JSON"; cat "$tmp/out"; }
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][0]["top"]
keys = {(r["key"] if isinstance(r["key"], str) else "id"): r["count"] for r in rows}
assert keys.get(sys.argv[2]) == 30, (keys, sys.argv[2])
assert keys.get(sys.argv[3]) == 5, (keys, sys.argv[3])
gone = [r for r in rows if isinstance(r["key"], int)]
assert len(gone) == 1 and gone[0]["count"] == 7 and gone[0]["parts"] == [gone[0]["key"]], rows
EOF

mkdir "$top/gone"
trace
grep -q "^ *30  /usdtkit-test-$$/a\"b\\\\c d$" "$tmp/out" && ok || { ko "text: the path"; cat "$tmp/out"; }
grep -q '^ *7  <cgroup id [0-9]*, removed>$' "$tmp/out" && ok || { ko "text: the removed one"; cat "$tmp/out"; }

mkdir "$top/gone"
trace --textfile "$tmp/m.prom"
# rendered (" and \ as in the text's quoted strings), then escaped for
# the format, as every label value
grep -qF "cgroup=\"/usdtkit-test-$$/a\\\\\\\"b\\\\\\\\c d\"} 30" "$tmp/m.prom" && ok ||
	{ ko "textfile: the label"; grep cgroup "$tmp/m.prom"; }

finish cli_trace_cgroup
