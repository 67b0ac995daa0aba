#!/bin/sh
# How long `usdtkit trace` takes to start, whole process, against a bare
# loader and bpftrace 0.17; and what each configuration costs to load.
#
# Rows, each the median of N runs; the runs of rows 1-2 alternate
# (usdtkit, the other, usdtkit, ...):
#   attach-Nk     `usdtkit trace -q -c /bin/true T:bench:site` on a probe of
#                 N sites (bench/attach_gen.sh) | startup_floor: one
#                 prebuilt "r0 = 0; exit" program, one uprobe_multi
#                 BPF_LINK_CREATE of the N offsets (read from a file
#                 written beforehand), close, exit. Fork to exit.
#   attached      `usdtkit trace L:tload:hot` to its "Tracing ..." line |
#                 bpftrace `usdt:L:tload:hot { printf(...) }` to its
#                 __BPFTRACE_NOTIFY_PROBES_ATTACHED line. Fork to line.
# then one row per configuration of bench/trace_load.c's probes
# (`usdtkit trace -v -c /bin/true OPTIONS`, its "loaded" line): the
# instructions the verifier processed (load-independent), the xlated
# program, the verifier's own time and the whole skeleton load (maps
# included), medians.
#
# -c /bin/true is how benches and scripts attach and exit: --duration 0
# and --count 0 are usage errors.
#
# usage: bench/startup_bench.sh [--sites N (10000)] [--reps N (11)] USDTKIT DIR
#        DIR holds startup_floor and startup_time (build/bench); env
#        BPFTRACE (bpftrace; without it, no bpftrace column), CC (cc).
#        Root. ctest startup_bench_smoke runs it tiny, never checking time.
set -u
sites=10000 reps=11
usage() {
	echo "usage: startup_bench.sh [--sites N] [--reps N] USDTKIT DIR" >&2
	exit 2
}
while [ $# -gt 2 ]; do
	case $1 in
	--sites) sites=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	*) usage ;;
	esac
done
[ $# -eq 2 ] || usage
case $sites$reps in *[!0-9]*) usage ;; esac
u=$1 floor=$2/startup_floor clock=$2/startup_time bt=${BPFTRACE:-bpftrace}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$floor" ] && [ -x "$clock" ] || { echo "no startup_floor/startup_time in $2" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

sh "$here/attach_gen.sh" "$sites" "$tmp/t.c" &&
	${CC:-cc} -O0 -fno-pie -no-pie -o "$tmp/t" "$tmp/t.c" &&
	${CC:-cc} -O2 -std=c11 -o "$tmp/load" "$here/trace_load.c" || exit 1
"$floor" --offsets "$tmp/t" bench site >"$tmp/offs" || exit 1
have_bt=1
command -v "$bt" >/dev/null 2>&1 || have_bt=0
load=$tmp/load

# median of the numbers in FILE (ns) as ms
median_ms() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		if (!NR) { print "fail"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f\n", m / 1e6 }'
}

# timed FILE CMD...: one run's ns appended to FILE (nothing if it failed)
timed() {
	f=$1; shift
	"$clock" "$@" >>"$f" 2>/dev/null </dev/null || :
}

: >"$tmp/a.u"; : >"$tmp/a.f"; : >"$tmp/d.u"; : >"$tmp/d.b"
i=0
while [ "$i" -lt "$reps" ]; do
	timed "$tmp/a.u" "$u" trace -q -c /bin/true "$tmp/t:bench:site"
	timed "$tmp/a.f" "$floor" "$tmp/t" "$tmp/offs"
	timed "$tmp/d.u" --line "Tracing " "$u" trace "$load:tload:hot"
	[ $have_bt = 1 ] && timed "$tmp/d.b" --line __BPFTRACE_NOTIFY_PROBES_ATTACHED \
		env __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$bt" \
		-e "usdt:$load:tload:hot { printf(\"%d %u\\n\", arg0, arg1); }"
	i=$((i + 1))
done

# ROW A B: "ROW  A  B  A/B" (B: "-" when missing)
row2() {
	a=$(median_ms "$2") b=$(median_ms "$3")
	awk -v r="$1" -v a="$a" -v b="$b" 'BEGIN {
		if (b == "fail" || a == "fail") x = "-"; else x = sprintf("%.2f", a / b)
		printf "%-16s %10s %10s %7s\n", r, a, b, x }'
}
echo "# whole process, median of $reps (ms); load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-16s %10s %10s %7s\n" row usdtkit other ratio
row2 "attach-$sites" "$tmp/a.u" "$tmp/a.f"
if [ $have_bt = 1 ]; then
	row2 attached "$tmp/d.u" "$tmp/d.b"
else
	row2 attached "$tmp/d.u" /dev/null
fi

# the configurations (bench/startup_configs): tload:hot's arg0 is a
# number, arg1 a string
S=$load:tload:hot E=$load:tload:done
configs=$(grep -v '^#' "$(dirname "$0")/startup_configs" |
	sed "s/@NI@/0/g; s/@SI@/1/g; s|@S@|$S|g; s|@E@|$E|g")

echo
echo "# loading each configuration: verifier's processed insns, xlated insns; median of $reps (ms)"
printf "%-14s %9s %7s %10s %9s\n" config processed xlated verify_ms load_ms
set -f
echo "$configs" | while IFS='|' read -r name opts; do
	: >"$tmp/c"
	i=0
	while [ "$i" -lt "$reps" ]; do
		# shellcheck disable=SC2086
		"$u" trace -v -c /bin/true $opts "$S" 2>&1 </dev/null |
			sed -n 's/.*loaded usdtkit_trace: .*, \([0-9]*\) insns processed, \([0-9]*\) xlated, verified in \([0-9.]*\) ms, load \([0-9.]*\) ms/\1 \2 \3 \4/p' >>"$tmp/c"
		i=$((i + 1))
	done
	awk -v n="$name" '{ p = $1; x = $2; v[NR] = $3; l[NR] = $4 }
		function med(a, k, i, j, t) {
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
		END {
			if (!NR) { printf "%-14s %9s\n", n, "fail"; exit }
			printf "%-14s %9d %7d %10.1f %9.1f\n", n, p, x, med(v, NR), med(l, NR) }' "$tmp/c"
done
