#!/bin/sh
# What `usdtkit trace --count-by ustack` keeps in its own memory to name
# the stacks of short processes after they exit: each process's
# executable mappings, and the objects they map (shared by every process
# of one binary). A PATH target (every process of the binary), then N
# processes of tests/fixtures/fx_stack.c, BATCH at a time, each hitting
# the probe once with its stack and exiting 0.3 s later (its end of
# stdin), so that the tracer has kept each before it goes (a process
# that exits at once may be gone before the tracer reads its maps); the tracer's
# VmRSS (/proc/PID/status) read before the first and after the last,
# while it still runs (the report, which names the stacks, is not
# counted). The same with --count-by pid, which keeps nothing, as the
# reference: the difference is what keeping costs.
# Prints per key: the median RSS growth over RUNS runs (KiB), each run's,
# and for ustack the processes kept (the tracer's -v lines).
#
# usage: bench/stack_keep_mem.sh USDTKIT FX_STACK [N [RUNS [BATCH]]]
#        (root; default N 1000, RUNS 5, BATCH 25)
set -u
u=$1 fx=$2 n=${3:-1000} runs=${4:-5} batch=${5:-25}
fx=$(cd "$(dirname "$fx")" && pwd -P)/$(basename "$fx")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/kstats.sh"

rss() {
	awk '$1 == "VmRSS:" { print $2 }' /proc/"$1"/status
}

# procs: N processes of the fixture, BATCH at once, all ended
procs() {
	_i=0
	while [ $_i -lt "$n" ]; do
		_b=0
		(
			while [ $_b -lt "$batch" ] && [ $((_i + _b)) -lt "$n" ]; do
				(sleep 0.3 | "$fx" > /dev/null) &
				_b=$((_b + 1))
			done
			wait
		)
		_i=$((_i + batch))
	done
}

# one KEY: "GROWTH_KIB KEPT" of one run
one() {
	"$u" trace -v --count-by "$1" "$fx:fxstack:hit" > /dev/null 2> "$tmp/t.err" &
	tpid=$!
	if ! tracer_ready usdtkit; then
		echo "stack_keep_mem: --count-by $1 failed: $(head -n 1 "$tmp/t.err")" >&2
		exit 1
	fi
	r0=$(rss "$tpid")
	procs
	# the last events read (the tracer polls every 100 ms)
	sleep 0.5
	r1=$(rss "$tpid")
	kill -INT "$tpid"; wait "$tpid"; tpid=""
	echo "$((r1 - r0)) $(grep -c 'ustack: kept the mappings of pid' "$tmp/t.err")"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] :
		(v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for key in ustack pid; do
	: > "$tmp/runs"
	r=0
	while [ $r -lt "$runs" ]; do
		one "$key" >> "$tmp/runs"
		r=$((r + 1))
	done
	printf "%-6s %d processes: RSS +%s KiB median (runs: %s), kept %s median\n" \
		"$key" "$n" "$(cut -d' ' -f1 "$tmp/runs" | median)" \
		"$(cut -d' ' -f1 "$tmp/runs" | tr '\n' ' ' | sed 's/ $//')" \
		"$(cut -d' ' -f2 "$tmp/runs" | median)"
done
