#!/bin/sh
# Mode inst against the number of distinct specs: how long `usdtkit
# trace` takes from its start to "Tracing" (load, attach), and what the
# kernel holds for it (bpftool's memlock of every program and map of the
# trace), in mode inst and, for comparison, in mode perf (one program,
# cookies: the same perf events, no per-spec program).
#
# Targets: a PIE of one probe with N sites, each its own spec
# (tests/fixtures/gen_probes.py sites N: N = 1, 10, 100), and the probes of
# Debian's libruby 3.1 (22 probes, 40 sites, 34 distinct specs) and
# python3.11 (8 probes, 8 sites). The real files are copied first: no
# running process maps the copy, so no one's semaphores are raised.
# Root, BPF; bpftool. Each row: RUNS runs (default 3), every run shown.
#
# usage: bench/inst_bench.sh [BUILD_DIR [RUNS]]
set -eu
cd "$(dirname "$0")/.."
b=${1:-build} runs=${2:-3}
u=$b/cli/usdtkit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

for n in 1 10 100; do
	python3 tests/fixtures/gen_probes.py sites $n "$tmp/m$n.c"
	cc -O0 -fpie -pie -o "$tmp/m$n" "$tmp/m$n.c"
done
cp /usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1 "$tmp/libruby.so" 2>/dev/null || :
cp /usr/bin/python3.11 "$tmp/python3.11" 2>/dev/null || :

# kernel bytes (memlock, from /proc/PID/fdinfo) of the programs and
# maps the trace holds, and how many of its programs are mode inst's
kmem() {
	bpftool -j prog show 2>/dev/null >"$tmp/progs"
	python3 - "$1" "$tmp/progs" <<'PY'
import glob, json, sys
names = {p["id"]: p.get("name") for p in json.load(open(sys.argv[2]))}
inst = ibytes = pbytes = mbytes = 0
for f in glob.glob("/proc/%s/fdinfo/*" % sys.argv[1]):
    try:
        kv = dict(l.split(":", 1) for l in open(f).read().splitlines() if ":" in l)
    except OSError:
        continue
    mem = int(kv.get("memlock", "0").strip() or 0)
    if "link_id" in kv:	# a BPF link names its program too
        continue
    if "prog_id" in kv:
        pbytes += mem
        if names.get(int(kv["prog_id"])) == "usdtkit_inst":
            inst += 1
            ibytes += mem
    elif "map_id" in kv:
        mbytes += mem
print(inst, ibytes, pbytes, mbytes)
PY
}

# reapers (attach/reaper.c) of earlier runs still release perf events,
# which the next attach would wait for: at most 120 s
quiet() {
	i=0
	while [ -n "$(ps -eo comm= | grep -x usdtkit-reaper)" ] && [ $i -lt 1200 ]; do
		sleep 0.1; i=$((i + 1))
	done
}

# run MODE TARGET...: one trace; "ms nprogs inst_bytes prog_bytes map_bytes"
run() {
	mode=$1; shift
	quiet
	rm -f "$tmp/err"
	t0=$(date +%s%N)
	"$u" trace -v --mode "$mode" "$@" >/dev/null 2>"$tmp/err" &
	t=$!
	until grep -q '^Tracing ' "$tmp/err" 2>/dev/null; do
		kill -0 $t 2>/dev/null || { cat "$tmp/err" >&2; return 1; }
		sleep 0.005
	done
	t1=$(date +%s%N)
	echo "$(( (t1 - t0) / 1000000 )) $(kmem $t)"
	kill -INT $t; wait $t || :
}

printf '%-22s %-5s %-26s %-6s %-12s %-12s %-10s\n' target mode "ms to Tracing (each run)" \
	progs inst_bytes all_progs maps
for tg in m1 m10 m100 ruby python; do
	case $tg in
	m*) set -- "$tmp/$tg:many:site" ;;
	ruby) [ -f "$tmp/libruby.so" ] || continue; set -- "$tmp/libruby.so:ruby:*" ;;
	python) [ -f "$tmp/python3.11" ] || continue; set -- "$tmp/python3.11:python:*" ;;
	esac
	for mode in inst perf; do
		times="" last=""
		i=0
		while [ $i -lt "$runs" ]; do
			r=$(run $mode --best-effort "$@")
			times="$times${times:+,}${r%% *}" last=${r#* }
			i=$((i + 1))
		done
		# shellcheck disable=SC2086
		printf '%-22s %-5s %-26s %-6s %-12s %-12s %-10s\n' "$tg" $mode "$times" $last
	done
done
