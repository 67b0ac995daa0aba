#!/bin/sh
# The time to scan a host: `usdtkit list --all` with N processes more
# running, half of them copies of a program with probes (FX, dynamic:
# they share its libc and loader with every other process), half
# `sleep` (no probes). Prints, over RUNS runs: the median wall time of
# the whole command (ms), the processes it listed, and per process read
# (/proc had that many more). The peer, bpftrace, has no host-wide list:
# `bpftrace -l 'usdt:*' -p PID` asks one process at a time; its median
# over PEER of the copies (per process) is the row beside ours. Then
# `usdtkit trace --all` on the copies' probe, its start to "Tracing",
# beside bpftrace's start on the copies' one file.
#
# usage: bench/host_scan.sh USDTKIT FX [N [RUNS [PEER]]]
#        (root; default N 1000, RUNS 5, PEER 20; FX blocks reading its
#        stdin, as tests/fixtures/fx_sema does)
set -u
u=$1 fx=$2 n=${3:-1000} runs=${4:-5} peer=${5:-20}
tmp=$(mktemp -d)
pids=""
# shellcheck disable=SC2317,SC2086 # called by the trap
cleanup() {
	[ -n "$pids" ] && kill $pids 2>/dev/null
	exec 3>&- 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ms() { date +%s%N | awk '{ printf "%d", $1 / 1000000 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# the copies block reading a fifo that nobody writes to (held open here)
mkfifo "$tmp/in"
exec 3<>"$tmp/in"
i=0
while [ $i -lt $((n / 2)) ]; do
	"$fx" <"$tmp/in" >/dev/null &
	pids="$pids $!"
	sleep 3600 &
	pids="$pids $!"
	i=$((i + 1))
done
sleep 1
procs=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)

for r in $(seq "$runs"); do
	t0=$(ms)
	"$u" list --all --json >"$tmp/out" 2>"$tmp/err" || {
		echo "host_scan: list --all failed: $(head -n 3 "$tmp/err")" >&2; exit 1; }
	echo $(($(ms) - t0)) >>"$tmp/list.ms"
done
listed=$(python3 -c 'import json, sys
print(len({json.loads(l)["pid"] for l in open(sys.argv[1])}))' "$tmp/out")
t=$(median <"$tmp/list.ms")
printf 'usdtkit list --all          %s ms median (runs: %s), %s processes with probes of %s read, %s us a process\n' \
	"$t" "$(tr '\n' ' ' <"$tmp/list.ms" | sed 's/ $//')" "$listed" "$procs" \
	"$(awk -v t="$t" -v p="$procs" 'BEGIN { printf "%.0f", t * 1000 / p }')"

# trace --all: its start (to "Tracing"), every process read and each
# object with the probe attached once; beside bpftrace's start on the
# copies' file (one path: it cannot find the processes itself)
# starts LABEL WORD OUT COMMAND...: RUNS times COMMAND in the background
# until its stderr has WORD, then Ctrl-C; the median time to WORD
starts() {
	_label=$1 _word=$2 _out=$3
	shift 3
	for r in $(seq "$runs"); do
		: >"$tmp/t.err"
		t0=$(ms)
		"$@" >/dev/null 2>"$tmp/t.err" &
		tp=$!
		_i=0
		while [ $_i -lt 6000 ] && ! grep -q "$_word" "$tmp/t.err"; do
			sleep 0.005; _i=$((_i + 1))
		done
		echo $(($(ms) - t0)) >>"$tmp/$_out"
		kill -INT $tp
		wait $tp
	done
	printf '%-27s %s ms median (runs: %s)\n' "$_label" "$(median <"$tmp/$_out")" \
		"$(tr '\n' ' ' <"$tmp/$_out" | sed 's/ $//')"
}
starts 'usdtkit trace --all' '^Tracing' trace.ms "$u" trace --all --counts fxplain:tick
command -v bpftrace >/dev/null &&
	starts 'bpftrace usdt:FX:...' '^__BPFTRACE_NOTIFY_PROBES_ATTACHED' bts.ms \
		env __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 bpftrace -e "usdt:$fx:fxplain:tick { @ = count(); }"

if command -v bpftrace >/dev/null; then
	k=0
	for p in $pids; do
		[ $k -ge "$peer" ] && break
		# the copies only (every other pid is a sleep)
		[ "$(cat /proc/"$p"/comm 2>/dev/null)" = "$(basename "$fx" | cut -c1-15)" ] || continue
		t0=$(ms)
		bpftrace -l 'usdt:*' -p "$p" >/dev/null 2>&1
		echo $(($(ms) - t0)) >>"$tmp/bt.ms"
		k=$((k + 1))
	done
	printf 'bpftrace -l usdt:* -p PID   %s ms median a process (%s processes asked)\n' \
		"$(median <"$tmp/bt.ms")" "$k"
else
	echo "bpftrace -l usdt:* -p PID   - (not installed)"
fi
