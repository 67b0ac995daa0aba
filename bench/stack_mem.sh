#!/bin/sh
# What a trace keyed by the user stack holds in kernel memory: the
# memlock of every BPF map the tracer has open (/proc/PID/fdinfo), and
# of its stack trace maps apart, for `usdtkit trace --count-by ustack
# --stack-depth N` and bpftrace's `@[ustack(N)] = count()`, side by
# side, on the bundled demo's probe demo:request (traced by PID).
# Prints one line per tool and depth: maps, total bytes, stack maps'.
#
# usage: bench/stack_mem.sh USDTKIT DEMO [DEPTH...]   (root; default
#        depths 16 and 127, bpftrace's largest)
set -u
u=$1 demo=$2
shift 2
[ $# -gt 0 ] || set -- 16 127
tmp=$(mktemp -d)
"$demo" > /dev/null 2>&1 &
w=$!
trap 'kill $w 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

# memlock TOOL DEPTH PID: once its maps exist, sum their memlock
memlock() {
	_n=0
	while [ $_n -lt 100 ]; do
		grep -qs "^map_type:" /proc/"$3"/fdinfo/* && break
		sleep 0.1; _n=$((_n + 1))
	done
	sleep 1	# every map created
	for f in /proc/"$3"/fdinfo/*; do
		awk '/^map_type:/{t=$2} /^memlock:/{m=$2} END{if (t != "") print t, m}' "$f" 2>/dev/null
	done | awk -v tool="$1" -v d="$2" '
		{ n++; all += $2; if ($1 == 7) { s += $2; ns++ } }
		END { printf "%-8s depth %3d: %2d maps, %9d bytes; %d stack maps, %9d bytes\n",
			tool, d, n, all, ns, s }'
}

for d in "$@"; do
	"$u" trace -q -p "$w" --count-by ustack --stack-depth "$d" \
		"$demo:demo:request" > /dev/null 2> "$tmp/u.err" &
	t=$!
	memlock usdtkit "$d" "$t"
	kill -INT "$t"; wait "$t"
	bpftrace -p "$w" -e "usdt:$demo:demo:request { @[ustack($d)] = count(); }" \
		> /dev/null 2> "$tmp/b.err" &
	t=$!
	memlock bpftrace "$d" "$t"
	kill -INT "$t"; wait "$t"
done
