#!/bin/sh
# What a trace keyed by the user stack holds in kernel memory: the
# memlock of every BPF map the tracer has open (/proc/PID/fdinfo), and
# of its stack trace maps apart, for `usdtkit trace --count-by ustack
# --stack-depth N` and bpftrace's `@[ustack(N)] = count()`, side by
# side, on the bundled demo's probe demo:request (traced by PID), read
# once the tracer says it is attached.
# Prints one line per tool and depth: maps, total bytes, stack maps';
# "-" for bpftrace when it is not installed. Exits 1 if a tracer fails.
#
# usage: bench/stack_mem.sh USDTKIT DEMO [DEPTH...]   (root; default
#        depths 16 and 127, bpftrace's largest)
set -u
u=$1 demo=$2
shift 2
[ $# -gt 0 ] || set -- 16 127
here=$(cd "$(dirname "$0")" && pwd)
. "$here/kstats.sh"
"$demo" > /dev/null 2>&1 &
wpid=$!

# one TOOL DEPTH: the line of one tracer, started in $tpid
one() {
	if ! tracer_ready "$1"; then
		echo "stack_mem: $1 depth $2 failed: $(head -n 1 "$tmp/t.err")" >&2
		exit 1
	fi
	kmaps "$tpid" | awk -v tool="$1" -v d="$2" '{ printf "%-8s depth %3d: " \
		"%2d maps, %9d bytes; %d stack maps, %9d bytes\n", tool, d, $2, $1, $4, $3 }'
	kill -INT "$tpid"; wait "$tpid"; tpid=""
}

for d in "$@"; do
	"$u" trace -p "$wpid" --count-by ustack --stack-depth "$d" \
		"$demo:demo:request" > /dev/null 2> "$tmp/t.err" &
	tpid=$!
	one usdtkit "$d"
	if ! command -v bpftrace > /dev/null; then
		echo "bpftrace - (not installed)"
		continue
	fi
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 bpftrace -p "$wpid" \
		-e "usdt:$demo:demo:request { @[ustack($d)] = count(); }" \
		> /dev/null 2> "$tmp/t.err" &
	tpid=$!
	one bpftrace "$d"
done
