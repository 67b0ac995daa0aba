#!/bin/sh
# How long a tracer of every probe of a big program takes to exit after
# Ctrl-C (target 0.5 s for 600 probes over 1000 sites).
# A generated program (tests/fixtures/gen_probes.py: 600 probes gen:p0..p599, 1000
# sites) waits on a fifo; the tracer attaches to gen:*; once it is
# attached, SIGINT, and the time until it has exited is taken. Side by
# side: usdtkit trace (AUTO: one uprobe_multi link per probe on a 6.6+
# kernel) and bpftrace (a perf-event uprobe per site: its exit waits for
# the kernel to release each, so it runs BPFTRACE_RUNS times, default 1).
# Prints one line per tool: median and all runs, in seconds.
#
# usage: bench/trace_exit.sh USDTKIT [RUNS]   (root; env PROBES (600),
#        SITES (1000), BPFTRACE_RUNS (1))
set -u
u=$1 runs=${2:-5}
probes=${PROBES:-600} sites=${SITES:-1000}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

python3 "$here/../tests/fixtures/gen_probes.py" probes "$probes" "$sites" "$tmp/gen.c"
cc -O0 -fno-pie -no-pie -o "$tmp/gen" "$tmp/gen.c" || exit 1

now() { date +%s.%N; }

# the sites' addresses (not PIE: as in the file), for attached()
"$u" list --json "$tmp/gen" |
	python3 -c 'import json, sys; print(*(json.loads(l)["pc"] for l in sys.stdin))' \
	>"$tmp/pcs"

# attached PID: does every site of the workload trap (int3), i.e. has the
# tracer attached everything? The same test for every tracer.
attached() {
	python3 - "$1" "$tmp/pcs" <<'PY'
import sys
pcs = [int(x) for x in open(sys.argv[2]).read().split()]
with open("/proc/%s/mem" % sys.argv[1], "rb", buffering=0) as m:
    for pc in pcs:
        m.seek(pc)
        if m.read(1) != b"\xcc":
            sys.exit(1)
PY
}

# one CMD...: seconds from SIGINT to exit, or "fail"
one() {
	rm -f "$tmp/go"; mkfifo "$tmp/go"
	"$tmp/gen" 1 <"$tmp/go" >/dev/null &
	wpid=$!
	exec 3>"$tmp/go"
	"$@" >/dev/null 2>"$tmp/err" &
	tpid=$!
	w=0
	until attached $wpid || [ $w -ge 1200 ]; do
		kill -0 $tpid 2>/dev/null || break
		sleep 0.1; w=$((w + 1))
	done
	if ! attached $wpid; then
		echo fail; kill -9 $tpid $wpid 2>/dev/null; exec 3>&-; return
	fi
	t0=$(now)
	kill -INT $tpid
	wait $tpid
	t1=$(now)
	exec 3>&-
	wait $wpid 2>/dev/null
	echo "$t1 - $t0" | bc
}

measure() {	# measure NAME CMD...
	name=$1; shift
	all=""
	for i in $(seq "$runs"); do
		all="$all $(one "$@")"
	done
	med=$(echo "$all" | tr ' ' '\n' | grep -v '^$' | sort -n |
		awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "none") }')
	printf '%-26s median %8s s   runs:%s\n' "$name" "$med" "$all"
}

echo "exit after Ctrl-C, $probes probes, $sites sites, $runs runs ($(uname -r))"
measure "usdtkit trace" "$u" trace -v "$tmp/gen:gen:*"
if command -v bpftrace >/dev/null; then
	# a BPF program and a perf event per site: raise its caps of 512
	export BPFTRACE_MAX_BPF_PROGS=4096 BPFTRACE_MAX_PROBES=4096
	runs=${BPFTRACE_RUNS:-1}
	measure "bpftrace $(bpftrace --version |
		cut -d' ' -f2)" bpftrace -e "usdt:$tmp/gen:gen:* { @n = count(); }"
fi
