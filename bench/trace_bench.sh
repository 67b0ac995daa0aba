#!/bin/sh
# Per-hit cost of `usdtkit trace` one-liners against bpftrace running the
# same one-liners on the same probe, in one run. Two sets of rows, each
# on its own workload:
#
# --set hot (the default): tload:hot of bench/trace_load.c (arg0 a
# counter i >= 0, arg1 one of 16 strings), fired M times in a loop.
#   print         (none), every hit printed  | printf("%d %u\n", arg0, arg1)
#   str           --str 1, every hit printed | printf("%s\n", str(arg1))
#   counts        --counts                   | @ = count()
#   filter        --filter 'arg0<0'          | /arg0 < 0/ { @ = count() }
#   count-by      --count-by arg1            | @[arg1] = count()  (16 keys)
#   count-by-str  --count-by 'str(arg1)'     | @[str(arg1)] = count()
#   children      --counts --children        | (none; not in the default
#                 rows: what following forks adds to a hit of the pid)
#   counts-serve  --counts --serve 127.0.0.1:0    | as counts
#   count-by-serve --count-by arg1 --serve 127.0.0.1:0 | as count-by
# (the -serve rows: the same aggregation with the metrics endpoint open,
# to compare with the rows above it; nothing scrapes it during the run)
#
# --set keys: the keyed aggregations on kload:hit of bench/keys_load.c
# (arg0 one of 8 strings, arg1 an int in 0..1023), fired M times by 4
# named threads in turn through a frame-pointer call chain (2 distinct
# user stacks per thread).
#   counts          --counts                      | @ = count()  (no key: the baseline)
#   count-by-str    --count-by 'str(arg0)'        | @[str(arg0)] = count()
#   count-by-pid    --count-by pid                | @[pid] = count()
#   count-by-comm   --count-by comm               | @[comm] = count()
#   hist-by-str     --hist arg1 --by 'str(arg0)'  | @[str(arg0)] = hist(arg1)
#   count-by-ustack --count-by ustack             | @[ustack] = count()
# (ustack: usdtkit's default depth, 16, bpftrace's 127.)
#
# str keys and strings: --strlen 64, bpftrace's default. Output goes to
# /dev/null. A row whose options usdtkit rejects (exit 2: not in this
# build) reads "n/a" and its first line of error is printed under the
# table; bpftrace still runs it.
#
# Each run: the workload starts held on a fifo, the tracer attaches to its
# pid (usdtkit: its "Tracing N probes" line; bpftrace: the
# __BPFTRACE_NOTIFY_PROBES_ATTACHED line its own tests use, since
# "Attaching N probes..." comes before it attaches), the loop runs and
# prints its own time, then, while the workload still waits, the
# tracer's programs are read from /proc/PID/fdinfo (bench/kstats.sh):
#   wall ns/hit   = (median loop time traced - median untraced) / M
#   kernel ns/run = median over runs of run_time_ns / run_cnt summed over
#                   the tracer's BPF programs (kernel.bpf_stats_enabled=1
#                   for the run, restored at exit): the program alone,
#                   without the uprobe trap around it
#   insns         = verified_insns summed over the tracer's programs:
#                   what the verifier walked to load them
# Every repetition runs the untraced loop and every row of both tools, in
# turn. Root. Not a ctest test (ctests trace_bench_smoke and
# keys_bench_smoke only check that it runs).
#
# usage: bench/trace_bench.sh [--json] [--set hot|keys] [--hits M] [--reps N]
#                             [--rows LIST] USDTKIT
#        (M 200000, N 7, LIST the set's rows, comma-separated; env
#        BPFTRACE (bpftrace), CC (cc))
set -u
json=0 m=200000 reps=7 set=hot rows=""
usage() {
	echo "usage: trace_bench.sh [--json] [--set hot|keys] [--hits M] [--reps N] [--rows LIST] USDTKIT" >&2
	exit 2
}
while [ $# -gt 1 ]; do
	case $1 in
	--json) json=1; shift ;;
	--set) set=$2; shift 2 ;;
	--hits) m=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--rows) rows=$(echo "$2" | tr , ' '); shift 2 ;;
	*) usage ;;
	esac
done
[ $# -eq 1 ] || usage
u=$1 bt=${BPFTRACE:-bpftrace}
case $m$reps in *[!0-9]*) usage ;; esac
# each set: its workload (source, flags, probe, arguments after M), its
# default rows and every row it knows
case $set in
hot)
	src=trace_load.c cflags="" probe=tload:hot loadargs="" what=""
	all="print str counts filter count-by count-by-str counts-serve count-by-serve"
	known="$all children" ;;
keys)
	src=keys_load.c cflags="-fno-omit-frame-pointer -pthread" probe=kload:hit
	loadargs=4 what=" (4 threads in turn)"
	all="counts count-by-str count-by-pid count-by-comm hist-by-str count-by-ustack"
	known=$all ;;
*) echo "trace_bench: unknown set '$set'" >&2; usage ;;
esac
rows=${rows:-$all}
for row in $rows; do
	case " $known " in
	*" $row "*) ;;
	*) echo "trace_bench: unknown row '$row' in set $set" >&2; usage ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)

. "$here/kstats.sh"

# shellcheck disable=SC2086 # the flags are words
${CC:-cc} -O2 -std=c11 $cflags -o "$tmp/load" "$here/$src" || exit 1
load=$tmp/load
have_bt=1
command -v "$bt" >/dev/null 2>&1 || have_bt=0
sysctl -q -w kernel.bpf_stats_enabled=1 || exit 1

# usdtkit_opts ROW, bpftrace_prog ROW: each tool's form of a row of
# $set (words without blanks or globs; bpftrace_prog empty: the row has
# no bpftrace form)
usdtkit_opts() {
	case $set/$1 in
	hot/print) echo "" ;;
	hot/str) echo "--str 1 --strlen 64" ;;
	*/counts) echo "--counts" ;;
	hot/filter) echo "--filter arg0<0" ;;
	hot/count-by) echo "--count-by arg1" ;;
	hot/count-by-str) echo "--count-by str(arg1) --strlen 64" ;;
	hot/children) echo "--counts --children" ;;
	hot/counts-serve) echo "--counts --serve 127.0.0.1:0" ;;
	hot/count-by-serve) echo "--count-by arg1 --serve 127.0.0.1:0" ;;
	keys/count-by-str) echo "--count-by str(arg0) --strlen 64" ;;
	keys/count-by-pid) echo "--count-by pid" ;;
	keys/count-by-comm) echo "--count-by comm" ;;
	keys/hist-by-str) echo "--hist arg1 --by str(arg0) --strlen 64" ;;
	keys/count-by-ustack) echo "--count-by ustack" ;;
	esac
}
bpftrace_prog() {
	case $set/$1 in
	# (printf, not echo: dash's echo turns \n into a newline)
	hot/print) printf '%s' 'printf("%d %u\n", arg0, arg1);' ;;
	hot/str) printf '%s' 'printf("%s\n", str(arg1));' ;;
	*/counts|hot/counts-serve) echo "@ = count();" ;;
	hot/filter) echo "@ = count();" ;;
	hot/count-by|hot/count-by-serve) echo "@[arg1] = count();" ;;
	hot/count-by-str) echo "@[str(arg1)] = count();" ;;
	keys/count-by-str) echo "@[str(arg0)] = count();" ;;
	keys/count-by-pid) echo "@[pid] = count();" ;;
	keys/count-by-comm) echo "@[comm] = count();" ;;
	keys/hist-by-str) echo "@[str(arg0)] = hist(arg1);" ;;
	keys/count-by-ustack) echo "@[ustack] = count();" ;;
	esac
}
# the bpftrace predicate of a row, if any
bpftrace_pred() {
	case $set/$1 in
	hot/filter) echo "/arg0 < 0/ " ;;
	esac
}

# start_tracer TOOL ROW: the tracer of ROW in the background, its pid in
# $tpid (the tracer itself: its fds are read)
start_tracer() {
	if [ "$1" = usdtkit ]; then
		# shellcheck disable=SC2046 # the options are words, no globs
		"$u" trace -p "$wpid" $(usdtkit_opts "$2") "$load:$probe" \
			>/dev/null 2>"$tmp/t.err" &
	else
		__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$bt" -p "$wpid" \
			-e "usdt:$load:$probe $(bpftrace_pred "$2"){ $(bpftrace_prog "$2") }" \
			>/dev/null 2>"$tmp/t.err" &
	fi
	tpid=$!
}

# one TOOL ROW: one run; prints "LOOP_NS RUN_TIME_NS RUN_CNT INSNS [LOST]"
# (LOST: usdtkit's count of hits lost, ring buffer full), "rejected"
# (usdtkit exit 2, its first line of error kept in $tmp/r/ROW.why) or
# "fail"
one() {
	tool=$1 row=$2
	rm -f "$tmp/go" "$tmp/load.out"; mkfifo "$tmp/go"
	# shellcheck disable=SC2086 # no arguments, or one number
	"$load" "$m" $loadargs <"$tmp/go" >"$tmp/load.out" &
	wpid=$!
	exec 3>"$tmp/go"
	[ "$tool" != none ] && start_tracer "$tool" "$row"
	traced_run "$tool"
	[ "$res" = rejected ] && head -n 1 "$tmp/t.err" >"$tmp/r/$row.why"
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
			[ $tool = bpftrace ] && { [ $have_bt = 0 ] ||
				[ -z "$(bpftrace_prog "$row")" ]; } && continue
			# a rejected or failed row is not run again
			grep -q '^[rf]' "$tmp/r/$row.$tool" 2>/dev/null && continue
			one $tool "$row" >>"$tmp/r/$row.$tool"
		done
	done
done

# ---- the table (exit 1 after it when a run failed) ----
status=0
grep -q '^fail' "$tmp"/r/*.usdtkit "$tmp"/r/*.bpftrace 2>/dev/null && status=1
med() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
base=$(awk '{ print $1 }' "$tmp/r/base" | med)

# cell ROW TOOL: "WALL KERNEL HITS INSNS" (ns/hit, ns/run, median
# run_cnt, median verified insns), or "n/a" (rejected), "fail", "-" (no
# bpftrace)
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
	vi=$(awk '{ print $4 }' "$f" | med)
	awk -v l="$lm" -v b="$base" -v m="$m" -v k="${kn:-0}" -v h="$hc" -v v="$vi" \
		'BEGIN { printf "%.1f %.1f %d %d\n", (l - b) / m, k, h, v }'
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
			if [ $# -eq 4 ]; then
				printf ',"%s":{"wall_ns_per_hit":%s,"kernel_ns_per_run":%s,"run_cnt":%s,"verified_insns":%s}' \
					$tool "$1" "$2" "$3" "$4"
			else
				printf ',"%s":"%s"' $tool "$c"
			fi
		done
		printf '}'
	done
	printf ']}\n'
	exit $status
fi

echo "trace_bench: set $set, $m hits per run$what, median of $reps runs;" \
	"untraced loop $(awk -v b="$base" -v m="$m" 'BEGIN { printf "%.2f", b / m }') ns/hit"
printf '%-16s %30s %30s %14s\n' "" "usdtkit" "bpftrace" "bpftrace/usdtkit"
printf '%-16s %11s %10s %7s %11s %10s %7s %7s %7s\n' row "wall ns/hit" "kernel ns" \
	insns "wall ns/hit" "kernel ns" insns wall kernel
for row in $rows; do
	cu=$(cell "$row" usdtkit) cb=$(cell "$row" bpftrace)
	# shellcheck disable=SC2086
	set -- $cu; uw=$1 uk=${2:-} ui=${4:-}
	# shellcheck disable=SC2086
	set -- $cb; bw=$1 bk=${2:-} bi=${4:-}
	if [ -n "$uk" ] && [ -n "$bk" ]; then
		printf '%-16s %11s %10s %7s %11s %10s %7s %7s %7s\n' "$row" "$uw" "$uk" \
			"$ui" "$bw" "$bk" "$bi" "$(ratio "$uw" "$bw")" "$(ratio "$uk" "$bk")"
	elif [ -n "$bk" ]; then
		printf '%-16s %30s %11s %10s %7s\n' "$row" "$uw" "$bw" "$bk" "$bi"
	else
		printf '%-16s %11s %10s %7s %30s\n' "$row" "$uw" "$uk" "$ui" "$bw"
	fi
done
echo "kernel ns = run_time_ns / run_cnt, insns = verified_insns, of the tracer's BPF programs"
for row in $rows; do
	[ -s "$tmp/r/$row.why" ] &&
		echo "n/a: $row: usdtkit $(usdtkit_opts "$row"): $(cat "$tmp/r/$row.why")"
	# every program run is a hit: a run count other than M is worth a look
	for tool in usdtkit bpftrace; do
		# shellcheck disable=SC2046
		set -- $(cell "$row" $tool)
		[ $# -eq 4 ] && [ "$3" != "$m" ] &&
			echo "note: $row $tool: median run_cnt $3, not $m"
	done
	l=$(awk '{ print $5 + 0 }' "$tmp/r/$row.usdtkit" 2>/dev/null | med)
	[ "${l:-0}" -gt 0 ] &&
		echo "note: $row usdtkit: median $l hits lost (ring buffer full)"
done
exit $status
