#!/bin/sh
# What a string on a page not yet in memory costs a hit of `usdtkit trace
# --str 1` on pages not yet in memory: bench/cold_load.c fires cbench:hit once for each
# of N strings, each on its own page of a file in the page cache, those
# pages read first (warm) or not (cold), traced with the default (on a
# kernel with sleepable uprobes: the page faulted in at the hit) and
# with --no-fault-in (the hit faults fast; the tracer reads the string
# later, from /proc/PID/mem). Per row, the median over REPS runs of:
#   kernel ns/hit = run_time_ns / run_cnt of the tracer's BPF program
#                   (kernel.bpf_stats_enabled=1 for the run, restored)
#   wall ns/hit   = the workload's loop time / N (the uprobe trap too)
# and the strings printed that were read late or faulted. Root.
# usage: bench/cold_bench.sh [--n N] [--reps R] USDTKIT   (N 1000, R 5)
set -u
n=1000 reps=5
while [ $# -gt 1 ]; do
	case $1 in
	--n) n=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	*) echo "usage: cold_bench.sh [--n N] [--reps R] USDTKIT" >&2; exit 2 ;;
	esac
done
u=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/kstats.sh"
${CC:-cc} -O2 -o "$tmp/load" "$here/cold_load.c" || exit 1
sysctl -q -w kernel.bpf_stats_enabled=1 || exit 1

# one MODE OPTS: "KERNEL_NS/HIT WALL_NS/HIT LATE FAULTS"
one() {
	rm -f "$tmp/go" "$tmp/out"; mkfifo "$tmp/go"
	"$tmp/load" "$n" "$1" "$tmp/file" <"$tmp/go" >"$tmp/out" &
	wpid=$!
	exec 3>"$tmp/go"
	# shellcheck disable=SC2086
	"$u" trace -v -p "$wpid" --str 1 $2 "$tmp/load:cbench:hit" >"$tmp/t.out" 2>"$tmp/t.err" &
	tpid=$!
	_w=0
	until grep -q "site(s)" "$tmp/t.err" 2>/dev/null || [ $_w -ge 300 ]; do
		sleep 0.1; _w=$((_w + 1))
	done
	sleep 0.3
	echo go >&3
	_w=0
	until [ -s "$tmp/out" ] || [ $_w -ge 600 ]; do sleep 0.1; _w=$((_w + 1)); done
	sleep 0.5	# the tracer reads what is left (late reads included)
	st=$(kstats $tpid)
	echo go >&3
	exec 3>&-
	wait $wpid 2>/dev/null
	kill -INT $tpid 2>/dev/null; wait $tpid 2>/dev/null
	wpid="" tpid=""
	echo "$st $(cat "$tmp/out") $(grep -c '(read late)' "$tmp/t.out") $(grep -c '<fault' "$tmp/t.out")" |
		awk -v n="$n" '{ printf "%.0f %.0f %d %d\n", $2 ? $1 / $2 : 0, $4 / n, $5, $6 }'
}

med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "kernel $(uname -r), $n strings, median of $reps runs"
printf '%-6s %-14s %14s %12s %6s %6s\n' pages options "kernel ns/hit" "wall ns/hit" late faults
for opts in "" --no-fault-in; do
	for mode in warm cold; do
		: >"$tmp/rows"
		r=0
		while [ $r -lt "$reps" ]; do
			one $mode "$opts" >>"$tmp/rows"
			r=$((r + 1))
		done
		printf '%-6s %-14s %14s %12s %6s %6s\n' $mode "${opts:-(default)}" \
			"$(cut -d' ' -f1 "$tmp/rows" | med)" "$(cut -d' ' -f2 "$tmp/rows" | med)" \
			"$(cut -d' ' -f3 "$tmp/rows" | med)" "$(cut -d' ' -f4 "$tmp/rows" | med)"
	done
done
