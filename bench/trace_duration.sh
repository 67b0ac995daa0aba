#!/bin/sh
# How long `usdtkit trace --duration SEC` runs on a probe that never
# fires: the time to attach, wait out SEC and detach. tests/cli/cli_trace.sh
# only checks that such a trace ends by itself (exit 0, "0 hits"): its
# length depends on the machine's load, so it is a figure, printed here.
# The probe is in a copy of the demo program that never runs.
# Prints one line: median and all runs, in seconds.
#
# usage: bench/trace_duration.sh USDTKIT DEMO [RUNS [SEC]]   (root)
set -u
u=$1 demo=$2 runs=${3:-5} sec=${4:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cp "$demo" "$tmp/idle"

now() { date +%s.%N; }

all=""
for _ in $(seq "$runs"); do
	t0=$(now)
	if "$u" trace --duration "$sec" "$tmp/idle:demo:request" >/dev/null 2>"$tmp/err"; then
		t1=$(now)
		all="$all $(echo "$t1 - $t0" | bc)"
	else
		all="$all fail"; cat "$tmp/err" >&2
	fi
done
med=$(echo "$all" | tr ' ' '\n' | grep -v -e '^$' -e fail | sort -n |
	awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "none") }')
printf 'trace --duration %s, no hits: median %s s   runs:%s\n' "$sec" "$med" "$all"
