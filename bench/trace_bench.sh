#!/bin/sh
# Per-hit cost of `usdtkit trace` one-liners against bpftrace running the
# same one-liners on the same probe: tload:hot of bench/trace_load.c (arg0
# a counter i >= 0, arg1 one of 16 strings), fired M times in a loop.
#
# Rows (usdtkit options | bpftrace program):
#   print         (none), every hit printed  | printf("%d %u\n", arg0, arg1)
#   str           --str 1, every hit printed | printf("%s\n", str(arg1))
#   counts        --counts                   | @ = count()
#   filter        --filter 'arg0 < 0'        | /arg0 < 0/ { @ = count() }
#   count-by      --count-by arg1            | @[arg1] = count()  (16 keys)
#   count-by-str  --count-by 'str(arg1)'     | @[str(arg1)] = count()
#   children      --counts --children        | (none; not in the default
#                 rows: what following forks adds to a hit of the pid)
#   counts-serve  --counts --serve 127.0.0.1:0    | as counts
#   count-by-serve --count-by arg1 --serve 127.0.0.1:0 | as count-by
# (the -serve rows: the same aggregation with the metrics endpoint open,
# to compare with the rows above it; nothing scrapes it during the run)
# Output goes to /dev/null. A row whose options usdtkit rejects (exit 2:
# not implemented in this build) reads "n/a".
#
# Each run: the workload starts held on a fifo, the tracer attaches to its
# pid (usdtkit: its "Tracing N probes" line; bpftrace: the
# __BPFTRACE_NOTIFY_PROBES_ATTACHED line its own tests use, since
# "Attaching N probes..." comes before it attaches), the loop runs and
# prints its own time, then, while the workload still waits, the
# tracer's programs are read from /proc/PID/fdinfo.
#   wall ns/hit   = (median loop time traced - median untraced) / M
#   kernel ns/run = median over runs of run_time_ns / run_cnt summed over
#                   the tracer's BPF programs (kernel.bpf_stats_enabled=1
#                   for the run, restored at exit): the program alone,
#                   without the uprobe trap around it
# Every repetition runs the untraced loop and every row of both tools, in
# turn. Root. Not a ctest test (ctest trace_bench_smoke only checks that
# it runs).
#
# usage: bench/trace_bench.sh [--json] [--hits M] [--reps N] [--rows LIST] USDTKIT
#        (M 200000, N 7, LIST all rows, comma-separated; env BPFTRACE
#        (bpftrace), CC (cc))
set -u
json=0 m=200000 reps=7
rows="print str counts filter count-by count-by-str counts-serve count-by-serve"
usage() {
	echo "usage: trace_bench.sh [--json] [--hits M] [--reps N] [--rows LIST] USDTKIT" >&2
	exit 2
}
while [ $# -gt 1 ]; do
	case $1 in
	--json) json=1; shift ;;
	--hits) m=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--rows) rows=$(echo "$2" | tr , ' '); shift 2 ;;
	*) usage ;;
	esac
done
[ $# -eq 1 ] || usage
u=$1 bt=${BPFTRACE:-bpftrace}
case $m$reps in *[!0-9]*) usage ;; esac
here=$(cd "$(dirname "$0")" && pwd)

. "$here/kstats.sh"

${CC:-cc} -O2 -std=c11 -o "$tmp/load" "$here/trace_load.c" || exit 1
load=$tmp/load
have_bt=1
command -v "$bt" >/dev/null 2>&1 || have_bt=0
sysctl -q -w kernel.bpf_stats_enabled=1 || exit 1

# start_tracer TOOL ROW: the tracer of ROW in the background, its pid in
# $tpid (the tracer itself: its fds are read)
start_tracer() {
	if [ "$1" = usdtkit ]; then
		set -- "$u" trace -p "$wpid"
		case $row in
		str) set -- "$@" --str 1 --strlen 64 ;;
		counts) set -- "$@" --counts ;;
		filter) set -- "$@" --filter 'arg0 < 0' ;;
		count-by) set -- "$@" --count-by arg1 ;;
		count-by-str) set -- "$@" --count-by 'str(arg1)' --strlen 64 ;;
		children) set -- "$@" --counts --children ;;
		counts-serve) set -- "$@" --counts --serve 127.0.0.1:0 ;;
		count-by-serve) set -- "$@" --count-by arg1 --serve 127.0.0.1:0 ;;
		esac
		"$@" "$load:tload:hot" >/dev/null 2>"$tmp/t.err" &
		tpid=$!
		return
	fi
	p="usdt:$load:tload:hot"
	case $row in
	print) p="$p { printf(\"%d %u\\n\", arg0, arg1); }" ;;
	str) p="$p { printf(\"%s\\n\", str(arg1)); }" ;;
	counts|counts-serve) p="$p { @ = count(); }" ;;
	filter) p="$p /arg0 < 0/ { @ = count(); }" ;;
	count-by|count-by-serve) p="$p { @[arg1] = count(); }" ;;
	count-by-str) p="$p { @[str(arg1)] = count(); }" ;;
	esac
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$bt" -p "$wpid" -e "$p" \
		>/dev/null 2>"$tmp/t.err" &
	tpid=$!
}

# one TOOL ROW: one run; prints "LOOP_NS RUN_TIME_NS RUN_CNT INSNS [LOST]"
# (LOST: usdtkit's count of hits lost, ring buffer full), "rejected"
# (usdtkit exit 2) or "fail"
one() {
	tool=$1 row=$2
	rm -f "$tmp/go" "$tmp/load.out"; mkfifo "$tmp/go"
	"$load" "$m" <"$tmp/go" >"$tmp/load.out" &
	wpid=$!
	exec 3>"$tmp/go"
	[ "$tool" != none ] && start_tracer "$tool" "$row"
	traced_run "$tool"
	echo go >&3
	exec 3>&-
	wait "$wpid" 2>/dev/null; wpid=""
	if [ -n "$tpid" ]; then
		kill -INT "$tpid"; wait "$tpid"; tpid=""
		# usdtkit's closing line: "N hits printed, L lost"
		[ "$tool" = usdtkit ] && case $res in [0-9]*)
			res="$res $(sed -n 's/^usdtkit trace: .* \([0-9]*\) lost.*/\1/p' \
				"$tmp/t.err" | tail -n 1)" ;;
		esac
	fi
	case $res in
	fail) echo "trace_bench: $tool $row failed:" >&2; cat "$tmp/t.err" >&2 ;;
	esac
	echo "$res"
}

# ---- the runs ----
mkdir "$tmp/r"
i=0
while [ $i -lt "$reps" ]; do
	i=$((i + 1))
	one none - >>"$tmp/r/base"
	for row in $rows; do
		for tool in usdtkit bpftrace; do
			[ $tool = bpftrace ] && [ $have_bt = 0 ] && continue
			[ $tool = bpftrace ] && [ "$row" = children ] && continue
			# a rejected or failed row is not run again
			grep -q '^[rf]' "$tmp/r/$row.$tool" 2>/dev/null && continue
			one $tool "$row" >>"$tmp/r/$row.$tool"
		done
	done
done

# ---- the table (exit 1 after it when a run failed) ----
status=0
grep -q '^fail' "$tmp"/r/* && status=1
med() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
base=$(awk '{ print $1 }' "$tmp/r/base" | med)

# cell ROW TOOL: "WALL KERNEL HITS" (ns/hit, ns/run, median run_cnt), or
# "n/a" (rejected), "fail", "-" (no bpftrace)
cell() {
	f=$tmp/r/$1.$2
	[ -s "$f" ] || { echo "-"; return; }
	case $(head -n 1 "$f") in
	rejected) echo "n/a"; return ;;
	fail) echo "fail"; return ;;
	esac
	lm=$(awk '{ print $1 }' "$f" | med)
	kn=$(awk '$3 > 0 { printf "%.1f\n", $2 / $3 }' "$f" | med)
	hc=$(awk '{ print $3 }' "$f" | med)
	awk -v l="$lm" -v b="$base" -v m="$m" -v k="${kn:-0}" -v h="$hc" \
		'BEGIN { printf "%.1f %.1f %d\n", (l - b) / m, k, h }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", b / a; else printf "-" }'; }

if [ $json = 1 ]; then
	printf '{"hits":%s,"reps":%s,"untraced_loop_ns":%s,"rows":[' "$m" "$reps" "$base"
	sep=""
	for row in $rows; do
		printf '%s{"row":"%s"' "$sep" "$row"; sep=,
		for tool in usdtkit bpftrace; do
			c=$(cell "$row" $tool)
			# shellcheck disable=SC2086
			set -- $c
			if [ $# -eq 3 ]; then
				printf ',"%s":{"wall_ns_per_hit":%s,"kernel_ns_per_run":%s,"run_cnt":%s}' \
					$tool "$1" "$2" "$3"
			else
				printf ',"%s":"%s"' $tool "$c"
			fi
		done
		printf '}'
	done
	printf ']}\n'
	exit $status
fi

echo "trace_bench: $m hits per run, median of $reps runs; untraced loop $(awk -v b="$base" -v m="$m" 'BEGIN { printf "%.2f", b / m }') ns/hit"
printf '%-15s %24s %24s %14s\n' "" "usdtkit" "bpftrace" "bpftrace/usdtkit"
printf '%-15s %11s %12s %11s %12s %7s %7s\n' row "wall ns/hit" "kernel ns" \
	"wall ns/hit" "kernel ns" wall kernel
for row in $rows; do
	cu=$(cell "$row" usdtkit) cb=$(cell "$row" bpftrace)
	# shellcheck disable=SC2086
	set -- $cu; uw=$1 uk=${2:-}
	# shellcheck disable=SC2086
	set -- $cb; bw=$1 bk=${2:-}
	case $uw in n/a) uw="n/a (usdtkit rejected the options)" uk="" ;; esac
	if [ -n "$uk" ] && [ -n "$bk" ]; then
		printf '%-15s %11s %12s %11s %12s %7s %7s\n' "$row" "$uw" "$uk" \
			"$bw" "$bk" "$(ratio "$uw" "$bw")" "$(ratio "$uk" "$bk")"
	elif [ -n "$bk" ]; then
		printf '%-15s %-24s %11s %12s\n' "$row" "$uw" "$bw" "$bk"
	else
		printf '%-15s %11s %12s %11s\n' "$row" "$uw" "$uk" "$bw"
	fi
done
echo "kernel ns = run_time_ns / run_cnt of the tracer's BPF programs (bpf_stats)"
# every program run is a hit: a run count other than M is worth a look
for row in $rows; do
	for tool in usdtkit bpftrace; do
		# shellcheck disable=SC2046
		set -- $(cell "$row" $tool)
		[ $# -eq 3 ] && [ "$3" != "$m" ] &&
			echo "note: $row $tool: median run_cnt $3, not $m"
	done
	l=$(awk '{ print $5 + 0 }' "$tmp/r/$row.usdtkit" 2>/dev/null | med)
	[ "${l:-0}" -gt 0 ] &&
		echo "note: $row usdtkit: median $l hits lost (ring buffer full)"
done
exit $status
